"""Numerics composed from reductions and elementwise ops (issue 17): softmax,
log_softmax, var, std, isnan, isinf, isfinite, allclose, equal; and two Tensor
conveniences: ``format(t, '.3f')`` on 0-d tensors, and ``tensor([t0, t1, ...])``
of 0-d tensors and numbers.  They run on every device through existing ops.
"""
import builtins
import collections.abc
import math
import warnings

from . import _C, _args
from ._numpy_names import numpy_names
from ._ops_index import _broadcast_shape, _dim, _tensor_arg
from ._out import takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node


def _floating(x, op):
    _tensor_arg(x, op)
    if not x.is_floating_point():
        # PyTorch's NotImplementedError (a RuntimeError) 'only support floating point'
        raise NotImplementedError(f"{op}(): expected a floating point tensor, got {x.dtype} "
                                  f"(shape {tuple(x.shape)}, on {x.device})")


def _along(input, dim, dtype, op):
    """(input in dtype, dim as a non-negative int), or (input, None) for a 0-d input."""
    if dtype is not None:
        input = input.to(dtype)
    _floating(input, op)
    if input.ndim == 0:
        _dim(dim, 0, op, input)
        return input, None
    return input, _dim(dim, input.ndim, op, input)


def _softmax(input, dim, dtype, log):
    """softmax or log_softmax, recorded as one op whose backward reads its output only
    (Note [softmax saves its output])."""
    x, d = _along(input, dim, dtype, "log_softmax" if log else "softmax")
    if d is None:  # 0-d: 1 (log: 0) through the op, so that a graph records it, as PyTorch's
        d = 0
    if x.dtype == _C.float16 or x.dtype == _C.bfloat16:  # in float32, rounded once, as PyTorch
        return _softmax(x.float(), d, None, log).to(x.dtype)
    if x.numel() == 0:  # nothing to normalise (a dim of size 0 has no max)
        return x.clone()
    return (_log_softmax_op if log else _softmax_op)(x, d)


def _softmax_values(x, d, log):
    """From the device's row kernel along the last dim (Note [softmax rows] in
    csrc/cpu/cpu_softmax.c) when it has one, else composed: exp(x - max) never
    overflows."""
    if d == x.ndim - 1:
        rows = _C._softmax_rows(x, log)
        if rows is not None:
            return rows
    shifted = x - x.amax(d, keepdim=True)
    if log:
        return shifted - shifted.exp().sum(d, keepdim=True).log()
    e = shifted.exp()
    return e / e.sum(d, keepdim=True)


@recorded("softmax")
def _softmax_op(x, d):
    return _softmax_values(x, d, False)


@recorded("log_softmax")
def _log_softmax_op(x, d):
    return _softmax_values(x, d, True)


# Note [softmax saves its output]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# As PyTorch's _softmax_backward_data and _log_softmax_backward_data, the gradients are
# functions of the output y alone: y * (g - sum(g * y)) and g - exp(y) * sum(g).  The
# composed softmax (amax, sub, exp, sum, div) kept the input for amax's backward, so an
# in-place change of the input after the call (a.mul_(2) in a residual block) raised
# "modified by an inplace operation" where PyTorch runs, and recorded five nodes.  The
# output is saved as an output slot, so create_graph differentiates the formulas again.
class _SoftmaxBackward(Node):
    log = False

    def save(self, result, x, d):
        self.d = d
        self.save_tensors(result.detach(), outputs=(0,))
        return (x,)

    def backward(self, g):
        (y,) = self.saved_tensors
        if self.log:
            return (g - y.exp() * g.sum(self.d, keepdim=True),)
        gy = g * y
        return (gy - y * gy.sum(self.d, keepdim=True),)


@derivative("softmax")
class SoftmaxBackward0(_SoftmaxBackward):
    pass


@derivative("log_softmax")
class LogSoftmaxBackward0(_SoftmaxBackward):
    log = True


