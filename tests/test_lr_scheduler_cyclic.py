"""optim.lr_scheduler's MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR and
ChainedScheduler: rates against closed forms written here (to 1e-12 relative) and
against torch's schedulers where torch is importable (to 1e-12 relative, the momenta
and betas too), two parameter groups; state_dict keys as torch's and round trips; the
errors; and on every device, SGD's and Adam's steps under CyclicLR against torch."""
import io
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn, optim
from pydevtensor.optim import lr_scheduler as sched
from test_lr_scheduler_more import _ours as _ours_of

from test_lr_scheduler_more import BASES, TOL, _both, _close, _rates


def _ours(cls="SGD", **kw):
    return _ours_of(getattr(optim, cls), **kw)


# ---- closed forms written here

def _cyclic(t, base, top, up, down, mode="triangular", gamma=1.0):
    """(rate, height * scale) at step t: walks the cycle from its start."""
    size = up + down
    cycle = t // size + 1
    into = t - (cycle - 1) * size
    height = into / up if into <= up else 1 - (into - up) / down
    scale = {"triangular": 1.0, "triangular2": 0.5 ** (cycle - 1),
             "exp_range": gamma ** t}[mode]
    return base + (top - base) * height * scale, height * scale


def test_multiplicative_closed_form():
    opt = _ours()
    s = sched.MultiplicativeLR(opt, [lambda e: 0.9, lambda e: 1.0 / (e + 1)])
    want = [[BASES[0] * 0.9 ** e, BASES[1] / math.factorial(e + 1)] for e in range(8)]
    _close(_rates(s, opt, 8), want)


@pytest.mark.parametrize("factor,total", [(0.25, 3), (0.5, 0), (1.0, 2), (0.0, 2)])
def test_constant_closed_form(factor, total):
    opt = _ours()
    s = sched.ConstantLR(opt, factor=factor, total_iters=total)
    want = [[b * (factor if e < total else 1.0) for b in BASES] for e in range(7)]
    if total == 0:  # as PyTorch: epoch 0 scales, and nothing restores
        want = [[b * factor for b in BASES] for _ in range(7)]
    _close(_rates(s, opt, 7), want)


@pytest.mark.parametrize("total,power", [(5, 1.0), (4, 2.0), (6, 0.5), (0, 1.0)])
def test_polynomial_closed_form(total, power):
    opt = _ours()
    s = sched.PolynomialLR(opt, total_iters=total, power=power)
    want = [[b * ((1 - min(e, total) / total) ** power if total else 1.0) for b in BASES]
            for e in range(9)]
    _close(_rates(s, opt, 9), want)


@pytest.mark.parametrize("mode,up,down,gamma", [("triangular", 3, None, 1.0),
                                                ("triangular2", 2, 4, 1.0),
                                                ("exp_range", 4, 2, 0.97)])
def test_cyclic_closed_form_and_momentum(mode, up, down, gamma):
    opt = _ours(momentum=0.5)
    s = sched.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.5, 0.1], step_size_up=up,
                       step_size_down=down, mode=mode, gamma=gamma)
    d = up if down is None else down
    for t in range(20):
        for g, base, top in zip(opt.param_groups, (0.01, 0.02), (0.5, 0.1)):
            lr, hs = _cyclic(t, base, top, up, d, mode, gamma)
            assert math.isclose(g["lr"], lr, **TOL), (t, g["lr"], lr)
            assert math.isclose(g["momentum"], 0.9 - 0.1 * hs, **TOL)
        opt.step()
        s.step()


def test_chained_composes():
    opt = _ours()
    s = sched.ChainedScheduler([sched.ConstantLR(opt, factor=0.5, total_iters=2),
                                sched.ExponentialLR(opt, gamma=0.9)])
    want = [[b * (0.5 if e < 2 else 1.0) * 0.9 ** e for b in BASES] for e in range(6)]
    _close(_rates(s, opt, 6), want)


# ---- against torch

