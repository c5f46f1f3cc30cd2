"""LogNormal(loc, scale): PyTorch's ``torch.distributions.LogNormal``, written directly
(PyTorch's is exp of a Normal through a TransformedDistribution)."""
import math

from .. import _C
from . import constraints
from .distribution import _LocScale

__all__ = ["LogNormal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class LogNormal(_LocScale):
    """The log-normal distribution: ``exp(X)`` for X normal N(loc, scale^2), batched over
    the broadcast shape of loc and scale; reparameterisable (``rsample``).

    Parameters
    ----------
    loc : float or Tensor
        The mean of log(X).
    scale : float or Tensor
        The standard deviation of log(X), > 0.
    validate_args : bool, optional
        Check that scale > 0 and, in log_prob and cdf, that values are > 0 (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import LogNormal
    >>> d = LogNormal(pydevtensor.tensor([0.0]), 1.0)
    >>> d.log_prob(pydevtensor.tensor([1.0])), d.cdf(pydevtensor.tensor([1.0]))
    (tensor([-0.9189]), tensor([0.5000]))
    >>> d.mean
    tensor([1.6487])
    """

    support = constraints.positive

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _C.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + eps * self.scale).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_value = value.log()
        z = (log_value - self.loc) / self.scale
        return -z * z / 2 - self.scale.log() - _HALF_LOG_2PI - log_value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value.log() - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value):
        return (self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)).exp()

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log() + self.loc
