"""Multinomial(total_count, probs or logits): PyTorch's
``torch.distributions.multinomial.Multinomial`` (D2L 2.6 imports it from here)."""
import math

from .. import _C
from ..autograd import no_grad
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The counts of each of K categories in total_count independent draws from
    Categorical(probs) (or logits): events of shape (K,).

    Parameters
    ----------
    total_count : int, optional
        The number of draws (default 1); sample() needs it, log_prob does not.
    probs : Tensor, optional
        Non-negative weights of the categories, (..., K), normalised.
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K).
    validate_args : bool, optional
        Check the parameters and, in log_prob, the values (default: ``Distribution``'s
        setting); the Categorical inside checks probs (or logits) with the default
        setting whatever this is, as PyTorch's.

    Raises
    ------
    TypeError
        total_count is not an int.

    Examples
    --------
    >>> from pydevtensor.distributions.multinomial import Multinomial
    >>> _ = pydevtensor.manual_seed(0)
    >>> fair_probs = pydevtensor.ones(6) / 6
    >>> counts = Multinomial(10, fair_probs).sample()
    >>> counts.shape, counts.sum().item()
    (pydevtensor.Size([6]), 10.0)
    >>> Multinomial(1, fair_probs).sample((3,)).shape
    pydevtensor.Size([3, 6])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):  # a bool is one, as in PyTorch
            raise TypeError(f"Multinomial(): total_count must be an int, got "
                            f"{type(total_count).__name__} (inhomogeneous counts are not "
                            f"supported, as in PyTorch)")
        if total_count < 0:
            raise ValueError(f"Multinomial(): total_count must be >= 0, got {total_count}")
        self.total_count = total_count
        # with the default validation whatever validate_args is, as PyTorch's
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = None
        batch_shape = self._categorical.batch_shape
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args)

    @property
    def probs(self):
        """The probabilities of the categories, (..., K), summing to 1.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Multinomial
        >>> Multinomial(5, pydevtensor.tensor([1.0, 3.0])).probs
        tensor([0.2500, 0.7500])
        """
        return self._categorical.probs

    @property
    def logits(self):
        """The normalised log-probabilities of the categories.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Multinomial
        >>> Multinomial(5, pydevtensor.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return self._categorical.logits

    @property
    def param_shape(self):
        """The shape of the parameter: batch_shape + (K,).

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import Multinomial
        >>> Multinomial(5, pydevtensor.ones(2, 4)).param_shape
        pydevtensor.Size([2, 4])
        """
        return self._categorical.param_shape

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Counts >= 0 summing to at most total_count (PyTorch's check).

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Multinomial
        >>> Multinomial(5, pydevtensor.ones(2)).support
        Multinomial(upper_bound=5)
        """
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        sample_dims = tuple(shape)[:len(shape) - len(self.batch_shape) - 1]
        with no_grad():
            if self.total_count == 0:
                return _C.zeros(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
            draws = self._categorical.sample((int(self.total_count),) + sample_dims)
            # draws: (total_count, *sample, *batch) -> counts per category
            k = self._categorical._num_events
            counts = _C.zeros(tuple(draws.shape[1:]) + (k,), dtype=self.probs.dtype,
                              device=self.probs.device)
            moved = draws.movedim(0, -1)  # (*sample, *batch, total_count)
            counts.scatter_add_(-1, moved, _C.ones(tuple(moved.shape), dtype=self.probs.dtype,
                                                   device=self.probs.device))
            return counts

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == float("-inf")), 0.0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self):
        n = self.total_count
        binomial = Binomial(n, self.probs)
        support = binomial.enumerate_support(False)[1:]  # k = 0 adds lgamma(1) = 0
        binomial_probs = binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        return ((binomial_probs * weights).sum((0, -1)) + n * self._categorical.entropy()
                - math.lgamma(n + 1))
