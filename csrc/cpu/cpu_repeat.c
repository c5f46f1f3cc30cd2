/* cpu_repeat.c - repeat_interleave's positions on the CPU, in two passes.
 *
 * Composed (Note [repeat positions] in pydevtensor/_ops_repeat.py), the positions of
 * repeats r are a running sum of r, a scatter of ones at each start and a running sum of
 * those marks, ten ops that cost 6.7 us for 1,000 repeats, and the sum and the smallest
 * repeat read back to the host first.  Here one pass sums r (the result's size, before
 * it is allocated), and one writes each i r[i] times (given x, x's row i:
 * repeat_interleave itself, with no gather after it).  The repeats' storage is shared
 * (another Python thread may write to them while the GIL is released), so in the
 * second pass each count is read once and bounded by the room left in out: a count that
 * does not fit, or room left at the end, is an error, never a write past out's end
 * (Note [the index read once] in cpu_index.c has the same rule). */
#include <stdint.h>
#include <string.h>

#include "cpu_kernels.h"

/* The error of n repeats whose smallest is low and sum is sum (saturated), against total. */
static pdt_status repeats_error(int64_t n, int64_t low, int64_t sum, int64_t total,
                                pdt_device device)
{
    char dev[32];
    pdt_device_str(device, dev, sizeof dev);
    if (low < 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "repeat_interleave(): repeats can not be negative, got %lld "
                        "(on %s)",
                        (long long)low, dev);
    if (sum == INT64_MAX)
        return pdt_fail(PDT_ERR_OOM,
                        "repeat_interleave(): the %lld repeats sum to 2^63 - 1 or more, more "
                        "elements than memory holds (on %s)",
                        (long long)n, dev);
    return pdt_fail(PDT_ERR_VALUE,
                    "repeat_interleave(): allocated size does not match required "
                    "size: output_size=%lld but the repeats sum to %lld (on %s)",
                    (long long)total, (long long)sum, dev);
}

/* The smallest repeat (0 when none is negative) and their sum, saturated at INT64_MAX,
 * read one by one (the slow pass of errors and of sums near the limit). */
static void low_and_sum(const int64_t *r, int64_t n, int64_t *low, int64_t *sum)
{
    int64_t l = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = __atomic_load_n(&r[i], __ATOMIC_RELAXED);
        l = c < l ? c : l;
        if (c > 0 && __builtin_add_overflow(s, c, &s))
            s = INT64_MAX;
    }
    *low = l;
    *sum = s;
}

/* The error of repeats that are negative or do not sum to out's length, as read again
 * now (a racing write may make this read differ from the pass's; the message is then
 * about this read, and the op fails either way). */
static pdt_status bad_repeats(const int64_t *r, int64_t n, int64_t total, pdt_device device)
{
    int64_t low, sum;
    low_and_sum(r, n, &low, &sum);
    return repeats_error(n, low, sum, total, device);
}

/* The sum of the repeats (out NULL), in one pass of adds and ors in SSE2's vectors (1e5
 * repeats: 10.5 us, and 24.6 where the compiler vectorised eight scalar sums itself and
 * spilled them to the stack): a negative repeat sets the ors' top bit, and no sum
 * overflows while every repeat is at most INT64_MAX / n, which the ors bound.  Past
 * either, the slow pass says which.  The reads are plain (a racing write changes only the
 * size allocated: the pass that writes reads each count once and refuses a sum other
 * than it). */
typedef uint64_t u64x2 __attribute__((vector_size(16)));
static pdt_status repeats_sum(const int64_t *r, int64_t n, int64_t *total, pdt_device device)
{
    u64x2 sums[4] = {{0}}, ors[4] = {{0}}; /* four vectors of two: adds that do not wait */
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 4; k++) {
            u64x2 v;
            memcpy(&v, r + i + 2 * k, sizeof v);
            sums[k] += v;
            ors[k] |= v;
        }
    uint64_t sum = 0, bits = 0;
    for (int k = 0; k < 4; k++) {
        sum += sums[k][0] + sums[k][1];
        bits |= ors[k][0] | ors[k][1];
    }
    for (; i < n; i++) {
        const uint64_t c = (uint64_t)r[i];
        sum += c;
        bits |= c;
    }
    int64_t low = 0, s = (int64_t)sum;
    if (n > 0 && bits > (uint64_t)INT64_MAX / (uint64_t)n)
        low_and_sum(r, n, &low, &s);
    if (low < 0 || s == INT64_MAX || (*total >= 0 && s != *total))
        return repeats_error(n, low, s, *total, device);
    *total = s;
    return PDT_OK;
}

