"""pydevtensor.distributions' Pareto, Weibull, HalfCauchy and Kumaraswamy (built on
TransformedDistribution) against their closed forms in float64 (log_prob, cdf, icdf,
entropy, mean, mode, variance), their draws by a Kolmogorov-Smirnov statistic at 10^5
draws against the closed-form cdf, and rsample's gradients against central finite
differences, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
EULER = 0.57721566490153286060
_gamma = np.vectorize(math.gamma)


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


P1 = np.array([1.0, 2.0, 0.5])
P2 = np.array([3.0, 0.5, 2.5])
B_INT = np.array([3.0, 1.0, 2.0])  # Kumaraswamy's b: integers, so H_b is a finite sum


def _pareto(x, s=P1, a=P2):
    am = np.where(a > 1, a, np.nan)
    av = np.where(a > 2, a, np.nan)
    return dict(logp=np.log(a) + a * np.log(s) - (a + 1) * np.log(x), cdf=1 - (s / x) ** a,
                ent=np.log(s / a) + 1 + 1 / a,
                mean=np.nan_to_num(am * s / (am - 1), nan=np.inf), mode=s,
                var=np.nan_to_num(s ** 2 * av / ((av - 1) ** 2 * (av - 2)), nan=np.inf))


def _weibull(x, lam=P1, k=P2):
    g1, g2 = _gamma(1 + 1 / k), _gamma(1 + 2 / k)
    return dict(logp=np.log(k / lam) + (k - 1) * np.log(x / lam) - (x / lam) ** k,
                cdf=1 - np.exp(-(x / lam) ** k), ent=EULER * (1 - 1 / k) + np.log(lam / k) + 1,
                mean=lam * g1, mode=lam * ((k - 1) / k) ** (1 / k), var=lam ** 2 * (g2 - g1 ** 2))


def _half_cauchy(x, s=P1):
    return dict(logp=np.log(2 / (math.pi * s * (1 + (x / s) ** 2))),
                cdf=2 / math.pi * np.arctan(x / s), ent=np.log(2 * math.pi * s),
                mean=np.full(3, np.inf), mode=0 * s, var=np.full(3, np.inf))


def _kumaraswamy(x, a=P2, b=B_INT):
    def moment(n):
        return b * _gamma(1 + n / a) * _gamma(b) / _gamma(1 + n / a + b)
    harmonic = np.array([sum(1 / j for j in range(1, int(v) + 1)) for v in b])
    mode = ((a - 1) / (a * b - 1)) ** (1 / a)
    return dict(logp=np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x ** a),
                cdf=1 - (1 - x ** a) ** b,
                ent=(1 - 1 / b) + (1 - 1 / a) * harmonic - np.log(a * b),
                mean=moment(1), mode=np.where((a < 1) | (b < 1), np.nan, mode),
                var=moment(2) - moment(1) ** 2)


CASES = {
    "Pareto": (lambda d: D.Pareto(_t(P1, d), _t(P2, d)), np.array([1.5, 2.5, 3.0]), _pareto),
    "Weibull": (lambda d: D.Weibull(_t(P1, d), _t(P2, d)), np.array([1.5, 2.5, 0.2]),
                _weibull),
    "HalfCauchy": (lambda d: D.HalfCauchy(_t(P1, d)), np.array([1.5, 0.1, 3.0]), _half_cauchy),
    "Kumaraswamy": (lambda d: D.Kumaraswamy(_t(P2, d), _t(B_INT, d)), np.array([0.5, 0.2, 0.9]),
                    _kumaraswamy),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_closed_forms(device, name):
    make, x, forms = CASES[name]
    d = make(device)
    f = forms(x)
    assert d.has_rsample and tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == ()
    got = d.log_prob(_t(x, device))
    assert got.dtype == F64 and got.device == d.sample().device
    np.testing.assert_allclose(_np(got), f["logp"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(_t(x, device))), f["cdf"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()), f["ent"], rtol=1e-12)
    for attr, key in (("mean", "mean"), ("mode", "mode"), ("variance", "var")):
        np.testing.assert_allclose(_np(getattr(d, attr)), f[key], rtol=1e-12, err_msg=attr)
    q = np.array([0.05, 0.5, 0.9])
    np.testing.assert_allclose(_np(d.cdf(d.icdf(_t(q, device)))), q, rtol=1e-12)
    e = d.expand((4, 3))
    assert tuple(e.batch_shape) == (4, 3) and tuple(e.sample((2,)).shape) == (2, 4, 3)
    np.testing.assert_allclose(_np(e.log_prob(_t(x, device))), np.broadcast_to(f["logp"],
                                                                            (4, 3)), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_draws_by_kolmogorov_smirnov(device, name):
    """The largest gap between the empirical cdf of 10^5 draws and the closed form is
    below 1.95 / sqrt(n), the KS test's 0.1% critical value (a fixed seed)."""
    make, _, forms = CASES[name]
    pdt.manual_seed(7)
    n = 100000
    x = make(device).sample((n,))
    assert tuple(x.shape) == (n, 3) and not x.requires_grad and x.dtype == F64
    xs = np.sort(_np(x), axis=0)
    for j in range(3):
        col = xs[:, j]
        params = {k: v[j:j + 1] for k, v in _params(name).items()}
        cdf = forms(col, **params)["cdf"]
        i = np.arange(1, n + 1)
        ks = max(np.max(i / n - cdf), np.max(cdf - (i - 1) / n))
        assert ks < 1.95 / math.sqrt(n), (name, j, ks)


