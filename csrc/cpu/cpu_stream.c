/* cpu_stream.c - writing large outputs with non-temporal stores.
 *
 * Note [streamed outputs]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * An ordinary store to a line that is not in the cache reads the line first
 * (read for ownership), so an op writing an output past the caches moves its
 * bytes twice: float32 -> float64 of 1e8 elements moved 4 + 8 + 8 bytes an element
 * for the 12 it needs.  Past STREAM_MIN_BYTES of output (most of this machine's
 * 32 MiB L3, where the output cannot stay cached for the next op anyway), a row
 * is computed block by block into an L1-sized buffer by its usual kernel and the
 * buffer copied out with non-temporal stores, which skip the read; the values are
 * the kernel's.  The ends that are not whole aligned blocks are written directly,
 * by a call of their own: a kernel whose vector body and scalar tail differ
 * (float16 -> float32 through F16C quiets a signalling NaN, its scalar tail keeps
 * it) may give such a value other bits there, as it already does at the threads'
 * range boundaries.  Each thread fences its streamed stores before its range ends.
 * The blocks are small (PDT_STREAM_BLOCK, 512 bytes), so that the loads of one
 * block and the streamed stores of the last overlap in the memory system: with
 * 8 KiB blocks the two phases alternated, and add(a, b, out=o) of 1e8 float32
 * took 58-62 ms on one thread and 31-38 on two; with 512 bytes 32-33 and 27-30
 * (same minutes, the .so swapped between rounds).  A C loop here that streams
 * each vector as it computes it takes 36 and 26-28 ms; with plain stores 48 and
 * 34-41.  An output that shares bytes with an input is not streamed at all
 * (cpu_elementwise.c).
 */
#include "cpu_stream.h"

#include <stdint.h>
#include <string.h>

#include "cpu_simd.h"

void pdt_cpu_streamed(char *d, int64_t dsize, int64_t n, pdt_stream_fn fn, const void *ctx)
{
    int64_t head = (int64_t)((64 - ((uintptr_t)d & 63)) & 63) / dsize;
    head = head < n ? head : n;
    if (head)
        fn(ctx, d, 0, head);
    _Alignas(64) char buf[PDT_STREAM_BLOCK];
    const int64_t per = PDT_STREAM_BLOCK / dsize;
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    int64_t at = head;
    for (; n - at >= per; at += per) {
        fn(ctx, buf, at, per);
        t->stream_copy(d + at * dsize, buf, PDT_STREAM_BLOCK);
    }
    if (at < n)
        fn(ctx, d + at * dsize, at, n - at);
    if (at > head)
        t->stream_fence();
}

/* pdt_cpu_row_streamed's rows: elements [first, first + n) of the input row. */
typedef struct row_call {
    pdt_cpu_row_fn fn;
    char *s;
    int64_t dsize, ssize;
    void *ctx;
} row_call;

static void row_part(const void *ctx, char *dst, int64_t first, int64_t n)
{
    const row_call *c = ctx;
    c->fn(dst, c->dsize, c->s + first * c->ssize, c->ssize, n, c->ctx);
}

void pdt_cpu_row_streamed(pdt_cpu_row_fn fn, char *d, int64_t dsize, char *s, int64_t ssize,
                          int64_t n, void *ctx)
{
    row_call c = {fn, s, dsize, ssize, ctx};
    pdt_cpu_streamed(d, dsize, n, row_part, &c);
}
