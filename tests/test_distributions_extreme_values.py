"""Weibull's and Kumaraswamy's log_prob at extreme but finite values (closed forms instead
of the transforms' powers, which under- or overflowed: Weibull(1, 100) at 1e-4 gave -inf
for -907, Kumaraswamy(0.5, 2) at 1e-300 -inf for +345.4, Kumaraswamy(1, 2) at 0 nan for
log 2; all as PyTorch's); Pareto's cdf near its scale (x / scale's rounding was all of
log(x / scale): 6% off at scale (1 + 1e-15)) and Binomial's entropy at probs 0 and 1 (nan
for 0).

References: float64 NumPy at points where the powers are exact (x = 2^-j and x^a = 2^-m)
or through log1p/expm1 of exact values; bound 4 eps max(1, |log p|) (the points where
the old form merely rounded worse: 3957 eps at Kumaraswamy(200, 1e5) at 0.9).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
EPS = 2.0 ** -52
LN2 = math.log(2)


def _t(x, device="cpu"):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _check(got, want, bound=4):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    same = got == want  # the infinities
    diff = np.abs(np.where(same, 0.0, got) - np.where(same, 0.0, want))
    np.testing.assert_array_less(diff,
                                 bound * EPS * np.maximum(1.0, np.abs(want)) + 1e-300)


def test_weibull_log_prob_at_extreme_values(device):
    # x = scale 2^-j: log p = log k - log scale - (k - 1) j ln 2 - 2^(-j k)
    k = np.array([100.0, 2.0, 0.5, 1e-3, 3.0, 1.0, 40.0])
    j = np.array([14.0, 664.0, 996.0, 996.0, 300.0, 1040.0, -20.0])
    for scale in (1.0, 2.0 ** -30, 5.0):
        got = D.Weibull(_t(scale, device), _t(k, device)).log_prob(_t(scale * 2.0 ** -j, device))
        want = np.log(k) - math.log(scale) - (k - 1) * j * LN2 - np.exp2(-j * k)
        _check(got.cpu().numpy(), want)
    # x = 0 (validation off): (k - 1) log 0 is -inf, 0 or +inf as k > 1, = 1, < 1
    got = D.Weibull(_t(2.0, device), _t([0.5, 1.0, 3.0], device), validate_args=False).log_prob(
        _t(0.0, device))
    _check(got.cpu().numpy(), [math.inf, -math.log(2.0), -math.inf])


def test_kumaraswamy_log_prob_at_extreme_values(device):
    # x = 2^-j, x^a = 2^-(a j) exact: log a + log b - (a - 1) j ln 2 + (b - 1) log1p(-x^a)
    a = np.array([0.5, 2.0, 1e-3, 0.5, 200.0, 0.25, 1.0])
    b = np.array([2.0, 3.0, 3.0, 1e5, 1e5, 0.5, 2.0])
    j = np.array([996.0, 664.0, 996.0, 40.0, 0.25, 8.0, 1074.0])
    got = D.Kumaraswamy(_t(a, device), _t(b, device)).log_prob(_t(2.0 ** -j, device))
    want = (np.log(a) + np.log(b) - (a - 1) * j * LN2
            + (b - 1) * np.log(-np.expm1(-a * j * LN2)))
    _check(got.cpu().numpy(), want)
    # near 1: x = 1 - 2^-m, 1 - x^a = -expm1(a log1p(-2^-m)); and x^a rounding to 1 (a =
    # 1e-300): log(1 - x^a) = log a + log(-log x) (to 1e-300 relative)
    a = np.array([2.0, 200.0, 1e-3, 0.5, 1e-300, 1e-300])
    b = np.array([3.0, 1e5, 1e-3, 1e3, 2.0, 0.5])
    m = np.array([40.0, 20.0, 7.0, 53.0, 1.0, 30.0])
    x = 1 - 2.0 ** -m
    got = D.Kumaraswamy(_t(a, device), _t(b, device)).log_prob(_t(x, device))
    log_x = np.log1p(-(2.0 ** -m))
    rest = np.where(a > 1e-100, np.log(-np.expm1(a * log_x)), np.log(a) + np.log(-log_x))
    _check(got.cpu().numpy(), np.log(a) + np.log(b) + (a - 1) * log_x + (b - 1) * rest)
    # the ends: log a + log b where the factor's exponent is 0, else -inf / +inf
    d = D.Kumaraswamy(_t([1.0, 3.0, 0.5, 2.0, 2.0, 2.0], device),
                      _t([2.0, 2.0, 2.0, 1.0, 3.0, 0.5], device))
    got = d.log_prob(_t([0.0, 0.0, 0.0, 1.0, 1.0, 1.0], device))
    _check(got.cpu().numpy(), [math.log(2), -math.inf, math.inf, math.log(2), -math.inf,
                               math.inf])


def test_weibull_and_kumaraswamy_extremes_in_float32_and_gradients(device):
    # float32 where its powers underflow: within 4 float32 eps of the float64 value at
    # the same inputs; gradients finite and right (d/dx = (k - 1) / x - k x^(k - 1) /
    # scale^k; Kumaraswamy d/dx = (a - 1) / x - (b - 1) a x^(a - 1) / (1 - x^a))
    k, x = np.array([100.0, 2.0, 0.5]), np.array([1e-4, 1e-25, 1e-30])
    d32 = D.Weibull(_t(1.0, device).float(), _t(k, device).float())
    got = d32.log_prob(_t(x, device).float())
    want = D.Weibull(_t(1.0, device), _t(k, device).float().double()).log_prob(
        _t(x, device).float().double()).cpu().numpy()
    assert got.dtype == pdt.float32
    np.testing.assert_array_less(np.abs(got.cpu().numpy() - want),
                                 4 * 2.0 ** -23 * np.maximum(1.0, np.abs(want)))
    a, b, y = np.array([0.5, 2.0]), np.array([2.0, 3.0]), np.array([1e-30, 1e-25])
    got = D.Kumaraswamy(_t(a, device).float(), _t(b, device).float()).log_prob(
        _t(y, device).float())
    want = D.Kumaraswamy(_t(a, device), _t(b, device)).log_prob(
        _t(y, device).float().double()).cpu().numpy()
    np.testing.assert_array_less(np.abs(got.cpu().numpy() - want),
                                 4 * 2.0 ** -23 * np.maximum(1.0, np.abs(want)))
    xt = _t([1e-4, 0.5, 3.0], device).requires_grad_()
    kk = np.array([100.0, 2.0, 0.5])
    D.Weibull(_t(1.0, device), _t(kk, device)).log_prob(xt).sum().backward()
    xv = xt.detach().cpu().numpy()
    np.testing.assert_allclose(xt.grad.cpu().numpy(), (kk - 1) / xv - kk * xv ** (kk - 1),
                               rtol=1e-12)
    yt = _t([1e-300, 0.9, 1 - 2.0 ** -40], device).requires_grad_()
    a, b = np.array([0.5, 200.0, 2.0]), np.array([2.0, 1e5, 3.0])
    D.Kumaraswamy(_t(a, device), _t(b, device)).log_prob(yt).sum().backward()
    yv = yt.detach().cpu().numpy()
    power = yv ** a
    np.testing.assert_allclose(yt.grad.cpu().numpy(),
                               (a - 1) / yv - (b - 1) * a * power / yv / -np.expm1(
                                   a * np.log(yv)), rtol=1e-9)


def test_pareto_cdf_near_and_far_from_scale(device):
    # 1 - (scale / x)^alpha = -expm1(-alpha log1p((x - scale) / scale)), x - scale exact
    scale = np.array([1.0, 3.0, 1e-5, 1e-5, 2.0 ** -30, 7.0])
    x = np.array([1 + 2.0 ** -52, 3 + 2.0 ** -40, np.nextafter(1e-5, 1), 1.5e-5, 2.0 ** -29,
                  7e300])
    for alpha in (1e-10, 0.5, 3.0, 1e6):
        got = D.Pareto(_t(scale, device), alpha).cdf(_t(x, device))
        want = -np.expm1(-alpha * np.log1p((x - scale) / scale))
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=4 * EPS, atol=0)


def test_binomial_entropy_at_probs_zero_and_one(device):
    # a point mass: entropy 0 (exp(-inf) * -inf made it nan, as PyTorch's); probs 0.3:
    # -sum p log p over the counts
    for d in (D.Binomial(10, probs=_t([0.0, 1.0, 0.3], device)),
              D.Binomial(10, logits=_t([-800.0, 800.0, math.log(3 / 7)], device))):
        got = d.entropy().cpu().numpy()
        k = np.arange(11.0)
        p = np.array([math.comb(10, int(i)) for i in k]) * 0.3 ** k * 0.7 ** (10 - k)
        np.testing.assert_array_equal(got[:2], [0.0, 0.0])
        np.testing.assert_allclose(got[2], -(p * np.log(p)).sum(), rtol=16 * EPS)


def test_binomial_log_prob_at_the_edges_from_logits(device):
    # k = 0: -n log1p(e^l), k = n: -n log1p(e^-l); n softplus(l) less lgamma(n + 1) kept
    # nothing of it at n = 1e15, l = -40 (0 for -0.0042, as PyTorch's)
    n = np.array([1e6, 1e15, 1e20])[:, None]
    logit = np.array([-40.0, -20.0, 3.0, -800.0])
    d = D.Binomial(_t(n, device), logits=_t(logit, device))
    _check(d.log_prob(_t(0.0, device)).cpu().numpy(), -n * np.log1p(np.exp(logit)))
    _check(d.log_prob(_t(n, device)).cpu().numpy(), -n * np.logaddexp(0.0, -logit))


def test_closed_form_log_probs_validate_the_value_as_given(device):
    # with validation a Python number is refused, as PyTorch's and the other log_probs do
    # (the closed forms must check the value before making it a tensor); without, it is
    # taken
    for d in (D.Weibull(_t(1.0, device), _t([2.0], device)),
              D.Kumaraswamy(_t([2.0], device), _t(3.0, device)),
              D.NegativeBinomial(_t(20.0, device), _t([0.3], device))):
        with pytest.raises(ValueError, match="must be a Tensor"):
            d.log_prob(0.5 if not isinstance(d, D.NegativeBinomial) else 13.0)
    got = D.NegativeBinomial(_t(20.0, device), _t([0.3], device),
                             validate_args=False).log_prob(13.0)
    want = D.NegativeBinomial(_t(20.0, device), _t([0.3], device)).log_prob(_t(13.0, device))
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_binomial_entropy_of_a_nan_parameter_is_nan(device):
    # only p = 0's terms (log_prob -inf) count as 0 in -sum p log p: a NaN probs or logits
    # gave a NaN log_prob at every count, which the mask took for p = 0 (entropy 0.0)
    for d in (D.Binomial(10, probs=_t([math.nan, 0.3], device), validate_args=False),
              D.Binomial(10, logits=_t([math.nan, 0.3], device), validate_args=False)):
        got = d.entropy().cpu().numpy()
        assert np.isnan(got[0]) and np.isfinite(got[1])


def test_binomial_at_infinite_logits_is_a_point_mass(device):
    # logits -inf (p = 0) and +inf (p = 1), which the Real() constraint allows: log_prob 0
    # at k = 0 and k = n, -inf elsewhere, entropy 0 and a finite gradient; 0 * log 0 was
    # NaN there (as PyTorch's)
    logits = _t([-math.inf, math.inf], device).requires_grad_(True)
    d = D.Binomial(10, logits=logits)
    k = _t([[0.0], [3.0], [10.0]], device)
    got = d.log_prob(k)
    np.testing.assert_array_equal(got.detach().cpu().numpy(),
                                  [[0.0, -math.inf], [-math.inf, -math.inf],
                                   [-math.inf, 0.0]])
    (g,) = pdt.autograd.grad(got[0, 0] + got[2, 1], logits)
    np.testing.assert_array_equal(g.cpu().numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(d.entropy().detach().cpu().numpy(), [0.0, 0.0])


def test_beta_log_prob_of_a_number_takes_the_parameters_dtype(device):
    # without validation a Python number is taken (validation refuses it), in the
    # parameters' dtype and on their device: it was made a float32 CPU tensor (0.3 as
    # 0.30000001: 4.6e-8 off at Beta(3, 4), and a CPU value beside CUDA parameters)
    for a, b in ((3.0, 4.0), (30.0, 40.0)):
        d = D.Beta(_t(a, device), _t(b, device), validate_args=False)
        got = d.log_prob(0.3)
        assert got.dtype == F64 and got.device == _t(0.0, device).device
        # the same computation as at the float64 tensor 0.3: bit for bit
        want = d.log_prob(_t(0.3, device))
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
        ref = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + (a - 1) * math.log(0.3)
               + (b - 1) * math.log1p(-0.3))  # the lgammas' roundings: a loose bound
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=0, atol=1e-13)


def test_expand_keeps_the_given_probs_form(device):
    # Binomial and NegativeBinomial from probs take log p itself (the logits clamp p to
    # [eps, 1 - eps]); expand() expanded probs and _param (the same tensor) apart, so the
    # expanded one took the logits' form: -49.75 for -69.77 at p = 1e-20, k = 2
    p = np.array([1e-20, 0.3])
    k = np.array([2.0, 20.0])
    n = 1e5
    lc = np.array([math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) for j in k])
    lnb = np.array([math.lgamma(n + j) - math.lgamma(n) - math.lgamma(j + 1) for j in k])
    for d, want in ((D.Binomial(_t(n, device), probs=_t(p, device)),
                     lc + k * np.log(p) + (n - k) * np.log1p(-p)),
                    (D.NegativeBinomial(_t(n, device), probs=_t(p, device)),
                     lnb + k * np.log(p) + n * np.log1p(-p))):
        got = d.log_prob(_t(k, device)).cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9)  # the lgammas' cancellation
        wide = d.expand((3, 2)).log_prob(_t(k, device)).cpu().numpy()
        np.testing.assert_array_equal(wide, np.broadcast_to(got, (3, 2)))
