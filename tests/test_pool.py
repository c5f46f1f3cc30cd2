"""Pooling (D2L chapters 7-8): F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d,
F.adaptive_max_pool2d and their modules.

References are NumPy float64 loops over PyTorch's windows written here: max pooling
pads with -inf and the gradient goes to the first largest element of each window
(row-major inside the window); average pooling divides by PyTorch's count (the
padding counts with count_include_pad; the cells ceil_mode adds never count); the
adaptive bins are [floor(i * H / o), ceil((i + 1) * H / o)).  float64 results must
agree to 1e-12 relative; against torch when it imports.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


def _out(size, k, d, p, s, ceil):
    """The number of windows, counted one by one rather than by the implementation's
    formula: those that fit in the padded input, and with ceil_mode one more that
    hangs past its end if it starts before the end of the input and its right
    padding."""
    span = d * (k - 1) + 1
    last = size + 2 * p - span  # the last start of a window that fits
    return sum(1 for o in range(size + 2 * p + 1)
               if o * s <= last or (ceil and last < o * s < last + s and o * s < size + p))


def ref_max_pool(x, k, s, p, d, ceil):
    """(values, flat indices, the gradient of sum(R * out) for R = ones)."""
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], d[0], p[0], s[0], ceil), _out(w, k[1], d[1], p[1], s[1], ceil)
    vals, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=np.int64)
    for y in range(oh):
        for x_ in range(ow):
            best = np.full((n, c), -np.inf)
            where = np.full((n, c), -1)
            for i in range(k[0]):
                for j in range(k[1]):
                    r, q = y * s[0] - p[0] + i * d[0], x_ * s[1] - p[1] + j * d[1]
                    if 0 <= r < h and 0 <= q < w:
                        v = x[:, :, r, q]
                        better = v > best
                        best = np.where(better, v, best)
                        where = np.where(better, r * w + q, where)
            vals[:, :, y, x_], idx[:, :, y, x_] = best, where
    return vals, idx


def ref_avg_pool(x, k, s, p, ceil, include_pad, divisor=None):
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], 1, p[0], s[0], ceil), _out(w, k[1], 1, p[1], s[1], ceil)
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for x_ in range(ow):
            r0, q0 = y * s[0] - p[0], x_ * s[1] - p[1]
            r1, q1 = min(r0 + k[0], h + p[0]), min(q0 + k[1], w + p[1])
            cells = (r1 - r0) * (q1 - q0)
            a0, b0, a1, b1 = max(r0, 0), max(q0, 0), min(r1, h), min(q1, w)
            total = x[:, :, a0:a1, b0:b1].sum((2, 3))
            if divisor is None:
                divisor_here = cells if include_pad else (a1 - a0) * (b1 - b0)
            else:
                divisor_here = divisor
            out[:, :, y, x_] = total / divisor_here
    return out


def _bins(size, o):
    return [((i * size) // o, -(-((i + 1) * size) // o)) for i in range(o)]


def ref_adaptive(x, out, how):
    n, c, h, w = x.shape
    res = np.zeros((n, c) + out)
    for y, (r0, r1) in enumerate(_bins(h, out[0])):
        for x_, (q0, q1) in enumerate(_bins(w, out[1])):
            res[:, :, y, x_] = how(x[:, :, r0:r1, q0:q1], axis=(2, 3))
    return res


MAX_CASES = [  # kernel, stride, padding, dilation, ceil_mode
    ((2, 2), (2, 2), (0, 0), (1, 1), False),
    ((3, 3), (2, 2), (1, 1), (1, 1), False),     # ResNet's stem pool
    ((3, 3), (2, 2), (0, 0), (1, 1), True),
    ((3, 2), (1, 2), (1, 1), (2, 1), False),
    ((2, 3), (2, 2), (1, 1), (1, 1), True),
    ((3, 3), (1, 1), (1, 1), (1, 1), False),     # GoogLeNet's branch pool
]


@pytest.mark.parametrize("case", range(len(MAX_CASES)))
def test_max_pool2d_matches_numpy(device, case):
    k, s, p, d, ceil = MAX_CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((2, 3, 7, 8))
    ref, ref_idx = ref_max_pool(x, k, s, p, d, ceil)
    xt = _t(x, device).requires_grad_()
    got, idx = F.max_pool2d(xt, k, s, p, d, ceil_mode=ceil, return_indices=True)
    assert_close(got, ref, "float64")
    assert idx.dtype == pdt.int64 and idx.cpu().tolist() == ref_idx.tolist()
    r = rng.standard_normal(ref.shape)
    (got * _t(r, device)).sum().backward()
    grad = np.zeros(x.size)
    np.add.at(grad, (np.arange(6)[:, None] * 56 + ref_idx.reshape(6, -1)).ravel(), r.ravel())
    assert_close(xt.grad, grad.reshape(x.shape), "float64")
    f32 = F.max_pool2d(_t(x, device, pdt.float32), k, s, p, d, ceil_mode=ceil)
    assert_close(f32, ref.astype(np.float32), "float32")


def test_max_pool2d_ties_and_unbatched(device):
    """A tie sends the gradient to the first largest element (ReLU's zeros tie often)."""
    x = _t(np.zeros((1, 4, 4)), device).requires_grad_()
    out = F.max_pool2d(x, 2)
    assert tuple(out.shape) == (1, 2, 2)
    out.sum().backward()
    assert x.grad.cpu().tolist() == [[[1., 0., 1., 0.], [0., 0., 0., 0.],
                                      [1., 0., 1., 0.], [0., 0., 0., 0.]]]
    pool = nn.MaxPool2d(2, return_indices=True)
    vals, idx = pool(_t(np.arange(16.).reshape(1, 1, 4, 4), device))
    assert idx.cpu().tolist() == [[[[5, 7], [13, 15]]]]


@pytest.mark.parametrize("ceil", [False, True])
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d_matches_numpy(device, ceil, include_pad):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 7, 8))
    for k, s, p in (((2, 2), (2, 2), (0, 0)), ((3, 3), (2, 2), (1, 1)),
                    ((3, 2), (2, 3), (1, 1)), ((2, 2), (1, 1), (1, 0))):
        got = F.avg_pool2d(_t(x, device), k, s, p, ceil, include_pad)
        assert_close(got, ref_avg_pool(x, k, s, p, ceil, include_pad), "float64")
    got = F.avg_pool2d(_t(x, device), 3, 2, 1, ceil, include_pad, divisor_override=4)
    assert_close(got, ref_avg_pool(x, (3, 3), (2, 2), (1, 1), ceil, include_pad, 4), "float64")
    unb = F.avg_pool2d(_t(x[0], device), 2)
    assert_close(unb, ref_avg_pool(x[:1], (2, 2), (2, 2), (0, 0), False, True)[0], "float64")


