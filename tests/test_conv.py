"""Convolutions (D2L chapters 7-8): F.unfold, F.fold, F.conv1d, F.conv2d, nn.Conv1d,
nn.Conv2d, nn.LazyConv2d, nn.Unfold, nn.Fold, and the private im2col/col2im under them.

Forward results are compared with NumPy float64 references written here with direct
loops over the windows (tolerance: 1e-12 relative in float64, 1e-5 in float32, since
float32 sums of up to a few hundred products round); gradients with central
differences (tests/test_gradcheck.py's gradcheck, float64) and with the adjoint
identity <im2col(x), g> = <x, col2im(g)>; everything once more against torch when it
imports.  The end is D2L's LeNet trained a few steps on every device.
"""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from pydevtensor.nn._im2col import col2im, im2col
from test_gradcheck import gradcheck

F32 = dict(atol=1e-5, rtol=1e-5)


def _pad(x, p, value=0.0):
    return np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=value)


def ref_unfold(x, k, d, p, s):
    """(N, C*kh*kw, L) by loops: the channel, then the kernel's row, then its column."""
    xp = _pad(x, p)
    n, c, hp, wp = xp.shape
    oh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            for y in range(oh):
                for x_ in range(ow):
                    out[:, :, i, j, y, x_] = xp[:, :, y * s[0] + i * d[0], x_ * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


def ref_fold(cols, size, k, d, p, s):
    n, ck, _ = cols.shape
    c = ck // (k[0] * k[1])
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    oh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    blocks = cols.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, hp, wp))
    for i in range(k[0]):
        for j in range(k[1]):
            for y in range(oh):
                for x_ in range(ow):
                    out[:, :, y * s[0] + i * d[0], x_ * s[1] + j * d[1]] += blocks[:, :, i, j, y, x_]
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]


def ref_conv2d(x, w, b, s, p, d, groups):
    """out[n, o, y, x] = b[o] + sum over the group's channels and the kernel, by einsum
    over the windows."""
    n, c, h, _ = x.shape
    o, cg, kh, kw = w.shape
    cols = ref_unfold(x, (kh, kw), d, p, s)  # (N, C*K, L)
    xp_h, xp_w = h + 2 * p[0], x.shape[3] + 2 * p[1]
    oh = (xp_h - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (xp_w - d[1] * (kw - 1) - 1) // s[1] + 1
    cols = cols.reshape(n, groups, cg * kh * kw, oh * ow)
    wg = w.reshape(groups, o // groups, cg * kh * kw)
    out = np.einsum("gok,ngkl->ngol", wg, cols).reshape(n, o, oh, ow)
    if b is not None:
        out = out + b.reshape(1, o, 1, 1)
    return out


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


# (input shape, weight shape, stride, padding, dilation, groups)
CONV_CASES = [
    ((2, 1, 8, 8), (3, 1, 3, 3), 1, 0, 1, 1),
    ((2, 3, 7, 9), (4, 3, 2, 3), (2, 1), (1, 2), (1, 2), 1),
    ((1, 4, 6, 6), (6, 2, 3, 3), 2, 1, 1, 2),
    ((3, 6, 5, 5), (6, 1, 3, 3), 1, 1, 1, 6),        # depthwise
    ((2, 4, 9, 7), (8, 1, 3, 2), (3, 2), (1, 0), (2, 1), 4),
    ((1, 2, 5, 5), (2, 2, 1, 1), 1, 0, 1, 1),        # 1x1 (ResNet's shortcut)
    ((2, 3, 4, 4), (2, 3, 4, 4), 1, 0, 1, 1),        # the kernel is the input
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv2d_matches_numpy(device, case, with_bias):
    xs, ws, s, p, d, g = CONV_CASES[case]
    rng = np.random.default_rng(case)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    b = b if with_bias else None
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    ref = ref_conv2d(x, w, b, pair(s), pair(p), pair(d), g)
    for dtype, tol in ((pdt.float64, "float64"), (pdt.float32, None)):
        got = F.conv2d(_t(x, device, dtype), _t(w, device, dtype),
                       None if b is None else _t(b, device, dtype), s, p, d, g)
        assert got.device == device and got.dtype == dtype
        if tol:
            assert_close(got, ref, tol)
        else:
            np.testing.assert_allclose(got.cpu().numpy(), ref, **F32)


def test_conv2d_unbatched_and_same_padding(device):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 6, 7)), rng.standard_normal((2, 3, 4, 3))
    got = F.conv2d(_t(x, device), _t(w, device), padding=1)
    assert_close(got, ref_conv2d(x[None], w, None, (1, 1), (1, 1), (1, 1), 1)[0], "float64")
    # 'same' with an even kernel: the odd pad goes to the bottom and the right
    same = F.conv2d(_t(x, device), _t(w, device), padding="same", dilation=(1, 2))
    assert tuple(same.shape) == (2, 6, 7)
    xp = np.pad(x[None], ((0, 0), (0, 0), (1, 2), (2, 2)))
    assert_close(same, ref_conv2d(xp, w, None, (1, 1), (0, 0), (1, 2), 1)[0], "float64")
    valid = F.conv2d(_t(x, device), _t(w, device), padding="valid")
    assert_close(valid, ref_conv2d(x[None], w, None, (1, 1), (0, 0), (1, 1), 1)[0], "float64")


def test_conv1d_matches_numpy(device):
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((2, 4, 11)), rng.standard_normal((6, 2, 3)), \
        rng.standard_normal(6)
    got = F.conv1d(_t(x, device), _t(w, device), _t(b, device), stride=2, padding=1,
                   dilation=2, groups=2)
    ref = ref_conv2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1), (1, 2), 2)[:, :, 0]
    assert_close(got, ref, "float64")
    assert tuple(F.conv1d(_t(x[0], device), _t(w, device), groups=2).shape) == (6, 9)
    same = F.conv1d(_t(x, device), _t(w[:, :, :2], device), groups=2, padding="same")
    assert tuple(same.shape) == (2, 6, 11)


