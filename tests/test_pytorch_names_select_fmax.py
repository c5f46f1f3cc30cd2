"""select, fmax, fmin, positive and inner (PyTorch's names, NumPy's meanings) on every
device, against float64 NumPy: select is x[:, i] (a view), fmax/fmin are np.fmax/np.fmin
(exact: they pick an element), inner is np.inner (a sum of products: 1e-12 relative in
float64).  The gradients of fmax/fmin go to input at a tie or where other is NaN, as
PyTorch's fmax_backward; select's and inner's against their formulas."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd


def _t(a, device, grad=False):
    return pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=grad)


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (-1, 0), (2, 3), (-3, -2)])
def test_select_is_the_view_of_getitem(device, dim, index):
    a = np.arange(60.0).reshape(3, 4, 5)
    x = _t(a, device)
    got = x.select(dim, index)
    np.testing.assert_array_equal(got.cpu().numpy(), np.take(a, index, axis=dim))
    assert got._base is x
    got.fill_(-1.0)  # a view: the write reaches x
    assert (np.take(x.cpu().numpy(), index, axis=dim) == -1).all()
    y = _t(a, device, True)
    (g,) = autograd.grad((pdt.select(y, dim, index) * 2.0).sum(), [y])
    want = np.zeros_like(a)
    idx = [slice(None)] * 3
    idx[dim] = index
    want[tuple(idx)] = 2.0
    np.testing.assert_array_equal(g.cpu().numpy(), want)


def test_select_refuses_out_of_range_and_0d(device):
    x = pdt.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match=r"index 3 out of range for tensor of size \[2, 3\] "
                                         r"at dimension 1 \(on " + str(x.device)):
        x.select(1, 3)
    with pytest.raises(IndexError, match="out of range"):
        x.select(0, -3)
    with pytest.raises(IndexError):
        x.select(2, 0)
    with pytest.raises(IndexError, match="0-dim"):
        pdt.zeros((), device=device).select(0, 0)


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_ignore_nan_as_numpy(device, op):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5))
    b = rng.standard_normal((5,))
    a[0, :3] = np.nan
    b[1:4] = [np.nan, a[2, 2], np.inf]
    a[1, 0] = -np.inf
    got = getattr(pdt, op)(_t(a, device), _t(b, device))
    np.testing.assert_array_equal(got.cpu().numpy(), getattr(np, op)(a, b))
    np.testing.assert_array_equal(getattr(_t(b, device), op)(_t(a, device)).cpu().numpy(),
                                  getattr(np, op)(b, a))
    ai, bi = np.array([3, -7, 2]), np.array([1.5])
    got = getattr(pdt, op)(pdt.tensor(ai, device=device), _t(bi, device))
    assert got.dtype == pdt.float64
    np.testing.assert_array_equal(got.cpu().numpy(), getattr(np, op)(ai, bi))


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_gradients_as_torch(device, op):
    nan = np.nan
    a = np.array([1.0, nan, nan, 3.0, 2.0, 5.0])
    b = np.array([2.0, 0.0, nan, 3.0, 1.0, nan])
    x, y = _t(a, device, True), _t(b, device, True)
    w = np.arange(1.0, 7.0)
    gx, gy = autograd.grad((getattr(pdt, op)(x, y) * _t(w, device)).sum(), [x, y])
    # PyTorch 2.15, run side by side: a tie splits in half; other's NaN (two NaNs
    # included) goes to input, input's NaN beside a number to other
    wins = (a > b) if op == "fmax" else (a < b)
    to_input = wins | np.isnan(b)
    tie = a == b
    np.testing.assert_array_equal(gx.cpu().numpy(),
                                  np.where(tie, w / 2, np.where(to_input, w, 0.0)))
    np.testing.assert_array_equal(gy.cpu().numpy(),
                                  np.where(tie, w / 2, np.where(to_input, 0.0, w)))


def test_fmax_refuses_numbers_and_mixed_devices(device):
    with pytest.raises(TypeError, match="fmax"):
        pdt.fmax(pdt.ones(2, device=device), 1.0)
    if pdt.device(device).type != "cpu":
        with pytest.raises(RuntimeError, match="same device"):
            pdt.fmin(pdt.ones(2, device=device), pdt.ones(2))


def test_positive(device):
    x = pdt.tensor([1, -2], device=device)
    assert pdt.positive(x) is x and x.positive() is x
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        pdt.positive(pdt.ones(2, dtype=pdt.bool, device=device))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)),
                                   ((2, 1, 3), (5, 3)), ((), (2, 3)), ((2, 3), ())])
def test_inner_as_numpy_with_gradients(device, sa, sb):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    x, y = _t(a, device, True), _t(b, device, True)
    got = pdt.inner(x, y)
    np.testing.assert_allclose(got.detach().cpu().numpy(), np.inner(a, b), rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(x.detach().inner(y.detach()).cpu().numpy(), np.inner(a, b),
                               rtol=1e-12, atol=1e-14)
    w = rng.standard_normal(np.shape(np.inner(a, b)))
    gx, gy = autograd.grad((got * _t(w, device)).sum(), [x, y])
    # d/da sum(w * inner(a, b)) = tensordot(w, b) over b's leading dims
    if a.ndim == 0 or b.ndim == 0:
        want_x = np.sum(w * b) if a.ndim == 0 else w * b
        want_y = w * a if a.ndim == 0 else np.sum(w * a)
    else:
        nb = b.ndim - 1
        want_x = np.tensordot(w, b, axes=(list(range(w.ndim - nb, w.ndim)),
                                           list(range(nb))))
        want_y = np.tensordot(w, a, axes=(list(range(w.ndim - nb)), list(range(a.ndim - 1))))
    np.testing.assert_allclose(gx.cpu().numpy(), want_x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gy.cpu().numpy(), want_y, rtol=1e-12, atol=1e-14)


def test_inner_refuses_different_last_sizes(device):
    with pytest.raises(RuntimeError, match=r"last dimension must match on both input tensors "
                                           r"but got shapes \[2, 3\] and \[4\]"):
        pdt.inner(pdt.ones(2, 3, device=device), pdt.ones(4, device=device))
