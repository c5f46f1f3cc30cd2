"""A float's parts, with PyTorch's names: frexp (mantissa and exponent), ldexp (input times
2 to the other), nextafter (the next representable value) and rsub (other - alpha *
input).  Composed of the C elementwise ops, so they run on every device; every step is
exact (a product by a power of two, a sum of representable values), so the results are
the bits C's frexp and nextafter give, on every device.

Note [nextafter without bit casts]: with no view(dtype) to step the bits by one, the
step is the spacing of x's binade, 2^(e - p) for x = m 2^e (0.5 <= |m| < 1) and p
mantissa bits, halved when x is a power of two stepping toward zero, and never below
the smallest subnormal 2^emin.  x + step is then exact: both are representable and the
sum is the neighbour.  The half types compute in float32, where their neighbours are
exact too, and round once (exactly).
"""
import builtins
import collections

from . import _C
from ._ops_index import _tensor_arg, where
from ._ops_reduce import return_types
from ._ops_scatter import _same_device
from ._dtype_info import finfo, result_type
from ._ops_shape import broadcast_tensors
from ._out import _out_written, refuse_grad, takes_out
from .autograd import no_grad
from .autograd.dispatch import recorded

return_types.frexp = collections.namedtuple("frexp", ["mantissa", "exponent"])
return_types.frexp.__module__ = "pydevtensor.return_types"

# mantissa bits (with the implicit one) and the exponent of the smallest subnormal
_P_EMIN = {"float16": (11, -24), "bfloat16": (8, -133), "float32": (24, -149),
           "float64": (53, -1074)}


def _dtype_name(dt):
    return str(dt).rsplit(".", 1)[-1]


def _float_arg(x, op, name="input"):
    _tensor_arg(x, op, name)
    if not x.is_floating_point():
        raise _C.DTypeError(f"{op}(): \"{op}\" not implemented for '{_dtype_name(x.dtype)}' "
                            f"(argument '{name}' of shape {tuple(x.shape)} on {x.device}); "
                            f"convert it with .float() first")
    return x


