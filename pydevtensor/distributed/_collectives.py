"""The collectives of pydevtensor.distributed: all_reduce, broadcast, all_gather,
reduce_scatter (and the *_tensor forms).  CPU tensors go through MPI's nonblocking
collectives on views of their own memory (zero-copy); CUDA tensors through NCCL.
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import numpy as np

from .. import _C
from ._group import ReduceOp, _require, _start, check_agreement

# The dtypes the MPI path carries (by name; bool reduces with logical or / and).
# float16 and bfloat16 (MPI has no standard 16-bit float type) move as their 16-bit
# patterns where nothing is computed (broadcast, all_gather), and are reduced in float32
# and rounded once, as every op on them computes (Note [half precision arithmetic] in
# csrc/core/pdt_half.h): a float32 copy of the tensor goes through MPI instead of the
# tensor itself, so those reductions are not zero-copy.
_HALF = ("float16", "bfloat16")
_MPI_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32",
               "float64") + _HALF
_FLOATING = ("float32", "float64") + _HALF
_BITWISE = ("BAND", "BOR", "BXOR")


_NAMES = {}  # dtype -> its name without the module ("float32")


def _dtype_name(t):
    name = _NAMES.get(t.dtype)
    if name is None:
        name = _NAMES[t.dtype] = str(t.dtype).replace("pydevtensor.", "")
    return name


def _mpi_op(g, op, t, what):
    """The MPI reduction for op on t's dtype, or raises (the message names the rank)."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{what} on rank {g.wrank}: op must be a ReduceOp (SUM, AVG, PRODUCT, "
                        f"MAX, MIN, BAND, BOR, BXOR), got {op!r}")
    name = _dtype_name(t)
    MPI = g.MPI
    if op is ReduceOp.AVG and name not in _FLOATING:
        raise TypeError(f"{what} on rank {g.wrank}: ReduceOp.AVG needs a floating dtype, got a "
                        f"{name} tensor of shape {tuple(t.shape)}; use ReduceOp.SUM and divide")
    if op.name in _BITWISE:
        if name in _FLOATING:
            raise TypeError(f"{what} on rank {g.wrank}: ReduceOp.{op.name} needs an integer or "
                            f"bool dtype, got a {name} tensor of shape {tuple(t.shape)}")
        if t.device.type == "cuda":
            raise ValueError(f"{what} on rank {g.wrank}: ReduceOp.{op.name} is not supported "
                             f"for CUDA tensors (NCCL has no bitwise reductions), as in PyTorch")
    if name in _FLOATING and op in (ReduceOp.MAX, ReduceOp.MIN):
        return _nan_propagating(MPI)[op]
    if name == "bool":
        return {ReduceOp.MIN: MPI.LAND, ReduceOp.PRODUCT: MPI.LAND, ReduceOp.BAND: MPI.LAND,
                ReduceOp.BXOR: MPI.LXOR}.get(op, MPI.LOR)
    ops = getattr(g, "_mpi_ops", None)
    if ops is None:
        ops = g._mpi_ops = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM,
                            ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MAX: MPI.MAX,
                            ReduceOp.MIN: MPI.MIN, ReduceOp.BAND: MPI.BAND,
                            ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}
    return ops[op]


_NAN_OPS = {}


def _nan_propagating(MPI):
    """MAX and MIN of floats that keep a NaN, as torch.maximum / torch.minimum: MPI's
    built-in MAX compares with > and drops a NaN that meets a number (so does PyTorch's
    gloo: [nan, 1] and [1, nan] gave [1, nan] or [nan, 1] by rank order).  User-defined
    MPI ops over NumPy's maximum / minimum; 4 M float32 reduce as fast as MPI.MAX."""
    if not _NAN_OPS:
        def make(ufunc):
            def combine(inbuf, inoutbuf, datatype):
                dtype = np.float64 if datatype == MPI.DOUBLE else np.float32
                ufunc(np.frombuffer(inbuf, dtype=dtype), np.frombuffer(inoutbuf, dtype=dtype),
                      out=np.frombuffer(inoutbuf, dtype=dtype))
            return MPI.Op.Create(combine, commute=True)
        _NAN_OPS.update({ReduceOp.MAX: make(np.maximum), ReduceOp.MIN: make(np.minimum)})
    return _NAN_OPS


