"""pydevtensor.distributions' Laplace, LogNormal, Gumbel, HalfNormal, Cauchy and
Geometric against their closed forms in float64 (log_prob, cdf, icdf, entropy, mean,
mode, variance), their draws by moments with a fixed seed (each sample statistic within
5 standard errors), and the gradients of rsample and log_prob against central finite
differences, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
EULER = 0.57721566490153286060
_erf = np.vectorize(math.erf)


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


LOC = np.array([0.0, 1.5, -2.0])
SCALE = np.array([1.0, 0.3, 2.5])


def _phi(z):
    # erfc, not 1 + erf: that lost 1.7e-12 of Phi(-4.39) = 5.6e-6 (LogNormal's cdf at 1.2)
    return 0.5 * np.vectorize(math.erfc)(-z / math.sqrt(2))


# name: (make(device), x for log_prob/cdf, log_prob, cdf, entropy, mean, mode, variance)
def _closed_forms():
    m, b = LOC, SCALE
    x = np.array([0.3, 1.2, -7.0])
    xp = np.array([0.3, 1.2, 7.0])
    z = (x - m) / b
    zl = (np.log(xp) - m) / b
    return {
        "Laplace": (lambda d: D.Laplace(_t(m, d), _t(b, d)), x,
                    -np.log(2 * b) - np.abs(x - m) / b,
                    np.where(x < m, 0.5 * np.exp(z), 1 - 0.5 * np.exp(-z)),
                    1 + np.log(2 * b), m, m, 2 * b ** 2),
        "LogNormal": (lambda d: D.LogNormal(_t(m, d), _t(b, d)), xp,
                      -zl ** 2 / 2 - np.log(b * xp * math.sqrt(2 * math.pi)), _phi(zl),
                      m + 0.5 + 0.5 * np.log(2 * math.pi * b ** 2), np.exp(m + b ** 2 / 2),
                      np.exp(m - b ** 2), (np.exp(b ** 2) - 1) * np.exp(2 * m + b ** 2)),
        "Gumbel": (lambda d: D.Gumbel(_t(m, d), _t(b, d)), x,
                   -np.log(b) - z - np.exp(-z), np.exp(-np.exp(-z)),
                   np.log(b) + EULER + 1, m + EULER * b, m, math.pi ** 2 / 6 * b ** 2),
        "HalfNormal": (lambda d: D.HalfNormal(_t(b, d)), xp,
                       np.log(math.sqrt(2 / math.pi) / b) - xp ** 2 / (2 * b ** 2),
                       _erf(xp / (b * math.sqrt(2))),
                       0.5 * np.log(math.pi * b ** 2 / 2) + 0.5, b * math.sqrt(2 / math.pi),
                       0 * b, b ** 2 * (1 - 2 / math.pi)),
        "Cauchy": (lambda d: D.Cauchy(_t(m, d), _t(b, d)), x,
                   -np.log(math.pi * b * (1 + z ** 2)), np.arctan(z) / math.pi + 0.5,
                   np.log(4 * math.pi * b), np.full(3, np.nan), m, np.full(3, np.inf)),
    }


@pytest.mark.parametrize("name", ["Laplace", "LogNormal", "Gumbel", "HalfNormal", "Cauchy"])
def test_continuous_against_closed_forms(device, name):
    make, x, logp, cdf, ent, mean, mode, var = _closed_forms()[name]
    d = make(device)
    assert d.has_rsample and tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == ()
    got = d.log_prob(_t(x, device))
    assert got.dtype == F64 and got.device == d.sample().device
    np.testing.assert_allclose(_np(got), logp, rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(_t(x, device))), cdf, rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), mean, rtol=1e-12)
    np.testing.assert_allclose(_np(d.mode), mode, rtol=1e-12, atol=0)
    np.testing.assert_allclose(_np(d.variance), var, rtol=1e-12)
    np.testing.assert_allclose(_np(d.stddev), np.sqrt(var), rtol=1e-12)
    q = np.array([0.05, 0.5, 0.9])
    np.testing.assert_allclose(_np(d.cdf(d.icdf(_t(q, device)))), q, rtol=1e-12)


def _within(x, mean, var, k=5.0):
    se = np.sqrt(var / x.shape[0])
    assert np.all(np.abs(x.mean(0) - mean) <= k * se + 1e-12), (x.mean(0), mean, se)


@pytest.mark.parametrize("name", ["Laplace", "LogNormal", "Gumbel", "HalfNormal", "Cauchy"])
def test_continuous_samples_by_quantiles_and_moments(device, name):
    """The fraction of draws below each quantile is that probability; the sample mean is
    the mean where the variance is finite (LogNormal's by log x)."""
    make, _, _, _, _, mean, _, var = _closed_forms()[name]
    d = make(device)
    pdt.manual_seed(3)
    n = 40000
    x = d.sample((n,))
    assert tuple(x.shape) == (n, 3) and not x.requires_grad
    for q in (0.1, 0.5, 0.9):
        below = _np(x <= d.icdf(_t([q] * 3, device))).astype(np.float64)
        _within(below, q, q * (1 - q))
    xs = _np(x)
    if name == "LogNormal":
        assert np.all(xs > 0)
        _within(np.log(xs), LOC, SCALE ** 2)
    elif name != "Cauchy":
        _within(xs, mean, var)
    if name == "HalfNormal":
        assert np.all(xs >= 0)


@pytest.mark.parametrize("name", ["Laplace", "LogNormal", "Gumbel", "Cauchy", "HalfNormal"])
def test_rsample_and_log_prob_gradients_against_finite_differences(device, name):
    """The same seed gives the same uniform draws, so d rsample / d param is the finite
    difference of two draws at param +- h; log_prob's likewise, at fixed values."""
    cls = getattr(D, name)
    m, b = np.array([0.2, -1.0]), np.array([0.7, 1.9])
    params = [b] if name == "HalfNormal" else [m, b]
    x = np.array([0.4, 2.5])

    def draw(vals, seed=5):
        pdt.manual_seed(seed)
        return _np(cls(*[_t(v, device) for v in vals]).rsample((3,)))

    ts = [_t(v, device).requires_grad_() for v in params]
    pdt.manual_seed(5)
    cls(*ts).rsample((3,)).sum().backward()
    cls(*[_t(v, device) for v in params]).rsample()  # no parameter, no gradient
    ts2 = [_t(v, device).requires_grad_() for v in params]
    cls(*ts2).log_prob(_t(x, device)).sum().backward()
    h = 1e-6
    for i, v in enumerate(params):
        up = [p.copy() for p in params]
        dn = [p.copy() for p in params]
        up[i] = v + h
        dn[i] = v - h
        fd = (draw(up) - draw(dn)).sum(0) / (2 * h)
        np.testing.assert_allclose(_np(ts[i].grad), fd, rtol=1e-6, atol=1e-8)

        def lp(vals):
            return _np(cls(*[_t(a, device) for a in vals]).log_prob(_t(x, device)))
        np.testing.assert_allclose(_np(ts2[i].grad), (lp(up) - lp(dn)) / (2 * h), rtol=1e-6)


def test_geometric_against_closed_forms_and_draws(device):
    p = np.array([0.1, 0.5, 0.75])
    d = D.Geometric(_t(p, device))
    k = np.array([3.0, 0.0, 2.0])
    assert not d.has_rsample and tuple(d.batch_shape) == (3,)
    np.testing.assert_allclose(_np(d.log_prob(_t(k, device))),
                               k * np.log1p(-p) + np.log(p), rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), (1 - p) / p, rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), (1 - p) / p ** 2, rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()),
                               -((1 - p) * np.log1p(-p) + p * np.log(p)) / p, rtol=1e-12)
    np.testing.assert_array_equal(_np(d.mode), [0.0, 0.0, 0.0])
    lg = D.Geometric(logits=_t(np.log(p / (1 - p)), device))
    np.testing.assert_allclose(_np(lg.probs), p, rtol=1e-12)
    np.testing.assert_allclose(_np(lg.log_prob(_t(k, device))), _np(d.log_prob(_t(k, device))),
                               rtol=1e-12)
    # certain success: 0 failures has probability 1 (log 0, not nan)
    assert _np(D.Geometric(_t([1.0], device)).log_prob(_t([0.0], device))).tolist() == [0.0]
    pdt.manual_seed(2)
    n = 40000
    x = _np(d.sample((n,)))
    assert x.shape == (n, 3) and np.all(x >= 0) and np.all(x == np.floor(x))
    _within(x, (1 - p) / p, (1 - p) / p ** 2)
    _within((x == 0).astype(np.float64), p, p * (1 - p))


