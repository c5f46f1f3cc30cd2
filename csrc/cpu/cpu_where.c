/* cpu_where.c - the CPU backend's where (pdt_backend.h states the contract; the core
 * validated the inputs), with the rows of x under a mask filled in place (Note [mask
 * rows filled in place]). */
#include <stdlib.h>
#include <string.h>

#include "cpu_cursor.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"

#define GRAIN 32768

typedef struct where_job {
    const pdt_tensor *out, *cond, *a, *b;
    size_t es;
    int contiguous;  /* every operand contiguous or one element repeated (step) */
    int64_t step[3]; /* cond, a, b: 1 (contiguous) or 0 (every stride 0) */
} where_job;

/* 1 or 0 when t is contiguous or all stride 0 (a broadcast number), else -1. */
static int64_t linear_step(const pdt_tensor *t)
{
    if (pdt_tensor_is_contiguous(t))
        return 1;
    for (int d = 0; d < t->ndim; d++)
        if (t->strides[d] != 0 && t->shape[d] != 1)
            return -1;
    return 0;
}

/* One typed loop per element size: the compiler turns each into plain loads
 * and stores (a memcpy call per element would dominate).  A contiguous condition
 * with contiguous or single-number operands gets loops whose steps are constants
 * and whose loads are unconditional, the choice made with a mask (T is unsigned),
 * which the compiler turns into vector selects
 * (the branch on each element mispredicted half the time on a random mask: 1e6
 * float32 took 1.8 ms).  Other layouts (a broadcast condition, masked_fill's mask
 * against a batch, transposed operands) go a row of the last dim at a time, the
 * cursor stepping once a row, with constant steps when each operand's last stride
 * is 0 or 1: where(dead, 0, scores) of (32, 4, 64, 64) with dead (32, 4, 64, 1)
 * took 1.5 ms element by element. */
#define WHERE_SELECT(T, SA, SB)                                                                    \
    for (int64_t i = begin; i < end; i++) {                                                        \
        T x = pa[i * (SA)], y = pb[i * (SB)];                                                      \
        o[i] = y ^ ((x ^ y) & (T) - (T)(cond[i] != 0));                                            \
    }
#define WHERE_ROW(T, SC, SA, SB)                                                                   \
    for (int64_t k = 0; k < run; k++) {                                                            \
        T x = ra[k * (SA)], y = rb[k * (SB)];                                                      \
        ro[k] = y ^ ((x ^ y) & (T) - (T)(rc[k * (SC)] != 0));                                      \
    }
#define WHERE_ROWS(T)                                                                              \
    do {                                                                                           \
        const int last = c.ndim - 1;                                                               \
        const int64_t s0 = c.strides[0][last], s1 = c.strides[1][last], s2 = c.strides[2][last];   \
        const int unit = (s0 | s1 | s2) == 1 || (s0 | s1 | s2) == 0;                               \
        const int kind = unit ? (int)(s0 * 4 + s1 * 2 + s2) : -1;                                  \
        for (int64_t i = begin; i < end;) {                                                        \
            int64_t run = c.shape[last] - c.idx[last];                                             \
            run = run < end - i ? run : end - i;                                                   \
            const uint8_t *rc = cond + c.off[0];                                                   \
            const T *ra = pa + c.off[1], *rb = pb + c.off[2];                                      \
            T *ro = o + i;                                                                         \
            switch (kind) {                                                                        \
            case 0: WHERE_ROW(T, 0, 0, 0) break;                                                   \
            case 1: WHERE_ROW(T, 0, 0, 1) break;                                                   \
            case 2: WHERE_ROW(T, 0, 1, 0) break;                                                   \
            case 3: WHERE_ROW(T, 0, 1, 1) break;                                                   \
            case 4: WHERE_ROW(T, 1, 0, 0) break;                                                   \
            case 5: WHERE_ROW(T, 1, 0, 1) break;                                                   \
            case 6: WHERE_ROW(T, 1, 1, 0) break;                                                   \
            case 7: WHERE_ROW(T, 1, 1, 1) break;                                                   \
            default: WHERE_ROW(T, s0, s1, s2) break;                                               \
            }                                                                                      \
            i += run;                                                                              \
            cursor_advance_in_row(&c, run);                                                        \
        }                                                                                          \
    } while (0)
#define WHERE_LOOPS(T)                                                                             \
    do {                                                                                           \
        T *o = (T *)out;                                                                           \
        const T *pa = (const T *)a, *pb = (const T *)b;                                            \
        const int64_t sc = j->step[0], sa = j->step[1], sb = j->step[2];                           \
        if (j->contiguous && sc == 1) {                                                            \
            if (sa && sb)                                                                          \
                WHERE_SELECT(T, 1, 1)                                                              \
            else if (sa)                                                                           \
                WHERE_SELECT(T, 1, 0)                                                              \
            else if (sb)                                                                           \
                WHERE_SELECT(T, 0, 1)                                                              \
            else                                                                                   \
                WHERE_SELECT(T, 0, 0)                                                              \
        } else if (j->contiguous) {                                                                \
            for (int64_t i = begin; i < end; i++)                                                  \
                o[i] = cond[i * sc] ? pa[i * sa] : pb[i * sb];                                     \
        } else {                                                                                   \
            WHERE_ROWS(T);                                                                         \
        }                                                                                          \
    } while (0)

