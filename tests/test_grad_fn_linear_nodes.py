"""grad_fn names of pad and interpolate as PyTorch's (each was the name of its
composition's last piece: CatBackward0, AddBackward0, UnsafeViewBackward0, ...), and
each node's gradient and second derivative against central differences in float64 on
every device (pydevtensor.autograd.gradcheck / gradgradcheck)."""
import numpy as np

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.nn import functional as F


def _t(shape, device, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=True)


def _name(t):
    return t.grad_fn.name()


def test_pad_names(device):
    x1, x2, x3 = _t((2, 3, 6), device), _t((2, 3, 6, 6), device), _t((1, 2, 4, 4, 4), device)
    assert [_name(F.pad(x, p)) for x, p in ((x1, (1, 2)), (x2, (-1, 2, 0, 0)), (x2, (0, 0)))] \
        == ["ConstantPadNdBackward0"] * 3
    for mode, kind in (("reflect", "Reflection"), ("replicate", "Replication")):
        got = [_name(F.pad(x1, (1, 2), mode=mode)), _name(F.pad(x2, (1, 2, 2, 1), mode=mode)),
               _name(F.pad(x2[0], (1, 2, 2, 1), mode=mode)),  # unbatched
               _name(F.pad(x3, (1, 1, 0, 1, 1, 0), mode=mode))]
        assert got == [f"{kind}Pad{d}DBackward0" for d in (1, 2, 2, 3)]


def test_interpolate_names(device):
    x1, x2, x3 = _t((2, 3, 6), device), _t((2, 3, 6, 6), device), _t((1, 2, 4, 4, 4), device)
    got = [_name(F.interpolate(x, scale_factor=2, mode=m)) for x, m in (
        (x1, "nearest"), (x2, "nearest"), (x3, "nearest"), (x2, "nearest-exact"),
        (x1, "linear"), (x2, "bilinear"), (x3, "trilinear"), (x2, "bicubic"))]
    assert got == ["UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
                   "UpsampleNearest3DBackward0", "UpsampleNearestExact2DBackward0",
                   "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0",
                   "UpsampleTrilinear3DBackward0", "UpsampleBicubic2DBackward0"]
    assert _name(F.interpolate(x2, size=3, mode="bilinear", antialias=True)) == \
        "UpsampleBilinear2DAaBackward0"
    assert _name(F.interpolate(x2, scale_factor=1)) == "UpsampleNearest2DBackward0"


def _check(fn, x):
    assert autograd.gradcheck(fn, (x,))
    assert autograd.gradgradcheck(fn, (x,))


def test_pad_gradients(device):
    """Every mode, cropping pads, a strided input, and a product of two pads (a second
    derivative that is not zero)."""
    x = _t((2, 2, 4, 5), device, 1)
    for mode in ("constant", "reflect", "replicate"):
        _check(lambda t, m=mode: F.pad(t, (2, 1, 1, 3), mode=m), x)
        _check(lambda t, m=mode: F.pad(t.transpose(-1, -2), (1, -2, 2, 0), mode=m), x)
        _check(lambda t, m=mode: F.pad(t[0], (3, 2), mode=m) * F.pad(t[0], (3, 2), mode=m), x)
    _check(lambda t: F.pad(t, (1, 1, -1, 2, 1, 0), value=2.5), x)


def test_pad_gradients_keep_the_inputs_layout(device):
    """reflect and replicate padding's gradient is laid out as the input (channels_last,
    channels_last_3d or row-major), whatever g's layout, as PyTorch's backward kernels
    allocate it (it followed g: a row-major g gave a channels_last input a row-major
    gradient), under create_graph too; the numbers are the row-major input's, exactly,
    and the second derivative still checks against central differences."""
    cl, cl3 = pdt.channels_last, pdt.channels_last_3d
    x4, x5 = _t((2, 3, 4, 5), device, 3), _t((2, 3, 3, 4, 5), device, 4)
    for mode in ("reflect", "replicate"):
        for x, pads, fmt in ((x4, (1, 2, 2, 1), cl), (x5, (1, 1, 2, 0, 1, 1), cl3)):
            y = F.pad(x, pads, mode=mode)
            g = pdt.tensor(np.random.default_rng(5).standard_normal(tuple(y.shape)),
                           dtype=pdt.float64, device=device)
            (want,) = autograd.grad(y, x, g)
            laid = x.detach().to(memory_format=fmt).requires_grad_()
            for gi in (g, g.to(memory_format=fmt)):
                for create in (False, True):
                    (got,) = autograd.grad(F.pad(laid, pads, mode=mode), laid, gi,
                                           create_graph=create)
                    assert got.is_contiguous(memory_format=fmt), (mode, got.stride())
                    np.testing.assert_array_equal(got.detach().cpu().numpy(),
                                                  want.cpu().numpy())
                (back,) = autograd.grad(F.pad(x, pads, mode=mode), x, gi.to(memory_format=fmt))
                assert back.is_contiguous(), (mode, back.stride())
            _check(lambda t, m=mode, p=pads, f=fmt:
                   F.pad(t.contiguous(memory_format=f), p, mode=m) ** 2, x)


