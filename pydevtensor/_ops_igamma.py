"""The regularized incomplete gamma functions of ``torch.special``: gammainc (also
``pydevtensor.igamma`` and ``x.igamma(other)``) and gammaincc (``igammac``).

Note [incomplete gamma]
-----------------------
P(a, x) = gamma(a, x) / Gamma(a) and Q(a, x) = 1 - P(a, x), computed in float64 from
the elementwise ops (so on every device) and rounded to the result dtype once, as in
Numerical Recipes (Press et al., 3rd ed., section 6.2; DLMF 8.7.1 and 8.9.2):

- x < a + 1: the series P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1)...(a + n))
  (DLMF 8.7.1), positive terms of ratio x / (a + n) < 1; Q = 1 - P.
- x >= a + 1: the continued fraction Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) /
  (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))) (DLMF 8.9.2, NR's even form), evaluated
  by the modified Lentz method; P = 1 - Q.
- a < 0.5 and x < 1.1 (Cephes' igamc_series; DLMF 8.7.3): Q = 1 - x^a / Gamma(a + 1) -
  x^a / Gamma(a) sum_{n>=1} (-x)^n / (n! (a + n)), with 1 - x^a / Gamma(a + 1) =
  -expm1(a log x - lgamma(1 + a)), x^a / Gamma(a) = a exp(a log x - lgamma(1 + a)) and
  lgamma(1 + a) = -euler a + a - log1p(a) +
  sum_{k>=2} (zeta(k) - 1) (-a)^k / k (its Taylor series in a, which keeps the relative
  digits of lgamma(1 + a) as a -> 0, where 1 + a rounds to 1): Q ~ a E1(x) there, far
  below the absolute error of 1 - P, which kept no digits of it (and 1 / a overflows the
  series for a subnormal).  P = 1 - Q where Q < 1/2 (else the series keeps P's digits).

Each runs over the whole tensor at once, in a loop of at most _MAX_TERMS steps that
stops once every element's last term (or factor) is within 1e-16 (relative; each element
of the fraction stops at its own); both
converge within about 10 + 3 sqrt(a) steps.  For a > 200 and abs(x - a) < 0.3 a, where
they would need more steps than the bound past a = 1e6 (P was 20% off at a = 1e7, 70%
at 1e8), Temme's uniform asymptotic expansion is used instead (_igamma_temme.py; to
about 1e-15 at any a).  The prefactor x^a e^-x / Gamma(a) is
exp(a log x - x - lgamma(a)), whose rounding grows with a log x: about 1e-16 (a log x)
relative, 1e-12 at a = 1e4; for a < 0.5 it is a exp(a log x - x - lgamma(1 + a)) (the
series above), as lgamma(a) ~ -log a rounds to 1e-16 log a absolute (7e-14 at
a = 1e-300).  Q from 1 - P (x < a + 1, a >= 0.5 or x >= 1.1) has an absolute
error of about 1e-16, and Q is above 0.1 there.

The edge values are PyTorch's (Cephes'): NaN for a NaN, a < 0 or x < 0; at a = 0, P = 1
(Q = 0) for x > 0 and NaN at x = 0; at x = 0, P = 0; at a = inf, P = 0 for finite x
and NaN at x = inf; at x = inf, P = 1.  The derivative in x is
x^(a-1) e^-x / Gamma(a) (negated for Q); the one in a raises NotImplementedError at
backward time, as PyTorch's.
"""
import math

from . import _C
from ._dtype_info import result_type
from ._igamma_temme import temme_applies, temme_igamma
from ._ops_index import where
from ._out import takes_out
from ._ops_pointwise import _in_place
from ._ops_shape import broadcast_tensors
from .autograd.dispatch import derivative, recorded
from .autograd.engine import input_wanted
from .autograd.node import Node

__all__ = ["gammainc", "gammaincc", "igamma", "igammac"]

