"""nn.BatchNorm2d, nn.LazyBatchNorm2d and nn.LazyBatchNorm1d (D2L section 8.5), and a
ResNet block (section 8.6) built from Conv2d, BatchNorm2d and ReLU.

References: NumPy float64 per-channel statistics over (N, H, W), the running update
``(1 - momentum) * running + momentum * batch`` with the unbiased variance; results
agree to 1e-12 relative in float64 (1e-5 in float32), and with torch when it imports.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from test_gradcheck import gradcheck


def _t(a, device, dtype=pdt.float64):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device).to(dtype)


def ref_bn_train(x, w, b, eps):
    mean = x.mean((0, 2, 3), keepdims=True)
    var = x.var((0, 2, 3), keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * w.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1), mean.ravel(), \
        x.var((0, 2, 3), ddof=1)


def test_batchnorm2d_train_eval(device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 5, 6)) * 3 + 1
    bn = nn.BatchNorm2d(3, momentum=0.2, device=device, dtype=pdt.float64)
    with pdt.no_grad():
        bn.weight.copy_(_t([1.5, -2.0, 0.5], device))
        bn.bias.copy_(_t([0.1, 0.2, -0.3], device))
    w, b = np.array([1.5, -2.0, 0.5]), np.array([0.1, 0.2, -0.3])
    y = bn(_t(x, device))
    ref, mean, var = ref_bn_train(x, w, b, 1e-5)
    assert_close(y, ref, "float64")
    assert_close(bn.running_mean, 0.2 * mean, "float64")
    assert_close(bn.running_var, 0.8 + 0.2 * var, "float64")
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    x2 = rng.standard_normal((2, 3, 4, 4))
    rm, rv = 0.2 * mean, 0.8 + 0.2 * var
    ref2 = (x2 - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5) \
        * w.reshape(1, 3, 1, 1) + b.reshape(1, 3, 1, 1)
    assert_close(bn(_t(x2, device)), ref2, "float64")
    assert bn.num_batches_tracked.item() == 1  # eval changes no statistics
    f32 = nn.BatchNorm2d(3, device=device)(_t(x, device, pdt.float32))
    np.testing.assert_allclose(f32.detach().cpu().numpy(), ref_bn_train(x, np.ones(3),
                                                                        np.zeros(3), 1e-5)[0],
                               atol=1e-5, rtol=1e-5)


def test_batchnorm2d_options(device):
    x = _t(np.random.default_rng(1).standard_normal((3, 2, 4, 4)), device)
    bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False, device=device,
                        dtype=pdt.float64)
    assert bn.weight is None and bn.running_mean is None
    bn.eval()  # no running statistics: the batch's, in evaluation too
    assert_close(bn(x), ref_bn_train(x.cpu().numpy(), np.ones(2), np.zeros(2), 1e-5)[0],
                 "float64")
    cum = nn.BatchNorm2d(2, momentum=None, device=device, dtype=pdt.float64)
    xs = [np.random.default_rng(k).standard_normal((2, 2, 3, 3)) for k in range(3)]
    for a in xs:
        cum(_t(a, device))
    assert_close(cum.running_mean, np.mean([a.mean((0, 2, 3)) for a in xs], 0), "float64")
    assert repr(nn.BatchNorm2d(4, eps=1e-3)) == ("BatchNorm2d(4, eps=0.001, momentum=0.1, "
                                                 "affine=True, bias=True, "
                                                 "track_running_stats=True)")
    assert list(nn.BatchNorm2d(2).state_dict()) == \
        ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


@pytest.mark.parametrize("layer", ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                                   "LazyBatchNorm1d", "LazyBatchNorm2d"])
def test_batch_norm_without_bias(device, layer):
    """bias=False (keyword-only, as PyTorch's): a weight but no bias parameter, so the
    output is x_hat * weight; the repr says bias=False (affine=False too)."""
    shape = {"1d": (4, 3), "2d": (4, 3, 2, 2), "3d": (2, 3, 2, 2, 2)}[layer[-2:]]
    args = () if layer.startswith("Lazy") else (3,)
    bn = getattr(nn, layer)(*args, device=device, dtype=pdt.float64, bias=False)
    with pytest.raises(TypeError):
        getattr(nn, layer)(*args, 1e-5, 0.1, True, True, None, None, False)
    x = np.random.default_rng(2).standard_normal(shape) + 5.0
    y = bn(_t(x, device))
    assert bn.bias is None and [n for n, _ in bn.named_parameters()] == ["weight"]
    assert list(bn.state_dict()) == ["weight", "running_mean", "running_var",
                                     "num_batches_tracked"]
    dims = (0,) + tuple(range(2, len(shape)))
    assert_close(y, (x - x.mean(dims, keepdims=True))
                 / np.sqrt(x.var(dims, keepdims=True) + 1e-5), "float64")
    name = layer.replace("Lazy", "")
    assert repr(bn) == (f"{name}(3, eps=1e-05, momentum=0.1, affine=True, bias=False, "
                        f"track_running_stats=True)")
    assert repr(getattr(nn, name)(3, affine=False)).endswith(
        "affine=False, bias=False, track_running_stats=True)")


def test_batchnorm2d_gradcheck(device):
    rng = np.random.default_rng(2)
    w, b = _t(rng.standard_normal(2), device), _t(rng.standard_normal(2), device)

    def fn(x):
        return pdt.nn.functional.batch_norm(x, None, None, w, b, True)

    gradcheck(fn, [rng.standard_normal((3, 2, 3, 2))], device)


def test_batchnorm2d_bad_input(device):
    bn = nn.BatchNorm2d(3, device=device)
    d = str(device)
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected 4D input \(N, C, H, W\), got "
                                         r"3D input of shape \(3, 4, 4\) \(on " + d):
        bn(pdt.zeros(3, 4, 4, device=device))
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected 3 features \(dimension 1 of "
                                         r"the input\), got 2 in an input of shape "
                                         r"\(2, 2, 4, 4\) \(on " + d):
        bn(pdt.zeros(2, 2, 4, 4, device=device))
    with pytest.raises(TypeError, match=r"the input is pydevtensor.float64"):
        bn(pdt.zeros(2, 3, 4, 4, device=device, dtype=pdt.float64))
    with pytest.raises(ValueError):  # one value per channel in training
        bn(pdt.zeros(1, 3, 1, 1, device=device))
    assert bn.num_batches_tracked.item() == 0  # the refused batches changed nothing
    with pytest.raises(TypeError, match=r"num_features must be an int"):
        nn.BatchNorm2d(2.0)


def test_lazy_batchnorm(device):
    bn = nn.LazyBatchNorm2d(device=device, dtype=pdt.float64)
    assert repr(bn.running_mean) == "<UninitializedBuffer>"
    bn.to(device)  # moving the placeholders keeps them placeholders
    assert isinstance(bn.running_var, nn.UninitializedBuffer)
    # (another layer's: a state_dict holds an uninitialized parameter itself, which the
    # first forward then gives its shape, as in PyTorch)
    empty = nn.LazyBatchNorm2d(device=device, dtype=pdt.float64).state_dict()
    x = np.random.default_rng(3).standard_normal((2, 5, 3, 3))
    y = bn(_t(x, device))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 5
    assert bn.running_mean.device == device and bn.running_mean.dtype == pdt.float64
    assert_close(y, ref_bn_train(x, np.ones(5), np.zeros(5), 1e-5)[0], "float64")
    assert_close(bn.running_mean, 0.1 * x.mean((0, 2, 3)), "float64")
    fresh = nn.LazyBatchNorm2d(device=device, dtype=pdt.float64)
    fresh.load_state_dict(empty)  # uninitialized into uninitialized: stays lazy
    assert type(fresh) is nn.LazyBatchNorm2d
    fresh.load_state_dict(bn.state_dict())
    assert type(fresh) is nn.LazyBatchNorm2d and fresh.num_features == 5  # till called
    assert fresh.running_mean.tolist() == bn.running_mean.tolist()
    fresh.eval()(pdt.ones(1, 5, 2, 2, device=device, dtype=pdt.float64))
    assert type(fresh) is nn.BatchNorm2d  # the first call, as PyTorch's
    one = nn.LazyBatchNorm1d(device=device)
    assert tuple(one(pdt.randn(4, 6, device=device)).shape) == (4, 6)
    assert type(one) is nn.BatchNorm1d and tuple(one.weight.shape) == (6,)
    with pytest.raises(ValueError, match=r"expected 4D input"):
        nn.LazyBatchNorm2d()(pdt.zeros(2, 3))
    bad = nn.LazyBatchNorm2d()
    with pytest.raises(RuntimeError, match=r"must all have shape \(num_features,\)"):
        bad.load_state_dict({"weight": pdt.ones(3), "bias": pdt.ones(4),
                             "running_mean": pdt.ones(3), "running_var": pdt.ones(3),
                             "num_batches_tracked": pdt.tensor(0)})
    assert type(bad) is nn.LazyBatchNorm2d


class Residual(nn.Module):
    """D2L's residual block (section 8.6), with a 1x1 convolution on the shortcut."""

    def __init__(self, cin, cout, stride, device):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1, stride=stride, device=device,
                               dtype=pdt.float64)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, device=device, dtype=pdt.float64)
        self.conv3 = nn.Conv2d(cin, cout, 1, stride=stride, device=device, dtype=pdt.float64)
        self.bn1 = nn.BatchNorm2d(cout, device=device, dtype=pdt.float64)
        self.bn2 = nn.BatchNorm2d(cout, device=device, dtype=pdt.float64)

    def forward(self, x):
        y = pdt.nn.functional.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return pdt.nn.functional.relu(y + self.conv3(x))


