"""Reductions and elementwise ops that take care of NaN and infinities: logsumexp,
logaddexp, nan_to_num (and nan_to_num_), nansum, nanmean, count_nonzero.

Each is a composition of existing ops (amax, exp, log, log1p, where, masked_fill, sum),
so it runs on every device without a copy to the host, and autograd records the
pieces: logsumexp's gradient is the softmax, nan_to_num's 1 where the value is kept and
0 where it is replaced.  logaddexp is a C op (Note [float binary functions] in
csrc/core/pdt_elementwise.c; its gradient, the sigmoid of the difference:
autograd/derivatives.py), re-exported here.
"""
import builtins
import math

from . import _C, _args
from ._args import flag
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg, _tensor_arg, where
from ._ops_shortcuts import _floating as _as_floating
from ._out import _out_written, refuse_grad, takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

# the largest finite value of each floating dtype (nan_to_num's default for +inf)
_FLOAT_MAX = {_C.float16: 65504.0, _C.bfloat16: 3.3895313892515355e38,
              _C.float32: 3.4028234663852886e38, _C.float64: 1.7976931348623157e308}


def _dims(dim, ndim, op, of=None):
    """dim (None, an int or a sequence of ints; NumPy integers and one-element integer
    tensors are ints) as a sorted tuple of non-negative dims; None and () are every dim.
    A 0-d input takes 0 and -1 (and gives ()).  of: the tensor, as _dim's."""
    if dim is None:
        return tuple(range(ndim))
    one = isinstance(dim, _C.Tensor) or (hasattr(dim, "__index__")
                                         and not hasattr(dim, "__len__"))
    items = (dim,) if one else dim
    try:
        items = tuple(items)
    except TypeError:
        raise TypeError(f"{op}(): dim must be an int or a tuple of ints, got "
                        f"{type(dim).__name__}") from None
    out = []
    for d in items:
        try:  # a NumPy integer or a one-element integer tensor too, as PyTorch takes them
            d = _int_arg(d, op, "dim")
        except TypeError:
            raise TypeError(f"{op}(): dim must be an int or a tuple of ints, got "
                            f"{type(d).__name__} in it") from None
        d = _dim(d, ndim, op, of)
        if d in out:
            raise RuntimeError(f"{op}(): dim {d} appears more than once in {dim}")
        out.append(d)
    if ndim == 0:
        return ()
    return tuple(sorted(out)) if out else tuple(range(ndim))


def _reduced_shape(shape, dims, keepdim):
    return tuple(1 if i in dims else s for i, s in enumerate(shape)
                 if keepdim or i not in dims)


