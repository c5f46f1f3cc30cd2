/* cpu_reduce.c - the CPU backend's row reductions: x contiguous (m, k), out
 * contiguous (m,) with the dtype pdt_reduce_out_dtype() gives (see
 * pdt_reduce.h).  k may be 0 for the sums and the product (0 and 1; mean nan).
 *
 * Note [CPU reduction order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A row is cut into chunks of CHUNK elements.  Each chunk gives a partial
 * result (floating sums: pairwise, with 8 running sums over blocks of 128
 * elements, in double; integers: int64 wrapping; max/min: the value and its
 * first index), and the partials are combined in chunk order.  That order does
 * not depend on the number of threads, so a result is the same bit for bit
 * whether the row was reduced by one thread or split across several:
 *   - many rows (m large): the rows are split between the threads;
 *   - few long rows: each row's chunks are split between the threads, the
 *     partials gathered in a small array and combined in order.
 * Loops over fewer than 2 * GRAIN elements stay on the calling thread.
 */
#include <math.h>
#include <stdint.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"

#define CHUNK ((int64_t)1 << 16)  /* elements per partial result */
#define GRAIN ((int64_t)1 << 15)  /* elements below which a thread is not worth it */
#define CHUNKS_PER_ROUND 256      /* partials gathered at once when a row is split */

/* A partial result: f for floating inputs, i for integer ones (sums wrap as
 * uint64), idx the position of a max/min within the row. */
typedef struct acc {
    double f;
    int64_t i;
    int64_t idx;
} acc;

/* The partial result of x[begin .. begin + n) (n >= 1) of a row of dtype T. */
typedef acc (*chunk_fn)(const char *row, int64_t begin, int64_t n);

/* ---------------------------------------------------------- chunk kernels */

#define AS_BOOL(v) ((v) != 0)
#define AS_IS(v) (v)
#define SQUARE(v) ((v) * (v))

/* Pairwise sum of F(x[i]) in double: see Note [CPU reduction order]. */
#define PAIRWISE(NAME, T, F)                                                                   \
    static double NAME(const T *x, int64_t n)                                                  \
    {                                                                                          \
        if (n > 128) {                                                                         \
            int64_t h = (n / 2) & ~(int64_t)7;                                                 \
            return NAME(x, h) + NAME(x + h, n - h);                                            \
        }                                                                                      \
        double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                \
        int64_t i = 0;                                                                         \
        for (; i + 8 <= n; i += 8)                                                             \
            for (int j = 0; j < 8; j++)                                                        \
                s[j] += F((double)x[i + j]);                                                   \
        double r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));          \
        for (; i < n; i++)                                                                     \
            r += F((double)x[i]);                                                              \
        return r;                                                                              \
    }

#define FLOAT_SUM_CHUNK(NAME, T, F)                                                            \
    PAIRWISE(NAME##_pairwise, T, F)                                                            \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                          \
        acc a = {NAME##_pairwise((const T *)row + begin, n), 0, 0};                            \
        return a;                                                                              \
    }

#define FLOAT_PROD_CHUNK(NAME, T)                                                              \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                          \
        const T *x = (const T *)row + begin;                                                   \
        double p = 1.0;                                                                        \
        for (int64_t i = 0; i < n; i++)                                                        \
            p *= (double)x[i];                                                                 \
        acc a = {p, 0, 0};                                                                     \
        return a;                                                                              \
    }

/* Integer sums and products wrap around (two's complement), as in PyTorch. */
#define INT_CHUNK(NAME, T, CONV, INIT, OP)                                                     \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                          \
        const T *x = (const T *)row + begin;                                                   \
        uint64_t r = INIT;                                                                     \
        for (int64_t i = 0; i < n; i++)                                                        \
            r OP (uint64_t)(int64_t)CONV(x[i]);                                                \
        acc a = {0, (int64_t)r, 0};                                                            \
        return a;                                                                              \
    }

/* max (CMP >) or min (CMP <) and its first index; a NaN wins and stops. */
#define FLOAT_EXTREME_CHUNK(NAME, T, CMP)                                                      \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                          \
        const T *x = (const T *)row + begin;                                                   \
        T best = x[0];                                                                         \
        int64_t at = 0;                                                                        \
        for (int64_t i = 1; i < n && best == best; i++)                                        \
            if (x[i] CMP best || x[i] != x[i]) {                                               \
                best = x[i];                                                                   \
                at = i;                                                                        \
            }                                                                                  \
        acc a = {(double)best, 0, begin + at};                                                 \
        return a;                                                                              \
    }

#define INT_EXTREME_CHUNK(NAME, T, CONV, CMP)                                                  \
    static acc NAME(const char *row, int64_t begin, int64_t n)                                 \
    {                                                                                          \
        const T *x = (const T *)row + begin;                                                   \
        int64_t best = (int64_t)CONV(x[0]), at = 0;                                            \
        for (int64_t i = 1; i < n; i++)                                                        \
            if ((int64_t)CONV(x[i]) CMP best) {                                                \
                best = (int64_t)CONV(x[i]);                                                    \
                at = i;                                                                        \
            }                                                                                  \
        acc a = {0, best, begin + at};                                                         \
        return a;                                                                              \
    }

