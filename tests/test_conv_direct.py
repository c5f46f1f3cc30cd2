"""conv2d's float32 CPU kernel without im2col (csrc/cpu/cpu_conv_direct.c, Note [the
direct convolution]; pydevtensor/nn/_conv_direct.py) and its backward: the input's
gradient by the same kernel (stride 1) or a product and col2im, the weight's by im2col
and a product, the bias's by a sum.

Every case is compared with a NumPy float64 reference written here (the windows as
slices, one einsum), the inputs, weights and output gradients drawn from [-1, 1]: a
float32 result summing T such products is within 1e-5 relative plus 1e-6 T absolute
(T float32 roundings of terms below 1, each 2^-24 or less, with a margin of 16: the
order of the sums differs between the kernels); T is C/groups kh kw for the output,
O/groups kh kw for the input's gradient, N oh ow for the weight's and the bias's.  The cases cover the kernel's layouts (the input read in place: stride 1, no
padding, contiguous rows; laid out by stride phase otherwise), its blocks (8 or 16
output channels a vector, one or two vectors, 1 to 24 positions; for up to 8 output
channels, vectors of positions instead), the 1 x 1 product, and the shapes D2L uses (LeNet, AlexNet's 11 x 11 stride 4, 3 x 3, ResNet's and NiN's 1 x 1).  Each runs
on every device (the GPU takes im2col and a product: the same results), and on the
CPU at every instruction-set level.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_conv import ref_unfold
from pydevtensor import _C
from pydevtensor.nn import functional as F

LEVELS = _C._cpu_simd_level()[1]


def _windows(x, k, s, p, d):
    """xp's windows: (N, C, kh, kw, oh, ow) of x (N, C, H, W) padded by p."""
    cols = ref_unfold(x, k, d, p, s)
    xp_h, xp_w = x.shape[2] + 2 * p[0], x.shape[3] + 2 * p[1]
    oh = (xp_h - d[0] * (k[0] - 1) - 1) // s[0] + 1
    return cols.reshape(*x.shape[:2], *k, oh, (xp_w - d[1] * (k[1] - 1) - 1) // s[1] + 1)


def ref_conv(x, w, b, s, p, d, g):
    """The float64 forward and, for the output's gradient go, the three gradients."""
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    win = _windows(x, (kh, kw), s, p, d)
    win = win.reshape(n, g, cg, kh, kw, *win.shape[-2:])
    wg = w.reshape(g, o // g, cg, kh, kw)
    y = np.einsum("ngcijyx,gocij->ngoyx", win, wg).reshape(n, o, *win.shape[-2:])
    if b is not None:
        y = y + b[:, None, None]
    return y


def ref_grads(x, w, go, s, p, d, g):
    """(dx, dw, db) for out = conv(x, w) and the output's gradient go."""
    n, c, hh, ww = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = go.shape[2:]
    win = _windows(x, (kh, kw), s, p, d).reshape(n, g, cg, kh, kw, oh, ow)
    gog = go.reshape(n, g, o // g, oh, ow)
    dw = np.einsum("ngcijyx,ngoyx->gocij", win, gog).reshape(w.shape)
    dwin = np.einsum("ngoyx,gocij->ngcijyx", gog, w.reshape(g, o // g, cg, kh, kw))
    dwin = dwin.reshape(n, c, kh, kw, oh, ow)
    dxp = np.zeros((n, c, hh + 2 * p[0], ww + 2 * p[1]))
    for i in range(kh):
        for j in range(kw):
            y0, x0 = i * d[0], j * d[1]
            dxp[:, :, y0:y0 + s[0] * (oh - 1) + 1:s[0],
                x0:x0 + s[1] * (ow - 1) + 1:s[1]] += dwin[:, :, i, j]
    dx = dxp[:, :, p[0]:p[0] + hh, p[1]:p[1] + ww]
    return dx, dw, go.sum((0, 2, 3))


def assert_close(got, ref, terms):
    """got (a tensor) against the float64 ref, for sums of `terms` products in [-1, 1]
    (module docstring)."""
    got = got.detach().cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6 * terms)


def _terms(ws, g, out_shape):
    """T for the output, the input's gradient and the weight's (module docstring)."""
    o, cg, kh, kw = ws
    return cg * kh * kw, o // g * kh * kw, out_shape[0] * out_shape[2] * out_shape[3]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


# (x shape, weight shape, stride, padding, dilation, groups)
CASES = {
    "lenet1": ((4, 1, 28, 28), (6, 1, 5, 5), 1, 2, 1, 1),
    "lenet2": ((3, 6, 14, 14), (16, 6, 5, 5), 1, 0, 1, 1),
    "alexnet1": ((1, 3, 67, 67), (20, 3, 11, 11), 4, 1, 1, 1),
    "3x3_pad1": ((2, 8, 12, 12), (40, 8, 3, 3), 1, 1, 1, 1),
    "3x3_stride2": ((2, 8, 13, 11), (33, 8, 3, 3), 2, 1, 1, 1),
    "1x1": ((2, 24, 7, 9), (17, 24, 1, 1), 1, 0, 1, 1),
    "1x1_stride2": ((2, 16, 9, 10), (48, 16, 1, 1), 2, 0, 1, 1),
    "wide_row": ((1, 3, 4, 61), (5, 3, 2, 3), 1, 0, 1, 1),  # rows of many blocks
    "many_channels": ((1, 4, 5, 5), (70, 4, 3, 3), 1, 1, 1, 1),  # 3 blocks of 32 or 16
    "odd": ((2, 6, 9, 11), (9, 2, 3, 2), (2, 3), (1, 2), (2, 1), 3),
    "dilated": ((1, 5, 9, 8), (7, 5, 3, 3), 1, 0, 2, 1),
    "dilated_stride": ((2, 3, 15, 14), (4, 3, 3, 2), (3, 2), (2, 0), (2, 3), 1),
    "depthwise": ((2, 6, 8, 8), (6, 1, 3, 3), 1, 1, 1, 6),
    "kernel_wider_than_stride": ((1, 2, 10, 10), (3, 2, 5, 5), 3, 2, 1, 1),
    "one_pixel": ((3, 4, 1, 1), (5, 4, 1, 1), 1, 0, 1, 1),
    "pad_more_than_kernel": ((1, 2, 4, 4), (3, 2, 2, 2), 1, 3, 1, 1),
}


def _data(xs, ws, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, xs).astype(np.float32)
    w = rng.uniform(-1, 1, ws).astype(np.float32)
    b = rng.uniform(-1, 1, ws[0]).astype(np.float32)
    return x, w, b


def _case(name):
    """CASES[name]'s data, float64 references and sizes of sums: (x, w, b, window,
    go, (ref, rdx, rdw, rdb), (t_out, t_dx, t_dw)), window = (s, p, d, g)."""
    xs, ws, s, p, d, g = CASES[name]
    s, p, d = _pair(s), _pair(p), _pair(d)
    x, w, b = _data(xs, ws)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = ref_conv(x64, w64, b.astype(np.float64), s, p, d, g)
    go = np.random.default_rng(1).uniform(-1, 1, ref.shape).astype(np.float32)
    refs = (ref, *ref_grads(x64, w64, go.astype(np.float64), s, p, d, g))
    return x, w, b, (s, p, d, g), go, refs, _terms(ws, g, ref.shape)


def _run(device, x, w, b, s, p, d, g, go=None, layout=None):
    """conv2d on device of float32 copies, x possibly re-laid (layout(x) -> tensor of
    the same values); returns (out, dx, dw, db) as tensors (grads None without go)."""
    tx = pdt.tensor(x, device=device) if layout is None else layout(x, device)
    tx.requires_grad_(go is not None)
    tw = pdt.tensor(w, device=device, requires_grad=go is not None)
    tb = pdt.tensor(b, device=device, requires_grad=go is not None)
    out = F.conv2d(tx, tw, tb, stride=s, padding=p, dilation=d, groups=g)
    if go is None:
        return out, None, None, None
    out.backward(pdt.tensor(go, device=device))
    return out, tx.grad, tw.grad, tb.grad


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_grads_against_numpy(device, name):
    x, w, b, win, go, refs, terms = _case(name)
    got = _run(device, x, w, b, *win, go)
    for t, r, n in zip(got, refs, (*terms, terms[2])):
        assert_close(t, r, n)


def test_the_cpu_takes_the_direct_kernel(monkeypatch):
    from pydevtensor.nn import _functional_conv
    calls = []
    kernel = _functional_conv.conv2d_direct

    def counted(*args):
        calls.append(args[0].dtype)
        return kernel(*args)

    monkeypatch.setattr(_functional_conv, "conv2d_direct", counted)
    x, w, b = _data((2, 3, 8, 8), (4, 3, 3, 3))
    out = F.conv2d(pdt.tensor(x), pdt.tensor(w, requires_grad=True), pdt.tensor(b))
    assert out.grad_fn.name() == "ConvolutionBackward0"
    assert calls == [pdt.float32]
    # float64 keeps im2col and the product
    F.conv2d(pdt.tensor(x, dtype=pdt.float64), pdt.tensor(w, dtype=pdt.float64,
                                                          requires_grad=True))
    assert calls == [pdt.float32]


@pytest.mark.parametrize("name", ["lenet1", "lenet2", "odd", "3x3_stride2", "many_channels",
                                  "1x1", "3x3_pad1", "dilated"])
def test_every_cpu_level(name, level_restored):
    x, w, b, win, go, refs, terms = _case(name)
    for level in LEVELS:
        _C._cpu_simd_level(level)
        got = _run("cpu", x, w, b, *win, go)
        for t, r, n in zip(got[:3], refs, terms):
            assert_close(t, r, n)


def _transposed(x, device):
    """x's values in a tensor whose rows are not contiguous (W is dim 2 in memory)."""
    return pdt.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2)), device=device).transpose(2, 3)


def _channels_last(x, device):
    """x's values with the channels innermost in memory, as PyTorch's channels_last."""
    return pdt.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), device=device).permute(
        0, 3, 1, 2)


