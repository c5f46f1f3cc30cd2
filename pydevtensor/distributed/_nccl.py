"""backend='nccl' of pydevtensor.distributed: CUDA tensors through NCCL, one process per
GPU.  The local rank and the device it binds to, the exchange of NCCL's unique id over
MPI and the dtype and op mapping run (and are tested) without a GPU; the communicator
(ncclCommInitRank, Note [NCCL rank communicators] in csrc/cuda/cuda_nccl.c), its
collectives and its point-to-point calls run on the emulated device in CI with one rank
(the emulated NCCL joins no other process), and across processes only on a machine with
a GPU per rank.

Note [NCCL ranks]
- Local rank: the launcher's (OMPI_COMM_WORLD_LOCAL_RANK for Open MPI,
  MPI_LOCALRANKID for MPICH's hydra, SLURM_LOCALID under srun), else the rank in
  MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (the processes of this node).
- Device: cuda:<local rank>; a node with more ranks than GPUs is refused (NCCL does not
  put two ranks on one GPU), naming the rank, its local rank and the device count.
- Rendezvous: rank 0 makes the 128-byte ncclUniqueId and MPI_Bcast hands it to every
  rank, with a flag that says whether rank 0 could make it (if not, every rank raises,
  naming rank 0, rather than waiting); only this id travels over MPI.
- Then every rank calls ncclCommInitRank, which blocks until all ranks have joined: a
  rank that fails before joining leaves the others waiting there (NCCL has no timeout
  for it); the launcher ends the job when that rank exits with its error.
- Collectives are enqueued on pydevtensor's stream of the device, like every op, so
  they are ordered after the work that wrote their inputs and before what reads their
  outputs; the host does not wait.  Work.wait() (async_op=True) synchronizes the device.
  The group's timeout covers the MPI exchanges and the agreement check before each
  collective, not a collective already on the GPU.

Note [NCCL point-to-point]
- reduce is ncclReduce (in place; the other ranks' tensors stay as they are).  gather,
  scatter, all_to_all and all_to_all_single are NCCL's "Point-to-point communication"
  patterns: this rank's ncclSend and ncclRecv calls between one ncclGroupStart and
  ncclGroupEnd (_C._comm_exchange), so they progress together, its messages to itself
  (the root's own block) included, which NCCL completes only within one group.  The
  agreement check (and all_to_all's exchange of counts) runs first, over MPI, so every
  send meets a receive of the same count and dtype, as NCCL requires.
- send / isend: the header (Note [data in header order] in _p2p.py) over MPI, the data
  by ncclSend on the device's stream; the host does not wait for the peer, but the
  stream does ("blocking for the GPU"), so work queued after it waits for the receive.
  recv / irecv post ncclRecv once the header is in, from its sender (src is needed:
  NCCL has no receive from any rank); a message that does not match the tensor is
  received into a scratch tensor, so the sender's stream does not wait forever, and
  raises.  Two ranks that both send to each other before receiving wait forever on
  their GPUs, as with NCCL itself; gather, scatter and the all-to-alls do not.
- new_group: its own communicator (ncclCommInitRank with a unique id the group's rank 0
  makes, broadcast over the group's MPI communicator), on the default group's GPU.
"""
import os

import numpy as np

from ._group import ReduceOp

NCCL_UNIQUE_ID_BYTES = 128

# pydevtensor dtype name -> ncclDataType_t (the values of csrc/cuda/nccl_api.h);
# bool travels as uint8 (SUM/MAX: or, MIN/PRODUCT: and, as the MPI path)
NCCL_DTYPES = {"bool": 1, "int32": 2, "int64": 4, "float16": 6, "float32": 7, "float64": 8,
               "bfloat16": 9}
# ReduceOp name -> ncclRedOp_t (ncclAvg needs NCCL 2.10)
NCCL_OPS = {"SUM": 0, "PRODUCT": 1, "MAX": 2, "MIN": 3, "AVG": 4}
_BOOL_OPS = {"SUM": 2, "MAX": 2, "MIN": 3, "PRODUCT": 3}

_LOCAL_RANK_VARS = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                    "LOCAL_RANK")


def nccl_dtype(dtype_name, rank):
    """The ncclDataType_t value for a pydevtensor dtype name, or TypeError naming it."""
    if dtype_name not in NCCL_DTYPES:
        raise TypeError(f"rank {rank}: NCCL has no type for {dtype_name}; supported: "
                        f"{sorted(NCCL_DTYPES)}")
    return NCCL_DTYPES[dtype_name]


