/* cpu_topk.c - the k first elements of each row in sort order, without sorting the
 * row.
 *
 * Note [top-k by selection]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * topk was a full stable sort of every row and a slice: 1000 rows of 1000 float32
 * with k = 5 took 7.3 ms.  Here each element becomes the sort's key (cpu_sort_keys.h:
 * descending for the largest, NaN the largest value, -0.0 equal to 0.0), and a
 * max-heap of the k best (key, index) pairs so far is kept while the row is read in
 * order: an element enters only with a key strictly below the heap's worst, since
 * at an equal key the earlier index wins (the sort is stable).  The k pairs are then
 * ordered by (key, index), so the result is the sort's first k, indices and values
 * (gathered from the row, keeping NaN payloads and the sign of zero) bit for bit.
 * O(n log k) a row; the core sends k <= n / 16, at most 1024. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_sort_keys.h"

#define TOPK_GRAIN 32768 /* elements a thread takes at least */

typedef struct topk_pair {
    uint64_t key;
    int64_t index;
} topk_pair;

/* a goes after b in the sort (the heap's root is the pair that goes last) */
static inline int after(topk_pair a, topk_pair b)
{
    return a.key > b.key || (a.key == b.key && a.index > b.index);
}

static void sift_down(topk_pair *h, int64_t k, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < k && after(h[l], h[m]))
            m = l;
        if (r < k && after(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        topk_pair t = h[i];
        h[i] = h[m], h[m] = t;
        i = m;
    }
}

/* The k first (key, index) pairs of a row of n keys (kfn of element i), sorted. */
#define SELECT_ROW(NAME, T, KEY)                                                                   \
    static void NAME(const T *x, int64_t n, int64_t k, int desc, topk_pair *h)                     \
    {                                                                                              \
        for (int64_t i = 0; i < k; i++)                                                            \
            h[i] = (topk_pair){(uint64_t)KEY(x[i], desc), i};                                      \
        for (int64_t i = k / 2 - 1; i >= 0; i--)                                                   \
            sift_down(h, k, i);                                                                    \
        for (int64_t i = k; i < n; i++) {                                                          \
            uint64_t key = (uint64_t)KEY(x[i], desc);                                              \
            if (key < h[0].key) {                                                                  \
                h[0] = (topk_pair){key, i};                                                        \
                sift_down(h, k, 0);                                                                \
            }                                                                                      \
        }                                                                                          \
        for (int64_t e = k - 1; e > 0; e--) { /* heap sort: the last pair to the end */            \
            topk_pair t = h[0];                                                                    \
            h[0] = h[e], h[e] = t;                                                                 \
            sift_down(h, e, 0);                                                                    \
        }                                                                                          \
    }
SELECT_ROW(select_f32, float, key_f32)
SELECT_ROW(select_f64, double, key_f64)
SELECT_ROW(select_i32, int32_t, key_i32)
SELECT_ROW(select_i64, int64_t, key_i64)

typedef struct topk_job {
    const char *x;
    char *values;
    int64_t *indices;
    int64_t n, k;
    int desc;
    pdt_dtype dtype;
    int oom;
} topk_job;

static void topk_range(int64_t begin, int64_t end, void *ctx)
{
    topk_job *j = ctx;
    topk_pair *h = malloc(sizeof(topk_pair) * (size_t)j->k);
    if (!h) {
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    const int64_t es = (int64_t)pdt_dtype_size(j->dtype);
    for (int64_t r = begin; r < end; r++) {
        const char *x = j->x + r * j->n * es;
        switch (j->dtype) {
        case PDT_FLOAT32: select_f32((const float *)x, j->n, j->k, j->desc, h); break;
        case PDT_FLOAT64: select_f64((const double *)x, j->n, j->k, j->desc, h); break;
        case PDT_INT32: select_i32((const int32_t *)x, j->n, j->k, j->desc, h); break;
        default: select_i64((const int64_t *)x, j->n, j->k, j->desc, h); break;
        }
        for (int64_t q = 0; q < j->k; q++)
            j->indices[r * j->k + q] = h[q].index;
        for (int64_t q = 0; q < j->k; q++) /* the bytes: NaN payloads, -0.0 */
            memcpy(j->values + (r * j->k + q) * es, x + h[q].index * es, (size_t)es);
    }
    free(h);
}

pdt_status pdt_cpu_topk(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                        int64_t k, int largest)
{
    if (x->dtype != PDT_FLOAT32 && x->dtype != PDT_FLOAT64 && x->dtype != PDT_INT32 &&
        x->dtype != PDT_INT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "topk: no selection kernel for %s on the CPU",
                        pdt_dtype_name(x->dtype));
    const int64_t n = x->shape[x->ndim - 1];
    topk_job j = {pdt_tensor_ptr(x),
                  pdt_tensor_ptr(values),
                  (int64_t *)pdt_tensor_ptr(indices),
                  n,
                  k,
                  largest,
                  x->dtype,
                  0};
    const int64_t rows = pdt_tensor_numel(x) / n;
    pdt_cpu_parallel_for(rows, n >= TOPK_GRAIN ? 1 : TOPK_GRAIN / n, topk_range, &j);
    if (j.oom)
        return pdt_fail(PDT_ERR_OOM, "out of memory: topk's heap of %lld pairs on the CPU",
                        (long long)k);
    return PDT_OK;
}
