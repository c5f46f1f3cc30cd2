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
 * rows as packed keys (Note [short rows as packed keys] in cpu_sort_packed.c),
 * rows of RADIX_MIN or more elements with a radix sort (Note [radix sort]), and
 * those when the radix sort's buffer is refused with a bottom-up merge sort using
 * the same `before`.
 *
 * Note [radix sort]
 * ~~~~~~~~~~~~~~~~~
 * The merge sort took 112 ms for 1e6 float32 (NumPy's sort, unstable and without
 * indices, 32 ms; its argsort 72).  A least-significant-digit radix sort is stable
 * by construction: each element becomes an unsigned key whose order is the sort's
 * (floats: the sign bit flipped for positives, every bit for negatives; -0.0 made
 * 0.0 and every NaN one key above +inf first, so that equal values tie; descending:
 * the complement; integers: Note [integer keys from the row's range]), and the keys with their
 * indices are scattered by one byte at a time, lowest first, skipping a byte that
 * every key shares.  The sorted values are then the input's values gathered by the
 * sorted indices, so NaN payloads and the sign of zero are kept.  Bool rows are a
 * stable partition.  The key buffers are allocated per call; when that fails the
 * rows are merge-sorted instead (the same order). */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
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

/* ---- short rows as packed keys (Note [short rows as packed keys] in cpu_sort_packed.c) ---- */

/* A row of n < RADIX_MIN with 32-bit keys: the packed keys in ix (int64_t and uint64_t
 * may alias), si the merge's other half; then ix the indices and v gathered by them. */
#define DEFINE_PACKED_ROW(NAME, T, KEY)                                                            \
    static void packed_row_##NAME(T *v, int64_t *ix, T *sv, int64_t *si, int64_t n, int desc,      \
                                  T lo, T hi)                                                      \
    {                                                                                              \
        (void)lo, (void)hi;                                                                        \
        uint64_t *a = (uint64_t *)ix;                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            a[i] = (uint64_t)(KEY) << 32 | (uint64_t)i;                                            \
        pdt_cpu_sort_packed(a, (uint64_t *)si, n);                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            ix[i] = (int64_t)(a[i] & 0xffffffffu);                                                 \
        gather_row_##NAME(v, ix, sv, ix, n);                                                       \
    }

/* ---- radix sort (Note [radix sort]) ---- */

/* 1 when every key has the same byte: its pass is skipped. */
static int byte_shared(const int64_t *hist, int64_t n)
{
    int shared = 0;
    for (int b = 0; b < 256; b++)
        shared |= hist[b] == n;
    return shared;
}

/* Sorts keys[0..n) (K unsigned, below 2^(8 passes)), scattering a byte at a time
 * between keys and keys2 and the indices between ix and si; returns the buffer (ix
 * or si) that holds the sorted indices.  The last pass scatters the indices only. */
#define DEFINE_RADIX(K)                                                                            \
    static int64_t *radix_##K(K *keys, K *keys2, int64_t *ix, int64_t *si, int64_t n, int passes)  \
    {                                                                                              \
        int64_t hist[sizeof(K)][256]; /* 16 KB at most; a __thread array cost a call a read */     \
        memset(hist, 0, sizeof hist[0] * (size_t)passes);                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            K k = keys[i];                                                                         \
            for (int p = 0; p < passes; p++)                                                       \
                hist[p][(k >> (8 * p)) & 255]++;                                                   \
        }                                                                                          \
        int last = -1;                                                                             \
        for (int p = 0; p < passes; p++)                                                           \
            if (!byte_shared(hist[p], n))                                                          \
                last = p;                                                                          \
        K *ks = keys, *kd = keys2;                                                                 \
        int64_t *is = NULL, *id = ix; /* is: NULL while the order is the input's */                \
        for (int p = 0; p <= last; p++) {                                                          \
            if (byte_shared(hist[p], n))                                                           \
                continue;                                                                          \
            int64_t off[256], sum = 0;                                                             \
            for (int b = 0; b < 256; b++) {                                                        \
                off[b] = sum;                                                                      \
                sum += hist[p][b];                                                                 \
            }                                                                                      \
            const int sh = 8 * p;                                                                  \
            if (p == last)                                                                         \
                for (int64_t i = 0; i < n; i++)                                                    \
                    id[off[(ks[i] >> sh) & 255]++] = is ? is[i] : i;                               \
            else                                                                                   \
                for (int64_t i = 0; i < n; i++) {                                                  \
                    K k = ks[i];                                                                   \
                    int64_t at = off[(k >> sh) & 255]++;                                           \
                    kd[at] = k;                                                                    \
                    id[at] = is ? is[i] : i;                                                       \
                }                                                                                  \
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

/* v = v gathered by order (ix or si), through sv; the indices end in ix. */
#define DEFINE_GATHER_ROW(NAME, T)                                                                 \
    static void gather_row_##NAME(T *v, int64_t *ix, T *sv, const int64_t *order, int64_t n)       \
    {                                                                                              \
        if (order != ix)                                                                           \
            memcpy(ix, order, sizeof(int64_t) * (size_t)n);                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            sv[i] = v[ix[i]];                                                                      \
        memcpy(v, sv, sizeof(T) * (size_t)n);                                                      \
    }
DEFINE_GATHER_ROW(f32, float)
DEFINE_GATHER_ROW(f64, double)
DEFINE_GATHER_ROW(i32, int32_t)
DEFINE_GATHER_ROW(i64, int64_t)

DEFINE_PACKED_ROW(f32, float, key_f32(v[i], desc))
DEFINE_PACKED_ROW(i32, int32_t, key_i32(v[i], desc))
DEFINE_PACKED_ROW(i64, int64_t,
                  (uint32_t)(desc ? (uint64_t)hi - (uint64_t)v[i] : (uint64_t)v[i] - (uint64_t)lo))

/* One float row of n >= RADIX_MIN: keys into kbuf (2 n K: the scatter goes back and
 * forth between its halves), the indices through ix and si. */
#define DEFINE_RADIX_ROW(NAME, T, K)                                                               \
    static void radix_row_##NAME(T *v, int64_t *ix, T *sv, int64_t *si, int64_t n, int desc,       \
                                 K *kbuf)                                                          \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            kbuf[i] = key_##NAME(v[i], desc);                                                      \
        gather_row_##NAME(v, ix, sv, radix_##K(kbuf, kbuf + n, ix, si, n, sizeof(K)), n);          \
    }
