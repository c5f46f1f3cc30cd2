"""Exponential(rate): PyTorch's ``torch.distributions.Exponential``."""
from .. import _C
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (mean 1 / rate); reparameterisable:
    a draw is ``-log1p(-u) / rate`` for a uniform u on [0, 1).

    Parameters
    ----------
    rate : float or Tensor
        > 0.
    validate_args : bool, optional
        Check that rate > 0 (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Exponential
    >>> d = Exponential(pydevtensor.tensor([0.5, 2.0]))
    >>> d.mean, d.log_prob(pydevtensor.tensor([1.0, 1.0]))
    (tensor([2.0000, 0.5000]), tensor([-1.1931, -1.3069]))
    """

    _mean_carrier_measure = 0
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), (), validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _C.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _C.rand(tuple(shape), dtype=self.rate.dtype, device=self.rate.device)
        return -(-u).log1p() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(-self.rate * value).expm1()  # 1 - exp(-rate x) was 0 below x = 1e-17

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    def entropy(self):
        return 1.0 - self.rate.log()
