"""optim.lr_scheduler's LinearLR, SequentialLR, CosineAnnealingWarmRestarts, OneCycleLR
and ReduceLROnPlateau: rates against closed forms written here (to 1e-12 relative), and
against torch's schedulers where torch is importable (to 1e-12 relative; the momenta and
betas too); two parameter groups; state_dict round trips; the errors; and on every
device, Adam's steps use OneCycleLR's rate and beta1 (against NumPy in float64)."""
import inspect
import io
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn, optim
from pydevtensor.optim import lr_scheduler as sched

BASES = (0.1, 0.03)
TOL = dict(rel_tol=1e-12, abs_tol=1e-15)


def _groups(make_param):
    return [{"params": [make_param()], "lr": BASES[0]}, {"params": [make_param()], "lr": BASES[1]}]


def _ours(cls=optim.SGD, **kw):
    return cls(_groups(lambda: nn.Parameter(pdt.zeros(2))), **({"lr": 1.0} | kw))


def _torch_opt(torch, cls="SGD", **kw):
    return getattr(torch.optim, cls)(_groups(lambda: torch.nn.Parameter(torch.zeros(2))),
                                     **({"lr": 1.0} | kw))


def _rates(s, opt, steps, arg=None):
    out = []
    for i in range(steps):
        got = s.get_last_lr()
        assert got == [g["lr"] for g in opt.param_groups]
        out.append(got)
        opt.step()
        s.step() if arg is None else s.step(arg(i))
    return out


def _close(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert all(math.isclose(u, v, **TOL) for u, v in zip(x, y)), (x, y)


# ---- closed forms

def _linear(base, e, start=0.25, end=0.9, total=6):
    return base * (start + (end - start) * min(e, total) / total)


def _cosine(base, t_cur, t_i, eta_min):
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2


def _warm_restarts(base, epoch, t0, mult, eta_min):
    """T_cur and T_i by walking the cycles: the cycle lengths are t0, t0 * mult, ..."""
    start, length = 0, t0
    while epoch >= start + length:
        start, length = start + length, length * mult
    return _cosine(base, epoch - start, length, eta_min)


def _one_cycle(t, n, max_lr, pct, strategy, three, div, final, lo_m=0.85, hi_m=0.95):
    """(rate, momentum) at step t of a cycle of n steps."""
    lr0, lr_min = max_lr / div, max_lr / div / final
    if three:
        phases = [(pct * n - 1, lr0, max_lr, hi_m, lo_m),
                  (2 * pct * n - 2, max_lr, lr0, lo_m, hi_m), (n - 1, lr0, lr_min, hi_m, hi_m)]
    else:
        phases = [(pct * n - 1, lr0, max_lr, hi_m, lo_m), (n - 1, max_lr, lr_min, lo_m, hi_m)]
    start = 0.0
    for i, (end, a, b, ma, mb) in enumerate(phases):
        if t <= end or i == len(phases) - 1:
            f = (t - start) / (end - start)
            if strategy == "cos":
                w = (1 + math.cos(math.pi * f)) / 2  # the weight of the start
                return b + (a - b) * w, mb + (ma - mb) * w
            return a + (b - a) * f, ma + (mb - ma) * f
        start = end


def test_linear_lr_follows_its_closed_form():
    opt = _ours()
    s = sched.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=6)
    _close(_rates(s, opt, 12), [[_linear(b, e) for b in BASES] for e in range(12)])
    with pytest.warns(UserWarning, match="deprecated"):
        s.step(3)  # the closed form directly
    assert math.isclose(opt.param_groups[0]["lr"], _linear(BASES[0], 3), **TOL)


def test_sequential_lr_restarts_each_scheduler_at_its_milestone():
    opt = _ours()
    warm = sched.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=6)
    cos = sched.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
    expo = sched.ExponentialLR(opt, gamma=0.8)
    s = sched.SequentialLR(opt, [warm, cos, expo], milestones=[4, 9])

    def want(b, e):
        if e < 4:
            return _linear(b, e)
        if e < 9:
            return _cosine(b, e - 4, 5, 0.001)
        return b * 0.8 ** (e - 9)
    _close(_rates(s, opt, 15), [[want(b, e) for b in BASES] for e in range(15)])