def _check_tensor(g, t, what, label="tensor"):
    """Local checks of one tensor argument; returns an exception or None."""
    if not isinstance(t, _C.Tensor):
        return TypeError(f"{what} on rank {g.wrank}: {label} must be a pydevtensor Tensor, got "
                         f"{type(t).__name__}")
    if t.device.type == "cuda":
        if g.nccl is None:
            return RuntimeError(f"{what} on rank {g.wrank}: {label} is on {t.device}, but the "
                                f"process group's backend is {g.backend!r}, which carries CPU "
                                f"tensors; use init_process_group('nccl') for CUDA tensors")
    elif _dtype_name(t) not in _MPI_DTYPES:
        return TypeError(f"{what} on rank {g.wrank}: {label} has dtype {_dtype_name(t)}, which "
                         f"MPI does not reduce; supported: {list(_MPI_DTYPES)}")
    if not t.is_contiguous() and t.device.type == "cuda":
        return ValueError(f"{what} on rank {g.wrank}: {label} (shape {tuple(t.shape)} on "
                          f"{t.device}) is not contiguous; call .contiguous() first")
    if any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride())):
        # its writeback (_own) would fail after MPI, on the ranks that receive only, and
        # once some of an output list was written
        return ValueError(f"{what} on rank {g.wrank}: {label} (shape {tuple(t.shape)}, "
                          f"strides {tuple(t.stride())} on {t.device}) has elements that share "
                          f"memory (an expanded tensor); call .clone() first")
    return None


def _check_list(g, ts, like, what, label):
    if not isinstance(ts, (list, tuple)) or len(ts) != g.size:
        n = len(ts) if isinstance(ts, (list, tuple)) else type(ts).__name__
        return ValueError(f"{what} on rank {g.wrank}: {label} must be a list of world_size "
                          f"({g.size}) tensors, got {n}")
    for i, t in enumerate(ts):
        err = _check_tensor(g, t, what, f"{label}[{i}]")
        if err is None and (tuple(t.shape) != tuple(like.shape) or t.dtype != like.dtype
                            or t.device != like.device):
            err = ValueError(f"{what} on rank {g.wrank}: {label}[{i}] is {tuple(t.shape)} "
                             f"{_dtype_name(t)} on {t.device}, but the tensor is "
                             f"{tuple(like.shape)} {_dtype_name(like)} on {like.device}")
        if err is not None:
            return err
    return None


def _own(t):
    """(t, None) when t is contiguous, else (a contiguous copy, writeback into t): MPI
    moves contiguous memory; a strided tensor is reduced or written through a copy."""
    if t.is_contiguous():
        return t, None
    copy = t.contiguous()

    def writeback():
        t.copy_(copy)
    return copy, writeback


def _bits(t):
    """(a view of t's memory for MPI to move, writeback or None): 16-bit floats as
    their bit patterns; a strided tensor through a contiguous copy."""
    plain, writeback = _own(t.detach())
    arr = np.asarray(plain._buffer())  # bfloat16: its uint16 bits
    return (arr.view(np.uint16) if _dtype_name(t) in _HALF else arr), writeback


def _reducible(t):
    """(array MPI reduces, writeback or None): t's own memory, or for a 16-bit float
    (or a strided tensor) a float32 (contiguous) copy whose result is written back into t
    once MPI is done."""
    plain = t.detach()  # a loss kept for logging may require grad: its values are reduced
    if _dtype_name(t) not in _HALF:
        own, writeback = _own(plain)
        return np.asarray(own), writeback
    wide = plain.float().contiguous()

    def writeback():
        plain.copy_(wide)
    return wide.numpy(), writeback