def test_resnet_block_trains(device):
    pdt.manual_seed(0)
    blk = Residual(3, 6, 2, device)
    x = pdt.randn(4, 3, 8, 8, device=device, dtype=pdt.float64)
    y = blk(x)
    assert tuple(y.shape) == (4, 6, 4, 4)
    y.sum().backward()
    for name, p in blk.named_parameters():
        assert p.grad is not None and p.grad.device == device, name
    net = nn.Sequential(blk, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
                        nn.Linear(6, 2, device=device, dtype=pdt.float64))
    opt = pdt.optim.SGD(net.parameters(), lr=0.1)
    target = pdt.tensor([0, 1, 0, 1], device=device)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(b < a for a, b in zip(losses, losses[1:])) and losses[-1] < 0.8 * losses[0], \
        losses


def test_resnet_block_matches_torch(device):
    torch = torch_or_skip()
    pdt.manual_seed(1)
    blk = Residual(3, 4, 2, device)
    tblk = torch.nn.ModuleDict({
        "conv1": torch.nn.Conv2d(3, 4, 3, padding=1, stride=2),
        "conv2": torch.nn.Conv2d(4, 4, 3, padding=1),
        "conv3": torch.nn.Conv2d(3, 4, 1, stride=2),
        "bn1": torch.nn.BatchNorm2d(4), "bn2": torch.nn.BatchNorm2d(4)}).double()
    with torch.no_grad():
        for name, t in tblk.state_dict().items():
            t.copy_(torch.tensor(blk.state_dict()[name].cpu().numpy()))

    def tforward(x):
        y = torch.relu(tblk["bn1"](tblk["conv1"](x)))
        return torch.relu(tblk["bn2"](tblk["conv2"](y)) + tblk["conv3"](x))

    x = np.random.default_rng(4).standard_normal((2, 3, 7, 7))
    tx = torch.tensor(x, requires_grad=True)
    px = _t(x, device).requires_grad_()
    tout, pout = tforward(tx), blk(px)
    r = np.random.default_rng(5).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(r)).sum().backward()
    (pout * _t(r, device)).sum().backward()
    assert_close(pout, tout.detach().numpy(), "float64")
    assert_close(px.grad, tx.grad.numpy(), "float64")
    for name, p in blk.named_parameters():
        tp = dict(tblk.named_parameters())[name]
        np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-10,
                                   atol=1e-10)
    for name in ("bn1.running_mean", "bn2.running_var"):
        np.testing.assert_allclose(blk.state_dict()[name].cpu().numpy(),
                                   tblk.state_dict()[name].numpy(), rtol=1e-12)


