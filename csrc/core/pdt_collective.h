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

/* The version code of kind's collectives library (NCCL_VERSION_CODE for CUDA),
 * 0 when it has none or it cannot be loaded. */
int pdt_collective_version(int kind);

/* ---- rank communicators: one process (rank) per device, as NCCL's
 * ncclCommInitRank makes them (pydevtensor.distributed's 'nccl' backend) ----
 *
 * Rank 0 makes an id (pdt_comm_unique_id), every rank receives it by other
 * means (MPI), and every rank makes its communicator with it, for its own
 * device.  A collective on a communicator runs on pydevtensor's stream of
 * that device, asynchronously like every op, ordered after the work that
 * wrote its inputs.  Each rank must call the same collectives in the same
 * order with matching sizes (the caller checks that first). */

#define PDT_COMM_ID_BYTES 128

typedef enum pdt_comm_kind {
    PDT_COMM_ALL_REDUCE = 0,     /* recv = op over the ranks of send (send may be recv) */
    PDT_COMM_BROADCAST = 1,      /* recv = root's send (send may be recv) */
    PDT_COMM_ALL_GATHER = 2,     /* recv = every rank's send, rank order: nranks x send */
    PDT_COMM_REDUCE_SCATTER = 3, /* recv = block `rank` of op over the ranks of send */
    PDT_COMM_REDUCE = 4,         /* root's recv = op over the ranks of send (others' untouched) */
} pdt_comm_kind;

typedef enum pdt_comm_op {
    PDT_COMM_SUM = 0,
    PDT_COMM_PROD = 1,
    PDT_COMM_MAX = 2,
    PDT_COMM_MIN = 3,
    PDT_COMM_AVG = 4, /* floating dtypes only */
} pdt_comm_op;

/* A new id for kind's communicators (CUDA: ncclGetUniqueId). */
pdt_status pdt_comm_unique_id(int kind, unsigned char id[PDT_COMM_ID_BYTES]);
/* This rank's communicator on device (CUDA: ncclCommInitRank); blocks until
 * every rank has joined, as NCCL does. */
pdt_status pdt_comm_init(pdt_device device, const unsigned char id[PDT_COMM_ID_BYTES], int nranks,
                         int rank, void **comm);
/* Destroys a communicator made on device. */
void pdt_comm_destroy(pdt_device device, void *comm);
/* One collective on comm (made on device for nranks ranks, this one `rank`):
 * send and recv contiguous, on that device, of one dtype, with the sizes
 * pdt_comm_kind gives; op for the reductions, root for broadcast.  Not
 * counted here (the caller counts its share, Note [collectives are counted]). */
pdt_status pdt_comm_run(void *comm, pdt_device device, int nranks, int rank, pdt_comm_kind what,
                        const pdt_tensor *send, const pdt_tensor *recv, pdt_comm_op op, int root);

/* One message of pdt_comm_exchange: tensor sent to (is_send) or received from
 * rank peer of the communicator. */
typedef struct pdt_comm_message {
    const pdt_tensor *tensor;
    int peer;
    int is_send;
} pdt_comm_message;

/* The n messages as one group (CUDA: ncclSend / ncclRecv between
 * ncclGroupStart and ncclGroupEnd, NCCL's "Point-to-point communication"):
 * they progress together, so a rank may send to and receive from the same
 * peers (itself included) in one call; the messages to one peer, and those
 * from it, are matched in order.  Each tensor contiguous, on the
 * communicator's device; the peer must send (receive) the same element count
 * and dtype, which the caller has agreed on first.  Messages to and from this
 * rank itself are checked here: the k-th send to self must match the k-th
 * receive from self.  Not counted here. */
pdt_status pdt_comm_exchange(void *comm, pdt_device device, int nranks, int rank, int n,
                             const pdt_comm_message *msgs);

#ifdef __cplusplus
}
#endif
#endif /* PDT_COLLECTIVE_H */
