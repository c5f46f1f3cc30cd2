"""InverseGamma(concentration, rate): PyTorch's ``torch.distributions.InverseGamma``, a
TransformedDistribution of a Gamma by PowerTransform(-1), as PyTorch's."""
import math

from .._ops_igamma import gammaincc
from .._ops_index import where
from . import constraints
from .gamma import Gamma, _as_tensor, _entropy_of_unit_rate
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """The inverse gamma distribution: 1 / X for X ~ Gamma(concentration, rate), of
    density ``rate^c y^(-c-1) e^(-rate / y) / Gamma(c)``, as PyTorch's: a
    TransformedDistribution of ``base_dist`` Gamma(c, rate) by ``transforms``
    ``[PowerTransform(-1)]``; reparameterisable (1 / a Gamma draw, whose gradient in the
    concentration is the gamma sampler's implicit one).  The mean is inf for c <= 1 and
    the variance for c <= 2, as PyTorch's; the cdf is the upper regularized incomplete
    gamma function ``Q(c, rate / y)`` (not ``1 - P``, which loses the upper tail).

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
    >>> type(d.base_dist).__name__, d.transforms
    ('Gamma', [PowerTransform()])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        """The base Gamma's concentration c.

        Returns
        -------
        Tensor
            Of the batch shape.

        Examples
        --------
        >>> from pydevtensor.distributions import InverseGamma
        >>> InverseGamma(pydevtensor.tensor([3.0]), 2.0).concentration
        tensor([3.])
        """
        return self.base_dist.concentration

    @property
    def rate(self):
        """The base Gamma's rate.

        Returns
        -------
        Tensor
            Of the batch shape.

        Examples
        --------
        >>> from pydevtensor.distributions import InverseGamma
        >>> InverseGamma(pydevtensor.tensor([3.0]), 2.0).rate
        tensor([2.])
        """
        return self.base_dist.rate

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

    def cdf(self, value):
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        # Gamma(c, 1)'s entropy less 2 digamma(c): its c log c terms cancel there
        c = self.concentration
        return _entropy_of_unit_rate(c) - 2 * c.digamma() + self.rate.log()