def test_geometric_entropy_at_small_and_unit_probs(device):
    # the entropy -log p - (1 - p) log1p(-p) / p tends to 1 - log p as p -> 0; computed from
    # logits of probs clamped to eps it grew as eps / p instead (2e14 at p = 1e-30 in float64,
    # 27.9 for 19.4 at p = 1e-8 in float32)
    p = np.array([1e-30, 1e-12, 1e-8, 0.3, 0.9, 1.0])
    want = np.where(p == 1, 0.0, -np.log(p) - (1 - p) * np.log1p(-p) / p)
    for dtype, rtol in ((F64, 1e-12), (pdt.float32, 1e-5)):
        t = pdt.tensor(p, dtype=dtype, device=device).requires_grad_()
        h = D.Geometric(t).entropy()
        assert h.dtype == dtype
        np.testing.assert_allclose(_np(h), want, rtol=rtol, atol=0)
        h.sum().backward()
        g = _np(t.grad)
        assert np.all(np.isfinite(g[1:])) and g[-1] == 0.0
    # dH/dp = log(1 - p) / p**2 at p = 0.3, against the closed form
    np.testing.assert_allclose(g[3], np.log1p(-0.3) / 0.09, rtol=1e-5)
    # p = 0 (validation off, or an underflowed sigmoid) is the limit inf
    assert _np(D.Geometric(_t([0.0], device), validate_args=False).entropy()).tolist() == [np.inf]
    assert _np(D.Geometric(logits=_t([-800.0], device)).entropy()).tolist() == [np.inf]


