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
