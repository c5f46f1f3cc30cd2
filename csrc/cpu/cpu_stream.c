/* cpu_stream.c - writing large outputs with non-temporal stores.
 *
 * Note [streamed outputs]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * An ordinary store to a line that is not in the cache reads the line first
 * (read for ownership), so an op writing an output past the caches moves its
 * bytes twice: float32 -> float64 of 1e8 elements moved 4 + 8 + 8 bytes an element
 * for the 12 it needs.  Past STREAM_MIN_BYTES of output (24 MiB: most of the 32 MiB
 * L3 of the EPYC this was first tuned on; the Xeon of the figures below reports
 * 300 MiB, and plain ops of 40 MB still ran faster streamed there), a row
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
 * (cpu_elementwise.c).  Operands dense in one memory order other than row-major
 * (a.T + b.T) run as one contiguous row and stream as well: a.T + b.T of 1e4 x 1e4
 * float32 took 44.7-46.3 ms on two threads before they did and 32.9-33.9 after
 * (a + b: 32.6-34.0), relu(a.T) 33.3-33.6 and 22.7-22.9.
 * Before each block, the elementwise ops ask for their inputs' lines 1024 elements
 * ahead (prefetch_ahead in cpu_ew_walk.c): on one core the hardware's prefetchers
 * did not keep up with a loop that also computes, so exp of 1e8 float32 took the sum
 * of its compute and memory times (72 ms on one thread in a C harness, 38 on two),
 * and 44-58 and 27-33 with the prefetches and streamed stores.  Alternating
 * builds, two threads, 1e8 float32 (fastest of each run, ms): exp 34.8-38.2 before,
 * 25.6-32.2 after; tanh 32.0-35.6 and 21.9-30.6; a + b 29.2-29.5 and 25.7-27.2;
 * a * 2.5 22.4-27.5 and 20.9-22.9; add with out= and the cast to float64 unchanged.
 * The compute-bound functions (exp, log, tanh, sigmoid, sin, cos) stream only an
 * output larger than the last-level cache: one that fits stays there for the next
 * loop, and streaming exp or tanh of 1e7 (40 MB, inside this Xeon's 300 MiB L3) made
 * them 2.0-2.95 ms against 1.8-2.1 (plain adds of 1e7 still gain: 2.1 against 2.6).
 */
#include "cpu_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_simd.h"

int64_t pdt_cpu_last_cache_bytes(void)
{
    static int64_t bytes; /* 0 until found; racing finders store the same value */
    int64_t b = __atomic_load_n(&bytes, __ATOMIC_RELAXED);
    if (b == 0) {
        /* PYDEVTENSOR_CPU_CACHE_BYTES overrides what the system says (a VM may report
         * its host's cache; the tests make it small to stream small outputs) */
        const char *v = getenv("PYDEVTENSOR_CPU_CACHE_BYTES");
        char *end = NULL;
        long long want = v && *v ? strtoll(v, &end, 10) : 0;
        if (want > 0 && *end != '\0') {
            fprintf(stderr,
                    "pydevtensor: PYDEVTENSOR_CPU_CACHE_BYTES=%s is not a number of "
                    "bytes; ignored\n",
                    v);
            want = 0;
        }
#ifdef _SC_LEVEL3_CACHE_SIZE
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#else
        long l3 = 0;
#endif
        b = want > 0 ? (int64_t)want : l3 > 0 ? (int64_t)l3 : (int64_t)32 << 20;
        __atomic_store_n(&bytes, b, __ATOMIC_RELAXED);
    }
    return b;
}

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
