"""OneHotCategorical(probs or logits) and its straight-through form: PyTorch's
``torch.distributions.OneHotCategorical`` and ``OneHotCategoricalStraightThrough``."""
from .. import _C
from ..nn.functional import one_hot
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A Categorical over the last dimension of probs (or logits) whose draws are one-hot
    vectors (events of shape (K,)) instead of indices.

    Parameters
    ----------
    probs : Tensor, optional
        Non-negative weights, (..., K), normalised to sum to 1.
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K).
    validate_args : bool, optional
        Check the parameter and, in log_prob, that values are one-hot (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import OneHotCategorical
    >>> d = OneHotCategorical(pydevtensor.tensor([1.0, 1.0, 2.0]))
    >>> d.event_shape, d.mean
    (pydevtensor.Size([3]), tensor([0.2500, 0.2500, 0.5000]))
    >>> d.log_prob(pydevtensor.tensor([0.0, 0.0, 1.0])).exp()
    tensor(0.5000)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The probabilities, (..., K), summing to 1.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import OneHotCategorical
        >>> OneHotCategorical(logits=pydevtensor.tensor([0.0, 0.0])).probs
        tensor([0.5000, 0.5000])
        """
        return self._categorical.probs

    @property
    def logits(self):
        """The normalised log-probabilities, (..., K).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import OneHotCategorical
        >>> OneHotCategorical(pydevtensor.tensor([1.0, 1.0])).logits
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
        >>> from pydevtensor.distributions import OneHotCategorical
        >>> OneHotCategorical(pydevtensor.ones(2, 3)).param_shape
        pydevtensor.Size([2, 3])
        """
        return self._categorical.param_shape

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape=()):
        self._extended_shape(sample_shape)  # checks sample_shape
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        probs = self._categorical.probs
        values = _C.eye(n, dtype=probs.dtype, device=probs.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A OneHotCategorical whose ``rsample`` passes gradients straight through (Bengio et
    al., 2013), as PyTorch's: the one-hot draw plus ``probs - probs.detach()``, so its
    value is the draw and its gradient that of the probabilities.

    Parameters
    ----------
    probs : Tensor, optional
        Non-negative weights, (..., K), normalised to sum to 1.
    logits : Tensor, optional
        Unnormalised log-probabilities, (..., K); exactly one of probs and logits.
    validate_args : bool, optional

    Examples
    --------
    >>> from pydevtensor.distributions import OneHotCategoricalStraightThrough
    >>> p = pydevtensor.tensor([0.0, 1.0], requires_grad=True)
    >>> d = OneHotCategoricalStraightThrough(probs=p)
    >>> x = d.rsample()
    >>> x
    tensor([0., 1.], grad_fn=<AddBackward0>)
    >>> (x * pydevtensor.tensor([1.0, 2.0])).sum().backward()  # through p / p.sum()
    >>> p.grad
    tensor([-1.,  0.])
    """

    has_rsample = True

    def rsample(self, sample_shape=()):
        """A one-hot draw whose gradient is that of the probabilities.

        Parameters
        ----------
        sample_shape : tuple of ints, optional

        Returns
        -------
        Tensor
            sample_shape + batch_shape + (K,).

        Examples
        --------
        >>> from pydevtensor.distributions import OneHotCategoricalStraightThrough
        >>> OneHotCategoricalStraightThrough(pydevtensor.ones(3)).rsample((2,)).shape
        pydevtensor.Size([2, 3])
        """
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
