"""kl_divergence for the pairs of different families PyTorch registers (and
Binomial-Binomial), in float64 on every device: the finite ones against the integral of
p log(p / q) by the midpoint rule (batched and broadcast), the discrete ones against their
sums, the ones that are always inf by their value and shape (p's batch shape, as
PyTorch's), and kl_divergence's docstring and error message against the registry."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions import kl as kl_module

F64 = pdt.float64
N = 200000


def _t(x, device):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


# p's of batch shape (2, 1): name -> (parameters, support); support "real", "half" (the
# half line) or (low, high) of a bounded interval (arrays of p's batch shape).
P_CASES = {
    "Normal": (([[0.3], [-1.0]], [[1.0], [0.6]]), "real"),
    "Laplace": (([[0.3], [-1.0]], [[1.0], [0.6]]), "real"),
    "Gumbel": (([[0.3], [-1.0]], [[1.0], [0.6]]), "real"),
    "Exponential": (([[0.7], [2.0]],), "half"),
    "Gamma": (([[2.5], [1.5]], [[1.5], [0.8]]), "half"),
    "Beta": (([[2.0], [1.5]], [[3.0], [2.5]]), "unit"),
    "Uniform": (([[0.0], [0.2]], [[0.5], [0.9]]), "interval"),
}
# q's of batch shape (3,), the kl then of shape (2, 3)
Q_CASES = {
    "Normal": ([0.5, -0.5, 2.0], [0.8, 1.5, 2.0]),
    "Laplace": ([0.5, -0.5, 2.0], [0.8, 1.5, 2.0]),
    "Gumbel": ([0.5, -0.5, 2.0], [0.8, 1.5, 2.0]),
    "Exponential": ([0.5, 1.0, 3.0],),
    "Gamma": ([0.7, 2.0, 3.5], [0.5, 1.0, 2.5]),
    "Beta": ([0.7, 2.0, 3.5], [1.5, 0.6, 2.5]),
    "Uniform": ([-0.5, 0.0, -2.0], [1.0, 1.5, 3.0]),
}
FINITE = [("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
          ("Exponential", "Gumbel"), ("Exponential", "Normal"), ("Gamma", "Gumbel"),
          ("Gamma", "Normal"), ("Gumbel", "Normal"), ("Laplace", "Normal"),
          ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Uniform", "Beta"),
          ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
          ("Uniform", "Normal")]
INFINITE = [("Exponential", "Beta"), ("Exponential", "Uniform"), ("Gamma", "Beta"),
            ("Gamma", "Uniform"), ("Gumbel", "Beta"), ("Gumbel", "Exponential"),
            ("Gumbel", "Gamma"), ("Gumbel", "Uniform"), ("Laplace", "Beta"),
            ("Laplace", "Exponential"), ("Laplace", "Gamma"), ("Laplace", "Uniform"),
            ("Normal", "Beta"), ("Normal", "Exponential"), ("Normal", "Gamma"),
            ("Normal", "Uniform")]


def _make(name, params, device):
    return getattr(D, name)(*[_t(v, device) for v in params])


def _nodes(support, params, n):
    """Midpoint nodes x (n, 2, 1) and weights dx for p's support: the line about p's loc
    (a cell boundary, where Laplace's kink is), the half line through x = 200 u^4, an
    interval through x = lo + (hi - lo)(1 - cos(pi u))/2 (dense at both ends, where the
    log densities may be singular)."""
    u = ((np.arange(n) + 0.5) / n)[:, None, None]
    if support == "real":
        return np.array(params[0]) - 60 + 120 * u, 120 / n + 0 * u
    if support == "half":
        return 200 * u ** 4, 800 * u ** 3 / n
    lo, hi = (0.0, 1.0) if support == "unit" else (np.array(params[0]), np.array(params[1]))
    return (lo + (hi - lo) * (1 - np.cos(math.pi * u)) / 2,
            (hi - lo) * math.pi / 2 * np.sin(math.pi * u) / n)


@pytest.mark.parametrize("pair", FINITE, ids="-".join)
def test_finite_pairs_against_quadrature(device, pair):
    """KL = sum of p(x) (log p(x) - log q(x)) dx over the nodes, p of batch shape (2, 1)
    and q of (3,) broadcast to (2, 3); Richardson's extrapolation of N and N / 2 nodes
    (the midpoint rule's h^2 error, from Laplace's kink too, cancels)."""
    (pa, support), qa = P_CASES[pair[0]], Q_CASES[pair[1]]
    if pair == ("Beta", "Uniform"):  # q's intervals hold (0, 1)
        qa = ([-0.5, 0.0, -2.0], [1.0, 1.5, 3.0])
    p, q = _make(pair[0], pa, device), _make(pair[1], qa, device)
    got = D.kl_divergence(p, q)
    assert tuple(got.shape) == (2, 3) and got.dtype == F64 and got.device == p.mean.device
    sums = []
    for n in (N, N // 2):
        x, dx = _nodes(support, pa, n)
        xt = _t(x, device)
        lp, lq = _np(p.log_prob(xt)), _np(q.log_prob(xt))
        sums.append((np.exp(lp) * (lp - lq) * dx).sum(0))
    want = (4 * sums[0] - sums[1]) / 3
    np.testing.assert_allclose(_np(got), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pair", INFINITE, ids="-".join)
def test_always_infinite_pairs(device, pair):
    """q gives 0 to a set p gives mass to: inf, of p's batch shape, as PyTorch's."""
    p = _make(pair[0], P_CASES[pair[0]][0], device)
    got = D.kl_divergence(p, _make(pair[1], Q_CASES[pair[1]], device))
    assert tuple(got.shape) == (2, 1) and got.dtype == F64
    assert np.all(_np(got) == np.inf)


def test_support_checks_of_finite_pairs(device):
    """Uniform p reaching below 0 (or above 1 for Beta), a Uniform q not holding (0, 1):
    inf; a Uniform p starting at 0 exactly stays finite."""
    pu = D.Uniform(_t([-0.1, 0.0, 0.5], device), _t([0.5, 1.0, 1.2], device))
    for q in (D.Exponential(_t(1.0, device)), D.Gamma(_t(2.0, device), _t(1.0, device))):
        out = _np(D.kl_divergence(pu, q))
        assert out[0] == np.inf and np.isfinite(out[1:]).all()
    out = _np(D.kl_divergence(pu, D.Beta(_t(2.0, device), _t(3.0, device))))
    assert out[0] == np.inf and np.isfinite(out[1]) and out[2] == np.inf
    qu = D.Uniform(_t([0.1, -1.0, 0.0], device), _t([2.0, 0.9, 1.0], device))
    out = _np(D.kl_divergence(D.Beta(_t(2.0, device), _t(3.0, device)), qu))
    np.testing.assert_array_equal(out[:2], [np.inf, np.inf])
    np.testing.assert_allclose(out[2], math.log(12) - 2.25, rtol=1e-12)  # -H(Beta(2, 3))


def test_poisson_to_bernoulli_and_binomial_are_infinite(device):
    p = D.Poisson(_t([[1.0], [2.5]], device))
    for q in (D.Bernoulli(_t([0.2, 0.9, 0.5], device)), D.Binomial(4, _t([0.2, 0.9], device)
                                                                    [:, None, None])):
        got = D.kl_divergence(p, q)
        assert tuple(got.shape) == (2, 1) and np.all(_np(got) == np.inf)


def test_bernoulli_poisson_by_its_sum(device):
    """sum over k in {0, 1} of p(k) log(p(k) / q(k)), 0 log 0 = 0."""
    a = np.array([0.0, 1.0, 0.3, 0.0, 0.8])
    r = np.array([1.0, 2.0, 0.5, 0.0, 0.0])
    got = _np(D.kl_divergence(D.Bernoulli(_t(a, device)), D.Poisson(_t(r, device))))
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.where(a == 1, 0.0, (1 - a) * (np.log1p(-a) + r))
        t1 = np.where(a == 0, 0.0, a * (np.log(a) - np.log(r) + r))
    np.testing.assert_allclose(got, t0 + t1, rtol=1e-12, atol=1e-15)
    assert got[-1] == np.inf


def test_binomial_binomial_by_its_sum(device):
    """The sum over the counts, with the edge probabilities 0 and 1; inf where p's
    count passes q's, refused where it falls short (as PyTorch's)."""
    n = np.array([[5.0], [7.0]])
    a = np.array([[0.3, 1.0, 0.0, 0.3]]).repeat(2, 0)
    b = np.array([0.6, 0.6, 0.2, 0.0])
    got = _np(D.kl_divergence(D.Binomial(_t(n, device), _t(a, device)),
                              D.Binomial(_t([[5.0], [5.0]], device), _t(b, device))))
    assert got.shape == (2, 4)
    np.testing.assert_array_equal(got[1], np.inf)
    k = np.arange(6.0)[:, None]
    comb = np.array([math.comb(5, int(i)) for i in k[:, 0]])[:, None]
    pmf_p = comb * a[0] ** k * (1 - a[0]) ** (5 - k)  # 0 ** 0 = 1
    pmf_q = comb * b ** k * (1 - b) ** (5 - k)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(pmf_p > 0, pmf_p * np.log(pmf_p / pmf_q), 0.0).sum(0)
    assert want[-1] == np.inf and np.isfinite(want[:3]).all()
    np.testing.assert_allclose(got[0], want, rtol=1e-12)
    np.testing.assert_allclose(got[0, 1], 5 * math.log(1 / 0.6), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(D.Binomial(_t(3.0, device), _t(0.5, device)),
                        D.Binomial(_t([3.0, 4.0], device), _t(0.5, device)))


def test_subclass_uses_its_base_pair(device):
    """Chi2(k) is Gamma(k / 2, 1 / 2), so its pairs are Gamma's."""
    q = D.Normal(_t([0.5, 2.0], device), _t([1.0, 3.0], device))
    got = D.kl_divergence(D.Chi2(_t([3.0, 1.5], device)), q)
    want = D.kl_divergence(D.Gamma(_t([1.5, 0.75], device), _t(0.5, device)), q)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-15)


