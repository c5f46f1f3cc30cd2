/* cpu_reduce.c - the CPU backend's reductions of an (m, k) matrix x to out
 * (m,), contiguous, with the dtype pdt_reduce_out_dtype() gives (see
 * pdt_reduce.h).  x comes in one of two layouts:
 *   rows     strides (k, 1): each row of k is contiguous (the common case);
 *   columns  strides (1, p), p >= m: x is a (k, m) block, its rows p elements
 *            apart (p = m: row-major; p > m: a[::2].sum(0)), whose columns
 *            are reduced (sum(0) of a matrix), read row by row without a copy.
 * k may be 0 for the sums and the product (0 and 1; mean nan).
 *
 * Note [CPU reduction order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Rows: a row is cut into chunks of CHUNK elements.  Each chunk gives a
 * partial result (floating sums: pairwise, with 8 running sums over blocks of
 * 128 elements, in double, but sums of squares in 32 lanes: Note [float32 sums of
 * squares], and float64's in the dot's order, sumsq_f64; integers: int64 wrapping;
 * max/min: 8 running
 * extremes and a NaN flag, then the first index of the result), and the
 * partials are combined in chunk order.  That order does not depend on the
 * number of threads, so a result is the same bit for bit whether the row was
 * reduced by one thread or split across several:
 *   - many rows (m large): the rows are split between the threads;
 *   - few long rows (two chunks or more): each row's chunks are split between
 *     the threads, the partials gathered in a small array and combined in order
 *     (a row of 1e5 floats: max 1.12x -> 0.74x NumPy's time, as it left one
 *     thread idle below 2^17 elements).
 * Columns: each column is folded over its k elements in order (sums in
 * double, one row at a time), blocks of up to COL_BLOCK neighbouring columns at a
 * time, the blocks split between the threads; again independent of the
 * thread count.  A tall block (k > 2 COL_ROWS rows of at most COL_ROWS_MAX_M
 * columns: sum(0) of a (1e6, 256) matrix) is instead cut into bands of
 * COL_ROWS rows: each band's columns are folded as above into partials, the
 * bands split between the threads (so that each thread streams through
 * memory in order, instead of every thread reading a slice of every row),
 * and each column's partials combined in band order.  Whether a matrix is
 * cut depends only on its shape, never on the thread count.
 * Loops over fewer than 2 * GRAIN elements stay on the calling thread.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_reduce.h"
#include "cpu_simd.h"
#include "cpu_sum.h"

#define CHUNK PDT_CPU_SUM_CHUNK  /* elements per partial result (cpu_sum.h) */
#define GRAIN ((int64_t)1 << 15) /* elements below which a thread is not worth it */
#define CHUNKS_PER_ROUND 256     /* partials gathered at once when a row is split */
#define COL_ROWS 4096            /* rows per partial when a tall columns layout is split */
#define COL_ROWS_MAX_M 4096      /* ... and at most this many columns */

/* The partial result of x[begin .. begin + n) (n >= 1) of a row of dtype T. */
typedef acc (*chunk_fn)(const char *row, int64_t begin, int64_t n);

/* ---------------------------------------------------------- chunk kernels */

/* Pairwise sum of F(x[i]) in double: see Note [CPU reduction order].  (The
 * plain float sums below inputs of SUM4_MAX_BYTES take the same tree in
 * cpu_sum.c, four leaves side by side: Note [batched leaves].  Float32 sums from
 * Python: 65,536 elements 10.0 -> 6.0 us, 1e6 80 -> 48, 4e6 306 -> 183.  Past
 * SUM4_MAX_BYTES, where the data streams from memory, the four reads side by side
 * (four streams) ran slower than one leaf at a time (1e7: 774 -> 950 us, with or
 * without software prefetching), so larger inputs take this one.) */
#define SUM4_MAX_BYTES ((int64_t)16 << 20)
#define PAIRWISE(NAME, T, F)                                                                       \
    static double NAME(const T *x, int64_t n)                                                      \
    {                                                                                              \
        if (n > 128) {                                                                             \
            int64_t h = (n / 2) & ~(int64_t)7;                                                     \
            return NAME(x, h) + NAME(x + h, n - h);                                                \
        }                                                                                          \
        double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                    \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++)                                                            \
                s[j] += F((double)x[i + j]);                                                       \
        double r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));              \
        for (; i < n; i++)                                                                         \
            r += F((double)x[i]);                                                                  \
        return r;                                                                                  \
    }

#define FLOAT_SUM_CHUNK(NAME, T, F)                                                                \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        acc a = {F##_pairwise_##T((const T *)row + begin, n), 0, 0};                               \
        return a;                                                                                  \
    }

/* Products and integer sums in 8 running lanes (independent chains, which
 * the compiler can pipeline or vectorise), combined in a fixed order.  Integer
 * sums and products wrap around (two's complement), as in PyTorch. */
