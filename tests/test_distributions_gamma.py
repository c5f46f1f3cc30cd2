"""Gamma, Chi2, Beta and Dirichlet against closed forms: log_prob, cdf (the incomplete
gamma function), moments, entropy (against quadrature of -p log p), the sampler's
moments and its implicit reparameterisation gradient (finite differences of the draw
with the same CDF value)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


C = np.array([0.3, 1.0, 2.5, 10.0])
R = np.array([2.0, 1.0, 0.5, 3.0])


def test_gamma_closed_forms(device):
    d = D.Gamma(_t(C, device), _t(R, device))
    v = np.array([0.5, 1.0, 2.0, 3.0])
    lg = np.array([math.lgamma(c) for c in C])
    want = C * np.log(R) + (C - 1) * np.log(v) - R * v - lg
    np.testing.assert_allclose(_np(d.log_prob(_t(v, device))), want, rtol=1e-13)
    np.testing.assert_allclose(_np(d.mean), C / R)
    np.testing.assert_allclose(_np(d.variance), C / R ** 2)
    np.testing.assert_allclose(_np(d.mode), np.maximum((C - 1) / R, 0))
    # entropy: -int p log p by the trapezoid rule on a fine grid of x = t^4 (smooth)
    for i in (1, 2, 3):
        t = np.linspace(1e-6, (60 / R[i]) ** 0.25, 200001)
        x = t ** 4
        lp = C[i] * np.log(R[i]) + (C[i] - 1) * np.log(x) - R[i] * x - lg[i]
        ent = -np.trapezoid(np.exp(lp) * lp * 4 * t ** 3, t)
        np.testing.assert_allclose(_np(d.entropy())[i], ent, rtol=1e-6)
    # cdf of shape 1 is 1 - e^(-rate x)
    e = D.Gamma(_t([1.0], device), _t([2.0], device))
    np.testing.assert_allclose(_np(e.cdf(_t([0.7], device))), -np.expm1(-1.4), rtol=1e-13)
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([-1.0] * 4, device))
    with pytest.raises(ValueError, match="concentration"):
        D.Gamma(_t([-1.0], device), 1.0)


def test_chi2(device):
    d = D.Chi2(_t([1.0, 4.0], device))
    np.testing.assert_allclose(_np(d.df), [1.0, 4.0])
    np.testing.assert_allclose(_np(d.mean), [1.0, 4.0])
    np.testing.assert_allclose(_np(d.variance), [2.0, 8.0])
    # chi2 with 1 degree of freedom: P(X <= x) = erf(sqrt(x / 2))
    np.testing.assert_allclose(_np(d.cdf(_t([2.0, 2.0], device)))[0], math.erf(1.0))
    e = d.expand((3, 2))
    assert type(e) is D.Chi2 and tuple(e.sample().shape) == (3, 2)


def test_gamma_sampler_moments(device):
    pdt.manual_seed(0)
    d = D.Gamma(_t(C, device), _t(R, device))
    s = _np(d.sample((100000,)))
    assert s.min() > 0
    mean, var = C / R, C / R ** 2
    assert (np.abs(s.mean(0) - mean) < 6 * np.sqrt(var / 1e5)).all()
    np.testing.assert_allclose(s.var(0), var, rtol=0.05)
    # the empirical CDF matches the incomplete gamma function (Kolmogorov bound)
    u = np.sort(_np(d.cdf(d.sample((20000,)))), axis=0)
    ks = np.abs(u - (np.arange(1, 20001) / 20000)[:, None]).max()
    assert ks < 1.63 / math.sqrt(20000) + 1e-3


def _quantile(a, p, device):
    """x with gammainc(a, x) = p, by bisection (float64)."""
    lo, hi = np.zeros_like(p), np.full_like(p, 200.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        below = _np(pdt.special.gammainc(_t(a, device), _t(mid, device))) < p
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def test_gamma_rsample_gradient(device):
    a0 = np.array([0.4, 1.0, 2.5, 12.0])
    a = _t(a0, device).requires_grad_()
    x = D.Gamma(a, 1.0).rsample()
    x.sum().backward()
    p = _np(pdt.special.gammainc(_t(a0, device), x.detach()))
    h = 1e-4
    fd = (_quantile(a0 + h, p, device) - _quantile(a0 - h, p, device)) / (2 * h)
    np.testing.assert_allclose(_np(a.grad), fd, rtol=1e-5)
    # through the rate: x / rate
    r = _t([2.0], device).requires_grad_()
    y = D.Gamma(_t([3.0], device), r).rsample()
    y.backward()
    np.testing.assert_allclose(_np(r.grad), -_np(y) / 2.0, rtol=1e-12)


def test_beta_and_dirichlet_closed_forms(device):
    b = D.Beta(_t([2.0, 0.5], device), _t([3.0, 1.5], device))
    v = np.array([0.3, 0.8])
    lb = np.array([math.lgamma(2) + math.lgamma(3) - math.lgamma(5),
                   math.lgamma(0.5) + math.lgamma(1.5) - math.lgamma(2)])
    want = np.array([1.0, -0.5]) * np.log(v) + np.array([2.0, 0.5]) * np.log1p(-v) - lb
    np.testing.assert_allclose(_np(b.log_prob(_t(v, device))), want, rtol=1e-13)
    np.testing.assert_allclose(_np(b.mean), [0.4, 0.25])
    np.testing.assert_allclose(_np(b.variance), [6 / 150, 0.75 / 12])
    # Beta(2, 3): entropy by quadrature of -p log p
    x = np.linspace(0, 1, 400001)[1:-1]
    p = 12 * x * (1 - x) ** 2
    np.testing.assert_allclose(_np(b.entropy())[0], -np.trapezoid(p * np.log(p), x),
                               rtol=1e-7)
    c = np.array([1.0, 2.0, 3.0])
    d = D.Dirichlet(_t(c, device))
    val = np.array([0.2, 0.3, 0.5])
    want = math.lgamma(6) - sum(math.lgamma(k) for k in c) + np.sum((c - 1) * np.log(val))
    np.testing.assert_allclose(float(d.log_prob(_t(val, device))), want, rtol=1e-13)
    np.testing.assert_allclose(_np(d.mode), [0.0, 1 / 3, 2 / 3], atol=1e-15)
    np.testing.assert_allclose(_np(D.Dirichlet(_t([0.5, 0.3], device)).mode), [1.0, 0.0])
    # entropy of Dirichlet(1, 1, 1): the uniform density 2 on the simplex
    np.testing.assert_allclose(float(D.Dirichlet(_t([1.0] * 3, device)).entropy()),
                               -math.log(2), rtol=1e-13)
    with pytest.raises(ValueError, match="one-dimensional"):
        D.Dirichlet(_t(1.0, device))


def test_beta_and_dirichlet_draws(device):
    pdt.manual_seed(1)
    d = D.Dirichlet(_t([[0.5, 2.0, 3.0], [4.0, 1.0, 1.0]], device))
    s = _np(d.sample((50000,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(s.mean(0), _np(d.mean), atol=5e-3)
    np.testing.assert_allclose(s.var(0), _np(d.variance), atol=2e-3)
    b = D.Beta(_t([2.0], device), _t([3.0], device)).expand((4,))
    s = _np(b.sample((50000,)))
    assert s.shape == (50000, 4)
    np.testing.assert_allclose(s.mean(), 0.4, atol=5e-3)
    a = _t([0.5, 2.0, 3.0], device).requires_grad_()
    D.Dirichlet(a).rsample()[0].backward()
    assert a.grad is not None and bool(a.grad.isfinite().all())


def _kl_quadrature(p, q, device, top):
    """int p log(p / q) on (0, top) by the trapezoid rule on x = t^4 (smooth at 0)."""
    t = np.linspace(1e-5, top ** 0.25, 400001)
    x = _t(t ** 4, device)[:, None]
    lp, lq = _np(p.log_prob(x)), _np(q.log_prob(x))
    return np.trapezoid(np.exp(lp) * (lp - lq) * (4 * t ** 3)[:, None], t, axis=0)


def test_kl_pairs_against_quadrature(device):
    ga = D.Gamma(_t([0.5, 2.0], device), _t([1.0, 3.0], device))
    gb = D.Gamma(_t([1.5, 2.0], device), _t([2.0, 0.5], device))
    ex = D.Exponential(_t([0.5, 2.0], device))
    for p, q in ((ga, gb), (ex, gb), (ga, ex)):
        np.testing.assert_allclose(_np(D.kl_divergence(p, q)),
                                   _kl_quadrature(p, q, device, 200.0), rtol=1e-5)
    ba = D.Beta(_t([2.0, 1.5], device), _t([3.0, 2.5], device))
    bb = D.Beta(_t([1.5, 2.5], device), _t([2.0, 1.5], device))
    x = np.linspace(0, 1, 400001)[1:-1]
    lp, lq = _np(ba.log_prob(_t(x, device)[:, None])), _np(bb.log_prob(_t(x, device)[:, None]))
    want = np.trapezoid(np.exp(lp) * (lp - lq), x, axis=0)
    np.testing.assert_allclose(_np(D.kl_divergence(ba, bb)), want, rtol=1e-5)
    # a two-category Dirichlet is the Beta of its first coordinate
    da = D.Dirichlet(_t([[2.0, 3.0], [1.5, 2.5]], device))
    db = D.Dirichlet(_t([[1.5, 2.0], [2.5, 1.5]], device))
    np.testing.assert_allclose(_np(D.kl_divergence(da, db)), want, rtol=1e-5)


def test_infinite_or_nan_concentration_draws_end(device):
    # Marsaglia and Tsang's loop never accepted a proposal for alpha = inf or NaN: sample()
    # of Gamma(inf) (which validation lets through), Chi2(inf), StudentT(inf) never returned
    alpha = _t([math.inf, math.nan, 2.0], device)
    pdt.manual_seed(0)
    x = _np(D.Gamma(alpha, 1.0, validate_args=False).sample((4,)))
    assert np.isposinf(x[:, 0]).all() and np.isnan(x[:, 1]).all()
    assert (np.isfinite(x[:, 2]) & (x[:, 2] > 0)).all()
    assert np.isposinf(_np(D.Chi2(_t([math.inf], device)).sample((3,)))).all()
    y = _np(D.StudentT(_t([math.inf, 3.0], device)).sample((3,)))
    assert np.isfinite(y[:, 1]).all()


def test_gamma_and_chi2_draw_from_a_generator(device):
    # PyTorch 2.15's Gamma/Chi2 sample(..., *, generator) and rsample(..., generator):
    # they were refused (TypeError); the draws come from that stream, the default one
    # is left alone
    c = _t([2.0, 0.5, 7.0], device)
    draws = []
    for _ in range(2):
        g = pdt.Generator(device=device).manual_seed(3)
        pdt.manual_seed(11)
        x = D.Gamma(c, 2.0).sample((500,), generator=g)
        after = _np(pdt.rand(4, dtype=F64, device=device))
        draws.append((_np(x), after, _np(D.Chi2(c).rsample((2,), g))))
    pdt.manual_seed(11)
    np.testing.assert_array_equal(after, _np(pdt.rand(4, dtype=F64, device=device)))
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)
    assert np.all(np.abs(draws[0][0].mean(0) - _np(c) / 2) < 5 * np.sqrt(_np(c) / 4 / 500))
    x = c.clone().requires_grad_(True)
    D.Gamma(x, 1.0).rsample(generator=pdt.Generator(device=device)).sum().backward()
    assert np.isfinite(_np(x.grad)).all()


def test_entropy_at_large_concentration(device):
    # c + lgamma(c) + (1 - c) digamma(c) cancels its c log c terms: it read 0.0 for 29.4 at
    # c = 5e23. Gamma(c, r) tends to Normal(c / r, c / r^2), InverseGamma(c, r) to
    # Normal(r / c, r^2 / c^3), Chi2(k) to Normal(k, 2k): their entropies to the Normal's
    # 0.5 log(2 pi e var), here to within O(1/c) (below the rounding)
    c = np.array([5e23, 1e30, 3e16])
    r = np.array([2.0, 1e-5, 7.0])
    half_log_2pie = 0.5 * math.log(2 * math.pi * math.e)
    for dtype, rtol in ((F64, 1e-15), (pdt.float32, 1e-6)):
        ct, rt = _t(c, device).to(dtype), _t(r, device).to(dtype)
        np.testing.assert_allclose(_np(D.Gamma(ct, rt).entropy()),
                                   half_log_2pie + 0.5 * np.log(c) - np.log(r), rtol=rtol)
        np.testing.assert_allclose(_np(D.InverseGamma(ct, rt).entropy()),
                                   half_log_2pie - 1.5 * np.log(c) + np.log(r), rtol=rtol)
        np.testing.assert_allclose(_np(D.Chi2(ct).entropy()),
                                   half_log_2pie + 0.5 * np.log(2 * c), rtol=rtol)
    # Beta(a, b) and Dirichlet(alpha) (the sum of lgamma(c) - (c - 1) digamma(c) cancels the
    # same way: 0.0 for -18.04 at Beta(1e16, 1e16)) tend to the Normal of their covariance
    # on the simplex's first k - 1 coordinates
    for alpha in ([1e16, 1e16], [4.7e27, 2.2e25], [1e20, 3e20, 2e20]):
        alpha = np.array(alpha)
        m = alpha / alpha.sum()
        cov = (np.diag(m) - np.outer(m, m))[:-1, :-1] / (alpha.sum() + 1)
        want = 0.5 * (len(alpha) - 1) * math.log(2 * math.pi * math.e)
        want += 0.5 * np.linalg.slogdet(cov)[1]
        got = D.Dirichlet(_t(alpha, device)).entropy()
        np.testing.assert_allclose(_np(got), want, rtol=1e-14)
        if len(alpha) == 2:
            got = D.Beta(_t(alpha[:1], device), _t(alpha[1:], device)).entropy()
            np.testing.assert_allclose(_np(got), [want], rtol=1e-14)
    # continuous across the switch to the series (c = 100 in float64, 10 in float32), and at
    # c = 1e5 the integral of -p log p in the standard score z = (x - c) / sqrt(c)
    for dtype, cut, rtol in ((F64, 100.0, 1e-13), (pdt.float32, 10.0, 5e-6)):
        npt = np.float64 if dtype == F64 else np.float32
        ends = [cut, np.nextafter(npt(cut), npt(2 * cut))]
        h = _np(D.Gamma(_t(ends, device).to(dtype), 1.0).entropy())
        np.testing.assert_allclose(h[0], h[1], rtol=rtol)
    a = 1e5
    z = np.linspace(-14.0, 14.0, 400001)
    x = a + math.sqrt(a) * z
    lp = (a - 1) * np.log(x) - x - math.lgamma(a) + 0.5 * math.log(a)  # log density of z
    want = -np.trapezoid(np.exp(lp) * lp, z) + 0.5 * math.log(a)
    np.testing.assert_allclose(_np(D.Gamma(_t([a], device), 1.0).entropy()), [want], rtol=1e-9)


def test_student_t_entropy_at_large_df(device):
    # lgamma(df/2) - lgamma((df+1)/2) + 0.5 log df cancelled (17 off at df = 1e16): StudentT
    # tends to Normal(loc, scale), its entropy to the Normal's + 1/df + O(1/df^2) (half the
    # log of the variance ratio df / (df - 2)), and at df = 1e5 the integral of -p log p
    df = np.array([1e16, 1e30, 1e12])
    scale = np.array([1.0, 3.0, 0.01])
    for dtype, rtol in ((F64, 1e-15), (pdt.float32, 1e-6)):
        got = D.StudentT(_t(df, device).to(dtype), 0.0, _t(scale, device).to(dtype)).entropy()
        np.testing.assert_allclose(_np(got), 0.5 * math.log(2 * math.pi * math.e)
                                   + np.log(scale) + 1 / df, rtol=rtol)
    nu = 1e5
    x = np.linspace(-60.0, 60.0, 600001)
    lp = (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
          - (nu + 1) / 2 * np.log1p(x * x / nu))
    want = -np.trapezoid(np.exp(lp) * lp, x)
    np.testing.assert_allclose(_np(D.StudentT(_t([nu], device)).entropy()), [want], rtol=1e-9)
    # continuous across the switch to the series (df = 1e3 in float64, 30 in float32)
    for dtype, cut, rtol in ((F64, 1e3, 1e-12), (pdt.float32, 30.0, 1e-5)):
        npt = np.float64 if dtype == F64 else np.float32
        ends = [cut, np.nextafter(npt(cut), npt(2 * cut))]
        h = _np(D.StudentT(_t(ends, device).to(dtype)).entropy())
        np.testing.assert_allclose(h[0], h[1], rtol=rtol)