@pytest.mark.parametrize("mult", [1, 2, 3])
def test_warm_restarts_follow_their_closed_form(mult):
    opt = _ours()
    s = sched.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=mult, eta_min=0.002)
    _close(_rates(s, opt, 30), [[_warm_restarts(b, e, 3, mult, 0.002) for b in BASES]
                                 for e in range(30)])
    # its step does not count its calls, as PyTorch's: _step_count stays 0
    assert s._step_count == 0 and s.state_dict()["_step_count"] == 0


@pytest.mark.parametrize("mult", [1, 2])
def test_warm_restarts_take_fractional_epochs(mult):
    opt = _ours()
    s = sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=mult)
    iters = 4
    for k in range(1, 40):
        epoch = k / iters
        s.step(epoch)
        want = [_warm_restarts(b, epoch, 2, mult, 0.0) for b in BASES]
        assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-15)
                   for x, y in zip(s.get_last_lr(), want)), (epoch, s.get_last_lr(), want)
        assert s.last_epoch == math.floor(epoch)
    with pytest.raises(ValueError, match=r"expected a non-negative epoch, got -1.0"):
        s.step(-1.0)


CYCLES = [dict(total_steps=20), dict(epochs=4, steps_per_epoch=5, anneal_strategy="linear"),
          dict(total_steps=20, three_phase=True), dict(total_steps=20, three_phase=True,
                                                       anneal_strategy="linear", pct_start=0.25),
          dict(total_steps=13, pct_start=0.4, div_factor=10.0, final_div_factor=100.0)]


@pytest.mark.parametrize("kw", CYCLES)
@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_one_cycle_follows_its_closed_form(kw, cls):
    opt = _ours(getattr(optim, cls), **({"momentum": 0.9} if cls == "SGD" else {}))
    max_lrs = [1.0, 0.4]
    s = sched.OneCycleLR(opt, max_lr=max_lrs, **kw)
    n = kw.get("total_steps") or kw["epochs"] * kw["steps_per_epoch"]
    args = (kw.get("pct_start", 0.3), kw.get("anneal_strategy", "cos"),
            kw.get("three_phase", False), kw.get("div_factor", 25.0),
            kw.get("final_div_factor", 1e4))
    for t in range(n):
        want = [_one_cycle(t, n, m, *args) for m in max_lrs]
        assert all(math.isclose(g["lr"], w[0], **TOL) for g, w in zip(opt.param_groups, want))
        for g, w in zip(opt.param_groups, want):
            m = g["betas"][0] if cls == "Adam" else g["momentum"]
            assert math.isclose(m, w[1], **TOL)
            if cls == "Adam":
                assert g["betas"][1] == 0.999
        opt.step()
        s.step()
    with pytest.raises(ValueError, match=rf"tried to step {n + 1} times; the schedule has "
                                         rf"total_steps={n}"):
        s.step()


def _plateau_reference(metrics, mode, factor, patience, threshold, threshold_mode, cooldown,
                       min_lr, base):
    """The rule as PyTorch documents it, written out for one group."""
    best = math.inf if mode == "min" else -math.inf
    bad = cool = 0
    lr, out = base, []
    for x in metrics:
        if mode == "min":
            better = x < (best * (1 - threshold) if threshold_mode == "rel" else best - threshold)
        else:
            better = x > (best * (1 + threshold) if threshold_mode == "rel" else best + threshold)
        best, bad = (x, 0) if better else (best, bad + 1)
        if cool > 0:
            cool, bad = cool - 1, 0
        if bad > patience:
            new = max(lr * factor, min_lr)
            lr = new if lr - new > 1e-8 else lr
            cool, bad = cooldown, 0
        out.append(lr)
    return out


PLATEAUS = [dict(mode="min", factor=0.5, patience=2, threshold=0.05, threshold_mode="rel",
                 cooldown=0, min_lr=0.01),
            dict(mode="max", factor=0.3, patience=1, threshold=0.02, threshold_mode="abs",
                 cooldown=2, min_lr=0.0),
            dict(mode="min", factor=0.1, patience=0, threshold=0.0, threshold_mode="abs",
                 cooldown=1, min_lr=0.004)]


def _metrics(seed):
    rng = np.random.default_rng(seed)
    return list(1.0 / np.arange(1, 41) + rng.uniform(0, 0.1, 40))


