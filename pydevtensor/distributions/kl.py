"""kl_divergence(p, q) and register_kl: PyTorch's ``torch.distributions.kl``.  The
Normal, Categorical, Bernoulli, Poisson, Exponential and Uniform pairs of one family are
here, the other pairs PyTorch has in _kl_more.py; kl_divergence's docstring lists the
registered pairs, rewritten at each registration (``_document_registry``)."""
import math

from ..autograd import enable_grad, grad
from .bernoulli import Bernoulli, _softplus
from .categorical import Categorical
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import _sum_rightmost
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform

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
        _document_registry()
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
    PyTorch's: for the pairs of classes registered (below, as PyTorch's, with those it
    gives inf for, as Normal-Uniform), their subclasses (Chi2 as Gamma), the pairs
    added with ``register_kl``, and, for two of one ``ExponentialFamily`` class with no
    closed form, the Bregman divergence of its log normalizer.  The registered pairs,
    each p with its q's:

    {pairs}

    Parameters
    ----------
    p, q : Distribution
        Of broadcastable batch shapes.

    Returns
    -------
    Tensor
        Of the broadcast batch shape (p's, for the pairs that are always inf, as
        PyTorch's).

    Raises
    ------
    NotImplementedError
        No divergence registered for the pair (the message names the q's registered
        for p's class).

    Examples
    --------
    >>> from pydevtensor.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(pydevtensor.tensor(0.0), 1.0), Normal(pydevtensor.tensor(1.0), 1.0))
    tensor(0.5000)
    """
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise _no_rule(p, q)
    return fn(p, q)


def _no_rule(p, q, note=""):
    """The NotImplementedError for a pair with no divergence: it names the q's registered
    for p's class."""
    qs = sorted({b.__name__ for a, b in _KL_REGISTRY if issubclass(type(p), a)})
    have = (f"registered with p a {type(p).__name__}: q a {', '.join(qs)}" if qs else
            f"none registered with p a {type(p).__name__}")
    return NotImplementedError(f"kl_divergence(): no KL divergence registered for "
                               f"{type(p).__name__} and {type(q).__name__} ({have}; {note}"
                               f"add one with register_kl)")


def _registered_pairs(indent):
    """The registry as lines "P: Q1, Q2, ...", sorted by name."""
    by_p = {}
    for a, b in _KL_REGISTRY:
        by_p.setdefault(a.__name__, set()).add(b.__name__)
    return f"\n{indent}".join(f"- {a}: {', '.join(sorted(bs))}" for a, bs in sorted(by_p.items()))


_DOC_TEMPLATE = kl_divergence.__doc__


def _document_registry():
    """Fill kl_divergence's docstring with the pairs registered so far."""
    if _DOC_TEMPLATE is not None:  # None under python -OO
        kl_divergence.__doc__ = _DOC_TEMPLATE.replace("{pairs}", _registered_pairs(" " * 4))


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


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p / q) + (1 - p) log((1 - p) / (1 - q)): a term is 0 where its weight is 0,
    and inf where q gives 0 to what p does not.  The logs are PyTorch's, from the logits
    of the clamped probabilities (log p = -softplus(-logit)), so that the gradient stays
    finite at probabilities 0 and 1, where log(0) would give 0 * inf = nan."""
    a, b = p.probs, q.probs
    lp, lq = p.logits, q.logits
    t1 = (a * (_softplus(-lq) - _softplus(-lp))).masked_fill(b == 0, math.inf)
    t1 = t1.masked_fill(a == 0, 0.0)
    t2 = ((1 - a) * (_softplus(lq) - _softplus(lp))).masked_fill(b == 1, math.inf)
    t2 = t2.masked_fill(a == 1, 0.0)
    return t1 + t2


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    """r_p (log r_p - log r_q) - (r_p - r_q): PyTorch's form, so a zero rate gives its
    infinite gradients, not NaN from the quotient."""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    """r - 1 - log(r) with r = rate_q / rate_p."""
    r = q.rate / p.rate
    return r - 1 - r.log()


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log(width_q / width_p) when q's interval holds p's, inf otherwise."""
    out = ((q.high - q.low) / (p.high - p.low)).log()
    return out.masked_fill((q.low > p.low).logical_or(q.high < p.high), math.inf)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Two of one exponential family with no closed form registered: the Bregman
    divergence of the log normalizer F, ``F(theta_q) - F(theta_p) - <theta_q - theta_p,
    grad F(theta_p)>``, grad F by autograd, as PyTorch's."""
    if type(p) is not type(q):
        raise _no_rule(p, q, "ExponentialFamily's takes two of one class; ")
    with enable_grad():
        p_nparams = [nparam.detach().requires_grad_() for nparam in p._natural_params]
        lg_normal = p._log_normalizer(*p_nparams)
        gradients = grad(lg_normal.sum(), p_nparams, create_graph=True)
        result = q._log_normalizer(*q._natural_params) - lg_normal
        for pnp, qnp, g in zip(p_nparams, q._natural_params, gradients):
            result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result
