"""optim.lr_scheduler: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR and LambdaLR
give the closed-form rates (base * gamma ** (e // step_size), ...) to 1e-12, and
PyTorch's very values where torch is importable (the same recurrences in float64, so the
same bits); two parameter groups; schedulers chained on one optimizer; state_dict round
trips; resuming; step(epoch); the errors; and on every device, SGD's steps use the
scheduled rate (against NumPy in float64)."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, torch_or_skip
from pydevtensor import nn, optim
from pydevtensor.optim import lr_scheduler as sched

EPOCHS = 25
BASES = (0.1, 0.03)  # two parameter groups


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _closed(name, base, e):
    if name == "StepLR":
        return base * 0.5 ** (e // 3)
    if name == "MultiStepLR":
        return base * 0.1 ** sum(m <= e for m in (2, 5, 5, 9))
    if name == "ExponentialLR":
        return base * 0.9 ** e
    if name == "CosineAnnealingLR":
        return 0.001 + (base - 0.001) * (1 + math.cos(math.pi * e / 7)) / 2
    return base * (0.95 ** e if base == BASES[0] else 1 / (1 + e))


def _make(module, name, opt):
    if name == "StepLR":
        return module.StepLR(opt, step_size=3, gamma=0.5)
    if name == "MultiStepLR":
        return module.MultiStepLR(opt, milestones=[5, 2, 9, 5], gamma=0.1)
    if name == "ExponentialLR":
        return module.ExponentialLR(opt, gamma=0.9)
    if name == "CosineAnnealingLR":
        return module.CosineAnnealingLR(opt, T_max=7, eta_min=0.001)
    return module.LambdaLR(opt, [lambda e: 0.95 ** e, lambda e: 1 / (1 + e)])


NAMES = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR"]


def _groups(make_param):
    return [{"params": [make_param()], "lr": BASES[0]}, {"params": [make_param()], "lr": BASES[1]}]


def _run(module, name, opt, epochs=EPOCHS):
    """The rates of epochs 0 .. epochs-1, as get_last_lr() and param_groups say."""
    s = _make(module, name, opt)
    rates = []
    for _ in range(epochs):
        got = s.get_last_lr()
        assert got == [g["lr"] for g in opt.param_groups]
        rates.append(got)
        opt.step()
        s.step()
    return rates, s


def _ours():
    return optim.SGD(_groups(lambda: nn.Parameter(pdt.zeros(2))), lr=1.0)


@pytest.mark.parametrize("name", NAMES)
def test_rates_follow_the_closed_form(name):
    rates, s = _run(sched, name, _ours())
    want = [[_closed(name, b, e) for b in BASES] for e in range(EPOCHS)]
    np.testing.assert_allclose(rates, want, rtol=1e-12, atol=1e-15)
    assert s.last_epoch == EPOCHS and s.base_lrs == list(BASES)
    assert all(g["initial_lr"] == b for g, b in zip(s.optimizer.param_groups, BASES))


@pytest.mark.parametrize("name", NAMES)
def test_rates_are_pytorchs(name):
    torch = torch_or_skip()
    topt = torch.optim.SGD(_groups(lambda: torch.zeros(2, requires_grad=True)), lr=1.0)
    theirs, _ = _run(torch.optim.lr_scheduler, name, topt)
    ours, _ = _run(sched, name, _ours())
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)


def test_chained_schedulers_as_pytorch():
    """Two schedulers on one optimizer multiply their effects (each starts from the
    current rate), the reason for the recurrences."""
    def run(module, opt):
        a = module.ExponentialLR(opt, gamma=0.9)
        b = module.StepLR(opt, step_size=2, gamma=0.5)
        out = []
        for _ in range(8):
            opt.step()
            a.step()
            b.step()
            out.append(opt.param_groups[0]["lr"])
        return out

    got = run(sched, _ours())
    np.testing.assert_allclose(got, [0.1 * 0.9 ** e * 0.5 ** (e // 2) for e in range(1, 9)],
                               rtol=1e-12)
    torch = torch_or_skip()
    topt = torch.optim.SGD(_groups(lambda: torch.zeros(2, requires_grad=True)), lr=1.0)
    assert got == run(torch.optim.lr_scheduler, topt)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip(name):
    opt = _ours()
    a = _make(sched, name, opt)
    for _ in range(4):
        a.step()
    state = a.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 4
    opt2 = _ours()
    b = _make(sched, name, opt2)
    b.load_state_dict(state)
    for g, h in zip(opt2.param_groups, opt.param_groups):
        g["lr"] = h["lr"]  # the optimizer's state is loaded alongside, as in PyTorch
    for _ in range(6):
        a.step()
        b.step()
        assert a.get_last_lr() == b.get_last_lr()
    assert b.last_epoch == 10


def test_lambda_state_dict_keeps_callable_objects():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    a = sched.LambdaLR(_ours(), [Decay(0.5), lambda e: 1.0])
    state = a.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}, None]
    b = sched.LambdaLR(_ours(), [Decay(0.9), lambda e: 2.0])
    b.load_state_dict(state)
    b.step()
    assert b.get_last_lr() == [0.1 * 0.5, 0.03 * 2.0]


def test_resuming_and_step_with_an_epoch():
    opt = _ours()
    sched.StepLR(opt, step_size=3, gamma=0.5)  # records 'initial_lr'
    resumed = sched.StepLR(opt, step_size=3, gamma=0.5, last_epoch=4)
    assert resumed.last_epoch == 5 and resumed.base_lrs == list(BASES)
    with pytest.raises(KeyError, match=r"StepLR: param_groups\[0\] has no 'initial_lr': "
                                       r"resuming with last_epoch=4"):
        sched.StepLR(_ours(), step_size=3, last_epoch=4)
    s = sched.ExponentialLR(_ours(), gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.step(3)
    # (the first step also warns that the optimizer has not stepped, as PyTorch's)
    assert any("deprecated" in str(c.message) for c in caught)
    assert s.last_epoch == 3 and s.get_last_lr() == [0.1 * 0.125, 0.03 * 0.125]


def test_errors():
    with pytest.raises(TypeError, match=r"StepLR: list is not an Optimizer"):
        sched.StepLR([], 3)
    with pytest.raises(ValueError, match=r"StepLR: step_size must be > 0, got 0"):
        sched.StepLR(_ours(), 0)
    with pytest.raises(TypeError, match=r"StepLR: step_size must be a number, got str"):
        sched.StepLR(_ours(), "2")
    with pytest.raises(TypeError, match=r"ExponentialLR: gamma must be a number, got str"):
        sched.ExponentialLR(_ours(), "0.9")
    with pytest.raises(TypeError, match=r"MultiStepLR: a milestone must be an int, got float"):
        sched.MultiStepLR(_ours(), [1, 2.5])
    with pytest.raises(ValueError, match=r"CosineAnnealingLR: T_max must be > 0, got 0"):
        sched.CosineAnnealingLR(_ours(), 0)
    with pytest.raises(ValueError, match=r"LambdaLR: 1 lr_lambdas for 2 parameter groups"):
        sched.LambdaLR(_ours(), [lambda e: 1.0])
    with pytest.raises(TypeError, match=r"LambdaLR: lr_lambda must be callable .*got float"):
        sched.LambdaLR(_ours(), 0.5)
    with pytest.raises(TypeError, match=r"load_state_dict\(\): expected a dict"):
        sched.StepLR(_ours(), 2).load_state_dict([1])
    with pytest.raises(NotImplementedError, match=r"LRScheduler must define get_lr\(\)"):
        sched.LRScheduler(_ours())


@pytest.mark.parametrize("name", NAMES)
def test_sgd_steps_with_the_scheduled_rate(dev, name):
    """p -= lr_e * grad each epoch: the parameters against NumPy in float64 (float32
    parameters: |got - want| <= 1e-6 + 1e-6 |want|)."""
    w = nn.Parameter(pdt.tensor([1.0, -2.0], device=dev))
    v = nn.Parameter(pdt.tensor([0.5], device=dev))
    opt = optim.SGD([{"params": [w], "lr": BASES[0]}, {"params": [v], "lr": BASES[1]}], lr=1.0)
    s = _make(sched, name, opt)
    want_w, want_v = np.array([1.0, -2.0]), np.array([0.5])
    for e in range(10):
        opt.zero_grad()
        ((w * w).sum() + (v * v).sum()).backward()  # gradients 2w and 2v
        opt.step()
        want_w = want_w - _closed(name, BASES[0], e) * 2 * want_w
        want_v = want_v - _closed(name, BASES[1], e) * 2 * want_v
        s.step()
    assert w.device == pdt.device(dev)
    np.testing.assert_allclose(w.detach().cpu().numpy(), want_w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(v.detach().cpu().numpy(), want_v, rtol=1e-6, atol=1e-6)


RESUMED = {
    "CosineAnnealingLR": lambda o, e: sched.CosineAnnealingLR(o, T_max=10, last_epoch=e),
    "LinearLR": lambda o, e: sched.LinearLR(o, 0.1, 1.0, 10, last_epoch=e),
    "PolynomialLR": lambda o, e: sched.PolynomialLR(o, 10, power=2.0, last_epoch=e),
    "MultiplicativeLR": lambda o, e: sched.MultiplicativeLR(o, lambda k: 0.9,
                                                            last_epoch=e),
    "StepLR": lambda o, e: sched.StepLR(o, 3, gamma=0.5, last_epoch=e),
    "ExponentialLR": lambda o, e: sched.ExponentialLR(o, 0.8, last_epoch=e),
}


@pytest.mark.parametrize("name", sorted(RESUMED))
def test_a_schedule_resumed_with_last_epoch_keeps_the_rate_then_goes_on(name):
    """A scheduler made with last_epoch=k over an optimizer at epoch k's rate (its
    initial_lr kept, as a loaded optimizer has it) keeps that rate in its first step,
    which moves it to epoch k + 1 (PyTorch 2.15's _is_initial, run side by side: "we
    don't want _initial_step to update the lr one more step ahead of itself"); each
    step after scales the rate as the uninterrupted run scales it from epoch k + 1 on:
    rate_k * run[k + 1 + j] / run[k + 1]."""
    make = RESUMED[name]
    w = nn.Parameter(pdt.zeros(1))
    opt = optim.SGD([w], lr=1.0)
    s = make(opt, -1)
    run = [opt.param_groups[0]["lr"]]
    for _ in range(9):
        opt.step()
        s.step()
        run.append(opt.param_groups[0]["lr"])
    k = 3
    opt2 = optim.SGD([nn.Parameter(pdt.zeros(1))], lr=run[k])
    opt2.param_groups[0]["initial_lr"] = 1.0
    s2 = make(opt2, k)
    got = [opt2.param_groups[0]["lr"]]
    for _ in range(5):
        opt2.step()
        s2.step()
        got.append(opt2.param_groups[0]["lr"])
    assert s2.last_epoch == k + 6
    want = [run[k]] + [run[k] * run[k + 1 + j] / run[k + 1] for j in range(1, 6)]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def _stepped(opt, s, n):
    """get_last_lr() after each of n steps of opt and then s."""
    rates = []
    for _ in range(n):
        opt.step()
        s.step()
        rates.append(s.get_last_lr())
    return rates


def test_step_lr_float_step_size():
    # PyTorch's rule with a float: decays at the epochs that are multiples of it
    opt = _ours()
    s = sched.StepLR(opt, step_size=2.5, gamma=0.5)
    rates = [lrs[0] / s.base_lrs[0] for lrs in _stepped(opt, s, 10)]
    assert rates == [1.0] * 4 + [0.5] * 5 + [0.25]
    assert s.state_dict()["step_size"] == 2.5


def test_cosine_annealing_float_t_max():
    # PyTorch takes a float T_max: the rates of its recurrence are the closed form
    # eta_min + (base - eta_min) * (1 + cos(pi * e / T_max)) / 2 with that T_max
    opt = _ours()
    s = sched.CosineAnnealingLR(opt, T_max=2.5, eta_min=0.01)
    rates = _stepped(opt, s, 12)
    e = np.arange(1, 13)[:, None]
    base = np.array(s.base_lrs)[None, :]
    want = 0.01 + (base - 0.01) * (1 + np.cos(np.pi * e / 2.5)) / 2
    np.testing.assert_allclose(np.array(rates), want, rtol=1e-12, atol=1e-15)
    assert s.state_dict()["T_max"] == 2.5


def test_multiplicative_lr_step_with_epoch_0():
    # PyTorch's: step(0) after __init__ (the epoch given, deprecated) multiplies the rate
    # in force by lr_lambda(0); only the initial step in __init__ keeps it
    opt = _ours()
    s = sched.MultiplicativeLR(opt, lambda e: 0.5 + 0.1 * e)
    base = list(s.base_lrs)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        s.step(0)
    assert s.get_last_lr() == [b * 0.5 for b in base]


@pytest.mark.parametrize("kind", ["cosine", "polynomial"])
def test_a_resumed_sequential_lr_steps_its_scheduler_on_from_epoch_0(kind):
    # SequentialLR made with last_epoch > 0 starts its schedulers afresh (their first
    # step undone, so the next one reaches epoch 0 outside __init__); PyTorch's
    # CosineAnnealingLR and PolynomialLR then take their recurrence's step into epoch
    # 0 from the rate in force, here they kept the rate
    w = nn.Parameter(pdt.zeros(2))
    opt = optim.SGD([w], lr=1.0)
    opt.param_groups[0]["initial_lr"] = 1.0
    first = sched.ConstantLR(opt, factor=0.5, total_iters=2)
    second = (sched.CosineAnnealingLR(opt, T_max=4) if kind == "cosine" else
              sched.PolynomialLR(opt, total_iters=4, power=2.0))
    s = sched.SequentialLR(opt, [first, second], milestones=[2], last_epoch=5)
    assert s.get_last_lr() == [0.5]
    rates = _stepped(opt, s, 2)
    if kind == "cosine":  # the rate times cos-curve(0) / cos-curve(-1), then back
        want = [0.5 * 2 / (1 + np.cos(np.pi / 4)), 0.5]
    else:  # times ((1 - 0 / 4) / (1 + 1 / 4)) ** 2, then ((1 - 1 / 4) / 1) ** 2
        want = [0.5 / 1.25 ** 2, 0.5 / 1.25 ** 2 * 0.75 ** 2]
    np.testing.assert_allclose(np.array(rates)[:, 0], want, rtol=1e-12)


def _warned(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f()
    return [(c.category, str(c.message)) for c in caught]


@pytest.mark.parametrize("name", NAMES + ["LinearLR", "ReduceLROnPlateau", "SequentialLR"])
def test_the_normal_use_warns_nothing(name):
    opt = _ours()
    if name == "LinearLR":
        s = sched.LinearLR(opt, total_iters=3)
    elif name == "ReduceLROnPlateau":
        s = sched.ReduceLROnPlateau(opt, patience=0)
    elif name == "SequentialLR":
        s = sched.SequentialLR(opt, [sched.LinearLR(opt, total_iters=2),
                                     sched.ExponentialLR(opt, 0.5)], milestones=[2])
    else:
        s = _make(sched, name, opt)

    def run():
        for e in range(5):
            opt.step()
            s.step(1.0) if name == "ReduceLROnPlateau" else s.step()
            s.get_last_lr()
    assert _warned(run) == []


def test_pytorchs_warnings():
    # get_lr outside step(): the next rates, not the last
    s = sched.StepLR(_ours(), step_size=1, gamma=0.5)
    assert _warned(s.get_lr) == [(UserWarning, "To get the last learning rate computed by "
                                               "the scheduler, please use `get_last_lr()`.")]
    # step(epoch), ReduceLROnPlateau's too: deprecated, with PyTorch's text
    epoch_text = ("The epoch parameter in `scheduler.step()` was not necessary and is being "
                  "deprecated where possible.")
    opt = _ours()
    r = sched.ReduceLROnPlateau(opt)
    got = _warned(lambda: r.step(1.0, 3))
    assert len(got) == 1 and got[0][0] is UserWarning and got[0][1].startswith(epoch_text)
    assert r.last_epoch == 3
    s = sched.ExponentialLR(opt, 0.5)
    opt.step()
    got = _warned(lambda: s.step(2))
    assert len(got) == 1 and got[0][1].startswith(epoch_text)
    # the optimizer's step replaced after the scheduler was made (but not before)
    opt = _ours()
    s = sched.StepLR(opt, step_size=2)
    opt.step = lambda *a, **k: None
    got = _warned(s.step)
    assert [c for c, _ in got] == [UserWarning] and got[0][1].startswith(
        "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
        "initialization.")
    s = sched.StepLR(opt, step_size=2)  # made after the override: only the order warning
    got = _warned(s.step)
    assert len(got) == 1 and got[0][1].startswith("Detected call of `lr_scheduler.step()`")


def test_linear_lr_with_no_iterations_keeps_the_start_factor():
    # PyTorch's: total_iters=0 scales by start_factor throughout (never end_factor)
    opt = _ours()
    s = sched.LinearLR(opt, start_factor=0.5, end_factor=0.8, total_iters=0)
    rates = [s.get_last_lr()]
    for _ in range(3):
        opt.step()
        s.step()
        rates.append(s.get_last_lr())
    assert rates == [[b * 0.5 for b in BASES]] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.step(5)  # the closed form too
    assert s.get_last_lr() == [b * 0.5 for b in BASES]
    with pytest.raises(ValueError, match="LinearLR: total_iters must be >= 0, got -1"):
        sched.LinearLR(opt, total_iters=-1)
