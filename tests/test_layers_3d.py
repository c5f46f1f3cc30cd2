"""The 3-d layers and functions (nn/_functional_3d.py, nn/layers_3d.py) on every device,
against direct NumPy loops in float64 (PyTorch's formulas and size rules), gradients
against central differences."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

RNG = np.random.default_rng(0)


def conv3d_ref(x, w, b, s, p, d, g):
    x = np.pad(x, ((0, 0), (0, 0)) + tuple((q, q) for q in p))
    n, _, depth, h, wd = x.shape
    o, cg, kd, kh, kw = w.shape
    out_sizes = [(size - dd * (k - 1) - 1) // ss + 1
                 for size, k, ss, dd in zip((depth, h, wd), (kd, kh, kw), s, d)]
    out = np.zeros((n, o) + tuple(out_sizes))
    per = o // g
    for i, c, a, bb, e in itertools.product(range(n), range(o), *map(range, out_sizes)):
        gi = c // per
        patch = x[i, gi * cg:(gi + 1) * cg,
                  a * s[0]:a * s[0] + d[0] * (kd - 1) + 1:d[0],
                  bb * s[1]:bb * s[1] + d[1] * (kh - 1) + 1:d[1],
                  e * s[2]:e * s[2] + d[2] * (kw - 1) + 1:d[2]]
        out[i, c, a, bb, e] = (patch * w[c]).sum()
    return out if b is None else out + b[None, :, None, None, None]


def pool_ref(x, k, s, p, d, ceil, mode, count_include_pad=True):
    sizes = x.shape[2:]

    def out_size(n, kk, ss, pp, dd):
        top = n + 2 * pp - dd * (kk - 1) - 1
        o = (-(-top // ss) if ceil else top // ss) + 1
        return o - 1 if ceil and (o - 1) * ss >= n + pp else o

    outs = [out_size(*a) for a in zip(sizes, k, s, p, d)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for idx in itertools.product(*map(range, outs)):
        ranges, inc, exc = [], 1, 1
        for i, o in enumerate(idx):
            start = o * s[i] - p[i]
            ranges.append([q for q in (start + j * d[i] for j in range(k[i]))
                           if 0 <= q < sizes[i]])
            end = min(start + k[i], sizes[i] + p[i])
            inc *= end - start
            exc *= min(end, sizes[i]) - max(start, 0)
        sub = x[:, :, ranges[0]][:, :, :, ranges[1]][:, :, :, :, ranges[2]]
        out[(slice(None), slice(None)) + idx] = (
            sub.max(axis=(2, 3, 4)) if mode == "max" else
            sub.sum(axis=(2, 3, 4)) / (inc if count_include_pad else exc))
    return out


CONV_CASES = [((1, 1, 1), (0, 0, 0), (1, 1, 1), 1), ((2, 1, 2), (1, 2, 0), (1, 2, 1), 2),
              ((1, 2, 1), (2, 0, 1), (2, 1, 1), 1)]


@pytest.mark.parametrize("s, p, d, g", CONV_CASES)
def test_conv3d_and_its_adjoint(device, s, p, d, g):
    x = RNG.standard_normal((2, 4, 6, 7, 5))
    w = RNG.standard_normal((6, 4 // g, 3, 2, 3))
    b = RNG.standard_normal(6)
    got = F.conv3d(pdt.tensor(x, device=device), pdt.tensor(w, device=device),
                   pdt.tensor(b, device=device), s, p, d, g)
    ref = conv3d_ref(x, w, b, s, p, d, g)
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12, atol=1e-12)
    # conv_transpose3d is conv3d's adjoint: <conv3d(x), y> = <x, conv_transpose3d(y)>
    y = RNG.standard_normal(ref.shape)
    yt, wt = pdt.tensor(y, device=device), pdt.tensor(w, device=device)
    short = F.conv_transpose3d(yt, wt, None, s, p, 0, g, d).shape[2:]
    op = tuple(a - b for a, b in zip(x.shape[2:], short))  # what the strides leave over
    ct = F.conv_transpose3d(yt, wt, None, s, p, op, g, d).cpu().numpy()
    assert ct.shape == x.shape
    assert np.isclose((conv3d_ref(x, w, None, s, p, d, g) * y).sum(), (x * ct).sum(),
                      rtol=1e-10)


def test_conv3d_gradients_unbatched_and_layers(device):
    gradcheck(lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), 1, 1, 1),
              [RNG.standard_normal((1, 2, 4, 3, 3)), RNG.standard_normal((2, 2, 2, 2, 2)),
               RNG.standard_normal(2)], device)
    gradcheck(lambda y, w: F.conv_transpose3d(y, w, None, 2, 1, 1),
              [RNG.standard_normal((1, 2, 2, 2, 3)), RNG.standard_normal((2, 3, 3, 2, 2))],
              device)
    x = pdt.tensor(RNG.standard_normal((2, 5, 6, 7)), device=device, dtype=pdt.float32)
    conv = nn.Conv3d(2, 3, 3, padding="same", padding_mode="replicate").to(device)
    assert conv(x).shape == (3, 5, 6, 7) and conv(x[None]).shape == (1, 3, 5, 6, 7)
    up = nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1).to(device)
    assert up(x[None], output_size=(10, 12, 14)).shape == (1, 3, 10, 12, 14)
    with pytest.raises(ValueError, match="Kernel size can't be greater"):
        F.conv3d(pdt.ones(1, 1, 2, 5, 5), pdt.ones(1, 1, 3, 1, 1))


POOL_CASES = [((2, 2, 2), (2, 2, 2), (0, 0, 0), (1, 1, 1), False),
              ((3, 2, 3), (2, 1, 2), (1, 1, 1), (1, 1, 1), True),
              ((3, 3, 2), (1, 2, 2), (1, 0, 1), (2, 1, 1), False)]


@pytest.mark.parametrize("k, s, p, d, ceil", POOL_CASES)
def test_pools_match_pytorchs_rules(device, k, s, p, d, ceil):
    x = RNG.standard_normal((2, 3, 7, 6, 5))
    t = pdt.tensor(x, device=device)
    np.testing.assert_array_equal(F.max_pool3d(t, k, s, p, d, ceil).cpu().numpy(),
                                  pool_ref(x, k, s, p, d, ceil, "max"))
    if d == (1, 1, 1):
        for include in (True, False):
            np.testing.assert_allclose(
                F.avg_pool3d(t, k, s, p, ceil, include).cpu().numpy(),
                pool_ref(x, k, s, p, d, ceil, "avg", include), rtol=1e-12, atol=1e-14)
        if not ceil and p == (0, 0, 0):  # every window whole: the override scales the mean
            np.testing.assert_allclose(
                F.avg_pool3d(t, k, s, p, ceil, divisor_override=5).cpu().numpy() * 5,
                pool_ref(x, k, s, p, d, ceil, "avg") * np.prod(k), rtol=1e-12, atol=1e-13)


def test_pool_gradients_and_layers(device):
    x = RNG.permutation(np.arange(2 * 5 * 4 * 4, dtype=np.float64)).reshape(1, 2, 5, 4, 4)
    gradcheck(lambda v: F.max_pool3d(v, 2, 1, 1), [x], device)
    gradcheck(lambda v: F.avg_pool3d(v, (2, 3, 2), 2, 1, True, False), [x], device)
    gradcheck(lambda v: F.adaptive_avg_pool3d(v, (3, 2, 3)), [x], device)
    # a tie: the gradient goes to the first maximum in (d, h, w) order, as PyTorch's index
    ties = pdt.zeros(1, 1, 2, 2, 2, device=device, requires_grad=True)
    F.max_pool3d(ties, 2).sum().backward()
    assert ties.grad.cpu().flatten().tolist() == [1.0] + [0.0] * 7
    v = pdt.ones(2, 3, 4, 5, 6, device=device)
    assert nn.MaxPool3d(2)(v).shape == (2, 3, 2, 2, 3) and nn.AvgPool3d(2)(v).shape == (
        2, 3, 2, 2, 3)
    assert nn.AdaptiveAvgPool3d((1, None, 2))(v).shape == (2, 3, 1, 5, 2)
    assert nn.AdaptiveMaxPool3d(1)(v[0]).shape == (3, 1, 1, 1)


def _max_pool3d_indices(x, k, s, p, d, ceil):
    """Each window's flat index (z * H + y) * W + x of its first maximum in (d, h, w)
    order over the cells inside the volume, by brute force (x float64 (N, C, D, H, W));
    a window whose depths are all padding: the first depth >= 0 (PyTorch's scan start)
    with its first row and column inside."""
    sizes = x.shape[2:]
    outs = pool_ref(x, k, s, p, d, ceil, "max").shape[2:] if all(
        sizes[i] + 2 * p[i] >= d[i] * (k[i] - 1) + 1 for i in range(3)) else None
    out = np.zeros(x.shape[:2] + tuple(outs), dtype=np.int64)
    for idx in itertools.product(*map(range, outs)):
        taps = [[o * s[i] - p[i] + j * d[i] for j in range(k[i])] for i, o in enumerate(idx)]
        inside = [[q for q in t if 0 <= q < sizes[i]] for i, t in enumerate(taps)]
        for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            best, where = -np.inf, None
            for z, y, w in itertools.product(*inside):
                if where is None or x[n, c, z, y, w] > best:
                    best, where = x[n, c, z, y, w], (z, y, w)
            if where is None:  # no depth inside
                z = next(q for q in taps[0] if q >= 0)
                where = (z, inside[1][0], inside[2][0])
            out[n, c][idx] = (where[0] * sizes[1] + where[1]) * sizes[2] + where[2]
    return out


@pytest.mark.parametrize("k, s, p, d, ceil", [((2, 2, 2), (2, 2, 2), (0, 0, 0), (1, 1, 1), False),
                                               ((3, 2, 3), (1, 2, 2), (1, 1, 1), (1, 2, 1), True),
                                               ((2, 3, 2), (2, 1, 2), (1, 0, 1), (2, 1, 1), False),
                                               ((3, 1, 2), (2, 1, 1), (0, 0, 1), (1, 1, 1), True)])
def test_max_pool3d_returns_indices(device, k, s, p, d, ceil):
    """max_pool3d(return_indices=True) (it raised NotImplementedError): values as the
    pool's, indices of the first maximum in (d, h, w) order inside the volume, against a
    brute force over small integers (many ties), with -inf cells and a padded depth; the
    gradient goes to those indices."""
    rng = np.random.default_rng(7)  # its own: the module's RNG feeds the other tests
    x = rng.integers(0, 4, size=(2, 2, 4, 5, 5)).astype(np.float64)
    x[x == 0] = -np.inf
    v = pdt.tensor(x, device=device, requires_grad=True)
    values, indices = F.max_pool3d(v, k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(values.detach().cpu().numpy(), pool_ref(x, k, s, p, d, ceil,
                                                                          "max"))
    np.testing.assert_array_equal(indices.cpu().numpy(), _max_pool3d_indices(x, k, s, p, d,
                                                                               ceil))
    assert indices.dtype == pdt.int64
    w = rng.normal(size=tuple(values.shape))
    (values * pdt.tensor(w, device=device)).sum().backward()
    grad = np.zeros_like(x)
    flat = indices.cpu().numpy()
    for n, c in itertools.product(range(2), range(2)):
        want = np.zeros(x[0, 0].size)
        np.add.at(want, flat[n, c].ravel(), w[n, c].ravel())
        grad[n, c] = want.reshape(x.shape[2:])
    np.testing.assert_allclose(v.grad.cpu().numpy(), grad, rtol=1e-12)
    one, one_idx = nn.MaxPool3d(k, s, p, d, return_indices=True, ceil_mode=ceil)(v[0].detach())
    np.testing.assert_array_equal(one_idx.cpu().numpy(), indices[0].cpu().numpy())


def _first_max(x, windows):
    """(values, flat D * H * W indices) of the first maximum over each window's cells,
    listed in (d, h, w) order (PyTorch's), for x (N, C, D, H, W)."""
    n, c, depth, h, w = x.shape
    flat = x.reshape(n, c, -1)
    out_shape = tuple(len(ax) for ax in windows)
    idx = np.zeros((n, c) + out_shape, dtype=np.int64)
    for pos in itertools.product(*(range(m) for m in out_shape)):
        cells = [(a * h + b) * w + q for a, b, q in itertools.product(
            *(ax[i] for ax, i in zip(windows, pos)))]
        vals = flat[:, :, cells]
        idx[(slice(None), slice(None)) + pos] = np.array(cells)[vals.argmax(2)]
    return np.take_along_axis(flat, idx.reshape(n, c, -1), 2).reshape(idx.shape), idx


@pytest.mark.parametrize("k, s, p, d, ceil", POOL_CASES)
def test_max_pool3d_indices(device, k, s, p, d, ceil):
    """max_pool3d(return_indices=True) (it raised NotImplementedError): the flat index
    of each window's first maximum in (d, h, w) order, padding never, ties included
    (integer values), unbatched too; the values as without indices."""
    x = RNG.integers(0, 3, (2, 3, 7, 6, 5)).astype(np.float64)
    t = pdt.tensor(x, device=device)
    got, idx = F.max_pool3d(t, k, s, p, d, ceil, return_indices=True)
    windows = [[[o * st - pa + j * di for j in range(ke) if 0 <= o * st - pa + j * di < size]
                for o in range(m)]
               for ke, st, pa, di, size, m in zip(k, s, p, d, x.shape[2:], got.shape[2:])]
    vals, want = _first_max(x, windows)
    np.testing.assert_array_equal(idx.cpu().numpy(), want)
    np.testing.assert_array_equal(got.cpu().numpy(), vals)
    one = F.max_pool3d(t[0], k, s, p, d, ceil, return_indices=True)[1]
    np.testing.assert_array_equal(one.cpu().numpy(), want[0])
    ints = F.max_pool3d(t.to(pdt.int32), k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(ints[1].cpu().numpy(), want)


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16])
def test_conv_transpose3d_half_backward(device, dtype):
    """float16/bfloat16 gradients of conv_transpose3d (its depth slices added in place
    into the output: index_add raised for those dtypes), within rounding of the
    float64 ones of the same (rounded) values."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((1, 2, 3, 3, 3)), rng.standard_normal((2, 3, 2, 2, 2))
    grads = {}
    for dt in (dtype, pdt.float64):
        x = pdt.tensor(a, device=device).to(dtype).to(dt).requires_grad_()
        w = pdt.tensor(b, device=device).to(dtype).to(dt).requires_grad_()
        y = F.conv_transpose3d(x, w, stride=2, padding=1)
        r = pdt.linspace(-1, 1, y.numel(), device=device).reshape(y.shape)
        (y * r.to(dt)).sum().backward()
        assert x.grad.dtype == w.grad.dtype == dt
        grads[dt] = [g.double().cpu().numpy() for g in (y.detach(), x.grad, w.grad)]
    tol = 1e-2 if dtype == pdt.float16 else 6e-2
    for got, want in zip(grads[dtype], grads[pdt.float64]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("size", [(3, 2, 4), (1, 1, 1), (7, 6, 5)])
def test_adaptive_pools(device, size):
    x = RNG.standard_normal((2, 3, 7, 6, 5))

    def bounds(n, m):
        return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]

    avg, mx = np.zeros((2, 3) + size), np.zeros((2, 3) + size)
    for (i, (a0, a1)), (j, (b0, b1)), (k, (c0, c1)) in itertools.product(
            *(enumerate(bounds(n, m)) for n, m in zip(x.shape[2:], size))):
        sub = x[:, :, a0:a1, b0:b1, c0:c1]
        avg[:, :, i, j, k], mx[:, :, i, j, k] = sub.mean((2, 3, 4)), sub.max((2, 3, 4))
    t = pdt.tensor(x, device=device)
    np.testing.assert_allclose(F.adaptive_avg_pool3d(t, size).cpu().numpy(), avg, rtol=1e-13)
    np.testing.assert_array_equal(F.adaptive_max_pool3d(t, size).cpu().numpy(), mx)
    ties = np.floor(x * 0.7)  # adaptive_max_pool3d's indices: the first maximum of a bin
    windows = [[list(range(a, b)) for a, b in bounds(n, m)] for n, m in zip(x.shape[2:], size)]
    vals, want = _first_max(ties, windows)
    got, idx = F.adaptive_max_pool3d(pdt.tensor(ties, device=device), size, return_indices=True)
    np.testing.assert_array_equal(got.cpu().numpy(), vals)
    np.testing.assert_array_equal(idx.cpu().numpy(), want)

    # a tie's gradient goes to the first maximum in (d, h, w) order, where the indices
    # point, with or without return_indices (the first came from a depth-first pool)
    tx = pdt.tensor(ties, device=device, requires_grad=True)
    F.adaptive_max_pool3d(tx, size).sum().backward()
    grad = np.zeros(ties.shape).reshape(2, 3, -1)
    for i, j in np.ndindex(2, 3):
        np.add.at(grad[i, j], want[i, j].ravel(), 1.0)
    np.testing.assert_array_equal(tx.grad.cpu().numpy(), grad.reshape(ties.shape))


@pytest.mark.parametrize("size", [0, (0, 2, 3), (2, None, 0)])
def test_adaptive_pools_3d_to_an_empty_output(device, size):
    """output_size 0 gives the empty output, as PyTorch's (it was refused); the
    output is still the input's function (its gradient: zeros)."""
    x = pdt.tensor(RNG.standard_normal((2, 3, 4, 5, 6)), device=device, requires_grad=True)
    want = (2, 3) + tuple(s if v is None else v for s, v in zip(
        (4, 5, 6), size if isinstance(size, tuple) else (size,) * 3))
    avg = F.adaptive_avg_pool3d(x, size)
    got, idx = F.adaptive_max_pool3d(x, size, return_indices=True)
    assert tuple(avg.shape) == tuple(got.shape) == tuple(idx.shape) == want
    assert avg.dtype == got.dtype == pdt.float64 and idx.dtype == pdt.int64
    assert tuple(nn.AdaptiveAvgPool3d(size)(x[0]).shape) == want[1:]
    (avg.sum() + got.sum()).backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros((2, 3, 4, 5, 6)))
    empty = pdt.zeros(0, 3, 4, 5, 6, device=device)  # no batch: any output_size
    assert tuple(F.adaptive_max_pool3d(empty, (2, 1, 3)).shape) == (0, 3, 2, 1, 3)
    with pytest.raises(ValueError, match=r"adaptive_avg_pool3d\(\): output_size must be "
                       r"non-negative, got output_size=\(2, -1, 2\)"):
        F.adaptive_avg_pool3d(x, (2, -1, 2))
    with pytest.raises(ValueError, match=r"adaptive_max_pool3d\(\): expected an input with "
                       r"non-zero spatial sizes, got shape \(1, 3, 4, 0, 6\)"):
        F.adaptive_max_pool3d(pdt.zeros(1, 3, 4, 0, 6, device=device), 2)


