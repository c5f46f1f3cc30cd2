"""The rooted and all-to-all collectives of pydevtensor.distributed: reduce, gather,
scatter (one rank's tensors), all_to_all_single and all_to_all, on CPU tensors through
MPI's nonblocking collectives and on CUDA tensors through NCCL (ncclReduce; ncclSend /
ncclRecv in one group for the others, pydevtensor/distributed/_nccl.py), each after the
agreement check of every rank's arguments.
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import numpy as np

from .. import _C
from ._collectives import (_averager, _begin, _bits, _check_list, _check_tensor, _dtype_name,
                           _fill, _mpi_op, _nbytes, _reducible, _root, _then)
from ._group import ReduceOp, _require, _start, check_agreement


def _begin_rooted(what, tensor, root, alias, label, given, group):
    """gather's / scatter's group and root after every rank's checks, among them the list
    argument: world_size tensors like tensor on the root, nothing elsewhere (PyTorch's
    ValueError)."""
    g = _require(what, group)
    name, kind = ("dst", "destination") if what == "gather" else ("src", "source")
    root, bad = _root(g, what, name, root, alias)
    if bad is None and isinstance(tensor, _C.Tensor):
        bad = _check_tensor(g, tensor, what) or \
            _only_on_root(g, what, label, given, root, tensor, kind)
    return _begin(what, tensor, bad, extra=0 if bad else root + 1, group=group), root


def _only_on_root(g, what, label, given, root, tensor, kind):
    if g.rank == root:
        if not given:
            return ValueError(f"{what} on rank {g.wrank}: {label} must be given on the "
                              f"{kind} rank ({root})")
        return _check_list(g, given, tensor, what, label)
    if given:
        return ValueError(f"{what} on rank {g.wrank}: {label} must not be given on a rank "
                          f"other than the {kind} rank ({root})")
    return None


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces tensor across every rank into rank dst's tensor, in place (the other
    ranks' tensors are left unchanged).  The ops of all_reduce."""
    g = _require("reduce", group)
    dst, bad = _root(g, "reduce", "dst", dst, group_dst)
    g = _begin("reduce", tensor, bad, extra=0 if bad else dst + 1, op=op, group=group)
    if tensor.device.type == "cuda":
        return g.nccl.reduce(tensor, dst, op, async_op)
    arr, writeback = _reducible(tensor)
    mpi_op = _mpi_op(g, op, tensor, "reduce")
    if g.rank == dst:
        _C._count_collective(0)

        def start():
            return g.comm.Ireduce(g.MPI.IN_PLACE, arr, mpi_op, root=dst)
        finish = _then(_averager(g, arr, op), writeback)
    else:
        _C._count_collective(_nbytes(tensor))

        def start():
            return g.comm.Ireduce(arr, None, mpi_op, root=dst)
        finish = None
    return _start(g, "reduce", start, (tensor, arr), finish, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Fills gather_list[r] on rank dst with rank r's tensor; the other ranks pass no
    gather_list."""
    g, dst = _begin_rooted("gather", tensor, dst, group_dst, "gather_list", gather_list,
                            group)
    if tensor.device.type == "cuda":
        return g.nccl.gather(tensor, gather_list, dst, async_op)
    src, _ = _bits(tensor)
    root = g.rank == dst
    recv = np.empty((g.size,) + src.shape, dtype=src.dtype) if root else None
    outs = list(gather_list) if root else []
    _C._count_collective(0 if root else _nbytes(tensor))
    return _start(g, "gather", lambda: g.comm.Igather(src, recv, root=dst),
                  (tensor, src, recv, outs), (lambda: _fill(outs, recv)) if root else None,
                  async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Copies scatter_list[r] of rank src into rank r's tensor; the other ranks pass no
    scatter_list."""
    g, src = _begin_rooted("scatter", tensor, src, group_src, "scatter_list",
                            scatter_list, group)
    if tensor.device.type == "cuda":
        return g.nccl.scatter(tensor, scatter_list, src, async_op)
    dst, writeback = _bits(tensor)
    root = g.rank == src
    send = np.stack([_bits(t)[0] for t in scatter_list]) if root else None
    _C._count_collective((g.size - 1) * _nbytes(tensor) if root else 0)
    return _start(g, "scatter", lambda: g.comm.Iscatter(send, dst, root=src),
                  (tensor, send, dst), writeback, async_op)


def _splits(g, what, label, sizes, rows):
    """A split-size list (rows of dim 0 per rank), checked, or (None, error)."""
    if sizes is None or len(sizes) == 0:
        if rows % g.size:
            return None, ValueError(f"{what} on rank {g.wrank}: {label} is None, so dim 0 "
                                    f"({rows}) must divide by world_size ({g.size})")
        return [rows // g.size] * g.size, None
    sizes = list(sizes)
    if len(sizes) != g.size or any(isinstance(s, bool) or not isinstance(s, (int, np.integer))
                                   or s < 0 for s in sizes) or sum(sizes) != rows:
        return None, ValueError(f"{what} on rank {g.wrank}: {label} must be world_size "
                                f"({g.size}) non-negative ints adding up to dim 0 ({rows}), "
                                f"got {sizes}")
    return [int(s) for s in sizes], None


def _pieces(t, rows):
    """t's consecutive blocks of rows[r] rows along dim 0 (views)."""
    starts = np.concatenate([[0], np.cumsum(rows)]).tolist()
    return [t[starts[r]:starts[r + 1]] for r in range(len(rows))]


def _exchange(g, what, tensor, bad, sends, recvs):
    """The agreement check (dtype and device only: the shapes may differ), then every
    rank's send and receive counts: rank i's send to j must be j's receive from i."""
    check_agreement(g, what, tensor, bad, same_shape=False)
    everyone = g.comm.allgather((sends, recvs))
    for i in range(g.size):
        for j in range(g.size):
            if everyone[i][0][j] != everyone[j][1][i]:
                raise ValueError(f"{what} on rank {g.wrank}: rank {i} sends {everyone[i][0][j]} "
                                 f"elements to rank {j}, which expects {everyone[j][1][i]} "
                                 f"from it; no data was exchanged")


def _alltoallv(g, what, send, sends, recv, recvs, holds, finish, async_op):
    soff = np.concatenate([[0], np.cumsum(sends)[:-1]]).astype(np.int64)
    roff = np.concatenate([[0], np.cumsum(recvs)[:-1]]).astype(np.int64)
    _C._count_collective((sum(sends) - sends[g.rank]) * send.itemsize)
    return _start(g, what, lambda: g.comm.Ialltoallv(
        [send, (sends, soff.tolist())], [recv, (recvs, roff.tolist())]),
        holds + (send, recv), finish, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Splits input along dim 0 (into world_size equal blocks, or input_split_sizes) and
    sends block j to rank j; output receives rank r's block for this rank at the r-th
    place (equal blocks, or output_split_sizes rows from each)."""
    what = "all_to_all_single"
    g = _require(what, group)
    g.check_usable(what)
    bad = None
    for label, t in (("output", output), ("input", input)):
        bad = bad or _check_tensor(g, t, what, label)
    if bad is None and (output.device != input.device or output.dtype != input.dtype
                        or output.dim() == 0 or input.dim() == 0
                        or output.shape[1:] != input.shape[1:]):
        bad = ValueError(f"{what} on rank {g.wrank}: output {tuple(output.shape)} "
                         f"{_dtype_name(output)} on {output.device} and input "
                         f"{tuple(input.shape)} {_dtype_name(input)} on {input.device} must "
                         f"have one dtype and device, at least one dim and the same sizes "
                         f"past dim 0")
    sends = recvs = None
    if bad is None:
        row = int(np.prod(tuple(input.shape[1:]), dtype=np.int64))
        ins, bad = _splits(g, what, "input_split_sizes", input_split_sizes, input.shape[0])
        outs, bad2 = _splits(g, what, "output_split_sizes", output_split_sizes,
                             output.shape[0])
        bad = bad or bad2
        if bad is None:
            sends, recvs = [s * row for s in ins], [s * row for s in outs]
    _exchange(g, what, output if isinstance(output, _C.Tensor) else None, bad, sends, recvs)
    if input.device.type == "cuda":
        return g.nccl.all_to_all(_pieces(output, outs), _pieces(input, ins), async_op)
    send, _ = _bits(input)
    recv, writeback = _bits(output)
    return _alltoallv(g, what, send.reshape(-1), sends, recv.reshape(-1), recvs,
                      (input, output), writeback, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Sends input_tensor_list[j] to rank j, which receives it in its
    output_tensor_list[r] (r: this rank); the tensors may differ in shape."""
    what = "all_to_all"
    g = _require(what, group)
    g.check_usable(what)
    bad, first = None, None
    for label, ts in (("output_tensor_list", output_tensor_list),
                      ("input_tensor_list", input_tensor_list)):
        if bad is None and (not isinstance(ts, (list, tuple)) or len(ts) != g.size):
            n = len(ts) if isinstance(ts, (list, tuple)) else type(ts).__name__
            bad = ValueError(f"{what} on rank {g.wrank}: {label} must be a list of world_size "
                             f"({g.size}) tensors, got {n}")
        for i, t in enumerate(ts if bad is None else ()):
            bad = _check_tensor(g, t, what, f"{label}[{i}]")
            first = t if first is None else first
            if bad is None and (t.dtype != first.dtype or t.device != first.device):
                bad = ValueError(f"{what} on rank {g.wrank}: {label}[{i}] is {_dtype_name(t)} on "
                                 f"{t.device}, but the first tensor is {_dtype_name(first)} on "
                                 f"{first.device}")
            if bad is not None:
                break
    sends = recvs = None
    if bad is None:
        sends = [t.numel() for t in input_tensor_list]
        recvs = [t.numel() for t in output_tensor_list]
    _exchange(g, what, first, bad, sends, recvs)
    if first.device.type == "cuda":
        return g.nccl.all_to_all(list(output_tensor_list), list(input_tensor_list), async_op)
    send = np.concatenate([_bits(t)[0].reshape(-1) for t in input_tensor_list])
    recv = np.empty(sum(recvs), dtype=send.dtype)
    outs = list(output_tensor_list)

    def finish():
        _fill(outs, np.split(recv, np.cumsum(recvs)[:-1]))
    return _alltoallv(g, what, send, sends, recv, recvs, (outs,), finish, async_op)
