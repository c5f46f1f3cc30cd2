"""Adam's and AdamW's amsgrad, maximize on every optimizer, and the new Adamax, NAdam
and RAdam on every device: trajectories of float64 parameters against PyTorch's update
formulas written step by step in NumPy float64 (within 1e-10 relative), against torch
when importable, and their state_dict round trips (bit for bit) and load checks."""
import io
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn, optim

W0 = np.array([1.0, -2.0, 0.5, 0.03])
STEPS = 8  # RAdam's default betas: steps 1-5 without the rectifier, 6-8 with it
RTOL = 1e-10


def _grad(w):
    return 3 * w * w  # of (w ** 3).sum()


def _run(opt_cls, device, steps=STEPS, **kw):
    w = nn.Parameter(pdt.tensor(W0, device=device))
    opt = opt_cls([w], **kw)
    for _ in range(steps):
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
    return w, opt


def _ref(update, steps=STEPS, maximize=False, wd=0.0, decoupled=False, lr=None):
    """Runs update(t, d, state) -> step to subtract, from W0, in float64."""
    w, state = W0.copy(), {}
    for t in range(1, steps + 1):
        d = -_grad(w) if maximize else _grad(w)
        if decoupled:
            w = w * (1 - lr * wd)
        else:
            d = d + wd * w
        w = w - update(t, d, state)
    return w


def _adam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, amsgrad=False):
    b1, b2 = betas

    def update(t, d, s):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * d
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * d * d
        s["vmax"] = np.maximum(s.get("vmax", 0), s["v"])
        v = s["vmax"] if amsgrad else s["v"]
        return lr / (1 - b1 ** t) * s["m"] / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    return update


def _adamax(lr=2e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas

    def update(t, d, s):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * d
        s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(d) + eps)
        return lr / (1 - b1 ** t) * s["m"] / s["u"]
    return update


def _nadam(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, momentum_decay=4e-3, scalar=np.float32):
    b1, b2 = betas

    def update(t, d, s):
        mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        # a 0-d tensor of PyTorch's scalar dtype: float32 (unless the default is float64)
        s["prod"] = float(scalar(scalar(s.get("prod", 1.0)) * scalar(mu)))
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * d
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * d * d
        denom = np.sqrt(s["v"] / (1 - b2 ** t)) + eps
        return (lr * (1 - mu) / (1 - s["prod"]) * d / denom
                + lr * mu_next / (1 - s["prod"] * mu_next) * s["m"] / denom)
    return update


def _radam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, branches=None):
    b1, b2 = betas

    def update(t, d, s):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * d
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * d * d
        m_hat = s["m"] / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if branches is not None:
            branches.append(rho_t > 5)
        if rho_t <= 5:
            return lr * m_hat
        r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return lr * m_hat * r * np.sqrt(1 - b2 ** t) / (np.sqrt(s["v"]) + eps)
    return update


def _check(w, want):
    np.testing.assert_allclose(w.detach().cpu().numpy(), want, rtol=RTOL, atol=1e-14)


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW])
@pytest.mark.parametrize("kw", [dict(lr=0.05, betas=(0.9, 0.6)),
                                dict(lr=0.1, betas=(0.5, 0.9), weight_decay=0.2),
                                dict(lr=0.02, betas=(0.9, 0.6), maximize=True)])
def test_amsgrad_matches_numpy(device, cls, kw):
    w, opt = _run(cls, device, amsgrad=True, **kw)
    wd = kw.get("weight_decay", 1e-2 if cls is optim.AdamW else 0.0)
    hyper = {k: v for k, v in kw.items() if k in ("lr", "betas")}
    want = _ref(_adam(amsgrad=True, **hyper), maximize=kw.get("maximize", False), wd=wd,
                decoupled=cls is optim.AdamW, lr=kw["lr"])
    _check(w, want)
    # the running maximum differs from plain Adam once v decreases (as g does)
    plain = _ref(_adam(**hyper), maximize=kw.get("maximize", False), wd=wd,
                 decoupled=cls is optim.AdamW, lr=kw["lr"])
    assert np.abs(plain - want).max() > 1e-6
    s = opt.state_dict()["state"][0]
    assert set(s) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert (s["max_exp_avg_sq"] >= s["exp_avg_sq"]).all().item()


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.05), dict(lr=0.1, betas=(0.5, 0.9), eps=1e-3,
                                                             weight_decay=0.1, maximize=True)])
