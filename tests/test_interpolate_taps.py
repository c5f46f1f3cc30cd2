"""F.interpolate as gathers of taps: float32 against torch to a few units of the
input's last place, channels_last inputs, inf and NaN staying local, and
antialias=True (against torch when it imports, and against a NumPy float64
restatement of the antialiasing filter everywhere).

Tolerances: float64 to 1e-12 (assert_close's); float32 to 8 units of
``2**-23 * max|x|`` absolute (each output is a sum of at most 16 products of
|weight| <= 1.25 with inputs; torch's float32 results differ from ours by at most
6.4 such units over the cases below, and from the float64 ones by 15, as its
weights are rounded to float32 too); gradients to 1e-12.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

F32_UNITS = 8


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


def _np(t):
    return t.detach().cpu().numpy()


def _close32(got, want, x):
    tol = F32_UNITS * 2.0 ** -23 * float(np.max(np.abs(x)))
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


CASES32 = [  # mode, input shape, keyword arguments (align_corners tried both ways)
    ("linear", (2, 3, 13), dict(scale_factor=1.7)),
    ("linear", (2, 3, 13), dict(size=5)),
    ("bilinear", (2, 3, 13, 17), dict(scale_factor=2)),
    ("bilinear", (2, 3, 13, 17), dict(size=(5, 30))),
    ("bilinear", (2, 3, 13, 17), dict(scale_factor=0.37, recompute_scale_factor=True)),
    ("bicubic", (2, 3, 13, 17), dict(scale_factor=1.7)),
    ("bicubic", (2, 3, 13, 17), dict(size=(3, 5))),
    ("trilinear", (1, 2, 5, 6, 7), dict(scale_factor=(1.7, 0.6, 2))),
    ("trilinear", (1, 2, 5, 6, 7), dict(size=(2, 9, 7))),
]


@pytest.mark.parametrize("case", range(len(CASES32)))
def test_float32_matches_torch(device, case):
    torch = torch_or_skip()
    mode, shape, kw = CASES32[case]
    x = np.random.default_rng(case).standard_normal(shape).astype(np.float32)
    for align in (False, True):
        want = torch.nn.functional.interpolate(torch.from_numpy(x), mode=mode,
                                               align_corners=align, **kw).numpy()
        got = F.interpolate(_t(x, device, pdt.float32), mode=mode, align_corners=align, **kw)
        assert got.dtype == pdt.float32
        _close32(_np(got), want, x)


@pytest.mark.parametrize("mode,shape", [("nearest", (2, 5, 4, 6)), ("bilinear", (2, 5, 4, 6)),
                                        ("bicubic", (2, 5, 4, 6)), ("nearest", (1, 3, 4, 5, 3)),
                                        ("trilinear", (1, 3, 4, 5, 3))])
def test_channels_last_input(device, mode, shape):
    """The values of the contiguous input's result, laid out channels_last, as torch."""
    x = np.random.default_rng(7).standard_normal(shape)
    fmt = pdt.channels_last if len(shape) == 4 else pdt.channels_last_3d
    xc = _t(x, device).contiguous(memory_format=fmt)
    assert not xc.is_contiguous()
    for kw in (dict(scale_factor=1.5), dict(scale_factor=2)):
        got = F.interpolate(xc, mode=mode, **kw)
        assert got.is_contiguous(memory_format=fmt)
        assert_close(got, _np(F.interpolate(_t(x, device), mode=mode, **kw)), "float64")
    torch = torch_or_skip()
    tfmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    want = torch.nn.functional.interpolate(torch.tensor(x).contiguous(memory_format=tfmt),
                                           scale_factor=1.5, mode=mode)
    assert_close(F.interpolate(xc, scale_factor=1.5, mode=mode), want.numpy(), "float64")