def test_validation_expand_and_shapes(device):
    for call in (lambda: D.Laplace(0.0, -1.0), lambda: D.LogNormal(0.0, 0.0),
                 lambda: D.Gumbel(_t([0.0], device), _t([-1.0], device)),
                 lambda: D.HalfNormal(-1.0), lambda: D.Cauchy(0.0, -2.0),
                 lambda: D.Geometric(_t([1.5], device))):
        with pytest.raises(ValueError, match=r"Expected parameter (scale|probs) .* constraint"):
            call()
    with pytest.raises(ValueError, match=r"Expected parameter probs .* to be positive"):
        D.Geometric(_t([0.0, 0.5], device))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Geometric()
    for d, bad in ((D.LogNormal(0.0, 1.0), -1.0), (D.HalfNormal(1.0), -0.5),
                   (D.Geometric(0.3), 0.5)):
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(pdt.tensor(bad))
    assert _np(D.HalfNormal(_t(1.0, device), validate_args=False).log_prob(
        _t(-1.0, device))).item() == -math.inf
    for d in (D.Laplace(_t([0.0, 1.0], device), 1.0), D.LogNormal(_t([0.0, 1.0], device), 1.0),
              D.Gumbel(_t([0.0, 1.0], device), 1.0), D.HalfNormal(_t([1.0, 2.0], device)),
              D.Cauchy(_t([0.0, 1.0], device), 1.0), D.Geometric(_t([0.3, 0.6], device))):
        e = d.expand((4, 2))
        assert tuple(e.batch_shape) == (4, 2) and tuple(e.sample((3,)).shape) == (3, 4, 2)
        assert tuple(e.log_prob(_t([1.0, 2.0], device)).shape) == (4, 2)
        assert tuple(e.mean.shape) == (4, 2) and tuple(e.entropy().shape) == (4, 2)
    assert D.Laplace(0.0, 1.0).sample().dtype == pdt.float32


