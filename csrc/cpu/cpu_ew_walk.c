/* cpu_ew_walk.c - the three-operand walk of the CPU backend's elementwise ops
 * (cpu_ew.h): it takes the dims in the output's memory order (Note [memory order]
 * in pdt_tensor.h), drops size-1 dims and merges dims laid out back to back in every
 * operand, then runs the rows, split over the cores by element range past a grain,
 * streaming large contiguous outputs (Note [streamed outputs]).  Also the float32
 * and float64 calls into the dispatch level's vector math for a row of any strides. */
#include <string.h>

#include "cpu_ew.h"
#include "cpu_stream.h"

static void vm_apply(const vm_call *c, char *o, const char *a, int64_t n)
{
    if (c->d)
        c->d((double *)o, (const double *)a, n);
    else if (c->y)
        pdt_cpu_simd()->powc_f32((float *)o, (const float *)a, *c->y, n);
    else
        c->f((float *)o, (const float *)a, n);
}

/* m elements of size es (4 or 8) from src, stride ss bytes, to dst, stride ds */
static void copy_elements(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, int64_t es)
{
    if (es == sizeof(double)) {
        for (int64_t j = 0; j < m; j++)
            memcpy(dst + j * ds, src + j * ss, sizeof(double));
    } else {
        for (int64_t j = 0; j < m; j++)
            memcpy(dst + j * ds, src + j * ss, sizeof(float));
    }
}

/* c over a float32 (float64 for c->d) row of any strides: a strided one through a
 * small buffer, so that every element gets the same function whatever its layout. */
void pdt_cpu_vm_row_any(char *o, int64_t so, const char *a, int64_t sa, int64_t n, const vm_call *c)
{
    const int64_t es = c->d ? (int64_t)sizeof(double) : (int64_t)sizeof(float);
    if (so == es && sa == es) {
        vm_apply(c, o, a, n);
        return;
    }
    double buf[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        copy_elements((char *)buf, es, a + i * sa, sa, m, es);
        vm_apply(c, (char *)buf, (const char *)buf, m);
        copy_elements(o + i * so, so, (const char *)buf, es, m, es);
    }
}

/* ---- the three-operand walk ---- */

/* Whether out is one of the inputs, as in x.add_(y) or add(a, b, out=a): the core
 * copies an input that partly overlaps out (pdt_backend.h), so an input shares bytes
 * with out only by being it.  Such an output is not streamed (Note [streamed
 * outputs]): its lines are read anyway, so non-temporal stores save no read for
 * ownership, and the copy through the buffer made an in-place add of 1e8 float32 1.5
 * times slower than plain stores (37.6 against 24.8 ms on two threads here). */
static int out_is_an_input(const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    const char *o = pdt_tensor_ptr(out);
    return (ops[1] && pdt_tensor_ptr(ops[1]) == o) || (ops[2] && pdt_tensor_ptr(ops[2]) == o);
}

/* Whether a job that runs as one contiguous row streams its output (Note [streamed
 * outputs]): a large one that is none of the inputs. */
static int worth_streaming(const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    return pdt_tensor_numel(out) * (int64_t)pdt_dtype_size(out->dtype) >= PDT_STREAM_MIN_BYTES &&
           !out_is_an_input(out, ops);
}

/* ops[k] == NULL: a scalar at base[k] (stride 0 everywhere).  ops[0] is out. */
void pdt_cpu_ew_init(ew_job *job, const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    int ndim = 0, dense = 1;
    for (int k = 0; k < 3 && dense; k++)
        dense = !ops[k] || pdt_tensor_is_contiguous(ops[k]);
    job->stream = 0;
    if (dense) { /* every tensor contiguous: one row, unit strides */
        job->ndim = 1;
        job->shape[0] = pdt_tensor_numel(out);
        job->stream = worth_streaming(out, ops);
        for (int k = 0; k < 3; k++) {
            job->strides[k][0] = ops[k] ? (int64_t)pdt_dtype_size(ops[k]->dtype) : 0;
            if (ops[k])
                job->base[k] = pdt_tensor_ptr(ops[k]);
        }
        return;
    }
    int perm[PDT_MAX_DIMS]; /* the walk runs in out's memory order (Note [memory order]) */
    pdt_memory_order(out, perm);
    for (int ii = 0; ii < out->ndim; ii++) {
        int i = perm[ii];
        int64_t s = out->shape[i];
        if (s == 1)
            continue;
        int merge = ndim > 0;
        for (int k = 0; k < 3 && merge; k++)
            merge = !ops[k] || job->strides[k][ndim - 1] == ops[k]->strides[i] * s;
        for (int k = 0; k < 3; k++)
            job->strides[k][merge ? ndim - 1 : ndim] = ops[k] ? ops[k]->strides[i] : 0;
        if (merge)
            job->shape[ndim - 1] *= s;
        else
            job->shape[ndim++] = s;
    }
    if (ndim == 0) { /* one element */
        job->shape[0] = 1;
        job->strides[0][0] = job->strides[1][0] = job->strides[2][0] = 0;
        ndim = 1;
    }
    job->ndim = ndim;
    int row = ndim == 1; /* dense in one memory order, as a.T + b.T: one contiguous row */
    for (int k = 0; k < 3; k++) {
        if (!ops[k])
            continue;
        int64_t elsize = (int64_t)pdt_dtype_size(ops[k]->dtype);
        for (int d = 0; d < ndim; d++)
            job->strides[k][d] *= elsize;
        job->base[k] = pdt_tensor_ptr(ops[k]);
        row = row && job->strides[k][0] == elsize;
    }
    job->stream = row && worth_streaming(out, ops);
}

