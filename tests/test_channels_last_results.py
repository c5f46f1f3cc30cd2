"""The convolutions and pools on channels-last inputs (pydevtensor/_memory_format.py's
keeps_channels_last): conv2d, conv3d, conv_transpose3d, max_pool2d, avg_pool2d,
adaptive_avg_pool2d, adaptive_max_pool2d and max_pool3d give a channels_last
(channels_last_3d) result, with PyTorch's strides for that format, when the input's (or
the convolution weight's) strides suggest it by PyTorch's rule; the values, indices and
gradients are those of the row-major input exactly, and ambiguous layouts (N111, a
size-1 channel dim in row-major order) and other orders keep row-major results, as do
the other 3-d pools (row-major whatever the input, as PyTorch's on the CPU)."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _memory_format
from pydevtensor.nn import functional as F


def _format_strides(shape):
    """PyTorch's channels-last strides of shape: C innermost, then W, H (D), N, each the
    product of the sizes inside it (a size 0 counted as 1)."""
    order = [1] + list(range(len(shape) - 1, 1, -1)) + [0]
    strides, step = [0] * len(shape), 1
    for d in order:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def _channels_last(x, device):
    """x's values with the channels innermost in memory (NumPy's transpose, copied)."""
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    back = tuple(int(i) for i in np.argsort(perm))
    return pdt.tensor(np.ascontiguousarray(x.transpose(perm)), device=device).permute(*back)


OPS_2D = {
    "conv2d": lambda x, w: F.conv2d(x, w, padding=1, stride=(1, 2)),
    "max_pool2d": lambda x, w: F.max_pool2d(x, 2, padding=1),
    "max_pool2d_indices": lambda x, w: F.max_pool2d(x, 3, 2, return_indices=True),
    "avg_pool2d": lambda x, w: F.avg_pool2d(x, 2, ceil_mode=True),
    "adaptive_avg_pool2d": lambda x, w: F.adaptive_avg_pool2d(x, (3, 2)),
    "adaptive_avg_pool2d_1": lambda x, w: F.adaptive_avg_pool2d(x, 1),
    "adaptive_max_pool2d": lambda x, w: F.adaptive_max_pool2d(x, (3, 5), True),
}


@pytest.mark.parametrize("name", sorted(OPS_2D))
def test_2d_ops_keep_channels_last(device, name):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6))
    w = pdt.tensor(rng.standard_normal((4, 3, 3, 3)), device=device)
    op = OPS_2D[name]
    want = op(pdt.tensor(x, device=device), w)
    got = op(_channels_last(x, device), w)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for a, b in zip(want, got):
        assert a.is_contiguous()  # a row-major input: a row-major result
        assert b.stride() == _format_strides(tuple(b.shape)), (name, b.shape, b.stride())
        np.testing.assert_array_equal(b.cpu().numpy(), a.cpu().numpy())


def test_gradients_and_the_weight_layout(device):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 6, 6))
    w = rng.standard_normal((4, 3, 3, 3))
    grads = []
    for xt in (pdt.tensor(x, device=device), _channels_last(x, device)):
        xt.requires_grad_(True)
        y = F.max_pool2d(F.conv2d(xt, pdt.tensor(w, device=device)), 2)
        (y * pdt.arange(float(y.numel()), device=device, dtype=pdt.float64).reshape(
            y.shape)).sum().backward()
        grads.append(xt.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)
    # a channels-last weight makes the convolution's result channels-last, as PyTorch's
    y = F.conv2d(pdt.tensor(x, device=device), _channels_last(w, device))
    assert y.stride() == _format_strides(tuple(y.shape))
    assert F.conv2d(pdt.tensor(x[0], device=device), _channels_last(w, device)).is_contiguous()


def test_3d_ops_keep_channels_last_3d(device):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4, 5, 4))
    w = pdt.tensor(rng.standard_normal((2, 3, 2, 3, 2)), device=device)
    wt = pdt.tensor(rng.standard_normal((3, 2, 2, 2, 2)), device=device)
    follow = [lambda t: F.conv3d(t, w, padding=1), lambda t: F.max_pool3d(t, 2),
              lambda t: F.conv_transpose3d(t, wt, stride=2)]
    row_major = [lambda t: F.avg_pool3d(t, 2), lambda t: F.adaptive_avg_pool3d(t, 3),
                 lambda t: F.adaptive_max_pool3d(t, (2, 3, 3))]  # PyTorch's, on the CPU
    for i, op in enumerate(follow + row_major):
        want, got = op(pdt.tensor(x, device=device)), op(_channels_last(x, device))
        assert want.is_contiguous() and op(pdt.tensor(x[0], device=device)).is_contiguous()
        if i < len(follow):
            assert got.stride() == _format_strides(tuple(got.shape))
        else:
            assert got.is_contiguous()
        np.testing.assert_allclose(got.cpu().numpy(), want.cpu().numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_ambiguous_and_other_layouts_stay_row_major(device):
    rng = np.random.default_rng(3)
    w = pdt.tensor(rng.standard_normal((4, 1, 3, 3)), device=device)
    one_channel = pdt.tensor(rng.standard_normal((2, 1, 5, 5)), device=device)
    # row-major with C = 1 is also channels-last contiguous: PyTorch keeps it row-major
    assert one_channel.is_contiguous(memory_format=pdt.channels_last)
    assert F.conv2d(one_channel, w).is_contiguous()
    assert F.max_pool2d(one_channel, 2).is_contiguous()
    transposed = pdt.tensor(rng.standard_normal((2, 3, 5, 6)), device=device).transpose(2, 3)
    assert F.avg_pool2d(transposed, 2).is_contiguous()
    n111 = pdt.tensor(rng.standard_normal((3, 1, 1, 1)), device=device)
    assert _memory_format.suggested_format(n111) is None
    sliced = _channels_last(rng.standard_normal((2, 4, 6, 6)), device)[:, :, ::2]
    assert _memory_format.suggested_format(sliced) is pdt.channels_last  # not dense
    got = F.adaptive_max_pool2d(sliced, 2)
    assert got.stride() == _format_strides(tuple(got.shape))
    assert _memory_format.suggested_format(pdt.zeros(2, 3, 4, device=device)) is None
