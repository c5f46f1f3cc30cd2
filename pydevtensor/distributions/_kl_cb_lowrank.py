"""The KL divergences PyTorch registers for ContinuousBernoulli (with itself, Beta,
Exponential, Gamma, Gumbel, Laplace, Normal, Pareto and Uniform) and for
LowRankMultivariateNormal (with itself and MultivariateNormal, both ways), registered into
kl.py's table on import.  PyTorch's formulas; the Uniform pairs are inf only where one
support misses mass of the other (PyTorch's test, ``>=`` and ``<=`` against [0, 1], also
gives inf where the supports touch, as for Uniform(0, 1), where the divergence is finite)."""
import math

from .. import _C
from .._ops_shape import broadcast_shapes
from .._ops_diag import diag_embed
from ..linalg import solve_triangular
from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _lowrank_logdet,
                                          _lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .transformed_families import Pareto
from .uniform import Uniform


def _inf_like(x):
    return _C.full(tuple(x.shape), math.inf, dtype=x.dtype, device=x.device)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


def _neg_cross_entropy_cb(p, q):
    """E_p[log q(X)] for q a ContinuousBernoulli and p on [0, 1] with mean p.mean."""
    return p.mean * q.logits + (-q.probs).log1p() + q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_cb(p, q):
    return -p.entropy() - _neg_cross_entropy_cb(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p, q):
    result = -p.entropy() - _neg_cross_entropy_cb(p, q)
    return result.masked_fill((p.high > 1.0).logical_or(p.low < 0.0), math.inf)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).pow(2)) + q.scale.log()
    t3 = (p.variance + p.mean.pow(2) - 2.0 * q.loc * p.mean) / (2.0 * q.scale.pow(2))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0.0).logical_or(q.high < 1.0), math.inf)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_cb_pareto(p, q):
    # Pareto's support [scale, inf) with scale > 0 misses p's mass near 0
    return _inf_like(p.probs)


# p's support is unbounded, q's [0, 1]
for _p in (Exponential, Gamma, Gumbel, Laplace, Normal, Pareto):
    register_kl(_p, ContinuousBernoulli)(lambda p, q: _inf_like(p.mean))


def _trace_xxt(x):
    """trace(X X^T) of each matrix of a batch."""
    return x.pow(2).sum((-2, -1))


def _check_event_shapes(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("kl_divergence(): (low rank) multivariate normals of different "
                         f"event shapes {tuple(p.event_shape)} and {tuple(q.event_shape)}")


def _qlowrank_a(q):
    """A = L_C^-1 W^T D^-1 of q, so that cov_q^-1 = D^-1 - A^T A (Woodbury)."""
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    return solve_triangular(q._capacitance_tril, W.mT / D.unsqueeze(-2), upper=False)


def _qlowrank_logdet_mahalanobis(p, q):
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    return (_lowrank_logdet(D, q._capacitance_tril),
            _lowrank_mahalanobis(W, D, q.loc - p.loc, q._capacitance_tril))


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_event_shapes(p, q)
    q_logdet, term3 = _qlowrank_logdet_mahalanobis(p, q)
    term1 = q_logdet - _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril)
    # trace(cov_q^-1 cov_p) = trace((D_q^-1 - A^T A)(D_p + W_p W_p^T))
    pW, pD, qD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    A = _qlowrank_a(q)
    term2 = ((pD / qD).sum(-1) + _trace_xxt(pW * qD.rsqrt().unsqueeze(-1))
             - _trace_xxt(A * pD.sqrt().unsqueeze(-2)) - _trace_xxt(A @ pW))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _check_event_shapes(p, q)
    q_logdet, term3 = _qlowrank_logdet_mahalanobis(p, q)
    L = p._unbroadcasted_scale_tril
    term1 = q_logdet - 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    qD = q._unbroadcasted_cov_diag
    term2 = _trace_xxt(L * qD.rsqrt().unsqueeze(-1)) - _trace_xxt(_qlowrank_a(q) @ L)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _check_event_shapes(p, q)
    Lq = q._unbroadcasted_scale_tril
    term1 = (2 * Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
             - _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    # trace(cov_q^-1 (W_p W_p^T + D_p)) = |Lq^-1 W_p|^2 + |Lq^-1 sqrt(D_p)|^2
    n = p.event_shape[0]
    pW = p._unbroadcasted_cov_factor
    batch = tuple(broadcast_shapes(tuple(Lq.shape[:-2]), tuple(pW.shape[:-2])))
    Lq = Lq.expand(batch + (n, n))
    term21 = _trace_xxt(solve_triangular(Lq, pW.expand(batch + tuple(pW.shape[-2:])),
                                         upper=False))
    sqrt_d = diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term22 = _trace_xxt(solve_triangular(Lq, sqrt_d, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - n)
