"""Beta's, Dirichlet's, NegativeBinomial's and FisherSnedecor's log_prob at huge parameters
(Loader's form, Note [Loader's Poisson density] in pydevtensor/distributions/_loader.py):
their lgammas of size c log c cancelled (Beta(1e15, 1e15) at 1/2 gave 24.0 for 17.39, 0.0
for 19.69 at 1e17 and 1.7e187 for 230.4 at 1e200; NegativeBinomial(r, 1/2) at r -10.5 for
-18.53 at r = 1e15; F(1e15, 1e20) 15.25 for 16.0039 at x = 1; all as PyTorch's).

References, in float64 NumPy, from exact identities:
  lgamma(x + 1/2) - lgamma(x) = log(x) / 2 - 1/(8x) + 1/(192x^3) (the next term below
    1e-30 from x = 1e6) with the duplication formula give
    Beta(m, m) at 1/2:  log 2 - log(pi) / 2 + log(m) / 2 + g(m),  g(x) = -1/(8x) + 1/(192x^3),
    and at 1/2 + d the same plus (m - 1) log1p(-4 d^2);
    Dirichlet(m, m, 2m) at (1/4, 1/4, 1/2):  3 log 2 - log pi + log(2 m^2) / 2 + g(m) + g(2m);
    NegativeBinomial(m, 1/2) at m:  -log 2 - log(pi) / 2 - log(m) / 2 + g(m);
    F(2m, 2m) at 1:  log(m / pi) / 2 - log 2 + g(m);
  Beta(a, b)(x) = (a + b - 1) Binomial(a + b - 2, x)(a - 1) and NegativeBinomial(r, p)(k)
  = r / (r + k) Binomial(r + k, 1 - p)(k) (Binomial's own huge-count tests hold it to 8
  eps of mpmath), and F(d1, d2)(x) = Beta(d1 / 2, d2 / 2)(y) y (1 - y) / x, y = d1 x /
  (d1 x + d2), at x, d1, d2 where y is exact.
Bound: 4 eps max(1, |log p|) for the closed forms, 16 eps for the identities (two forms,
each within 8).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
EPS = 2.0 ** -52
HUGE = np.array([1e6, 2.0 ** 50, 1e15, 1e17, 1e20, 1e50, 1e100, 1e200])


def _t(x, device="cpu"):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _g(x):
    return -1 / (8 * x) * (1 - 1 / (24 * x) / x)


def _check(got, want, bound=4):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    np.testing.assert_array_less(np.abs(got - want),
                                 bound * EPS * np.maximum(1.0, np.abs(want)) + 1e-300)


def test_beta_and_dirichlet_log_prob_at_huge_concentration(device):
    m = HUGE
    got = D.Beta(_t(m, device), _t(m, device)).log_prob(_t(0.5, device))
    at_half = math.log(2) - 0.5 * math.log(math.pi) + 0.5 * np.log(m) + _g(m)
    _check(got.cpu().numpy(), at_half)
    # off the mode: d = 2^-j exact, 1/2 + d too; log p(1/2 + d) - log p(1/2)
    for d in (2.0 ** -10, 2.0 ** -26, 2.0 ** -40, -(2.0 ** -30)):
        got = D.Beta(_t(m, device), _t(m, device)).log_prob(_t(0.5 + d, device))
        _check(got.cpu().numpy(), at_half + (m - 1) * np.log1p(-4 * d * d))
    c = np.stack([m, m, 2 * m], -1)
    got = D.Dirichlet(_t(c, device)).log_prob(_t([0.25, 0.25, 0.5], device))
    _check(got.cpu().numpy(), 3 * math.log(2) - math.log(math.pi) + 0.5 * math.log(2) + np.log(m)
           + _g(m) + _g(2 * m))
    # the two-category Dirichlet is Beta's density
    got = D.Dirichlet(_t(np.stack([m, m], -1), device)).log_prob(_t([0.5, 0.5], device))
    _check(got.cpu().numpy(), at_half)


def test_beta_log_prob_at_huge_concentration_is_the_binomials(device):
    # a - 1 successes of a + b - 2 trials, a != b, x near and away from the mean; x = 1e-3
    # is not exact: the binomial's 1 - x is formed from it as Beta's is
    rows = [(a, b, x) for a, b in ((1e6 + 1, 3e6 + 1), (2.0 ** 52 + 1, 2.0 ** 50 + 1),
                                   (1e17, 3e17), (1e20, 1e20 + 2.0 ** 20), (4.0, 1e15),
                                   (1e15, 30.0))
            for x in (a / (a + b), 0.25, 1e-3)]
    a, b, x = (np.array(v) for v in zip(*rows))
    got = D.Beta(_t(a, device), _t(b, device)).log_prob(_t(x, device)).cpu().numpy()
    n = _t(a + b - 2, device)
    binom = D.Binomial(n, probs=_t(x, device), validate_args=False).log_prob(_t(a - 1, device))
    _check(got, np.log(a + b - 1) + binom.cpu().numpy(), 16)


def test_negative_binomial_log_prob_at_huge_total_count(device):
    m = HUGE
    for d in (D.NegativeBinomial(_t(m, device), probs=_t(0.5, device)),
              D.NegativeBinomial(_t(m, device), logits=_t(0.0, device))):
        _check(d.log_prob(_t(m, device)).cpu().numpy(),
               -math.log(2) - 0.5 * math.log(math.pi) - 0.5 * np.log(m) + _g(m))
    # k successes before r failures: r / (r + k) Binomial(r + k, 1 - p)(k), 1 - p exact
    rows = [(r, p, k) for r in (1e6, 1e15, 2.0 ** 60, 1e20)
            for p in (0.25, 0.75, 2.0 ** -20)
            for k in (float(math.floor(r * p / (1 - p))),
                      float(math.floor(r * p / (1 - p) * 1.01)), 17.0)]
    rows = [(r, p, k) for r, p, k in rows if int(r) + int(k) == int(r + k)]  # r + k exact
    r, p, k = (np.array(v) for v in zip(*rows))
    got = D.NegativeBinomial(_t(r, device), probs=_t(p, device)).log_prob(_t(k, device))
    binom = D.Binomial(_t(r + k, device), probs=_t(1 - p, device)).log_prob(_t(r, device))
    _check(got.cpu().numpy(), np.log(r / (r + k)) + binom.cpu().numpy(), 16)


def test_negative_binomial_log_prob_uses_probs_unclamped(device):
    # k = 0: r log(1 - p); the logits' clamp of p to [eps, 1 - eps] gave -2.2e-16 r for
    # -1e-20 r at p = 1e-20 (as PyTorch's)
    p = np.array([1e-20, 1e-300, 0.3])
    got = D.NegativeBinomial(_t(1e3, device), probs=_t(p, device)).log_prob(_t(0.0, device))
    _check(got.cpu().numpy(), 1e3 * np.log1p(-p))
    got = D.NegativeBinomial(_t(2.0, device), probs=_t(p, device)).log_prob(_t(3.0, device))
    _check(got.cpu().numpy(), np.log(4.0) + 3 * np.log(p) + 2 * np.log1p(-p))


def test_fisher_snedecor_log_prob_with_both_df_large(device):
    m = HUGE
    got = D.FisherSnedecor(_t(2 * m, device), _t(2 * m, device)).log_prob(_t(1.0, device))
    _check(got.cpu().numpy(), 0.5 * np.log(m / math.pi) - math.log(2) + _g(m))
    # y = d1 x / (d1 x + d2) exact: d1 x = s, d2 = 3 s (y = 1/4) and d2 = s (y = 1/2)
    rows = [(d1, s / x, x, s) for s in (2.0 ** 40, 2.0 ** 60, 2.0 ** 70, 2.0 ** 340)
            for x in (1.0, 0.5, 2.0 ** -12, 8.0) for d1 in (s / x, 3 * s / x)]
    d1, d2, x, s = (np.array(v) for v in zip(*rows))
    d2 = np.where(d1 * x == s, 3 * s, s)
    y = d1 * x / (d1 * x + d2)
    got = D.FisherSnedecor(_t(d1, device), _t(d2, device)).log_prob(_t(x, device))
    beta = D.Beta(_t(d1 / 2, device), _t(d2 / 2, device)).log_prob(_t(y, device))
    _check(got.cpu().numpy(), beta.cpu().numpy() + np.log(y * (1 - y) / x), 16)


def test_huge_parameters_in_float32(device):
    # as accurate as float32 allows: the float64 value at the same float32 inputs, within
    # 8 float32 eps max(1, |log p|) (6.8 measured, F(20, 30) at 1.2; the lgammas' form
    # was 36 there and 8e31 at Beta(1e30, 1e30))
    a = np.array([1e6, 1e15, 1e30, 20.0, 3e5])
    b = np.array([1e6, 2e15, 1e30, 30.0, 1e7])
    x = np.array([0.5, 0.3, 0.5, 0.4, 0.03])
    for make, args, value in (
            (D.Beta, (a, b), x),
            (D.NegativeBinomial, (a, b / (a + b)), np.floor(b)),
            (D.FisherSnedecor, (a, b), x * 3)):
        f32 = [_t(v, device).float() for v in args]
        value32 = _t(value, device).float()
        got = make(*f32).log_prob(value32)
        want = make(*(v.double() for v in f32)).log_prob(value32.double()).cpu().numpy()
        assert got.dtype == pdt.float32
        np.testing.assert_array_less(np.abs(got.cpu().numpy() - want),
                                     8 * 2.0 ** -23 * np.maximum(1.0, np.abs(want)))


def test_log_prob_gradients_at_huge_parameters_stay_finite_and_right(device):
    # Beta d/dx = (a - 1) / x - (b - 1) / (1 - x); NegativeBinomial d/dp = k / p - r / (1
    # - p); F d/dx = (a1 - 1) / x - (a1 + a2) (a1 / a2) / (1 + (a1 / a2) x), a_j = d_j / 2
    a, b, x = np.array([20.0, 1e15, 3e17]), np.array([30.0, 1e15, 1e17]), np.array(
        [0.3, 0.5 + 2.0 ** -30, 0.74])
    xt = _t(x, device).requires_grad_()
    D.Beta(_t(a, device), _t(b, device)).log_prob(xt).sum().backward()
    np.testing.assert_allclose(xt.grad.cpu().numpy(), (a - 1) / x - (b - 1) / (1 - x),
                               rtol=1e-9)
    r, p, k = np.array([20.0, 1e15]), np.array([0.3, 0.5]), np.array([13.0, 1e15 + 1e7])
    pt = _t(p, device).requires_grad_()
    D.NegativeBinomial(_t(r, device), probs=pt).log_prob(_t(k, device)).sum().backward()
    np.testing.assert_allclose(pt.grad.cpu().numpy(), k / p - r / (1 - p), rtol=1e-9)
    d1, d2, x = np.array([20.0, 1e15]), np.array([30.0, 1e20]), np.array([0.7, 1.01])
    xt = _t(x, device).requires_grad_()
    D.FisherSnedecor(_t(d1, device), _t(d2, device)).log_prob(xt).sum().backward()
    a1, ratio = d1 / 2, d1 / d2
    np.testing.assert_allclose(xt.grad.cpu().numpy(),
                               (a1 - 1) / x - (d1 + d2) / 2 * ratio / (1 + ratio * x),
                               rtol=1e-9)


def test_dirichlet_of_one_category(device):
    # event size 1 (a point mass at 1): log_prob 0 there and d/dx = (c - 1) / x, as the
    # lgamma form; Loader's form (from c = 10) raised AttributeError: sum_error's error
    # of a one-term sum was the float 0.0
    c = pdt.tensor([[20.0], [3.0], [1e6]], dtype=F64, device=device, requires_grad=True)
    x = pdt.tensor([[1.0], [1.0], [1.0]], dtype=F64, device=device, requires_grad=True)
    lp = D.Dirichlet(c).log_prob(x)
    np.testing.assert_array_equal(lp.detach().cpu().numpy(), [0.0, 0.0, 0.0])
    gc, gx = pdt.autograd.grad(lp.sum(), (c, x))
    np.testing.assert_array_equal(gc.cpu().numpy(), np.zeros((3, 1)))
    np.testing.assert_allclose(gx.cpu().numpy(), [[19.0], [2.0], [999999.0]], rtol=4 * EPS)


@pytest.mark.parametrize("kd,ld", [(0, 0), (0, 1), (1, 0), (1, 1)])
@pytest.mark.parametrize("value_dtype", [pdt.int64, pdt.bfloat16, pdt.float32, pdt.float64])
@pytest.mark.parametrize("param_dtype", [pdt.float32, pdt.float64])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_binomial_log_prob_dtype_is_its_naive_forms(device, kd, ld, value_dtype, param_dtype,
                                                     given):
    """Binomial's log_prob has the dtype of PyTorch's form k logits - lgamma(k + 1) -
    lgamma(n - k + 1) - n softplus(logits) (promotion of value and parameter, 0-d ones
    included, an integer value's lgamma in the default dtype), which its Loader's and
    naive forms are computed in (0-d logits of a wider dtype than a value with
    dimensions made the result theirs: float64 for float32 and bfloat16 values).  The
    values against NumPy's float64 (math.lgamma) to 32 eps of that dtype or the
    parameter's, if wider (the naive form's logsigmoid is in the logits' dtype),
    relative, or absolute below 1."""
    ps = np.array([0.3, 0.05, 0.5, 0.9])[: 4 if ld else 1]
    ks = np.array([2.0, 0.0, 7.0, 10.0])[: 4 if kd else 1]
    p = pdt.tensor(ps if ld else ps[0], dtype=param_dtype, device=device)
    k = pdt.tensor(ks if kd else ks[0], dtype=value_dtype, device=device)
    d = D.Binomial(10, probs=p) if given == "probs" else D.Binomial(10, logits=p.logit())
    n, logits = d.total_count, d.logits
    expected = (k * logits - (k + 1).lgamma() - (n - k + 1).lgamma() - n * logits).dtype
    got = d.log_prob(k)
    assert got.dtype == expected
    p64 = pdt.to_numpy((d.probs if given == "probs" else d.logits.sigmoid()).double())
    k64 = np.broadcast_to(ks if kd else ks[0], np.broadcast(p64, ks if kd else ks[0]).shape)
    lg = np.vectorize(math.lgamma)
    ref = (lg(11.0) - lg(k64 + 1) - lg(11.0 - k64) + k64 * np.log(p64)
           + (10 - k64) * np.log1p(-p64))
    eps = max(pdt.finfo(expected).eps, pdt.finfo(param_dtype).eps)  # log q from logits
    tol = 32 * eps * np.maximum(1.0, np.abs(ref))
    assert np.all(np.abs(pdt.to_numpy(got.double()) - ref) <= tol)
