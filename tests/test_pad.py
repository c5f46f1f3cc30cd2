"""F.pad (constant, reflect, replicate, circular), the padding layers (ZeroPad1d/2d,
ConstantPad1d/2d, ReflectionPad1d/2d, ReplicationPad1d/2d, CircularPad1d/2d) and the
convolutions' padding_mode, which pads through F.pad.

Padding copies: results are compared exactly with a NumPy reference that maps each
output index to its source by loops (and with np.pad for non-negative pads);
gradients with central differences (tests/test_gradcheck.py's gradcheck, float64);
everything once more against torch when it imports, the convolutions with the same
weights copied in.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_conv import _t  # a float64 NumPy array as a tensor on device
from test_gradcheck import gradcheck


def _source(j, n, before, after, mode):
    """The input index that output index j of a dimension of n padded by (before,
    after) copies, or None for the constant."""
    src = j - before
    if mode == "constant":
        return src if 0 <= src < n else None
    if mode == "replicate":
        return min(max(src, 0), n - 1)
    if mode == "reflect":
        if src < 0:
            src = -src
        if src > n - 1:
            src = 2 * (n - 1) - src
        return src
    lo, hi = max(-before, 0), n - max(-after, 0)  # circular: crop, then wrap the crop
    return lo + (j - max(before, 0)) % (hi - lo)


def ref_pad(x, pad, mode="constant", value=0.0):
    out = np.asarray(x, dtype=np.float64)
    for i in range(len(pad) // 2):
        dim = out.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        shape = list(out.shape)
        shape[dim] = n + before + after
        new = np.full(shape, float(value))
        for j in range(shape[dim]):
            src = _source(j, n, before, after, mode)
            if src is not None:
                index = (slice(None),) * dim + (j,)
                new[index] = out[(slice(None),) * dim + (src,)]
        out = new
    return out


# (shape, pad, mode)
CASES = [
    ((2, 3, 4), (1, 2), "constant"),
    ((2, 3, 4, 5), (2, 0, 1, 3), "constant"),
    ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1, 1, 1), "constant"),   # every dimension
    ((3, 4, 5), (-1, 2, 0, -3), "constant"),                # negative pads crop
    ((4,), (0, 0), "constant"),
    ((2, 5), (2, 3), "reflect"),
    ((2, 3, 5), (4, 1), "reflect"),
    ((2, 3, 4, 5), (3, 2, 1, 3), "reflect"),
    ((1, 2, 4, 5), (-1, 2, 3, -2), "reflect"),
    ((2, 3, 3, 4, 5), (1, 2, 2, 1, 1, 1), "reflect"),       # three dimensions
    ((2, 5), (3, 4), "replicate"),
    ((2, 3, 4, 5), (2, 6, 0, 3), "replicate"),
    ((3, 4, 5), (-2, 1, 1, -1), "replicate"),
    ((2, 3, 5), (5, 2), "circular"),
    ((2, 3, 4, 5), (1, 5, 4, 2), "circular"),
    ((2, 4, 5), (-1, 2, 2, -1), "circular"),
    # a crop reaching past the other side's pad (PyTorch's j - before rule)
    ((2, 1, 3), (3, -4), "replicate"),
    ((2, 1, 3), (-5, 3), "replicate"),
    ((2, 2, 1, 3), (-1, 2, 4, -4), "replicate"),
    ((2, 3, 3), (-4, 2), "reflect"),
    ((2, 2, 4), (2, -5), "reflect"),
    ((2, 3, 4), (-1, 3, 2, -4), "reflect"),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(0, 0), (0, 0, 0, 0), (-1, 0), (0, -2, 0, 0), (0, 0, -1, 0)])
def test_pad_returns_a_new_tensor(device, mode, pad):
    """All-zero and cropping pads copy, as PyTorch's: writing into the result leaves
    the input (and a view of it) as it was, and the gradient still flows."""
    a = np.arange(24.).reshape(2, 3, 4)
    for x in (_t(a, device), _t(a, device)[:, 1:]):
        want = x.cpu().numpy().copy()
        got = F.pad(x, pad, mode)
        assert got is not x
        got[(0,) * got.ndim] = -99.0
        np.testing.assert_array_equal(x.cpu().numpy(), want)
    x = _t(a, device).requires_grad_()
    (F.pad(x, pad, mode) * 2).sum().backward()
    lo, hi = max(-pad[0], 0), 4 - max(-pad[1], 0)
    rows = slice(max(-pad[2], 0), 3 - max(-pad[3], 0)) if len(pad) == 4 else slice(None)
    want = np.zeros_like(a)
    want[:, rows, lo:hi] = 2.0
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_pad_matches_numpy(device, case):
    shape, pad, mode = CASES[case]
    x = np.random.default_rng(case).standard_normal(shape)
    value = 2.5 if mode == "constant" else None
    ref = ref_pad(x, pad, mode, value or 0.0)
    if min(pad) >= 0:  # np.pad agrees (an independent reference)
        np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
        widths = [(0, 0)] * (x.ndim - len(pad) // 2) + \
            [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))]
        kw = dict(constant_values=value) if mode == "constant" else {}
        np.testing.assert_array_equal(np.pad(x, widths, mode=np_mode, **kw), ref)
    for dtype in (pdt.float64, pdt.float32):
        got = F.pad(_t(x, device, dtype), pad, mode, value)
        assert got.device == device and got.dtype == dtype
        np.testing.assert_array_equal(got.cpu().numpy(), ref.astype(np.dtype(str(dtype)[12:])))


def test_pad_integer_and_list(device):
    x = pdt.arange(6, device=device).reshape(2, 3)
    got = F.pad(x, [1, 0], value=7)
    assert got.dtype == pdt.int64
    assert got.cpu().tolist() == [[7, 0, 1, 2], [7, 3, 4, 5]]
    assert F.pad(x, (1, 1), mode="replicate").cpu().tolist() == [[0, 0, 1, 2, 2],
                                                                   [3, 3, 4, 5, 5]]
    assert tuple(F.pad(x, (-2, -1)).shape) == (2, 0)  # cropped to nothing
    # a 0-d tensor as the value, as PyTorch takes it (a review: refused for a while)
    v = pdt.tensor(7.5, device=device)
    assert F.pad(x.float(), [1, 0], value=v).cpu().tolist() == [[7.5, 0, 1, 2], [7.5, 3, 4, 5]]
    assert F.pad(x, [0, 1], value=pdt.tensor(9)).cpu().tolist() == [[0, 1, 2, 9], [3, 4, 5, 9]]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck(device, mode):
    x = np.random.default_rng(3).standard_normal((2, 2, 3, 4))
    gradcheck(lambda t: F.pad(t, (2, 3, 2, -1), mode), [x], device)
    gradcheck(lambda t: F.pad(t, (3, 1), mode), [x[0]], device, noncontig=True)


@pytest.mark.parametrize("mode, pad", [("replicate", (3, -6, -4, 2)), ("reflect", (2, -5, -4, 2))])
def test_pad_gradcheck_crops_past_the_other_side(device, mode, pad):
    x = np.random.default_rng(4).standard_normal((2, 2, 3, 4))
    assert F.pad(_t(x, device), pad, mode).shape == (2, 2, 1, 1)
    gradcheck(lambda t: F.pad(t, pad, mode), [x], device)


def test_pad_output_size_rules(device):
    """PyTorch's: constant's crops must fit in the dimension (a narrow), reflect and
    replicate make at least 1 cell per padded dimension, circular may make none."""
    x = _t(np.arange(6.0).reshape(1, 2, 3), device)
    with pytest.raises(RuntimeError, match=r"the padding \(-4, 2\) of dimension 2 \(size 3\) "
                                           r"leaves a negative size -1"):
        F.pad(x, (-4, 2))  # 3 - 4 + 2 = 1 cell, but the crop needs 4
    for mode in ("reflect", "replicate"):
        with pytest.raises(RuntimeError, match=r"leaves an output size of 0; it must be at "
                                               r"least 1"):
            F.pad(x, (-1, -2), mode)
    assert tuple(F.pad(x, (0, 0, 1, -3), "circular").shape) == (1, 0, 3)
    with pytest.raises(RuntimeError, match=r"wrapping around more than once"):
        F.pad(x, (-3, 4), "circular")  # nothing left, but a pad of 4 > 3


@pytest.mark.parametrize("case", range(len(CASES)))
def test_pad_matches_torch(device, case):
    torch = torch_or_skip()
    shape, pad, mode = CASES[case]
    x = np.random.default_rng(case).standard_normal(shape)
    r = np.random.default_rng(case + 100).standard_normal(ref_pad(x, pad, mode).shape)
    value = -1.5 if mode == "constant" else None
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.pad(tx, pad, mode, value)
    (want * torch.tensor(r)).sum().backward()
    px = _t(x, device).requires_grad_()
    got = F.pad(px, pad, mode, value)
    (got * _t(r, device)).sum().backward()
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
    assert_close(px.grad, tx.grad.numpy(), "float64")


def test_pad_bad_inputs(device):
    x = pdt.zeros(1, 2, 5, device=device)
    with pytest.raises(pdt.InvalidArgumentError,
                       match=r"Padding length must be divisible by 2, got pad=\(1,\) \(input "
                             r"of shape \(1, 2, 5\) on " + str(device)):
        F.pad(x, (1,))
    with pytest.raises(ValueError, match=r"Padding length should be less than or equal to two "
                                         r"times the input dimension but got padding length 8"):
        F.pad(x, (1,) * 8)
    with pytest.raises(TypeError, match=r"found element of type float at pos 0"):
        F.pad(x, (1.5, 1))
    with pytest.raises(TypeError, match=r"pad must be a tuple of ints, got int"):
        F.pad(x, 1)
    with pytest.raises(TypeError, match=r"input must be a Tensor, got list"):
        F.pad([1.0], (1, 1))
    with pytest.raises(RuntimeError, match=r"the padding \(-3, -3\) of dimension 2 \(size 5\) "
                                           r"leaves a negative size -1"):
        F.pad(x, (-3, -3))
    with pytest.raises(NotImplementedError, match=r"Unrecognised padding mode 'mirror'"):
        F.pad(x, (1, 1), mode="mirror")
    with pytest.raises(ValueError, match=r"Padding mode 'reflect' doesn't take in value "
                                         r"argument, got value=1.0"):
        F.pad(x, (1, 1), mode="reflect", value=1.0)
    assert tuple(F.pad(x, (1, 1), mode="reflect", value=0).shape) == (1, 2, 7)
    with pytest.raises(ValueError, match=r"Padding size should be less than the corresponding "
                                         r"input dimension, but got: padding \(5, 1\) at "
                                         r"dimension 2 of input \(1, 2, 5\) \(on "
                                         + str(device)):
        F.pad(x, (5, 1), mode="reflect")
    with pytest.raises(RuntimeError, match=r"wrapping around more than once: padding \(6, 1\)"):
        F.pad(x, (6, 1), mode="circular")
    with pytest.raises(NotImplementedError, match=r"Padding size 2 is not supported for 4D "
                                                  r"input tensor \(shape \(1, 1, 2, 5\) on "):
        F.pad(x.reshape(1, 1, 2, 5), (1, 1), mode="replicate")
    with pytest.raises(NotImplementedError, match=r"Padding size 2 is not supported for 1D"):
        F.pad(pdt.zeros(5, device=device), (1, 1), mode="circular")
    with pytest.raises(ValueError, match=r"mode='replicate' expects a tensor with possibly 0 "
                                         r"batch size and other non-zero dimensions, got "
                                         r"shape \(1, 2, 0\)"):
        F.pad(pdt.zeros(1, 2, 0, device=device), (1, 1), mode="replicate")


def test_padding_layers(device):
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 5))
    t = _t(x, device)
    for layer, mode, value, pad in [
            (nn.ZeroPad2d(2), "constant", 0.0, (2,) * 4),
            (nn.ZeroPad1d((1, -2)), "constant", 0.0, (1, -2)),
            (nn.ConstantPad2d((1, 0, 2, 1), 3.5), "constant", 3.5, (1, 0, 2, 1)),
            (nn.ConstantPad1d(2, -1.0), "constant", -1.0, (2, 2)),
            (nn.ReflectionPad2d((1, 2, 3, 0)), "reflect", 0.0, (1, 2, 3, 0)),
            (nn.ReflectionPad1d(3), "reflect", 0.0, (3, 3)),
            (nn.ReplicationPad2d(4), "replicate", 0.0, (4,) * 4),
            (nn.ReplicationPad1d((0, 2)), "replicate", 0.0, (0, 2)),
            (nn.CircularPad2d((1, 2, 2, 1)), "circular", 0.0, (1, 2, 2, 1)),
            (nn.CircularPad1d(1), "circular", 0.0, (1, 1))]:
        inp = t if len(pad) == 4 else t[0]
        ref = ref_pad(x if len(pad) == 4 else x[0], pad, mode, value)
        np.testing.assert_array_equal(layer(inp).cpu().numpy(), ref)
        assert layer.padding == pad
        assert list(layer.parameters()) == []


def test_padding_layers_repr_and_bad_arguments():
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ZeroPad1d((1, 2))) == "ZeroPad1d((1, 2))"
    assert repr(nn.ConstantPad2d(1, 3.5)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=3.5)"
    assert repr(nn.ReflectionPad2d((1, 2, 3, 4))) == "ReflectionPad2d((1, 2, 3, 4))"
    assert repr(nn.ReplicationPad1d(2)) == "ReplicationPad1d((2, 2))"
    assert repr(nn.CircularPad2d(1)) == "CircularPad2d((1, 1, 1, 1))"
    assert isinstance(nn.ZeroPad2d(1), nn.ConstantPad2d)
    with pytest.raises(ValueError, match=r"ReflectionPad2d: padding must be an int or a tuple "
                                         r"of 4 ints \(left, right, top, bottom\), got \(1, 2\)"):
        nn.ReflectionPad2d((1, 2))
    with pytest.raises(TypeError, match=r"ZeroPad2d: padding must be an int or a tuple of 4 "
                                        r"ints, got 2.0"):
        nn.ZeroPad2d(2.0)
    with pytest.raises(NotImplementedError, match=r"Padding size 4 is not supported for 2D"):
        nn.ReflectionPad2d(1)(pdt.zeros(4, 4))


def test_padding_layers_match_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 5))
    for name, args in [("ZeroPad2d", ((1, 2, 0, 3),)), ("ConstantPad2d", (2, 1.5)),
                       ("ReflectionPad2d", (3,)), ("ReplicationPad2d", ((0, 1, 5, 2),)),
                       ("CircularPad2d", ((2, 1, 1, 3),)), ("ReflectionPad1d", ((1, 4),)),
                       ("ReplicationPad1d", (2,)), ("CircularPad1d", ((3, 0),)),
                       ("ZeroPad1d", (2,)), ("ConstantPad1d", ((1, 2), -3.0))]:
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        inp = x if name.endswith("2d") else x[0]
        np.testing.assert_array_equal(ours(pdt.tensor(inp)).numpy(),
                                      theirs(torch.tensor(inp)).numpy())


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_padding_mode(device, mode):
    """padding_mode pads through F.pad, then convolves without padding (NumPy: the
    padded input through a zero-padding convolution of the same weights)."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 6, 7))
    conv = nn.Conv2d(3, 4, (3, 2), padding=(2, 1), padding_mode=mode, dtype=pdt.float64).to(device)
    assert repr(conv) == (f"Conv2d(3, 4, kernel_size=(3, 2), stride=(1, 1), padding=(2, 1), "
                          f"padding_mode={mode})")
    w, b = conv.weight.detach().cpu().numpy(), conv.bias.detach().cpu().numpy()
    padded = ref_pad(x, (1, 1, 2, 2), mode)
    want = F.conv2d(pdt.tensor(padded), pdt.tensor(w), pdt.tensor(b)).numpy()
    assert_close(conv(_t(x, device)), want, "float64")
    assert_close(conv(_t(x[0], device)), want[0], "float64")  # unbatched
    same = nn.Conv2d(3, 2, 4, padding="same", padding_mode=mode, dtype=pdt.float64).to(device)
    assert tuple(same(_t(x, device)).shape) == (2, 2, 6, 7)
    conv1 = nn.Conv1d(3, 2, 3, padding=2, padding_mode=mode, dtype=pdt.float64).to(device)
    got = conv1(_t(x[:, :, 0], device))
    want = F.conv1d(pdt.tensor(ref_pad(x[:, :, 0], (2, 2), mode)),
                    conv1.weight.detach().cpu(), conv1.bias.detach().cpu()).numpy()
    assert_close(got, want, "float64")
    gradcheck(lambda t, w_: F.conv2d(F.pad(t, (1, 1, 2, 2), mode), w_), [x[:1, :, :4, :4], w],
              device)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_padding_mode_matches_torch(device, mode):
    torch = torch_or_skip()
    x = np.random.default_rng(9).standard_normal((2, 3, 6, 7))
    for ours, theirs, inp in [
            (nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode, dtype=pdt.float64),
             torch.nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode, dtype=torch.float64),
             x),
            (nn.Conv2d(3, 2, (2, 4), padding="same", dilation=(2, 1), padding_mode=mode,
                       dtype=pdt.float64),
             torch.nn.Conv2d(3, 2, (2, 4), padding="same", dilation=(2, 1), padding_mode=mode,
                             dtype=torch.float64), x),
            (nn.Conv1d(3, 2, 3, padding=1, padding_mode=mode, dtype=pdt.float64),
             torch.nn.Conv1d(3, 2, 3, padding=1, padding_mode=mode, dtype=torch.float64),
             x[:, :, 0])]:
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(ours.weight.detach().numpy()))
            theirs.bias.copy_(torch.tensor(ours.bias.detach().numpy()))
        ours = ours.to(device)
        assert repr(ours) == repr(theirs)
        px, tx = _t(inp, device).requires_grad_(), torch.tensor(inp, requires_grad=True)
        got, want = ours(px), theirs(tx)
        assert_close(got, want.detach().numpy(), "float64")
        got.sum().backward()
        want.sum().backward()
        assert_close(px.grad, tx.grad.numpy(), "float64")
        assert_close(ours.weight.grad, theirs.weight.grad.numpy(), "float64")


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_pad_copies_nothing(device):
    """The gather indices are made on the device: no copy either way, forward or
    backward (a second call, after any caches filled)."""
    x = pdt.randn(2, 3, 5, 6, device=device).requires_grad_()
    for mode in ("constant", "reflect", "replicate", "circular"):
        for _ in range(2):
            pdt.reset_transfer_stats()
            with pdt.transfer_guard("disallow"):
                y = F.pad(x, (1, 2, 2, 1), mode)
                y.backward(pdt.ones_like(y))
            stats = pdt.transfer_stats()
        assert stats["device_to_host"]["count"] == 0, mode
        assert stats["host_to_device"]["count"] == 0, mode