@pytest.mark.parametrize("kw", PLATEAUS)
def test_reduce_on_plateau_follows_the_rule(kw):
    opt = _ours()
    s = sched.ReduceLROnPlateau(opt, **kw)
    metrics = _metrics(1)
    got = []
    for x in metrics:
        s.step(pdt.tensor(x, dtype=pdt.float64) if len(got) % 2 else x)
        got.append(s.get_last_lr())
    for i, base in enumerate(BASES):
        want = _plateau_reference(metrics, base=base, **kw)
        assert [g[i] for g in got] == pytest.approx(want, rel=1e-12)
        assert min(want) < base  # it reduced
    assert s.last_epoch == len(metrics)


def test_reduce_on_plateau_min_lr_per_group():
    opt = _ours()
    s = sched.ReduceLROnPlateau(opt, patience=0, factor=0.5, min_lr=[0.04, 0.0])
    for _ in range(4):
        s.step(1.0)
    assert s.get_last_lr() == pytest.approx([0.04, 0.03 / 8], rel=1e-12)


def _twin(make):
    """Runs a scheduler for 7 steps, saves its state through pdt.save, loads it into a
    new one on a new optimizer with the old optimizer's state, and runs both on."""
    opt = _ours()
    a = make(opt)
    for _ in range(7):
        opt.step()
        a.step(1.0) if isinstance(a, sched.ReduceLROnPlateau) else a.step()
    buf = io.BytesIO()
    pdt.save({"s": a.state_dict(), "o": opt.state_dict()}, buf)
    buf.seek(0)
    saved = pdt.load(buf)
    opt2 = _ours()
    b = make(opt2)
    opt2.load_state_dict(saved["o"])
    b.load_state_dict(saved["s"])
    for _ in range(5):
        for s in (a, b):
            s.step(1.0) if isinstance(s, sched.ReduceLROnPlateau) else s.step()
        assert a.get_last_lr() == b.get_last_lr()
        assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in opt2.param_groups]


@pytest.mark.parametrize("make", [
    lambda o: sched.LinearLR(o, start_factor=0.5, total_iters=9),
    lambda o: sched.SequentialLR(o, [sched.LinearLR(o, total_iters=3),
                                     sched.CosineAnnealingLR(o, T_max=4)], milestones=[3]),
    lambda o: sched.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2),
    lambda o: sched.OneCycleLR(o, max_lr=1.0, total_steps=20, three_phase=True),
    lambda o: sched.ReduceLROnPlateau(o, patience=1, cooldown=1, factor=0.5),
], ids=["LinearLR", "SequentialLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
        "ReduceLROnPlateau"])
def test_state_dict_round_trip(make):
    _twin(make)


def test_errors():
    opt = _ours()
    with pytest.raises(ValueError,
                       match=r"LinearLR: start_factor must be in \(0.0, 1.0\], got 0.0"):
        sched.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match=r"give total_steps, or epochs and steps_per_epoch"):
        sched.OneCycleLR(opt, max_lr=1.0, epochs=3)
    with pytest.raises(ValueError, match=r"anneal_strategy must be 'cos' or 'linear', got 'exp'"):
        sched.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="exp")
    with pytest.raises(ValueError, match=r"expected 2 values for max_lr .*got 3"):
        sched.OneCycleLR(opt, max_lr=[1.0, 1.0, 1.0], total_steps=5)
    with pytest.raises(ValueError, match=r"Adagrad has neither a momentum nor betas"):
        sched.OneCycleLR(_ours(optim.Adagrad), max_lr=1.0, total_steps=5)
    sched.OneCycleLR(_ours(optim.Adagrad), max_lr=1.0, total_steps=5, cycle_momentum=False)
    with pytest.raises(ValueError, match=r"ReduceLROnPlateau: factor must be < 1, got 1.5"):
        sched.ReduceLROnPlateau(opt, factor=1.5)
    with pytest.raises(ValueError, match=r"mode must be 'min' or 'max', got 'up'"):
        sched.ReduceLROnPlateau(opt, mode="up")
    with pytest.raises(TypeError, match=r"metrics must be a number .*got str"):
        sched.ReduceLROnPlateau(opt).step("x")
    other = _ours()
    with pytest.raises(ValueError, match=r"schedulers\[1\] \(StepLR\) belongs to another"):
        sched.SequentialLR(opt, [sched.StepLR(opt, 2), sched.StepLR(other, 2)], [3])
    with pytest.raises(ValueError, match=r"one milestone fewer than schedulers, got 2 "
                                         r"schedulers and 2 milestones"):
        sched.SequentialLR(opt, [sched.StepLR(opt, 2), sched.StepLR(opt, 2)], [3, 4])
    with pytest.raises(ValueError, match=r"SequentialLR does not support `ReduceLROnPlateau` "
                                         r"scheduler .* at index 1"):  # PyTorch's type
        sched.SequentialLR(opt, [sched.StepLR(opt, 2), sched.ReduceLROnPlateau(opt)], [3])
    with pytest.raises(ValueError, match=r"T_mult must be >= 1, got 0"):
        sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)
    # a float T_0 or T_mult: PyTorch's ValueError (it was a TypeError here)
    with pytest.raises(ValueError, match=r"Expected positive integer T_0, but got 2.0"):
        sched.CosineAnnealingWarmRestarts(opt, T_0=2.0)
    with pytest.raises(ValueError, match=r"Expected integer T_mult >= 1, but got 1.5"):
        sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
    with pytest.raises(TypeError, match=r"T_0 must be an int, got str"):
        sched.CosineAnnealingWarmRestarts(opt, T_0="2")


