"""ExpRelaxedCategorical and RelaxedOneHotCategorical, the Concrete (Gumbel-softmax)
relaxation of the one-hot categorical: PyTorch's
``torch.distributions.relaxed_categorical``."""
from .. import _C
from .._ops_nan import logsumexp
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .relaxed_bernoulli import _temperature
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs, broadcast_all

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw: ``log_softmax((logits + G) /
    temperature)`` for G standard Gumbel noise over the last dimension, given by probs or
    logits (not both), as PyTorch's; reparameterisable.  The support is real vectors
    (really the points whose exponentials sum to 1).

    Parameters
    ----------
    temperature : float or Tensor
        > 0: a scalar (a tensor broadcastable with (..., K) draws, but log_prob needs a
        scalar, as PyTorch's).
    probs : Tensor, optional
        Non-negative weights of the K categories, (..., K).
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K).
    validate_args : bool, optional
        Check the parameter and, in log_prob, the values (default: ``Distribution``'s
        setting).

    Raises
    ------
    ValueError
        Both or neither of probs and logits, or one of no dimension.

    Examples
    --------
    >>> from pydevtensor.distributions.relaxed_categorical import ExpRelaxedCategorical
    >>> d = ExpRelaxedCategorical(1.0, logits=pydevtensor.zeros(3))
    >>> d.log_prob(pydevtensor.log(pydevtensor.tensor([0.5, 0.25, 0.25])))
    tensor(-2.7489)
    >>> d.rsample((4,)).shape
    pydevtensor.Size([4, 3])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = _temperature(temperature, self._categorical._param)
        batch_shape = tuple(self._categorical.batch_shape)
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, tuple(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        """The shape of the parameter given, (..., K).

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(1.0, probs=pydevtensor.ones(2, 3)).param_shape
        pydevtensor.Size([2, 3])
        """
        return self._categorical.param_shape

    @property
    def logits(self):
        """The normalised log-probabilities, (..., K).

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(1.0, probs=pydevtensor.ones(2)).logits
        tensor([-0.6931, -0.6931])
        """
        return self._categorical.logits

    @property
    def probs(self):
        """The probabilities, (..., K), summing to 1.

        Examples
        --------
        >>> from pydevtensor.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(1.0, logits=pydevtensor.zeros(2)).probs
        tensor([0.5000, 0.5000])
        """
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        logits = self.logits
        u = clamp_probs(_C.rand(shape, dtype=logits.dtype, device=logits.device))
        gumbels = -((-(u.log())).log())
        scores = (logits + gumbels) / self.temperature
        return scores - logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        t = self.temperature
        log_scale = _C.full_like(t, float(k)).lgamma() + (k - 1) * t.log()
        score = logits - value * t
        score = (score - logsumexp(score, -1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """The relaxed one-hot categorical (Concrete, Gumbel-softmax) on the simplex:
    ``softmax((logits + G) / temperature)``, the exp of an ExpRelaxedCategorical, as
    PyTorch's; reparameterisable, tending to a OneHotCategorical as the temperature goes
    to 0.  log_prob is the Concrete density ``(K-1)! t^(K-1) prod(p x^(-t-1)) /
    (sum p x^(-t))^K``.

    Parameters
    ----------
    temperature : float or Tensor
        > 0, a scalar (as ExpRelaxedCategorical's).
    probs : Tensor, optional
        Non-negative weights of the K categories, (..., K).
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K).
    validate_args : bool, optional
        Check the parameter and, in log_prob, that values lie in the simplex (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Both or neither of probs and logits, or one of no dimension.

    Examples
    --------
    >>> from pydevtensor.distributions import RelaxedOneHotCategorical
    >>> d = RelaxedOneHotCategorical(1.0, probs=pydevtensor.ones(3))
    >>> d.log_prob(pydevtensor.tensor([0.5, 0.25, 0.25]))
    tensor(0.7169)
    >>> d.rsample((4,)).shape
    pydevtensor.Size([4, 3])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The base's temperature.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(0.5, probs=pydevtensor.ones(2)).temperature
        tensor(0.5000)
        """
        return self.base_dist.temperature

    @property
    def logits(self):
        """The base's normalised logits.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(0.5, probs=pydevtensor.ones(2)).logits
        tensor([-0.6931, -0.6931])
        """
        return self.base_dist.logits

    @property
    def probs(self):
        """The base's probabilities.

        Examples
        --------
        >>> from pydevtensor.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(0.5, logits=pydevtensor.zeros(2)).probs
        tensor([0.5000, 0.5000])
        """
        return self.base_dist.probs
