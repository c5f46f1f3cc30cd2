"""ContinuousBernoulli(probs | logits): PyTorch's
``torch.distributions.ContinuousBernoulli``."""
import math
from numbers import Number

from .. import _C
from .._ops_index import where
from ..autograd import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .bernoulli import _one_of
from .exp_family import ExponentialFamily
from .utils import clamp_probs, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham,
    NeurIPS 2019) of density ``C(p) p^x (1 - p)^(1 - x)``, given by probs p in (0, 1) or
    by logits (``p = sigmoid(logits)``), not both, as PyTorch's; reparameterisable (a
    draw is the icdf of a uniform one).

    The normalizer, mean, variance and cdf are 0/0 at p = 1/2: for p in (lims[0],
    lims[1]] they use PyTorch's Taylor expansions about 1/2 (and the cdf is x), as
    PyTorch's.  probs are clamped to [eps, 1 - eps] of their dtype.

    Parameters
    ----------
    probs : float or Tensor, optional
        In [0, 1].
    logits : float or Tensor, optional
        Real.
    lims : tuple of two floats, optional
        The unstable region about 1/2 (default (0.499, 0.501)).
    validate_args : bool, optional
        Check the parameter, and the values given to log_prob and cdf (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Neither or both of probs and logits given; probs outside [0, 1] when
        validate_args is given.

    Examples
    --------
    >>> from pydevtensor.distributions import ContinuousBernoulli
    >>> d = ContinuousBernoulli(pydevtensor.tensor([0.2, 0.5]))
    >>> d.mean, d.variance
    (tensor([0.3880, 0.5000]), tensor([0.0759, 0.0833]))
    >>> d.log_prob(pydevtensor.tensor([0.5, 0.5]))
    tensor([-0.0788,  0.0000])
    >>> d.cdf(pydevtensor.tensor([0.5, 0.5]))
    tensor([0.6667, 0.5000])
    >>> d.rsample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    _mean_carrier_measure = 0
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        _one_of("ContinuousBernoulli()", probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None:
                with no_grad():
                    ok = bool(self.arg_constraints["probs"].check(self.probs).all())
                if not ok:
                    raise ValueError(f"ContinuousBernoulli(): The parameter probs has "
                                     f"invalid values (outside [0, 1]):\n{self.probs}")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(() if is_scalar else tuple(self._param.shape), (), validate_args)

    @lazy_property
    def logits(self):
        """The logits of the (clamped) probs.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(pydevtensor.tensor([0.5])).logits
        tensor([0.])
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """sigmoid(logits), clamped to [eps, 1 - eps].

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """The shape of the parameter (the batch shape).

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(pydevtensor.full((2, 3), 0.3)).param_shape
        pydevtensor.Size([2, 3])
        """
        return self._param.shape

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self):
        """log C(p), Taylor's about p = 1/2 in the unstable region."""
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, 0.0)
        above = where(cut >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(
            cut <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        var = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
               + 1.0 / ((-cut).log1p() - cut.log()).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), var, taylor)

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = _C.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(value <= 0.0, 0.0, where(value >= 1.0, 1.0, unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inside = (((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p())
                  / (cut.log() - (-cut).log1p()))
        return where(self._outside_unstable_region(), inside, value)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log of the normalizer as a function of the logits x, PyTorch's: Taylor's about
        x = 0 near 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)

    def entropy(self):
        log_p0, log_p1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0
