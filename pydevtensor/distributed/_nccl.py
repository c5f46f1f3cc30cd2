"""backend='nccl' of pydevtensor.distributed: CUDA tensors through NCCL, one process per
GPU.  What is here runs (and is tested) without a GPU: the local rank and the device it
binds to, the exchange of NCCL's unique id over MPI, the dtype and op mapping.  The
communicator itself (ncclCommInitRank and the collectives on it) needs bindings in
csrc/cuda/cuda_nccl.c that are not built yet (docs/multi_node.md): NcclState says so.

Note [NCCL ranks]
- Local rank: the launcher's (OMPI_COMM_WORLD_LOCAL_RANK for Open MPI,
  MPI_LOCALRANKID for MPICH's hydra, SLURM_LOCALID under srun), else the rank in
  MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (the processes of this node).
- Device: cuda:<local rank>; a node with more ranks than GPUs is refused (NCCL does not
  put two ranks on one GPU), naming the rank, its local rank and the device count.
- Rendezvous: rank 0 makes the 128-byte ncclUniqueId and MPI_Bcast hands it to every
  rank; only this id travels over MPI.
"""
import os

import numpy as np

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
    """Rank 0's make_id() (128 bytes), broadcast over MPI to every rank."""
    buf = np.zeros(NCCL_UNIQUE_ID_BYTES, dtype=np.uint8)
    if rank == 0:
        uid = bytes(make_id())
        if len(uid) != NCCL_UNIQUE_ID_BYTES:
            raise ValueError(f"an NCCL unique id has {NCCL_UNIQUE_ID_BYTES} bytes, got "
                             f"{len(uid)}")
        buf[:] = np.frombuffer(uid, dtype=np.uint8)
    comm.Bcast(buf, root=0)
    return buf.tobytes()


def _mpi():
    from mpi4py import MPI
    return MPI


class NcclState:
    """The NCCL side of a process group: binds this rank to its GPU.  The multi-process
    communicator needs ncclGetUniqueId / ncclCommInitRank bindings in the C extension,
    which are not built yet: this raises, naming what is missing."""

    def __init__(self, group, device_id=None):
        from .. import _C
        if not _C._nccl_available():
            raise RuntimeError(f"init_process_group('nccl') on rank {group.rank}: this build "
                               f"has no CUDA, or libnccl.so.2 could not be loaded (pip install "
                               f"'pydevtensor[cuda13]'); use backend='mpi' for CPU tensors")
        local, local_size = local_rank(group.comm)
        self.device = choose_device(group.rank, local, local_size,
                                    _C._device_count(_C._KIND_CUDA))
        raise NotImplementedError(
            f"init_process_group('nccl') on rank {group.rank}: the multi-process NCCL "
            f"communicator (ncclGetUniqueId + ncclCommInitRank, exchanged over MPI) has no "
            f"binding in pydevtensor's C extension yet (docs/multi_node.md); use "
            f"backend='mpi' with CPU tensors, or MirroredStrategy inside one process")

    def close(self):
        pass