#define INT_CHUNKS(SN, T, CONV)                                                                \
    INT_CHUNK(sum_##SN, T, CONV, 0, +=)                                                        \
    INT_CHUNK(prod_##SN, T, CONV, 1, *=)                                                       \
    INT_EXTREME_CHUNK(max_##SN, T, CONV, >)                                                    \
    INT_EXTREME_CHUNK(min_##SN, T, CONV, <)

#define FLOAT_CHUNKS(SN, T)                                                                    \
    FLOAT_SUM_CHUNK(sum_##SN, T, AS_IS)                                                        \
    FLOAT_SUM_CHUNK(sumsq_##SN, T, SQUARE)                                                     \
    FLOAT_SUM_CHUNK(sumabs_##SN, T, fabs)                                                      \
    FLOAT_PROD_CHUNK(prod_##SN, T)                                                             \
    FLOAT_EXTREME_CHUNK(max_##SN, T, >)                                                        \
    FLOAT_EXTREME_CHUNK(min_##SN, T, <)

INT_CHUNKS(b8, uint8_t, AS_BOOL)
INT_CHUNKS(i32, int32_t, AS_IS)
INT_CHUNKS(i64, int64_t, AS_IS)
FLOAT_CHUNKS(f32, float)
FLOAT_CHUNKS(f64, double)

#define ALL_DTYPES(K) {K##_b8, K##_i32, K##_i64, K##_f32, K##_f64}
#define FLOAT_ONLY(K) {NULL, NULL, NULL, K##_f32, K##_f64}

/* chunk_fns[op][x dtype], in pdt_dtype order; NULL: not defined (the core
 * never asks). */
static const chunk_fn chunk_fns[PDT_NUM_REDUCE_OPS][PDT_NUM_DTYPES] = {
    [PDT_REDUCE_SUM] = ALL_DTYPES(sum),
    [PDT_REDUCE_PROD] = ALL_DTYPES(prod),
    [PDT_REDUCE_MAX] = ALL_DTYPES(max),
    [PDT_REDUCE_MIN] = ALL_DTYPES(min),
    [PDT_REDUCE_ARGMAX] = ALL_DTYPES(max),
    [PDT_REDUCE_ARGMIN] = ALL_DTYPES(min),
    [PDT_REDUCE_SUM_SQUARES] = FLOAT_ONLY(sumsq),
    [PDT_REDUCE_SUM_ABS] = FLOAT_ONLY(sumabs),
    [PDT_REDUCE_MEAN] = FLOAT_ONLY(sum),
};

/* ------------------------------------------------------- combining partials */

typedef struct job {
    pdt_reduce_op op;
    int is_float; /* x is float32 or float64: partials in acc.f */
    chunk_fn chunk;
    const char *x;    /* (m, k) */
    int64_t k;
    int64_t row_bytes;
    char *out;        /* (m,) */
    pdt_dtype out_dtype;
    /* one row split across threads */
    const char *row;
    int64_t first_chunk;
    acc partials[CHUNKS_PER_ROUND];
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

static acc reduce_row(const job *j, const char *row)
{
    int prod = j->op == PDT_REDUCE_PROD;
    acc a = {prod ? 1.0 : 0.0, prod ? 1 : 0, 0}; /* k == 0: only sums and products */
    for (int64_t c = 0; c < j->k; c += CHUNK) {
        acc b = j->chunk(row, c, chunk_len(j, c));
        if (c == 0)
            a = b;
        else
            combine(j, &a, &b);
    }
    return a;
}

static void store_row(const job *j, int64_t r, acc a)
{
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
    case PDT_INT64: *(int64_t *)p = i; break;
    case PDT_FLOAT32: *(float *)p = (float)f; break;
    case PDT_FLOAT64: *(double *)p = f; break;
    }
}

static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    const job *j = ctx;
    for (int64_t r = begin; r < end; r++)
        store_row(j, r, reduce_row(j, j->x + r * j->row_bytes));
}

static void chunks_range(int64_t begin, int64_t end, void *ctx)
{
    job *j = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t start = (j->first_chunk + c) * CHUNK;
        j->partials[c] = j->chunk(j->row, start, chunk_len(j, start));
    }
}

/* Row r with its chunks spread over the threads; the same result as
 * reduce_row (Note [CPU reduction order]). */
static void split_row(job *j, int64_t r)
{
    int64_t nchunks = (j->k + CHUNK - 1) / CHUNK;
    acc a = {0, 0, 0};
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
    store_row(j, r, a);
}

pdt_status pdt_cpu_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x)
{
    /* x: (m, k) contiguous; out: (m,) contiguous */
    if ((unsigned)op >= PDT_NUM_REDUCE_OPS || !chunk_fns[op][x->dtype])
        return pdt_fail(PDT_ERR_UNSUPPORTED, "reduction %d is not defined for %s on the CPU",
                        (int)op, pdt_dtype_name(x->dtype));
    job jb = {
        .op = op,
        .is_float = pdt_dtype_is_floating(x->dtype),
        .chunk = chunk_fns[op][x->dtype],
        .x = pdt_tensor_ptr(x),
        .k = x->shape[1],
        .row_bytes = x->shape[1] * (int64_t)pdt_dtype_size(x->dtype),
        .out = pdt_tensor_ptr(out),
        .out_dtype = out->dtype,
    };
    job *j = &jb;
    int64_t m = x->shape[0], k = x->shape[1];
    if (k == 0 || m * k < 2 * GRAIN) {
        rows_range(0, m, j);
    } else if (k >= 2 * CHUNK && m < 4 * (int64_t)pdt_cpu_threads()) {
        for (int64_t r = 0; r < m; r++)
            split_row(j, r);
    } else {
        int64_t grain = (GRAIN + k - 1) / k;
        pdt_cpu_parallel_for(m, grain, rows_range, j);
    }
    return PDT_OK;
}
