"""Transposed convolutions (D2L chapter 14): F.conv_transpose1d, F.conv_transpose2d,
nn.ConvTranspose1d, nn.ConvTranspose2d and their lazy forms.

Forward results are compared with a NumPy float64 reference written here as the
scatter that defines the operation (each input pixel adds input * kernel onto the
output), with loops (tolerance 1e-12 relative in float64, 1e-5 in float32);
gradients with central differences (tests/test_gradcheck.py's gradcheck, float64),
and the adjoint identity <conv2d(y, W), x> = <y, conv_transpose2d(x, W)>;
everything once more against torch when it imports, the layers with the same weights
copied in.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_conv import _t  # a float64 NumPy array as a tensor on device
from test_gradcheck import gradcheck

F32 = dict(atol=1e-5, rtol=1e-5)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def ref_conv_transpose2d(x, w, b, s, p, op, g, d):
    """The scatter: full[n, o, y*sh + i*dh, x*sw + j*dw] += x[n, c, y, x] * w[c, o', i, j]
    over each group's channels, then the padding cut from each side (and output_padding
    more zeros, or entries, at the end)."""
    s, p, op, d = _pair(s), _pair(p), _pair(op), _pair(d)
    n, cin, h, wd = x.shape
    _, og, kh, kw = w.shape
    cout, cg = og * g, cin // g
    fh, fw = (h - 1) * s[0] + d[0] * (kh - 1) + 1, (wd - 1) * s[1] + d[1] * (kw - 1) + 1
    full = np.zeros((n, cout, fh + op[0], fw + op[1]))
    for c in range(cin):
        group = c // cg
        for o in range(og):
            for y in range(h):
                for x_ in range(wd):
                    for i in range(kh):
                        for j in range(kw):
                            full[:, group * og + o, y * s[0] + i * d[0],
                                 x_ * s[1] + j * d[1]] += x[:, c, y, x_] * w[c, o, i, j]
    hout = (h - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1
    wout = (wd - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1
    out = full[:, :, p[0]:p[0] + hout, p[1]:p[1] + wout]
    if b is not None:
        out = out + b.reshape(1, cout, 1, 1)
    return out


# (input shape, weight shape, stride, padding, output_padding, groups, dilation)
CASES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), 1, 0, 0, 1, 1),
    ((2, 4, 5, 4), (4, 3, 3, 2), 2, 1, 1, 1, 1),             # the strided upsampling
    ((1, 4, 3, 4), (4, 2, 2, 3), (3, 2), (1, 0), (2, 1), 4, (1, 2)),   # depthwise
    ((2, 4, 3, 3), (4, 3, 3, 3), (2, 1), 1, (1, 0), 2, 1),   # groups
    ((2, 2, 3, 3), (2, 3, 3, 3), 2, 2, 2, 1, 3),             # output_padding >= stride
    ((1, 2, 1, 1), (2, 3, 1, 1), 3, 1, 2, 1, 1),             # padding past the plane
    ((3, 3, 4, 4), (3, 1, 4, 4), 2, 1, 0, 1, 1),             # D2L's 2x upsampling
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_transpose2d_matches_numpy(device, case, with_bias):
    xs, ws, s, p, op, g, d = CASES[case]
    rng = np.random.default_rng(case)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = rng.standard_normal(ws[1] * g) if with_bias else None
    ref = ref_conv_transpose2d(x, w, b, s, p, op, g, d)
    for dtype in (pdt.float64, pdt.float32):
        got = F.conv_transpose2d(_t(x, device, dtype), _t(w, device, dtype),
                                 None if b is None else _t(b, device, dtype), s, p, op, g, d)
        assert got.device == device and got.dtype == dtype
        if dtype == pdt.float64:
            assert_close(got, ref, "float64")
        else:
            np.testing.assert_allclose(got.cpu().numpy(), ref, **F32)
    got = F.conv_transpose2d(_t(x[0], device), _t(w, device), None if b is None else
                             _t(b, device), s, p, op, g, d)  # unbatched
    assert_close(got, ref[0], "float64")


def test_conv_transpose2d_is_conv2d_adjoint(device):
    """<conv2d(y, W), x> = <y, conv_transpose2d(x, W)> for y of conv_transpose2d's
    output size: the same weight, stride, padding, dilation and groups."""
    rng = np.random.default_rng(11)
    for s, p, d, g, op in [(1, 0, 1, 1, 0), (2, 1, 1, 2, 1), ((3, 2), (2, 1), (1, 2), 1, (2, 1))]:
        x = _t(rng.standard_normal((2, 4, 3, 4)), device)
        w = _t(rng.standard_normal((4, 3, 3, 3)), device)
        up = F.conv_transpose2d(x, w, None, s, p, op, g, d)
        y = _t(rng.standard_normal(tuple(up.shape)), device)
        down = F.conv2d(y, w, None, s, p, d, g)
        assert tuple(down.shape) == tuple(x.shape)
        lhs, rhs = float((down * x).sum()), float((y * up).sum())
        assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_transpose2d_gradcheck(device, case):
    xs, ws, s, p, op, g, d = CASES[case]
    rng = np.random.default_rng(case + 20)
    small = (min(xs[0], 2),) + xs[1:]
    arrays = [rng.standard_normal(small), rng.standard_normal(ws),
              rng.standard_normal(ws[1] * g)]
    gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, s, p, op, g, d), arrays, device)


def test_conv_transpose1d(device):
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((2, 4, 7)), rng.standard_normal((4, 3, 3)), \
        rng.standard_normal(6)
    ref = ref_conv_transpose2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1), (0, 1), 2,
                               (1, 2))[:, :, 0]
    got = F.conv_transpose1d(_t(x, device), _t(w, device), _t(b, device), 2, 1, 1, 2, 2)
    assert_close(got, ref, "float64")
    assert_close(F.conv_transpose1d(_t(x[1], device), _t(w, device), _t(b, device), 2, 1, 1,
                                    2, 2), ref[1], "float64")
    gradcheck(lambda x_, w_: F.conv_transpose1d(x_, w_, stride=3, padding=2, output_padding=1),
              [x[:1], w], device)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_transpose2d_matches_torch(device, case):
    torch = torch_or_skip()
    xs, ws, s, p, op, g, d = CASES[case]
    rng = np.random.default_rng(case + 40)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * g)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    want = torch.nn.functional.conv_transpose2d(tx, tw, tb, s, p, op, g, d)
    r = rng.standard_normal(tuple(want.shape))
    (want * torch.tensor(r)).sum().backward()
    px, pw, pb = (_t(a, device).requires_grad_() for a in (x, w, b))
    got = F.conv_transpose2d(px, pw, pb, s, p, op, g, d)
    (got * _t(r, device)).sum().backward()
    assert_close(got, want.detach().numpy(), "float64")
    for ours, theirs in ((px, tx), (pw, tw), (pb, tb)):
        assert_close(ours.grad, theirs.grad.numpy(), "float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv_transpose2d_in_half_types_matches_torch(device, dtype):
    """float16 and bfloat16, forward and weight gradient, within 1.5 times torch's own
    error of the float64 answer."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 4, 4)).astype(np.float32)
    tdt, pdt_dt = getattr(torch, dtype), getattr(pdt, dtype)
    tx = torch.from_numpy(x).to(tdt).requires_grad_()
    tw = torch.from_numpy(w).to(tdt).requires_grad_()
    ty = torch.nn.functional.conv_transpose2d(tx, tw, groups=2, stride=2, padding=1)
    ty.float().sum().backward()
    rx = torch.from_numpy(x).to(tdt).double().requires_grad_()
    rw = torch.from_numpy(w).to(tdt).double().requires_grad_()
    ry = torch.nn.functional.conv_transpose2d(rx, rw, groups=2, stride=2, padding=1)
    ry.sum().backward()
    px = pdt.from_numpy(x).to(device=device, dtype=pdt_dt).requires_grad_()
    pw = pdt.from_numpy(w).to(device=device, dtype=pdt_dt).requires_grad_()
    py = F.conv_transpose2d(px, pw, groups=2, stride=2, padding=1)
    assert py.dtype == pdt_dt
    py.to(pdt.float32).sum().backward()
    for got, ours, ref in ((py, ty, ry), (pw.grad, tw.grad, rw.grad), (px.grad, tx.grad, rx.grad)):
        err = np.abs(got.detach().to(pdt.float64).cpu().numpy() - ref.detach().numpy()).max()
        theirs = (ours.double() - ref).abs().max().item()
        assert err <= 1.5 * theirs + 1e-3, (err, theirs)


