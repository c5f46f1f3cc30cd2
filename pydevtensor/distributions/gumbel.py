"""Gumbel(loc, scale): PyTorch's ``torch.distributions.Gumbel``."""
import math

from .. import _C
from .._dtype_info import finfo
from .distribution import _LocScale

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(_LocScale):
    """The Gumbel (type-I extreme value) distribution of cdf
    ``exp(-exp(-(x - loc) / scale))``, batched over the broadcast shape of loc and scale;
    reparameterisable: a draw is ``loc - scale log(-log u)`` for a uniform u in
    [tiny, 1 - eps) of the dtype, as PyTorch's.  cdf and icdf are those closed forms
    (PyTorch's go through that uniform's interval, off by about eps).

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
    """

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        info = finfo(self.loc.dtype)
        u = _C.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        u = u * (1 - info.eps - info.tiny) + info.tiny
        return self.loc - self.scale * (-u.log()).log()

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
