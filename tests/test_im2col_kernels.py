"""The image-to-column kernels behind convolutions and pooling: the private
``_C._im2col(x, kernel, dilation, padding, stride, pad_value=0.0)`` and
``_C._col2im(cols, output_hw, kernel, dilation, padding, stride)``
(csrc/core/pdt_conv.h, csrc/cpu/cpu_conv.c, csrc/cuda/cuda_conv.cu).

Checked against NumPy float64 references written here as plain loops, on every device
of the build.  im2col only copies, so it must match exactly in every dtype; col2im
sums, and with integer-valued data every partial sum is exact, so it must match
exactly too; with other data it is checked as im2col's adjoint, against PyTorch's
unfold/fold when importable, and for the same bits on every device (the CUDA gather
adds an element's terms in the CPU's order).
"""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import torch_or_skip

DTYPES = ["float32", "float64", "float16", "bfloat16"]

# (N, C, H, W), kernel, dilation, padding, stride: kernels 1..5, strides 1..3, padding
# 0..2, dilation 1..2, square and not.
CASES = [
    ((1, 1, 5, 5), (1, 1), (1, 1), (0, 0), (1, 1)),
    ((2, 3, 6, 7), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((1, 3, 7, 5), (2, 3), (1, 2), (0, 2), (2, 1)),
    ((2, 1, 9, 8), (5, 4), (2, 1), (2, 1), (3, 2)),
    ((1, 3, 4, 11), (4, 5), (1, 2), (2, 2), (1, 3)),
    ((2, 3, 8, 8), (2, 2), (1, 1), (0, 0), (2, 2)),
    ((1, 1, 3, 3), (5, 5), (1, 1), (2, 2), (1, 1)),
    ((2, 1, 10, 6), (3, 1), (2, 1), (0, 0), (3, 1)),
    ((1, 2, 1, 9), (1, 3), (1, 2), (0, 1), (1, 2)),
]
IDS = [f"{s}k{k}d{d}p{p}s{st}".replace(" ", "") for s, k, d, p, st in CASES]


def out_size(h, k, d, p, s):
    return (h + 2 * p - d * (k - 1) - 1) // s + 1


def im2col_ref(x, kernel, dilation, padding, stride, pad=0.0):
    """unfold by its definition: row c kh kw + i kw + j, column y ow + x."""
    n, c, h, w = x.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    oh, ow = out_size(h, kh, dh, ph, sh), out_size(w, kw, dw, pw, sw)
    out = np.full((n, c * kh * kw, oh * ow), pad, dtype=np.float64)
    for b, ch, i, j, y, xx in itertools.product(range(n), range(c), range(kh), range(kw),
                                                 range(oh), range(ow)):
        iy, ix = y * sh - ph + i * dh, xx * sw - pw + j * dw
        if 0 <= iy < h and 0 <= ix < w:
            out[b, (ch * kh + i) * kw + j, y * ow + xx] = x[b, ch, iy, ix]
    return out


def col2im_ref(cols, hw, kernel, dilation, padding, stride):
    """fold by its definition: every column element added where im2col took it from."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    h, w = hw
    n, ckk, _ = cols.shape
    c = ckk // (kh * kw)
    oh, ow = out_size(h, kh, dh, ph, sh), out_size(w, kw, dw, pw, sw)
    out = np.zeros((n, c, h, w))
    for b, ch, i, j, y, xx in itertools.product(range(n), range(c), range(kh), range(kw),
                                                 range(oh), range(ow)):
        iy, ix = y * sh - ph + i * dh, xx * sw - pw + j * dw
        if 0 <= iy < h and 0 <= ix < w:
            out[b, ch, iy, ix] += cols[b, (ch * kh + i) * kw + j, y * ow + xx]
    return out


def on(a, dtype, device):
    return pdt.tensor(np.ascontiguousarray(a), dtype=getattr(pdt, dtype), device=device)


def back(t):
    """float64 NumPy values of t (exact for every supported dtype)."""
    return t.to(pdt.float64).cpu().numpy()


def ints(rng, shape, lo=-8, hi=9):
    """Small integers: exact in every dtype, and so are their sums here."""
    return rng.integers(lo, hi, size=shape).astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_im2col_matches_reference(device, case, dtype):
    shape, k, d, p, s = case
    rng = np.random.default_rng(0)
    x = ints(rng, shape, -100, 101)
    got = _C._im2col(on(x, dtype, device), k, d, p, s)
    assert got.device == device and got.dtype == getattr(pdt, dtype)
    assert got.is_contiguous()
    np.testing.assert_array_equal(back(got), im2col_ref(x, k, d, p, s))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_im2col_float64_bits(device, case):
    """Arbitrary float64 values (not only integers) are copied bit for bit."""
    shape, k, d, p, s = case
    x = np.random.default_rng(1).standard_normal(shape)
    got = _C._im2col(on(x, "float64", device), k, d, p, s, 0.5)
    np.testing.assert_array_equal(back(got), im2col_ref(x, k, d, p, s, 0.5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_im2col_pad_value_minus_inf(device, dtype):
    """The padding value of max pooling."""
    shape, k, d, p, s = (2, 3, 5, 6), (3, 2), (1, 2), (2, 1), (2, 1)
    x = ints(np.random.default_rng(2), shape)
    got = back(_C._im2col(on(x, dtype, device), k, d, p, s, float("-inf")))
    ref = im2col_ref(x, k, d, p, s, -np.inf)
    assert np.isneginf(ref).any()
    np.testing.assert_array_equal(got, ref)


def views(x, device):
    """(name, a non-contiguous view of x's values, its NumPy values)."""
    t = on(x, "float32", device)
    tt = on(x.transpose(0, 1, 3, 2), "float32", device).transpose(2, 3)  # W with stride H
    nhwc = on(x.transpose(0, 2, 3, 1), "float32", device).permute(0, 3, 1, 2)  # channels last
    big = np.zeros((x.shape[0], x.shape[1] + 1, 2 * x.shape[2], 2 * x.shape[3] + 1))
    big[:, 1:, ::2, 1::2] = x
    sliced = on(big, "float32", device)[:, 1:, ::2, 1::2]  # every stride > 1, an offset
    yield "transposed", tt, x
    yield "channels_last", nhwc, x
    yield "sliced", sliced, x
    yield "flipped_batch", t[::-1], x[::-1]  # a negative-stride batch when views allow it


@pytest.mark.parametrize("case", CASES[1:5], ids=IDS[1:5])
def test_im2col_noncontiguous_input(device, case):
    shape, k, d, p, s = case
    x = ints(np.random.default_rng(3), shape)
    for name, view, values in views(x, device):
        if name in ("transposed", "sliced"):
            assert not view.is_contiguous(), name
        got = _C._im2col(view, k, d, p, s)
        np.testing.assert_array_equal(back(got), im2col_ref(values, k, d, p, s), err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_col2im_matches_reference(device, case, dtype):
    shape, k, d, p, s = case
    n, c, h, w = shape
    oh, ow = out_size(h, k[0], d[0], p[0], s[0]), out_size(w, k[1], d[1], p[1], s[1])
    cols = ints(np.random.default_rng(4), (n, c * k[0] * k[1], oh * ow))
    got = _C._col2im(on(cols, dtype, device), (h, w), k, d, p, s)
    assert got.device == device and got.dtype == getattr(pdt, dtype)
    assert got.shape == shape and got.is_contiguous()
    np.testing.assert_array_equal(back(got), col2im_ref(cols, (h, w), k, d, p, s))


@pytest.mark.parametrize("case", CASES[1:5], ids=IDS[1:5])
def test_col2im_noncontiguous_input(device, case):
    shape, k, d, p, s = case
    n, c, h, w = shape
    oh, ow = out_size(h, k[0], d[0], p[0], s[0]), out_size(w, k[1], d[1], p[1], s[1])
    cols = ints(np.random.default_rng(5), (n, c * k[0] * k[1], oh * ow))
    view = on(cols.transpose(0, 2, 1), "float64", device).transpose(1, 2)  # (N, L, CKK).mT
    assert not view.is_contiguous()
    got = _C._col2im(view, (h, w), k, d, p, s)
    np.testing.assert_array_equal(back(got), col2im_ref(cols, (h, w), k, d, p, s))
    big = on(np.repeat(cols, 2, axis=2), "float64", device)[:, :, ::2]  # stride 2 along L
    got = _C._col2im(big, (h, w), k, d, p, s)
    np.testing.assert_array_equal(back(got), col2im_ref(cols, (h, w), k, d, p, s))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_col2im_is_the_adjoint(device, case):
    """<im2col(x), y> == <x, col2im(y)> in float64, to rounding."""
    shape, k, d, p, s = case
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape)
    cx = back(_C._im2col(on(x, "float64", device), k, d, p, s))
    y = rng.standard_normal(cx.shape)
    ty = back(_C._col2im(on(y, "float64", device), shape[2:], k, d, p, s))
    lhs, rhs = float(np.sum(cx * y)), float(np.sum(x * ty))
    scale = float(np.sum(np.abs(cx * y))) + 1.0
    assert abs(lhs - rhs) <= 1e-12 * scale, (lhs, rhs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_col2im_same_bits_on_every_device(device, dtype):
    """The CUDA kernel gathers an element's terms in the order of (i, j), as the CPU's
    loops add them: the same bits, and the same again on a second run."""
    shape, k, d, p, s = (2, 3, 9, 8), (3, 4), (2, 1), (1, 2), (1, 1)
    oh, ow = out_size(9, 3, 2, 1, 1), out_size(8, 4, 1, 2, 1)
    cols = np.random.default_rng(7).standard_normal((2, 3 * 12, oh * ow))
    t = on(cols, dtype, device)
    a = _C._col2im(t, shape[2:], k, d, p, s)
    b = _C._col2im(t, shape[2:], k, d, p, s)
    ref = _C._col2im(on(cols, dtype, "cpu"), shape[2:], k, d, p, s)
    np.testing.assert_array_equal(back(a), back(b))
    np.testing.assert_array_equal(back(a), back(ref))
    if dtype in ("float32", "float64"):  # summed in the dtype: close to the exact sums
        tol = 1e-4 if dtype == "float32" else 1e-12
        ref64 = col2im_ref(back(t), shape[2:], k, d, p, s)
        np.testing.assert_allclose(back(a), ref64, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_torch_unfold_and_fold(device, case):
    torch = torch_or_skip()
    shape, k, d, p, s = case
    x = np.random.default_rng(8).standard_normal(shape).astype(np.float32)
    tx = torch.from_numpy(x)
    ref = torch.nn.functional.unfold(tx, k, dilation=d, padding=p, stride=s).numpy()
    got = _C._im2col(on(x, "float32", device), k, d, p, s)
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    y = np.random.default_rng(9).standard_normal(ref.shape).astype(np.float32)
    ref = torch.nn.functional.fold(torch.from_numpy(y), shape[2:], k, dilation=d, padding=p,
                                   stride=s).numpy()
    got = _C._col2im(on(y, "float32", device), shape[2:], k, d, p, s)
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-6, atol=1e-6)


def test_empty_batch(device):
    """N = 0 gives an empty result, as PyTorch's unfold and fold do."""
    x = pdt.zeros(0, 3, 5, 5, device=device)
    cols = _C._im2col(x, (2, 2), (1, 1), (0, 0), (1, 1))
    assert cols.shape == (0, 12, 16) and cols.device == device
    img = _C._col2im(cols, (5, 5), (2, 2), (1, 1), (0, 0), (1, 1))
    assert img.shape == (0, 3, 5, 5) and img.device == device


def test_large_enough_to_split(device):
    """Enough planes and elements for the CPU's pool to split the work."""
    shape, k, d, p, s = (4, 16, 33, 31), (3, 3), (1, 1), (1, 1), (1, 1)
    x = ints(np.random.default_rng(10), shape)
    got = back(_C._im2col(on(x, "float32", device), k, d, p, s))
    np.testing.assert_array_equal(got, im2col_ref(x, k, d, p, s))
    np.testing.assert_array_equal(
        back(_C._col2im(on(got, "float32", device), shape[2:], k, d, p, s)),
        col2im_ref(got, shape[2:], k, d, p, s))


def test_window_parameters_past_2_30(device):
    """Padding, dilation and stride near 2^30 (CUDA: the int64 index path), with one
    window position whose second tap lands on row 0."""
    shape, k, d, p, s = (1, 2, 3, 3), (2, 2), (2**29, 1), (2**29, 0), (2**30, 1)
    x = ints(np.random.default_rng(12), shape)
    got = back(_C._im2col(on(x, "float32", device), k, d, p, s, -1.0))
    ref = im2col_ref(x, k, d, p, s, -1.0)
    assert ref.shape == (1, 8, 2) and (ref != -1).any()
    np.testing.assert_array_equal(got, ref)
    img = back(_C._col2im(on(ref, "float32", device), shape[2:], k, d, p, s))
    np.testing.assert_array_equal(img, col2im_ref(ref, shape[2:], k, d, p, s))


WINDOW = ((2, 2), (1, 1), (0, 0), (1, 1))


def bad(device, args, exc, *patterns, col2im=False):
    fn = _C._col2im if col2im else _C._im2col
    with pytest.raises(exc) as info:
        fn(*args)
    msg = str(info.value)
    for pat in patterns:
        assert pat in msg, msg
    if exc not in (TypeError,):
        assert str(device) in msg, msg


def with_window(x, kernel=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
    return (x, kernel, dilation, padding, stride)


def test_im2col_bad_inputs(device):
    x = pdt.zeros(1, 2, 4, 4, device=device)
    bad(device, with_window(pdt.zeros(2, 4, 4, device=device)), ValueError, "4-d input",
        "(2, 4, 4)")
    bad(device, with_window(x, kernel=(5, 2)), ValueError, "smaller than the dilated kernel",
        "(4, 4)", "(5, 2)")
    bad(device, with_window(x, kernel=(3, 3), dilation=(2, 1)), RuntimeError, "(5, 3)")
    bad(device, with_window(x, stride=(0, 1)), ValueError, "stride must be positive", "(0, 1)")
    bad(device, with_window(x, stride=(1, -2)), ValueError, "stride must be positive", "(1, -2)")
    bad(device, with_window(x, dilation=(0, 1)), ValueError, "dilation must be positive")
    bad(device, with_window(x, kernel=(0, 1)), ValueError, "kernel_size must be positive")
    bad(device, with_window(x, padding=(-1, 0)), ValueError, "padding must be non-negative")
    bad(device, with_window(x, kernel=(2**31, 1)), ValueError, "below 2^31")
    bad(device, with_window(pdt.zeros(1, 0, 4, 4, device=device)), ValueError, "non-zero",
        "(1, 0, 4, 4)")
    bad(device, with_window(pdt.zeros(1, 2, 4, 4, dtype=pdt.int64, device=device)),
        NotImplementedError, "int64")
    bad(device, (x, (2,), (1, 1), (0, 0), (1, 1)), TypeError, "kernel must be a pair")
    bad(device, (x, (2, 2.5), (1, 1), (0, 0), (1, 1)), TypeError, "kernel[1]")
    one = pdt.zeros(1, 1, 1, 1, device=device)  # 2^64 window positions
    bad(device, with_window(one, kernel=(1, 1), padding=(2**31 - 1, 2**31 - 1)), ValueError,
        "too many elements")


def test_col2im_bad_inputs(device):
    cols = pdt.zeros(1, 8, 9, device=device)  # C = 2, kernel (2, 2), output (4, 4)
    ok = ((4, 4), *WINDOW)
    _C._col2im(cols, *ok)
    bad(device, (pdt.zeros(8, 9, device=device), *ok), ValueError, "3-d input", "(8, 9)",
        col2im=True)
    bad(device, (pdt.zeros(1, 7, 9, device=device), *ok), ValueError, "divisible",
        "(1, 7, 9)", col2im=True)
    bad(device, (pdt.zeros(1, 8, 10, device=device), *ok), ValueError,
        "3 x 3 = 9 window positions", "(1, 8, 10)", col2im=True)
    bad(device, (pdt.zeros(1, 0, 9, device=device), *ok), ValueError, "non-zero", col2im=True)
    bad(device, (cols, (0, 4), *WINDOW), ValueError, "output_size must be positive", "(0, 4)",
        col2im=True)
    bad(device, (cols, (1, 4), *WINDOW), ValueError, "smaller than the dilated kernel",
        col2im=True)
    bad(device, (cols, (4, 4), (2, 2), (1, 1), (0, 0), (0, 1)), ValueError,
        "stride must be positive", col2im=True)
    bad(device, (pdt.zeros(1, 8, 9, dtype=pdt.int32, device=device), *ok),
        NotImplementedError, "int32", col2im=True)
    bad(device, (cols, 4, *WINDOW), TypeError, "output_size must be a pair", col2im=True)


@pytest.mark.cuda
def test_second_device_keeps_the_current_device():
    """On cuda:1 the kernels run on cuda:1's stream and leave the thread's device as it was."""
    if pdt.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices (PYDEVTENSOR_EMULATED_DEVICES=2)")
    before = pdt.cuda.current_device()
    shape, k, d, p, s = CASES[3]
    x = ints(np.random.default_rng(11), shape)
    got = _C._im2col(on(x, "float32", "cuda:1"), k, d, p, s)
    assert got.device == pdt.device("cuda:1")
    back_ = _C._col2im(got, shape[2:], k, d, p, s)
    assert back_.device == pdt.device("cuda:1")
    assert pdt.cuda.current_device() == before
    cols = im2col_ref(x, k, d, p, s)
    np.testing.assert_array_equal(back(got), cols)
    np.testing.assert_array_equal(back(back_), col2im_ref(cols, shape[2:], k, d, p, s))


def test_expanded_inputs_and_a_list_changed_while_parsed(device):
    """Found by a reviewer: stride-0 (expanded) inputs read right; a pair argument whose
    item's __index__ empties the list is read from a copy (it crashed before)."""
    base = pdt.tensor(np.arange(4.0).reshape(1, 1, 1, 4), device=device)
    x = base.expand(2, 3, 5, 4)  # strides 0 in N, C and H
    want = _C._im2col(x.contiguous(), (2, 2), (1, 1), (1, 0), (1, 1))
    got = _C._im2col(x, (2, 2), (1, 1), (1, 0), (1, 1))
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    cols = pdt.ones(1, 4, 6, device=device).expand(2, 4, 6)
    np.testing.assert_array_equal(
        _C._col2im(cols, (3, 4), (2, 2), (1, 1), (0, 0), (1, 1)).cpu().numpy(),
        _C._col2im(cols.contiguous(), (3, 4), (2, 2), (1, 1), (0, 0), (1, 1)).cpu().numpy())

    pair = []

    class Shrinking:
        def __index__(self):
            pair.clear()
            return 2

    pair.extend([Shrinking(), 2])
    out = _C._im2col(pdt.ones(1, 1, 4, 4, device=device), pair, (1, 1), (0, 0), (1, 1))
    assert tuple(out.shape) == (1, 4, 9)
    with pytest.raises(ValueError, match=r"output_size must be positive and below 2\^31"):
        _C._col2im(pdt.ones(1, 1, 4, device=device), (2**62 + 1, 4), (1, 1), (1, 1), (0, 0),
                   (1, 1))