@pytest.mark.parametrize("k,d,p,s", [((2, 2), (1, 1), (0, 0), (1, 1)),
                                     ((3, 2), (2, 1), (1, 2), (2, 3)),
                                     ((1, 1), (1, 1), (0, 0), (2, 2))])
def test_unfold_fold_match_numpy(device, k, d, p, s):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 8))
    cols = F.unfold(_t(x, device), k, d, p, s)
    ref = ref_unfold(x, k, d, p, s)
    assert_close(cols, ref, "float64")
    g = rng.standard_normal(ref.shape)
    back = F.fold(_t(g, device), (7, 8), k, d, p, s)
    assert_close(back, ref_fold(g, (7, 8), k, d, p, s), "float64")
    # adjoint: <unfold(x), g> = <x, fold(g)>
    assert math.isclose(float((ref * g).sum()), float((x * back.cpu().numpy()).sum()),
                        rel_tol=1e-12)
    # unbatched forms
    assert_close(F.unfold(_t(x[0], device), k, d, p, s), ref[0], "float64")
    assert_close(F.fold(_t(g[0], device), (7, 8), k, d, p, s), ref_fold(g, (7, 8), k, d, p, s)[0],
                 "float64")
    assert_close(nn.Unfold(k, d, p, s)(_t(x, device)), ref, "float64")
    assert_close(nn.Fold((7, 8), k, d, p, s)(_t(g, device)), ref_fold(g, (7, 8), k, d, p, s),
                 "float64")


def test_im2col_pad_value_and_col2im_float32(device):
    x = pdt.ones(1, 1, 2, 2, device=device)
    cols = im2col(x, (2, 2), (1, 1), (1, 1), (1, 1), -math.inf)
    assert tuple(cols.shape) == (1, 4, 9)
    assert cols[0, 0, 0].item() == -math.inf and cols[0, 3, 0].item() == 1.0
    back = col2im(pdt.ones(1, 4, 9, device=device), (2, 2), (2, 2), (1, 1), (1, 1), (1, 1))
    assert back.tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]


