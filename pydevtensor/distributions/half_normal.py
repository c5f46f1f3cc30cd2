"""HalfNormal(scale): PyTorch's ``torch.distributions.HalfNormal``, a
TransformedDistribution of a Normal by AbsTransform, as PyTorch's, with closed forms."""
import math

from .. import _C
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class HalfNormal(TransformedDistribution):
    """The half-normal distribution: ``|X|`` for X normal N(0, scale^2), batched over
    scale's shape; reparameterisable (``rsample``).  As PyTorch's, a
    TransformedDistribution of ``base_dist`` Normal(0, scale) by ``transforms``
    ``[AbsTransform()]``; log_prob, cdf, icdf, the moments and the entropy are the closed
    forms.  log_prob is -inf below 0 when validation is off, as PyTorch's.

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
    >>> type(d.base_dist).__name__, d.transforms
    ('Normal', [AbsTransform()])
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The base Normal's scale, that of the normal folded.

        Examples
        --------
        >>> from pydevtensor.distributions import HalfNormal
        >>> HalfNormal(2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _C.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

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
