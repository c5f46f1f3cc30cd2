"""linalg.matrix_rank, pinv and cond (pydevtensor/_linalg_spectral.py) on every device,
against NumPy float64 (np.linalg.matrix_rank, pinv, cond) and torch where importable;
pinv's gradient against central differences (full rank: distinct singular values).
Tolerances: float64 1e-10 relative and absolute (matrices of size <= 6 with condition
numbers below ~100), float32 1e-4 relative."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

TOL = dict(rtol=1e-10, atol=1e-10)


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(np.asarray(a), dtype=dtype, device=device)


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _low_rank(rng, shape, rank):
    m, n = shape[-2:]
    return rng.standard_normal(shape[:-2] + (m, rank)) @ rng.standard_normal(
        shape[:-2] + (rank, n))


def test_matrix_rank(device):
    rng = np.random.default_rng(0)
    a = np.stack([_low_rank(rng, (5, 4), r) for r in (1, 2, 4)])
    got = pdt.linalg.matrix_rank(_t(a, device))
    assert got.dtype == pdt.int64 and got.device == device
    assert got.tolist() == [1, 2, 4] == np.linalg.matrix_rank(a).tolist()
    assert pdt.linalg.matrix_rank(_t(a, device, pdt.float32)).tolist() == [1, 2, 4]
    s = _t(np.diag([1.0, 1e-3, 1e-17]), device)
    assert pdt.linalg.matrix_rank(s).item() == 2
    assert pdt.linalg.matrix_rank(s, atol=1e-2).item() == 1
    assert pdt.linalg.matrix_rank(s, rtol=1e-2).item() == 1
    assert pdt.linalg.matrix_rank(s, atol=1e-18, rtol=0.0).item() == 3
    assert pdt.linalg.matrix_rank(s, tol=1e-4).item() == 2
    sym = _low_rank(rng, (4, 4), 2)
    sym = sym + sym.T
    assert pdt.linalg.matrix_rank(_t(sym, device), hermitian=True).item() == \
        np.linalg.matrix_rank(sym, hermitian=True)
    atol = _t([1e-2, 1e-18], device)
    assert pdt.linalg.matrix_rank(pdt.stack([s, s]), atol=atol).tolist() == [1, 3]


def test_matrix_rank_matches_torch(device):
    torch = torch_or_skip()
    a = _low_rank(np.random.default_rng(1), (2, 6, 3), 2)
    for kw in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"atol": 0.1, "rtol": 0.05}):
        assert pdt.linalg.matrix_rank(_t(a, device), **kw).tolist() == \
            torch.linalg.matrix_rank(torch.tensor(a), **kw).tolist()


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 5), (2, 4, 3)])
def test_pinv(device, shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape)
    got = pdt.linalg.pinv(_t(a, device))
    assert tuple(got.shape) == shape[:-2] + (shape[-1], shape[-2])
    np.testing.assert_allclose(_np(got), np.linalg.pinv(a), **TOL)
    got32 = pdt.linalg.pinv(_t(a, device, pdt.float32))
    np.testing.assert_allclose(_np(got32), np.linalg.pinv(a), rtol=1e-4, atol=1e-4)


def test_pinv_rank_deficient_and_hermitian(device):
    rng = np.random.default_rng(2)
    a = _low_rank(rng, (5, 4), 2)
    np.testing.assert_allclose(_np(pdt.linalg.pinv(_t(a, device))), np.linalg.pinv(a), **TOL)
    sym = a @ a.T  # 5 x 5, rank 2
    got = pdt.linalg.pinv(_t(sym, device), hermitian=True)
    np.testing.assert_allclose(_np(got), np.linalg.pinv(sym, hermitian=True), **TOL)
    got = pdt.linalg.pinv(_t(np.diag([2.0, 1e-3]), device), atol=1e-2)
    np.testing.assert_allclose(_np(got), np.diag([0.5, 0.0]), **TOL)


def test_pinv_gradient(device):
    rng = np.random.default_rng(3)
    gradcheck(lambda x: pdt.linalg.pinv(x), [rng.standard_normal((4, 3))], device)
    gradcheck(lambda x: pdt.linalg.pinv(x), [rng.standard_normal((2, 3, 3))], device)
    sym = rng.standard_normal((3, 3))
    gradcheck(lambda x: pdt.linalg.pinv(x + x.mT, hermitian=True), [sym], device)


def test_pinv_gradient_matches_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(4).standard_normal((3, 4))
    x = _t(a, device).requires_grad_()
    (pdt.linalg.pinv(x) ** 2).sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    (torch.linalg.pinv(xt) ** 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), **TOL)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1])
def test_cond(device, p):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    got = pdt.linalg.cond(_t(a, device), p)
    np.testing.assert_allclose(_np(got), np.linalg.cond(a, p), **TOL)


def test_cond_singular_and_rectangular(device):
    z = pdt.zeros(2, 2, dtype=pdt.float64, device=device)
    assert math.isinf(pdt.linalg.cond(z, "fro").item())
    a = np.random.default_rng(6).standard_normal((5, 3))
    np.testing.assert_allclose(_np(pdt.linalg.cond(_t(a, device))), np.linalg.cond(a), **TOL)
    with pytest.raises(RuntimeError, match="square"):
        pdt.linalg.cond(_t(a, device), 1)
    with pytest.raises(RuntimeError, match="invalid norm type"):
        pdt.linalg.cond(_t(a, device), 3)


def test_cond_nuc_of_singular_matrices(device):
    # the inverse's inf and NaN went to svdvals, which raised LinAlgError; PyTorch's: inf,
    # and ||0|| * inf = NaN for the zero matrix (as the 2-norm's 0 / 0)
    a = np.random.default_rng(7).standard_normal((3, 3)) + 3 * np.eye(3)
    batch = np.stack([np.zeros((3, 3)), np.diag([1.0, 2.0, 0.0]), np.ones((3, 3)), a])
    got = _np(pdt.linalg.cond(_t(batch, device), "nuc"))
    assert np.isnan(got[0]) and np.isinf(got[1]) and got[1] > 0 and np.isinf(got[2])
    np.testing.assert_allclose(got[3], np.linalg.cond(a, "nuc"), **TOL)
    assert math.isnan(pdt.linalg.cond(pdt.zeros(2, 2, device=device), "nuc").item())
    for p in ("fro", 1, -1, math.inf, -math.inf):  # inf for them all, the zero matrix too
        assert np.isinf(_np(pdt.linalg.cond(_t(batch[:3], device), p))).all()
    # the gradient of the regular matrix's, beside singular ones (whose are NaN, as
    # PyTorch's), is finite and cond's own, by central differences
    A = _t(batch, device).requires_grad_()
    pdt.linalg.cond(A, "nuc").sum().backward()
    g = _np(A.grad)
    assert np.isfinite(g[3]).all()
    h, fd = 1e-6, np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            e = np.zeros((3, 3))
            e[i, j] = h
            fd[i, j] = (np.linalg.cond(a + e, "nuc") - np.linalg.cond(a - e, "nuc")) / (2 * h)
    np.testing.assert_allclose(g[3], fd, rtol=1e-6, atol=1e-8)


def test_a_tensor_atol_of_zero_keeps_the_default_rtol():
    """PyTorch's rule per matrix: rtol = where(atol > 0, 0, eps * max(m, n)). A tensor
    atol of 0 kept no rtol at all, so 1e-17 counted as a singular value (rank 2, and
    pinv 1e17)."""
    small = np.diag([1.0, 1e-17])
    batch = pdt.tensor(np.stack([small, np.diag([1.0, 0.3])]))
    atol = pdt.tensor([0.0, 0.5], dtype=pdt.float64)
    assert pdt.linalg.matrix_rank(batch, atol=atol).tolist() == [1, 1]
    assert pdt.linalg.matrix_rank(batch[0], atol=pdt.tensor(0.0, dtype=pdt.float64)).item() == 1
    p = pdt.linalg.pinv(batch, atol=atol).numpy()
    np.testing.assert_allclose(p, np.stack([np.diag([1.0, 0.0]), np.diag([1.0, 0.0])]),
                               atol=1e-15)


def test_norm_dims_are_checked_as_pytorch_checks_them():
    """linalg.norm's dim has 1 or 2 entries (three gave a value); matrix_norm's dim is a
    2-tuple of different dims (an unpack ValueError, or a permute error, before); the
    nuclear norm of an empty matrix is 0 (the sum of no singular values)."""
    A = pdt.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match="must be of length 1 or 2. Got \\[0, 1, 2\\]"):
        pdt.linalg.norm(A, dim=(0, 1, 2))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        pdt.linalg.matrix_norm(A, dim=(0,))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        pdt.linalg.norm(A, "fro", dim=1)
    with pytest.raises(RuntimeError, match="dims must be different"):
        pdt.linalg.matrix_norm(A, "nuc", dim=(1, -2))
    assert pdt.linalg.matrix_norm(pdt.zeros(0, 0), "nuc").item() == 0.0
    out = pdt.linalg.matrix_norm(pdt.zeros(2, 0, 3), "nuc", keepdim=True)
    assert tuple(out.shape) == (2, 1, 1) and (out == 0).all()
