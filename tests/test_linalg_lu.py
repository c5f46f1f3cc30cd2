"""linalg.lu_factor, lu_factor_ex, lu, lu_solve and lu_unpack (pydevtensor/_linalg_lu.py)
on every device, against a NumPy float64 LU with partial pivoting (LAPACK's getf2: the
first row of the largest magnitude is the pivot) and np.linalg.solve; the gradients of
lu, lu_factor, lu_solve and lu_unpack against central differences."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

SHAPES = [(3, 3), (4, 2), (2, 5), (2, 3, 3), (2, 1, 4, 3), (0, 3, 3), (1, 1)]


def _lu_ref(a):
    """(LU, 1-based pivots) of one matrix: getf2's partial pivoting."""
    lu = np.array(a, dtype=np.float64)
    m, n = lu.shape
    piv = []
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        piv.append(p + 1)
        lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, np.array(piv, dtype=np.int32)


def _ref(a):
    """(LU, pivots, P, L, U) for a batch."""
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = a.reshape((-1, m, n))
    LU = np.zeros_like(flat)
    piv = np.zeros((flat.shape[0], k), dtype=np.int32)
    P = np.zeros((flat.shape[0], m, m))
    for b in range(flat.shape[0]):
        LU[b], piv[b] = _lu_ref(flat[b])
        perm = list(range(m))
        for j, p in enumerate(piv[b]):
            perm[j], perm[p - 1] = perm[p - 1], perm[j]
        P[b][perm, range(m)] = 1  # P^T A holds A's rows in the order perm
    batch = a.shape[:-2]
    LU, piv, P = LU.reshape(a.shape), piv.reshape(batch + (k,)), P.reshape(batch + (m, m))
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k)
    U = np.triu(LU[..., :k, :])
    return LU, piv, P, L, U


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(np.asarray(a), dtype=dtype, device=device)


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("shape", SHAPES)
def test_lu_factor_and_lu_match_numpy(device, shape):
    a = np.random.default_rng(len(shape) + shape[-1]).standard_normal(shape)
    LU, piv, P, L, U = _ref(a)
    A = _t(a, device)
    got = pdt.linalg.lu_factor(A)
    assert got.pivots.dtype == pdt.int32 and got.LU.device == device
    np.testing.assert_allclose(_np(got.LU), LU, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(_np(got.pivots), piv)
    ex = pdt.linalg.lu_factor_ex(A)
    np.testing.assert_array_equal(_np(ex.pivots), piv)
    assert ex.info.dtype == pdt.int32 and tuple(ex.info.shape) == shape[:-2]
    assert not _np(ex.info).any()
    p, lo, up = pdt.linalg.lu(A)
    np.testing.assert_array_equal(_np(p), P)
    np.testing.assert_allclose(_np(lo), L, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(up), U, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(p @ lo @ up), a, rtol=1e-12, atol=1e-12)
    unpacked = pdt.lu_unpack(got.LU, got.pivots)
    for x, y in zip(unpacked, (P, L, U)):
        np.testing.assert_allclose(_np(x), y, rtol=1e-12, atol=1e-12)


def test_float32_and_the_unpack_flags(device):
    a = np.random.default_rng(3).standard_normal((2, 4, 4))
    LU, piv = pdt.linalg.lu_factor(_t(a, device, pdt.float32))
    assert LU.dtype == pdt.float32
    np.testing.assert_allclose(_np(LU), _ref(a)[0], rtol=1e-4, atol=1e-4)
    P, L, U = pdt.lu_unpack(LU, piv, unpack_data=False)
    assert tuple(L.shape) == (0,) and tuple(U.shape) == (0,) and tuple(P.shape) == (2, 4, 4)
    P, L, U = pdt.lu_unpack(LU, piv, unpack_pivots=False)
    assert tuple(P.shape) == (0,) and P.dtype == pdt.float32 and tuple(L.shape) == (2, 4, 4)


def test_singular(device):
    z = pdt.zeros(2, 2, device=device)
    ex = pdt.linalg.lu_factor_ex(z)
    assert int(ex.info) == 1 and _np(ex.pivots).tolist() == [1, 2]
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.lu_factor: U\[0,0\] is zero"):
        pdt.linalg.lu_factor(z)
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.lu_factor_ex: \(Batch element "
                       r"1\): U\[1,1\] is zero"):
        pdt.linalg.lu_factor_ex(_t([[[1., 0.], [0., 1.]], [[1., 2.], [2., 4.]]], device),
                                check_errors=True)
    # rank 1, wide and tall: the second pivot is zero, the padding's are not counted
    for a in ([[1., 2., 3.], [2., 4., 6.]], [[1., 2.], [2., 4.], [0., 0.]]):
        assert int(pdt.linalg.lu_factor_ex(_t(a, device)).info) == 2
    assert int(pdt.linalg.lu_factor_ex(_t([[1., 2., 3.], [2., 5., 6.]], device)).info) == 0
    np.testing.assert_array_equal(_np(pdt.linalg.lu(z).U), np.zeros((2, 2)))  # no error


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
@pytest.mark.parametrize("grad", [False, True])
def test_lu_solve(device, left, adjoint, grad):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 1, 4, 4)), rng.standard_normal((3, 4, 2))
    b = b if left else np.swapaxes(b, -1, -2)
    LU, piv = pdt.linalg.lu_factor(_t(a, device))
    B = _t(b, device).requires_grad_(grad)
    got = pdt.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
    op = np.swapaxes(a, -1, -2) if adjoint else a
    ref = np.linalg.solve(op, b) if left else np.swapaxes(
        np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    assert tuple(got.shape) == ref.shape == (2, 3) + b.shape[-2:]
    np.testing.assert_allclose(_np(got), ref, rtol=1e-10, atol=1e-10)


def test_pivot_false_and_bad_inputs(device):
    A = pdt.eye(3, device=device)
    where = "on the CPU" if device.type == "cpu" else "in pydevtensor"
    for f in (pdt.linalg.lu_factor, pdt.linalg.lu_factor_ex, pdt.linalg.lu):
        with pytest.raises(RuntimeError, match=f"LU without pivoting is not implemented {where}"):
            f(A, pivot=False)
    with pytest.raises(RuntimeError, match=r"linalg\.lu: Expected tensor with 2 or more "
                       r"dimensions. Got size: \[3\]"):
        pdt.linalg.lu(pdt.ones(3, device=device))
    with pytest.raises(NotImplementedError, match=r"Expected a floating point tensor as input. "
                       r"Got Long"):
        pdt.linalg.lu_factor(pdt.ones(2, 2, dtype=pdt.int64, device=device))
    LU, piv = pdt.linalg.lu_factor(A)
    with pytest.raises(RuntimeError, match=r"pivots should be a Tensor of scalar type "
                       r"pydevtensor\.int32, got pydevtensor\.int64"):
        pdt.linalg.lu_solve(LU, piv.long(), pdt.ones(3, 1, device=device))
    with pytest.raises(RuntimeError, match=r"pivots of shape \(2,\) do not fit LU of shape "
                       r"\(3, 3\): expected \(3,\)"):
        pdt.lu_unpack(LU, piv[:2])
    with pytest.raises(RuntimeError, match=r"The input tensor B must have at least 2 dim"):
        pdt.linalg.lu_solve(LU, piv, pdt.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B for the equation "
                       r"XA = B: LU \(3, 3\), B \(3, 2\)"):
        pdt.linalg.lu_solve(LU, piv, pdt.ones(3, 2, device=device), left=False)
    with pytest.raises(RuntimeError, match=r"LU must be batches of square matrices"):
        pdt.linalg.lu_solve(LU[:2], piv[:2], pdt.ones(2, 1, device=device))


def _lu_parts(a):
    P, L, U = pdt.linalg.lu(a)
    return pdt.cat([L.reshape(-1), U.reshape(-1)])


GRAD_CASES = {
    "lu-square": (_lu_parts, [(2, 4, 4)]),
    "lu-tall": (_lu_parts, [(5, 3)]),
    "lu-wide": (_lu_parts, [(2, 3, 5)]),
    "lu-L-only-wide": (lambda a: pdt.linalg.lu(a).L, [(3, 5)]),
    "lu-U-only-tall": (lambda a: pdt.linalg.lu(a).U, [(5, 3)]),
    "lu_factor-square": (lambda a: pdt.linalg.lu_factor(a).LU, [(2, 4, 4)]),
    "lu_factor-tall": (lambda a: pdt.linalg.lu_factor(a).LU, [(5, 3)]),
    "lu_factor_ex-wide": (lambda a: pdt.linalg.lu_factor_ex(a).LU, [(3, 5)]),
    "lu_unpack": (lambda lu: pdt.cat([t.reshape(-1) for t in pdt.lu_unpack(
        lu, pdt.tensor([2, 3, 3], dtype=pdt.int32, device=lu.device))[1:]]), [(3, 4)]),
}
for _left in (True, False):
    for _adj in (True, False):
        GRAD_CASES[f"lu_solve-left{_left}-adjoint{_adj}"] = (
            lambda a, b, left=_left, adj=_adj: pdt.linalg.lu_solve(
                *pdt.linalg.lu_factor(a), b if left else b.mT, left=left, adjoint=adj),
            [(2, 3, 3), (3, 2)])


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradcheck(device, case):
    fn, shapes = GRAD_CASES[case]
    rng = np.random.default_rng(11)
    gradcheck(fn, [rng.standard_normal(s) for s in shapes], device)


def test_gradient_of_lu_solve_through_the_factor(device):
    """lu_solve(lu_factor(A), B) differentiates as solve(A, B)."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
    grads = []
    for f in (lambda A, B: pdt.linalg.lu_solve(*pdt.linalg.lu_factor(A), B), pdt.linalg.solve):
        A, B = _t(a, device).requires_grad_(), _t(b, device).requires_grad_()
        (f(A, B) * _t(np.arange(6.).reshape(3, 2), device)).sum().backward()
        grads.append((_np(A.grad), _np(B.grad)))
    for x, y in zip(*grads):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-10)
