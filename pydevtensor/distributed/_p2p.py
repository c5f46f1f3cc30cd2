"""Point-to-point messages of pydevtensor.distributed: send, recv, isend, irecv (CPU
tensors, MPI_Isend / MPI_Irecv).  Each message is a small header (the sender's rank, the
element count, the dtype, the byte count) and then the data, so a receiver whose tensor
does not match raises a ValueError naming both sides instead of taking part of the bytes;
recv with src=None takes the first sender's message.  CUDA tensors (backend='nccl'): the
header still travels over MPI, the data by ncclSend / ncclRecv, which the receiver posts
once the header is in (a message that does not match is received into a scratch tensor,
so the sender's stream is not left waiting); NCCL receives from a named rank only, so
src is needed, as in PyTorch, and it matches one sender's messages in the order they were
sent, whatever their tags (PyTorch's NCCL backend ignores tags too): receive them in that
order.  Note [NCCL point-to-point] in _nccl.py.
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import zlib

import numpy as np

from .. import _C
from ._collectives import _MPI_DTYPES, _bits, _check_tensor, _dtype_name, _nbytes, _root
from ._group import Work, _require
from ._nccl import nccl_dtype

_NAMES = {zlib.crc32(name.encode()): name for name in _MPI_DTYPES}


def _checked(what, tensor, peer, alias, peer_name, tag, group, any_peer=False):
    """The group, the peer's rank in it (None: any) and the MPI tags (header, data) after
    the local checks, which raise here: no other rank takes part in checking a
    point-to-point call.  peer: a world rank; alias: a rank in group."""
    g = _require(what, group)
    g.check_usable(what)
    bad = _check_tensor(g, tensor, what)
    if bad is None and tensor.device.type == "cuda" and any_peer and peer is None and \
            alias is None:
        bad = ValueError(f"{what} on rank {g.wrank}: NCCL receives from a named rank only; "
                         f"give src (a tensor on {tensor.device})")
    if bad is not None:
        raise bad
    if tensor.device.type == "cuda":
        nccl_dtype(_dtype_name(tensor), g.wrank)  # TypeError before any message
    local = None
    if not (any_peer and peer is None and alias is None):
        local, bad = _root(g, what, peer_name, peer, alias)
        if bad is not None:
            raise bad
        if local == g.rank:
            raise ValueError(f"{what} on rank {g.wrank}: {peer_name} must be another rank "
                             f"than this process's own ({g.wrank})")
    top = (g.comm.Get_attr(g.MPI.TAG_UB) - 1) // 2
    if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)) or not 0 <= tag <= top:
        raise ValueError(f"{what} on rank {g.wrank}: tag must be an int in 0 .. {top}, "
                         f"got {tag!r}")
    return g, local, (2 * int(tag), 2 * int(tag) + 1)


def _header(g, t):
    return np.array([g.rank, t.numel(), zlib.crc32(_dtype_name(t).encode()), _nbytes(t)],
                    dtype=np.int64)


class _Both:
    """The requests of a header and its data as one (what Work tests)."""

    def __init__(self, MPI, requests):
        self._MPI, self._requests = MPI, requests

    def Test(self):
        return self._MPI.Request.Testall(self._requests)


def _waiting(g):
    """g's receives whose header has not come in, oldest first (Note [data in header
    order])."""
    waiting = getattr(g, "_p2p_waiting", None)
    if waiting is None:
        waiting = g._p2p_waiting = []
    return waiting


# Note [data in header order]
# A sender's messages to one rank arrive in order, and MPI matches the headers to the
# receives in the order they were posted; each data receive must then be posted in the
# order of the headers too, or the first data message goes to the receive that happens to
# be tested first (irecv(a), irecv(b), then b's wait() first: b got a's message, and a
# message of another size aborted the job as truncated).  So a receive, before it looks at
# its own header, moves every older receive of its group past its header.


class _Receive:
    """irecv's request: the header first, then the data from the header's sender (or,
    when the tensor does not match it, the data into a scratch buffer and an error)."""

    def __init__(self, g, tensor, src, tags):
        self._g, self._tensor, self._tags = g, tensor, tags
        self._head = np.zeros(4, dtype=np.int64)
        self._data, self.writeback = self._target(tensor)
        self._request = g.comm.Irecv(self._head, source=g.MPI.ANY_SOURCE if src is None
                                     else src, tag=tags[0])
        self._stage, self.error, self.source = 0, None, None
        _waiting(g).append(self)

    def _target(self, tensor):
        """(what the data's receive writes into, writeback or None)."""
        return _bits(tensor)

    def Test(self):
        if self._stage == 0:
            waiting = _waiting(self._g)
            for older in waiting[:waiting.index(self) + 1]:
                older._post_data()
            if self._stage == 0:
                return False
        return self._request.Test()

    def _post_data(self):
        """Once the header is in: the data's receive (Note [data in header order])."""
        if self._stage == 1 or not self._request.Test():
            return
        self._stage = 1
        _waiting(self._g).remove(self)
        sender, numel, code, nbytes = (int(v) for v in self._head)
        t, g = self._tensor, self._g
        self.source = g.ranks[sender]
        mine = _header(g, t)
        sent = _NAMES.get(code, "?")
        ok = numel == mine[1] and code == mine[2]
        if not ok:
            self.error = ValueError(
                f"recv on rank {g.wrank}: rank {self.source} sent {numel} {sent} elements "
                f"({nbytes} bytes), but this rank's tensor is {tuple(t.shape)} "
                f"{_dtype_name(t)} ({t.numel()} elements); the message was dropped")
        self._request = self._receive(sender, ok, numel, sent, nbytes)

    def _receive(self, sender, ok, numel, sent, nbytes):
        """The data's request: into the tensor when ok, else into a scratch buffer."""
        if not ok:
            self._data, self.writeback = np.empty(nbytes, dtype=np.uint8), None
        return self._g.comm.Irecv(self._data, source=sender, tag=self._tags[1])


class _Posted:
    """The request of data already on the device's stream (ncclSend / ncclRecv)."""

    def Test(self):  # noqa: N802 (mpi4py's name)
        return True


class _NcclReceive(_Receive):
    """irecv of a CUDA tensor: the header over MPI, then ncclRecv from its sender."""

    def _target(self, tensor):
        return None, None  # NCCL writes the tensor itself

    def _receive(self, sender, ok, numel, sent, nbytes):
        into = self._tensor
        if not ok:  # the sender's stream waits for a receive of its own size
            import pydevtensor  # sent: a dtype NCCL carries (the sender checked it)
            into = pydevtensor.empty(numel, dtype=getattr(pydevtensor, sent), device=into.device)
        self._g.nccl.exchange([(False, into, sender)], 0, False)
        return _Posted()


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending tensor to rank dst (a world rank; group_dst: a rank in group);
    returns a Work (the tensor must not change until its ``wait()``)."""
    g, peer, (htag, dtag) = _checked("isend", tensor, dst, group_dst, "dst", tag, group)
    head = _header(g, tensor)
    if tensor.device.type == "cuda":
        request = g.comm.Isend(head, peer, htag)
        g.nccl.exchange([(True, tensor, peer)], _nbytes(tensor), False)
        return Work(g, request, f"isend to rank {g.ranks[peer]}", (tensor, head))
    data, _ = _bits(tensor)
    _C._count_collective(_nbytes(tensor))
    both = _Both(g.MPI, [g.comm.Isend(head, peer, htag), g.comm.Isend(data, peer, dtag)])
    return Work(g, both, f"isend to rank {g.ranks[peer]}", (tensor, head, data))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving a message from rank src (a world rank; group_src: a rank in group;
    any rank when both are None) into tensor; returns a Work whose ``wait()`` raises
    ValueError when the message did not match tensor."""
    g, peer, tags = _checked("irecv", tensor, src, group_src, "src", tag, group, any_peer=True)
    receive = (_NcclReceive if tensor.device.type == "cuda" else _Receive)(g, tensor, peer, tags)
    _C._count_collective(0)

    def finish():
        if receive.error is not None:
            raise receive.error
        if receive.writeback is not None:
            receive.writeback()
    work = Work(g, receive, f"recv from rank {'any' if peer is None else g.ranks[peer]}",
                (tensor, receive), finish)
    work._receive = receive
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends tensor to rank dst and waits until MPI is done with it."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives a message from rank src (any rank when None) into tensor; returns the
    sender's world rank.  A message of another size or dtype raises ValueError (and is
    dropped)."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._receive.source
