"""The 1-d pools (F.max_pool1d, avg_pool1d, adaptive_avg_pool1d, adaptive_max_pool1d),
the power-average pools (F.lp_pool1d, lp_pool2d, lp_pool3d) and their modules.

References: test_pool.py's NumPy float64 loops over PyTorch's windows, on rows of
height 1 (float64 to 1e-12 relative, float32 to 1e-6); lp pools as
``(sum over the window of x ** p) ** (1 / p)`` in float64; torch itself when it
imports (values to 1e-12, indices equal, gradients to 1e-12).
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import TORCH_CHECKED, assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck
from test_pool import ref_adaptive, ref_avg_pool, ref_max_pool


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


MAX_CASES = [  # kernel, stride, padding, dilation, ceil_mode
    (2, 2, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 0, 1, True), (3, 1, 1, 2, False),
    (4, 3, 2, 1, True),
]


@pytest.mark.parametrize("case", range(len(MAX_CASES)))
def test_max_pool1d_matches_numpy(device, case):
    k, s, p, d, ceil = MAX_CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((2, 3, 11))
    ref, ref_idx = ref_max_pool(x[:, :, None, :], (1, k), (1, s), (0, p), (1, d), ceil)
    ref, ref_idx = ref[:, :, 0], ref_idx[:, :, 0]
    xt = _t(x, device).requires_grad_()
    got, idx = F.max_pool1d(xt, k, s, p, d, ceil_mode=ceil, return_indices=True)
    assert_close(got, ref, "float64")
    assert idx.dtype == pdt.int64 and idx.cpu().tolist() == ref_idx.tolist()
    r = rng.standard_normal(ref.shape)
    (got * _t(r, device)).sum().backward()
    grad = np.zeros(x.shape)
    for n in range(2):
        for c in range(3):
            np.add.at(grad[n, c], ref_idx[n, c], r[n, c])
    assert_close(xt.grad, grad, "float64")
    f32 = F.max_pool1d(_t(x, device, pdt.float32), (k,), (s,), (p,), (d,), ceil_mode=ceil)
    assert_close(f32, ref.astype(np.float32), "float32")
    unb = nn.MaxPool1d(k, s, p, d, ceil_mode=ceil)(_t(x[0], device))
    assert_close(unb, ref[0], "float64")


@pytest.mark.parametrize("ceil", [False, True])
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool1d_matches_numpy(device, ceil, include_pad):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 10))
    for k, s, p in ((2, 2, 0), (3, 2, 1), (4, 3, 2), (3, 1, 1)):
        got = F.avg_pool1d(_t(x, device), k, s, p, ceil, include_pad)
        ref = ref_avg_pool(x[:, :, None, :], (1, k), (1, s), (0, p), ceil, include_pad)
        assert_close(got, ref[:, :, 0], "float64")
    unb = nn.AvgPool1d(3, 2, 1, ceil, include_pad)(_t(x[1], device))
    ref = ref_avg_pool(x[1:2, :, None, :], (1, 3), (1, 2), (0, 1), ceil, include_pad)
    assert_close(unb, ref[0, :, 0], "float64")


@pytest.mark.parametrize("out", [1, 2, 3, 5, 7, 10])
def test_adaptive_pools_1d_match_numpy(device, out):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 7))
    x4 = x[:, :, None, :]
    mean, top = ref_adaptive(x4, (1, out), np.mean)[:, :, 0], ref_adaptive(x4, (1, out), np.max)
    assert_close(F.adaptive_avg_pool1d(_t(x, device), out), mean, "float64")
    assert_close(nn.AdaptiveAvgPool1d((out,))(_t(x[0], device)), mean[0], "float64")
    vals, idx = F.adaptive_max_pool1d(_t(x, device), out, return_indices=True)
    assert_close(vals, top[:, :, 0], "float64")
    assert_close(np.take_along_axis(x, idx.cpu().numpy(), 2), top[:, :, 0], "float64")
    assert_close(nn.AdaptiveMaxPool1d(out)(_t(x[0], device)), top[0, :, 0], "float64")


def _ref_lp(x, p, k, s, ceil):
    """(N, C, L) float64: the p-norm of each window; windows as avg_pool1d's (no
    padding); a window that ceil_mode cuts at the end gives the mean of its cells'
    x ** p times k, as PyTorch's (mean times kernel cells)."""
    n, c, length = x.shape
    out = (length - k) // s + 1
    if ceil and (length - k) % s and (out * s) < length:
        out += 1
    res = np.zeros((n, c, out))
    for o in range(out):
        res[:, :, o] = ((x[:, :, o * s:o * s + k] ** p).mean(2) * k) ** (1.0 / p)
    return res


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_lp_pools_match_numpy(device, p):
    rng = np.random.default_rng(5)
    x = np.abs(rng.standard_normal((2, 3, 11))) + 0.1
    for k, s, ceil in ((2, None, False), (3, 2, True), (4, 3, False), (4, 3, True)):
        got = F.lp_pool1d(_t(x, device), p, k, s, ceil)
        assert_close(got, _ref_lp(x, p, k, s or k, ceil), "float64")
    x2 = np.abs(rng.standard_normal((2, 3, 4, 6))) + 0.1
    got = nn.LPPool2d(p, (2, 3))(_t(x2, device))
    ref = (x2.reshape(2, 3, 2, 2, 2, 3) ** p).sum((3, 5)) ** (1.0 / p)
    assert_close(got, ref, "float64")
    assert_close(nn.LPPool1d(p, 2)(_t(x[0], device)), _ref_lp(x[:1], p, 2, 2, False)[0],
                 "float64")


