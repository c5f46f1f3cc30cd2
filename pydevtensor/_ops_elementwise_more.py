"""More elementwise ops with PyTorch's names: clamp_min, clamp_max, fmod, heaviside and
float_power (and the ``_`` in-place methods), composed of the C elementwise ops, so they
run on every device and record their gradients; hypot, copysign, logaddexp2 (and
logaddexp) are C ops (Note [float binary functions] in csrc/core/pdt_elementwise.c),
re-exported here.

Note [fmod from remainder]: fmod is exact.  For floats it is
``copysign(remainder(|a|, |b|), a)``: the C remainder computes C's fmod and only
adds the divisor when the signs differ, which they never do for |a| and |b|, so
the magnitude is fmod's own; for integers it is ``a - trunc(a / b) * b`` in
integer arithmetic.
"""
import builtins

from . import _C
from ._ops_index import _as_tensor, _tensor_arg, result_type, where
from ._ops_scatter import _same_device
from .autograd.dispatch import _wants_grad, recorded

hypot = _C.hypot
copysign = _C.copysign
logaddexp2 = _C.logaddexp2


def _pair(op, input, other, floating=False):
    """input and other as Tensors of their result dtype on input's device (the default
    float for two integers when floating)."""
    _tensor_arg(input, op)
    if not isinstance(other, (_C.Tensor, builtins.int, builtins.float)):
        raise TypeError(f"{op}(): argument 'other' must be a Tensor or a number, got "
                        f"{type(other).__name__}")
    if isinstance(other, _C.Tensor):
        _same_device(op, input, other)
    dtype = result_type(input, other)
    if floating and not dtype.is_floating_point:
        dtype = _C.empty(0).dtype
    return _as_tensor(input, dtype, input.device), _as_tensor(other, dtype, input.device)


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


@recorded("fmod")
def fmod(input, other):
    """The remainder of input / other with the sign of input (C's fmod; Python's %
    and ``remainder`` take the divisor's sign instead).  Exact (Note [fmod from
    remainder] in pydevtensor/_ops_elementwise_more.py).  Integers by 0 raise as in
    PyTorch, except for a divisor tensor on a GPU, where they give 0 (as this package's
    remainder and floor division there, Note [integer division by zero]).

    Parameters
    ----------
    input : Tensor
        The dividend (also the method ``x.fmod(other)``).
    other : Tensor or number
        The divisor, broadcast against input.

    Returns
    -------
    Tensor
        The broadcast shape and promoted dtype.

    Examples
    --------
    >>> pydevtensor.fmod(pydevtensor.tensor([-3., 3., 5.5]), 2.)
    tensor([-1.0000,  1.0000,  1.5000])
    >>> pydevtensor.fmod(pydevtensor.tensor([-7, 7]), pydevtensor.tensor([2, -2]))
    tensor([-1,  1])
    """
    a, b = _pair("fmod", input, other)
    if a.dtype == _C.bool:
        raise TypeError(f"fmod(): not defined for bool tensors (input {tuple(a.shape)}, on "
                        f"{a.device})")
    if not a.is_floating_point():
        try:
            d = b if isinstance(other, _C.Tensor) else other  # a scalar 0 raises anywhere
            r = a - _C.div(a, d, rounding_mode="trunc") * d
        except ValueError as e:  # Note [integer division by zero]: the name is fmod's
            raise type(e)(str(e).replace("div:", "fmod:", 1)) from None
        if a.device.type == "cpu":
            return r  # a zero divisor raised above
        return where(b == 0, _C.zeros((), dtype=r.dtype, device=r.device), r)
    return _C.copysign(_C.remainder(a.abs(), b.abs()), a)


def heaviside(input, values):
    """The step function: 0 where input < 0, 1 where input > 0, values where input is
    0 (NaN gives 0, as PyTorch's).

    Parameters
    ----------
    input : Tensor
        The arguments (also the method ``x.heaviside(values)``).
    values : Tensor
        input's dtype, broadcast against it: the value at 0.

    Returns
    -------
    Tensor
        The broadcast shape, input's dtype.

    Raises
    ------
    RuntimeError
        When the dtypes differ (as PyTorch's).

    Examples
    --------
    >>> pydevtensor.heaviside(pydevtensor.tensor([-1., 0., 2.]), pydevtensor.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _tensor_arg(input, "heaviside")
    _tensor_arg(values, "heaviside", "values")
    _same_device("heaviside", input, values)
    if values.dtype != input.dtype:
        raise RuntimeError(f"heaviside(): is not yet implemented for tensors with different "
                           f"dtypes, got {input.dtype} and {values.dtype} (shapes "
                           f"{tuple(input.shape)} and {tuple(values.shape)}, on {input.device})")
    step = (input > 0).to(input.dtype)
    return where(input == 0, values, step)


def float_power(input, exponent):
    """input to the power exponent, in float64 whatever the dtypes (as PyTorch's).

    Parameters
    ----------
    input : Tensor or number
        The base (also the method ``x.float_power(exponent)``).
    exponent : Tensor or number
        Broadcast against input.

    Returns
    -------
    Tensor
        float64, the broadcast shape.

    Examples
    --------
    >>> pydevtensor.float_power(pydevtensor.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=pydevtensor.float64)
    """
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
    if isinstance(exponent, builtins.bool) or not isinstance(exponent, (builtins.int,
                                                                      builtins.float)):
        raise TypeError(f"float_power(): exponent must be a Tensor or a number, got "
                        f"{type(exponent).__name__}")
    return base.pow(float(exponent))


_EXAMPLE_ARG = {"float_power_": "2", "fmod_": "2.", "heaviside_": "x"}
_EXAMPLE_OUT = {"float_power_": "tensor([ 9., 16.], dtype=pydevtensor.float64)",
                "fmod_": "tensor([1., -0.], dtype=pydevtensor.float64)",
                "heaviside_": "tensor([1., 0.], dtype=pydevtensor.float64)"}


def _method_in_place(name, fn):
    def method(self, other):
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
    method.__doc__ = f"""{name[:-1]} in place.

    Parameters
    ----------
    other : Tensor or number
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


__all__ = ["clamp_max", "clamp_max_", "clamp_min", "clamp_min_", "copysign", "float_power",
           "fmod", "heaviside", "hypot", "logaddexp2"]

for _n in __all__:
    if not hasattr(globals()[_n], "__code__"):
        continue  # a C function: the Tensor method is C's too
    setattr(_C.Tensor, _n, globals()[_n])
for _n in ("float_power", "fmod", "heaviside"):
    setattr(_C.Tensor, _n + "_", _method_in_place(_n + "_", globals()[_n]))
