"""More top-level ATen names (pydevtensor/_ops_aten_more.py), on every device: conv_tbc
against a NumPy float64 loop over time (1e-12 relative), convolution against
nn.functional's convolutions (the same op: those are checked against NumPy in their own
tests), constant_pad_nd against numpy.pad and slicing, empty_permuted's strides against
NumPy's transposed array, as_strided_scatter against numpy's as_strided on a copy (and
its gradient: 1 outside the view for input, 1 for src), and the in-place methods as
functions (returning input itself)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor.nn import functional as F

RNG = np.random.default_rng(30)


def _t(a, device):
    return pdt.tensor(a, dtype=pdt.float64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("pad", [0, 2])
def test_conv_tbc_matches_a_loop_over_time(device, pad):
    x, w, b = RNG.standard_normal((7, 2, 3)), RNG.standard_normal((3, 3, 4)), RNG.standard_normal(4)
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    ref = np.stack([np.einsum("kbc,kco->bo", xp[t:t + 3], w) + b
                    for t in range(xp.shape[0] - 2)])
    got = pdt.conv_tbc(_t(x, device), _t(w, device), _t(b, device), pad)
    assert got.shape == (7 + 2 * pad - 2, 2, 4)
    assert_close(got, ref, "float64")


def test_convolution_picks_the_convolution(device):
    x1, x2 = _t(RNG.standard_normal((2, 4, 9)), device), _t(RNG.standard_normal((2, 4, 6, 6)),
                                                            device)
    w1, w2 = _t(RNG.standard_normal((6, 2, 3)), device), _t(RNG.standard_normal((6, 2, 3, 3)),
                                                            device)
    bias = _t(RNG.standard_normal(6), device)
    assert_close(pdt.convolution(x1, w1, bias, [2], [1], [2], False, [0], 2),
                 _np(F.conv1d(x1, w1, bias, 2, 1, 2, 2)), "float64")
    assert_close(pdt.convolution(x2, w2, None, [1, 2], [1, 0], [1, 1], False, [0, 0], 2),
                 _np(F.conv2d(x2, w2, None, (1, 2), (1, 0), 1, 2)), "float64")
    wt = _t(RNG.standard_normal((4, 3, 3, 3)), device)
    got = pdt.convolution(x2, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 0], 2)
    assert got.shape == (2, 6, 12, 11)
    assert_close(got, _np(F.conv_transpose2d(x2, wt, None, 2, 1, (1, 0), 2, 1)), "float64")


def test_constant_pad_nd(device):
    x = RNG.standard_normal((2, 3, 4))
    got = pdt.constant_pad_nd(_t(x, device), [1, 2, 0, 3], 2.5)
    np.testing.assert_array_equal(_np(got), np.pad(x, ((0, 0), (0, 3), (1, 2)),
                                                   constant_values=2.5))
    np.testing.assert_array_equal(_np(pdt.constant_pad_nd(_t(x, device), [-1, 0, 1, -2])),
                                  np.pad(x[:, :1, 1:], ((0, 0), (1, 0), (0, 0))))


@pytest.mark.parametrize("size,order", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (3, 0, 2, 1)),
                                        ((3,), (0,)), ((2, 0, 3), (2, 1, 0))])
def test_empty_permuted_lays_dimensions_in_order(device, size, order):
    got = pdt.empty_permuted(size, order, dtype=pdt.float32, device=device)
    inverse = np.argsort(order)
    ref = np.empty([size[d] for d in order], np.float32).transpose(inverse)
    assert got.shape == size and got.dtype == pdt.float32 and got.device == device
    if 0 not in size:
        assert got.stride() == tuple(s // 4 for s in ref.strides)
    assert pdt.empty_permuted(size, order, requires_grad=True).requires_grad


def test_as_strided_scatter_and_its_gradient(device):
    base = np.arange(8.0)
    src = RNG.standard_normal((2, 3))
    want = base.copy()
    np.lib.stride_tricks.as_strided(want[1:], (2, 3), (24, 8))[...] = src
    x, s = _t(base, device).requires_grad_(), _t(src, device).requires_grad_()
    got = pdt.as_strided_scatter(x, s, (2, 3), (3, 1), 1)
    np.testing.assert_array_equal(_np(got), want)
    assert _np(x).tolist() == base.tolist()  # input unchanged
    got.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [1, 0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(_np(s.grad), np.ones((2, 3)))


def test_in_place_methods_as_functions(device):
    x = _t(np.arange(6.0), device)
    assert pdt.as_strided_(x, (2, 2), (1, 2)) is x
    np.testing.assert_array_equal(_np(x), [[0, 2], [1, 3]])
    y = pdt.zeros(4, dtype=pdt.float64, device=device)
    idx = pdt.tensor([0, 0, 3], device=device)
    assert pdt.index_put_(y, (idx,), _t(np.array([1.0, 2.0, 3.0]), device), True) is y
    np.testing.assert_array_equal(_np(y), [3, 0, 0, 3])
    pdt.index_put_(y, (idx,), _t(np.array(5.0), device))
    np.testing.assert_array_equal(_np(y), [5, 0, 0, 5])
    z = pdt.zeros(2, 3, device=device)
    assert pdt.resize_as_(z, pdt.zeros(6)) is z and z.shape == (6,)
