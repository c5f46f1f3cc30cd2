"""optim.AdamW (decoupled weight decay) and SGD's dampening and nesterov on every
device: trajectories against the formulas in NumPy float64 (float64 parameters within
1e-12 relative), against torch when importable, and AdamW's state_dict round trip."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, torch_or_skip
from pydevtensor import nn, optim

W0 = np.array([1.0, -2.0, 0.5])
STEPS = 5


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _grad(w):
    return 3 * w * w  # of (w ** 3).sum()


def _run(opt_cls, dev, steps=STEPS, **kw):
    w = nn.Parameter(pdt.tensor(W0, device=dev))
    opt = opt_cls([w], **kw)
    for _ in range(steps):
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
    return w, opt


def _adamw_numpy(lr, betas, eps, weight_decay, steps=STEPS):
    w, m, v = W0.copy(), np.zeros(3), np.zeros(3)
    b1, b2 = betas
    for t in range(1, steps + 1):
        g = _grad(w)
        w = w * (1 - lr * weight_decay)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr / (1 - b1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    return w


def _sgd_numpy(lr, momentum, dampening, wd, nesterov, steps=STEPS):
    w, buf = W0.copy(), None
    for _ in range(steps):
        d = _grad(w) + wd * w
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        w = w - lr * d
    return w


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.05, weight_decay=0.3),
                                dict(lr=0.01, betas=(0.5, 0.9), eps=1e-3, weight_decay=0.0)])
def test_adamw_matches_numpy(dev, kw):
    w, opt = _run(optim.AdamW, dev, **kw)
    full = dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)
    full.update(kw)
    np.testing.assert_allclose(w.detach().cpu().numpy(), _adamw_numpy(**full), rtol=1e-12)
    assert opt.param_groups[0]["weight_decay"] == full["weight_decay"]


def test_adamw_differs_from_adam_with_decay_and_equals_it_without(dev):
    a, _ = _run(optim.AdamW, dev, lr=0.1, weight_decay=0.5)
    b, _ = _run(optim.Adam, dev, lr=0.1, weight_decay=0.5)
    assert np.abs(a.detach().cpu().numpy() - b.detach().cpu().numpy()).max() > 1e-3
    a, _ = _run(optim.AdamW, dev, lr=0.1, weight_decay=0.0)
    b, _ = _run(optim.Adam, dev, lr=0.1)
    np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())


def test_adamw_state_dict_resumes_bit_for_bit(dev):
    full, _ = _run(optim.AdamW, dev, steps=4, lr=0.05)
    w, opt = _run(optim.AdamW, dev, steps=2, lr=0.05)
    sd = opt.state_dict()
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"} and sd["state"][0]["step"] == 2
    assert sd["param_groups"][0]["weight_decay"] == 0.01
    w2 = nn.Parameter(w.detach().clone())
    opt2 = optim.AdamW([w2], lr=1.0)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.05
    for _ in range(2):
        opt2.zero_grad()
        (w2 * w2 * w2).sum().backward()
        opt2.step()
    np.testing.assert_array_equal(w2.detach().cpu().numpy(), full.detach().cpu().numpy())


SGD_CASES = [dict(momentum=0.9, nesterov=True), dict(momentum=0.9, dampening=0.3),
             dict(momentum=0.5, dampening=0.5, weight_decay=0.1),
             dict(momentum=0.9, nesterov=True, weight_decay=0.2), dict(momentum=0.9)]


@pytest.mark.parametrize("kw", SGD_CASES)
def test_sgd_dampening_and_nesterov_match_numpy(dev, kw):
    w, opt = _run(optim.SGD, dev, lr=0.02, **kw)
    full = dict(lr=0.02, momentum=0.0, dampening=0.0, wd=kw.get("weight_decay", 0.0),
                nesterov=False)
    full.update({k: v for k, v in kw.items() if k != "weight_decay"})
    np.testing.assert_allclose(w.detach().cpu().numpy(), _sgd_numpy(**full), rtol=1e-12)
    assert opt.state_dict()["param_groups"][0]["nesterov"] is kw.get("nesterov", False)


def test_sgd_nesterov_is_checked_on_the_arguments_only(dev):
    """As PyTorch's: nesterov=True needs momentum > 0 and dampening 0 among SGD's
    arguments, and a group may then set its own momentum 0 (plain SGD) or a dampening
    (the formula as it is); such groups raised 'Nesterov momentum requires a momentum
    and zero dampening' here, in __init__ and in add_param_group."""
    a, b, c = (nn.Parameter(pdt.tensor(W0, device=dev)) for _ in range(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "momentum": 0}], lr=0.02,
                    momentum=0.9, nesterov=True)
    opt.add_param_group({"params": [c], "momentum": 0.5, "dampening": 0.5})
    for _ in range(STEPS):
        opt.zero_grad()
        sum((w * w * w).sum() for w in (a, b, c)).backward()
        opt.step()
    for w, (momentum, dampening) in ((a, (0.9, 0.0)), (b, (0.0, 0.0)), (c, (0.5, 0.5))):
        np.testing.assert_allclose(w.detach().cpu().numpy(), _sgd_numpy(
            0.02, momentum, dampening, 0.0, nesterov=True), rtol=1e-12)
    assert "momentum_buffer" not in opt.state[b]
    for kw in (dict(momentum=0), dict(momentum=0.9, dampening=0.1)):
        with pytest.raises(ValueError, match=r"Nesterov momentum requires a momentum and zero "
                                             r"dampening"):
            optim.SGD([a], lr=0.1, nesterov=True, **kw)
    with pytest.raises(ValueError, match=r"Invalid learning rate: -1"):  # first, as PyTorch
        optim.SGD([a], lr=-1, nesterov=True)