def test_one_hot_categorical(device):
    w = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, 0.5]])
    p = w / w.sum(-1, keepdims=True)
    d = D.OneHotCategorical(_t(w, device))
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (3,)
    v = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), np.log([p[0, 2], p[1, 0]]),
                               rtol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(p > 0, p * np.log(p), 0.0).sum(-1)
    np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), p, rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), p * (1 - p), rtol=1e-12)
    np.testing.assert_array_equal(_np(d.mode), [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    lg = D.OneHotCategorical(logits=_t(np.log(w[:1]), device))
    np.testing.assert_allclose(_np(lg.probs), p[:1], rtol=1e-12)
    support = _np(d.enumerate_support())
    assert support.shape == (3, 2, 3)
    np.testing.assert_array_equal(support[:, 0], np.eye(3))
    assert tuple(d.enumerate_support(expand=False).shape) == (3, 1, 3)
    pdt.manual_seed(4)
    n = 20000
    x = _np(d.sample((n,)))
    assert x.shape == (n, 2, 3) and x.dtype == np.float64 and np.all(x.sum(-1) == 1)
    _within(x, p, p * (1 - p))
    e = d.expand((4, 2))
    assert tuple(e.sample((5,)).shape) == (5, 4, 2, 3)
    assert tuple(e.log_prob(_t(v, device)).shape) == (4, 2)
    with pytest.raises(ValueError, match="within the support"):
        d.log_prob(_t([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]], device))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.OneHotCategorical()


def test_independent(device):
    """log_prob and entropy sum the base's over the reinterpreted dimensions; draws,
    moments and gradients are the base's."""
    m = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)
    s = np.linspace(0.5, 2.0, 24).reshape(2, 3, 4)
    x = np.cos(np.arange(24.0)).reshape(2, 3, 4)
    lp = -0.5 * ((x - m) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)
    ent = 0.5 + 0.5 * math.log(2 * math.pi) + np.log(s)
    loc = _t(m, device).requires_grad_()
    base = D.Normal(loc, _t(s, device))
    for k in range(4):
        d = D.Independent(base, k)
        assert tuple(d.batch_shape) == (2, 3, 4)[:3 - k]
        assert tuple(d.event_shape) == (2, 3, 4)[3 - k:]
        axes = tuple(range(3 - k, 3))
        np.testing.assert_allclose(_np(d.log_prob(_t(x, device))), lp.sum(axes), rtol=1e-12)
        np.testing.assert_allclose(_np(d.entropy()), ent.sum(axes), rtol=1e-12)
        np.testing.assert_allclose(_np(d.mean), m, rtol=1e-12)
        np.testing.assert_allclose(_np(d.variance), s ** 2, rtol=1e-12)
        assert d.has_rsample and tuple(d.rsample((5,)).shape) == (5, 2, 3, 4)
        e = d.expand((7,) + tuple(d.batch_shape))
        assert tuple(e.batch_shape) == (7,) + tuple(d.batch_shape)
        assert tuple(e.event_shape) == tuple(d.event_shape)
        assert tuple(e.sample().shape) == (7, 2, 3, 4)
    D.Independent(base, 2).log_prob(_t(x, device)).sum().backward()
    np.testing.assert_allclose(_np(loc.grad), (x - m) / s ** 2, rtol=1e-12)
    assert repr(D.Independent(D.Normal(_t([0.0], device), 1.0), 1)).startswith(
        "Independent(Normal(")
    with pytest.raises(ValueError, match=r"reinterpreted_batch_ndims <= "
                                         r"len\(base_distribution.batch_shape\), actual 4 vs 3"):
        D.Independent(base, 4)
    b = D.Bernoulli(_t([0.5, 0.3], device))
    assert D.Independent(b, 0).has_enumerate_support
    assert not D.Independent(b, 1).has_enumerate_support
    with pytest.raises(NotImplementedError, match="cartesian product"):
        D.Independent(b, 1).enumerate_support()
    with pytest.raises(ValueError, match="within the support"):
        D.Independent(b, 1).log_prob(_t([0.5, 1.0], device))


def _mvn_case():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3, 3))
    cov = a @ a.transpose(0, 2, 1) + 0.5 * np.eye(3)
    loc = rng.normal(size=(4, 1, 3))
    return loc, cov


