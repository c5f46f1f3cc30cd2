"""LKJCholesky, PyTorch's: log_prob against quadrature (dim 2: it integrates to 1 over
the correlation; dim 3: its normalizer against the integral over (L21, L31, L32), by 1-d
quadratures) and its unnormalized part in NumPy; the onion draws are Cholesky factors of
correlation matrices whose off-diagonal correlations follow the LKJ marginal, 2 B - 1 with
B of Beta(c - 1 + dim / 2, same) (a Kolmogorov-Smirnov test), on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
ETAS = [0.5, 1.0, 2.5]
KS_CRIT = 1.95  # the 0.1 % point of sqrt(n) times the KS statistic


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _cos_nodes(n):
    """Midpoint nodes on (-1, 1) dense at both ends (x = -cos(pi u)), with weights."""
    u = (np.arange(n) + 0.5) / n
    return -np.cos(math.pi * u), math.pi * np.sin(math.pi * u) / n


def test_log_prob_dim2_integrates_to_one(device):
    """L = [[1, 0], [r, sqrt(1 - r^2)]]: the density in r integrates to 1, for each
    concentration of a batch."""
    r, w = _cos_nodes(200000)
    L = np.zeros((r.size, 1, 2, 2))
    L[:, 0, 0, 0], L[:, 0, 1, 0], L[:, 0, 1, 1] = 1.0, r, np.sqrt(1 - r * r)
    d = D.LKJCholesky(2, _t(ETAS, device))
    lp = _np(d.log_prob(_t(L, device)))
    assert lp.shape == (r.size, 3)
    np.testing.assert_allclose((np.exp(lp) * w[:, None]).sum(0), 1.0, rtol=1e-6)


def test_log_prob_dim3_normalizer_and_shape(device):
    """Over (L21, L31, L32) the density is L22^(2c - 1) L33^(2c - 2) / Z: Z is the
    integral over L21 in (-1, 1) times 2 pi times that over the radius of (L31, L32) in
    the unit disk; log_prob at other L against the NumPy sum."""
    a, wa = _cos_nodes(200000)
    rho, wr = (a + 1) / 2, wa / 2
    d = D.LKJCholesky(3, _t(ETAS, device))
    for i, c in enumerate(ETAS):
        z = ((1 - a * a) ** ((2 * c - 1) / 2) * wa).sum() * 2 * math.pi * (
            (1 - rho * rho) ** (c - 1) * rho * wr).sum()
        np.testing.assert_allclose(_np(d.log_prob(_t(np.eye(3), device)))[i], -math.log(z),
                                   rtol=1e-6)
    rng = np.random.default_rng(2)
    L = np.linalg.cholesky([np.corrcoef(m) for m in rng.normal(size=(4, 3, 5))])[:, None]
    got = _np(d.log_prob(_t(L, device)))
    base = _np(d.log_prob(_t(np.eye(3), device)))
    diag = np.log(L[..., [1, 2], [1, 2]])
    c = np.array(ETAS)
    want = base + (2 * c - 1) * diag[..., 0] + (2 * c - 2) * diag[..., 1]
    assert got.shape == (4, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _marginal_cdf(a):
    """The cdf of 2 B - 1, B of Beta(a, a), on a grid, by cumulative quadrature."""
    x = np.linspace(-1, 1, 200001)
    f = (1 - x * x) ** (a - 1)
    cum = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(x))])
    return lambda v: np.interp(v, x, cum / cum[-1])


@pytest.mark.parametrize("dim", [3, 4])
def test_samples_are_correlation_factors_of_the_lkj_marginals(device, dim):
    pdt.manual_seed(11)
    n = 20000
    d = D.LKJCholesky(dim, _t([0.7, 2.0], device))
    L = d.sample((n,))
    assert tuple(L.shape) == (n, 2, dim, dim) and L.dtype == F64
    assert bool(D.constraints.corr_cholesky.check(L).all())
    M = _np(L @ L.mT)
    np.testing.assert_allclose(M[..., range(dim), range(dim)], 1.0, rtol=1e-12)
    for b, c in enumerate([0.7, 2.0]):
        cdf = _marginal_cdf(c - 1 + dim / 2)
        for i in range(1, dim):
            for j in range(i):
                v = np.sort(M[:, b, i, j])
                u = cdf(v)
                hi = np.arange(1, n + 1) / n
                ks = np.maximum(np.abs(hi - u), np.abs(u - (hi - 1 / n))).max()
                assert ks < KS_CRIT / math.sqrt(n), (c, i, j, ks)


def test_expand_and_validation(device):
    d = D.LKJCholesky(3, _t(2.0, device))
    e = d.expand((4,))
    assert type(e) is D.LKJCholesky and tuple(e.batch_shape) == (4,) and e.dim == 3
    assert tuple(e.sample((2,)).shape) == (2, 4, 3, 3)
    np.testing.assert_allclose(_np(e.log_prob(_t(np.eye(3), device))),
                               _np(d.log_prob(_t(np.eye(3), device))).repeat(4), rtol=1e-15)
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t(np.ones((3, 3)), device))
    assert tuple(D.LKJCholesky(2).event_shape) == (2, 2)