@takes_out("logsumexp", castable=True)
@numpy_names
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over dim, computed stably as
    ``m + log(sum(exp(input - m)))`` with m the maximum (taken as 0 where it is
    infinite, so a row of -inf gives -inf and a row holding +inf gives +inf).

    Parameters
    ----------
    input : Tensor
        Any dtype; bools and integers give float32 (also the method
        ``x.logsumexp(dim)``).
    dim : int or tuple of ints
        The dims to reduce; () reduces every dim.
    keepdim : bool, optional
        Keep the reduced dims, with size 1 (default False).

    Returns
    -------
    Tensor
        A floating tensor; -inf where the reduced dims are empty.  Its gradient is
        ``softmax(input)`` over dim.

    Raises
    ------
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0.0, 0.0], [1000.0, 1000.0]], dtype=pydevtensor.float64)
    >>> pydevtensor.logsumexp(x, 1) - x[:, 0]  # log(2) above each row's value
    tensor([0.6931, 0.6931], dtype=pydevtensor.float64)
    >>> pydevtensor.logsumexp(pydevtensor.tensor([-float("inf")] * 2), 0)
    tensor(-inf)
    """
    x = _as_floating(_tensor_arg(input, "logsumexp"))
    dims = _dims(dim, x.ndim, "logsumexp", x)
    return _logsumexp(x, tuple(dims), flag(keepdim, "logsumexp", "keepdim"))


@recorded("logsumexp")
def _logsumexp(x, dims, keepdim):
    """logsumexp's values, shifted by the maximum (so it never overflows), recorded as
    one LogsumexpBackward0."""
    if x.ndim == 0:
        m = x.masked_fill(x.isinf(), 0.0)
        return (x - m).exp().log() + m
    if any(x.shape[d] == 0 for d in dims):  # an empty sum: log(0) = -inf
        return x.sum(dims, keepdim=keepdim) - math.inf
    m = x.amax(dims, keepdim=True)
    m = m.masked_fill(m.isinf(), 0.0)
    s = (x - m).exp().sum(dims, keepdim=keepdim).log()
    return s + (m if keepdim else m.reshape(_reduced_shape(tuple(x.shape), dims, False)))


@derivative("logsumexp")
class LogsumexpBackward0(Node):
    """PyTorch's logsumexp_backward: g * exp(x - result), result broadcast back over the
    reduced dims.  A result of +inf gives 0 to every finite x (the composed form took
    exp(x) * (1 / inf): NaN for an x whose exp overflows, 1000 in float32)."""

    def save(self, result, x, dims, keepdim):
        self.dims, self.keepdim = dims, keepdim
        self.save_tensors(x, result.detach(), outputs=(1,))
        return (x,)

    def backward(self, g):
        x, y = self.saved_tensors
        if not self.keepdim and x.ndim:
            shape = list(x.shape)
            for d in self.dims:
                shape[d] = 1
            g, y = g.reshape(shape), y.reshape(shape)
        return (g * (x - y).exp(),)


@recorded("_nan_zeroed")
def _nan_zeroed(x):
    """x with 0 for NaN (nansum's summand), recorded as one NanZeroedBackward."""
    return x.masked_fill(x.isnan(), 0.0)


@derivative("_nan_zeroed")
class NanZeroedBackward(Node):
    """PyTorch's nansum backward: ``g * ~isnan(x)``, a product, so that an infinite g
    gives NaN at a NaN x (nanmean of an all-NaN slice: g / 0, NaN for each element, as
    PyTorch's; masked_fill's select gave 0)."""

    def save(self, result, x):
        self.save_tensors(x)
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (x == x).to(g.dtype),)


logaddexp = _C.logaddexp  # a C op: Note [float binary functions] (pdt_elementwise.c)


