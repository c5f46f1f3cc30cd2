"""Poisson's, Gamma's, Binomial's, StudentT's, VonMises' and FisherSnedecor's log_prob at
huge parameters (Note [Loader's Poisson density] in pydevtensor/distributions/_loader.py, Note
[lgamma steps] in _lgamma_steps.py): k log(rate) - rate - lgamma(k + 1) cancelled to -8
for -18.1 at rate = k = 1e15 and to 0 from 1e17 on; Gamma's was 0 at c = 1e50 and
+8.7e186 at c = 1e200 (the others': see their tests below).

References: mpmath at 400 digits where it is installed (not a test dependency: skipped
without it); on every device the closed forms
  log p(k; rate) = -stirlerr(k) - log(2 pi k) / 2 - bd0(k, rate),
  stirlerr(k) = 1/(12k) - 1/(360k^3) + 1/(1260k^5) (the rest below 1e-30 for k >= 1e6),
  bd0(k, k + d) = k (t - log1p(t)) = k sum_{j >= 2} (-t)^j / j, t = d / k (|t| <= 1e-2
  here: ten terms),
and Gamma(c, r)'s log p(x) = log r + log p(c - 1; r x), with r a power of two (r x exact).
Bound: 4 eps max(1, |log p|) for those, 8 eps against mpmath (measured: 1.4e-15 at k =
1.5 rate, where bd0 = k log(k / rate) + rate - k cancels by a factor of 4).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

try:
    import mpmath
except ImportError:
    mpmath = None

F64 = pdt.float64
EPS = 2.0 ** -52


def _t(x, device="cpu"):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _closed_form(k, d):
    """log p(k; k + d) for k >= 1e6 (module docstring)."""
    u = 1 / k
    stirlerr = u / 12 * (1 - u * u / 30 + u ** 4 / 105)
    t = d / k
    bd0 = k * math.fsum((-t) ** j / j for j in range(2, 12))
    return -stirlerr - 0.5 * math.log(2 * math.pi * k) - bd0


# k (integer-valued floats, >= 1e6) and the offsets d, rate = k + d; d is taken as
# fl(k + d) - k (exact), the offset the float64 rate has: past k = 1e40 the nearest ones
# are the rate's ulps (2^114 at 1e50: log p = -2.3e18)
CASES = [(k, (k + d) - k) for k, d in (
    (1e6, 0.0), (1e6, 3e3), (2.0 ** 50, 0.0), (2.0 ** 50, -2.0 ** 26), (1e15, 0.0),
    (1e15, 4e7), (1e17, 0.0), (1e17, 1e9), (1e20, 0.0), (1e20, -2e10), (1e50, 0.0),
    (1e50, 3 * 2.0 ** 114), (1e100, 0.0), (1e200, 0.0), (1e300, 0.0),
    (1e300, math.ulp(1e300)))]


def _check(got, want):
    for g, w in zip(got, want):
        assert abs(g - w) <= 4 * EPS * max(1.0, abs(w)), (g, w)


def test_poisson_log_prob_at_huge_rate(device):
    k, d = (np.array(x) for x in zip(*CASES))
    got = D.Poisson(_t(k + d, device)).log_prob(_t(k, device))
    _check(got.cpu().numpy(), [_closed_form(a, b) for a, b in CASES])


def test_gamma_log_prob_at_huge_concentration(device):
    # c = k + 1, x = (k + d) / r: log p = log r + log p(k; k + d); r = 2^-10 and 2^7
    k, d = (np.array(x) for x in zip(*CASES))
    for r in (2.0 ** -10, 2.0 ** 7):
        got = D.Gamma(_t(k + 1, device), r).log_prob(_t((k + d) / r, device))
        _check(got.cpu().numpy(), [math.log(r) + _closed_form(a, b) for a, b in CASES])
    # float32 up to its range: the float64 value rounded, within 4 float32 eps
    for dist, value in ((D.Poisson(_t([1e6, 1e30], device).float()), [1e6, 1e30]),
                        (D.Gamma(_t([1e6 + 1, 1e30], device).float(), 1.0), [1e6, 1e30])):
        value = _t(value, device).float()
        got = dist.log_prob(value)
        want = type(dist)(*(getattr(dist, n).double() for n in dist.arg_constraints))
        want = want.log_prob(value.double())
        assert got.dtype == pdt.float32
        np.testing.assert_allclose(got.cpu().numpy(), want.cpu().numpy(), rtol=4 * 2.0 ** -23)


def test_log_prob_gradients_at_huge_parameters(device):
    # d/drate = k / rate - 1; Gamma: d/dc = log(r x) - digamma(c), d/dr = c / r - x,
    # d/dx = (c - 1) / x - r (c = 1 included: the form for c <= 1 keeps c's gradient)
    rate = _t([3.0, 1e10, 1e20], device).requires_grad_()
    k = np.array([4.0, 1e10 + 5e5, 1e20])
    D.Poisson(rate).log_prob(_t(k, device)).sum().backward()
    np.testing.assert_allclose(rate.grad.cpu().numpy(), k / np.array([3.0, 1e10, 1e20]) - 1,
                               rtol=1e-12, atol=1e-12)
    c = np.array([0.3, 1.0, 2.5, 1e12])
    r = np.array([2.0, 0.5, 1.0, 0.25])
    x = np.array([0.1, 2.0, 2.5, 4.00004e12])
    ct, rt, xt = (_t(v, device).requires_grad_() for v in (c, r, x))
    D.Gamma(ct, rt).log_prob(xt).sum().backward()
    digamma = _t(c).digamma().numpy()
    np.testing.assert_allclose(ct.grad.cpu().numpy(), np.log(r * x) - digamma, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(rt.grad.cpu().numpy(), c / r - x, rtol=1e-9)
    np.testing.assert_allclose(xt.grad.cpu().numpy(), (c - 1) / x - r, rtol=1e-9, atol=1e-12)


def test_log_prob_gradients_at_tiny_parameters(device):
    # Loader's forms' gradients where rate, r x or n p is tiny: through k / rate they went
    # via -k / rate^2 (inf, or nan in a where's other branch) and through Dekker's product
    # (nan); Binomial's k = 0, n at p = 0, 1 took the other pole's 0 * inf; logits past
    # +-745 made p 0 and the value -inf.  Closed forms: Poisson d/drate = k / rate - 1;
    # Gamma d/dr = c / r - x; Binomial(n, p) d/dp = k / p - (n - k) / (1 - p), log p =
    # log C(n, k) + k logit - n softplus(logit), d/dlogit = k - n sigmoid(logit)
    rate = np.array([1e-200, 1e-303, 0.5])
    rt = _t(rate, device).requires_grad_()
    D.Poisson(rt).log_prob(_t([5.0, 5.0, 5.0], device)).sum().backward()
    np.testing.assert_allclose(rt.grad.cpu().numpy(), 5 / rate - 1, rtol=4 * EPS)
    c, r, x = np.array([2.0, 1e-3, 3.0]), np.array([1.0, 1.0, 2.0]), np.array([1e-300, 1e-300,
                                                                              1e-320])
    ct, rt = _t(c, device).requires_grad_(), _t(r, device).requires_grad_()
    D.Gamma(ct, rt).log_prob(_t(x, device)).sum().backward()
    np.testing.assert_allclose(rt.grad.cpu().numpy(), c / r - x, rtol=4 * EPS)
    p = np.array([0.0, 1.0, 1e-300, 0.25])
    k = np.array([0.0, 10.0, 5.0, 0.0])
    pt = _t(p, device).requires_grad_()
    lp = D.Binomial(10, probs=pt).log_prob(_t(k, device))
    lp.sum().backward()
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(k > 0, k / p, 0) - np.where(k < 10, (10 - k) / (1 - p), 0)
    np.testing.assert_allclose(pt.grad.cpu().numpy(), want, rtol=4 * EPS)
    np.testing.assert_allclose(lp.detach().cpu().numpy()[:2], [0.0, 0.0], atol=0)
    # the same edges with integer counts (their lgammas are float32): exactly 0 still
    lp = D.Binomial(pdt.tensor([10, 10], device=device), probs=pt[:2]).log_prob(
        pdt.tensor([0, 10], device=device))
    np.testing.assert_allclose(lp.detach().cpu().numpy(), [0.0, 0.0], atol=0)
    logit = np.array([-800.0, -745.0, -700.0, 800.0])
    lt = _t(logit, device).requires_grad_()
    lp = D.Binomial(10, logits=lt).log_prob(_t([5.0] * 4, device))
    lp.sum().backward()
    softplus = np.maximum(logit, 0) + np.log1p(np.exp(-np.abs(logit)))
    np.testing.assert_allclose(lp.detach().cpu().numpy(),
                               math.log(252) + 5 * logit - 10 * softplus, rtol=4 * EPS)
    np.testing.assert_allclose(lt.grad.cpu().numpy(), 5 - 5 * (1 + np.tanh(logit / 2)),
                               rtol=4 * EPS)


@pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")
def test_log_prob_at_extreme_parameters_against_mpmath():
    mp = mpmath.mp.clone()
    mp.dps = 400
    rows = []
    for rate in (1e-3, 0.5, 2.0, 10.0, 100.0, 1e4, 1e8, 1e15, 1e20, 1e50, 1e100, 1e300):
        s = math.sqrt(rate)
        rows += [(float(k), rate) for k in {0.0, 1.0, 3.0, math.floor(rate), math.floor(rate + s),
                                             math.floor(max(rate - 3 * s, 0.0)),
                                             math.floor(1.5 * rate), math.floor(0.3 * rate)}]
    k, rate = (np.array(x) for x in zip(*rows))
    got = D.Poisson(_t(rate)).log_prob(_t(k)).numpy()
    for g, kk, lam in zip(got, k, rate):
        want = mp.mpf(kk) * mp.log(lam) - lam - mp.loggamma(mp.mpf(kk) + 1)
        assert abs(g - want) <= 8 * EPS * max(1, abs(want)), (kk, lam, g, float(want))
    rows = []
    for c in (1e-3, 0.3, 1.0, 1.5, 3.0, 100.0, 1e10, 1e15, 1e50, 1e100, 1e300):
        for r in (1e-3, 7.0):
            m = c / r
            rows += [(x, c, r) for x in (m, np.nextafter(m, np.inf), m * (1 + 1 / math.sqrt(c)),
                                         m * 3) if x < 1e307]
    x, c, r = (np.array(v) for v in zip(*rows))
    got = D.Gamma(_t(c), _t(r)).log_prob(_t(x)).numpy()
    for g, xx, cc, rr in zip(got, x, c, r):
        xx, cc, rr = mp.mpf(xx), mp.mpf(cc), mp.mpf(rr)
        want = cc * mp.log(rr) + (cc - 1) * mp.log(xx) - rr * xx - mp.loggamma(cc)
        assert abs(g - want) <= 8 * EPS * max(1, abs(want)), (xx, cc, rr, g, float(want))


def test_student_t_log_prob_at_large_df(device):
    # log p(y) = -log(2 pi)/2 - log(scale) + g(df/2) - (df + 1)/2 log1p(y^2 / df), with
    # g(x) = lgamma(x + 1/2) - lgamma(x) - log(x)/2 = -1/(8x) + 1/(192x^3) (the next term,
    # -1/(640x^5), below 1e-30 from df = 1e6). lgamma((df + 1)/2) - lgamma(df/2) gave -0.0
    # for -0.919 at df = 1e20 and was 7e-6 off at df = 1e10 (as PyTorch's)
    df = np.array([1e6, 1e10, 1e15, 1e20, 1e100, 1e300])
    y = np.array([0.0, 3.0, 1e5])
    scale = 0.25
    got = D.StudentT(_t(df, device)[:, None], 1.0, scale).log_prob(_t(1.0 + scale * y, device))
    want = []
    for nu in df:
        x = nu / 2
        g = -1 / (8 * x) * (1 - 1 / (24 * x) / x)
        want.append([-0.5 * math.log(2 * math.pi) - math.log(scale) + g
                     - (nu + 1) / 2 * math.log1p(v * v / nu) for v in y])
    _check(got.cpu().numpy().ravel(), np.array(want).ravel())


@pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")
def test_student_t_log_prob_against_mpmath():
    # df from 1e-3 to 1e300 (mpmath at 700 digits: the lgammas reach 3e302); within 4 eps
    # max(1, |log p|) (1.6 measured)
    mp = mpmath.mp.clone()
    mp.dps = 700
    df = [1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 7.5, 10.0, 31.0, 100.0, 1e3, 1e5, 1e10, 1e15,
          1e20, 1e100, 1e300]
    y = [0.0, 0.5, 3.0, 1e5, 1e150]
    got = D.StudentT(_t(df)[:, None]).log_prob(_t(y)).numpy()
    for i, nu in enumerate(df):
        n = mp.mpf(nu)
        for j, v in enumerate(y):
            want = (mp.loggamma((n + 1) / 2) - mp.loggamma(n / 2) - mp.log(n * mp.pi) / 2
                    - (n + 1) / 2 * mp.log1p(mp.mpf(v) ** 2 / n))
            assert abs(got[i, j] - want) <= 4 * EPS * max(1, abs(want)), (nu, v, got[i, j])


def test_von_mises_log_prob_at_large_concentration(device):
    # log p(loc + d) = -2k sin^2(d/2) - log(2 pi) - log(i0e(k)), i0e(k) = (2 pi k)^-1/2 (1 +
    # 1/(8k) + 9/(128k^2) + ...) (the next term below 1e-31 from k = 1e10). k cos d -
    # log I0(k) subtracted two terms of size k: 16.375 for 16.350 at k = 1e15
    k = np.array([1e10, 1e15, 1e20, 1e100])
    d = np.array([0.0, 1e-8, 1e-3, 3.0])
    got = D.VonMises(_t(0.5, device), _t(k, device)[:, None]).log_prob(_t(0.5 + d, device))
    want = [[-2 * kk * math.sin(v / 2) ** 2 - math.log(2 * math.pi)
             + 0.5 * math.log(2 * math.pi * kk) - math.log1p(1 / (8 * kk) * (1 + 9 / (16 * kk)))
             for v in (0.5 + d) - 0.5] for kk in k]
    _check(got.cpu().numpy().ravel(), np.array(want).ravel())


def test_fisher_snedecor_log_prob_at_large_df2(device):
    # d1 F(d1, d2) tends to chi2(d1), 1/d2 from it: at d2 >= 1e20 log p(x) = log d1 +
    # (d1/2 - 1) log(d1 x) - d1 x / 2 - (d1/2) log 2 - lgamma(d1/2) in float64. The
    # normalizer's terms of size d2 log d2 gave -68.9 for -0.77 at (3, 1e20), as PyTorch's
    x = np.array([0.5, 1.0, 3.0])
    for d1 in (0.5, 3.0, 10.0):
        for d2 in (1e20, 1e100, 1e300):
            got = D.FisherSnedecor(_t(d1, device), _t(d2, device)).log_prob(_t(x, device))
            for g, v in zip(got.cpu().numpy(), x):
                terms = [math.log(d1), (d1 / 2 - 1) * math.log(d1 * v), -d1 * v / 2,
                         -d1 / 2 * math.log(2), -math.lgamma(d1 / 2)]
                # within 4 eps of the terms' sizes (they cancel: 12 eps of -0.13 at d1 = 10)
                assert abs(g - math.fsum(terms)) <= 4 * EPS * sum(map(abs, terms)), (d1, d2, v)


def test_binomial_log_prob_at_huge_total_count(device):
    # C(2m, m) / 4^m = (pi m)^-1/2 (1 - 1/(8m) + 1/(128m^2) - ...) (the next term below
    # 1e-19 from m = 5e5); and k = 0, n from p itself: n log1p(-p), n log p. lgammas of
    # size n log n gave -20 for -17.5 at n = 1e15, and the logits' clamp -3.6e5 for -6.9e6
    # at n = 1e4, p = 1e-300 (both as PyTorch's)
    n = np.array([1e6, 2.0 ** 50, 1e20, 1e100, 1e300])
    got = D.Binomial(_t(n, device), probs=_t(0.5, device)).log_prob(_t(n / 2, device))
    _check(got.cpu().numpy(), [-0.5 * math.log(math.pi * m) + math.log1p(
        -1 / (8 * m) * (1 - 1 / (16 * m))) for m in n / 2])
    for p in (1e-300, 1e-10, 0.3, 1 - 1e-12):
        d = D.Binomial(_t([1e4, 1e4], device), probs=_t(p, device))
        _check(d.log_prob(_t([0.0, 1e4], device)).cpu().numpy(),
               [1e4 * math.log1p(-p), 1e4 * math.log(p)])


@pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")
def test_binomial_log_prob_against_mpmath():
    # n 1..1e300, p 1e-300..1 - 1e-12, k at 0, 1, n, the mean, a deviation above, three
    # below, 0.7 n: within 8 eps max(1, |log p|) (5.4 measured)
    mp = mpmath.mp.clone()
    mp.dps = 400
    rows = []
    for n in (1.0, 5.0, 30.0, 100.0, 1e4, 1e8, 1e15, 1e20, 1e100, 1e300):
        for p in (1e-300, 1e-15, 1e-3, 0.3, 0.5, 0.9, 1 - 1e-12):
            m, s = n * p, math.sqrt(n * p * (1 - p))
            ks = {0.0, n, 1.0, float(math.floor(m)), float(math.floor(m + s)),
                  float(math.floor(max(m - 3 * s, 0.0))), float(math.floor(0.7 * n))}
            rows += [(n, p, k) for k in ks if k <= n]
    n, p, k = (np.array(v) for v in zip(*rows))
    got = D.Binomial(_t(n), probs=_t(p)).log_prob(_t(k)).numpy()
    for g, nn, pp, kk in zip(got, n, p, k):
        nn, pp, kk = mp.mpf(nn), mp.mpf(pp), mp.mpf(kk)
        want = (mp.loggamma(nn + 1) - mp.loggamma(kk + 1) - mp.loggamma(nn - kk + 1)
                + kk * mp.log(pp) + (nn - kk) * mp.log1p(-pp))
        assert abs(g - want) <= 8 * EPS * max(1, abs(want)), (nn, pp, kk, g, float(want))
