"""The KL divergences PyTorch registers between Pareto and Exponential, Gamma, Normal,
Uniform, Beta, Gumbel and Laplace, against numerical integration of p log(p / q) in
float64 (on a log-spaced grid over Pareto's heavy tail), and inf where q's support misses
mass of p or a moment of p is infinite, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


def _quad_kl(p, q, lo, hi, log_grid, device):
    u = np.linspace(np.log(lo), np.log(hi), 400001) if log_grid else None
    x = np.exp(u) if log_grid else np.linspace(lo, hi, 400001)
    xt = _t(x, device)
    lp, lq = p.log_prob(xt).cpu().numpy(), q.log_prob(xt).cpu().numpy()
    f = np.exp(lp) * (lp - lq)
    return np.trapezoid(f * x, u) if log_grid else np.trapezoid(f, x)


@pytest.mark.parametrize("qname", ["Exponential", "Gamma", "Normal"])
def test_pareto_p_against_quadrature(device, qname):
    q = {"Exponential": lambda: D.Exponential(_t(0.7, device)),
         "Gamma": lambda: D.Gamma(_t(2.0, device), _t(0.7, device)),
         "Normal": lambda: D.Normal(_t(1.0, device), _t(2.0, device))}[qname]()
    p = D.Pareto(_t(1.5, device), _t(3.5, device))
    got = float(D.kl_divergence(p, q).cpu())
    assert got == pytest.approx(_quad_kl(p, q, 1.5, 1e7, True, device), rel=1e-6)
    # an infinite mean (alpha <= 1; for the Normal, an infinite variance, alpha <= 2)
    heavy = D.Pareto(_t([1.5, 1.5], device), _t([0.9, 1.8], device))
    want = [np.inf, np.inf] if qname == "Normal" else [np.inf, None]
    res = D.kl_divergence(heavy, q).cpu().numpy()
    assert np.isinf(res[0]) and (want[1] is None and np.isfinite(res[1])
                                 or want[1] == res[1])


def test_uniform_p_pareto_q(device):
    p, q = D.Uniform(_t([1.5, 0.2], device), _t(3.0, device)), D.Pareto(_t(1.0, device),
                                                                       _t(2.0, device))
    got = D.kl_divergence(p, q).cpu().numpy()
    assert got[0] == pytest.approx(_quad_kl(D.Uniform(_t(1.5), _t(3.0)),
                                            D.Pareto(_t(1.0), _t(2.0)), 1.5, 3.0 - 1e-12, False,
                                            "cpu"), rel=1e-8)
    assert np.isinf(got[1])  # the uniform puts mass below the Pareto's scale


@pytest.mark.parametrize("pair", ["Beta-Pareto", "Exponential-Pareto", "Gamma-Pareto",
                                  "Gumbel-Pareto", "Laplace-Pareto", "Normal-Pareto",
                                  "Pareto-Beta", "Pareto-Uniform"])
def test_infinite_pairs(device, pair):
    pareto = D.Pareto(_t([1.0, 2.0], device), _t(3.0, device))
    make = {"Beta": lambda: D.Beta(_t([2.0, 1.5], device), _t(3.0, device)),
            "Exponential": lambda: D.Exponential(_t([1.0, 2.0], device)),
            "Gamma": lambda: D.Gamma(_t([1.0, 2.0], device), _t(1.0, device)),
            "Gumbel": lambda: D.Gumbel(_t([1.0, 2.0], device), _t(1.0, device)),
            "Laplace": lambda: D.Laplace(_t([1.0, 2.0], device), _t(1.0, device)),
            "Normal": lambda: D.Normal(_t([1.0, 2.0], device), _t(1.0, device)),
            "Uniform": lambda: D.Uniform(_t([0.0, 0.0], device), _t(9.0, device))}
    a, b = pair.split("-")
    p = pareto if a == "Pareto" else make[a]()
    q = pareto if b == "Pareto" else make[b]()
    res = D.kl_divergence(p, q)
    assert tuple(res.shape) == (2,) and res.dtype == F64 and np.isinf(res.cpu().numpy()).all()