DEFINE_RADIX_ROW(f32, float, uint32_t)
DEFINE_RADIX_ROW(f64, double, uint64_t)

/* Note [integer keys from the row's range]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An integer row's key is its distance from the row's smallest value (descending: from
 * the largest), x - lo or hi - x in the unsigned type, which orders as x does and ties
 * where x does.  Its bytes above hi - lo's are zero, so a row of values from -100 to 100
 * takes one pass where the sign-flipped key took all four (int64: eight: negative and
 * positive values differ in every byte), and an int64 row whose hi - lo fits in 32 bits
 * sorts 4-byte keys.  With the last pass scattering the indices only and the histogram
 * on the stack (a __thread array had cost a __tls_get_addr call a key), one thread, 1e5
 * values in [-100, 100): int32 sort 1.0 -> 0.52 ms, int64 1.6 -> 0.61 (NumPy's stable
 * argsort 4.9 ms for either; its unstable sort, values only, 0.2 and 0.43); float32 1.7
 * -> 1.2.  The widened small integers gain the same way (int8 argsort 0.99 -> 0.53 ms,
 * NumPy's 0.41). */
#define DEFINE_RADIX_INT_ROW(NAME, T, U)                                                           \
    static void radix_row_##NAME(T *v, int64_t *ix, T *sv, int64_t *si, int64_t n, int desc,       \
                                 void *kbuf)                                                       \
    {                                                                                              \
        const T lo = pdt_cpu_simd()->min_##NAME(v, n), hi = pdt_cpu_simd()->max_##NAME(v, n);      \
        const U range = (U)hi - (U)lo, base = desc ? (U)hi : (U)lo;                                \
        const int passes = range_bytes(range);                                                     \
        const int64_t *order;                                                                      \
        if (passes <= 4) {                                                                         \
            uint32_t *k = kbuf;                                                                    \
            for (int64_t i = 0; i < n; i++)                                                        \
                k[i] = (uint32_t)(desc ? base - (U)v[i] : (U)v[i] - base);                         \
            order = radix_uint32_t(k, k + n, ix, si, n, passes);                                   \
        } else {                                                                                   \
            uint64_t *k = kbuf;                                                                    \
            for (int64_t i = 0; i < n; i++)                                                        \
                k[i] = (uint64_t)(desc ? base - (U)v[i] : (U)v[i] - base);                         \
            order = radix_uint64_t(k, k + n, ix, si, n, passes);                                   \
        }                                                                                          \
        gather_row_##NAME(v, ix, sv, order, n);                                                    \
    }
