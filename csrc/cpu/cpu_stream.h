/* cpu_stream.h - large outputs written with non-temporal stores (Note [streamed
 * outputs] in cpu_stream.c). */
#ifndef PDT_CPU_STREAM_H
#define PDT_CPU_STREAM_H

#include <stdint.h>

#include "cpu_iter.h"

/* Outputs of at least this many bytes are streamed, in blocks of this many. */
#define PDT_STREAM_MIN_BYTES ((int64_t)24 << 20)
#define PDT_STREAM_BLOCK 512

/* The last-level cache's size in bytes (PYDEVTENSOR_CPU_CACHE_BYTES, else sysconf's,
 * else 32 MiB): compute-bound ops stream only outputs larger than it (Note [streamed
 * outputs]). */
int64_t pdt_cpu_last_cache_bytes(void);

/* Elements [first, first + n) of an output into dst (the output's own place, or an
 * aligned buffer that is then streamed to it). */
typedef void (*pdt_stream_fn)(const void *ctx, char *dst, int64_t first, int64_t n);

/* The n elements of dsize bytes (1, 2, 4 or 8) of a contiguous output at d, by
 * fn: the whole aligned blocks computed into a buffer and written with
 * non-temporal stores, the ends directly; fenced before it returns. */
void pdt_cpu_streamed(char *d, int64_t dsize, int64_t n, pdt_stream_fn fn, const void *ctx);

/* fn over a contiguous output row d of n elements of dsize bytes (1, 2, 4 or 8) and
 * its input s (ssize bytes apart): the same values as fn(d, dsize, s, ssize, n,
 * ctx), whole aligned blocks of the output written with non-temporal stores. */
void pdt_cpu_row_streamed(pdt_cpu_row_fn fn, char *d, int64_t dsize, char *s, int64_t ssize,
                          int64_t n, void *ctx);

#endif /* PDT_CPU_STREAM_H */