def test_batch_and_instance_norm_and_dropout_3d(device):
    x = RNG.standard_normal((4, 2, 3, 3, 3))
    bn = nn.BatchNorm3d(2).to(device=device, dtype=pdt.float64)
    y = bn(pdt.tensor(x, device=device)).detach().cpu().numpy()
    mu, var = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), 0.1 * mu.ravel(), rtol=1e-12)
    with pytest.raises(ValueError, match="expected 5D input"):
        bn(pdt.tensor(x[0], device=device))
    inorm = nn.InstanceNorm3d(2).to(device)
    z = inorm(pdt.tensor(x[0], device=device, dtype=pdt.float32)).cpu().numpy()
    ref = (x[0] - x[0].mean((1, 2, 3), keepdims=True)) / np.sqrt(
        x[0].var((1, 2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(z, ref, rtol=1e-4, atol=1e-5)
    pdt.manual_seed(0)
    out = F.dropout3d(pdt.ones(4, 8, 2, 2, 2, device=device), 0.5)
    per_channel = out.reshape(4, 8, -1).cpu().numpy()
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert set(np.unique(per_channel).tolist()) <= {0.0, 2.0}
    assert nn.Dropout3d().eval()(pdt.ones(2, 2, 2, 2, device=device)).sum().item() == 16.0
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):  # PyTorch's
        assert F.dropout3d(pdt.ones(2, 2, 2, device=device)).shape == (2, 2, 2)
    assert not isinstance(nn.AvgPool3d(2), nn.AvgPool2d)  # siblings, as in PyTorch


@pytest.mark.parametrize("layer, mode", [("ReflectionPad3d", "reflect"),
                                         ("ReplicationPad3d", "edge"),
                                         ("CircularPad3d", "wrap")])
def test_padding_layers_3d(device, layer, mode):
    x = RNG.standard_normal((1, 2, 3, 4, 5))
    pad = (1, 2, 0, 1, 2, 1)  # left, right, top, bottom, front, back
    got = getattr(nn, layer)(pad)(pdt.tensor(x, device=device)).cpu().numpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 0), (2, 1), (0, 1), (1, 2)),
                                              mode=mode))
    assert nn.ConstantPad3d(1, 0.5)(pdt.tensor(x[0], device=device)).shape == (2, 5, 6, 7)
    assert nn.ZeroPad3d((1, 0, 0, 0, 0, 2))(pdt.tensor(x, device=device)).shape == (
        1, 2, 5, 4, 6)
    with pytest.raises(ValueError, match="front, back"):
        nn.ZeroPad3d((1, 2))


