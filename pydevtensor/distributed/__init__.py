"""pydevtensor.distributed: several processes, one rank each, with
torch.distributed's names, on MPI (mpi4py) and NCCL.

    # mpiexec -n 4 python train.py     (or: python -m pydevtensor.distributed.run -n 4 train.py)
    import pydevtensor as pdt
    import pydevtensor.distributed as dist
    dist.init_process_group("mpi")               # 'nccl' for CUDA tensors
    x = pdt.ones(3) * dist.get_rank()
    dist.all_reduce(x)                           # every rank: 0 + 1 + 2 + 3
    dist.destroy_process_group()

Importing pydevtensor never imports mpi4py; init_process_group() does.

Note [distributed processes]
- Rendezvous: MPI's.  The processes are started by mpiexec (MPICH's wheel from the
  ``distributed`` extra puts it in the environment's bin); rank and world size are
  MPI_COMM_WORLD's, and the group works on a duplicate of it.
- Data path: a CPU tensor (any logical CPU device: it is host memory) is handed to MPI
  as a NumPy view of its own memory (the buffer protocol; the view keeps the tensor, so
  its storage, alive), so no copy is made except where MPI needs one buffer of several
  tensors (all_gather / reduce_scatter with lists: use the *_tensor forms to avoid it).
  CUDA tensors go through NCCL (backend='nccl', pydevtensor/distributed/_nccl.py).
- Every collective is an MPI nonblocking one (MPI_Iallreduce, MPI_Ibcast, ...).  With
  async_op=True it returns a Work (``wait()``, ``is_completed()``); the tensors must not
  be touched until then.  Otherwise it waits for it.
- Agreement check: before each collective the ranks exchange a small row (the op, the
  dtype, the device type, the shape; broadcast's src) with one MPI_Iallgather, so a
  shape, dtype or device mismatch, or a bad argument on one rank, raises on every rank
  a ValueError / RuntimeError listing what each rank passed, instead of a hang or wrong
  bytes.  It costs one small collective per call (benchmarks/distributed_allreduce.py).
- Timeout: ``init_process_group(timeout=...)``, default ``default_pg_timeout`` = 30
  minutes (PyTorch's default outside NCCL; its NCCL default is 10 minutes).  MPI
  collectives cannot be cancelled, so a wait polls MPI_Test until the deadline, then
  raises a RuntimeError naming the rank, the collective and the timeout.  The group is
  then unusable (its buffers are never freed: MPI may still write into them), later
  collectives raise at once, and when the process exits it calls MPI_Abort, which ends
  the whole job (as PyTorch's NCCL async error handling tears the process down) rather
  than hanging in MPI_Finalize.  An uncaught exception on one rank does the same when
  that process exits (a sys.excepthook set by init_process_group, as ``python -m
  mpi4py`` does), so the others do not wait for the timeout.
- Reductions: SUM, PRODUCT, MAX, MIN on every dtype (bool: logical or for SUM and MAX,
  logical and for MIN and PRODUCT); AVG on floating dtypes only (an integer tensor
  raises TypeError), as a sum divided by world_size on every rank (the same bits);
  BAND, BOR, BXOR on integer and bool tensors (bool: logical and / or / xor); a
  floating MAX / MIN keeps a NaN of any rank, as torch.maximum (user-defined MPI ops:
  MPI's built-in MAX, and PyTorch's gloo, drop it).
- Strided tensors: MPI moves contiguous memory, so a non-contiguous tensor goes through
  a contiguous copy that is written back into it when the collective is done (as
  PyTorch's gloo backend); CUDA tensors must be contiguous.  A tensor whose elements
  share memory (expanded: a stride of 0) is refused on every rank before anything moves
  (its writeback cannot be done; PyTorch's gloo takes it).
- Beyond the four collectives above: reduce, gather, scatter, all_to_all(_single)
  (_rooted.py), all_gather_object / broadcast_object_list / gather_object /
  scatter_object_list (_objects.py: pickled into
  uint8 tensors) and send / recv / isend / irecv (_p2p.py: a header, then the data), on
  CPU tensors through MPI and, but for the object forms, on CUDA tensors through NCCL
  (_nccl.py); new_group(ranks) (_subgroups.py: a communicator split from the default
  group's) for their group= argument, src / dst being world ranks and group_src /
  group_dst ranks in the group, as PyTorch's.
- Note [gloo is MPI here]: ``init_process_group("gloo")``, as PyTorch's CPU tutorials
  write it, gives a group whose CPU tensors go through MPI, exactly as ``"mpi"``'s do
  (``get_backend()`` answers ``'gloo'``); ``new_group(backend="gloo")`` likewise.  Gloo's
  own rendezvous (MASTER_ADDR / MASTER_PORT, ``tcp://``, a store, ``mp.spawn``) is not
  there: start the processes with mpiexec (or ``python -m pydevtensor.distributed.run``),
  and ``env://`` is accepted and MPI gives the ranks.  Where PyTorch's gloo also takes
  CUDA tensors (staging them through the host), ours refuses them and says to use
  ``'nccl'``, as ``'mpi'`` does: no hidden device-to-host copy.
- Counting: every collective adds to ``transfer_stats()['collective']`` the bytes this
  rank sends under the ring model (Note [collectives are counted] in
  csrc/core/pdt_collective.h); the agreement check is not counted.
"""
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, broadcast,
                           reduce_scatter, reduce_scatter_tensor)
from ._group import (ReduceOp, Work, barrier, default_pg_timeout, destroy_process_group,
                     get_backend, get_rank, get_world_size, init_process_group, is_available,
                     is_initialized)
from ._objects import (all_gather_object, broadcast_object_list, gather_object,
                       scatter_object_list)
from ._p2p import irecv, isend, recv, send
from ._rooted import all_to_all, all_to_all_single, gather, reduce, scatter
from ._subgroups import (GroupMember, get_global_rank, get_group_rank, get_process_group_ranks,
                         group, new_group)

__all__ = ["GroupMember", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier",
           "broadcast", "broadcast_object_list", "default_pg_timeout", "destroy_process_group",
           "gather", "gather_object", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group",
           "irecv", "is_available", "is_initialized", "isend", "new_group", "recv", "reduce",
           "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]
