/* cpu_elementwise.c - the CPU backend's elementwise binary ops (the unary ones:
 * cpu_unary.c; the walk both share: cpu_ew_walk.c, cpu_ew.h).
 *
 * The core hands us an output and inputs already broadcast to the output's
 * shape, in the compute dtype (see pdt_elementwise.h).  A scalar input becomes
 * an operand with byte stride 0 that points at a local copy of its value, so
 * one row kernel per (op, dtype) covers every case:
 *   - all unit strides: a plain loop over arrays that gcc -O3 vectorises;
 *   - one input a scalar (stride 0), the rest unit strides: the scalar is
 *     loaded once, and the loop vectorises again;
 *   - anything else: the same loop over byte strides.
 * Rows come from a three-operand walk (out, a, b) that takes the dims in the
 * output's memory order (Note [memory order] in pdt_tensor.h), drops size-1
 * dims and merges dims laid out back to back in every operand (so contiguous
 * tensors, and transposed ones whose result is transposed too, are one row).
 * Ops over more than ~64K elements are split over the cores by element range;
 * smaller ones run on the calling thread.  float arithmetic, comparisons, the
 * truncating division, float32 // and %, float32 fmod (cpu_ew_float2.c) and float32 powers
 * run the vectorised kernels
 * of the instruction-set level chosen at load (cpu_simd.h, cpu_vmath.h, cpu_vdivmod.h);
 * the other rows are built once, for the baseline.
 *
 * Semantics shared with the CUDA kernels (cuda_elementwise.cu), element for
 * element: Python's floor division and remainder, PyTorch's truncating division
 * (trunc(a / b) for floats, C's / for integers) (Note [integer division by
 * zero] in pdt_elementwise.h for the integers), NaN propagating through
 * maximum/minimum, integer arithmetic wrapping (done in unsigned types, where C
 * defines the wrap).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_ew.h"
#include "cpu_kernels.h"
#include "pdt_convert.h"

/* ---- element functions that are more than an operator ---- */

/* Python's float // and % (PDT_FLOAT_DIVMOD, cpu_simd.h) with the C library's fmod: float64
 * rows, strided float32 ones and the rows' rare cases */
PDT_FLOAT_DIVMOD(floordiv_f32, remainder_f32, float, f, fmodf)
PDT_FLOAT_DIVMOD(floordiv_f64, remainder_f64, double, , fmod)

/* Integer // and % rounding toward -inf; by 0 they give 0, and MIN // -1
 * wraps (Note [integer division by zero]).  Integer ** by squaring, wrapping;
 * a negative exponent gives what the real power truncates to (Note [integer
 * powers]). */
#define INT_DIVMOD_POW(SN, T, U)                                                                   \
    static inline T floordiv_##SN(T a, T b)                                                        \
    {                                                                                              \
        if (b == 0)                                                                                \
            return 0;                                                                              \
        if (b == -1)                                                                               \
            return (T)((U)0 - (U)a);                                                               \
        T q = a / b, r = a % b;                                                                    \
        return r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q;                                         \
    }                                                                                              \
    static inline T truncdiv_##SN(T a, T b)                                                        \
    {                                                                                              \
        return b == 0 ? 0 : b == -1 ? (T)((U)0 - (U)a) : a / b;                                    \
    }                                                                                              \
    static inline T remainder_##SN(T a, T b)                                                       \
    {                                                                                              \
        if (b == 0 || b == -1)                                                                     \
            return 0;                                                                              \
        T r = a % b;                                                                               \
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;                                         \
    }                                                                                              \
    static inline T pow_##SN(T base, T e)                                                          \
    {                                                                                              \
        if (e < 0)                                                                                 \
            return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;                            \
        U r = 1, b = (U)base;                                                                      \
        for (; e; e >>= 1, b *= b)                                                                 \
            if (e & 1)                                                                             \
                r *= b;                                                                            \
        return (T)r;                                                                               \
    }
INT_DIVMOD_POW(i32, int32_t, uint32_t)
INT_DIVMOD_POW(i64, int64_t, uint64_t)

/* ---- row kernels ---- */

