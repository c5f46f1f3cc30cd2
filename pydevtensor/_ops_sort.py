"""Sorting and scans (issue 17): sort, argsort, topk, cumsum, with PyTorch's
signatures.  The kernels are the core's sort and cumsum along the last dim
(csrc/core/pdt_index.h; Note [sort order] in csrc/cpu/cpu_index.c: stable, NaN
largest); another dim is moved last and back.

sort and topk return ``(values, indices)`` as ``return_types.sort`` /
``return_types.topk`` (named tuples, like torch.return_types).
"""
import collections

from . import _C, _args
from ._args import flag
from ._ops_index import _basic_getitem, _dim, _int_arg, _tensor_arg
from ._ops_reduce import return_types
from ._out import _out_written, _outs_written
from ._numpy_names import numpy_names
from .autograd.dispatch import recorded

return_types.sort = collections.namedtuple("sort", ["values", "indices"])
return_types.topk = collections.namedtuple("topk", ["values", "indices"])
return_types.sort.__module__ = return_types.topk.__module__ = "pydevtensor.return_types"


def _along_last(input, dim, op, fn):
    """fn(input with dim moved last) -> tensors, each moved back and made contiguous."""
    _tensor_arg(input, op)
    dim = _int_arg(dim, op, "dim")
    if input.ndim == 0:
        _dim(dim, 0, op, input)
        return tuple(t.reshape(()) for t in fn(input.reshape(1)))
    d = _dim(dim, input.ndim, op, input)
    last = input.ndim - 1
    if d == last:
        return fn(input)
    return tuple(t.transpose(d, last).contiguous() for t in fn(input.transpose(d, last)))


@numpy_names
@recorded("sort")
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """The values of input sorted along dim, and their indices; the sort is always stable
    (equal values keep their order) and NaN sorts as the largest value.

    Parameters
    ----------
    input : Tensor
        The values to sort (also the method ``x.sort()``).
    dim : int, optional
        The dimension to sort along (default -1, the last).
    descending : bool, optional
        Largest first (default False).
    stable : bool or None, optional
        Accepted for PyTorch's signature (None as there); every sort is stable.
    out : tuple of two Tensors, optional
        (values, indices), written with the result and returned as the named tuple:
        values of input's dtype, int64 indices, on input's device, each of the result's
        shape or with no elements (then given the result's shape).

    Returns
    -------
    pydevtensor.return_types.sort
        (values, indices): values of input's dtype, int64 indices, both of input's shape.

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> x = pydevtensor.tensor([3., 1., 2., 1.])
    >>> pydevtensor.sort(x)
    sort(values=tensor([1., 1., 2., 3.]), indices=tensor([1, 3, 2, 0]))
    >>> x.sort(descending=True).values
    tensor([3., 2., 1., 1.])
    """
    descending = flag(descending, "sort", "descending")
    if stable is not None:  # PyTorch's sort takes a bool? stable (argsort's is a bool)
        flag(stable, "sort", "stable")
    if out is not None:
        return _outs_written(sort(input, dim, descending), out, "sort", return_types.sort)
    values, indices = _along_last(input, dim, "sort", lambda x: _C._sort(x, descending))
    return return_types.sort(values, indices)