def test_interpolate_gradients(device):
    x = _t((1, 2, 3, 4), device, 2)
    for mode in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        _check(lambda t, m=mode: F.interpolate(t, size=(5, 3), mode=m), x)
    _check(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True)
           ** 2, x)
    _check(lambda t: F.interpolate(t, size=(2, 2), mode="bilinear", antialias=True), x)
    _check(lambda t: F.interpolate(t[0], scale_factor=1.5, mode="linear"), x)
    _check(lambda t: F.interpolate(t[:, :, None], scale_factor=2, mode="trilinear"), x)


def test_linear_nodes_empty_and_half(device):
    """An empty batch backpropagates zeros of its shape; float16 gives float16
    gradients equal to the float64 ones rounded (sums of a few g, taken in float32)."""
    e = _t((0, 2, 3, 3), device)
    for y in (F.pad(e, (1, 1, 1, 1), mode="reflect"), F.interpolate(e, scale_factor=2)):
        (g,) = autograd.grad(y.sum(), e)
        assert tuple(g.shape) == (0, 2, 3, 3)
    x = _t((2, 3, 5), device, 3)
    h = x.detach().half().requires_grad_()
    for fn in (lambda t: F.pad(t, (2, 2), mode="reflect"), lambda t: F.pad(t, (1, 3)),
               lambda t: F.interpolate(t, size=12)):  # up to 3 g per cell, summed wide
        (g64,) = autograd.grad(fn(x).sum(), x)
        (g16,) = autograd.grad(fn(h).sum(), h)
        assert g16.dtype == pdt.float16
        np.testing.assert_array_equal(g16.cpu().numpy(), g64.cpu().numpy().astype(np.float16))


def test_masked_fill_names_and_gradients(device):
    """MaskedFillBackward0 for a number, MaskedFillBackward1 for a 0-d tensor value (was
    WhereBackward0; in place CopyBackwards): the gradient is g where the mask is clear
    (summed back where the mask widened the result), the value's the sum of g where it
    is set."""
    x = _t((3, 4), device, 4)
    mask = x.detach() > 0.2
    v = _t((), device, 5)
    wide = pdt.tensor([[True], [False]], device=device)
    assert [_name(x.masked_fill(mask, 0.5)), _name(x.masked_fill(mask, v)),
            _name(pdt.masked_fill(x, mask, v.detach())), _name((x * 1).masked_fill_(mask, 1.0)),
            _name(x[0].masked_fill(wide, 2.0))] == \
        ["MaskedFillBackward0", "MaskedFillBackward1", "MaskedFillBackward1",
         "MaskedFillBackward0", "MaskedFillBackward0"]
    _check(lambda t: t.masked_fill(mask, 0.5) * t, x)
    _check(lambda t: t[0].masked_fill(wide, -1.0) ** 2, x)
    assert autograd.gradcheck(lambda t, s: t.masked_fill(mask, s * s) * t, (x, v))
    assert autograd.gradgradcheck(lambda t, s: t.masked_fill(mask, s * s) * t, (x, v))
    assert autograd.gradcheck(lambda t, s: (t * 1).masked_fill_(mask, s) * t, (x, v))
    g = np.random.default_rng(6).standard_normal((3, 4))
    gx, gv = autograd.grad(x.masked_fill(mask, v), (x, v), pdt.tensor(g, device=device))
    m = mask.cpu().numpy()
    np.testing.assert_array_equal(gx.cpu().numpy(), np.where(m, 0.0, g))
    np.testing.assert_allclose(gv.cpu().numpy(), g[m].sum(), rtol=1e-14)