def test_sgd_state_dict_of_older_versions_loads_with_pytorch_defaults():
    w = nn.Parameter(pdt.tensor(W0))
    opt = optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True)
    opt.load_state_dict({"state": {}, "param_groups": [
        {"lr": 0.2, "momentum": 0.5, "weight_decay": 0.0, "params": [0]}]})
    g = opt.param_groups[0]
    assert (g["lr"], g["dampening"], g["nesterov"]) == (0.2, 0.0, True)


def test_sgd_and_adamw_match_torch(dev):
    torch = torch_or_skip()
    cases = [(optim.SGD, torch.optim.SGD, dict(lr=0.02, **kw)) for kw in SGD_CASES]
    cases.append((optim.AdamW, torch.optim.AdamW, dict(lr=0.05, weight_decay=0.2)))
    for ours, theirs, kw in cases:
        w, _ = _run(ours, dev, **kw)
        tw = torch.nn.Parameter(torch.tensor(W0))
        topt = theirs([tw], **kw)
        for _ in range(STEPS):
            topt.zero_grad()
            (tw * tw * tw).sum().backward()
            topt.step()
        np.testing.assert_allclose(w.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-12,
                                   err_msg=f"{ours.__name__} {kw}")


# PyTorch's positional order and keyword-only markers (inspect.signature of torch 2.x):
# the hyperparameters each optimizer takes positionally after params, in order.
POSITIONAL = {
    "SGD": ("lr", "momentum", "dampening", "weight_decay", "nesterov"),
    "Adam": ("lr", "betas", "eps", "weight_decay", "amsgrad"),
    "AdamW": ("lr", "betas", "eps", "weight_decay", "amsgrad"),
    "Adagrad": ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps",
                "foreach"),
    "RMSprop": ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "capturable",
                "foreach", "maximize", "differentiable"),
    "Adadelta": ("lr", "rho", "eps", "weight_decay", "foreach"),
    "Adamax": ("lr", "betas", "eps", "weight_decay", "foreach"),
    "NAdam": ("lr", "betas", "eps", "weight_decay", "momentum_decay",
              "decoupled_weight_decay"),
    "RAdam": ("lr", "betas", "eps", "weight_decay", "decoupled_weight_decay"),
    "Rprop": ("lr", "etas", "step_sizes"),
    "Adafactor": ("lr", "beta2_decay", "eps", "d", "weight_decay"),
    "ASGD": ("lr", "lambd", "alpha", "t0", "weight_decay", "foreach", "maximize",
             "differentiable", "capturable"),
}


@pytest.mark.parametrize("name", sorted(POSITIONAL))
def test_positional_hyperparameters_in_torch_order(name):
    import inspect
    params = list(inspect.signature(getattr(optim, name)).parameters.values())
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == ["params", *POSITIONAL[name]]
    # given positionally, each lands in the group under its own name
    w = nn.Parameter(pdt.ones(2))
    defaults = {p.name: p.default for p in params[1:]}
    values = [defaults[n] for n in POSITIONAL[name]]
    values[0] = 0.25  # lr
    opt = getattr(optim, name)([w], *values)
    for n, v in zip(POSITIONAL[name], values):
        assert opt.param_groups[0][n] == v, n


def test_rmsprop_maximize_given_positionally_ascends():
    w = nn.Parameter(pdt.tensor([1.0, 2.0]))
    opt = optim.RMSprop([w], 0.01, 0.99, 1e-8, 0, 0, False, False, None, True)
    (w * w).sum().backward()
    opt.step()
    # square_avg = 0.01 g^2, so the step is lr * g / (0.1 |g|) = 0.1, upwards
    np.testing.assert_allclose(w.detach().numpy(), [1.1, 2.1], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(POSITIONAL))
def test_zero_defaults_are_ints_as_torch_keeps_them(name):
    opt = getattr(optim, name)([nn.Parameter(pdt.ones(1))], lr=0.1)
    group = opt.param_groups[0]
    zeros = {"momentum", "dampening", "lr_decay", "initial_accumulator_value"}
    if name not in ("AdamW", "Adafactor"):  # theirs: 1e-2, and the float 0.0
        zeros.add("weight_decay")
    for n in zeros & set(group):
        assert group[n] == 0 and type(group[n]) is int, (n, group[n])
        assert f"    {n}: 0\n" in repr(opt)


def test_repr_has_a_blank_line_between_groups():
    p1, p2 = nn.Parameter(pdt.ones(2)), nn.Parameter(pdt.ones(2))
    opt = optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.1}], lr=0.01,
                    weight_decay=0.1)
    keys = ("dampening: 0", "differentiable: False", "foreach: None", "fused: None", "{lr}",
            "maximize: False", "momentum: 0", "nesterov: False", "weight_decay: 0.1")

    def group(i, lr):
        return [f"Parameter Group {i}"] + ["    " + k.format(lr=f"lr: {lr}") for k in keys]
    assert repr(opt) == "\n".join(["SGD ("] + group(0, 0.01) + [""] + group(1, 0.1) + [")"])
