"""nn.LayerNorm, nn.BatchNorm1d and nn.functional's layer_norm, batch_norm, normalize,
cosine_similarity and pairwise_distance on every device, against NumPy float64
references: float64 inputs within 1e-12 (relative and absolute), float32 inputs within
2e-6 relative + 2e-6 absolute of the float64 reference computed from the same float32
values (the normalised outputs are O(1)).  Gradients by central differences in float64
(test_gradcheck's helper); BatchNorm1d's train/eval behaviour over several steps
against a NumPy reimplementation of PyTorch's; torch cross-checks when it imports."""
import io
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

TOL = {"float32": 2e-6, "float64": 1e-12}


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _close(got, ref, dtype):
    tol = TOL[dtype]
    np.testing.assert_allclose(_np(got), ref, rtol=tol, atol=tol)


def _data(shape, seed, dtype="float64", scale=3.0, shift=1.5):
    """Values of dtype, returned with their float64 copy (the reference's input)."""
    a = (np.random.default_rng(seed).standard_normal(shape) * scale + shift).astype(dtype)
    return a, a.astype(np.float64)


def np_layer_norm(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


class NumpyBatchNorm:
    """PyTorch's BatchNorm1d, in float64: batch mean and biased variance to normalise in
    training, the unbiased variance in the running update, the running statistics in
    evaluation; momentum None: the cumulative average."""

    def __init__(self, c, eps=1e-5, momentum=0.1, track=True):
        self.c, self.eps, self.momentum, self.track = c, eps, momentum, track
        self.mean, self.var, self.count = np.zeros(c), np.ones(c), 0

    def __call__(self, x, w, b, training):
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, self.c) + (1,) * (x.ndim - 2)
        if training or not self.track:
            mean, var = x.mean(axis=axes), x.var(axis=axes)
            if training and self.track:
                self.count += 1
                f = 1 / self.count if self.momentum is None else self.momentum
                m = x.size // self.c
                self.mean = (1 - f) * self.mean + f * mean
                self.var = (1 - f) * self.var + f * var * m / (m - 1)
        else:
            mean, var = self.mean, self.var
        y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + self.eps)
        return y * w.reshape(shape) + b.reshape(shape)


# ---- LayerNorm ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,normalized", [((4, 5), (5,)), ((2, 3, 4), (3, 4)),
                                              ((6,), 6)])
def test_layer_norm_values(device, dtype, shape, normalized):
    a, ref = _data(shape, 1, dtype)
    k = 1 if isinstance(normalized, int) else len(normalized)
    nshape = shape[len(shape) - k:]
    w, wr = _data(nshape, 2, dtype, 1.0, 0.5)
    b, br = _data(nshape, 3, dtype, 1.0, 0.0)
    x = pdt.tensor(a, device=device)
    tw, tb = pdt.tensor(w, device=device), pdt.tensor(b, device=device)
    _close(F.layer_norm(x, normalized, tw, tb, eps=1e-3), np_layer_norm(ref, k, wr, br, 1e-3),
           dtype)
    ln = nn.LayerNorm(normalized, device=device, dtype=getattr(pdt, dtype))
    assert tuple(ln.weight.shape) == nshape and ln.weight.device == device
    _close(ln.weight, np.ones(nshape), dtype)
    _close(ln.bias, np.zeros(nshape), dtype)
    _close(ln(x), np_layer_norm(ref, k), dtype)
    ln.eval()  # the same in evaluation: no running statistics
    _close(ln(x), np_layer_norm(ref, k), dtype)


def test_layer_norm_options(device):
    a, ref = _data((3, 4), 4)
    x = pdt.tensor(a, device=device)
    plain = nn.LayerNorm(4, elementwise_affine=False, device=device, dtype=pdt.float64)
    assert plain.weight is None and plain.bias is None and list(plain.parameters()) == []
    _close(plain(x), np_layer_norm(ref, 1), "float64")
    nobias = nn.LayerNorm([4], bias=False, eps=0.1, device=device, dtype=pdt.float64)
    assert [n for n, _ in nobias.named_parameters()] == ["weight"]
    _close(nobias(x), np_layer_norm(ref, 1, eps=0.1), "float64")
    assert repr(nobias) == "LayerNorm((4,), eps=0.1, elementwise_affine=True, bias=False)"
    assert repr(plain) == "LayerNorm((4,), eps=1e-05, elementwise_affine=False, bias=False)"