def test_eval_batch_norm_and_group_norm_nodes(device):
    """batch_norm by running statistics and group_norm: NativeBatchNormBackward0 and
    NativeGroupNormBackward0 (were AddBackward0/DivBackward0 and ViewBackward0/
    AddBackward0); gradients and second derivatives (times x, so that they are not
    zero), weight or bias alone too; a later in-place change of the running statistics
    (a training step's update) leaves the node's backward as it was."""
    x = _t((4, 3, 5), device, 7)
    w, b = _t((3,), device, 8), _t((3,), device, 9)
    rm = pdt.tensor([0.1, -0.2, 0.3], dtype=pdt.float64, device=device)
    rv = pdt.tensor([0.5, 1.5, 2.0], dtype=pdt.float64, device=device)
    g4, c4, d4 = _t((2, 4, 3), device, 10), _t((4,), device, 11), _t((4,), device, 13)

    def bn(t, w=None, b=None):
        return F.batch_norm(t, rm, rv, w, b, training=False, eps=1e-3)

    assert [_name(bn(x)), _name(bn(x, w, b)), _name(F.group_norm(g4, 2)),
            _name(F.group_norm(g4, 4, c4, c4)), _name(F.group_norm(g4[:, :, 0], 1, c4))] == \
        ["NativeBatchNormBackward0"] * 2 + ["NativeGroupNormBackward0"] * 3
    for fn, ins in ((lambda t, p, q: bn(t, p, q) * t, (x, w, b)),
                    (lambda t, p: bn(t, p) * t, (x, w)),
                    (lambda t, q: bn(t, None, q) * t, (x, b)),
                    (lambda t, p, q: F.group_norm(t, 2, p, q, eps=1e-3) * t, (g4, c4, d4)),
                    (lambda t: F.group_norm(t, 4) * t, (g4,)),
                    (lambda t, p: F.group_norm(t.transpose(1, 2), 3, p[:3]), (g4, c4))):
        assert autograd.gradcheck(fn, ins)
        assert autograd.gradgradcheck(fn, ins)
    y = bn(x, w, b)
    rm.add_(1.0)  # a training step's running update
    g = np.random.default_rng(12).standard_normal((4, 3, 5))
    gx, gw = autograd.grad(y, (x, w), pdt.tensor(g, device=device))
    xn, m, v = x.detach().cpu().numpy(), np.array([0.1, -0.2, 0.3]), np.array([0.5, 1.5, 2.0])
    inv = 1 / np.sqrt(v + 1e-3)
    np.testing.assert_allclose(gx.cpu().numpy(), g * (w.detach().cpu().numpy() * inv)[:, None],
                               rtol=1e-14)
    np.testing.assert_allclose(gw.cpu().numpy(),
                               (g * (xn - m[:, None]) * inv[:, None]).sum((0, 2)), rtol=1e-12)


def test_unbatched_pool_names_and_gradients(device):
    """max_pool2d / avg_pool2d of a (C, H, W) input: MaxPool2DWithIndicesBackward0 and
    AvgPool2DBackward0 as for a batch (were SqueezeBackward1: the batch dimension added
    and removed around the op); gradients and second derivatives, a single channel too
    (a squeeze of the wrong dimension would show there)."""
    x, one = _t((2, 5, 7), device, 14), _t((1, 4, 4), device, 15)
    assert [_name(F.max_pool2d(x, 2)), _name(F.avg_pool2d(x, 3, 2, 1)),
            _name(F.max_pool2d(one, 2, return_indices=True)[0])] == \
        ["MaxPool2DWithIndicesBackward0", "AvgPool2DBackward0", "MaxPool2DWithIndicesBackward0"]
    values, indices = F.max_pool2d(one, 2, return_indices=True)
    assert tuple(values.shape) == tuple(indices.shape) == (1, 2, 2)
    for fn in (lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True) ** 2,
               lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True) ** 2):
        _check(fn, x)
        _check(fn, one)


