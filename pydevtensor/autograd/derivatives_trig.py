"""The derivatives of tan, the inverse trigonometric and hyperbolic functions, atan2,
log2, log10, exp2, rsqrt and erfinv (csrc/python/tensor_trig.c), under PyTorch's Node names;
the arc* aliases share their function's Node.  deg2rad, rad2deg and logcumsumexp
(pydevtensor/_ops_trig.py) are compositions that autograd records piece by piece."""
import math

from .derivatives import _unary, reduce_grad
from .derivatives_operands import _SavesOperands
from .dispatch import derivative

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0


def _register(names, cls_name, uses, formula):
    for name in names:
        _unary(name, cls_name, uses, formula)


# d tan = 1 + tan^2
_register(("tan",), "TanBackward0", "result", lambda g, y: g * (y * y + 1.0))
# d asin = 1 / sqrt(1 - x^2), d acos its negative, d atan = 1 / (1 + x^2)
_register(("asin", "arcsin"), "AsinBackward0", "input",
          lambda g, x: g * (1.0 - x * x).rsqrt())
_register(("acos", "arccos"), "AcosBackward0", "input",
          lambda g, x: -g * (1.0 - x * x).rsqrt())
_register(("atan", "arctan"), "AtanBackward0", "input", lambda g, x: g / (x * x + 1.0))
# d asinh = 1 / sqrt(x^2 + 1), d acosh = 1 / sqrt(x^2 - 1), d atanh = 1 / (1 - x^2)
_register(("asinh", "arcsinh"), "AsinhBackward0", "input",
          lambda g, x: g * (x * x + 1.0).rsqrt())
_register(("acosh", "arccosh"), "AcoshBackward0", "input",
          lambda g, x: g * (x * x - 1.0).rsqrt())
_register(("atanh", "arctanh"), "AtanhBackward0", "input", lambda g, x: g / (1.0 - x * x))
# d sinh = cosh, d cosh = sinh
_register(("sinh",), "SinhBackward0", "input", lambda g, x: g * x.cosh())
_register(("cosh",), "CoshBackward0", "input", lambda g, x: g * x.sinh())
_register(("log2",), "Log2Backward0", "input", lambda g, x: g / (x * _LN2))
_register(("log10",), "Log10Backward0", "input", lambda g, x: g / (x * _LN10))
# d 2^x = 2^x ln 2
_register(("exp2",), "Exp2Backward0", "result", lambda g, y: g * (y * _LN2))
# d rsqrt = -rsqrt(x)^3 / 2
_register(("rsqrt",), "RsqrtBackward0", "result", lambda g, y: g * (y * y * y * -0.5))
# d erfinv(x) = sqrt(pi) / 2 exp(erfinv(x)^2)
_register(("erfinv",), "ErfinvBackward0", "result",
          lambda g, y: g * ((y * y).exp() * _SQRT_PI_OVER_2))


@derivative("atan2", "arctan2")
class Atan2Backward0(_SavesOperands):
    """d atan2(a, b) = (b da - a db) / (a^2 + b^2) (either may be a number: mul's
    saving); 0 where a^2 + b^2 is 0, as PyTorch 2.15's (run side by side)."""

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        d = a * a + b * b
        w = (g / d).masked_fill(d == 0, 0.0)
        return (reduce_grad(w * b, ma) if need_a else None,
                reduce_grad(-w * a, mb) if need_b else None)