def _sliced(x, device):
    """x's values as a strided slice of a bigger tensor (every other row and column)."""
    n, c, h, w = x.shape
    big = np.zeros((n, c + 1, 2 * h, 2 * w + 1), np.float32)
    big[:, 1:, ::2, 1::2] = x
    return pdt.tensor(big, device=device)[:, 1:, ::2, 1::2]


@pytest.mark.parametrize("layout", [_transposed, _channels_last, _sliced])
@pytest.mark.parametrize("name", ["lenet2", "3x3_pad1", "1x1", "odd"])
def test_strided_inputs(device, layout, name):
    x, w, b, win, go, refs, terms = _case(name)
    got = _run(device, x, w, b, *win, go, layout=layout)
    for t, r, n in zip(got[:3], refs, terms):
        assert_close(t, r, n)


def test_strided_weight_and_bias(device):
    x, w, b = _data((2, 4, 9, 9), (6, 4, 3, 3))
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), (1, 1),
                   (1, 1), (1, 1), 1)
    tw = pdt.tensor(np.ascontiguousarray(w.transpose(1, 0, 3, 2)), device=device).permute(
        1, 0, 3, 2)
    tb = pdt.tensor(np.repeat(b, 2), device=device)[::2]
    assert_close(F.conv2d(pdt.tensor(x, device=device), tw, tb, padding=1), ref, 36)


