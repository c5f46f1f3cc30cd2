"""optim.swa_utils (AveragedModel, SWALR, update_bn and the averaging functions), as
PyTorch's, on every device, against NumPy."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn, optim
from pydevtensor.optim import swa_utils


def _train(net, device, steps, after_step):
    opt = optim.SGD(net.parameters(), lr=0.1)
    g = pdt.Generator().manual_seed(3)
    for _ in range(steps):
        x = pdt.randn(8, 3, generator=g).to(device)
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        after_step()
    return opt


def test_swa_is_the_mean_and_ema_the_recursion(device):
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).to(device)
    swa = swa_utils.AveragedModel(net)
    ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    by_fn = swa_utils.AveragedModel(net, avg_fn=swa_utils.get_ema_avg_fn(0.9))
    seen = []

    def record():
        for m in (swa, ema, by_fn):
            m.update_parameters(net)
        seen.append([p.detach().cpu().numpy().copy() for p in net.parameters()])

    _train(net, device, 6, record)
    assert int(swa.n_averaged.cpu()) == 6
    for k, p in enumerate(swa.module.parameters()):
        np.testing.assert_allclose(p.detach().cpu().numpy(),
                                   np.mean([s[k] for s in seen], 0), rtol=1e-5, atol=1e-7)
    for k, (p, q) in enumerate(zip(ema.module.parameters(), by_fn.module.parameters())):
        want = seen[0][k]
        for s in seen[1:]:
            want = 0.9 * want + 0.1 * s[k]
        np.testing.assert_allclose(p.detach().cpu().numpy(), want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(q.detach().cpu().numpy(), want, rtol=1e-5, atol=1e-7)
    # buffers follow the model without use_buffers
    assert pdt.equal(swa.module[1].running_mean, net[1].running_mean)
    assert swa.module[0].weight is not net[0].weight  # a deep copy
    assert sorted(swa.state_dict())[:1] == ["module.0.bias"] and "n_averaged" in swa.state_dict()


def test_update_bn_recomputes_the_statistics(device):
    pdt.manual_seed(1)
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, momentum=0.5)).to(device)
    batches = [pdt.randn(16, 3, device=device) for _ in range(3)]
    net.eval()
    swa_utils.update_bn([(b, 0) for b in batches], net)
    assert not net.training and net[1].momentum == 0.5
    h = pdt.cat([net[0](b) for b in batches]).detach().cpu().numpy().astype(np.float64)
    per = [net[0](b).detach().cpu().numpy().astype(np.float64) for b in batches]
    # the cumulative average (momentum None) of the three batch means
    np.testing.assert_allclose(net[1].running_mean.cpu().numpy(),
                               np.mean([p.mean(0) for p in per], 0), rtol=1e-5, atol=1e-6)
    assert int(net[1].num_batches_tracked.cpu()) == 3 and h.shape == (48, 4)
    swa_utils.update_bn(batches, nn.Linear(2, 2))  # no batch norm: nothing to do


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_anneals_to_swa_lr(strategy):
    net = nn.Linear(2, 1)
    opt = optim.SGD([{"params": net.weight}, {"params": net.bias, "lr": 0.4}], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=[0.1, 0.2], anneal_epochs=4,
                            anneal_strategy=strategy)
    f = (lambda t: (1 - math.cos(math.pi * t)) / 2) if strategy == "cos" else (lambda t: t)
    for epoch in range(1, 7):
        opt.step()
        sched.step()
        a = f(min(1.0, epoch / 4))
        assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * a + 1.0 * (1 - a))
        assert opt.param_groups[1]["lr"] == pytest.approx(0.2 * a + 0.4 * (1 - a))
    with pytest.raises(ValueError, match="anneal_strategy must be one of .cos. or .linear."):
        swa_utils.SWALR(opt, 0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs"):
        swa_utils.SWALR(opt, 0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="one per param group"):
        swa_utils.SWALR(opt, [0.1, 0.2, 0.3])


def test_use_buffers_averages_integer_buffers_by_truncation(device):
    """use_buffers=True with the SWA mean: num_batches_tracked (int64) is averaged and
    truncated, as PyTorch's copy_ (it raised a dtype error)."""
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).to(device)
    swa = swa_utils.AveragedModel(net, use_buffers=True)
    means = []
    for _ in range(3):
        net(pdt.randn(4, 2, device=device))
        swa.update_parameters(net)
        means.append(net[1].running_mean.detach().cpu().numpy().copy())
    np.testing.assert_allclose(swa.module[1].running_mean.cpu().numpy(), np.mean(means, 0),
                               rtol=1e-5, atol=1e-7)
    assert int(swa.module[1].num_batches_tracked.cpu()) == 1  # 1, 1 + 1/2, 1 + 2/3: truncated


def test_ema_decay_out_of_range_and_both_averaging_functions_are_refused():
    # PyTorch's ValueError and AssertionError; the decay was taken (1.5: an average
    # that grows away from the model) and multi_avg_fn silently won over avg_fn
    for make in (swa_utils.get_ema_avg_fn, swa_utils.get_ema_multi_avg_fn):
        for decay in (1.5, -0.1, float("nan")):
            with pytest.raises(ValueError, match=rf"Invalid decay value {decay} provided. "
                                                 r"Please provide a value in \[0,1\] range."):
                make(decay)
        assert callable(make(0.0)) and callable(make(1.0))
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be "
                                             "provided"):
        swa_utils.AveragedModel(nn.Linear(2, 1), avg_fn=swa_utils.get_ema_avg_fn(),
                                multi_avg_fn=swa_utils.get_ema_multi_avg_fn())
