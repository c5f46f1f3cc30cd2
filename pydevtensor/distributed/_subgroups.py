"""new_group(): a process group of some of the ranks (an MPI communicator split from the
default group's, and under backend='nccl' an NCCL communicator of its own, made by
ncclCommInitRank with a unique id of the group's), which every collective takes as
group=, as torch.distributed.  Ranks
given as src / dst are world ranks (group_src / group_dst: ranks in the group), as in
PyTorch.  Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import numpy as np

from ._group import _Group, _require, _seconds

#: What new_group() returns on a rank that is not one of the group's (PyTorch's
#: GroupMember.NON_GROUP_MEMBER): get_rank / get_world_size of it are -1.
NON_GROUP_MEMBER = -100


class GroupMember:
    """PyTorch's names: ``WORLD`` (the default group: None here, which every function
    reads as the default group) and ``NON_GROUP_MEMBER``."""
    WORLD = None
    NON_GROUP_MEMBER = NON_GROUP_MEMBER


class group:  # noqa: N801 (PyTorch's name: dist.group.WORLD)
    """``group.WORLD``: the default group (None here, as every ``group=`` default)."""
    WORLD = None


class _SubGroup(_Group):
    """A group of some of the default group's ranks; a timeout in it breaks the default
    group too (the job is aborted at exit either way)."""

    def __init__(self, parent, comm, ranks, timeout):
        self.parent = parent
        self._broken = None
        super().__init__(parent.MPI, parent.backend, timeout, comm)
        self.ranks = tuple(ranks)
        self.wrank = parent.rank
        self.closed = False
        if parent.nccl is not None:  # its own NCCL communicator (its own unique id)
            from ._nccl import NcclState
            self.nccl = NcclState(self, parent=parent.nccl)

    @property
    def broken(self):
        return self._broken or self.parent.broken

    @broken.setter
    def broken(self, why):
        self._broken = why
        if why is not None and self.parent.broken is None:
            self.parent.broken = why

    def describe(self):
        return f"the world ranks {list(self.ranks)}"

    def close(self):
        if self.broken is None and not self.closed:
            for work in list(self.pending):
                work.wait()
            if self.nccl is not None:
                self.nccl.close()
            self.comm.Free()
        self.closed = True
        if self in self.parent.subgroups:
            self.parent.subgroups.remove(self)

    def __repr__(self):
        return f"<pydevtensor.distributed group of world ranks {list(self.ranks)}>"


def is_non_member(given):
    return isinstance(given, int) and not isinstance(given, bool) and given == NON_GROUP_MEMBER


def resolve(what, given, default):
    """The group a group= argument names, for what (a ValueError on a rank that is not a
    member, a TypeError for anything but a group)."""
    why = None
    if is_non_member(given):
        why = ("this rank is not a member of the group (new_group() returned NON_GROUP_MEMBER "
               "here); call it only on the group's ranks")
    elif not isinstance(given, _SubGroup):
        why = (f"group must be None (the default group) or a group from new_group(), got "
               f"{type(given).__name__}")
    elif given.closed or given.parent is not default:
        why = f"{given!r} was destroyed"
    if why is not None:
        kind = TypeError if why.startswith("group must") else ValueError
        raise kind(f"{what} on rank {default.rank}: {why}")
    return given


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """A process group of the given world ranks (every rank if None), for the group=
    argument of the collectives.  Every rank of the default group must call it with the
    same ranks, as in PyTorch; a rank that is not in ranks gets NON_GROUP_MEMBER."""
    what = "new_group"
    g = _require(what)
    g.check_usable(what)
    seconds = g.timeout if timeout is None else _seconds(timeout)
    if ranks is None:
        ranks = range(g.size)
    ranks = list(ranks) if isinstance(ranks, (list, tuple, range)) else [ranks]
    if any(isinstance(r, bool) or not isinstance(r, (int, np.integer)) for r in ranks):
        raise TypeError(f"{what} on rank {g.rank}: ranks must be a list of int ranks, got "
                        f"{ranks!r}")
    ranks = [int(r) for r in ranks]
    if backend not in (None, "mpi", "gloo", g.backend) or len(set(ranks)) != len(ranks) \
            or any(not 0 <= r < g.size for r in ranks):
        raise ValueError(f"{what} on rank {g.rank}: ranks must be distinct world ranks in "
                         f"0 .. {g.size - 1} (got {ranks}) and backend None, 'mpi' or 'gloo' "
                         f"(got {backend!r})")
    if sort_ranks:
        ranks = sorted(ranks)
    # every rank must name the same ranks: a mismatch raises on every rank, not a hang
    everyone = g.comm.allgather(ranks)
    if any(other != ranks for other in everyone):
        raise ValueError(f"{what} on rank {g.rank}: the ranks passed different rank lists ("
                         + "; ".join(f"rank {r}: {lst}" for r, lst in enumerate(everyone))
                         + "); every rank must pass the same")
    member = g.rank in ranks
    comm = g.comm.Split(0 if member else g.MPI.UNDEFINED, ranks.index(g.rank) if member else 0)
    if not member:
        return NON_GROUP_MEMBER
    comm.Set_errhandler(g.MPI.ERRORS_RETURN)
    try:
        sub = _SubGroup(g, comm, ranks, seconds)
    except BaseException:
        comm.Free()
        raise
    assert sub.rank == ranks.index(g.rank) and sub.size == len(ranks), (sub.rank, ranks)
    g.subgroups.append(sub)
    return sub


def get_process_group_ranks(group):
    """The world ranks of group's members, in group-rank order."""
    return list(_require("get_process_group_ranks", group).ranks)



def get_global_rank(group, group_rank):
    """The world rank of group's rank group_rank."""
    g = _require("get_global_rank", group)
    if isinstance(group_rank, bool) or not isinstance(group_rank, (int, np.integer)) or not (
            0 <= group_rank < g.size):
        raise ValueError(f"get_global_rank: group_rank must be in 0 .. {g.size - 1}, got "
                         f"{group_rank!r}")
    return g.ranks[int(group_rank)]


def get_group_rank(group, global_rank):
    """group's rank of the world rank global_rank (a ValueError when it is not a
    member)."""
    g = _require("get_group_rank", group)
    local = g.local(global_rank) if isinstance(global_rank, (int, np.integer)) else None
    if local is None:
        raise ValueError(f"get_group_rank: rank {global_rank!r} is not a member of the group "
                         f"({g.describe()})")
    return local
