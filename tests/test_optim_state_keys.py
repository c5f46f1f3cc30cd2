"""Optimizer.state keyed by the parameter (as PyTorch's), 'step' a float32 0-d CPU tensor,
state_dict round trips (torch's layout, and checkpoints that hold step as an int), and
the foreach / fused / capturable / differentiable keywords, against torch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn, optim

NAMES = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam"]


def _stepped(lib, name, device=None, steps=2):
    w = lib.nn.Parameter(lib.tensor([[1.0, -2.0], [0.5, 3.0]], device=device))
    kw = {"momentum": 0.9} if name == "SGD" else {}
    opt = getattr(lib.optim, name)([w], lr=0.1, **kw)
    for _ in range(steps):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w, opt


@pytest.mark.parametrize("name", NAMES)
def test_state_keyed_by_parameter_like_torch(device, name):
    torch = torch_or_skip()
    w, opt = _stepped(pdt, name, device)
    tw, topt = _stepped(torch, name)
    assert list(opt.state) == [w] and opt.state[w] is opt.state[list(opt.state)[0]]
    assert sorted(opt.state[w]) == sorted(topt.state[tw])
    for k, tv in topt.state[tw].items():
        v = opt.state[w][k]
        if isinstance(tv, torch.Tensor) and tv.ndim == 0:
            assert isinstance(v, pdt.Tensor) and v.ndim == 0 and v.dtype == pdt.float32
            assert v.device.type == "cpu" and v.item() == tv.item()
        else:
            np.testing.assert_allclose(v.cpu().numpy(), tv.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-6)
    assert opt.state[nn.Parameter(pdt.ones(1))] == {}  # a defaultdict, as torch's


def test_adagrad_has_its_state_from_the_start(device):
    # as PyTorch's: step 0 and sum = initial_accumulator_value (each group's) before any
    # step, listed by state_dict(); the first step then continues from them
    a = nn.Parameter(pdt.tensor([1.0, -2.0], device=device))
    b = nn.Parameter(pdt.tensor([[3.0]], device=device))
    opt = optim.Adagrad([{"params": [a]}, {"params": [b], "initial_accumulator_value": 0.5}],
                        lr=0.1, initial_accumulator_value=0.25)
    assert len(opt.state) == 2
    sd = opt.state_dict()["state"]
    assert list(sd) == [0, 1] and [float(sd[i]["step"]) for i in (0, 1)] == [0.0, 0.0]
    assert sd[0]["sum"].tolist() == [0.25, 0.25] and sd[1]["sum"].tolist() == [[0.5]]
    assert sd[0]["sum"].device == device and not sd[0]["sum"].requires_grad
    fresh = optim.Adagrad([{"params": [nn.Parameter(pdt.zeros(2, device=device))]},
                           {"params": [nn.Parameter(pdt.zeros(1, 1, device=device))]}])
    fresh.load_state_dict(opt.state_dict())  # a state of step 0 loads
    (a * a).sum().backward()
    opt.step()
    g = np.array([2.0, -4.0])
    np.testing.assert_allclose(a.detach().cpu().numpy(), [1.0, -2.0] - 0.1 * g / (
        np.sqrt(0.25 + g * g) + 1e-10), rtol=1e-6)
    assert float(opt.state[a]["step"]) == 1 and float(opt.state[b]["step"]) == 0


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip_and_torch_layout(device, name):
    torch = torch_or_skip()
    w, opt = _stepped(pdt, name, device)
    tw, topt = _stepped(torch, name)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert list(sd["state"]) == list(tsd["state"]) == [0]
    assert sorted(sd["param_groups"][0]) == sorted(tsd["param_groups"][0])
    # a torch state dict loads, and the next steps agree
    w2, opt2 = _stepped(pdt, name, device, steps=0)
    conv = {"state": {k: {n: (pdt.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v)
                          for n, v in st.items()} for k, st in tsd["state"].items()},
            "param_groups": tsd["param_groups"]}
    opt2.load_state_dict(conv)
    w2.data.copy_(pdt.tensor(tw.detach().numpy(), device=device))
    for o, p in [(opt2, w2), (topt, tw)]:
        o.zero_grad()
        (p * p).sum().backward()
        o.step()
    np.testing.assert_allclose(w2.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-6)


def test_old_checkpoint_with_int_step_loads():
    w, opt = _stepped(pdt, "Adam")
    sd = opt.state_dict()
    sd["state"][0]["step"] = 2  # how pydevtensor saved it before
    w2, opt2 = _stepped(pdt, "Adam", steps=0)
    opt2.load_state_dict(sd)
    step = opt2.state[w2]["step"]
    assert isinstance(step, pdt.Tensor) and step.dtype == pdt.float32 and step.item() == 2.0
    with pytest.raises(ValueError, match="step is 2.5, not an int >= 0"):
        sd["state"][0]["step"] = 2.5
        opt2.load_state_dict(sd)


def test_hint_keywords(device):
    torch = torch_or_skip()
    w = nn.Parameter(pdt.ones(2, device=device))
    tw = torch.nn.Parameter(torch.ones(2))
    for name, keys in [("Adam", ("foreach", "fused", "capturable", "differentiable")),
                       ("SGD", ("foreach", "fused", "differentiable")),
                       ("RMSprop", ("foreach", "capturable", "differentiable"))]:
        for k in keys:
            value = True if k != "foreach" else False
            opt = getattr(optim, name)([w], lr=0.1, **{k: value})
            topt = getattr(torch.optim, name)([tw], lr=0.1, **{k: value})
            assert opt.param_groups[0][k] == topt.param_groups[0][k] == value
    with pytest.raises(TypeError):
        optim.RMSprop([w], fused=True)  # torch's RMSprop has no fused either
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        optim.Adam([w], fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused=True` requires all the params to be "
                                           "floating point"):
        optim.SGD([pdt.ones(2, dtype=pdt.int64, device=device)], lr=0.1, fused=True)
    with pytest.raises(TypeError, match="foreach must be None, True or False"):
        optim.Adam([w], foreach="yes")


def test_adam_decoupled_weight_decay_is_adamw(device):
    torch = torch_or_skip()
    w = nn.Parameter(pdt.tensor([1.0, -2.0, 3.0], device=device))
    tw = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    opt = optim.Adam([w], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    topt = torch.optim.Adam([tw], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    for o, p in [(opt, w), (topt, tw)] * 3:
        o.zero_grad()
        (p * p * p).sum().backward()
        o.step()
    np.testing.assert_allclose(w.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-6)


def test_state_dict_save_load_file(tmp_path):
    w, opt = _stepped(pdt, "Adam")
    pdt.save(opt.state_dict(), str(tmp_path / "o.pt"))
    w2, opt2 = _stepped(pdt, "Adam", steps=0)
    opt2.load_state_dict(pdt.load(str(tmp_path / "o.pt")))
    assert opt2.state[w2]["step"].item() == 2.0
    np.testing.assert_array_equal(opt2.state[w2]["exp_avg"].numpy(),
                                  opt.state[w]["exp_avg"].numpy())


# The keys of a parameter group in PyTorch 2.15's order (its defaults' order, then
# 'params'), as state_dict() gives them; several were in another order here
_GROUP_KEYS = {
    "Adam": "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable "
            "fused decoupled_weight_decay",
    "AdamW": "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable "
             "fused decoupled_weight_decay",
    "Adamax": "lr betas eps weight_decay foreach maximize differentiable capturable",
    "RAdam": "lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay "
             "differentiable",
    "Adagrad": "lr lr_decay eps weight_decay initial_accumulator_value foreach maximize "
               "differentiable fused",
    "RMSprop": "lr momentum alpha eps centered weight_decay capturable foreach maximize "
               "differentiable",
}


@pytest.mark.parametrize("name", sorted(_GROUP_KEYS))
def test_param_group_keys_in_pytorchs_order(name):
    opt = getattr(optim, name)([nn.Parameter(pdt.ones(2))])
    want = _GROUP_KEYS[name].split()
    assert list(opt.defaults) == want
    assert list(opt.state_dict()["param_groups"][0]) == want + ["params"]
