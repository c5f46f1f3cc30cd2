"""renorm (pydevtensor/_ops_distance.py) and gradient (_ops_gradient.py) on every
device, against NumPy float64 references.

Tolerances: renorm is a norm (a sum in another order than NumPy's) and one product,
so a few ulps of the dtype relative; its gradient by gradcheck (central differences,
float64, norms away from maxnorm).  gradient: differences of float64 values, 1e-12
relative to numpy.gradient's (the same formulas, other roundings); float32 1e-5."""
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


def _np_gradient(a, spacing, dims, edge_order):
    return np.gradient(a, *spacing, axis=tuple(dims), edge_order=edge_order)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(device, edge_order):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5, 3))
    coords = [np.cumsum(rng.uniform(0.2, 2.0, n)) for n in a.shape]  # uneven spacing
    x = pdt.tensor(a, device=device)
    cases = [  # (spacing, dim) for pydevtensor, (spacing, dims) for NumPy
        ((1, None), ([], [0, 1, 2])),
        ((0.7, None), ([0.7], [0, 1, 2])),
        ((0.7, [2, 0]), ([0.7], [2, 0])),
        (([0.5, 2, 3], None), ([0.5, 2, 3], [0, 1, 2])),
        (([2.0, 0.25], (1, 0)), ([2.0, 0.25], [1, 0])),
        ((4, -1), ([4], [2])),
        (([pdt.tensor(c, device=device) for c in coords], None), (coords, [0, 1, 2])),
        (([pdt.tensor(coords[1], device=device)], 1), ([coords[1]], [1])),
        (([pdt.tensor(coords[2], device=device), pdt.tensor(coords[0], device=device)],
          [2, 0]), ([coords[2], coords[0]], [2, 0])),
    ]
    for (spacing, dim), (np_spacing, dims) in cases:
        got = pdt.gradient(x, spacing=spacing, dim=dim, edge_order=edge_order)
        want = _np_gradient(a, np_spacing, dims, edge_order)
        want = want if isinstance(want, (list, tuple)) else [want]
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == pdt.float64 and g.device == x.device
            np.testing.assert_allclose(g.cpu().numpy(), w, rtol=1e-12, atol=1e-12)
    got = pdt.gradient(pdt.tensor(a, dtype=pdt.float32, device=device), edge_order=edge_order,
                       spacing=[pdt.tensor(c, dtype=pdt.float32, device=device) for c in coords])
    for g, w in zip(got, _np_gradient(a, coords, [0, 1, 2], edge_order)):
        assert g.dtype == pdt.float32
        np.testing.assert_allclose(g.cpu().numpy(), w, rtol=1e-5, atol=1e-5)


def test_gradient_is_exact_for_quadratics_with_edge_order_2(device):
    """Second-order differences (inside, and at the edges with edge_order 2) are exact
    for a quadratic, on uneven coordinates too; an integer input gives the default
    floating dtype."""
    t = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 4.5])
    (got,) = pdt.gradient(pdt.tensor(3 * t ** 2 - t + 2, device=device),
                          spacing=[pdt.tensor(t, device=device)], edge_order=2)
    np.testing.assert_allclose(got.cpu().numpy(), 6 * t - 1, rtol=1e-13, atol=1e-13)
    (got,) = pdt.gradient(pdt.tensor([1, 4, 9, 16, 25], device=device), spacing=0.5,
                          edge_order=2)
    assert got.dtype == pdt.get_default_dtype()
    np.testing.assert_allclose(got.cpu().numpy(), [4.0, 8.0, 12.0, 16.0, 20.0])
    assert pdt.gradient(pdt.tensor(1.0, device=device)) == ()


def test_gradient_is_differentiable(device):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 4))
    t = np.cumsum(rng.uniform(0.5, 1.5, 4))
    for edge_order in (1, 2):
        gradcheck(lambda x, e=edge_order: pdt.gradient(x, spacing=0.5, edge_order=e)[0],
                  [a], device)
        gradcheck(lambda x, c, e=edge_order: pdt.gradient(x, spacing=[c], dim=1,
                                                          edge_order=e)[0], [a, t], device)


def test_gradient_errors_name_the_problem(device):
    x = pdt.ones(2, 3, device=device)
    cases = [
        (lambda: pdt.gradient(x, edge_order=2), RuntimeError,
         "at least edge_order+1 = 3, but dim 0 of input (2, 3) has 2"),
        (lambda: pdt.gradient(pdt.ones(1, 3, device=device)), RuntimeError, "dim 0"),
        (lambda: pdt.gradient(x, edge_order=3), RuntimeError, "edge_order=1 and edge_order=2"),
        (lambda: pdt.gradient(x, spacing=[1.0]), RuntimeError,
         "'self.dim() = 2', since dim argument was not given, but got a list of length 1"),
        (lambda: pdt.gradient(x, spacing=[1.0, 2.0], dim=1), RuntimeError,
         "spacing argument of length 2 and a dim argument of length 1"),
        (lambda: pdt.gradient(x, dim=[1, -1]), RuntimeError, "dim 1 appears multiple times"),
        (lambda: pdt.gradient(x, dim=2), IndexError, "but got 2"),
        (lambda: pdt.gradient(x, spacing=[pdt.ones(2, device=device)], dim=1), RuntimeError,
         "got shape (2,) for dim 1 of input (2, 3)"),
        (lambda: pdt.gradient(x, spacing=[1.0, pdt.ones(3, device=device)]), TypeError,
         "all numbers or all 1-d coordinate tensors, got float, Tensor"),
        (lambda: pdt.gradient(x, spacing="1"), TypeError, "got str"),
        (lambda: pdt.gradient(pdt.ones(3, dtype=pdt.bool, device=device)), RuntimeError,
         "does not support pydevtensor.bool input"),
    ]
    for fn, exc, words in cases:
        with pytest.raises(exc) as info:
            fn()
        assert words in str(info.value), (words, str(info.value))
