"""pydevtensor.linalg's decompositions (pydevtensor/_linalg_decomp.py): eigh, eigvalsh,
svd, svdvals and torch.svd, on every device, against NumPy float64 (np.linalg) and
torch where importable; their gradients against central differences.

Eigenvectors and singular vectors are unique up to sign only, so they are checked
through what does not depend on it: the reconstruction ``V diag(L) V^T`` (``U diag(S)
Vh``), orthonormality, and sign-invariant products.  Tolerances: float64 1e-10
relative and absolute (random matrices of size <= 8, well separated spectra: a few
hundred ulps of the largest entry), float32 1e-4."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-4, atol=1e-4)}
DTYPES = {"float64": pdt.float64, "float32": pdt.float32}


def _t(a, device, dtype="float64"):
    return pdt.tensor(np.asarray(a), dtype=DTYPES[dtype], device=device)


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _sym(rng, shape):
    a = rng.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def _orthonormal_columns(Q, tol):
    k = Q.shape[-1]
    eye = np.broadcast_to(np.eye(k), Q.shape[:-2] + (k, k))
    np.testing.assert_allclose(np.swapaxes(Q, -1, -2) @ Q, eye, **tol)


# ---- eigh / eigvalsh ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (8, 8), (2, 3, 5, 5)])
def test_eigh_matches_numpy(device, dtype, shape):
    rng = np.random.default_rng(shape[-1])
    a = _sym(rng, shape)
    L, V = pdt.linalg.eigh(_t(a, device, dtype))
    assert L.device == device and V.device == device and L.dtype == DTYPES[dtype]
    assert tuple(L.shape) == shape[:-1] and tuple(V.shape) == shape
    Ln, Vn = _np(L), _np(V)
    np.testing.assert_allclose(Ln, np.linalg.eigvalsh(a), **TOL[dtype])
    np.testing.assert_allclose((Vn * Ln[..., None, :]) @ np.swapaxes(Vn, -1, -2), a, **TOL[dtype])
    _orthonormal_columns(Vn, TOL[dtype])
    np.testing.assert_allclose(_np(pdt.linalg.eigvalsh(_t(a, device, dtype))), Ln,
                               **TOL[dtype])


def test_eigh_reads_one_triangle(device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4))
    low, up = np.tril(a) + np.tril(a, -1).T, np.triu(a) + np.triu(a, 1).T
    np.testing.assert_allclose(_np(pdt.linalg.eigvalsh(_t(a, device))), np.linalg.eigvalsh(low),
                               **TOL["float64"])
    np.testing.assert_allclose(_np(pdt.linalg.eigh(_t(a, device), UPLO="U")[0]),
                               np.linalg.eigvalsh(up), **TOL["float64"])


def test_eigh_empty_and_noncontiguous(device):
    L, V = pdt.linalg.eigh(pdt.zeros(2, 0, 0, dtype=pdt.float64, device=device))
    assert tuple(L.shape) == (2, 0) and tuple(V.shape) == (2, 0, 0)
    assert tuple(pdt.linalg.eigvalsh(pdt.zeros(0, 3, 3, device=device)).shape) == (0, 3)
    a = _sym(np.random.default_rng(4), (5, 5))
    t = _t(np.ascontiguousarray(a.T), device).mT  # a transposed view
    np.testing.assert_allclose(_np(pdt.linalg.eigvalsh(t)), np.linalg.eigvalsh(a),
                               **TOL["float64"])


def test_eigh_matches_torch(device):
    torch = torch_or_skip()
    a = _sym(np.random.default_rng(5), (2, 4, 4))
    L, V = pdt.linalg.eigh(_t(a, device), "U")
    Lt, Vt = torch.linalg.eigh(torch.tensor(a), "U")
    np.testing.assert_allclose(_np(L), Lt.numpy(), **TOL["float64"])
    np.testing.assert_allclose(np.abs(_np(V)), np.abs(Vt.numpy()), **TOL["float64"])


def test_eigh_gradients(device):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 4, 4))

    def sym(x):
        return x + x.mT

    gradcheck(lambda x: pdt.linalg.eigvalsh(sym(x)), [a], device)
    gradcheck(lambda x: pdt.linalg.eigh(sym(x))[0], [a], device)

    def vectors(x):  # each column times its own first entry: sign-invariant
        V = pdt.linalg.eigh(sym(x), "U").eigenvectors
        return V * V[..., :1, :]
    gradcheck(vectors, [a], device)


def test_eigh_gradient_matches_torch(device):
    torch = torch_or_skip()
    a = _sym(np.random.default_rng(7), (3, 3))
    x = _t(a, device).requires_grad_()
    L, V = pdt.linalg.eigh(x)
    ((V * V[..., :1, :]) ** 2).sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    Lt, Vt = torch.linalg.eigh(xt)
    ((Vt * Vt[..., :1, :]) ** 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), **TOL["float64"])


# ---- svd / svdvals / torch.svd ----

SVD_SHAPES = [(1, 1), (4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 3, 4, 7)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(device, dtype, shape, full):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape)
    m, n = shape[-2:]
    k = min(m, n)
    U, S, Vh = pdt.linalg.svd(_t(a, device, dtype), full_matrices=full)
    assert U.device == device and U.dtype == DTYPES[dtype]
    assert tuple(U.shape) == shape[:-2] + ((m, m) if full else (m, k))
    assert tuple(Vh.shape) == shape[:-2] + ((n, n) if full else (k, n))
    assert tuple(S.shape) == shape[:-2] + (k,)
    Un, Sn, Vhn = _np(U), _np(S), _np(Vh)
    np.testing.assert_allclose(Sn, np.linalg.svd(a, compute_uv=False), **TOL[dtype])
    rec = (Un[..., :k] * Sn[..., None, :]) @ Vhn[..., :k, :]
    np.testing.assert_allclose(rec, a, **TOL[dtype])
    _orthonormal_columns(Un, TOL[dtype])
    _orthonormal_columns(np.swapaxes(Vhn, -1, -2), TOL[dtype])
    np.testing.assert_allclose(_np(pdt.linalg.svdvals(_t(a, device, dtype))), Sn, **TOL[dtype])


def test_svd_empty(device):
    U, S, Vh = pdt.linalg.svd(pdt.zeros(2, 3, 0, dtype=pdt.float64, device=device))
    assert tuple(S.shape) == (2, 0) and tuple(Vh.shape) == (2, 0, 0)
    np.testing.assert_array_equal(_np(U), np.broadcast_to(np.eye(3), (2, 3, 3)))
    U, S, Vh = pdt.linalg.svd(pdt.zeros(0, 3, 2, device=device), full_matrices=False)
    assert tuple(U.shape) == (0, 3, 2) and tuple(S.shape) == (0, 2)


def test_svd_rank_deficient(device):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))  # rank 2
    U, S, Vh = pdt.linalg.svd(_t(a, device))
    Un, Sn, Vhn = _np(U), _np(S), _np(Vh)
    np.testing.assert_allclose(Sn, np.linalg.svd(a, compute_uv=False), **TOL["float64"])
    _orthonormal_columns(Un, TOL["float64"])  # the complete basis past the rank
    _orthonormal_columns(Vhn.T, TOL["float64"])


def test_torch_svd(device):
    torch = torch_or_skip()
    a = np.random.default_rng(9).standard_normal((2, 5, 3))
    U, S, V = pdt.svd(_t(a, device))
    Ut, St, Vt = torch.svd(torch.tensor(a))
    assert tuple(U.shape) == tuple(Ut.shape) and tuple(V.shape) == tuple(Vt.shape)
    np.testing.assert_allclose(_np(S), St.numpy(), **TOL["float64"])
    np.testing.assert_allclose(np.abs(_np(V)), np.abs(Vt.numpy()), **TOL["float64"])
    U, S, V = _t(a, device).svd(some=False)
    assert tuple(U.shape) == (2, 5, 5) and tuple(V.shape) == (2, 3, 3)
    U, S, V = pdt.svd(_t(a, device), compute_uv=False)
    Ut, _, Vt = torch.svd(torch.tensor(a), compute_uv=False)
    assert not _np(U).any() and tuple(U.shape) == tuple(Ut.shape) == (2, 5, 5)
    assert not _np(V).any() and tuple(V.shape) == tuple(Vt.shape) == (2, 3, 3)
    np.testing.assert_allclose(_np(S), St.numpy(), **TOL["float64"])


def test_svd_gradients(device):
    rng = np.random.default_rng(10)
    for shape in [(2, 5, 3), (3, 4), (4, 4)]:
        a = rng.standard_normal(shape)
        gradcheck(pdt.linalg.svdvals, [a], device)
        gradcheck(lambda x: pdt.linalg.svd(x, False).S, [a], device)
        for full in (False, True):
            def f(x):
                U, S, Vh = pdt.linalg.svd(x, full_matrices=full)
                k = S.shape[-1]
                U, Vh = U[..., :k], Vh[..., :k, :]
                return pdt.cat([((U * S.unsqueeze(-2)) @ Vh).reshape(-1),
                                (U * U[..., :1, :]).reshape(-1),
                                (Vh * Vh[..., :, :1]).reshape(-1)])
            gradcheck(f, [a], device)


def test_svd_gradient_matches_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(11).standard_normal((4, 3))
    x = _t(a, device).requires_grad_()
    U, S, Vh = pdt.linalg.svd(x, full_matrices=False)
    ((U * U[..., :1, :]) ** 2).sum().add(S.sum()).backward()
    xt = torch.tensor(a, requires_grad=True)
    Ut, St, Vht = torch.linalg.svd(xt, full_matrices=False)
    ((Ut * Ut[..., :1, :]) ** 2).sum().add(St.sum()).backward()
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), **TOL["float64"])


# ---- bad input ----

def test_decomp_errors(device):
    with pytest.raises(RuntimeError, match=r"square.*2 by 3"):
        pdt.linalg.eigh(pdt.zeros(2, 3, device=device))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        pdt.linalg.svd(pdt.zeros(3, device=device))
    with pytest.raises(RuntimeError, match="UPLO"):
        pdt.linalg.eigh(pdt.zeros(2, 2, device=device), UPLO="X")
    with pytest.raises(NotImplementedError, match="Low precision"):
        pdt.linalg.svdvals(pdt.zeros(2, 2, dtype=pdt.float16, device=device))
    with pytest.raises(NotImplementedError, match="Long"):
        pdt.linalg.eigvalsh(pdt.zeros(2, 2, dtype=pdt.int64, device=device))
    bad = _t([[1.0, float("nan")], [0.0, 1.0]], device)
    with pytest.raises(pdt.linalg.LinAlgError, match=f"svd.*on {device}"):
        pdt.linalg.svd(bad)


# ---- det's gradient at a singular matrix (through the SVD) ----

def test_det_gradient_at_singular_matrices(device):
    """The cofactor matrix: exact for a 2 x 2 ([[d, -c], [-b, a]]), and against central
    differences (det is a polynomial: they are exact up to rounding) for rank n - 1 and a
    batch mixing a singular and a nonsingular matrix."""
    x = _t([[1.0, 2.0], [2.0, 4.0]], device).requires_grad_()
    pdt.linalg.det(x).backward()
    np.testing.assert_allclose(_np(x.grad), [[4.0, -2.0], [-2.0, 1.0]], **TOL["float64"])
    rng = np.random.default_rng(12)
    low = rng.standard_normal((3, 2)) @ rng.standard_normal((2, 3))
    gradcheck(pdt.linalg.det, [low], device)
    gradcheck(pdt.linalg.det, [np.stack([low, rng.standard_normal((3, 3))])], device)
    z = _t(np.zeros((3, 3)), device).requires_grad_()  # rank 0: every cofactor is 0
    pdt.linalg.det(z).backward()
    assert not _np(z.grad).any()
