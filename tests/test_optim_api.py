"""optim's PyTorch API around the update rules: step(closure), a user's Optimizer
subclass round-tripping its state, a Tensor lr, named_parameters() groups, non-leaf
parameters refused, the hooks, and the schedulers' warning when they step before the
optimizer; checked against torch where it is importable, on every device."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn, optim

NAMES = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam",
         "Rprop", "ASGD", "Adafactor"]
W0 = [1.0, -2.0, 3.0]


def _run(lib, name, device, steps=4, closure=True, **kw):
    """w after `steps` steps of optimizer name on the loss sum(w ** 3) (+ the losses
    step(closure) returned); lib is pdt or torch."""
    w = lib.nn.Parameter(lib.tensor(W0, device=device))
    opt = getattr(lib.optim, name)([w], **kw)
    losses = []
    for _ in range(steps):
        def f():
            opt.zero_grad()
            loss = (w ** 3).sum()
            loss.backward()
            return loss
        if closure:
            losses.append(float(opt.step(f).detach()))
        else:
            f()
            assert opt.step() is None
    return w, opt, losses


@pytest.mark.parametrize("name", NAMES)
def test_step_with_a_closure(name, device):
    kw = {"lr": 0.05, "momentum": 0.9} if name == "SGD" else {"lr": 0.05}
    w, _, losses = _run(pdt, name, device, **kw)
    plain, _, _ = _run(pdt, name, device, closure=False, **kw)
    assert pdt.equal(w.detach().cpu(), plain.detach().cpu())
    assert losses[0] == sum(x ** 3 for x in W0)
    torch = torch_or_skip()
    tw, _, tlosses = _run(torch, name, "cpu", **kw)
    assert_close(w, tw.detach().numpy())
    assert np.allclose(losses, tlosses, rtol=1e-5)


def test_closure_runs_with_grad_enabled_once():
    w = nn.Parameter(pdt.ones(2))
    opt = optim.SGD([w], lr=0.1)
    seen = []

    def closure():
        seen.append(pdt.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    with pdt.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 2.0
    assert w.tolist() == pytest.approx([0.8, 0.8])


class _MomentumSGD(optim.Optimizer):
    """PyTorch's documented pattern: state in self.state[p]."""

    def __init__(self, params, lr=0.1, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @pdt.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if "buf" not in st:
                    st["buf"] = pdt.zeros_like(p)
                    st["count"] = 0
                    st["step"] = pdt.tensor(0.0)
                    st["extra"] = {"ints": pdt.tensor([1, 2], device=p.device), "n": [1.5]}
                st["buf"].mul_(group["momentum"]).add_(p.grad)
                st["count"] += 1
                st["step"] += 1
                p.add_(st["buf"], alpha=-group["lr"])


def test_user_optimizer_round_trips_its_state(device):
    w = nn.Parameter(pdt.tensor([1.0, -2.0], device=device))
    opt = _MomentumSGD([w])
    (w ** 2).sum().backward()
    opt.step()
    sd = opt.state_dict()
    w2 = nn.Parameter(pdt.tensor([1.0, -2.0], dtype=pdt.float64, device=device))
    opt2 = _MomentumSGD([w2])
    opt2.load_state_dict(sd)
    st = opt2.state[w2]
    assert st["buf"].tolist() == [2.0, -4.0] and st["buf"].dtype == pdt.float64
    assert st["buf"].device == w2.device and st["count"] == 1
    assert st["step"].device.type == "cpu" and st["step"].dtype == pdt.float32  # as it was
    assert st["extra"]["ints"].dtype == pdt.int64 and st["extra"]["ints"].device == w2.device
    assert st["extra"]["n"] == [1.5]
    sd["state"][0]["extra"]["n"].append(9)  # nothing of sd is kept
    assert st["extra"]["n"] == [1.5]


def test_builtins_stay_strict_with_a_named_list():
    w = nn.Parameter(pdt.ones(2))
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    sd = opt.state_dict()
    sd["state"] = {0: {"exp_avg": pdt.ones(2)}}
    with pytest.raises(ValueError, match=r"unknown entry 'exp_avg' \(SGD's state holds "
                                         r"'momentum_buffer'\)"):
        opt.load_state_dict(sd)


@pytest.mark.parametrize("name", NAMES)
def test_tensor_lr(name, device):
    # the same steps as with the float lr (float32(0.05), the tensor's value), with
    # the lr on the CPU and on the parameters' device
    kw = {"momentum": 0.9, "nesterov": True} if name == "SGD" else {}
    kw.update({} if name == "Rprop" else {"weight_decay": 0.1})  # Rprop has none
    ref, _, _ = _run(pdt, name, device, lr=float(np.float32(0.05)), **kw)
    ref = ref.detach().cpu().numpy().astype(np.float64)
    for lr_device in ("cpu", device):
        lr = pdt.tensor(0.05, device=lr_device)
        w, opt, _ = _run(pdt, name, device, lr=lr, **kw)
        assert opt.param_groups[0]["lr"] is lr and lr.item() == pytest.approx(0.05)
        got = w.detach().cpu().numpy().astype(np.float64)
        assert np.allclose(got, ref, rtol=2e-5, atol=1e-6), (lr_device, got, ref)
    torch = torch_or_skip()
    tw, _, _ = _run(torch, name, "cpu", lr=torch.tensor(0.05), **kw)
    assert np.allclose(ref, tw.detach().double().numpy(), rtol=2e-5, atol=1e-6)


SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, 1, 0.5),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 4),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda e: 0.5 ** e),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, 1.0, total_steps=10),
    "ReduceLROnPlateau": lambda S, o: S.ReduceLROnPlateau(o, patience=0),
    "LinearLR": lambda S, o: S.LinearLR(o),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 2),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.5),
    "ConstantLR": lambda S, o: S.ConstantLR(o, 0.5, total_iters=2),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=4),
    "CyclicLR": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=2),
                                                         S.ExponentialLR(o, 0.9)]),
}