def test_layer_norm_gradients(device):
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((3, 2, 4)), rng.standard_normal(4), rng.standard_normal(4)
    gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), [x, w, b], device)
    gradcheck(lambda x: F.layer_norm(x, (2, 4), eps=0.01), [x], device)


# ---- BatchNorm1d ----

def _params(c, seed, dtype, device):
    w, wr = _data((c,), seed, dtype, 0.5, 1.0)
    b, br = _data((c,), seed + 1, dtype, 0.5, 0.0)
    return (pdt.tensor(w, device=device), pdt.tensor(b, device=device)), (wr, br)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5)])
@pytest.mark.parametrize("momentum", [0.1, 0.4, None])
def test_batch_norm_train_and_eval_over_several_steps(device, dtype, shape, momentum):
    c = shape[1]
    bn = nn.BatchNorm1d(c, eps=1e-4, momentum=momentum, device=device,
                        dtype=getattr(pdt, dtype))
    (w, b), (wr, br) = _params(c, 10, dtype, device)
    with pdt.no_grad():
        bn.weight.copy_(w)
        bn.bias.copy_(b)
    ref = NumpyBatchNorm(c, 1e-4, momentum)
    for step, training in enumerate([True, True, True, False, True, False, False]):
        bn.train(training)
        a, x64 = _data(shape, 100 + step, dtype, scale=1 + step, shift=step - 2)
        got = bn(pdt.tensor(a, device=device))
        want = ref(x64, wr, br, training)
        _close(got, want, dtype)
        _close(bn.running_mean, ref.mean, dtype)
        _close(bn.running_var, ref.var, dtype)
        assert bn.num_batches_tracked.item() == ref.count
        assert bn.num_batches_tracked.dtype == pdt.int64
        assert bn.running_mean.device == device and bn.num_batches_tracked.device == device
    assert ref.count == 4


def test_batch_norm_without_running_stats_or_affine(device):
    bn = nn.BatchNorm1d(3, affine=False, track_running_stats=False, device=device,
                        dtype=pdt.float64)
    assert list(bn.parameters()) == [] and list(bn.buffers()) == []
    assert bn.running_mean is None and list(bn.state_dict()) == []
    ref = NumpyBatchNorm(3, track=False)
    one, zero = np.ones(3), np.zeros(3)
    for training in (True, False):  # batch statistics in evaluation too
        bn.train(training)
        a, x64 = _data((5, 3, 2), 7)
        _close(bn(pdt.tensor(a, device=device)), ref(x64, one, zero, training), "float64")


def test_batch_norm_functional(device):
    a, x64 = _data((6, 4), 8)
    x = pdt.tensor(a, device=device)
    rm, rv = pdt.zeros(4, device=device, dtype=pdt.float64), pdt.ones(4, device=device,
                                                                         dtype=pdt.float64)
    ref = NumpyBatchNorm(4, momentum=0.3)
    _close(F.batch_norm(x, rm, rv, training=True, momentum=0.3),
           ref(x64, np.ones(4), np.zeros(4), True), "float64")
    _close(rm, ref.mean, "float64")
    _close(rv, ref.var, "float64")
    _close(F.batch_norm(x, rm, rv), ref(x64, np.ones(4), np.zeros(4), False), "float64")
    _close(F.batch_norm(x, None, None, training=True),
           NumpyBatchNorm(4, track=False)(x64, np.ones(4), np.zeros(4), True), "float64")
    # running statistics that cannot hold one value each are refused before either is
    # written (running_mean was updated, then running_var's update raised)
    before = rm.cpu().tolist()
    for bad_var in (pdt.ones(1, device=device, dtype=pdt.float64).expand(4), rm):
        with pytest.raises(pdt.InvalidArgumentError, match="stride of 0|share memory"):
            F.batch_norm(x, rm, bad_var, training=True)
        assert rm.cpu().tolist() == before


def test_batch_norm_gradients(device):
    rng = np.random.default_rng(11)
    x, w, b = rng.standard_normal((4, 3, 2)), rng.standard_normal(3), rng.standard_normal(3)
    gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [x, w, b],
              device)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    gradcheck(lambda x, w, b: F.batch_norm(
        x, pdt.tensor(rm, device=device), pdt.tensor(rv, device=device), w, b), [x, w, b],
        device)
    gradcheck(lambda x: F.batch_norm(x, None, None, training=True), [x[:, :, 0]], device)