_EPS = 1e-16
_TINY = 1e-300
_MAX_TERMS = 4000
_CHECK_EVERY = 8
_EULER = 0.57721566490153286
# (zeta(k) - 1) (-1)^k / k for k = 2, 3, ..., 31 (mpmath, 40 digits, rounded): the
# Taylor coefficients of lgamma(1 + a) + euler a + log1p(a) - a, below 1e-17 at a = 0.5
# past k = 31.
_LGAMMA1P = (
    3.2246703342411322e-1, -6.7352301053198095e-2, 2.0580808427784548e-2,
    -7.3855510286739853e-3, 2.8905103307415233e-3, -1.192753911703261e-3,
    5.0966952474304242e-4, -2.2315475845357938e-4, 9.9457512781808534e-5,
    -4.4926236738133142e-5, 2.0507212775670692e-5, -9.4394882752683959e-6,
    4.3748667899074878e-6, -2.0392157538013662e-6, 9.5514121304074198e-7,
    -4.492469198764566e-7, 2.1207184805554666e-7, -1.00432248239681e-7,
    4.7698101693639806e-8, -2.2711094608943165e-8, 1.0838659214896954e-8,
    -5.1834750419700467e-9, 2.4836745438024783e-9, -1.1921401405860912e-9,
    5.731367241678862e-10, -2.7595228851242331e-10, 1.3304764374244489e-10,
    -6.4229645638381e-11, 3.1044247747322273e-11, -1.5021384080754142e-11)
_SMALL_A, _SMALL_X = 0.5, 1.1


def _converged(delta, active):
    return not bool((delta.logical_and(active)).any())


def _lower_series(a, x, active):
    """sum_n x^n / (a (a + 1)...(a + n)) where active (x < a + 1); 1 / a elsewhere."""
    x = where(active, x, 0.0)
    term = a.reciprocal()
    total = term
    ap = a
    for n in range(1, _MAX_TERMS):
        ap = ap + 1.0
        term = term * x / ap
        total = total + term
        if n % _CHECK_EVERY == 0 and _converged(term.abs() > total.abs() * _EPS, active):
            break
    return total


def _upper_fraction(a, x, active):
    """The continued fraction of Q (NR 6.2.7) by modified Lentz where active
    (x >= a + 1), at x = a + 1 elsewhere (where it converges quickly).  Each element
    stops at its own convergence: the steps past it (while others converge) would move
    it in its last digits."""
    x = where(active, x, a + 1.0)
    done = active.logical_not()
    b = x + 1.0 - a
    c = _C.full_like(a, 1.0 / _TINY)
    d = b.reciprocal()
    h = d
    for i in range(1, _MAX_TERMS):
        an = (a - i) * i
        b = b + 2.0
        d = an * d + b
        d = where(d.abs() < _TINY, _TINY, d)
        c = b + an / c
        c = where(c.abs() < _TINY, _TINY, c)
        d = d.reciprocal()
        delta = d * c
        h = where(done, h, h * delta)
        done = done.logical_or((delta - 1.0).abs() <= _EPS)
        if i % _CHECK_EVERY == 0 and bool(done.all()):
            break
    return h


def _lgamma1p(a):
    """lgamma(1 + a) for 0 <= a <= 1/2 by its Taylor series (Note [incomplete gamma])."""
    total = _C.full_like(a, _LGAMMA1P[-1])
    for c in reversed(_LGAMMA1P[:-1]):
        total = total * a + c
    return total * a * a + (a - a.log1p()) - _EULER * a


def _upper_small_a(a, x, lgamma1p, active):
    """Q(a, x) by Cephes' igamc_series where active (a < 1/2, x < 1.1; lgamma1p =
    lgamma(1 + a)): Note [incomplete gamma]; at x = 1/2 elsewhere."""
    x = where(active, x, 0.5)
    fac = _C.full_like(x, 1.0)
    total = _C.zeros_like(x)
    for n in range(1, _MAX_TERMS):
        fac = fac * -x / n
        term = fac / (a + n)
        total = total + term
        if n % _CHECK_EVERY == 0 and _converged(term.abs() > total.abs() * _EPS, active):
            break
    log_pre = a * x.log() - lgamma1p  # log(x^a / Gamma(a + 1))
    return -log_pre.expm1() - a * log_pre.exp() * total