def _scheduled_rates(lib, name, lr):
    w = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.Adam([w], lr=lr)
    s = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
    rates = []
    for _ in range(3):
        w.grad = lib.ones(1)
        opt.step()
        s.step(1.0) if name == "ReduceLROnPlateau" else s.step()
        assert opt.param_groups[0]["lr"] is lr or not isinstance(lr, lib.Tensor)
        rates.append(float(opt.param_groups[0]["lr"]))
    return rates


@pytest.mark.parametrize("name", SCHEDULERS)
def test_schedulers_fill_a_tensor_lr_in_place(name):
    lr = pdt.tensor(0.1)
    rates = _scheduled_rates(pdt, name, lr)
    assert np.allclose(rates, _scheduled_rates(pdt, name, float(np.float32(0.1))), rtol=1e-6)
    opt = optim.SGD([nn.Parameter(pdt.ones(1))], lr=pdt.tensor(0.1))
    s = optim.lr_scheduler.StepLR(opt, 1, 0.5)
    opt.step()
    s.step()
    assert opt.param_groups[0]["initial_lr"].item() == pytest.approx(0.1)  # a copy
    torch = torch_or_skip()
    assert np.allclose(rates, _scheduled_rates(torch, name, torch.tensor(0.1)), rtol=1e-6)


def test_tensor_lr_errors():
    w = nn.Parameter(pdt.ones(1))
    with pytest.raises(ValueError, match=r"Tensor lr must be 1-element, got shape \(2,\)"):
        optim.SGD([w], lr=pdt.ones(2))
    with pytest.raises(ValueError, match=r"Invalid learning rate: -1.0"):
        optim.Adam([w], lr=pdt.tensor(-1.0))
    with pytest.raises(ValueError, match=r"AdamW: lr as a Tensor is not supported for "
                                         r"capturable=False and foreach=True"):
        optim.AdamW([w], lr=pdt.tensor(0.1), foreach=True)
    optim.Adam([w], lr=pdt.tensor(0.1), foreach=True, capturable=True)


@pytest.mark.parametrize("name, kw", [
    ("Adafactor", {"d": 2.0}), ("Adafactor", {"beta2_decay": -0.5}),
    ("Adafactor", {"d": 1.5, "beta2_decay": -0.6}), ("ASGD", {"t0": 2.0, "lr": 0.1})])
def test_zero_d_tensor_hyperparameters_read_as_numbers(name, kw, device):
    """Adafactor's d and beta2_decay and ASGD's t0 as 0-d float64 tensors, as PyTorch takes
    them (they raised 'must be a number, got Tensor'): the same run as with the numbers."""
    ws = []
    for as_tensor in (False, True):
        w = nn.Parameter(pdt.tensor([[0.5, 1.0, 2.0], [3.0, 4.0, 5.0]], dtype=pdt.float64,
                                    device=device))
        args = {k: pdt.tensor(v, dtype=pdt.float64) if as_tensor and k != "lr" else v
                for k, v in kw.items()}
        opt = getattr(optim, name)([w], **args)
        for _ in range(5):
            w.grad = (w.detach() * w.detach() - 3)
            opt.step()
        ws.append(w.detach().cpu().numpy())
        for k in kw:
            assert opt.param_groups[0][k] == kw[k]
    assert np.array_equal(ws[1], ws[0])
    with pytest.raises(ValueError, match=r"Clipping threshold d should be >= 1 but is: 0.5"):
        optim.Adafactor([w], d=pdt.tensor(0.5))
    with pytest.raises(TypeError, match=r"t0 must be a number, got Tensor"):
        optim.ASGD([w], t0=pdt.ones(2))