def _doc_pairs():
    out = set()
    for line in D.kl_divergence.__doc__.splitlines():
        if line.strip().startswith("- "):
            p, qs = line.strip()[2:].split(": ")
            out |= {(p, q) for q in qs.split(", ")}
    return out


def test_docstring_and_error_follow_the_registry():
    names = {(a.__name__, b.__name__) for a, b in kl_module._KL_REGISTRY}
    assert _doc_pairs() == names
    assert set(FINITE) | set(INFINITE) <= names
    with pytest.raises(NotImplementedError,
                       match=r"Normal and Poisson \(registered with p a Normal: q a Beta, "
                             r"ContinuousBernoulli, Exponential, ExponentialFamily, Gamma, "
                             r"Gumbel, Laplace, Normal, Pareto, Uniform; ExponentialFamily's "
                             r"takes two of one class;"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))
    with pytest.raises(NotImplementedError, match="none registered with p a Multinomial"):
        D.kl_divergence(D.Multinomial(2, pdt.ones(3)), D.Poisson(1.0))

    class Shifted(D.Poisson):
        pass

    try:
        D.register_kl(Shifted, D.Normal)(lambda p, q: p.rate)
        assert ("Shifted", "Normal") in _doc_pairs()
    finally:
        del kl_module._KL_REGISTRY[Shifted, D.Normal]
        kl_module._document_registry()
    assert _doc_pairs() == names
