"""Wishart against its closed forms in NumPy (log density, moments; entropy against the
exponential family's Bregman form and, for p = 1, the gamma distribution's), its
Bartlett draws' mean and variance over 10^4 draws, and their gradients."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _log_density(X, df, cov):
    p = cov.shape[-1]
    mvlgamma = p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(df / 2 - i / 2)
                                                          for i in range(p))
    return ((df - p - 1) / 2 * np.linalg.slogdet(X)[1]
            - np.trace(np.linalg.solve(cov, X)) / 2 - df * p / 2 * math.log(2)
            - df / 2 * np.linalg.slogdet(cov)[1] - mvlgamma)


def _wishart(df, cov, kind, device):
    m = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
         "scale_tril": np.linalg.cholesky(cov)}[kind]
    return D.Wishart(_t(df, device), **{kind: _t(m, device)})


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_log_prob_and_moments(device, kind):
    df = np.array([3.7, 6.3])
    cov = np.stack([COV, COV[::-1, ::-1] + np.eye(3)])
    d = _wishart(df, cov, kind, device)
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (3, 3)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 2, 3, 3))
    X = A @ np.swapaxes(A, -1, -2) + np.eye(3)
    lp = _np(d.log_prob(_t(X, device)))
    expected = [[_log_density(X[i, j], df[j], cov[j]) for j in range(2)] for i in range(4)]
    np.testing.assert_allclose(lp, expected, rtol=1e-10)
    np.testing.assert_allclose(_np(d.covariance_matrix), cov, rtol=1e-10)
    np.testing.assert_allclose(_np(d.precision_matrix), np.linalg.inv(cov), rtol=1e-10,
                               atol=1e-14)
    np.testing.assert_allclose(_np(d.scale_tril), np.linalg.cholesky(cov), rtol=1e-10)
    np.testing.assert_allclose(_np(d.mean), df[:, None, None] * cov, rtol=1e-12)
    diag = np.diagonal(cov, axis1=-2, axis2=-1)
    np.testing.assert_allclose(_np(d.variance), df[:, None, None] * (
        cov ** 2 + diag[:, :, None] * diag[:, None, :]), rtol=1e-12)
    mode = _np(d.mode)
    assert np.isnan(mode[0]).all()  # df <= p + 1: no mode, NaN as PyTorch's
    np.testing.assert_allclose(mode[1], (6.3 - 4) * cov[1], rtol=1e-12)
    assert bool(d.support.check(_t(X, device)).all())


@pytest.mark.filterwarnings("ignore:Low df values detected")
def test_entropy(device):
    d = _wishart(np.array([2.5, 7.0]), np.stack([COV, np.eye(3)]), "covariance_matrix",
                 device)
    np.testing.assert_allclose(_np(d.entropy()), _np(D.ExponentialFamily.entropy(d)),
                               rtol=1e-10)
    # p = 1: Wishart(df, s) is Gamma(df / 2, rate 1 / (2 s))
    df, s = np.array([0.7, 3.0]), np.array([2.0, 0.5])
    w = D.Wishart(_t(df, device), covariance_matrix=_t(s[:, None, None], device))
    g = D.Gamma(_t(df / 2, device), _t(1 / (2 * s), device))
    np.testing.assert_allclose(_np(w.entropy()), _np(g.entropy()), rtol=1e-12)
    x = _t([[[1.3]], [[0.4]]], device)
    np.testing.assert_allclose(_np(w.log_prob(x)), _np(g.log_prob(x[:, 0, 0])), rtol=1e-12)


@pytest.mark.parametrize("p,df", [(2, 1.5), (3, 3.5), (3, 7.0)])
def test_sample_mean_and_variance(device, p, df):
    pdt.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # df < p warns; its singular draws are redrawn
        d = D.Wishart(_t(df, device), covariance_matrix=_t(COV[:p, :p], device))
        x = _np(d.sample((10000,)))
    assert x.shape == (10000, p, p)
    assert np.isfinite(x).all() and (np.linalg.eigvalsh(x) > 0).all()
    np.testing.assert_allclose(x, np.swapaxes(x, -1, -2), rtol=1e-12, atol=1e-12)
    sigma = np.sqrt(_np(d.variance) / 10000)
    assert (np.abs(x.mean(0) - _np(d.mean)) < 5 * sigma).all()
    np.testing.assert_allclose(x.var(0), _np(d.variance), rtol=0.1)


def test_rsample_gradient_and_expand(device):
    pdt.manual_seed(2)
    df = _t(4.0, device).requires_grad_()
    L = _t([[1.0, 0.0], [0.3, 0.8]], device).requires_grad_()
    d = D.Wishart(df, scale_tril=L)
    d.rsample((20000,)).mean(0).sum().backward()
    # E[X] = df L L^T: d/d df sum = sum(L L^T), d/dL sum = 2 df 1 1^T L
    Ln = _np(L)
    np.testing.assert_allclose(df.grad.item(), (Ln @ Ln.T).sum(), rtol=0.05)
    np.testing.assert_allclose(_np(L.grad), 2 * 4.0 * np.ones((2, 2)) @ Ln, rtol=0.05)
    e = D.Wishart(_t(4.0, device), covariance_matrix=_t(COV[:2, :2], device)).expand((3,))
    assert tuple(e.batch_shape) == (3,) and tuple(e.sample((5,)).shape) == (5, 3, 2, 2)
    np.testing.assert_allclose(_np(e.log_prob(_t(np.eye(2), device))),
                               [_log_density(np.eye(2), 4.0, COV[:2, :2])] * 3, rtol=1e-10)


def test_bad_arguments(device):
    with pytest.raises(ValueError, match=r"df=1.0 expected to be greater than ndim - 1 = 1"):
        D.Wishart(1.0, covariance_matrix=pdt.eye(2, device=device))
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(1.5, covariance_matrix=pdt.eye(2, device=device))
    with pytest.raises(ValueError, match="Exactly one of"):
        D.Wishart(3.0)
