"""optim.Rprop and optim.ASGD on every device: trajectories against the update rules
written here in NumPy float64 (1e-12 relative for float64 parameters), against torch
with the same initial weights and gradients (1e-6 relative for float32, 1e-12 for
float64), two parameter groups, step(closure), state_dict keys as torch's, round
trips and torch state dicts loading, all-or-nothing steps, and the errors."""
import io

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn, optim

STEPS = 9
RTOL = {"float32": 1e-6, "float64": 1e-12}
SHAPES = [(3, 4), (5,)]


def _gradients(seed=0):
    """STEPS lists of gradients (one per shape); some steps repeat the previous signs,
    some flip them, some hold zeros, so that every Rprop branch is taken."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(STEPS):
        gs = [rng.standard_normal(s) for s in SHAPES]
        if t % 3 == 2:
            gs = [np.abs(g) * np.sign(prev) for g, prev in zip(gs, out[-1])]
        gs[1][t % 5] = 0.0
        out.append(gs)
    return out


def _inits(seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in SHAPES]


def _run(lib, cls, device, dtype, groups_kw, grads, closure=False):
    """The parameters after STEPS steps of cls over two groups with the given gradients."""
    on = {"device": device} if lib is pdt else {}
    ws = [lib.nn.Parameter(lib.tensor(w.astype(dtype), **on)) for w in _inits()]
    opt = getattr(lib.optim, cls)([dict(params=[w], **g) for w, g in zip(ws, groups_kw)])
    for gs in grads:
        for w, g in zip(ws, gs):
            w.grad = lib.tensor(g.astype(dtype), **on)
        if closure:
            assert opt.step(lambda: 42.0) == 42.0
        else:
            assert opt.step() is None
    return ws, opt


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else np.asarray(t)


# ---- NumPy references

def _rprop_ref(w, grads, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    prev, size = np.zeros_like(w), np.full_like(w, lr)
    for g in grads:
        g = -g if maximize else g
        s = np.sign(g * prev)
        size = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)),
                       *step_sizes)
        g = np.where(s < 0, 0.0, g)
        w = w - np.sign(g) * size
        prev = g
    return w


def _f32(x):
    return float(np.float32(x))


def _asgd_ref(w, grads, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
              maximize=False, _f32=_f32):
    # eta and mu as their 0-d state tensors hold them (_f32: float32, or float64 where
    # the default dtype is float64)
    eta, mu, ax = _f32(lr), 1.0, np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = (-g if maximize else g) + weight_decay * w
        w = w * (1 - lambd * eta) - eta * g
        ax = w.copy() if mu == 1 else ax + mu * (w - ax)
        eta = _f32(lr / (1 + lambd * lr * t) ** alpha)
        mu = _f32(1 / max(1, t - t0))
    return w, ax


CASES = {
    "Rprop": [{}, {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2),
                   "maximize": True}],
    "ASGD": [{"t0": 3}, {"lr": 0.1, "lambd": 0.05, "alpha": 0.5, "t0": 0,
                         "weight_decay": 0.1, "maximize": True}],
}


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("cls", sorted(CASES))
def test_matches_numpy_float64(device, cls, default):
    # the 0-d state (step; ASGD's eta and mu) in PyTorch's _get_scalar_dtype(): float64
    # under a float64 default dtype (eta then unrounded), float32 otherwise
    grads = _gradients()
    old = pdt.get_default_dtype()
    pdt.set_default_dtype(getattr(pdt, default))
    try:
        ws, opt = _run(pdt, cls, device, "float64", CASES[cls], grads)
    finally:
        pdt.set_default_dtype(old)
    for i, (w, kw) in enumerate(zip(ws, CASES[cls])):
        gs = [g[i] for g in grads]
        if cls == "Rprop":
            want = _rprop_ref(_inits()[i], gs, **kw)
        else:
            want, ax = _asgd_ref(_inits()[i], gs, **kw,
                                 **({} if default == "float32" else {"_f32": float}))
            np.testing.assert_allclose(_np(opt.state[w]["ax"]), ax, rtol=1e-12, atol=1e-15)
        assert w.device == device
        np.testing.assert_allclose(_np(w), want, rtol=1e-12, atol=1e-15)
        for k in ("step", "eta", "mu") if cls == "ASGD" else ("step",):
            v = opt.state[w][k]
            assert (v.ndim, v.dtype, v.device.type) == (0, getattr(pdt, default), "cpu")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls", sorted(CASES))
def test_matches_torch(device, cls, dtype):
    torch = torch_or_skip()
    grads = _gradients(seed=3)
    ws, opt = _run(pdt, cls, device, dtype, CASES[cls], grads, closure=True)
    tws, topt = _run(torch, cls, None, dtype, CASES[cls], grads)
    for w, tw in zip(ws, tws):
        assert w.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(_np(w), tw.detach().numpy(), rtol=RTOL[dtype],
                                   atol=RTOL[dtype] * 1e-3)
        state, tstate = opt.state[w], topt.state[tw]
        assert sorted(state) == sorted(tstate)
        for k, tv in tstate.items():
            v = state[k]
            if tv.ndim == 0:  # step, eta, mu: 0-d tensors, on the CPU here
                assert v.dtype == pdt.float32 and v.device.type == "cpu"
            if tv.ndim == 0:
                assert abs(float(v) - tv.item()) <= 1e-7 * abs(tv.item())
            else:
                assert v.device == device
                np.testing.assert_allclose(_np(v), tv.numpy(), rtol=RTOL[dtype],
                                           atol=RTOL[dtype] * 1e-3)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert [sorted(g) for g in sd["param_groups"]] == [sorted(g) for g in tsd["param_groups"]]
    assert sorted(sd["state"]) == sorted(tsd["state"])


@pytest.mark.parametrize("cls", sorted(CASES))
def test_torch_state_dict_loads_and_steps_on(device, cls):
    torch = torch_or_skip()
    grads = _gradients(seed=5)
    tws, topt = _run(torch, cls, None, "float64", CASES[cls], grads[:5])
    ws, opt = _run(pdt, cls, device, "float64", CASES[cls], [])
    tsd = topt.state_dict()
    opt.load_state_dict({"state": {k: {n: pdt.tensor(v.numpy())
                                       for n, v in st.items()}
                                   for k, st in tsd["state"].items()},
                         "param_groups": tsd["param_groups"]})
    for w, tw in zip(ws, tws):
        w.data.copy_(pdt.tensor(tw.detach().numpy(), device=device))
    for gs in grads[5:]:
        for w, tw, g in zip(ws, tws, gs):
            w.grad = pdt.tensor(g, device=device)
            tw.grad = torch.tensor(g)
        opt.step()
        topt.step()
    for w, tw in zip(ws, tws):
        np.testing.assert_allclose(_np(w), tw.detach().numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("cls", sorted(CASES))
def test_state_dict_round_trip_bit_for_bit(device, cls):
    grads = _gradients(seed=7)
    a, opt_a = _run(pdt, cls, device, "float32", CASES[cls], grads[:4])
    buf = io.BytesIO()
    pdt.save(opt_a.state_dict(), buf)
    buf.seek(0)
    b, opt_b = _run(pdt, cls, device, "float32", CASES[cls], [])
    opt_b.load_state_dict(pdt.load(buf))
    for x, y in zip(a, b):
        y.data.copy_(x.detach())
    for gs in grads[4:]:
        for x, y, g in zip(a, b, gs):
            x.grad = pdt.tensor(g.astype(np.float32), device=device)
            y.grad = pdt.tensor(g.astype(np.float32), device=device)
        opt_a.step()
        opt_b.step()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(_np(x), _np(y))


@pytest.mark.parametrize("cls", sorted(CASES))
def test_step_is_all_or_nothing_and_closure_runs_with_grad(device, cls):
    ws, opt = _run(pdt, cls, device, "float32", CASES[cls], _gradients()[:2])
    before = [_np(w).copy() for w in ws]
    states = {k: dict(v) for k, v in opt.state.items()}
    calls = []
    update = opt._update

    def failing(*args):  # the second parameter's update fails (out of memory, say)
        calls.append(1)
        if len(calls) == 2:
            raise MemoryError("out of memory")
        return update(*args)

    opt._update = failing
    with pytest.raises(MemoryError):
        opt.step()
    del opt._update
    for w, b in zip(ws, before):
        np.testing.assert_array_equal(_np(w), b)
    assert {k: sorted(v) for k, v in opt.state.items()} == {k: sorted(v)
                                                           for k, v in states.items()}
    assert all(opt.state[k]["step"].item() == 2 for k in states)

    def closure():
        assert pdt.is_grad_enabled()
        opt.zero_grad()
        loss = sum((w * w).sum() for w in ws)
        loss.backward()
        return loss

    with pdt.no_grad():
        loss = opt.step(closure)
    assert loss.requires_grad and loss.item() > 0


def test_errors():
    w = [nn.Parameter(pdt.ones(2))]
    with pytest.raises(ValueError, match=r"Rprop: Invalid eta values: 1.5, 1.2"):
        optim.Rprop(w, etas=(1.5, 1.2))
    with pytest.raises(ValueError, match=r"Rprop: Invalid learning rate: -0.1 \(it must be >= 0\)"):
        optim.Rprop(w, lr=-0.1)
    with pytest.raises(TypeError, match=r"Rprop: step_sizes must be a pair of numbers"):
        optim.Rprop(w, step_sizes=1e-6)
    with pytest.raises(ValueError, match=r"ASGD: Invalid lambd value: -1.0 \(it must be >= 0\)"):
        optim.ASGD(w, lambd=-1.0)
    with pytest.raises(ValueError, match=r"ASGD: Invalid alpha value: -0.5 \(it must be >= 0\)"):
        optim.ASGD(w, alpha=-0.5)
    with pytest.raises(TypeError, match=r"ASGD: t0 must be a number, got str"):
        optim.ASGD(w, t0="1")
    with pytest.raises(TypeError, match=r"ASGD: maximize must be True or False, got 1"):
        optim.ASGD(w, maximize=1)
    with pytest.raises(TypeError, match=r"closure must be callable"):
        optim.Rprop(w).step(3)
    opt = optim.ASGD(w)
    w[0].grad = pdt.ones(2)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["eta"] = "x"
    with pytest.raises(ValueError, match=r"parameter 0's state: eta is 'x', not a finite number"):
        optim.ASGD(w).load_state_dict(sd)


@pytest.mark.parametrize("cls", ["Rprop", "ASGD", "LBFGS"])
def test_step_hooks_run(cls):
    """Optimizer's step hooks run around the new optimizers' steps too."""
    w = nn.Parameter(pdt.ones(2))
    opt = getattr(optim, cls)([w])
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 2.0
    assert calls == ["pre", "post"]


@pytest.mark.parametrize("cls", sorted(CASES))
def test_steps_read_nothing_back_from_the_device(device, cls):
    """No copy to the host in a step (on a GPU: no synchronisation); the step count and
    ASGD's eta and mu live on the host."""
    grads = _gradients(seed=11)
    ws, opt = _run(pdt, cls, device, "float32", CASES[cls], grads[:1])
    gs = [[pdt.tensor(g.astype(np.float32), device=device) for g in step] for step in grads[1:]]
    pdt.reset_transfer_stats()
    for step in gs:
        for w, g in zip(ws, step):
            w.grad = g
        opt.step()
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0