def test_adamax_matches_numpy(device, kw):
    w, _ = _run(optim.Adamax, device, **kw)
    hyper = {k: v for k, v in kw.items() if k in ("lr", "betas", "eps")}
    _check(w, _ref(_adamax(**hyper), maximize=kw.get("maximize", False),
                   wd=kw.get("weight_decay", 0.0)))


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.05, momentum_decay=0.5),
                                dict(lr=0.1, betas=(0.5, 0.9), weight_decay=0.2),
                                dict(lr=0.1, weight_decay=0.2, decoupled_weight_decay=True,
                                     maximize=True)])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_nadam_matches_numpy(device, kw, default):
    old = pdt.get_default_dtype()
    pdt.set_default_dtype(getattr(pdt, default))
    try:
        w, opt = _run(optim.NAdam, device, **kw)
    finally:
        pdt.set_default_dtype(old)
    hyper = {k: v for k, v in kw.items() if k in ("lr", "betas", "momentum_decay")}
    _check(w, _ref(_nadam(scalar=getattr(np, default), **hyper),
                   maximize=kw.get("maximize", False), wd=kw.get("weight_decay", 0.0),
                   decoupled=kw.get("decoupled_weight_decay", False), lr=kw.get("lr", 2e-3)))
    for k in ("step", "mu_product"):  # 0-d tensors of PyTorch's _get_scalar_dtype()
        v = opt.state_dict()["state"][0][k]
        assert (v.ndim, v.dtype, v.device.type) == (0, getattr(pdt, default), "cpu")


@pytest.mark.parametrize("kw", [dict(lr=0.05), dict(lr=0.05, betas=(0.9, 0.5)),
                                dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.3),
                                dict(lr=0.05, weight_decay=0.3, decoupled_weight_decay=True,
                                     maximize=True)])
def test_radam_matches_numpy_in_both_branches(device, kw):
    w, _ = _run(optim.RAdam, device, **kw)
    hyper = {k: v for k, v in kw.items() if k in ("lr", "betas")}
    branches = []
    _check(w, _ref(_radam(branches=branches, **hyper), maximize=kw.get("maximize", False),
                   wd=kw.get("weight_decay", 0.0),
                   decoupled=kw.get("decoupled_weight_decay", False), lr=kw["lr"]))
    if kw.get("betas", (0.9, 0.999))[1] == 0.999:  # the rectifier from step 6 on
        assert branches == [False] * 5 + [True] * (STEPS - 5)
    elif kw["betas"][1] == 0.5:  # rho_inf = 3: never
        assert not any(branches)


@pytest.mark.parametrize("cls,kw", [(optim.SGD, dict(lr=0.01, momentum=0.9)),
                                    (optim.Adagrad, dict(lr=0.1)),
                                    (optim.RMSprop, dict(lr=0.01)),
                                    (optim.Adadelta, dict(lr=0.5)),
                                    (optim.Adam, dict(lr=0.1))])
def test_maximize_is_descent_on_the_negated_gradient(device, cls, kw):
    """maximize on f steps as descent on -f does, bit for bit."""
    up, _ = _run(cls, device, maximize=True, **kw)
    w = nn.Parameter(pdt.tensor(W0, device=device))
    opt = cls([w], **kw)
    for _ in range(STEPS):
        opt.zero_grad()
        (-(w * w * w)).sum().backward()
        opt.step()
    np.testing.assert_array_equal(up.detach().cpu().numpy(), w.detach().cpu().numpy())
    assert np.abs(up.detach().cpu().numpy() - W0).max() > 1e-3  # it moved


@pytest.mark.parametrize("cls,kw", [(optim.Adam, dict(lr=0.05, amsgrad=True)),
                                    (optim.AdamW, dict(lr=0.05, amsgrad=True)),
                                    (optim.Adamax, dict(lr=0.05)),
                                    (optim.NAdam, dict(lr=0.05)),
                                    (optim.RAdam, dict(lr=0.05))])
def test_state_dict_resumes_bit_for_bit(device, cls, kw):
    full, _ = _run(cls, device, steps=STEPS, **kw)
    w, opt = _run(cls, device, steps=3, **kw)
    buf = io.BytesIO()
    pdt.save(opt.state_dict(), buf)
    buf.seek(0)
    resumed = cls([w], **{**kw, "lr": 1.0})
    resumed.load_state_dict(pdt.load(buf))
    assert resumed.param_groups[0]["lr"] == kw["lr"]
    for _ in range(STEPS - 3):
        resumed.zero_grad()
        (w * w * w).sum().backward()
        resumed.step()
    np.testing.assert_array_equal(w.detach().cpu().numpy(), full.detach().cpu().numpy())