@pytest.mark.parametrize("case", [0, 1, 2, 4])
def test_conv2d_gradcheck(device, case):
    xs, ws, s, p, d, g = CONV_CASES[case]
    xs = (1,) + xs[1:]
    rng = np.random.default_rng(10 + case)
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])]
    gradcheck(lambda x, w, b: F.conv2d(x, w, b, s, p, d, g), arrays, device)


def test_unfold_fold_gradcheck(device):
    rng = np.random.default_rng(4)
    gradcheck(lambda x: F.unfold(x, (2, 3), (1, 2), 1, (2, 1)),
              [rng.standard_normal((1, 2, 5, 6))], device)
    cols = ref_unfold(np.zeros((1, 2, 5, 6)), (2, 3), (1, 2), (1, 1), (2, 1))
    gradcheck(lambda c: F.fold(c, (5, 6), (2, 3), (1, 2), 1, (2, 1)),
              [rng.standard_normal(cols.shape)], device)


def test_conv2d_same_and_conv1d_gradcheck(device):
    rng = np.random.default_rng(5)
    gradcheck(lambda x, w: F.conv2d(x, w, padding="same"),
              [rng.standard_normal((1, 2, 4, 5)), rng.standard_normal((3, 2, 2, 3))], device)
    gradcheck(lambda x, w: F.conv1d(x, w, stride=2, padding=1),
              [rng.standard_normal((2, 2, 7)), rng.standard_normal((3, 2, 3))], device)


def test_conv2d_matches_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(6)
    for xs, ws, s, p, d, g in CONV_CASES:
        x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
        tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
        px, pw, pb = (_t(a, device).requires_grad_() for a in (x, w, b))
        tout = torch.nn.functional.conv2d(tx, tw, tb, s, p, d, g)
        pout = F.conv2d(px, pw, pb, s, p, d, g)
        r = rng.standard_normal(tuple(tout.shape))
        (tout * torch.tensor(r)).sum().backward()
        (pout * _t(r, device)).sum().backward()
        assert_close(pout, tout.detach().numpy(), "float64")
        for mine, theirs in ((px, tx), (pw, tw), (pb, tb)):
            assert_close(mine.grad, theirs.grad.numpy(), "float64")
    x = rng.standard_normal((2, 3, 6, 7))
    for args in (((2, 3), 1, 1, (1, 2)), (3, (2, 1), 0, 1)):
        assert_close(F.unfold(_t(x, device), *args),
                     torch.nn.functional.unfold(torch.tensor(x), *args).numpy(), "float64")