def _ref_lp3d(x, p, kernel, stride, ceil):
    """lp_pool3d in float64 by a window loop: PyTorch's avg_pool3d(x ** p) times the
    kernel's cells (a window cut by the end: its cells' mean times them), ** (1 / p)."""
    def outs(n, k, s):
        top = n - k
        o = (-(-top // s) if ceil else top // s) + 1
        return o - 1 if ceil and (o - 1) * s >= n else o
    sizes = [outs(n, k, s) for n, k, s in zip(x.shape[2:], kernel, stride)]
    out = np.empty(x.shape[:2] + tuple(sizes))
    for i, j, k in np.ndindex(*sizes):
        w = x[:, :, i * stride[0]:i * stride[0] + kernel[0],
              j * stride[1]:j * stride[1] + kernel[1], k * stride[2]:k * stride[2] + kernel[2]]
        out[:, :, i, j, k] = (w ** p).mean((2, 3, 4)) * np.prod(kernel)
    return out ** (1.0 / p)


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_lp_pool3d_matches_numpy(device, p):
    rng = np.random.default_rng(15)
    x = np.abs(rng.standard_normal((2, 3, 5, 4, 6))) + 0.1
    for k, s, ceil in ((2, None, False), ((2, 3, 2), (2, 1, 3), True), (3, 2, True)):
        kt, st = (k,) * 3 if isinstance(k, int) else k, s or k
        st = (st,) * 3 if isinstance(st, int) else st
        ref = _ref_lp3d(x, p, kt, st, ceil)
        assert_close(F.lp_pool3d(_t(x, device), p, k, s, ceil), ref, "float64")
        got = nn.LPPool3d(p, k, s, ceil)(_t(x[0], device, pdt.float32))  # unbatched
        assert got.dtype == pdt.float32
        assert_close(got, ref[0], "float32")
    inf = F.lp_pool3d(_t(-x, device), float("inf"), 2)  # the largest magnitude
    blocks = np.abs(x[:, :, :4, :4, :6]).reshape(2, 3, 2, 2, 2, 2, 3, 2)
    assert_close(inf, blocks.max((3, 5, 7)), "float64")
    gradcheck(lambda t: F.lp_pool3d(t, 2.5, 2, (1, 2, 2), ceil_mode=True),
              [x[:1, :2, :3, :3, :3]], device)
    assert repr(nn.LPPool3d(2, 3)) == "LPPool3d(norm_type=2, kernel_size=3, stride=None, " \
        "ceil_mode=False)"


def test_pools_1d_gradcheck(device):
    rng = np.random.default_rng(6)
    x = [rng.standard_normal((2, 2, 9))]
    gradcheck(lambda t: F.max_pool1d(t, 3, 2, 1, ceil_mode=True), x, device)
    gradcheck(lambda t: F.avg_pool1d(t, 3, 2, 1, True, False), x, device)
    gradcheck(lambda t: F.adaptive_avg_pool1d(t, 4), x, device)
    gradcheck(lambda t: F.adaptive_max_pool1d(t, 4), x, device)
    pos = [np.abs(x[0]) + 0.5]
    gradcheck(lambda t: F.lp_pool1d(t, 2.5, 3, 2, ceil_mode=True), pos, device)
    gradcheck(lambda t: F.lp_pool2d(t, 2, (2, 3)), [pos[0].reshape(2, 2, 3, 3)], device)


def test_pools_1d_match_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    x = np.abs(rng.standard_normal((2, 3, 13))) + 0.1
    tf = torch.nn.functional
    calls = [
        ("max_pool1d", (3, 2, 1), dict(ceil_mode=True)),
        ("max_pool1d", (2, 1, 1, 2), {}),
        ("avg_pool1d", (3, 2, 1), dict(ceil_mode=True, count_include_pad=False)),
        ("avg_pool1d", (4, 3, 2), dict(ceil_mode=True)),
        ("adaptive_avg_pool1d", (5,), {}),
        ("adaptive_max_pool1d", (6,), {}),
        ("lp_pool1d", (2, 3, 2), dict(ceil_mode=True)),
        ("lp_pool1d", (1.5, 4), {}),
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
    x2 = np.abs(rng.standard_normal((2, 3, 7, 8))) + 0.1
    for args, kw in (((2, 3), dict(ceil_mode=True)), ((3, (2, 3), (1, 2)), {})):
        tx, px = torch.tensor(x2, requires_grad=True), _t(x2, device).requires_grad_()
        tout, pout = tf.lp_pool2d(tx, *args, **kw), F.lp_pool2d(px, *args, **kw)
        tout.sum().backward()
        pout.sum().backward()
        assert_close(pout, tout.detach().numpy(), "float64")
        assert_close(px.grad, tx.grad.numpy(), "float64")
    tv, ti = tf.max_pool1d(torch.tensor(x), 3, 2, 1, return_indices=True)
    pv, pi = F.max_pool1d(_t(x, device), 3, 2, 1, return_indices=True)
    assert pi.cpu().tolist() == ti.tolist()


def test_pool_1d_modules_repr(device):
    torch = torch_or_skip()
    pairs = [
        (nn.MaxPool1d(3), torch.nn.MaxPool1d(3)),
        (nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True), torch.nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True)),
        (nn.AvgPool1d(3), torch.nn.AvgPool1d(3)),
        (nn.AvgPool1d(3, 2, 1), torch.nn.AvgPool1d(3, 2, 1)),
        (nn.AdaptiveAvgPool1d(3), torch.nn.AdaptiveAvgPool1d(3)),
        (nn.AdaptiveMaxPool1d(3), torch.nn.AdaptiveMaxPool1d(3)),
        (nn.LPPool1d(2, 3), torch.nn.LPPool1d(2, 3)),
        (nn.LPPool2d(1.5, (2, 3), 1, True), torch.nn.LPPool2d(1.5, (2, 3), 1, True)),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
    vals, idx = nn.MaxPool1d(2, return_indices=True)(pdt.arange(6., device=device).reshape(1, 6))
    assert vals.tolist() == [[1., 3., 5.]] and idx.tolist() == [[1, 3, 5]]


def test_pools_1d_half_types(device):
    """float16 and bfloat16: averages in float32 rounded once, maxima exact."""
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((2, 3, 20)) * 3 + 50).astype(np.float32)
    for dtype, ulp in (("float16", 2.0 ** -10 * 64), ("bfloat16", 2.0 ** -7 * 64)):
        tx = torch.from_numpy(x).to(getattr(torch, dtype))
        px = pdt.from_numpy(x).to(device=device, dtype=getattr(pdt, dtype))
        for name, args, tol in (("avg_pool1d", (3, 2, 1), ulp), ("adaptive_avg_pool1d", (6,), ulp),
                                ("max_pool1d", (3, 2), 0)):
            want = getattr(torch.nn.functional, name)(tx, *args).float().numpy()
            got = getattr(F, name)(px, *args)
            assert got.dtype == getattr(pdt, dtype)
            np.testing.assert_allclose(got.to(pdt.float32).cpu().numpy(), want, rtol=0, atol=tol)



def test_adaptive_pools_to_no_bins(device):
    """output_size 0 gives an empty output, as PyTorch (it was refused): 1-d and 2-d,
    avg and max (with empty int64 indices), unbatched too; the gradient through it is
    zeros."""
    x = pdt.ones(1, 2, 3, device=device, requires_grad=True)
    for out in (F.adaptive_avg_pool1d(x, 0), F.adaptive_max_pool1d(x, 0)):
        assert tuple(out.shape) == (1, 2, 0) and out.device == device
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros((1, 2, 3)))
    values, idx = F.adaptive_max_pool1d(x, (0,), return_indices=True)
    assert tuple(idx.shape) == (1, 2, 0) and idx.dtype == pdt.int64
    assert tuple(F.adaptive_avg_pool1d(pdt.ones(2, 3, device=device), 0).shape) == (2, 0)
    img = pdt.ones(1, 2, 3, 3, device=device)
    assert tuple(F.adaptive_avg_pool2d(img, (0, 2)).shape) == (1, 2, 0, 2)
    assert tuple(F.adaptive_max_pool2d(img, 0).shape) == (1, 2, 0, 0)