def test_batch_one_unbatched_and_no_bias(device):
    x, w, _ = _data((1, 3, 10, 7), (5, 3, 3, 3))
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (0, 0), (1, 1), 1)
    tx, tw = pdt.tensor(x, device=device), pdt.tensor(w, device=device)
    assert_close(F.conv2d(tx, tw), ref, 27)
    assert_close(F.conv2d(tx[0], tw), ref[0], 27)


def test_same_padding_and_conv1d(device):
    x, w, b = _data((2, 3, 8, 8), (4, 3, 4, 4))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 2)))  # 'same' for k = 4: 3 split 1 + 2
    ref = ref_conv(xp.astype(np.float64), w.astype(np.float64), b.astype(np.float64), (1, 1),
                   (0, 0), (1, 1), 1)
    got = F.conv2d(pdt.tensor(x, device=device), pdt.tensor(w, device=device),
                   pdt.tensor(b, device=device), padding="same")
    assert_close(got, ref, 48)
    x1, w1 = x[:, :, 0], w[:, :, 0]
    ref1 = ref_conv(x1[:, :, None].astype(np.float64), w1[:, :, None].astype(np.float64),
                    b.astype(np.float64), (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    got1 = F.conv1d(pdt.tensor(x1, device=device), pdt.tensor(w1, device=device),
                    pdt.tensor(b, device=device), stride=2, padding=1)
    assert_close(got1, ref1, 12)


def test_grad_of_grad_runs(device):
    """The backward's steps are recorded ops: a second derivative exists and matches
    float64's (the same expression through im2col and the product)."""
    x, w, _ = _data((1, 2, 6, 6), (3, 2, 3, 3))
    vals = []
    for dt in (pdt.float32, pdt.float64):
        tx = pdt.tensor(x, dtype=dt, device=device, requires_grad=True)
        tw = pdt.tensor(w, dtype=dt, device=device, requires_grad=True)
        y = (F.conv2d(tx, tw, padding=1) ** 2).sum()
        (gx,) = pdt.autograd.grad(y, tx, create_graph=True)
        gx.sum().backward()
        vals.append(tw.grad.cpu().numpy().astype(np.float64))
    np.testing.assert_allclose(vals[0], vals[1], rtol=1e-4, atol=1e-4)


def test_against_torch():
    torch = torch_or_skip()
    for name in ("lenet2", "odd", "dilated_stride"):
        xs, ws, s, p, d, g = CASES[name]
        x, w, b = _data(xs, ws)
        out = F.conv2d(pdt.tensor(x), pdt.tensor(w), pdt.tensor(b), stride=s, padding=p,
                       dilation=d, groups=g)
        ref = torch.nn.functional.conv2d(torch.tensor(x, dtype=torch.float64),
                                         torch.tensor(w, dtype=torch.float64),
                                         torch.tensor(b, dtype=torch.float64), stride=s,
                                         padding=p, dilation=d, groups=g)
        assert_close(out, ref.numpy(), _terms(ws, g, ref.shape)[0])


def test_bad_input_from_the_private_op():
    """_C._conv2d checks what conv2d already checked, naming the sizes."""
    x = pdt.zeros(1, 4, 5, 5)
    with pytest.raises(ValueError, match=r"input \(1, 4, 5, 5\), weight \(3, 3, 3, 3\), "
                                         r"groups 1 and bias None"):
        _C._conv2d(x, pdt.zeros(3, 3, 3, 3), None, (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(TypeError, match="bias must be float32"):
        _C._conv2d(x, pdt.zeros(3, 4, 3, 3), pdt.zeros(3, dtype=pdt.float64), (1, 1), (0, 0),
                   (1, 1), 1)
    with pytest.raises(ValueError, match="stride must be positive"):
        _C._conv2d(x, pdt.zeros(3, 4, 3, 3), None, (0, 1), (0, 0), (1, 1), 1)
    with pytest.raises(ValueError, match="no window fits"):
        _C._conv2d(x, pdt.zeros(3, 4, 7, 7), None, (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(ValueError, match=r"grad_output float32 \(1, 3, 2, 2\) does not match "
                                         r"the input float32 \(1, 4, 5, 5\)"):
        _C._conv2d_grad_weight(x, pdt.zeros(1, 3, 2, 2), (3, 3), (1, 1), (0, 0), (1, 1), 1)


def test_weight_gradient_alone():
    """_C._conv2d_grad_weight (the direct weight gradient) on a case of every layout:
    the input copied by phase, rows of positions padded to whole vectors, image chunks."""
    for name in ("lenet2", "dilated_stride", "odd", "many_channels"):
        xs, ws, s, p, d, g = CASES[name]
        s, p, d = _pair(s), _pair(p), _pair(d)
        x, w, _ = _data(xs, ws)
        ref = ref_conv(x.astype(np.float64), w.astype(np.float64), None, s, p, d, g)
        go = np.random.default_rng(2).uniform(-1, 1, ref.shape).astype(np.float32)
        _, rdw, _ = ref_grads(x.astype(np.float64), w.astype(np.float64),
                              go.astype(np.float64), s, p, d, g)
        got = _C._conv2d_grad_weight(pdt.tensor(x), pdt.tensor(go), ws[2:], s, p, d, g)
        assert_close(got, rdw, _terms(ws, g, ref.shape)[2])
