"""nn.SyncBatchNorm within one process (PyTorch's falls back to the batch norm of the
process there) and its convert_sync_batchnorm; nn.modules.batchnorm's name for it.

Outputs and running statistics over several train/eval steps against
test_normalization's NumPy float64 restatement of PyTorch's batch norm (1e-12),
gradients by central differences.  Within one process, a group of k processes holding
the same input is faked (all_reduce multiplies by k): the statistics, output, gradients
and refusals against the batch norm of k copies of the input in NumPy float64
(distributed_syncbn.numpy_batch_norm; tests/distributed_syncbn.py checks real processes
with different inputs through MPI)."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from test_conv import _t  # a float64 NumPy array as a tensor on device
from test_gradcheck import gradcheck
from test_normalization import NumpyBatchNorm
from distributed_syncbn import numpy_batch_norm


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (2, 3, 2, 3), (2, 3, 2, 1, 3)])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_sync_batchnorm_steps_match_numpy(device, shape, momentum):
    rng = np.random.default_rng(len(shape))
    bn = nn.SyncBatchNorm(3, momentum=momentum, dtype=pdt.float64).to(device)
    ref = NumpyBatchNorm(3, momentum=momentum)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    with pdt.no_grad():
        bn.weight.copy_(_t(w, device))
        bn.bias.copy_(_t(b, device))
    for step, training in enumerate((True, True, False, True, False)):
        x = rng.standard_normal(shape) * 2 + 1
        bn.train(training)
        got = bn(_t(x, device))
        np.testing.assert_allclose(got.detach().cpu().numpy(), ref(x, w, b, training),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(bn.running_mean.cpu().numpy(), ref.mean, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(bn.running_var.cpu().numpy(), ref.var, rtol=1e-12,
                                   atol=1e-12)
    assert int(bn.num_batches_tracked) == 3
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    bn.train()
    gradcheck(lambda t: bn(t), [rng.standard_normal(shape)], device)


def test_sync_batchnorm_options_and_names():
    bn = nn.SyncBatchNorm(4, eps=1e-3, momentum=None, affine=False,
                          track_running_stats=False, process_group="g", bias=False)
    assert repr(bn) == ("SyncBatchNorm(4, eps=0.001, momentum=None, affine=False, bias=False, "
                        "track_running_stats=False)")
    assert bn.process_group == "g" and bn.weight is None and bn.running_mean is None
    assert nn.modules.batchnorm.SyncBatchNorm is nn.SyncBatchNorm
    assert isinstance(bn, nn.modules.batchnorm._BatchNorm)
    out = bn.eval()(pdt.ones(2, 4, 3))  # no running statistics: the batch's
    assert float(out.abs().max()) == 0.0


def test_convert_sync_batchnorm_shares_the_layers_state(device):
    net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3, momentum=None),
                        nn.Sequential(nn.BatchNorm1d(3, affine=False), nn.ReLU()),
                        nn.BatchNorm3d(3, bias=False)).to(device)
    net[1](pdt.ones(2, 3, 3, 3, device=device))  # one step counted
    net.eval()
    old = [net[1], net[2][0], net[3]]
    keys = list(net.state_dict())
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="g")
    assert out is net and list(net.state_dict()) == keys
    for before, after in zip(old, [net[1], net[2][0], net[3]]):
        assert type(after) is nn.SyncBatchNorm and after.process_group == "g"
        assert after.weight is before.weight and after.bias is before.bias
        assert after.running_mean is before.running_mean
        assert after.running_var is before.running_var
        assert after.num_batches_tracked is before.num_batches_tracked
        assert (after.momentum, after.affine, after.training) == (
            before.momentum, before.affine, False)
    assert net[3].bias is None and net[2][0].weight is None
    net.train()
    net[1](pdt.zeros(2, 3, 2, 2, device=device))  # momentum None: this batch weighs 1/2
    assert int(old[0].num_batches_tracked) == 2
    np.testing.assert_allclose(old[0].running_mean.cpu().numpy(), 0.5, atol=1e-7)
    single = nn.BatchNorm1d(5)
    assert type(nn.SyncBatchNorm.convert_sync_batchnorm(single)) is nn.SyncBatchNorm
    assert type(single) is nn.BatchNorm1d  # the original, unchanged
    lazy = nn.Sequential(nn.LazyBatchNorm1d(device=device))
    with pytest.raises(ValueError, match=r"the lazy layer LazyBatchNorm1d has no num_features "
                                         r"yet; call the model once"):
        nn.SyncBatchNorm.convert_sync_batchnorm(lazy)
    lazy(pdt.ones(2, 5, device=device))
    assert nn.SyncBatchNorm.convert_sync_batchnorm(lazy)[0].num_features == 5


def test_sync_batchnorm_bad_input(device, monkeypatch):
    bn = nn.SyncBatchNorm(3).to(device)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input"):
        bn(pdt.ones(3, device=device))
    with pytest.raises(ValueError, match=r"number of input channels should be non-zero"):
        nn.SyncBatchNorm(3)(pdt.ones(2, 0, 4))
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when "
                                         r"training, got input size \(1, 3\)"):
        bn(pdt.ones(1, 3, device=device))
    with pytest.raises(ValueError, match=r"expected 3 features"):
        bn(pdt.ones(2, 4, device=device))
    # a group of one: this process's statistics and its refusal of one value
    from pydevtensor import distributed as dist
    monkeypatch.setattr(dist, "is_available", lambda: True)
    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dist, "get_world_size", lambda group=None: 1)
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel"):
        bn(pdt.ones(1, 3, device=device))
    bn.train()(pdt.ones(2, 3, device=device))
    assert int(bn.num_batches_tracked) == 1


def _fake_group(monkeypatch, k, calls):
    """A group of k processes that all hold this process's tensors: all_reduce (SUM)
    multiplies in place by k."""
    from pydevtensor import distributed as dist
    monkeypatch.setattr(dist, "is_available", lambda: True)
    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dist, "get_world_size", lambda group=None: k)

    def all_reduce(t, op=None, group=None, async_op=False):
        calls.append(tuple(t.shape))
        with pdt.no_grad():
            t.mul_(k)
    monkeypatch.setattr(dist, "all_reduce", all_reduce)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("dtype,tol", [(pdt.float64, 1e-12), (pdt.float32, 2e-5)])
def test_statistics_and_gradients_over_a_group(device, monkeypatch, k, dtype, tol):
    calls = []
    _fake_group(monkeypatch, k, calls)
    rng = np.random.default_rng(k)
    x, dy = rng.standard_normal((2, 3, 4)) * 3 + 1, rng.standard_normal((2, 3, 4))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    bn = nn.SyncBatchNorm(3, momentum=None, dtype=dtype).to(device)
    with pdt.no_grad():
        bn.weight.copy_(_t(w, device))
        bn.bias.copy_(_t(b, device))
    xt = _t(x, device).to(dtype).requires_grad_()
    out = bn(xt)
    assert calls == [(4,), (3,)]  # (sums, count), then the centred squares
    out.backward(_t(dy, device).to(dtype))
    assert calls == [(4,), (3,), (3,), (4,)]  # the backward sums the gradients too
    whole = np.concatenate([x] * k)
    y, dx, dw, db, mean, var = numpy_batch_norm(whole, w, b, bn.eps, np.concatenate([dy] * k))
    n = whole.size // 3
    for got, want in ((out.detach(), y[:2]), (xt.grad, dx[:2]),
                      (bn.weight.grad, dw[:2].sum(axis=(0, 2))),
                      (bn.bias.grad, db[:2].sum(axis=(0, 2))),
                      (bn.running_mean, mean), (bn.running_var, var * n / (n - 1))):
        np.testing.assert_allclose(got.double().cpu().numpy(), want, rtol=tol, atol=tol)
    assert int(bn.num_batches_tracked) == 1
    bn.eval()  # evaluation: the running statistics, no collective
    bn(_t(x, device).to(dtype))
    assert len(calls) == 4


def test_one_value_in_a_group_is_refused_before_anything_changes(device, monkeypatch):
    calls = []
    _fake_group(monkeypatch, 2, calls)
    bn = nn.SyncBatchNorm(3).to(device)
    bn(pdt.ones(1, 3, device=device))  # one value here, two in the group: taken
    assert int(bn.num_batches_tracked) == 1
    from pydevtensor import distributed as dist
    monkeypatch.setattr(dist, "all_reduce", lambda t, op=None, group=None, async_op=False:
                        calls.append(tuple(t.shape)))  # the other process holds nothing
    before = bn.running_mean.clone(), bn.running_var.clone()
    with pytest.raises(ValueError, match=r"SyncBatchNorm: Expected more than 1 value per "
                                         r"channel when training, got 1 over the 2 "
                                         r"processes of the group \(this process's input: "
                                         r"shape \(1, 3\)"):
        bn(pdt.ones(1, 3, device=device))
    assert int(bn.num_batches_tracked) == 1
    assert pdt.equal(bn.running_mean, before[0]) and pdt.equal(bn.running_var, before[1])
