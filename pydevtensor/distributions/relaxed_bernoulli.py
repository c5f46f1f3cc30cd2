"""LogitRelaxedBernoulli and RelaxedBernoulli, the Concrete relaxation of the Bernoulli:
PyTorch's ``torch.distributions.relaxed_bernoulli``."""
from numbers import Number

from .. import _C
from . import constraints
from .bernoulli import _probs_or_logits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import clamp_probs, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _temperature(temperature, like):
    """temperature as a tensor of like's dtype and device (PyTorch's needs a tensor)."""
    if isinstance(temperature, Number) and not isinstance(temperature, bool):
        return _C.tensor(float(temperature), dtype=like.dtype, device=like.device)
    if not isinstance(temperature, _C.Tensor):
        raise TypeError(f"temperature must be a number or a Tensor, got "
                        f"{type(temperature).__name__}")
    return temperature


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli: ``(logit(U) + logits) / temperature`` for U
    uniform on (0, 1), given by probs or logits (not both), as PyTorch's;
    reparameterisable.  Its density is ``t e^(l - t x) / (1 + e^(l - t x))^2`` (l the
    logits, t the temperature).

    Parameters
    ----------
    temperature : float or Tensor
        > 0, broadcastable with the parameter.
    probs : float or Tensor, optional
        The probability of 1 of the Bernoulli relaxed.
    logits : float or Tensor, optional
        Its log-odds.
    validate_args : bool, optional
        Check the parameter (default: ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Both or neither of probs and logits.

    Examples
    --------
    >>> from pydevtensor.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    >>> d = LogitRelaxedBernoulli(0.5, logits=pydevtensor.tensor([0.0, 1.0]))
    >>> d.log_prob(pydevtensor.tensor([0.0, 2.0]))
    tensor([-2.0794, -2.0794])
    >>> d.rsample((4,)).shape
    pydevtensor.Size([4, 2])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        is_scalar = isinstance(probs if probs is not None else logits, Number)
        self._param = _probs_or_logits(self, "LogitRelaxedBernoulli()", probs, logits)
        self.temperature = _temperature(temperature, self._param)
        batch_shape = () if is_scalar else tuple(self._param.shape)
        super().__init__(batch_shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        shape = tuple(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = new._param = self.probs.expand(shape)
        if "logits" in self.__dict__:
            new.logits = new._param = self.logits.expand(shape)
        Distribution.__init__(new, shape, (), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        """The log-odds of the (clamped) probs.

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(1.0, probs=pydevtensor.tensor([0.5])).logits
        tensor([0.])
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """sigmoid(logits).

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(1.0, logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(1.0, probs=pydevtensor.ones(2) / 2).param_shape
        pydevtensor.Size([2])
        """
        return self._param.shape

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(_C.rand(shape, dtype=probs.dtype, device=probs.device))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The relaxed (Concrete) Bernoulli on (0, 1): the sigmoid of a
    LogitRelaxedBernoulli, as PyTorch's; reparameterisable, tending to a Bernoulli as the
    temperature goes to 0.

    Parameters
    ----------
    temperature : float or Tensor
        > 0.
    probs : float or Tensor, optional
        The probability of 1 of the Bernoulli relaxed.
    logits : float or Tensor, optional
        Its log-odds.
    validate_args : bool, optional
        Check the parameter and, in log_prob, that values are in [0, 1] (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Both or neither of probs and logits.

    Examples
    --------
    >>> from pydevtensor.distributions import RelaxedBernoulli
    >>> d = RelaxedBernoulli(pydevtensor.tensor(2.0), probs=pydevtensor.tensor([0.5, 0.8]))
    >>> d.log_prob(pydevtensor.tensor([0.5, 0.5]))
    tensor([0.6931, 0.2469])
    >>> d.rsample((4,)).shape
    pydevtensor.Size([4, 2])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The base's temperature.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(0.5, probs=0.3).temperature
        tensor(0.5000)
        """
        return self.base_dist.temperature

    @property
    def logits(self):
        """The base's logits.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(0.5, logits=pydevtensor.tensor([1.0])).logits
        tensor([1.])
        """
        return self.base_dist.logits

    @property
    def probs(self):
        """The base's probs.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(0.5, logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return self.base_dist.probs