def test_avg_pools_of_tiling_windows(device):
    """Windows that tile the input (stride = kernel, no padding: Note [tiling windows]),
    whole or cropped, a global average, a divisor, half types, a channels-last input and
    the gradients, against NumPy."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal((2, 3, 8, 6))
    x = rng.standard_normal((2, 3, 17, 12))
    for k in ((8, 8), (16, 4), (17, 12), (2, 2)):
        xt = _t(x, device).requires_grad_()
        got = F.avg_pool2d(xt, k)
        ref = ref_avg_pool(x, k, k, (0, 0), False, True)
        assert_close(got, ref, "float64")
        r = rng.standard_normal(ref.shape)
        (got * _t(r, device)).sum().backward()
        grad = np.zeros_like(x)
        oh, ow = ref.shape[2:]
        for i in range(oh):
            for j in range(ow):
                grad[:, :, i * k[0]:(i + 1) * k[0], j * k[1]:(j + 1) * k[1]] += \
                    r[:, :, i:i + 1, j:j + 1] / (k[0] * k[1])
        assert_close(xt.grad, grad, "float64")
    got = F.avg_pool2d(_t(x, device), 8, divisor_override=3)
    assert_close(got, ref_avg_pool(x, (8, 8), (8, 8), (0, 0), False, True) * 64 / 3, "float64")
    cl = _t(x, device).to(memory_format=pdt.channels_last)
    assert_close(F.adaptive_avg_pool2d(cl, 1), x.mean(axis=(2, 3), keepdims=True), "float64")
    for half in (pdt.float16, pdt.bfloat16):
        got = F.adaptive_avg_pool2d(_t(x[:, :, :16], device, half), (2, 1))
        ref = _t(x[:, :, :16], device, half).float().numpy() if device.type == "cpu" else None
        if ref is not None:
            want = ref.reshape(2, 3, 2, 8, 1, 12).mean(axis=(3, 5))
            np.testing.assert_array_equal(got.float().numpy(),
                                          _t(want, device, half).float().numpy())
    gradcheck(lambda t: F.avg_pool2d(t, (8, 9)), [rng.standard_normal((1, 2, 9, 10))], device)


@pytest.mark.parametrize("out", [(1, 1), (2, 4), (3, 5), (7, 3), (4, 1)])
def test_adaptive_pools_match_numpy(device, out):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 3, 7, 8))
    assert_close(F.adaptive_avg_pool2d(_t(x, device), out), ref_adaptive(x, out, np.mean),
                 "float64")
    assert_close(F.adaptive_max_pool2d(_t(x, device), out), ref_adaptive(x, out, np.max),
                 "float64")
    assert_close(nn.AdaptiveAvgPool2d(out)(_t(x[0], device)), ref_adaptive(x, out, np.mean)[0],
                 "float64")
    vals, idx = F.adaptive_max_pool2d(_t(x, device), out, return_indices=True)
    flat = x.reshape(2, 3, -1)
    picked = np.take_along_axis(flat, idx.cpu().numpy().reshape(2, 3, -1), 2)
    assert_close(picked.reshape(vals.shape), vals.cpu().numpy(), "float64")
    none = F.adaptive_avg_pool2d(_t(x, device), (None, 2))
    assert tuple(none.shape) == (2, 3, 7, 2)


def test_pools_gradcheck(device):
    rng = np.random.default_rng(13)
    x = [rng.standard_normal((1, 2, 5, 6))]
    gradcheck(lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True), x, device)
    gradcheck(lambda t: F.avg_pool2d(t, 3, 2, 1, True, False), x, device)
    gradcheck(lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x, device)
    gradcheck(lambda t: F.adaptive_max_pool2d(t, (2, 4)), x, device)


def test_pools_match_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(14)
    x = rng.standard_normal((2, 3, 9, 7))
    tf = torch.nn.functional
    calls = [
        ("max_pool2d", (3, 2, 1), dict(ceil_mode=True)),
        ("max_pool2d", ((2, 3), (1, 2), (1, 1), (2, 1)), {}),
        ("avg_pool2d", (3, 2, 1), dict(ceil_mode=True, count_include_pad=False)),
        ("avg_pool2d", (3, 2, 1), dict(ceil_mode=True)),
        ("avg_pool2d", (2,), dict(divisor_override=3)),
        ("adaptive_avg_pool2d", ((4, 3),), {}),
        ("adaptive_max_pool2d", ((4, 5),), {}),
    ]
    for name, args, kw in calls:
        tx = torch.tensor(x, requires_grad=True)
        px = _t(x, device).requires_grad_()
        tout, pout = getattr(tf, name)(tx, *args, **kw), getattr(F, name)(px, *args, **kw)
        r = rng.standard_normal(tuple(tout.shape))
        (tout * torch.tensor(r)).sum().backward()
        (pout * _t(r, device)).sum().backward()
        assert_close(pout, tout.detach().numpy(), "float64")
        assert_close(px.grad, tx.grad.numpy(), "float64")


def test_pool_modules_repr_and_defaults(device):
    assert repr(nn.MaxPool2d(2)) == \
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3, 1, 1)) == "AvgPool2d(kernel_size=3, stride=1, padding=1)"
    assert repr(nn.AdaptiveMaxPool2d((2, 2))) == "AdaptiveMaxPool2d(output_size=(2, 2))"
    x = pdt.arange(16., device=device).reshape(1, 1, 4, 4)
    assert nn.AvgPool2d(2)(x).cpu().tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert nn.MaxPool2d(2, stride=1)(x).shape == (1, 1, 3, 3)



@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
def test_max_pools_of_integers(device, dtype):
    """max_pool2d and max_pool3d take the integer dtypes, as PyTorch (image pipelines):
    exact values (int64 beyond 2**53 too), the dtype kept, and the indices of the first
    maximum, against the NumPy reference; the padding never wins (it reads the dtype's
    least value)."""
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (2, 3, 7, 8), dtype=dtype, endpoint=True)
    for k, s, p, d, ceil in MAX_CASES:
        got, idx = F.max_pool2d(_t(x, device, getattr(pdt, dtype)), k, s, p, d, ceil,
                                return_indices=True)
        want_idx = ref_max_pool(x.astype(object), k, s, p, d, ceil)[1]
        assert got.dtype == getattr(pdt, dtype) and got.device == device
        np.testing.assert_array_equal(  # exact: the values at the reference's indices
            got.cpu().numpy(), np.take_along_axis(x.reshape(2, 3, -1),
                                                  want_idx.reshape(2, 3, -1), 2
                                                  ).reshape(want_idx.shape))
        np.testing.assert_array_equal(idx.cpu().numpy(), want_idx)
    lowest = np.full((1, 1, 2, 2), info.min, dtype=dtype)  # all least: a real cell's index
    _, idx = F.max_pool2d(_t(lowest, device, getattr(pdt, dtype)), 2, 1, 1,
                          return_indices=True)
    np.testing.assert_array_equal(
        idx.cpu().numpy(), ref_max_pool(lowest.astype(object), (2, 2), (1, 1), (1, 1), (1, 1),
                                        False)[1])
    v = rng.integers(info.min, info.max, (2, 3, 4, 6, 4), dtype=dtype, endpoint=True)
    got = F.max_pool3d(_t(v, device, getattr(pdt, dtype)), 2)
    assert got.dtype == getattr(pdt, dtype)
    assert got.cpu().numpy().tolist() == \
        v.reshape(2, 3, 2, 2, 3, 2, 2, 2).max(axis=(3, 5, 7)).tolist()


def _trunc_div(total, count):
    """Integer division rounded toward zero (C's, PyTorch's integer average pools)."""
    q = np.abs(total) // count
    return np.where(total < 0, -q, q)


def test_avg_pools_of_int64(device):
    """avg_pool1d/2d/3d take int64, as PyTorch: int64 sums divided as integers, rounded
    toward zero (-10 / 9 is -1), with the padding counted or not and divisor_override;
    the other integer dtypes stay refused, as there."""
    rng = np.random.default_rng(6)
    x = rng.integers(-50, 50, (2, 3, 7, 8))
    xt = _t(x, device, pdt.int64)
    for k, s, p in (((2, 2), (2, 2), (0, 0)), ((3, 3), (2, 2), (1, 1)),
                    ((3, 2), (2, 3), (1, 1)), ((2, 2), (1, 1), (1, 0))):
        for include, divisor in ((True, None), (False, None), (True, 5)):
            got = F.avg_pool2d(xt, k, s, p, False, include, divisor)
            sums = np.rint(ref_avg_pool(x.astype(float), k, s, p, False, include, 1)
                           ).astype(np.int64)
            ones = np.ones(x.shape)  # each window's divisor: cells inside / their mean
            cells = divisor or np.rint(ref_avg_pool(ones, k, s, p, False, include, 1) /
                                       ref_avg_pool(ones, k, s, p, False, include)
                                       ).astype(np.int64)
            assert got.dtype == pdt.int64
            np.testing.assert_array_equal(got.cpu().numpy(), _trunc_div(sums, cells))
    got = F.avg_pool1d(xt[0], 3, 1, 1)
    sums = np.stack([np.pad(x[0], ((0, 0), (0, 0), (1, 1)))[..., i:i + 3].sum(-1)
                     for i in range(8)], -1)
    np.testing.assert_array_equal(got.cpu().numpy(), _trunc_div(sums, 3))
    v = rng.integers(-50, 50, (2, 3, 4, 6, 4))
    got = F.avg_pool3d(_t(v, device, pdt.int64), 2)
    np.testing.assert_array_equal(
        got.cpu().numpy(), _trunc_div(v.reshape(2, 3, 2, 2, 3, 2, 2, 2).sum((3, 5, 7)), 8))
    assert F.avg_pool2d(_t(x, device, pdt.int64)[:, :, :3, :3], 3, 1, 1).cpu()[0, 0, 0, 0] \
        == _trunc_div(x[0, 0, :2, :2].sum(), 9)


def test_pool_bad_input(device):
    x = pdt.zeros(1, 2, 4, 4, device=device)
    d = str(device)
    cases = [
        (lambda: F.max_pool2d(x, 2, padding=2), RuntimeError,
         r"pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 "
         r"and dilation=1 \(on " + d),
        (lambda: F.avg_pool2d(x, 3, padding=2), RuntimeError,
         r"pad should be at most half of kernel size, but got pad=2 and kernel_size=3"),
        (lambda: F.max_pool2d(x, 5), ValueError,
         r"given input size \(2x4x4\), calculated output size \(2x0x0\) is too small"),
        (lambda: F.max_pool2d(x, 2, stride=0), ValueError, r"stride must be positive"),
        (lambda: F.max_pool2d(x, 0), ValueError, r"kernel_size must be positive"),
        (lambda: F.avg_pool2d(pdt.zeros(4, 4, device=device), 2), RuntimeError,
         r"expected a 3-d \(unbatched\) or 4-d \(batched\) input, got shape \(4, 4\) \(on " + d),
        (lambda: F.max_pool2d(x.bool(), 2), RuntimeError,
         r"expected a floating point input or pydevtensor.uint8, .*, got pydevtensor.bool of "
         r"shape \(1, 2, 4, 4\)"),
        (lambda: F.avg_pool2d(x.int(), 2), RuntimeError,
         r"expected a floating point input or pydevtensor.int64, got pydevtensor.int32 of "
         r"shape \(1, 2, 4, 4\)"),
        (lambda: F.avg_pool2d(x, 2, divisor_override=0), RuntimeError, r"divisor must be not zero"),
        (lambda: F.adaptive_avg_pool2d(x, -1), ValueError, r"output_size must be non-negative"),
        (lambda: F.adaptive_max_pool2d(x, (1, 2, 3)), RuntimeError,
         r"expected output_size to be a single integer value or a list of 2 values"),
        (lambda: F.adaptive_avg_pool2d(pdt.zeros(1, 2, 0, 3, device=device), 1), ValueError,
         r"non-zero spatial sizes, got shape \(1, 2, 0, 3\)"),
        (lambda: F.max_pool2d(x, "2"), TypeError, r"kernel_size must be an int or a tuple"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_max_pool2d_all_minus_inf_window_touching_the_padding(device):
    """A window whose real cells are all -inf picks its first real cell (never the
    padding, which reads -inf too) for its index and its gradient, as torch's (found
    by a reviewer: indices -3, -2, -1 and a lost gradient)."""
    inf = math.inf
    x = pdt.full((1, 1, 2, 2), -inf, device=device).requires_grad_()
    values, indices = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    assert values.tolist() == [[[[-inf, -inf], [-inf, -inf]]]]
    assert indices.tolist() == [[[[0, 0], [0, 0]]]]
    F.max_pool2d(x, 3, 1, 1).sum().backward()
    assert x.grad.tolist() == [[[[4.0, 0.0], [0.0, 0.0]]]]
    # dilated, and ceil_mode's cells past the end: the first real cell of each window
    y = pdt.full((1, 1, 3, 3), -inf, device=device)
    assert F.max_pool2d(y, 2, 2, ceil_mode=True, return_indices=True)[1].tolist() == \
        [[[[0, 2], [6, 8]]]]
    z = pdt.full((1, 1, 5, 5), -inf, device=device)  # taps at rows and columns -1, 1, 3
    assert F.max_pool2d(z, 3, 2, 1, dilation=2, return_indices=True)[1].tolist() == \
        [[[[6, 6], [6, 6]]]]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_pools_in_half_types_match_torch(device, dtype):
    """float16 and bfloat16 average pools sum and divide in float32 and round once, as
    torch: equal to torch's to one rounding; no overflow where a half sum would be
    inf (found by a reviewer: 100 cells of 1000 gave inf); max pools exact."""
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((2, 3, 10, 9)) * 3 + 50).astype(np.float32)
    tx = torch.from_numpy(x).to(getattr(torch, dtype))
    px = pdt.from_numpy(x).to(device=device, dtype=getattr(pdt, dtype))
    tF = torch.nn.functional
    ulp = 2.0 ** (-10 if dtype == "float16" else -7) * 64  # one rounding at 64 <= |y| < 128
    cases = [
        (lambda f, t: f.avg_pool2d(t, 3, 2, 1), 1),
        (lambda f, t: f.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), 1),
        (lambda f, t: f.avg_pool2d(t, (10, 9)), 1),
        (lambda f, t: f.adaptive_avg_pool2d(t, (5, 3)), 1),  # dividing sizes
        (lambda f, t: f.adaptive_avg_pool2d(t, (3, 4)), 1),  # uneven bins
        (lambda f, t: f.max_pool2d(t, 3, 2, 1), 0),
        (lambda f, t: f.adaptive_max_pool2d(t, (3, 4)), 0),
    ]
    for fn, ulps in cases:
        want = fn(tF, tx).float().numpy()
        got = fn(F, px)
        assert got.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(got.to(pdt.float32).cpu().numpy(), want, rtol=0,
                                   atol=ulps * ulp)
    big = pdt.full((1, 1, 10, 10), 1000.0, dtype=getattr(pdt, dtype), device=device)
    assert F.adaptive_avg_pool2d(big, 1).item() == 1000.0
    assert F.avg_pool2d(big, 10).item() == 1000.0


def _ref_adaptive_mean(x, out):
    """The mean over each adaptive bin of x's trailing len(out) dimensions (loops), and
    the matrix that maps the output's gradient to the input's: cell j of bin i gets
    1 / (the bin's size)."""
    spatial = x.shape[x.ndim - len(out):]
    res = np.zeros(x.shape[:x.ndim - len(out)] + tuple(out))
    grad = np.zeros(tuple(out) + tuple(spatial))
    for idx in np.ndindex(*out):
        cut = tuple(slice(*_bins(n, m)[i]) for i, n, m in zip(idx, spatial, out))
        cells = x[(Ellipsis,) + cut]
        res[(Ellipsis,) + idx] = cells.reshape(cells.shape[:x.ndim - len(out)] + (-1,)).mean(-1)
        grad[idx + cut] = 1.0 / cells[(0,) * (x.ndim - len(out))].size
    return res, grad


@pytest.mark.parametrize("shape, out", [((2, 3, 7), (3,)), ((2, 3, 7, 5), (3, 2)),
                                        ((1, 2, 10, 11), (4, 4)), ((1, 2, 5, 7, 6), (2, 3, 4))])
def test_adaptive_avg_pool_keeps_nan_and_inf_in_their_bins(device, shape, out):
    """An uneven adaptive average is each bin's own mean, as PyTorch's: a NaN or inf
    reaches only the bins that hold it (an averaging-matrix product spread it to all,
    0 * inf being NaN); the gradient is 1 / (bin size) for each bin holding a cell."""
    x = np.random.default_rng(5).standard_normal(shape)
    x.flat[3], x.flat[17], x.flat[-5] = np.nan, -np.inf, np.inf
    want, grad = _ref_adaptive_mean(x, out)
    fn = (F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d)[len(out) - 1]
    for got in (fn(_t(x, device), out), F.interpolate(_t(x, device), size=out, mode="area")):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, equal_nan=True)
    assert 0 < np.isnan(want).sum() < want.size // 2
    for dtype in (pdt.float32, pdt.float16):
        np.testing.assert_allclose(fn(_t(x, device, dtype), out).double().cpu().numpy(),
                                   want, rtol=2e-3, atol=2e-3, equal_nan=True)
    t = _t(np.nan_to_num(x), device).requires_grad_()
    w = np.random.default_rng(6).standard_normal(want.shape)
    (fn(t, out) * _t(w, device)).sum().backward()
    k = len(out)
    lead = "abcdefgh"[:x.ndim - k]
    outs, ins = "ijk"[:k], "lmn"[:k]
    np.testing.assert_allclose(t.grad.cpu().numpy(),
                               np.einsum(f"{lead}{outs},{outs}{ins}->{lead}{ins}", w, grad),
                               rtol=1e-12)
