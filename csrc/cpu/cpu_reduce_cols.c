/* cpu_reduce_cols.c - the kernels of the columns layout of the CPU backend's
 * reductions (sum(0) of a matrix: x a (k, m) block whose m columns are each
 * reduced, read row by row; cpu_reduce.c drives them, Note [CPU reduction
 * order] there).  Each folds its columns over the k rows in order, so the
 * result does not depend on how the columns were split between threads. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_reduce.h"
#include "cpu_simd.h"

#define AS_DOUBLE(v) ((double)(v))
#define SQUARE_DOUBLE(v) SQUARE((double)(v))
#define ABS_DOUBLE(v) fabs((double)(v))

#define COLS_FOLD(NAME, T, A, CONV, INIT, OP, MAKE)                                                \
    static void NAME(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)          \
    {                                                                                              \
        A r[COL_BLOCK];                                                                            \
        for (int64_t q = 0; q < nj; q++)                                                           \
            r[q] = INIT;                                                                           \
        for (int64_t i = 0; i < k; i++) {                                                          \
            const T *row = (const T *)x + i * m + j0;                                              \
            for (int64_t q = 0; q < nj; q++)                                                       \
                r[q] OP(A) CONV(row[q]);                                                           \
        }                                                                                          \
        for (int64_t q = 0; q < nj; q++)                                                           \
            a[q] = MAKE(r[q], 0);                                                                  \
    }

/* max (CMP >) or min (CMP <), and for the arg ops (INDEX) the first row
 * holding it; a NaN wins.  Branch-free selects. */
#define COLS_EXTREME(NAME, T, V, CONV, CMP, ISNAN, MAKE, INDEX)                                    \
    static void NAME(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)          \
    {                                                                                              \
        V best[COL_BLOCK];                                                                         \
        int64_t at[INDEX ? COL_BLOCK : 1] = {0};                                                   \
        for (int64_t q = 0; q < nj; q++) {                                                         \
            best[q] = (V)CONV(((const T *)x)[j0 + q]);                                             \
            if (INDEX)                                                                             \
                at[q] = 0;                                                                         \
        }                                                                                          \
        for (int64_t i = 1; i < k; i++) {                                                          \
            const T *row = (const T *)x + i * m + j0;                                              \
            for (int64_t q = 0; q < nj; q++) {                                                     \
                V v = (V)CONV(row[q]);                                                             \
                int take = (!ISNAN(best[q])) & ((v CMP best[q]) | ISNAN(v));                       \
                best[q] = take ? v : best[q];                                                      \
                if (INDEX)                                                                         \
                    at[q] = take ? i : at[q];                                                      \
            }                                                                                      \
        }                                                                                          \
        for (int64_t q = 0; q < nj; q++)                                                           \
            a[q] = MAKE(best[q], INDEX ? at[q] : 0);                                               \
    }