def nccl_op(op_name, dtype_name, rank):
    """The ncclRedOp_t value for ReduceOp op_name on dtype_name (AVG on integers raises
    TypeError, as on the MPI path)."""
    if op_name == "AVG" and dtype_name not in ("float16", "float32", "float64", "bfloat16"):
        raise TypeError(f"rank {rank}: ReduceOp.AVG needs a floating dtype, got {dtype_name}")
    if dtype_name == "bool":
        return _BOOL_OPS[op_name]
    return NCCL_OPS[op_name]


def local_rank(comm, environ=None):
    """(local rank, local size) of this process on its node (Note [NCCL ranks])."""
    environ = os.environ if environ is None else environ
    node = comm.Split_type(_mpi().COMM_TYPE_SHARED)
    try:
        size, rank = node.Get_size(), node.Get_rank()
    finally:
        node.Free()
    for var in _LOCAL_RANK_VARS:
        if environ.get(var, "").isdigit():
            return int(environ[var]), size
    return rank, size


def choose_device(rank, local, local_size, device_count):
    """The CUDA device index this rank binds to, or RuntimeError naming the rank."""
    if device_count < 1:
        raise RuntimeError(f"init_process_group('nccl') on rank {rank}: this process sees no "
                           f"CUDA device")
    if local_size > device_count or local >= device_count:
        raise RuntimeError(f"init_process_group('nccl') on rank {rank}: {local_size} ranks "
                           f"on this node (local rank {local}) but {device_count} CUDA "
                           f"device(s); NCCL needs one GPU per rank (start at most "
                           f"{device_count} processes per node)")
    return local


def exchange_unique_id(comm, rank, make_id):
    """Rank 0's make_id() (128 bytes), broadcast over MPI to every rank.  When rank 0
    cannot make it, every rank raises (rank 0 its own error) instead of waiting."""
    buf = np.zeros(NCCL_UNIQUE_ID_BYTES + 1, dtype=np.uint8)  # the id, then "made"
    error = None
    if rank == 0:
        try:
            uid = bytes(make_id())
            if len(uid) != NCCL_UNIQUE_ID_BYTES:
                raise ValueError(f"an NCCL unique id has {NCCL_UNIQUE_ID_BYTES} bytes, got "
                                 f"{len(uid)}")
            buf[:NCCL_UNIQUE_ID_BYTES] = np.frombuffer(uid, dtype=np.uint8)
            buf[NCCL_UNIQUE_ID_BYTES] = 1
        except Exception as exc:  # noqa: BLE001 - re-raised below, after the broadcast
            error = exc
    comm.Bcast(buf, root=0)
    if error is not None:
        raise error
    if not buf[NCCL_UNIQUE_ID_BYTES]:
        raise RuntimeError(f"init_process_group('nccl') on rank {rank}: rank 0 could not "
                           f"make the NCCL unique id (see its error)")
    return buf[:NCCL_UNIQUE_ID_BYTES].tobytes()


def _mpi():
    from mpi4py import MPI
    return MPI


_ALL_REDUCE, _BROADCAST, _ALL_GATHER, _REDUCE_SCATTER, _REDUCE = 0, 1, 2, 3, 4  # pdt_comm_kind


class _NcclWork:
    """async_op=True on the NCCL path: the collective is already ordered on the
    device's stream; wait() also makes the host wait for it (synchronizes the device)."""

    def __init__(self, device):
        self._device = device
        self._done = False

    def wait(self, timeout=None):
        if not self._done:
            from .. import cuda
            cuda.synchronize(self._device)
            self._done = True
        return True

    def is_completed(self):
        return self.wait()

    def is_success(self):
        return self.is_completed()