def test_adaptive_avg_pool_of_no_channels(device):
    """adaptive_avg_pool1d/2d and interpolate's area mode of an input with no channels
    give the empty (N, 0, *output_size) result, as PyTorch's (they raised an error
    naming im2col where the bins tile the input: (1, 0, 4, 4) to (2, 2)); the gradient
    is the input's empty one."""
    for shape, size, pool in [((1, 0, 4, 4), (2, 2), F.adaptive_avg_pool2d),
                              ((1, 0, 4, 4), (3, 3), F.adaptive_avg_pool2d),
                              ((0, 4, 4), (2, 3), F.adaptive_avg_pool2d),
                              ((2, 0, 5), 1, F.adaptive_avg_pool1d),
                              ((2, 0, 6), 2, F.adaptive_avg_pool1d)]:
        x = pdt.ones(*shape, device=device, requires_grad=True)
        out = pool(x, size)
        want = shape[:-2 if pool is F.adaptive_avg_pool2d else -1] + (
            size if isinstance(size, tuple) else (size,))
        assert tuple(out.shape) == want and out.device == device, (shape, size)
        out.sum().backward()
        assert tuple(x.grad.shape) == shape
    area = F.interpolate(pdt.ones(2, 0, 4, device=device), size=2, mode="area")
    assert tuple(area.shape) == (2, 0, 2) and area.device == device


