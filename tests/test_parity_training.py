"""Training machinery as PyTorch 2.15 runs it (found side by side): schedulers resumed
with last_epoch >= 0 keep the rate in force, ReduceLROnPlateau covers groups added later,
Uniform's support is closed, integer supports refuse inf, Poisson KL's zero rates,
DataLoader's default collate_fn, clip thresholds as tensors, autocast's 3-d convolutions
and adaptive pooling."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn, optim
from pydevtensor.distributions import Binomial, Poisson, Uniform, kl_divergence
from pydevtensor.optim import lr_scheduler as L


def _opt(lr=0.1, initial=0.2):
    opt = optim.SGD([pdt.zeros(2, requires_grad=True)], lr=lr)
    opt.param_groups[0]["initial_lr"] = initial
    return opt


def _rates(opt, sched, n=4):
    out = [opt.param_groups[0]["lr"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            opt.step()
            sched.step()
            out.append(opt.param_groups[0]["lr"])
    return out


def test_resumed_schedulers_keep_the_rate_in_force_then_go_on():
    """PyTorch's _is_initial: made with last_epoch=k, a schedule that computes its rate
    from the one in force keeps that rate, and the steps after go on from it."""
    lr, gamma = 0.1, 0.5
    opt = _opt(lr)
    got = _rates(opt, L.ExponentialLR(opt, gamma, last_epoch=3))
    np.testing.assert_allclose(got, [lr * gamma ** k for k in range(5)], rtol=1e-15)
    opt = _opt(lr)
    got = _rates(opt, L.MultiplicativeLR(opt, lambda e: 0.9, last_epoch=5))
    np.testing.assert_allclose(got, [lr * 0.9 ** k for k in range(5)], rtol=1e-15)
    opt = _opt(lr)
    got = _rates(opt, L.PolynomialLR(opt, total_iters=8, power=1.0, last_epoch=3))
    want = [lr]
    for e in range(5, 9):  # made at epoch 3: the first step is to epoch 4, kept
        want.append(want[-1] * (1 - e / 8) / (1 - (e - 1) / 8))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    opt = _opt(lr)
    got = _rates(opt, L.CosineAnnealingLR(opt, T_max=10, last_epoch=5))
    assert got[0] == lr and got[1] != lr
    opt = _opt(lr)
    got = _rates(opt, L.LinearLR(opt, total_iters=8, last_epoch=3))
    assert got[0] == lr


@pytest.mark.parametrize("min_lr,want", [(0.0, [0.001, 0.01]), (0.005, [0.005, 0.01])])
def test_reduce_on_plateau_covers_groups_added_later(min_lr, want):
    opt = optim.SGD([pdt.zeros(2, requires_grad=True)], lr=0.1)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=min_lr)
    opt.add_param_group({"params": [pdt.zeros(2, requires_grad=True)], "lr": 1.0})
    for _ in range(3):
        sched.step(1.0)
    np.testing.assert_allclose([g["lr"] for g in opt.param_groups], want, rtol=1e-12)


def test_reduce_on_plateau_with_a_list_refuses_a_new_group():
    opt = optim.SGD([pdt.zeros(2, requires_grad=True)], lr=0.1)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
    opt.add_param_group({"params": [pdt.zeros(2, requires_grad=True)], "lr": 1.0})
    with pytest.raises(RuntimeError, match="min_lr was a list"):
        for _ in range(2):
            sched.step(1.0)


def test_uniform_support_is_closed_and_integer_supports_refuse_inf(device):
    u = Uniform(pdt.tensor(0.0, device=device), pdt.tensor(1.0, device=device))
    one = pdt.tensor(1.0, device=device)
    assert u.support.check(one).item() and repr(u.support).startswith("Interval(")
    assert u.log_prob(one).item() == -math.inf and u.cdf(one).item() == 1.0
    values = pdt.tensor([math.inf, 2.0, 2.5, math.nan, -1.0], device=device)
    assert Poisson(1.0).support.check(values).tolist() == [False, True, False, False, False]
    with pytest.raises(ValueError, match="total_count"):
        Binomial(pdt.tensor([math.inf], device=device), pdt.tensor([0.5], device=device))


@pytest.mark.parametrize("rp,rq", [(0.0, 1.0), (1.0, 0.0), (2.0, 3.0)])
def test_poisson_kl_at_zero_rates(device, rp, rq):
    p = pdt.tensor(rp, dtype=pdt.float64, device=device, requires_grad=True)
    q = pdt.tensor(rq, dtype=pdt.float64, device=device, requires_grad=True)
    kl = kl_divergence(Poisson(p, validate_args=False), Poisson(q, validate_args=False))
    kl.backward()
    with np.errstate(divide="ignore", invalid="ignore"):
        lp, lq = np.log(rp), np.log(rq)
        want = rp * (lp - lq) - (rp - rq)
        want_p = (lp - lq) + 1.0 - 1.0 if rp else math.nan
        want_q = -rp / rq + 1.0 if rq else -math.inf
    np.testing.assert_allclose(kl.item(), want, rtol=1e-15)
    np.testing.assert_allclose(p.grad.item(), want_p, rtol=1e-15)
    np.testing.assert_allclose(q.grad.item(), want_q, rtol=1e-15)


def test_dataloader_shows_its_default_collate_fn():
    from pydevtensor.utils.data import DataLoader, TensorDataset, default_collate
    from pydevtensor.utils.data import default_convert
    data = TensorDataset(pdt.arange(6.0))
    assert DataLoader(data, batch_size=2).collate_fn is default_collate
    assert DataLoader(data, batch_size=None).collate_fn is default_convert
    own = lambda batch: len(batch)  # noqa: E731
    assert DataLoader(data, batch_size=2, collate_fn=own).collate_fn is own
    assert [b[0].tolist() for b in DataLoader(data, batch_size=4)] == [[0, 1, 2, 3], [4, 5]]


def test_clip_thresholds_may_be_one_element_tensors(device):
    w = nn.Parameter(pdt.tensor([3.0, 4.0], device=device))
    w.grad = pdt.tensor([3.0, 4.0], device=device)
    total = nn.utils.clip_grad_norm_([w], pdt.tensor(1.0))
    assert total.item() == 5.0
    np.testing.assert_allclose(w.grad.cpu().numpy(), [3 / (5 + 1e-6), 4 / (5 + 1e-6)],
                               rtol=1e-6)
    nn.utils.clip_grad_value_([w], pdt.tensor(0.5))
    assert w.grad.cpu().tolist() == [0.5, 0.5]


def test_autocast_lowers_3d_convolutions_but_not_adaptive_pooling():
    x = pdt.ones(1, 2, 4, 5, 6)
    with pdt.autocast("cpu", dtype=pdt.bfloat16):
        assert nn.Conv3d(2, 3, 2)(x).dtype == pdt.bfloat16
        assert nn.ConvTranspose3d(2, 3, 2)(x).dtype == pdt.bfloat16
        img = pdt.arange(25.0).reshape(1, 1, 5, 5) / 7
        pooled = nn.functional.adaptive_avg_pool2d(img, 2)
        assert pooled.dtype == pdt.float32
    want = nn.functional.adaptive_avg_pool2d(img, 2)
    assert pooled.tolist() == want.tolist()  # not rounded to bfloat16
