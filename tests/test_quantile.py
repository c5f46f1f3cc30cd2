"""quantile and nanquantile (pydevtensor/_ops_quantile.py), dist (_ops_distance.py) and
vander (_ops_products.py) on every device, against NumPy float64 and PyTorch when
importable.

Tolerances: a quantile is one value or a lerp of two neighbours in sorted order, so
against NumPy's (whose lerp is another formula) 1 ulp of the dtype relative plus as
much absolute; shapes and NaN placement exactly.  dist: a float32 norm, 1e-6 relative.
vander: products of small integers, exact; of floats, 1e-12 relative in float64.
Gradients by gradcheck (float64, distinct values)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


def _close(got, want, dtype=np.float64):
    eps = np.finfo(dtype).eps
    got = got.cpu().numpy()
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=4 * eps, atol=4 * eps)


@pytest.mark.parametrize("mode", MODES)
def test_quantile_matches_numpy(device, mode):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 9))
    a[1, :3] = a[1, 3]  # ties
    x = pdt.tensor(a, device=device)
    qs = np.array([0.0, 0.1, 0.25, 0.5, 0.77, 1.0])
    for dim in (None, 0, 1, -1):
        for keepdim in (False, True):
            want = np.quantile(a, qs, axis=dim, method=mode, keepdims=keepdim)
            _close(pdt.quantile(x, pdt.tensor(qs, device=device), dim=dim, keepdim=keepdim,
                                interpolation=mode), want)
            for q in (0.3, 1.0):
                want = np.quantile(a, q, axis=dim, method=mode, keepdims=keepdim)
                _close(x.quantile(q, dim=dim, keepdim=keepdim, interpolation=mode), want)
    x32 = pdt.tensor(a.astype(np.float32), device=device)
    _close(pdt.quantile(x32, 0.3, dim=1, interpolation=mode),
           np.quantile(a.astype(np.float32), 0.3, axis=1, method=mode), np.float32)


@pytest.mark.filterwarnings("ignore:All-NaN slice")
def test_nan_rows(device):
    a = np.array([[1.0, 5.0, np.nan, 2.0], [3.0, 4.0, 0.0, 8.0], [np.nan] * 4])
    x = pdt.tensor(a, device=device)
    qs = np.array([0.2, 0.5, 0.9])
    q = pdt.tensor(qs, device=device)
    _close(pdt.quantile(x, q, dim=1), np.quantile(a, qs, axis=1))
    _close(pdt.nanquantile(x, q, dim=1), np.nanquantile(a, qs, axis=1))
    _close(pdt.quantile(x, 0.5), np.quantile(a, 0.5))  # all: NaN
    _close(x.nanquantile(0.5, axis=None), np.nanquantile(a, 0.5))
    for mode in MODES:
        _close(pdt.nanquantile(x, q, 1, interpolation=mode),
               np.nanquantile(a, qs, axis=1, method=mode))


def test_zero_dim_and_single_values(device):
    x = pdt.tensor(3.0, device=device)
    assert pdt.quantile(x, 0.5).item() == 3.0
    assert pdt.quantile(x, 0.5, dim=0, keepdim=True).shape == ()
    assert pdt.quantile(pdt.tensor([[2.0]], device=device), 0.1, keepdim=True).shape == (1, 1)
    q = pdt.tensor([0.5], device=device)
    assert pdt.quantile(pdt.tensor([[1.0, 2.0]], device=device), q, dim=1).shape == (1, 1)


def test_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 5, 4)).astype(np.float32)
    a[0, 1, 2] = np.nan
    qs = np.array([0.1, 0.5, 0.95], np.float32)
    for fn in ("quantile", "nanquantile"):
        for mode in MODES:
            for dim, keepdim in ((None, False), (None, True), (1, False), (-1, True)):
                got = getattr(pdt, fn)(pdt.tensor(a), pdt.tensor(qs), dim, keepdim,
                                       interpolation=mode).numpy()
                want = getattr(torch, fn)(torch.tensor(a), torch.tensor(qs), dim, keepdim,
                                          interpolation=mode).numpy()
                assert got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=2e-7, atol=2e-7)


def test_quantile_gradient(device):
    rng = np.random.default_rng(2)
    a = rng.permutation(24).reshape(4, 6) / 7.0
    for mode in ("linear", "midpoint", "nearest"):
        gradcheck(lambda t, m=mode: pdt.quantile(t, 0.3, dim=1, interpolation=m), [a], device)
    gradcheck(lambda t: pdt.quantile(t, pdt.tensor([0.2, 0.9], dtype=t.dtype, device=t.device)),
              [a], device)


def test_quantile_gradient_in_q(device):
    """A q that requires grad gets, for linear, the slope between the two sorted
    neighbours times (n - 1), as PyTorch's (0 for a quantile row holding NaN); the other
    modes pick or halve values and do not depend on q, so their result does not require
    grad through q.  Checked against central differences of NumPy's quantiles."""
    rng = np.random.default_rng(3)
    a = rng.permutation(24).reshape(4, 6) / 7.0
    qs = np.array([0.13, 0.61, 0.97])  # ranks away from integers: differentiable
    gradcheck(lambda t, q: pdt.quantile(t, q, dim=1), [a, qs], device)
    gradcheck(lambda q: pdt.quantile(pdt.tensor(a, device=q.device), q[1]), [qs], device)
    b = a.copy()
    b[0, 2], b[2, :5] = np.nan, np.nan  # a NaN row, and a row of one value
    for fn, npfn in (("quantile", np.quantile), ("nanquantile", np.nanquantile)):
        q = pdt.tensor(qs, device=device).requires_grad_()
        out = getattr(pdt, fn)(pdt.tensor(b, device=device), q, dim=1)
        assert out.requires_grad
        (g,) = pdt.autograd.grad(out.sum(), [q])
        h = 1e-6
        want = [(npfn(b, qv + h, axis=1) - npfn(b, qv - h, axis=1)) / (2 * h) for qv in qs]
        want = np.nansum(want, axis=1)  # a quantile row holding NaN has no slope
        np.testing.assert_allclose(g.cpu().numpy(), want, rtol=1e-7, atol=1e-7)
        for mode in MODES[1:]:
            q = pdt.tensor(qs, device=device).requires_grad_()
            out = getattr(pdt, fn)(pdt.tensor(b, device=device), q, 1, interpolation=mode)
            assert not out.requires_grad, mode


