"""Pareto, Weibull, HalfCauchy, Kumaraswamy and LogisticNormal: PyTorch's distributions
of those names, each a TransformedDistribution of an Exponential, a Cauchy, a Uniform or
a Normal, as PyTorch builds them."""
import math

from .. import _C
from .._dtype_info import finfo
from .._ops_index import where
from . import constraints
from ._lgamma_steps import step, step2
from .cauchy import Cauchy
from .exponential import Exponential
from .gamma import _as_tensor
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ExpTransform, PowerTransform,
                         StickBreakingTransform)
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["HalfCauchy", "Kumaraswamy", "LogisticNormal", "Pareto", "Weibull"]

_EULER_GAMMA = 0.57721566490153286060


def _log_edge(c):
    """(c - 1) log 0 without 0 * inf: -inf, 0 or +inf as c > 1, c = 1, c < 1."""
    return where(c > 1, -math.inf, where(c < 1, math.inf, 0.0))

# zeta(j) (2^j - 2) / j for j = 2..7: lgamma(1 + 2r) - 2 lgamma(1 + r)'s Taylor coefficients
_ZETA = [z * (2 ** j - 2) / j for j, z in enumerate(
    [math.pi ** 2 / 6, 1.2020569031595942854, math.pi ** 4 / 90, 1.0369277551433699263,
     math.pi ** 6 / 945, 1.0083492773819228268], start=2)]


