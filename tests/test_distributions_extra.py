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


def test_fisher_snedecor(device):
    d1, d2 = np.array([2.0, 4.0, 1.0, 6.0]), np.array([3.0, 6.0, 2.0, 10.0])
    d = D.FisherSnedecor(_t(d1, device), _t(d2, device))
    v = np.array([0.5, 1.0, 2.0, 3.0])
    lbeta = np.array([math.lgamma(a / 2) + math.lgamma(b / 2) - math.lgamma((a + b) / 2)
                      for a, b in zip(d1, d2)])
    want = (0.5 * (d1 * np.log(d1 * v) + d2 * np.log(d2) - (d1 + d2) * np.log(d1 * v + d2))
            - np.log(v) - lbeta)
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), want, rtol=1e-13)
    # mean nan for df2 <= 2, mode nan for df1 <= 2, variance nan for df2 <= 4
    np.testing.assert_allclose(_np(d.mean), [3.0, 1.5, np.nan, 1.25], rtol=1e-14)
    np.testing.assert_allclose(_np(d.mode), [np.nan, 0.375, np.nan, 4 / 6 * 10 / 12])
    var = 2 * d2 ** 2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * np.abs(d2 - 4) + (d2 <= 4))
    np.testing.assert_allclose(_np(d.variance), np.where(d2 > 4, var, np.nan), rtol=1e-14)
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([-1.0] * 4, device))
    with pytest.raises(ValueError, match="df2"):
        D.FisherSnedecor(1.0, _t([0.0], device))


def test_fisher_snedecor_sampler_and_gradient(device):
    pdt.manual_seed(2)
    d2 = np.array([1.0, 3.0, 8.0])
    s = D.FisherSnedecor(_t([2.0] * 3, device), _t(d2, device)).sample((N,))
    assert tuple(s.shape) == (N, 3) and s.device == pdt.device(device)
    # df1 = 2: P(X <= x) = 1 - (df2 / (df2 + 2x))^(df2 / 2)
    ks = _ks(_np(s), lambda x: 1 - (d2 / (d2 + 2 * x)) ** (d2 / 2))
    assert (ks < KS_CRIT / math.sqrt(N)).all(), ks
    # d E[X] / d df1 = 0, d E[X] / d df2 = -2 / (df2 - 2)^2 (implicit gamma gradients)
    a, b = _t([3.0], device).requires_grad_(), _t([12.0], device).requires_grad_()
    D.FisherSnedecor(a, b).rsample((N,)).mean().backward()
    assert abs(_np(a.grad)[0]) < 0.01
    np.testing.assert_allclose(_np(b.grad), [-0.02], rtol=0.1)


def _q_gamma(c, x):
    """The regularized upper incomplete gamma function for c = 1, 2 (closed forms)."""
    return np.exp(-x) * (1 + x) if c == 2 else np.exp(-x)


def test_inverse_gamma(device):
    c, r = np.array([1.0, 2.0, 3.0, 0.5]), np.array([1.0, 2.0, 0.5, 3.0])
    d = D.InverseGamma(_t(c, device), _t(r, device))
    v = np.array([0.5, 1.0, 2.0, 3.0])
    lg = np.array([math.lgamma(a) for a in c])
    want = c * np.log(r) - lg - (c + 1) * np.log(v) - r / v
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), want, rtol=1e-13)
    np.testing.assert_allclose(_np(d.cdf(_t(v, device)))[:2],
                               [_q_gamma(1, 2.0), _q_gamma(2, 2.0)], rtol=1e-12)
    np.testing.assert_allclose(_np(d.mean), [np.inf, 2.0, 0.25, np.inf])
    np.testing.assert_allclose(_np(d.variance), [np.inf, np.inf, 0.0625, np.inf])
    np.testing.assert_allclose(_np(d.mode), r / (c + 1))
    np.testing.assert_array_equal(_np(d.concentration), c)
    for i in (1, 2):  # entropy by quadrature in t = log y
        def log_p(t, i=i):
            return c[i] * np.log(r[i]) - lg[i] - c[i] * t - r[i] * np.exp(-t)
        t = np.linspace(-8, 60, 400001)
        lp_y = log_p(t) - t  # log p(y) at y = e^t; dy = e^t dt
        ent = -np.trapezoid(np.exp(lp_y + t) * lp_y, t)
        np.testing.assert_allclose(_np(d.entropy())[i], ent, rtol=1e-8)
    pdt.manual_seed(3)
    s = _np(d.sample((N,)))[:, :2]
    ks = _ks(s, lambda y: np.stack([_q_gamma(1, r[0] / y[:, 0]),
                                    _q_gamma(2, r[1] / y[:, 1])], 1))
    assert (ks < KS_CRIT / math.sqrt(N)).all(), ks
    rate = _t([2.0], device).requires_grad_()
    y = D.InverseGamma(_t([3.0], device), rate).rsample((4,))
    y.sum().backward()
    np.testing.assert_allclose(_np(rate.grad), [_np(y).sum() / 2.0], rtol=1e-12)
    with pytest.raises(ValueError, match="rate"):
        D.InverseGamma(1.0, _t([-1.0], device))
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([0.0] * 4, device))