TORCH_CASES = {
    "Multiplicative": (lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95), 10),
    "Multiplicative2": (lambda m, o: m.MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1 / (1 + 0.1 * e)]), 10),
    "Constant": (lambda m, o: m.ConstantLR(o, factor=0.3, total_iters=4), 8),
    "Constant0": (lambda m, o: m.ConstantLR(o, factor=0.7, total_iters=0), 4),
    "Polynomial": (lambda m, o: m.PolynomialLR(o, total_iters=6, power=1.7), 10),
    "Cyclic": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3), 20),
    "Cyclic2": (lambda m, o: m.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], step_size_up=2,
                                        step_size_down=5, mode="triangular2",
                                        base_momentum=[0.7, 0.75], max_momentum=0.95), 30),
    "CyclicExp": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=4, step_size_down=1,
                                          mode="exp_range", gamma=0.9), 25),
    "CyclicFn": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                         scale_fn=lambda x: 1 / (1 + x),
                                         scale_mode="iterations"), 15),
    "CyclicNoMomentum": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                 cycle_momentum=False), 10),
    "Chained": (lambda m, o: m.ChainedScheduler([m.ConstantLR(o, factor=0.1, total_iters=2),
                                                 m.ExponentialLR(o, gamma=0.9),
                                                 m.PolynomialLR(o, total_iters=7)]), 10),
    "ChainedCyclic": (lambda m, o: m.ChainedScheduler([m.CyclicLR(o, 0.01, 0.1, 2),
                                                       m.MultiplicativeLR(o, lambda e: 0.99)],
                                                      optimizer=o), 10),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_match_torch(case, cls):
    torch = torch_or_skip()
    make, steps = TORCH_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = _both(torch, make, steps, cls, **({"momentum": 0.9} if cls == "SGD" else {}))
    for g, h in zip(a.optimizer.param_groups, b.optimizer.param_groups):
        assert sorted(g) == sorted(h)  # initial_lr, max_momentum, base_momentum as torch's
        for key in ("initial_lr", "max_momentum", "base_momentum"):
            assert key not in g or math.isclose(g[key], h[key], **TOL)
    ours, theirs = set(a.state_dict()), set(b.state_dict())
    # torch's base class keeps a bookkeeping flag of its own (_get_lr_called_within_step
    # is kept by both now)
    theirs -= {"_scale_fn_ref"}
    ours -= {"_is_initial"}
    theirs -= {"_is_initial"}
    assert ours == theirs, (ours ^ theirs)


def test_step_epoch_uses_closed_forms_as_torch():
    torch = torch_or_skip()
    for make in (lambda m, o: m.ConstantLR(o, factor=0.4, total_iters=3),
                 lambda m, o: m.PolynomialLR(o, total_iters=5, power=2.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _both(torch, make, 5, arg=lambda i: (4, 1, 2, 7, 3)[i])


class _Factor:
    """A callable object: its attributes go into state_dict()."""

    def __init__(self, f):
        self.f = f

    def __call__(self, x):
        return self.f


@pytest.mark.parametrize("make", [
    lambda o: sched.MultiplicativeLR(o, _Factor(0.9)),
    lambda o: sched.ConstantLR(o, factor=0.5, total_iters=9),
    lambda o: sched.PolynomialLR(o, total_iters=10, power=0.5),
    lambda o: sched.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    lambda o: sched.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=_Factor(0.5)),
    lambda o: sched.ChainedScheduler([sched.ConstantLR(o, total_iters=9),
                                      sched.ExponentialLR(o, gamma=0.9)]),
], ids=["MultiplicativeLR", "ConstantLR", "PolynomialLR", "CyclicLR", "CyclicLR-fn",
        "ChainedScheduler"])
def test_state_dict_round_trip(make):
    opt = _ours(momentum=0.9)
    a = make(opt)
    for _ in range(7):
        opt.step()
        a.step()
    buf = io.BytesIO()
    pdt.save({"s": a.state_dict(), "o": opt.state_dict()}, buf)
    buf.seek(0)
    saved = pdt.load(buf)
    opt2 = _ours(momentum=0.9)
    b = make(opt2)
    opt2.load_state_dict(saved["o"])
    b.load_state_dict(saved["s"])
    for _ in range(5):
        a.step()
        b.step()
        assert a.get_last_lr() == b.get_last_lr()
        assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in opt2.param_groups]


def test_callable_object_attributes_saved_and_restored():
    opt = _ours()
    fn = _Factor(0.5)
    s = sched.MultiplicativeLR(opt, fn)
    state = s.state_dict()
    assert state["lr_lambdas"] == [{"f": 0.5}, {"f": 0.5}]
    fn.f = 0.1
    s.load_state_dict(state)
    assert fn.f == 0.5 and s.lr_lambdas == [fn, fn]
    c = sched.CyclicLR(_ours(momentum=0.9), 0.01, 0.1, scale_fn=lambda x: 1.0)
    assert c.state_dict()["_scale_fn_custom"] is None


