/* cpu_kernels.c - the CPU backend's kernels: fill, cast-copy, arange and the
 * Philox random fills (the same functions the CUDA kernels compute). */
#include "cpu_kernels.h"

/* The casts' selects (pdt_f32_to_i32) must be free to run on every lane, as in cpu_vmath.h:
 * no value changes, only exception flags that nothing reads. */
#pragma GCC optimize("no-trapping-math")

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_half.h"
#include "cpu_iter.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "pdt_convert.h"
#include "pdt_half.h"
#include "pdt_philox.h"

/* ---- conversions between the dtypes ---- */

#define TO_BOOL(x) ((uint8_t)((x) != 0))
#define TO_SAME(x) (x)
#define BOOL_IN(x) ((x) != 0) /* a stray non-0/1 bool byte reads as 1, as on the GPU */
#define F_TO_I32(x) _Generic((x), float : pdt_f32_to_i32, default : pdt_f64_to_i32)(x)
/* into int64 the branches stay: SSE2 has no vector conversion to 64 bits, and the scalar
 * selects measured slower than the branches, which ordinary values predict */
#define F_TO_I64(x) pdt_f64_to_i64((double)(x))
/* into the half types: Note [half precision] in pdt_half.h (one rounding) */
#define TO_F16(x) pdt_f64_to_f16((double)(x))
#define TO_BF16(x) pdt_f64_to_bf16((double)(x))
#define F32_TO_F16(x) pdt_f32_to_f16(x)
#define F32_TO_BF16(x) pdt_f32_to_bf16(x)
#define BOOL_TO_F16(x) pdt_f32_to_f16((float)BOOL_IN(x))
#define BOOL_TO_BF16(x) pdt_f32_to_bf16((float)BOOL_IN(x))
/* out of the half types: exact in float32 first */
#define H16(x) pdt_f16_to_f32(x)
#define B16(x) pdt_bf16_to_f32(x)
#define H16_TO_BOOL(x) TO_BOOL(H16(x))
#define H16_TO_I32(x) F_TO_I32(H16(x))
#define H16_TO_I64(x) F_TO_I64(H16(x))
#define H16_TO_BF16(x) pdt_f32_to_bf16(H16(x))
#define B16_TO_BOOL(x) TO_BOOL(B16(x))
#define B16_TO_I32(x) F_TO_I32(B16(x))
#define B16_TO_I64(x) F_TO_I64(B16(x))
#define B16_TO_F16(x) pdt_f32_to_f16(B16(x))
/* into the small integers: Note [small integers] in pdt_dtype.h (integers wrap),
 * Note [float to small int] in pdt_convert.h */
#define W_U8(x) ((uint8_t)(x))
#define W_I8(x) ((int8_t)(uint8_t)(x))
#define W_I16(x) ((int16_t)(uint16_t)(x))
/* the low bits of the saturated int64 (pdt_f64_to_u8, _i8, _i16's values) from the
 * branch-free forms the level's rows use (cpu_simd.h) */
#define F_LOW16(x) _Generic((x), float : pdt_f32_low16, default : pdt_f64_low16)(x)
#define F_TO_U8(x) ((uint8_t)F_LOW16(x))
#define F_TO_I8(x) ((int8_t)(uint8_t)F_LOW16(x))
#define F_TO_I16(x) ((int16_t)F_LOW16(x))
#define H16_TO_U8(x) F_TO_U8(H16(x))
#define H16_TO_I8(x) F_TO_I8(H16(x))
#define H16_TO_I16(x) F_TO_I16(H16(x))
#define B16_TO_U8(x) F_TO_U8(B16(x))
#define B16_TO_I8(x) F_TO_I8(B16(x))
#define B16_TO_I16(x) F_TO_I16(B16(x))

/* Row kernels for dst type D from src type S: d: (n,) stride ds; s: (n,) stride ss.
 * Contiguous rows take a loop over plain indices, which the compiler vectorises
 * (the bool casts become compares and masks: no branch per element). */