def test_conv_transpose2d_layer(device):
    pdt.manual_seed(0)
    up = nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1, output_padding=(1, 0), groups=2,
                            device=device, dtype=pdt.float64)
    assert repr(up) == ("ConvTranspose2d(4, 6, kernel_size=(3, 2), stride=(2, 2), "
                        "padding=(1, 1), output_padding=(1, 0), groups=2)")
    assert tuple(up.weight.shape) == (4, 3, 3, 2) and up.weight.device == device
    assert up.transposed and up.output_padding == (1, 0)
    bound = 1 / math.sqrt(3 * 3 * 2)  # fan_in from the weight's layout: out/groups * kh * kw
    for p in (up.weight, up.bias):
        assert float(p.abs().max()) <= bound
    big = nn.ConvTranspose2d(16, 64, 3).weight.detach().numpy()
    bound = 1 / math.sqrt(64 * 9)
    assert abs(big.std() - bound / math.sqrt(3)) < 0.02 * bound  # uniform's std: b / sqrt(3)
    x = np.random.default_rng(7).standard_normal((2, 4, 5, 6))
    ref = ref_conv_transpose2d(x, up.weight.detach().cpu().numpy(),
                               up.bias.detach().cpu().numpy(), 2, 1, (1, 0), 2, 1)
    assert_close(up(_t(x, device)), ref, "float64")
    # output_size picks the output_padding; the batch and channel sizes may come with it
    assert tuple(up(_t(x, device), output_size=(9, 10)).shape) == (2, 6, 9, 10)
    assert tuple(up(_t(x, device), output_size=[2, 6, 10, 11]).shape) == (2, 6, 10, 11)
    assert tuple(up(_t(x[0], device), output_size=(3, 10, 11)[1:]).shape) == (6, 10, 11)
    assert up.output_padding == (1, 0)  # the layer's own is unchanged
    one = nn.ConvTranspose1d(2, 3, 3, stride=2, bias=False, device=device)
    assert repr(one) == "ConvTranspose1d(2, 3, kernel_size=(3,), stride=(2,), bias=False)"
    assert tuple(one(pdt.zeros(5, 2, 4, device=device)).shape) == (5, 3, 9)
    assert tuple(one(pdt.zeros(2, 4, device=device), output_size=[10]).shape) == (3, 10)