@numpy_names
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort input along dim: ``sort(input, dim, descending).indices``.

    Parameters
    ----------
    input : Tensor
        The values to sort (also the method ``x.argsort()``).
    dim : int, optional
        The dimension to sort along (default -1, the last).
    descending : bool, optional
        Largest first (default False).
    stable : bool, optional
        Accepted for PyTorch's signature; every sort is stable.

    Returns
    -------
    Tensor
        int64 indices of input's shape.

    Raises
    ------
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> pydevtensor.argsort(pydevtensor.tensor([3., 1., 2., 1.]))
    tensor([1, 3, 2, 0])
    """
    descending = flag(descending, "argsort", "descending")
    flag(stable, "argsort", "stable")
    (indices,) = _along_last(input, dim, "argsort",
                             lambda x: _C._sort(x, descending)[1:])  # no gradient
    return indices


@numpy_names
@recorded("topk")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The k largest (or smallest) entries along dim and their indices, in sorted order
    (the stable sort's first k: a selection along the last dim of contiguous CPU
    tensors when k is small, else a full sort).  Equal values come in index order,
    on every device; PyTorch leaves their order unspecified (its CPU selection gives
    another, from how its partial sort splits), so only the values, and the set of
    indices short of ties at the k-th value, are the same as PyTorch's.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.topk(k)``).
    k : int
        How many, 0 <= k <= the size of dim.
    dim : int, optional
        The dimension to search (default -1, the last).
    largest : bool, optional
        The largest entries (default True) or the smallest.
    sorted : bool, optional
        Accepted for PyTorch's signature; the result is always sorted.
    out : tuple of two Tensors, optional
        (values, indices), written with the result and returned as the named tuple:
        values of input's dtype, int64 indices, on input's device, each of the result's
        shape or with no elements (then given the result's shape).

    Returns
    -------
    pydevtensor.return_types.topk
        (values, indices), with k entries along dim; indices are int64.

    Raises
    ------
    RuntimeError
        When k is out of range; for outs of another dtype, device or shape, or out=
        where input requires grad.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> x = pydevtensor.tensor([3., 1., 2., 1.])
    >>> pydevtensor.topk(x, 2)
    topk(values=tensor([3., 2.]), indices=tensor([0, 2]))
    >>> x.topk(2, largest=False).indices
    tensor([1, 3])
    """
    largest = flag(largest, "topk", "largest")
    flag(sorted, "topk", "sorted")
    if out is not None:
        return _outs_written(topk(input, k, dim, largest), out, "topk", return_types.topk)
    _tensor_arg(input, "topk")
    k = _int_arg(k, "topk", "k")
    d = _dim(_int_arg(dim, "topk", "dim"), input.ndim, "topk", input)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k={k}, size {size} of "
                           f"dim {d}, on {input.device})")
    if d == input.ndim - 1 and input.ndim:
        fast = _C._topk_rows(input, k, largest)  # selection, where the device has it
        if fast is not None:
            return return_types.topk(*fast)
    values, indices = sort(input, d, descending=largest)
    if input.ndim == 0:
        return return_types.topk(values, indices)
    item = (slice(None),) * d + (slice(0, k),)
    return return_types.topk(_basic_getitem(values, item).contiguous(),
                             _basic_getitem(indices, item).contiguous())


@numpy_names
@recorded("cumsum")
def cumsum(input, dim, *, dtype=None, out=None):
    """Running sums along dim.  Floating inputs keep their dtype (float32 and the half
    types accumulate in float64, each sum rounded once, on every device); integers and
    bool give int64.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.cumsum(dim)``).
    dim : int
        The dimension to sum along.
    dtype : pydevtensor.dtype, optional
        Converts input to this dtype first; the result has it (an integer one wraps).
    out : Tensor, optional
        Written with the result and returned: of its shape or with no elements (then
        given the result's shape), on input's device.  Without dtype, out's dtype is
        the one the sums are made in (input converted to it first, as dtype=out.dtype
        would), as PyTorch's; with dtype, out must have it.

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        For an out of another dtype than dtype=, of another device or shape, or out=
        where input requires grad.

    Examples
    --------
    >>> pydevtensor.cumsum(pydevtensor.tensor([1, 2, 3]), 0)
    tensor([1, 3, 6])
    """
    dtype = _args.dtype(dtype, "cumsum")
    if out is not None:
        if dtype is None and isinstance(out, _C.Tensor):
            dtype = out.dtype  # PyTorch sums in out's dtype
        return _out_written(cumsum(input, dim, dtype=dtype), out, "cumsum")
    if dtype is not None:
        input = input.to(dtype)
    # Note [cumsum in float64]: float32, float16 and bfloat16 accumulate in float64 on
    # every device (PyTorch's CPU accumulates float32 in double too), each running sum
    # rounded once to input's dtype: 10**6 float32 0.1's sum to 100000.0, not 100958.34,
    # and the CPU and CUDA agree.  The core widens and rounds (pdt_cumsum).
    (out,) = _along_last(input, dim, "cumsum", lambda x: (_C._cumsum(x),))
    # an integer dtype= is the result's, as PyTorch's (int8 wraps): the int64 sums,
    # converted, are the sums the narrower dtype would have wrapped to
    return out if dtype is None or out.dtype == dtype else out.to(dtype)