@pytest.mark.parametrize("lazy, eager, args, x_shape", [
    ("LazyConv3d", "Conv3d", (4, 3), (2, 3, 4, 4, 4)),
    ("LazyConvTranspose3d", "ConvTranspose3d", (4, 2), (2, 3, 2, 3, 2)),
    ("LazyBatchNorm3d", "BatchNorm3d", (), (2, 3, 2, 2, 2))])
def test_lazy_3d_layers_become_their_layer(device, lazy, eager, args, x_shape):
    x = RNG.standard_normal(x_shape)
    layer = getattr(nn, lazy)(*args, device=device, dtype=pdt.float64)
    assert repr(layer).startswith(f"{lazy}(0, ")
    y = layer(pdt.tensor(x, device=device))
    assert type(layer) is getattr(nn, eager)
    ref = getattr(nn, eager)(*(x_shape[1:2] + args)).to(device=device, dtype=pdt.float64)
    ref.load_state_dict(layer.state_dict())
    np.testing.assert_allclose(y.detach().cpu().numpy(),
                               ref(pdt.tensor(x, device=device)).detach().cpu().numpy(),
                               rtol=1e-12, atol=1e-12)
    if eager == "Conv3d":
        w, b = layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()
        np.testing.assert_allclose(y.detach().cpu().numpy(),
                                   conv3d_ref(x, w, b, (1,) * 3, (0,) * 3, (1,) * 3, 1),
                                   rtol=1e-10, atol=1e-12)
    # from a state_dict: the shapes come from the loaded tensors
    fresh = getattr(nn, lazy)(*args, device=device, dtype=pdt.float64)
    fresh.load_state_dict(ref.state_dict())
    # lazy until its first call, as PyTorch's, then its layer
    assert type(fresh) is getattr(nn, lazy) and not fresh.has_uninitialized_params()
    fresh(pdt.ones(x_shape, device=device, dtype=pdt.float64))
    assert type(fresh) is getattr(nn, eager) and repr(fresh) == repr(ref)
    with pytest.raises(pdt.InvalidArgumentError, match=rf"{lazy}: expected .*5(D|-d)"):
        getattr(nn, lazy)(*args)(pdt.ones(2, 3, 4, device=device))
