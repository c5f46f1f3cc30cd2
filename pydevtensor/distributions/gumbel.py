"""Gumbel(loc, scale): PyTorch's ``torch.distributions.Gumbel``, a TransformedDistribution
of a Uniform, as PyTorch's, with closed forms."""
import math

from .. import _C
from .._dtype_info import finfo
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution of cdf
    ``exp(-exp(-(x - loc) / scale))``, batched over the broadcast shape of loc and scale;
    reparameterisable: a draw is ``loc - scale log(-log u)`` for a uniform u in
    [tiny, 1 - eps) of the dtype, as PyTorch's: a TransformedDistribution of ``base_dist``
    that Uniform by ``transforms`` ``[ExpTransform().inv, AffineTransform(0, -1),
    ExpTransform().inv, AffineTransform(loc, -scale)]``.  log_prob, cdf, icdf, the moments
    and the entropy are the closed forms (PyTorch's cdf and icdf go through that uniform's
    interval, off by about eps).

    Parameters
    ----------
    loc : float or Tensor
        The location (the mode).
    scale : float or Tensor
        The scale, > 0.
    validate_args : bool, optional
        Check that scale > 0 (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Gumbel
    >>> d = Gumbel(pydevtensor.tensor([0.0]), 2.0)
    >>> d.log_prob(pydevtensor.tensor([0.0])), d.mean
    (tensor([-1.6931]), tensor([1.1544]))
    >>> type(d.base_dist).__name__, len(d.transforms)
    ('Uniform', 4)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        base_dist = Uniform(_C.full_like(self.loc, info.tiny),
                            _C.full_like(self.loc, 1 - info.eps), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-_C.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