#define LANES_CHUNK(NAME, T, A, CONV, INIT, OP, MAKE)                                              \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        const T *x = (const T *)row + begin;                                                       \
        A r[8] = {INIT, INIT, INIT, INIT, INIT, INIT, INIT, INIT};                                 \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++)                                                            \
                r[j] OP(A) CONV(x[i + j]);                                                         \
        for (; i < n; i++)                                                                         \
            r[0] OP(A) CONV(x[i]);                                                                 \
        for (int j = 1; j < 8; j++)                                                                \
            r[0] OP r[j];                                                                          \
        return MAKE(r[0], 0);                                                                      \
    }

/* The max (CMP >) or min (CMP <) of the integers x[0..n) (n >= 1) in 8
 * scalar lanes, which the compiler vectorises itself.  (Floats: the one-pass
 * kernels of cpu_vreduce.h, at the dispatch level in use.) */
#define INT_LANES(NAME, T, V, CONV, CMP)                                                           \
    static V NAME(const T *x, int64_t n, int *nan)                                                 \
    {                                                                                              \
        V lane[8], best;                                                                           \
        int64_t i = 0;                                                                             \
        for (int j = 0; j < 8; j++)                                                                \
            lane[j] = (V)CONV(x[0]);                                                               \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++) {                                                          \
                V v = (V)CONV(x[i + j]);                                                           \
                lane[j] = v CMP lane[j] ? v : lane[j];                                             \
            }                                                                                      \
        for (; i < n; i++)                                                                         \
            lane[0] = (V)CONV(x[i]) CMP lane[0] ? (V)CONV(x[i]) : lane[0];                         \
        best = lane[0];                                                                            \
        for (int j = 1; j < 8; j++)                                                                \
            best = lane[j] CMP best ? lane[j] : best;                                              \
        *nan = 0;                                                                                  \
        return best;                                                                               \
    }

/* max/min of a chunk through LANES; then, for the arg ops (INDEX), the first
 * index of the result, FIND(x, n, v).  A NaN wins: the first one is the result. */
#define EXTREME_CHUNK(NAME, T, V, CONV, LANES, ISNAN, MAKE, INDEX, FIND)                           \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        const T *x = (const T *)row + begin;                                                       \
        int nan;                                                                                   \
        int64_t at = 0;                                                                            \
        V best = LANES(x, n, &nan);                                                                \
        if (nan) {                                                                                 \
            while (!ISNAN((V)CONV(x[at])))                                                         \
                at++;                                                                              \
            best = (V)CONV(x[at]);                                                                 \
        } else if (INDEX) {                                                                        \
            at = FIND(x, n, best);                                                                 \
        }                                                                                          \
        return MAKE(best, begin + at);                                                             \
    }