/* The bytes of r that are not zero, counted from the lowest. */
static int range_bytes(uint64_t r)
{
    int b = 0;
    for (; r; r >>= 8)
        b++;
    return b;
}
DEFINE_RADIX_INT_ROW(i32, int32_t, uint32_t)
DEFINE_RADIX_INT_ROW(i64, int64_t, uint64_t)

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

/* A float64 row, or an int64 row whose range passes 32 bits, of n < RADIX_MIN: 128-bit
 * packed keys on the stack (16 KB), then ix the indices and v gathered by them. */
#define DEFINE_PACKED128_ROW(NAME, T)                                                              \
    static void packed128_row_##NAME(T *v, int64_t *ix, T *sv, int64_t n, int desc)                \
    {                                                                                              \
        unsigned __int128 a[RADIX_MIN], tmp[RADIX_MIN];                                            \
        for (int64_t i = 0; i < n; i++)                                                            \
            a[i] = (unsigned __int128)key_##NAME(v[i], desc) << 64 | (uint64_t)i;                  \
        pdt_cpu_sort_packed128(a, tmp, n);                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            ix[i] = (int64_t)(uint64_t)a[i];                                                       \
        gather_row_##NAME(v, ix, sv, ix, n);                                                       \
    }
DEFINE_PACKED128_ROW(f64, double)
DEFINE_PACKED128_ROW(i64, int64_t)

/* A row of 2 <= n < RADIX_MIN sorted as packed keys (Note [short rows as packed keys]),
 * 1; else 0, nothing touched. */
static int pack_row(pdt_dtype dt, char *v, int64_t *ix, char *sv, int64_t *si, int64_t n, int desc)
{
    if (n < 2 || n >= RADIX_MIN) /* (a radix sort's buffer refused: the merge sort) */
        return 0;
    switch (dt) {
    case PDT_FLOAT32: packed_row_f32((float *)v, ix, (float *)sv, si, n, desc, 0, 0); return 1;
    case PDT_INT32: packed_row_i32((int32_t *)v, ix, (int32_t *)sv, si, n, desc, 0, 0); return 1;
    case PDT_INT64: {
        const int64_t *x = (const int64_t *)v;
        const int64_t lo = pdt_cpu_simd()->min_i64(x, n), hi = pdt_cpu_simd()->max_i64(x, n);
        if ((uint64_t)hi - (uint64_t)lo > 0xffffffffu)
            packed128_row_i64((int64_t *)v, ix, (int64_t *)sv, n, desc);
        else
            packed_row_i64((int64_t *)v, ix, (int64_t *)sv, si, n, desc, lo, hi);
        return 1;
    }
    case PDT_FLOAT64: packed128_row_f64((double *)v, ix, (double *)sv, n, desc); return 1;
    default: return 0;
    }
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
        if (pack_row(j->v->dtype, v, ix, sv, si, n, desc))
            continue;
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