NON_FINITE = [  # mode, input shape, keyword arguments
    ("linear", (1, 1, 9), dict(size=20)), ("linear", (1, 1, 9), dict(size=4)),
    ("nearest", (1, 1, 9), dict(size=13)), ("nearest-exact", (1, 1, 9, 8), dict(size=(5, 13))),
    ("bilinear", (1, 1, 9, 8), dict(size=(17, 5))), ("bicubic", (1, 1, 9, 8), dict(size=(17, 5))),
    ("trilinear", (1, 1, 9, 8, 3), dict(size=(17, 5, 4))),
    ("bilinear", (1, 1, 30, 32), dict(size=(10, 16), antialias=True)),
    ("bicubic", (1, 1, 30, 32), dict(size=(12, 8), antialias=True)),
    ("bilinear", (1, 1, 9, 8), dict(size=(9, 4), antialias=True)),  # H: a copy, as torch
]


@pytest.mark.parametrize("case", range(len(NON_FINITE)))
def test_inf_and_nan_stay_local(device, case):
    """An inf and a NaN input cell make non-finite only the outputs whose taps read
    them (a matrix product along each axis made NaN of every output of their rows)."""
    mode, shape, kw = NON_FINITE[case]
    x = np.random.default_rng(case).standard_normal(shape)
    flat = x.reshape(-1)
    flat[2], flat[flat.size - 3] = math.inf, math.nan
    got = _np(F.interpolate(_t(x, device), mode=mode, **kw))
    # one input row holds each (N = C = 1): a product with a dense matrix along each
    # axis made every output non-finite
    assert 0 < (~np.isfinite(got)).sum() < got.size
    torch = torch_or_skip()
    want = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, **kw).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)  # infs equal, NaNs too


# ---- antialias ----

def _np_antialias_1d(x, n_out, cubic, scale=None, align_corners=False):
    """Resamples x's last axis: the antialiasing filter, in float64 (the formulas of
    nn/_interpolate_taps.py written once more, per output, in plain Python)."""
    n_in = x.shape[-1]
    if align_corners:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        s = 1.0 / scale if scale else n_in / n_out
    stretch = max(s, 1.0)
    support = (2.0 if cubic else 1.0) * stretch

    def filt(z):
        z = abs(z)
        if not cubic:
            return max(0.0, 1.0 - z)
        a = -0.5
        if z < 1:
            return ((a + 2) * z - (a + 3)) * z * z + 1
        return ((a * z - 5 * a) * z + 8 * a) * z - 4 * a if z < 2 else 0.0

    out = np.zeros(x.shape[:-1] + (n_out,))
    for o in range(n_out):
        c = s * (o + 0.5)
        lo, hi = max(int(c - support + 0.5), 0), min(int(c + support + 0.5), n_in)
        w = np.array([filt((i - c + 0.5) / stretch) for i in range(lo, hi)])
        if w.sum() != 0:
            w = w / w.sum()
        out[..., o] = x[..., lo:hi] @ w
    return out


def _np_antialias(x, size, cubic, scale=None, align_corners=False):
    y = _np_antialias_1d(x, size[1], cubic, scale, align_corners)
    y = _np_antialias_1d(np.swapaxes(y, 2, 3), size[0], cubic, scale, align_corners)
    return np.swapaxes(y, 2, 3)


AA_CASES = [  # keyword arguments of interpolate besides mode
    dict(size=(3, 5)), dict(size=(7, 2)), dict(size=(1, 1)), dict(scale_factor=0.5),
    dict(scale_factor=0.3), dict(size=(20, 30)), dict(size=(4, 5), align_corners=True),
    dict(scale_factor=(0.5, 0.25), align_corners=True),
]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_matches_numpy(device, mode):
    x = np.random.default_rng(11).standard_normal((2, 3, 13, 17))
    for kw in AA_CASES:
        got = F.interpolate(_t(x, device), mode=mode, antialias=True, **kw)
        size = tuple(got.shape[2:])
        scale = kw.get("scale_factor")  # a tuple only with align_corners (unused then)
        ref = _np_antialias(x, size, mode == "bicubic",
                            None if isinstance(scale, tuple) else scale,
                            kw.get("align_corners", False))
        assert_close(got, ref, "float64")