@pytest.mark.parametrize("layer, shape", [("BatchNorm2d", (3, 2, 4, 5)), ("BatchNorm1d", (6, 2))])
def test_momentum_none_counts_batches_on_the_host(device, layer, shape):
    """momentum=None (the cumulative average) keeps its count on the host: no copy from
    a GPU, under transfer_guard('disallow') too (found by a reviewer: item() on
    num_batches_tracked); right after load_state_dict and reset_running_stats."""
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(shape) * (i + 1) + i for i in range(4)]
    ts = [pdt.tensor(x, device=device) for x in xs]
    axes = tuple(i for i in range(len(shape)) if i != 1)
    means = [x.mean(axis=axes) for x in xs]
    bn = getattr(nn, layer)(2, momentum=None, device=device, dtype=pdt.float64)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        bn(ts[0])
        bn(ts[1])
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), (means[0] + means[1]) / 2,
                               rtol=1e-12)
    other = getattr(nn, layer)(2, momentum=None, device=device, dtype=pdt.float64)
    other.load_state_dict(bn.state_dict())  # count 2: the third batch weighs 1/3
    other(ts[2])
    np.testing.assert_allclose(other.running_mean.cpu().numpy(), sum(means[:3]) / 3,
                               rtol=1e-12)
    assert int(other.num_batches_tracked.cpu()) == 3
    other.reset_running_stats()  # count 0: the next batch weighs 1
    other(ts[3])
    np.testing.assert_allclose(other.running_mean.cpu().numpy(), means[3], rtol=1e-12)