def test_inverse_gamma_is_a_transformed_gamma(device):
    """As PyTorch's: a TransformedDistribution of base_dist Gamma(c, rate) by
    [PowerTransform(-1)]; expand keeps the class; the KL of two goes through the Gamma
    pair (closed form, psi(3) = 1.5 - Euler's gamma); the cdf keeps the upper tail that
    1 - P(c, rate / y) would round to 0 (Q(1, 100) = e^-100)."""
    d = D.InverseGamma(_t([3.0, 1.0], device), _t([2.0, 1.0], device))
    assert isinstance(d, D.TransformedDistribution) and isinstance(d.base_dist, D.Gamma)
    assert d.transforms == [D.PowerTransform(_t(-1.0, device))]
    np.testing.assert_array_equal(_np(d.base_dist.rate), [2.0, 1.0])
    e = d.expand((3, 2))
    assert type(e) is D.InverseGamma and tuple(e.batch_shape) == (3, 2)
    np.testing.assert_array_equal(_np(e.concentration), [[3.0, 1.0]] * 3)
    np.testing.assert_allclose(_np(e.log_prob(_t([1.0, 1.0], device))),
                               [[3 * math.log(2) - math.lgamma(3) - 2, -1.0]] * 3, rtol=1e-13)
    q = D.InverseGamma(_t(2.0, device), _t(0.5, device))
    c1, r1, c2, r2 = 3.0, 2.0, 2.0, 0.5
    want = ((c1 - c2) * (1.5 - np.euler_gamma) - math.lgamma(c1) + math.lgamma(c2)
            + c2 * (math.log(r1) - math.log(r2)) + c1 * (r2 - r1) / r1)
    np.testing.assert_allclose(_np(D.kl_divergence(d, q))[0], want, rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(_t([1.0, 0.01], device)))[1], math.exp(-100),
                               rtol=1e-12)

def _nb_log_pmf(k, r, p):
    return (math.lgamma(r + k) - math.lgamma(k + 1) - math.lgamma(r)
            + k * math.log(p) + r * math.log1p(-p))


