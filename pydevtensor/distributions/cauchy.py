"""Cauchy(loc, scale): PyTorch's ``torch.distributions.Cauchy``."""
import math

from .. import _C
from .._ops_index import where
from .distribution import _LocScale

__all__ = ["Cauchy"]


class Cauchy(_LocScale):
    """The Cauchy (Lorentz) distribution of density
    ``1 / (pi scale (1 + ((x - loc) / scale)^2))``, batched over the broadcast shape of
    loc and scale; reparameterisable (``rsample``).  It has no mean and no variance:
    ``mean`` is NaN and ``variance`` inf, as PyTorch's.

    Parameters
    ----------
    loc : float or Tensor
        The median (and mode).
    scale : float or Tensor
        The half width at half maximum, > 0.
    validate_args : bool, optional
        Check that scale > 0 (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Cauchy
    >>> d = Cauchy(pydevtensor.tensor([0.0]), 1.0)
    >>> d.log_prob(pydevtensor.tensor([1.0])), d.cdf(pydevtensor.tensor([1.0]))
    (tensor([-1.8379]), tensor([0.7500]))
    >>> d.mean, d.variance
    (tensor([nan]), tensor([inf]))
    """

    @property
    def mean(self):
        return _C.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype,
                       device=self.loc.device)

    @property
    def variance(self):
        return _C.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype,
                       device=self.loc.device)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _C.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (math.pi * (u - 0.5)).tan() * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z * z).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # atan2(1, -z) / pi: atan(z) / pi + 1/2 lost the lower tail (0 below z = -1e17)
        z = (value - self.loc) / self.scale
        return _C.atan2(_C.ones_like(z), -z) / math.pi

    def icdf(self, value):
        # -cot(pi q) in the tails, where tan(pi (q - 1/2)) lost q (-1.6e16 for -3.2e19 at
        # q = 1e-20, 8e-6 off at 1 - 1e-12, as PyTorch's)
        term = value - 0.5
        tail = term.abs() > 0.25
        qs = where(tail, where(term < 0, value, 1 - value), 0.25)
        cot = (math.pi * qs).tan().reciprocal() * where(term < 0, -1.0, 1.0)
        mid = (math.pi * where(tail, 0.0, term)).tan()
        return where(tail, cot, mid) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