def test_load_checks_the_amsgrad_and_nadam_entries():
    w = nn.Parameter(pdt.tensor([1.0, 2.0]))
    plain = optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    plain.step()
    sd = plain.state_dict()
    sd["param_groups"][0]["amsgrad"] = True  # the hyperparameters come from the dict
    with pytest.raises(ValueError, match=r"no 'max_exp_avg_sq'"):
        optim.Adam([w], amsgrad=True).load_state_dict(sd)
    ams = optim.Adam([w], lr=0.1, amsgrad=True)
    ams.step()
    sd = ams.state_dict()
    sd["param_groups"][0]["amsgrad"] = False
    with pytest.raises(ValueError, match=r"the unknown entry 'max_exp_avg_sq'"):
        plain.load_state_dict(sd)
    assert plain.state_dict()["state"][0]["step"] == 1  # unchanged
    plain.load_state_dict(ams.state_dict())  # as PyTorch: amsgrad comes with the state
    assert plain.param_groups[0]["amsgrad"] is True
    nadam = optim.NAdam([w])
    nadam.step()
    sd = nadam.state_dict()
    sd["state"][0]["mu_product"] = float("nan")
    with pytest.raises(ValueError, match=r"mu_product is nan, not a finite number"):
        optim.NAdam([w]).load_state_dict(sd)
    with pytest.raises(TypeError, match=r"amsgrad must be True or False, got 'yes'"):
        optim.Adam([w], amsgrad="yes")


def test_rmsprop_and_adadelta_with_decay_one_follow_pytorch_on_an_infinite_gradient():
    """alpha = rho = 1: PyTorch's square_avg.mul_(1).addcmul_(g, g, value=0) is 0 * inf
    = NaN where g is inf (torch 2.15 gives NaN too); the finite entries are unaffected."""
    for cls, kw, key in ((optim.RMSprop, dict(alpha=1.0), "square_avg"),
                         (optim.Adadelta, dict(rho=1.0), "square_avg")):
        w = nn.Parameter(pdt.tensor([1.0, 2.0], dtype=pdt.float64))
        opt = cls([w], **kw)
        w.grad = pdt.tensor([np.inf, 1.0], dtype=pdt.float64)
        opt.step()
        with np.errstate(invalid="ignore"):
            want = 0.0 * np.array([np.inf, 1.0]) ** 2
        np.testing.assert_array_equal(opt.state[w][key].numpy(), want)
        assert np.isfinite(w.detach().numpy()[1])


@pytest.mark.parametrize("name,kw", [
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05, amsgrad=True, maximize=True)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.5), decoupled_weight_decay=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.01, momentum=0.9, maximize=True)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
])
def test_match_torch(device, name, kw):
    torch = torch_or_skip()
    w, _ = _run(getattr(optim, name), device, **kw)
    tw = torch.nn.Parameter(torch.tensor(W0))
    topt = getattr(torch.optim, name)([tw], **kw)
    for _ in range(STEPS):
        topt.zero_grad()
        (tw ** 3).sum().backward()
        topt.step()
    # torch keeps NAdam's mu_product in a float32 tensor (the default dtype), this
    # package as a Python float: 1e-8 (1e-9 absolute) there, 1e-10 elsewhere
    np.testing.assert_allclose(w.detach().cpu().numpy(), tw.detach().numpy(),
                               rtol=1e-8 if name == "NAdam" else 1e-10,
                               atol=1e-9 if name == "NAdam" else 1e-14)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adamax", "NAdam", "RAdam"])
def test_tensor_betas_eps_and_weight_decay_read_as_numbers(name, device):
    # PyTorch takes 0-d tensors there: the steps are those of the same floats
    def run(**kw):
        w = nn.Parameter(pdt.tensor([1.0, -2.0], dtype=pdt.float64, device=device))
        opt = getattr(optim, name)([w], lr=0.1, **kw)
        for _ in range(3):
            opt.zero_grad()
            (w * w * w).sum().backward()
            opt.step()
        return w.detach().cpu().numpy(), opt.param_groups[0]
    want, _ = run(betas=(0.8, 0.95), eps=1e-6, weight_decay=0.25)
    got, group = run(betas=(pdt.tensor(0.8), pdt.tensor(0.95)), eps=pdt.tensor(1e-6),
                     weight_decay=pdt.tensor(0.25))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert group["betas"] == (float(np.float32(0.8)), float(np.float32(0.95)))
    with pytest.raises(ValueError, match=r"betas must be either both floats or both Tensors"):
        getattr(optim, name)([nn.Parameter(pdt.ones(1))], betas=(pdt.tensor(0.9), 0.99))
    with pytest.raises(ValueError, match=r"Invalid beta parameter at index 0: 1.5"):
        getattr(optim, name)([nn.Parameter(pdt.ones(1))],
                             betas=(pdt.tensor(1.5), pdt.tensor(0.99)))
