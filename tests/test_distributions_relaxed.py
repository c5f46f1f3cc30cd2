"""pydevtensor.distributions' GeneralizedPareto, LogisticNormal and the Concrete
relaxations (LogitRelaxedBernoulli, RelaxedBernoulli, ExpRelaxedCategorical,
RelaxedOneHotCategorical) against their closed forms in float64 (log_prob, cdf, icdf,
moments), LogisticNormal's density against a change of variables with a finite-difference
Jacobian, their draws against known probabilities at a fixed seed, and rsample's
gradients against central finite differences of draws at the same seed, on every
device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
from pydevtensor.distributions.relaxed_categorical import ExpRelaxedCategorical

F64 = pdt.float64


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


def _fd_check(device, make, params, shape=(4,), seed=5, h=1e-6, rtol=1e-5):
    """d (w . rsample) / d param by autograd against central finite differences of draws
    at param +- h, the same seed giving the same base draws (w: fixed weights, so that
    a draw on the simplex, of constant sum, still has a gradient)."""
    pdt.manual_seed(seed)
    probe = make(*[_t(v, device) for v in params]).rsample(shape)
    w = np.random.default_rng(0).standard_normal(tuple(probe.shape))

    def value(vals):
        pdt.manual_seed(seed)
        return float((_np(make(*[_t(v, device) for v in vals]).rsample(shape)) * w).sum())

    ts = [_t(v, device).requires_grad_() for v in params]
    pdt.manual_seed(seed)
    (make(*ts).rsample(shape) * _t(w, device)).sum().backward()
    for i, v in enumerate(params):
        fd = np.zeros_like(v)
        for j in np.ndindex(v.shape):
            up, dn = [p.copy() for p in params], [p.copy() for p in params]
            up[i][j] += h
            dn[i][j] -= h
            fd[j] = (value(up) - value(dn)) / (2 * h)
        np.testing.assert_allclose(_np(ts[i].grad), fd, rtol=rtol, atol=1e-6,
                                   err_msg=f"parameter {i}")


# ---- GeneralizedPareto -----------------------------------------------------------------

GP_LOC = np.array([0.5, -1.0, 0.0, 2.0])
GP_SCALE = np.array([2.0, 0.5, 1.5, 1.0])
GP_C = np.array([0.0, 0.3, -0.5, -1.0])  # exponential, heavy tail, bounded, uniform


def _gp_forms(x):
    z = (x - GP_LOC) / GP_SCALE
    c = np.where(GP_C == 0, 1.0, GP_C)
    log_sf = np.where(GP_C == 0, -z, -np.log1p(c * z) / c)
    logp = np.where(GP_C == 0, -z, -(1 / c + 1) * np.log1p(c * z)) - np.log(GP_SCALE)
    mean = GP_LOC + GP_SCALE / (1 - GP_C)
    var = GP_SCALE ** 2 / ((1 - GP_C) ** 2 * (1 - 2 * GP_C))
    return dict(logp=logp, cdf=-np.expm1(log_sf), log_sf=log_sf, mean=mean, var=var,
                ent=np.log(GP_SCALE) + GP_C + 1)


def test_generalized_pareto_closed_forms(device):
    d = D.GeneralizedPareto(_t(GP_LOC, device), _t(GP_SCALE, device), _t(GP_C, device))
    x = np.array([1.5, 0.2, 1.0, 2.5])
    f = _gp_forms(x)
    assert d.has_rsample and tuple(d.batch_shape) == (4,)
    got = d.log_prob(_t(x, device))
    assert got.dtype == F64 and got.device == _t(x, device).device
    np.testing.assert_allclose(_np(got), f["logp"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(_t(x, device))), f["cdf"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.log_survival_function(_t(x, device))), f["log_sf"],
                               rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()), f["ent"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), f["mean"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), f["var"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.mode), GP_LOC)
    q = np.array([0.05, 0.5, 0.9, 0.3])
    np.testing.assert_allclose(_np(d.cdf(d.icdf(_t(q, device)))), q, rtol=1e-12)
    # the density integrates to 1 over the support (c = -0.5: [loc, loc + 2 scale])
    upper = _np(d.support.upper_bound)
    assert upper[0] == math.inf and upper[2] == pytest.approx(3.0)
    grid = np.linspace(0.0, 3.0, 200001)
    dens = np.exp(_np(D.GeneralizedPareto(0.0, 1.5, -0.5).log_prob(_t(grid))))
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-4)
    e = d.expand((2, 4))
    assert tuple(e.sample((3,)).shape) == (3, 2, 4)
    np.testing.assert_allclose(_np(e.log_prob(_t(x, device))), np.broadcast_to(f["logp"],
                                                                            (2, 4)), rtol=1e-12)


def test_generalized_pareto_infinite_moments(device):
    """The mean is inf for c >= 1, the variance inf for 1/2 <= c < 1 (PyTorch: nan)."""
    d = D.GeneralizedPareto(0.0, 1.0, _t([0.5, 0.9, 1.0, 2.0], device))
    np.testing.assert_allclose(_np(d.mean), [2.0, 10.0, np.inf, np.inf], rtol=1e-12)
    var = _np(d.variance)
    assert np.isinf(var[:2]).all() and np.isnan(var[2:]).all()


def test_generalized_pareto_draws_and_gradients(device):
    pdt.manual_seed(11)
    n = 100000
    d = D.GeneralizedPareto(_t(GP_LOC, device), _t(GP_SCALE, device), _t(GP_C, device))
    x = np.sort(_np(d.sample((n,))), axis=0)
    for j in range(4):
        col = x[:, j]
        z = (col - GP_LOC[j]) / GP_SCALE[j]
        cdf = 1 - np.exp(-z) if GP_C[j] == 0 else 1 - (1 + GP_C[j] * z) ** (-1 / GP_C[j])
        ks = max(np.abs(np.arange(1, n + 1) / n - cdf).max(), np.abs(np.arange(n) / n - cdf).max())
        assert ks < 1.95 / math.sqrt(n), j
    _fd_check(device, D.GeneralizedPareto, [GP_LOC, GP_SCALE, np.array([0.2, 0.3, -0.5, -1.0])])


# ---- LogisticNormal ---------------------------------------------------------------------

def _stick_breaking(y):
    k = y.shape[-1]
    z = 1 / (1 + np.exp(-(y - np.log(k - np.arange(k)))))
    rest = np.concatenate([[1.0], np.cumprod(1 - z)])
    return np.concatenate([z, [1.0]]) * rest


def _logistic_normal_logp(x, loc, scale):
    """The Normal's density at the inverse of the stick-breaking, less log |det J| of
    the map onto the first K coordinates (J by central differences)."""
    k = len(loc)
    y = np.log(x[:-1]) - np.log(1 - np.cumsum(x[:-1])) + np.log(k - np.arange(k))
    np.testing.assert_allclose(_stick_breaking(y), x, rtol=1e-12)
    h = 1e-6
    jac = np.stack([(_stick_breaking(y + h * e)[:-1] - _stick_breaking(y - h * e)[:-1]) / (2 * h)
                    for e in np.eye(k)], axis=1)
    normal = -0.5 * ((y - loc) / scale) ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)
    return normal.sum() - np.linalg.slogdet(jac)[1]


def test_logistic_normal(device):
    loc, scale = np.array([0.3, -1.0, 0.5]), np.array([1.0, 2.0, 0.7])
    d = D.LogisticNormal(_t(loc, device), _t(scale, device))
    assert tuple(d.batch_shape) == () and tuple(d.event_shape) == (4,)
    assert isinstance(d, D.TransformedDistribution)
    np.testing.assert_allclose(_np(d.loc), loc)
    np.testing.assert_allclose(_np(d.scale), scale)
    xs = np.array([[0.4, 0.1, 0.3, 0.2], [0.05, 0.05, 0.6, 0.3]])
    got = _np(d.log_prob(_t(xs, device)))
    want = [_logistic_normal_logp(x, loc, scale) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-7)
    scalar = D.LogisticNormal(0.5, 2.0)  # a scalar Normal: K = 1, a Beta-like on 2 points
    assert tuple(scalar.event_shape) == (2,)
    np.testing.assert_allclose(_np(scalar.log_prob(_t([0.3, 0.7]))),
                               _logistic_normal_logp(np.array([0.3, 0.7]), [0.5], [2.0]),
                               rtol=1e-7)
    pdt.manual_seed(3)
    s = _np(d.sample((1000,)))
    assert s.shape == (1000, 4) and (s > 0).all()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    e = d.expand((2,))
    assert tuple(e.batch_shape) == (2,) and tuple(e.rsample((3,)).shape) == (3, 2, 4)
    _fd_check(device, D.LogisticNormal, [loc, scale])


# ---- the Concrete relaxations ----------------------------------------------------------

TEMPS = np.array([0.5, 1.0, 2.0])
PROBS = np.array([0.3, 0.5, 0.9])


def _concrete_binary_logp(x, t, p):
    a = p / (1 - p)
    return (np.log(t * a) - (t + 1) * (np.log(x) + np.log1p(-x))
            - 2 * np.log(a * x ** -t + (1 - x) ** -t))


def test_relaxed_bernoulli_densities(device):
    x = np.array([0.2, 0.5, 0.95])
    logits = np.log(PROBS) - np.log1p(-PROBS)
    for d in (D.RelaxedBernoulli(_t(TEMPS, device), probs=_t(PROBS, device)),
              D.RelaxedBernoulli(_t(TEMPS, device), logits=_t(logits, device))):
        assert isinstance(d.base_dist, LogitRelaxedBernoulli) and d.has_rsample
        np.testing.assert_allclose(_np(d.log_prob(_t(x, device))),
                                   _concrete_binary_logp(x, TEMPS, PROBS), rtol=1e-10)
        np.testing.assert_allclose(_np(d.probs), PROBS, rtol=1e-12)
        np.testing.assert_allclose(_np(d.logits), logits, rtol=1e-12)
        np.testing.assert_allclose(_np(d.temperature), TEMPS)
    # the logit's density is a logistic of location l / t and scale 1 / t
    y = np.array([-1.0, 0.3, 2.0])
    base = LogitRelaxedBernoulli(_t(TEMPS, device), logits=_t(logits, device))
    u = TEMPS * y - logits
    np.testing.assert_allclose(_np(base.log_prob(_t(y, device))),
                               np.log(TEMPS) - u - 2 * np.log1p(np.exp(-u)), rtol=1e-12)
    # the density integrates to 1 on (0, 1)
    grid = np.linspace(1e-6, 1 - 1e-6, 400001)
    dens = np.exp(_np(D.RelaxedBernoulli(_t(2.0), probs=_t(0.3)).log_prob(_t(grid))))
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-4)
    e = D.RelaxedBernoulli(_t(1.5, device), probs=_t(PROBS, device)).expand((2, 3))
    assert tuple(e.batch_shape) == (2, 3) and tuple(e.sample((4,)).shape) == (4, 2, 3)
    assert tuple(D.RelaxedBernoulli(0.5, probs=0.3).batch_shape) == ()


def test_relaxed_bernoulli_draws_and_gradients(device):
    """P(X > 1/2) = probs at every temperature (the logistic noise is symmetric)."""
    pdt.manual_seed(13)
    n = 100000
    s = _np(D.RelaxedBernoulli(_t(TEMPS, device), probs=_t(PROBS, device)).sample((n,)))
    assert ((s > 0) & (s < 1)).all()
    np.testing.assert_allclose((s > 0.5).mean(0), PROBS, atol=4 * np.sqrt(0.25 / n))
    _fd_check(device, lambda t, p: D.RelaxedBernoulli(t, probs=p), [TEMPS, PROBS])
    _fd_check(device, lambda t, lg: D.RelaxedBernoulli(t, logits=lg),
              [TEMPS, np.array([-1.0, 0.0, 2.0])])


LOGITS = np.array([[0.2, -1.0, 1.5], [0.0, 0.5, -0.3]])
CAT_T = np.array(0.7)  # a scalar, as PyTorch's log_prob needs


def _concrete_logp(x, t, logits):
    """log of (K-1)! t^(K-1) prod(p x^(-t-1)) / (sum p x^(-t))^K, per row."""
    k = x.shape[-1]
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return (math.lgamma(k) + (k - 1) * np.log(t) + (np.log(p) - (t + 1) * np.log(x)).sum(-1)
            - k * np.log((p * x ** -t).sum(-1)))


def test_relaxed_one_hot_categorical_densities(device):
    x = np.array([[0.2, 0.5, 0.3], [0.7, 0.1, 0.2]])
    probs = np.exp(LOGITS)
    for d in (D.RelaxedOneHotCategorical(_t(CAT_T, device), logits=_t(LOGITS, device)),
              D.RelaxedOneHotCategorical(_t(CAT_T, device), probs=_t(probs, device))):
        assert isinstance(d.base_dist, ExpRelaxedCategorical)
        assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (3,)
        want = _concrete_logp(x, CAT_T, LOGITS)
        np.testing.assert_allclose(_np(d.log_prob(_t(x, device))), want, rtol=1e-10)
        # the exp-relaxed one: the same density in log coordinates, times prod(x)
        np.testing.assert_allclose(_np(d.base_dist.log_prob(_t(np.log(x), device))),
                                   want + np.log(x).sum(-1), rtol=1e-10)
        np.testing.assert_allclose(_np(d.probs), probs / probs.sum(-1, keepdims=True),
                                   rtol=1e-12)
    # K = 2: the Concrete is a RelaxedBernoulli of the first coordinate
    lg = np.array([[0.4, -0.2]])
    two = D.RelaxedOneHotCategorical(_t(1.3, device), logits=_t(lg, device))
    np.testing.assert_allclose(_np(two.log_prob(_t([[0.3, 0.7]], device))),
                               _concrete_binary_logp(0.3, 1.3, 1 / (1 + np.exp(-0.6))),
                               rtol=1e-10)
    e = D.RelaxedOneHotCategorical(1.0, probs=_t(probs, device)).expand((4, 2))
    assert tuple(e.batch_shape) == (4, 2) and tuple(e.rsample((5,)).shape) == (5, 4, 2, 3)


def test_relaxed_one_hot_categorical_draws_and_gradients(device):
    """The argmax of a draw is a Categorical(probs) draw (the Gumbel-max trick)."""
    pdt.manual_seed(17)
    n = 100000
    d = D.RelaxedOneHotCategorical(_t(CAT_T, device), logits=_t(LOGITS, device))
    s = _np(d.sample((n,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    probs = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    freq = np.stack([(s.argmax(-1) == k).mean(0) for k in range(3)], -1)
    np.testing.assert_allclose(freq, probs, atol=4 * np.sqrt(0.25 / n))
    _fd_check(device, lambda t, lg: D.RelaxedOneHotCategorical(t, logits=lg), [CAT_T, LOGITS])
    _fd_check(device, lambda t, p: D.RelaxedOneHotCategorical(t, probs=p),
              [CAT_T, np.exp(LOGITS)])
    _fd_check(device, lambda t, lg: ExpRelaxedCategorical(t, logits=lg), [CAT_T, LOGITS])


def test_relaxed_bad_inputs(device):
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.RelaxedBernoulli(1.0, probs=_t([0.5], device), logits=_t([0.0], device))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.RelaxedOneHotCategorical(1.0)
    with pytest.raises(TypeError, match="temperature must be a number or a Tensor, got str"):
        D.RelaxedBernoulli("hot", probs=_t([0.5], device))
    with pytest.raises(ValueError, match="constraint GreaterThan"):
        D.GeneralizedPareto(0.0, _t([-1.0], device), 0.0, validate_args=True)