def test_replicated_edge_alone_is_a_new_tensor(device):
    """A dimension made only of the repeated edge (rows (2, -1) of a 1-row input) is a
    copy, not a zero-stride view whose elements are one another."""
    x = _t(np.arange(6.0).reshape(2, 1, 3), device)
    got = F.pad(x, (2, 2, 2, -1), "replicate")
    assert tuple(got.shape) == (2, 2, 7) and got.is_contiguous()
    got[0, 0, 0] = -1.0
    assert got[0, 1, 0].item() == 0.0 and x[0, 0, 0].item() == 0.0


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_keeps_channels_last(device, mode):
    """F.pad of a channels_last (channels_last_3d) input is channels_last in the
    constant, reflect and replicate modes, as PyTorch's (was row-major), and row-major
    in the circular one (PyTorch's composite: also there); values, grad_fn and
    gradients exactly those of the row-major input, and the NumPy reference's."""
    rng = np.random.default_rng(4)
    for shape, pad, fmt in (((2, 3, 4, 5), (1, 2, 2, 1), pdt.channels_last),
                            ((2, 3, 4, 5), (0, 0, -1, 1), pdt.channels_last),
                            ((1, 2, 3, 4, 3), (1, 1, 0, 2, 1, 0), pdt.channels_last_3d)):
        a = rng.standard_normal(shape)
        x = _t(a, device).requires_grad_()
        xl = _t(a, device).contiguous(memory_format=fmt).requires_grad_()
        want, got = F.pad(x, pad, mode=mode), F.pad(xl, pad, mode=mode)
        assert got.is_contiguous(memory_format=fmt) != (mode == "circular")
        assert got.is_contiguous() == (mode == "circular")
        np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().cpu().numpy())
        np.testing.assert_array_equal(got.detach().cpu().numpy(), ref_pad(a, pad, mode))
        assert got.grad_fn.name() == want.grad_fn.name()
        g = _t(rng.standard_normal(tuple(want.shape)), device)
        want.backward(g)
        got.backward(g)
        np.testing.assert_array_equal(xl.grad.cpu().numpy(), x.grad.cpu().numpy())