def test_module_and_all():
    for name in ("MultiplicativeLR", "ConstantLR", "PolynomialLR", "CyclicLR",
                 "ChainedScheduler"):
        assert name in sched.__all__
        cls = getattr(sched, name)
        assert cls.__module__ == sched.__name__ and issubclass(cls, sched.LRScheduler)


def test_errors():
    opt = _ours()
    with pytest.raises(ValueError, match=r"ConstantLR: Constant multiplicative factor expected "
                                         r"to be between 0 and 1, got factor=1.5"):
        sched.ConstantLR(opt, factor=1.5)
    with pytest.raises(ValueError, match=r"PolynomialLR: total_iters must be >= 0, got -1"):
        sched.PolynomialLR(opt, total_iters=-1)
    with pytest.raises(TypeError, match=r"PolynomialLR: power must be a number, got str"):
        sched.PolynomialLR(opt, power="2")
    with pytest.raises(ValueError, match=r"MultiplicativeLR: Expected 2 lr_lambdas, but got 3"):
        sched.MultiplicativeLR(opt, [lambda e: 1.0] * 3)
    with pytest.raises(TypeError, match=r"lr_lambda should be a function, but got int"):
        sched.MultiplicativeLR(opt, 3)
    with pytest.raises(ValueError, match=r"CyclicLR: mode is invalid and scale_fn is None.*"
                                         r"got 'tri'"):
        sched.CyclicLR(opt, 0.1, 1.0, mode="tri")
    with pytest.raises(ValueError, match=r"step_size_up must be > 0 .*step_size_up=0"):
        sched.CyclicLR(opt, 0.1, 1.0, step_size_up=0)
    with pytest.raises(ValueError, match=r"scale_mode must be 'cycle' or 'iterations', got 'x'"):
        sched.CyclicLR(opt, 0.1, 1.0, scale_fn=abs, scale_mode="x")
    with pytest.raises(ValueError, match=r"expected 2 values for max_lr .*got 3"):
        sched.CyclicLR(opt, 0.1, [1.0] * 3)
    adagrad = _ours("Adagrad")
    with pytest.raises(ValueError, match=r"optimizer must support momentum or beta1.*Adagrad"):
        sched.CyclicLR(adagrad, 0.1, 1.0)
    assert adagrad.param_groups[0]["lr"] == BASES[0]  # a refusal changes nothing
    with pytest.raises(ValueError, match=r"expects at least one scheduler"):
        sched.ChainedScheduler([])
    with pytest.raises(ValueError, match=r"does not support `ReduceLROnPlateau`.*index 1"):
        sched.ChainedScheduler([sched.ExponentialLR(opt, 0.9), sched.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match=r"same optimizer.*ExponentialLR at index 1"):
        sched.ChainedScheduler([sched.ExponentialLR(opt, 0.9),
                                sched.ExponentialLR(_ours(), 0.9)])
    with pytest.raises(TypeError, match=r"index 0 \(int\) should have `optimizer`"):
        sched.ChainedScheduler([3])


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_cyclic_training_matches_torch_on_device(device, cls):
    """The parameters after steps whose lr and momentum (beta1) CyclicLR sets."""
    torch = torch_or_skip()
    init = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
    w = nn.Parameter(pdt.tensor(init, device=device))
    tw = torch.nn.Parameter(torch.tensor(init))
    kw = {"momentum": 0.9} if cls == "SGD" else {}
    opt, topt = getattr(optim, cls)([w], lr=0.1, **kw), getattr(torch.optim, cls)([tw], lr=0.1, **kw)
    s = sched.CyclicLR(opt, 0.01, 0.2, step_size_up=2, mode="triangular2")
    ts = torch.optim.lr_scheduler.CyclicLR(topt, 0.01, 0.2, step_size_up=2, mode="triangular2")
    for _ in range(9):
        for p, o in ((w, opt), (tw, topt)):
            o.zero_grad()
            ((p * p).sum() + (p * p).tanh().sum()).backward()
            o.step()
        s.step()
        ts.step()
    np.testing.assert_allclose(w.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-6,
                               atol=1e-7)