def test_conv_transpose_layers_match_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(12)
    for nd, args, kwargs, size in [
            (2, (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), None),
            (2, (3, 2, (4, 3)), dict(stride=(2, 3), dilation=(1, 2), bias=False), (13, 18)),
            (1, (4, 2, 3), dict(stride=3, padding=2), [13])]:
        name = f"ConvTranspose{nd}d"
        ours = getattr(nn, name)(*args, **kwargs, dtype=pdt.float64)
        theirs = getattr(torch.nn, name)(*args, **kwargs, dtype=torch.float64)
        assert repr(ours) == repr(theirs)
        assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
        theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
        ours = ours.to(device)
        x = rng.standard_normal((2, args[0]) + (5,) * nd)
        px, tx = _t(x, device).requires_grad_(), torch.tensor(x, requires_grad=True)
        got, want = ours(px, output_size=size), theirs(tx, output_size=size)
        assert_close(got, want.detach().numpy(), "float64")
        got.sum().backward()
        want.sum().backward()
        assert_close(px.grad, tx.grad.numpy(), "float64")
        assert_close(ours.weight.grad, theirs.weight.grad.numpy(), "float64")


def test_lazy_conv_transpose(device):
    up = nn.LazyConvTranspose2d(3, 4, stride=2, padding=1, device=device)
    assert repr(up) == "LazyConvTranspose2d(0, 3, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))"
    assert isinstance(up.weight, nn.UninitializedParameter)
    y = up(pdt.ones(2, 5, 8, 8, device=device), output_size=(17, 16))
    assert tuple(y.shape) == (2, 3, 17, 16) and type(up) is nn.ConvTranspose2d
    assert tuple(up.weight.shape) == (5, 3, 4, 4) and up.weight.device == device
    assert float(up.weight.abs().max()) <= 1 / math.sqrt(3 * 16)
    # a state_dict gives the lazy layer its in_channels (the weight's dimension 0)
    lazy = nn.LazyConvTranspose1d(4, 3, groups=2)
    lazy.load_state_dict(nn.ConvTranspose1d(6, 4, 3, groups=2).state_dict())
    assert type(lazy) is nn.LazyConvTranspose1d and lazy.in_channels == 6
    assert tuple(lazy.weight.shape) == (6, 2, 3)
    lazy(pdt.ones(1, 6, 5))  # the first call makes it its layer, as PyTorch's
    assert type(lazy) is nn.ConvTranspose1d and tuple(lazy.weight.shape) == (6, 2, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for 'weight': copying a tensor of "
                                           r"shape \(6, 2, 3, 3\), the lazy parameter has shape "
                                           r"\(in_channels, 3, 3, 3\)"):
        nn.LazyConvTranspose2d(3, 3).load_state_dict(nn.ConvTranspose2d(6, 2, 3).state_dict())


