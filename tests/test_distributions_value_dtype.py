"""The dtype of log_prob and cdf for a value of another dtype than the parameters, as
PyTorch's, distribution by distribution: Gamma, Chi2 and HalfCauchy cast the value to
the parameters' dtype in log_prob (not in cdf), MultivariateNormal gives the scale's
dtype and Bernoulli the value's; the others keep the promoted dtype."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D

F32, F64 = pdt.float32, pdt.float64


def _f32(x, device):
    return pdt.tensor(x, dtype=F32, device=device)


def _gamma_log_prob(c, r, x):
    return c * math.log(r) + (c - 1) * math.log(x) - r * x - math.lgamma(c)


def test_gamma_log_prob_in_parameters_dtype(device):
    d = D.Gamma(_f32([1.5], device), _f32([2.0], device))
    x = pdt.tensor([0.3], dtype=F64, device=device)
    lp = d.log_prob(x)
    assert lp.dtype == F32
    np.testing.assert_allclose(lp.cpu().numpy(), [_gamma_log_prob(1.5, 2.0, 0.3)], rtol=1e-6)
    assert d.cdf(x).dtype == F64  # cdf keeps the promoted dtype, as PyTorch's
    chi = D.Chi2(_f32([3.0], device))
    lp = chi.log_prob(x)
    assert lp.dtype == F32
    np.testing.assert_allclose(lp.cpu().numpy(), [_gamma_log_prob(1.5, 0.5, 0.3)], rtol=1e-6)
    # float64 parameters keep a float32 value's log_prob in float64
    d64 = D.Gamma(pdt.tensor([1.5], dtype=F64, device=device), 2.0)
    assert d64.log_prob(pdt.tensor([0.3], dtype=F32, device=device)).dtype == F64


def test_half_cauchy_log_prob_in_parameters_dtype(device):
    d = D.HalfCauchy(_f32([2.0], device))
    lp = d.log_prob(pdt.tensor([0.3], dtype=F64, device=device))
    assert lp.dtype == F32
    expected = math.log(2 / (math.pi * 2.0 * (1 + (0.3 / 2.0) ** 2)))
    np.testing.assert_allclose(lp.cpu().numpy(), [expected], rtol=1e-6)


@pytest.mark.parametrize("params,value,expected", [(F32, F64, F32), (F64, F32, F64)])
def test_multivariate_normal_log_prob_in_scale_dtype(device, params, value, expected):
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    d = D.MultivariateNormal(pdt.tensor([0.0, 0.0], dtype=params, device=device),
                             pdt.tensor(cov, dtype=params, device=device))
    x = np.array([0.3, 0.1])
    lp = d.log_prob(pdt.tensor(x, dtype=value, device=device))
    assert lp.dtype == expected
    ref = -0.5 * (2 * math.log(2 * math.pi) + math.log(np.linalg.det(cov))
                  + x @ np.linalg.solve(cov, x))
    np.testing.assert_allclose(lp.cpu().numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("make", [lambda f: D.Normal(f([0.5]), f([1.5])),
                                  lambda f: D.Exponential(f([2.0])),
                                  lambda f: D.Beta(f([1.5]), f([2.0])),
                                  lambda f: D.InverseGamma(f([3.0]), f([4.0]))])
def test_other_distributions_keep_the_promoted_dtype(device, make):
    d = make(lambda x: _f32(x, device))
    assert d.log_prob(pdt.tensor([0.3], dtype=F64, device=device)).dtype == F64


def test_bernoulli_log_prob_in_the_value_dtype(device):
    d = D.Bernoulli(pdt.tensor([0.3, 0.8], dtype=F64, device=device))
    lp = d.log_prob(pdt.tensor([1.0, 0.0], dtype=F32, device=device))
    assert lp.dtype == F32
    np.testing.assert_allclose(lp.cpu().numpy(), np.log([0.3, 0.2]), rtol=1e-6)
    lp = D.Bernoulli(_f32([0.3], device)).log_prob(pdt.tensor([1.0], dtype=F64, device=device))
    assert lp.dtype == F64
    # an integer value keeps the parameters' dtype (PyTorch refuses it)
    lp = d.log_prob(pdt.tensor([1, 0], device=device))
    assert lp.dtype == F64
    np.testing.assert_allclose(lp.cpu().numpy(), np.log([0.3, 0.2]), rtol=1e-14)
