/* cpu_repeat.c - repeat_interleave's positions on the CPU, in one pass.
 *
 * Composed (Note [repeat positions] in pydevtensor/_ops_repeat.py), the positions of
 * repeats r are a running sum of r, a scatter of ones at each start and a running sum of
 * those marks, ten ops that cost 6.7 us for 1,000 repeats, and the sum and the smallest
 * repeat read back to the host first.  Here r is read once and each i written r[i]
 * times.  The repeats' storage is shared (another Python thread may write to them while
 * the GIL is released), so each count is read once and bounded by the room left in out:
 * a count that does not fit, or room left at the end, is an error, never a write past
 * out's end (Note [the index read once] in cpu_index.c has the same rule). */
#include <stdint.h>

#include "cpu_kernels.h"

/* The error of repeats that are negative or do not sum to out's length, as read again
 * now (a racing write may make this read differ from the pass's; the message is then
 * about this read, and the op fails either way). */
static pdt_status bad_repeats(const int64_t *r, int64_t n, int64_t total, pdt_device device)
{
    int64_t low = 0, sum = 0;
    for (int64_t i = 0; i < n; i++) {
        low = r[i] < low ? r[i] : low;
        sum = (int64_t)((uint64_t)sum + (uint64_t)r[i]);
    }
    char dev[32];
    pdt_device_str(device, dev, sizeof dev);
    if (low < 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "repeat_interleave(): repeats can not be negative, got %lld "
                        "(on %s)",
                        (long long)low, dev);
    return pdt_fail(PDT_ERR_VALUE,
                    "repeat_interleave(): allocated size does not match required "
                    "size: output_size=%lld but the repeats sum to %lld (on %s)",
                    (long long)total, (long long)sum, dev);
}

pdt_status pdt_cpu_repeat_positions(const pdt_tensor *out, const pdt_tensor *repeats)
{
    const int64_t n = repeats->shape[0], total = out->shape[0];
    const int64_t *r = (const int64_t *)pdt_tensor_ptr(repeats);
    int64_t *o = (int64_t *)pdt_tensor_ptr(out);
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = __atomic_load_n(&r[i], __ATOMIC_RELAXED); /* read once */
        if ((uint64_t)c > (uint64_t)(total - j)) /* negative, or past out's end */
            return bad_repeats(r, n, total, repeats->device);
        int64_t k = 0;
        if (total - j >= 8) {
            /* eight slots written whatever the count (the next i's overwrite those past
             * c): small counts (masks, D2L's valid lengths) without a branch on the
             * count, which random counts mispredict: 1e5 counts in [0, 3) 595 -> 67-94
             * us, in [0, 10) 1,620 -> 185-250 (the marks 240 and 900-1,100, np.repeat
             * 1,200-2,500; measured beside a CI run) */
            for (; k < 8; k++)
                o[j + k] = i;
        }
        for (; k < c; k++)
            o[j + k] = i;
        j += c;
    }
    return j == total ? PDT_OK : bad_repeats(r, n, total, repeats->device);
}
