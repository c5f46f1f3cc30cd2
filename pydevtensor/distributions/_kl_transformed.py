"""The KL divergences PyTorch registers for TransformedDistribution pairs and Pareto
pairs, registered into kl.py's table on import."""
import math

from .. import _C
from .beta import Beta
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transformed_families import Pareto
from .uniform import Uniform


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return result.masked_fill(p.support.lower_bound < q.support.lower_bound, math.inf)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or tuple(p.event_shape) != tuple(q.event_shape):
        raise NotImplementedError("kl_divergence(): TransformedDistributions of different "
                                  "transforms or event shapes have none here (as in PyTorch)")
    return kl_divergence(p.base_dist, q.base_dist)


def _infinite_like(p):
    return _C.full(tuple(p.batch_shape), math.inf, dtype=p.mean.dtype, device=p.mean.device)


# q's support [scale, inf) misses mass of p (p below scale, or Pareto's unbounded tail)
for _p, _q in ((Beta, Pareto), (Exponential, Pareto), (Gamma, Pareto), (Gumbel, Pareto),
               (Laplace, Pareto), (Normal, Pareto), (Pareto, Beta), (Pareto, Uniform)):
    register_kl(_p, _q)(lambda p, q: _infinite_like(p))


def _pareto_neg_entropy_and_mean(p):
    """(-H(p), E[log X], E[X]) of a Pareto (E[X] finite for alpha > 1)."""
    log_term = p.scale.log() + p.alpha.reciprocal()
    return p.alpha.log() - log_term - 1, log_term, p.alpha * p.scale / (p.alpha - 1)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    neg_h, _, mean = _pareto_neg_entropy_and_mean(p)
    result = neg_h - q.rate.log() + q.rate * mean
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    neg_h, log_term, mean = _pareto_neg_entropy_and_mean(p)
    c = q.concentration
    result = neg_h + c.lgamma() - c * q.rate.log() + (1 - c) * log_term + q.rate * mean
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    neg_h, _, mean = _pareto_neg_entropy_and_mean(p)
    a = p.alpha
    var = p.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
    result = (neg_h + (math.sqrt(2 * math.pi) * q.scale).log()
              + (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2)))
    return result.masked_fill(a <= 2, math.inf)


def _x_log_x(x):
    return x * x.log()


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)