def test_conv_transpose_bad_inputs(device):
    x = pdt.zeros(1, 2, 4, 4, device=device)
    w = pdt.zeros(2, 3, 3, 3, device=device)
    err = pdt.InvalidArgumentError
    cases = [
        (lambda: F.conv_transpose2d(x, w, output_padding=1), err,
         r"conv_transpose2d\(\): output padding must be smaller than either stride or "
         r"dilation, but got output_padding=\(1, 1\), stride=\(1, 1\), dilation=\(1, 1\) "
         r"\(input of shape \(1, 2, 4, 4\) on " + str(device)),
        (lambda: F.conv_transpose2d(pdt.zeros(1, 3, 4, 4, device=device), w), err,
         r"given groups=1, weight of shape \(2, 3, 3, 3\), expected input of shape "
         r"\(1, 3, 4, 4\) to have 2 channels, but got 3 channels instead"),
        (lambda: F.conv_transpose2d(x, w, bias=pdt.zeros(2, device=device)), err,
         r"expected bias to be 1-d with 3 elements, but got bias of shape \(2,\)"),
        (lambda: F.conv_transpose2d(pdt.zeros(1, 4, 4, 4, device=device),
                                    pdt.zeros(4, 3, 3, 3, device=device), groups=3), err,
         r"given groups=3, expected weight to be divisible by 3 at dimension 0"),
        (lambda: F.conv_transpose2d(pdt.zeros(1, 2, 1, 1, device=device),
                                    pdt.zeros(2, 3, 1, 1, device=device), padding=1), err,
         r"Given input size per channel: \(1, 1\)\. Calculated output size per channel: "
         r"\(-1, -1\)\. Output size is too small"),
        (lambda: F.conv_transpose2d(x, w, padding="same"), TypeError,
         r"padding must be an int or a tuple of 2 ints, got str"),
        (lambda: F.conv_transpose2d(x, w, padding=-1), ValueError,
         r"padding must be non-negative, got padding=\(-1, -1\)"),
        (lambda: F.conv_transpose2d(x, w, output_padding=-1), ValueError,
         r"output_padding must be non-negative"),
        (lambda: F.conv_transpose2d(x, w, stride=0), ValueError, r"stride must be positive"),
        (lambda: F.conv_transpose2d(pdt.zeros(4, 4, device=device), w), err,
         r"expected a 3-d \(unbatched\) or 4-d \(batched\) input, got shape \(4, 4\)"),
        (lambda: F.conv_transpose2d(x, pdt.zeros(2, 3, 3, device=device)), err,
         r"weight must be 4-d \(in_channels, out_channels / groups, kH, kW\), got shape "
         r"\(2, 3, 3\)"),
        (lambda: F.conv_transpose2d(x, w.double()), RuntimeError, r"same dtype"),
        (lambda: F.conv_transpose1d(pdt.zeros(1, 2, 4, device=device),
                                    pdt.zeros(2, 3, 3, device=device), stride=(1, 1)), err,
         r"stride to be a single integer value or a list of 1 values"),
        (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, device=device)(x, output_size=(11, 10)),
         ValueError, r"ConvTranspose2d: requested an output size of \(11, 10\), but valid "
         r"sizes range from \[9, 9\] to \[10, 10\] \(for an input of \(4, 4\), on "),
        (lambda: nn.ConvTranspose2d(2, 3, 3, device=device)(x, output_size=(10,)), ValueError,
         r"for 4D input, output_size must have 2 or 4 elements \(got 1\)"),
        (lambda: nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"), ValueError,
         r'Only "zeros" padding mode is supported for ConvTranspose2d'),
        (lambda: nn.ConvTranspose2d(2, 3, 3, padding="same"), TypeError,
         r"ConvTranspose2d: padding must be an int or a tuple of 2 ints, got 'same'"),
        (lambda: nn.ConvTranspose2d(3, 4, 3, groups=2), ValueError,
         r"in_channels must be divisible by groups"),
        (lambda: nn.ConvTranspose2d(4, 3, 3, groups=2), ValueError,
         r"out_channels must be divisible by groups"),
        (lambda: nn.ConvTranspose2d(4, 3, 3, output_padding=-1), ValueError,
         r"output_padding must be non-negative"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_fcn_upsampling_with_a_bilinear_kernel(device):
    """D2L 14.11: a ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2) whose weight
    is the bilinear kernel doubles an image's size; a constant image stays constant
    away from the border, and a ramp stays a ramp."""
    def bilinear_kernel(in_channels, out_channels, kernel_size):
        factor = (kernel_size + 1) // 2
        center = factor - 1 if kernel_size % 2 == 1 else factor - 0.5
        og = (np.arange(kernel_size).reshape(-1, 1), np.arange(kernel_size).reshape(1, -1))
        filt = (1 - np.abs(og[0] - center) / factor) * (1 - np.abs(og[1] - center) / factor)
        weight = np.zeros((in_channels, out_channels, kernel_size, kernel_size))
        weight[range(in_channels), range(out_channels), :, :] = filt
        return weight

    up = nn.ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2, bias=False).to(device)
    up.weight.data.copy_(pdt.tensor(bilinear_kernel(3, 3, 4), dtype=pdt.float32).to(device))
    with pdt.no_grad():
        y = up(pdt.ones(1, 3, 6, 8, device=device) * 2.0)
    assert tuple(y.shape) == (1, 3, 12, 16)
    np.testing.assert_allclose(y[:, :, 1:-1, 1:-1].cpu().numpy(), 2.0, rtol=1e-6)
    ramp = pdt.arange(8, dtype=pdt.float32).reshape(1, 1, 1, 8).expand(1, 3, 6, 8).to(device)
    row = up(ramp)[0, 0, 3, 1:-1].detach().cpu().numpy()
    np.testing.assert_allclose(np.diff(row), 0.5, rtol=1e-5)


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_conv_transpose2d_copies_nothing(device):
    x = pdt.randn(2, 4, 5, 5, device=device).requires_grad_()
    w = pdt.randn(4, 3, 3, 3, device=device).requires_grad_()
    for args in ((2, 1, 1, 2, 1), (2, 2, 2, 1, 3)):  # the col2im path and the cut one
        for _ in range(2):
            pdt.reset_transfer_stats()
            with pdt.transfer_guard("disallow"):
                y = F.conv_transpose2d(x, w, None, *args)
                y.backward(pdt.ones_like(y))
            stats = pdt.transfer_stats()
        assert stats["device_to_host"]["count"] == 0, args
        assert stats["host_to_device"]["count"] == 0, args


