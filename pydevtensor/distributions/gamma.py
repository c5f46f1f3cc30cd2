"""Gamma(concentration, rate) and Chi2(df): PyTorch's ``torch.distributions.Gamma`` and
``Chi2``, with the standard gamma sampler and its implicit reparameterisation gradient
that Beta and Dirichlet share.

Note [standard gamma]
---------------------
Draws: Marsaglia and Tsang (2000), "A simple method for generating gamma variables":
for alpha >= 1, d = alpha - 1/3, c = 1 / sqrt(9 d), x normal, v = (1 + c x)^3, u
uniform; d v is accepted when v > 0 and log u < x^2 / 2 + d - d v + d log v (about 96
in 100 proposals are), redrawn otherwise (the loop runs on the rejected elements only).
For alpha < 1 the draw for alpha + 1 is multiplied by u^(1/alpha) (their section 6).
In float64, from the default generator's normals and uniforms, then rounded to alpha's
dtype and clamped to its smallest normal number, as PyTorch's.

Gradient: the implicit reparameterisation dx/dalpha = -(dP/dalpha)(alpha, x) / p(x;
alpha), P the regularized lower incomplete gamma function (the CDF), p the density.
dP/dalpha is the central difference of the float64 gammainc with the step h = 1e-5
min(alpha, sqrt(alpha)) (alpha's own scale): the truncation error is about (h /
scale)^2 = 1e-10 and the rounding about 1e-15 / h (1e-12 a log x at large alpha), so the
gradient keeps about 9 digits (relative to its size).
"""
import math

from .. import _C
from .._dtype_info import finfo
from .._ops_igamma import _igamma_f64, gammainc
from .._ops_index import where
from .._ops_special import xlogy
from ..autograd import no_grad
from ..autograd.function import Function
from . import constraints
from ._loader import log_poisson, product_error
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Chi2", "Gamma"]

_H = 1e-5


def _sample_standard_gamma(alpha, generator=None):
    """Draws of Gamma(alpha, 1) in float64, alpha float64 (Note [standard gamma]), from
    generator (None: the default one)."""
    flat = alpha.reshape(-1)
    boost = flat < 1
    a = where(boost, flat + 1.0, flat)
    d = a - 1.0 / 3.0
    c = (d * 9.0).rsqrt()
    # an infinite or NaN alpha has no proposal to accept (the loop would never end): its
    # draw is alpha itself, inf (PyTorch's) or NaN
    out = flat.clone()
    todo = _C.arange(flat.numel(), device=flat.device)[flat.isfinite()]
    while todo.numel():
        dt, ct = d[todo], c[todo]
        x = _C.randn(tuple(todo.shape), dtype=_C.float64, device=flat.device,
                     generator=generator)
        u = _C.rand(tuple(todo.shape), dtype=_C.float64, device=flat.device,
                    generator=generator)
        v = (1.0 + ct * x) ** 3
        vs = where(v > 0, v, 1.0)
        ok = (v > 0).logical_and(u.log() < x * x * 0.5 + dt - dt * vs + dt * vs.log())
        out[todo[ok]] = (dt * vs)[ok]
        todo = todo[ok.logical_not()]
    u = _C.rand(tuple(flat.shape), dtype=_C.float64, device=flat.device, generator=generator)
    out = where(boost, out * u.pow(flat.reciprocal()), out)
    return out.reshape(tuple(alpha.shape))


def _d_sample_d_alpha(alpha, x):
    """dx/dalpha of a Gamma(alpha, 1) draw x, both float64 (Note [standard gamma])."""
    h = alpha.minimum(alpha.sqrt()) * _H
    dp = (_igamma_f64(alpha + h, x, False) - _igamma_f64(alpha - h, x, False)) / (h * 2)
    log_density = (alpha - 1.0) * x.log() - x - alpha.lgamma()
    return -dp / log_density.exp()


class _StandardGamma(Function):
    """A Gamma(alpha, 1) draw, differentiable in alpha (implicit reparameterisation)."""

    @staticmethod
    def forward(ctx, alpha, generator=None):
        x = _sample_standard_gamma(alpha.detach().to(_C.float64), generator).to(alpha.dtype)
        x = x.clamp(min=finfo(alpha.dtype).tiny)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, g):
        alpha, x = ctx.saved_tensors
        grad = _d_sample_d_alpha(alpha.to(_C.float64), x.to(_C.float64))
        return g * grad.to(g.dtype), None