def test_adam_steps_with_one_cycle_rate_and_beta1(device):
    """On every device: Adam under OneCycleLR (cycling beta1) against NumPy float64."""
    w = nn.Parameter(pdt.tensor([1.0, -2.0, 0.5], dtype=pdt.float64, device=device))
    opt = optim.Adam([w], lr=0.1)
    s = sched.OneCycleLR(opt, max_lr=0.5, total_steps=10, pct_start=0.4)
    ref, m, v = np.array([1.0, -2.0, 0.5]), 0.0, 0.0
    for t in range(1, 11):
        lr, b1 = _one_cycle(t - 1, 10, 0.5, 0.4, "cos", False, 25.0, 1e4)
        g = 3 * ref ** 2
        m = b1 * m + (1 - b1) * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - lr / (1 - b1 ** t) * m / (np.sqrt(v) / math.sqrt(1 - 0.999 ** t) + 1e-8)
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
        s.step() if t < 10 else None
    np.testing.assert_allclose(w.detach().cpu().numpy(), ref, rtol=1e-10)


# ---- against torch

def _both(torch, make, steps, cls="SGD", arg=None, **kw):
    ours, theirs = _ours(getattr(optim, cls), **kw), _torch_opt(torch, cls, **kw)
    a, b = make(sched, ours), make(torch.optim.lr_scheduler, theirs)
    for i in range(steps):
        assert all(math.isclose(x, float(y), **TOL) for x, y in
                   zip(a.get_last_lr(), b.get_last_lr())), (i, a.get_last_lr(), b.get_last_lr())
        for g, h in zip(ours.param_groups, theirs.param_groups):
            for key in ("momentum", "betas"):
                if key in g:
                    assert np.allclose(g[key], h[key], rtol=1e-12, atol=0), (i, key)
        ours.step()
        theirs.step()
        for s in (a, b):
            s.step() if arg is None else s.step(arg(i))
    return a, b


TORCH_CASES = {
    "LinearLR": (lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.7, total_iters=5), 12),
    "SequentialLR": (lambda m, o: m.SequentialLR(o, [m.LinearLR(o, 0.1, total_iters=3),
                                                     m.ExponentialLR(o, 0.9),
                                                     m.CosineAnnealingLR(o, 4)], [3, 7]), 16),
    "WarmRestarts": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                eta_min=0.01), 30),
    "OneCycle": (lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=17), 17),
    "OneCycle3": (lambda m, o: m.OneCycleLR(o, max_lr=0.8, epochs=3, steps_per_epoch=5,
                                            three_phase=True, anneal_strategy="linear"), 15),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_match_torch(case, cls):
    torch = torch_or_skip()
    make, steps = TORCH_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _both(torch, make, steps, cls, **({"momentum": 0.9} if cls == "SGD" else {}))


def test_warm_restarts_fractional_and_plateau_match_torch():
    torch = torch_or_skip()
    _both(torch, lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3), 40,
          arg=lambda i: (i + 1) / 3)
    metrics = _metrics(2)
    for kw in PLATEAUS:
        _both(torch, lambda m, o: m.ReduceLROnPlateau(o, **kw), len(metrics),
              arg=lambda i: metrics[i])