def test_conv_transpose_with_an_empty_output_dimension(device):
    """An output size of 0 along a dimension ((L - 1) * stride - 2 * padding + ... = 0)
    gives an empty output (raised InvalidArgumentError), as PyTorch 2.15's CPU oneDNN
    path does (float32, a batch above 1; its native path raises: here every dtype and
    batch size gives it), 1-d, 2-d and 3-d, batched or not, under autograd too, with
    zero gradients for the input, the weight and the bias; a negative size still
    raises."""
    cases = (  # (input shape, weight shape, padding, output shape)
        ((2, 3, 2), (3, 4, 1), 1, (2, 4, 0)),
        ((2, 3, 2, 3), (3, 4, 1, 1), (1, 0), (2, 4, 0, 3)),
        ((3, 2, 1), (3, 4, 1, 1), (1, 0), (4, 0, 1)),  # unbatched
        ((2, 3, 2, 3, 3), (3, 4, 1, 1, 1), (1, 0, 0), (2, 4, 0, 3, 3)),
        ((1, 3, 3, 2, 3), (3, 4, 1, 1, 1), (0, 1, 0), (1, 4, 3, 0, 3)),
    )
    fns = {3: F.conv_transpose1d, 4: F.conv_transpose2d, 5: F.conv_transpose3d}
    for shape, wshape, padding, want in cases:
        fn = fns[len(wshape)]
        for dtype in (pdt.float64, pdt.float32, pdt.float16):
            x = pdt.ones(shape, dtype=dtype, device=device, requires_grad=True)
            w = pdt.ones(wshape, dtype=dtype, device=device, requires_grad=True)
            b = pdt.ones(wshape[1], dtype=dtype, device=device, requires_grad=True)
            with pdt.no_grad():
                assert tuple(fn(x, w, b, padding=padding).shape) == want
            y = fn(x, w, b, padding=padding)
            assert tuple(y.shape) == want and y.dtype == dtype
            assert y.grad_fn.name() == ("SqueezeBackward1" if len(shape) < len(wshape)
                                        else "ConvolutionBackward0")  # PyTorch's names
            gx, gw, gb = pdt.autograd.grad(y.sum(), [x, w, b])
            for got, t in ((gx, x), (gw, w), (gb, b)):
                assert tuple(got.shape) == tuple(t.shape)
                np.testing.assert_array_equal(got.float().cpu().numpy(), 0.0)
    with pytest.raises(pdt.InvalidArgumentError, match=r"\(-2, 3\)\. Output size is too small"):
        F.conv_transpose2d(pdt.ones(1, 3, 2, 3, device=device),
                           pdt.ones(3, 4, 1, 1, device=device), padding=(2, 0))
    with pytest.raises(pdt.InvalidArgumentError, match=r"output depth -1 is negative"):
        F.conv_transpose3d(pdt.ones(1, 3, 1, 2, 2, device=device),
                           pdt.ones(3, 4, 1, 1, 1, device=device), padding=(1, 0, 0))


