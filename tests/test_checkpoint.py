"""Checkpoints: an optimizer's state_dict() / load_state_dict() and save() / load() of
{'model': ..., 'optim': ..., 'epoch': ...}, so that training stopped and resumed gives
the numbers of training that never stopped, bit for bit, on every device; the
optimizer's layout is PyTorch's, its state_dict a snapshot, and load_state_dict all or
nothing."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from pydevtensor import nn, optim


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


RNG = np.random.default_rng(3)
X = RNG.standard_normal((8, 4))
Y = RNG.standard_normal((8, 3))
W0 = RNG.standard_normal((3, 4))
B0 = RNG.standard_normal(3)
LR = {"SGD": 0.05, "Adam": 0.01}
STEPS = 6


def make(kind, dev, dtype=pdt.float64, lr=None):
    net = nn.Linear(4, 3, device=dev, dtype=dtype)
    net.load_state_dict({"weight": pdt.from_numpy(W0), "bias": pdt.from_numpy(B0)})
    lr = LR[kind] if lr is None else lr
    opt = optim.SGD(net.parameters(), lr=lr, momentum=0.9, weight_decay=0.01) \
        if kind == "SGD" else optim.Adam(net.parameters(), lr=lr, weight_decay=0.01)
    return net, opt


def train(net, opt, steps, dev):
    x = pdt.from_numpy(X).to(device=dev, dtype=net.weight.dtype)
    y = pdt.from_numpy(Y).to(device=dev, dtype=net.weight.dtype)
    for _ in range(steps):
        opt.zero_grad()
        d = net(x) - y
        (d * d).mean().backward()
        opt.step()


def numpy_reference(kind, steps):
    """The same training in NumPy float64: PyTorch's SGD (momentum 0.9) or Adam, each
    with weight decay 0.01 added to the gradient."""
    w, b = W0.copy(), B0.copy()
    state = [{}, {}]
    for t in range(1, steps + 1):
        g_out = 2 * (X @ w.T + b - Y) / Y.size
        for i, (p, g) in enumerate(((w, g_out.T @ X), (b, g_out.sum(0)))):
            d = g + 0.01 * p
            s = state[i]
            if kind == "SGD":
                s["buf"] = d.copy() if "buf" not in s else 0.9 * s["buf"] + d
                p -= LR[kind] * s["buf"]
            else:
                s["m"] = 0.9 * s.get("m", 0) + 0.1 * d
                s["v"] = 0.999 * s.get("v", 0) + 0.001 * d * d
                denom = np.sqrt(s["v"]) / np.sqrt(1 - 0.999 ** t) + 1e-8
                p -= LR[kind] / (1 - 0.9 ** t) * s["m"] / denom
    return w, b


def values(net):
    return [p.detach().cpu().numpy().copy() for p in net.parameters()]


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_resumed_training_gives_the_numbers_of_uninterrupted_training(tmp_path, dev, kind):
    net, opt = make(kind, dev)
    train(net, opt, STEPS, dev)
    uninterrupted = values(net)
    # float64 throughout: NumPy's float64 formulas agree to rounding (1e-12 relative)
    for got, want in zip(uninterrupted, numpy_reference(kind, STEPS)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

    net, opt = make(kind, dev)
    train(net, opt, STEPS // 2, dev)
    pdt.save({"model": net.state_dict(), "optim": opt.state_dict(), "epoch": STEPS // 2,
              "lr": opt.param_groups[0]["lr"], "note": None}, tmp_path / "ckpt")
    del net, opt
    net, opt = make(kind, dev, lr=123.0)  # fresh, with another learning rate
    net.weight.detach().zero_()
    ckpt = pdt.load(tmp_path / "ckpt")
    assert (ckpt["epoch"], ckpt["lr"], ckpt["note"]) == (STEPS // 2, LR[kind], None)
    assert sorted(ckpt["optim"]["state"]) == [0, 1]  # int keys come back as ints
    net.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optim"])
    assert opt.param_groups[0]["lr"] == LR[kind]
    train(net, opt, STEPS - STEPS // 2, dev)
    for got, want in zip(values(net), uninterrupted):
        np.testing.assert_array_equal(got, want)  # exactly


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_state_dict_layout_is_pytorchs(kind):
    a, b, c = (nn.Parameter(pdt.ones(2)) for _ in range(3))
    cls = optim.SGD if kind == "SGD" else optim.Adam
    opt = cls([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, **(
        {"momentum": 0.9} if kind == "SGD" else {}))
    (a.sum() + c.sum()).backward()  # b has no gradient: no state
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"} and list(sd["state"]) == [0, 2]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert [g["lr"] for g in sd["param_groups"]] == [0.1, 0.5]
    names = {"SGD": ["momentum_buffer"], "Adam": ["step", "exp_avg", "exp_avg_sq"]}[kind]
    assert list(sd["state"][0]) == names
    if kind == "Adam":
        assert sd["state"][2]["step"] == 1 and sd["param_groups"][0]["betas"] == (0.9, 0.999)


def test_state_dict_shares_the_state_tensors(dev):
    # as PyTorch's: the live buffers (no copy per checkpoint), so a later step, which
    # updates SGD's momentum buffer in place, changes what was taken; the
    # hyperparameters are copies
    w = nn.Parameter(pdt.tensor([1.0, 2.0], device=dev))
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    for _ in range(2):
        (w * w).sum().backward()
        opt.step()
    sd = opt.state_dict()
    taken = sd["state"][0]["momentum_buffer"]
    before = taken.cpu().tolist()
    assert taken is opt.state[w]["momentum_buffer"]
    sd["state"][0]["extra"] = 1  # a new dict of the same tensors
    assert "extra" not in opt.state[w]
    del sd["state"][0]["extra"]
    sd["param_groups"][0]["lr"] = 99.0
    assert opt.param_groups[0]["lr"] == 0.1
    # load_state_dict copies (unlike PyTorch's): a second optimizer never shares them
    other = optim.SGD([w], lr=0.1, momentum=0.9)
    other.load_state_dict(sd)
    loaded = other.state[w]["momentum_buffer"]
    assert loaded.data_ptr() != taken.data_ptr() and loaded.cpu().tolist() == before
    (w * w).sum().backward()
    opt.step()
    assert taken.cpu().tolist() != before and loaded.cpu().tolist() == before
    assert other.param_groups[0]["lr"] == 99.0


def test_state_follows_each_parameters_device_and_dtype(dev):
    src = nn.Parameter(pdt.ones(3))  # float32 on the CPU
    opt = optim.Adam([src], lr=0.1)
    (src * src).sum().backward()
    opt.step()
    dst = nn.Parameter(pdt.zeros(3, device=dev, dtype=pdt.float64))
    resumed = optim.Adam([dst])
    resumed.load_state_dict(opt.state_dict())
    state = resumed.state[dst]
    for name in ("exp_avg", "exp_avg_sq"):
        assert (state[name].device, state[name].dtype) == (pdt.device(dev), pdt.float64)
        np.testing.assert_array_equal(state[name].cpu().numpy(),
                                      opt.state[src][name].numpy().astype(np.float64))
    assert state["step"] == 1


def snapshot(opt):
    sd = opt.state_dict()
    return (repr(sd["param_groups"]),
            {k: {n: (v.cpu().tolist() if isinstance(v, pdt.Tensor) else v)
                 for n, v in s.items()} for k, s in sd["state"].items()})


def test_load_state_dict_is_all_or_nothing():
    a, b = nn.Parameter(pdt.ones(2, 2)), nn.Parameter(pdt.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    (a.sum() + b.sum()).backward()
    opt.step()
    good = opt.state_dict()
    other = optim.Adam([nn.Parameter(pdt.ones(2, 2)), nn.Parameter(pdt.ones(2))], lr=0.7)
    before = snapshot(other)

    def changed(**parts):
        sd = {"state": {k: dict(v) for k, v in good["state"].items()},
              "param_groups": [dict(g) for g in good["param_groups"]]}
        for path, value in parts.items():
            where, *keys = path.split("__")
            target = sd[where]
            for k in keys[:-1]:
                target = target[int(k) if k.isdigit() else k]
            last = keys[-1] if keys else None
            if last is None:
                sd[where] = value
            else:
                target[int(last) if last.isdigit() else last] = value
        return sd

    bad = [
        (changed(param_groups=good["param_groups"] * 2), ValueError,
         r"the state dict has 2 parameter groups, this optimizer has 1"),
        (changed(param_groups__0__params=[0]), ValueError,
         r"parameter group 0 has 1 parameters in the state dict, 2 in this optimizer"),
        (changed(param_groups__0__params=[0, 0]), ValueError, r"index 0 is in .* twice"),
        (changed(param_groups__0__params=["0", "1"]), TypeError, r"must be a list of ints"),
        (changed(param_groups__0__lr="x"), TypeError, r"lr must be a number, got str"),
        (changed(param_groups__0__betas=(0.9, 1.5)), ValueError,
         r"Invalid beta parameter at index 1: 1.5"),
        (changed(state__7={}), ValueError, r"state for parameter 7, which no parameter group"),
        (changed(state__1__step=-1), ValueError, r"parameter 1's state: step is -1, not an int"),
        (changed(state__1__exp_avg=pdt.zeros(3)), ValueError,
         r"exp_avg is a float32 tensor of shape \(3,\), not a floating-point tensor of its "
         r"parameter's shape \(2,\)"),
        (changed(state__1__exp_avg=pdt.zeros(2, dtype=pdt.int64)), ValueError, r"int64"),
        (changed(state__1__momentum_buffer=pdt.zeros(2)), ValueError,
         r"unknown entry 'momentum_buffer' \(Adam's state holds 'step', 'exp_avg', 'exp_avg_sq'\)"),
        (changed(state__1=5), TypeError, r"parameter 1's state is an int, not a dict"),
        (changed(state=[]), TypeError, r"'state' must be a dict, got list"),
        ({"state": {}}, ValueError, r"the state dict has no 'param_groups'"),
        ([1, 2], TypeError, r"expected a dict \(an optimizer's state_dict\(\)\), got list"),
    ]
    bad[10][0]["state"][1].pop("exp_avg_sq")
    for sd, exc, match in bad:
        with pytest.raises(exc, match=match):
            other.load_state_dict(sd)
        assert snapshot(other) == before, match
    missing = changed()
    del missing["state"][0]["exp_avg"]
    with pytest.raises(ValueError, match=r"parameter 0's state has no 'exp_avg'"):
        other.load_state_dict(missing)
    assert snapshot(other) == before
    other.load_state_dict(good)  # and the good one is taken whole
    assert snapshot(other) == snapshot(opt)


def test_a_checkpoint_after_a_linear_decay_to_zero_loads():
    # LinearLR's recurrence ends its decay to end_factor=0 a rounding error below 0
    # (-1.5e-18 here, as PyTorch's); load_state_dict refused that lr ("Invalid learning
    # rate"), so the run could not resume; it loads as saved now, and the resumed run
    # is the uninterrupted one
    def run(stop=None, lr=0.1):
        w = nn.Parameter(pdt.tensor([1.0, -2.0, 0.5], dtype=pdt.float64))
        opt = optim.SGD([w], lr=lr, momentum=0.9)
        sched = optim.lr_scheduler.LinearLR(opt, start_factor=1 / 3, end_factor=0.0,
                                            total_iters=5)
        for k in range(9):
            w.grad = pdt.sin(w.detach() * (k + 1))
            opt.step()
            sched.step()
            if k == stop:
                saved = opt.state_dict(), sched.state_dict()
                assert saved[0]["param_groups"][0]["lr"] < 0  # the rounding error
                w = nn.Parameter(w.detach().clone())
                opt = optim.SGD([w], lr=pdt.tensor(0.1, dtype=pdt.float64)
                                if isinstance(lr, pdt.Tensor) else 0.1, momentum=0.9)
                sched = optim.lr_scheduler.LinearLR(opt, start_factor=1 / 3,
                                                    end_factor=0.0, total_iters=5)
                opt.load_state_dict(saved[0])
                sched.load_state_dict(saved[1])
        return w.tolist(), float(opt.param_groups[0]["lr"])

    assert run(stop=6) == run()
    tensor_lr = pdt.tensor(0.1, dtype=pdt.float64)  # a Tensor lr, filled in place
    assert run(stop=6, lr=tensor_lr) == run(lr=pdt.tensor(0.1, dtype=pdt.float64))


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_grad_through_a_checkpoint_writes_no_other_grad(device, use_reentrant):
    """autograd.grad() and backward(inputs=...) through a checkpoint give the tensors
    asked for their gradients and write no parameter's .grad (the inner plain backward
    filled every parameter's), as PyTorch's non-reentrant checkpoint."""
    lin = pdt.nn.Linear(2, 2, dtype=pdt.float64, device=device)
    w = pdt.ones(1, 2, dtype=pdt.float64, device=device, requires_grad=True)
    x = pdt.ones(1, 2, dtype=pdt.float64, device=device, requires_grad=True)
    want = lin.weight.detach().sum(0, keepdim=True)  # d sum(W x + b) / dx
    y = pdt.utils.checkpoint.checkpoint(lin, x, use_reentrant=use_reentrant)
    (g,) = pdt.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.cpu().numpy(), want.cpu().numpy(), rtol=1e-15)
    assert lin.weight.grad is None and lin.bias.grad is None and x.grad is None
    y = pdt.utils.checkpoint.checkpoint(lambda a: lin(a) * w, x, use_reentrant=use_reentrant)
    y.sum().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.cpu().numpy(), want.cpu().numpy(), rtol=1e-15)
    assert lin.weight.grad is None and w.grad is None
    x.grad = None
    y = pdt.utils.checkpoint.checkpoint(lin, x, use_reentrant=use_reentrant)
    y.sum().backward()  # the plain pass: every gradient, as before
    assert lin.weight.grad is not None and x.grad is not None