def test_momentum_none_count_follows_moves_and_copies(device):
    """The host count follows Module.to (the buffer replaced by a moved copy),
    copy.deepcopy and pickle (Note [the host count]): no copy from a GPU after them,
    and the next batch still weighs 1/k."""
    import copy
    import pickle
    rng = np.random.default_rng(6)
    xs = [rng.standard_normal((4, 2, 3, 3)) + i for i in range(4)]
    means = [x.mean(axis=(0, 2, 3)) for x in xs]
    bn = nn.BatchNorm2d(2, momentum=None, dtype=pdt.float64)
    bn(pdt.tensor(xs[0]))
    bn.to(device)  # the buffers are replaced by copies on device
    ts = [pdt.tensor(x, device=device) for x in xs]
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        bn(ts[1])
        twin = copy.deepcopy(bn)
        twin(ts[2])
    again = pickle.loads(pickle.dumps(twin))  # pickling copies a GPU's tensors, openly
    for m in (twin, again):  # the copies' holders are keyed on the copied buffers (the CPU
        t = m.num_batches_tracked  # reads its buffer, so only this shows it there)
        assert m._host_count.tensor is t
        assert m._host_count.version == (t._version, t.data._version)
    d2h = pdt.transfer_stats()["device_to_host"]["count"]
    with pdt.transfer_guard("disallow"):
        again(ts[3])
    assert pdt.transfer_stats()["device_to_host"]["count"] == d2h
    assert d2h == (0 if device.type == "cpu" else 5)  # 5 tensors pickled
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), sum(means[:2]) / 2, rtol=1e-12)
    np.testing.assert_allclose(twin.running_mean.cpu().numpy(), sum(means[:3]) / 3,
                               rtol=1e-12)
    np.testing.assert_allclose(again.running_mean.cpu().numpy(), sum(means) / 4, rtol=1e-12)
    assert int(again.num_batches_tracked.cpu()) == 4


@pytest.mark.parametrize("how", ["data", "numpy", "fill_"])
def test_momentum_none_sees_a_reset_made_any_way(device, how):
    """momentum=None weighs batch k by 1/k from num_batches_tracked; after the buffers
    are reset through .data (its own version counter), through a NumPy array of them (on
    the CPU) or in place, the next batch is weighed as the first: running_mean is its
    mean (it was a third of it after two batches, from a stale host count)."""
    if how == "numpy" and pdt.device(device).type != "cpu":
        pytest.skip("numpy() of a GPU tensor is refused")
    rng = np.random.default_rng(3)
    a, b, c = (pdt.tensor(rng.standard_normal((4, 2)), device=device) for _ in range(3))
    bn = nn.BatchNorm1d(2, momentum=None).double().to(device)
    bn(a)
    bn(b)
    if how == "data":
        bn.running_mean.data.zero_()
        bn.running_var.data.fill_(1.0)
        bn.num_batches_tracked.data.zero_()
    elif how == "numpy":
        bn.running_mean.numpy()[:] = 0.0
        bn.running_var.numpy()[:] = 1.0
        bn.num_batches_tracked.numpy()[...] = 0
    else:
        bn.running_mean.fill_(0.0)
        bn.running_var.fill_(1.0)
        bn.num_batches_tracked.fill_(0)
    bn(c)
    assert int(bn.num_batches_tracked.item()) == 1
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), c.cpu().numpy().mean(0),
                               rtol=1e-15)


