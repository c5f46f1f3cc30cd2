"""The process group of pydevtensor.distributed: MPI's world (through mpi4py, imported
here and only here), the timeout, the shape check and the work handles.
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import atexit
import datetime
import enum
import sys
import time
import zlib

import numpy as np

from .. import _C

#: The default of init_process_group's timeout (Note [distributed processes]).
default_pg_timeout = datetime.timedelta(minutes=30)

_BACKENDS = ("mpi", "nccl", "gloo")  # gloo: MPI's data path (Note [gloo is MPI here])
_MAX_DIMS = 8
# the metadata row each rank contributes before a collective (int64)
_ROW = 8 + _MAX_DIMS
_SPIN_SECONDS = 0.5  # Work.wait's busy polling before it sleeps between tests


class ReduceOp(enum.Enum):
    """The reductions of all_reduce and reduce_scatter, as torch.distributed.ReduceOp."""
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MAX = "max"
    MIN = "min"
    BAND = "band"  # bitwise and/or/xor: integer and bool tensors (bool: logical)
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self):
        return f"ReduceOp.{self.name}"


class _Group:
    """The default process group: a duplicate of MPI_COMM_WORLD (our collectives never
    meet the user's own MPI traffic), the timeout, the NCCL state when asked for."""

    def __init__(self, MPI, backend, timeout, comm=None):
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD.Dup() if comm is None else comm
        # an MPI error (a peer's connection lost) raises in Test() instead of aborting
        # at once, and becomes our RuntimeError naming the rank and the collective
        self.comm.Set_errhandler(MPI.ERRORS_RETURN)
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.backend = backend
        self.timeout = timeout
        self.pending = set()  # Works in flight: they hold the buffers MPI uses
        self.broken = None  # the message of the timeout that broke the group
        self.stranded = []  # buffers of requests that never completed: never freed
        self.subgroups = []  # the groups new_group() made from this one, still open
        self.nccl = None
        self.ranks = tuple(range(self.size))  # the world ranks of this group's ranks
        self.wrank = self.rank  # this process's world rank: the messages name it

    def local(self, world_rank):
        """This group's rank of a world rank, or None when it is not a member."""
        return self.ranks.index(world_rank) if world_rank in self.ranks else None

    def describe(self):
        return f"0 .. {self.size - 1}"

    def agreement_rows(self):
        """The (size, _ROW) buffer the agreement check gathers into, reused: MPI is
        done with it when check_agreement reads it (it waits for the gather)."""
        rows = getattr(self, "_rows", None)
        if rows is None or self.broken is not None:
            rows = self._rows = np.empty((self.size, _ROW), dtype=np.int64)
        return rows

    def check_usable(self, what):
        if self.broken is not None:
            raise RuntimeError(f"{what} on rank {self.rank}: the process group is unusable "
                               f"after an earlier timeout ({self.broken}); the job is aborted "
                               f"when this process exits")


_group = None
_abort_registered = False


def _mpi():
    """mpi4py's MPI module, imported on first use; a clear error when it is missing."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise RuntimeError("pydevtensor.distributed needs mpi4py and an MPI: pip install "
                           "'pydevtensor[distributed]' (mpi4py and MPICH's wheel)") from exc
    return MPI


def is_available():
    """True when mpi4py can be imported (pydevtensor.distributed can work)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def _seconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        s = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        s = float(timeout)
    else:
        raise TypeError(f"init_process_group: timeout must be a datetime.timedelta or a "
                        f"number of seconds, got {type(timeout).__name__}")
    if not s > 0:
        raise ValueError(f"init_process_group: timeout must be positive, got {s} seconds")
    return s


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", device_id=None):
    """Joins the processes started by mpiexec into the default process group.

    backend: 'mpi' (CPU tensors, through mpi4py), 'gloo' (the same, under PyTorch's
    name for its CPU backend: Note [gloo is MPI here] in __init__.py) or 'nccl' (CUDA
    tensors through NCCL, CPU tensors still through MPI); rank and world size come
    from MPI, and rank / world_size, when given, must agree with them.  timeout (a
    timedelta or seconds, default ``default_pg_timeout``, 30 minutes) bounds every
    collective: see Note [distributed processes]."""
    global _group, _abort_registered
    if backend is None:
        backend = "mpi"
    if not isinstance(backend, str) or backend.lower() not in _BACKENDS:
        raise ValueError(f"init_process_group: backend must be one of {list(_BACKENDS)}, got "
                         f"{backend!r}: CPU tensors go through MPI ('mpi', or 'gloo' by "
                         f"PyTorch's name), CUDA tensors through NCCL ('nccl')")
    backend = backend.lower()
    seconds = _seconds(default_pg_timeout if timeout is None else timeout)
    if _group is not None:
        raise ValueError("init_process_group: the default process group is already "
                         "initialized (PyTorch's 'trying to initialize the default process "
                         "group twice'); call destroy_process_group() first")
    if init_method not in (None, "env://", "mpi://") or store is not None:
        raise ValueError(f"init_process_group: the rendezvous is MPI's (start the processes "
                         f"with mpiexec); init_method={init_method!r} and store= are not "
                         f"supported")
    MPI = _mpi()
    group = _Group(MPI, backend, seconds)
    for name, given, actual in (("rank", rank, group.rank), ("world_size", world_size,
                                                             group.size)):
        if given not in (-1, None) and given != actual:
            group.comm.Free()
            raise ValueError(f"init_process_group: {name}={given}, but MPI gives this process "
                             f"{name} {actual} (from mpiexec)")
    if backend == "nccl":
        from ._nccl import NcclState
        try:
            group.nccl = NcclState(group, device_id)
        except BaseException:
            group.comm.Free()
            raise
    _group = group
    if not _abort_registered:  # after mpi4py's own atexit (MPI_Finalize): runs before it
        atexit.register(_abort_if_broken)
        sys.excepthook = _aborting_excepthook(sys.excepthook)
        _abort_registered = True


def _aborting_excepthook(previous):
    """An uncaught exception on one rank ends the job when that process exits (as
    ``python -m mpi4py`` does), instead of leaving the others waiting for the
    timeout in their next collective."""
    def hook(kind, value, tb):
        previous(kind, value, tb)
        g = _group
        if g is not None and g.broken is None:
            g.broken = f"an uncaught {kind.__name__} on rank {g.wrank}"
    return hook


def _abort_if_broken():
    g = _group
    if g is not None and g.broken is not None:
        sys.stderr.write(f"pydevtensor.distributed: rank {g.wrank} aborts the job: "
                         f"{g.broken}\n")
        sys.stderr.flush()
        # The abort kills the launcher's output forwarding with the job; give it a
        # moment to pass the line on (a CI run on a loaded machine lost it once).
        time.sleep(0.2)
        g.MPI.COMM_WORLD.Abort(1)


def _require(what, group=None):
    """The default group, or group (a new_group() of this rank), usable by what."""
    if _group is None:
        raise ValueError(f"{what}: the default process group is not initialized; call "
                         f"pydevtensor.distributed.init_process_group() first (in processes "
                         f"started by mpiexec or python -m pydevtensor.distributed.run)")
    if group is None:
        return _group
    from ._subgroups import resolve
    return resolve(what, group, _group)


def is_initialized():
    """Whether init_process_group() has run (and destroy_process_group() has not)."""
    return _group is not None


def get_rank(group=None):
    """This process's rank in the default group (0 .. world_size - 1), or in group
    (-1 when this process is not one of its members)."""
    from ._subgroups import is_non_member
    if is_non_member(group):
        _require("get_rank")
        return -1
    return _require("get_rank", group).rank


def get_world_size(group=None):
    """The number of processes in the default group, or in group (-1 when this process
    is not one of its members)."""
    from ._subgroups import is_non_member
    if is_non_member(group):
        _require("get_world_size")
        return -1
    return _require("get_world_size", group).size


def get_backend(group=None):
    """'mpi', 'gloo' or 'nccl', as given to init_process_group."""
    return _require("get_backend", group).backend


def destroy_process_group(group=None):
    """Waits for the collectives in flight, then leaves the group (the default group:
    every group made by new_group() too; a new init_process_group() may follow)."""
    global _group
    g = _require("destroy_process_group", group)
    if g is not _group:
        g.close()
        return
    if g.broken is None:
        for sub in list(g.subgroups):
            sub.close()
        for work in list(g.pending):
            work.wait()
        if g.nccl is not None:
            g.nccl.close()
        g.comm.Free()
        _group = None


class Work:
    """What a collective with async_op=True returns (torch.distributed's Work):
    ``wait()`` blocks until it is done (raising RuntimeError past the group's timeout),
    ``is_completed()`` tells without blocking.  The tensors stay in use until then."""

    def __init__(self, group, request, what, holds, finish=None):
        self._group = group
        self._request = request
        self._what = what
        self._holds = holds  # the arrays (views of the tensors) MPI reads and writes
        self._finish = finish
        self._done = False
        self._deadline = time.monotonic() + group.timeout
        group.pending.add(self)

    def _complete(self):
        self._done = True
        self._group.pending.discard(self)
        finish, self._finish, self._holds = self._finish, None, None
        if finish is not None:
            finish()

    def is_completed(self):
        if not self._done and self._request.Test():
            self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def wait(self, timeout=None):
        """Blocks until the collective is done; returns True."""
        if self._done:
            return True
        deadline = self._deadline
        if timeout is not None:
            deadline = min(deadline, time.monotonic() + _seconds(timeout))
        # MPI progresses a nonblocking collective only inside MPI calls (MPICH has no
        # progress thread by default): Test() back to back, as MPI_Wait itself spins,
        # for _SPIN_SECONDS; after that the peers are late (dead, stuck, or slow) and a
        # 1 ms sleep between tests spares the CPU.
        spins, start = 0, time.monotonic()
        try:
            while not self._request.Test():
                spins += 1
                if spins & 255 == 0:
                    now = time.monotonic()
                    if now > deadline:
                        self._fail(f"timed out after {self._group.timeout:g} seconds: another "
                                   f"rank did not take part (it died, or is stuck, or called a "
                                   f"different collective)")
                    if now - start > _SPIN_SECONDS:
                        time.sleep(1e-3)
        except self._group.MPI.Exception as exc:
            self._fail(f"failed in MPI ({exc.Get_error_string()}): another rank died or "
                       f"cannot be reached")
        self._complete()
        return True

    def _fail(self, why):
        g = self._group
        msg = (f"{self._what} on rank {g.wrank} (of {g.size}) {why}; the job is aborted when "
               f"this process exits")
        g.broken = msg
        # MPI may still write into these buffers: they are never freed.
        g.stranded.append(self._holds)
        g.pending.discard(self)
        self._done = True
        raise RuntimeError(msg)


def _start(group, what, start, holds, finish=None, async_op=False):
    """Starts a nonblocking MPI call (start() returns its request) and returns its Work
    when async_op, else waits for it (within the timeout) and returns None."""
    request = start()
    try:
        done = not async_op and request.Test()  # small messages are done at once
    except group.MPI.Exception:
        done = False  # Work.wait meets the error again and reports it
    if done:
        if finish is not None:
            finish()
        return None
    work = Work(group, request, what, holds, finish)
    if async_op:
        return work
    work.wait()
    return None


def barrier(group=None, async_op=False, device_ids=None):
    """Blocks until every rank has called it (MPI_Ibarrier, within the timeout)."""
    g = _require("barrier", group)
    g.check_usable("barrier")
    _C._count_collective(0)
    return _start(g, "barrier", g.comm.Ibarrier, None, async_op=async_op)


# ---- the check before each collective ----

def _dtype_code(dtype):
    return zlib.crc32(str(dtype).encode())


def _describe(row):
    ndim = int(row[4])
    shape = tuple(int(v) for v in row[8:8 + min(ndim, _MAX_DIMS)])
    return shape, ndim


_ROWS_CACHE = {}  # (what, dtype, device type, shape, extra) -> this rank's row


def _row(what, tensor, local_error, extra):
    """This rank's row of the agreement check; rows of good arguments are cached by
    their signature (they never change), so a repeated call builds nothing."""
    if local_error is not None:
        row = np.zeros(_ROW, dtype=np.int64)
        row[0] = 1
        row[1] = zlib.crc32(what.encode()) & 0x7FFFFFFF
        return row
    shape = tuple(tensor.shape)
    dev = tensor.device.type
    key = (what, tensor.dtype, dev, shape, extra)
    row = _ROWS_CACHE.get(key)
    if row is None:
        row = np.zeros(_ROW, dtype=np.int64)
        row[1] = zlib.crc32(what.encode()) & 0x7FFFFFFF
        row[2] = _dtype_code(tensor.dtype)
        row[3] = 1 if dev == "cuda" else 0
        row[4] = len(shape)
        row[5] = int(np.prod(shape, dtype=np.int64))
        row[6] = extra
        for i, n in enumerate(shape[:_MAX_DIMS]):
            row[8 + i] = n
        row.flags.writeable = False
        if len(_ROWS_CACHE) > 4096:
            _ROWS_CACHE.clear()
        _ROWS_CACHE[key] = row
    return row


def check_agreement(g, what, tensor, local_error=None, extra=0, same_shape=True):
    """Every rank contributes (status, op, dtype, device type, shape, extra); if they
    disagree, every rank raises the same ValueError naming each rank's tensor (not a
    hang).  local_error: this rank's own message when its arguments are bad: it is
    raised here, and the other ranks raise naming this rank.  extra: broadcast's
    src + 1 (0: none)."""
    row = _row(what, tensor, local_error, extra)
    rows = g.agreement_rows()
    _start(g, f"{what} (the agreement check before it)",
           lambda: g.comm.Iallgather(row, rows), (row, rows))
    if local_error is not None:
        raise local_error
    if (rows == row).all():  # the common case: every rank passed what this one did
        return
    bad = [r for r in range(g.size) if rows[r, 0]]
    if bad:
        raise RuntimeError(f"{what} on rank {g.wrank}: rank(s) {bad} rejected their arguments "
                           f"(see their error); no data was exchanged")
    if len({tuple(r[1:2]) for r in rows}) != 1:
        raise RuntimeError(f"{what} on rank {g.wrank}: the ranks called different collectives "
                           f"at the same point; every rank must call the same ones in the "
                           f"same order")
    keys = rows[:, 2:] if same_shape else rows[:, 2:4]
    if (keys != keys[0]).any():
        # every rank saw the same rows, so every rank makes this second, small exchange
        mine = (str(tensor.dtype).replace("pydevtensor.", ""), str(tensor.device),
                tuple(tensor.shape), int(extra))
        everyone = g.comm.allgather(mine)
        listing = "; ".join(f"rank {r}: shape {s} {d} on {dev}" + (f", src={x - 1}" if x else "")
                            for r, (d, dev, s, x) in enumerate(everyone))
        raise ValueError(f"{what} on rank {g.wrank}: the ranks' tensors disagree ({listing}); "
                         f"every rank must pass a tensor of the same shape and dtype on the "
                         f"same kind of device" + ("" if not extra else
                                                   ", and the same src"))