def _igamma_f64(a, x, upper):
    """P(a, x) (or Q when upper) of float64 tensors of one shape: Note [incomplete
    gamma]."""
    bad = (a < 0).logical_or(x < 0).logical_or(a != a).logical_or(x != x)
    a_inf, x_inf = a == math.inf, x == math.inf
    edge = bad.logical_or(a == 0).logical_or(x == 0).logical_or(a_inf).logical_or(x_inf)
    sa = where(edge, 1.0, a)  # harmless values where the edge rules decide
    sx = where(edge, 1.0, x)
    series = sx < sa + 1.0
    small_a = sa < _SMALL_A
    lgamma1p = _lgamma1p(where(small_a, sa, _SMALL_A))
    # x^a e^-x / Gamma(a), as a x^a e^-x / Gamma(a + 1) for a small: lgamma(a) would
    # round to about 1e-16 lgamma(a) absolute (7e-14 at a = 1e-300) inside the exp
    pre = where(small_a, sa * (sa * sx.log() - sx - lgamma1p).exp(),
                (sa * sx.log() - sx - sa.lgamma()).exp())
    small = small_a.logical_and(sx < _SMALL_X)
    temme = temme_applies(sa, sx)  # large a, x near a: the loops would not converge
    p = _lower_series(sa, sx, series.logical_and(temme.logical_not())) * pre
    q = _upper_fraction(sa, sx, series.logical_or(small).logical_or(temme).logical_not()) * pre
    lower, upper_q = where(series, p, 1.0 - q), where(series, 1.0 - p, q)
    q_small = _upper_small_a(sa, sx, lgamma1p, small)
    upper_q = where(small, q_small, upper_q)
    lower = where(small.logical_and(q_small < 0.5), 1.0 - q_small, lower)
    out = upper_q if upper else lower
    if bool(temme.any()):
        out = where(temme, temme_igamma(sa, sx, temme, upper), out)
    one, zero = (0.0, 1.0) if upper else (1.0, 0.0)  # P's 1 is Q's 0
    out = where(x_inf, one, out)
    out = where(a_inf, where(x_inf, math.nan, zero), out)
    out = where(x == 0, zero, out)
    out = where(a == 0, where(x > 0, one, math.nan), out)
    return where(bad, math.nan, out)


@recorded("igamma")
def _igamma(a, x):
    return _igamma_f64(a.to(_C.float64), x.to(_C.float64), False).to(a.dtype)


@recorded("igammac")
def _igammac(a, x):
    return _igamma_f64(a.to(_C.float64), x.to(_C.float64), True).to(a.dtype)


@derivative("igamma")
class IgammaBackward0(Node):
    """PyTorch's: ``g x^(a-1) e^-x / Gamma(a)`` for x (negated for igammac); the
    derivative in a is not implemented (NotImplementedError, as PyTorch's)."""

    sign = 1.0

    def save(self, result, a, x):
        self.save_tensors(a, x)
        return (a, x)

    def backward(self, g):
        a, x = self.saved_tensors
        if input_wanted(self, 0):
            name = "igammac" if self.sign < 0 else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not "
                                      f"implemented.")
        a64, x64 = a.to(_C.float64), x.to(_C.float64)
        d = ((a64 - 1.0) * x64.log() - x64 - a64.lgamma()).exp() * self.sign
        return None, g * d.to(g.dtype)


@derivative("igammac")
class IgammacBackward0(IgammaBackward0):
    """PyTorch's: ``-g x^(a-1) e^-x / Gamma(a)`` for x."""

    sign = -1.0


def _operands(name, input, other):
    for arg, v in (("input", input), ("other", other)):
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"{name}(): argument '{arg}' must be a Tensor, got "
                            f"{type(v).__name__}")
    dtype = result_type(input, other)
    if not dtype.is_floating_point or dtype.is_complex:
        raise NotImplementedError(f"{name}(): not implemented for {dtype} (input "
                                  f"{input.dtype}, other {other.dtype}): a floating dtype "
                                  f"is needed")
    if input.device != other.device and input.ndim and other.ndim:
        raise _C.DeviceError(f"{name}(): expected input and other on the same device, got "
                             f"input {tuple(input.shape)} on {input.device} and other "
                             f"{tuple(other.shape)} on {other.device}")
    device = input.device if input.ndim or not other.ndim else other.device
    a, x = broadcast_tensors(input.to(device=device, dtype=dtype),
                             other.to(device=device, dtype=dtype))
    return a, x


