"""ExponentialFamily, as PyTorch's: which distributions are exponential families, their
natural parameters and log normalizers (log_prob = <theta, t(x)> - F(theta) + log h(x)),
the entropy by the Bregman form against closed forms, and the KL divergence of two of
one family by the Bregman divergence (the registry's fallback) against the closed forms,
in float64 on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions import kl as kl_module

F64 = pdt.float64
EULER = 0.57721566490153286060
EF = D.ExponentialFamily


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device):
    return pdt.tensor(x, dtype=F64, device=device)


def test_the_families_are_pytorchs():
    """The classes that subclass ExponentialFamily in PyTorch 2.15."""
    classes = {n for n in D.__all__ if isinstance(getattr(D, n), type)
               and issubclass(getattr(D, n), D.Distribution)}
    families = {n for n in classes if issubclass(getattr(D, n), EF)}
    assert families == {"Bernoulli", "Beta", "Chi2", "ContinuousBernoulli", "Dirichlet",
                        "Exponential", "ExponentialFamily", "Gamma", "Normal", "Poisson",
                        "Wishart"}
    assert issubclass(D.Normal, D.distribution._LocScale)


def _digamma(c):
    """digamma at integers and half-integers, by its recurrence from 1 and 1/2."""
    base, start = (-EULER, 1.0) if float(c).is_integer() else (-EULER - 2 * math.log(2), 0.5)
    return base + sum(1 / (start + k) for k in range(int(round(c - start))))


def _cb_entropy(lam):
    """-integral p log p of the continuous Bernoulli, by the trapezoid rule."""
    c = 2 * math.atanh(1 - 2 * lam) / (1 - 2 * lam)
    x = np.linspace(0.0, 1.0, 200001)
    logp = math.log(c) + x * math.log(lam) + (1 - x) * math.log1p(-lam)
    return -np.trapezoid(np.exp(logp) * logp, x)


LOC, SCALE = [0.0, 1.5, -3.0], [2.0, 0.3, 1.0]
RATE = [0.5, 2.0, 7.0]
CONC = [1.0, 3.0, 0.5]
PROBS = [0.2, 0.9, 0.5]
CB_PROBS = [0.2, 0.9, 0.3]

ENTROPY = {
    "Normal": (lambda dev: D.Normal(_t(LOC, dev), _t(SCALE, dev)),
               0.5 * np.log(2 * math.pi * math.e * np.square(SCALE))),
    "Exponential": (lambda dev: D.Exponential(_t(RATE, dev)), 1 - np.log(RATE)),
    "Gamma": (lambda dev: D.Gamma(_t(CONC, dev), _t(RATE, dev)),
              [c - math.log(r) + math.lgamma(c) + (1 - c) * _digamma(c)
               for c, r in zip(CONC, RATE)]),
    "Bernoulli": (lambda dev: D.Bernoulli(_t(PROBS, dev)),
                  [-p * math.log(p) - (1 - p) * math.log1p(-p) for p in PROBS]),
    "ContinuousBernoulli": (lambda dev: D.ContinuousBernoulli(_t(CB_PROBS, dev)),
                            [_cb_entropy(p) for p in CB_PROBS]),
}


@pytest.mark.parametrize("name", sorted(ENTROPY))
def test_entropy_by_the_bregman_form(name, device):
    make, expected = ENTROPY[name]
    d = make(device)
    h = EF.entropy(d)
    assert h.shape == pdt.Size([3]) and h.device == pdt.device(device)
    np.testing.assert_allclose(_np(h), expected, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(_np(d.entropy()), _np(h), rtol=1e-9, atol=1e-12)  # own form
    with pdt.no_grad():
        np.testing.assert_allclose(_np(EF.entropy(d)), expected, rtol=1e-9, atol=1e-10)


def test_entropy_needs_the_carrier_measure(device):
    for d in (D.Beta(_t(2.0, device), 3.0), D.Poisson(_t(2.0, device)),
              D.Dirichlet(_t([1.0, 2.0], device))):
        with pytest.raises(NotImplementedError, match="_mean_carrier_measure"):
            EF.entropy(d)


def _check_density(d, x, stats, log_h):
    """log_prob(x) = sum <theta_i, t_i(x)> - F(theta) + log h(x)."""
    theta = d._natural_params
    dot = sum(_np(th) * st for th, st in zip(theta, stats))
    if d.event_shape:  # Dirichlet: the inner product runs over the event too
        dot = dot.sum(-1)
    expected = dot - _np(d._log_normalizer(*theta)) + log_h
    np.testing.assert_allclose(_np(d.log_prob(x)), expected, rtol=1e-10, atol=1e-12)


def test_natural_parameters_and_log_normalizers(device):
    x = np.array([0.3, 1.2, 2.5])
    xt = _t(x, device)
    _check_density(D.Normal(_t(LOC, device), _t(SCALE, device)), xt, (x, x * x), 0.0)
    _check_density(D.Exponential(_t(RATE, device)), xt, (x,), 0.0)
    _check_density(D.Gamma(_t(CONC, device), _t(RATE, device)), xt, (np.log(x), x), 0.0)
    _check_density(D.Chi2(_t(RATE, device)), xt, (np.log(x), x), 0.0)
    k = np.array([0.0, 3.0, 5.0])
    _check_density(D.Poisson(_t(RATE, device)), _t(k, device), (k,),
                   -np.array([math.lgamma(v + 1) for v in k]))
    b = np.array([1.0, 0.0, 1.0])
    _check_density(D.Bernoulli(_t(PROBS, device)), _t(b, device), (b,), 0.0)
    u = np.array([0.1, 0.5, 0.85])
    _check_density(D.ContinuousBernoulli(_t([0.2, 0.9, 0.5002], device)), _t(u, device),
                   (u,), 0.0)
    _check_density(D.Beta(_t(CONC, device), _t(RATE, device)), _t(u, device),
                   (np.log(u), np.log1p(-u)), -np.log(u * (1 - u)))
    s = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    _check_density(D.Dirichlet(_t([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0]], device)), _t(s, device),
                   (np.log(s),), -np.log(s).sum(-1))


PAIRS = {
    "Normal": lambda dev: (D.Normal(_t(LOC, dev), _t(SCALE, dev)),
                           D.Normal(_t([1.0, 1.0, 0.5], dev), _t([0.5, 1.0, 4.0], dev))),
    "Exponential": lambda dev: (D.Exponential(_t(RATE, dev)), D.Exponential(_t(CONC, dev))),
    "Gamma": lambda dev: (D.Gamma(_t(CONC, dev), _t(RATE, dev)),
                          D.Gamma(_t(RATE, dev), _t(CONC, dev))),
    "Beta": lambda dev: (D.Beta(_t(CONC, dev), _t(RATE, dev)),
                         D.Beta(_t(RATE, dev), _t([2.0, 2.0, 2.0], dev))),
    "Poisson": lambda dev: (D.Poisson(_t(RATE, dev)), D.Poisson(_t(CONC, dev))),
    "Bernoulli": lambda dev: (D.Bernoulli(_t(PROBS, dev)), D.Bernoulli(_t(CB_PROBS, dev))),
    "ContinuousBernoulli": lambda dev: (D.ContinuousBernoulli(_t(CB_PROBS, dev)),
                                        D.ContinuousBernoulli(_t([0.6, 0.5002, 0.1], dev))),
    "Dirichlet": lambda dev: (D.Dirichlet(_t([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0]], dev)),
                              D.Dirichlet(_t([[2.0, 2.0, 2.0], [0.5, 1.0, 4.0]], dev))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_bregman_kl_is_the_closed_form(name, device):
    p, q = PAIRS[name](device)
    bregman = kl_module._kl_expfamily_expfamily(p, q)
    assert bregman.shape == p.batch_shape
    np.testing.assert_allclose(_np(bregman), _np(D.kl_divergence(p, q)), rtol=1e-9,
                               atol=1e-12)


class _Rate(EF):
    """An exponential distribution written only as an exponential family (theta = -rate,
    F = -log(-theta)): kl_divergence finds the ExponentialFamily rule."""

    arg_constraints = {}
    _mean_carrier_measure = 0

    def __init__(self, rate):
        self.rate = rate
        super().__init__(tuple(rate.shape), (), validate_args=False)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()


def test_kl_of_a_new_family_falls_back_to_bregman(device):
    a, b = np.array([0.5, 2.0, 7.0]), np.array([1.0, 0.25, 7.0])
    kl = D.kl_divergence(_Rate(_t(a, device)), _Rate(_t(b, device)))
    np.testing.assert_allclose(_np(kl), np.log(a / b) + b / a - 1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_np(EF.entropy(_Rate(_t(a, device)))), 1 - np.log(a),
                               rtol=1e-12)
    with pytest.raises(NotImplementedError, match="Normal and Poisson .*ExponentialFamily's "
                                                  "takes two of one class"):
        D.kl_divergence(D.Normal(_t(0.0, device), 1.0), D.Poisson(_t(1.0, device)))
    with pytest.raises(NotImplementedError, match="_Rate and Exponential"):
        D.kl_divergence(_Rate(_t(a, device)), D.Exponential(_t(b, device)))