def test_negative_binomial(device):
    r, p = np.array([3.0, 0.5, 10.0]), np.array([0.25, 0.6, 0.1])
    d = D.NegativeBinomial(_t(r, device), _t(p, device))
    k = np.array([2.0, 0.0, 5.0])
    want = [_nb_log_pmf(k[i], r[i], p[i]) for i in range(3)]
    np.testing.assert_allclose(_np(d.log_prob(_t(k, device))), want, rtol=1e-12)
    lg = D.NegativeBinomial(_t(r, device), logits=_t(np.log(p / (1 - p)), device))
    np.testing.assert_allclose(_np(lg.log_prob(_t(k, device))), want, rtol=1e-12)
    np.testing.assert_allclose(_np(lg.probs), p, rtol=1e-14)
    np.testing.assert_allclose(_np(d.mean), r * p / (1 - p), rtol=1e-14)
    np.testing.assert_allclose(_np(d.variance), r * p / (1 - p) ** 2, rtol=1e-14)
    np.testing.assert_array_equal(_np(d.mode), np.floor(np.maximum((r - 1) * p / (1 - p), 0)))
    # total_count 0: all the mass at 0 (log_prob 0 there, as PyTorch's masked lgamma)
    z = D.NegativeBinomial(_t([0.0], device), _t([0.3], device))
    np.testing.assert_array_equal(_np(z.log_prob(_t([0.0], device))), [0.0])
    # the gamma-Poisson draws against the mass function (chi-square, cells 0..29 + tail)
    pdt.manual_seed(4)
    s = d.sample((N,))
    assert tuple(s.shape) == (N, 3) and s.device == pdt.device(device)
    s = _np(s)
    assert (s == np.round(s)).all() and s.min() >= 0
    for i in range(3):
        pmf = np.exp([_nb_log_pmf(j, r[i], p[i]) for j in range(30)])
        expect = N * np.append(pmf, 1 - pmf.sum())
        got = np.append(np.bincount(s[:, i].astype(int), minlength=31)[:30], (s[:, i] >= 30).sum())
        keep = expect > 5
        chi2 = ((got[keep] - expect[keep]) ** 2 / expect[keep]).sum()
        # the 0.1% critical value of chi-square with keep.sum() - 1 degrees of freedom
        # is below dof + 4 sqrt(2 dof) + 10
        dof = keep.sum() - 1
        assert chi2 < dof + 4 * math.sqrt(2 * dof) + 10, (i, chi2, dof)
    with pytest.raises(ValueError, match="probs"):
        D.NegativeBinomial(1.0, _t([1.0], device))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.NegativeBinomial(1.0)
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([0.5] * 3, device))


def _cb_exact(p):
    """C(p), the mean and the variance of ContinuousBernoulli(p) by quadrature."""
    x = np.linspace(0, 1, 200001)
    dens = p ** x * (1 - p) ** (1 - x)
    c = 1 / np.trapezoid(dens, x)
    mean = c * np.trapezoid(x * dens, x)
    return c, mean, c * np.trapezoid((x - mean) ** 2 * dens, x), x, c * dens


def test_continuous_bernoulli(device):
    p = np.array([0.2, 0.4995, 0.5, 0.9])
    d = D.ContinuousBernoulli(_t(p, device))
    v = np.array([0.3, 0.7, 0.5, 0.1])
    for i in range(4):
        c, mean, var, x, dens = _cb_exact(p[i])
        lp = math.log(c) + v[i] * math.log(p[i]) + (1 - v[i]) * math.log1p(-p[i])
        np.testing.assert_allclose(_np(d.log_prob(_t(v, device)))[i], lp, rtol=1e-8,
                                   atol=1e-10)
        np.testing.assert_allclose(_np(d.mean)[i], mean, rtol=1e-8)
        np.testing.assert_allclose(_np(d.variance)[i], var, rtol=1e-7)
        xv = np.linspace(0, v[i], 200001)
        cdf = c * np.trapezoid(p[i] ** xv * (1 - p[i]) ** (1 - xv), xv)
        # in the unstable region about 1/2 the cdf is x, as PyTorch's (off by O(p - 1/2))
        np.testing.assert_allclose(_np(d.cdf(_t(v, device)))[i], cdf,
                                   atol=1e-3 if i == 1 else 1e-8)
        ent = -np.trapezoid(dens * np.log(dens), x)
        np.testing.assert_allclose(_np(d.entropy())[i], ent, rtol=1e-6, atol=1e-9)
    outside = D.ContinuousBernoulli(_t(p, device), validate_args=False)
    np.testing.assert_array_equal(_np(outside.cdf(_t([-1.0, 0.0, 1.0, 2.0], device))),
                                  [0.0, 0.0, 1.0, 1.0])
    # the icdf inverts the cdf; draws (icdf of uniforms) pass a KS test
    u = np.array([0.1, 0.3, 0.6, 0.95])
    np.testing.assert_allclose(_np(d.cdf(d.icdf(_t(u, device)))), u, rtol=1e-12)
    pdt.manual_seed(5)
    s = d.rsample((N,))
    assert tuple(s.shape) == (N, 4) and s.device == pdt.device(device)
    ks = _ks(_np(s), lambda x: _np(d.cdf(_t(x, device))))
    assert (ks < KS_CRIT / math.sqrt(N)).all(), ks
    # rsample's gradient in probs: the same uniforms, central differences
    probs, h = _t([0.3], device).requires_grad_(), 1e-6
    pdt.manual_seed(6)
    D.ContinuousBernoulli(probs).rsample((3,)).sum().backward()
    fd = []
    for q in (0.3 + h, 0.3 - h):
        pdt.manual_seed(6)
        fd.append(_np(D.ContinuousBernoulli(_t([q], device)).rsample((3,))).sum())
    np.testing.assert_allclose(_np(probs.grad), [(fd[0] - fd[1]) / (2 * h)], rtol=1e-6)
    with pytest.raises(ValueError, match="probs"):
        D.ContinuousBernoulli(_t([1.5], device), validate_args=True)