def _exponent(x):
    """The int32 e with x = m 2^e, 0.5 <= |m| < 1; 0 for 0, inf and NaN (C's frexp)."""
    ax = x.abs().to(_C.float64)  # exact
    normal = ax.isfinite() & (ax != 0)
    safe = where(normal, ax, 1.0)
    e = safe.log2().floor() + 1  # within one of the exponent: corrected below
    for _ in range(2):
        m = safe * (-(e // 2)).exp2() * (-(e - e // 2)).exp2()
        e = e + (m >= 1).to(e.dtype) - (m < 0.5).to(e.dtype)
    return where(normal, e, 0.0).to(_C.int32)


def _times_power_of_two(x, e):
    """x * 2^e, exactly, in two halves (2^e alone may overflow or underflow)."""
    h = e // 2
    return x * h.to(x.dtype).exp2() * (e - h).to(x.dtype).exp2()


@takes_out("frexp", tuple_of="mantissa, exponent")
def frexp(input):
    """The mantissa and exponent of input: ``input = mantissa * 2 ** exponent``, with
    ``0.5 <= abs(mantissa) < 1`` (C's frexp); 0, inf and NaN give themselves and exponent
    0.

    Parameters
    ----------
    input : Tensor
        A floating tensor (also the method ``x.frexp()``).

    Returns
    -------
    (Tensor, Tensor)
        mantissa (input's dtype; its gradient is ``grad / 2 ** exponent``, as PyTorch's) and
        exponent (int32), a named pair ``(mantissa, exponent)``.

    Raises
    ------
    TypeError
        When input is not a floating tensor (as PyTorch's).

    Examples
    --------
    >>> m, e = pydevtensor.frexp(pydevtensor.tensor([8., 0.75, -3.]))
    >>> m
    tensor([ 0.5000,  0.7500, -0.7500])
    >>> e
    tensor([4, 0, 2], dtype=pydevtensor.int32)
    """
    _float_arg(input, "frexp")
    with no_grad():
        e = _exponent(input)
    wide = input.to(_C.float32) if input.dtype in (_C.float16, _C.bfloat16) else input
    mantissa = where(e == 0, wide, _times_power_of_two(wide, -e)).to(input.dtype)
    return return_types.frexp(mantissa, e)


def ldexp(input, other, *, out=None):
    """``input * 2 ** other``, as PyTorch's ``mul(input, pow(2.0, other))`` (an integer input
    gives the default float), with ``2 ** other`` in float64 for a float64 input, so that it
    does not overflow float32 first.

    Parameters
    ----------
    input : Tensor
        The values (also the methods ``x.ldexp(other)`` and ``x.ldexp_(other)``).
    other : Tensor
        The exponents, usually integers; broadcast against input.
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's), the result's device, and its shape or no elements (then given
        the result's shape).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    TypeError
        When input or other is not a Tensor.
    RuntimeError
        When they are on different devices; for an out of a dtype the result cannot be
        cast to (DTypeError), another device or shape, or out= where an argument
        requires grad.

    Examples
    --------
    >>> pydevtensor.ldexp(pydevtensor.tensor([1., 3.]), pydevtensor.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    if out is not None:
        refuse_grad("ldexp", input, other)
        return _out_written(ldexp(input, other), out, "ldexp", castable=True)
    _tensor_arg(input, "ldexp")
    _tensor_arg(other, "ldexp", "other")
    return _ldexp(input, other)


@recorded("ldexp")  # LdexpBackward0, as PyTorch's: not the graph of mul and pow
def _ldexp(input, other):
    product = input * _powers_of_two(input, other, "ldexp")
    # PyTorch's dtype: the operands' (a 0-d one counting less), floating; the product
    # by a power of two is exact, so the one cast rounds only what overflows
    dt = result_type(input, other)
    if not dt.is_floating_point:
        from ._default_dtype import get_default_dtype
        dt = get_default_dtype()
    return product.to(dt)


def _powers_of_two(input, other, op):
    _tensor_arg(other, op, "other")
    _same_device(op, input, other)
    if input.dtype == _C.float64 and other.dtype != _C.float64:
        other = other.to(_C.float64)
    return _C.pow(2.0, other)


def _ldexp_(self, other):
    """ldexp in place: ``self *= 2 ** other``.

    Parameters
    ----------
    other : Tensor
        As ldexp's.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 3.])
    >>> x.ldexp_(pydevtensor.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    return self.mul_(_powers_of_two(self, other, "ldexp_"))


def nextafter(input, other, *, out=None):
    """The next representable value after input toward other, elementwise (C's
    nextafter): other where they are equal, NaN where either is NaN.  Not
    differentiable, as PyTorch's: the result never requires grad.

    Parameters
    ----------
    input, other : Tensor
        Broadcast together, on one device (also the methods ``x.nextafter(other)`` and
        ``x.nextafter_(other)``); the result has their promoted dtype, which must be
        floating (an integer or bool tensor beside a float one is promoted).
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's), the result's device, and its shape or no elements (then given
        the result's shape).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    TypeError
        When their promoted dtype is not floating.
    RuntimeError
        When they are on different devices; for an out of a dtype the result cannot be
        cast to (DTypeError), another device or shape, or out= where an argument
        requires grad (as PyTorch's, though the op has no gradient).

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 1.], dtype=pydevtensor.float64)
    >>> pydevtensor.nextafter(x, pydevtensor.tensor([2., 0.], dtype=pydevtensor.float64)) - x
    tensor([ 2.2204e-16, -1.1102e-16], dtype=pydevtensor.float64)
    """
    if out is not None:
        refuse_grad("nextafter", input, other)
        return _out_written(nextafter(input, other), out, "nextafter", castable=True)
    _tensor_arg(input, "nextafter")
    _tensor_arg(other, "nextafter", "other")
    _same_device("nextafter", input, other)
    dt = result_type(input, other)  # a 0-d operand counts less, as in PyTorch
    if not dt.is_floating_point:  # two integer or bool tensors (one beside a float promotes)
        _float_arg(input, "nextafter")
    p, emin = _P_EMIN[_dtype_name(dt)]
    wide = _C.float32 if dt in (_C.float16, _C.bfloat16) else dt
    with no_grad():
        x, y = broadcast_tensors(input.to(wide), other.to(wide))
        e = _exponent(x)
        m = _times_power_of_two(x, -e)
        away = (y > x) == (x > 0)  # away from zero (for x != 0)
        k = e - p - ((~away) & (m.abs() == 0.5)).to(e.dtype)
        k = _C.clamp(where(x == 0, emin, k), min=emin)
        step = _times_power_of_two(_C.ones_like(x), k)
        r = x + where(y > x, step, -step)
        r = where(r == 0, _C.copysign(r, x), r)  # -tiny + tiny is +0; C keeps x's sign
        big = _C.full_like(x, finfo(dt).max)
        r = where(x.isinf(), where(x > 0, big, -big), r)
        r = where(x == y, y, r)
        r = where(x.isnan() | y.isnan(), x + y, r)
    return r.to(dt).contiguous()


def _nextafter_(self, other):
    """nextafter in place: self becomes the next representable value toward other.

    Parameters
    ----------
    other : Tensor
        As nextafter's.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.tensor([0.])
    >>> x.nextafter_(pydevtensor.tensor([1.])) > 0
    tensor([True])
    """
    r = nextafter(self, other)
    if r.dtype != self.dtype:
        raise RuntimeError(f"nextafter_(): result type {r.dtype} can't be cast to the desired "
                           f"output type {self.dtype} (shape {tuple(self.shape)}, on "
                           f"{self.device})")
    with no_grad():
        return self.copy_(r)


def rsub(input, other, *, alpha=1):
    """other - alpha * input (subtraction with the operands swapped), as PyTorch's.

    Parameters
    ----------
    input : Tensor
        What is subtracted.
    other : Tensor or number
        What it is subtracted from; broadcast against input.
    alpha : number, optional
        The multiplier of input (default 1).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    TypeError
        When input is not a Tensor, or either is bool (as PyTorch's sub).

    Examples
    --------
    >>> pydevtensor.rsub(pydevtensor.tensor([1., 2.]), 10, alpha=2)
    tensor([8., 6.])
    """
    _tensor_arg(input, "rsub")
    if isinstance(other, _C.Tensor):
        return _C.sub(other, input, alpha=alpha)
    if isinstance(other, builtins.bool) or not isinstance(other, (builtins.int,
                                                                  builtins.float)):
        raise TypeError(f"rsub(): argument 'other' must be a Tensor or a number, got "
                        f"{type(other).__name__}")
    return _C.sub(other, input, alpha=alpha)


__all__ = ["frexp", "ldexp", "nextafter", "rsub"]

_C.Tensor.frexp = frexp.__wrapped__  # the method takes no out=, as PyTorch's
_C.Tensor.ldexp = ldexp
_C.Tensor.ldexp_ = _ldexp_
_C.Tensor.nextafter = nextafter
_C.Tensor.nextafter_ = _nextafter_
_ldexp_.__name__ = _ldexp_.__qualname__ = "ldexp_"
_nextafter_.__name__ = _nextafter_.__qualname__ = "nextafter_"
