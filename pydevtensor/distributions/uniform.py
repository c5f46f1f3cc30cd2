"""Uniform(low, high): PyTorch's ``torch.distributions.Uniform``."""
from .. import _C
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on [low, high), batched over the broadcast shape of low
    and high; reparameterisable (``rsample``).

    Parameters
    ----------
    low : float or Tensor
        The lower end, included.
    high : float or Tensor
        The upper end, excluded; > low.
    validate_args : bool, optional
        Check that low < high (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Uniform
    >>> d = Uniform(pydevtensor.tensor([0.0]), 4.0)
    >>> d.mean, d.entropy()
    (tensor([2.]), tensor([1.3863]))
    """

    arg_constraints = {"low": constraints.real, "high": constraints.real}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(tuple(self.low.shape), (), validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError(f"Expected parameter low ({type(self.low).__name__} of shape "
                             f"{tuple(self.low.shape)}) of distribution {self!r} to satisfy "
                             f"the constraint LessThan(upper_bound=high), but found invalid "
                             f"values:\n{self.low}")

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """[low, high], the values of nonzero density and high (PyTorch's interval; its
        density there is 0: log_prob gives -inf, cdf 1).

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Uniform
        >>> Uniform(0.0, 1.0).support
        Interval(lower_bound=0.0, upper_bound=1.0)
        """
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.low * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _C.rand(tuple(shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value) & (value < self.high)
        return inside.to(self.low.dtype).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return (self.high - self.low).log()
