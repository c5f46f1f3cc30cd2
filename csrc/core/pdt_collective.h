/* pdt_collective.h - collectives over tensors on several devices.
 *
 * Note [collectives are counted]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A collective (NCCL's or MPI's all-reduce) moves bytes between devices or
 * processes inside the library, over NVLink, PCIe or the network, without a
 * copy pydevtensor makes: the transfer guard does not see it, and the copy
 * kinds of transfer_stats() (host_to_device, ..., peer) do not count it.  It is
 * counted under its own key, transfer_stats()['collective']: one per call, and
 * the bytes this process sends under the ring model that NCCL's bus bandwidth
 * uses (S the buffer's bytes, W the participants): all-reduce 2 (W - 1) / W S
 * per participant, all-gather and reduce-scatter (W - 1) / W of the gathered
 * size, broadcast S from the root only.  Those are the algorithm's bytes, not
 * a measurement of what the library chose to do.  pdt_allreduce_sum (one
 * process, n devices) counts 2 (n - 1) S, the sum over its devices;
 * pydevtensor.distributed counts each rank's share (pdt_collective_count).
 * The op is also reported to the placement-logging hook
 * (pdt_note_op("allreduce", device)), once for each participating device.
 */
#ifndef PDT_COLLECTIVE_H
#define PDT_COLLECTIVE_H

#include "pdt_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sums ts[0..n) in place: each tensor ends up holding the elementwise sum, the
 * same bits on every device.  The tensors must be contiguous, of one dtype and
 * one element count, on n distinct devices of one kind whose backend has
 * collectives (CUDA with NCCL, on distinct physical GPUs).  Asynchronous on
 * each device's stream, like every op.  See Note [collectives are counted]. */
pdt_status pdt_allreduce_sum(int n, const pdt_tensor *const *ts);

/* 1 when kind's backend can run collectives (CUDA with NCCL loadable), else 0. */
int pdt_allreduce_available(int kind);

#ifdef __cplusplus
}
#endif
#endif /* PDT_COLLECTIVE_H */
