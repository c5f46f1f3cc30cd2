"""F.interpolate and nn.Upsample, UpsamplingNearest2d, UpsamplingBilinear2d.

References: torch's interpolate when it imports (every mode, sizes and scale factors
up and down, align_corners, recompute_scale_factor; float64 to 1e-12 relative,
float32 to 1e-5, the nearest modes exactly, gradients to 1e-12); without torch,
NumPy float64 restatements of the formulas for the cases whose arithmetic is exact
(nearest by integer factors, linear with align_corners=True), to 1e-12.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import _index_cache
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


def _np_linear_align(x, out):
    """(N, C, L) -> (N, C, out): align_corners=True, position o * (L - 1) / (out - 1)."""
    n_in = x.shape[-1]
    res = np.zeros(x.shape[:-1] + (out,))
    for o in range(out):
        pos = o * (n_in - 1) / (out - 1) if out > 1 else 0.0
        i0 = min(int(math.floor(pos)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        t = pos - i0
        res[..., o] = (1 - t) * x[..., i0] + t * x[..., i1]
    return res


def test_nearest_integer_factors_and_align_corners_match_numpy(device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    got = F.interpolate(_t(x, device), scale_factor=(2, 3))
    assert_close(got, np.repeat(np.repeat(x, 2, 2), 3, 3), "float64")
    got = F.interpolate(_t(x, device), size=(8, 15), mode="nearest-exact")
    assert_close(got, np.repeat(np.repeat(x, 2, 2), 3, 3), "float64")
    x1 = rng.standard_normal((2, 3, 6))
    for out in (1, 2, 6, 7, 11, 16):
        got = F.interpolate(_t(x1, device), size=out, mode="linear", align_corners=True)
        assert_close(got, _np_linear_align(x1, out), "float64")
    got = F.interpolate(_t(x, device), size=(7, 9), mode="bilinear", align_corners=True)
    ref = np.swapaxes(_np_linear_align(np.swapaxes(_np_linear_align(x, 9), 2, 3), 7), 2, 3)
    assert_close(got, ref, "float64")


def test_nearest_keeps_non_finite_values_exactly(device):
    """The integer-factor nearest path is a broadcast view: inf and NaN stay put."""
    x = _t(np.array([[[[1.0, math.inf], [-math.inf, 2.0]]]]), device)
    got = F.interpolate(x, scale_factor=2).cpu().numpy()
    np.testing.assert_array_equal(got[0, 0, ::2, ::2], x.cpu().numpy()[0, 0])
    assert np.isinf(got).sum() == 8


CASES = [  # mode, spatial dims, keyword arguments
    ("nearest", 1, dict(size=7)), ("nearest", 1, dict(scale_factor=1.7)),
    ("nearest", 1, dict(scale_factor=1.1)), ("nearest", 2, dict(size=(3, 10))),
    ("nearest", 2, dict(scale_factor=(0.6, 2.5))), ("nearest", 2, dict(scale_factor=1.1)),
    ("nearest", 2, dict(scale_factor=2.1)), ("nearest", 3, dict(size=(3, 5, 2))),
    ("nearest-exact", 1, dict(scale_factor=0.7)), ("nearest-exact", 2, dict(size=(9, 3))),
    ("nearest-exact", 2, dict(scale_factor=1.5, recompute_scale_factor=True)),
    ("linear", 1, dict(size=9)), ("linear", 1, dict(scale_factor=0.45)),
    ("linear", 1, dict(scale_factor=1.1)), ("linear", 1, dict(size=1)),
    ("bilinear", 2, dict(size=(5, 11))), ("bilinear", 2, dict(scale_factor=(1.5, 0.5))),
    ("bilinear", 2, dict(scale_factor=2.3, recompute_scale_factor=True)),
    ("bicubic", 2, dict(size=(9, 4))), ("bicubic", 2, dict(scale_factor=1.7)),
    ("bicubic", 2, dict(scale_factor=1.1)), ("bicubic", 2, dict(size=(1, 2))),
    ("trilinear", 3, dict(size=(3, 7, 2))), ("trilinear", 3, dict(scale_factor=1.5)),
    ("area", 1, dict(size=4)), ("area", 2, dict(size=(4, 3))),
    ("area", 2, dict(scale_factor=0.5)),
]
SHAPES = {1: (2, 3, 6), 2: (2, 3, 6, 5), 3: (1, 2, 4, 3, 5)}
# Where out == in but the scale is not 1 (scale_factor=1.1 of 6 and 5 cells), torch's
# nearest (1-d) and bicubic forwards resample while their backwards copy the
# gradient through: torch.autograd.gradcheck fails on torch's own op there.  Our
# gradient is the forward's (central differences below), not torch's backward's.
TORCH_BACKWARD_DIFFERS = {2, 20}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_interpolate_matches_torch(device, case):
    torch = torch_or_skip()
    mode, dims, kw = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal(SHAPES[dims])
    corners = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
    for align in corners:
        tx, px = torch.tensor(x, requires_grad=True), _t(x, device).requires_grad_()
        want = torch.nn.functional.interpolate(tx, mode=mode, align_corners=align, **kw)
        got = F.interpolate(px, mode=mode, align_corners=align, **kw)
        assert got.dtype == pdt.float64 and got.device == px.device
        assert_close(got, want.detach().numpy(), "float64")
        if case in TORCH_BACKWARD_DIFFERS:
            gradcheck(lambda t: F.interpolate(t, mode=mode, align_corners=align, **kw),
                      [x[:1, :2]], device)
        else:
            r = rng.standard_normal(tuple(want.shape))
            (want * torch.tensor(r)).sum().backward()
            (got * _t(r, device)).sum().backward()
            assert_close(px.grad, tx.grad.numpy(), "float64")
        want32 = torch.nn.functional.interpolate(tx.detach().float(), mode=mode,
                                                 align_corners=align, **kw)
        got32 = F.interpolate(_t(x, device, pdt.float32), mode=mode, align_corners=align, **kw)
        assert got32.dtype == pdt.float32
        tol = 0 if mode.startswith("nearest") else 1e-5
        np.testing.assert_allclose(got32.cpu().numpy(), want32.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_interpolate_half_types_match_torch(device, dtype):
    """Resampled in float32 and rounded once, as torch: within one rounding."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((2, 3, 5, 6)) * 3 + 50).astype(np.float32)
    tx = torch.from_numpy(x).to(getattr(torch, dtype))
    px = pdt.from_numpy(x).to(device=device, dtype=getattr(pdt, dtype))
    ulp = 2.0 ** (-10 if dtype == "float16" else -7) * 64  # one rounding at 64 <= |y| < 128
    for kw, tol in ((dict(scale_factor=2), 0), (dict(size=(7, 4)), 0),
                    (dict(size=(7, 9), mode="bilinear"), ulp),
                    (dict(scale_factor=1.5, mode="bicubic", align_corners=True), ulp)):
        want = torch.nn.functional.interpolate(tx, **kw).float().numpy()
        got = F.interpolate(px, **kw)
        assert got.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(got.to(pdt.float32).cpu().numpy(), want, rtol=0, atol=tol)