@numpy_names
def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along dim, computed as ``exp(x - max)`` so it never overflows.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.softmax(dim)``).
    dim : int
        The dimension whose entries sum to 1.
    dtype : pydevtensor.dtype, optional
        Converts input to this dtype first.

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> pydevtensor.softmax(pydevtensor.tensor([1., 2., 3.]), 0)
    tensor([0.0900, 0.2447, 0.6652])
    """
    return _softmax(input, dim, dtype, False)


@numpy_names
def log_softmax(input, dim, dtype=None):
    """``x - log(sum(exp(x)))`` along dim, computed as ``(x - max) - log(sum(exp(x - max)))``.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.log_softmax(dim)``).
    dim : int
        The dimension to normalise along.
    dtype : pydevtensor.dtype, optional
        Converts input to this dtype first.

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> pydevtensor.log_softmax(pydevtensor.tensor([1., 2., 3.]), 0)
    tensor([-2.4076, -1.4076, -0.4076])
    """
    return _softmax(input, dim, dtype, True)


def _var_args(dim, unbiased, keepdim, correction, op):
    """(dim, correction, keepdim) from PyTorch's overloads: var(x, unbiased),
    var(x, dim, unbiased, keepdim) and var(x, dim, *, correction, keepdim)."""
    if isinstance(dim, builtins.bool):  # var(x, False): the old `unbiased` position
        if unbiased is not None:
            raise TypeError(f"{op}(): dim must be an int or a tuple of ints, got bool")
        unbiased, dim = dim, None
    if unbiased is not None:
        unbiased = _args.flag(unbiased, op, "unbiased")
    keepdim = _args.flag(keepdim, op, "keepdim")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise TypeError(f"{op}(): give unbiased or correction, not both")
    elif not isinstance(correction, int):
        correction = _args.real(correction, op, "correction")
    return dim, correction, keepdim


def _var(input, dim, unbiased, keepdim, correction, op):
    """var's value and its float16/bfloat16 inputs' upcast: (variance in float32 for the
    half types, else in input's dtype; the half dtype or None; dims).  No degrees of
    freedom left (N - correction <= 0) warns as PyTorch's, at the line that called var,
    std (their numpy_names and takes_out wrappers between), var_mean or std_mean."""
    from ._ops_nan import _dims  # imported late: _ops_nan imports _ops_shortcuts
    dim, correction, keepdim = _var_args(dim, unbiased, keepdim, correction, op)
    _floating(input, op)
    dims = _dims(dim, input.ndim, op, input)
    half = input.dtype if input.dtype in (_C.float16, _C.bfloat16) else None
    x = input.float() if half else input  # summed in float32, as PyTorch's opmath
    n = 1
    for d in dims:
        n *= x.shape[d]
    if x.ndim == 0:
        dev = x - x
        total = dev * dev
    else:
        dev = x - x.mean(dims, keepdim=True)
        total = (dev * dev).sum(dims, keepdim=keepdim)
    # PyTorch's reduction factor is input numel / output numel: 0 for an empty input
    if n - correction <= 0 or x.numel() == 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=5)
    if n - correction >= 0:  # var()'s node named as PyTorch's (var_mean, std: their own)
        k = n - correction if n - correction > 0 else 0.0
        return (_var_of_total(total, k) if op == "var" else total / k), half, dims
    # PyTorch's value divides by max(0, N - correction) (inf, or NaN for no deviation),
    # its gradient by N - correction itself: finite for a correction above N
    value = total.detach() / 0.0
    t = total / (n - correction)
    return t + (value - t.detach()), half, dims


@numpy_names
@takes_out("var")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over dim: ``sum((x - mean)**2) / (N - correction)``, with Bessel's
    correction 1 unless unbiased=False or correction says otherwise.  float16 and
    bfloat16 are summed in float32 and rounded once (PyTorch's opmath).  A correction
    above N gives inf, and the gradient divided by N - correction (as PyTorch's); no
    degrees of freedom left (N - correction <= 0) warns, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.var()``).
    dim : int or tuple of ints, optional
        The dimensions to reduce (default: every one).
    unbiased : bool, optional
        False: divide by N (correction 0).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1 (default False).
    correction : int, optional
        Subtracted from N (default 1); not together with unbiased.

    Returns
    -------
    Tensor
        0-d when every dimension is reduced.

    Raises
    ------
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).
    TypeError
        When both unbiased and correction are given.

    Examples
    --------
    >>> m = pydevtensor.tensor([[1., 2.], [3., 5.]])
    >>> pydevtensor.var(m)
    tensor(2.9167)
    >>> m.var(0)
    tensor([2.0000, 4.5000])
    >>> m.var(correction=0)
    tensor(2.1875)
    """
    v, half, _ = _var(input, dim, unbiased, keepdim, correction, "var")
    return v.to(half) if half else v


@numpy_names
@takes_out("std")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation over dim: the square root of ``var`` with the same arguments.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.std()``).
    dim : int or tuple of ints, optional
        The dimensions to reduce (default: every one).
    unbiased : bool, optional
        False: divide by N (correction 0).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1 (default False).
    correction : int, optional
        Subtracted from N (default 1); not together with unbiased.

    Returns
    -------
    Tensor
        0-d when every dimension is reduced.

    Raises
    ------
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).

    Examples
    --------
    >>> pydevtensor.std(pydevtensor.tensor([[1., 2.], [3., 5.]]), 1)
    tensor([0.7071, 1.4142])
    """
    v, half, _ = _var(input, dim, unbiased, keepdim, correction, "std")
    return _std_of_var(v).to(half) if half else _std_of_var(v)


@recorded("_var_of_total")
def _var_of_total(total, k):
    """total / k, var()'s last step, recorded as VarBackward0 (PyTorch's name)."""
    return total / k


@derivative("_var_of_total")
class VarBackward0(Node):
    """The summed squared deviations over k: the gradient over k."""

    def save(self, result, total, k):
        self.k = k
        return (total,)

    def backward(self, g):
        return g / self.k


@recorded("_std_of_var")
def _std_of_var(v):
    """sqrt(v), recorded as StdBackward0: its gradient is 0 where the result is 0 (data
    that does not vary), as PyTorch's std_backward masks it, not inf * 0 = NaN."""
    return v.sqrt()


