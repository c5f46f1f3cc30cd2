/* cpu_select.c - the element at a given position of each row's stable sort (kthvalue,
 * median, nanmedian) without sorting the row.
 *
 * Note [selection in sort order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The order statistics sorted every row (cpu_sort.c's stable radix sort) and took one
 * position: 100 rows of 1000 float32 took 0.86 ms for kthvalue, NumPy's partition 0.51.
 * Here each element becomes its key, the sort's (cpu_sort_keys.h: NaN the largest,
 * -0.0 equal to 0.0), and the element of rank p is found by radix selection: a count
 * of the keys' top byte finds the byte of the answer and how many keys lie below it,
 * the keys with that byte are kept (in index order) and p less those below is looked
 * for among them by the next byte, and so on down to the last byte, where the keys
 * left are all equal and the stable sort orders them by index: the answer is the p-th
 * kept.  No comparison branches (a quickselect mispredicted about half its compares:
 * 10 us a row of 1000 float32 here), at most 4 rounds for 32-bit keys and 8 for 64,
 * each over the keys left from the one before: O(n) whatever the values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_sort_keys.h"

#define SELECT_GRAIN 32768 /* elements a thread takes at least */

/* The index of the key of rank p (ties by index) among key[0 .. n) (n >= 1) of `bits`
 * bits, at indices at[0 .. n) ascending (at NULL: 0 .. n - 1).  Reorders key and
 * writes at[0 .. n) (both n long). */
static int64_t radix_select(uint64_t *key, int64_t *at, int64_t n, int64_t p, int bits)
{
    int first = 1;
    for (int shift = bits - 8; shift >= 0 && n > 1; shift -= 8) {
        int64_t count[256];
        memset(count, 0, sizeof count);
        for (int64_t i = 0; i < n; i++)
            count[(key[i] >> shift) & 255]++;
        int b = 0;
        while (p >= count[b]) /* the byte of the key of rank p */
            p -= count[b++];
        int64_t kept = 0;
        for (int64_t i = 0; i < n; i++) { /* those with that byte, in order, in place */
            const uint64_t k = key[i];
            key[kept] = k;
            at[kept] = first ? i : at[i];
            kept += ((k >> shift) & 255) == (uint64_t)b;
        }
        n = kept, first = 0;
    }
    return first ? p : at[p]; /* one key left (p 0), or equal keys in index order */
}

typedef struct select_job {
    const char *x;
    const int64_t *pos;
    int64_t *out;
    int64_t n;
    pdt_dtype dtype;
    int oom, bad;
} select_job;

static void select_range(int64_t begin, int64_t end, void *ctx)
{
    select_job *j = ctx;
    const int64_t n = j->n, es = (int64_t)pdt_dtype_size(j->dtype);
    uint64_t *key = malloc((size_t)n * sizeof *key);
    int64_t *at = malloc((size_t)n * sizeof *at);
    if (!key || !at) {
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
        free(key), free(at);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        const char *x = j->x + r * n * es;
        const int64_t p = j->pos[r]; /* read once (Note [the index read once]) */
        if (p < 0 || p >= n) {
            __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
            continue;
        }
        switch (j->dtype) {
        case PDT_FLOAT32:
            for (int64_t i = 0; i < n; i++)
                key[i] = key_f32(((const float *)x)[i], 0);
            break;
        case PDT_INT32:
            for (int64_t i = 0; i < n; i++)
                key[i] = key_i32(((const int32_t *)x)[i], 0);
            break;
        case PDT_FLOAT64:
            for (int64_t i = 0; i < n; i++)
                key[i] = key_f64(((const double *)x)[i], 0);
            break;
        default:
            for (int64_t i = 0; i < n; i++)
                key[i] = key_i64(((const int64_t *)x)[i], 0);
            break;
        }
        j->out[r] = radix_select(key, at, n, p, es == 4 ? 32 : 64);
    }
    free(key), free(at);
}

pdt_status pdt_cpu_select(const pdt_tensor *indices, const pdt_tensor *x, const pdt_tensor *pos)
{
    if (x->dtype != PDT_FLOAT32 && x->dtype != PDT_FLOAT64 && x->dtype != PDT_INT32 &&
        x->dtype != PDT_INT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "kthvalue: no selection kernel for %s on the CPU",
                        pdt_dtype_name(x->dtype));
    const int64_t n = x->shape[x->ndim - 1];
    select_job j = {.x = pdt_tensor_ptr(x),
                    .pos = (const int64_t *)pdt_tensor_ptr(pos),
                    .out = (int64_t *)pdt_tensor_ptr(indices),
                    .n = n,
                    .dtype = x->dtype};
    const int64_t rows = pdt_tensor_numel(x) / n;
    pdt_cpu_parallel_for(rows, n >= SELECT_GRAIN ? 1 : SELECT_GRAIN / n, select_range, &j);
    if (j.oom)
        return pdt_fail(PDT_ERR_OOM, "out of memory: kthvalue's %lld keys on the CPU",
                        (long long)n);
    if (j.bad)
        return pdt_fail(PDT_ERR_INDEX,
                        "kthvalue: a position is out of range for rows of %lld "
                        "(on cpu)",
                        (long long)n);
    return PDT_OK;
}
