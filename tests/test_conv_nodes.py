"""Every convolution (conv1d/2d/3d, conv_transpose1d/2d/3d, the layers, their padding
modes) recorded as one node, ConvolutionBackward0, as PyTorch 2.x records them
(nn/_conv_node.py): the names (each was its composite's last op: ViewBackward0,
AddBackward0, SliceBackward0...), and the node's gradients and second derivatives
against central differences in float64 on every device (autograd.gradcheck /
gradgradcheck), the half types against float64, forward mode and vmap through it."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor import nn
from pydevtensor.autograd import forward_ad as fwAD
from pydevtensor.nn import functional as F

CONV = "ConvolutionBackward0"


def _t(shape, device, seed, dtype=pdt.float64, grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return pdt.tensor(a, dtype=dtype, device=device, requires_grad=grad)


# name: (function, input shape, weight shape, bias length or None, keywords); small
# enough for gradgradcheck, one case per path of the forward (direct kernel, im2col and
# one product or one per group, 3-d by depth slices, transposed with col2im or the cut
# of a large output_padding)
CASES = {
    "conv1d": (F.conv1d, (2, 4, 9), (6, 2, 3), 6, dict(stride=2, padding=1, groups=2)),
    "conv1d_same_odd": (F.conv1d, (2, 2, 7), (3, 2, 2), 3, dict(padding="same")),
    "conv1d_unbatched": (F.conv1d, (3, 8), (2, 3, 3), None, dict(dilation=2)),
    "conv2d": (F.conv2d, (2, 3, 6, 5), (4, 3, 3, 2), 4, dict(stride=(2, 1), padding=1)),
    "conv2d_groups_dilated": (F.conv2d, (1, 4, 7, 7), (4, 2, 2, 3), 4,
                              dict(groups=2, dilation=(2, 1), padding=(1, 2))),
    "conv2d_same": (F.conv2d, (2, 2, 5, 5), (2, 2, 2, 3), None, dict(padding="same")),
    "conv3d": (F.conv3d, (2, 2, 4, 5, 4), (3, 2, 2, 3, 2), 3,
               dict(stride=(2, 1, 1), padding=(1, 0, 1))),
    "conv3d_groups": (F.conv3d, (1, 4, 5, 4, 4), (2, 2, 3, 2, 2), 2,
                      dict(groups=2, dilation=(1, 2, 1))),
    "conv_transpose1d": (F.conv_transpose1d, (2, 3, 5), (3, 2, 3), 2,
                         dict(stride=2, padding=1, output_padding=1)),
    "conv_transpose2d": (F.conv_transpose2d, (2, 4, 3, 4), (4, 1, 3, 2), 2,
                         dict(stride=(2, 1), padding=(1, 0), groups=2)),
    # output_padding 2 >= stride 1 (below the dilation): the input's gradient is cut
    "conv_transpose2d_wide_pad": (F.conv_transpose2d, (1, 2, 3, 3), (2, 3, 2, 2), None,
                                  dict(dilation=3, output_padding=(2, 0))),
    "conv_transpose3d": (F.conv_transpose3d, (2, 2, 2, 3, 2), (2, 2, 2, 2, 2), 4,
                         dict(stride=2, padding=(0, 1, 0), output_padding=(1, 0, 1),
                              groups=2)),
    "conv_transpose3d_unbatched": (F.conv_transpose3d, (2, 2, 2, 3), (2, 1, 2, 1, 2), 1,
                                   dict(stride=(1, 2, 1))),
}


def _args(name, device, dtype=pdt.float64):
    f, xs, ws, bs, kw = CASES[name]
    args = [_t(xs, device, 1, dtype), _t(ws, device, 2, dtype)]
    if bs is not None:
        args.append(_t((bs,), device, 3, dtype))
    return (lambda *a: f(*a, **kw)), args


def _node(out):
    """The convolution's node: the output's, or under an unbatched call's squeeze."""
    fn = out.grad_fn
    return fn.next_functions[0][0] if fn.name() == "SqueezeBackward1" else fn


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_every_convolution_is_one_node(device, dtype):
    """PyTorch's names: ConvolutionBackward0 for each call (unbatched: SqueezeBackward1
    over it, as PyTorch's), with edges to exactly the input, the weight and the bias."""
    dt = getattr(pdt, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'same' with an even kernel
        for name, (f, xs, _, bs, kw) in CASES.items():
            conv, args = _args(name, device, dt)
            out = conv(*args)
            node = _node(out)
            assert node.name() == CONV, name
            if name.endswith("unbatched"):
                assert out.grad_fn.name() == "SqueezeBackward1", name
            if "same" not in name and not name.endswith("unbatched"):
                # the edges go to the leaves themselves (no composite in between)
                leaves = [e[0].variable for e in node.next_functions if e[0] is not None]
                assert [t is a for t, a in zip(leaves, args)] == [True] * len(args), name


def test_layers_and_padding_modes_are_one_node(device):
    """nn.Conv1d/2d/3d and the transposed layers, each padding_mode: the convolution is
    the output's node (after the pad's node for reflect, circular and replicate, as
    PyTorch)."""
    x2 = _t((2, 3, 6, 6), device, 4, pdt.float32)
    for mode in ("zeros", "reflect", "circular", "replicate"):
        for layer, x in ((nn.Conv1d(3, 2, 3, padding=1, padding_mode=mode), x2[:, :, 0]),
                         (nn.Conv2d(3, 2, 3, padding=1, padding_mode=mode), x2),
                         (nn.Conv3d(3, 2, 3, padding=1, padding_mode=mode),
                          x2.unsqueeze(2).expand(2, 3, 3, 6, 6))):
            out = layer.to(device)(x)
            assert out.grad_fn.name() == CONV, (mode, type(layer).__name__)
            before = out.grad_fn.next_functions[0][0]
            assert (before.name() == "AccumulateGrad") == (x is x2 and mode == "zeros")
    for layer, x in ((nn.ConvTranspose1d(3, 2, 3), x2[:, :, 0]),
                     (nn.ConvTranspose2d(3, 2, 3, stride=2), x2),
                     (nn.ConvTranspose3d(3, 2, 2), x2.unsqueeze(2))):
        assert layer.to(device)(x).grad_fn.name() == CONV


def test_channels_last_output_is_the_node(device):
    """A channels_last input gives a channels_last output (PyTorch's layout) whose
    grad_fn is still the convolution, not the copy into that layout."""
    x = _t((2, 3, 6, 6), device, 5).contiguous(memory_format=pdt.channels_last)
    w = _t((4, 3, 3, 3), device, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for padding in (1, "same"):
            out = F.conv2d(x, w, padding=padding)
            assert out.is_contiguous(memory_format=pdt.channels_last)
            assert out.grad_fn.name() == CONV


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_gradients_and_second_derivatives(device, name):
    """The node's backward (input, weight, bias) and its double backward against
    central differences in float64."""
    conv, args = _args(name, device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert autograd.gradcheck(conv, args)
        assert autograd.gradgradcheck(conv, args)


def test_only_the_wanted_gradients(device):
    """A gradient is computed for the arguments that require grad only: the others
    stay None, and what is computed matches the full backward."""
    conv, args = _args("conv2d", device)
    full = autograd.grad(conv(*args).square().sum(), args)
    for i in range(3):
        part = [a.detach().requires_grad_(j == i) for j, a in enumerate(args)]
        out = conv(*part)
        out.square().sum().backward()
        assert [p.grad is None for p in part] == [j != i for j in range(3)]
        np.testing.assert_allclose(part[i].grad.cpu().numpy(), full[i].cpu().numpy(),
                                   rtol=1e-12, atol=1e-12)


def test_empty_batch_backward(device):
    """An empty batch backpropagates zeros of the input's and the weight's shapes."""
    x = _t((0, 2, 5, 5), device, 7)
    w = _t((3, 2, 3, 3), device, 8)
    b = _t((3,), device, 9)
    for out in (F.conv2d(x, w, b, padding=1), F.conv_transpose2d(x, w.transpose(0, 1), b)):
        gx, gw, gb = autograd.grad(out.sum(), (x, w, b))
        assert gx.shape == x.shape and gw.shape == w.shape
        for g in (gx, gw, gb):
            assert not g.cpu().numpy().any()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_type_gradients_against_float64(device, dtype):
    """float16 and bfloat16 gradients come back in their dtype, computed in float32 and
    rounded once: within a few of the dtype's epsilons (relative to the largest
    gradient) of the float64 ones."""
    eps = float(pdt.finfo(getattr(pdt, dtype)).eps)
    for name in ("conv2d_groups_dilated", "conv3d", "conv_transpose2d", "conv1d"):
        conv, ref = _args(name, device)
        _, half = _args(name, device, getattr(pdt, dtype))
        want = autograd.grad(conv(*ref).sum(), ref)
        got = autograd.grad(conv(*half).sum(), half)
        for g, r in zip(got, want):
            assert g.dtype == getattr(pdt, dtype)
            r = r.cpu().numpy()
            err = np.abs(g.double().cpu().numpy() - r).max()
            assert err <= 8 * eps * max(1.0, np.abs(r).max()), (name, err)


def test_forward_mode_and_vmap_through_the_node(device):
    """Forward mode (riding the node's recorded backward): the tangent of a convolution
    in its input is the convolution of the tangent; vmap of grad per example equals
    the gradients taken one example at a time."""
    conv, (x, w, b) = _args("conv_transpose3d", device)
    t = _t(tuple(x.shape), device, 10, grad=False)
    with fwAD.dual_level():
        out = conv(fwAD.make_dual(x.detach(), t), w.detach(), b.detach())
        tangent = fwAD.unpack_dual(out).tangent
    want = conv(t, w.detach(), None)
    np.testing.assert_allclose(tangent.cpu().numpy(), want.cpu().numpy(), rtol=1e-12,
                               atol=1e-12)
    conv1, (x1, w1, b1) = _args("conv1d", device)

    def loss(a):
        return conv1(a, w1.detach(), b1.detach()).sin().sum()

    per = pdt.func.vmap(pdt.func.grad(loss))(x1.detach())
    for i in range(x1.shape[0]):
        one = x1.detach()[i:i + 1].requires_grad_()
        (g,) = autograd.grad(conv1(one, w1.detach(), b1.detach()).sin().sum(), (one,))
        np.testing.assert_allclose(per[i].cpu().numpy(), g[0].cpu().numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_saved_tensors_hooks_see_everything_the_node_keeps(device):
    # the forward's im2col columns (9 times x here) were kept on the node beside the saved
    # tensors, so a pack hook (offloading, compression) never saw the largest buffer:
    # under hooks the node keeps tensors only through save_tensors, and backward makes
    # the columns again from the unpacked x, with the same gradients
    x, w = _t((2, 3, 6, 6), device, 1), _t((4, 3, 3, 3), device, 2)
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    with autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = F.conv2d(x, w, padding=1)
    kept = [k for k, v in vars(y.grad_fn).items() if isinstance(v, pdt.Tensor)]
    assert kept == [] and packed == [(2, 3, 6, 6), (4, 3, 3, 3)], (kept, packed)
    got = autograd.grad(y.sum(), (x, w))
    want = autograd.grad(F.conv2d(x, w, padding=1).sum(), (x, w))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-14, atol=1e-14)
