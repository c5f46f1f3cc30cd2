/* cpu_softmax.c - softmax and log-softmax of contiguous rows on the CPU.
 *
 * Note [softmax rows]
 * ~~~~~~~~~~~~~~~~~~~
 * Composed from ops (pydevtensor/_ops_stats.py), softmax makes five passes over
 * the whole tensor with three temporaries of its size: the row maxima, x - max,
 * its exp, the row sums, the quotient.  Here each row is finished while it is in
 * the cache: its maximum, x - max written into the output, exp in place, the sum,
 * then the quotient in place (softmax) or (x - max) - log(sum) (log-softmax).
 * Each step is the operation the composed ops perform on that row, with the same
 * kernels (the level's max, exp and log rows, pdt_cpu_row_sums's order, one IEEE
 * subtraction and division per element), so the results are the composed ops'
 * bits (tests/test_softmax_rows.py).  Rows are split between the threads; a
 * single row stays on one.
 */
#include <math.h>
#include <stdint.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define ROWS_GRAIN 8192 /* elements a thread takes at least (exp is most of the cost) */

typedef struct softmax_job {
    const char *x;
    char *out;
    int64_t k;
    int log;
    pdt_dtype dtype;
} softmax_job;

/* Rows are taken in groups of up to GROUP_ROWS rows and GROUP_ELEMS elements
 * (one row when it is longer), so that exp and log run over a whole group: a
 * short row alone leaves their vector loops mostly in the scalar tail (256
 * rows of 10: 16 us a row at a time, 5.2 us by groups). */
#define GROUP_ROWS 256
#define GROUP_ELEMS 4096

static void group_f32(const float *x, float *o, int64_t rows, int64_t k, int want_log)
{
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    float mx[GROUP_ROWS], s[GROUP_ROWS];
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * k;
        float *orow = o + r * k;
        const float m = t->max_f32(xr, k);
        mx[r] = m;
        for (int64_t i = 0; i < k; i++)
            orow[i] = xr[i] - m;
    }
    t->exp_f32(o, o, rows * k);
    double sums[GROUP_ROWS];
    pdt_cpu_row_sums(PDT_FLOAT32, o, rows, k, sums);
    for (int64_t r = 0; r < rows; r++)
        s[r] = (float)sums[r];
    if (!want_log) {
        for (int64_t r = 0; r < rows; r++) {
            float *orow = o + r * k;
            const float sr = s[r];
            for (int64_t i = 0; i < k; i++)
                orow[i] = orow[i] / sr;
        }
        return;
    }
    t->log_f32(s, s, rows);
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * k;
        float *orow = o + r * k;
        const float m = mx[r], ls = s[r];
        for (int64_t i = 0; i < k; i++)
            orow[i] = (xr[i] - m) - ls;
    }
}

static void group_f64(const double *x, double *o, int64_t rows, int64_t k, int want_log)
{
    for (int64_t r = 0; r < rows; r++) {
        const double *xr = x + r * k;
        double *orow = o + r * k;
        const double m = pdt_cpu_simd()->max_f64(xr, k);
        for (int64_t i = 0; i < k; i++)
            orow[i] = xr[i] - m;
        pdt_cpu_simd()->exp_f64(orow, orow, k); /* the exp op's own row: the same bits */
        double s;
        pdt_cpu_row_sums(PDT_FLOAT64, orow, 1, k, &s);
        if (!want_log) {
            for (int64_t i = 0; i < k; i++)
                orow[i] = orow[i] / s;
            continue;
        }
        double ls;
        pdt_cpu_simd()->log_f64(&ls, &s, 1);
        for (int64_t i = 0; i < k; i++)
            orow[i] = (xr[i] - m) - ls;
    }
}

static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    const softmax_job *j = ctx;
    const int64_t esize = (int64_t)pdt_dtype_size(j->dtype);
    int64_t per = j->k >= GROUP_ELEMS ? 1 : GROUP_ELEMS / j->k;
    per = per > GROUP_ROWS ? GROUP_ROWS : per;
    for (int64_t r = begin; r < end; r += per) {
        const int64_t rows = end - r < per ? end - r : per;
        const char *x = j->x + r * j->k * esize;
        char *o = j->out + r * j->k * esize;
        if (j->dtype == PDT_FLOAT32)
            group_f32((const float *)x, (float *)o, rows, j->k, j->log);
        else
            group_f64((const double *)x, (double *)o, rows, j->k, j->log);
    }
}

pdt_status pdt_cpu_softmax(const pdt_tensor *out, const pdt_tensor *x, int log)
{
    if (x->dtype != PDT_FLOAT32 && x->dtype != PDT_FLOAT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "softmax is not implemented for %s on the CPU",
                        pdt_dtype_name(x->dtype));
    softmax_job j = {
        .x = pdt_tensor_ptr(x),
        .out = pdt_tensor_ptr(out),
        .k = x->shape[x->ndim - 1],
        .log = log,
        .dtype = x->dtype,
    };
    int64_t m = j.k ? pdt_tensor_numel(x) / j.k : 0;
    pdt_cpu_parallel_for(m, j.k >= ROWS_GRAIN ? 1 : ROWS_GRAIN / j.k, rows_range, &j);
    return PDT_OK;
}