def test_antialias_downsample_by_two_weights(device):
    """Bilinear, factor 2: the triangle stretched twice gives 1/8, 3/8, 3/8, 1/8 inside,
    and 3/7, 3/7, 1/7 at the first output (its first tap falls outside)."""
    x = np.random.default_rng(1).standard_normal((1, 1, 1, 8))
    got = _np(F.interpolate(_t(x, device), size=(1, 4), mode="bilinear", antialias=True))
    r = x[0, 0, 0]
    assert_close(got[0, 0, 0, 0], (3 * r[0] + 3 * r[1] + r[2]) / 7, "float64")
    assert_close(got[0, 0, 0, 1], (r[1] + 3 * r[2] + 3 * r[3] + r[4]) / 8, "float64")
    assert_close(got[0, 0, 0, 3], (r[5] + 3 * r[6] + 3 * r[7]) / 7, "float64")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_matches_torch(device, mode):
    torch = torch_or_skip()
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 3, 13, 17))
    for kw in AA_CASES + [dict(scale_factor=0.37, recompute_scale_factor=True),
                          dict(scale_factor=1.7), dict(size=(13, 5))]:
        tx, px = torch.tensor(x, requires_grad=True), _t(x, device).requires_grad_()
        want = torch.nn.functional.interpolate(tx, mode=mode, antialias=True, **kw)
        got = F.interpolate(px, mode=mode, antialias=True, **kw)
        assert_close(got, want.detach().numpy(), "float64")
        r = rng.standard_normal(tuple(want.shape))
        (want * torch.tensor(r)).sum().backward()
        (got * _t(r, device)).sum().backward()
        assert_close(px.grad, tx.grad.numpy(), "float64")
        x32 = x.astype(np.float32)
        want32 = torch.nn.functional.interpolate(torch.from_numpy(x32), mode=mode,
                                                 antialias=True, **kw).numpy()
        got32 = F.interpolate(_t(x32, device, pdt.float32), mode=mode, antialias=True, **kw)
        _close32(_np(got32), want32, x32)


def test_antialias_gradcheck(device):
    x = [np.random.default_rng(13).standard_normal((1, 2, 7, 6))]
    gradcheck(lambda t: F.interpolate(t, size=(3, 2), mode="bilinear", antialias=True),
              x, device)
    gradcheck(lambda t: F.interpolate(t, scale_factor=0.6, mode="bicubic", antialias=True),
              x, device)


def test_antialias_half_types(device):
    """float16 is filtered in float32 and rounded once."""
    x = np.random.default_rng(14).standard_normal((1, 2, 9, 8)).astype(np.float32)
    got = F.interpolate(_t(x, device, pdt.float16), size=(4, 3), mode="bicubic",
                        antialias=True)
    assert got.dtype == pdt.float16
    ref = _np_antialias(x.astype(np.float16).astype(np.float64), (4, 3), True)
    np.testing.assert_allclose(_np(got.to(pdt.float32)), ref, rtol=2 ** -10, atol=2 ** -12)