@pytest.mark.parametrize("dtype, spacing", [("float16", 2.0**-10), ("bfloat16", 2.0**-7)])
@pytest.mark.parametrize("layer, shape", [("BatchNorm1d", (6, 3)), ("BatchNorm2d", (4, 3, 2, 2)),
                                          ("BatchNorm3d", (2, 3, 2, 2, 2)),
                                          ("InstanceNorm1d", (2, 3, 5))])
def test_half_input_with_float32_layer(device, dtype, spacing, layer, shape):
    """PyTorch's mixed norm: a float16/bfloat16 input with float32 parameters and running
    statistics gives an output in the input's dtype, computed in float32 (within a
    spacing of the half type of the float64 result), and float32 running statistics."""
    half = getattr(pdt, dtype)
    x = pdt.from_numpy(np.random.default_rng(1).normal(3.0, 2.0, shape)).to(half)
    xs = x.double().numpy()  # the rounded inputs
    kw = {"affine": True, "track_running_stats": True} if "Instance" in layer else {}
    m = getattr(nn, layer)(3, **kw).to(device)
    with pdt.no_grad():
        m.weight.copy_(pdt.tensor([0.5, 1.0, 2.0]))
        m.bias.copy_(pdt.tensor([1.0, -1.0, 0.0]))
    y = m(x.to(device))
    assert y.dtype == half and m.running_mean.dtype == pdt.float32
    dims = (0,) + tuple(range(2, len(shape))) if "Batch" in layer else tuple(range(2, len(shape)))
    mean, var = xs.mean(dims, keepdims=True), xs.var(dims, keepdims=True)
    per = (1, 3) + (1,) * (len(shape) - 2)
    want = (xs - mean) / np.sqrt(var + 1e-5) * np.array([0.5, 1, 2]).reshape(per) \
        + np.array([1.0, -1, 0]).reshape(per)
    err = np.abs(y.detach().cpu().double().numpy() - want).max()
    assert err <= 2 * spacing * np.abs(want).max()
    n = xs.size // 3 if "Batch" in layer else xs.size // 6
    ubvar = var * n / (n - 1)
    if "Instance" in layer:  # the batch's averages of each sample's statistics
        mean, ubvar = mean.mean(0), ubvar.mean(0)
    assert_close(m.running_mean.cpu().numpy(), 0.1 * mean.ravel())
    assert_close(m.running_var.cpu().numpy(), 0.9 + 0.1 * ubvar.ravel())
    m.eval()
    y = m(x.to(device))
    assert y.dtype == half
    want = (xs - m.running_mean.double().cpu().numpy().reshape(per)) \
        / np.sqrt(m.running_var.double().cpu().numpy().reshape(per) + 1e-5) \
        * np.array([0.5, 1, 2]).reshape(per) + np.array([1.0, -1, 0]).reshape(per)
    err = np.abs(y.detach().cpu().double().numpy() - want).max()
    assert err <= 2 * spacing * np.abs(want).max()


def test_other_dtype_mixes_are_refused(device):
    """Only a half-type input with a float32 layer mixes, as in PyTorch: a float64 input
    with a float32 layer, a float32 input with a float16 layer, and a float16 input with
    a bfloat16 layer raise, naming both dtypes."""
    for layer_dtype, input_dtype in ((pdt.float32, pdt.float64), (pdt.float16, pdt.float32),
                                     (pdt.bfloat16, pdt.float16)):
        bn = nn.BatchNorm1d(3, device=device, dtype=layer_dtype)
        with pytest.raises(TypeError, match=f"the input is {input_dtype}.*are {layer_dtype}"):
            bn(pdt.zeros(4, 3, device=device, dtype=input_dtype))
        assert bn.num_batches_tracked.item() == 0


def test_functional_batch_norm_keeps_the_half_dtype(device):
    """F.batch_norm of a float16 input with float32 statistics and parameters: a float16
    output (not a float32 one), the statistics updated in float32."""
    x = pdt.tensor([[1.0, 10.0], [3.0, 30.0]], device=device).half()
    mean, var = pdt.zeros(2, device=device), pdt.ones(2, device=device)
    y = nn.functional.batch_norm(x, mean, var, pdt.ones(2, device=device),
                                 pdt.zeros(2, device=device), training=True, eps=1e-12)
    assert y.dtype == pdt.float16
    assert_close(y.float().cpu().numpy(), np.array([[-1.0, -1], [1, 1]]))
    assert_close(mean.cpu().numpy(), np.array([0.2, 2.0]))