_Tensor, _classify = _C.Tensor, _C._classify


def _float_class(op, which, integers, composed, doc):
    """isnan (which 0), isinf (1) or isfinite (2) as a function: a float tensor on the
    CPU goes to the kernel (pydevtensor._C._classify, one pass from the bits) with no
    helper frame on the way; integers and bools give the constant `integers`; other
    floats composed(input)."""
    def classify(input):
        if type(input) is _Tensor:
            fast = _classify(input, which)
            if fast is not None:
                return fast
        _tensor_arg(input, op)
        if not input.is_floating_point():
            make = _C.ones if integers else _C.zeros
            return make(tuple(input.shape), dtype=_C.bool, device=input.device)
        return composed(input)

    classify.__name__ = classify.__qualname__ = op
    classify.__doc__ = doc
    return classify


isnan = _float_class(
    "isnan", 0, False, lambda x: x != x,
    """Where input is NaN (never for integers and bool).

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.isnan()``).

    Returns
    -------
    Tensor
        bool, of input's shape.

    Examples
    --------
    >>> pydevtensor.isnan(pydevtensor.tensor([1., float("nan")]))
    tensor([False,  True])
    """)

isinf = _float_class(
    "isinf", 1, False, lambda x: x.abs() == math.inf,
    """Where input is +inf or -inf.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.isinf()``).

    Returns
    -------
    Tensor
        bool, of input's shape.

    Examples
    --------
    >>> pydevtensor.isinf(pydevtensor.tensor([1., float("inf"), float("nan")]))
    tensor([False,  True, False])
    """)