def test_named_parameters():
    net = nn.Linear(2, 1)
    opt = optim.SGD(net.named_parameters(), lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"] == list(net.parameters())
    net(pdt.ones(1, 2)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"][0]["param_names"] == ["weight", "bias"]
    opt2 = optim.SGD(net.named_parameters(), lr=0.1, momentum=0.9)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["param_names"] == ["weight", "bias"]
    with pytest.raises(ValueError, match=r"all optimizer param groups should be with/without "
                                         r"names"):
        opt.add_param_group({"params": [nn.Parameter(pdt.ones(1))]})
    with pytest.raises(ValueError, match=r"should be with/without names; 1 of 2 have no name"):
        optim.SGD([("a", nn.Parameter(pdt.ones(1))), nn.Parameter(pdt.ones(1))])
    torch = torch_or_skip()
    tnet = torch.nn.Linear(2, 1)
    tsd = torch.optim.SGD(tnet.named_parameters(), lr=0.1).state_dict()
    assert tsd["param_groups"][0]["param_names"] == sd["param_groups"][0]["param_names"]


@pytest.mark.parametrize("name", NAMES + ["LBFGS", "Muon"])
def test_add_param_group_takes_pytorchs_keyword(name):
    """add_param_group(param_group=...), PyTorch's name; it was 'group', beside a private
    second argument, so the keyword raised TypeError."""
    import inspect
    opt = getattr(optim, name)([nn.Parameter(pdt.ones(2, 2))])
    assert list(inspect.signature(opt.add_param_group).parameters) == ["param_group"]
    if name == "LBFGS":  # one group only, as PyTorch's __init__ says
        with pytest.raises(ValueError, match=r"doesn't support per-parameter options"):
            opt.add_param_group(param_group={"params": [nn.Parameter(pdt.ones(2, 2))]})
        return
    q = nn.Parameter(pdt.ones(2, 2))
    opt.add_param_group(param_group={"params": [q], "lr": 0.5})
    assert opt.param_groups[1]["params"] == [q] and opt.param_groups[1]["lr"] == 0.5
    with pytest.raises(ValueError, match=r"more than one parameter group"):
        opt.add_param_group(param_group={"params": [q]})


@pytest.mark.parametrize("name, keyword_only", [
    ("Adam", ["foreach", "maximize", "capturable", "differentiable", "fused",
              "decoupled_weight_decay"]),
    ("NAdam", ["foreach", "maximize", "capturable", "differentiable"]),
    ("RAdam", ["foreach", "maximize", "capturable", "differentiable"])])
def test_keyword_only_arguments_in_pytorchs_order(name, keyword_only):
    """inspect.signature lists them as PyTorch 2.15's (maximize was before foreach)."""
    import inspect
    params = inspect.signature(getattr(optim, name)).parameters.values()
    assert [p.name for p in params if p.kind is p.KEYWORD_ONLY] == keyword_only


DIFFERENTIABLE = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam",
                  "RAdam", "Rprop", "ASGD"]


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_differentiable_step_that_needs_a_graph_is_refused(name, device):
    """differentiable=True: PyTorch records the step in the graph; these steps are not
    recorded, so where the result depends on a graph (a non-leaf parameter, a gradient
    that requires grad, an lr that requires grad) the step raises before anything
    changes.  It silently cut the graph: lr.grad stayed None (SGD with momentum: PyTorch
    gives d sum(q^2)/d lr = -8.8 for q = [1, 2, 3], g = [1, -1, 2], lr 0.1)."""
    base = pdt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    lr = pdt.tensor(0.1, requires_grad=True)
    cases = [(base * 1, pdt.tensor([1.0, -1.0, 2.0], device=device), 0.1,
              "a parameter that is not a leaf"),
             (nn.Parameter(pdt.tensor([1.0, 2.0, 3.0], device=device)),
              pdt.tensor([1.0, -1.0, 2.0], device=device, requires_grad=True) * 1, 0.1,
              "a gradient that requires grad"),
             (nn.Parameter(pdt.tensor([1.0, 2.0, 3.0], device=device)),
              pdt.tensor([1.0, -1.0, 2.0], device=device), lr, "an lr that requires grad")]
    for q, g, lr_, words in cases:
        opt = getattr(optim, name)([q], lr=lr_, differentiable=True)
        state = {k: v.clone() for k, v in opt.state.get(q, {}).items()}
        q.grad = g
        with pytest.raises(NotImplementedError, match=rf"{name}.step\(\): differentiable=True "
                                                       rf"with {words}.*shape \(3,\)"):
            opt.step()
        assert q.detach().cpu().numpy().tolist() == [1.0, 2.0, 3.0]
        assert opt.state.get(q, {}).keys() == state.keys()  # Adagrad's from __init__
    # a leaf parameter steps as without differentiable (its update has no graph to join)
    ws = []
    for differentiable in (False, True):
        w = nn.Parameter(pdt.tensor([1.0, 2.0, 3.0], device=device))
        opt = getattr(optim, name)([w], lr=0.1, differentiable=differentiable)
        for _ in range(2):
            w.grad = w.detach() * 2
            opt.step()
        ws.append(w.detach())
    assert np.array_equal(ws[1].cpu().numpy(), ws[0].cpu().numpy())


def test_non_leaf_refused(device):
    p = nn.Parameter(pdt.ones(2, device=device))
    with pytest.raises(ValueError, match=r"can't optimize a non-leaf Tensor \(shape \(2,\) on "
                                         + str(device)):
        optim.Adam([p * 2])
    optim.SGD([p * 2], lr=0.1, differentiable=True)  # allowed there, as in PyTorch
    q = p * 2
    q.retain_grad()
    optim.SGD([q], lr=0.1)
    with pytest.warns(FutureWarning, match=r"ordering of tensors in sets will change"):
        opt = optim.SGD({p}, lr=0.1)  # PyTorch warns, and takes it
    assert len(opt.param_groups[0]["params"]) == 1 and opt.param_groups[0]["params"][0] is p
    with pytest.raises(TypeError, match=r"not a set"):
        optim.SGD([{"params": {p}}], lr=0.1)  # a group's set raises, as there


def test_step_hooks():
    w = nn.Parameter(pdt.ones(1))
    opt = optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt, a, k)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", a, k)))
    opt.step()
    # args are the method's, the optimizer first (PyTorch's)
    assert calls == [("pre", True, (opt,), {}), ("post", (opt,), {})]
    h1.remove()
    h2.remove()
    opt.step()
    assert len(calls) == 2
    # a pre-hook replacing the arguments: here it adds a closure
    opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7}))
    assert opt.step() == 7
    with pytest.raises(TypeError, match=r"hook must be callable, got int"):
        opt.register_step_post_hook(3)