def test_in_place_activation_names_and_gradients(device):
    """F.silu / F.mish / F.relu / F.hardtanh with inplace=True: the op's own node, as
    PyTorch's in-place forms (was CopyBackwards, the copy of the result into x), also
    on a view (its base then CopySlices); gradients and second derivatives; a leaf
    that requires grad is refused."""
    x = _t((3, 4), device, 16)
    assert [_name(F.silu(x * 1, inplace=True)), _name(F.mish(x * 1, inplace=True)),
            _name(F.relu(x * 1, inplace=True)), _name(F.hardtanh(x * 1, inplace=True))] == \
        ["SiluBackward0", "MishBackward0", "ReluBackward0", "HardtanhBackward0"]
    y = x * 1
    F.silu(y[1:], inplace=True)
    assert _name(y) == "CopySlices"
    for act in (F.silu, F.mish):
        _check(lambda t, a=act: a(t * 2, inplace=True) * t, x)

        def on_view(t, a=act):
            y = t * 1
            a(y[:, 1:], inplace=True)
            return y * t

        _check(on_view, x)
    try:
        F.silu(x, inplace=True)
    except RuntimeError as e:
        assert "leaf" in str(e)
    else:
        raise AssertionError("an in-place silu of a leaf that requires grad passed")


def test_roll_without_dims_and_diag_nodes(device):
    """roll without dims (a flat roll) RollBackward0 (was ViewBackward0); diag of a
    vector DiagEmbedBackward0 (was PermuteBackward0), of a matrix
    DiagonalBackward0_copy (was CloneBackward0), as PyTorch 2.x; gradients and second
    derivatives (times x), offsets, a strided matrix, a 0-d roll."""
    m, v = _t((3, 4), device, 17), _t((4,), device, 18)
    assert [_name(pdt.roll(m, 5)), _name(m.roll(-1, ())), _name(pdt.diag(v)),
            _name(pdt.diag(v, -2)), _name(pdt.diag_embed(v)), _name(pdt.diag(m)),
            _name(m.t().diag(1))] == \
        ["RollBackward0"] * 2 + ["DiagEmbedBackward0"] * 3 + ["DiagonalBackward0_copy"] * 2
    _check(lambda t: pdt.roll(t, 7) * t, m)
    _check(lambda t: pdt.roll(t.t(), -5) * t.t(), m)
    _check(lambda t: pdt.roll(t.sum(), 3) * t, m)
    _check(lambda t: pdt.diag(t, 1) * pdt.diag(t, 1).sum(), v)
    _check(lambda t: pdt.diag_embed(t.reshape(2, 2), -1, 0, 2) ** 2, v)
    _check(lambda t: pdt.diag(t) * pdt.diag(t).sum(), m)
    _check(lambda t: pdt.diag(t.t(), -1) ** 2, m)


def test_repeat_interleave_and_pairwise_distance_nodes(device):
    """repeat_interleave by a count ViewBackward0 (a contiguous copy viewed, PyTorch's;
    was UnsafeViewBackward0), and still a new tensor; pairwise_distance NormBackward1
    (at::norm's node, PyTorch's; was LinalgVectorNormBackward0) for p = 1, 2, 3, 0.5;
    gradients and second derivatives."""
    m, y = _t((3, 4), device, 19), _t((3, 4), device, 20)
    got = [_name(m.repeat_interleave(2)), _name(m.repeat_interleave(1, dim=0)),
           _name(m.t().repeat_interleave(3, 1))]
    got += [_name(F.pairwise_distance(m, y, p=p)) for p in (1, 2, 3, 0.5)]
    assert got == ["ViewBackward0"] * 3 + ["NormBackward1"] * 4
    once = m.repeat_interleave(1, dim=0)
    once.detach().zero_()  # a new tensor: m keeps its values
    assert m.detach().abs().sum().item() > 0
    _check(lambda t: t.repeat_interleave(2, dim=1) ** 2, m)
    _check(lambda t: t.t().repeat_interleave(3) ** 2, m)
    for p in (1, 2, 3):
        assert autograd.gradcheck(lambda a, b, p=p: F.pairwise_distance(a, b, p=p), (m, y))
        assert autograd.gradgradcheck(lambda a, b, p=p: F.pairwise_distance(a, b, p=p), (m, y))


