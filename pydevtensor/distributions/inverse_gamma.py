"""InverseGamma(concentration, rate): PyTorch's ``torch.distributions.InverseGamma``,
written directly (PyTorch's is a TransformedDistribution of a Gamma by x^-1, with the
same values)."""
import math

from .._ops_igamma import gammaincc
from .._ops_index import where
from . import constraints
from .distribution import Distribution
from .gamma import Gamma, _as_tensor
from .utils import broadcast_all

__all__ = ["InverseGamma"]


class InverseGamma(Distribution):
    """The inverse gamma distribution: 1 / X for X ~ Gamma(concentration, rate), of
    density ``rate^c y^(-c-1) e^(-rate / y) / Gamma(c)``, as PyTorch's;
    reparameterisable (1 / a Gamma draw, whose gradient in the concentration is the
    gamma sampler's implicit one).

    PyTorch builds it as ``TransformedDistribution(Gamma(c, rate), PowerTransform(-1))``;
    this one is written directly, with the same values, and has no ``base_dist`` nor
    ``transforms``.  The mean is inf for c <= 1 and the variance for c <= 2, as
    PyTorch's.

    Parameters
    ----------
    concentration : float or Tensor
        c > 0.
    rate : float or Tensor
        > 0, broadcastable with concentration.
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob and cdf (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import InverseGamma
    >>> d = InverseGamma(pydevtensor.tensor([3.0, 1.0]), pydevtensor.tensor([2.0, 1.0]))
    >>> d.mean, d.variance, d.mode
    (tensor([1., inf]), tensor([1., inf]), tensor([0.5000, 0.5000]))
    >>> d.log_prob(pydevtensor.tensor([1.0, 1.0]))
    tensor([-0.6137, -1.0000])
    >>> d.cdf(pydevtensor.tensor([1.0, 1.0]))
    tensor([0.6767, 0.3679])
    >>> d.sample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        self._gamma = Gamma(self.concentration, self.rate, validate_args=False)
        super().__init__(tuple(self.concentration.shape), (), validate_args)

    @property
    def mean(self):
        c = self.concentration
        big = c > 1
        return where(big, self.rate / (where(big, c, 2.0) - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        big = c > 2
        c = where(big, c, 3.0)  # no inf * 0 in the gradient of the masked part
        return where(big, self.rate.square() / ((c - 1).square() * (c - 2)), math.inf)

    def rsample(self, sample_shape=()):
        return self._gamma.rsample(sample_shape).reciprocal()

    def log_prob(self, value):
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return c * self.rate.log() - c.lgamma() - (c + 1) * value.log() - self.rate / value

    def cdf(self, value):
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
