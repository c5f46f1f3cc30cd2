"""More elementwise ops with PyTorch's names: clamp_min, clamp_max, heaviside, angle, gcd,
lcm and float_power (and the ``_`` in-place methods), composed of the C elementwise ops,
so they run on every device and record their gradients; hypot, copysign, logaddexp2 (and
logaddexp) and fmod are C binary ops (Note [float binary functions] in
csrc/core/pdt_elementwise.c; fmod C's own, exact, in cpu_elementwise.c and
cuda_element_ops.cuh), re-exported here.
"""
import builtins
import inspect
import math

from . import _C
from ._dtype_info import result_type
from ._ops_index import _tensor_arg, where
from ._ops_pointwise import _in_place
from ._ops_scatter import _same_device
from ._out import _out_written, refuse_grad, takes_out
from .autograd.dispatch import RULES, _wants_grad, record, recorded, run_no_grad

hypot = _C.hypot
fmod = _C.fmod
copysign = _C.copysign
logaddexp2 = _C.logaddexp2


def clamp_min(input, min):
    """``clamp(input, min=min)``: each element at least min (NaN stays NaN).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.clamp_min(min)``).
    min : number or Tensor
        The lower bound, broadcast against input.

    Returns
    -------
    Tensor
        A new tensor.

    Examples
    --------
    >>> pydevtensor.clamp_min(pydevtensor.tensor([-1., 0.5, 2.]), 0.)
    tensor([0.0000, 0.5000, 2.0000])
    """
    return _tensor_arg(input, "clamp_min").clamp(min=min)


def clamp_max(input, max):
    """``clamp(input, max=max)``: each element at most max (NaN stays NaN).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.clamp_max(max)``).
    max : number or Tensor
        The upper bound, broadcast against input.

    Returns
    -------
    Tensor
        A new tensor.

    Examples
    --------
    >>> pydevtensor.clamp_max(pydevtensor.tensor([-1., 0.5, 2.]), 1.)
    tensor([-1.0000,  0.5000,  1.0000])
    """
    return _tensor_arg(input, "clamp_max").clamp(max=max)


def clamp_min_(input, min):
    """clamp_min in place.

    Parameters
    ----------
    input : Tensor
        The tensor to change (also the method ``x.clamp_min_(min)``).
    min : number or Tensor
        The lower bound.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> x = pydevtensor.tensor([-1., 2.])
    >>> pydevtensor.clamp_min_(x, 0.)
    tensor([0., 2.])
    """
    return _tensor_arg(input, "clamp_min_").clamp_(min=min)


def clamp_max_(input, max):
    """clamp_max in place.

    Parameters
    ----------
    input : Tensor
        The tensor to change (also the method ``x.clamp_max_(max)``).
    max : number or Tensor
        The upper bound.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> x = pydevtensor.tensor([-1., 2.])
    >>> x.clamp_max_(0.)
    tensor([-1.,  0.])
    """
    return _tensor_arg(input, "clamp_max_").clamp_(max=max)


