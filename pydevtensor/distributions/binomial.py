"""Binomial(total_count, probs or logits): PyTorch's ``torch.distributions.Binomial``."""
from .. import _C
from ..autograd import no_grad
from . import constraints
from .bernoulli import Bernoulli, _one_of
from .distribution import Distribution
from .utils import broadcast_all, enumerate_values

__all__ = ["Binomial"]

_TRIAL_CHUNK = 256  # trials drawn at once by sample(): memory of 256 uniforms an element


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in total_count independent trials, each a success with
    probability ``probs`` (or ``sigmoid(logits)``).

    A draw counts the float64 uniforms below probs among total_count of them (trials
    drawn 256 at a time): exact, and its cost grows with total_count.

    Parameters
    ----------
    total_count : int or Tensor, optional
        The number of trials (default 1), >= 0.
    probs : float or Tensor, optional
        The probability of a success, in [0, 1].
    logits : float or Tensor, optional
        The log-odds of a success.
    validate_args : bool, optional
        Check the parameters and, in log_prob, the values (default: ``Distribution``'s
        setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Binomial
    >>> d = Binomial(10, pydevtensor.tensor([0.5]))
    >>> d.mean, d.variance
    (tensor([5.]), tensor([2.5000]))
    >>> d.log_prob(pydevtensor.tensor([5.0])).exp()
    tensor([0.2461])
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _one_of("Binomial()", probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            shape = tuple(self.probs.shape)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            shape = tuple(self.logits.shape)
        super().__init__(shape, (), validate_args)

    # probs and logits, each computed from the other on first use: Bernoulli's
    logits = Bernoulli.__dict__["logits"]
    probs = Bernoulli.__dict__["probs"]

    @property
    def support(self):
        """The counts 0 .. total_count.

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Binomial
        >>> Binomial(3, pydevtensor.tensor(0.5)).support
        IntegerInterval(lower_bound=0, upper_bound=3.0)
        """
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            probs = self.probs.to(_C.float64).expand(*shape).contiguous()
            count = self.total_count.to(_C.float64).expand(*shape).contiguous()
            n = int(count.max().item()) if count.numel() else 0
            total = _C.zeros(shape, dtype=_C.float64, device=probs.device)
            for start in range(0, n, _TRIAL_CHUNK):
                k = min(_TRIAL_CHUNK, n - start)
                u = _C.rand((k,) + shape, dtype=_C.float64, device=probs.device)
                trial = _C.arange(start, start + k, dtype=_C.float64, device=probs.device)
                trial = trial.reshape((k,) + (1,) * len(shape))
                total = total + ((u < probs) & (trial < count)).sum(0)
            return total.to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        log_factorial_n = (n + 1).lgamma()
        log_factorial_k = (k + 1).lgamma()
        log_factorial_nmk = (n - k + 1).lgamma()
        logits = self.logits
        normalize = (n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p()
                     - log_factorial_n)
        return k * logits - log_factorial_k - log_factorial_nmk - normalize

    def entropy(self):
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        """The counts 0 .. total_count along a new first dimension (one total_count for
        the whole batch), expanded over the batch shape when expand is True.

        Parameters
        ----------
        expand : bool, optional

        Returns
        -------
        Tensor

        Raises
        ------
        NotImplementedError
            total_count differs across the batch.

        Examples
        --------
        >>> from pydevtensor.distributions import Binomial
        >>> Binomial(2, pydevtensor.tensor([0.5])).enumerate_support()
        tensor([[0.],
                [1.],
                [2.]])
        """
        count = self.total_count
        n = int(count.max().item()) if count.numel() else 0
        if count.numel() and int(count.min().item()) != n:
            raise NotImplementedError("Binomial: an inhomogeneous total_count is not supported "
                                      "by enumerate_support and entropy (as in PyTorch)")
        values = _C.arange(1 + n, dtype=count.dtype, device=count.device)
        return enumerate_values(values, self.batch_shape, expand)