def test_pool_1d_bad_input(device):
    x = pdt.zeros(1, 2, 4, device=device)
    d = str(device)
    cases = [
        (lambda: F.max_pool1d(x, 2, padding=2), ValueError,
         r"max_pool1d\(\): pad should be at most half of effective kernel size, but got pad=2"),
        (lambda: F.max_pool1d(x, 5), ValueError,
         r"max_pool1d\(\): given input size \(2x1x4\), calculated output size \(2x1x0\) is "
         r"too small"),
        (lambda: F.max_pool1d(x, (2, 2)), ValueError,
         r"max_pool1d\(\): expected kernel_size to be a single integer value or a list of 1 "),
        (lambda: F.avg_pool1d(pdt.zeros(1, 1, 2, 4, device=device), 2), ValueError,
         r"avg_pool1d\(\): expected a 2-d \(unbatched\) or 3-d \(batched\) input, got shape "
         r"\(1, 1, 2, 4\) \(on " + d),
        (lambda: F.avg_pool1d(x.int(), 2), RuntimeError,
         r"avg_pool1d\(\): expected a floating point input or pydevtensor.int64, got "
         r"pydevtensor.int32 of shape \(1, 2, 4\)"),
        (lambda: F.adaptive_avg_pool1d(x, -1), ValueError,
         r"adaptive_avg_pool1d\(\): output_size must be non-negative"),
        (lambda: F.adaptive_max_pool1d(x, (1, 2)), ValueError,
         r"adaptive_max_pool1d\(\): expected output_size to be a single integer value"),
        (lambda: F.adaptive_avg_pool1d(pdt.zeros(1, 2, 0, device=device), 1), ValueError,
         r"expected an input with a non-zero length, got shape \(1, 2, 0\) \(on " + d),
        (lambda: F.lp_pool1d(x, 0, 2), ValueError, r"norm_type must be a non-zero value"),
        (lambda: F.lp_pool2d(x, "2", 2), TypeError, r"norm_type must be a number, got str"),
        (lambda: F.lp_pool2d(pdt.zeros(4, 4, device=device), 2, 2), ValueError,
         r"lp_pool2d\(\): expected a 3-d \(unbatched\) or 4-d \(batched\) input"),
        (lambda: nn.MaxPool1d("2")(x), TypeError, r"kernel_size must be an int or a tuple"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


# ---- max_unpool2d (in this file: the pools' other additions) ----

@pytest.mark.parametrize("args,output_size", [((2,), None), ((3, 2, 1), (7, 8)),
                                              ((2, 1), None), ((2,), (1, 1, 7, 8))])
def test_max_unpool2d_matches_numpy(device, args, output_size):
    """Each value lands at its index in its plane, zeros elsewhere; the gradient is
    the incoming one read at the indices."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 7, 8))
    values, indices = F.max_pool2d(_t(x, device), *args, return_indices=True)
    v = values.detach().requires_grad_()
    got = F.max_unpool2d(v, indices, *args, output_size=output_size)
    k = args[0]
    s = args[1] if len(args) > 1 else k
    p = args[2] if len(args) > 2 else 0
    oh, ow = ((values.shape[2] - 1) * s - 2 * p + k, (values.shape[3] - 1) * s - 2 * p + k) \
        if output_size is None else tuple(output_size[-2:])
    ref = np.zeros((2, 3, oh * ow))
    vals, idx = values.cpu().numpy().reshape(2, 3, -1), indices.cpu().numpy().reshape(2, 3, -1)
    for n in range(2):
        for c in range(3):
            ref[n, c, idx[n, c]] = vals[n, c]
    assert_close(got, ref.reshape(2, 3, oh, ow), "float64")
    r = rng.standard_normal((2, 3, oh * ow))
    (got * _t(r.reshape(2, 3, oh, ow), device)).sum().backward()
    assert_close(v.grad, np.take_along_axis(r, idx, 2).reshape(values.shape), "float64")
    unb = nn.MaxUnpool2d(*args)(values[0], indices[0], output_size)
    assert_close(unb, ref.reshape(2, 3, oh, ow)[0], "float64")


@pytest.mark.parametrize("dims,args,output_size", [
    (1, (2,), None), (1, (3, 2, 1), (12,)), (1, (2, 1), (1, 1, 12)),
    (3, (2,), None), (3, (3, 2, 1), (6, 8, 6)), (3, ((2, 1, 2), (1, 2, 1)), (1, 1, 6, 8, 6))])
def test_max_unpool1d_and_3d_match_numpy(device, dims, args, output_size):
    """max_unpool1d/3d (they did not exist): each value of max_pool1d/3d lands at its flat
    index in its row or volume, zeros elsewhere, the default size (in - 1) * stride -
    2 * padding + kernel per dim or output_size's; the gradient is the incoming one read
    at the indices; unbatched and the layers alike."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 12) if dims == 1 else (2, 3, 6, 8, 6))
    pool = F.max_pool1d if dims == 1 else F.max_pool3d
    unpool = F.max_unpool1d if dims == 1 else F.max_unpool3d
    values, indices = pool(_t(x, device), *args, return_indices=True)
    v = values.detach().requires_grad_()
    got = unpool(v, indices, *args, output_size=output_size)
    k, s, p = [np.broadcast_to(a, (dims,)) for a in (args[0], args[1] if len(args) > 1
                                                      else args[0], 0 if len(args) < 3
                                                      else args[2])]
    size = tuple((np.array(values.shape[2:]) - 1) * s - 2 * p + k) if output_size is None \
        else tuple(output_size[-dims:])
    cells = int(np.prod(size))
    ref = np.zeros((2, 3, cells))
    vals, idx = values.cpu().numpy().reshape(2, 3, -1), indices.cpu().numpy().reshape(2, 3, -1)
    for n in range(2):
        for c in range(3):
            ref[n, c, idx[n, c]] = vals[n, c]
    assert_close(got, ref.reshape((2, 3) + size), "float64")
    r = rng.standard_normal((2, 3, cells))
    (got * _t(r.reshape((2, 3) + size), device)).sum().backward()
    assert_close(v.grad, np.take_along_axis(r, idx, 2).reshape(values.shape), "float64")
    layer = (nn.MaxUnpool1d if dims == 1 else nn.MaxUnpool3d)(*args)
    assert layer.kernel_size == tuple(int(a) for a in k)
    assert_close(layer(values[0], indices[0], output_size), ref.reshape((2, 3) + size)[0],
                 "float64")


def test_max_unpool1d_and_3d_bad_input(device):
    """The 2-d unpool's checks, naming the function and each dim's sizes."""
    d = str(device)
    v1, i1 = pdt.ones(1, 1, 2, device=device), pdt.tensor([[[1, 3]]], device=device)
    v3 = pdt.ones(1, 1, 1, 1, 2, device=device)
    i3 = pdt.tensor([[[[[0, 3]]]]], device=device)
    cases = [
        (lambda: F.max_unpool1d(v1, i1 + 5, 2), RuntimeError,
         r"max_unpool1d\(\): Found an invalid max index: 8 \(output volumes are of size 4; "
         r"on " + d),
        (lambda: F.max_unpool1d(v1, i1, 2, output_size=(6,)), ValueError,
         r'max_unpool1d\(\): invalid output_size "\(6,\)" \(dim 0 must be between 2 and 6\)'),
        (lambda: F.max_unpool1d(v1, i1, 2, output_size=(4, 4)), ValueError,
         r"output_size should be a sequence of 1 or 3 ints"),
        (lambda: F.max_unpool3d(v3, i3 - 1, 2), RuntimeError,
         r"max_unpool3d\(\): Found an invalid max index: -1 \(output volumes are of size "
         r"2x2x4; on " + d),
        (lambda: F.max_unpool3d(v3, i3, 2, output_size=(2, 2)), ValueError,
         r"output_size should be a sequence of 3 or 5 ints"),
        (lambda: F.max_unpool3d(v3[0, 0], i3[0, 0], 2), ValueError,
         r"max_unpool3d\(\): expected a 4-d \(unbatched\) or 5-d \(batched\) input"),
        (lambda: nn.MaxUnpool3d(2)(v3, i3.int()), TypeError,
         r"max_unpool3d\(\): elements in indices should be type int64"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_max_unpool2d_matches_torch(device):
    torch = torch_or_skip()
    x = np.random.default_rng(10).standard_normal((2, 3, 9, 7))
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)
    pv, pi = F.max_pool2d(_t(x, device), 3, 2, 1, return_indices=True)
    for size in ((9, 7), None):
        want = torch.nn.functional.max_unpool2d(tv, ti, 3, 2, 1, output_size=size)
        got = F.max_unpool2d(pv, pi, 3, 2, 1, output_size=size)
        assert_close(got, want.numpy(), "float64")
    assert repr(nn.MaxUnpool2d(2)) == repr(torch.nn.MaxUnpool2d(2))
    assert repr(nn.MaxUnpool2d((2, 3), 1, 1)) == repr(torch.nn.MaxUnpool2d((2, 3), 1, 1))
    for name in ("MaxUnpool1d", "MaxUnpool3d"):
        assert repr(getattr(nn, name)(2, 1)) == repr(getattr(torch.nn, name)(2, 1))


def test_max_unpool2d_bad_input(device):
    d = str(device)
    v = pdt.ones(1, 1, 2, 2, device=device)
    i = pdt.tensor([[[[0, 3], [8, 15]]]], device=device)
    cases = [
        (lambda: F.max_unpool2d(v, i + 20, 2), RuntimeError,
         r"max_unpool2d\(\): Found an invalid max index: 35 \(output volumes are of size 4x4; "
         r"on " + d),
        (lambda: F.max_unpool2d(v, i - 1, 2), RuntimeError, r"Found an invalid max index: -1"),
        (lambda: F.max_unpool2d(v, i.int(), 2), TypeError,
         r"elements in indices should be type int64 but got pydevtensor.int32"),
        (lambda: F.max_unpool2d(v, i[:, :, :1], 2), ValueError,
         r"Expected shape of indices to be same as that of the input tensor \(1, 1, 2, 2\) but "
         r"got indices tensor with shape \(1, 1, 1, 2\)"),
        (lambda: F.max_unpool2d(v, i, 2, output_size=(7, 7)), ValueError,
         r'invalid output_size "\(7, 7\)" \(dim 0 must be between 2 and 6\)'),
        (lambda: F.max_unpool2d(v, i, 2, output_size=(4,)), ValueError,
         r"output_size should be a sequence of 2 or 4 ints"),
        (lambda: F.max_unpool2d(v[0, 0, 0], i[0, 0, 0], 2), ValueError,
         r"expected a 3-d \(unbatched\) or 4-d \(batched\) input, got shape \(2,\)"),
        (lambda: F.max_unpool2d(v, [0], 2), TypeError, r"indices must be a Tensor, got list"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_lp_pool_of_a_window_of_zeros_has_a_zero_gradient(device):
    """After a ReLU whole windows are 0: the gradient there is 0 (PyTorch's), not NaN."""
    x = pdt.zeros(1, 1, 4, 4, dtype=pdt.float64, device=device, requires_grad=True)
    F.lp_pool2d(x, 2, 2).sum().backward()
    assert x.grad.cpu().numpy().tolist() == np.zeros((1, 1, 4, 4)).tolist()
    x = pdt.tensor([[[0.0, 0.0, 1.0, 2.0]]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    F.lp_pool1d(x, 3, 2).sum().backward()
    g = x.grad.cpu().numpy()[0, 0]
    assert g[:2].tolist() == [0.0, 0.0] and np.isfinite(g).all()


@pytest.mark.parametrize("p", [float("inf"), -float("inf")])
def test_lp_pools_with_an_infinite_norm_are_max_and_min_magnitudes(device, p):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3, 6, 5))
    mag = np.abs(a[..., :6, :4]).reshape(2, 3, 3, 2, 2, 2)
    want = mag.max(axis=(3, 5)) if p > 0 else mag.min(axis=(3, 5))
    got = F.lp_pool2d(pdt.tensor(a, device=device), p, 2)
    assert_close(got, want, "float64")
    seq = a[:, :, 0, :]  # (2, 3, 5): windows of 2, stride 1
    m = np.abs(np.stack([seq[..., :-1], seq[..., 1:]], -1))
    assert_close(F.lp_pool1d(pdt.tensor(seq, device=device), p, 2, stride=1),
                 m.max(-1) if p > 0 else m.min(-1), "float64")
    torch = torch_or_skip(since=TORCH_CHECKED)  # older: NaN gradients for p = +-inf
    x = pdt.tensor(a, device=device, requires_grad=True)
    F.lp_pool2d(x, p, (2, 3), ceil_mode=True).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    torch.nn.functional.lp_pool2d(t, p, (2, 3), ceil_mode=True).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-12)


def test_lp_pool3d_gradcheck_and_bad_input(device):
    rng = np.random.default_rng(8)
    x = [np.abs(rng.standard_normal((1, 2, 3, 4, 3))) + 0.5]
    gradcheck(lambda t: F.lp_pool3d(t, 2.5, (2, 2, 1), 1, ceil_mode=True), x, device)
    with pytest.raises(ValueError, match=r"lp_pool3d\(\): norm_type must be a non-zero"):
        F.lp_pool3d(_t(x[0], device), 0, 2)
    for layer in (nn.LPPool1d, nn.LPPool2d, nn.LPPool3d):  # at construction, as PyTorch's
        with pytest.raises(ValueError, match=layer.__name__ + r": norm_type must be a "
                           r"non-zero value, but got 0\.0"):
            layer(0.0, 2)
    with pytest.raises(ValueError, match=r"lp_pool3d\(\): expected a 4-d \(unbatched\) or "
                       r"5-d \(batched\) input, got shape \(3, 4, 3\)"):
        F.lp_pool3d(_t(x[0][0, 0], device), 2, 2)
    with pytest.raises(RuntimeError, match=r"lp_pool3d\(\): expected a floating point input"):
        F.lp_pool3d(pdt.ones(1, 1, 2, 2, 2, dtype=pdt.int64, device=device), 2, 2)
