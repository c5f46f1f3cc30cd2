"""geqrf, orgqr and ormqr (PyTorch's top-level Householder QR names).

geqrf is checked against NumPy's QR (np.linalg.qr): R agrees up to the signs of its
rows, Q formed from the reflectors (written here from LAPACK's definition,
H_i = I - tau_i v_i v_i^T) up to the signs of its columns, and Q R is the input.  ormqr
is compared with products by that Q, and its gradients with finite differences.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


def ref_q(a, tau):
    """The full (mn x mn) Q = H_1 ... H_k of geqrf's form (a (mn, k'), tau (k,))."""
    mn = a.shape[0]
    q = np.eye(mn)
    for i in range(tau.shape[0]):
        v = np.zeros(mn)
        v[i] = 1.0
        v[i + 1:] = a[i + 1:, i]
        q = q @ (np.eye(mn) - tau[i] * np.outer(v, v))
    return q


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_geqrf_is_numpys_qr(device, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    A = rng.standard_normal(shape).astype(dtype)
    a, tau = pdt.geqrf(_t(A, device))
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(a.shape) == shape and tuple(tau.shape) == shape[:-2] + (k,)
    assert a.dtype == tau.dtype == pdt.from_numpy(A).dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for A1, a1, tau1 in zip(A.reshape(-1, m, n), a.cpu().numpy().reshape(-1, m, n),
                            tau.cpu().numpy().reshape(-1, k)):
        q_np, r_np = np.linalg.qr(A1.astype(np.float64))
        r = np.triu(a1)[:k]
        signs = np.sign(np.diag(r)) * np.sign(np.diag(r_np))
        np.testing.assert_allclose(r, signs[:, None] * r_np, rtol=tol, atol=tol)
        q = ref_q(a1.astype(np.float64), tau1.astype(np.float64))[:, :k]
        np.testing.assert_allclose(q, q_np * signs, rtol=tol, atol=tol)
        np.testing.assert_allclose(q @ r, A1, rtol=tol, atol=tol)
        # LAPACK's reflectors: each H_i orthogonal (tau_i = 2 / |v_i|^2), tau in [1, 2],
        # and none (tau 0) for a last row with nothing below it
        assert np.all((tau1[:m - 1] >= 1 - tol) & (tau1[:m - 1] <= 2 + tol))
        assert np.all(tau1[m - 1:] == 0)
    # orgqr forms Q from them
    q = pdt.orgqr(a[..., :, :k], tau).cpu().numpy()
    np.testing.assert_allclose(q @ np.triu(a.cpu().numpy())[..., :k, :], A, rtol=tol,
                               atol=tol)


def test_geqrf_has_no_derivative(device):
    x = _t(np.eye(3), device).requires_grad_()
    a, tau = x.geqrf()
    assert a.requires_grad and tau.requires_grad
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not "
                                                  "implemented"):
        a.sum().backward()
    with pdt.no_grad():
        assert not pdt.geqrf(x)[0].requires_grad


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("mn,cols", [(5, 3), (4, 6), (3, 3)])
def test_ormqr_multiplies_by_q(device, left, transpose, mn, cols):
    rng = np.random.default_rng(mn * cols + 2 * left + transpose)
    other = (mn, 3) if left else (2, mn)
    k = min(mn, cols)
    A = rng.standard_normal((2, mn, cols))
    tau = rng.standard_normal((2, k))
    C = rng.standard_normal((2,) + other)
    got = pdt.ormqr(_t(A, device), _t(tau, device), _t(C, device), left, transpose)
    for i in range(2):
        q = ref_q(A[i], tau[i])
        q = q.T if transpose else q
        ref = q @ C[i] if left else C[i] @ q
        np.testing.assert_allclose(got[i].cpu().numpy(), ref, rtol=1e-12, atol=1e-12)


def test_ormqr_gradients(device):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((5, 3)), rng.standard_normal(3), rng.standard_normal((5, 2))]
    gradcheck(lambda a, t, c: pdt.ormqr(a, t, c), arrays, device)
    arrays[2] = rng.standard_normal((2, 5))
    gradcheck(lambda a, t, c: pdt.ormqr(a, t, c, left=False, transpose=True), arrays, device)


def test_ormqr_of_geqrf_is_q_r_and_a_new_tensor(device):
    A = _t(np.arange(12.).reshape(4, 3) ** 1.5, device)
    a, tau = pdt.geqrf(A)
    np.testing.assert_allclose(a.ormqr(tau, a.triu()[..., :4, :]).cpu().numpy(),
                               A.cpu().numpy(), rtol=1e-12, atol=1e-12)
    c = _t(np.ones((4, 2)), device)
    same = pdt.ormqr(a[:, :0], tau[:0], c)
    assert same.data_ptr() != c.data_ptr()


def test_ormqr_errors(device):
    A, tau, C = (_t(np.zeros(s), device) for s in ((5, 3), (3,), (5, 4)))
    with pytest.raises(RuntimeError, match=r"other.shape\[-1\] must be equal to "
                                           r"input.shape\[-2\]"):
        pdt.ormqr(A, tau, C, left=False)
    with pytest.raises(RuntimeError, match=r"tau.shape\[-1\] must be equal to "
                                           r"min\(other.shape\[-2\], input.shape\[-1\]\)"):
        pdt.ormqr(A, tau[:2], C)
    with pytest.raises(RuntimeError, match="input and tau to have the same dtype"):
        pdt.ormqr(A, tau.float(), C)
    with pytest.raises(RuntimeError, match="other must have at least 2 dimensions"):
        pdt.ormqr(A, tau, C[0])
    with pytest.raises(RuntimeError, match="batch dimensions of other"):
        pdt.ormqr(A.expand(2, 5, 3), tau.expand(2, 3), C.expand(3, 5, 4))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        pdt.geqrf(tau)


def test_keyword_names_are_pytorchs(device):
    """ormqr(input, input2, input3, left, transpose) and orgqr(input, input2): PyTorch's
    keyword names (tau and other are input2 and input3), for the functions and methods;
    orgqr writes out= as householder_product does."""
    rng = np.random.default_rng(7)
    A, C = _t(rng.standard_normal((4, 3)), device), _t(rng.standard_normal((2, 4)), device)
    a, tau = pdt.geqrf(A)
    q = ref_q(a.cpu().numpy(), tau.cpu().numpy())
    want = C.cpu().numpy() @ q.T
    for got in (pdt.ormqr(input=a, input2=tau, input3=C, left=False, transpose=True),
                a.ormqr(input2=tau, input3=C, left=False, transpose=True)):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    for got in (pdt.orgqr(input=a, input2=tau), a.orgqr(input2=tau)):
        np.testing.assert_allclose(got.cpu().numpy(), q[:, :3], rtol=1e-12, atol=1e-12)
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    assert pdt.orgqr(a, tau, out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), q[:, :3], rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="tau"):
        pdt.ormqr(a, tau=tau, input3=C)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 5, 3), (2, 3, 1)])
def test_geqrf_a_is_column_major_also_in_out(device, shape):
    """geqrf's a has LAPACK's (and PyTorch's) column-major strides (..., 1, m) for
    (..., m, n) matrices, and an empty out a is given them too; a non-empty out keeps
    its own (row-major) strides; the values are the same in all three."""
    m, n = shape[-2:]
    want = (m * n,) * (len(shape) - 2) + (1, m)
    A = _t(np.random.default_rng(m * n).standard_normal(shape), device)
    a, tau = pdt.geqrf(A)
    assert a.stride() == want
    outs = (pdt.empty(0, dtype=pdt.float64, device=device),
            pdt.empty(0, dtype=pdt.float64, device=device))
    got = pdt.geqrf(A, out=outs)
    assert got.a is outs[0] and got.tau is outs[1]
    assert outs[0].stride() == want and tuple(outs[0].shape) == shape
    rows = (pdt.empty(shape, dtype=pdt.float64, device=device),
            pdt.empty(tau.shape, dtype=pdt.float64, device=device))
    pdt.geqrf(A, out=rows)
    assert rows[0].stride() == tuple(np.cumprod((1,) + shape[:0:-1])[::-1])
    for o in (outs, rows):
        np.testing.assert_array_equal(o[0].cpu().numpy(), a.cpu().numpy())
        np.testing.assert_array_equal(o[1].cpu().numpy(), tau.cpu().numpy())


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 5, 2)])
def test_orgqr_and_ormqr_results_are_column_major(device, shape):
    """householder_product (orgqr) and ormqr give LAPACK's (and PyTorch's) column-major
    (..., 1, m) strides, so that a following ``.mT.view(...)`` works as with PyTorch's
    (they were row-major); also for a row-major, column-major or right-hand other, and
    with no reflector; the values are the reflectors' Q's (ref_q)."""
    m, n = shape[-2:]
    rng = np.random.default_rng(m + n)
    a, tau = rng.standard_normal(shape), rng.standard_normal(shape[:-1][:-1] + (n,))
    A, T = _t(a, device), _t(tau, device)
    q = np.stack([ref_q(x, t) for x, t in zip(a.reshape(-1, m, n), tau.reshape(-1, n))])
    Q = pdt.linalg.householder_product(A, T)
    assert Q.stride() == (m * n,) * (len(shape) - 2) + (1, m)
    assert Q.mT.view(-1).numel() == Q.numel()
    np.testing.assert_allclose(Q.cpu().numpy().reshape(-1, m, n), q[:, :, :n], rtol=1e-12,
                               atol=1e-12)
    assert pdt.orgqr(A, T).stride() == Q.stride()
    c = rng.standard_normal(shape[:-2] + (m, 3))
    for other in (_t(c, device), _t(np.swapaxes(c, -1, -2), device).mT):
        R = pdt.ormqr(A, T, other)
        assert R.stride() == (m * 3,) * (len(shape) - 2) + (1, m)
        np.testing.assert_allclose(R.cpu().numpy().reshape(-1, m, 3),
                                   q @ c.reshape(-1, m, 3), rtol=1e-12, atol=1e-12)
    R = pdt.ormqr(A, T, _t(np.swapaxes(c, -1, -2), device), left=False, transpose=True)
    assert R.stride() == (m * 3,) * (len(shape) - 2) + (1, 3)
    np.testing.assert_allclose(R.cpu().numpy().reshape(-1, 3, m),
                               np.swapaxes(c, -1, -2).reshape(-1, 3, m) @ np.swapaxes(q, -1, -2),
                               rtol=1e-12, atol=1e-12)
    assert pdt.ormqr(A[..., :0], T[..., :0], _t(c, device)).stride()[-2:] == (1, m)


@pytest.mark.parametrize("shape", [(3, 0), (3, 2), (2, 3, 3)])
def test_householder_product_of_no_reflector_is_in_the_graph(device, shape):
    """With tau empty (k = 0) the result is the identity's first n columns, column-major,
    and differentiable in A and tau (zero gradients), as PyTorch's: backward through it
    raised 'element 0 of tensors does not require grad'."""
    m, n = shape[-2:]
    A = _t(np.random.default_rng(1).standard_normal(shape), device).requires_grad_()
    tau = pdt.zeros(shape[:-2] + (0,), dtype=pdt.float64, device=device, requires_grad=True)
    Q = pdt.linalg.householder_product(A, tau)
    assert Q.requires_grad and Q.stride()[-2:] == (1, m)
    np.testing.assert_array_equal(Q.detach().cpu().numpy(),
                                  np.broadcast_to(np.eye(m, n), shape))
    gA, gtau = pdt.autograd.grad(Q.sum(), [A, tau])
    assert not gA.cpu().numpy().any() and tuple(gtau.shape) == tuple(tau.shape)
