"""Sorting and scans (issue 17): sort, argsort, topk, cumsum, with PyTorch's
signatures.  The kernels are the core's sort and cumsum along the last dim
(csrc/core/pdt_index.h; Note [sort order] in csrc/cpu/cpu_index.c: stable, NaN
largest); another dim is moved last and back.

sort and topk return ``(values, indices)`` as ``return_types.sort`` /
``return_types.topk`` (named tuples, like torch.return_types).
"""
import collections

from . import _C
from ._ops_index import _basic_getitem, _dim, _int_arg, _tensor_arg
from ._ops_reduce import return_types
from .autograd.dispatch import recorded

return_types.sort = collections.namedtuple("sort", ["values", "indices"])
return_types.topk = collections.namedtuple("topk", ["values", "indices"])
return_types.sort.__module__ = return_types.topk.__module__ = "pydevtensor.return_types"


def _along_last(input, dim, op, fn):
    """fn(input with dim moved last) -> tensors, each moved back and made contiguous."""
    _tensor_arg(input, op)
    dim = _int_arg(dim, op, "dim")
    if input.ndim == 0:
        _dim(dim, 0, op)
        return tuple(t.reshape(()) for t in fn(input.reshape(1)))
    d = _dim(dim, input.ndim, op)
    last = input.ndim - 1
    x = input if d == last else input.transpose(d, last)
    outs = fn(x)
    return tuple(t if d == last else t.transpose(d, last).contiguous() for t in outs)


@recorded("sort")
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) of input sorted along dim; always stable (equal values keep
    their order); NaN sorts as the largest value."""
    values, indices = _along_last(input, dim, "sort", lambda x: _C._sort(x, bool(descending)))
    return return_types.sort(values, indices)


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort input along dim (sort(...).indices)."""
    (indices,) = _along_last(input, dim, "argsort",
                             lambda x: _C._sort(x, bool(descending))[1:])  # no gradient
    return indices


@recorded("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the k largest (largest=False: smallest) entries along dim,
    in sorted order (a full sort underneath)."""
    _tensor_arg(input, "topk")
    k = _int_arg(k, "topk", "k")
    d = _dim(_int_arg(dim, "topk", "dim"), input.ndim, "topk")
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k={k}, size {size} of "
                           f"dim {d}, on {input.device})")
    values, indices = sort(input, d, descending=largest)
    if input.ndim == 0:
        return return_types.topk(values, indices)
    item = (slice(None),) * d + (slice(0, k),)
    return return_types.topk(_basic_getitem(values, item).contiguous(),
                             _basic_getitem(indices, item).contiguous())


@recorded("cumsum")
def cumsum(input, dim, *, dtype=None):
    """Running sums along dim: float inputs keep their dtype, integers and bool give
    int64 (or dtype=, applied to the input first)."""
    if dtype is not None:
        input = input.to(dtype)
    (out,) = _along_last(input, dim, "cumsum", lambda x: (_C._cumsum(x),))
    return out


for _n, _f in (("sort", sort), ("argsort", argsort), ("topk", topk), ("cumsum", cumsum)):
    setattr(_C.Tensor, _n, _f)

__all__ = ["argsort", "cumsum", "sort", "topk"]
