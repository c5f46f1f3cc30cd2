"""pdist (also nn.functional.pdist), mvlgamma (special.multigammaln, Tensor.mvlgamma and
mvlgamma_) and the aliases trapz, ger and Tensor.sgn_, on every device: against NumPy
loops and math.lgamma in float64 (within 1e-13 relative: a few roundings), gradients by
central differences."""
import itertools
import math

import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.from_numpy(np.array(a, dtype=np.float64)).to(device)


def _np_pdist(x, p):
    out = []
    for i, j in itertools.combinations(range(len(x)), 2):
        d = np.abs(x[i] - x[j])
        out.append(np.count_nonzero(d) if p == 0 else d.max() if p == math.inf
                   else (d ** p).sum() ** (1 / p))
    return np.array(out)


@pytest.mark.parametrize("p", [0, 0.5, 1, 2, 3, math.inf])
def test_pdist_against_numpy(device, p):
    x = np.random.default_rng(0).standard_normal((5, 3))
    x[3] = x[1]  # a zero distance
    out = pdt.pdist(_t(x, device), p)
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    np.testing.assert_allclose(out.cpu().numpy(), _np_pdist(x, p), rtol=1e-13, atol=0)
    np.testing.assert_allclose(pdt.nn.functional.pdist(_t(x, device), p=p).cpu().numpy(),
                               _np_pdist(x, p), rtol=1e-13, atol=0)


def test_pdist_small_and_empty(device):
    assert tuple(pdt.pdist(_t(np.ones((1, 3)), device)).shape) == (0,)
    assert tuple(pdt.pdist(_t(np.ones((0, 3)), device)).shape) == (0,)
    assert pdt.pdist(pdt.ones(2, 2, device=device)).dtype == pdt.float32
    with pytest.raises(RuntimeError, match="only supports 2D tensors, got: 3D"):
        pdt.pdist(pdt.ones(2, 2, 2, device=device))
    with pytest.raises(RuntimeError, match="non-negative p"):
        pdt.pdist(pdt.ones(2, 2, device=device), -0.5)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_pdist_gradients(device, p):
    x = np.random.default_rng(1).standard_normal((4, 3))
    gradcheck(lambda a: pdt.pdist(a, p), [x], device)


def test_pdist_zero_distance_has_zero_gradient(device):
    x = _t([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]], device).requires_grad_()
    pdt.pdist(x).sum().backward()
    r = 1 / math.sqrt(2)
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[-r, -r], [-r, -r], [2 * r, 2 * r]],
                               rtol=1e-15)


def _np_mvlgamma(a, p):
    return p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(a - i / 2) for i in range(p))


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma_against_lgamma(device, p):
    a = np.array([2.1, 2.5, 3.0, 7.25, 40.0])
    expect = [_np_mvlgamma(v, p) for v in a]
    for out in (pdt.mvlgamma(_t(a, device), p), _t(a, device).mvlgamma(p),
                pdt.special.multigammaln(_t(a, device), p=p)):
        assert out.dtype == pdt.float64
        np.testing.assert_allclose(out.cpu().numpy(), expect, rtol=1e-13)
    x = _t(a, device)
    assert x.mvlgamma_(p) is x
    np.testing.assert_allclose(x.cpu().numpy(), expect, rtol=1e-13)


def test_mvlgamma_integer_input_and_errors(device):
    out = pdt.mvlgamma(pdt.tensor([2, 3], device=device), 2)
    assert out.dtype == pdt.float32
    np.testing.assert_allclose(out.cpu().numpy(), [_np_mvlgamma(2, 2), _np_mvlgamma(3, 2)],
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1, got 0"):
        pdt.mvlgamma(pdt.ones(2, device=device), 0)
    with pytest.raises(RuntimeError, match="can't be cast"):
        pdt.tensor([2, 3], device=device).mvlgamma_(1)


def test_mvlgamma_gradient(device):
    gradcheck(lambda a: pdt.mvlgamma(a, 3), [np.array([1.7, 2.5, 4.0])], device)


def test_trapz_ger_sgn_(device):
    y = _t([1.0, 2.0, 4.0], device)
    x = _t([0.0, 1.0, 3.0], device)
    assert pdt.trapz(y, x).item() == np.trapezoid([1, 2, 4], [0, 1, 3]) == 7.5
    assert pdt.trapz(y, dx=2.0).item() == 9.0
    np.testing.assert_array_equal(pdt.ger(y, x).cpu().numpy(), np.outer([1, 2, 4], [0, 1, 3]))
    z = _t([-1.5, 0.0, 2.0, -0.0], device)
    assert z.sgn_() is z
    np.testing.assert_array_equal(z.cpu().numpy(), [-1.0, 0.0, 1.0, 0.0])
