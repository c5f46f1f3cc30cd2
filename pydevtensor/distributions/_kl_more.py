"""The KL divergences PyTorch registers for pairs of Laplace, LogNormal, Gumbel,
HalfNormal, Cauchy, Geometric, OneHotCategorical, Independent, MultivariateNormal, Gamma,
Beta, Dirichlet and Binomial (each with its own family) and for the pairs of different
families that PyTorch has (Exponential-Gamma, Normal-Laplace, Uniform-Beta, ..., and those
it gives inf, as Normal-Uniform), registered into kl.py's table on import."""
import math

from .. import _C
from .._ops_shape import broadcast_shapes
from .._ops_index import where
from .._ops_special import xlogy
from ..linalg import solve_triangular
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent, _sum_rightmost
from .kl import _kl_bernoulli_bernoulli, _kl_normal_normal, kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

_EULER_GAMMA = 0.57721566490153286060


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(LogNormal, LogNormal)
@register_kl(HalfNormal, HalfNormal)
def _kl_same_transform_of_normals(p, q):
    """exp (or |.|) of two normals: the divergence of the normals (those of HalfNormal
    centred at 0)."""
    return _kl_normal_normal(_Normal0(p), _Normal0(q))


class _Normal0:
    """loc and scale of the normal a LogNormal or HalfNormal transforms."""

    def __init__(self, d):
        self.scale = d.scale
        self.loc = d.loc if isinstance(d, LogNormal) else 0.0 * d.scale


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _EULER_GAMMA
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + t2 + t3 - (1 + _EULER_GAMMA)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # log(p / q) + (1 - p) / p * log((1 - p) / (1 - q)) from the probs: PyTorch's
    # -H(p) - log1p(-q) / p - q.logits takes the logits of probs clamped to [eps, 1 - eps]
    # (37.0 for two equal Geometric(1e-30), not 0); p = 1 reads -log q (the other branch sees
    # p = 1/2, so gradients stay finite)
    one = p.probs == 1
    pp = where(one, 0.5, p.probs)
    kl = pp.log() - q.probs.log() + (1 - pp) / pp * ((-pp).log1p() - (-q.probs).log1p())
    return where(one, -q.probs.log(), kl)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return kl_divergence(p._categorical, q._categorical)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(f"kl_divergence(): Independent distributions of "
                                  f"{p.reinterpreted_batch_ndims} and "
                                  f"{q.reinterpreted_batch_ndims} reinterpreted batch dims")
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError(f"KL-divergence between two Multivariate Normals with different "
                         f"event shapes cannot be computed: {tuple(p.event_shape)} vs "
                         f"{tuple(q.event_shape)}")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - Lp.diagonal(
        dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = tuple(broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Lp.shape[:-2])))
    X = solve_triangular(Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n)), upper=False)
    term2 = X.pow(2).sum((-2, -1))  # trace(X X^T)
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """https://statproofbook.github.io/P/dir-kl.html, as PyTorch's."""
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return (t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER_GAMMA
            - (1 + _EULER_GAMMA))


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """total_count times the Bernoulli divergence of the probabilities where the counts
    agree, inf where p's count is larger (q gives 0 to p's top counts); a smaller p count
    is refused, as PyTorch's."""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * _kl_bernoulli_bernoulli(p, q)
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    """-H(p) - E_p[log q]: log q(0) = -rate, log q(1) = log(rate) - rate."""
    return -p.entropy() - (xlogy(p.probs, q.rate) - q.rate)


def _beta_mean(p):
    return p.concentration1 / (p.concentration1 + p.concentration0)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * _beta_mean(p)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma()
                                  - (p.concentration1 + p.concentration0).digamma())
    t4 = q.rate * _beta_mean(p)
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    e_beta = _beta_mean(p)
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e_beta * (1 - e_beta) / (p.concentration1 + p.concentration0 + 1)
          + e_beta.pow(2)) * 0.5
    t4 = q.loc * e_beta
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """log(width_q) - H(p) when q's interval holds (0, 1), inf otherwise."""
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0).logical_or(q.high < 1), math.inf)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = loc_scale_ratio.exp() * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = ((p.concentration - 1) * p.concentration.digamma() - p.concentration.lgamma()
          - p.concentration)
    t2 = beta_scale_prod.log() + p.concentration / beta_scale_prod
    t3 = (loc_scale_ratio.exp() * (1 + beta_scale_prod.reciprocal()).pow(-p.concentration)
          - loc_scale_ratio)
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = (0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - p.concentration
          - p.concentration.lgamma())
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return (t1 + (p.concentration - 1) * p.concentration.digamma()
            + (t2 - t3 + t4) / var_normal)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _EULER_GAMMA - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * scale_sqr_var_ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = (-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * loc_diff_scale_ratio.pow(2)).exp()
    t3 = loc_diff * (math.sqrt(0.5) * loc_diff_scale_ratio).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


def _mean_log_uniform(low, high, width=None, log_low=None):
    """E[log x] for x uniform on (low, high) within [0, inf); width and log(low) may be
    given more exactly than high - low and low.log() (1 - x's interval for a narrow x's).

    Where the width is under half of high, log(low) - log1p(-r) / r - 1 with r = width /
    high: the xlogy form (high log high - low log low - width) / width cancels there, to
    nan for an interval narrower than high's eps (Uniform(3e-23, 5e-20)'s 1 - x)."""
    width = high - low if width is None else width
    log_low = low.log() if log_low is None else log_low
    r = width / high
    narrow = r <= 0.5
    rs = where(narrow, r, 0.5)
    # -log1p(-r) / r - 1 = r/2 + r^2/3 + ...: the series where the subtraction would cancel
    series = rs * (0.5 + rs * (1 / 3 + rs * (0.25 + rs * 0.2)))
    near = log_low + where(rs < 1e-4, series, -(-rs).log1p() / rs - 1)
    return where(narrow, near, (xlogy(high, high) - xlogy(low, low) - width) / width)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    """-H(p) - E_p[log q] when p's interval lies in [0, 1], inf otherwise."""
    t1 = (p.high - p.low).log()
    t2 = (q.concentration1 - 1) * _mean_log_uniform(p.low, p.high)
    t3 = (q.concentration0 - 1) * _mean_log_uniform(1 - p.high, 1 - p.low, p.high - p.low,
                                                    (-p.high).log1p())
    t4 = (q.concentration1.lgamma() + q.concentration0.lgamma()
          - (q.concentration1 + q.concentration0).lgamma())
    result = t4 - t1 - t2 - t3
    return result.masked_fill((p.high > 1).logical_or(p.low < 0), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    t1 = (p.high - p.low).log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * _mean_log_uniform(p.low, p.high)
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    # exp(-h) - exp(-l) = exp(-l) expm1(-(high - low) / scale): the difference cancelled
    # to 0 for an interval much narrower than the scale (KL 37.53 for 38.53)
    t2 = common_term * (-low_loc_diff).exp() * (-1 / common_term).expm1()
    return t1 - t2


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Exponential, Beta)
@register_kl(Exponential, Uniform)
@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
@register_kl(Gumbel, Beta)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_infinity(p, q):
    """inf, of p's batch shape, as PyTorch's: q gives 0 to a set p gives mass to (q's
    support is bounded, or a half line, where p's is not)."""
    return _C.full_like(p.mean, math.inf)
