"""The special functions of ``torch.special`` with no kernel of their own here: the
modified Bessel functions i0, i0e, i1, i1e (i0 also at the top level and as a method),
and the normal-distribution functions ndtri, log_ndtr and erfcx.

Each is computed in float64 from the elementwise ops (so it runs on every device) and
rounded to the input's dtype once; integers and bools give the default float dtype.
Their gradients are PyTorch's closed forms (Nodes below), not the derivatives of the
series.

Note [modified Bessel functions]
--------------------------------
exp(-a) I_nu(a) for a = |x| and nu in {0, 1}:

- a <= 25: the power series I_nu(a) = sum_k (a/2)^(2k+nu) / (k! (k+nu)!), positive
  terms (no cancellation), 50 of them: the first left out is below 1e-19 of the sum.
- a > 25: the asymptotic series exp(-a) I_nu(a) = (2 pi a)^(-1/2) sum_k (-1)^k
  a_k(nu) / a^k, a_k(nu) = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k), 25 terms: the
  first left out is below 1e-18.

Note [erfcx]
------------
erfcx(x) = exp(x^2) erfc(x).  For x < 10, exp(x^2) erfc(x) with x^2 split exactly
(x = hi + lo, hi a multiple of 2^-12, so hi^2 is exact and exp(x^2) =
exp(hi^2) exp(lo (2 hi + lo)) loses no digits to the rounding of x^2); it overflows to
inf below x = -26.6, as erfcx does.  For x >= 10 the asymptotic series
(x sqrt(pi))^-1 sum_k (-1)^k (2k-1)!! / (2 x^2)^k, 16 terms (the first left out is
below 1e-18).  log_ndtr(x) is log1p(-erfc(x / sqrt 2) / 2) for x >= 0 and
log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below (no underflow).  ndtri solves
ndtr(x) = p by Newton's method: in [1/4, 3/4] on erf(x / sqrt 2) / 2 = p - 1/2 (both
sides exact near 0, so x keeps its relative accuracy there), in the tails on
log_ndtr(x) = log(q), q = min(p, 1 - p) (exact), from sqrt(2) erfinv(2q - 1) or, below
q = 1e-5, the asymptotic -sqrt(t - log t - log 2 pi), t = -2 log q.
"""
import math

from . import _C
from ._ops_index import where
from ._ops_pointwise import _in_place
from ._ops_special import _floating, _where_other
from ._out import _out_written, refuse_grad
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

_SWITCH = 25.0
_SERIES_TERMS = 50
_ASYMPTOTIC_TERMS = 25


def _scaled_bessel(nu, a):
    """exp(-a) I_nu(a) for float64 a >= 0 (Note [modified Bessel functions])."""
    s = a.clamp(max=_SWITCH)
    q = s * s * 0.25
    term = s * 0.5 if nu else _C.ones_like(s)
    total = term
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + nu))
        total = total + term
    series = total * (-s).exp()
    z = a.clamp(min=_SWITCH)
    term = _C.ones_like(z)
    total = term
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * (((2 * k - 1) ** 2 - 4 * nu * nu) / (8 * k)) / z
        total = total + term
    # z.sqrt() first: z * 2 pi overflows for z above 2.8e307
    return where(a <= _SWITCH, series, total / math.sqrt(2 * math.pi) / z.sqrt())


def _unscaled(scaled, a):
    """scaled * exp(a), inf at a = inf (not NaN); above a = 700 as (scaled * exp(a / 2))
    * exp(a / 2), finite up to where I_nu overflows (a = 713.98), not where exp(a)
    does (709.78)."""
    half = (a.clamp(min=700.0) * 0.5).exp()
    large = scaled * half * half
    return where(a == math.inf, math.inf, where(a <= 700.0, scaled * a.clamp(max=700.0).exp(),
                                                large))


def _i0e_f64(x):
    return _scaled_bessel(0, x.abs())


def _i1e_f64(x):
    return _scaled_bessel(1, x.abs()) * x.sign()


def _i0_f64(x):
    a = x.abs()
    return _unscaled(_scaled_bessel(0, a), a)


def _i1_f64(x):
    a = x.abs()
    return _unscaled(_scaled_bessel(1, a), a) * x.sign()