def _fixed_point_axis(a, axis, n_out, mode, align, antialias):
    """NumPy's PyTorch uint8 resize along axis: the filter's taps in float64, the
    weights in fixed point (p bits: the largest with round(max w 2^(p+1)) < 2^15), then
    (2^(p-1) + sum q a) >> p clamped to 0..255."""
    n_in = a.shape[axis]
    s = (n_in - 1) / (n_out - 1) if align else n_in / n_out
    stretch = max(s, 1.0) if antialias else 1.0
    delta = 0.5 if align and not antialias else 0.0
    support = (2.0 if mode == "bicubic" else 1.0) * stretch

    def filt(z):
        z = abs(z)
        if mode == "bilinear":
            return max(0.0, 1 - z)
        return (1.5 * z - 2.5) * z * z + 1 if z < 1 else \
            ((-0.5 * z + 2.5) * z - 4) * z + 2 if z < 2 else 0.0

    rows = []
    for o in range(n_out):
        c = s * (o + 0.5 - delta)
        lo = max(int(c - support + 0.5 + delta), 0)
        hi = min(int(c + support + 0.5 + delta), n_in)
        w = np.array([filt((i - c + 0.5 - delta) / stretch) for i in range(lo, hi)])
        rows.append((lo, w / w.sum()))
    top, bits = max(w.max() for _, w in rows), 0
    while bits < 22 and int(0.5 + top * 2 ** (bits + 1)) < 2 ** 15:
        bits += 1
    a = np.moveaxis(a.astype(np.int64), axis, -1)
    out = np.empty(a.shape[:-1] + (n_out,), dtype=np.int64)
    for o, (lo, w) in enumerate(rows):
        q = np.trunc(w * 2 ** bits + np.where(w < 0, -0.5, 0.5)).astype(np.int64)
        out[..., o] = np.clip((2 ** (bits - 1) + (a[..., lo:lo + len(q)] * q).sum(-1))
                              >> bits, 0, 255)
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("mode,antialias", [("bilinear", False), ("bilinear", True),
                                            ("bicubic", True)])
@pytest.mark.parametrize("align", [False, True])
def test_uint8_images_in_fixed_point(device, mode, antialias, align):
    """interpolate of uint8 images, bilinear or antialiased bicubic (torchvision's resize;
    it was refused): PyTorch's fixed-point kernel, exactly, the width first, each axis
    rounded and clamped to 0..255; against the NumPy model of it and values PyTorch
    gave."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 256, (2, 3, 17, 9)).astype(np.uint8)
    t = pdt.tensor(x, device=device)
    for size in ((5, 7), (2, 3), (40, 4), (17, 20)):
        got = F.interpolate(t, size=size, mode=mode, align_corners=align, antialias=antialias)
        want = x
        for axis, n in ((3, size[1]), (2, size[0])):
            if want.shape[axis] != n:
                want = _fixed_point_axis(want, axis, n, mode, align, antialias)
        assert got.dtype == pdt.uint8 and got.device == device
        np.testing.assert_array_equal(got.cpu().numpy(), want)
    small = pdt.tensor([[[[0, 255, 10], [200, 3, 77]]]], dtype=pdt.uint8, device=device)
    known = {("bilinear", False, False, (3, 5)): [[0, 102, 255, 108, 10],
                                                  [100, 112, 129, 78, 44],
                                                  [200, 121, 3, 47, 77]],
             ("bilinear", False, True, (3, 4)): [[0, 170, 173, 10], [100, 120, 101, 44],
                                                 [200, 69, 28, 77]],
             ("bicubic", True, False, (1, 2)): [[114, 75]]}
    for (m, aa, al, size), want in known.items():
        if (m, aa, al) == (mode, antialias, align):
            got = F.interpolate(small, size=size, mode=mode, align_corners=align,
                                antialias=antialias)
            assert got[0, 0].cpu().tolist() == want



@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_channels_last_stays_channels_last(device, antialias):
    """A channels_last uint8 image comes back channels_last, as the float path's and
    PyTorch's (it came back contiguous), with the same values."""
    x = pdt.tensor(np.random.default_rng(3).integers(0, 256, (2, 3, 9, 7)).astype(np.uint8),
                   device=device)
    xl = x.contiguous(memory_format=pdt.channels_last)
    for mode in ("bilinear", "bicubic") if antialias else ("bilinear",):
        got = F.interpolate(xl, size=(4, 11), mode=mode, antialias=antialias)
        assert got.is_contiguous(memory_format=pdt.channels_last) and not got.is_contiguous()
        want = F.interpolate(x, size=(4, 11), mode=mode, antialias=antialias)
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