def _replacement(value, default, name):
    value = _args.number(value)
    if value is None:
        return default
    if isinstance(value, builtins.bool) or not isinstance(value, (builtins.int, builtins.float)):
        raise TypeError(f"nan_to_num(): {name} must be a number or None, got "
                        f"{type(value).__name__}")
    return float(value)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """input with NaN replaced by nan, +inf by posinf and -inf by neginf.

    Parameters
    ----------
    input : Tensor
        Any dtype; bool and integer tensors hold no NaN or inf and come back as a copy
        (also the method ``x.nan_to_num()``).
    nan : float, optional
        The value for NaN (default 0).
    posinf : float, optional
        The value for +inf (default: the dtype's largest finite value).
    neginf : float, optional
        The value for -inf (default: the dtype's most negative finite value).
    out : Tensor, optional
        Written with the result and returned: of input's dtype (as PyTorch's) and
        device, and input's shape or no elements (then given it); refused where input
        requires grad.

    Returns
    -------
    Tensor
        A new tensor of input's shape, dtype and device; the gradient is 1 where the
        value is kept, 0 where it is replaced.  ``nan_to_num_`` writes into input.

    Raises
    ------
    RuntimeError
        For an out of another dtype, device or shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    >>> pydevtensor.nan_to_num(x, posinf=9.0, neginf=-9.0)
    tensor([ 0.0000,  9.0000, -9.0000,  1.5000])
    >>> pydevtensor.nan_to_num(x)[1].item()
    3.4028234663852886e+38
    """
    if out is not None:
        refuse_grad("nan_to_num", input)
        return _out_written(nan_to_num(input, nan, posinf, neginf), out, "nan_to_num")
    _tensor_arg(input, "nan_to_num")
    if not input.is_floating_point():
        for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
            _replacement(v, 0.0, name)
        return input.clone()
    big = _FLOAT_MAX[input.dtype]
    nan = _replacement(nan, 0.0, "nan")
    posinf = _replacement(posinf, big, "posinf")
    neginf = _replacement(neginf, -big, "neginf")
    # each number rounded to the dtype first: past its range it is inf (posinf=1e5 on
    # float16, 1e39 on float32), as in PyTorch, not refused as a written value would be
    nan, posinf, neginf = (_C.full((), v, dtype=_C.float64).to(input.dtype).item()
                           for v in (nan, posinf, neginf))
    out = where(input.isnan(), nan, input)
    out = where(input == math.inf, posinf, out)
    return where(input == -math.inf, neginf, out)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place ``nan_to_num``: input takes ``nan_to_num(input, nan, posinf, neginf)``.

    Parameters
    ----------
    input : Tensor
        Written into (also the method ``x.nan_to_num_()``).
    nan, posinf, neginf : float, optional
        As for ``nan_to_num``.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> x = pydevtensor.tensor([float("nan"), 2.0])
    >>> _ = x.nan_to_num_(nan=-1.0)
    >>> x
    tensor([-1.,  2.])
    """
    out = nan_to_num(input, nan, posinf, neginf)
    if input.is_floating_point():
        input.copy_(out)
    return input


@numpy_names
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """The sum over dim, with NaN counted as zero.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.nansum()``); sums of bools and integers are int64,
        as sum's.
    dim : int or tuple of ints, optional
        The dims to reduce (default: every one).
    keepdim : bool, optional
        Keep the reduced dims, with size 1 (default False).
    dtype : pydevtensor.dtype, optional
        Converts input to this dtype first, and the sum is of it.
    out : Tensor, optional
        Written with the result (of its shape and device), and returned. Without dtype
        the sum is computed in out's dtype, as sum's (an int32 input into an int32 out);
        a floating input into an integer or bool out is refused (NotImplementedError).

    Returns
    -------
    Tensor
        0 where every element is NaN (or none is left).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1.0, float("nan")], [float("nan"), float("nan")]])
    >>> pydevtensor.nansum(x), x.nansum(1)
    (tensor(1.), tensor([1., 0.]))
    """
    x = _tensor_arg(input, "nansum")
    keepdim = flag(keepdim, "nansum", "keepdim")
    dtype = _args.dtype(dtype, "nansum")
    if out is not None:
        return _nansum_out(x, dim, keepdim, dtype, out)
    if dtype is not None:
        x = x.to(dtype)
    dims = _dims(dim, x.ndim, "nansum", x)
    if x.is_floating_point():
        x = _nan_zeroed(x)
    if x.ndim == 0:
        return x.sum(dtype=dtype)
    return x.sum(dims, keepdim=keepdim, dtype=dtype)  # dtype kept: sum would widen ints


def _nansum_out(x, dim, keepdim, dtype, out):
    """nansum(..., out=out): computed in out's dtype without dtype, as PyTorch's."""
    if not isinstance(out, _C.Tensor):
        raise TypeError(f"nansum(): argument 'out' must be a Tensor, got {type(out).__name__}")
    refuse_grad("nansum", x, out)
    if dtype is None:
        dtype = out.dtype
        if x.is_floating_point() and not (out.is_floating_point() or out.is_complex()):
            raise NotImplementedError(f"nansum(): a {x.dtype} input into a {out.dtype} out "
                                      f"(of shape {tuple(out.shape)} on {out.device}): NaN "
                                      f"has no value there; give a floating out")
    return _out_written(nansum(x, dim, keepdim, dtype=dtype), out, "nansum")


@numpy_names
@takes_out("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over dim of the elements that are not NaN: ``nansum / count``.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.nanmean()``).
    dim : int or tuple of ints, optional
        The dims to reduce (default: every one).
    keepdim : bool, optional
        Keep the reduced dims, with size 1 (default False).
    dtype : pydevtensor.dtype, optional
        Converts input to this (floating) dtype first.

    Returns
    -------
    Tensor
        NaN where every element is NaN (0/0), and so is the gradient of that slice's
        elements (PyTorch's).

    Raises
    ------
    TypeError
        For bool and integer tensors (as PyTorch's).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1.0, float("nan"), 3.0], [float("nan")] * 3])
    >>> x.nanmean(), pydevtensor.nanmean(x, 1)
    (tensor(2.), tensor([2., nan]))
    """
    x = _tensor_arg(input, "nanmean")
    keepdim = flag(keepdim, "nanmean", "keepdim")
    dtype = _args.dtype(dtype, "nanmean")
    if not x.is_floating_point():  # also with dtype given, as PyTorch's
        raise _C.DTypeError(f"nanmean(): expected a floating point tensor, got {x.dtype} "
                            f"(shape {tuple(x.shape)}, on {x.device})")
    if dtype is not None:
        x = x.to(dtype)
        if not x.is_floating_point():
            raise _C.DTypeError(f"nanmean(): dtype must be a floating point one, got {dtype} "
                                f"(input of shape {tuple(x.shape)}, on {x.device})")
    _dims(dim, x.ndim, "nanmean", x)  # its own name in a bad dim's message, not nansum's
    total = nansum(x, dim, keepdim)
    count = count_nonzero(x == x, dim)  # the elements that are not NaN
    if keepdim:
        count = count.reshape(tuple(total.shape))
    if x.dtype in (_C.float16, _C.bfloat16):
        # divided in float32 (PyTorch's opmath): a count above 65504 is inf in float16
        return (total.float() / count.float()).to(x.dtype)
    return total / count.to(x.dtype)


