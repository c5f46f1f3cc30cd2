/* cpu_sort_packed.c - short rows sorted as 64-bit packed keys, each a sort key above
 * its element's index: cpu_sort.c's rows shorter than its radix sort's, and
 * cpu_select.c's short rows.
 *
 * Note [short rows as packed keys]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A row shorter than cpu_sort.c's RADIX_MIN whose keys fit in 32 bits (float32 and
 * int32, and so the dtypes computed in them; int64 whose range fits, Note [integer keys
 * from the row's range]) becomes one 64-bit integer an element, the key above the
 * element's index: no two are equal, so any sort of them gives the stable order, and
 * each comparison is one integer compare with no branch on the data.  Runs of PACK_RUN
 * are sorted by a sorting network (rows of PACK_SHORT or fewer by insertion), then
 * merged bottom-up, the side taken by a conditional move, two halves of one length from
 * both ends at once.  The low halves are the indices, and the values are gathered by
 * them, as the radix sort's.  cpu_sort.c's merge sort, whose every step branched on a
 * comparison of the values, keeps the rows of 64-bit keys.  Float32 rows, two threads,
 * against NumPy's argsort (unstable; stable) on an AMD EPYC (Zen 4): 1,000 rows of 100
 * 1.79 ms -> 0.38 (0.50; 2.5), 300 of 300 2.03 -> 0.40 (0.93; 3.4), 10,000 of 10 0.81 ->
 * 0.23 (0.58; 1.3), 1,000 of 16 0.10 -> 0.05 (0.06; 0.06).  From RADIX_MIN the radix
 * sort is as fast or faster (10.2 ns an element at 511, 10.0 at 512, one thread). */
#include <stdint.h>
#include <string.h>

#include "cpu_sort_keys.h"

#define PACK_RUN 16
#define PACK_SHORT 4 /* rows up to this long: by insertion */

/* Sorts v[0..16) by Batcher's merge exchange (Knuth, TAOCP vol. 3, 5.3.4, Algorithm M:
 * its 63 comparators for 16 keys, a line to each of its 10 rounds), each comparator a
 * minimum and a maximum by conditional moves. */
static inline void sort16(uint64_t *v)
{
#define CE(x, y)                                                                                   \
    do {                                                                                           \
        const uint64_t p_ = v[x], q_ = v[y];                                                       \
        const int swap_ = q_ < p_;                                                                 \
        v[x] = swap_ ? q_ : p_;                                                                    \
        v[y] = swap_ ? p_ : q_;                                                                    \
    } while (0)
    /* clang-format off */
    CE(0, 1); CE(2, 3); CE(4, 5); CE(6, 7); CE(8, 9); CE(10, 11); CE(12, 13); CE(14, 15);
    CE(0, 2); CE(1, 3); CE(4, 6); CE(5, 7); CE(8, 10); CE(9, 11); CE(12, 14); CE(13, 15);
    CE(1, 2); CE(5, 6); CE(9, 10); CE(13, 14);
    CE(0, 4); CE(1, 5); CE(2, 6); CE(3, 7); CE(8, 12); CE(9, 13); CE(10, 14); CE(11, 15);
    CE(2, 4); CE(3, 5); CE(10, 12); CE(11, 13);
    CE(1, 2); CE(3, 4); CE(5, 6); CE(9, 10); CE(11, 12); CE(13, 14);
    CE(0, 8); CE(1, 9); CE(2, 10); CE(3, 11); CE(4, 12); CE(5, 13); CE(6, 14); CE(7, 15);
    CE(4, 8); CE(5, 9); CE(6, 10); CE(7, 11);
    CE(2, 4); CE(3, 5); CE(6, 8); CE(7, 9); CE(10, 12); CE(11, 13);
    CE(1, 2); CE(3, 4); CE(5, 6); CE(7, 8); CE(9, 10); CE(11, 12); CE(13, 14);
    /* clang-format on */
#undef CE
}

/* Merges the sorted src[lo..mid) and src[mid..hi) into dst[lo..hi). */
static void merge_packed(const uint64_t *src, uint64_t *dst, int64_t lo, int64_t mid, int64_t hi)
{
    int64_t i = lo, j = mid, k = lo;
    if (hi - mid == mid - lo) {
        /* equal halves of w: w steps from each end, the w smallest from the front and
         * the w largest from the back, two chains at once; after s < w steps neither end
         * has taken w from one half, so no index leaves its half (the keys are distinct) */
        int64_t i2 = mid - 1, j2 = hi - 1, k2 = hi - 1;
        for (int64_t s = lo; s < mid; s++) {
            const uint64_t x = src[i], y = src[j], x2 = src[i2], y2 = src[j2];
            const int right = y < x;
            const int left = x2 > y2;
            dst[k++] = right ? y : x;
            i += !right;
            j += right;
            dst[k2--] = left ? x2 : y2;
            i2 -= left;
            j2 -= !left;
        }
        return;
    }
    while (i < mid && j < hi) {
        const uint64_t x = src[i], y = src[j];
        const int right = y < x;
        dst[k++] = right ? y : x;
        i += !right;
        j += right;
    }
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

/* runs of 16 by the network (a shorter last run padded with all-ones keys, above every
 * packed key), then merged; a row of PACK_SHORT or fewer by insertion */
void pdt_cpu_sort_packed(uint64_t *a, uint64_t *tmp, int64_t n)
{
    if (n <= PACK_SHORT) { /* by insertion: a few comparisons, where the network has 63 */
        for (int64_t i = 1; i < n; i++) {
            const uint64_t x = a[i];
            int64_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (int64_t lo = 0; lo < n; lo += PACK_RUN) {
        if (n - lo >= PACK_RUN) {
            sort16(a + lo);
            continue;
        }
        uint64_t v[PACK_RUN];
        for (int64_t i = 0; i < PACK_RUN; i++)
            v[i] = lo + i < n ? a[lo + i] : UINT64_MAX;
        sort16(v);
        memcpy(a + lo, v, sizeof(uint64_t) * (size_t)(n - lo));
    }
    uint64_t *src = a, *dst = tmp;
    for (int64_t w = PACK_RUN; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w)
            merge_packed(src, dst, lo, lo + w < n ? lo + w : n, lo + 2 * w < n ? lo + 2 * w : n);
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a)
        memcpy(a, src, sizeof(uint64_t) * (size_t)n);
}
