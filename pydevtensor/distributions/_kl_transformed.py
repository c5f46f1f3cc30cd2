"""The KL divergences PyTorch registers for TransformedDistribution pairs and Pareto
pairs, registered into kl.py's table on import."""
import math

from .kl import kl_divergence, register_kl
from .transformed_distribution import TransformedDistribution
from .transformed_families import Pareto


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
