/* pdt_interop.h - what the zero-copy exchange with other libraries needs from
 * the core: a device's stream as an integer handle, ordering our stream with
 * another library's, and which device holds a foreign pointer.  The bindings'
 * DLPack and __cuda_array_interface__ code (csrc/python/interop.c) calls these;
 * on a device kind without streams (the CPU) they do nothing. */
#ifndef PDT_INTEROP_H
#define PDT_INTEROP_H

#include <stdint.h>

#include "pdt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d's stream as an integer (a cudaStream_t), created if needed; 0 for a
 * device without streams. */
pdt_status pdt_stream_handle(pdt_device d, uintptr_t *out);

/* *done = 1 when every op queued so far on d's stream has finished, 0 while
 * some is queued or running (torch.cuda.Stream.query); does not wait.  1 on a
 * device without streams, whose work is done when the op returns. */
pdt_status pdt_stream_query(pdt_device d, int *done);

/* Orders d's stream and another library's stream `external` on d (1: the
 * legacy default stream, 2: the per-thread default stream, else a handle):
 * direction PDT_STREAM_OURS_WAITS or PDT_STREAM_EXTERNAL_WAITS (pdt_backend.h).
 * Enqueues an event wait; never blocks the host.  A no-op on a device without
 * streams and when external is d's own stream. */
pdt_status pdt_stream_wait(pdt_device d, uintptr_t external, int direction);

/* The device of `kind` whose memory holds ptr: the first logical device of
 * the physical device holding it (Note [logical devices] in pdt_registry.c);
 * PDT_ERR_VALUE when ptr is not device memory of that kind. */
pdt_status pdt_pointer_device(int kind, const void *ptr, pdt_device *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_INTEROP_H */
