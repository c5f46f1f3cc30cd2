"""nn.SyncBatchNorm within one process (PyTorch's falls back to the batch norm of the
process there) and its convert_sync_batchnorm; nn.modules.batchnorm's name for it.

Outputs and running statistics over several train/eval steps against
test_normalization's NumPy float64 restatement of PyTorch's batch norm (1e-12),
gradients by central differences; the refusal of a training step in a process group
of several processes (whose statistics are not implemented) with the group faked."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from test_conv import _t  # a float64 NumPy array as a tensor on device
from test_gradcheck import gradcheck
from test_normalization import NumpyBatchNorm


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
    # a group of several processes: training refused before anything changes
    from pydevtensor import distributed as dist
    monkeypatch.setattr(dist, "is_available", lambda: True)
    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dist, "get_world_size", lambda group=None: 4)
    with pytest.raises(NotImplementedError, match=r"a process group of 4 processes"):
        bn(pdt.ones(2, 3, device=device))
    assert int(bn.num_batches_tracked) == 0
    bn.eval()
    assert tuple(bn(pdt.ones(2, 3, device=device)).shape) == (2, 3)  # evaluation runs
    monkeypatch.setattr(dist, "get_world_size", lambda group=None: 1)
    bn.train()(pdt.ones(2, 3, device=device))  # a group of one: this process's statistics
    assert int(bn.num_batches_tracked) == 1