#define CAST_ROW(NAME, D, S, CONV)                                                                 \
    static void NAME(char *d, int64_t ds, char *s, int64_t ss, int64_t n, void *ctx)               \
    {                                                                                              \
        (void)ctx;                                                                                 \
        if (ds == (int64_t)sizeof(D) && ss == (int64_t)sizeof(S)) {                                \
            D *restrict dd = (D *)d;                                                               \
            const S *restrict sp = (const S *)s;                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                dd[i] = (D)CONV(sp[i]);                                                            \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            *(D *)(d + i * ds) = (D)CONV(*(const S *)(s + i * ss));                                \
    }

/* One row kernel per destination, with the conversion into each dtype given
 * explicitly (bool, int32, int64, the float dtypes, float16, bfloat16, and the
 * small integers uint8, int8, int16). */
#define CAST_ROWS_FROM(S, SN, TO_B, TO_I32, TO_I64, TO_F, TO_H, TO_BH, TO_U8, TO_I8, TO_I16)       \
    CAST_ROW(cast_##SN##_to_bool, uint8_t, S, TO_B)                                                \
    CAST_ROW(cast_##SN##_to_i32, int32_t, S, TO_I32)                                               \
    CAST_ROW(cast_##SN##_to_i64, int64_t, S, TO_I64)                                               \
    CAST_ROW(cast_##SN##_to_f32, float, S, TO_F)                                                   \
    CAST_ROW(cast_##SN##_to_f64, double, S, TO_F)                                                  \
    CAST_ROW(cast_##SN##_to_f16, uint16_t, S, TO_H)                                                \
    CAST_ROW(cast_##SN##_to_bf16, uint16_t, S, TO_BH)                                              \
    CAST_ROW(cast_##SN##_to_u8, uint8_t, S, TO_U8)                                                 \
    CAST_ROW(cast_##SN##_to_i8, int8_t, S, TO_I8)                                                  \
    CAST_ROW(cast_##SN##_to_i16, int16_t, S, TO_I16)

#define INT_SOURCE TO_BOOL, TO_SAME, TO_SAME, TO_SAME, TO_F16, TO_BF16, W_U8, W_I8, W_I16
#define CAST_ROWS_FROM_EXPANDED(...) CAST_ROWS_FROM(__VA_ARGS__)
#define CAST_ROWS_FROM_INT(S, SN) CAST_ROWS_FROM_EXPANDED(S, SN, INT_SOURCE)
CAST_ROWS_FROM(uint8_t, bool, TO_BOOL, BOOL_IN, BOOL_IN, BOOL_IN, BOOL_TO_F16, BOOL_TO_BF16,
               BOOL_IN, BOOL_IN, BOOL_IN)
CAST_ROWS_FROM_INT(int32_t, i32)
CAST_ROWS_FROM_INT(int64_t, i64)
CAST_ROWS_FROM(float, f32, TO_BOOL, F_TO_I32, F_TO_I64, TO_SAME, F32_TO_F16, F32_TO_BF16, F_TO_U8,
               F_TO_I8, F_TO_I16)
CAST_ROWS_FROM(double, f64, TO_BOOL, F_TO_I32, F_TO_I64, TO_SAME, TO_F16, TO_BF16, F_TO_U8, F_TO_I8,
               F_TO_I16)
CAST_ROWS_FROM(uint16_t, f16, H16_TO_BOOL, H16_TO_I32, H16_TO_I64, H16, TO_SAME, H16_TO_BF16,
               H16_TO_U8, H16_TO_I8, H16_TO_I16)
CAST_ROWS_FROM(uint16_t, bf16, B16_TO_BOOL, B16_TO_I32, B16_TO_I64, B16, B16_TO_F16, TO_SAME,
               B16_TO_U8, B16_TO_I8, B16_TO_I16)
CAST_ROWS_FROM_INT(uint8_t, u8)
CAST_ROWS_FROM_INT(int8_t, i8)
CAST_ROWS_FROM_INT(int16_t, i16)

/* Contiguous float16 <-> float32 rows go through cpu_half.c (F16C where present). */
static void cast_f16_to_f32_fast(char *d, int64_t ds, char *s, int64_t ss, int64_t n, void *ctx)
{
    if (ds == 4 && ss == 2)
        pdt_cpu_f16_to_f32((float *)d, (const uint16_t *)s, n);
    else
        cast_f16_to_f32(d, ds, s, ss, n, ctx);
}

/* Contiguous float32 and float64 rows into the integers and bool through the level's
 * kernels (cpu_vcast.h), the same values as the rows above. */
#define CAST_FAST(NAME, S, D, ROW, WHICH)                                                          \
    static void NAME(char *d, int64_t ds, char *s, int64_t ss, int64_t n, void *ctx)               \
    {                                                                                              \
        if (ds == (int64_t)sizeof(D) && ss == (int64_t)sizeof(S))                                  \
            pdt_cpu_simd()->cast[WHICH](d, s, n);                                                  \
        else                                                                                       \
            ROW(d, ds, s, ss, n, ctx);                                                             \
    }
CAST_FAST(cast_f32_to_i32_fast, float, int32_t, cast_f32_to_i32, PDT_VCAST_F32_I32)
CAST_FAST(cast_f32_to_i64_fast, float, int64_t, cast_f32_to_i64, PDT_VCAST_F32_I64)
CAST_FAST(cast_f32_to_u8_fast, float, uint8_t, cast_f32_to_u8, PDT_VCAST_F32_U8)
CAST_FAST(cast_f32_to_i8_fast, float, uint8_t, cast_f32_to_i8, PDT_VCAST_F32_U8) /* u8's bytes */
CAST_FAST(cast_f32_to_i16_fast, float, uint16_t, cast_f32_to_i16, PDT_VCAST_F32_I16)
CAST_FAST(cast_f64_to_i32_fast, double, int32_t, cast_f64_to_i32, PDT_VCAST_F64_I32)
CAST_FAST(cast_f64_to_u8_fast, double, uint8_t, cast_f64_to_u8, PDT_VCAST_F64_U8)
CAST_FAST(cast_f64_to_i8_fast, double, uint8_t, cast_f64_to_i8, PDT_VCAST_F64_U8)
CAST_FAST(cast_f64_to_i16_fast, double, uint16_t, cast_f64_to_i16, PDT_VCAST_F64_I16)
CAST_FAST(cast_f64_to_bool_fast, double, uint8_t, cast_f64_to_bool, PDT_VCAST_F64_BOOL)
CAST_FAST(cast_i32_to_f32_fast, int32_t, float, cast_i32_to_f32, PDT_VCAST_I32_F32)
CAST_FAST(cast_i32_to_f64_fast, int32_t, double, cast_i32_to_f64, PDT_VCAST_I32_F64)
CAST_FAST(cast_i64_to_f32_fast, int64_t, float, cast_i64_to_f32, PDT_VCAST_I64_F32)
CAST_FAST(cast_i64_to_f64_fast, int64_t, double, cast_i64_to_f64, PDT_VCAST_I64_F64)
CAST_FAST(cast_i32_to_i64_fast, int32_t, int64_t, cast_i32_to_i64, PDT_VCAST_I32_I64)
CAST_FAST(cast_i64_to_i32_fast, int64_t, int32_t, cast_i64_to_i32, PDT_VCAST_I64_I32)
CAST_FAST(cast_bool_to_f32_fast, uint8_t, float, cast_bool_to_f32, PDT_VCAST_BOOL_F32)
CAST_FAST(cast_bool_to_i64_fast, uint8_t, int64_t, cast_bool_to_i64, PDT_VCAST_BOOL_I64)

static void cast_f32_to_f16_fast(char *d, int64_t ds, char *s, int64_t ss, int64_t n, void *ctx)
{
    if (ds == 2 && ss == 4)
        pdt_cpu_f32_to_f16((uint16_t *)d, (const float *)s, n);
    else
        cast_f32_to_f16(d, ds, s, ss, n, ctx);
}

/* Contiguous float64 rows into float16: round to odd into float32 (pdt_f64_to_f32_odd,
 * Note [half precision] in pdt_half.h; branch-free, so the loop vectorises) a block at a
 * time, then float32 -> float16 through cpu_half.c (F16C where present: pdt_f32_to_f16's
 * bits).  1e5 elements, one thread (AMD EPYC Zen 4, 2026-12-01): 1,199 -> ~150 us (NumPy
 * 362). */
static void cast_f64_to_f16_fast(char *d, int64_t ds, char *s, int64_t ss, int64_t n, void *ctx)
{
    if (ds != 2 || ss != 8) {
        cast_f64_to_f16(d, ds, s, ss, n, ctx);
        return;
    }
    float buf[256];
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        for (int64_t i = 0; i < m; i++) {
            double x;
            memcpy(&x, s + (b + i) * 8, sizeof x);
            buf[i] = pdt_f64_to_f32_odd(x);
        }
        pdt_cpu_f32_to_f16((uint16_t *)(void *)(d + b * 2), buf, m);
    }
}

#define CAST_ROW_TABLE(SN)                                                                         \
    {                                                                                              \
        cast_##SN##_to_bool, cast_##SN##_to_i32, cast_##SN##_to_i64, cast_##SN##_to_f32,           \
            cast_##SN##_to_f64, cast_##SN##_to_f16, cast_##SN##_to_bf16, cast_##SN##_to_u8,        \
            cast_##SN##_to_i8, cast_##SN##_to_i16                                                  \
    }

/* cast_rows[src][dst], in pdt_dtype order */
static const pdt_cpu_row_fn cast_rows[PDT_NUM_DTYPES][PDT_NUM_DTYPES] = {
    {cast_bool_to_bool, cast_bool_to_i32, cast_bool_to_i64_fast, cast_bool_to_f32_fast,
     cast_bool_to_f64, cast_bool_to_f16, cast_bool_to_bf16, cast_bool_to_u8, cast_bool_to_i8,
     cast_bool_to_i16},
    {cast_i32_to_bool, cast_i32_to_i32, cast_i32_to_i64_fast, cast_i32_to_f32_fast,
     cast_i32_to_f64_fast, cast_i32_to_f16, cast_i32_to_bf16, cast_i32_to_u8, cast_i32_to_i8,
     cast_i32_to_i16},
    {cast_i64_to_bool, cast_i64_to_i32_fast, cast_i64_to_i64, cast_i64_to_f32_fast,
     cast_i64_to_f64_fast, cast_i64_to_f16, cast_i64_to_bf16, cast_i64_to_u8, cast_i64_to_i8,
     cast_i64_to_i16},
    {cast_f32_to_bool, cast_f32_to_i32_fast, cast_f32_to_i64_fast, cast_f32_to_f32, cast_f32_to_f64,
     cast_f32_to_f16_fast, cast_f32_to_bf16, cast_f32_to_u8_fast, cast_f32_to_i8_fast,
     cast_f32_to_i16_fast},
    {cast_f64_to_bool_fast, cast_f64_to_i32_fast, cast_f64_to_i64, cast_f64_to_f32, cast_f64_to_f64,
     cast_f64_to_f16_fast, cast_f64_to_bf16, cast_f64_to_u8_fast, cast_f64_to_i8_fast,
     cast_f64_to_i16_fast},
    {cast_f16_to_bool, cast_f16_to_i32, cast_f16_to_i64, cast_f16_to_f32_fast, cast_f16_to_f64,
     cast_f16_to_f16, cast_f16_to_bf16, cast_f16_to_u8, cast_f16_to_i8, cast_f16_to_i16},
    CAST_ROW_TABLE(bf16),
    CAST_ROW_TABLE(u8),
    CAST_ROW_TABLE(i8),
    CAST_ROW_TABLE(i16)};

/* A cast of two contiguous tensors, split across the pool. */
typedef struct cast_job {
    pdt_cpu_row_fn fn;
    char *d, *s;
    int64_t dsize, ssize;
    int stream; /* Note [streamed outputs] */
} cast_job;

static void cast_range(int64_t begin, int64_t end, void *ctx)
{
    const cast_job *j = ctx;
    char *d = j->d + begin * j->dsize, *s = j->s + begin * j->ssize;
    if (j->stream)
        pdt_cpu_row_streamed(j->fn, d, j->dsize, s, j->ssize, end - begin, NULL);
    else
        j->fn(d, j->dsize, s, j->ssize, end - begin, NULL);
}

#define CAST_GRAIN 32768 /* elements a thread takes at least */

pdt_status pdt_cpu_copy_cast(const pdt_tensor *dst, const pdt_tensor *src)
{
    int64_t n = pdt_tensor_numel(dst);
    if (dst->dtype != src->dtype && n >= 2 * CAST_GRAIN && pdt_tensor_is_contiguous(dst) &&
        pdt_tensor_is_contiguous(src)) {
        cast_job j = {cast_rows[src->dtype][dst->dtype],
                      pdt_tensor_ptr(dst),
                      pdt_tensor_ptr(src),
                      (int64_t)pdt_dtype_size(dst->dtype),
                      (int64_t)pdt_dtype_size(src->dtype),
                      n * (int64_t)pdt_dtype_size(dst->dtype) >= PDT_STREAM_MIN_BYTES};
        pdt_cpu_parallel_for(n, CAST_GRAIN, cast_range, &j);
        return PDT_OK;
    }
    if (dst->dtype == src->dtype)
        pdt_cpu_copy_strided(dst, src);
    else
        pdt_cpu_for_each_row(dst, src, cast_rows[src->dtype][dst->dtype], NULL);
    return PDT_OK;
}

/* ---- fill ---- */

typedef union fill_value {
    uint8_t b;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    uint16_t h; /* float16 or bfloat16 bits */
    int8_t i8;
    int16_t i16;
} fill_value;

#define FILL_ROW(NAME, T, FIELD)                                                                   \
    static void NAME(char *d, int64_t ds, char *unused, int64_t us, int64_t n, void *ctx)          \
    {                                                                                              \
        (void)unused, (void)us;                                                                    \
        T v = ((const fill_value *)ctx)->FIELD;                                                    \
        if (ds == (int64_t)sizeof(T)) {                                                            \
            T *p = (T *)d;                                                                         \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = v;                                                                          \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(T *)(d + i * ds) = v;                                                            \
        }                                                                                          \
    }
FILL_ROW(fill_bool, uint8_t, b)
FILL_ROW(fill_i32, int32_t, i32)
FILL_ROW(fill_i64, int64_t, i64)
FILL_ROW(fill_f32, float, f32)
FILL_ROW(fill_f64, double, f64)
FILL_ROW(fill_half, uint16_t, h)
FILL_ROW(fill_i8, int8_t, i8)
FILL_ROW(fill_i16, int16_t, i16)

static const pdt_cpu_row_fn fill_rows[PDT_NUM_DTYPES] = {fill_bool, fill_i32,  fill_i64,  fill_f32,
                                                         fill_f64,  fill_half, fill_half, fill_bool,
                                                         fill_i8,   fill_i16};

/* A contiguous fill of 2 FILL_GRAIN bytes or more is split across the pool in
 * pieces of FILL_GRAIN bytes, a memset each when the value's bits are zero
 * (zeros(1000, 1000) float32 on one thread: 70-120 us here; NumPy's calloc
 * leaves the zeroing to the page faults of the first writes). */
#define FILL_GRAIN ((size_t)1 << 17)

typedef struct {
    char *p;
    int64_t n, esize;
    pdt_cpu_row_fn row;
    fill_value *v;
    int zero; /* the value's bits are all zero */
} fill_job;

static void fill_range(int64_t begin, int64_t end, void *ctx)
{
    const fill_job *j = ctx;
    int64_t per = (int64_t)FILL_GRAIN / j->esize, from = begin * per;
    int64_t to = end * per < j->n ? end * per : j->n;
    char *d = j->p + from * j->esize;
    if (j->zero)
        memset(d, 0, (size_t)((to - from) * j->esize));
    else
        j->row(d, j->esize, NULL, 0, to - from, j->v);
}

pdt_status pdt_cpu_fill(const pdt_tensor *dst, pdt_scalar value)
{
    fill_value v;
    switch (dst->dtype) {
    case PDT_BOOL: v.b = value.is_float ? value.f != 0 : value.i != 0; break;
    case PDT_INT32: v.i32 = value.is_float ? pdt_f64_to_i32(value.f) : (int32_t)value.i; break;
    case PDT_INT64: v.i64 = value.is_float ? pdt_f64_to_i64(value.f) : value.i; break;
    case PDT_FLOAT32: v.f32 = value.is_float ? (float)value.f : (float)value.i; break;
    case PDT_FLOAT64: v.f64 = value.is_float ? value.f : (double)value.i; break;
    case PDT_FLOAT16: v.h = pdt_f64_to_f16(value.is_float ? value.f : (double)value.i); break;
    case PDT_BFLOAT16: v.h = pdt_f64_to_bf16(value.is_float ? value.f : (double)value.i); break;
    case PDT_UINT8: v.b = value.is_float ? pdt_f64_to_u8(value.f) : (uint8_t)value.i; break;
    case PDT_INT8: v.i8 = value.is_float ? pdt_f64_to_i8(value.f) : (int8_t)(uint8_t)value.i; break;
    case PDT_INT16:
        v.i16 = value.is_float ? pdt_f64_to_i16(value.f) : (int16_t)(uint16_t)value.i;
        break;
    }
    const size_t esize = pdt_dtype_size(dst->dtype);
    const int64_t n = pdt_tensor_numel(dst);
    if ((size_t)n * esize >= 2 * FILL_GRAIN && pdt_tensor_is_contiguous(dst)) {
        static const fill_value zero;
        fill_job j = {pdt_tensor_ptr(dst),   n,  (int64_t)esize,
                      fill_rows[dst->dtype], &v, memcmp(&v, &zero, esize) == 0};
        int64_t per = (int64_t)(FILL_GRAIN / esize);
        pdt_cpu_parallel_for((n + per - 1) / per, 1, fill_range, &j);
        return PDT_OK;
    }
    pdt_cpu_for_each_row(dst, NULL, fill_rows[dst->dtype], &v);
    return PDT_OK;
}

/* ---- arange: dst (n,) contiguous ---- */

/* Element i is start + (double)i * step, cast to the dtype (the core has checked that
 * both ends fit an integer dtype).  The loops below keep those bits while letting the
 * compiler vectorise: (double)i is written (double)base + (double)k with k a 32-bit
 * offset in a piece of at most 2^30 elements, exact since i < 2^53; an integer dtype
 * whose start, step and last value are whole numbers of at most 2^52 counts in
 * int64, which is what the double formula gives there (every i step is at most
 * |last - start| <= 2^53, so the products and sums are exact in either). */
typedef struct {
    char *p;
    pdt_dtype dtype;
    double start, step;
    int whole; /* integer dtype, start and step whole: count in integers */
} arange_job;

#define ARANGE_PIECE (1 << 30)
#define ARANGE_GRAIN 65536

#define ARANGE_FLOAT(T)                                                                            \
    for (int64_t base = begin; base < end; base += ARANGE_PIECE) {                                 \
        int32_t m = (int32_t)(end - base < ARANGE_PIECE ? end - base : ARANGE_PIECE);              \
        T *o = (T *)j->p + base;                                                                   \
        double db = (double)base;                                                                  \
        for (int32_t k = 0; k < m; k++)                                                            \
            o[k] = (T)(j->start + (db + (double)k) * j->step);                                     \
    }

#define ARANGE_WHOLE(T)                                                                            \
    do {                                                                                           \
        T *o = (T *)j->p;                                                                          \
        const int64_t d = (int64_t)j->step;                                                        \
        int64_t v = (int64_t)j->start + begin * d; /* in int64: |v| <= 2^52 + |d| */               \
        for (int64_t i = begin; i < end; i++, v += d)                                              \
            o[i] = (T)v;                                                                           \
    } while (0)

static void arange_range(int64_t begin, int64_t end, void *ctx)
{
    const arange_job *j = ctx;
    if (j->whole && j->dtype == PDT_INT32) {
        ARANGE_WHOLE(int32_t);
        return;
    }
    if (j->whole) {
        ARANGE_WHOLE(int64_t);
        return;
    }
    if (j->dtype == PDT_FLOAT32) {
        ARANGE_FLOAT(float)
        return;
    }
    if (j->dtype == PDT_FLOAT64) {
        ARANGE_FLOAT(double)
        return;
    }
    char *p = j->p;
    for (int64_t i = begin; i < end; i++) {
        double v = j->start + (double)i * j->step;
        switch (j->dtype) {
        case PDT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
        case PDT_INT32: ((int32_t *)p)[i] = pdt_f64_to_i32(v); break;
        case PDT_INT64: ((int64_t *)p)[i] = pdt_f64_to_i64(v); break;
        case PDT_FLOAT16: ((uint16_t *)p)[i] = pdt_f64_to_f16(v); break;
        case PDT_BFLOAT16: ((uint16_t *)p)[i] = pdt_f64_to_bf16(v); break;
        case PDT_UINT8: ((uint8_t *)p)[i] = pdt_f64_to_u8(v); break;
        case PDT_INT8: ((int8_t *)p)[i] = pdt_f64_to_i8(v); break;
        case PDT_INT16: ((int16_t *)p)[i] = pdt_f64_to_i16(v); break;
        default: break;
        }
    }
}

static int is_whole(double v) { return fabs(v) <= 0x1p52 && v == floor(v); }

pdt_status pdt_cpu_arange(const pdt_tensor *dst, double start, double step)
{
    int64_t n = dst->shape[0];
    int int_dtype = dst->dtype == PDT_INT32 || dst->dtype == PDT_INT64;
    arange_job j = {pdt_tensor_ptr(dst), dst->dtype, start, step,
                    int_dtype && is_whole(start) && is_whole(step) &&
                        is_whole(start + (double)(n - 1) * step)};
    pdt_cpu_parallel_for(n, ARANGE_GRAIN, arange_range, &j);
    return PDT_OK;
}

/* ---- random: Note [Philox layout] in pdt_philox.h; dst (n,) contiguous ---- */

/* The blocks are made RND_TILE at a time by the dispatch level's kernel (16 side
 * by side, the same bits as pdt_philox_block) into a buffer on the stack, and
 * ranges of blocks split across the pool: a block's words depend only on its
 * number, so the split changes nothing.  Uniform floats are written out here
 * without pdt_uniform_f32's (f64's) volatile, which kept the loop from vectorising: this
 * file is built with -ffp-contract=off, so the product and the sum are still
 * rounded separately, as on the GPU. */
#define RND_TILE 256
#define RND_GRAIN 2048 /* blocks a thread takes at least */

typedef struct {
    const pdt_random_spec *spec;
    char *p;
    pdt_dtype dtype;
    int64_t n;
    int per_block; /* elements a block gives: 4 (float32 uniform) or 2 */
} rnd_job;

/* Element i: the double v, or the integer iv for PDT_RANDOM_INT, in the dtype. */
static void rnd_store(const rnd_job *j, int64_t i, double v, int64_t iv)
{
    int is_int = j->spec->kind == PDT_RANDOM_INT;
    char *p = j->p;
    switch (j->dtype) {
    case PDT_BOOL: ((uint8_t *)p)[i] = is_int ? iv != 0 : v != 0; break;
    case PDT_INT32: ((int32_t *)p)[i] = is_int ? (int32_t)iv : pdt_f64_to_i32(v); break;
    case PDT_INT64: ((int64_t *)p)[i] = is_int ? iv : pdt_f64_to_i64(v); break;
    case PDT_FLOAT32: ((float *)p)[i] = is_int ? (float)iv : (float)v; break;
    case PDT_FLOAT64: ((double *)p)[i] = is_int ? (double)iv : v; break;
    default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
    }
}

static void rnd_element(const rnd_job *j, int64_t i, uint32_t lo, uint32_t hi)
{
    const pdt_random_spec *spec = j->spec;
    if (spec->kind == PDT_RANDOM_INT)
        rnd_store(j, i, 0, pdt_randint(lo, hi, spec->low, spec->high));
    else
        rnd_store(j, i, pdt_uniform_f64(lo, hi, spec->a, spec->b), 0);
}

static void rnd_range(int64_t b0, int64_t b1, void *ctx)
{
    const rnd_job *j = ctx;
    const pdt_random_spec *spec = j->spec;
    uint32_t words[4 * RND_TILE];
    for (int64_t blk = b0; blk < b1; blk += RND_TILE) {
        int64_t nb = b1 - blk < RND_TILE ? b1 - blk : RND_TILE;
        pdt_cpu_simd()->philox_blocks(spec->seed, spec->offset + (uint64_t)blk, nb, words);
        int64_t e0 = blk * j->per_block, e1 = (blk + nb) * j->per_block;
        if (e1 > j->n)
            e1 = j->n;
        if (j->per_block == 4) {
            float *out = (float *)j->p + e0, a = (float)spec->a, d = (float)spec->b - a;
            for (int64_t k = 0; k < e1 - e0; k++) {
                float u = (float)(words[k] >> 8) * 0x1p-24f;
                out[k] = a + d * u;
            }
            continue;
        }
        if (spec->kind == PDT_RANDOM_UNIFORM && j->dtype == PDT_FLOAT64) { /* likewise */
            double *out = (double *)j->p + e0, a = spec->a, d = spec->b - a;
            for (int64_t k = 0; k < e1 - e0; k++) {
                uint64_t bits = ((uint64_t)words[2 * k + 1] << 32) | words[2 * k];
                out[k] = a + d * ((double)(bits >> 11) * 0x1p-53);
            }
            continue;
        }
        if (spec->kind == PDT_RANDOM_NORMAL) { /* Note [normal on the CPU] */
            double z[2 * RND_TILE];
            pdt_cpu_simd()->normal_words(words, e1 - e0, z);
            for (int64_t i = e0; i < e1; i++)
                rnd_store(j, i, spec->a + spec->b * z[i - e0], 0);
            continue;
        }
        for (int64_t i = e0; i < e1; i++)
            rnd_element(j, i, words[2 * (i - e0)], words[2 * (i - e0) + 1]);
    }
}

pdt_status pdt_cpu_random(const pdt_tensor *dst, const pdt_random_spec *spec)
{
    rnd_job j = {spec, pdt_tensor_ptr(dst), dst->dtype, pdt_tensor_numel(dst),
                 spec->kind == PDT_RANDOM_UNIFORM && dst->dtype == PDT_FLOAT32 ? 4 : 2};
    pdt_cpu_parallel_for((j.n + j.per_block - 1) / j.per_block, RND_GRAIN, rnd_range, &j);
    return PDT_OK;
}