isfinite = _float_class(
    "isfinite", 2, True, lambda x: (x - x) == 0,
    """Where input is neither NaN nor infinite.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.isfinite()``).

    Returns
    -------
    Tensor
        bool, of input's shape.

    Examples
    --------
    >>> pydevtensor.isfinite(pydevtensor.tensor([1., float("inf"), float("nan")]))
    tensor([ True, False, False])
    """)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``abs(input - other) <= atol + rtol * abs(other)``; equal infinities
    are close, NaN only with equal_nan.

    Parameters
    ----------
    input, other : Tensor
        Broadcast together, on one device (also the method ``x.isclose(y)``).
    rtol : float, optional
        The relative tolerance (default 1e-05).
    atol : float, optional
        The absolute tolerance (default 1e-08).
    equal_nan : bool, optional
        Whether NaN is close to NaN (default False).

    Returns
    -------
    Tensor
        bool, of the broadcast shape.

    Raises
    ------
    ValueError
        When the shapes do not broadcast, or a tolerance is negative.
    pydevtensor.DeviceError
        When the tensors are on different devices (a RuntimeError).
    DTypeError
        When the dtypes differ (as in PyTorch).

    Examples
    --------
    >>> pydevtensor.isclose(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1.000001, 2.1]))
    tensor([ True, False])
    """
    _tensor_arg(input, "isclose")
    _tensor_arg(other, "isclose", "other")
    _broadcast_shape(tuple(input.shape), tuple(other.shape))
    if input.device != other.device:
        raise _C.DeviceError(f"isclose(): Expected all tensors to be on the same device, but "
                             f"found at least two devices, {input.device} and {other.device}")
    if input.dtype != other.dtype:  # PyTorch's check: which dtype's tolerance would apply?
        raise _C.DTypeError(
            f"isclose(): {input.dtype} did not match {other.dtype} (shapes "
            f"{tuple(input.shape)} and {tuple(other.shape)}, on {input.device}); convert "
            f"one, e.g. other.to(input.dtype)")
    rtol, atol = _args.real(rtol, "isclose", "rtol"), _args.real(atol, "isclose", "atol")
    equal_nan = _args.flag(equal_nan, "isclose", "equal_nan")
    if not (rtol >= 0 and atol >= 0):  # NaN too, as PyTorch's
        raise _C.InvalidArgumentError(
            f"isclose(): rtol and atol must be greater than or equal to zero, got "
            f"rtol={rtol} and atol={atol}")
    # PyTorch's steps: equal values (equal infinities too) are close; else a finite
    # error within the tolerance, integers and bools compared as numbers of the default
    # float dtype (a uint8 difference would wrap)
    close = input == other
    if equal_nan and input.is_floating_point():
        close = close | (isnan(input) & isnan(other))
    if rtol == 0 and atol == 0:
        return close
    if not input.is_floating_point():
        from ._default_dtype import get_default_dtype
        input, other = input.to(get_default_dtype()), other.to(get_default_dtype())
    actual = (input - other).abs()
    return close | (actual.isfinite() & (actual <= atol + (rtol * other).abs()))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere; reads one number back to the host, an implicit
    transfer for a GPU tensor (``transfer_guard('disallow')`` refuses it, as ``bool()``).

    Parameters
    ----------
    input, other : Tensor
        Broadcast together, on one device (also the method ``x.allclose(y)``).
    rtol : float, optional
        The relative tolerance (default 1e-05).
    atol : float, optional
        The absolute tolerance (default 1e-08).
    equal_nan : bool, optional
        Whether NaN is close to NaN (default False).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        When the shapes do not broadcast.
    pydevtensor.DeviceError
        When the tensors are on different devices (a RuntimeError).

    Examples
    --------
    >>> pydevtensor.allclose(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1.000001, 2.]))
    True
    """
    rtol, atol = _args.real(rtol, "allclose", "rtol"), _args.real(atol, "allclose", "atol")
    equal_nan = _args.flag(equal_nan, "allclose", "equal_nan")
    close = isclose(input, other, rtol, atol, equal_nan)
    # an implicit read of a device value, which the transfer guard sees as bool() does
    return builtins.bool(_C._implicit_cpu(close.all(), "allclose()").item())


