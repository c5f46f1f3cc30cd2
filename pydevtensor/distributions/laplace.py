"""Laplace(loc, scale): PyTorch's ``torch.distributions.Laplace``."""
import math

from .. import _C
from .._dtype_info import finfo
from .._ops_index import where
from .distribution import _LocScale

__all__ = ["Laplace"]


class Laplace(_LocScale):
    """The Laplace (double exponential) distribution of density
    ``exp(-|x - loc| / scale) / (2 scale)``, batched over the broadcast shape of loc and
    scale; reparameterisable (``rsample``).

    Parameters
    ----------
    loc : float or Tensor
        The mean (and median).
    scale : float or Tensor
        The scale, > 0 (the variance is 2 scale^2).
    validate_args : bool, optional
        Check that scale > 0 (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Laplace
    >>> d = Laplace(pydevtensor.tensor([0.0, 1.0]), 2.0)
    >>> d.log_prob(pydevtensor.tensor([0.0, 3.0]))
    tensor([-1.3863, -2.3863])
    >>> d.variance, d.cdf(pydevtensor.tensor([0.0, 1.0]))
    (tensor([8., 8.]), tensor([0.5000, 0.5000]))
    """

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        # uniform on [eps - 1, 1), as PyTorch's: log1p(-|u|) stays finite
        u = _C.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        u = u * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # exp(z) / 2 below the median: 0.5 + expm1(z) / 2 was 0 from z = -38 (PyTorch's)
        z = (value - self.loc) / self.scale
        low = z < 0
        return where(low, 0.5 * where(low, z, 0.0).exp(), 0.5 - 0.5 * (-z.abs()).expm1())

    def icdf(self, value):
        # log(2q) below the median: log1p(-2|q - 1/2|) was -inf below q = 3e-17
        term = value - 0.5
        low = term < 0
        # (each branch fed values off the other's pole: log1p(-1) at q = 0 made the
        # selected log(2q)'s gradient 0 * inf = nan)
        high = where(low, 0.0, term)
        return self.loc + self.scale * where(low, (2 * where(low, value, 0.5)).log(),
                                             -(-2 * high).log1p())

    def entropy(self):
        return 1 + (2 * self.scale).log()