def test_batch_norm_trains_with_autograd(device):
    """A step of SGD through a BatchNorm1d moves weight and bias as the float64 analytic
    gradient says: d sum(y * r) / d bias = sum of r over the batch."""
    bn = nn.BatchNorm1d(2, device=device, dtype=pdt.float64)
    opt = pdt.optim.SGD(bn.parameters(), lr=0.5)
    a, x64 = _data((5, 2), 12)
    r = np.random.default_rng(13).standard_normal((5, 2))
    (bn(pdt.tensor(a, device=device)) * pdt.tensor(r, device=device)).sum().backward()
    opt.step()
    xhat = (x64 - x64.mean(0)) / np.sqrt(x64.var(0) + 1e-5)
    _close(bn.bias, -0.5 * r.sum(0), "float64")
    _close(bn.weight, 1 - 0.5 * (r * xhat).sum(0), "float64")



@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (0, 3)), (nn.BatchNorm1d, (0, 3, 4)),
                                        (nn.BatchNorm1d, (2, 3, 0)),
                                        (nn.BatchNorm2d, (0, 3, 2, 2))])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_of_an_empty_batch_keeps_its_running_statistics(device, cls, shape,
                                                                   momentum):
    """A training step on a batch with no values leaves running_mean/var as they were (they
    became NaN, 0/0, and every later evaluation gave NaN), as PyTorch's; the step is
    still counted, and a later non-empty batch updates them as usual."""
    m = cls(3, momentum=momentum).to(device)
    assert m(pdt.zeros(shape, device=device)).shape == shape
    np.testing.assert_array_equal(m.running_mean.cpu().numpy(), np.zeros(3))
    np.testing.assert_array_equal(m.running_var.cpu().numpy(), np.ones(3))
    assert m.num_batches_tracked.item() == 1
    xs = (4, 3) + tuple(max(s, 2) for s in shape[2:])
    x = np.arange(float(np.prod(xs))).reshape(xs)
    m(pdt.tensor(x, dtype=pdt.float32, device=device))
    axes = (0,) + tuple(range(2, x.ndim))
    w = 0.1 if momentum else 0.5  # momentum None: the cumulative average of 2 batches
    np.testing.assert_allclose(m.running_mean.cpu().numpy(), w * x.mean(axis=axes), rtol=1e-6)
    rm, rv = pdt.zeros(3, device=device), pdt.ones(3, device=device)
    F.batch_norm(pdt.zeros(0, 3, 5, device=device), rm, rv, training=True)
    assert rm.tolist() == [0., 0., 0.] and rv.tolist() == [1., 1., 1.]


def test_batch_norm_state_dict_round_trip_and_moves(device):
    bn = nn.BatchNorm1d(3)
    for seed in range(3):
        bn(pdt.tensor(_data((4, 3), seed, "float32")[0]))
    sd = bn.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    buf = io.BytesIO()
    pdt.save(sd, buf)
    buf.seek(0)
    other = nn.BatchNorm1d(3).to(device)
    assert other.load_state_dict(pdt.load(buf, map_location=device)) == ([], [])
    for name in ("running_mean", "running_var"):
        np.testing.assert_array_equal(_np(getattr(other, name)), _np(getattr(bn, name)))
        assert getattr(other, name).device == device
    assert other.num_batches_tracked.item() == 3
    assert other.num_batches_tracked.dtype == pdt.int64
    other.double()
    assert other.running_mean.dtype == pdt.float64 and other.num_batches_tracked.dtype == pdt.int64
    other.eval()
    a, x64 = _data((4, 3), 9, "float64")
    ref = NumpyBatchNorm(3)
    ref.mean, ref.var = _np(bn.running_mean), _np(bn.running_var)
    _close(other(pdt.tensor(a, device=device)), ref(x64, np.ones(3), np.zeros(3), False),
           "float64")


