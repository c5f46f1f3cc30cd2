/* cpu_sort_packed_impl.h - the packed-key sort of cpu_sort_packed.c for one key type,
 * included once a type: PK_T the unsigned key type, PK(name) its functions' names, PK_MAX
 * its all-ones value (Note [short rows as packed keys]). */

/* Sorts v[0..16) by Batcher's merge exchange (Knuth, TAOCP vol. 3, 5.3.4, Algorithm M:
 * its 63 comparators for 16 keys, a line to each of its 10 rounds), each comparator a
 * minimum and a maximum by conditional moves. */
static inline void PK(sort16)(PK_T *v)
{
#define CE(x, y)                                                                                   \
    do {                                                                                           \
        const PK_T p_ = v[x], q_ = v[y];                                                           \
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
static void PK(merge)(const PK_T *src, PK_T *dst, int64_t lo, int64_t mid, int64_t hi)
{
    int64_t i = lo, j = mid, k = lo;
    if (hi - mid == mid - lo) {
        /* equal halves of w: w steps from each end, the w smallest from the front and
         * the w largest from the back, two chains at once; after s < w steps neither end
         * has taken w from one half, so no index leaves its half (the keys are distinct) */
        int64_t i2 = mid - 1, j2 = hi - 1, k2 = hi - 1;
        for (int64_t s = lo; s < mid; s++) {
            const PK_T x = src[i], y = src[j], x2 = src[i2], y2 = src[j2];
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
        const PK_T x = src[i], y = src[j];
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
static void PK(sort)(PK_T *a, PK_T *tmp, int64_t n)
{
    if (n <= PACK_SHORT) { /* by insertion: a few comparisons, where the network has 63 */
        for (int64_t i = 1; i < n; i++) {
            const PK_T x = a[i];
            int64_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (int64_t lo = 0; lo < n; lo += PACK_RUN) {
        if (n - lo >= PACK_RUN) {
            PK(sort16)(a + lo);
            continue;
        }
        PK_T v[PACK_RUN];
        for (int64_t i = 0; i < PACK_RUN; i++)
            v[i] = lo + i < n ? a[lo + i] : PK_MAX;
        PK(sort16)(v);
        memcpy(a + lo, v, sizeof(PK_T) * (size_t)(n - lo));
    }
    PK_T *src = a, *dst = tmp;
    for (int64_t w = PACK_RUN; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w)
            PK(merge)(src, dst, lo, lo + w < n ? lo + w : n, lo + 2 * w < n ? lo + 2 * w : n);
        PK_T *t = src;
        src = dst, dst = t;
    }
    if (src != a)
        memcpy(a, src, sizeof(PK_T) * (size_t)n);
}