def test_circular_pad_records_copy_slices(device):
    """Circular padding is PyTorch's composite, copies into slices of a new tensor:
    grad_fn CopySlices (was CatBackward0), 1 to 3 padded dimensions, unbatched, crops;
    the gradient is each output cell's g added onto the input cell it copies (NumPy,
    float64), and second derivatives against central differences; an output with no
    cells still takes a (zero) gradient."""
    rng = np.random.default_rng(6)
    for shape, pad in (((2, 3, 5), (2, 3)), ((3, 4, 5), (1, 5, 4, 2)),
                       ((2, 4, 5), (-1, 2, 2, -1)), ((1, 1, 3, 4, 3), (1, 2, 0, 3, 2, 1)),
                       ((3, 4, 5), (0, 0, 0, 0))):
        a = rng.standard_normal(shape)
        x = _t(a, device).requires_grad_()
        y = F.pad(x, pad, mode="circular")
        assert y.grad_fn.name() == "CopySlices" and y.is_contiguous()
        np.testing.assert_array_equal(y.detach().cpu().numpy(), ref_pad(a, pad, "circular"))
        g = rng.standard_normal(tuple(y.shape))
        (gx,) = pdt.autograd.grad(y, x, _t(g, device))
        want = g  # the pads' transposes, last dimension first
        for i in range(len(pad) // 2):
            dim, (before, after) = a.ndim - 1 - i, pad[2 * i:2 * i + 2]
            n = want.shape[dim] - before - after
            back = np.zeros(want.shape[:dim] + (n,) + want.shape[dim + 1:])
            for j in range(want.shape[dim]):
                src = _source(j, n, before, after, "circular")
                back[(slice(None),) * dim + (src,)] += want[(slice(None),) * dim + (j,)]
            want = back
        np.testing.assert_allclose(gx.cpu().numpy(), want, rtol=1e-14, atol=1e-14)
        assert pdt.autograd.gradgradcheck(lambda t, p=pad: F.pad(t, p, mode="circular") ** 2,
                                          (x,))
    x = _t(rng.standard_normal((2, 3)), device).requires_grad_()
    y = F.pad(x, (1, -4), mode="circular")
    assert tuple(y.shape) == (2, 0)
    (gx,) = pdt.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(gx.cpu().numpy(), np.zeros((2, 3)))