def test_batch_norm_bad_input(device):
    bn = nn.BatchNorm1d(4).to(device)
    # a bad shape: an InvalidArgumentError, both a ValueError and PyTorch's RuntimeError
    with pytest.raises(pdt.InvalidArgumentError,
                       match=rf"BatchNorm1d: expected 4 features \(dimension 1 of the input\), "
                             rf"got 3 in an input of shape \(2, 3\) \(on {device}\)"):
        bn(pdt.zeros(2, 3, device=device))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(N, C\) or \(N, C, L\), "
                                         r"got 4D input"):
        bn(pdt.zeros(2, 4, 1, 1, device=device))
    with pytest.raises(ValueError, match=rf"Expected more than 1 value per channel when "
                                         rf"training, got input size \(1, 4\) \(on {device}\)"):
        bn(pdt.zeros(1, 4, device=device))
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel"):
        bn(pdt.zeros(1, 4, 1, device=device))
    with pytest.raises(TypeError, match=r"the input is pydevtensor.float64 but the layer's "
                                        r"parameters and buffers are pydevtensor.float32"):
        bn(pdt.zeros(2, 4, dtype=pdt.float64, device=device))
    # refused batches changed nothing; in evaluation one sample is fine
    assert bn.num_batches_tracked.item() == 0
    np.testing.assert_array_equal(_np(bn.running_mean), np.zeros(4))
    assert tuple(bn.eval()(pdt.zeros(1, 4, device=device)).shape) == (1, 4)
    with pytest.raises(ValueError, match=r"num_features must be >= 1, got 0"):
        nn.BatchNorm1d(0)
    with pytest.raises(TypeError, match=r"momentum must be a number or None, got str"):
        nn.BatchNorm1d(2, momentum="0.1")
    with pytest.raises(ValueError, match=rf"running_mean of shape \(3,\) does not match the "
                                         rf"input's 2 channels .*on {device}"):
        F.batch_norm(pdt.zeros(3, 2, device=device), pdt.zeros(3, device=device),
                     pdt.ones(3, device=device))
    with pytest.raises(TypeError, match=rf"input must be floating point, got pydevtensor.int64 "
                                        rf"\(on {device}\)"):
        F.batch_norm(pdt.zeros(3, 2, dtype=pdt.int64, device=device), None, None, training=True)


def test_layer_norm_bad_input(device):
    ln = nn.LayerNorm((3, 4)).to(device)
    with pytest.raises(RuntimeError, match=rf"LayerNorm: expected an input of shape \(\*, 3, 4\) "
                                         rf"\(normalized_shape=\(3, 4\)\), got \(2, 4, 3\) "
                                         rf"\(on {device}\)"):
        ln(pdt.zeros(2, 4, 3, device=device))
    with pytest.raises(ValueError, match=r"normalized_shape must be one or more ints >= 0"):
        nn.LayerNorm(())
    with pytest.raises(TypeError, match=r"normalized_shape must be an int or a sequence"):
        nn.LayerNorm(2.5)
    with pytest.raises(ValueError, match=r"eps must be a number >= 0, got -1"):
        nn.LayerNorm(2, eps=-1)


# ---- normalize, cosine_similarity, pairwise_distance ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_distances(device, dtype):
    a, x = _data((4, 3), 20, dtype)
    b, y = _data((4, 3), 21, dtype)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    for p in (2.0, 1.0, 3.0):
        norm = (np.abs(x) ** p).sum(1, keepdims=True) ** (1 / p)
        _close(F.normalize(ta, p=p), x / np.maximum(norm, 1e-12), dtype)
    _close(F.normalize(ta, dim=0), x / np.sqrt((x * x).sum(0, keepdims=True)), dtype)
    cos = (x * y).sum(1) / (np.maximum(np.linalg.norm(x, axis=1), 1e-8)
                            * np.maximum(np.linalg.norm(y, axis=1), 1e-8))
    _close(F.cosine_similarity(ta, tb), cos, dtype)
    _close(F.cosine_similarity(ta, tb[:1]),  # broadcast
           (x * y[:1]).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y[0])), dtype)
    _close(F.cosine_similarity(ta, tb, dim=0),
           (x * y).sum(0) / (np.linalg.norm(x, axis=0) * np.linalg.norm(y, axis=0)), dtype)
    for p in (2.0, 1.0):
        d = (np.abs(x - y + 1e-6) ** p).sum(-1) ** (1 / p)
        _close(F.pairwise_distance(ta, tb, p=p), d, dtype)
        _close(F.pairwise_distance(ta, tb, p=p, keepdim=True), d[:, None], dtype)
    zero = pdt.zeros(2, 3, device=device, dtype=getattr(pdt, dtype))
    _close(F.normalize(zero), np.zeros((2, 3)), dtype)  # eps keeps 0 / 0 away
    _close(F.cosine_similarity(zero, zero), np.zeros(2), dtype)


def test_distance_gradients(device):
    rng = np.random.default_rng(22)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    gradcheck(lambda x: F.normalize(x), [x], device)
    gradcheck(lambda x: F.normalize(x, p=3.0, dim=0), [x], device)
    gradcheck(lambda x, y: F.cosine_similarity(x, y), [x, y], device)
    gradcheck(lambda x, y: F.pairwise_distance(x, y), [x, y], device)


