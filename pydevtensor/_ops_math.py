"""Public names of the elementwise operations (issue 4), re-exported by pydevtensor/__init__.

The functions live in the C extension (csrc/python/tensor_math.c); the operators
(``+ - * / // % **``, comparisons, ``-x``, ``abs(x)`` and the in-place forms) and the
method forms (``x.exp()``, ``x.add_(y)``, ...) are on ``Tensor`` itself.  Dtypes
promote as in PyTorch: see Note [elementwise dtypes] in csrc/core/pdt_elementwise.h.
"""
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
round = _C.round
trunc = _C.trunc
sign = _C.sign
log1p = _C.log1p
expm1 = _C.expm1

# PyTorch's aliases
subtract = sub
multiply = mul
divide = div
negative = neg
clip = clamp
fix = trunc

__all__ = [
    "abs", "add", "ceil", "clamp", "clip", "cos", "div", "divide", "eq", "exp", "expm1", "fix",
    "floor", "floor_divide", "ge", "gt", "le", "log", "log1p", "lt", "maximum", "minimum", "mul",
    "multiply", "ne", "neg", "negative", "pow", "relu", "remainder", "round", "sigmoid", "sign",
    "sin", "sqrt", "sub", "subtract", "tanh", "true_divide", "trunc",
]
