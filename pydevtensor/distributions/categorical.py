"""Categorical(probs or logits): PyTorch's ``torch.distributions.Categorical``."""
import math

from .. import _C
from .._dtype_info import finfo
from .._ops_multinomial import multinomial
from .._ops_nan import logsumexp
from .._ops_shape import broadcast_tensors
from ..autograd import no_grad
from . import constraints
from .bernoulli import _one_of
from .distribution import Distribution
from .utils import enumerate_values, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over the categories 0 .. K-1 of the last dimension of probs (or
    logits): category i with probability ``probs[..., i]`` (probs are normalised to sum
    to 1; logits are log-probabilities up to a constant).  Draws come from
    ``multinomial`` (with replacement).

    Parameters
    ----------
    probs : Tensor, optional
        Non-negative weights, (..., K).
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K).
    validate_args : bool, optional
        Check the parameter and, in log_prob, the values (default: ``Distribution``'s
        setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Categorical
    >>> d = Categorical(pydevtensor.tensor([1.0, 1.0, 2.0]))
    >>> d.probs
    tensor([0.2500, 0.2500, 0.5000])
    >>> d.log_prob(pydevtensor.tensor(2)).exp()
    tensor(0.5000)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of("Categorical()", probs, logits)
        param = probs if probs is not None else logits
        if not isinstance(param, _C.Tensor) or param.ndim < 1:
            raise ValueError(f"Categorical(): `probs` or `logits` must be a tensor of at "
                             f"least one dimension, got {_kind(param)}")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logsumexp(logits, -1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        super().__init__(tuple(self._param.shape[:-1]), (), validate_args)

    @lazy_property
    def logits(self):
        """The normalised log-probabilities, (..., K).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical
        >>> Categorical(pydevtensor.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """The probabilities, (..., K), summing to 1.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical
        >>> Categorical(logits=pydevtensor.tensor([0.0, 0.0])).probs
        tensor([0.5000, 0.5000])
        """
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter: batch_shape + (K,).

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical
        >>> Categorical(pydevtensor.ones(2, 3)).param_shape
        pydevtensor.Size([2, 3])
        """
        return self._param.shape

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The categories, 0 .. K-1.

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical
        >>> Categorical(pydevtensor.ones(3)).support
        IntegerInterval(lower_bound=0, upper_bound=2)
        """
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return _C.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                       device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        n = 1
        for d in tuple(shape)[:len(shape) - len(self.batch_shape)]:
            n *= d
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            if n == 0 or probs_2d.shape[0] == 0:
                return _C.zeros(tuple(shape), dtype=_C.int64, device=self.probs.device)
            samples_2d = multinomial(probs_2d, n, True).T
            return samples_2d.reshape(tuple(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.to(_C.int64).unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        min_real = finfo(self.logits.dtype).min
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """The categories 0 .. K-1 along a new first dimension, expanded over the batch
        shape when expand is True.

        Parameters
        ----------
        expand : bool, optional

        Returns
        -------
        Tensor
            int64, (K,) + batch_shape, or (K,) + (1,) * len(batch_shape).

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical
        >>> Categorical(pydevtensor.ones(2, 3)).enumerate_support()
        tensor([[0, 0],
                [1, 1],
                [2, 2]])
        """
        values = _C.arange(self._num_events, device=self._param.device)
        return enumerate_values(values, self.batch_shape, expand)


def _kind(x):
    if isinstance(x, _C.Tensor):
        return f"a 0-d tensor ({x.dtype}, on {x.device})"
    return type(x).__name__
