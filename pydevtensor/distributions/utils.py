"""Helpers of the distributions: broadcast_all, the probs/logits conversions, and the
lazily computed property (PyTorch's ``torch.distributions.utils``)."""
from numbers import Number

from .. import _C
from .._dtype_info import finfo
from .._ops_shape import broadcast_tensors

__all__ = ["broadcast_all", "lazy_property", "logits_to_probs", "probs_to_logits"]


def enumerate_values(values, batch_shape, expand):
    """values (1-d) along a new first dimension, expanded over batch_shape when expand
    (else of size 1 there): what enumerate_support returns."""
    values = values.reshape((-1,) + (1,) * len(batch_shape))
    return values.expand(-1, *tuple(batch_shape)) if expand else values


def broadcast_all(*values):
    """The values broadcast to one shape: numbers become tensors of the tensors' dtype
    and device (of the default dtype when all are numbers), as PyTorch's.

    Parameters
    ----------
    *values : Tensor or number

    Returns
    -------
    tuple of Tensor

    Raises
    ------
    ValueError
        A value that is neither a Tensor nor a number.

    Examples
    --------
    >>> from pydevtensor.distributions.utils import broadcast_all
    >>> a, b = broadcast_all(pydevtensor.zeros(2), 1.0)
    >>> b
    tensor([1., 1.])
    """
    for v in values:
        if not isinstance(v, (_C.Tensor, Number)):  # a bool is a Number, as in PyTorch
            raise ValueError(f"Input arguments must all be instances of numbers.Number or "
                             f"Tensor, got {type(v).__name__}")
    like = next((v for v in values if isinstance(v, _C.Tensor)), None)
    if like is None:
        return tuple(_C.tensor(float(v)) for v in values)
    dtype = like.dtype if like.is_floating_point() else _C._get_default_dtype()
    tensors = [v if isinstance(v, _C.Tensor) else _C.tensor(float(v), dtype=dtype,
                                                             device=like.device)
               for v in values]
    return tuple(broadcast_tensors(*tensors))


def _clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits of probabilities: ``log(p) - log1p(-p)`` for a binary event, else
    ``log(p)``, with p clamped to [eps, 1 - eps] (eps of its dtype) as PyTorch does.

    Parameters
    ----------
    probs : Tensor
    is_binary : bool, optional

    Returns
    -------
    Tensor

    Examples
    --------
    >>> from pydevtensor.distributions.utils import probs_to_logits
    >>> probs_to_logits(pydevtensor.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    ps = _clamp_probs(probs)
    return ps.log() - (-ps).log1p() if is_binary else ps.log()


def logits_to_probs(logits, is_binary=False):
    """Probabilities of logits: ``sigmoid`` for a binary event, else ``softmax`` over the
    last dimension.

    Parameters
    ----------
    logits : Tensor
    is_binary : bool, optional

    Returns
    -------
    Tensor

    Examples
    --------
    >>> from pydevtensor.distributions.utils import logits_to_probs
    >>> logits_to_probs(pydevtensor.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    if is_binary:
        return logits.sigmoid()
    from .._ops_stats import softmax
    return softmax(logits, -1)


class lazy_property:
    """A property computed on first use and then stored on the instance (probs from
    logits, or logits from probs), as PyTorch's: computed with gradients enabled, so
    that a first use under ``no_grad`` (in ``sample()``) stores a value that still has
    the parameter's graph for later log_prob, entropy or mean."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        from ..autograd import enable_grad
        with enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value