def test_interpolate_gradcheck(device):
    rng = np.random.default_rng(4)
    x2, x1 = [rng.standard_normal((1, 2, 3, 4))], [rng.standard_normal((1, 2, 5))]
    gradcheck(lambda t: F.interpolate(t, size=(5, 3), mode="bilinear"), x2, device)
    gradcheck(lambda t: F.interpolate(t, scale_factor=1.5, mode="bicubic",
                                      align_corners=True), x2, device)
    gradcheck(lambda t: F.interpolate(t, scale_factor=2), x2, device)
    gradcheck(lambda t: F.interpolate(t, size=7, mode="nearest-exact"), x1, device)
    gradcheck(lambda t: F.interpolate(t, size=8, mode="linear"), x1, device)


def test_interpolate_caches_its_taps(device):
    """The second call with the same sizes builds nothing (the taps are kept)."""
    x = pdt.ones(1, 1, 5, 7, device=device)
    F.interpolate(x, size=(9, 4), mode="bicubic")
    before = _index_cache.stats(device)
    y = F.interpolate(x, size=(9, 4), mode="bicubic")
    assert _index_cache.stats(device) == before
    assert_close(y, np.ones((1, 1, 9, 4)), "float32")


def test_interpolate_same_size_is_a_copy(device):
    x = pdt.arange(6., device=device).reshape(1, 1, 2, 3)
    y = F.interpolate(x, size=(2, 3), mode="bilinear")
    assert y.data_ptr() != x.data_ptr() and y.tolist() == x.tolist()