def test_conv2d_bad_input(device):
    x = pdt.zeros(2, 3, 8, 8, device=device)
    w = pdt.zeros(4, 3, 3, 3, device=device)
    cases = [
        (lambda: F.conv2d(x, pdt.zeros(4, 2, 3, 3, device=device)), ValueError,
         r"expected input of shape \(2, 3, 8, 8\) to have 2 channels, but got 3 .*on " +
         str(device)),
        (lambda: F.conv2d(x, pdt.zeros(4, 3, 3, device=device)), RuntimeError,
         r"weight must be 4-d .*got shape \(4, 3, 3\) \(on " + str(device)),
        (lambda: F.conv2d(x, pdt.zeros(4, 3, 9, 9, device=device)), RuntimeError,
         r"kernel does not fit: padded input size per channel \(8, 8\) against a kernel "
         r"spanning \(9, 9\).*on " + str(device)),
        (lambda: F.conv2d(x, w, stride=0), ValueError, r"stride must be positive, got stride=\(0, 0\)"),
        (lambda: F.conv2d(x, w, padding=-1), ValueError, r"padding must be non-negative"),
        (lambda: F.conv2d(x, w, dilation=(1, 0)), ValueError, r"dilation must be positive"),
        (lambda: F.conv2d(x, w, stride=(1, 1, 1)), RuntimeError,
         r"expected stride to be a single integer value or a list of 2 values"),
        (lambda: F.conv2d(x, w, stride=1.5), TypeError, r"stride must be an int or a tuple"),
        (lambda: F.conv2d(x, pdt.zeros(4, 1, 3, 3, device=device), groups=2), ValueError,
         r"given groups=2, weight of shape \(4, 1, 3, 3\), expected input .* to have 2 channels"),
        (lambda: F.conv2d(pdt.zeros(1, 4, 5, 5, device=device), pdt.zeros(3, 2, 3, 3,
                                                                       device=device), groups=2),
         ValueError, r"given groups=2, expected weight to be divisible by 2 at dimension 0, "
         r"but got weight of shape \(3, 2, 3, 3\)"),
        (lambda: F.conv2d(x, w, groups=0), RuntimeError, r"non-positive groups"),
        (lambda: F.conv2d(x, w, pdt.zeros(3, device=device)), ValueError,
         r"expected bias to be 1-d with 4 elements, but got bias of shape \(3,\)"),
        (lambda: F.conv2d(pdt.zeros(8, 8, device=device), w), RuntimeError,
         r"expected a 3-d \(unbatched\) or 4-d \(batched\) input, got shape \(8, 8\) \(on "),
        # torch's functional raises RuntimeError for these two, its module ValueError:
        # InvalidArgumentError is both
        (lambda: F.conv2d(x, w, padding="full"), pdt.InvalidArgumentError,
         r"invalid padding string 'full'"),
        (lambda: F.conv2d(x, w, stride=2, padding="same"), pdt.InvalidArgumentError,
         r"padding='same' is not supported for strided convolutions"),
        (lambda: F.conv2d(x, w.double()), RuntimeError, r"same dtype"),  # as torch's
        (lambda: F.conv2d(x.long(), w.long()), TypeError, r"floating point input, got "),
        (lambda: F.conv2d(x.numpy() if device.type == "cpu" else None, w), TypeError,
         r"input must be a Tensor"),
        (lambda: F.unfold(pdt.zeros(3, 3, device=device), 2), RuntimeError,
         r"unfold\(\): expected a 3-d .*got shape \(3, 3\)"),
        (lambda: F.unfold(x, 0), ValueError, r"kernel_size must be positive"),
        (lambda: F.fold(pdt.zeros(1, 5, 4, device=device), (3, 3), 2), ValueError,
         r"divisible by the product of kernel_size \(2, 2\), 4, but got 5"),
        (lambda: F.fold(pdt.zeros(1, 4, 5, device=device), (3, 3), 2), ValueError,
         r"calculated number of sliding blocks 2 \* 2 = 4, but got 5"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_conv2d_mixed_devices(device):
    if device.type != "cuda":
        pytest.skip("needs a GPU beside the CPU (the catalogue's conv2d-other-device case "
                    "covers two logical CPU devices)")
    x = pdt.zeros(1, 1, 4, 4, device=device)
    with pytest.raises(pdt.DeviceError, match=f"input is on {device} and weight on cpu"):
        F.conv2d(x, pdt.zeros(1, 1, 2, 2))
    with pytest.raises(pdt.DeviceError, match=f"input is on {device} and bias on cpu"):
        F.conv2d(x, pdt.zeros(1, 1, 2, 2, device=device), pdt.zeros(1))


def test_conv2d_layer(device):
    pdt.manual_seed(0)
    conv = nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2, device=device,
                     dtype=pdt.float64)
    assert repr(conv) == "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), groups=2)"
    assert tuple(conv.weight.shape) == (6, 2, 3, 2) and conv.weight.device == device
    bound = 1 / math.sqrt(2 * 3 * 2)  # kaiming_uniform_(a=sqrt(5)) and the bias: 1/sqrt(fan_in)
    for p in (conv.weight, conv.bias):
        assert float(p.abs().max()) <= bound
    big = nn.Conv2d(64, 64, 3)
    w = big.weight.detach().numpy()
    bound = 1 / math.sqrt(64 * 9)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound  # uniform's std: b / sqrt(3)
    x = np.random.default_rng(7).standard_normal((2, 4, 5, 6))
    ref = ref_conv2d(x, conv.weight.detach().cpu().numpy(), conv.bias.detach().cpu().numpy(),
                     (2, 2), (1, 1), (1, 1), 2)
    assert_close(conv(_t(x, device)), ref, "float64")
    assert repr(nn.Conv2d(1, 6, 5, bias=False, padding="same", dilation=2)) == \
        "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=same, dilation=(2, 2), bias=False)"
    assert repr(nn.Conv1d(2, 4, 3)) == "Conv1d(2, 4, kernel_size=(3,), stride=(1,))"


def test_conv2d_layer_bad_arguments():
    with pytest.raises(ValueError, match=r"padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match=r"in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match=r"padding='same' is not supported for strided"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(TypeError, match=r"out_channels must be an int"):
        nn.Conv2d(1, 2.0, 3)
    with pytest.raises(TypeError, match=r"same dtype|the input is pydevtensor.float64"):
        nn.Conv2d(1, 1, 3)(pdt.zeros(1, 1, 4, 4, dtype=pdt.float64))


def test_lazy_conv2d(device):
    pdt.manual_seed(3)
    lazy = nn.LazyConv2d(6, kernel_size=5, padding=2, device=device)
    opt = pdt.optim.SGD(lazy.parameters(), lr=0.1)
    assert repr(lazy.weight) == "<UninitializedParameter>"
    out = lazy(pdt.ones(2, 3, 8, 8, device=device))
    assert type(lazy) is nn.Conv2d and lazy.in_channels == 3
    assert tuple(out.shape) == (2, 6, 8, 8) and tuple(lazy.weight.shape) == (6, 3, 5, 5)
    out.sum().backward()
    opt.step()  # the optimizer made before the first forward holds the same objects
    pdt.manual_seed(3)
    eager = nn.Conv2d(3, 6, 5, padding=2, device=device)
    assert float((eager.weight - lazy.weight).abs().max()) > 0  # the step moved it
    # state_dict into a fresh lazy layer gives its shapes
    fresh = nn.LazyConv2d(6, kernel_size=5, padding=2, device=device)
    fresh.load_state_dict(lazy.state_dict())  # a Conv2d at its first call, as PyTorch's
    assert type(fresh) is nn.LazyConv2d and fresh.weight.tolist() == lazy.weight.tolist()
    with pytest.raises(RuntimeError, match=r"size mismatch for 'weight'.*\(6, in_channels / "
                                           r"groups, 3, 3\)"):
        nn.LazyConv2d(6, 3).load_state_dict(lazy.state_dict())
    with pytest.raises(ValueError, match=r"in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(pdt.ones(1, 3, 5, 5, device=device))
    one = nn.LazyConv1d(4, 3, device=device)
    assert tuple(one(pdt.ones(3, 9, device=device)).shape) == (4, 7)
    assert type(one) is nn.Conv1d and one.in_channels == 3


def _lenet(device):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10)).to(device)


def test_lenet_trains(device):
    """D2L's LeNet (section 7.6) trained on a fixed random batch: the loss falls."""
    pdt.manual_seed(0)
    net = _lenet(device)
    x = pdt.randn(16, 1, 28, 28, device=device)
    y = pdt.randint(0, 10, (16,), device=device)
    opt = pdt.optim.Adam(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # the sigmoid LeNet first learns the labels' frequencies (D2L trains it for epochs)
    assert losses[-1] < losses[0] - 0.2, losses
    assert all(p.grad.device == device for p in net.parameters())


def test_lazy_lenet_shapes(device):
    """D2L's lazy LeNet: the layers take their input sizes from one batch."""
    net = nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(), nn.LazyLinear(120), nn.Sigmoid(), nn.LazyLinear(84), nn.Sigmoid(),
        nn.LazyLinear(10)).to(device)
    shapes = []
    x = pdt.randn(1, 1, 28, 28, device=device)
    for layer in net:
        x = layer(x)
        shapes.append(tuple(x.shape))
    assert shapes == [(1, 6, 28, 28), (1, 6, 28, 28), (1, 6, 14, 14), (1, 16, 10, 10),
                      (1, 16, 10, 10), (1, 16, 5, 5), (1, 400), (1, 120), (1, 120), (1, 84),
                      (1, 84), (1, 10)]


def test_conv_classes_and_error_classes_as_torch():
    """Conv1d and Conv2d are siblings under _ConvNd (a Conv1d is not a Conv2d); a dtype
    mismatch is a RuntimeError (torch's class) and still a TypeError (pydevtensor's);
    the functional's padding='same' with a stride is a RuntimeError, the module's a
    ValueError, as torch's (InvalidArgumentError is both)."""
    from pydevtensor.nn.conv import _ConvNd
    assert not isinstance(nn.Conv1d(1, 1, 3), nn.Conv2d)
    assert not isinstance(nn.Conv2d(1, 1, 3), nn.Conv1d)
    assert isinstance(nn.Conv1d(1, 1, 3), _ConvNd) and isinstance(nn.Conv2d(1, 1, 3), _ConvNd)
    assert isinstance(nn.LazyConv1d(1, 3), nn.Conv1d)
    x, w = pdt.ones(1, 1, 3, 3), pdt.ones(1, 1, 2, 2)
    for err in (RuntimeError, TypeError):
        with pytest.raises(err, match=r"same dtype"):
            F.conv2d(x, w.double())
        with pytest.raises(err, match=r"the input is pydevtensor.float64"):
            nn.Conv2d(1, 1, 2)(x.double())
    with pytest.raises(RuntimeError, match=r"padding='same' is not supported"):
        F.conv2d(x, w, stride=2, padding="same")
    with pytest.raises(ValueError, match=r"padding='same' is not supported"):
        nn.Conv2d(1, 1, 2, stride=2, padding="same")


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_same_padding_with_an_odd_total_warns_at_forward(device, nd):
    """padding='same' with an even kernel length and an odd dilation pads one more at
    the end: PyTorch's forward warns of the copy (once a process, TORCH_WARN_ONCE; ours
    once under Python's default filter), its constructor does not."""
    conv = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    x = pdt.ones((1, 1) + (5,) * nd, device=device)
    cases = [((2,) * nd, 1, True), ((3,) * nd, 1, False), ((2,) * nd, 2, False),
             ((3,) * (nd - 1) + (4,), 3, True)]
    for kernel, dilation, warns in cases:
        w = pdt.ones((1, 1) + kernel, device=device)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            module = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[nd - 1](
                1, 1, kernel, padding="same", dilation=dilation).to(device)
            assert not got  # not at construction
            assert tuple(conv(x, w, padding="same", dilation=dilation).shape) == x.shape
            module(x)
        assert [str(g.message) for g in got] == [
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created"] * (2 * warns)
        assert all(g.category is UserWarning for g in got)
    with warnings.catch_warnings(record=True) as got:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for _ in range(3):
            conv(x, pdt.ones((1, 1) + (2,) * nd, device=device), padding="same")
    assert len(got) == 1


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv2d_in_half_types_matches_torch(device, dtype):
    """float16 and bfloat16 conv2d, forward and weight gradient, within torch's own
    error of the float64 answer (times 1.5): the weight's gradient is summed over the
    batch in the GEMM's float32 accumulator (found by a reviewer: 3x torch's error in
    bfloat16, each sample's part rounded before the sum)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 4, 9, 9)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    tdt, pdt_dt = getattr(torch, dtype), getattr(pdt, dtype)
    tx = torch.from_numpy(x).to(tdt).requires_grad_()
    tw = torch.from_numpy(w).to(tdt).requires_grad_()
    ty = torch.nn.functional.conv2d(tx, tw, groups=2, padding=1)
    ty.float().sum().backward()
    rx = torch.from_numpy(x).to(tdt).double().requires_grad_()
    rw = torch.from_numpy(w).to(tdt).double().requires_grad_()
    ry = torch.nn.functional.conv2d(rx, rw, groups=2, padding=1)
    ry.sum().backward()
    px = pdt.from_numpy(x).to(device=device, dtype=pdt_dt).requires_grad_()
    pw = pdt.from_numpy(w).to(device=device, dtype=pdt_dt).requires_grad_()
    py = F.conv2d(px, pw, groups=2, padding=1)
    assert py.dtype == pdt_dt
    py.to(pdt.float32).sum().backward()
    for got, ours, ref in ((py, ty, ry), (pw.grad, tw.grad, rw.grad)):
        err = np.abs(got.detach().to(pdt.float64).cpu().numpy() - ref.detach().numpy()).max()
        theirs = (ours.double() - ref).abs().max().item()
        assert err <= 1.5 * theirs + 1e-3, (err, theirs)


@pytest.mark.parametrize("dtype, big", [("bfloat16", 256.0), ("float16", 2048.0)])
@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("groups", [1, 2])
def test_half_conv_rounds_the_bias_sum_once(device, dtype, big, batch, groups):
    """The output is rounded once, as PyTorch's: big + 1 + 0.75 is exact in float32 and
    rounds to big + 2 in the half type.  Rounded twice (the product to the half type
    first, big + 1 -> big by ties to even, then big + 0.75 -> big), it was big; conv1d
    and the batched product alike.  groups=1 folds the bias into the product (addmm);
    a grouped convolution is computed in float32 (Note [convolutions in half types])."""
    dt = getattr(pdt, dtype)
    x = pdt.tensor([[[[big]], [[1.0]]] * groups] * batch, dtype=dt, device=device)
    w = pdt.ones((groups, 2, 1, 1), dtype=dt, device=device)  # x: (N, 2 * groups, 1, 1)
    b = pdt.tensor([0.75] * groups, dtype=dt, device=device)
    for got in (F.conv2d(x, w, b, groups=groups),
                F.conv1d(x[..., 0], w[..., 0], b, groups=groups)):
        assert got.dtype == dt
        assert got.to(pdt.float64).cpu().numpy().ravel().tolist() == [big + 2.0] * (
            batch * groups)
    xg = x.to(pdt.float64).requires_grad_()  # the bias keeps its gradient
    bg = b.to(pdt.float64).requires_grad_()
    F.conv2d(xg.to(dt), w, bg.to(dt), groups=groups).to(pdt.float32).sum().backward()
    assert bg.grad.cpu().numpy().tolist() == [float(batch)] * groups
    assert xg.grad.cpu().numpy().ravel().tolist() == [1.0] * (2 * batch * groups)


def _half_ulp(ref, dtype):
    """Half an ulp of the half type at each value of ref (float64): p = 8 significant bits
    in bfloat16, 11 in float16 (whose subnormals have the spacing 2^-24)."""
    _, exp = np.frexp(np.abs(ref))
    bits = 8 if dtype == "bfloat16" else 11
    low = 0.0 if dtype == "bfloat16" else 2.0 ** -25
    return np.maximum(np.ldexp(0.5, exp - bits), low)


# (function, input shape, weight shape, keywords): the convolutions whose output is more
# than one product (Note [convolutions in half types])
HALF_ONCE = [
    ("conv2d", (3, 4, 6, 6), (6, 2, 3, 3), dict(groups=2, padding=1)),
    ("conv1d", (2, 6, 9), (6, 1, 3), dict(groups=6)),
    ("conv3d", (2, 3, 5, 4, 4), (4, 3, 3, 2, 2), dict(padding=1)),
    ("conv3d", (1, 4, 4, 4, 4), (4, 2, 2, 3, 3), dict(groups=2)),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3), dict(stride=2)),
    ("conv_transpose2d", (2, 6, 4, 4), (6, 2, 3, 3), dict(groups=2)),
    ("conv_transpose3d", (1, 4, 3, 3, 3), (4, 3, 3, 2, 2), dict(stride=(1, 2, 1))),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(HALF_ONCE)))
def test_half_convolutions_round_once(device, dtype, case):
    """Grouped conv1d/conv2d with a bias, conv3d and the transposed convolutions in
    float16 and bfloat16: every output within half an ulp of the float64 answer of the
    same (half-valued) inputs, as PyTorch's CPU kernels, which sum in float32 and round
    once.  Each step rounded (the product, the depth taps' sum, col2im's overlaps, the
    bias), a fifth to a third of the elements were off (bfloat16 conv_transpose3d: 3x
    PyTorch's error).  The gradients flow, in the half type."""
    name, xs, ws, kw = HALF_ONCE[case]
    conv, dt = getattr(F, name), getattr(pdt, dtype)
    rng = np.random.default_rng(case)
    out_c = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = 20.0 * rng.standard_normal(out_c)  # a large bias: a rounding before it shows
    px, pw, pb = (_t(a, device, dt).requires_grad_() for a in (x, w, b))
    ref = conv(*(t.detach().to(pdt.float64) for t in (px, pw, pb)), **kw)
    got = conv(px, pw, pb, **kw)
    assert got.dtype == dt
    ref = ref.cpu().numpy()
    err = np.abs(got.detach().to(pdt.float64).cpu().numpy() - ref)
    bound = _half_ulp(ref, dtype)
    assert (err <= bound).all(), (err.max(), (err > bound).mean())
    got.to(pdt.float32).sum().backward()
    for t in (px, pw, pb):
        assert t.grad.dtype == dt and t.grad.shape == t.shape
    assert pb.grad.to(pdt.float64).cpu().numpy().tolist() == [float(got[:, 0].numel())] * out_c


class _StdConv2d(nn.Conv2d):
    """Weight standardization as user code writes it over PyTorch's private
    Conv2d._conv_forward (BiT, ResNetV2 ports)."""

    def forward(self, x):
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        var = w.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
        return self._conv_forward(x, (w - mean) / (var + 1e-5).sqrt(), self.bias)


@pytest.mark.parametrize("mode", ["zeros", "reflect"])
def test_conv_forward_with_another_weight_and_reversed_padding(device, mode):
    """_conv_forward(input, weight, bias) and _reversed_padding_repeated_twice, as
    PyTorch's Conv1d/2d/3d have them (both were missing: AttributeError)."""
    conv = _StdConv2d(2, 3, (3, 2), padding=(1, 2), padding_mode=mode).to(device,
                                                                           pdt.float64)
    assert conv._reversed_padding_repeated_twice == (2, 2, 1, 1)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 5, 4))
    w = conv.weight.detach().cpu().numpy()
    w = (w - w.mean((1, 2, 3), keepdims=True)) / np.sqrt(w.var((1, 2, 3), keepdims=True)
                                                         + 1e-5)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)),
                mode="reflect" if mode == "reflect" else "constant")
    cols = ref_unfold(xp, (3, 2), (1, 1), (0, 0), (1, 1))  # (N, 2 * 6, L)
    want = np.einsum("ok,nkl->nol", w.reshape(3, -1), cols).reshape(2, 3, 5, 7)
    want += conv.bias.detach().cpu().numpy().reshape(1, 3, 1, 1)
    assert_close(conv(pdt.tensor(x, device=device)), want, "float64")
    assert nn.Conv2d(1, 1, (4, 3), padding="same", dilation=(1, 2),
                     padding_mode="circular")._reversed_padding_repeated_twice == [2, 2, 1, 2]
    assert nn.Conv1d(1, 1, 3, padding="valid")._reversed_padding_repeated_twice == [0, 0]
    assert nn.Conv3d(1, 1, 3, padding=(1, 0, 2))._reversed_padding_repeated_twice == \
        (2, 2, 0, 0, 1, 1)
