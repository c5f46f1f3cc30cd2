"""renorm (pydevtensor/_ops_distance.py) on every device, against a NumPy float64
reference.

Tolerances: renorm is a norm (a sum in another order than NumPy's) and one product,
so a few ulps of the dtype relative; its gradient by gradcheck (central differences,
float64, norms away from maxnorm)."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck


def _renorm_reference(a, p, dim, maxnorm):
    """NumPy's: each slice along dim scaled by maxnorm / (norm + 1e-7) when its p-norm
    exceeds maxnorm."""
    rows = np.moveaxis(a, dim, 0).reshape(a.shape[dim], -1)
    mags = np.abs(rows).astype(np.float64)
    norm = mags.max(1) if np.isinf(p) else (mags ** p).sum(1) ** (1.0 / p)
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    shape = [1] * a.ndim
    shape[dim] = a.shape[dim]
    return a * factor.reshape(shape)


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, float("inf")])
def test_renorm_matches_numpy(device, p):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 5))
    a[1] *= 0.01  # a slice left as it is
    for dim in (0, 1, -1):
        for maxnorm in (0.0, 0.5, 2.0):
            want = _renorm_reference(a, p, dim, maxnorm)
            got = pdt.renorm(pdt.tensor(a, device=device), p, dim, maxnorm)
            np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-14, atol=1e-300)
            got = pdt.tensor(a.astype(np.float32), device=device).renorm(p, dim, maxnorm)
            assert got.dtype == pdt.float32
            np.testing.assert_allclose(got.cpu().numpy(), want, rtol=3e-6, atol=1e-30)
    half = pdt.tensor(a, dtype=pdt.float16, device=device).renorm(p, 0, 0.5)
    assert half.dtype == pdt.float16
    np.testing.assert_allclose(half.float().cpu().numpy(),
                               _renorm_reference(a.astype(np.float16), p, 0, 0.5),
                               rtol=2e-3, atol=1e-4)


def test_renorm_the_scale_is_maxnorm_over_norm_plus_1e_7(device):
    """PyTorch's factor: a slice of norm 1e-6 above maxnorm = 1e-6 is not at all
    scaled to 1e-6, but by 1e-6 / (2e-6 + 1e-7)."""
    x = pdt.tensor([[2e-6, 0.0], [1e-7, 0.0]], dtype=pdt.float64, device=device)
    got = pdt.renorm(x, 2, 0, 1e-6).cpu().numpy()
    assert got[0, 0] == 2e-6 * (1e-6 / (2e-6 + 1e-7))
    assert got[1, 0] == 1e-7


def test_renorm_in_place_and_out(device):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3)) * 3
    want = _renorm_reference(a, 2, 1, 1.5)
    x = pdt.tensor(a, device=device)
    assert x.renorm_(2, 1, 1.5) is x
    np.testing.assert_allclose(x.cpu().numpy(), want, rtol=1e-14)
    out = pdt.empty(4, 3, dtype=pdt.float64, device=device)
    assert pdt.renorm(pdt.tensor(a, device=device), 2, 1, 1.5, out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-14)
    # p and maxnorm as one-element tensors, read as numbers as PyTorch's Scalars
    got = pdt.renorm(pdt.tensor(a, device=device), pdt.tensor(2.0), 1, pdt.tensor(1.5))
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-14)


@pytest.mark.parametrize("p", [2, 1, 3, float("inf")])
def test_renorm_gradient(device, p):
    """Through the factor too (the scaled slices' gradient is not maxnorm / norm times
    the incoming one); slices under maxnorm pass the gradient as it is."""
    rng = np.random.default_rng(2)
    a = rng.permutation(24).reshape(2, 3, 4) / 7.0 - 1.5
    a[1, 0] *= 0.01
    for dim in (0, 1, 2):
        gradcheck(lambda t, d=dim: pdt.renorm(t, p, d, 1.0), [a], device)
    x = pdt.tensor(a, device=device).requires_grad_()
    (g,) = pdt.autograd.grad(pdt.renorm(x, p, 1, 1e3).sum(), [x])
    np.testing.assert_array_equal(g.cpu().numpy(), np.ones(a.shape))


def test_renorm_errors_name_the_problem(device):
    x = pdt.ones(2, 3, device=device)
    cases = [
        (lambda: pdt.renorm(pdt.ones(2, 3, dtype=pdt.int64, device=device), 2, 0, 1.0),
         RuntimeError, "floating point input, got pydevtensor.int64 (shape (2, 3)"),
        (lambda: pdt.renorm(x, 0, 0, 1.0), RuntimeError, "non-positive-norm"),
        (lambda: pdt.renorm(x, float("nan"), 0, 1.0), RuntimeError, "got p = nan"),
        (lambda: pdt.renorm(x, 2, 0, -1), RuntimeError, "maxnorm to be >= 0 but got -1.0"),
        (lambda: pdt.renorm(x[0], 2, 0, 1.0), RuntimeError, "at least 2 dimensions, got 1"),
        (lambda: pdt.renorm(x, 2, 2, 1.0), IndexError, "[-2, 1], but got 2"),
        (lambda: pdt.renorm(x, 2, 0.5, 1.0), TypeError, "'dim' must be int, got float"),
        (lambda: pdt.renorm(x, 2 + 1j, 0, 1.0), RuntimeError, "p must be real-valued"),
        (lambda: pdt.renorm(x, 2, 0, "1"), TypeError, "'maxnorm' must be a number, got str"),
    ]
    for fn, exc, words in cases:
        with pytest.raises(exc) as info:
            fn()
        assert words in str(info.value), (words, str(info.value))
