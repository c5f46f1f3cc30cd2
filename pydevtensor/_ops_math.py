"""Public names of the elementwise operations (issue 4), re-exported by pydevtensor/__init__.

The functions live in the C extension (csrc/python/tensor_math.c); the operators
(``+ - * / // % **``, comparisons, ``-x``, ``abs(x)`` and the in-place forms) and the
method forms (``x.exp()``, ``x.add_(y)``, ...) are on ``Tensor`` itself.  Dtypes
promote as in PyTorch: see Note [elementwise dtypes] in csrc/core/pdt_elementwise.h.
"""
import math

from . import _C

add = _C.add
sub = _C.sub
mul = _C.mul
div = _C.div
true_divide = _C.true_divide
floor_divide = _C.floor_divide
remainder = _C.remainder
pow = _C.pow
maximum = _C.maximum
minimum = _C.minimum
eq = _C.eq
ne = _C.ne
lt = _C.lt
le = _C.le
gt = _C.gt
ge = _C.ge
neg = _C.neg
abs = _C.abs
exp = _C.exp
log = _C.log
sqrt = _C.sqrt
sin = _C.sin
cos = _C.cos
tanh = _C.tanh
sigmoid = _C.sigmoid
relu = _C.relu
clamp = _C.clamp
floor = _C.floor
ceil = _C.ceil
trunc = _C.trunc
sign = _C.sign
log1p = _C.log1p
expm1 = _C.expm1
erf = _C.erf
erfc = _C.erfc
lgamma = _C.lgamma
digamma = _C.digamma

# PyTorch's aliases
subtract = sub
multiply = mul
divide = div
negative = neg
clip = clamp
fix = trunc
absolute = abs
greater = gt
greater_equal = ge
less = lt
less_equal = le
not_equal = ne

# ... and as methods (x.clip(0, 1), x.multiply_(2)), the C methods under a second name
_T = _C.Tensor
for _alias, _name in (("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
                      ("negative", "neg"), ("clip", "clamp"), ("absolute", "abs"),
                      ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                      ("less_equal", "le"), ("not_equal", "ne")):
    for _suffix in ("", "_"):
        if hasattr(_T, _name + _suffix) and not hasattr(_T, _alias + _suffix):
            setattr(_T, _alias + _suffix, getattr(_T, _name + _suffix))


def _round_decimals(x, decimals, name):
    """x rounded to `decimals` places, PyTorch's way: round(x * 10^d) / 10^d, or for
    d < 0 round(x / 10^-d) * 10^-d (halves to even in the scaled value)."""
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"{name}(): decimals must be an int, got {type(decimals).__name__}")
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name}(): decimals={decimals} needs a floating-point tensor, got "
                        f"{x.dtype.name} on {x.device}")
    d = decimals if decimals > 0 else -decimals  # (abs is the tensor op here)
    scale = 10.0 ** d if d <= 308 else math.inf  # beyond: NaN and inf, as PyTorch's
    half = x.dtype in (_C.float16, _C.bfloat16)
    v = x.float() if half else x  # PyTorch computes halves in float32 (its opmath)
    v = _C.round(v * scale) / scale if decimals > 0 else _C.round(v / scale) * scale
    return v.to(x.dtype) if half else v


def round(input, *, decimals=0, out=None):
    """The nearest integer, halves to even (integers come back as they are); with
    ``decimals``, to that many decimal places (negative: to tens, hundreds...), as
    ``round(input * 10**decimals) / 10**decimals``, PyTorch's definition.

    Parameters
    ----------
    input : Tensor
        The operand (also the method ``x.round(decimals=0)``).
    decimals : int, optional
        Decimal places (default 0); other than 0 needs a floating-point input.
    out : Tensor, optional
        Where to write the result.

    Returns
    -------
    Tensor
        Of input's shape, dtype and device (out when given).

    Raises
    ------
    TypeError
        For a non-int decimals, or decimals with an integer or bool input.

    Examples
    --------
    >>> x = pydevtensor.tensor([0.5, 1.5, 2.5, 1.2345])
    >>> pydevtensor.round(x)
    tensor([0., 2., 2., 1.])
    >>> pydevtensor.round(x, decimals=2)
    tensor([0.5000, 1.5000, 2.5000, 1.2300])
    """
    if decimals == 0 and type(decimals) is int:
        return _C.round(input) if out is None else _C.round(input, out=out)
    r = _round_decimals(input, decimals, "round")
    return r if out is None else out.copy_(r)


def _tensor_round(self, *, decimals=0):
    """round(decimals=0) -> Tensor

    The nearest integer, halves to even, or to ``decimals`` places, as
    pydevtensor.round(self, decimals=decimals).

    Parameters
    ----------
    decimals : int, optional
        Decimal places (default 0).

    Returns
    -------
    Tensor

    Examples
    --------
    >>> pydevtensor.tensor([2.5, 0.125]).round(decimals=2)
    tensor([2.5000, 0.1200])
    """
    return round(self, decimals=decimals)


_C.Tensor.round = _tensor_round
_round_in_place = _C.Tensor.round_


def _tensor_round_(self, *, decimals=0):
    """round_(decimals=0) -> Tensor

    In place: the nearest integer, halves to even, or to ``decimals`` places, as
    self.round(decimals=decimals) written into self.

    Parameters
    ----------
    decimals : int, optional
        Decimal places (default 0); other than 0 needs a floating-point tensor.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.tensor([2.5, 0.125])
    >>> x.round_(decimals=2)
    tensor([2.5000, 0.1200])
    """
    if decimals == 0 and type(decimals) is int:
        return _round_in_place(self)
    return self.copy_(_round_decimals(self, decimals, "round_"))


_C.Tensor.round_ = _tensor_round_

__all__ = [
    "abs", "absolute", "add", "ceil", "clamp", "clip", "cos", "div", "divide", "eq", "erf",
    "erfc", "exp", "expm1", "fix", "floor", "floor_divide", "ge", "greater", "greater_equal",
    "gt", "le", "less", "less_equal", "log", "log1p", "lt", "maximum", "lgamma", "digamma",
    "minimum", "mul", "multiply", "ne", "neg", "negative", "not_equal", "pow", "relu",
    "remainder", "round", "sigmoid", "sign", "sin", "sqrt", "sub", "subtract", "tanh",
    "true_divide", "trunc",
]
