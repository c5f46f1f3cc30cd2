"""linalg.matrix_exp (pydevtensor/_linalg_exp.py) on every device against closed forms
(diagonal, nilpotent and rotation generator matrices) and a float64 Taylor series with
scaling and squaring in NumPy, for every Pade degree and for matrices past theta_13;
its gradient against central differences."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(np.asarray(a), dtype=dtype, device=device)


def _taylor(a):
    """exp(a) for one matrix: the series of a / 2^s (norm below 1/2), squared s times."""
    s = max(0, int(math.ceil(math.log2(max(np.abs(a).sum(0).max(), 1e-300) * 2))))
    x = a / 2.0 ** s
    term, out = np.eye(len(a)), np.eye(len(a))
    for k in range(1, 40):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _close(got, ref, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(got.detach().cpu().numpy(), ref, rtol=rtol, atol=atol)


def test_closed_forms(device):
    d = np.array([-3., 0.5, 2., 7.])
    _close(pdt.linalg.matrix_exp(_t(np.diag(d), device)), np.diag(np.exp(d)))
    n = np.diag([1., 2., 3.], 1)  # nilpotent: exp(N) = I + N + N^2/2 + N^3/6
    _close(pdt.matrix_exp(_t(n, device)), np.eye(4) + n + n @ n / 2 + n @ n @ n / 6)
    for theta in (0.01, 0.7, 2.0, 30.0):  # every degree and past theta_13
        g = _t([[0., -theta], [theta, 0.]], device)
        c, s = math.cos(theta), math.sin(theta)
        _close(g.matrix_exp(), np.array([[c, -s], [s, c]]), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("scale", [0.003, 0.05, 0.2, 0.5, 1.0, 3.0, 50.0])
def test_against_taylor(device, scale):
    """Random 5 x 5 matrices of 1-norm about scale * 5: each scale picks a degree (3, 5,
    7, 9, 13, 13 with squarings); a batch whose matrices need different squarings."""
    rng = np.random.default_rng(int(scale * 1000))
    a = rng.standard_normal((3, 5, 5)) * scale / 2
    a[1] /= 8  # fewer squarings than its neighbours
    got = pdt.linalg.matrix_exp(_t(a, device))
    ref = np.stack([_taylor(x) for x in a])
    assert got.device == device and tuple(got.shape) == (3, 5, 5)
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-11 * max(1, scale),
                               atol=1e-11 * np.abs(ref).max())
    got32 = pdt.linalg.matrix_exp(_t(a, device, pdt.float32))
    assert got32.dtype == pdt.float32
    np.testing.assert_allclose(got32.cpu().numpy(), ref, rtol=1e-4 * max(1, scale),
                               atol=1e-5 * np.abs(ref).max())


def test_empty_nan_and_bad_inputs(device):
    assert tuple(pdt.linalg.matrix_exp(pdt.ones(2, 0, 0, device=device)).shape) == (2, 0, 0)
    a = np.zeros((2, 2, 2))
    a[0, 0, 0] = np.nan
    got = pdt.linalg.matrix_exp(_t(a, device)).cpu().numpy()
    assert np.isnan(got[0]).any() and np.array_equal(got[1], np.eye(2))  # only its own
    with pytest.raises(RuntimeError, match=r"linalg\.matrix_exp: The input tensor A must have "
                       r"at least 2 dimensions"):
        pdt.linalg.matrix_exp(pdt.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"A must be batches of square matrices, but they "
                       r"are 2 by 3 matrices"):
        pdt.linalg.matrix_exp(pdt.ones(2, 3, device=device))
    with pytest.raises(NotImplementedError, match=r"linalg\.matrix_exp: Expected a floating "
                       r"point tensor as input. Got Long"):
        pdt.linalg.matrix_exp(pdt.ones(2, 2, dtype=pdt.int64, device=device))


@pytest.mark.parametrize("scale", [0.1, 1.0, 4.0, 20.0])
def test_gradcheck(device, scale):
    rng = np.random.default_rng(1)
    gradcheck(pdt.linalg.matrix_exp, [rng.standard_normal((2, 3, 3)) * scale / 3], device)