def test_upsample_modules_match_torch(device):
    torch = torch_or_skip()
    pairs = [
        (nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
        (nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
         torch.nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True)),
        (nn.Upsample(scale_factor=(2, 1.5), mode="bicubic"),
         torch.nn.Upsample(scale_factor=(2, 1.5), mode="bicubic")),
        (nn.UpsamplingNearest2d(scale_factor=3), torch.nn.UpsamplingNearest2d(scale_factor=3)),
        (nn.UpsamplingNearest2d(size=5), torch.nn.UpsamplingNearest2d(size=5)),
        (nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2)),
        (nn.UpsamplingBilinear2d(size=(5, 2)), torch.nn.UpsamplingBilinear2d(size=(5, 2))),
    ]
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 3))
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert ours.scale_factor == theirs.scale_factor and ours.size == theirs.size
        assert ours.align_corners == theirs.align_corners and ours.mode == theirs.mode
        assert_close(ours(_t(x, device)), theirs(torch.tensor(x)).numpy(), "float64")
    assert list(nn.Upsample(scale_factor=2).parameters()) == []


def test_interpolate_bad_input(device):
    x = pdt.zeros(1, 2, 4, 4, device=device)
    d = str(device)
    cases = [
        (lambda: F.interpolate(x), ValueError, r"either size or scale_factor should be defined"),
        (lambda: F.interpolate(x, size=2, scale_factor=2), ValueError,
         r"only one of size or scale_factor should be defined"),
        (lambda: F.interpolate(x, size=(2, 2, 2)), ValueError,
         r"Input and output must have the same number of spatial dimensions, but got input "
         r"with spatial dimensions of \[4, 4\] and output size of \(2, 2, 2\) \(on " + d),
        (lambda: F.interpolate(x, scale_factor=(2,)), ValueError,
         r"Input and scale_factor must have the same number of spatial dimensions"),
        (lambda: F.interpolate(x, size=2.5), TypeError, r"expected size to be an int"),
        (lambda: F.interpolate(x, scale_factor="2"), TypeError,
         r"expected scale_factor to be a float"),
        (lambda: F.interpolate(x, size=0), ValueError,
         r"Input and output sizes should be greater than 0, but got input \(4, 4\) and output "
         r"\(0, 0\) \(input of shape \(1, 2, 4, 4\) on " + d),
        (lambda: F.interpolate(x, scale_factor=2, align_corners=True), ValueError,
         r"align_corners option can only be set with the interpolating modes"),
        (lambda: F.interpolate(x, size=2, recompute_scale_factor=True), ValueError,
         r"recompute_scale_factor is not meaningful with an explicit size"),
        (lambda: F.interpolate(x, size=2, mode="linear"), NotImplementedError,
         r"Got 4D input \(shape \(1, 2, 4, 4\) on " + d + r"\), but linear mode needs 3D input"),
        (lambda: F.interpolate(x, size=2, mode="cubic"), NotImplementedError,
         r"mode 'cubic' is not supported; the modes are nearest"),
        (lambda: F.interpolate(pdt.zeros(2, 4, device=device), size=2), NotImplementedError,
         r"Only 3D, 4D and 5D input Tensors supported \(got 2D"),
        (lambda: F.interpolate(x, size=2, antialias=True), ValueError,
         r"Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D "
         r"tensor as input \(got mode='nearest' and an input of shape \(1, 2, 4, 4\) on " + d),
        (lambda: F.interpolate(x.long(), size=2, mode="bilinear"), NotImplementedError,
         r"expected a floating point input for mode 'bilinear' \(integers only with "
         r"'nearest' and 'nearest-exact'; uint8 with 'bilinear' and antialiased 'bicubic' "
         r"too\), got pydevtensor.int64"),
        (lambda: F.interpolate(x.to(pdt.uint8), size=2, mode="bicubic"), NotImplementedError,
         r"for mode 'bicubic' .*got pydevtensor.uint8"),
        (lambda: F.interpolate(x.bool(), size=2), NotImplementedError,
         r"got pydevtensor.bool"),
        (lambda: F.interpolate([1.0], size=2), TypeError, r"input must be a Tensor, got list"),
        (lambda: nn.Upsample()(x), ValueError, r"either size or scale_factor"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64"])
def test_nearest_modes_take_integer_images_and_masks(device, mode, dtype):
    """Nearest interpolation only picks elements, so PyTorch takes integer inputs (uint8
    images, int64 label masks): the same picks as the float path, in the input's dtype."""
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5) % 250
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    for kw in (dict(scale_factor=2), dict(size=(7, 3))):
        got = F.interpolate(x, mode=mode, **kw)
        want = F.interpolate(x.double(), mode=mode, **kw)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    assert nn.Upsample(scale_factor=3, mode=mode)(x[0]).dtype == x.dtype


def test_deprecated_upsample_functions(device):
    """F.upsample, F.upsample_nearest and F.upsample_bilinear warn as PyTorch's
    (deprecated, use interpolate) and resample: nearest by default, and bilinear with
    align_corners=True."""
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 5))
    message = r"`nn.functional.{}` is deprecated. Use `nn.functional.interpolate` instead."
    with pytest.warns(UserWarning, match=message.format("upsample")):
        got = F.upsample(_t(x, device), scale_factor=(2, 3))
    assert_close(got, np.repeat(np.repeat(x, 2, 2), 3, 3), "float64")
    with pytest.warns(UserWarning, match=message.format("upsample")):
        got = F.upsample(_t(x, device), size=(7, 9), mode="bilinear", align_corners=True)
    ref = np.swapaxes(_np_linear_align(np.swapaxes(_np_linear_align(x, 9), 2, 3), 7), 2, 3)
    assert_close(got, ref, "float64")
    with pytest.warns(UserWarning, match=message.format("upsample_nearest")):
        got = F.upsample_nearest(_t(x, device), scale_factor=2)
    assert_close(got, np.repeat(np.repeat(x, 2, 2), 2, 3), "float64")
    with pytest.warns(UserWarning, match=message.format("upsample_bilinear")):
        got = F.upsample_bilinear(_t(x, device), size=(7, 9))
    assert_close(got, ref, "float64")
    with pytest.warns(UserWarning, match=message.format("upsample_bilinear")):
        got = F.upsample_bilinear(_t(x, device), scale_factor=2)
    ref = np.swapaxes(_np_linear_align(np.swapaxes(_np_linear_align(x, 10), 2, 3), 8), 2, 3)
    assert_close(got, ref, "float64")