def _fill(outs, pieces):
    """Writes pieces[r] (their bits, any shape of the same size) into the tensor outs[r]."""
    for out, piece in zip(outs, pieces):
        dst, writeback = _bits(out)
        dst[...] = piece.reshape(dst.shape)
        if writeback is not None:
            writeback()


def _then(*steps):
    steps = [s for s in steps if s is not None]
    if not steps:
        return None

    def run():
        for step in steps:
            step()
    return run


def _nbytes(t):
    return t.numel() * t.element_size()


def _root(g, what, name, value, alias=None):
    """(group rank, None) of a root given as a world rank (value, PyTorch's src / dst) or
    as a rank in the group (alias, group_src / group_dst), or (None, a ValueError)."""
    local, shown = None, value if value is not None else alias
    if not isinstance(shown, bool) and isinstance(shown, (int, np.integer)):
        if value is not None:
            local = g.local(int(value))
        elif 0 <= alias < g.size:
            local = int(alias)
    if local is None:
        return None, ValueError(f"{what} on rank {g.wrank}: {name} must be a rank of the "
                                f"group ({g.describe()}), got {shown!r}")
    return local, None


def _begin(what, tensor, local_error=None, extra=0, op=None, group=None):
    """The group, after the local checks and the agreement of every rank."""
    g = _require(what, group)
    g.check_usable(what)
    if local_error is None and isinstance(tensor, _C.Tensor):
        local_error = _check_tensor(g, tensor, what)
        if local_error is None and op is not None:
            try:
                _mpi_op(g, op, tensor, what)
            except (TypeError, ValueError) as exc:  # raised on every rank, after the check
                local_error = exc
    check_agreement(g, what, tensor if isinstance(tensor, _C.Tensor) else None,
                    local_error if isinstance(tensor, _C.Tensor) else
                    (local_error or _check_tensor(g, tensor, what)), extra)
    return g


