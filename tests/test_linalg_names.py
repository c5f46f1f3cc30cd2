"""linalg.vander, linalg.diagonal, linalg.matmul and cholesky_inverse
(pydevtensor/_linalg_names.py) on every device against NumPy float64; the gradients of
vander and cholesky_inverse against central differences."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(np.asarray(a), dtype=dtype, device=device)


def test_vander(device):
    x = np.random.default_rng(0).standard_normal((2, 4))
    got = pdt.linalg.vander(_t(x, device))
    assert tuple(got.shape) == (2, 4, 4) and got.device == device
    np.testing.assert_allclose(got.cpu().numpy(), x[..., None] ** np.arange(4), rtol=1e-14)
    np.testing.assert_allclose(pdt.linalg.vander(_t(x[0], device), N=6).cpu().numpy(),
                               np.vander(x[0], 6, increasing=True), rtol=1e-14)
    ints = pdt.linalg.vander(pdt.tensor([1, 2], device=device))
    assert ints.dtype == pdt.int64 and ints.cpu().numpy().tolist() == [[1, 1], [1, 2]]
    with pytest.raises(RuntimeError, match=r"linalg\.vander: N must be greater than 1, got 1"):
        pdt.linalg.vander(_t(x, device), N=1)
    with pytest.raises(RuntimeError, match=r"linalg\.vander: x must have at least 1 dim"):
        pdt.linalg.vander(_t(1.0, device))


def test_diagonal_and_matmul(device):
    a = np.arange(24.).reshape(2, 3, 4)
    A = _t(a, device)
    np.testing.assert_array_equal(pdt.linalg.diagonal(A).cpu().numpy(),
                                  np.diagonal(a, 0, -2, -1))
    np.testing.assert_array_equal(pdt.linalg.diagonal(A, offset=1, dim1=0, dim2=2).cpu().numpy(),
                                  np.diagonal(a, 1, 0, 2))
    b = np.arange(8.).reshape(4, 2)
    np.testing.assert_array_equal(pdt.linalg.matmul(A, _t(b, device)).cpu().numpy(), a @ b)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(device, upper):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 3))
    a = x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)
    L = np.linalg.cholesky(a)
    F = _t(np.swapaxes(L, -1, -2) if upper else L, device)
    np.testing.assert_allclose(pdt.cholesky_inverse(F, upper).cpu().numpy(), np.linalg.inv(a),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(F.cholesky_inverse(upper=upper).cpu().numpy(), np.linalg.inv(a),
                               rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError, match=r"cholesky_inverse: A must be batches of square "
                       r"matrices, but they are 2 by 3"):
        pdt.cholesky_inverse(pdt.ones(2, 3, device=device))


def test_gradients(device):
    rng = np.random.default_rng(8)
    gradcheck(lambda x: pdt.linalg.vander(x, N=4), [rng.standard_normal((2, 3))], device)
    low = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    gradcheck(lambda f: pdt.cholesky_inverse(f), [low], device)