def equal(input, other):
    """Whether input and other have the same shape and the same values; reads one number
    back to the host, an implicit transfer for a GPU tensor (``transfer_guard('disallow')``
    refuses it, as ``bool()``).

    Parameters
    ----------
    input, other : Tensor
        On one device (also the method ``x.equal(y)``).

    Returns
    -------
    bool

    Raises
    ------
    pydevtensor.DeviceError
        When the tensors are on different devices (a RuntimeError).

    Examples
    --------
    >>> pydevtensor.equal(pydevtensor.tensor([1, 2]), pydevtensor.tensor([1, 2]))
    True
    >>> pydevtensor.equal(pydevtensor.tensor([1, 2]), pydevtensor.tensor([1, 2, 3]))
    False
    """
    _tensor_arg(input, "equal")
    _tensor_arg(other, "equal", "other")
    if input.device != other.device:
        raise _C.DeviceError(f"equal(): Expected all tensors to be on the same device, but "
                             f"found at least two devices, {input.device} and {other.device}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    same = input == other
    return builtins.bool(_C._implicit_cpu(same.all(), "equal()").item())


def _format(self, spec):
    # f"{t}" of a 0-d Tensor is its value, of a 0-d Parameter (any subclass) its str, as
    # PyTorch's; a format spec formats a subclass's value too (PyTorch refuses it)
    if self.ndim == 0 and (spec or type(self) is _C.Tensor):
        return format(self.item(), spec)
    if spec:
        raise TypeError(f"unsupported format string passed to Tensor.__format__: only 0-d "
                        f"tensors take a format spec (this one has shape {tuple(self.shape)})")
    return str(self)


def _has_tensor(data):
    if isinstance(data, _C.Tensor):
        return True
    return isinstance(data, (list, tuple)) and any(_has_tensor(x) for x in data)


def _other_sequence(x):
    """Whether x is a Python sequence tensor() reads as PyTorch's does but the C reader
    takes no lists of (a range, a deque): no list, tuple, string, bytes or tensor."""
    return (isinstance(x, collections.abc.Sequence)
            and not isinstance(x, (list, tuple, str, bytes, bytearray, memoryview, _C.Tensor)))


def _has_other_sequence(data):
    return _other_sequence(data) or (isinstance(data, (list, tuple))
                                     and any(_has_other_sequence(x) for x in data))


def _listed(data):
    """data with each list, tuple and other sequence (_other_sequence) made a list."""
    if isinstance(data, (list, tuple)) or _other_sequence(data):
        return [_listed(x) for x in data]
    return data


def _numbers(data):
    """data with each Tensor replaced by its number: a 0-d CPU tensor directly, one
    on a device through a counted device-to-host copy that the transfer guard sees as
    implicit, as item() (Note [tensor() of tensors])."""
    if isinstance(data, _C.Tensor):
        if data.numel() != 1:
            raise ValueError(f"tensor(): only one element tensors can be converted to Python "
                             f"scalars (got shape {tuple(data.shape)} on {data.device})")
        return _C._implicit_cpu(data, "tensor()").item()
    if isinstance(data, (list, tuple)):
        return [_numbers(x) for x in data]
    return data


def _dtype_of(data):
    """The widest Tensor dtype inside data (None when it holds none)."""
    if isinstance(data, _C.Tensor):
        return data.dtype
    best = None
    if isinstance(data, (list, tuple)):
        for x in data:
            d = _dtype_of(x)
            if d is not None:
                best = d if best is None else _C.promote_types(best, d)
    return best


# Note [tensor() of tensors]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# tensor(t) of a tensor is a copy on t's device (device= moves it, an explicit copy the
# user asked for), with PyTorch's warning to prefer t.clone().detach().  tensor([l0, l1])
# of 0-d tensors reads each number to the host and builds a new tensor from them, as
# PyTorch does: for a GPU tensor that is an implicit device-to-host read, as float(l0),
# and transfer_guard('disallow') refuses it, with device='cuda:0' too (the numbers still
# go through the host); stack([l0, l1]) keeps them on the device.
_TENSOR_KWARGS = ("dtype", "device", "pin_memory", "requires_grad")


def _copy_construct(data, kwargs):
    unknown = sorted(set(kwargs) - set(_TENSOR_KWARGS))
    if unknown:
        raise TypeError(f"tensor() got an unexpected keyword argument '{unknown[0]}'")
    warnings.warn("To copy construct from a tensor, it is recommended to use "
                  "sourceTensor.clone().detach() or "
                  "sourceTensor.clone().detach().requires_grad_(True), rather than "
                  "pydevtensor.tensor(sourceTensor).", UserWarning, stacklevel=3)
    device = kwargs.get("device")
    device = data.device if device is None else _C.device(device)
    dtype = kwargs.get("dtype") or data.dtype
    source = data.detach()
    if device == data.device and dtype == data.dtype:
        out = source.clone().contiguous()
    else:
        out = source.to(device=device, dtype=dtype).contiguous()
    if kwargs.get("pin_memory"):
        out = out.pin_memory()
    if kwargs.get("requires_grad"):
        out.requires_grad_(True)
    return out


def tensor(data, **kwargs):
    """``tensor(data, *, dtype=None, device=None, pin_memory=False)``: a new tensor holding
    a copy of data.

    Python ints give int64, floats float32, arrays keep their dtype.  Any Python
    sequence is read as a list is (``tensor(range(3))``).  A NumPy array of an
    integer dtype pydevtensor lacks is widened without loss: int8, uint8, int16 and uint16
    give int32, uint32 int64, uint64 int64 when its values fit (PyTorch keeps uint8);
    ``dtype=`` converts it, e.g. an image's uint8 pixels to float32.  A list may hold
    0-d tensors, as PyTorch accepts, each read to the host through a counted copy when
    it lives on a GPU: an implicit transfer, which ``transfer_guard('disallow')``
    refuses as it refuses ``float()`` (``stack`` keeps them on the device).  A tensor
    gives a copy on its own device (or on device=), with PyTorch's warning to prefer
    ``t.clone().detach()``.

    Parameters
    ----------
    data : number, nested list or tuple, array or Tensor
        The values.
    **kwargs
        dtype (pydevtensor.dtype), device (str or pydevtensor.device, default
        ``get_default_device()``), pin_memory (bool) and requires_grad (bool).

    Returns
    -------
    Tensor
        A copy, never a view of data.

    Raises
    ------
    TypeError
        When data is not numbers, lists, an array or a tensor.
    ValueError
        When the nested lists are ragged.

    Examples
    --------
    >>> pydevtensor.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> pydevtensor.tensor([1.5, 2], dtype=pydevtensor.float64)
    tensor([1.5000, 2.0000], dtype=pydevtensor.float64)
    >>> pydevtensor.tensor(3)
    tensor(3)
    >>> import numpy as np
    >>> pydevtensor.tensor(np.array([0, 255], dtype=np.uint8), dtype=pydevtensor.float32) / 255
    tensor([0., 1.])
    """
    if isinstance(data, _C.Tensor):
        return _copy_construct(data, kwargs)
    try:  # the common case first: no tensors inside (the C call says when there are)
        return _C.tensor(data, **kwargs)
    except TypeError:
        if _has_other_sequence(data):  # tensor(range(3)), as PyTorch reads any sequence
            return tensor(_listed(data), **kwargs)
        if not (isinstance(data, (list, tuple)) and _has_tensor(data)):
            raise
    # lists holding 0-d tensors: the promotion of the tensors' dtypes and of the other
    # leaves' (Python floats as the default dtype, ints as int64, NumPy scalars as
    # theirs), as PyTorch's: [t_float16, 2.5] is float32, [t_int32, t_int32] int32
    if kwargs.get("dtype") is None:
        kwargs["dtype"] = _dtype_of(data)
        others = _other_leaves(data, [])
        if others:
            kwargs["dtype"] = _C.promote_types(kwargs["dtype"], _C.tensor(others).dtype)
    return _C.tensor(_numbers(data), **kwargs)


def _other_leaves(data, out):
    """The leaves of nested lists data that are not tensors, into out."""
    if isinstance(data, (list, tuple)):
        for x in data:
            _other_leaves(x, out)
    elif not isinstance(data, _C.Tensor):
        out.append(data)
    return out


tensor.__wrapped__ = _C.tensor

for _n, _f in (("softmax", softmax), ("log_softmax", log_softmax), ("var", var), ("std", std),
               ("isnan", isnan), ("isinf", isinf), ("isfinite", isfinite),
               ("isclose", isclose), ("allclose", allclose), ("equal", equal)):
    setattr(_C.Tensor, _n, _f)
_C.Tensor.__format__ = _format

__all__ = ["allclose", "equal", "isclose", "isfinite", "isinf", "isnan", "log_softmax",
           "softmax", "std", "var"]
