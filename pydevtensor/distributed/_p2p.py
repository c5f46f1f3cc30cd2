"""Point-to-point messages of pydevtensor.distributed: send, recv, isend, irecv (CPU
tensors, MPI_Isend / MPI_Irecv).  Each message is a small header (the sender's rank, the
element count, the dtype, the byte count) and then the data, so a receiver whose tensor
does not match raises a ValueError naming both sides instead of taking part of the bytes;
recv with src=None takes the first sender's message.
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import zlib

import numpy as np

from .. import _C
from ._collectives import _MPI_DTYPES, _bits, _check_tensor, _dtype_name, _nbytes
from ._group import Work, _require

_NAMES = {zlib.crc32(name.encode()): name for name in _MPI_DTYPES}


def _checked(what, tensor, peer, peer_name, tag, any_peer=False):
    """The group and the MPI tags (header, data) after the local checks, which raise here:
    no other rank takes part in checking a point-to-point call."""
    g = _require(what)
    g.check_usable(what)
    bad = _check_tensor(g, tensor, what)
    if bad is None and tensor.device.type == "cuda":
        bad = RuntimeError(f"{what} on rank {g.rank}: CUDA tensors are not supported by "
                           f"{what} yet; got a tensor on {tensor.device}")
    if bad is not None:
        raise bad
    if not (any_peer and peer is None):
        if isinstance(peer, bool) or not isinstance(peer, (int, np.integer)) or not (
                0 <= peer < g.size):
            raise ValueError(f"{what} on rank {g.rank}: {peer_name} must be a rank in 0 .. "
                             f"{g.size - 1}, got {peer!r}")
        if peer == g.rank:
            raise ValueError(f"{what} on rank {g.rank}: {peer_name} must be another rank "
                             f"than this process's own ({g.rank})")
    top = (g.comm.Get_attr(g.MPI.TAG_UB) - 1) // 2
    if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)) or not 0 <= tag <= top:
        raise ValueError(f"{what} on rank {g.rank}: tag must be an int in 0 .. {top}, got "
                         f"{tag!r}")
    return g, 2 * int(tag), 2 * int(tag) + 1


def _header(g, t):
    return np.array([g.rank, t.numel(), zlib.crc32(_dtype_name(t).encode()), _nbytes(t)],
                    dtype=np.int64)


class _Both:
    """The requests of a header and its data as one (what Work tests)."""

    def __init__(self, MPI, requests):
        self._MPI, self._requests = MPI, requests

    def Test(self):
        return self._MPI.Request.Testall(self._requests)


class _Receive:
    """irecv's request: the header first, then the data from the header's sender (or,
    when the tensor does not match it, the data into a scratch buffer and an error)."""

    def __init__(self, g, tensor, src, tags):
        self._g, self._tensor, self._tags = g, tensor, tags
        self._head = np.zeros(4, dtype=np.int64)
        self._data, self.writeback = _bits(tensor)
        self._request = g.comm.Irecv(self._head, source=g.MPI.ANY_SOURCE if src is None
                                     else src, tag=tags[0])
        self._stage, self.error, self.source = 0, None, None

    def Test(self):
        if not self._request.Test():
            return False
        if self._stage == 1:
            return True
        self._stage = 1
        sender, numel, code, nbytes = (int(v) for v in self._head)
        self.source, t, g = sender, self._tensor, self._g
        mine = _header(g, t)
        if numel != mine[1] or code != mine[2]:
            sent = _NAMES.get(code, "?")
            self.error = ValueError(
                f"recv on rank {g.rank}: rank {sender} sent {numel} {sent} elements "
                f"({nbytes} bytes), but this rank's tensor is {tuple(t.shape)} "
                f"{_dtype_name(t)} ({t.numel()} elements); the message was dropped")
            self._data, self.writeback = np.empty(nbytes, dtype=np.uint8), None
        self._request = g.comm.Irecv(self._data, source=sender, tag=self._tags[1])
        return self.Test()


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending tensor to rank dst; returns a Work (the tensor must not change until
    its ``wait()``)."""
    dst = group_dst if dst is None else dst
    g, htag, dtag = _checked("isend", tensor, dst, "dst", tag)
    head, (data, _) = _header(g, tensor), _bits(tensor)
    _C._count_collective(_nbytes(tensor))
    both = _Both(g.MPI, [g.comm.Isend(head, dst, htag), g.comm.Isend(data, dst, dtag)])
    return Work(g, both, f"isend to rank {dst}", (tensor, head, data))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving a message from rank src (any rank when None) into tensor; returns
    a Work whose ``wait()`` raises ValueError when the message did not match tensor."""
    src = group_src if src is None else src
    g, htag, dtag = _checked("irecv", tensor, src, "src", tag, any_peer=True)
    receive = _Receive(g, tensor, src, (htag, dtag))
    _C._count_collective(0)

    def finish():
        if receive.error is not None:
            raise receive.error
        if receive.writeback is not None:
            receive.writeback()
    work = Work(g, receive, f"recv from rank {'any' if src is None else src}",
                (tensor, receive), finish)
    work._receive = receive
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends tensor to rank dst and waits until MPI is done with it."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives a message from rank src (any rank when None) into tensor; returns the
    sender's rank.  A message of another size or dtype raises ValueError (and is
    dropped)."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._receive.source