def test_normalize_over_several_dims_and_out(device):
    # dim a tuple: the norm over all of them (PyTorch's); out= as the elementwise ops'
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    t = pdt.tensor(x, device=device)
    for p in (2.0, 1.0, math.inf):
        for dim in ((1, 2), [-1, 0], (1,)):
            axes = tuple(k % 3 for k in dim)
            norm = (np.abs(x).max(axis=axes, keepdims=True) if p == math.inf else
                    (np.abs(x) ** p).sum(axis=axes, keepdims=True) ** (1 / p))
            _close(F.normalize(t, p=p, dim=dim), x / norm, "float64")
    gradcheck(lambda v: F.normalize(v, dim=(0, 1)), [x[0]], device)
    out = pdt.empty(0, device=device, dtype=pdt.float64)
    assert F.normalize(t, out=out) is out and tuple(out.shape) == (2, 3, 4)
    _close(out, x / np.sqrt((x * x).sum(1, keepdims=True)), "float64")
    with pytest.raises(RuntimeError, match="out="):
        F.normalize(t.clone().requires_grad_(), out=pdt.empty_like(t))
    with pytest.raises(RuntimeError, match=r"dim \[1, 1\] names a dimension twice"):
        F.normalize(t, dim=(1, 1))
    with pytest.raises(IndexError, match=r"Dimension out of range .*but got 3\)"):
        F.normalize(t, dim=(1, 3))


def test_distances_bad_input(device):
    with pytest.raises(ValueError, match=rf"cosine_similarity\(\): the shapes \(2, 3\) and "
                                         rf"\(4, 3\) do not broadcast \(on {device}\)"):
        F.cosine_similarity(pdt.zeros(2, 3, device=device), pdt.zeros(4, 3, device=device))
    with pytest.raises(IndexError, match=rf"normalize\(\): Dimension out of range \(expected "
                                         rf"to be in range of \[-2, 1\], but got 2\) \(a "
                                         rf"tensor of shape \(2, 3\) on {device}\)"):
        F.normalize(pdt.zeros(2, 3, device=device), dim=2)
    with pytest.raises(TypeError, match=rf"x1 must be floating point, got "
                                        rf"pydevtensor.bool \(on {device}\)"):
        F.pairwise_distance(pdt.zeros(2, dtype=pdt.bool, device=device),
                            pdt.zeros(2, device=device))


# ---- torch cross-checks ----

def test_against_torch_batch_norm_and_layer_norm():
    torch = torch_or_skip()
    rng = np.random.default_rng(30)
    ours, theirs = nn.BatchNorm1d(3, dtype=pdt.float64), torch.nn.BatchNorm1d(3).double()
    for step, training in enumerate([True, True, False, True, False]):
        ours.train(training)
        theirs.train(training)
        x = rng.standard_normal((6, 3, 2)) * (step + 1)
        np.testing.assert_allclose(_np(ours(pdt.tensor(x))),
                                   theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12,
                                   atol=1e-12)
    for name, t in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[name]), t.numpy(), rtol=1e-12)
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(_np(nn.LayerNorm((3, 4), dtype=pdt.float64)(pdt.tensor(x))),
                               torch.nn.LayerNorm((3, 4)).double()(torch.tensor(x))
                               .detach().numpy(), rtol=1e-12, atol=1e-12)
    y = rng.standard_normal((2, 3, 4))
    tf = torch.nn.functional
    for ours_f, theirs_f in ((F.cosine_similarity, tf.cosine_similarity),
                             (F.pairwise_distance, tf.pairwise_distance)):
        np.testing.assert_allclose(_np(ours_f(pdt.tensor(x), pdt.tensor(y))),
                                   theirs_f(torch.tensor(x), torch.tensor(y)).numpy(),
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(F.normalize(pdt.tensor(x), p=3.0, dim=2)),
                               tf.normalize(torch.tensor(x), p=3.0, dim=2).numpy(), rtol=1e-12)


