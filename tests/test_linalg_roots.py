"""linalg.matrix_sqrth and linalg.polar (pydevtensor/_linalg_roots.py) against NumPy in
float64 (eigh and svd there), their gradients against central differences and closed
forms at repeated eigenvalues / singular values (Note [matrix root derivatives])."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _t(a, device, grad=False):
    t = pdt.from_numpy(np.ascontiguousarray(a)).to(device)
    return t.requires_grad_() if grad else t


def _np(t):
    return t.detach().cpu().numpy()


def _np_sqrth(a):
    w, v = np.linalg.eigh(a)
    return (v * np.sqrt(np.clip(w, 0, None))[..., None, :]) @ np.swapaxes(v, -1, -2)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)])
def test_matrix_sqrth_is_numpys_and_squares_to_a(device, shape):
    """X is NumPy's V sqrt(w) V^T (rtol 1e-12), symmetric, X @ X = A; float32 to 1e-5."""
    rng = np.random.default_rng(sum(shape) + 1)
    a = rng.standard_normal(shape)
    spd = a @ np.swapaxes(a, -1, -2) + 0.5 * np.eye(shape[-1])
    X = pdt.linalg.matrix_sqrth(_t(spd, device))
    assert tuple(X.shape) == shape and X.dtype == pdt.float64
    x = _np(X)
    np.testing.assert_allclose(x, _np_sqrth(spd), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x @ x, spd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x, np.swapaxes(x, -1, -2), atol=1e-12)
    x32 = _np(pdt.linalg.matrix_sqrth(_t(spd.astype(np.float32), device)))
    np.testing.assert_allclose(x32, _np_sqrth(spd), rtol=1e-5, atol=1e-5)


def test_matrix_sqrth_reads_the_lower_triangle_and_clamps_negative_eigenvalues(device):
    """Only A's lower triangle is read (as eigh's); an eigenvalue below 0 counts as 0, as
    PyTorch's: diag(4, -1, 9) gives diag(2, 0, 3)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4))
    spd = a @ a.T + np.eye(4)
    junk = spd + np.triu(rng.standard_normal((4, 4)), 1)
    np.testing.assert_allclose(_np(pdt.linalg.matrix_sqrth(_t(junk, device))), _np_sqrth(spd),
                               rtol=1e-12, atol=1e-12)
    got = _np(pdt.linalg.matrix_sqrth(_t(np.diag([4.0, -1.0, 9.0]), device)))
    np.testing.assert_allclose(got, np.diag([2.0, 0.0, 3.0]), atol=1e-15)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_matrix_sqrth_gradient(device, shape):
    """Against central differences through a symmetric positive-definite a a^T + I."""
    a = np.random.default_rng(shape[-1]).standard_normal(shape)
    eye = pdt.eye(shape[-1], dtype=pdt.float64, device=device)
    gradcheck(lambda x: pdt.linalg.matrix_sqrth(x @ x.mT + eye), [a], device)


def test_matrix_sqrth_gradient_at_repeated_eigenvalues(device):
    """At A = c I, X = sqrt(c) I and X gA + gA X = sym(G) gives gA = sym(G) / (2 sqrt(c)):
    finite, where eigh's gradient (1 / (s_i - s_j)) is not; PyTorch's convention of a
    symmetric gradient."""
    g = np.random.default_rng(5).standard_normal((3, 3))
    A = _t(4 * np.eye(3), device, grad=True)
    (pdt.linalg.matrix_sqrth(A) * _t(g, device)).sum().backward()
    np.testing.assert_allclose(_np(A.grad), (g + g.T) / 2 / 4, rtol=1e-12, atol=1e-15)


def _np_polar(a):
    w, s, vh = np.linalg.svd(a, full_matrices=False)
    return w @ vh, (np.swapaxes(vh, -1, -2) * s[..., None, :]) @ vh


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 6, 4), (4, 1), (3, 0), (0, 0)])
def test_polar_is_numpys_svd_form(device, shape):
    """U = W Vh and H = V diag(S) Vh from NumPy's SVD (rtol 1e-12); U H = A, U^T U = I,
    H symmetric; a named tuple (U, H); float32 to 1e-5."""
    rng = np.random.default_rng(sum(shape) + 2)
    a = rng.standard_normal(shape)
    got = pdt.linalg.polar(_t(a, device))
    assert got._fields == ("U", "H")
    assert tuple(got.U.shape) == shape and tuple(got.H.shape) == shape[:-2] + shape[-1:] * 2
    u, h = _np(got.U), _np(got.H)
    want_u, want_h = _np_polar(a)
    np.testing.assert_allclose(u, want_u, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, want_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(u @ h, a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(
        np.eye(shape[-1]), shape[:-2] + shape[-1:] * 2), atol=1e-12)
    u32, h32 = pdt.linalg.polar(_t(a.astype(np.float32), device))
    np.testing.assert_allclose(_np(u32), want_u, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(h32), want_h, rtol=1e-4, atol=1e-5)


def test_polar_out_and_errors(device):
    a = np.random.default_rng(9).standard_normal((4, 3))
    outs = (pdt.empty(0, dtype=pdt.float64, device=device),
            pdt.empty(0, dtype=pdt.float64, device=device))
    got = pdt.linalg.polar(_t(a, device), out=outs)
    assert got.U is outs[0] and got.H is outs[1]
    np.testing.assert_allclose(_np(outs[0]), _np_polar(a)[0], rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="at least as many rows as columns"):
        pdt.linalg.polar(_t(a.T, device))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        pdt.linalg.polar(_t(a[0], device))


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 4, 2)])
@pytest.mark.parametrize("which", [0, 1])
def test_polar_gradients(device, shape, which):
    """U's and H's gradients against central differences (full column rank)."""
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    gradcheck(lambda x: pdt.linalg.polar(x)[which], [a], device)


def test_polar_gradient_at_repeated_singular_values(device):
    """At A = I (U = H = I): gA = sym(gH) + skew(gU), finite where svd's gradient is not."""
    rng = np.random.default_rng(6)
    gu, gh = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    A = _t(np.eye(3), device, grad=True)
    U, H = pdt.linalg.polar(A)
    ((U * _t(gu, device)).sum() + (H * _t(gh, device)).sum()).backward()
    np.testing.assert_allclose(_np(A.grad), (gh + gh.T) / 2 + (gu - gu.T) / 2, rtol=1e-12,
                               atol=1e-15)