#define COLS_ARG_EXTREMES(SN, T, V, CONV, ISNAN, MAKE)                                             \
    COLS_EXTREME(cols_argmax_##SN, T, V, CONV, >, ISNAN, MAKE, 1)                                  \
    COLS_EXTREME(cols_argmin_##SN, T, V, CONV, <, ISNAN, MAKE, 1)
#define COLS_EXTREMES(SN, T, V, CONV, ISNAN, MAKE)                                                 \
    COLS_EXTREME(cols_max_##SN, T, V, CONV, >, ISNAN, MAKE, 0)                                     \
    COLS_EXTREME(cols_min_##SN, T, V, CONV, <, ISNAN, MAKE, 0)                                     \
    COLS_ARG_EXTREMES(SN, T, V, CONV, ISNAN, MAKE)

/* int32 and int64 sums and products: the dispatched kernels (Note [integer
 * column sums] in cpu_vint.h). */
void pdt_cpu_cols_int(pdt_reduce_op op, int64_t elsize, const char *x, int64_t m, int64_t k,
                      int64_t j0, int64_t nj, uint64_t *r)
{
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    if (elsize == 4)
        (op == PDT_REDUCE_SUM ? t->cols_sum_i32 : t->cols_prod_i32)((const int32_t *)x, m, k, j0,
                                                                    nj, r);
    else
        (op == PDT_REDUCE_SUM ? t->cols_sum_i64 : t->cols_prod_i64)((const int64_t *)x, m, k, j0,
                                                                    nj, r);
}

#define INT_FOLD(NAME, T, OP)                                                                      \
    static void NAME(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)          \
    {                                                                                              \
        uint64_t r[COL_BLOCK];                                                                     \
        pdt_cpu_cols_int(OP, sizeof(T), x, m, k, j0, nj, r);                                       \
        for (int64_t q = 0; q < nj; q++)                                                           \
            a[q] = int_acc(r[q], 0);                                                               \
    }
/* integer max and min: the dispatched kernels (cpu_vint.h); which as there */
#define INT_VEXTREME(NAME, WHICH, MAX)                                                             \
    static void NAME(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)          \
    {                                                                                              \
        int64_t best[COL_BLOCK];                                                                   \
        pdt_cpu_simd()->cols_extreme_int(x, m, k, j0, nj, WHICH, MAX, best);                       \
        for (int64_t q = 0; q < nj; q++)                                                           \
            a[q] = int_acc((uint64_t)best[q], 0);                                                  \
    }
#define INT_VEXTREMES(SN, WHICH)                                                                   \
    INT_VEXTREME(cols_vmax_##SN, WHICH, 1)                                                         \
    INT_VEXTREME(cols_vmin_##SN, WHICH, 0)
#define INT_COLS(SN, T, V, CONV)                                                                   \
    INT_FOLD(cols_sum_##SN, T, PDT_REDUCE_SUM)                                                     \
    INT_FOLD(cols_prod_##SN, T, PDT_REDUCE_PROD)                                                   \
    COLS_ARG_EXTREMES(SN, T, V, CONV, INT_NAN, int_acc)
INT_VEXTREMES(u8, 0)
INT_VEXTREMES(i8, 1)
INT_VEXTREMES(i16, 2)
INT_VEXTREMES(i32, 3)
INT_VEXTREMES(i64, 4)

#define FLOAT_COLS(SN, T)                                                                          \
    COLS_FOLD(cols_sumsq_##SN, T, double, SQUARE_DOUBLE, 0.0, +=, float_acc)                       \
    COLS_FOLD(cols_sumabs_##SN, T, double, ABS_DOUBLE, 0.0, +=, float_acc)                         \
    COLS_FOLD(cols_prod_##SN, T, double, AS_DOUBLE, 1.0, *=, float_acc)                            \
    COLS_EXTREMES(SN, T, T, AS_IS, FLOAT_NAN, float_acc)

COLS_FOLD(cols_prod_b8, uint8_t, uint64_t, (int64_t)AS_BOOL, 1, *=, int_acc)
COLS_EXTREMES(b8, uint8_t, int32_t, AS_BOOL, INT_NAN, int_acc)
INT_COLS(i32, int32_t, int32_t, AS_IS)
INT_COLS(i64, int64_t, int64_t, AS_IS)
FLOAT_COLS(f32, float)
FLOAT_COLS(f64, double)
COLS_FOLD(cols_sum_f64, double, double, AS_DOUBLE, 0.0, +=, float_acc)

/* bool column counts: byte lanes widened into 32-bit counts (vectorised by the
 * compiler, where a 64-bit fold was not), added to the 64-bit counts every
 * COUNT_ROWS rows; cols_range writes an int64 output straight from here. */
#define COUNT_ROWS ((int64_t)1 << 30)
void pdt_cpu_cols_count_b8(const uint8_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                           int64_t *out)
{
    uint32_t r[COL_BLOCK];
    for (int64_t q = 0; q < nj; q++)
        out[q] = 0;
    for (int64_t i0 = 0; i0 < k; i0 += COUNT_ROWS) {
        int64_t i1 = k - i0 < COUNT_ROWS ? k : i0 + COUNT_ROWS;
        for (int64_t q = 0; q < nj; q++)
            r[q] = 0;
        for (int64_t i = i0; i < i1; i++) {
            const uint8_t *row = x + i * m + j0;
            for (int64_t q = 0; q < nj; q++)
                r[q] += row[q] != 0;
        }
        for (int64_t q = 0; q < nj; q++)
            out[q] += r[q];
    }
}

static void cols_sum_b8(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)
{
    int64_t count[COL_BLOCK];
    pdt_cpu_cols_count_b8((const uint8_t *)x, m, k, j0, nj, count);
    for (int64_t q = 0; q < nj; q++)
        a[q] = int_acc((uint64_t)count[q], 0);
}

/* float32 column sums: the dispatched kernel (double lanes of the level's width,
 * the same bits as the fold above would give). */
static void cols_sum_f32(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)
{
    double r[COL_BLOCK];
    pdt_cpu_simd()->cols_sum_f32((const float *)x, m, k, j0, nj, r);
    for (int64_t q = 0; q < nj; q++)
        a[q] = float_acc(r[q], 0);
}

/* float max, min, argmax and argmin of columns: the dispatched kernels
 * (cpu_vreduce.h), or the folds above for a block where they read a NaN (the
 * first NaN wins, as in the fold).  Columns of 256 float32 rows: amax(0) 17-27 ->
 * 4-10 us, NumPy 11-23; 2048^2: 1000-1757 -> 722-833, NumPy 845-909; argmax(0)
 * 256^2 99-123 -> 8 us, NumPy 95. */
#define COLS_VEXTREME(NAME, T, IT, KERNEL, FOLD, INDEX)                                            \
    static void NAME(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a)          \
    {                                                                                              \
        T best[COL_BLOCK];                                                                         \
        IT at[INDEX ? COL_BLOCK : 1];                                                              \
        if ((INDEX && sizeof(IT) < 8 && k - 1 > INT32_MAX) || /* rows past int32: the fold */      \
            pdt_cpu_simd()->KERNEL((const T *)x, m, k, j0, nj, best, at)) {                        \
            FOLD(x, m, k, j0, nj, a);                                                              \
            return;                                                                                \
        }                                                                                          \
        for (int64_t q = 0; q < nj; q++)                                                           \
            a[q] = float_acc(best[q], INDEX ? at[q] : 0);                                          \
    }
COLS_VEXTREME(cols_vargmax_f32, float, int32_t, cols_argmax_f32, cols_argmax_f32, 1)
COLS_VEXTREME(cols_vargmin_f32, float, int32_t, cols_argmin_f32, cols_argmin_f32, 1)
COLS_VEXTREME(cols_vargmax_f64, double, int64_t, cols_argmax_f64, cols_argmax_f64, 1)
COLS_VEXTREME(cols_vargmin_f64, double, int64_t, cols_argmin_f64, cols_argmin_f64, 1)
COLS_VEXTREME(cols_vmax_f32, float, int32_t, cols_max_f32, cols_max_f32, 0)
COLS_VEXTREME(cols_vmin_f32, float, int32_t, cols_min_f32, cols_min_f32, 0)
COLS_VEXTREME(cols_vmax_f64, double, int64_t, cols_max_f64, cols_max_f64, 0)
COLS_VEXTREME(cols_vmin_f64, double, int64_t, cols_min_f64, cols_min_f64, 0)
COLS_ARG_EXTREMES(u8, uint8_t, uint8_t, AS_IS, INT_NAN, int_acc) /* in their own lanes */
COLS_ARG_EXTREMES(i8, int8_t, int8_t, AS_IS, INT_NAN, int_acc)
COLS_ARG_EXTREMES(i16, int16_t, int16_t, AS_IS, INT_NAN, int_acc)

/* cols_fns[op][x dtype], in pdt_dtype order; NULL: not defined (the core never
 * asks). */
static const cols_fn cols_fns[PDT_NUM_REDUCE_OPS][PDT_NUM_DTYPES] = {
    [PDT_REDUCE_SUM] = ALL_DTYPES(cols_sum),
    [PDT_REDUCE_PROD] = ALL_DTYPES(cols_prod),
    [PDT_REDUCE_MAX] = {cols_max_b8, cols_vmax_i32, cols_vmax_i64, cols_vmax_f32,
                        cols_vmax_f64, [PDT_UINT8] = cols_vmax_u8, cols_vmax_i8, cols_vmax_i16},
    [PDT_REDUCE_MIN] = {cols_min_b8, cols_vmin_i32, cols_vmin_i64, cols_vmin_f32,
                        cols_vmin_f64, [PDT_UINT8] = cols_vmin_u8, cols_vmin_i8, cols_vmin_i16},
    [PDT_REDUCE_ARGMAX] = {cols_argmax_b8, cols_argmax_i32, cols_argmax_i64, cols_vargmax_f32,
                           cols_vargmax_f64, [PDT_UINT8] = cols_argmax_u8, cols_argmax_i8,
                           cols_argmax_i16},
    [PDT_REDUCE_ARGMIN] = {cols_argmin_b8, cols_argmin_i32, cols_argmin_i64, cols_vargmin_f32,
                           cols_vargmin_f64, [PDT_UINT8] = cols_argmin_u8, cols_argmin_i8,
                           cols_argmin_i16},
    [PDT_REDUCE_SUM_SQUARES] = FLOAT_ONLY(cols_sumsq),
    [PDT_REDUCE_SUM_ABS] = FLOAT_ONLY(cols_sumabs),
    [PDT_REDUCE_MEAN] = FLOAT_ONLY(cols_sum),
};

cols_fn pdt_cpu_cols_fn(pdt_reduce_op op, pdt_dtype dtype)
{
    return (unsigned)op < PDT_NUM_REDUCE_OPS && (unsigned)dtype < PDT_NUM_DTYPES
               ? cols_fns[op][dtype]
               : NULL;
}
