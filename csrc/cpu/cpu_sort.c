/* cpu_sort.c - the CPU backend's stable sort of each row, carrying indices
 * (pdt_backend.h states the contract; the core validated the inputs).
 *
 * Note [sort order]
 * ~~~~~~~~~~~~~~~~~
 * Ascending order puts NaN last, descending order first (NaN is the largest
 * value, as in PyTorch and NumPy).  Both are stable: equal keys keep their
 * input order; -0.0 equals 0.0, and NaNs equal each other.  The CUDA backend
 * merges runs with one thread per element (cuda_index.cu) using
 * `before(a, b, descending)`: a goes strictly before b.  The CPU sorts short
 * rows with a bottom-up merge sort using the same `before`, and rows of
 * RADIX_MIN or more elements with a radix sort (Note [radix sort]).
 *
 * Note [radix sort]
 * ~~~~~~~~~~~~~~~~~
 * The merge sort took 112 ms for 1e6 float32 (NumPy's sort, unstable and without
 * indices, 32 ms; its argsort 72).  A least-significant-digit radix sort is stable
 * by construction: each element becomes an unsigned key whose order is the sort's
 * (floats: the sign bit flipped for positives, every bit for negatives; -0.0 made
 * 0.0 and every NaN one key above +inf first, so that equal values tie; integers:
 * the sign bit flipped; descending: the complement), and the keys with their
 * indices are scattered by one byte at a time, lowest first, skipping a byte that
 * every key shares.  The sorted values are then the input's values gathered by the
 * sorted indices, so NaN payloads and the sign of zero are kept.  Bool rows are a
 * stable partition.  The key buffers are allocated per call; when that fails the
 * rows are merge-sorted instead (the same order). */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_sort_keys.h"

#define GRAIN 32768
#define RADIX_MIN 512

#define DEFINE_SORT(NAME, T, ISNAN)                                                                \
    static inline int before_##NAME(T a, T b, int desc)                                            \
    {                                                                                              \
        if (desc)                                                                                  \
            return ISNAN(a) ? !ISNAN(b) : (!ISNAN(b) && a > b);                                    \
        return ISNAN(b) ? !ISNAN(a) : (!ISNAN(a) && a < b);                                        \
    }                                                                                              \
    static void sort_row_##NAME(T *v, int64_t *ix, T *sv, int64_t *si, int64_t n, int desc)        \
    {                                                                                              \
        T *src = v, *dst = sv;                                                                     \
        int64_t *isrc = ix, *idst = si;                                                            \
        for (int64_t i = 0; i < n; i++)                                                            \
            ix[i] = i;                                                                             \
        for (int64_t w = 1; w < n; w *= 2) {                                                       \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                            \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;       \
                int64_t i = lo, j = mid, k = lo;                                                   \
                while (i < mid && j < hi) {                                                        \
                    int take_right = before_##NAME(src[j], src[i], desc);                          \
                    int64_t from = take_right ? j++ : i++;                                         \
                    dst[k] = src[from];                                                            \
                    idst[k++] = isrc[from];                                                        \
                }                                                                                  \
                for (; i < mid; i++, k++)                                                          \
                    dst[k] = src[i], idst[k] = isrc[i];                                            \
                for (; j < hi; j++, k++)                                                           \
                    dst[k] = src[j], idst[k] = isrc[j];                                            \
            }                                                                                      \
            T *t = src;                                                                            \
            src = dst, dst = t;                                                                    \
            int64_t *u = isrc;                                                                     \
            isrc = idst, idst = u;                                                                 \
        }                                                                                          \
        if (src != v) {                                                                            \
            memcpy(v, src, sizeof(T) * (size_t)n);                                                 \
            memcpy(ix, isrc, sizeof(int64_t) * (size_t)n);                                         \
        }                                                                                          \
    }

#define NOT_NAN(x) 0
#define IS_NAN(x) ((x) != (x))
DEFINE_SORT(i32, int32_t, NOT_NAN)
DEFINE_SORT(i64, int64_t, NOT_NAN)
DEFINE_SORT(f32, float, IS_NAN)
DEFINE_SORT(f64, double, IS_NAN)

/* ---- radix sort (Note [radix sort]) ---- */

/* Sorts keys[0..n) (K unsigned), scattering a byte at a time between keys and
 * keys2 and the indices between ix and si; returns the buffer (ix or si) that
 * holds the sorted indices. */
#define DEFINE_RADIX(K)                                                                            \
    static int64_t *radix_##K(K *keys, K *keys2, int64_t *ix, int64_t *si, int64_t n)              \
    {                                                                                              \
        enum { PASSES = sizeof(K) };                                                               \
        static __thread int64_t hist[PASSES][256];                                                 \
        memset(hist, 0, sizeof hist);                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            K k = keys[i];                                                                         \
            for (int p = 0; p < PASSES; p++)                                                       \
                hist[p][(k >> (8 * p)) & 255]++;                                                   \
        }                                                                                          \
        K *ks = keys, *kd = keys2;                                                                 \
        int64_t *is = NULL, *id = ix; /* is: NULL while the order is the input's */                \
        for (int p = 0; p < PASSES; p++) {                                                         \
            int64_t off[256], sum = 0;                                                             \
            int shared = 0;                                                                        \
            for (int b = 0; b < 256; b++) {                                                        \
                shared |= hist[p][b] == n;                                                         \
                off[b] = sum;                                                                      \
                sum += hist[p][b];                                                                 \
            }                                                                                      \
            if (shared)                                                                            \
                continue;                                                                          \
            for (int64_t i = 0; i < n; i++) {                                                      \
                K k = ks[i];                                                                       \
                int64_t at = off[(k >> (8 * p)) & 255]++;                                          \
                kd[at] = k;                                                                        \
                id[at] = is ? is[i] : i;                                                           \
            }                                                                                      \
            K *t = ks;                                                                             \
            ks = kd, kd = t;                                                                       \
            is = id;                                                                               \
            id = id == ix ? si : ix;                                                               \
        }                                                                                          \
        if (!is)                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                ix[i] = i;                                                                         \
        return is ? is : ix;                                                                       \
    }
