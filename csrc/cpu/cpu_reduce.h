/* cpu_reduce.h - what cpu_reduce.c (the reductions' drivers and row kernels)
 * shares with cpu_reduce_cols.c (the kernels of the columns layout); private to
 * the CPU backend.  The layouts and the order: Note [CPU reduction order] in
 * cpu_reduce.c. */
#ifndef PDT_CPU_REDUCE_H
#define PDT_CPU_REDUCE_H

#include <stdint.h>

#include "pdt_dtype.h"
#include "pdt_reduce.h"

/* A partial result: f for floating inputs, i for integer ones (sums wrap as
 * uint64), idx the position of a max/min within the row. */
typedef struct acc {
    double f;
    int64_t i;
    int64_t idx;
} acc;

static inline acc float_acc(double f, int64_t idx)
{
    acc a = {f, 0, idx};
    return a;
}

static inline acc int_acc(uint64_t i, int64_t idx)
{
    acc a = {0, (int64_t)i, idx};
    return a;
}

/* columns folded together (1024 read 4 KB runs: sum(0) of 4000^2 1.08x NumPy, now 0.89) */
#define COL_BLOCK 2048

/* Folds the k rows of columns [j0, j0 + nj) (nj <= COL_BLOCK) of x, a block
 * whose rows are m elements apart (m: the pitch), into a[0..nj): each column
 * in row order. */
typedef void (*cols_fn)(const char *x, int64_t m, int64_t k, int64_t j0, int64_t nj, acc *a);

/* The count of the nonzero bytes of each column [j0, j0 + nj) of x, as a cols_fn
 * (the bool sum), into out[0..nj). */
void pdt_cpu_cols_count_b8(const uint8_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                           int64_t *out);

/* The wrapping sum (op PDT_REDUCE_SUM) or product (PDT_REDUCE_PROD) of each
 * column [j0, j0 + nj) of x, int32 (elsize 4) or int64 (8), into r[0..nj): the
 * dispatch level's kernels (Note [integer column sums] in cpu_vint.h). */
void pdt_cpu_cols_int(pdt_reduce_op op, int64_t elsize, const char *x, int64_t m, int64_t k,
                      int64_t j0, int64_t nj, uint64_t *r);

/* The columns kernel of op for x's dtype; NULL where op is not defined for it. */
cols_fn pdt_cpu_cols_fn(pdt_reduce_op op, pdt_dtype dtype);

#define AS_BOOL(v) ((v) != 0)
#define AS_IS(v) (v)
#define SQUARE(v) ((v) * (v))
#define FLOAT_NAN(v) ((v) != (v))
#define INT_NAN(v) 0

#define ALL_DTYPES(K)                                                                              \
    {                                                                                              \
        K##_b8, K##_i32, K##_i64, K##_f32, K##_f64                                                 \
    }
/* ALL_DTYPES's and the small integers' (max, min, argmax, argmin) */
#define EXTREME_DTYPES(K)                                                                          \
    {                                                                                              \
        [PDT_BOOL] = K##_b8, [PDT_INT32] = K##_i32, [PDT_INT64] = K##_i64,                         \
        [PDT_FLOAT32] = K##_f32, [PDT_FLOAT64] = K##_f64, [PDT_UINT8] = K##_u8,                    \
        [PDT_INT8] = K##_i8, [PDT_INT16] = K##_i16                                                 \
    }
#define FLOAT_ONLY(K)                                                                              \
    {                                                                                              \
        NULL, NULL, NULL, K##_f32, K##_f64                                                         \
    }

#endif /* PDT_CPU_REDUCE_H */