class Pareto(TransformedDistribution):
    """The Pareto (type I) distribution of density ``alpha scale^alpha / x^(alpha + 1)``
    for x >= scale: ``scale exp(E)`` for E exponential of rate alpha; reparameterisable.
    The mean is inf for alpha <= 1, the variance for alpha <= 2, as PyTorch's.

    Parameters
    ----------
    scale : float or Tensor
        The least value, > 0.
    alpha : float or Tensor
        The shape (tail index), > 0.
    validate_args : bool, optional
        Check the parameters and, in log_prob, that values are >= scale (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Pareto
    >>> d = Pareto(pydevtensor.tensor([1.0]), 3.0)
    >>> d.log_prob(pydevtensor.tensor([2.0])), d.mean
    (tensor([-1.6740]), tensor([1.5000]))
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        # alpha is checked as Pareto's (the error names it), not as the base's rate
        base_dist = Exponential(self.alpha, validate_args=False)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """[scale, inf).

        Examples
        --------
        >>> from pydevtensor.distributions import Pareto
        >>> Pareto(2.0, 1.0).support
        GreaterThanEq(lower_bound=2.0)
        """
        return constraints.greater_than_eq(self.scale)

    def cdf(self, value):
        # 1 - (scale / x)^alpha = -expm1(-alpha log(x / scale)), log(x / scale) as
        # log1p((x - scale) / scale) below 2 scale (x - scale exact): x / scale's rounding
        # was all of log(x / scale) near scale (6.4% off at x = scale (1 + 1e-15), scale =
        # 1e-5, as PyTorch's, whose 1 - exp(..) is also 0 while alpha log(x / scale) <
        # eps / 2: x < 1.000001 scale at alpha = 1e-10)
        value = _as_tensor(value, self.scale)
        naive = super().cdf(value)
        scale, alpha, x = (t.to(naive.dtype) for t in broadcast_all(
            self.scale, self.alpha, value))
        ok = (x >= scale) & x.isfinite()
        near = ok & (x <= 2 * scale)
        xs = where(ok, x, scale)
        log_ratio = where(near, ((xs - scale) / scale).log1p(),
                          (where(near, 2 * scale, xs) / scale).log())
        return where(ok, -(-alpha * log_ratio).expm1(), naive)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """The Weibull distribution of cdf ``1 - exp(-(x / scale)^concentration)``:
    ``scale E^(1 / concentration)`` for E exponential of rate 1; reparameterisable.
    log_prob is the closed form for x >= 0 (PyTorch's, through the transforms, is -inf
    or nan where the powers under- or overflow, and nan at 0 for concentration 1).

    Parameters
    ----------
    scale : float or Tensor
        > 0.
    concentration : float or Tensor
        The shape, > 0.
    validate_args : bool, optional
        Check the parameters and, in log_prob, that values are > 0 (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Weibull
    >>> d = Weibull(pydevtensor.tensor([1.0]), 2.0)
    >>> d.cdf(pydevtensor.tensor([1.0])), d.mean
    (tensor([0.6321]), tensor([0.8862]))
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(_C.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        shape = tuple(batch_shape)
        new.scale = self.scale.expand(shape)
        new.concentration = self.concentration.expand(shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, self.base_dist.expand(shape), transforms,
                                         validate_args=False)
        new._validate_args = self._validate_args
        return new

    def log_prob(self, value):
        # the closed form log k - log scale + (k - 1) log y - y^k, y = x / scale, for x >= 0:
        # through the transforms y^k under- or overflowed into the power's log-Jacobian
        # (k = 100 at x = 1e-4 and k = 2 at 1e-200 gave -inf for -907.2 and -459.8; k = 1
        # at 0 nan for -log scale), as PyTorch's
        if self._validate_args:
            self._validate_sample(value)
        value = _as_tensor(value, self.scale)
        ok = (value >= 0) & value.isfinite()
        # the transforms' form away from ok's points only (its 0 * inf there would make
        # the gradient nan through where)
        naive = super().log_prob(where(ok, self.scale, value))
        k, scale, x = (t.to(naive.dtype) for t in broadcast_all(
            self.concentration, self.scale, value))
        ok = ok.expand(tuple(x.shape))
        xs = where(ok & (x > 0), x, 1.0)
        ratio = xs / scale
        # y and y^k directly where y is normal (one rounding), else through logs
        fits = (ratio >= finfo(ratio.dtype).tiny) & ratio.isfinite()
        rs = where(fits, ratio, 1.0)
        log_y = where(fits, rs.log(), xs.log() - scale.log())
        power = where(fits, rs.pow(k), (k * where(fits, 0.0, log_y)).exp())
        power = where(x > 0, power, 0.0)
        # x = 0: (k - 1) log y is -inf, 0 or +inf as k > 1, k = 1, k < 1 (no 0 * inf)
        stable = (k.log() - scale.log() - power
                  + where(x > 0, (k - 1) * log_y, _log_edge(k)))
        return where(ok, stable, naive)

    @property
    def mean(self):
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        # Gamma(1 + r)^2 expm1(lgamma(1 + 2r) - 2 lgamma(1 + r)): the difference of the two
        # gammas was inf - inf = nan once Gamma(1 + 2r) overflowed (k = 0.01: inf), and for
        # r below 5e-3 (0.05 below float64) the log ratio is its series, the sum over j >= 2
        # of (-1)^j zeta(j) (2^j - 2) / j r^j to j = 7 (1 + 2r rounds: k = 1e9 gave 1.1e-16
        # for 1.6e-18)
        r = self.concentration_reciprocal
        small = r < (5e-3 if r.dtype == _C.float64 else 0.05)
        rs = where(small, r, 0.0)
        series = rs * rs * (_ZETA[0] - rs * (_ZETA[1] - rs * (_ZETA[2] - rs * (
            _ZETA[3] - rs * (_ZETA[4] - rs * _ZETA[5])))))
        rd = where(small, 1.0, r)
        log_ratio = where(small, series, (1 + 2 * rd).lgamma() - 2 * (1 + rd).lgamma())
        return self.scale.pow(2) * (2 * (1 + r).lgamma()).exp() * log_ratio.expm1()

    def entropy(self):
        r = self.concentration_reciprocal
        return _EULER_GAMMA * (1 - r) + (self.scale * r).log() + 1


class HalfCauchy(TransformedDistribution):
    """The half-Cauchy distribution: ``|X|`` for X Cauchy(0, scale); reparameterisable.
    Its mean and variance are inf; log_prob is -inf below 0 when validation is off, as
    PyTorch's.

    Parameters
    ----------
    scale : float or Tensor
        > 0.
    validate_args : bool, optional
        Check that scale > 0 and, in log_prob and cdf, that values are >= 0 (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import HalfCauchy
    >>> d = HalfCauchy(pydevtensor.tensor([1.0]))
    >>> d.log_prob(pydevtensor.tensor([0.0])), d.cdf(pydevtensor.tensor([1.0]))
    (tensor([-0.4516]), tensor([0.5000]))
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The scale of the Cauchy folded.

        Examples
        --------
        >>> from pydevtensor.distributions import HalfCauchy
        >>> HalfCauchy(2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    @property
    def mean(self):
        return _C.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                       device=self.scale.device)

    @property
    def mode(self):
        return _C.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        value = _as_tensor(value, self.scale).to(self.scale.dtype)  # as PyTorch's
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.masked_fill(value < 0, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


def _kumaraswamy_log_moments(a, b):
    """log E[X] and log(Var X), in float64: with r = 1/a, log E[X^n] = -(lgamma(1 + b +
    nr) - lgamma(1 + b) - lgamma(1 + nr)), symmetric in b and nr, formed as steps of
    lgamma from the smaller of the two (Note [lgamma steps]); Var X = E[X]^2 expm1(L), L
    = log E[X^2] - 2 log E[X] = step2(1, r) - step2(1 + b, r), or, where that cancels
    (b < r^2), -(step(1 + 2r, b) - 2 step(1 + r, b) + step(1, b)).  b B(1 + n/a, b) from
    lgammas was 1e20 for a mean at b = 1e20 (0.5% off at b = 1e10 for every a), and the
    variance E[X^2] - E[X]^2 was negative or 7% off from b = 1e10 on."""
    a, b = a.to(_C.float64), b.to(_C.float64)
    r = a.reciprocal()
    one = _C.ones_like(r + b)
    lo, hi = r.minimum(b), r.maximum(b)
    log_m1 = step(one, lo) - step(hi + 1, lo)
    by_b = b < r * r
    ratio = where(by_b, step(2 * r + 1, b) - 2 * step(r + 1, b) + step(one, b),
                  step2(b + 1, r) - step2(one, r))
    ratio = -ratio
    # log expm1(L), without expm1's overflow at large L
    big = ratio > 0.5
    lb, ls = where(big, ratio, 1.0), where(big, 1.0, ratio)
    log_expm1 = where(big, lb + (-(-lb).exp()).log1p(), ls.expm1().log())
    return log_m1, 2 * log_m1 + log_expm1


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1), of cdf ``1 - (1 - x^a)^b`` (a =
    concentration1, b = concentration0): ``(1 - U^(1/b))^(1/a)`` for U uniform;
    reparameterisable.  The mode is ``((a - 1) / (a b - 1))^(1/a)`` (nan unless a, b >=
    1); PyTorch 2.15's reads nan for every a, b > 1, a bug not copied here.  log_prob is
    the closed form on [0, 1] (PyTorch's, through the transforms, is -inf or nan where
    x^a or (1 - x^a)^b under- or overflows or rounds to 1, and nan at 0 for a = 1).

    Parameters
    ----------
    concentration1 : float or Tensor
        a, > 0.
    concentration0 : float or Tensor
        b, > 0.
    validate_args : bool, optional
        Check the parameters and, in log_prob, that values are in [0, 1] (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Kumaraswamy
    >>> d = Kumaraswamy(pydevtensor.tensor([2.0]), 3.0)
    >>> d.log_prob(pydevtensor.tensor([0.5])), d.mean
    (tensor([0.5232]), tensor([0.4571]))
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base_dist = Uniform(_C.zeros_like(self.concentration0),
                            _C.ones_like(self.concentration0), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        # the closed form log a + log b + (a - 1) log x + (b - 1) log(1 - x^a) on [0, 1]:
        # through the transforms x^a, 1 - x^a and (1 - x^a)^b under- or overflowed (a =
        # 0.5 at x = 1e-300 gave -inf for +345, a = 1 at x = 0 nan for log b, as PyTorch's)
        if self._validate_args:
            self._validate_sample(value)
        value = _as_tensor(value, self.concentration1)
        ok = (value >= 0) & (value <= 1)
        naive = super().log_prob(where(ok, 0.5, value))  # (no 0 * inf through where)
        a, b, x = (t.to(naive.dtype) for t in broadcast_all(
            self.concentration1, self.concentration0, value))
        ok = ok.expand(tuple(x.shape))
        inside = ok & (x > 0) & (x < 1)
        xs = where(inside, x, 0.5)
        log_x = xs.log()
        t = a * log_x  # log x^a < 0
        power = xs.pow(a)
        # log(1 - x^a): log1p(-x^a) for x^a <= 1/2, log(1 - x^a) (exact difference) to t
        # = -1/2, log(-expm1(t)) above (t's rounding, |t| eps, is below x^a's there), and
        # log(-t) + t/2 where t is tiny (log a + log(-log x): x^a of 1 - 1e-320 is 1)
        low, tiny_t = power <= 0.5, t > -1e-10
        mid, near = ~low & (t < -0.5), ~low & ~tiny_t & (t >= -0.5)
        log_rest = where(low, (-where(low, power, 0.0)).log1p(),
                         where(mid, (1 - where(mid, power, 0.5)).log(),
                               where(tiny_t, a.log() + (-log_x).log() + t / 2,
                                     (-where(near, t, -1.0).expm1()).log())))
        # at x = 0 and x = 1 each power's log is -inf: its factor's sign decides, 0 at 1
        stable = (a.log() + b.log()
                  + where(x > 0, (a - 1) * where(x < 1, log_x, 0.0), _log_edge(a))
                  + where(x < 1, (b - 1) * where(x > 0, log_rest, 0.0), _log_edge(b)))
        return where(ok, stable, naive)

    @property
    def mean(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_log_moments(a, b)[0].exp().to(a.dtype)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = ((a - 1).log() - (a * b - 1).log()) / a
        return log_mode.exp().masked_fill((a < 1) | (b < 1), math.nan)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_log_moments(a, b)[1].exp().to(a.dtype)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = (self.concentration0 + 1).digamma() + _EULER_GAMMA
        return t0 + t1 * h0 - self.concentration1.log() - self.concentration0.log()


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution on the simplex of K + 1 categories: the
    StickBreakingTransform of a Normal(loc, scale) over K (the last batch dimension of
    the Normal becomes the event), as PyTorch's; reparameterisable.  Its inverse is
    ``log(x / (1 - cumsum(x)))[..., :-1] + log(K - i)``, i = 0 .. K-1.

    Parameters
    ----------
    loc : float or Tensor
        The Normal's mean, (..., K); a scalar makes K = 1.
    scale : float or Tensor
        Its standard deviation, > 0, broadcastable with loc.
    validate_args : bool, optional
        Check the parameters and, in log_prob, that values lie in the simplex (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import LogisticNormal
    >>> d = LogisticNormal(pydevtensor.zeros(2), 1.0)
    >>> d.log_prob(pydevtensor.tensor([0.5, 0.25, 0.25]))
    tensor(1.3876)
    >>> d.rsample((4,)).shape
    pydevtensor.Size([4, 3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not tuple(base_dist.batch_shape):
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The Normal's mean, (..., K).

        Examples
        --------
        >>> from pydevtensor.distributions import LogisticNormal
        >>> LogisticNormal(0.0, 1.0).loc
        tensor([0.])
        """
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The Normal's standard deviation, (..., K).

        Examples
        --------
        >>> from pydevtensor.distributions import LogisticNormal
        >>> LogisticNormal(0.0, 2.0).scale
        tensor([2.])
        """
        return self.base_dist.base_dist.scale