/* EXPR computes an O from the elements x and y (of type T). */
#define BINARY_ROW(NAME, T, O, EXPR)                                                               \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)extra;                                                                               \
        O *po = (O *)o;                                                                            \
        const T *pa = (const T *)a, *pb = (const T *)b;                                            \
        if (so == sizeof(O) && sa == sizeof(T) && sb == sizeof(T)) {                               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = pa[i], y = pb[i];                                                            \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else if (so == sizeof(O) && sa == sizeof(T) && sb == 0) {                                \
            const T y = *pb;                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = pa[i];                                                                       \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else if (so == sizeof(O) && sa == 0 && sb == sizeof(T)) {                                \
            const T x = *pa;                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T y = pb[i];                                                                       \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = *(const T *)(a + i * sa), y = *(const T *)(b + i * sb);                      \
                *(O *)(o + i * so) = (O)(EXPR);                                                    \
            }                                                                                      \
        }                                                                                          \
    }

#define AS_BOOL(v) ((v) != 0) /* a bool byte, any nonzero one True */

/* A row whose contiguous forms (and a row with one value) go to the kernel of the dispatch
 * level (cpu_vmath.h), the strided ones to the loops above, with the same expression
 * (cpu_simd.h): float +, -, *, /, maximum, minimum and the comparisons, the integers'
 * rows.  O: the output's element type.  Or (BLOCKS 1: when one operand is a single value;
 * 2: always) through the level's row a block at a time: the operands that move gathered
 * into blocks of T on the stack, a strided output written from one.  Blocks are for the
 * rows whose expression costs more than the gathers: the small integers' divisions (the
 * expression is idiv) and their shifts with one value on either side (not two rows,
 * whose level row is no faster than the expression).  2e5 strided uint8 (one thread, an AVX2 EPYC): x
 * << 3 272 -> 109 us, x // 7 259 -> 101, x // y 507 -> 423 (widened into int32 rows
 * before). */
#define GATHER_BLOCK 256
#define BLOCKED_ROW(NAME, T, O, EXPR, BLOCKS)                                                      \
    BINARY_ROW(NAME##_strided, T, O, EXPR)                                                         \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        const int64_t e = sizeof(T);                                                               \
        const int mode = sa == 0 ? 1 : sb == 0 ? 2 : 0;                                            \
        const pdt_vb_row row = pdt_cpu_simd()->NAME;                                               \
        if (so == (int64_t)sizeof(O) && (sa == e || sa == 0) && (sb == e || sb == 0) &&            \
            (sa | sb)) {                                                                           \
            row(o, a, b, n, mode);                                                                 \
            return;                                                                                \
        }                                                                                          \
        if ((BLOCKS) == 0 || !(sa | sb) || n < 16 || (mode == 0 && (BLOCKS) == 1)) {               \
            NAME##_strided(o, so, a, sa, b, sb, n, extra);                                         \
            return;                                                                                \
        }                                                                                          \
        T ba[GATHER_BLOCK], bb[GATHER_BLOCK];                                                      \
        O bo[GATHER_BLOCK];                                                                        \
        for (int64_t i = 0; i < n; i += GATHER_BLOCK) {                                            \
            const int64_t m = n - i < GATHER_BLOCK ? n - i : GATHER_BLOCK;                         \
            const char *pa = a + i * sa, *pb = b + i * sb;                                         \
            if (sa != e && sa != 0) {                                                              \
                for (int64_t k = 0; k < m; k++)                                                    \
                    ba[k] = *(const T *)(pa + k * sa);                                             \
                pa = (const char *)ba;                                                             \
            }                                                                                      \
            if (sb != e && sb != 0) {                                                              \
                for (int64_t k = 0; k < m; k++)                                                    \
                    bb[k] = *(const T *)(pb + k * sb);                                             \
                pb = (const char *)bb;                                                             \
            }                                                                                      \
            if (so == (int64_t)sizeof(O)) {                                                        \
                row(o + i * so, pa, pb, m, mode);                                                  \
            } else {                                                                               \
                row((char *)bo, pa, pb, m, mode);                                                  \
                for (int64_t k = 0; k < m; k++)                                                    \
                    *(O *)(o + (i + k) * so) = bo[k];                                              \
            }                                                                                      \
        }                                                                                          \
    }
