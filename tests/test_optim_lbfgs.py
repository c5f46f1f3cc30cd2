"""optim.LBFGS on every device against torch's (same initial weights, same closure:
a Rosenbrock function of one parameter plus a quadratic of another), with and
without the strong-Wolfe line search, a short history (pairs dropped), maximize, and
several step() calls: float64 within 1e-11 relative (45 evaluations apart, the
libraries' orders of summation reach 1.3e-12), float32 within 1e-6 relative
where the runs converge; the state's counters as torch's; state_dict round trips;
the errors; the standard closure's loss read without a warning."""
import io
import subprocess
import sys

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import TORCH_CHECKED, torch_or_skip
from pydevtensor import nn, optim

X0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.5, -0.3])
Y0 = np.array([[0.5, -1.0], [2.0, 0.25]])
TARGET = np.array([[1.0, 2.0], [-1.0, 0.5]])


def _loss(lib, x, y, target, sign=1.0):
    # a mild Rosenbrock (its valley's walls 2, not 100: well conditioned enough that
    # the libraries' orders of summation stay below the tolerances)
    rosen = (2 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    return sign * (rosen + ((y - target) ** 2).sum() * 0.5)


def _run(lib, device, dtype, steps, maximize=False, **kw):
    on = {"device": device} if lib is pdt else {}
    dt = getattr(lib, dtype)
    x = lib.nn.Parameter(lib.tensor(X0, dtype=dt, **on))
    y = lib.nn.Parameter(lib.tensor(Y0, dtype=dt, **on))
    target = lib.tensor(TARGET, dtype=dt, **on)
    unused = lib.nn.Parameter(lib.ones(3, dtype=dt, **on))  # never gets a gradient
    opt = getattr(lib.optim, "LBFGS")([x, y, unused], maximize=maximize, **kw)
    sign = -1.0 if maximize else 1.0

    def closure():
        opt.zero_grad()
        loss = _loss(lib, x, y, target, sign)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return [x, y, unused], opt, losses


KWS = {
    "fixed": dict(lr=0.1, max_iter=15),
    "fixed-history": dict(lr=0.05, max_iter=12, history_size=3),
    "wolfe": dict(line_search_fn="strong_wolfe", max_iter=10),
    "wolfe-history": dict(line_search_fn="strong_wolfe", history_size=2, max_iter=8,
                          max_eval=15),
}


@pytest.mark.parametrize("case", sorted(KWS))
@pytest.mark.parametrize("maximize", [False, True])
def test_matches_torch_float64(device, case, maximize):
    torch = torch_or_skip(since=TORCH_CHECKED)  # LBFGS's maximize
    ours, opt, losses = _run(pdt, device, "float64", 3, maximize, **KWS[case])
    theirs, topt, tlosses = _run(torch, None, "float64", 3, maximize, **KWS[case])
    np.testing.assert_allclose(losses, tlosses, rtol=1e-11)
    for p, tp in zip(ours, theirs):
        assert p.device == device
        np.testing.assert_allclose(p.detach().cpu().numpy(), tp.detach().numpy(),
                                   rtol=1e-11, atol=1e-14)
    state, tstate = opt.state[ours[0]], topt.state[theirs[0]]
    assert sorted(state) == sorted(tstate)
    for k in ("func_evals", "n_iter"):
        assert state[k] == tstate[k], k
    assert len(state["old_dirs"]) == len(tstate["old_dirs"])
    np.testing.assert_allclose(float(state["t"]), float(tstate["t"]), rtol=1e-12)


@pytest.mark.parametrize("case", ["fixed", "wolfe"])
def test_matches_torch_float32(device, case):
    torch = torch_or_skip(since=TORCH_CHECKED)  # LBFGS's maximize
    kw = dict(KWS[case], max_iter=6)
    ours, _, losses = _run(pdt, device, "float32", 1, **kw)
    theirs, _, tlosses = _run(torch, None, "float32", 1, **kw)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-6)
    for p, tp in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().cpu().numpy(), tp.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)