/* The contiguous row's elements from `at` on, for pdt_cpu_streamed (Note
 * [streamed outputs]). */
typedef struct streamed_part {
    const ew_job *job;
    int64_t at;
} streamed_part;

/* Asks for the lines of elements [i + EW_PREFETCH_AHEAD, + n) of a contiguous input of
 * stride s (0: a scalar), so that they are on their way while this block computes.  A
 * prefetch never faults, so the lines past the input's end are harmless; the address
 * is formed as an integer (no pointer past the object). */
#define EW_PREFETCH_AHEAD 1024
static inline void prefetch_ahead(const char *base, int64_t s, int64_t i, int64_t n)
{
    if (s == 0)
        return;
    const uintptr_t from = (uintptr_t)base + (uintptr_t)((i + EW_PREFETCH_AHEAD) * s);
    for (uintptr_t a = from & ~(uintptr_t)63; a < from + (uintptr_t)(n * s); a += 64)
        __builtin_prefetch((const void *)a, 0, 3);
}

static void run_part(const void *ctx, char *dst, int64_t first, int64_t n)
{
    const streamed_part *p = ctx;
    const ew_job *job = p->job;
    const int64_t sa = job->strides[1][0], sb = job->strides[2][0], i = p->at + first;
    prefetch_ahead(job->base[1], sa, i, n);
    prefetch_ahead(job->base[2], sb, i, n);
    job->fn(dst, job->strides[0][0], job->base[1] + i * sa, sa, job->base[2] + i * sb, sb, n,
            job->extra);
}

/* Runs the rows covering elements [begin, end) in row-major order. */
static void job_run_range(int64_t begin, int64_t end, void *ctx)
{
    const ew_job *job = (const ew_job *)ctx;
    const int last = job->ndim - 1;
    if (last == 0 && job->stream) {
        const int64_t so = job->strides[0][0];
        streamed_part p = {job, begin};
        pdt_cpu_streamed(job->base[0] + begin * so, so, end - begin, run_part, &p);
        return;
    }
    if (last == 0) { /* one row: the contiguous case */
        job->fn(job->base[0] + begin * job->strides[0][0], job->strides[0][0],
                job->base[1] + begin * job->strides[1][0], job->strides[1][0],
                job->base[2] + begin * job->strides[2][0], job->strides[2][0], end - begin,
                job->extra);
        return;
    }
    int64_t idx[PDT_MAX_DIMS], rem = begin;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % job->shape[d];
        rem /= job->shape[d];
    }
    for (int64_t pos = begin; pos < end;) {
        char *p[3];
        for (int k = 0; k < 3; k++) {
            p[k] = job->base[k];
            for (int d = 0; d <= last; d++)
                p[k] += idx[d] * job->strides[k][d];
        }
        int64_t n = job->shape[last] - idx[last];
        if (n > end - pos)
            n = end - pos;
        job->fn(p[0], job->strides[0][last], p[1], job->strides[1][last], p[2],
                job->strides[2][last], n, job->extra);
        pos += n;
        idx[last] = 0;
        for (int d = last - 1; d >= 0 && ++idx[d] == job->shape[d]; d--)
            idx[d] = 0;
    }
}

/* Runs the job over its numel elements: on this thread below twice hot_grain, else
 * split over the pool at `grain`, or at the smaller hot_grain when the op comes in a
 * loop (Note [the hot grain] in cpu_parallel.c).  In a loop the split pays from:
 * - EW_GRAIN_HOT for the cheap ops: add of 33,000 / 60,000 float32 3.9 / 7.3 us on
 *   one thread (NumPy 3.9 / 7.2), 2.4 / 3.8 split; maximum of 60,000 8.4 -> 4.3;
 * - EW_GRAIN_COSTLY_HOT for costly_unary's ops: 4,000 float32 exp 2.04 -> 1.38 us,
 *   tanh 2.37 -> 1.53 (NumPy 1.88), log 1.71 -> 1.21, sigmoid 3.12 -> 1.93;
 * - EW_GRAIN_POW_HOT for powers (2 to 2.5 ns an element on one core at AVX-512, Note
 *   [float32 powers] in cpu_vpow.h): x ** 1.7 of 3,000 and 8,000 float32 6.3 -> 3.6
 *   us and 16.3 -> 8.6 (NumPy 4.4 and 10.1); splitting 1,000 in two took 3.0 us
 *   against 2.3. */
void pdt_cpu_ew_run(ew_job *job, int64_t numel, int64_t grain, int64_t hot_grain)
{
    if (numel < 2 * hot_grain)
        job_run_range(0, numel, job);
    else
        pdt_cpu_parallel_for_hot(numel, grain, hot_grain, job_run_range, job);
}
