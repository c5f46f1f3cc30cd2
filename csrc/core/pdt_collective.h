/* pdt_collective.h - collectives over tensors on several devices.
 *
 * Note [collectives are not copies]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A collective (NCCL's all-reduce) moves bytes between devices inside the
 * library, over NVLink or PCIe rings, without a copy pydevtensor makes.  It is
 * therefore not counted in transfer_stats() and not seen by the transfer guard:
 * those count and police the copies pydevtensor itself makes.  The op is
 * reported to the placement-logging hook (pdt_note_op("allreduce", device)),
 * once for each participating device.
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
 * each device's stream, like every op.  See Note [collectives are not copies]. */
pdt_status pdt_allreduce_sum(int n, const pdt_tensor *const *ts);

/* 1 when kind's backend can run collectives (CUDA with NCCL loadable), else 0. */
int pdt_allreduce_available(int kind);

#ifdef __cplusplus
}
#endif
#endif /* PDT_COLLECTIVE_H */