def _format(t):
    """'CL' (channels_last / channels_last_3d and not row-major), 'C' or 'other'."""
    fmt = pdt.channels_last if t.ndim == 4 else pdt.channels_last_3d
    if t.is_contiguous(memory_format=fmt) and not t.is_contiguous():
        return "CL"
    return "C" if t.is_contiguous() else "other"


def test_conv_transpose_keeps_channels_last(device):
    """conv_transpose2d / 3d of a channels_last input, or of a row-major input with a
    channels_last weight, are channels_last, as PyTorch's (2-d was row-major; 3-d
    followed the input only), with and without autograd, and the layer; the values are
    the row-major computation's, exactly; the input's gradient is NumPy's adjoint."""
    rng = np.random.default_rng(3)
    x = _t(rng.standard_normal((2, 3, 5, 4)), device)
    w = _t(rng.standard_normal((3, 2, 3, 3)), device)
    b = _t(rng.standard_normal(2), device)
    cl = pdt.channels_last
    want = F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
    assert _format(want) == "C"
    for xx, ww in ((x.contiguous(memory_format=cl), w), (x, w.contiguous(memory_format=cl))):
        got = F.conv_transpose2d(xx, ww, b, stride=2, padding=1, output_padding=1)
        assert _format(got) == "CL"
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
        xg = xx.detach().requires_grad_()
        y = F.conv_transpose2d(xg, ww, b, stride=2, padding=1, output_padding=1)
        assert _format(y) == "CL" and y.grad_fn.name() == "ConvolutionBackward0"
        g = rng.standard_normal(tuple(y.shape))
        y.backward(_t(g, device))
        # <conv_transpose2d(x), g> is linear in x: its gradient is the adjoint at g,
        # checked as the identity <x', dx> = <conv_transpose2d(x') - bias, g>
        probe = rng.standard_normal(tuple(x.shape))
        lhs = float((probe * xg.grad.cpu().numpy()).sum())
        out = F.conv_transpose2d(_t(probe, device), ww, None, stride=2, padding=1,
                                 output_padding=1)
        np.testing.assert_allclose(lhs, float((out.cpu().numpy() * g).sum()), rtol=1e-10)
    layer = nn.ConvTranspose2d(3, 2, 3, stride=2, dtype=pdt.float64).to(device)
    assert _format(layer(x.contiguous(memory_format=cl))) == "CL"
    x5 = _t(rng.standard_normal((2, 3, 3, 4, 2)), device)
    w5 = _t(rng.standard_normal((3, 2, 2, 2, 2)), device)
    want = F.conv_transpose3d(x5, w5)
    for xx, ww in ((x5.contiguous(memory_format=pdt.channels_last_3d), w5),
                   (x5, w5.contiguous(memory_format=pdt.channels_last_3d))):
        for grad in (False, True):
            got = F.conv_transpose3d(xx.detach().requires_grad_(grad), ww)
            assert _format(got) == "CL"
            np.testing.assert_array_equal(got.detach().cpu().numpy(), want.cpu().numpy())


@pytest.mark.parametrize("groups", [1, 2])
def test_conv_transpose_of_no_output_channels_is_empty(device, groups):
    """A weight of 0 output channels per group gives an empty (N, 0, ...) result with
    zero gradients, as conv2d of 0 output channels does here (col2im raised an internal
    error; PyTorch 2.15 raises too, for conv2d as well), 1-d, 2-d and 3-d."""
    fns = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
    for nd, fn in fns.items():
        x = pdt.ones((2, 4) + (3,) * nd, device=device, requires_grad=True)
        w = pdt.ones((4, 0) + (2,) * nd, device=device, requires_grad=True)
        b = pdt.ones(0, device=device, requires_grad=True)
        y = fn(x, w, b, stride=2, groups=groups)
        assert tuple(y.shape) == (2, 0) + (6,) * nd
        assert y.grad_fn.name() == "ConvolutionBackward0"
        gx, gw, gb = pdt.autograd.grad(y.sum(), [x, w, b])
        assert tuple(gx.shape) == tuple(x.shape) and tuple(gw.shape) == tuple(w.shape)
        assert tuple(gb.shape) == (0,)
        np.testing.assert_array_equal(gx.cpu().numpy(), 0.0)
