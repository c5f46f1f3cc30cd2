"""On a CUDA device the convolution and the pools read nothing back to the host (no
device-to-host copy: no hidden synchronisation) and copy nothing from it once their
constant tensors are cached (found by a reviewer: index range checks, divisor lists
and index lists copied each call)."""
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES
from pydevtensor.nn import functional as F

pytestmark = pytest.mark.cuda


def _copies(fn):
    """(device-to-host, host-to-device) copies of a second call of fn (the first fills
    the caches)."""
    fn()
    pdt.reset_transfer_stats()
    fn()
    stats = pdt.transfer_stats()
    return stats["device_to_host"]["count"], stats["host_to_device"]["count"]


def _backward(y):
    y.backward(pdt.ones_like(y))  # a gradient made on the device, not from a scalar


def _pool_cases(device):
    x = pdt.randn(2, 3, 9, 9, device=device)
    xg = x.clone().requires_grad_()
    cases = {
        "max_pool2d": lambda: F.max_pool2d(x, 3, 2, 1),
        "max_pool2d indices": lambda: F.max_pool2d(x, 3, 2, 1, ceil_mode=True,
                                                   return_indices=True),
        "max_pool2d backward": lambda: _backward(F.max_pool2d(xg, 3, 2, 1)),
        "avg_pool2d": lambda: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        "avg_pool2d backward": lambda: _backward(F.avg_pool2d(xg, 2, ceil_mode=True)),
        "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(x, 3),  # dividing sizes
        "adaptive_avg_pool2d uneven": lambda: F.adaptive_avg_pool2d(x, (4, 5)),
        "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(x, 3, return_indices=True),
        # one node each since GN4 (e0570472), whose scatter_add read its index back
        "adaptive_max_pool2d backward": lambda: _backward(F.adaptive_max_pool2d(xg, (4, 5))),
        "adaptive_max_pool3d backward": lambda: _backward(
            F.adaptive_max_pool3d(xg.unsqueeze(2), (1, 4, 5))),
        "adaptive_max_pool1d backward": lambda: _backward(F.adaptive_max_pool1d(xg[0], 4)),
    }
    with pdt.transfer_guard("disallow"):
        return {name: _copies(fn) for name, fn in cases.items()}


@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_pools_copy_nothing_to_the_device(device):
    """The divisors, averaging matrices and indices are made on the device (and kept)."""
    got = _pool_cases(device)
    assert {name: h2d for name, (_, h2d) in got.items()} == {name: 0 for name in got}


@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_pools_read_nothing_back(device):
    got = _pool_cases(device)
    assert {name: d2h for name, (d2h, _) in got.items()} == {name: 0 for name in got}


@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_conv2d_forward_and_backward_copy_nothing(device):
    x = pdt.randn(2, 3, 9, 9, device=device, requires_grad=True)
    w = pdt.randn(4, 3, 3, 3, device=device, requires_grad=True)
    with pdt.transfer_guard("disallow"):
        got = _copies(lambda: _backward(F.conv2d(x, w, padding=1)))
    assert got == (0, 0)


def _resampling_cases(device):
    x4 = pdt.randn(2, 3, 5, 6, device=device, requires_grad=True)
    x3 = pdt.randn(2, 3, 7, device=device, requires_grad=True)
    cases = {
        "bilinear": lambda: _backward(F.interpolate(x4, size=(9, 4), mode="bilinear")),
        "bilinear align_corners": lambda: _backward(F.interpolate(
            x4, scale_factor=1.5, mode="bilinear", align_corners=True)),
        "bicubic": lambda: _backward(F.interpolate(x4, scale_factor=(2, 0.5), mode="bicubic")),
        "bicubic antialias": lambda: _backward(F.interpolate(x4, size=(2, 3), mode="bicubic",
                                                             antialias=True)),
        "nearest": lambda: _backward(F.interpolate(x4, size=(7, 9))),
        "nearest x2": lambda: _backward(F.interpolate(x4, scale_factor=2)),
        "nearest-exact": lambda: _backward(F.interpolate(x3, size=11, mode="nearest-exact")),
        "linear": lambda: _backward(F.interpolate(x3, scale_factor=1.7, mode="linear")),
        "area": lambda: _backward(F.interpolate(x4, size=(2, 4), mode="area")),
        "max_pool1d": lambda: _backward(F.max_pool1d(x3, 3, 2, 1)),
        "avg_pool1d": lambda: _backward(F.avg_pool1d(x3, 3, 2, 1, ceil_mode=True)),
        "adaptive_avg_pool1d": lambda: _backward(F.adaptive_avg_pool1d(x3, 3)),
        "lp_pool2d": lambda: _backward(F.lp_pool2d(x4 * x4 + 1.0, 2, 2)),
        "pixel_shuffle": lambda: _backward(F.pixel_shuffle(x4[:, :, :4].reshape(2, 12, 2, 3), 2)),
        "local_response_norm": lambda: _backward(F.local_response_norm(x4, 3)),
        "rms_norm": lambda: _backward(F.rms_norm(x4, (5, 6))),
    }
    with pdt.transfer_guard("disallow"):
        return {name: _copies(fn) for name, fn in cases.items()}


@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_resampling_forward_and_backward_copy_nothing(device):
    """interpolate's taps are made on the device (and kept): forward and backward copy
    nothing either way (and the 1-d pools, pixel shuffle and the new norms neither)."""
    got = _resampling_cases(device)
    assert got == {name: (0, 0) for name in got}
