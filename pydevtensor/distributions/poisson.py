"""Poisson(rate): PyTorch's ``torch.distributions.Poisson``."""
from .._ops_poisson import poisson
from .._ops_special import xlogy
from .._ops_index import where
from ..autograd import no_grad
from . import constraints
from ._loader import log_poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution of rate ``rate``: counts k = 0, 1, 2, ... with
    probability ``rate^k exp(-rate) / k!``; draws from ``pydevtensor.poisson``.

    Parameters
    ----------
    rate : float or Tensor
        >= 0.
    validate_args : bool, optional
        Check that rate >= 0 and, in log_prob, that values are counts (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Poisson
    >>> d = Poisson(pydevtensor.tensor([2.0]))
    >>> d.log_prob(pydevtensor.tensor([1.0])), d.variance
    (tensor([-1.3069]), tensor([2.]))
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), (), validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return poisson(self.rate.expand(*shape).contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        naive = xlogy(value, rate) - rate - (value + 1).lgamma()
        # Loader's form where the naive one cancels (Note [Loader's Poisson density])
        rate, value = rate.to(naive.dtype), value.to(naive.dtype)
        ok = (rate > 0) & (value >= 0) & (rate + value).isfinite()
        stable = log_poisson(where(ok, value, 0.0), where(ok, rate, 1.0))
        return where(ok, stable, naive)

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()
