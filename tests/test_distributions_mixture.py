"""LowRankMultivariateNormal and MixtureSameFamily against dense NumPy forms (float64):
log_prob, entropy, the covariance, precision and Cholesky factor, moments, the draws'
moments or Kolmogorov-Smirnov statistic at 10^5 draws, and the gradients."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
N = 100000


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _mvn_logpdf(x, mu, cov):
    n = mu.shape[-1]
    diff = x - mu
    sol = np.linalg.solve(cov, diff[..., None])[..., 0]
    _, logdet = np.linalg.slogdet(cov)
    return -0.5 * (n * math.log(2 * math.pi) + logdet + (diff * sol).sum(-1))


def _lowrank_params(rng):
    return rng.normal(size=(3, 4)), rng.normal(size=(3, 4, 2)), rng.uniform(0.5, 2, size=4)


def test_lowrank_mvn_closed_forms(device):
    loc, W, Dg = _lowrank_params(np.random.default_rng(0))
    d = D.LowRankMultivariateNormal(_t(loc, device), _t(W, device), _t(Dg, device))
    assert tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == (4,)
    cov = W @ W.transpose(0, 2, 1) + np.diag(Dg)
    x = np.random.default_rng(1).normal(size=(5, 3, 4))
    np.testing.assert_allclose(_np(d.log_prob(_t(x, device))), _mvn_logpdf(x, loc, cov),
                               rtol=1e-12)
    ent = 0.5 * (4 * (1 + math.log(2 * math.pi)) + np.linalg.slogdet(cov)[1])
    np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-12)
    np.testing.assert_allclose(_np(d.covariance_matrix), cov, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(_np(d.precision_matrix), np.linalg.inv(cov), rtol=1e-11,
                               atol=1e-13)
    L = _np(d.scale_tril)
    np.testing.assert_array_equal(L, np.tril(L))
    np.testing.assert_allclose(L @ L.transpose(0, 2, 1), cov, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(_np(d.variance), np.diagonal(cov, axis1=1, axis2=2), rtol=1e-13)
    np.testing.assert_array_equal(_np(d.mean), loc)
    e = d.expand((2, 3))
    np.testing.assert_allclose(_np(e.log_prob(_t(x[:2], device))), _mvn_logpdf(x[:2], loc, cov),
                               rtol=1e-12)
    # the gradient of log_prob in cov_factor against central differences of the dense form
    Wt = _t(W, device).requires_grad_()
    D.LowRankMultivariateNormal(_t(loc, device), Wt, _t(Dg, device)).log_prob(
        _t(x, device)).sum().backward()
    h, i = 1e-6, (1, 2, 0)
    Wp, Wm = W.copy(), W.copy()
    Wp[i] += h
    Wm[i] -= h
    fd = [_mvn_logpdf(x, loc, w @ w.transpose(0, 2, 1) + np.diag(Dg)).sum() for w in (Wp, Wm)]
    np.testing.assert_allclose(_np(Wt.grad)[i], (fd[0] - fd[1]) / (2 * h), rtol=1e-6)


def test_lowrank_mvn_rsample(device):
    loc, W, Dg = _lowrank_params(np.random.default_rng(2))
    Wt, Dt = _t(W, device).requires_grad_(), _t(Dg, device).requires_grad_()
    d = D.LowRankMultivariateNormal(_t(loc, device), Wt, Dt)
    pdt.manual_seed(8)
    y = d.rsample((N,))
    assert tuple(y.shape) == (N, 3, 4) and y.device == pdt.device(device)
    s = _np(y)
    cov = W @ W.transpose(0, 2, 1) + np.diag(Dg)
    assert (np.abs(s.mean(0) - loc) < 5 * np.sqrt(np.diagonal(cov, axis1=1, axis2=2) / N)).all()
    emp = np.einsum("sbi,sbj->bij", s - loc, s - loc) / N
    np.testing.assert_allclose(emp, cov, atol=0.05 * np.abs(cov).max())
    # d E|y - loc|^2 / dD = 1 per coordinate and batch (3 batches), / dW = 2 W
    (y - _t(loc, device)).pow(2).sum((1, 2)).mean().backward()
    np.testing.assert_allclose(_np(Dt.grad), np.full(4, 3.0), rtol=0.03)
    np.testing.assert_allclose(_np(Wt.grad), 2 * W, atol=0.05 * np.abs(W).max())


def test_lowrank_mvn_bad_input(device):
    z = _t(np.zeros(3), device)
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
        D.LowRankMultivariateNormal(z, _t(np.ones((2, 1)), device), _t(np.ones(3), device))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(z, _t(np.ones((3, 1)), device), _t(np.ones(2), device))
    with pytest.raises(ValueError, match="cov_diag"):
        D.LowRankMultivariateNormal(z, _t(np.ones((3, 1)), device), _t(-np.ones(3), device))


def _norm_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def test_mixture_same_family(device):
    w, mu, sd = np.array([0.2, 0.5, 0.3]), np.array([-2.0, 0.0, 3.0]), np.array([0.5, 1.0, 2.0])
    g = D.MixtureSameFamily(D.Categorical(_t(w, device)), D.Normal(_t(mu, device), _t(sd, device)))
    x = np.array([-2.5, 0.1, 4.0])
    dens = (w * np.exp(-(x[:, None] - mu) ** 2 / (2 * sd ** 2)) / (sd * math.sqrt(2 * math.pi)))
    np.testing.assert_allclose(_np(g.log_prob(_t(x, device))), np.log(dens.sum(1)), rtol=1e-13)
    mix_cdf = (w * _norm_cdf((x[:, None] - mu) / sd)).sum(1)
    np.testing.assert_allclose(_np(g.cdf(_t(x, device))), mix_cdf, rtol=1e-13)
    mean = (w * mu).sum()
    np.testing.assert_allclose(_np(g.mean), mean, rtol=1e-14)
    np.testing.assert_allclose(_np(g.variance), (w * (sd ** 2 + mu ** 2)).sum() - mean ** 2,
                               rtol=1e-13)
    pdt.manual_seed(9)
    s = g.sample((N,))
    assert tuple(s.shape) == (N,) and s.device == pdt.device(device) and not s.requires_grad
    u = np.sort((w * _norm_cdf((np.sort(_np(s))[:, None] - mu) / sd)).sum(1))
    hi = np.arange(1, N + 1) / N
    assert np.maximum(np.abs(hi - u), np.abs(u - hi + 1 / N)).max() < 1.95 / math.sqrt(N)
    # a batch of 2-d mixtures: log_prob against the dense sum, shapes of draws and expand
    rng = np.random.default_rng(3)
    lg, m2, s2 = rng.normal(size=(3, 5)), rng.normal(size=(3, 5, 2)), rng.uniform(0.5, 1.5,
                                                                                 (3, 5, 2))
    comp = D.Independent(D.Normal(_t(m2, device), _t(s2, device)), 1)
    b = D.MixtureSameFamily(D.Categorical(logits=_t(lg, device)), comp)
    assert tuple(b.batch_shape) == (3,) and tuple(b.event_shape) == (2,)
    y = rng.normal(size=(4, 3, 2))
    lp = (-(y[:, :, None] - m2) ** 2 / (2 * s2 ** 2) - np.log(s2 * math.sqrt(2 * math.pi))).sum(-1)
    lw = lg - np.log(np.exp(lg).sum(-1, keepdims=True))
    want = np.log(np.exp(lp + lw).sum(-1))
    np.testing.assert_allclose(_np(b.log_prob(_t(y, device))), want, rtol=1e-12)
    p = np.exp(lw)[..., None]
    np.testing.assert_allclose(_np(b.mean), (p * m2).sum(1), rtol=1e-12, atol=1e-15)
    assert tuple(b.sample((7,)).shape) == (7, 3, 2)
    assert tuple(b.expand((2, 3)).sample().shape) == (2, 3, 2)
    with pytest.raises(ValueError, match="support"):
        D.MixtureSameFamily(D.Categorical(_t(w, device)), D.Gamma(_t(sd, device), 1.0)
                            ).log_prob(_t([-1.0], device))
    with pytest.raises(ValueError, match="Categorical"):
        D.MixtureSameFamily(D.Normal(_t(mu, device), 1.0), D.Normal(_t(mu, device), 1.0))