_SQRT_HALF = math.sqrt(0.5)
_ERFCX_SWITCH = 10.0
_ERFCX_TERMS = 16


def _erfcx_f64(x):
    """Note [erfcx]."""
    d = x.clamp(min=-30.0, max=_ERFCX_SWITCH)  # exp(900) is inf already
    hi = (d * 4096.0).round() / 4096.0
    lo = d - hi
    direct = (hi * hi).exp() * (lo * (hi * 2.0 + lo)).exp() * d.erfc()
    z = x.clamp(min=_ERFCX_SWITCH)
    w = (z * z * 2.0).reciprocal()
    term = _C.ones_like(z)
    total = term
    for k in range(1, _ERFCX_TERMS):
        term = term * w * -(2 * k - 1)
        total = total + term
    # divided by z last: z sqrt(pi) overflows for z above 1e308 (the result is subnormal)
    return where(x < _ERFCX_SWITCH, direct, total / math.sqrt(math.pi) / z)


def _log_ndtr_f64(x):
    neg = x.clamp(max=0.0)
    pos = x.clamp(min=0.0)
    # (x / 2) x: x^2 / 2 is finite up to |x| = 1.9e154, x^2 only to 1.3e154
    lower = (_erfcx_f64(neg * -_SQRT_HALF) * 0.5).log() - neg * 0.5 * neg
    upper = ((pos * _SQRT_HALF).erfc() * -0.5).log1p()
    return where(x < 0, lower, upper)


def _normal_ratio_f64(x):
    """phi(x) / Phi(x), the derivative of log_ndtr, without underflow or overflow."""
    neg = x.clamp(max=0.0)
    pos = x.clamp(min=0.0)
    lower = math.sqrt(2 / math.pi) / _erfcx_f64(neg * -_SQRT_HALF)
    upper = (pos * pos * -0.5).exp() / ((pos * -_SQRT_HALF).erfc() * 0.5 * math.sqrt(
        2 * math.pi))
    return where(x < 0, lower, upper)


_NEWTON_STEPS = 6


def _ndtri_f64(p):
    """Note [erfcx] (its last part)."""
    from ._ops_trig import erfinv
    mid = (p - 0.5).clamp(min=-0.25, max=0.25)  # exact: Sterbenz
    x = erfinv(mid * 2.0) * math.sqrt(2)
    for _ in range(2):
        x = x - ((x * _SQRT_HALF).erf() * 0.5 - mid) / (
            (x * x * -0.5).exp() / math.sqrt(2 * math.pi))
    central = x
    q = where(p > 0.5, 1.0 - p, p).clamp(min=1e-320, max=0.25)
    lq = q.log()
    t = lq * -2.0
    tail = (t - t.log() - math.log(2 * math.pi)).clamp(min=0.0).sqrt().neg()
    x = where(q < 1e-5, tail, erfinv(q * 2.0 - 1.0) * math.sqrt(2))
    for _ in range(_NEWTON_STEPS):
        x = x - (_log_ndtr_f64(x) - lq) / _normal_ratio_f64(x)
    x = where(p > 0.5, -x, x)
    out = where((p - 0.5).abs() <= 0.25, central, x)
    out = where(p == 0, -math.inf, where(p == 1, math.inf, out))
    return where((p < 0).logical_or(p > 1), math.nan, where(p != p, p, out))


def _in_f64(fn):
    """x -> fn(x in float64) rounded to x's dtype."""
    return lambda x: fn(x.to(_C.float64)).to(x.dtype)


@recorded("special_i0")
def _i0(x):
    return _in_f64(_i0_f64)(x)


@recorded("special_i0e")
def _i0e(x):
    return _in_f64(_i0e_f64)(x)


@recorded("special_i1")
def _i1(x):
    return _in_f64(_i1_f64)(x)


@recorded("special_i1e")
def _i1e(x):
    return _in_f64(_i1e_f64)(x)


@recorded("special_ndtri")
def _ndtri(x):
    return _in_f64(_ndtri_f64)(x)


@recorded("special_log_ndtr")
def _log_ndtr(x):
    return _in_f64(_log_ndtr_f64)(x)


@recorded("special_erfcx")
def _erfcx(x):
    return _in_f64(_erfcx_f64)(x)


