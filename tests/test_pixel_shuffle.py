"""F.pixel_shuffle / pixel_unshuffle and nn.PixelShuffle / PixelUnshuffle: exact
against a NumPy restatement of the index formula
``out[..., c, h * r + i, w * r + j] = in[..., (c * r + i) * r + j, h, w]`` and
against torch (values exact, shapes for extra leading dims, the gradient a
permutation of the incoming one), every dtype, every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _ref_shuffle(x, r):
    *lead, crr, h, w = x.shape
    c = crr // (r * r)
    out = np.zeros(tuple(lead) + (c, h * r, w * r), dtype=x.dtype)
    for ch in range(c):
        for i in range(r):
            for j in range(r):
                out[..., ch, i::r, j::r] = x[..., (ch * r + i) * r + j, :, :]
    return out


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((18, 2, 3), 3), ((2, 3, 4, 1, 2), 2),
                                     ((1, 5, 2, 2), 1)])
def test_pixel_shuffle_matches_numpy(device, shape, r):
    a = np.random.default_rng(0).standard_normal(shape)
    x = pdt.tensor(a, device=device)
    got = F.pixel_shuffle(x, r)
    want = _ref_shuffle(a, r)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    np.testing.assert_array_equal(F.pixel_unshuffle(got, r).cpu().numpy(), a)
    assert nn.PixelShuffle(r)(x).shape == want.shape
    ints = pdt.tensor(np.arange(a.size).reshape(shape), device=device)
    np.testing.assert_array_equal(F.pixel_shuffle(ints, r).cpu().numpy(),
                                  _ref_shuffle(np.arange(a.size).reshape(shape), r))


def test_pixel_shuffle_gradients(device):
    rng = np.random.default_rng(1)
    gradcheck(lambda t: F.pixel_shuffle(t, 2), [rng.standard_normal((1, 8, 2, 3))], device)
    gradcheck(lambda t: F.pixel_unshuffle(t, 2), [rng.standard_normal((2, 1, 4, 2))], device)


@pytest.mark.parametrize("fn, shape, r", [
    (F.pixel_shuffle, (1, 2, 3, 4), 1), (F.pixel_unshuffle, (1, 2, 3, 4), 1),
    (F.channel_shuffle, (1, 2, 3, 4), 1), (F.pixel_shuffle, (1, 4, 1, 1), 2),
    (F.pixel_unshuffle, (1, 1, 2, 2), 2), (F.channel_shuffle, (1, 4, 1), 1)])
def test_shuffles_return_a_new_tensor(device, fn, shape, r):
    """Shuffles that move nothing still copy, as PyTorch's: writing into the result
    leaves the input as it was, and the gradient still flows."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = pdt.tensor(a, device=device, requires_grad=True)
    got = fn(x, r)
    (got * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full(shape, 3.0))
    got = fn(x.detach(), r)
    got[(0,) * got.ndim] = -99.0
    np.testing.assert_array_equal(x.detach().cpu().numpy(), a)


def test_pixel_shuffle_matches_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(2).standard_normal((2, 3, 18, 2, 4))
    np.testing.assert_array_equal(
        F.pixel_shuffle(pdt.tensor(a, device=device), 3).cpu().numpy(),
        torch.nn.functional.pixel_shuffle(torch.tensor(a), 3).numpy())
    b = np.random.default_rng(3).standard_normal((2, 3, 6, 4))
    np.testing.assert_array_equal(
        nn.PixelUnshuffle(2)(pdt.tensor(b, device=device)).cpu().numpy(),
        torch.nn.PixelUnshuffle(2)(torch.tensor(b)).numpy())
    assert repr(nn.PixelShuffle(3)) == repr(torch.nn.PixelShuffle(3))
    assert repr(nn.PixelUnshuffle(2)) == repr(torch.nn.PixelUnshuffle(2))


def test_pixel_shuffle_bad_input(device):
    d = str(device)
    cases = [
        (lambda: F.pixel_shuffle(pdt.zeros(1, 5, 2, 2, device=device), 2), ValueError,
         r"pixel_shuffle\(\): expects its input's 'channel' dimension to be divisible by the "
         r"square of upscale_factor, but input.size\(-3\)=5 is not divisible by 4 \(input of "
         r"shape \(1, 5, 2, 2\) on " + d),
        (lambda: F.pixel_shuffle(pdt.zeros(4, 2, device=device), 2), RuntimeError,
         r"expects input to have at least 3 dimensions, but got input of shape \(4, 2\)"),
        (lambda: F.pixel_shuffle(pdt.zeros(4, 2, 2, device=device), 0), ValueError,
         r"expects a positive upscale_factor, but got 0"),
        (lambda: F.pixel_unshuffle(pdt.zeros(1, 1, 3, 4, device=device), 2), ValueError,
         r"pixel_unshuffle\(\): expects height to be divisible by downscale_factor, but "
         r"input.size\(-2\)=3 is not divisible by 2"),
        (lambda: F.pixel_unshuffle(pdt.zeros(1, 1, 4, 4, device=device), 2.0), TypeError,
         r"downscale_factor must be an int, got float"),
        (lambda: nn.PixelShuffle(2)([1.0]), TypeError, r"input must be a Tensor, got list"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()