class NcclState:
    """The NCCL side of a process group: this rank's communicator on its GPU
    (Note [NCCL ranks])."""

    def __init__(self, group, device_id=None, parent=None):
        """parent: the default group's NcclState, for a group of new_group(): its
        communicator on the same GPU, with the group's own unique id (made by the
        group's rank 0 and broadcast over the group's MPI communicator)."""
        from .. import _C
        what = "init_process_group('nccl')" if parent is None else "new_group"
        if parent is not None:
            self.device = parent.device
        else:
            if not _C._nccl_available():
                raise RuntimeError(f"{what} on rank {group.rank}: this build has no CUDA, or "
                                   f"libnccl.so.2 could not be loaded (pip install "
                                   f"'pydevtensor[cuda13]'); use backend='mpi' for CPU tensors")
            local, local_size = local_rank(group.comm)
            self.device = choose_device(group.rank, local, local_size,
                                        _C._device_count(_C._KIND_CUDA))
        self.rank, self.size = group.rank, group.size
        uid = exchange_unique_id(group.comm, group.rank, _C._comm_unique_id)
        try:
            self.comm = _C._comm_init(f"cuda:{self.device}", uid, group.size, group.rank)
        except Exception as exc:
            raise RuntimeError(f"{what} on rank {group.wrank} (cuda:{self.device}): {exc}") \
                from exc

    def _run(self, what, send, recv, op, root, async_op, nbytes):
        from .. import _C
        _C._count_collective(nbytes)
        op_code = NCCL_OPS[op.name if hasattr(op, "name") else str(op)]
        _C._comm_run(self.comm, what, send, recv, op_code, root)
        return _NcclWork(f"cuda:{self.device}") if async_op else None

    def all_reduce(self, tensor, op, async_op):
        n = tensor.numel() * tensor.element_size()
        return self._run(_ALL_REDUCE, tensor, tensor, op, 0, async_op,
                         2 * (self.size - 1) * n // self.size)

    def broadcast(self, tensor, src, async_op):
        n = tensor.numel() * tensor.element_size()
        return self._run(_BROADCAST, tensor, tensor, ReduceOp.SUM, src, async_op,
                         n if self.rank == src and self.size > 1 else 0)

    def all_gather(self, output, input, async_op):
        n = input.numel() * input.element_size()
        return self._run(_ALL_GATHER, input, output, ReduceOp.SUM, 0, async_op, (self.size - 1) * n)

    def all_gather_list(self, tensor_list, tensor, async_op):
        from .. import empty
        flat = empty(self.size * tensor.numel(), dtype=tensor.dtype, device=tensor.device)
        work = self.all_gather(flat, tensor.reshape(-1), False)
        for r, out in enumerate(tensor_list):
            out.copy_(flat[r * tensor.numel():(r + 1) * tensor.numel()].reshape(out.shape))
        return work if not async_op else _NcclWork(f"cuda:{self.device}")

    def reduce_scatter(self, output, input, op, async_op):
        n = output.numel() * output.element_size()
        return self._run(_REDUCE_SCATTER, input, output, op, 0, async_op, (self.size - 1) * n)

    def reduce_scatter_list(self, output, input_list, op, async_op):
        from .. import cat
        flat = cat([t.reshape(-1) for t in input_list])
        return self.reduce_scatter(output, flat, op, async_op)

    def reduce(self, tensor, dst, op, async_op):
        """ncclReduce in place into rank dst's tensor (the others' stay as they are)."""
        n = tensor.numel() * tensor.element_size()
        return self._run(_REDUCE, tensor, tensor, op, dst, async_op, 0 if self.rank == dst else n)

    def exchange(self, messages, nbytes, async_op):
        """messages: (is_send, tensor, peer) sent and received as one NCCL group
        (ncclSend / ncclRecv between ncclGroupStart and ncclGroupEnd, NCCL's
        "Point-to-point communication"); nbytes: what this rank sends to the others."""
        from .. import _C
        _C._count_collective(nbytes)
        _C._comm_exchange(self.comm, messages)
        return _NcclWork(f"cuda:{self.device}") if async_op else None

    def gather(self, tensor, gather_list, dst, async_op):
        """NCCL's all-to-one: every rank sends to dst, which receives from each."""
        root = self.rank == dst
        messages = [(True, tensor, dst)] + ([(False, t, r) for r, t in enumerate(gather_list)]
                                            if root else [])
        n = tensor.numel() * tensor.element_size()
        return self.exchange(messages, 0 if root else n, async_op)

    def scatter(self, tensor, scatter_list, src, async_op):
        """NCCL's one-to-all: src sends scatter_list[r] to each rank r."""
        root = self.rank == src
        messages = ([(True, t, r) for r, t in enumerate(scatter_list)] if root else []) + \
            [(False, tensor, src)]
        n = tensor.numel() * tensor.element_size()
        return self.exchange(messages, (self.size - 1) * n if root else 0, async_op)

    def all_to_all(self, outputs, inputs, async_op):
        """NCCL's all-to-all: inputs[j] to rank j, outputs[j] from rank j."""
        messages = [(True, t, j) for j, t in enumerate(inputs)] + \
            [(False, t, j) for j, t in enumerate(outputs)]
        nbytes = sum(t.numel() * t.element_size() for j, t in enumerate(inputs) if j != self.rank)
        return self.exchange(messages, nbytes, async_op)

    def close(self):
        self.comm = None  # the capsule destroys the communicator