/* Each i written r[i] times into o, VALUE(i) of type T.  A count of at most eight with
 * eight slots of room left writes eight slots whatever the count (the next i's overwrite
 * those past c), with no branch on the count, which random counts mispredict: 1e5
 * counts in [0, 3) 595 -> 67-94 us, in [0, 10) 1,620 -> 185-250 (the marks 240 and
 * 900-1,100, np.repeat 1,200-2,500; measured beside a CI run).  That case alone in the
 * loop's likely branch, the rest (larger counts, the last slots) in the other: 1,000
 * counts in [0, 3) into float32 1.7-4.2 -> 0.9-1.1 us standalone, where the eight
 * slots were followed by a loop for the rest of every count.  Returns the slots
 * written, or -1 for a count that is negative or does not fit. */
#define REPEAT_SLOTS(NAME, T, VALUE)                                                               \
    static int64_t NAME(T *o, const void *x, const int64_t *r, int64_t n, int64_t total)           \
    {                                                                                              \
        const T *xs = (const T *)x;                                                                \
        (void)xs;                                                                                  \
        int64_t j = 0;                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const int64_t c = __atomic_load_n(&r[i], __ATOMIC_RELAXED); /* read once */            \
            const T v = (VALUE);                                                                   \
            if (__builtin_expect((uint64_t)c <= 8 && total - j >= 8, 1)) {                         \
                for (int k = 0; k < 8; k++)                                                        \
                    o[j + k] = v;                                                                  \
            } else {                                                                               \
                if ((uint64_t)c > (uint64_t)(total - j)) /* negative, or past out's end */         \
                    return -1;                                                                     \
                for (int64_t k = 0; k < c; k++)                                                    \
                    o[j + k] = v;                                                                  \
            }                                                                                      \
            j += c;                                                                                \
        }                                                                                          \
        return j;                                                                                  \
    }
REPEAT_SLOTS(positions, int64_t, i)
REPEAT_SLOTS(rows1, uint8_t, xs[i])
REPEAT_SLOTS(rows2, uint16_t, xs[i])
REPEAT_SLOTS(rows4, uint32_t, xs[i])
REPEAT_SLOTS(rows8, uint64_t, xs[i])

/* rows of any other size (0 too: only the repeats' check), one memcpy a copy */
static int64_t rows_bytes(char *o, const char *x, int64_t rb, const int64_t *r, int64_t n,
                          int64_t total)
{
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = __atomic_load_n(&r[i], __ATOMIC_RELAXED); /* read once */
        if ((uint64_t)c > (uint64_t)(total - j))
            return -1;
        for (int64_t k = 0; k < c && rb > 0; k++) /* rb 0: x and o may be NULL */
            memcpy(o + (j + k) * rb, x + i * rb, (size_t)rb);
        j += c;
    }
    return j;
}

pdt_status pdt_cpu_repeat_positions(const pdt_tensor *out, const pdt_tensor *x,
                                    const pdt_tensor *repeats, int64_t *sum)
{
    const int64_t n = repeats->shape[0];
    const int64_t *r = (const int64_t *)pdt_tensor_ptr(repeats);
    if (!out)
        return repeats_sum(r, n, sum, repeats->device);
    const int64_t total = out->shape[0];
    char *o = pdt_tensor_ptr(out);
    const void *xs = x ? pdt_tensor_ptr(x) : NULL;
    /* the bytes of one row of x (its dims past the first) */
    const int64_t rb = x ? (n ? pdt_tensor_numel(x) / n : 0) * (int64_t)pdt_dtype_size(x->dtype)
                         : 8;
    int64_t j;
    /* whole rows of 1, 2, 4 or 8 bytes as one element, where x's are aligned so (a view
     * of a smaller dtype may start anywhere; out is new) */
    const int64_t w = rb <= 8 && (uintptr_t)xs % (uintptr_t)(rb ? rb : 1) == 0 ? rb : 0;
    if (!x)
        j = positions((int64_t *)o, NULL, r, n, total);
    else if (w == 8)
        j = rows8((uint64_t *)o, xs, r, n, total);
    else if (w == 4)
        j = rows4((uint32_t *)o, xs, r, n, total);
    else if (w == 2)
        j = rows2((uint16_t *)o, xs, r, n, total);
    else if (w == 1)
        j = rows1((uint8_t *)o, xs, r, n, total);
    else
        j = rows_bytes(o, xs, rb, r, n, total);
    return j == total ? PDT_OK : bad_repeats(r, n, total, repeats->device);
}