def _log_i0(k):
    return np.log(np.i0(k))


def test_von_mises(device):
    loc, k = np.array([0.0, 1.0, -2.0]), np.array([0.5, 4.0, 30.0])
    d = D.VonMises(_t(loc, device), _t(k, device))
    v = np.array([0.3, 7.0, -2.5])  # any real angle, read modulo 2 pi
    want = k * np.cos(v - loc) - math.log(2 * math.pi) - _log_i0(k)
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), want, rtol=1e-13)
    t = np.linspace(0, math.pi, 200001)
    i1 = np.array([np.trapezoid(np.exp(kk * np.cos(t)) * np.cos(t), t) / math.pi for kk in k])
    np.testing.assert_allclose(_np(d.variance), 1 - i1 / np.i0(k), rtol=1e-9)
    np.testing.assert_array_equal(_np(d.mean), loc)
    # draws in [-pi, pi) against the CDF by cumulative quadrature of the density
    pdt.manual_seed(7)
    s = d.sample((N,))
    assert tuple(s.shape) == (N, 3) and s.device == pdt.device(device) and not s.requires_grad
    s = _np(s)
    assert s.min() >= -math.pi and s.max() < math.pi
    grid = np.linspace(-math.pi, math.pi, 200001)
    for i in range(3):
        dens = np.exp(k[i] * np.cos(grid - loc[i]) - _log_i0(k[i])) / (2 * math.pi)
        cdf = np.concatenate([[0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
        ks = _ks(s[:, i:i + 1], lambda x: np.interp(x, grid, cdf))
        assert ks[0] < KS_CRIT / math.sqrt(N), (i, ks)
    # tiny concentrations (the 1 / k + k proposal) are uniform on the circle
    u = _np(D.VonMises(_t([0.0], device), _t([1e-7], device)).sample((N,)))
    assert _ks(u, lambda x: (x + math.pi) / (2 * math.pi))[0] < KS_CRIT / math.sqrt(N)
    e = d.expand((2, 3))
    assert type(e) is D.VonMises and tuple(e.sample((4,)).shape) == (4, 2, 3)
    with pytest.raises(ValueError, match="concentration"):
        D.VonMises(0.0, _t([0.0], device))


def test_von_mises_sampler_ends_for_extreme_concentrations(device):
    # Best and Fisher's loop never accepted a proposal for k = inf, for k past about 1e32
    # (rho rounds to 1) nor for k = 0 (validation off): sample() never returned
    k = _t([0.0, 1e12, 1e38, math.inf, math.nan], device)
    pdt.manual_seed(0)
    x = _np(D.VonMises(_t(0.5, device), k, validate_args=False).sample((4000,)))
    assert (np.abs(x[:, :4]) <= math.pi).all() and np.isnan(x[:, 4]).all()
    np.testing.assert_array_equal(x[:, 3], 0.5)  # the limit: loc itself
    np.testing.assert_allclose(x[:, 2], 0.5, atol=1e-15)
    # k = 1e12: the normal limit of sd 1e-6 (4000 draws: the sd within 5%)
    assert abs(x[:, 1].std() / 1e-6 - 1) < 0.05 and abs(x[:, 1].mean() - 0.5) < 1e-7
    # k = 0: uniform on the circle (mean resultant length about 1 / sqrt(4000))
    assert abs(np.exp(1j * x[:, 0]).mean()) < 0.05
