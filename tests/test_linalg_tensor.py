"""linalg.tensorinv, linalg.tensorsolve and linalg.householder_product (orgqr) against
NumPy (tensorinv, tensorsolve, the raw QR's reflectors) and the explicit product of the
reflectors; their gradients against central differences; PyTorch's errors."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.autograd import gradcheck

LA = pdt.linalg


def _t(a, device, requires_grad=False):
    return pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=requires_grad)


@pytest.mark.parametrize("shape,ind", [((4, 6, 8, 3), 2), ((6, 2, 3), 1), ((2, 3, 6), 2)])
def test_tensorinv_as_numpy(device, shape, ind):
    a = np.random.default_rng(1).standard_normal(shape)
    got = LA.tensorinv(_t(a, device), ind=ind)
    assert got.device == _t(a, device).device
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.tensorinv(a, ind), rtol=1e-9,
                               atol=1e-11)
    assert gradcheck(lambda x: LA.tensorinv(x, ind), (_t(a, device, True),))


@pytest.mark.parametrize("a_shape,b_shape,dims", [((2, 3, 6), (2, 3), None),
                                                 ((2, 3, 2, 3), (2, 3), None),
                                                 ((6, 2, 3), (2, 3), (0,)),
                                                 ((2, 3, 4, 6), (3, 4), (0,)),
                                                 ((4, 6, 4, 6), (4, 6), (1, 0))])
def test_tensorsolve_as_numpy(device, a_shape, b_shape, dims):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    got = LA.tensorsolve(_t(a, device), _t(b, device), dims=dims)
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.tensorsolve(a, b, axes=dims),
                               rtol=1e-9, atol=1e-11)
    assert gradcheck(lambda x, y: LA.tensorsolve(x, y, dims),
                     (_t(a, device, True), _t(b, device, True)))


def _reflectors_product(a, tau):
    """NumPy: the first n columns of (I - tau_1 v_1 v_1^T) ... (I - tau_k v_k v_k^T)."""
    m, n = a.shape
    q = np.eye(m)
    for i, t in enumerate(tau):
        v = np.zeros(m)
        v[i], v[i + 1:] = 1.0, a[i + 1:, i]
        q = q @ (np.eye(m) - t * np.outer(v, v))
    return q[:, :n]


@pytest.mark.parametrize("m,n,k", [(5, 3, 3), (4, 4, 2), (6, 2, 0), (3, 3, 3)])
def test_householder_product_as_the_explicit_product(device, m, n, k):
    rng = np.random.default_rng(3)
    a, tau = rng.standard_normal((2, m, n)), rng.standard_normal((2, k))
    got = LA.householder_product(_t(a, device), _t(tau, device)).cpu().numpy()
    for i in range(2):
        np.testing.assert_allclose(got[i], _reflectors_product(a[i], tau[i]), rtol=1e-12,
                                   atol=1e-12)
    np.testing.assert_array_equal(pdt.orgqr(_t(a, device), _t(tau, device)).cpu().numpy(),
                                  got)
    assert gradcheck(LA.householder_product, (_t(a, device, True), _t(tau, device, True)))


def test_householder_product_of_the_raw_qr_is_q(device):
    """NumPy's qr(mode='raw') gives LAPACK's reflectors (h transposed) and tau:
    householder_product of them is the reduced Q."""
    a = np.random.default_rng(4).standard_normal((7, 4))
    h, tau = np.linalg.qr(a, mode="raw")
    q = LA.householder_product(_t(h.T.copy(), device), _t(tau, device)).cpu().numpy()
    np.testing.assert_allclose(q, np.linalg.qr(a)[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-13)


def test_errors_as_torch(device):
    z = pdt.zeros(4, 6, 8, 3, device=device)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[ind:\]\) == prod\(self.shape"
                                           r"\[:ind\]\), but got 144 != 4"):
        LA.tensorinv(z, ind=1)
    with pytest.raises(RuntimeError, match="strictly positive integer for 'ind', but got 0"):
        LA.tensorinv(z, ind=0)
    with pytest.raises(RuntimeError, match=r"but got 5 != 6 \(A of shape \(2, 3, 5\)"):
        LA.tensorsolve(pdt.ones(2, 3, 5, device=device), pdt.ones(2, 3, device=device))
    hp = LA.householder_product
    for a, tau, msg in [((5,), (3,), "at least 2 dimensions"),
                        ((3, 5), (3,), r"input.shape\[-2\] must be greater than or equal"),
                        ((5, 3), (4,), r"input.shape\[-1\] must be greater than or equal to "
                                       r"tau.shape\[-1\]"),
                        ((2, 5, 3), (3,), "one dimension less than input"),
                        ((2, 5, 3), (3, 3), r"batch dimensions of tau .* but got \[3\]")]:
        with pytest.raises(RuntimeError, match=msg):
            hp(pdt.ones(*a, device=device), pdt.ones(*tau, device=device))
    with pytest.raises(RuntimeError, match="tau dtype pydevtensor.float64 does not match"):
        hp(pdt.ones(5, 3, device=device), pdt.ones(3, dtype=pdt.float64, device=device))
