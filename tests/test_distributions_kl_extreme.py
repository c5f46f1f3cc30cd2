"""kl_divergence at parameters where a closed form cancels, in float64 on every device:
Geometric-Geometric at probs far below eps and near 1 (against the closed form from the
probs and the sum over the support), Uniform-Beta and Uniform-Gamma for an interval
narrower than its end's eps, and Uniform-Gumbel for an interval much narrower than the
scale (against the midpoint rule of p log(p / q) in NumPy)."""
import math

import numpy as np

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _midpoints(low, high, n=200001):
    return low + (np.arange(n) + 0.5) * ((high - low) / n)


def test_geometric_geometric_from_the_probs(device):
    # the logits of probs clamped to [eps, 1 - eps] gave -33.0 for two Geometric(1e-30)
    # (PyTorch 2.15: 37.0) and 36.0 for 69.1 between Geometric(1 - 1e-12) and (1e-30)
    p = np.array([1e-30, 1e-8, 0.3, 1 - 1e-12, 1.0, 1.0])
    q = np.array([1e-30, 1e-8, 0.5, 1e-30, 0.25, 1.0])
    pp = np.where(p == 1, 0.5, p)
    with np.errstate(divide="ignore"):  # q = 1 where p = 1, read from the other branch
        want = np.where(p == 1, -np.log(q),
                        np.log(pp / q) + (1 - pp) / pp * (np.log1p(-pp) - np.log1p(-q)))
    got = _np(D.kl_divergence(D.Geometric(_t(p, device)), D.Geometric(_t(q, device))))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    assert got[0] == 0.0 and got[1] == 0.0 and got[-1] == 0.0
    # p = 0.3, q = 0.5 by the sum of p(k) log(p(k) / q(k)) over k
    k = np.arange(400.0)
    lp, lq = np.log(0.3) + k * np.log1p(-0.3), np.log(0.5) + k * np.log1p(-0.5)
    np.testing.assert_allclose(got[2], np.sum(np.exp(lp) * (lp - lq)), rtol=1e-12)
    t = _t([0.3, 1.0], device).requires_grad_()
    D.kl_divergence(D.Geometric(t), D.Geometric(_t([0.5, 0.25], device))).sum().backward()
    assert np.all(np.isfinite(_np(t.grad)))


def _uniform_beta(low, high, a, b):
    x = _midpoints(low, high)
    log_b = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return (-math.log(high - low) - (a - 1) * np.mean(np.log(x))
            - (b - 1) * np.mean(np.log1p(-x)) + log_b)


def test_uniform_beta_and_gamma_for_a_narrow_interval(device):
    # 1 - high == 1 - low: the xlogy form of E[log(1 - x)] was 0 / 0 = nan
    cases = [(3.7e-23, 5e-20, 2.5, 3.0), (0.25, 0.25 + 2.0 ** -40, 2.5, 0.5),
             (0.4, 0.7, 3.0, 4.0), (0.1, 0.6, 2.0, 3.0)]
    low, high, a, b = (np.array(c) for c in zip(*cases))
    got = _np(D.kl_divergence(D.Uniform(_t(low, device), _t(high, device)),
                              D.Beta(_t(a, device), _t(b, device))))
    want = [_uniform_beta(*c) for c in cases]
    np.testing.assert_allclose(got, want, rtol=1e-9)  # the midpoint rule's error
    lo, hi = 0.5, 0.5 + 2.0 ** -40
    got = _np(D.kl_divergence(D.Uniform(_t([lo], device), _t([hi], device)),
                              D.Gamma(_t([3.0], device), _t([2.0], device))))
    x = _midpoints(lo, hi)
    want = -math.log(hi - lo) - np.mean(3 * math.log(2.0) + 2 * np.log(x) - 2 * x
                                         - math.lgamma(3.0))
    np.testing.assert_allclose(got, [want], rtol=1e-12)


def test_uniform_gumbel_for_a_scale_far_above_the_width(device):
    # exp(-h) - exp(-l) cancelled to 0: 46.05 for 47.05 at width 1 and scale 1e20
    low, high = np.array([0.0, -1.0, 0.3]), np.array([1.0, 2.0, 0.7])
    loc, scale = np.array([0.5, 0.0, -0.2]), np.array([1e20, 1e8, 0.5])
    got = _np(D.kl_divergence(D.Uniform(_t(low, device), _t(high, device)),
                              D.Gumbel(_t(loc, device), _t(scale, device))))
    want = []
    for lo, hi, m, s in zip(low, high, loc, scale):
        z = (_midpoints(lo, hi) - m) / s
        want.append(-math.log(hi - lo) + np.mean(z + np.exp(-z)) + math.log(s))
    np.testing.assert_allclose(got, want, rtol=1e-12)