def _bins(size, out):
    """(out, size) float64: row i is 1 / len on adaptive bin i's cells [floor(i*size/out),
    ceil((i+1)*size/out)), as PyTorch defines the bins."""
    m = np.zeros((out, size))
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def test_adaptive_avg_pool_and_area_nodes(device):
    """adaptive_avg_pool2d over unequal bins AdaptiveAvgPool2DBackward0 (was
    DivBackward0), adaptive_avg_pool3d AdaptiveAvgPool3DBackward0 (was CloneBackward0),
    and interpolate's mode 'area' the same, batched or not, as PyTorch's (1-d stays
    SqueezeBackward1, a 2-d pool between unsqueeze and squeeze, as PyTorch's);
    gradients against NumPy's bin matrices in float64 (B_d^T g B_h B_w, 1e-12) and
    central differences, second derivatives too."""
    x2, x3 = _t((2, 3, 7, 9), device, 21), _t((1, 2, 5, 4, 6), device, 22)
    got = [_name(F.adaptive_avg_pool2d(x2, (3, 4))), _name(F.adaptive_avg_pool2d(x2[0], 4)),
           _name(F.adaptive_avg_pool2d(x2, (7, 4))), _name(F.interpolate(x2, size=(4, 5),
                                                                         mode="area")),
           _name(F.adaptive_avg_pool3d(x3, (2, 3, 4))), _name(F.adaptive_avg_pool3d(x3[0], 3)),
           _name(F.adaptive_avg_pool3d(x3, (5, 2, 3))), _name(F.adaptive_avg_pool3d(x3, 1)),
           _name(F.interpolate(x3, size=(3, 3, 4), mode="area")),
           _name(F.adaptive_avg_pool1d(x2[0], 4)), _name(F.interpolate(x2[0], 5, mode="area"))]
    assert got == ["AdaptiveAvgPool2DBackward0"] * 4 + ["AdaptiveAvgPool3DBackward0"] * 3 + \
        ["MeanBackward1", "AdaptiveAvgPool3DBackward0"] + ["SqueezeBackward1"] * 2
    rng = np.random.default_rng(23)
    for x, size in ((x2, (3, 4)), (x2[1], (4, 6)), (x2, (7, 4)), (x3, (2, 3, 4)),
                    (x3[0], (3, 4, 4)), (x3, (5, 1, 1))):
        pool = F.adaptive_avg_pool3d if len(size) == 3 else F.adaptive_avg_pool2d
        y = pool(x, size)
        g = rng.standard_normal(tuple(y.shape))
        (gx,) = autograd.grad(y, x, pdt.tensor(g, dtype=pdt.float64, device=device))
        mats = [_bins(s, o) for s, o in zip(x.shape[-len(size):], size)]
        want = g
        for i, m in enumerate(mats):  # B^T along each spatial dim
            want = np.moveaxis(np.tensordot(want, m, axes=([want.ndim - len(size) + i], [0])),
                               -1, want.ndim - len(size) + i)
        np.testing.assert_allclose(gx.cpu().numpy(), want, rtol=1e-12, atol=1e-15)
        _check(lambda t, p=pool, s=size: p(t, s) ** 2, x.detach().requires_grad_())


