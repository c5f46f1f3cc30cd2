"""F.local_response_norm / nn.LocalResponseNorm and F.rms_norm / nn.RMSNorm.

References: NumPy float64 restatements of the formulas (LRN's channel window
c - size // 2 .. c + (size - 1) // 2 with zeros past the ends, divided by size; RMS
over the trailing normalized_shape, eps None meaning the machine epsilon of the type
computed in) to 1e-12 relative, float32 to 1e-6; torch when it imports (values and
gradients to 1e-12; half types within one rounding); gradcheck."""
import math
import re

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


def _ref_lrn(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(ch - size // 2, 0), min(ch + (size - 1) // 2, c - 1)
        div[:, ch] = sq[:, lo:hi + 1].sum(1)
    return x / (k + alpha / size * div) ** beta


@pytest.mark.parametrize("shape", [(2, 7, 5), (2, 6, 3, 4), (1, 5, 2, 3, 2)])
@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_local_response_norm_matches_numpy(device, shape, size):
    x = np.random.default_rng(size).standard_normal(shape) * 3
    got = F.local_response_norm(_t(x, device), size, alpha=0.3, beta=0.6, k=2.0)
    assert_close(got, _ref_lrn(x, size, 0.3, 0.6, 2.0), "float64")
    got32 = nn.LocalResponseNorm(size)(_t(x, device, pdt.float32))
    assert got32.dtype == pdt.float32
    assert_close(got32, _ref_lrn(x.astype(np.float32).astype(np.float64), size, 1e-4, 0.75,
                                 1.0), "float32")


def _ref_rms(x, nd, w, eps):
    axes = tuple(range(x.ndim - nd, x.ndim))
    y = x / np.sqrt((x * x).mean(axes, keepdims=True) + eps)
    return y if w is None else y * w


def test_rms_norm_matches_numpy(device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    w = rng.standard_normal((4, 5))
    assert_close(F.rms_norm(_t(x, device), (4, 5), _t(w, device), eps=1e-3),
                 _ref_rms(x, 2, w, 1e-3), "float64")
    assert_close(F.rms_norm(_t(x, device), 5), _ref_rms(x, 1, None, np.finfo(np.float64).eps),
                 "float64")
    small = x * 1e-4  # where the default eps shows: float32's for float32
    got = nn.RMSNorm(5, device=device)(_t(small, device, pdt.float32))
    assert got.dtype == pdt.float32
    assert_close(got, _ref_rms(small.astype(np.float32).astype(np.float64), 1, None,
                               float(np.finfo(np.float32).eps)), "float32")
    norm = nn.RMSNorm([4, 5], eps=1e-5, elementwise_affine=False)
    assert norm.weight is None and list(norm.parameters()) == []
    assert_close(norm(_t(x, device)), _ref_rms(x, 2, None, 1e-5), "float64")


def test_norms_gradcheck(device):
    rng = np.random.default_rng(1)
    x = [rng.standard_normal((2, 5, 3))]
    gradcheck(lambda t: F.local_response_norm(t, 3, alpha=0.5, beta=0.75, k=1.0), x, device)
    gradcheck(lambda t, w: F.rms_norm(t, (5, 3), w, eps=1e-6),
              x + [rng.standard_normal((5, 3))], device)


def test_norms_match_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 6, 4, 3))
    for fn in (lambda f, t, w: f.local_response_norm(t, 4, 0.2, 0.6, 1.5),
               lambda f, t, w: f.rms_norm(t, (4, 3), w),
               lambda f, t, w: f.rms_norm(t, (3,))):
        tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(x[0, 0], requires_grad=True)
        px, pw = _t(x, device).requires_grad_(), _t(x[0, 0], device).requires_grad_()
        want, got = fn(torch.nn.functional, tx, tw), fn(F, px, pw)
        r = rng.standard_normal(tuple(want.shape))
        (want * torch.tensor(r)).sum().backward()
        (got * _t(r, device)).sum().backward()
        assert_close(got, want.detach().numpy(), "float64")
        assert_close(px.grad, tx.grad.numpy(), "float64")
        if tw.grad is not None:
            assert_close(pw.grad, tw.grad.numpy(), "float64")
    for ours, theirs in ((nn.LocalResponseNorm(5), torch.nn.LocalResponseNorm(5)),
                         (nn.LocalResponseNorm(3, 0.1, 0.5, 2), torch.nn.LocalResponseNorm(3, 0.1,
                                                                                          0.5, 2)),
                         (nn.RMSNorm(4), torch.nn.RMSNorm(4)),
                         (nn.RMSNorm([2, 3], 1e-5, False), torch.nn.RMSNorm([2, 3], 1e-5, False))):
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_norms_half_types_match_torch(device, dtype):
    """Computed in float32, rounded once; the default eps is float32's, as torch's."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((2, 6, 5)) * 1e-3).astype(np.float32)
    tx = torch.from_numpy(x).to(getattr(torch, dtype))
    px = pdt.from_numpy(x).to(device=device, dtype=getattr(pdt, dtype))
    ulp = 2.0 ** (-10 if dtype == "float16" else -7) * 4  # one rounding at |y| < 4
    for fn in (lambda f, t: f.rms_norm(t, (5,)), lambda f, t: f.local_response_norm(t * 1e3, 3)):
        want = fn(torch.nn.functional, tx).float().numpy()
        got = fn(F, px)
        assert got.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(got.to(pdt.float32).cpu().numpy(), want, rtol=0, atol=ulp)


def test_rmsnorm_module(device):
    norm = nn.RMSNorm((2, 3), device=device, dtype=pdt.float64)
    assert norm.weight.device == pdt.device(device) and norm.weight.dtype == pdt.float64
    assert norm.weight.tolist() == [[1.0] * 3] * 2
    norm.weight.data.mul_(2.0)
    norm.reset_parameters()
    assert norm.weight.tolist() == [[1.0] * 3] * 2
    x = pdt.ones(4, 2, 3, dtype=pdt.float64, device=device)
    norm(x).sum().backward()
    assert norm.weight.grad.shape == (2, 3)


def test_norms_bad_input(device):
    d = str(device)
    x = pdt.zeros(2, 3, 4, device=device)
    cases = [
        (lambda: F.local_response_norm(pdt.zeros(2, 3, device=device), 2), ValueError,
         r"Expected 3D or higher dimensionality input \(got 2 dimensions, shape \(2, 3\) on "
         + d),
        (lambda: F.local_response_norm(x, 0), ValueError, r"size must be positive, got 0"),
        (lambda: F.local_response_norm(x, 2, alpha="a"), TypeError, r"alpha must be a number"),
        (lambda: F.local_response_norm(x.long(), 2), TypeError,
         r"input must be floating point, got pydevtensor.int64"),
        (lambda: F.rms_norm(x, (3,)), ValueError,
         r"rms_norm\(\): expected an input of shape \(\*, 3\) \(normalized_shape=\(3,\)\), "
         r"got \(2, 3, 4\) \(on " + d),
        (lambda: F.rms_norm(x, 4, pdt.ones(3, device=device)), ValueError,
         r"Expected weight to be of same shape as normalized_shape, but got weight of shape "
         r"\(3,\) and normalized_shape=\(4,\)"),
        (lambda: nn.RMSNorm(3)(x), ValueError, r"RMSNorm: expected an input of shape \(\*, 3\)"),
        (lambda: nn.RMSNorm(-1), ValueError, r"normalized_shape must be one or more ints >= 0"),
        (lambda: nn.RMSNorm(3, eps=-1.0), ValueError, r"eps must be a number >= 0"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


@pytest.mark.parametrize("ord", [-0.5, -1, -2, math.inf, -math.inf])
def test_vector_norm_without_an_identity_refuses_no_elements(device, ord):
    """ord < 0 and inf have no value over no elements (1/0, or the max of nothing), so
    they are refused, as PyTorch's (-1 gave inf); over a non-empty dim of an empty
    tensor the result is empty; ord >= 0 gives 0."""
    L = pdt.linalg
    with pytest.raises(RuntimeError, match=r"cannot compute the %s norm on an empty tensor"
                       % re.escape(f"{ord:g}")):
        L.vector_norm(pdt.zeros(0, device=device), ord=ord)
    with pytest.raises(RuntimeError, match="on the dimension 1 because this dimension is "
                                           "empty"):
        L.vector_norm(pdt.zeros(2, 0, device=device), ord=ord, dim=1)
    assert L.vector_norm(pdt.zeros(0, 2, device=device), ord=ord, dim=1).shape == (0,)
    for fine in (0, 0.5, 1, 2, 3):
        assert L.vector_norm(pdt.zeros(0, device=device), ord=fine).item() == 0.0


@pytest.mark.parametrize("call", [
    lambda x, **k: pdt.linalg.vector_norm(x, 3, **k),
    lambda x, **k: pdt.linalg.matrix_norm(x, 1, **k),
    lambda x, **k: pdt.linalg.matrix_norm(x, "nuc", **k),
    lambda x, **k: pdt.norm(x, **k),
    lambda x, **k: x.norm(1, dim=0, **k)])
def test_norm_dtype_widens_only(device, call):
    """dtype= converts a floating input to a dtype no narrower than its own (float16 to
    float32 or float64) and computes there; a narrower one, or an integer input, is
    refused (as PyTorch's; the integer input's norm was computed in its dtype before)."""
    a = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=np.float16)
    x = pdt.tensor(a, device=device)
    for dtype in (pdt.float32, pdt.float64):
        got = call(x, dtype=dtype)
        assert got.dtype == dtype
        want = call(pdt.tensor(a.astype(np.float64), device=device))
        np.testing.assert_allclose(got.cpu().double().numpy(), want.cpu().numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="without narrowing"):
        call(x.double(), dtype=pdt.float32)
    with pytest.raises(RuntimeError, match="expected a floating point input"):
        call(x.to(pdt.int64), dtype=pdt.float64)


def _ref_cross_map(x, size, alpha, beta, k):
    """Lua Torch's SpatialCrossMapLRN: the squares of channels c - p + 1 .. c + p - 1,
    p = (size - 1) // 2 + 1, summed directly (no running update)."""
    c, p = x.shape[1], (size - 1) // 2 + 1
    s = np.zeros_like(x)
    for ch in range(c):
        s[:, ch] = (x[:, max(ch - p + 1, 0):min(ch + p - 1, c - 1) + 1] ** 2).sum(1)
    return x * (k + alpha / size * s) ** -beta


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_cross_map_lrn2d_matches_numpy_and_gradcheck(device, size, channels):
    """Every channel's window, where PyTorch's port also sums channel 0 from c = p on
    (its size=3 output for 7 channels was off by up to 0.2 here)."""
    x = np.random.default_rng(size * 10 + channels).standard_normal((2, channels, 3, 2)) * 2
    lrn = nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)
    assert repr(lrn) == f"CrossMapLRN2d({size}, alpha=0.5, beta=0.75, k=1.5)"
    assert_close(lrn(_t(x, device)), _ref_cross_map(x, size, 0.5, 0.75, 1.5), "float64")
    got32 = lrn(_t(x, device, pdt.float32))
    assert got32.dtype == pdt.float32
    assert np.allclose(got32.cpu().numpy(), _ref_cross_map(x.astype(np.float32).astype(
        np.float64), size, 0.5, 0.75, 1.5), rtol=1e-6, atol=1e-6)
    gradcheck(lambda t: lrn(t), [x], device)
    if size % 2:  # an odd window is LocalResponseNorm's
        assert_close(lrn(_t(x, device)),
                     nn.LocalResponseNorm(size, 0.5, 0.75, 1.5)(_t(x, device)).cpu().numpy(),
                     "float64")