@pytest.mark.parametrize("shape, kw, out", [
    ((2, 2, 1, 5), dict(scale_factor=(0.5, 1.5)), (2, 2, 0, 7)),
    ((1, 3, 5), dict(size=0), (1, 3, 0)),
    ((1, 1, 5, 1, 1), dict(scale_factor=0.1), (1, 1, 0, 0, 0))])
def test_area_may_make_an_empty_output(device, shape, kw, out):
    """'area' is adaptive average pooling, which PyTorch lets make an empty output
    (floor(1 * 0.5) = 0 rows; it was refused); the gradient is all zeros."""
    x = pdt.ones(shape, dtype=pdt.float64, device=device, requires_grad=True)
    got = F.interpolate(x, mode="area", **kw)
    assert tuple(got.shape) == out and got.dtype == pdt.float64
    got.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros(shape))
    with pytest.raises(ValueError, match=r"Input and output sizes should be greater than 0"):
        F.interpolate(x, mode="nearest", **kw)


@pytest.mark.parametrize("shape, size", [((1, 1, 1, 1), (3, 10)), ((1, 2, 1, 1), (1, 3)),
                                         ((2, 1, 1), 4), ((1, 1, 1, 1, 1), (2, 2, 2))])
def test_nearest_of_a_single_cell_is_a_new_tensor(device, shape, size):
    """Repeating a single cell by an integer factor made a broadcast view (zero strides)
    of the input: writing one output element changed the input and every element
    repeated from it.  The result is a new, contiguous tensor."""
    x = pdt.arange(float(np.prod(shape)), dtype=pdt.float64, device=device).reshape(shape)
    want = x.cpu().numpy().copy()
    got = F.interpolate(x, size=size)
    assert got.is_contiguous()
    expected = got.cpu().numpy().copy()
    got[(0,) * got.ndim] = -7.0
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    expected.reshape(-1)[0] = -7.0
    np.testing.assert_array_equal(got.cpu().numpy(), expected)
