"""Normal(loc, scale): PyTorch's ``torch.distributions.Normal``."""
import math

from .. import _C
from .._ops_special_more import ndtri
from .distribution import _LocScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(ExponentialFamily, _LocScale):
    """The normal (Gaussian) distribution N(loc, scale^2), batched over the broadcast
    shape of loc and scale; reparameterisable (``rsample``).

    Parameters
    ----------
    loc : float or Tensor
        The mean.
    scale : float or Tensor
        The standard deviation, > 0.
    validate_args : bool, optional
        Check that scale > 0 (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Normal
    >>> d = Normal(pydevtensor.tensor([0.0, 1.0]), 2.0)
    >>> d.log_prob(pydevtensor.tensor([0.0, 1.0]))
    tensor([-1.6121, -1.6121])
    >>> d.entropy()
    tensor([2.1121, 2.1121])
    """

    _mean_carrier_measure = 0

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _C.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # z^2 / 2, not (value - loc)^2 / (2 scale^2): scale^2 over- or underflows (nan at
        # scale = 1e300 or 1e-300, as PyTorch's)
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - _HALF_LOG_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # erfc: 1 + erf lost the lower tail (0 below -8.3 sigma, as PyTorch's)
        return 0.5 * (-(value - self.loc) / (self.scale * math.sqrt(2))).erfc()

    def icdf(self, value):
        # ndtri: erfinv(2q - 1) lost q below 1e-16 (-inf at 1e-20, as PyTorch's)
        return self.loc + self.scale * ndtri(value)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log()
