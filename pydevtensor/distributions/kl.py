"""kl_divergence(p, q) and register_kl: PyTorch's ``torch.distributions.kl``, with the
pairs Normal-Normal and Categorical-Categorical (and whatever is registered)."""
import math

from .categorical import Categorical
from .normal import Normal

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    """A decorator that registers ``fn(p, q)`` as the KL divergence of a pair of
    distribution classes (the most specific registered pair of base classes is used).

    Parameters
    ----------
    type_p, type_q : type
        Subclasses of Distribution.

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> from pydevtensor.distributions import Normal, register_kl
    >>> class Unit(Normal):
    ...     pass
    >>> @register_kl(Unit, Unit)
    ... def _kl_unit(p, q):
    ...     return (p.loc - q.loc) ** 2 / 2
    >>> from pydevtensor.distributions import kl_divergence
    >>> kl_divergence(Unit(pydevtensor.tensor(0.0), 1.0), Unit(pydevtensor.tensor(2.0), 1.0))
    tensor(2.)
    """
    for t in (type_p, type_q):
        if not isinstance(t, type):
            raise TypeError(f"register_kl(): expected distribution classes, got {t!r}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(type_p, type_q):
    best, best_rank = None, None
    for (p, q), fn in _KL_REGISTRY.items():
        if issubclass(type_p, p) and issubclass(type_q, q):
            rank = (type_p.__mro__.index(p), type_q.__mro__.index(q))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p, q):
    """The Kullback-Leibler divergence KL(p || q) of two distributions, batched, as
    PyTorch's: registered for Normal-Normal and Categorical-Categorical (and pairs added
    with ``register_kl``).

    Parameters
    ----------
    p, q : Distribution
        Of broadcastable batch shapes.

    Returns
    -------
    Tensor
        Of the broadcast batch shape.

    Raises
    ------
    NotImplementedError
        No divergence registered for the pair.

    Examples
    --------
    >>> from pydevtensor.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(pydevtensor.tensor(0.0), 1.0), Normal(pydevtensor.tensor(1.0), 1.0))
    tensor(0.5000)
    """
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"kl_divergence(): no KL divergence registered for "
                                  f"{type(p).__name__} and {type(q).__name__} (pydevtensor "
                                  f"has Normal-Normal and Categorical-Categorical; add one "
                                  f"with register_kl)")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)