# Note [sorts without the layers]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# sort, argsort and topk pass through numpy_names, recorded, _along_last and the checks of
# dim and k: 1.4-4.7 us on three elements where the kernel takes 0.3-0.45 and NumPy's
# sort 0.7.  Along the last dim of a Tensor that requires no grad, with no keywords
# beyond the signature's, they call the kernels straight away; anything else (another
# dim, autograd, axis=, a k to check) takes the decorated functions above, with their
# errors: sort of three elements 1.8 -> 1.1 us, argsort 1.4 -> 0.9, topk 5.0 -> 2.1.
def _plain_last(input, dim):
    return (type(input) is _C.Tensor and type(dim) is int and input.ndim > 0
            and (dim == -1 or dim == input.ndim - 1) and not input.requires_grad)


_SORT_NAMES = ("input", "dim", "descending", "stable")
_TOPK_NAMES = ("input", "k", "dim", "largest", "sorted")


def _faster(general, fast, names):
    """general, with fast(args, kwargs) tried first when the call binds to the signature
    names (no more positional arguments than it has, each keyword a later parameter's: a
    review found sort(x, -1, dim=0) sorting along -1; not axis=, which numpy_names renames)
    and input (args[0]) and dim ask for the last dim of a tensor that requires no grad;
    fast returns None to decline."""
    dim_at = names.index("dim")

    def op(*args, **kwargs):
        if 0 < len(args) <= len(names) and (not kwargs or
                                            names[len(args):] and
                                            frozenset(names[len(args):]).issuperset(kwargs)):
            if _plain_last(args[0], _arg(args, kwargs, dim_at, "dim", -1)):
                out = fast(args, kwargs)
                if out is not None:
                    return out
        return general(*args, **kwargs)

    op.__name__, op.__qualname__, op.__doc__ = general.__name__, general.__qualname__, \
        general.__doc__
    op.__module__, op.__wrapped__ = general.__module__, getattr(general, "__wrapped__", general)
    return op


def _arg(args, kwargs, i, name, default):
    return args[i] if len(args) > i else kwargs.get(name, default)


def _descending(args, kwargs):
    """descending when it and stable are bools, else None: the general path then says
    which is not (flag)."""
    descending = args[2] if len(args) > 2 else kwargs.get("descending", False)
    if type(descending) is bool and type(_arg(args, kwargs, 3, "stable", False)) is bool:
        return descending
    return None


def _sort_fast(args, kwargs):
    descending = _descending(args, kwargs)
    return None if descending is None else return_types.sort(*_C._sort(args[0], descending))


def _argsort_fast(args, kwargs):
    descending = _descending(args, kwargs)
    return None if descending is None else _C._sort(args[0], descending)[1]


def _topk_fast(args, kwargs):
    if len(args) < 2:
        return None
    input, k = args[0], args[1]
    if type(k) is not int or not 0 <= k <= input.shape[-1]:
        return None  # the general path checks k and says what is wrong
    largest = args[3] if len(args) > 3 else kwargs.get("largest", True)
    if type(largest) is not bool or type(_arg(args, kwargs, 4, "sorted", True)) is not bool:
        return None  # the general path says which is not a bool
    fast = _C._topk_rows(input, k, largest)
    if fast is None:
        values, indices = _C._sort(input, largest)
        item = (Ellipsis, slice(0, k))
        fast = (_basic_getitem(values, item).contiguous(),
                _basic_getitem(indices, item).contiguous())
    return return_types.topk(*fast)


sort = _faster(sort, _sort_fast, _SORT_NAMES)
argsort = _faster(argsort, _argsort_fast, _SORT_NAMES)
topk = _faster(topk, _topk_fast, _TOPK_NAMES)

for _n, _f in (("sort", sort), ("argsort", argsort), ("topk", topk), ("cumsum", cumsum)):
    setattr(_C.Tensor, _n, _f)

__all__ = ["argsort", "cumsum", "sort", "topk"]