@pytest.mark.parametrize("given", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_against_closed_forms(device, given):
    """log_prob, entropy and the matrices against NumPy's inverse and determinant, loc
    (4, 1, 3) broadcast with matrices (2, 3, 3) to the batch (4, 2)."""
    loc, cov = _mvn_case()
    mat = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
           "scale_tril": np.linalg.cholesky(cov)}[given]
    d = D.MultivariateNormal(_t(loc, device), **{given: _t(mat, device)})
    assert tuple(d.batch_shape) == (4, 2) and tuple(d.event_shape) == (3,)
    x = np.random.default_rng(1).normal(size=(5, 4, 2, 3))
    diff = x - loc
    maha = np.einsum("...i,...ij,...j->...", diff, np.linalg.inv(cov), diff)
    logdet = np.linalg.slogdet(cov)[1]
    want = -0.5 * (3 * math.log(2 * math.pi) + maha + logdet)
    got = d.log_prob(_t(x, device))
    assert tuple(got.shape) == (5, 4, 2)
    np.testing.assert_allclose(_np(got), want, rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()),
                               np.broadcast_to(0.5 * (3 * (1 + math.log(2 * math.pi)) + logdet),
                                               (4, 2)), rtol=1e-12)
    full = np.broadcast_to(cov, (4, 2, 3, 3))
    np.testing.assert_allclose(_np(d.covariance_matrix), full, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(_np(d.precision_matrix), np.linalg.inv(full), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(_np(d.scale_tril), np.linalg.cholesky(full), rtol=1e-12,
                               atol=1e-13)
    np.testing.assert_allclose(_np(d.variance), np.diagonal(full, axis1=-2, axis2=-1),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), np.broadcast_to(loc, (4, 2, 3)))
    e = d.expand((3, 4, 2))
    assert tuple(e.batch_shape) == (3, 4, 2) and tuple(e.sample((2,)).shape) == (2, 3, 4, 2, 3)
    np.testing.assert_allclose(_np(e.log_prob(_t(x[0], device))), np.broadcast_to(want[0],
                                                                                  (3, 4, 2)),
                               rtol=1e-12)


def test_multivariate_normal_draws_gradients_and_errors(device):
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    loc = np.array([1.0, -1.0, 0.5])
    d = D.MultivariateNormal(_t(loc, device), _t(cov, device))
    pdt.manual_seed(6)
    n = 40000
    x = _np(d.sample((n,)))
    assert x.shape == (n, 3)
    _within(x, loc, np.diag(cov))
    for i, j in ((0, 1), (1, 2), (0, 2)):  # the covariances, by (x_i - m_i)(x_j - m_j)
        prod = (x[:, i] - loc[i]) * (x[:, j] - loc[j])
        _within(prod, cov[i, j], cov[i, i] * cov[j, j] + cov[i, j] ** 2)
    # rsample's gradient through scale_tril: the same seed gives the same eps
    L = np.linalg.cholesky(cov)
    lt = _t(L, device).requires_grad_()
    pdt.manual_seed(8)
    D.MultivariateNormal(_t(loc, device), scale_tril=lt).rsample((4,)).pow(2).sum().backward()
    h = 1e-6

    def draws(Lv):
        pdt.manual_seed(8)
        return (_np(D.MultivariateNormal(_t(loc, device), scale_tril=_t(Lv, device))
                    .rsample((4,))) ** 2).sum()
    for i, j in ((0, 0), (1, 0), (2, 1), (2, 2)):
        up, dn = L.copy(), L.copy()
        up[i, j] += h
        dn[i, j] -= h
        np.testing.assert_allclose(_np(lt.grad)[i, j], (draws(up) - draws(dn)) / (2 * h),
                                   rtol=1e-6)
    # log_prob's gradient in loc: cov^-1 (x - loc)
    lc = _t(loc, device).requires_grad_()
    v = np.array([0.3, 0.2, -0.4])
    D.MultivariateNormal(lc, _t(cov, device)).log_prob(_t(v, device)).backward()
    np.testing.assert_allclose(_np(lc.grad), np.linalg.solve(cov, v - loc), rtol=1e-12)
    eye = _t(np.eye(2), device)
    with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
        D.MultivariateNormal(_t(0.0, device), eye)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or"):
        D.MultivariateNormal(_t([0.0, 0.0], device))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or"):
        D.MultivariateNormal(_t([0.0, 0.0], device), eye, scale_tril=eye)
    with pytest.raises(ValueError, match="covariance_matrix must be at least two-dim"):
        D.MultivariateNormal(_t([0.0, 0.0], device), _t([1.0, 1.0], device))
    with pytest.raises(ValueError, match=r"Expected parameter covariance_matrix .* "
                                         r"PositiveDefinite"):
        D.MultivariateNormal(_t([0.0, 0.0], device), _t([[1.0, 2.0], [2.0, 1.0]], device))
    with pytest.raises(ValueError, match=r"Expected parameter scale_tril .* LowerCholesky"):
        D.MultivariateNormal(_t([0.0, 0.0], device), scale_tril=_t([[1.0, 1.0], [0.0, 1.0]],
                                                                   device))
    with pytest.raises(ValueError, match=r"is not \(\.\.\., 3, 3\) for loc of shape \(3,\)"):
        D.MultivariateNormal(_t([0.0, 0.0, 0.0], device), eye)
    with pytest.raises(ValueError, match="right-most size of value must match event_shape"):
        D.MultivariateNormal(_t([0.0, 0.0], device), eye).log_prob(_t([0.0, 0.0, 1.0], device))


@pytest.mark.parametrize("name", ["Laplace", "LogNormal", "Gumbel", "HalfNormal", "Cauchy"])
def test_kl_divergence_by_quadrature(device, name):
    """KL(p || q) = the integral over u in (0, 1) of log p(x) - log q(x) at x =
    p.icdf(u): the midpoint rule with 400000 points."""
    a = ([0.0, 1.0], [1.0, 0.5]) if name != "HalfNormal" else ([1.0, 0.5],)
    b = ([0.5, 0.8], [1.5, 0.7]) if name != "HalfNormal" else ([1.5, 0.7],)
    cls = getattr(D, name)
    p = cls(*[_t(v, device) for v in a])
    q = cls(*[_t(v, device) for v in b])
    got = D.kl_divergence(p, q)
    assert tuple(got.shape) == (2,)
    n = 400000
    u = _t((np.arange(n) + 0.5) / n, device).unsqueeze(-1)
    x = p.icdf(u.expand(n, 2))
    want = _np((p.log_prob(x) - q.log_prob(x)).mean(0))
    np.testing.assert_allclose(_np(got), want, rtol=2e-4)
    np.testing.assert_allclose(_np(D.kl_divergence(p, p)), [0.0, 0.0], atol=1e-12)


def test_kl_divergence_of_discrete_and_composite_families(device):
    """Geometric by its series, OneHotCategorical by its sum, Independent as the sum of
    the normals' closed forms, MultivariateNormal by its closed form with NumPy."""
    pp, qp = np.array([0.1, 0.5, 0.9]), np.array([0.3, 0.5, 0.2])
    k = np.arange(4000.0)[:, None]
    pmf_p = pp * (1 - pp) ** k
    want = (pmf_p * (k * (np.log1p(-pp) - np.log1p(-qp)) + np.log(pp / qp))).sum(0)
    got = D.kl_divergence(D.Geometric(_t(pp, device)), D.Geometric(_t(qp, device)))
    np.testing.assert_allclose(_np(got), want, rtol=1e-10)
    a, b = np.array([0.2, 0.3, 0.5]), np.array([0.1, 0.1, 0.8])
    got = D.kl_divergence(D.OneHotCategorical(_t(a, device)), D.OneHotCategorical(_t(b, device)))
    np.testing.assert_allclose(_np(got), (a * np.log(a / b)).sum(), rtol=1e-12)
    m1, s1 = np.array([[0.0, 1.0, 2.0]]), np.array([[1.0, 0.5, 2.0]])
    m2, s2 = np.array([[0.5, 0.0, 2.0]]), np.array([[2.0, 0.5, 1.0]])
    normal_kl = np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2) - 0.5
    ind = [D.Independent(D.Normal(_t(m, device), _t(s, device)), 1)
           for m, s in ((m1, s1), (m2, s2))]
    np.testing.assert_allclose(_np(D.kl_divergence(*ind)), normal_kl.sum(-1), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="reinterpreted batch dims"):
        D.kl_divergence(ind[0], D.Independent(D.Normal(_t(m1, device), _t(s1, device)), 2))
    loc, cov = _mvn_case()
    rng = np.random.default_rng(2)
    c = rng.normal(size=(3, 3))
    cov2, loc2 = c @ c.T + np.eye(3), rng.normal(size=3)
    got = D.kl_divergence(D.MultivariateNormal(_t(loc, device), _t(cov, device)),
                          D.MultivariateNormal(_t(loc2, device),
                                               precision_matrix=_t(np.linalg.inv(cov2), device)))
    inv2 = np.linalg.inv(cov2)
    d = loc2 - loc
    want = 0.5 * (np.trace(inv2 @ cov, axis1=-2, axis2=-1)
                  + np.einsum("...i,ij,...j->...", d, inv2, d) - 3
                  + np.linalg.slogdet(cov2)[1] - np.linalg.slogdet(cov)[1])
    assert tuple(got.shape) == (4, 2)
    np.testing.assert_allclose(_np(got), want, rtol=1e-10)
