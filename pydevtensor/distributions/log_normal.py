"""LogNormal(loc, scale): PyTorch's ``torch.distributions.LogNormal``, a
TransformedDistribution of a Normal by ExpTransform, as PyTorch's, with closed forms."""
import math

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``exp(X)`` for X normal N(loc, scale^2), batched over
    the broadcast shape of loc and scale; reparameterisable (``rsample``).  As PyTorch's,
    a TransformedDistribution of ``base_dist`` Normal(loc, scale) by ``transforms``
    ``[ExpTransform()]``; log_prob, cdf, icdf, the moments and the entropy are the
    closed forms.

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
    >>> type(d.base_dist).__name__, d.transforms
    ('Normal', [ExpTransform()])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        # the parameters are checked as LogNormal's (the error names it), not the base's
        base_dist = Normal(loc, scale, validate_args=False)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The base Normal's loc, the mean of log(X).

        Examples
        --------
        >>> from pydevtensor.distributions import LogNormal
        >>> LogNormal(pydevtensor.tensor([0.5]), 1.0).loc
        tensor([0.5000])
        """
        return self.base_dist.loc

    @property
    def scale(self):
        """The base Normal's scale, the standard deviation of log(X).

        Examples
        --------
        >>> from pydevtensor.distributions import LogNormal
        >>> LogNormal(pydevtensor.tensor([0.5]), 2.0).scale
        tensor([2.])
        """
        return self.base_dist.scale

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

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_value = value.log()
        z = (log_value - self.loc) / self.scale
        return -z * z / 2 - self.scale.log() - _HALF_LOG_2PI - log_value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.base_dist.cdf(value.log())  # Normal's, with its lower tail

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log() + self.loc
