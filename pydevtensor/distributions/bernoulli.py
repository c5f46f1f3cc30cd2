"""Bernoulli(probs or logits): PyTorch's ``torch.distributions.Bernoulli``."""
import math

from .. import _C
from .._ops_bernoulli import bernoulli
from ..autograd import no_grad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, enumerate_values, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Bernoulli"]


def _softplus(x):
    """log(1 + exp(x)) without overflow, with the gradient sigmoid(x) at every x: 1/2 at
    0, where relu(x) + log1p(exp(-|x|)) gives 0 or 1 (the kinks of clamp and abs)."""
    return _C.logaddexp(x, 0.0)


def _one_of(where, probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError(f"{where}: Either `probs` or `logits` must be specified, but not "
                         f"both.")


def _probs_or_logits(dist, where, probs, logits):
    """Sets dist.probs or dist.logits, whichever is given (exactly one, else
    ValueError), as a tensor, and returns it."""
    _one_of(where, probs, logits)
    if probs is not None:
        (dist.probs,) = broadcast_all(probs)
        return dist.probs
    (dist.logits,) = broadcast_all(logits)
    return dist.logits


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution: 1 with probability ``probs``, else 0; given by probs
    or by logits (``probs = sigmoid(logits)``), not both.

    Parameters
    ----------
    probs : float or Tensor, optional
        The probability of a 1, in [0, 1].
    logits : float or Tensor, optional
        The log-odds ``log(p / (1 - p))``.
    validate_args : bool, optional
        Check the parameter and, in log_prob, that values are 0 or 1 (default:
        ``Distribution``'s setting).

    Notes
    -----
    A deliberate difference from PyTorch 2.15: at infinite logits ``log_prob`` is the
    limit, -0 for the sure outcome (logits -inf with value 0, +inf with value 1) and
    -inf for the impossible one; PyTorch's reads NaN for both outcomes at logits -inf
    and for the sure one at +inf (its ``binary_cross_entropy_with_logits`` multiplies 0
    by inf).

    Examples
    --------
    >>> from pydevtensor.distributions import Bernoulli
    >>> d = Bernoulli(pydevtensor.tensor([0.25, 0.5]))
    >>> d.mean, d.variance
    (tensor([0.2500, 0.5000]), tensor([0.1875, 0.2500]))
    >>> Bernoulli(logits=pydevtensor.tensor([0.0])).probs
    tensor([0.5000])
    """

    _mean_carrier_measure = 0
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._param = _probs_or_logits(self, "Bernoulli()", probs, logits)
        super().__init__(tuple(self._param.shape), (), validate_args)

    @lazy_property
    def logits(self):
        """The log-odds, from probs (clamped to [eps, 1 - eps] first, as PyTorch's).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor([0.5])).logits
        tensor([0.])
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a 1, from logits (their sigmoid).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter (the batch shape).

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.zeros(4)).param_shape
        pydevtensor.Size([4])
        """
        return self.batch_shape

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return (self.probs >= 0.5).to(self.probs.dtype).masked_fill(self.probs == 0.5,
                                                                     float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return bernoulli(self.probs.expand(*shape).contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # -BCE-with-logits; a term of weight 0 adds 0 even where its softplus is inf
        # (logits of -inf with value 0, of inf with value 1): not NaN, and -inf where
        # the value is impossible
        ones = (value * _softplus(-logits)).masked_fill((value == 0) & (logits == -math.inf), 0.0)
        zeros = ((1 - value) * _softplus(logits)).masked_fill((value == 1) & (logits == math.inf),
                                                             0.0)
        # in a floating value's dtype, as PyTorch's (its BCE-with-logits takes the
        # target's): float32 for float64 parameters and a float32 value
        out = -(ones + zeros)
        return out.to(value.dtype) if value.is_floating_point() else out

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return _softplus(x)

    def entropy(self):
        return _softplus(self.logits) - self.logits * self.probs

    def enumerate_support(self, expand=True):
        param = self.__dict__.get("probs", self.__dict__.get("logits"))
        values = _C.arange(2, dtype=param.dtype, device=param.device)
        return enumerate_values(values, self.batch_shape, expand)