def test_quantile_errors_name_the_problem(device):
    x = pdt.tensor([1.0, 2.0, 3.0], device=device)
    cases = [
        (lambda: pdt.quantile(pdt.tensor([1, 2], device=device), 0.5), RuntimeError,
         "float or double"),
        (lambda: pdt.quantile(x, 1.5), RuntimeError, "range [0, 1] but got 1.5"),
        (lambda: pdt.quantile(x, pdt.tensor([-0.1, 0.5], device=device)), RuntimeError,
         "got -0.1"),
        (lambda: pdt.quantile(x, pdt.tensor([0.5], dtype=pdt.float64, device=device)),
         RuntimeError, "same dtype"),
        (lambda: pdt.quantile(x, pdt.tensor([[0.5]], device=device)), RuntimeError,
         "scalar or 1D"),
        (lambda: pdt.quantile(x, 0.5, interpolation="cubic"), RuntimeError, "but got cubic"),
        (lambda: pdt.quantile(pdt.zeros(2, 0, device=device), 0.5, 1), RuntimeError,
         "non-empty"),
        (lambda: pdt.quantile(x, 0.5, dim=2), IndexError, "quantile"),
        (lambda: pdt.quantile(x, "half"), TypeError, "str"),
    ]
    for fn, exc, words in cases:
        with pytest.raises(exc, match=None) as info:
            fn()
        assert words in str(info.value), (words, str(info.value))