@numpy_names
def count_nonzero(input, dim=None):
    """The number of nonzero elements over dim (NaN counts as nonzero).

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.count_nonzero()``).
    dim : int or tuple of ints, optional
        The dims to count over (default: every one).

    Returns
    -------
    Tensor
        int64, without the counted dims.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0, 1, 2], [0, 0, 3]])
    >>> pydevtensor.count_nonzero(x), x.count_nonzero(dim=0)
    (tensor(3), tensor([0, 1, 2]))
    """
    if dim is None:
        # every element: one pass where the device has the kernel (the CPU, a contiguous
        # input): 3 float32 0.78 -> 0.27 us (np.count_nonzero 0.19), 1e5 int64 19.5 -> 10.2
        # (15.3), 1e5 float32 16.5 -> 5.0 (44)
        out = _C._count_nonzero(input)
        if out is not None:
            return out
    x = _tensor_arg(input, "count_nonzero")
    if dim is None:  # else one mask and its sum
        return (x != 0 if x.dtype != _C.bool else x).sum()
    dims = _dims(dim, x.ndim, "count_nonzero", x)
    mask = x != 0 if x.dtype != _C.bool else x
    if x.ndim == 0:
        return mask.sum()
    return mask.sum(dims)


@numpy_names
def _count_nonzero_method(self, *dims, dim=None):
    """x.count_nonzero(dim) also as x.count_nonzero(0, 1), as PyTorch's method takes it."""
    if dims and dim is not None:
        raise TypeError("count_nonzero(): dims given both positionally and as dim=")
    if len(dims) > 1:
        dim = dims
    elif dims:
        dim = dims[0]
    return count_nonzero(self, dim)


_count_nonzero_method.__doc__ = count_nonzero.__doc__
for _name_, _fn in (("logsumexp", logsumexp),
                    ("nan_to_num", nan_to_num), ("nan_to_num_", nan_to_num_),
                    ("nansum", nansum), ("nanmean", nanmean),
                    ("count_nonzero", _count_nonzero_method)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["count_nonzero", "logaddexp", "logsumexp", "nan_to_num", "nan_to_num_", "nanmean",
           "nansum"]