def _averager(g, arr, op):
    if op is not ReduceOp.AVG:
        return None

    def finish():
        np.divide(arr, g.size, out=arr)
    return finish


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces tensor across every rank in place: every rank ends up holding the
    result (SUM, AVG for floating dtypes, PRODUCT, MAX, MIN)."""
    g = _begin("all_reduce", tensor, op=op, group=group)
    if tensor.device.type == "cuda":
        return g.nccl.all_reduce(tensor, op, async_op)
    arr, writeback = _reducible(tensor)
    _C._count_collective(2 * (g.size - 1) * _nbytes(tensor) // g.size)
    mpi_op = _mpi_op(g, op, tensor, "all_reduce")
    return _start(g, "all_reduce", lambda: g.comm.Iallreduce(g.MPI.IN_PLACE, arr, mpi_op),
                  (tensor, arr), _then(_averager(g, arr, op), writeback), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies rank src's tensor into tensor on every other rank (src: a world rank;
    group_src: a rank in group)."""
    g = _require("broadcast", group)
    src, bad = _root(g, "broadcast", "src", src, group_src)
    g = _begin("broadcast", tensor, bad, extra=(src + 1) if bad is None else 0, group=group)
    if tensor.device.type == "cuda":
        return g.nccl.broadcast(tensor, src, async_op)
    arr, writeback = _bits(tensor)
    _C._count_collective(_nbytes(tensor) if g.rank == src and g.size > 1 else 0)
    return _start(g, "broadcast", lambda: g.comm.Ibcast(arr, root=src), (tensor, arr),
                  writeback, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's input_tensor into output_tensor (world_size times as many
    elements, rank r's at the r-th place), zero-copy."""
    g = _require("all_gather_into_tensor", group)
    bad = _check_tensor(g, output_tensor, "all_gather_into_tensor", "output_tensor")
    if bad is None and isinstance(input_tensor, _C.Tensor) and (
            output_tensor.numel() != g.size * input_tensor.numel()
            or output_tensor.dtype != input_tensor.dtype
            or output_tensor.device != input_tensor.device):
        bad = ValueError(f"all_gather_into_tensor on rank {g.wrank}: output_tensor "
                         f"{tuple(output_tensor.shape)} {_dtype_name(output_tensor)} on "
                         f"{output_tensor.device} must hold world_size ({g.size}) times the "
                         f"input {tuple(input_tensor.shape)} {_dtype_name(input_tensor)} on "
                         f"{input_tensor.device}")
    g = _begin("all_gather_into_tensor", input_tensor, bad, group=group)
    if input_tensor.device.type == "cuda":
        return g.nccl.all_gather(output_tensor, input_tensor, async_op)
    src, _ = _bits(input_tensor)
    dst, writeback = _bits(output_tensor)
    _C._count_collective((g.size - 1) * _nbytes(input_tensor))
    return _start(g, "all_gather_into_tensor", lambda: g.comm.Iallgather(src, dst),
                  (input_tensor, output_tensor, src, dst), writeback, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills tensor_list[r] with rank r's tensor, on every rank."""
    g = _require("all_gather", group)
    bad = (_check_list(g, tensor_list, tensor, "all_gather", "tensor_list")
           if isinstance(tensor, _C.Tensor) else None)
    g = _begin("all_gather", tensor, bad, group=group)
    if tensor.device.type == "cuda":
        return g.nccl.all_gather_list(tensor_list, tensor, async_op)
    src, _ = _bits(tensor)
    recv = np.empty((g.size,) + src.shape, dtype=src.dtype)
    outs = list(tensor_list)

    def finish():
        _fill(outs, recv)
    _C._count_collective((g.size - 1) * _nbytes(tensor))
    return _start(g, "all_gather", lambda: g.comm.Iallgather(src, recv),
                  (tensor, src, recv, outs), finish, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces input (world_size times output's elements) across ranks and leaves the
    r-th block of the result in rank r's output, zero-copy."""
    g = _require("reduce_scatter_tensor", group)
    bad = _check_tensor(g, input, "reduce_scatter_tensor", "input")
    if bad is None and isinstance(output, _C.Tensor) and (
            input.numel() != g.size * output.numel() or output.dtype != input.dtype
            or output.device != input.device):
        bad = ValueError(f"reduce_scatter_tensor on rank {g.wrank}: input {tuple(input.shape)} "
                         f"{_dtype_name(input)} on {input.device} must hold world_size "
                         f"({g.size}) times the output {tuple(output.shape)} "
                         f"{_dtype_name(output)} on {output.device}")
    g = _begin("reduce_scatter_tensor", output, bad, op=op, group=group)
    if output.device.type == "cuda":
        return g.nccl.reduce_scatter(output, input, op, async_op)
    src, _ = _reducible(input)
    dst, writeback = _reducible(output)
    mpi_op = _mpi_op(g, op, output, "reduce_scatter_tensor")
    _C._count_collective((g.size - 1) * _nbytes(output))
    return _start(g, "reduce_scatter_tensor",
                  lambda: g.comm.Ireduce_scatter_block(src, dst, mpi_op),
                  (input, output, src, dst), _then(_averager(g, dst, op), writeback), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces input_list[r] across ranks into rank r's output."""
    g = _require("reduce_scatter", group)
    bad = (_check_list(g, input_list, output, "reduce_scatter", "input_list")
           if isinstance(output, _C.Tensor) else None)
    g = _begin("reduce_scatter", output, bad, op=op, group=group)
    if output.device.type == "cuda":
        return g.nccl.reduce_scatter_list(output, input_list, op, async_op)
    # MPI takes one send buffer: the blocks are gathered into it (host memory, no
    # device copy)
    src = np.concatenate([_reducible(t)[0].reshape(-1) for t in input_list])
    dst, writeback = _reducible(output)
    mpi_op = _mpi_op(g, op, output, "reduce_scatter")
    _C._count_collective((g.size - 1) * _nbytes(output))
    return _start(g, "reduce_scatter", lambda: g.comm.Ireduce_scatter_block(src, dst, mpi_op),
                  (output, src, dst), _then(_averager(g, dst, op), writeback), async_op)