def test_dist(device):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x, y = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    d = a - b
    for p, want in ((2, np.sqrt((d * d).sum())), (1, np.abs(d).sum()),
                    (3, (np.abs(d) ** 3).sum() ** (1 / 3)), (0, np.count_nonzero(d)),
                    (float("inf"), np.abs(d).max()), (float("-inf"), np.abs(d).min())):
        got = pdt.dist(x, y, p)
        assert got.shape == () and got.dtype == pdt.float64
        np.testing.assert_allclose(got.item(), want, rtol=1e-12)
    assert x.dist(x).item() == 0.0
    x32 = pdt.tensor(a.astype(np.float32), device=device)
    np.testing.assert_allclose(x32.dist(pdt.zeros(4, device=device)).item(),
                               np.linalg.norm(a.astype(np.float32)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="dist\\(\\): expected floating point"):
        pdt.dist(pdt.tensor([1, 2], device=device), pdt.tensor([0, 0], device=device))
    with pytest.raises(TypeError, match="'other' must be a Tensor"):
        pdt.dist(x, 3)
    gradcheck(lambda s, t: pdt.dist(s, t, 3), [a, b + 0.5], device)


def test_dist_reads_a_tensor_p_as_a_number(device):
    """A 0-d tensor p is its value, as PyTorch's Scalar p: a float32 p kept float64
    inputs' precision (it computed |d| ** p in float32), a float64 p leaves float32
    inputs float32; one that requires grad is refused, as PyTorch's."""
    a = np.array([1.0, 2.0 + 1e-9, -0.7])
    x, zero = pdt.tensor(a, device=device), pdt.zeros(3, dtype=pdt.float64, device=device)
    want = (np.abs(a) ** 3).sum() ** (1 / 3)
    for p in (pdt.tensor(3.0, device=device), pdt.tensor(3, device=device), np.float32(3)):
        got = pdt.dist(x, zero, p)
        assert got.dtype == pdt.float64
        np.testing.assert_allclose(got.item(), want, rtol=1e-15)
    p64 = pdt.tensor(3.0, dtype=pdt.float64, device=device)
    assert x.float().dist(zero.float(), p64).dtype == pdt.float32
    with pytest.raises(TypeError, match="argument 'p' must be a number"):
        pdt.dist(x, zero, pdt.tensor([3.0, 1.0], device=device))


def test_vander(device):
    for values in ([1, 2, 3, -2], [0.5, -1.5, 2.0]):
        a = np.array(values)
        x = pdt.tensor(a, device=device)
        for n in (None, 0, 1, 5):
            for increasing in (False, True):
                got = pdt.vander(x, N=n, increasing=increasing)
                want = np.vander(a, N=n, increasing=increasing)
                assert got.dtype == x.dtype and got.device == x.device
                np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    m = pdt.vander(pdt.tensor([True, False], device=device))
    assert m.dtype == pdt.int64 and m.cpu().tolist() == [[1, 1], [0, 1]]
    with pytest.raises(RuntimeError, match="one-dimensional tensor, got shape \\(1, 1\\)"):
        pdt.vander(pdt.tensor([[1.0]], device=device))
    with pytest.raises(RuntimeError, match="N must be non-negative, got -1"):
        pdt.vander(pdt.tensor([1.0], device=device), N=-1)
    gradcheck(lambda t: pdt.vander(t, 4), [np.array([0.5, -1.5, 2.0])], device)


def test_vander_matches_torch():
    torch = torch_or_skip()
    a = np.array([3, -2, 5, 7], np.int64)
    for n in (None, 3, 6):
        for inc in (False, True):
            assert (pdt.vander(pdt.tensor(a), N=n, increasing=inc).tolist()
                    == torch.vander(torch.tensor(a), N=n, increasing=inc).tolist())