def test_every_scheduler_belongs_to_the_lr_scheduler_module():
    """d2l 12.11's train() calls scheduler(epoch) unless
    scheduler.__module__ == lr_scheduler.__name__ (PyTorch's schedulers)."""
    from pydevtensor.optim import lr_scheduler
    import pickle
    for name in ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR",
                 "LinearLR", "SequentialLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
                 "ReduceLROnPlateau"):
        cls = getattr(lr_scheduler, name)
        assert cls.__module__ == lr_scheduler.__name__, name
        assert pickle.loads(pickle.dumps(cls)) is cls
    for name in ("Adamax", "NAdam", "RAdam", "Adam"):
        assert getattr(pdt.optim, name).__module__ == "pydevtensor.optim", name


# ---- fixes: custom schedulers in SequentialLR, zero-length phases, failed calls

class _Half(sched.LRScheduler):
    """A user's scheduler with only get_lr (no closed form)."""

    def get_lr(self):
        return [b * 0.5 ** self.last_epoch for b in self.base_lrs]


def test_sequential_lr_restarts_a_scheduler_with_only_get_lr():
    opt = _ours()
    s = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.5, 1.0, 2), _Half(opt)], [2])
    want = [[b * (0.5 + 0.25 * e) for b in BASES] for e in range(2)]
    want += [[b * 0.5 ** (e - 2) for b in BASES] for e in range(2, 6)]
    _close(_rates(s, opt, 6), want)


def test_sequential_lr_changes_nothing_when_the_restart_fails():
    class Broken(_Half):
        armed = False

        def get_lr(self):
            if self.armed:
                raise RuntimeError("broken")
            return super().get_lr()

    opt = _ours()
    s = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.5, 1.0, 2), Broken(opt)], [2])
    s.step()
    s._schedulers[1].armed = True
    before = (s.last_epoch, s._schedulers[1].last_epoch, [g["lr"] for g in opt.param_groups],
              s.get_last_lr())
    with pytest.raises(RuntimeError, match="broken"):
        s.step()
    assert (s.last_epoch, s._schedulers[1].last_epoch, [g["lr"] for g in opt.param_groups],
            s.get_last_lr()) == before


@pytest.mark.parametrize("kw,phase", [
    (dict(total_steps=10, pct_start=0.1), r"rising phase \(phase 1 of 2\)"),
    (dict(total_steps=4, pct_start=0.25, three_phase=True), r"rising phase \(phase 1 of 3\)"),
    (dict(total_steps=7, pct_start=1.0), r"falling phase \(phase 2 of 2\)"),
    (dict(total_steps=3, pct_start=2 / 3, three_phase=True),
     r"annihilating phase \(phase 3 of 3\)")])
def test_one_cycle_refuses_a_phase_without_steps_and_writes_nothing(kw, phase):
    opt = _ours(momentum=0.9)
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    with pytest.raises(ValueError, match=rf"total_steps={kw['total_steps']} and "
                                         rf"pct_start={kw['pct_start']} leave the {phase}"):
        sched.OneCycleLR(opt, max_lr=1.0, **kw)
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == groups


@pytest.mark.parametrize("kw", [dict(total_steps=10, pct_start=0.0),
                                dict(total_steps=10, pct_start=0.15),
                                dict(total_steps=1, pct_start=0.3),
                                dict(total_steps=3, pct_start=0.1, three_phase=True)])
def test_one_cycle_edge_phases_that_are_never_used_pass(kw):
    """A phase of negative length, or a middle one of none, is skipped: every step of
    [0, total_steps] gives a finite rate (the closed form's)."""
    opt = _ours(momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=[1.0, 0.4], **kw)
    args = (kw["pct_start"], "cos", kw.get("three_phase", False), 25.0, 1e4)
    for t in range(kw["total_steps"]):
        want = [_one_cycle(t, kw["total_steps"], m, *args)[0] for m in (1.0, 0.4)]
        _close([s.get_last_lr()], [want])
        s.step()
    assert all(math.isfinite(r) for r in s.get_last_lr())


