"""PyTorch's older top-level norm names (pydevtensor/_ops_norm_names.py): frobenius_norm,
nuclear_norm and norm_except_dim, on every device, against NumPy in float64 (to 1e-12
relative; float32 to 1e-5), their gradients by finite differences (gradcheck)."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

X = np.random.default_rng(3).standard_normal((2, 3, 4))


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("dim,keepdim", [((1, 2), False), (1, True), ([-1], False),
                                         ((), False), ((0, 2), True)])
def test_frobenius_norm(device, dim, keepdim):
    """sqrt(sum x**2) over dim (every dimension for ()), PyTorch's deprecation warning;
    out= of the result's dtype; float32 stays float32."""
    axes = None if dim == () else tuple(np.atleast_1d(dim))
    want = np.sqrt((X ** 2).sum(axis=axes, keepdims=keepdim))
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated.*vector_norm"):
        got = pdt.frobenius_norm(_t(X, device), dim, keepdim)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    assert _quiet(pdt.frobenius_norm, _t(X, device), dim, keepdim=keepdim, out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-12)
    single = _quiet(pdt.frobenius_norm, _t(X, device).float(), dim, keepdim)
    assert single.dtype == pdt.float32
    np.testing.assert_allclose(single.cpu().numpy(), want, rtol=1e-5)


def test_frobenius_norm_refuses(device):
    x = _t(X, device)
    with pytest.raises(RuntimeError, match=r"at most 2 dimensions, but got 3"):
        pdt.frobenius_norm(x, (0, 1, 2))
    with pytest.raises(NotImplementedError, match="floating point.*int64"):
        pdt.frobenius_norm(x.long(), 1)
    with pytest.raises(IndexError, match="out of range"):
        _quiet(pdt.frobenius_norm, x, 3)
    with pytest.raises(TypeError, match="dim"):
        pdt.frobenius_norm(x)
    with pytest.raises(RuntimeError, match="dtype"):
        _quiet(pdt.frobenius_norm, x, 1, out=pdt.empty(0, dtype=pdt.float32, device=device))


def test_nuclear_norm(device):
    """The sum of the singular values (np.linalg.norm(..., 'nuc')) of the last two
    dimensions or of dim; a bool second argument is keepdim (PyTorch's two forms)."""
    x = _t(X, device)
    want = np.linalg.norm(X, "nuc", axis=(1, 2))
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated.*matrix_norm"):
        got = pdt.nuclear_norm(x)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    kept = _quiet(pdt.nuclear_norm, x, True)
    assert tuple(kept.shape) == (2, 1, 1)
    np.testing.assert_allclose(kept.cpu().numpy().ravel(), want, rtol=1e-12)
    np.testing.assert_allclose(_quiet(pdt.nuclear_norm, x, (0, 2)).cpu().numpy(),
                               np.linalg.norm(X, "nuc", axis=(0, 2)), rtol=1e-12)
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    assert _quiet(pdt.nuclear_norm, x, (2, 1), keepdim=True, out=out) is out
    assert tuple(out.shape) == (2, 1, 1)
    np.testing.assert_allclose(out.cpu().numpy().ravel(), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        _quiet(pdt.nuclear_norm, x[0, 0])
    with pytest.raises(RuntimeError, match="2-tuple"):
        _quiet(pdt.nuclear_norm, x, (1,))
    with pytest.raises(NotImplementedError, match="floating point.*int64"):
        pdt.nuclear_norm(x.long())
    with pytest.raises(TypeError, match="pair of ints"):
        pdt.nuclear_norm(x, True, True)


@pytest.mark.parametrize("dim", [0, 1, 2, -2, -3])
@pytest.mark.parametrize("pow", [2, 1, 3, 0, -1])
def test_norm_except_dim(device, dim, pow):
    """The pow-norm of each slice along dim, keeping v's shape with size 1 elsewhere
    (NumPy's vector norm of each slice flattened)."""
    d = dim % 3
    rows = np.moveaxis(X, d, 0).reshape(X.shape[d], -1)
    want = np.linalg.norm(rows, ord=pow, axis=1)
    shape = [1, 1, 1]
    shape[d] = X.shape[d]
    got = pdt.norm_except_dim(_t(X, device), pow, dim)
    assert tuple(got.shape) == tuple(shape) and got.dtype == pdt.float64
    np.testing.assert_allclose(got.cpu().numpy().ravel(), want, rtol=1e-12)


def test_norm_except_dim_whole_and_errors(device):
    """dim=-1 is the norm of all of v (PyTorch's), a 1-d v gives |v|; bad arguments
    raise PyTorch's exception types."""
    v = _t(X, device)
    got = pdt.norm_except_dim(v, 2, -1)
    assert got.ndim == 0
    np.testing.assert_allclose(got.item(), np.linalg.norm(X.ravel()), rtol=1e-12)
    np.testing.assert_allclose(pdt.norm_except_dim(_t(X[0, 0], device)).cpu().numpy(),
                               np.abs(X[0, 0]), rtol=1e-12)
    np.testing.assert_allclose(pdt.norm_except_dim(v=v, pow=2, dim=0).cpu().numpy().ravel(),
                               np.sqrt((X ** 2).sum(axis=(1, 2))), rtol=1e-12)
    with pytest.raises(IndexError, match="out of range"):
        pdt.norm_except_dim(v, 2, 3)
    with pytest.raises(IndexError, match="no dimensions"):
        pdt.norm_except_dim(pdt.tensor(3.0, device=device))
    with pytest.raises(TypeError, match="'pow' must be int"):
        pdt.norm_except_dim(v, 2.5)
    with pytest.raises(NotImplementedError, match="floating point"):
        pdt.norm_except_dim(v.long())


def test_norm_names_gradients(device):
    rng = np.random.default_rng(5)
    a = [rng.standard_normal((3, 4))]
    gradcheck(lambda x: _quiet(pdt.frobenius_norm, x, (0, 1)), a, device)
    gradcheck(lambda x: _quiet(pdt.nuclear_norm, x), a, device)
    gradcheck(lambda x: pdt.norm_except_dim(x, 2, 1), a, device)
    gradcheck(lambda x: pdt.norm_except_dim(x, 3, 0), a, device)