def standard_gamma(alpha, generator=None):
    """Draws of Gamma(alpha, 1), one per element of alpha, differentiable in alpha, from
    generator (None: the default one)."""
    return _StandardGamma.apply(alpha, generator)


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and inverse scale ``rate``
    (density ``rate^c x^(c-1) e^(-rate x) / Gamma(c)``), as PyTorch's;
    reparameterisable (Note [standard gamma] in pydevtensor/distributions/gamma.py:
    Marsaglia and Tsang's sampler, the implicit gradient in the concentration).

    Parameters
    ----------
    concentration : float or Tensor
        > 0.
    rate : float or Tensor
        > 0, broadcastable with concentration.
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob and cdf (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Gamma
    >>> d = Gamma(pydevtensor.tensor([2.0, 0.5]), pydevtensor.tensor([1.0, 2.0]))
    >>> d.mean, d.variance
    (tensor([2.0000, 0.2500]), tensor([2.0000, 0.1250]))
    >>> d.log_prob(pydevtensor.tensor([1.0, 1.0]))
    tensor([-1.0000, -2.2258])
    """

    _mean_carrier_measure = 0
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(tuple(self.concentration.shape), (), validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=(), generator=None):
        """Reparameterised draws (the implicit gradient in the concentration), as
        PyTorch's.

        Parameters
        ----------
        sample_shape : tuple of ints, optional
            Draws of this shape of each distribution (default one).
        generator : Generator, optional
            The stream to draw from (default: the default generator), as PyTorch 2.15's.

        Returns
        -------
        Tensor
            Of sample_shape + batch_shape.

        Examples
        --------
        >>> from pydevtensor.distributions import Gamma
        >>> g = pydevtensor.Generator().manual_seed(0)
        >>> Gamma(pydevtensor.tensor([2.0, 0.5]), 1.0).rsample((3,), generator=g).shape
        pydevtensor.Size([3, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        return (standard_gamma(self.concentration.expand(shape), generator)
                / self.rate.expand(shape))

    def sample(self, sample_shape=(), *, generator=None):
        """``rsample``'s draws without gradient, as PyTorch's.

        Parameters
        ----------
        sample_shape, generator
            As ``rsample``'s; generator is keyword-only here, as in PyTorch 2.15.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Gamma
        >>> g = pydevtensor.Generator().manual_seed(0)
        >>> Gamma(2.0, 1.0).sample((4,), generator=g).shape
        pydevtensor.Size([4])
        """
        with no_grad():
            return self.rsample(sample_shape, generator)

    def log_prob(self, value):
        # in the parameters' dtype, as PyTorch's (whose cdf keeps the promoted dtype)
        value = _as_tensor(value, self.rate).to(self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        naive = xlogy(c, r) + xlogy(c - 1, value) - r * value - c.lgamma()
        # Loader's Poisson density where the naive form cancels (Note [Loader's Poisson
        # density]): p(x) = r p(c - 1; r x) for c > 1, (c / x) p(c; r x) else (p(0; y) =
        # e^-y would drop the gradient in c at c = 1); r x's rounding error as a constant
        y = r * value
        # y normal: Dekker's product needs it, and below it x / y's chain (1 / y) overflows
        ok = (value > 0) & (y >= finfo(y.dtype).tiny) & (c + r + y).isfinite()
        cs, rs = where(ok, c, 1.0), where(ok, r, 1.0)
        xs, ys = where(ok, value, 1.0), where(ok, y, 1.0)
        low = cs <= 1
        err = product_error(rs.detach(), xs.detach())
        stable = where(low, log_poisson(cs, ys, err) + cs.log() - xs.log(),
                       log_poisson(where(low, 1.0, cs) - 1, ys, err) + rs.log())
        return where(ok, stable, naive)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    def entropy(self):
        return _entropy_of_unit_rate(self.concentration) - self.rate.log()

    def cdf(self, value):
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)


def _entropy_of_unit_rate(c):
    """Gamma(c, 1)'s entropy lgamma(c) - (c - 1) digamma(c) + c, also the share of each
    concentration in Beta's and Dirichlet's entropy (their sum of the c's cancels).

    Its terms grow as c log c and cancel to 0.5 log c + O(1) (0.0 for 29.4 at c = 5e23 in
    float64; PyTorch 2.15 gives 8.6e9): past c = 100 (10 below float64) it is Stirling's
    0.5 log(2 pi c) + (c - 1) / (2c) + R(c) + (c - 1) S(c), with lgamma's remainder
    R = 1/(12c) - 1/(360c^3) + 1/(1260c^5) and digamma's log c - 1/(2c) - digamma(c) =
    S = 1/(12c^2) - 1/(120c^4) + 1/(252c^6), whose next terms are below the rounding."""
    cut = 100.0 if c.dtype == _C.float64 else 10.0
    large = c > cut
    cl = where(large, c, 2 * cut)
    inv = 1 / cl
    inv2 = inv * inv
    rest_lgamma = inv * (1 / 12 - inv2 * (1 / 360 - inv2 / 1260))
    rest_digamma = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252))
    series = (0.5 * (cl.log() + _LOG_2PI) + 0.5 * (1 - inv) + rest_lgamma
              + (cl - 1) * rest_digamma)
    cs = where(large, 1.0, c)
    return where(large, series, cs.lgamma() - (cs - 1.0) * cs.digamma() + cs)


_LOG_2PI = math.log(2 * math.pi)


def _as_tensor(value, like):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _C.tensor(float(value), dtype=like.dtype, device=like.device)
    return value


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: Gamma(df / 2, 1 / 2),
    as PyTorch's.

    Parameters
    ----------
    df : float or Tensor
        > 0.
    validate_args : bool, optional

    Examples
    --------
    >>> from pydevtensor.distributions import Chi2
    >>> d = Chi2(pydevtensor.tensor([4.0]))
    >>> d.mean, d.variance, d.df
    (tensor([4.]), tensor([8.]), tensor([4.]))
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5 * _C.ones_like(df), validate_args=validate_args)

    @property
    def df(self):
        """The degrees of freedom, twice the concentration.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Chi2
        >>> Chi2(3.0).df
        tensor(3.)
        """
        return self.concentration * 2