def test_failed_calls_change_no_state():
    opt = _ours()
    c = sched.CosineAnnealingWarmRestarts(opt, T_0=2)
    before = dict(c.__dict__)
    with pytest.raises(ValueError, match=r"expected a non-negative epoch, got -1.0"):
        c.step(-1.0)
    assert c.__dict__ == before
    e = sched.ExponentialLR(opt, gamma=0.5)
    before = dict(e.__dict__)
    with pytest.raises(ValueError):
        e.step(-2)
    assert e.__dict__ == before
    # SequentialLR.load_state_dict: all or nothing when a child's state does not load
    opt = _ours()
    s = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.5, 1.0, 2), _Half(opt)], [2])
    for _ in range(3):
        s.step()
    state = s.state_dict()
    state["last_epoch"] = 99
    state["_schedulers"][0]["total_iters"] = 7
    state["_schedulers"][1] = "not a dict"
    before = (dict(s.__dict__), [dict(c.__dict__) for c in s._schedulers])
    with pytest.raises(TypeError, match=r"expected a dict"):
        s.load_state_dict(state)
    assert (s.__dict__, [c.__dict__ for c in s._schedulers]) == before
    state["_schedulers"][1] = s._schedulers[1].state_dict()
    s.load_state_dict(state)
    assert s.last_epoch == 99 and s._schedulers[0].total_iters == 7


def test_sequential_lr_with_only_get_lr_matches_torch():
    torch = torch_or_skip()
    TS = torch.optim.lr_scheduler

    class THalf(TS.LRScheduler):
        def get_lr(self):
            return [b * 0.5 ** self.last_epoch for b in self.base_lrs]

    topt = _torch_opt(torch)
    ts = TS.SequentialLR(topt, [TS.LinearLR(topt, 0.5, 1.0, 2), THalf(topt)], [2])
    opt = _ours()
    s = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.5, 1.0, 2), _Half(opt)], [2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(_rates(s, opt, 6), _rates(ts, topt, 6))


def test_private_state_keys_are_pytorchs():
    # PyTorch's names, so that a state saved by either loads in the other:
    # _get_lr_called_within_step, OneCycleLR's _anneal_func_type and phase dicts,
    # ReduceLROnPlateau's mode_worse, SWALR's _anneal_strategy (not the function)
    from pydevtensor.optim.swa_utils import SWALR
    opt = _ours(momentum=0.9)
    one = sched.OneCycleLR(opt, 1.0, total_steps=10)
    sd = one.state_dict()
    assert sd["_get_lr_called_within_step"] is False and sd["_anneal_func_type"] == "cos"
    assert sd["_schedule_phases"][1] == {"end_step": 9, "start_lr": "max_lr",
                                         "end_lr": "min_lr", "start_momentum": "base_momentum",
                                         "end_momentum": "max_momentum"}
    linear = sched.OneCycleLR(_ours(momentum=0.9), 1.0, total_steps=10,
                              anneal_strategy="linear")
    for _ in range(2):
        opt.step()
        one.step()
        linear.optimizer.step()
        linear.step()
    one.load_state_dict(dict(linear.state_dict(), _anneal_func_type="linear"))
    opt.step()
    one.step()
    linear.optimizer.step()
    linear.step()
    assert one.get_last_lr() == linear.get_last_lr()
    r = sched.ReduceLROnPlateau(_ours(), mode="max")
    assert r.state_dict()["mode_worse"] == -math.inf == r.best
    swa_opt = _ours()
    s = SWALR(swa_opt, 0.05, anneal_epochs=4)
    sd = s.state_dict()
    assert sd["_anneal_strategy"] == "cos" and "anneal_func" not in sd
    s.load_state_dict(dict(sd, _anneal_strategy="linear"))
    assert s.anneal_func(0.25) == 0.25


def test_reduce_lr_on_plateau_in_cooldown():
    # PyTorch's property (it was missing): True for the `cooldown` epochs after a
    # reduction, during which bad epochs are not counted
    opt = _ours()
    s = sched.ReduceLROnPlateau(opt, patience=0, cooldown=2, factor=0.5)
    seen = []
    for metric in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        opt.step()
        s.step(metric)
        seen.append((s.in_cooldown, s.cooldown_counter))
    assert seen == [(False, 0), (True, 2), (True, 1), (False, 0), (True, 2), (True, 1)]


def test_reduce_lr_on_plateau_min_lr_default_is_pytorchs_int_0():
    assert repr(inspect.signature(sched.ReduceLROnPlateau).parameters["min_lr"].default) == "0"