@takes_out("gammainc", castable=True)
def gammainc(input, other):
    """The regularized lower incomplete gamma function
    ``P(a, x) = 1 / Gamma(a) int_0^x t^(a-1) e^-t dt``, a = input, x = other,
    elementwise (broadcast), as ``torch.special.gammainc`` (also ``pydevtensor.igamma``
    and the method ``a.igamma(x)``).

    Computed in float64 by the series (x < a + 1) or the continued fraction (Numerical
    Recipes 6.2; DLMF 8.7.1, 8.9.2; Note [incomplete gamma] in
    pydevtensor/_ops_igamma.py) and rounded to the result dtype once.  Edge values as
    PyTorch's: NaN for a < 0, x < 0 or NaN; P(0, x > 0) = 1, P(0, 0) = NaN,
    P(a, 0) = 0, P(inf, x) = 0 (NaN at x = inf), P(a, inf) = 1.  Differentiable in x
    (``x^(a-1) e^-x / Gamma(a)``); the gradient in a raises NotImplementedError, as
    PyTorch's.

    Parameters
    ----------
    input : Tensor
        a >= 0, floating.
    other : Tensor
        x >= 0, floating; broadcastable with input.

    Returns
    -------
    Tensor
        Of the broadcast shape and the promoted dtype of the two.

    Raises
    ------
    TypeError
        When input or other is not a Tensor.
    NotImplementedError
        When both are integers or bools (no floating dtype), as PyTorch's.
    RuntimeError
        When the shapes do not broadcast, as PyTorch's.

    Examples
    --------
    >>> a = pydevtensor.tensor([1.0, 2.0, 0.5])
    >>> pydevtensor.special.gammainc(a, pydevtensor.tensor([1.0, 3.0, 0.25]))
    tensor([0.6321, 0.8009, 0.5205])
    """
    return _igamma(*_operands("gammainc", input, other))


@takes_out("gammaincc", castable=True)
def gammaincc(input, other):
    """The regularized upper incomplete gamma function
    ``Q(a, x) = 1 - P(a, x) = 1 / Gamma(a) int_x^inf t^(a-1) e^-t dt``, a = input,
    x = other, elementwise (broadcast), as ``torch.special.gammaincc`` (also
    ``pydevtensor.igammac`` and the method ``a.igammac(x)``).

    Computed as gammainc (Note [incomplete gamma] in pydevtensor/_ops_igamma.py), Q
    directly by the continued fraction for x >= a + 1 (so small values keep their
    digits there).  Edge values as PyTorch's: NaN for a < 0, x < 0 or NaN;
    Q(0, x > 0) = 0, Q(0, 0) = NaN, Q(a, 0) = 1, Q(inf, x) = 1 (NaN at x = inf),
    Q(a, inf) = 0.  Differentiable in x (``-x^(a-1) e^-x / Gamma(a)``); the gradient in
    a raises NotImplementedError, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        a >= 0, floating.
    other : Tensor
        x >= 0, floating; broadcastable with input.

    Returns
    -------
    Tensor
        Of the broadcast shape and the promoted dtype of the two.

    Raises
    ------
    TypeError
        When input or other is not a Tensor.
    NotImplementedError
        When both are integers or bools (no floating dtype), as PyTorch's.
    RuntimeError
        When the shapes do not broadcast, as PyTorch's.

    Examples
    --------
    >>> a = pydevtensor.tensor([1.0, 2.0, 10.0])
    >>> pydevtensor.special.gammaincc(a, pydevtensor.tensor([1.0, 3.0, 40.0]))
    tensor([3.6788e-01, 1.9915e-01, 3.9259e-09])
    """
    return _igammac(*_operands("gammaincc", input, other))


@takes_out("igamma", castable=True)
def igamma(input, other):
    """``pydevtensor.special.gammainc`` under its top-level name, as ``torch.igamma``.

    Parameters
    ----------
    input : Tensor
        a >= 0.
    other : Tensor
        x >= 0.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When input or other is not a Tensor.

    Examples
    --------
    >>> pydevtensor.igamma(pydevtensor.tensor([1.0]), pydevtensor.tensor([2.0]))
    tensor([0.8647])
    """
    return _igamma(*_operands("igamma", input, other))


@takes_out("igammac", castable=True)
def igammac(input, other):
    """``pydevtensor.special.gammaincc`` under its top-level name, as ``torch.igammac``.

    Parameters
    ----------
    input : Tensor
        a >= 0.
    other : Tensor
        x >= 0.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When input or other is not a Tensor.

    Examples
    --------
    >>> pydevtensor.igammac(pydevtensor.tensor([1.0]), pydevtensor.tensor([2.0]))
    tensor([0.1353])
    """
    return _igammac(*_operands("igammac", input, other))


_C.Tensor.igamma = igamma
_C.Tensor.igammac = igammac
_C.Tensor.igamma_ = _in_place(igamma, ("pydevtensor.tensor([1.0, 2.0])",
                                       "tensor([0.6321, 0.5940])"))
_C.Tensor.igammac_ = _in_place(igammac, ("pydevtensor.tensor([1.0, 2.0])",
                                         "tensor([0.3679, 0.4060])"))