def _np_adaptive_max(a, out):
    """(values, flat indices into the last len(out) dims) of a's adaptive max pool to out,
    in NumPy: the first maximum of each bin in row-major order, PyTorch's bins."""
    k = len(out)
    sp = a.shape[-k:]
    lead = a.shape[:-k]
    vals, idx = np.zeros(lead + tuple(out)), np.zeros(lead + tuple(out), dtype=np.int64)
    for o in np.ndindex(*out):
        ranges = [((i * s) // n, -(-((i + 1) * s) // n)) for i, s, n in zip(o, sp, out)]
        cells = np.array(list(np.ndindex(*[hi - lo for lo, hi in ranges])))
        cells = cells + np.array([lo for lo, _ in ranges])
        flat = np.ravel_multi_index(tuple(cells.T), sp)
        window = a.reshape(lead + (-1,))[..., flat]
        best = window.argmax(-1)
        vals[(...,) + o] = np.take_along_axis(window, best[..., None], -1)[..., 0]
        idx[(...,) + o] = flat[best]
    return vals, idx


def test_adaptive_max_pool_nodes(device):
    """adaptive_max_pool2d AdaptiveMaxPool2DBackward0 (was MaxPool2DWithIndicesBackward0
    for equal windows, MaxBackward0 for unequal bins), adaptive_max_pool3d
    AdaptiveMaxPool3DBackward0 (was ViewBackward0, SqueezeBackward1 unbatched), for an
    unbatched input, a 1x1 output, an empty batch and a channels_last input too, as
    PyTorch's (1-d stays SqueezeBackward1, its 2-d pool between unsqueeze and squeeze);
    values and indices as NumPy's first maxima, the gradient g scatter-added onto them
    (exactly, ties included), and gradients, forward mode, batched gradients and second
    derivatives against central differences."""
    x2, x3 = _t((2, 3, 7, 9), device, 31), _t((1, 2, 5, 4, 6), device, 32)
    e2, e3 = _t((0, 3, 7, 9), device), _t((0, 2, 5, 4, 6), device)
    cl = x2.detach().to(memory_format=pdt.channels_last).requires_grad_()
    got = [_name(F.adaptive_max_pool2d(x2, (3, 4))), _name(F.adaptive_max_pool2d(x2, (7, 3))),
           _name(F.adaptive_max_pool2d(x2[0], 4)), _name(F.adaptive_max_pool2d(x2, 1)),
           _name(F.adaptive_max_pool2d(e2, 2)), _name(F.adaptive_max_pool2d(cl, (3, 4))),
           _name(F.adaptive_max_pool2d(x2, 2, return_indices=True)[0]),
           _name(F.adaptive_max_pool3d(x3, (2, 3, 4))), _name(F.adaptive_max_pool3d(x3[0], 3)),
           _name(F.adaptive_max_pool3d(x3, 1)), _name(F.adaptive_max_pool3d(e3, 2)),
           _name(F.adaptive_max_pool1d(x2[0], 4))]
    assert got == ["AdaptiveMaxPool2DBackward0"] * 7 + ["AdaptiveMaxPool3DBackward0"] * 4 + \
        ["SqueezeBackward1"]
    rng = np.random.default_rng(33)
    a = np.round(rng.standard_normal((2, 3, 7, 9)) * 2) / 2  # many ties
    ties = pdt.tensor(a, device=device, requires_grad=True)
    for x, size in ((ties, (3, 4)), (ties, (7, 3)), (ties, (5, 8)), (ties[1], (4, 6)),
                    (x3, (2, 3, 4)), (x3[0], (3, 4, 4)), (x3, (5, 1, 1))):
        pool = F.adaptive_max_pool3d if len(size) == 3 else F.adaptive_max_pool2d
        y, index = pool(x, size, return_indices=True)
        want, want_index = _np_adaptive_max(x.detach().cpu().numpy(), size)
        np.testing.assert_array_equal(y.detach().cpu().numpy(), want)
        np.testing.assert_array_equal(index.cpu().numpy(), want_index)
        g = rng.standard_normal(tuple(y.shape))
        (gx,) = autograd.grad(y, x, pdt.tensor(g, dtype=pdt.float64, device=device))
        k = len(size)
        flat = np.zeros(tuple(x.shape[:-k]) + (int(np.prod(x.shape[-k:])),))
        for o in np.ndindex(*y.shape):  # one by one: each bin's g onto its maximum
            flat[o[:-k] + (want_index[o],)] += g[o]
        np.testing.assert_allclose(gx.cpu().numpy(), flat.reshape(tuple(x.shape)),
                                   rtol=1e-15, atol=0)
    (gcl,) = autograd.grad(F.adaptive_max_pool2d(cl, (3, 4)).sum(), cl)
    (grm,) = autograd.grad(F.adaptive_max_pool2d(x2, (3, 4)).sum(), x2)
    np.testing.assert_array_equal(gcl.cpu().numpy(), grm.cpu().numpy())
    for e in (e2, e3):
        pool = F.adaptive_max_pool3d if e.ndim == 5 else F.adaptive_max_pool2d
        (g,) = autograd.grad(pool(e, 2).sum(), e)
        assert tuple(g.shape) == tuple(e.shape)
    p2, p3 = F.adaptive_max_pool2d, F.adaptive_max_pool3d
    for pool, x, size in ((p2, x2, (3, 4)), (p2, x2, (7, 3)), (p3, x3, (2, 3, 4)),
                          (p3, x3[0], 2)):
        assert autograd.gradcheck(lambda t, p=pool, s=size: p(t, s), (x,),
                                  check_forward_ad=True, check_batched_grad=True)
        _check(lambda t, p=pool, s=size: p(t, s) ** 2, x)


def test_adaptive_avg_pool_of_empty_inputs_and_one_bin(device):
    """adaptive_avg_pool2d / 3d of an empty batch AdaptiveAvgPool2DBackward0 /
    AdaptiveAvgPool3DBackward0 (was ViewBackward0), with an output_size holding 0 too;
    of a single bin (1x1, 1x1x1) MeanBackward1, unbatched and empty too (were
    SqueezeBackward1 unbatched, ViewBackward0 empty, AdaptiveAvgPool3DBackward0 for 3-d),
    as PyTorch's; zeros of the input's shape back from the empty ones; a single bin's
    values and gradient (g / count) against NumPy's in float64 (1e-12), and gradients,
    forward mode, batched gradients and second derivatives against central
    differences."""
    e2, e3 = _t((0, 3, 7, 9), device), _t((0, 2, 5, 4, 6), device)
    x2, x3 = _t((2, 3, 7, 9), device, 41), _t((2, 2, 5, 4, 6), device, 42)
    got = [_name(F.adaptive_avg_pool2d(e2, (3, 4))), _name(F.adaptive_avg_pool2d(e2, (0, 2))),
           _name(F.adaptive_avg_pool2d(x2[0], (0, 2))), _name(F.adaptive_avg_pool3d(e3, 2)),
           _name(F.adaptive_avg_pool3d(x3, (2, 0, 1))), _name(F.adaptive_avg_pool2d(e2, 1)),
           _name(F.adaptive_avg_pool2d(x2[0], 1)), _name(F.adaptive_avg_pool3d(e3, 1)),
           _name(F.adaptive_avg_pool3d(x3, 1)), _name(F.adaptive_avg_pool3d(x3[0], 1))]
    assert got == ["AdaptiveAvgPool2DBackward0"] * 3 + ["AdaptiveAvgPool3DBackward0"] * 2 + \
        ["MeanBackward1"] * 5
    for e, size in ((e2, (3, 4)), (e2, 1), (e3, 2), (e3, (1, 1, 1)), (x2, (0, 2))):
        pool = F.adaptive_avg_pool3d if e.ndim == 5 else F.adaptive_avg_pool2d
        y = pool(e, size)
        (g,) = autograd.grad(y.sum(), e)
        assert y.numel() == 0 and tuple(g.shape) == tuple(e.shape)
        assert not g.cpu().numpy().any()
    rng = np.random.default_rng(43)
    p2, p3 = F.adaptive_avg_pool2d, F.adaptive_avg_pool3d
    for pool, x, k in ((p2, x2, 2), (p2, x2[1], 2), (p3, x3, 3), (p3, x3[0], 3)):
        y = pool(x, 1)
        a = x.detach().cpu().numpy()
        axes = tuple(range(a.ndim - k, a.ndim))
        np.testing.assert_allclose(y.detach().cpu().numpy(), a.mean(axes, keepdims=True),
                                   rtol=1e-12, atol=1e-15)
        g = rng.standard_normal(tuple(y.shape))
        (gx,) = autograd.grad(y, x, pdt.tensor(g, dtype=pdt.float64, device=device))
        count = np.prod([a.shape[d] for d in axes])
        np.testing.assert_allclose(gx.cpu().numpy(), np.broadcast_to(g / count, a.shape),
                                   rtol=1e-12, atol=1e-15)
        assert autograd.gradcheck(lambda t, p=pool: p(t, 1), (x,), check_forward_ad=True,
                                  check_batched_grad=True)
        _check(lambda t, p=pool: p(t, 1) ** 2, x)


def test_one_node_ops_keep_their_dtype_under_autocast():
    """pad, interpolate and the adaptive average pools, recorded through
    _linear_nodes.linear_map, are on none of autocast's lists: a float32 input stays
    float32 with its values, as PyTorch's (the helper was once called linear, a name
    on amp's lower-precision list, so amp wrapped it and cast the input to bfloat16)."""
    x = pdt.arange(50.).reshape(1, 2, 5, 5) / 7
    x3 = pdt.arange(150.).reshape(1, 2, 3, 5, 5) / 7
    calls = [lambda: F.pad(x, (1, 1)), lambda: F.pad(x, (1, 1, 1, 1), mode="replicate"),
             lambda: F.pad(x, (1, 1, 1, 1), mode="reflect"),
             lambda: F.interpolate(x, scale_factor=2, mode="nearest"),
             lambda: F.interpolate(x, scale_factor=2, mode="bilinear"),
             lambda: F.interpolate(x, size=3, mode="area"),
             lambda: F.adaptive_avg_pool2d(x, 2), lambda: F.adaptive_avg_pool3d(x3, 2)]
    for call in calls:
        want = call()
        with pdt.autocast("cpu", dtype=pdt.bfloat16):
            got = call()
        assert got.dtype == pdt.float32, got.dtype
        assert got.tolist() == want.tolist()