def _params(name):
    return {"Pareto": {"s": P1, "a": P2}, "Weibull": {"lam": P1, "k": P2},
            "HalfCauchy": {"s": P1}, "Kumaraswamy": {"a": P2, "b": B_INT}}[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rsample_gradients_against_finite_differences(device, name):
    """The same seed gives the same base draws, so d rsample / d param is the finite
    difference of two draws at param +- h."""
    cls = getattr(D, name)
    params = [P1] if name == "HalfCauchy" else ([P2, B_INT] if name == "Kumaraswamy"
                                                else [P1, P2])

    def draw(vals):
        pdt.manual_seed(5)
        return _np(cls(*[_t(v, device) for v in vals]).rsample((4,)))

    ts = [_t(v, device).requires_grad_() for v in params]
    pdt.manual_seed(5)
    cls(*ts).rsample((4,)).sum().backward()
    h = 1e-6
    for i, v in enumerate(params):
        up = [p.copy() for p in params]
        dn = [p.copy() for p in params]
        up[i], dn[i] = v + h, v - h
        fd = (draw(up) - draw(dn)).sum(0) / (2 * h)
        np.testing.assert_allclose(_np(ts[i].grad), fd, rtol=1e-5, atol=1e-7)


def test_validation_and_supports(device):
    for call in (lambda: D.Pareto(0.0, 1.0), lambda: D.Weibull(1.0, -1.0),
                 lambda: D.HalfCauchy(_t([-1.0], device)), lambda: D.Kumaraswamy(1.0, 0.0)):
        with pytest.raises(ValueError, match=r"Expected parameter .* constraint"):
            call()
    for d, bad in ((D.Pareto(2.0, 1.0), 1.5), (D.Weibull(1.0, 1.0), -1.0),
                   (D.HalfCauchy(1.0), -0.5), (D.Kumaraswamy(1.0, 2.0), 1.5)):
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(pdt.tensor(bad, dtype=F64))
    assert repr(D.Pareto(2.0, 1.0).support) == "GreaterThanEq(lower_bound=2.0)"
    assert _np(D.HalfCauchy(_t(1.0, device), validate_args=False).log_prob(
        _t(-1.0, device))).item() == -math.inf
    assert isinstance(D.Pareto(1.0, 2.0), D.TransformedDistribution)
    assert D.Weibull(1.0, 2.0).sample().dtype == pdt.float32


def test_kl_pareto_pareto_against_quadrature(device):
    """KL(p || q) = integral of p log(p / q), over x = s_p exp(t) (t from 0 to 60)."""
    sp, ap = np.array([1.0, 2.0, 1.0]), np.array([3.0, 0.5, 2.0])
    sq, aq = np.array([0.5, 1.0, 2.0]), np.array([1.5, 2.0, 2.0])
    got = _np(D.kl_divergence(D.Pareto(_t(sp, device), _t(ap, device)),
                              D.Pareto(_t(sq, device), _t(aq, device))))
    t = np.linspace(0.0, 60.0, 600001)[:, None]
    x = sp * np.exp(t)
    w = ap * np.exp(-ap * t)
    integrand = w * (_pareto(x, sp, ap)["logp"] - _pareto(x, sq, aq)["logp"])
    expect = ((integrand[1:] + integrand[:-1]) / 2 * np.diff(t, axis=0)).sum(0)
    np.testing.assert_allclose(got[:2], expect[:2], rtol=1e-6)
    assert got[2] == np.inf  # q's support starts above p's
    base = D.Normal(_t([0.0, 1.0], device), 1.0)
    other = D.Normal(_t([0.5, 0.0], device), 2.0)
    tp = D.TransformedDistribution(base, [D.ExpTransform()])
    tq = D.TransformedDistribution(other, [D.ExpTransform()])
    np.testing.assert_allclose(_np(D.kl_divergence(tp, tq)),
                               _np(D.kl_divergence(base, other)), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(tp, D.TransformedDistribution(other, [D.SoftplusTransform()]))


def test_weibull_variance_at_extreme_concentration(device):
    # Gamma(1 + 2/k) - Gamma(1 + 1/k)^2 cancelled for large k (1.1e-16 for 1.6e-18 at
    # k = 1e9) and was inf - inf = nan once Gamma(1 + 2/k) overflowed (k = 0.01: inf).
    # X = lam E^(1/k), E exponential: Var X = lam^2 (E[expm1(log(E) / k)^2] -
    # E[expm1(log(E) / k)]^2), integrated over u = log E (density exp(u - e^u))
    lam = np.array([2.0, 0.5, 3.0, 1.0])
    k = np.array([1e9, 1e5, 150.0, 4.0])
    u = np.linspace(-45.0, 4.0, 800001)
    w = np.exp(u - np.exp(u))
    want = []
    for lm, kk in zip(lam, k):
        y = np.expm1(u / kk)
        want.append(lm ** 2 * (np.trapezoid(w * y * y, u) - np.trapezoid(w * y, u) ** 2))
    got = D.Weibull(_t(lam, device), _t(k, device)).variance
    np.testing.assert_allclose(_np(got), want, rtol=1e-9)
    np.testing.assert_allclose(_np(got)[0], 4 * math.pi ** 2 / 6 * 1e-18, rtol=1e-8)
    for dtype in (F64, pdt.float32):
        got = D.Weibull(_t([1.0, 1.0], device).to(dtype), _t([0.01, 1e-3], device).to(dtype))
        assert _np(got.variance).tolist() == [np.inf, np.inf]


def test_kumaraswamy_moments_at_large_concentration1(device):
    # b B(1 + n/a, b) from lgammas cancelled for large a: the variance was 16% off at
    # a = 1e6, b = 1e3 and negative (stddev nan) at a = 1.2e17. X = (1 - U^(1/b))^(1/a):
    # with Y = log(1 - U^(1/b)) (U uniform), E[X^n] = E[exp(n Y / a)] and
    # Var X = E[expm1(Y / a)^2] - E[expm1(Y / a)]^2, integrated over U by the trapezoid rule
    # in v = log t, t = -log U (density e^(v - e^v))
    a = np.array([1e6, 1.2e17, 5e3, 2e4])
    b = np.array([1e3, 4.8e10, 3.0, 0.5])
    v = np.linspace(-60.0, 4.5, 600001)
    t = np.exp(v)
    w = np.exp(v - t)
    want_m, want_v = [], []
    for aa, bb in zip(a, b):
        y = np.log(-np.expm1(-t / bb))  # log(1 - U^(1/b)), U = e^-t
        z = np.expm1(y / aa)
        ez, ez2 = np.trapezoid(w * z, v), np.trapezoid(w * z * z, v)
        want_m.append(1 + ez)
        want_v.append(ez2 - ez * ez)
    d = D.Kumaraswamy(_t(a, device), _t(b, device))
    np.testing.assert_allclose(_np(d.mean), want_m, rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), want_v, rtol=1e-6)
    assert np.all(_np(d.stddev) > 0)



try:
    import mpmath
except ImportError:
    mpmath = None

# a from 1e-3 to 1e17 and b from 1e-3 to 1e30: b B(1 + n/a, b) from lgammas gave a mean
# of 1e20 at b = 1e20, 0.5% off at b = 1e10 for every a, a negative variance from
# b = 1e10 on (Note [lgamma steps] in pydevtensor/distributions/_lgamma_steps.py)
KUMA_A = [1e-3, 1e-2, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0, 1e3, 1e4, 1e6, 1e17]
KUMA_B = [1e-3, 0.1, 0.5, 1.0, 10.0, 1e3, 1e6, 1e10, 1e15, 1e20, 1e30]


@pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")
def test_kumaraswamy_moments_at_extreme_parameters_against_mpmath():
    # log E[X^n] = lgamma(1 + b) + lgamma(1 + n/a) - lgamma(1 + b + n/a) at 150 digits
    # (the lgammas reach 7e31). Bounds, relative and scaled by max(1, |log E[X^n]|) (the
    # exp's own conditioning): mean 2e-15; variance 1e-12 (E[X]^2 expm1(L), L cancelling
    # by a factor up to 1/b when b < 1: 2e-13 measured at b = 1e-3)
    mp = mpmath.mp.clone()
    mp.dps = 150
    a, b = (x.ravel() for x in np.meshgrid(KUMA_A, KUMA_B))
    d = D.Kumaraswamy(_t(a), _t(b))
    mean, var = _np(d.mean), _np(d.variance)
    for i, (ai, bi) in enumerate(zip(a, b)):
        am, bm = mp.mpf(ai), mp.mpf(bi)
        l1, l2 = (mp.loggamma(1 + bm) + mp.loggamma(1 + n / am) - mp.loggamma(1 + bm + n / am)
                  for n in (1, 2))
        m1 = mp.exp(l1)
        v = mp.exp(l2) - m1 * m1
        for got, want, log_want, tol in ((mean[i], m1, l1, 2e-15), (var[i], v, l2, 1e-12)):
            if float(want) < 1e-290:  # below float64's normal numbers: underflows
                assert got < 1e-280, (ai, bi)
                continue
            err = float(abs(mp.mpf(float(got)) - want) / want) / max(1.0, abs(float(log_want)))
            assert err < tol, (ai, bi, float(got), float(want))


def test_kumaraswamy_moments_at_extreme_parameters(device):
    # On every device, against quadrature: X = exp(Y / a), Y = log(1 - U^(1/b)) =
    # log(-expm1(-t / b)), U = e^-t, integrated by the trapezoid rule in v = log t
    # (density w = e^(v - e^v)): log E[X] = c + log1p(E[expm1(Y / a - c)]), c = Y / a where
    # X w peaks, and Var X = E[X]^2 E[expm1(Y / a - log E[X])^2], so that nothing cancels.
    # Bounds (the trapezoid sums' own error): 1e-13 on log E[X] and 1e-11 on log Var X,
    # scaled by max(1, |log E[X]|)
    v = np.linspace(-60.0, 8.5, 700001)
    t = np.exp(v)
    w, root_w = np.exp(v - t), np.exp((v - t) / 2)
    a, b = (x.ravel() for x in np.meshgrid([1e-2, 0.5, 3.0, 100.0, 1e4, 1e17],
                                             [1e-3, 0.5, 1e6, 1e15, 1e20, 1e30]))
    d = D.Kumaraswamy(_t(a, device), _t(b, device))
    mean, var = _np(d.mean), _np(d.variance)
    for i, (ai, bi) in enumerate(zip(a, b)):
        ya = np.log(-np.expm1(-t / bi)) / ai
        c = ya[np.argmax(ya + v - t)]
        log_m = c + math.log1p(np.trapezoid(w * np.expm1(ya - c), v))
        log_var = 2 * log_m + math.log(np.trapezoid((root_w * np.expm1(ya - log_m)) ** 2, v))
        scale = max(1.0, abs(log_m))
        for got, want, tol in ((mean[i], log_m, 1e-13), (var[i], log_var, 1e-11)):
            if want < -700:  # underflows
                assert got < 1e-300, (ai, bi, got, want)
            else:
                assert abs(math.log(got) - want) < tol * scale, (ai, bi, got, want)
    # float32: computed in float64 and rounded once
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    d32 = D.Kumaraswamy(_t(a32, device).float(), _t(b32, device).float())
    d64 = D.Kumaraswamy(_t(a32.astype(np.float64), device), _t(b32.astype(np.float64), device))
    for got, want in ((d32.mean, d64.mean), (d32.variance, d64.variance)):
        assert got.dtype == pdt.float32
        assert np.array_equal(_np(got), _np(want).astype(np.float32))
