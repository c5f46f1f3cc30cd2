/* cpu_stream.h - large outputs written with non-temporal stores (Note [streamed
 * outputs] in cpu_stream.c). */
#ifndef PDT_CPU_STREAM_H
#define PDT_CPU_STREAM_H

#include <stdint.h>

#include "cpu_iter.h"

/* Outputs of at least this many bytes are streamed, in blocks of this many. */
#define PDT_STREAM_MIN_BYTES ((int64_t)24 << 20)
#define PDT_STREAM_BLOCK 8192

/* fn over a contiguous output row d of n elements of dsize bytes (1, 2, 4 or 8) and
 * its input s (ssize bytes apart): the same values as fn(d, dsize, s, ssize, n,
 * ctx), whole aligned blocks of the output written with non-temporal stores. */
void pdt_cpu_row_streamed(pdt_cpu_row_fn fn, char *d, int64_t dsize, char *s, int64_t ssize,
                          int64_t n, void *ctx);

#endif /* PDT_CPU_STREAM_H */