def test_converges_to_the_minimum(device):
    ours, _, losses = _run(pdt, device, "float64", 6, line_search_fn="strong_wolfe",
                           max_iter=50, tolerance_grad=1e-10, tolerance_change=1e-14)
    np.testing.assert_allclose(ours[0].detach().cpu().numpy(), np.ones(6), rtol=1e-6)
    np.testing.assert_allclose(ours[1].detach().cpu().numpy(), TARGET, rtol=1e-6)
    assert losses[-1] < 1e-10


WARNS_NOTHING = """
import sys, warnings
import pydevtensor as pdt
warnings.simplefilter("error")
for kw in ({}, {"line_search_fn": "strong_wolfe"}):
    for maximize in (False, True):
        x = pdt.nn.Parameter(pdt.tensor([-1.2, 1.0], device=sys.argv[1]))
        opt = pdt.optim.LBFGS([x], max_iter=5, maximize=maximize, **kw)
        def closure():
            opt.zero_grad()
            loss = (x - 2.0).pow(2).sum() * (-1.0 if maximize else 1.0)
            loss.backward()
            return loss
        opt.step(closure)
print("ok")
"""


def test_standard_closure_warns_nothing(device):
    # the closure returns the loss that requires grad; torch's LBFGS reads it without a
    # warning, and so must ours (float() of it warned "Converting a tensor with
    # requires_grad=True to a scalar"). That warning comes once per process, so a fresh
    # process, where nothing has warned yet, runs the steps.
    # the child runs on the device's kind: a logical device of a split GPU (the test
    # session's cuda:1) does not exist in a fresh process
    proc = subprocess.run([sys.executable, "-c", WARNS_NOTHING, device.type],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_closure_may_return_a_number(device):
    x = nn.Parameter(pdt.tensor([3.0], device=device))
    opt = optim.LBFGS([x], lr=0.5, max_iter=5)

    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return float(loss.detach())

    assert opt.step(closure) == 9.0
    assert abs(float(x.detach())) < 3.0


def test_state_dict_round_trip(device):
    ours, opt, _ = _run(pdt, device, "float64", 2, line_search_fn="strong_wolfe", max_iter=4)
    buf = io.BytesIO()
    pdt.save(opt.state_dict(), buf)
    buf.seek(0)
    again, opt2, _ = _run(pdt, device, "float64", 0, line_search_fn="strong_wolfe", max_iter=4)
    opt2.load_state_dict(pdt.load(buf))
    for p, q in zip(ours, again):
        q.data.copy_(p.detach())
    target = pdt.tensor(TARGET, dtype=pdt.float64, device=device)
    for params, o in ((ours, opt), (again, opt2)):
        def closure(params=params, o=o):
            o.zero_grad()
            loss = _loss(pdt, params[0], params[1], target)
            loss.backward()
            return loss
        o.step(closure)
    for p, q in zip(ours, again):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())
    assert opt.state[ours[0]]["n_iter"] == opt2.state[again[0]]["n_iter"]


def test_errors():
    w = nn.Parameter(pdt.ones(2))
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [w]}, {"params": [nn.Parameter(pdt.ones(1))]}])
    with pytest.raises(ValueError, match=r"LBFGS: only 'strong_wolfe' is supported as "
                                         r"line_search_fn \(or None\), got 'armijo'"):
        optim.LBFGS([w], line_search_fn="armijo")
    with pytest.raises(ValueError, match=r"LBFGS: history_size must be >= 1, got 0"):
        optim.LBFGS([w], history_size=0)
    with pytest.raises(TypeError, match=r"LBFGS: max_iter must be an int, got float"):
        optim.LBFGS([w], max_iter=2.5)
    with pytest.raises(ValueError, match=r"LBFGS: Invalid learning rate: -1 \(it must be >= 0\)"):
        optim.LBFGS([w], lr=-1)
    opt = optim.LBFGS([w])
    with pytest.raises(TypeError, match=r"LBFGS.step\(\) needs a closure"):
        opt.step()
    with pytest.raises(ValueError, match=r"per-parameter options"):
        opt.add_param_group({"params": [nn.Parameter(pdt.ones(1))]})
