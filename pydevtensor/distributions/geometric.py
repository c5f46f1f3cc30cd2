"""Geometric(probs or logits): PyTorch's ``torch.distributions.Geometric``."""
from .. import _C
from .._dtype_info import finfo
from .._ops_index import where
from ..autograd import no_grad
from . import constraints
from .bernoulli import _probs_or_logits
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """The geometric distribution: the number of failures before the first success of
    Bernoulli trials of success probability ``probs`` (support 0, 1, 2, ...); given by
    probs in (0, 1] or by logits (``probs = sigmoid(logits)``), not both.

    Parameters
    ----------
    probs : float or Tensor, optional
        The probability of success of each trial, in (0, 1].
    logits : float or Tensor, optional
        The log-odds of success.
    validate_args : bool, optional
        Check the parameter and, in log_prob, that values are integers >= 0 (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Both or neither of probs and logits; with validation on, probs outside (0, 1].

    Examples
    --------
    >>> from pydevtensor.distributions import Geometric
    >>> d = Geometric(pydevtensor.tensor([0.5, 0.25]))
    >>> d.mean, d.log_prob(pydevtensor.tensor([1.0, 0.0])).exp()
    (tensor([1., 3.]), tensor([0.2500, 0.2500]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _probs_or_logits(self, "Geometric()", probs, logits)
        super().__init__(tuple(param.shape), (), validate_args)
        if self._validate_args and probs is not None:
            with no_grad():
                ok = bool((self.probs > 0).all())
            if not ok:
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of "
                                 f"shape {tuple(self.probs.shape)}) of distribution {self!r} "
                                 f"to be positive but found invalid values:\n{self.probs}")

    @lazy_property
    def logits(self):
        """The log-odds of success, from probs (clamped to [eps, 1 - eps] first, as
        PyTorch's).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Geometric
        >>> Geometric(pydevtensor.tensor([0.5])).logits
        tensor([0.])
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of success, sigmoid(logits).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Geometric
        >>> Geometric(logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _C.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            u = _C.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
            u = u * (1 - tiny) + tiny  # uniform on [tiny, 1), as PyTorch's
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 failures at probs 1: log 1 = 0, not 0 * log(0) = nan
        probs = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        # -log p - (1 - p) log(1 - p) / p from probs itself: PyTorch's
        # binary_cross_entropy_with_logits(logits, probs) / probs takes the logits of the
        # probs clamped to [eps, 1 - eps], so below eps it grows as eps / p (2e14 at p = 1e-30
        # in float64, 0.0 in PyTorch 2.15), not as the true 1 - log p.  p = 1 (log1p(-1) =
        # -inf times 0) reads 0 and p = 0 (an underflowed sigmoid of the logits) inf, the
        # limits, with finite gradients: the other branch sees p = 1/2.
        p = self.probs
        one, zero = p == 1, p == 0
        q = where(one | zero, 0.5, p)
        h = -q.log() - (1 - q) * (-q).log1p() / q
        return where(one, 0.0, where(zero, float("inf"), h))