def test_subclass_calling_super_step_runs_hooks_once():
    class Counted(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)
    opt = Counted([nn.Parameter(pdt.ones(1))], lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda *a: calls.append(1))
    opt.step()
    assert calls == [1]


def test_state_dict_hooks():
    w = nn.Parameter(pdt.ones(1))
    opt = optim.SGD([w], lr=0.1)
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, note=1))
    h = opt.register_state_dict_post_hook(lambda o, sd: calls.append("note" in sd),
                                          prepend=True)
    sd = opt.state_dict()
    assert sd["note"] == 1 and calls == ["pre", False]  # the prepended hook ran first
    h.remove()
    calls.clear()
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {k: v for k, v in sd.items() if k != "note"})
    opt.register_load_state_dict_post_hook(lambda o: calls.append("loaded"))
    sd["param_groups"][0]["lr"] = 0.5
    opt.load_state_dict(sd)
    assert calls == ["loaded"] and opt.param_groups[0]["lr"] == 0.5


def _order_warnings(order, lib=pdt):
    w = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([w], lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            for what in order:
                opt.step() if what == "opt" else sched.step()
    return [str(c.message)[:65] for c in caught if "optimizer.step()" in str(c.message)]


@pytest.mark.parametrize("order", [("sched", "opt"), ("opt", "sched")])
def test_scheduler_before_optimizer_warns_once(order):
    got = _order_warnings(order)
    assert got == (["Detected call of `lr_scheduler.step()` before `optimizer.step()`."]
                   if order[0] == "sched" else [])
    torch = torch_or_skip()
    assert got == _order_warnings(order, torch)


def test_zero_grad_in_place_detaches_a_graph_grad(device):
    w = nn.Parameter(pdt.tensor([1.0, 2.0], device=device))
    opt = optim.SGD([w], lr=0.1)
    (w * w * w).sum().backward(create_graph=True)
    assert w.grad.requires_grad
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad  # zeroed in place, as PyTorch's, but out of the graph
    assert not w.grad.requires_grad and w.grad.grad_fn is None
    assert w.grad.cpu().tolist() == [0.0, 0.0]


def test_global_step_hooks_run_around_every_optimizer():
    from pydevtensor.optim.optimizer import (register_optimizer_step_post_hook,
                                             register_optimizer_step_pre_hook)
    w = nn.Parameter(pdt.ones(1))
    opts = [optim.SGD([w], lr=0.1), optim.Adam([w])]
    calls = []
    opts[0].register_step_pre_hook(lambda o, a, k: calls.append("own pre"))
    opts[0].register_step_post_hook(lambda o, a, k: calls.append("own post"))
    with register_optimizer_step_pre_hook(
            lambda o, a, k: calls.append(("pre", type(o).__name__, a[0] is o, a[1:], k))):
        h = register_optimizer_step_post_hook(lambda o, a, k: calls.append("post"))
        opts[0].step(None)
        opts[1].step(closure=None)
        h.remove()
        opts[1].step()
    assert calls == [("pre", "SGD", True, (None,), {}), "own pre", "own post", "post",
                     ("pre", "Adam", True, (), {"closure": None}), "post",
                     ("pre", "Adam", True, (), {})]
    calls.clear()
    opts[1].step()
    assert calls == []
    with pytest.raises(TypeError, match=r"register_optimizer_step_pre_hook\(\): the hook must "
                                        r"be callable, got int"):
        register_optimizer_step_pre_hook(3)


# PyTorch's words for a hyperparameter out of range (after the optimizer's name), so that
# code matching PyTorch's messages ("Invalid learning rate: -1") matches ours.
_TORCH_WORDS = [
    ("SGD", dict(lr=-1), "Invalid learning rate: -1"),
    ("SGD", dict(lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    ("SGD", dict(lr=0.1, weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
    ("SGD", dict(lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero "
                                         "dampening"),
    ("Adam", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("AdamW", dict(betas=(0.9, -0.5)), "Invalid beta parameter at index 1: -0.5"),
    ("Adamax", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("NAdam", dict(momentum_decay=-1), "Invalid momentum_decay value: -1"),
    ("RAdam", dict(lr=-1e-3), "Invalid learning rate: -0.001"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    ("Adadelta", dict(rho=1.1), "Invalid rho value: 1.1"),
    ("RMSprop", dict(alpha=-1), "Invalid alpha value: -1"),
    ("ASGD", dict(lambd=-1), "Invalid lambd value: -1"),
    ("LBFGS", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adafactor", dict(lr=-1), "Learning rate should be >= 0 but is: -1"),
    ("Adafactor", dict(eps=(-1, 1e-3)), "epsilon1 should be >= 0 but is: -1"),
    ("Adafactor", dict(weight_decay=-1), "weight_decay should be >= 0 but is: -1"),
]


@pytest.mark.parametrize("name,kw,words", _TORCH_WORDS)
def test_hyperparameter_errors_in_torch_words(name, kw, words):
    with pytest.raises(ValueError) as info:
        getattr(optim, name)([nn.Parameter(pdt.ones(2))], **kw)
    assert str(info.value).startswith(f"{name}: {words}")


@pytest.mark.parametrize("name", NAMES)
def test_an_integer_parameter_with_a_gradient_is_refused_before_anything_changes(name):
    # PyTorch fails on it too (SGD: "argument alpha must not be a floating point
    # number", the others: "result type Float can't be cast"); SGD here truncated
    # lr * grad to 0 silently and Rprop and ASGD truncated the new value, and the others
    # had updated the parameters before it
    a = nn.Parameter(pdt.tensor([1.0, 2.0]))
    b = pdt.tensor([1, 2])
    opt = getattr(optim, name)([a, b], lr=0.5)
    a.grad, b.grad = pdt.ones(2), pdt.ones(2, dtype=pdt.int64)
    before = {p: {k: v.clone() for k, v in s.items()} for p, s in opt.state.items()}
    with pytest.raises(RuntimeError, match=rf"{name}.step\(\): the parameter \(shape \(2,\) "
                                           r"on cpu\) is .*int64: its update"):
        opt.step()
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [1, 2]
    assert {p: {k: v.tolist() for k, v in s.items()} for p, s in opt.state.items()} == \
        {p: {k: v.tolist() for k, v in s.items()} for p, s in before.items()}
    b.grad = None  # without a gradient it is skipped, as in PyTorch
    opt.step()
    assert a.tolist() != [1.0, 2.0] and b.tolist() == [1, 2]