#define EXTREME_CHUNKS(SN, T, V, CONV, ISNAN, MAKE, FIND)                                          \
    EXTREME_CHUNK(max_##SN, T, V, CONV, max_lanes_##SN, ISNAN, MAKE, 0, FIND)                      \
    EXTREME_CHUNK(min_##SN, T, V, CONV, min_lanes_##SN, ISNAN, MAKE, 0, FIND)                      \
    EXTREME_CHUNK(argmax_##SN, T, V, CONV, max_lanes_##SN, ISNAN, MAKE, 1, FIND)                   \
    EXTREME_CHUNK(argmin_##SN, T, V, CONV, min_lanes_##SN, ISNAN, MAKE, 1, FIND)

/* the first bool equal to v (0 or 1) in x[0..n) */
static int64_t find_b8(const uint8_t *x, int64_t n, int32_t v)
{
    int64_t at = 0;
    while (at < n && AS_BOOL(x[at]) != v)
        at++;
    return at;
}
/* the first integer equal to v: the level's kernel (cpu_vint.h) */
#define FIND_INT(x, n, v) pdt_cpu_simd()->find_eq((x), (n), (int64_t)(v), (int)sizeof *(x))

/* Float max/min and their index: one pass of the dispatched kernel (the
 * first extreme, or the first NaN), whose element is the value. */
#define SIMD_EXTREME_CHUNK(NAME, T, FIELD)                                                         \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        const T *x = (const T *)row + begin;                                                       \
        int64_t at = pdt_cpu_simd()->FIELD(x, n);                                                  \
        return float_acc((double)x[at], begin + at);                                               \
    }

#define SIMD_VALUE_CHUNK(NAME, T, FIELD)                                                           \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        return float_acc((double)pdt_cpu_simd()->FIELD((const T *)row + begin, n), 0);             \
    }

/* Note [float32 sums of squares]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * norm's sum of squares of a float32 chunk runs in 32 double lanes through the
 * whole chunk (element i into lane i % 32), the lanes then folded in a fixed
 * tree, instead of the pairwise order of the other sums: each square is exact
 * in double, so the only roundings are the lanes' additions, at most k 2^-53 of
 * the sum for a chunk of k elements (Note [reduction accuracy]), and the order is
 * fixed, independent of the threads and the level.  The pairwise order called
 * the four-leaf kernel every 512 elements, whose fold cost as much as its loop:
 * linalg.norm of 1e5 float32 took 12.6 us against NumPy's 5.4. */
static acc sumsq_f32(const char *row, int64_t begin, int64_t n)
{
    acc a = {pdt_cpu_simd()->sumsq32_f32((const float *)row + begin, n), 0, 0};
    return a;
}

/* A float64 chunk's sum of squares is its dot product with itself (Note [float64 dot
 * products] in cpu_dot.c: the rounded squares into 32 double lanes, sub-chunks of
 * 4096 added in order), rather than pairwise, for the reason above; the chunks are
 * then added in order as the dot's groups are, so norm(x)^2 has the bits of dot(x,
 * x) for rows, whole or strided (not the columns layout, norm(x, dim=0) of a
 * row-major matrix, which folds each column in row order), and a single contiguous
 * row goes to the dot itself, split over the pool by its sub-chunks.  Within the
 * stated bound (Note [reduction accuracy]: k 2^-53 of the sum for k elements, as any
 * order).  Short rows pay the 32 lanes' fold each, as float32's do: norm(dim=1) of
 * (2e5, 16) float64 3.1 -> 7.9 ms on one thread (float32's path). */
static acc sumsq_f64(const char *row, int64_t begin, int64_t n)
{
    const double *x = (const double *)row + begin;
    acc a = {pdt_cpu_dot_f64(x, x, n, 0), 0, 0};
    return a;
}

#define FLOAT_CHUNKS(SN, T)                                                                        \
    PAIRWISE(AS_IS_pairwise_##T, T, AS_IS)                                                         \
    PAIRWISE(fabs_pairwise_##T, T, fabs)                                                           \
    static acc sum_##SN(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                              \
        return float_acc(pdt_cpu_pairwise_##SN((const T *)row + begin, n), 0);                     \
    }                                                                                              \
    FLOAT_SUM_CHUNK(sumseq_##SN, T, AS_IS)                                                         \
    FLOAT_SUM_CHUNK(sumabs_##SN, T, fabs)                                                          \
    LANES_CHUNK(prod_##SN, T, double, AS_IS, 1.0, *=, float_acc)                                   \
    SIMD_VALUE_CHUNK(max_##SN, T, max_##SN)                                                        \
    SIMD_VALUE_CHUNK(min_##SN, T, min_##SN)                                                        \
    SIMD_EXTREME_CHUNK(argmax_##SN, T, argmax_##SN)                                                \
    SIMD_EXTREME_CHUNK(argmin_##SN, T, argmin_##SN)

/* int32 and int64 sums, products, maxima and minima, and the bool sum (a
 * count), through the dispatch level's kernels (cpu_vint.h); the bool products
 * and extremes through the lanes above. */
#define SIMD_INT_LANES(NAME, T, FIELD)                                                             \
    static T NAME(const T *x, int64_t n, int *nan)                                                 \
    {                                                                                              \
        *nan = 0;                                                                                  \
        return pdt_cpu_simd()->FIELD(x, n);                                                        \
    }
#define SIMD_INT_SUM(NAME, T, FIELD)                                                               \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        return int_acc(pdt_cpu_simd()->FIELD((const T *)row + begin, n), 0);                       \
    }
#define SIMD_INT_EXTREMES(SN, T)                                                                   \
    SIMD_INT_LANES(max_lanes_##SN, T, max_##SN)                                                    \
    SIMD_INT_LANES(min_lanes_##SN, T, min_##SN)                                                    \
    EXTREME_CHUNKS(SN, T, T, AS_IS, INT_NAN, int_acc, FIND_INT)
/* int32 and int64 arg extremes: one pass of the level's kernel (Note [one-pass integer
 * extremes] in cpu_vreduce.h), whose element is the value */
#define SIMD_INT_ARG_CHUNK(NAME, T, FIELD)                                                         \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                     \
    {                                                                                              \
        const T *x = (const T *)row + begin;                                                       \
        int64_t at = pdt_cpu_simd()->FIELD(x, n);                                                  \
        return int_acc(x[at], begin + at);                                                         \
    }
#define SIMD_INT_CHUNKS(SN, T)                                                                     \
    SIMD_INT_SUM(sum_##SN, T, sum_##SN)                                                            \
    SIMD_INT_SUM(prod_##SN, T, prod_##SN)                                                          \
    SIMD_INT_LANES(max_lanes_##SN, T, max_##SN)                                                    \
    SIMD_INT_LANES(min_lanes_##SN, T, min_##SN)                                                    \
    EXTREME_CHUNK(max_##SN, T, T, AS_IS, max_lanes_##SN, INT_NAN, int_acc, 0, FIND_INT)            \
    EXTREME_CHUNK(min_##SN, T, T, AS_IS, min_lanes_##SN, INT_NAN, int_acc, 0, FIND_INT)            \
    SIMD_INT_ARG_CHUNK(argmax_##SN, T, argmax_##SN)                                                \
    SIMD_INT_ARG_CHUNK(argmin_##SN, T, argmin_##SN)

INT_LANES(max_lanes_b8, uint8_t, int32_t, AS_BOOL, >)
INT_LANES(min_lanes_b8, uint8_t, int32_t, AS_BOOL, <)
SIMD_INT_SUM(sum_b8, uint8_t, count_b8)
LANES_CHUNK(prod_b8, uint8_t, uint64_t, (int64_t)AS_BOOL, 1, *=, int_acc)
EXTREME_CHUNKS(b8, uint8_t, int32_t, AS_BOOL, INT_NAN, int_acc, find_b8)
SIMD_INT_CHUNKS(i32, int32_t)
SIMD_INT_CHUNKS(i64, int64_t)
/* uint8, int8 and int16 extremes in their own lanes (the backend's small_int_extremes:
 * Note [small integers] in pdt_dtype.h); their sums and products are the core's, in
 * int32 */
SIMD_INT_EXTREMES(u8, uint8_t)
SIMD_INT_EXTREMES(i8, int8_t)
SIMD_INT_EXTREMES(i16, int16_t)
FLOAT_CHUNKS(f32, float)
FLOAT_CHUNKS(f64, double)

/* chunk_fns[op][x dtype], in pdt_dtype order; NULL: not defined (the core
 * never asks). */
static const chunk_fn chunk_fns[PDT_NUM_REDUCE_OPS][PDT_NUM_DTYPES] = {
    [PDT_REDUCE_SUM] = ALL_DTYPES(sum),           [PDT_REDUCE_PROD] = ALL_DTYPES(prod),
    [PDT_REDUCE_MAX] = EXTREME_DTYPES(max),       [PDT_REDUCE_MIN] = EXTREME_DTYPES(min),
    [PDT_REDUCE_ARGMAX] = EXTREME_DTYPES(argmax), [PDT_REDUCE_ARGMIN] = EXTREME_DTYPES(argmin),
    [PDT_REDUCE_SUM_SQUARES] = FLOAT_ONLY(sumsq), [PDT_REDUCE_SUM_ABS] = FLOAT_ONLY(sumabs),
    [PDT_REDUCE_MEAN] = FLOAT_ONLY(sum),
};

/* ------------------------------------------------------- combining partials */

typedef struct job {
    pdt_reduce_op op;
    int is_float;   /* x is float32 or float64: partials in acc.f */
    chunk_fn chunk; /* rows layout */
    cols_fn cols;   /* columns layout */
    const char *x;  /* (m, k) */
    int64_t m, k;
    int64_t row_bytes;
    int64_t elem_bytes, elsize; /* strided rows: elem_bytes apart, not elsize */
    int64_t width;              /* columns per block (columns layout) */
    int64_t pitch;              /* columns layout: elements from one row to the next (>= m) */
    char *out;                  /* (m,) */
    pdt_dtype out_dtype;
    int oom;    /* a gather buffer (or the bands' partials) could not be allocated */
    acc *bands; /* a tall columns layout: (k / COL_ROWS, m) partials */
    /* one row split across threads */
    const char *row;
    int64_t first_chunk;
    acc *partials; /* CHUNKS_PER_ROUND, on split_row's stack (not zeroed with the job) */
} job;

/* a = a then b (b covers later elements of the row than a). */
static void combine(const job *j, acc *a, const acc *b)
{
    switch (j->op) {
    case PDT_REDUCE_SUM:
    case PDT_REDUCE_SUM_SQUARES:
    case PDT_REDUCE_SUM_ABS:
    case PDT_REDUCE_MEAN:
        a->f += b->f;
        a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i);
        break;
    case PDT_REDUCE_PROD:
        a->f *= b->f;
        a->i = (int64_t)((uint64_t)a->i * (uint64_t)b->i);
        break;
    case PDT_REDUCE_MAX:
    case PDT_REDUCE_ARGMAX:
        if (j->is_float ? (a->f == a->f && (b->f != b->f || b->f > a->f)) : b->i > a->i)
            *a = *b;
        break;
    case PDT_REDUCE_MIN:
    case PDT_REDUCE_ARGMIN:
        if (j->is_float ? (a->f == a->f && (b->f != b->f || b->f < a->f)) : b->i < a->i)
            *a = *b;
        break;
    }
}

static int64_t chunk_len(const job *j, int64_t begin)
{
    return j->k - begin < CHUNK ? j->k - begin : CHUNK;
}

/* The partial of x[begin .. begin + n) of a row; a strided row's chunk is
 * first gathered into buf (CHUNK elements), so that it is reduced exactly as
 * the same values laid out contiguously would be. */
static acc run_chunk(const job *j, const char *row, int64_t begin, int64_t n, char *buf)
{
    if (!buf)
        return j->chunk(row, begin, n);
    const char *src = row + begin * j->elem_bytes;
    const int64_t s = j->elem_bytes;
    /* Strides of 2 and 3 elements (a[::2], a[:, ::3]) as constants, which the
     * compiler turns into vector loads and shuffles; any other one element by
     * element.  memcpy: the bytes, whatever the dtype (no aliasing question). */
#define GATHER_BY(T, K)                                                                            \
    for (int64_t i = 0; i < n; i++)                                                                \
        memcpy((T *)buf + i, src + i * (K), sizeof(T));
#define GATHER(T)                                                                                  \
    if (s == 2 * (int64_t)sizeof(T)) {                                                             \
        GATHER_BY(T, 2 * (int64_t)sizeof(T))                                                       \
    } else if (s == 3 * (int64_t)sizeof(T)) {                                                      \
        GATHER_BY(T, 3 * (int64_t)sizeof(T))                                                       \
    } else {                                                                                       \
        GATHER_BY(T, s)                                                                            \
    }
    switch (j->elsize) {
    case 1: GATHER(uint8_t) break;
    case 2: GATHER(uint16_t) break;
    case 4: GATHER(uint32_t) break;
    default: GATHER(uint64_t) break;
    }
#undef GATHER
#undef GATHER_BY
    acc a = j->chunk(buf, 0, n);
    a.idx += begin;
    return a;
}

/* A gather buffer for strided rows (NULL for contiguous ones, or when it
 * cannot be had: then *failed and j->oom are set). */
static char *gather_buffer(job *j, int *failed)
{
    if (j->elem_bytes == j->elsize)
        return NULL;
    char *buf = malloc((size_t)(CHUNK * j->elsize));
    if (!buf) {
        *failed = 1;
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
    }
    return buf;
}

static acc reduce_row(const job *j, const char *row, char *buf)
{
    int prod = j->op == PDT_REDUCE_PROD;
    acc a = {prod ? 1.0 : 0.0, prod ? 1 : 0, 0}; /* k == 0: only sums and products */
    for (int64_t c = 0; c < j->k; c += CHUNK) {
        acc b = run_chunk(j, row, c, chunk_len(j, c), buf);
        if (c == 0)
            a = b;
        else
            combine(j, &a, &b);
    }
    return a;
}

static void store_row(const job *j, int64_t r, const acc *pa)
{
    const acc a = *pa;
    char *p = j->out + r * (int64_t)pdt_dtype_size(j->out_dtype);
    double f = j->is_float ? a.f : (double)a.i;
    int64_t i = a.i;
    if (j->op == PDT_REDUCE_ARGMAX || j->op == PDT_REDUCE_ARGMIN)
        i = a.idx, f = (double)a.idx;
    else if (j->op == PDT_REDUCE_MEAN)
        f = a.f / (double)j->k; /* k == 0: 0/0 = nan, as PyTorch */
    switch (j->out_dtype) {
    case PDT_BOOL: *(uint8_t *)p = j->is_float ? f != 0 : i != 0; break;
    case PDT_INT32: *(int32_t *)p = (int32_t)i; break;
    case PDT_UINT8: *(uint8_t *)p = (uint8_t)i; break; /* the small integers' extremes */
    case PDT_INT8: *(int8_t *)p = (int8_t)i; break;
    case PDT_INT16: *(int16_t *)p = (int16_t)i; break;
    case PDT_INT64: *(int64_t *)p = i; break;
    case PDT_FLOAT32: *(float *)p = (float)f; break;
    case PDT_FLOAT64: *(double *)p = f; break;
    default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
    }
}

/* store_row for a[0..n) into rows r0.., the cases a column sum or extreme
 * meets most (one loop each, instead of a switch per element: sum(0) of a
 * (3, 1000) float32 matrix spent 2.5 of its 4 us in store_row). */
static void store_rows(const job *j, int64_t r0, const acc *a, int64_t n)
{
    const int arg = j->op == PDT_REDUCE_ARGMAX || j->op == PDT_REDUCE_ARGMIN;
    if (arg && j->out_dtype == PDT_INT64) {
        int64_t *o = (int64_t *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = a[q].idx;
        return;
    }
    if (!arg && j->is_float && j->op != PDT_REDUCE_MEAN && j->out_dtype == PDT_FLOAT32) {
        float *o = (float *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = (float)a[q].f;
        return;
    }
    if (!arg && j->is_float && j->op != PDT_REDUCE_MEAN && j->out_dtype == PDT_FLOAT64) {
        double *o = (double *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = a[q].f;
        return;
    }
    if (!arg && !j->is_float && j->out_dtype == PDT_INT64) { /* integer and bool sums */
        int64_t *o = (int64_t *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = a[q].i;
        return;
    }
    for (int64_t q = 0; q < n; q++)
        store_row(j, r0 + q, &a[q]);
}

/* store_row for the sums (or means) v[0..n) of rows r0..: one loop for a float
 * output.  (An acc built a row to pass store_row by value stalled on store
 * forwarding: 14 ns a row, whatever its length; one thread, float32, sum(1) of
 * (500000, 2) 6,950 -> 2,130 us, of (100000, 10) 1,390 -> 460.) */
static void store_sums(const job *j, int64_t r0, const double *v, int64_t n)
{
    const double scale = j->op == PDT_REDUCE_MEAN ? (double)j->k : 1.0;
    if (j->out_dtype == PDT_FLOAT32) {
        float *o = (float *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = (float)(v[q] / scale); /* x / 1.0 is x: a sum's bits */
    } else if (j->out_dtype == PDT_FLOAT64) {
        double *o = (double *)j->out + r0;
        for (int64_t q = 0; q < n; q++)
            o[q] = v[q] / scale;
    } else {
        for (int64_t q = 0; q < n; q++)
            store_row(j, r0 + q, &(acc){v[q], 0, 0});
    }
}

static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    job *j = ctx;
    int failed = 0;
    char *buf = gather_buffer(j, &failed);
    if (failed)
        return;
    if (!buf && j->k >= 1 && j->k <= PDT_CPU_LEAF && (j->chunk == sum_f32 || j->chunk == sum_f64)) {
        double v[64]; /* Note [batched leaves]: the same bits as reduce_row's */
        for (int64_t r = begin; r < end; r += 64) {
            int64_t n = end - r < 64 ? end - r : 64;
            pdt_cpu_short_row_sums(j->chunk == sum_f32 ? PDT_FLOAT32 : PDT_FLOAT64,
                                   j->x + r * j->row_bytes, j->row_bytes, n, j->k, v);
            store_sums(j, r, v, n);
        }
        return;
    }
    if (!buf && j->k >= 1 && j->k <= CHUNK && j->out_dtype == PDT_INT64 &&
        (j->chunk == argmax_f32 || j->chunk == argmin_f32 || j->chunk == argmax_f64 ||
         j->chunk == argmin_f64 || j->chunk == argmax_i32 || j->chunk == argmin_i32 ||
         j->chunk == argmax_i64 || j->chunk == argmin_i64)) {
        /* a float (int32, int64) row's arg extreme in one chunk: the level's kernel a
         * row, its index stored, without a partial and a switch a row: argmax(1) of
         * (256, 10) float32 from 1.4 to 0.8 of NumPy's time, (4096, 10) 1.12 -> 0.75,
         * (4096, 4) 1.59 -> 0.85; the same indices as reduce_row's */
        const pdt_cpu_simd_table *v = pdt_cpu_simd();
        int64_t *o = (int64_t *)j->out;
        for (int64_t r = begin; r < end; r++) {
            const char *row = j->x + r * j->row_bytes;
            o[r] = j->chunk == argmax_f32   ? v->argmax_f32((const float *)row, j->k)
                   : j->chunk == argmin_f32 ? v->argmin_f32((const float *)row, j->k)
                   : j->chunk == argmax_f64 ? v->argmax_f64((const double *)row, j->k)
                   : j->chunk == argmin_f64 ? v->argmin_f64((const double *)row, j->k)
                   : j->chunk == argmax_i32 ? v->argmax_i32((const int32_t *)row, j->k)
                   : j->chunk == argmin_i32 ? v->argmin_i32((const int32_t *)row, j->k)
                   : j->chunk == argmax_i64 ? v->argmax_i64((const int64_t *)row, j->k)
                                            : v->argmin_i64((const int64_t *)row, j->k);
        }
        return;
    }
    if (!buf && j->chunk == sum_b8 && j->out_dtype == PDT_INT64) {
        int64_t *o = (int64_t *)j->out; /* bool counts (exact in any order), no acc a row */
        for (int64_t r = begin; r < end; r++)
            o[r] = (int64_t)pdt_cpu_simd()->count_b8((const uint8_t *)j->x + r * j->row_bytes,
                                                     j->k);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        const acc a = reduce_row(j, j->x + r * j->row_bytes, buf);
        store_row(j, r, &a);
    }
    free(buf);
}

static void chunks_range(int64_t begin, int64_t end, void *ctx)
{
    job *j = ctx;
    int failed = 0;
    char *buf = gather_buffer(j, &failed);
    if (failed)
        return;
    for (int64_t c = begin; c < end; c++) {
        int64_t start = (j->first_chunk + c) * CHUNK;
        j->partials[c] = run_chunk(j, j->row, start, chunk_len(j, start), buf);
    }
    free(buf);
}

static void cols_range(int64_t begin, int64_t end, void *ctx)
{
    const job *j = ctx;
    acc a[COL_BLOCK];
    /* float32 sums straight from the kernel's double lanes to the output */
    const int f32_sum = j->is_float && j->elsize == 4 && j->op == PDT_REDUCE_SUM &&
                        j->out_dtype == PDT_FLOAT32;
    /* bool sums (counts: any, all, count_nonzero) straight into an int64 output */
    const int count = j->cols == pdt_cpu_cols_fn(PDT_REDUCE_SUM, PDT_BOOL) &&
                      j->out_dtype == PDT_INT64;
    /* int32 and int64 sums and products likewise (Note [integer column sums]) */
    const int int_fold = (j->op == PDT_REDUCE_SUM || j->op == PDT_REDUCE_PROD) && !j->is_float &&
                         j->elsize >= 4 && j->out_dtype == PDT_INT64;
    for (int64_t b = begin; b < end; b++) {
        int64_t j0 = b * j->width, nj = j->m - j0 < j->width ? j->m - j0 : j->width;
        if (count) {
            pdt_cpu_cols_count_b8((const uint8_t *)j->x, j->pitch, j->k, j0, nj,
                                  (int64_t *)j->out + j0);
            continue;
        }
        if (int_fold) {
            pdt_cpu_cols_int(j->op, j->elsize, j->x, j->pitch, j->k, j0, nj,
                             (uint64_t *)j->out + j0);
            continue;
        }
        if (f32_sum) {
            double r[COL_BLOCK];
            float *o = (float *)j->out + j0;
            pdt_cpu_simd()->cols_sum_f32((const float *)j->x, j->pitch, j->k, j0, nj, r);
            for (int64_t q = 0; q < nj; q++)
                o[q] = (float)r[q];
            continue;
        }
        j->cols(j->x, j->pitch, j->k, j0, nj, a);
        store_rows(j, j0, a, nj);
    }
}

/* Bands [begin, end) of COL_ROWS rows of a tall columns layout: each band's
 * partials into j->bands, COL_BLOCK columns at a time. */
static void bands_range(int64_t begin, int64_t end, void *ctx)
{
    const job *j = ctx;
    int arg = j->op == PDT_REDUCE_ARGMAX || j->op == PDT_REDUCE_ARGMIN;
    for (int64_t b = begin; b < end; b++) {
        int64_t r0 = b * COL_ROWS, rows = j->k - r0 < COL_ROWS ? j->k - r0 : COL_ROWS;
        const char *x = j->x + r0 * j->pitch * j->elsize;
        acc *part = j->bands + b * j->m;
        for (int64_t j0 = 0; j0 < j->m; j0 += COL_BLOCK) {
            int64_t nj = j->m - j0 < COL_BLOCK ? j->m - j0 : COL_BLOCK;
            j->cols(x, j->pitch, rows, j0, nj, part + j0);
        }
        for (int64_t q = 0; arg && q < j->m; q++)
            part[q].idx += r0;
    }
}

/* A tall columns layout, cut into bands (Note [CPU reduction order]). */
static void reduce_bands(job *j)
{
    int64_t nb = (j->k + COL_ROWS - 1) / COL_ROWS;
    j->bands = malloc((size_t)(nb * j->m) * sizeof(acc));
    if (!j->bands) {
        j->oom = 1;
        return;
    }
    pdt_cpu_parallel_for(nb, 1, bands_range, j);
    for (int64_t q = 0; q < j->m; q++) {
        acc a = j->bands[q];
        for (int64_t b = 1; b < nb; b++)
            combine(j, &a, &j->bands[b * j->m + q]);
        store_row(j, q, &a);
    }
    free(j->bands);
}

/* The columns layout: blocks of neighbouring columns split over the threads
 * (narrower blocks when there are few columns, so that each thread has some). */
static void reduce_cols(job *j)
{
    int64_t m = j->m, k = j->k;
    if (k > 2 * COL_ROWS && m <= COL_ROWS_MAX_M) {
        reduce_bands(j);
        return;
    }
    j->width = COL_BLOCK;
    if (m * k >= 2 * GRAIN) {
        int64_t threads = pdt_cpu_threads(), w = (m + threads - 1) / threads;
        w = (w + 15) & ~(int64_t)15;
        if (w < j->width)
            j->width = w;
    }
    int64_t blocks = (m + j->width - 1) / j->width, per_block = j->width * k;
    pdt_cpu_parallel_for(blocks, per_block >= GRAIN ? 1 : GRAIN / per_block, cols_range, j);
}

/* Note [a chunk in halves]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * One contiguous row of at most one chunk (x.sum() or x.mean() of 32,768 to 65,536
 * float32 or float64) has for its pairwise sum the sum of its two halves (the
 * tree's first split, at (k / 2) & ~7: cpu_sum.c), so the halves can go to two
 * threads and give the same bits.  When the pool is awake (Note [the hot grain] in
 * cpu_parallel.c) they do, the first on the caller.  On a pool of two threads that
 * is how the elementwise op before split its output (PDT_CPU_GRAIN_HOT, the
 * grain of both; halves within 7 elements of these), so each thread
 * reads the half that it wrote, from its own cache; with more threads the op's
 * slices (thirds, quarters, claimed by whichever thread is free) match less well,
 * which costs speed, never bits.  With one thread for the sum, x.abs().sum() of
 * 65,536 float32 took 40.3 us on two threads, 24.6 on one (NumPy 29): the sum read
 * the worker's half from the other core.  (As for every row split here, the halves
 * round alike on any thread unless something changed the calling thread's
 * floating-point mode, flush-to-zero say: the mode is per thread.) */
#define HALVES_MIN PDT_CPU_GRAIN_HOT

typedef struct halves {
    const job *j;
    int64_t h;
    double v[2];
} halves;

static void halves_range(int64_t begin, int64_t end, void *ctx)
{
    halves *p = ctx;
    for (int64_t i = begin; i < end; i++)
        p->v[i] = p->j->chunk(p->j->x, i ? p->h : 0, i ? p->j->k - p->h : p->h).f;
}

static void sum_halves(job *j)
{
    halves p = {j, (j->k / 2) & ~(int64_t)7, {0.0, 0.0}};
    pdt_cpu_parallel_for_hot(2, 2, 1, halves_range, &p);
    const acc a = float_acc(p.v[0] + p.v[1], 0); /* cpu_sum.c's `a + pairwise(...)` */
    store_row(j, 0, &a);
}

/* Row r with its chunks spread over the threads; the same result as
 * reduce_row (Note [CPU reduction order]). */
static void split_row(job *j, int64_t r)
{
    int64_t nchunks = (j->k + CHUNK - 1) / CHUNK;
    acc a = {0, 0, 0}, partials[CHUNKS_PER_ROUND];
    j->partials = partials;
    j->row = j->x + r * j->row_bytes;
    for (int64_t c0 = 0; c0 < nchunks; c0 += CHUNKS_PER_ROUND) {
        int64_t count = nchunks - c0 < CHUNKS_PER_ROUND ? nchunks - c0 : CHUNKS_PER_ROUND;
        j->first_chunk = c0;
        pdt_cpu_parallel_for(count, 1, chunks_range, j);
        for (int64_t c = 0; c < count; c++) {
            if (c0 == 0 && c == 0)
                a = j->partials[0];
            else
                combine(j, &a, &j->partials[c]);
        }
    }
    store_row(j, r, &a);
}

pdt_status pdt_cpu_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x)
{
    /* x: (m, k), rows (strides (k, 1)), columns (strides (1, p), p >= m), or
     * strided rows (strides (r, s), s > 1: a view reduced in place); out: (m,) */
    if ((unsigned)op >= PDT_NUM_REDUCE_OPS || !chunk_fns[op][x->dtype])
        return pdt_fail(PDT_ERR_UNSUPPORTED, "reduction %d is not defined for %s on the CPU",
                        (int)op, pdt_dtype_name(x->dtype));
    job jb = {
        .op = op,
        .is_float = pdt_dtype_is_floating(x->dtype),
        .chunk = chunk_fns[op][x->dtype],
        .cols = pdt_cpu_cols_fn(op, x->dtype),
        .x = pdt_tensor_ptr(x),
        .m = x->shape[0],
        .k = x->shape[1],
        .row_bytes = x->strides[0] * (int64_t)pdt_dtype_size(x->dtype),
        .elem_bytes = x->strides[1] * (int64_t)pdt_dtype_size(x->dtype),
        .elsize = (int64_t)pdt_dtype_size(x->dtype),
        .out = pdt_tensor_ptr(out),
        .out_dtype = out->dtype,
    };
    job *j = &jb;
    int64_t m = x->shape[0], k = x->shape[1];
    int is_float = x->dtype == PDT_FLOAT32 || x->dtype == PDT_FLOAT64;
    if (is_float && m * k * jb.elsize > SUM4_MAX_BYTES) {
        int f32 = x->dtype == PDT_FLOAT32;
        if (op == PDT_REDUCE_SUM || op == PDT_REDUCE_MEAN)
            jb.chunk = f32 ? sumseq_f32 : sumseq_f64;
    }
    if (k <= 1)
        jb.elem_bytes = jb.elsize; /* one element a row: contiguous either way */
    if (k > 1 && m > 1 && x->strides[0] == 1 && x->strides[1] >= m) {
        jb.pitch = x->strides[1]; /* columns, each row of m followed by a gap when pitch > m */
        reduce_cols(j);
    } else if (k == 1 && m > 1 && x->strides[0] == 1) {
        /* one element a row, the rows side by side (sum(0) of a (1, n) matrix):
         * one row of columns, not m calls of a row kernel (1e3: 15 us -> 0.5) */
        jb.pitch = m;
        reduce_cols(j);
    } else if (m == 1 && k >= 2 * HALVES_MIN && k <= CHUNK && jb.elem_bytes == jb.elsize &&
               (jb.chunk == sum_f32 || jb.chunk == sum_f64)) {
        sum_halves(j); /* Note [a chunk in halves] */
    } else if (m == 1 && k >= 1 && jb.elem_bytes == jb.elsize && jb.chunk == sumsq_f64) {
        /* one contiguous float64 row's sum of squares: the dot's sub-chunks over the
         * pool, not the chunks of 65,536 (1e5 elements: 65,536 on one thread and
         * 34,464 on the other took 14 us on two threads, NumPy's ddot 10) */
        const double *x = (const double *)jb.x;
        const acc a = float_acc(pdt_cpu_dot_f64(x, x, k, 1), 0);
        store_row(j, 0, &a);
    } else if (k == 0 || m * k < 2 * GRAIN) {
        rows_range(0, m, j);
    } else if (k > CHUNK && m < 4 * (int64_t)pdt_cpu_threads()) {
        for (int64_t r = 0; r < m; r++)
            split_row(j, r);
    } else {
        int64_t grain = (GRAIN + k - 1) / k;
        pdt_cpu_parallel_for(m, grain, rows_range, j);
    }
    if (jb.oom)
        return pdt_fail(PDT_ERR_OOM,
                        "out of memory: a work buffer to reduce a view of shape (%lld, %lld) "
                        "on the CPU",
                        (long long)m, (long long)k);
    return PDT_OK;
}
