"""kl_divergence for the pairs PyTorch registers with ContinuousBernoulli (against the
integral of p log(p / q) over [0, 1] by the midpoint rule, in float64, with probabilities
in and out of ContinuousBernoulli's Taylor region about 1/2) and with
LowRankMultivariateNormal (against the Gaussians' closed form from the dense covariances
in NumPy), on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
N = 100000


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


# probabilities of batch shape (3,): away from 1/2, far from it, inside (0.499, 0.501]
CB_PROBS = [0.2, 0.93, 0.5004]
Q_OF = {
    "ContinuousBernoulli": lambda d: D.ContinuousBernoulli(_t([0.7, 0.05, 0.5001], d)),
    "Exponential": lambda d: D.Exponential(_t([0.5, 2.0, 3.0], d)),
    "Normal": lambda d: D.Normal(_t([0.3, -1.0, 2.0], d), _t([0.5, 1.5, 0.8], d)),
    "Uniform": lambda d: D.Uniform(_t([-0.5, 0.0, -2.0], d), _t([1.0, 1.5, 1.0], d)),
}
P_OF = {
    "Beta": lambda d: D.Beta(_t([2.0, 1.5, 3.5], d), _t([3.0, 1.2, 1.5], d)),
    "Uniform": lambda d: D.Uniform(_t([0.0, 0.2, 0.3], d), _t([0.5, 1.0, 0.4], d)),
    "ContinuousBernoulli": lambda d: D.ContinuousBernoulli(_t([0.3, 0.5002, 0.9], d)),
}


def _quad_kl(p, q, lo, hi, device):
    """The midpoint rule with nodes dense at both ends (x = lo + (hi - lo)(1 - cos pi u)/2),
    N and N / 2 nodes combined by Richardson's extrapolation."""
    sums = []
    for n in (N, N // 2):
        u = ((np.arange(n) + 0.5) / n)[:, None]
        x = lo + (hi - lo) * (1 - np.cos(math.pi * u)) / 2
        dx = (hi - lo) * math.pi / 2 * np.sin(math.pi * u) / n
        xt = _t(x * np.ones(3), device)
        lp, lq = _np(p.log_prob(xt)), _np(q.log_prob(xt))
        sums.append((np.exp(lp) * (lp - lq) * dx).sum(0))
    return (4 * sums[0] - sums[1]) / 3


@pytest.mark.parametrize("qname", sorted(Q_OF))
def test_continuous_bernoulli_p_against_quadrature(device, qname):
    p, q = D.ContinuousBernoulli(_t(CB_PROBS, device)), Q_OF[qname](device)
    got = D.kl_divergence(p, q)
    assert tuple(got.shape) == (3,) and got.dtype == F64
    np.testing.assert_allclose(_np(got), _quad_kl(p, q, 0.0, 1.0, device), rtol=1e-9)
    assert _np(D.kl_divergence(p, p)) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("pname", sorted(P_OF))
def test_continuous_bernoulli_q_against_quadrature(device, pname):
    p, q = P_OF[pname](device), D.ContinuousBernoulli(_t(CB_PROBS, device))
    got = D.kl_divergence(p, q)
    lo, hi = ((_np(p.low), _np(p.high)) if pname == "Uniform" else (0.0, 1.0))
    np.testing.assert_allclose(_np(got), _quad_kl(p, q, lo, hi, device), rtol=1e-9)


def test_uniform_support_checks(device):
    """inf where the Uniform q misses part of [0, 1], or the Uniform p reaches out of it;
    finite where the supports only touch (PyTorch gives inf there)."""
    p = D.ContinuousBernoulli(_t(0.3, device))
    qu = D.Uniform(_t([0.1, -1.0, 0.0, 0.0], device), _t([2.0, 0.9, 1.0, 3.0], device))
    out = _np(D.kl_divergence(p, qu))
    assert out[0] == np.inf and out[1] == np.inf
    np.testing.assert_allclose(out[2:], -_np(p.entropy()) + np.log([1.0, 3.0]), rtol=1e-12)
    pu = D.Uniform(_t([-0.1, 0.5, 0.0], device), _t([0.5, 1.1, 1.0], device))
    out = _np(D.kl_divergence(pu, p))
    assert out[0] == np.inf and out[1] == np.inf
    np.testing.assert_allclose(out[2], _quad_kl(D.Uniform(_t(0.0, device), _t(1.0, device)),
                                                p, 0.0, 1.0, device)[0], rtol=1e-9)


@pytest.mark.parametrize("other", ["Exponential", "Gamma", "Gumbel", "Laplace", "Normal",
                                   "Pareto"])
def test_infinite_pairs(device, other):
    """ContinuousBernoulli's [0, 1] misses the mass of the unbounded p's, Pareto's
    [scale, inf) that of ContinuousBernoulli near 0: inf, of p's batch shape."""
    two = _t([1.0, 2.0], device)
    p = {"Exponential": lambda: D.Exponential(two), "Gamma": lambda: D.Gamma(two, two),
         "Gumbel": lambda: D.Gumbel(two, two), "Laplace": lambda: D.Laplace(two, two),
         "Normal": lambda: D.Normal(two, two), "Pareto": lambda: D.Pareto(two, two)}[other]()
    cb = D.ContinuousBernoulli(_t([0.2, 0.6, 0.9], device)[:, None])
    got = D.kl_divergence(p, cb)
    assert tuple(got.shape) == (2,) and np.all(_np(got) == np.inf)
    if other == "Pareto":
        got = D.kl_divergence(cb, p)
        assert tuple(got.shape) == (3, 1) and np.all(_np(got) == np.inf)


def _gauss_kl(m1, s1, m2, s2):
    """KL(N(m1, s1) || N(m2, s2)) of broadcast batches, dense, float64."""
    m1, s1, m2, s2 = np.broadcast_arrays(m1[..., None], s1, m2[..., None], s2)
    m1, m2 = m1[..., 0], m2[..., 0]
    d = (m2 - m1)[..., None]
    s2inv = np.linalg.inv(s2)
    n = m1.shape[-1]
    return 0.5 * (np.trace(s2inv @ s1, axis1=-2, axis2=-1)
                  + (d.swapaxes(-1, -2) @ s2inv @ d)[..., 0, 0] - n
                  + np.linalg.slogdet(s2)[1] - np.linalg.slogdet(s1)[1])


def test_low_rank_pairs_against_closed_form(device):
    """LowRank-LowRank, MVN-LowRank and LowRank-MVN, batched (3,) against () and of
    ranks 1 and 2, both ways."""
    rng = np.random.default_rng(5)
    n = 4
    lr = []
    for batch, m in (((3,), 2), ((), 1)):
        loc, W = rng.normal(size=batch + (n,)), rng.normal(size=batch + (n, m))
        d = rng.uniform(0.3, 2.0, size=batch + (n,))
        dist = D.LowRankMultivariateNormal(_t(loc, device), _t(W, device), _t(d, device))
        lr.append((dist, loc, W @ W.swapaxes(-1, -2) + d[..., None] * np.eye(n)))
    S = rng.normal(size=(3, n, n))
    cov, loc = S @ S.swapaxes(-1, -2) + 0.5 * np.eye(n), rng.normal(size=(n,))
    mvn = (D.MultivariateNormal(_t(loc, device), _t(cov, device)), loc, cov)
    for a, b in ((lr[0], lr[1]), (lr[1], lr[0]), (lr[0], lr[0]), (lr[1], mvn), (mvn, lr[1]),
                 (lr[0], mvn), (mvn, lr[0])):
        got = D.kl_divergence(a[0], b[0])
        want = _gauss_kl(a[1], a[2], b[1], b[2])
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(_np(got), want, rtol=1e-10, atol=1e-12)


def test_low_rank_event_shapes_must_match(device):
    p = D.LowRankMultivariateNormal(_t(np.zeros(3), device), _t(np.ones((3, 1)), device),
                                    _t(np.ones(3), device))
    q = D.MultivariateNormal(_t(np.zeros(2), device), _t(np.eye(2), device))
    for a, b in ((p, q), (q, p)):
        with pytest.raises(ValueError, match="different event shapes"):
            D.kl_divergence(a, b)