def test_batch_norm_argument_errors(device):
    """One running statistic without the other, and momentum=None in the function, are
    refused naming batch_norm (found by a reviewer: AttributeError / bare TypeError)."""
    x = pdt.randn(4, 2, device=device)
    before = x.tolist()
    with pytest.raises(ValueError, match="batch_norm.*both be given"):
        F.batch_norm(x, pdt.zeros(2, device=device), None, training=True)
    with pytest.raises(TypeError, match="batch_norm.*momentum must be a number"):
        F.batch_norm(x, pdt.zeros(2, device=device), pdt.ones(2, device=device),
                     training=True, momentum=None)
    assert x.tolist() == before


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_layer_norm_of_the_half_types_rounds_once(device, dtype):
    """float16/bfloat16 statistics in float32, the result rounded once: within half a
    spacing of the half type of the float64 result of the rounded inputs (in float16 the
    mean of 1024 values near 100 was 10x further off; found by a reviewer)."""
    rng = np.random.default_rng(5)
    x = pdt.tensor(rng.standard_normal((4, 1024)) * 3 + 100, device=device).to(
        getattr(pdt, dtype))
    a = x.to(pdt.float64).cpu().numpy()
    got = F.layer_norm(x, (1024,)).to(pdt.float64).cpu().numpy()
    assert F.layer_norm(x, (1024,)).dtype == x.dtype
    want = (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5)
    eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
    spacing = eps * 2.0 ** np.floor(np.log2(np.abs(want) + 1e-30))
    assert (np.abs(got - want) <= spacing / 2 * 1.01 + 1e-6).all()


def test_layer_norm_of_an_empty_normalized_shape(device):
    """A 0 in normalized_shape is an empty block, as PyTorch's (it was refused); () and
    negative sizes raise PyTorch's RuntimeError (a ValueError too)."""
    x = pdt.zeros(2, 3, 0, device=device, dtype=pdt.float64).requires_grad_()
    for out in (F.layer_norm(x, (3, 0)), F.rms_norm(x, (0,)),
                nn.LayerNorm(0).to(device).double()(x), nn.RMSNorm([3, 0]).to(device).double()(x)):
        assert tuple(out.shape) == (2, 3, 0)
        out.sum().backward()
    assert tuple(x.grad.shape) == (2, 3, 0)
    assert tuple(nn.LayerNorm([0, 2]).weight.shape) == (0, 2)
    for bad in ((), (-5,), [2, -1]):
        with pytest.raises(RuntimeError, match=r"normalized_shape must be one or more ints >= 0"):
            F.layer_norm(pdt.zeros(2, 3, device=device), bad)
        with pytest.raises(RuntimeError, match=r"normalized_shape must be one or more ints >= 0"):
            nn.RMSNorm(bad)


def test_batch_norm_refuses_eps_and_statistics_that_give_wrong_values(device):
    """As PyTorch's F.batch_norm: eps must be > 0 with the batch's statistics (-1e-3 gave
    NaN for a channel of variance below 1e-3) and >= 0 with the running ones; integer
    running statistics are refused (an update truncated 0.2 to 0).  Nothing changes."""
    x = pdt.tensor([[1.0, 10.0], [1.02, 30.0]], device=device, dtype=pdt.float64)
    mean, var = pdt.zeros(2, device=device, dtype=pdt.float64), pdt.ones(2, device=device,
                                                                         dtype=pdt.float64)
    for eps in (0.0, -1e-3):
        with pytest.raises(ValueError, match=rf"eps must be positive during training, but got "
                                             rf"{eps}"):
            F.batch_norm(x, mean, var, training=True, eps=eps)
    with pytest.raises(ValueError, match=r"eps must be positive during training"):
        F.batch_norm(x, None, None, eps=0.0)  # no running statistics: the batch's
    with pytest.raises(ValueError, match=r"eps must be non-negative, but got -0.5"):
        F.batch_norm(x, mean, var, eps=-0.5)
    assert np.array_equal(_np(mean), [0, 0]) and np.array_equal(_np(var), [1, 1])
    _close(F.batch_norm(x, mean, var, eps=0.0), _np(x), "float64")  # evaluation: eps 0 is fine
    ints = (pdt.zeros(2, device=device, dtype=pdt.int64),
            pdt.ones(2, device=device, dtype=pdt.int64))
    with pytest.raises(TypeError, match=r"running_mean must be floating point, got "
                                        r"pydevtensor.int64"):
        F.batch_norm(x, *ints, training=True)
    assert np.array_equal(_np(ints[0]), [0, 0])
    bn = nn.BatchNorm1d(2, eps=0.0).to(device).double()
    with pytest.raises(ValueError, match=r"BatchNorm1d: batch_norm eps must be positive"):
        bn(x)
    assert int(bn.num_batches_tracked) == 0 and np.array_equal(_np(bn.running_mean), [0, 0])
    _close(bn.eval()(x), _np(x), "float64")