def test_cross_map_lrn2d_bad_input(device):
    x = pdt.zeros(2, 3, 4, device=device)
    with pytest.raises(ValueError, match=r"CrossMapLRN2d: Expected input to be 4D, got 3D "
                                         r"instead \(shape \(2, 3, 4\) on " + str(device)):
        nn.CrossMapLRN2d(3)(x)
    with pytest.raises(ValueError, match=r"CrossMapLRN2d: size must be >= 1, got 0"):
        nn.CrossMapLRN2d(0)
    with pytest.raises(TypeError, match=r"CrossMapLRN2d: size must be an int, got float"):
        nn.CrossMapLRN2d(2.0)
    with pytest.raises(TypeError, match=r"input must be floating point"):
        nn.CrossMapLRN2d(3)(x.long().unsqueeze(0))


@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 3, 0), (2, 0, 4), (2, 3, 0, 5)])
def test_local_response_norm_of_empty_input(device, shape):
    """An empty output of the input's shape, as PyTorch's (the pool refused it)."""
    x = pdt.zeros(*shape, device=device, dtype=pdt.float64).requires_grad_()
    out = F.local_response_norm(x, 2)
    assert tuple(out.shape) == shape and out.dtype == pdt.float64
    out.sum().backward()
    assert tuple(x.grad.shape) == shape
    with pytest.raises(RuntimeError, match=r"size must be positive, got 0"):
        F.local_response_norm(x, 0)  # PyTorch's RuntimeError (a ValueError too)


@pytest.mark.parametrize("ord", [math.inf, -math.inf])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (1, True), (0, True)])
def test_infinity_norm_gradient_is_shared_among_ties(device, ord, dim, keepdim):
    """The gradient of vector_norm of order +-inf is amax's (amin's) of |x| times sign(x):
    shared evenly among the elements whose |x| is the norm (ties of either sign), 0
    elsewhere; against NumPy in float64, exactly (halves and thirds of 1)."""
    a = np.array([[-3.0, 1.0, 3.0, 2.0], [0.5, -0.5, 4.0, -0.5], [2.0, 2.0, -2.0, 1.0]])
    x = pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=True)
    pdt.linalg.vector_norm(x, ord, dim=dim, keepdim=keepdim).sum().backward()
    absolute = np.abs(a)
    extreme = (absolute.max if ord > 0 else absolute.min)(axis=dim, keepdims=True)
    ties = absolute == extreme
    expected = ties / ties.sum(axis=dim, keepdims=True) * np.sign(a)
    np.testing.assert_allclose(pdt.to_numpy(x.grad), expected, rtol=1e-15, atol=0)