static void where_range(int64_t begin, int64_t end, void *ctx)
{
    const where_job *j = ctx;
    char *out = pdt_tensor_ptr(j->out);
    const uint8_t *cond = (const uint8_t *)pdt_tensor_ptr(j->cond);
    const char *a = pdt_tensor_ptr(j->a), *b = pdt_tensor_ptr(j->b);
    const pdt_tensor *ts[3] = {j->cond, j->a, j->b};
    cursor c;
    if (!j->contiguous)
        cursor_init(&c, j->out->shape, j->out->ndim, 3, ts, begin);
    switch (j->es) {
    case 1: WHERE_LOOPS(uint8_t); break;
    case 2: WHERE_LOOPS(uint16_t); break;
    case 4: WHERE_LOOPS(uint32_t); break;
    default: WHERE_LOOPS(uint64_t); break;
    }
}

/* Note [mask rows filled in place]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x[mask] = number with a mask over x's leading dims (x[keep] = 0 on an (n, d) x;
 * masked_fill_ of a mask broadcast along x's rows) comes here as where(mask, number, x)
 * into x itself: the mask broadcast along the trailing dims, the number along all.
 * Element by element that reads and writes all of x (8.3 us for 1,000 rows of four
 * float32, NumPy's x[m] = 0 7.8); instead the rows whose mask byte is set are stored,
 * the others not touched (1.1 us).  Taken when out is b (one address, contiguous), a is
 * one element repeated, and the mask's strides are row-major over a prefix of the dims
 * and 0 over the rest, which cover at least two elements a row. */
typedef struct rows_job {
    char *x;
    const uint8_t *mask;
    int64_t len; /* elements a row */
    size_t es;
    const void *v; /* the number's bytes */
} rows_job;

/* The number of rows, setting *len, when where(cond, a, b) into out is such a fill;
 * else -1. */
static int64_t masked_rows(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                           const pdt_tensor *b, int64_t *len)
{
    if (pdt_tensor_ptr(b) != pdt_tensor_ptr(out) || !pdt_tensor_is_contiguous(b) ||
        linear_step(a) != 0)
        return -1;
    int p = cond->ndim;
    int64_t per_row = 1, rows = 1;
    while (p > 0 && (cond->strides[p - 1] == 0 || cond->shape[p - 1] == 1))
        per_row *= cond->shape[--p];
    for (int d = p - 1; d >= 0; d--) {
        if (cond->shape[d] != 1 && cond->strides[d] != rows)
            return -1;
        rows *= cond->shape[d];
    }
    if (per_row < 2)
        return -1;
    *len = per_row;
    return rows;
}

#define FILL_ROWS(T)                                                                               \
    do {                                                                                           \
        T w, *x = (T *)j->x;                                                                       \
        memcpy(&w, j->v, sizeof w);                                                                \
        for (int64_t r = begin; r < end; r++)                                                      \
            if (j->mask[r])                                                                        \
                for (int64_t i = 0; i < len; i++)                                                  \
                    x[r * len + i] = w;                                                            \
    } while (0)
static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    const rows_job *j = ctx;
    const int64_t len = j->len;
    switch (j->es) { /* the element's bytes as an integer of its width: stores the compiler
                      * vectorises */
    case 1: FILL_ROWS(uint8_t); break;
    case 2: FILL_ROWS(uint16_t); break;
    case 4: FILL_ROWS(uint32_t); break;
    default: FILL_ROWS(uint64_t); break;
    }
}
#undef FILL_ROWS

pdt_status pdt_cpu_where(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                         const pdt_tensor *b)
{
    int64_t len, rows = masked_rows(out, cond, a, b, &len);
    if (rows >= 0) {
        rows_job r = {pdt_tensor_ptr(out), (const uint8_t *)pdt_tensor_ptr(cond), len,
                      pdt_dtype_size(out->dtype), pdt_tensor_ptr(a)};
        pdt_cpu_parallel_for(rows, len < GRAIN ? GRAIN / len : 1, rows_range, &r);
        return PDT_OK;
    }
    where_job j = {out,
                   cond,
                   a,
                   b,
                   pdt_dtype_size(out->dtype),
                   1,
                   {linear_step(cond), linear_step(a), linear_step(b)}};
    for (int k = 0; k < 3; k++)
        if (j.step[k] < 0)
            j.contiguous = 0;
    pdt_cpu_parallel_for(pdt_tensor_numel(out), GRAIN, where_range, &j);
    return PDT_OK;
}
