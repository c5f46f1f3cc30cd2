"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d.

The reference is a NumPy loop over PyTorch's documented windows, written here from
the definition: along a side of size cells, window i < out - 1 of a plane starts at
int((i + u) * alpha) - int(u * alpha), alpha = (size - k) / (out - 1), computed in
the input's dtype (NumPy scalars: one rounding per operation, as PyTorch's CPU
kernel), and the last at size - k; each window keeps its first largest cell, or its
last NaN (PyTorch's ``val > max || isnan(val)`` scan).  The 2-d samples hold u for
the width first, the 3-d ones depth, height, width.
"""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


def ref_starts(u, size, k, out):
    """The window starts along one side for the sample u (a NumPy scalar)."""
    dt = type(u)
    starts = [size - k] * out
    if out > 1:
        alpha = dt(size - k) / dt(out - 1)
        for i in range(out - 1):
            starts[i] = int((dt(i) + u) * alpha) - int(u * alpha)
    return starts


def ref_fractional(x, k, out, samples):
    """(values, flat indices) of the fractional max pool of x (N, C, *spatial)."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    values = np.zeros((n, c) + tuple(out), x.dtype)
    indices = np.zeros((n, c) + tuple(out), np.int64)
    for b, ch in itertools.product(range(n), range(c)):
        u = samples[b, ch] if nd == 3 else samples[b, ch][::-1]
        starts = [ref_starts(u[a], x.shape[2 + a], k[a], out[a]) for a in range(nd)]
        plane = x[b, ch].reshape(-1)
        for o in itertools.product(*(range(v) for v in out)):
            best, where = -np.inf, None
            for tap in itertools.product(*(range(v) for v in k)):
                cell = np.ravel_multi_index(tuple(starts[a][o[a]] + tap[a] for a in range(nd)),
                                            x.shape[2:])
                if where is None:
                    where = cell
                if plane[cell] > best or np.isnan(plane[cell]):
                    best, where = plane[cell], cell
            values[(b, ch) + o], indices[(b, ch) + o] = plane[where], where
    return values, indices


CASES = [  # (shape, kernel, output_size)
    ((2, 3, 7, 9), (3, 2), (4, 6)),
    ((1, 2, 10, 5), (2, 2), (9, 4)),   # overlapping windows, alpha close to 1
    ((2, 1, 12, 11), (1, 3), (5, 1)),  # one window along a side
    ((1, 2, 6, 7, 8), (2, 3, 2), (3, 4, 5)),
    ((2, 1, 9, 5, 6), (3, 1, 2), (2, 3, 4)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k,out", CASES)
def test_values_and_indices_follow_the_intervals(device, shape, k, out, dtype):
    rng = np.random.default_rng(sum(shape))
    nd = len(shape) - 2
    x = rng.standard_normal(shape).astype(dtype)
    x[..., ::2] = np.round(x[..., ::2])  # ties: the first largest
    u = rng.random(shape[:2] + (nd,)).astype(dtype)
    pool = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    values, indices = pool(_t(x, device), k, output_size=out, return_indices=True,
                           _random_samples=_t(u, device))
    ref_v, ref_i = ref_fractional(x, k, out, u)
    np.testing.assert_array_equal(indices.cpu().numpy(), ref_i)
    np.testing.assert_array_equal(values.cpu().numpy(), ref_v)
    assert values.dtype == pdt.from_numpy(x).dtype and indices.dtype == pdt.int64


def test_float32_intervals_round_as_float32(device):
    """Long sides, where (i + u) * alpha computed in float64 would truncate otherwise."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 2, 1000, 3)).astype(np.float32)
    u = rng.random((2, 2, 2)).astype(np.float32)
    got = F.fractional_max_pool2d(_t(x, device), (3, 1), output_size=(700, 3),
                                  return_indices=True, _random_samples=_t(u, device))[1]
    np.testing.assert_array_equal(got.cpu().numpy(), ref_fractional(x, (3, 1), (700, 3), u)[1])
    # (1 + u) * alpha, u the float32 below 3 / 7 and alpha = 7 / 2: 5.0 in float32,
    # 4.9999999 in float64; the middle window starts at int(5.0) - int(1.5) = 4 (PyTorch's
    # rows: 0, 4, 7), not 3
    u = np.array([[[0.0, np.nextafter(np.float32(3 / 7), np.float32(0))]]], np.float32)
    got = F.fractional_max_pool2d(_t(np.arange(8, dtype=np.float32).reshape(1, 1, 8, 1), device),
                                  1, output_size=(3, 1), _random_samples=_t(u, device))
    np.testing.assert_array_equal(got.cpu().numpy().ravel(), [0, 4, 7])


def test_nan_and_unbatched_and_ratio(device):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 8, 9))
    x[0, 0, :3] = np.nan
    x[1, 1, 0] = np.nan
    u = rng.random((1, 3, 2))
    values, indices = F.fractional_max_pool2d(_t(x, device), 3, output_ratio=(0.5, 0.75),
                                              return_indices=True, _random_samples=_t(u, device))
    ref_v, ref_i = ref_fractional(x[None], (3, 3), (4, 6), u)
    assert tuple(values.shape) == (3, 4, 6)
    np.testing.assert_array_equal(indices.cpu().numpy(), ref_i[0])  # the last NaN
    np.testing.assert_array_equal(values.cpu().numpy(), ref_v[0])
    # samples drawn when none are given: windows still inside, maxima of the input
    v, i = F.fractional_max_pool3d(_t(x.reshape(3, 2, 4, 9), device), 1, output_size=(1, 3, 5),
                                   return_indices=True)
    flat = x.reshape(3, -1)
    np.testing.assert_array_equal(v.cpu().numpy().reshape(3, -1),
                                  np.take_along_axis(flat, i.cpu().numpy().reshape(3, -1), 1))
    empty = F.fractional_max_pool2d(_t(x, device), 2, output_size=(0, 3))
    assert tuple(empty.shape) == (3, 0, 3)


def test_gradient_goes_to_the_maxima(device):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 2, 7, 6))
    u = _t(rng.random((2, 2, 2)), device)  # overlapping windows: gradients add up
    gradcheck(lambda t: F.fractional_max_pool2d(t, 3, output_size=(5, 4), _random_samples=u),
              [x], device)
    x3 = rng.standard_normal((1, 2, 5, 4, 6))
    u3 = _t(rng.random((1, 2, 3)), device)
    gradcheck(lambda t: F.fractional_max_pool3d(t, 2, output_size=(3, 2, 4),
                                                _random_samples=u3), [x3], device)


def test_modules(device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 8, 10))
    u = rng.random((2, 3, 2))
    pool = nn.FractionalMaxPool2d((2, 3), output_size=(5, 6), return_indices=True,
                                  _random_samples=_t(u, device))
    assert list(pool.state_dict()) == ["_random_samples"] and repr(pool) == \
        "FractionalMaxPool2d()"
    values, indices = pool(_t(x, device))
    ref_v, ref_i = ref_fractional(x, (2, 3), (5, 6), u)
    np.testing.assert_array_equal(indices.cpu().numpy(), ref_i)
    np.testing.assert_array_equal(values.cpu().numpy(), ref_v)
    three = nn.FractionalMaxPool3d(2, output_ratio=0.5)
    assert three.state_dict() == {} and three.output_ratio == (0.5, 0.5, 0.5)
    assert tuple(three(_t(rng.standard_normal((3, 6, 8, 9)), device)).shape) == (3, 3, 4, 4)


@pytest.mark.parametrize("make,match", [
    (lambda: nn.FractionalMaxPool2d(2), "either an output size, or a pooling ratio"),
    (lambda: nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5),
     "only one of output_size and output_ratio"),
    (lambda: nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0)),
     r"output_ratio must be between 0 and 1 \(got \(0.5, 1.0\)\)")])
def test_module_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_errors(device):
    x = _t(np.zeros((2, 3, 7, 9)), device)
    u = _t(np.zeros((2, 3, 2)), device)
    with pytest.raises(RuntimeError, match="pool height 4 too large relative to input "
                                           "height 7"):
        F.fractional_max_pool2d(x, 4, output_size=5)
    with pytest.raises(RuntimeError, match="pool time 2 too large relative to input time 5"):
        F.fractional_max_pool3d(_t(np.zeros((1, 1, 5, 6, 7)), device), 2, output_size=(4, 2, 2))
    with pytest.raises(RuntimeError, match=r"kernel size should be greater than zero, but got "
                                           r"0x0"):
        F.fractional_max_pool2d(x, 0, output_size=2)
    with pytest.raises(ValueError, match="either an output_size or an output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match="same dtype as input"):
        F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=u.float())
    with pytest.raises(RuntimeError, match=r"_random_samples of shape \(at least 2, 3, 2\)"):
        F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=u[:1])
    with pytest.raises(RuntimeError, match="non-zero sizes for non-batch dimensions"):
        F.fractional_max_pool2d(x[:, :0], 2, output_size=2)
    with pytest.raises(RuntimeError, match="expected a floating point input"):
        F.fractional_max_pool2d(x.long(), 2, output_size=2)


def test_empty_batch_and_samples_requiring_grad(device):
    """A batch of 0 images gives an empty result, as PyTorch's (the flat view was
    reshaped with -1, which 0 elements cannot fix); _random_samples requiring grad is
    refused, as PyTorch's (no derivative with respect to them)."""
    F = pdt.nn.functional
    for nd, f in ((2, F.fractional_max_pool2d), (3, F.fractional_max_pool3d)):
        x = pdt.zeros((0, 3) + (7,) * nd, device=device)
        y, i = f(x, 2, output_size=3, return_indices=True)
        assert tuple(y.shape) == tuple(i.shape) == (0, 3) + (3,) * nd
        assert i.dtype == pdt.int64
        u = pdt.rand(1, 1, nd, device=device, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to "
                                               "_random_samples"):
            f(pdt.rand((1, 1) + (4,) * nd, device=device), 2, output_size=2,
              _random_samples=u)
        with pdt.no_grad():
            assert tuple(f(pdt.rand((1, 1) + (4,) * nd, device=device), 2, output_size=2,
                           _random_samples=u).shape) == (1, 1) + (2,) * nd