def heaviside(input, values, *, out=None):
    """The step function: 0 where input < 0, 1 where input > 0, values where input is
    0 (NaN gives 0, as PyTorch's).

    Parameters
    ----------
    input : Tensor
        The arguments (also the method ``x.heaviside(values)``).
    values : Tensor
        input's dtype, broadcast against it: the value at 0.
    out : Tensor, optional
        Written with the result and returned: of its dtype (as PyTorch's) and device,
        and its shape or no elements (then given the result's shape).

    Returns
    -------
    Tensor
        The broadcast shape, input's dtype.

    Raises
    ------
    RuntimeError
        When the dtypes differ (as PyTorch's); for an out of another dtype, device or
        shape.

    Examples
    --------
    >>> pydevtensor.heaviside(pydevtensor.tensor([-1., 0., 2.]), pydevtensor.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if out is not None:  # no gradient: out= with a grad-requiring input is allowed
        return _out_written(heaviside(input, values), out, "heaviside")
    _tensor_arg(input, "heaviside")
    _tensor_arg(values, "heaviside", "values")
    _same_device("heaviside", input, values)
    if values.dtype != input.dtype:
        raise RuntimeError(f"heaviside(): is not yet implemented for tensors with different "
                           f"dtypes, got {input.dtype} and {values.dtype} (shapes "
                           f"{tuple(input.shape)} and {tuple(values.shape)}, on {input.device})")
    if not _wants_grad((input, values), {}):
        return where(input == 0, values, (input > 0).to(input.dtype))
    # PyTorch's heaviside has no derivative: the result requires grad, and a backward
    # through it raises naming it (not a gradient through where for values, nor "does not
    # require grad" for input)
    out = run_no_grad(heaviside, input.detach(), values.detach())
    return record(RULES["heaviside"], out, (input, values), {})


def float_power(input, exponent, *, out=None):
    """input to the power exponent, in float64 whatever the dtypes (as PyTorch's).

    Parameters
    ----------
    input : Tensor or number
        The base (also the method ``x.float_power(exponent)``).
    exponent : Tensor or number
        Broadcast against input.
    out : Tensor, optional
        Written with the result and returned: float64 (as PyTorch's), the result's
        device, and its shape or no elements (then given the result's shape).

    Returns
    -------
    Tensor
        float64, the broadcast shape.

    Raises
    ------
    RuntimeError
        For an out of another dtype, device or shape, or out= where an argument requires
        grad.

    Examples
    --------
    >>> pydevtensor.float_power(pydevtensor.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=pydevtensor.float64)
    """
    if out is not None:
        refuse_grad("float_power", input, exponent)
        return _out_written(float_power(input, exponent), out, "float_power")
    if not isinstance(input, _C.Tensor):
        if not isinstance(exponent, _C.Tensor):
            raise TypeError(f"float_power(): expected a Tensor for input or exponent, got "
                            f"{type(input).__name__} and {type(exponent).__name__}")
        return _C.full((), float(input), dtype=_C.float64,
                       device=exponent.device).pow(exponent.to(_C.float64))
    base = input.to(_C.float64)
    if isinstance(exponent, _C.Tensor):
        _same_device("float_power", input, exponent)
        return base.pow(exponent.to(_C.float64))
    # a bool exponent is the number 1 or 0, as PyTorch's (x ** True is x, x ** False ones)
    if not isinstance(exponent, (builtins.int, builtins.float)):
        raise TypeError(f"float_power(): exponent must be a Tensor or a number, got "
                        f"{type(exponent).__name__}")
    return base.pow(float(exponent))


_EXAMPLE_ARG = {"float_power_": "2", "heaviside_": "x"}
_EXAMPLE_OUT = {"float_power_": "tensor([ 9., 16.], dtype=pydevtensor.float64)",
                "heaviside_": "tensor([1., 0.], dtype=pydevtensor.float64)"}


_PARAM = {"float_power_": "exponent", "heaviside_": "values"}  # PyTorch's names


def _method_in_place(name, fn):
    param = _PARAM[name]

    def method(self, *args, **kwargs):
        if len(args) + len(kwargs) != 1 or (kwargs and param not in kwargs):
            raise TypeError(f"{name}() takes one argument, {param} (got {len(args)} "
                            f"positional and the keywords {sorted(kwargs)})")
        other = args[0] if args else kwargs[param]
        src = self.clone() if _wants_grad((self, other), {}) else self
        out = fn(src, other)
        if out.dtype != self.dtype and not (out.is_floating_point() and
                                            self.is_floating_point() and name != "float_power_"):
            raise RuntimeError(f"{name}(): result type {out.dtype} can't be cast to the "
                               f"desired output type {self.dtype} (shape {tuple(self.shape)}, "
                               f"on {self.device})")
        self.copy_(out)
        return self

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("self", param)])
    method.__doc__ = f"""{name[:-1]} in place.

    Parameters
    ----------
    {param} : Tensor or number
        As {name[:-1]}'s second argument.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.tensor([3., -4.], dtype=pydevtensor.float64)
    >>> x.{name}({_EXAMPLE_ARG[name]})
    {_EXAMPLE_OUT[name]}
    """
    return method


def _fmax_fmin(input, other, op, keep):
    _tensor_arg(input, op)
    _tensor_arg(other, op, "other")
    _same_device(op, input, other)
    # input where it wins or ties, or where other is NaN; recorded as one op whose
    # gradient (FmaxBackward0) splits a tie in half, as PyTorch's
    pick = keep(input, other)
    if other.is_floating_point():
        pick = pick | other.isnan()
    return where(pick, input, other)


_FMAX_DOC = """The {which} of input and other, elementwise, ignoring NaN (C's {op}, NumPy's
    np.{op}): NaN only where both are NaN.

    Parameters
    ----------
    input, other : Tensor
        Broadcast together (also the method ``x.{op}(other)``); the result has their
        promoted dtype.
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's), the result's device, and its shape or no elements (then given
        the result's shape).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When either is not a Tensor.
    RuntimeError
        When they are on different devices; for an out of a dtype the result cannot be
        cast to (DTypeError), another device or shape, or out= where an argument
        requires grad.

    Examples
    --------
    >>> nan = float("nan")
    >>> pydevtensor.{op}(pydevtensor.tensor([1., nan, nan]), pydevtensor.tensor([2., 0., nan]))
    tensor([{first}., 0., nan])
    """


def _fmax(input, other, *, out=None):
    if out is not None:  # grad-requiring arguments refused by recorded()
        return _out_written(_fmax(input, other), out, "fmax", castable=True)
    return _fmax_fmin(input, other, "fmax", lambda a, b: a >= b)


def _fmin(input, other, *, out=None):
    if out is not None:
        return _out_written(_fmin(input, other), out, "fmin", castable=True)
    return _fmax_fmin(input, other, "fmin", lambda a, b: a <= b)


_fmax.__doc__ = _FMAX_DOC.format(which="larger", op="fmax", first=2)
_fmin.__doc__ = _FMAX_DOC.format(which="smaller", op="fmin", first=1)
_fmax.__name__, _fmin.__name__ = "fmax", "fmin"
_fmax.__qualname__, _fmin.__qualname__ = "fmax", "fmin"
fmax = recorded("fmax")(_fmax)
fmin = recorded("fmin")(_fmin)


def positive(input):
    """input itself (``+x``), as PyTorch's positive; refused for bool, as there.

    Parameters
    ----------
    input : Tensor
        Any dtype but bool (also the method ``x.positive()``).

    Returns
    -------
    Tensor
        input (the same object).

    Raises
    ------
    TypeError
        When input is not a Tensor.
    RuntimeError
        When input is bool.

    Examples
    --------
    >>> x = pydevtensor.tensor([1, -2])
    >>> pydevtensor.positive(x) is x
    True
    """
    _tensor_arg(input, "positive")
    if input.dtype == _C.bool:
        raise RuntimeError(f"The `+` operator, on a bool tensor is not supported (a tensor of "
                           f"shape {tuple(input.shape)} on {input.device}).")
    return input


def angle(input):
    """The argument of each element as a complex number: 0 for x >= 0 (and -0.0), pi for
    x < 0, NaN for NaN, as PyTorch's angle of a real tensor.  Its gradient is 0.

    Parameters
    ----------
    input : Tensor
        Real (also the method ``x.angle()``); integers and bools give the default float
        dtype.

    Returns
    -------
    Tensor
        A new tensor of input's shape, in its floating dtype.

    Examples
    --------
    >>> pydevtensor.angle(pydevtensor.tensor([2.0, -0.5, 0.0]))
    tensor([0.0000, 3.1416, 0.0000])
    """
    _tensor_arg(input, "angle")
    x = input if input.is_floating_point() else input.to(_C._get_default_dtype())
    # x * 0 is NaN where x is (and gives x a zero gradient there; elsewhere where() passes 0)
    pi = where(x < 0, _C.full_like(x, math.pi), 0.0)  # pi rounded once, in x's dtype
    return where(x.isnan(), x * 0, pi)


def _integer_pair(op, input, other):
    """input and other in their promoted dtype, which must be an integer one (not bool)."""
    _tensor_arg(input, op)
    _tensor_arg(other, op, "other")
    _same_device(op, input, other)
    dt = result_type(input, other)
    if dt.is_floating_point or dt == _C.bool:
        raise _C.DTypeError(f"{op}(): \"{op}\" not implemented for the result dtype {dt} of "
                            f"{input.dtype} and {other.dtype} (shapes {tuple(input.shape)} "
                            f"and {tuple(other.shape)} on {input.device}); it takes integer "
                            f"tensors")
    return input.to(dt), other.to(dt)


def _gcd(a, b):
    """Euclid's algorithm on |a| and |b| (broadcast), all elements at once until every
    remainder is 0; in the operands' dtype, so that |min| wraps as PyTorch's C loop's."""
    a, b = a.abs(), b.abs()
    a, b = a + b * 0, b + a * 0  # broadcast
    while bool((a != 0).any()):
        nonzero = a != 0
        a, b = where(nonzero, _C.fmod(b, where(nonzero, a, 1)), 0), where(nonzero, a, b)
    return b


@takes_out("gcd", castable=True, differentiable=False)
def gcd(input, other):
    """The greatest common divisor of each pair, as PyTorch's: non-negative, ``gcd(0, 0)``
    is 0 (the smallest value of the dtype, whose absolute value wraps, can stay negative).

    Parameters
    ----------
    input, other : Tensor
        Integer tensors, broadcast together, on one device (also the methods
        ``x.gcd(other)`` and ``x.gcd_(other)``); the result has their promoted dtype.

    Returns
    -------
    Tensor
        A new tensor of the broadcast shape.

    Raises
    ------
    TypeError
        When their promoted dtype is floating or bool.

    Examples
    --------
    >>> pydevtensor.gcd(pydevtensor.tensor([12, -18, 0]), pydevtensor.tensor([8, 12, 0]))
    tensor([4, 6, 0])
    """
    return _gcd(*_integer_pair("gcd", input, other))


@takes_out("lcm", castable=True, differentiable=False)
def lcm(input, other):
    """The least common multiple of each pair, as PyTorch's: ``|input / gcd * other|``,
    0 where either is 0 (wrapping in the dtype where it overflows, as PyTorch's).

    Parameters
    ----------
    input, other : Tensor
        Integer tensors, broadcast together, on one device (also the methods
        ``x.lcm(other)`` and ``x.lcm_(other)``); the result has their promoted dtype.

    Returns
    -------
    Tensor
        A new tensor of the broadcast shape.

    Raises
    ------
    TypeError
        When their promoted dtype is floating or bool.

    Examples
    --------
    >>> pydevtensor.lcm(pydevtensor.tensor([4, -6, 0]), pydevtensor.tensor([6, 4, 5]))
    tensor([12, 12,  0])
    """
    a, b = _integer_pair("lcm", input, other)
    g = _gcd(a, b)
    zero = g == 0
    q = _C.div(a, where(zero, 1, g), rounding_mode="trunc")  # exact
    return where(zero, 0, (q * b).abs())


__all__ = ["angle", "clamp_max", "clamp_max_", "clamp_min", "clamp_min_", "copysign",
           "float_power", "fmax", "fmin", "fmod", "gcd", "heaviside", "hypot", "lcm",
           "logaddexp2", "positive"]

for _n in __all__:
    if not hasattr(globals()[_n], "__code__") and not isinstance(globals()[_n],
                                                                 _C._RecordedOp):
        continue  # a C function: the Tensor method is C's too
    setattr(_C.Tensor, _n, globals()[_n])
for _n in ("float_power", "heaviside"):
    setattr(_C.Tensor, _n + "_", _method_in_place(_n + "_", globals()[_n]))
_C.Tensor.gcd_ = _in_place(gcd, ("pydevtensor.tensor([6, 4])", "tensor([2, 4])"), "[4, 8]")
_C.Tensor.lcm_ = _in_place(lcm, ("pydevtensor.tensor([6, 4])", "tensor([12,  8])"), "[4, 8]")