#define DISPATCHED_ROW(NAME, T, O, EXPR) BLOCKED_ROW(NAME, T, O, EXPR, 0)

/* The six comparisons into bool bytes, dispatched as above (floats and the integers) */
#define DISPATCHED_COMPARES(SN, T)                                                                 \
    DISPATCHED_ROW(eq_##SN, T, uint8_t, x == y)                                                    \
    DISPATCHED_ROW(ne_##SN, T, uint8_t, x != y)                                                    \
    DISPATCHED_ROW(lt_##SN, T, uint8_t, x < y)                                                     \
    DISPATCHED_ROW(le_##SN, T, uint8_t, x <= y)                                                    \
    DISPATCHED_ROW(gt_##SN, T, uint8_t, x > y)                                                     \
    DISPATCHED_ROW(ge_##SN, T, uint8_t, x >= y)

/* float32 powers: Note [float32 powers] in cpu_vpow.h, every layout through the
 * level's functions (a scalar exponent: its row kernel, through a buffer for a
 * strided row; a scalar base over a contiguous exponent, exp2's case among them: its own
 * row; two contiguous rows: the pairs row; the same bits each); float64's: the C
 * library's pow. */
static void pow_row_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                        int64_t n, const void *extra)
{
    (void)extra;
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    if (sa == 0 && sb == sizeof(float) && so == sizeof(float)) { /* c ** y, exp2 among them */
        float c;
        memcpy(&c, a, sizeof c);
        t->cpow_f32((float *)o, c, (const float *)b, n);
        return;
    }
    if (sa == sizeof(float) && sb == sizeof(float) && so == sizeof(float)) {
        t->pow_pairs_f32((float *)o, (const float *)a, (const float *)b, n);
        return;
    }
    if (sb == 0) {
        float y;
        memcpy(&y, b, sizeof y);
        vm_call c = {NULL, &y, NULL};
        pdt_cpu_vm_row_any(o, so, a, sa, n, &c);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        float x, y;
        memcpy(&x, a + i * sa, sizeof x);
        memcpy(&y, b + i * sb, sizeof y);
        float r = t->pow_f32(x, y);
        memcpy(o + i * so, &r, sizeof r);
    }
}
#define POW_ROW_f32
/* float32 // and %: the level's rows (Note [float division with remainder] in
 * cpu_vdivmod.h); float64's the C library's fmod, element by element */
#define DIVMOD_ROWS_f32                                                                            \
    DISPATCHED_ROW(floordiv_row_f32, float, float, floordiv_f32(x, y))                             \
    DISPATCHED_ROW(remainder_row_f32, float, float, remainder_f32(x, y))
#define DIVMOD_ROWS_f64                                                                            \
    BINARY_ROW(floordiv_row_f64, double, double, floordiv_f64(x, y))                               \
    BINARY_ROW(remainder_row_f64, double, double, remainder_f64(x, y))
/* A binary row through the level's contiguous row (atan2's, pow's): contiguous (or a number
 * either side) directly, any other layout through small buffers, so that every element gets
 * the same function whatever its layout */
static void vb_row_any(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                       int64_t n, pdt_vb_row row, int64_t es)
{
    if (so == es && (sa == es || sa == 0) && (sb == es || sb == 0) && (sa | sb)) {
        row(o, a, b, n, sa == 0 ? 1 : sb == 0 ? 2 : 0);
        return;
    }
    union {
        float f[256];
        double d[256];
    } ya, xb; /* 256 elements of either type */
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t j = 0; j < m; j++) {
            memcpy((char *)&ya + j * es, a + (i + j) * sa, (size_t)es);
            memcpy((char *)&xb + j * es, b + (i + j) * sb, (size_t)es);
        }
        row((char *)&ya, (const char *)&ya, (const char *)&xb, m, 0);
        for (int64_t j = 0; j < m; j++)
            memcpy(o + (i + j) * so, (const char *)&ya + j * es, (size_t)es);
    }
}

/* float64: the level's pow row at AVX-512 (Note [float64 powers] in cpu_vpow64.h), the C
 * library's at the other levels; 2 ** x (exp2) the level's exp2 row on every layout (Note
 * [float64 functions from the cores] in cpu_vfunc64.h) */
BINARY_ROW(pow_row_f64_libm, double, double, pow(x, y))
static void pow_row_f64(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                        int64_t n, const void *extra)
{
    double c;
    memcpy(&c, a, sizeof c);
    if (sa == 0 && c == 2.0 && sb != 0) {
        vm_call call = {NULL, NULL, pdt_cpu_simd()->exp2_f64};
        pdt_cpu_vm_row_any(o, so, b, sb, n, &call);
    } else if (pdt_cpu_simd()->pow_f64) {
        vb_row_any(o, so, a, sa, b, sb, n, pdt_cpu_simd()->pow_f64, 8);
    } else {
        pow_row_f64_libm(o, so, a, sa, b, sb, n, extra);
    }
}
#define POW_ROW_f64

#define FLOAT_BINARY_ROWS(SN, T, F)                                                                \
    DISPATCHED_ROW(add_##SN, T, T, PDT_ADD(x, y))                                                  \
    DISPATCHED_ROW(sub_##SN, T, T, PDT_SUB(x, y))                                                  \
    DISPATCHED_ROW(mul_##SN, T, T, PDT_MUL(x, y))                                                  \
    DISPATCHED_ROW(div_##SN, T, T, PDT_DIV(x, y))                                                  \
    DISPATCHED_ROW(maximum_##SN, T, T, PDT_MAXIMUM(x, y))                                          \
    DISPATCHED_ROW(minimum_##SN, T, T, PDT_MINIMUM(x, y))                                          \
    DISPATCHED_COMPARES(SN, T)                                                                     \
    DISPATCHED_ROW(truncdiv_row_##SN, T, T, PDT_TRUNCDIV(x, y))                                    \
    DIVMOD_ROWS_##SN POW_ROW_##SN
FLOAT_BINARY_ROWS(f32, float, f)
FLOAT_BINARY_ROWS(f64, double, )
/* atan2: the level's rows (float32: Note [float32 inverse functions] in cpu_vtrig.h; float64:
 * cpu_vfunc64.h) */
static void atan2_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                      int64_t n, const void *extra)
{
    (void)extra;
    vb_row_any(o, so, a, sa, b, sb, n, pdt_cpu_simd()->atan2_f32, 4);
}

BINARY_ROW(atan2_f64_libm, double, double, atan2(x, y))
static void atan2_f64(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                      int64_t n, const void *extra)
{
    if (pdt_cpu_simd()->atan2_f64)
        vb_row_any(o, so, a, sa, b, sb, n, pdt_cpu_simd()->atan2_f64, 8);
    else
        atan2_f64_libm(o, so, a, sa, b, sb, n, extra);
}
/* fmod: C's, exact, with the dividend's sign: float64 the C library's (as NumPy's), float32
 * the level's remainder row (pdt_cpu_fmod_f32, cpu_ew_float2.c); integers the truncated
 * remainder, 0 for a divisor of 0 (which the core refuses on the CPU) or -1 (no trap on
 * INT_MIN % -1) */
BINARY_ROW(fmod_f64, double, double, fmod(x, y))
/* C's %, 0 by 0 and -1 (int32's, and the small integers' widened: SMALL_DIVMOD_ROWS) */
static inline int32_t fmod_w(int32_t x, int32_t y) { return y == 0 || y == -1 ? 0 : x % y; }
BINARY_ROW(fmod_i32, int32_t, int32_t, fmod_w(x, y))
BINARY_ROW(fmod_i64, int64_t, int64_t, y == 0 || y == -1 ? 0 : x % y)

/* +, -, *, maximum, minimum, the bitwise ops, the shifts and the comparisons: the level's
 * rows when contiguous (cpu_vmath.h's VI_ROWS, cpu_vsmall.h's VS_ROWS), these expressions
 * when strided */
#define LEVEL_INT_ROWS(SN, T, ADD, SUB, MUL, SHL, SHR, SHIFT_ROW)                                  \
    DISPATCHED_ROW(add_##SN, T, T, ADD)                                                            \
    DISPATCHED_ROW(sub_##SN, T, T, SUB)                                                            \
    DISPATCHED_ROW(mul_##SN, T, T, MUL)                                                            \
    DISPATCHED_ROW(maximum_##SN, T, T, PDT_IMAX(x, y))                                             \
    DISPATCHED_ROW(minimum_##SN, T, T, PDT_IMIN(x, y))                                             \
    DISPATCHED_ROW(and_##SN, T, T, PDT_BAND(x, y))                                                 \
    DISPATCHED_ROW(or_##SN, T, T, PDT_BOR(x, y))                                                   \
    DISPATCHED_ROW(xor_##SN, T, T, PDT_BXOR(x, y))                                                 \
    SHIFT_ROW(shl_row_##SN, T, T, SHL) /* Note [shifts] */                                         \
    SHIFT_ROW(shr_row_##SN, T, T, SHR)                                                             \
    DISPATCHED_COMPARES(SN, T)
/* int32 and int64: those, and //, %, ** */
#define INT_BINARY_ROWS(SN, T, U, SFX)                                                             \
    LEVEL_INT_ROWS(SN, T, (U)x + (U)y, (U)x - (U)y, (U)x * (U)y, PDT_SHL_##SFX(x, y),              \
                   PDT_SHR_##SFX(x, y), DISPATCHED_ROW)                                            \
    BINARY_ROW(floordiv_row_##SN, T, T, floordiv_##SN(x, y))                                       \
    BINARY_ROW(truncdiv_row_##SN, T, T, truncdiv_##SN(x, y))                                       \
    BINARY_ROW(remainder_row_##SN, T, T, remainder_##SN(x, y))                                     \
    BINARY_ROW(pow_row_##SN, T, T, pow_##SN(x, y))
INT_BINARY_ROWS(i32, int32_t, uint32_t, I32)
INT_BINARY_ROWS(i64, int64_t, uint64_t, I64)
/* uint8, int8, int16 (Note [small integer rows] in cpu_vsmall.h) */
#define SHIFT_BLOCKED_ROW(NAME, T, O, EXPR) BLOCKED_ROW(NAME, T, O, EXPR, 1)
#define SMALL_BINARY_ROWS(SN, T)                                                                   \
    LEVEL_INT_ROWS(SN, T, pdt_add_##SN(x, y), pdt_sub_##SN(x, y), pdt_mul_##SN(x, y),              \
                   pdt_shl_##SN(x, y), pdt_shr_##SN(x, y), SHIFT_BLOCKED_ROW)
SMALL_BINARY_ROWS(u8, uint8_t)
SMALL_BINARY_ROWS(i8, int8_t)
SMALL_BINARY_ROWS(i16, int16_t)

/* int32 and int64 by one divisor, int32 by a row of them, contiguous: the level's rows
 * (Notes [int32 division by one divisor], [int64 division by one divisor] and [int32
 * division by a tensor of divisors] in cpu_vdivmod.h), the same values as the rows above.
 * One thread, 1e5 int32 // int32 (divisors in [1, 1000], AMD EPYC Zen 4): 196 us by idiv
 * (the baseline's rows) -> 64 at AVX2, 48 at AVX-512 (NumPy 500); 1,000: 1.7 us (NumPy
 * 2.8).  MORE: further cases before the element loop. */
#define DIVC_ROW(NAME, OP, SN, T, MORE)                                                            \
    static void NAME##_##SN##c(char *o, int64_t so, const char *a, int64_t sa, const char *b,      \
                               int64_t sb, int64_t n, const void *extra)                           \
    {                                                                                              \
        const pdt_cpu_simd_table *t = pdt_cpu_simd();                                              \
        if (so == sizeof(T) && sa == sizeof(T) && sb == 0 && t->divc_##SN) {                       \
            T d;                                                                                   \
            memcpy(&d, b, sizeof d);                                                               \
            t->divc_##SN((T *)o, (const T *)a, d, n, OP);                                          \
        }                                                                                          \
        MORE                                                                                       \
        else                                                                                       \
        {                                                                                          \
            NAME##_##SN(o, so, a, sa, b, sb, n, extra);                                            \
        }                                                                                          \
    }
#define DIVV_I32(OP)                                                                               \
    else if (so == 4 && (sa == 4 || sa == 0) && sb == 4 && t->divv_i32)                           \
    {                                                                                              \
        t->divv_i32((int32_t *)o, (const int32_t *)a, (const int32_t *)b, n, OP, sa == 0);         \
    }
#define DIVC_ROWS(NAME, OP)                                                                        \
    DIVC_ROW(NAME, OP, i32, int32_t, DIVV_I32(OP))                                                 \
    DIVC_ROW(NAME, OP, i64, int64_t, )
DIVC_ROWS(floordiv_row, PDT_OP_FLOOR_DIV)
DIVC_ROWS(remainder_row, PDT_OP_REMAINDER)
DIVC_ROWS(truncdiv_row, PDT_OP_TRUNC_DIV)

/* uint8, int8 and int16 //, % and truncating division: the level's rows (cpu_vsdiv.h),
 * strided ones a block at a time; a short row or two single values int32's scalar forms
 * on the widened values, narrowed: the int32 route's values without its temporaries (Note
 * [small integer rows] in cpu_vsmall.h).  ** and fmod: int32's expressions on the widened
 * values, narrowed (their int32 rows are element loops too). */
#define SMALL_DIVMOD_ROWS(SN, T)                                                                   \
    BLOCKED_ROW(floordiv_row_##SN, T, T, floordiv_i32(x, y), 2)                                    \
    BLOCKED_ROW(remainder_row_##SN, T, T, remainder_i32(x, y), 2)                                  \
    BLOCKED_ROW(truncdiv_row_##SN, T, T, truncdiv_i32(x, y), 2)                                    \
    BINARY_ROW(pow_row_##SN, T, T, pow_i32(x, y))                                                  \
    BINARY_ROW(fmod_##SN, T, T, fmod_w(x, y))
SMALL_DIVMOD_ROWS(u8, uint8_t)
SMALL_DIVMOD_ROWS(i8, int8_t)
SMALL_DIVMOD_ROWS(i16, int16_t)

/* bool: + and maximum are `or`, * and minimum are `and` (the level's rows when contiguous) */
DISPATCHED_ROW(or_bool, uint8_t, uint8_t, PDT_OR_BOOL(x, y))
DISPATCHED_ROW(and_bool, uint8_t, uint8_t, PDT_AND_BOOL(x, y))
DISPATCHED_ROW(eq_bool, uint8_t, uint8_t, PDT_EQ_BOOL(x, y))
DISPATCHED_ROW(ne_bool, uint8_t, uint8_t, PDT_NE_BOOL(x, y))
BINARY_ROW(lt_bool, uint8_t, uint8_t, AS_BOOL(x) < AS_BOOL(y))
BINARY_ROW(le_bool, uint8_t, uint8_t, AS_BOOL(x) <= AS_BOOL(y))
BINARY_ROW(gt_bool, uint8_t, uint8_t, AS_BOOL(x) > AS_BOOL(y))
BINARY_ROW(ge_bool, uint8_t, uint8_t, AS_BOOL(x) >= AS_BOOL(y))

/* float * bool (Note [a float times a mask] in pdt_elementwise.c): a is the float
 * operand, b the mask's bytes (PDT_MASK_FACTOR in cpu_simd.h); contiguous rows go to
 * the dispatch level's kernel (cpu_vmath.h). */
#define MASK_MUL_ROW(NAME, T, U, ONE)                                                              \
    PDT_MASK_FACTOR(NAME##_factor, T, U, ONE)                                                      \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)extra;                                                                               \
        if (so == sizeof(T) && sa == sizeof(T) && sb == 1) {                                       \
            pdt_cpu_simd()->NAME(o, a, (const uint8_t *)b, n);                                     \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(T *)(o + i * so) = *(const T *)(a + i * sa) *                                    \
                                     NAME##_factor(*(const uint8_t *)(b + i * sb));                \
        }                                                                                          \
    }
MASK_MUL_ROW(mul_mask_f32, float, uint32_t, 0x3f800000u)
MASK_MUL_ROW(mul_mask_f64, double, uint64_t, 0x3ff0000000000000ull)

/* [op][dtype]; NULL where the core never sends that pair. */
static const ew_row_fn binary_rows[PDT_NUM_BINARY_OPS][PDT_NUM_DTYPES] = {
    [PDT_OP_ADD] = ROWS_8(or_bool, add_i32, add_i64, add_f32, add_f64, add),
    [PDT_OP_SUB] = ROWS_NUMS(sub),
    [PDT_OP_MUL] = ROWS_8(and_bool, mul_i32, mul_i64, mul_f32, mul_f64, mul),
    [PDT_OP_DIV] = ROWS_5(NULL, NULL, NULL, div_f32, div_f64),
    [PDT_OP_FLOOR_DIV] = ROWS_8(NULL, floordiv_row_i32c, floordiv_row_i64c, floordiv_row_f32,
                                floordiv_row_f64, floordiv_row),
    [PDT_OP_REMAINDER] = ROWS_8(NULL, remainder_row_i32c, remainder_row_i64c, remainder_row_f32,
                                remainder_row_f64, remainder_row),
    [PDT_OP_POW] = ROWS_NUMS(pow_row),
    [PDT_OP_MAXIMUM] = ROWS_8(or_bool, maximum_i32, maximum_i64, maximum_f32, maximum_f64, maximum),
    [PDT_OP_MINIMUM] = ROWS_8(and_bool, minimum_i32, minimum_i64, minimum_f32, minimum_f64,
                              minimum),
    [PDT_OP_EQ] = ROWS_ALLS(eq),
    [PDT_OP_NE] = ROWS_ALLS(ne),
    [PDT_OP_LT] = ROWS_ALLS(lt),
    [PDT_OP_LE] = ROWS_ALLS(le),
    [PDT_OP_GT] = ROWS_ALLS(gt),
    [PDT_OP_GE] = ROWS_ALLS(ge),
    [PDT_OP_TRUNC_DIV] = ROWS_8(NULL, truncdiv_row_i32c, truncdiv_row_i64c, truncdiv_row_f32,
                                truncdiv_row_f64, truncdiv_row),
    [PDT_OP_ATAN2] = ROWS_5(NULL, NULL, NULL, atan2_f32, atan2_f64),
    [PDT_OP_BITWISE_AND] = ROWS_INTS(and),
    [PDT_OP_BITWISE_OR] = ROWS_INTS(or),
    [PDT_OP_BITWISE_XOR] = ROWS_INTS(xor),
    [PDT_OP_SHIFT_LEFT] = ROWS_INTS(shl_row),
    [PDT_OP_SHIFT_RIGHT] = ROWS_INTS(shr_row),
    [PDT_OP_HYPOT] = ROWS_5(NULL, NULL, NULL, pdt_cpu_hypot_f32, pdt_cpu_hypot_f64),
    [PDT_OP_COPYSIGN] = ROWS_5(NULL, NULL, NULL, pdt_cpu_copysign_f32, pdt_cpu_copysign_f64),
    [PDT_OP_LOGADDEXP] = ROWS_5(NULL, NULL, NULL, pdt_cpu_logaddexp_f32, pdt_cpu_logaddexp_f64),
    [PDT_OP_LOGADDEXP2] = ROWS_5(NULL, NULL, NULL, pdt_cpu_logaddexp2_f32, pdt_cpu_logaddexp2_f64),
    [PDT_OP_FMOD] = ROWS_8(NULL, fmod_i32, fmod_i64, pdt_cpu_fmod_f32, fmod_f64, fmod),
};

/* A scalar operand's value in dtype dt, at a stable address. */
typedef union scalar_slot {
    uint8_t b, u8;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
} scalar_slot;

static void scalar_store(pdt_dtype dt, pdt_scalar s, scalar_slot *slot)
{
    double f = s.is_float ? s.f : (double)s.i;
    int64_t i = s.is_float ? pdt_f64_to_i64(s.f) : s.i; /* NaN, inf: Note [float to int] */
    switch (dt) {
    case PDT_BOOL: slot->b = (uint8_t)(i != 0); break;
    case PDT_UINT8: slot->u8 = (uint8_t)i; break;
    case PDT_INT8: slot->i8 = (int8_t)i; break;
    case PDT_INT16: slot->i16 = (int16_t)i; break;
    case PDT_INT32: slot->i32 = (int32_t)i; break;
    case PDT_INT64: slot->i64 = i; break;
    case PDT_FLOAT32: slot->f32 = (float)f; break;
    case PDT_FLOAT64: slot->f64 = f; break;
    default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
    }
}

pdt_status pdt_cpu_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b)
{
    /* The compute dtype: out's, except for comparisons (whose out is bool). */
    pdt_dtype dt = a.t ? a.t->dtype : b.t ? b.t->dtype : out->dtype;
    ew_row_fn fn = (unsigned)op < PDT_NUM_BINARY_OPS ? binary_rows[op][dt] : NULL;
    if (op == PDT_OP_MUL && a.t && b.t && a.t->dtype != b.t->dtype) {
        if (a.t->dtype == PDT_BOOL) { /* the float operand first: x * m is m * x */
            pdt_operand t = a;
            a = b;
            b = t;
        }
        dt = a.t->dtype;
        fn = b.t->dtype != PDT_BOOL ? NULL
             : dt == PDT_FLOAT32    ? mul_mask_f32
             : dt == PDT_FLOAT64    ? mul_mask_f64
                                    : NULL;
    }
    if (!fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "binary op %d is not implemented for %s on the CPU",
                        (int)op, pdt_dtype_name(dt));
    scalar_slot sa, sb;
    const pdt_tensor *ops[3] = {out, a.t, b.t};
    ew_job job;
    job.fn = fn;
    job.extra = NULL;
    pdt_cpu_ew_init(&job, out, ops);
    if (!a.t) {
        scalar_store(dt, a.s, &sa);
        job.base[1] = (char *)&sa;
    }
    if (!b.t) {
        scalar_store(dt, b.s, &sb);
        job.base[2] = (char *)&sb;
    }
    /* powers are compute-bound (2.5 ns an element of float32 on one core, five
     * times exp's): not streamed, and split at costly_unary's grain */
    const int costly = op == PDT_OP_POW || op == PDT_OP_ATAN2 || op == PDT_OP_HYPOT ||
                       op == PDT_OP_LOGADDEXP || op == PDT_OP_LOGADDEXP2 || op == PDT_OP_FMOD;
    job.stream &= !costly;
    if (costly)
        pdt_cpu_ew_run(&job, pdt_tensor_numel(out), EW_GRAIN_COSTLY, EW_GRAIN_POW_HOT);
    else
        pdt_cpu_ew_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}

/* a op (b * alpha), the product rounded to T first (Note [add with alpha] in
 * pdt_elementwise.c; this file is built with -ffp-contract=off); extra: alpha
 * as a T. */
#define SCALED_ROW(NAME, T, OP)                                                                    \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        const T alpha = *(const T *)extra;                                                         \
        if (so == sizeof(T) && sa == sizeof(T) && sb == sizeof(T)) {                               \
            T *po = (T *)o;                                                                        \
            const T *pa = (const T *)a, *pb = (const T *)b;                                        \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T s = pb[i] * alpha;                                                               \
                po[i] = pa[i] OP s;                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T s = *(const T *)(b + i * sb) * alpha;                                                \
            *(T *)(o + i * so) = *(const T *)(a + i * sa) OP s;                                    \
        }                                                                                          \
    }
SCALED_ROW(add_scaled_f32, float, +)
SCALED_ROW(sub_scaled_f32, float, -)
SCALED_ROW(add_scaled_f64, double, +)
SCALED_ROW(sub_scaled_f64, double, -)

pdt_status pdt_cpu_binary_scaled(pdt_binary_op op, const pdt_tensor *out, const pdt_tensor *a,
                                 const pdt_tensor *b, pdt_scalar alpha)
{
    const int f32 = out->dtype == PDT_FLOAT32, sub = op == PDT_OP_SUB;
    if ((op != PDT_OP_ADD && !sub) || (!f32 && out->dtype != PDT_FLOAT64))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "add or sub with alpha: op %d on %s on the CPU",
                        (int)op, pdt_dtype_name(out->dtype));
    scalar_slot s;
    scalar_store(out->dtype, alpha, &s);
    const pdt_tensor *ops[3] = {out, a, b};
    ew_job job;
    job.fn = f32 ? (sub ? sub_scaled_f32 : add_scaled_f32)
                 : (sub ? sub_scaled_f64 : add_scaled_f64);
    job.extra = &s;
    pdt_cpu_ew_init(&job, out, ops);
    pdt_cpu_ew_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}
