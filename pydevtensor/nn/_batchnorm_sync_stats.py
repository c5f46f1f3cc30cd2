"""SyncBatchNorm's training forward over the processes of a group: the batch statistics
of every process's input, through two differentiable all-reduces.

Note [batch statistics across processes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Process r holds n_r values per channel (the n_r may differ, and be 0).  The mean over
all N = sum n_r values is one all-reduce of (the per-channel sums, n_r); the biased
variance a second one, of the per-channel sums of (x - mean)^2, centred on the mean of
the whole batch (as exact as one process's two-pass variance).  PyTorch all-gathers each
process's (mean, invstd, count) once and combines them; this costs one collective more,
of C numbers.

Both all-reduces are differentiable (AllReduceSum: the gradient of a sum over the
processes is the sum over the processes of the gradients), so the gradient of each
process's input is its slice of the whole batch's gradient with no backward written by
hand.  The graphs are the same on every process, so the engine runs the two backward
all-reduces in the same order everywhere.  The weight and bias get this process's part
of their gradient, as PyTorch's (DistributedDataParallel sums the parts).

N is read on the host (an explicit copy from a GPU, as PyTorch's reads its counts): a
total of one value per channel is refused on every process alike, before anything
changes (PyTorch divides by N - 1 = 0 into running_var).  The counts travel in the sums'
dtype (float32 for float32 and the half types): exact up to 2^24 values per channel.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from .._ops_join import cat
from ..autograd.function import Function
from . import _functional_norm as FN

if TYPE_CHECKING:
    from .._C import Tensor


class AllReduceSum(Function):
    """The sum over the processes of group of t (a new tensor), differentiable: its
    backward is the sum over the processes of the gradients."""

    @staticmethod
    def forward(ctx: Any, t: Tensor, group: Any) -> Tensor:
        from .. import distributed as dist
        ctx.group = group
        out = t.clone()
        dist.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from .. import distributed as dist
        g = g.clone()  # contiguous, and not a buffer the engine still adds into
        dist.all_reduce(g, group=ctx.group)
        return g, None


def group_size(group: Any) -> int:
    """The number of processes of group (None: the world's) in an initialised process
    group, else 1."""
    from .. import distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return 1
    return dist.get_world_size(group)


def sync_batch_norm(module: Any, input: Tensor, group: Any, size: int) -> Tensor:
    """module's (a SyncBatchNorm's) training forward over the size processes of group
    (Note [batch statistics across processes]); input already checked."""
    c, ndim = input.shape[1], input.ndim
    dims = (0,) + tuple(range(2, ndim))
    x = input.to(FN._wide(input.dtype))
    n = input.numel() // c
    count = _C.full((1,), float(n), dtype=x.dtype, device=x.device)
    total = AllReduceSum.apply(cat([x.sum(dim=dims), count]), group)
    big_n = int(round(_C._implicit_cpu(total.detach()[c:], "SyncBatchNorm").item()))
    if big_n <= 1:
        raise ValueError(f"{type(module).__name__}: Expected more than 1 value per channel "
                         f"when training, got {big_n} over the {size} processes of the "
                         f"group (this process's input: shape {tuple(input.shape)}, on "
                         f"{input.device})")
    mean = total[:c] / big_n
    centred = x - FN._per_channel(mean, ndim)
    var = AllReduceSum.apply((centred * centred).sum(dim=dims), group) / big_n
    factor = module._count_batch()
    if module.track_running_stats and module.running_mean is not None:
        FN.update_running(module.running_mean, module.running_var, mean, var, big_n,
                          factor)
    weight, bias = module.weight, module.bias
    return FN._scale_shift(
        centred / _C.sqrt(FN._per_channel(var, ndim) + module.eps),
        None if weight is None else FN._per_channel(weight, ndim).to(x.dtype),
        None if bias is None else FN._per_channel(bias, ndim).to(x.dtype)).to(input.dtype)
