"""StudentT, FisherSnedecor, InverseGamma, NegativeBinomial, ContinuousBernoulli and
VonMises against closed forms and quadrature (float64): log_prob, cdf, moments with
PyTorch's nan/inf rules, entropy (-int p log p), the samplers (Kolmogorov-Smirnov
statistic against the closed-form CDF, or chi-square against the mass function, at
10^5 draws) and the reparameterisation gradients."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
N = 100000
# the 0.1% critical value of the Kolmogorov-Smirnov statistic, times sqrt(n)
KS_CRIT = 1.95


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _ks(draws, cdf):
    """The Kolmogorov-Smirnov statistic of each column of draws (n, k) against cdf."""
    n = draws.shape[0]
    u = np.sort(cdf(np.sort(draws, axis=0)), axis=0)
    hi = np.arange(1, n + 1)[:, None] / n
    return np.maximum(np.abs(hi - u), np.abs(u - (hi - 1 / n))).max(0)


def _entropy_quad(log_p, lo, hi, n=400001):
    """-int p log p over [lo, hi] by the trapezoid rule."""
    x = np.linspace(lo, hi, n)
    lp = log_p(x)
    return -np.trapezoid(np.exp(lp) * lp, x)


def _t_cdf(x, df):
    """The standard t CDF for df = 1, 2, 3 (closed forms)."""
    if df == 1:
        return 0.5 + np.arctan(x) / np.pi
    if df == 2:
        return 0.5 + x / (2 * np.sqrt(2 + x * x))
    s = x / np.sqrt(3)
    return 0.5 + (s / (1 + s * s) + np.arctan(s)) / np.pi


def _t_log_pdf(x, df, loc, scale):
    y = (x - loc) / scale
    return (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
            - math.log(scale) - (df + 1) / 2 * np.log1p(y * y / df))


def test_student_t_closed_forms(device):
    df, loc, sc = [0.5, 1.5, 3.0, 10.0], [0.0, 1.0, -2.0, 0.5], [1.0, 2.0, 0.5, 3.0]
    d = D.StudentT(_t(df, device), _t(loc, device), _t(sc, device))
    v = np.array([0.3, -1.0, 2.0, 5.0])
    want = [_t_log_pdf(v[i], df[i], loc[i], sc[i]) for i in range(4)]
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), want, rtol=1e-13)
    # mean: nan for df <= 1; variance: nan for df <= 1, inf for 1 < df <= 2
    np.testing.assert_array_equal(_np(d.mean), [np.nan, 1.0, -2.0, 0.5])
    np.testing.assert_allclose(_np(d.variance), [np.nan, np.inf, 0.25 * 3, 9 * 10 / 8])
    np.testing.assert_array_equal(_np(d.mode), loc)
    for i in (2, 3):  # entropy by quadrature of -p log p (tails beyond +-1e4 scales)
        ent = _entropy_quad(lambda x: _t_log_pdf(x, df[i], loc[i], sc[i]),
                            loc[i] - 300 * sc[i], loc[i] + 300 * sc[i], 2000001)
        np.testing.assert_allclose(_np(d.entropy())[i], ent, rtol=1e-5)
    # df = 1 is the Cauchy: entropy log(4 pi scale)
    np.testing.assert_allclose(_np(D.StudentT(_t([1.0], device), 0.0, 2.0).entropy()),
                               [math.log(8 * math.pi)], rtol=1e-13)
    # the variance's gradient is finite (no inf * 0 from the masked df <= 2)
    dfg = _t([1.5, 4.0], device).requires_grad_()
    D.StudentT(dfg).variance[1].backward()
    np.testing.assert_allclose(_np(dfg.grad), [0.0, -2 / 4.0], rtol=1e-13)


def test_student_t_sampler(device):
    pdt.manual_seed(0)
    df, loc, sc = [1.0, 2.0, 3.0], [0.0, 1.0, -2.0], [1.0, 2.0, 0.5]
    d = D.StudentT(_t(df, device), _t(loc, device), _t(sc, device))
    s = d.sample((N,))
    assert tuple(s.shape) == (N, 3) and s.device == pdt.device(device) and s.dtype == F64
    s = _np(s)
    for i in range(3):
        ks = _ks(s[:, i:i + 1], lambda x: _t_cdf((x - loc[i]) / sc[i], df[i]))
        assert ks[0] < KS_CRIT / math.sqrt(N), (i, ks)
    e = d.expand((2, 3))
    assert type(e) is D.StudentT and tuple(e.rsample((4,)).shape) == (4, 2, 3)


def test_student_t_rsample_gradients(device):
    pdt.manual_seed(1)
    loc = _t([1.0], device).requires_grad_()
    scale = _t([2.0], device).requires_grad_()
    y = D.StudentT(_t([4.0], device), loc, scale).rsample((5,))
    y.sum().backward()
    np.testing.assert_allclose(_np(loc.grad), [5.0], rtol=1e-13)
    np.testing.assert_allclose(_np(scale.grad), [((_np(y) - 1.0) / 2.0).sum()], rtol=1e-12)
    # through df (the Chi2 draw's implicit gradient): d E[y^2] / d df = -2 / (df - 2)^2
    df = _t([10.0, 5.0], device).requires_grad_()
    D.StudentT(df).rsample((N,)).pow(2).mean(0).sum().backward()
    np.testing.assert_allclose(_np(df.grad), [-2 / 64, -2 / 9], rtol=0.05)


def test_student_t_validation(device):
    with pytest.raises(ValueError, match="df"):
        D.StudentT(_t([0.0, 1.0], device))
    with pytest.raises(ValueError, match="scale"):
        D.StudentT(_t([1.0], device), 0.0, -1.0)