DEFINE_RADIX(uint32_t)
DEFINE_RADIX(uint64_t)

/* One row of n >= RADIX_MIN: keys into kbuf (2 n K: the scatter goes back and
 * forth between its halves), the indices through ix and si; then v = v gathered
 * by ix, through sv. */
#define DEFINE_RADIX_ROW(NAME, T, K)                                                               \
    static void radix_row_##NAME(T *v, int64_t *ix, T *sv, int64_t *si, int64_t n, int desc,       \
                                 K *kbuf)                                                          \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            kbuf[i] = key_##NAME(v[i], desc);                                                      \
        int64_t *order = radix_##K(kbuf, kbuf + n, ix, si, n);                                     \
        if (order != ix)                                                                           \
            memcpy(ix, order, sizeof(int64_t) * (size_t)n);                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            sv[i] = v[ix[i]];                                                                      \
        memcpy(v, sv, sizeof(T) * (size_t)n);                                                      \
    }
DEFINE_RADIX_ROW(f32, float, uint32_t)
DEFINE_RADIX_ROW(f64, double, uint64_t)
DEFINE_RADIX_ROW(i32, int32_t, uint32_t)
DEFINE_RADIX_ROW(i64, int64_t, uint64_t)

/* Bool: a stable partition, false first (ascending) or true first, into sv and si. */
static void partition_row_u8(uint8_t *v, int64_t *ix, uint8_t *sv, int64_t *si, int64_t n, int desc)
{
    int64_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        int want_true = desc ? pass == 0 : pass == 1;
        for (int64_t i = 0; i < n; i++)
            if ((v[i] != 0) == want_true)
                sv[k] = v[i], si[k++] = i;
    }
    memcpy(v, sv, (size_t)n);
    memcpy(ix, si, sizeof(int64_t) * (size_t)n);
}

typedef struct sort_job {
    const pdt_tensor *v, *ix, *sv, *si;
    int64_t n;
    int desc;
} sort_job;

static void sort_range(int64_t begin, int64_t end, void *ctx)
{
    const sort_job *j = ctx;
    const int64_t n = j->n;
    const size_t es = pdt_dtype_size(j->v->dtype);
    const int desc = j->desc;
    /* the radix sort's two key buffers: 8 or 16 bytes an element */
    void *kbuf = n >= RADIX_MIN && j->v->dtype != PDT_BOOL ? malloc((size_t)n * 16) : NULL;
    for (int64_t r = begin; r < end; r++) {
        char *v = pdt_tensor_ptr(j->v) + r * n * (int64_t)es;
        char *sv = pdt_tensor_ptr(j->sv) + r * n * (int64_t)es;
        int64_t *ix = (int64_t *)pdt_tensor_ptr(j->ix) + r * n;
        int64_t *si = (int64_t *)pdt_tensor_ptr(j->si) + r * n;
        if (kbuf) {
            switch (j->v->dtype) {
            case PDT_INT32:
                radix_row_i32((int32_t *)v, ix, (int32_t *)sv, si, n, desc, kbuf);
                break;
            case PDT_INT64:
                radix_row_i64((int64_t *)v, ix, (int64_t *)sv, si, n, desc, kbuf);
                break;
            case PDT_FLOAT32: radix_row_f32((float *)v, ix, (float *)sv, si, n, desc, kbuf); break;
            case PDT_FLOAT64:
                radix_row_f64((double *)v, ix, (double *)sv, si, n, desc, kbuf);
                break;
            default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
            }
            continue;
        }
        switch (j->v->dtype) {
        case PDT_BOOL: partition_row_u8((uint8_t *)v, ix, (uint8_t *)sv, si, n, desc); break;
        case PDT_INT32: sort_row_i32((int32_t *)v, ix, (int32_t *)sv, si, n, desc); break;
        case PDT_INT64: sort_row_i64((int64_t *)v, ix, (int64_t *)sv, si, n, desc); break;
        case PDT_FLOAT32: sort_row_f32((float *)v, ix, (float *)sv, si, n, desc); break;
        case PDT_FLOAT64: sort_row_f64((double *)v, ix, (double *)sv, si, n, desc); break;
        default: break;
        }
    }
    free(kbuf);
}

pdt_status pdt_cpu_sort(const pdt_tensor *values, const pdt_tensor *indices,
                        const pdt_tensor *scratch_values, const pdt_tensor *scratch_indices,
                        int descending)
{
    const int64_t n = values->shape[values->ndim - 1];
    const int64_t rows = n ? pdt_tensor_numel(values) / n : 0;
    sort_job j = {values, indices, scratch_values, scratch_indices, n, descending};
    pdt_cpu_parallel_for(rows, n >= GRAIN ? 1 : GRAIN / (n ? n : 1), sort_range, &j);
    return PDT_OK;
}
