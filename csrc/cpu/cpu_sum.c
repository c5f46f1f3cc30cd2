/* cpu_sum.c - the float32 and float64 pairwise sums of cpu_reduce.c's chunks,
 * with their leaves summed four at a time (Note [batched leaves]), and the sums of
 * short rows and of rows for the softmax kernel. */
#include "cpu_sum.h"

#include "cpu_kernels.h"
#include "cpu_simd.h"

/* Note [batched leaves]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A leaf of the pairwise sum (at most 128 elements in 8 double lanes) is one
 * chain of additions: the latency of an add every 8 elements.  A subtree of
 * four leaves of one length (257 to 512 elements, a multiple of 32: every
 * subtree of a whole tensor's 65,536-element chunks) went to a kernel that sums
 * the four side by side (four chains); any other subtree, as in rows of 1,000
 * or 784 elements, went leaf after leaf.  Now the float32 and float64 sums list
 * such a subtree's leaves in the tree's order (list_leaves, at most 8 below
 * SUBTREE elements), sum them four at a time side by side whatever their
 * lengths (the level's leaves kernel), and add the results up the same tree
 * (add_up): the same bits as leaf after leaf.  Rows of at most 128 elements, a
 * leaf each, go four rows at a time the same way (sum(1), mean(1), the softmax
 * rows' sums).  One thread, float32, 1e6 elements, sum(1), A/B in the same
 * minutes: rows of 1,000 171 -> 139 us, 784 181 -> 146, 128 240 -> 173, 100 276
 * -> 200; rows of 1,024 and a whole row of 1e6 (the four-leaf kernel already)
 * and rows of 10 (the calls and stores dominate) unchanged.
 */

/* A subtree of at most SUBTREE elements (at most 8 leaves, each of 64 or more
 * elements once the tree splits) is summed from its leaves' list; the tree
 * above it by recursion, as before. */
#define SUBTREE 512

#define BATCHED_SUM(SN, T, FIELD, SUM4)                                                            \
    static int list_leaves_##T(const T *x, int64_t n, const T **p, int64_t *len, int c)            \
    {                                                                                              \
        if (n > PDT_CPU_LEAF) {                                                                    \
            int64_t h = (n / 2) & ~(int64_t)7;                                                     \
            c = list_leaves_##T(x, h, p, len, c);                                                  \
            return list_leaves_##T(x + h, n - h, p, len, c);                                       \
        }                                                                                          \
        p[c] = x;                                                                                  \
        len[c] = n;                                                                                \
        return c + 1;                                                                              \
    }                                                                                              \
    double pdt_cpu_pairwise_##SN(const T *x, int64_t n)                                            \
    {                                                                                              \
        if (n > SUBTREE) {                                                                         \
            int64_t h = (n / 2) & ~(int64_t)7;                                                     \
            double a = pdt_cpu_pairwise_##SN(x, h);                                                \
            return a + pdt_cpu_pairwise_##SN(x + h, n - h);                                        \
        }                                                                                          \
        if (n > 256 && n % 32 == 0) /* four leaves of n / 4 */                                     \
            return pdt_cpu_simd()->SUM4(x, n / 4);                                                 \
        const T *p[8];                                                                             \
        int64_t len[8];                                                                            \
        double v[8];                                                                               \
        int c = list_leaves_##T(x, n, p, len, 0), i = 0;                                           \
        for (int q = 0; q < c; q += 4)                                                             \
            pdt_cpu_simd()->FIELD((const T *const *)(p + q), len + q, c - q < 4 ? c - q : 4,       \
                                  v + q);                                                          \
        return add_up(n, v, &i);                                                                   \
    }

/* The leaves' sums v, from v[*i] on in the tree's order, added up the tree
 * over n elements (list_leaves's tree). */
static double add_up(int64_t n, const double *v, int *i)
{
    if (n > PDT_CPU_LEAF) {
        int64_t h = (n / 2) & ~(int64_t)7;
        double a = add_up(h, v, i);
        return a + add_up(n - h, v, i);
    }
    return v[(*i)++];
}

BATCHED_SUM(f32, float, leaves_f32, sum4_f32)
BATCHED_SUM(f64, double, leaves_f64, sum4_f64)

/* out[r] = the sum of row r of m float32 or float64 rows of k elements, 1 <= k
 * <= PDT_CPU_LEAF (a leaf each), pitch bytes apart: four rows at a time.  (Rows of
 * under 16 elements transposed eight at a time, each step of the leaf a vector
 * operation across the rows, were faster only below 6 elements: sum(1) of
 * (100000, 10) float32 641 us against 460 this way.) */
#define SHORT_ROWS(T, FIELD)                                                                       \
    for (int64_t r = 0; r < m; r += 4) {                                                           \
        const int count = m - r < 4 ? (int)(m - r) : 4;                                            \
        const T *p[4];                                                                             \
        const int64_t len[4] = {k, k, k, k};                                                       \
        for (int q = 0; q < 4; q++)                                                                \
            p[q] = (const T *)((const char *)x + (r + (q < count ? q : 0)) * pitch);               \
        pdt_cpu_simd()->FIELD((const T *const *)p, len, count, out + r);                           \
    }
void pdt_cpu_short_row_sums(pdt_dtype dt, const void *x, int64_t pitch, int64_t m, int64_t k,
                            double *out)
{
    if (dt == PDT_FLOAT32) {
        SHORT_ROWS(float, leaves_f32)
    } else {
        SHORT_ROWS(double, leaves_f64)
    }
}
#undef SHORT_ROWS

void pdt_cpu_row_sums(pdt_dtype dt, const void *x, int64_t m, int64_t k, double *out)
{
    const int64_t pitch = k * (int64_t)pdt_dtype_size(dt);
    if (k >= 1 && k <= PDT_CPU_LEAF) {
        pdt_cpu_short_row_sums(dt, x, pitch, m, k, out);
        return;
    }
    for (int64_t r = 0; r < m; r++) {
        const char *row = (const char *)x + r * pitch;
        double s = 0.0;
        for (int64_t c = 0; c < k; c += PDT_CPU_SUM_CHUNK) {
            int64_t n = k - c < PDT_CPU_SUM_CHUNK ? k - c : PDT_CPU_SUM_CHUNK;
            double a = dt == PDT_FLOAT32 ? pdt_cpu_pairwise_f32((const float *)row + c, n)
                                         : pdt_cpu_pairwise_f64((const double *)row + c, n);
            s = c == 0 ? a : s + a; /* cpu_reduce.c's combine(): chunks in order */
        }
        out[r] = s;
    }
}
