"""HalfNormal(scale): PyTorch's ``torch.distributions.HalfNormal``, written directly
(PyTorch's is |X| of a Normal through a TransformedDistribution)."""
import math

from .. import _C
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["HalfNormal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class HalfNormal(Distribution):
    """The half-normal distribution: ``|X|`` for X normal N(0, scale^2), batched over
    scale's shape; reparameterisable (``rsample``).  log_prob is -inf below 0 when
    validation is off, as PyTorch's.

    Parameters
    ----------
    scale : float or Tensor
        The scale of the normal folded, > 0.
    validate_args : bool, optional
        Check that scale > 0 and, in log_prob and cdf, that values are >= 0 (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import HalfNormal
    >>> d = HalfNormal(pydevtensor.tensor([1.0]))
    >>> d.log_prob(pydevtensor.tensor([0.0])), d.cdf(pydevtensor.tensor([1.0]))
    (tensor([-0.2258]), tensor([0.6827]))
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        super().__init__(tuple(self.scale.shape), (), validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _C.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _C.randn(tuple(shape), dtype=self.scale.dtype, device=self.scale.device)
        return (eps * self.scale).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = value / self.scale
        out = -z * z / 2 - self.scale.log() - _HALF_LOG_2PI + math.log(2)
        return out.masked_fill(value < 0, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (value / (self.scale * math.sqrt(2))).erf()

    def icdf(self, value):
        return self.scale * value.erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log() - math.log(2)