class _UnaryBackward(Node):
    """g times the derivative, a closed form of x and the result (``grad`` of the
    subclass, computed in float64 and rounded to x's dtype)."""

    def save(self, result, x):
        self.save_tensors(x, result, outputs=(1,))
        return (x,)

    def backward(self, g):
        x, r = self.saved_tensors
        return (g * self.grad(x.to(_C.float64), r.to(_C.float64)).to(g.dtype),)


# Note [Bessel derivatives near 0]: the derivatives are written with the recorded ops
# (i1 for i0's, ...), so that a second derivative (create_graph) is theirs: i0''(0) =
# i1'(0) = 1/2, not the 0 of |x|'s and sign's derivatives at 0.  i1's and i1e's own
# derivatives, i0 - i1 / x and i0e - i1e (sign x + 1 / x), lose every digit as x -> 0
# (i1(x) / x at x = 5e-324, where i1(x) = x / 2 rounds; their derivatives divide by
# x^2, which underflows): below _SERIES_BELOW they are the Taylor series in x (I1's,
# DLMF 10.25.2, differentiated) and in |x| (exp(-|x|) I1(|x|)'s, by mpmath.taylor at
# 40 digits), whose next terms are below 1e-17 there; the second derivatives of the
# closed forms above it keep about 1e-16 / x^2 of their digits.
_SERIES_BELOW = 0.1
_I1_PRIME = tuple(0.0 if n % 2 else (n + 1) / (2 ** (n + 1) * math.factorial(n // 2)
                                               * math.factorial(n // 2 + 1))
                  for n in range(11))  # x^n; x = 0.1: the next, x^12 / 2.3e9, is 4e-22
_I1E_PRIME = (  # |x|^n; |x| = 0.1: the next, 2.46e-6 |x|^12, is 2.5e-18
    0.5, -1.0, 0.9375, -0.58333333333333333, 0.2734375, -0.103125, 0.032584635416666667,
    -0.0088665674603174603, 0.0021196637834821429, -0.00045200462274029982,
    8.7010889877507716e-5, -1.5267009285563973e-5)


def _near_zero(x, series, fn):
    """The polynomial series in a(x) where |x| < _SERIES_BELOW (a(x) = x or |x|), fn(x)
    elsewhere (fed a harmless 1 where the series is taken: Note [the other branch of
    where] in pydevtensor/_ops_special.py)."""
    coefficients, a = series
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = a * total + c
    return _where_other(x.abs() < _SERIES_BELOW, total, fn, x)


@derivative("special_i0")
class I0Backward0(_UnaryBackward):
    """PyTorch's: ``g i1(x)`` (Note [Bessel derivatives near 0])."""
    grad = staticmethod(lambda x, r: _i1(x))


# Note [i0e's and i1e's derivatives far out]: i1e(z) - i0e(z) ~ -1 / (2 z sqrt(2 pi z))
# cancels to about z ulps (1% at z = 2.4e13, every digit at 1.4e15): from z = 30 it is
# its asymptotic series (DLMF 10.40.1, the two series' difference; 30 terms, 1e-16 there).
_DIFF_FROM, _DIFF_TERMS = 30.0, 30


def _diff_coefficients():
    out, a0, a1 = [], 1.0, 1.0
    for k in range(1, _DIFF_TERMS + 1):
        a0 *= -((2 * k - 1) ** 2) / (8 * k)
        a1 *= (4 - (2 * k - 1) ** 2) / (8 * k)
        out.append((-1) ** k * (a1 - a0))
    return tuple(out)


_DIFF = _diff_coefficients()


def _i1e_minus_i0e_far(z):
    """i1e(z) - i0e(z) at float64 z >= _DIFF_FROM by its asymptotic series (Note [i0e's and
    i1e's derivatives far out])."""
    w = z.reciprocal()
    total = _C.zeros_like(z)
    for c in reversed(_DIFF):
        total = w * (total + c)
    return total / (z.sqrt() * math.sqrt(2 * math.pi))


def _far_out(x, near, far):
    """near where abs(x) < _DIFF_FROM, far(x) elsewhere (NaN too)."""
    return _where_other(x.abs() < _DIFF_FROM, near, far, x)


@derivative("special_i0e")
class SpecialI0EBackward0(_UnaryBackward):
    """PyTorch's: ``g (i1e(x) - sign(x) i0e(x))`` (Note [Bessel derivatives near 0]),
    sign(x) (i1e - i0e)(abs(x)) with Note [i0e's and i1e's derivatives far out]."""
    # i0e(x) in float64 again, not the result: for float32 its rounding, times the
    # 2 |x| of the cancellation, was the whole gradient at large |x|
    grad = staticmethod(lambda x, r: _far_out(x, _i1e(x) - x.sign() * _i0e(x),
                                              lambda v: v.sign() * _i1e_minus_i0e_far(v.abs())))


@derivative("special_i1")
class SpecialI1Backward0(_UnaryBackward):
    """PyTorch's: ``g (i0(x) - i1(x) / x)``, its series near 0 (Note [Bessel derivatives
    near 0])."""
    grad = staticmethod(lambda x, r: _near_zero(
        x, (_I1_PRIME, x), lambda y: _i0(y) - _i1(y) / y))


@derivative("special_i1e")
class SpecialI1EBackward0(_UnaryBackward):
    """PyTorch's: ``g (i0e(x) - i1e(x) (sign(x) + 1 / x))``, its series near 0 (Note
    [Bessel derivatives near 0])."""
    grad = staticmethod(lambda x, r: _near_zero(
        x, (_I1E_PRIME, x.abs()), lambda y: _far_out(
            y, _i0e(y) - _i1e(y) * (y.sign() + y.reciprocal()),
            lambda v: -_i1e_minus_i0e_far(v.abs()) - _i1e(v) / v)))


@derivative("special_ndtri")
class SpecialNdtriBackward0(_UnaryBackward):
    """PyTorch's: ``g sqrt(2 pi) exp(ndtri(p)^2 / 2)``."""
    grad = staticmethod(lambda x, r: (r * r * 0.5).exp() * math.sqrt(2 * math.pi))


@recorded("_normal_ratio")
def _normal_ratio(x):
    return _normal_ratio_f64(x)


@derivative("special_log_ndtr")
class SpecialLogNdtrBackward0(_UnaryBackward):
    """PyTorch's: ``g phi(x) / Phi(x)`` (computed without underflow), recorded as its own
    op, whose derivative is its closed form (its pieces' was 0 at x = 0 and for a NaN)."""
    grad = staticmethod(lambda x, r: _normal_ratio(x))


@derivative("_normal_ratio")
class NormalRatioBackward0(_UnaryBackward):
    """The derivative of R = phi(x) / Phi(x): ``-R (x + R)`` (-2 / pi at 0)."""
    grad = staticmethod(lambda x, r: -r * (x + r))


@derivative("special_erfcx")
class SpecialErfcxBackward0(_UnaryBackward):
    """PyTorch's: ``g (2 x erfcx(x) - 2 / sqrt(pi))`` (Note [erfcx's derivative])."""
    grad = staticmethod(lambda x, r: _erfcx_prime_f64(x))


# Note [erfcx's derivative]
# 2 x erfcx(x) - 2 / sqrt(pi) cancels: about -1 / (sqrt(pi) x^2) is left of 1.13, so
# the result's rounding (float32's 6e-8) was the whole gradient from x ~ 1e3 (float32
# erfcx at 2.8e8: 3e-8 for -7e-18).  Below _ERFCX_SWITCH it takes erfcx(x) in float64
# again, not the rounded result (2 x^2 of float64's rounding left: 1e-13 at 10); above,
# the asymptotic series of Note [erfcx] times 2x, less its first term:
# (2 / sqrt(pi)) sum_{k>=1} (-1)^k (2k-1)!! / (2 x^2)^k, 16 terms (the first left out
# is below 1e-17 of the sum).  NaN at inf, -inf at -inf, as PyTorch's.
def _erfcx_prime_f64(x):
    direct = x * _erfcx(x) * 2.0 - 2 / math.sqrt(math.pi)
    z = x.clamp(min=_ERFCX_SWITCH)
    w = (z * z * 2.0).reciprocal()
    term = -w
    total = term
    for k in range(2, _ERFCX_TERMS + 1):
        term = term * w * -(2 * k - 1)
        total = total + term
    large = where(x == math.inf, math.nan, total * (2 / math.sqrt(math.pi)))
    return where(x < _ERFCX_SWITCH, direct, large)


_DOC = """{what}, elementwise, as ``torch.special.{name}``{also}.

    Computed in float64 and rounded to input's dtype once (Note [{note}] in
    pydevtensor/_ops_special_more.py); differentiable ({grad}).

    Parameters
    ----------
    input : Tensor
        Integers and bools give the default float dtype.
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's), input's device, and input's shape or no elements (then given
        it).

    Returns
    -------
    Tensor
        Of input's shape{ret}.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    RuntimeError
        For an out of a dtype the result cannot be cast to (DTypeError), another device
        or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.special.{name}(pydevtensor.tensor({arg}))
    {result}
    """


def _public(name, op, what, note, grad, arg, result, also="", ret=""):
    def fn(input, *, out=None):
        if out is not None:
            refuse_grad(name, input)
            return _out_written(fn(input), out, name, castable=True)
        return op(_floating(input, name))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOC.format(name=name, what=what, note=note, grad=grad, arg=arg,
                             result=result, also=also, ret=ret)
    return fn


_BESSEL = "modified Bessel functions"
i0 = _public("i0", _i0, "The modified Bessel function of the first kind of order 0, "
             "I0(x)", _BESSEL, "its derivative is i1", "[0.0, 1.0, -2.0]",
             "tensor([1.0000, 1.2661, 2.2796])", also=" (also ``pydevtensor.i0`` and the "
             "methods ``x.i0()`` and ``x.i0_()``)", ret="; inf beyond about 713\n        and at +-inf, the limit, deliberately (PyTorch 2.15 gives NaN there)")
i0e = _public("i0e", _i0e, "The exponentially scaled modified Bessel function of order "
              "0, ``exp(-abs(x)) I0(x)``", _BESSEL, "its derivative is i1e(x) - sign(x) i0e(x)",
              "[0.0, 1.0, 100.0]", "tensor([1.0000, 0.4658, 0.0399])")
i1 = _public("i1", _i1, "The modified Bessel function of the first kind of order 1, "
             "I1(x) (odd)", _BESSEL, "its derivative is i0(x) - i1(x) / x, 1/2 at 0",
             "[0.0, 1.0, -2.0]", "tensor([ 0.0000,  0.5652, -1.5906])")
i1e = _public("i1e", _i1e, "The exponentially scaled modified Bessel function of order "
              "1, ``exp(-abs(x)) I1(x)``", _BESSEL,
              "its derivative is i0e(x) - i1e(x) (sign(x) + 1 / x), 1/2 at 0",
              "[0.0, 1.0, -100.0]", "tensor([ 0.0000,  0.2079, -0.0397])")
ndtri = _public("ndtri", _ndtri, "The inverse of the standard normal distribution "
                "function ndtr: the x with ndtr(x) = p", "erfcx",
                "its derivative is sqrt(2 pi) exp(ndtri(p)^2 / 2)", "[0.0, 0.5, 0.975]",
                "tensor([  -inf, 0.0000, 1.9600])",
                ret=": -inf at 0, inf at 1, NaN outside [0, 1]")
log_ndtr = _public("log_ndtr", _log_ndtr, "The log of the standard normal distribution "
                   "function, log(ndtr(x)), accurate in both tails", "erfcx",
                   "its derivative is phi(x) / ndtr(x), computed without underflow",
                   "[-40.0, 0.0, 3.0]", "tensor([-8.0461e+02, -6.9315e-01, -1.3508e-03])")
erfcx = _public("erfcx", _erfcx, "The scaled complementary error function, "
                "exp(x^2) erfc(x)", "erfcx", "its derivative is 2 x erfcx(x) - 2 / sqrt(pi)",
                "[-1.0, 0.0, 30.0]", "tensor([5.0090, 1.0000, 0.0188])",
                ret="; inf below about -26.6")

_C.Tensor.i0 = i0
_C.Tensor.i0_ = _in_place(i0, ("", "tensor([1.2661, 2.2796])"))

__all__ = ["erfcx", "i0", "i0e", "i1", "i1e", "log_ndtr", "ndtri"]
