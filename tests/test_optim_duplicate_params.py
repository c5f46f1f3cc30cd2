"""A parameter given twice in one group (a tied weight listed twice): refused before;
PyTorch warns ("optimizer contains a parameter group with duplicate parameters") and its
loop over the group updates it once for each place, each from the value and state the
one before left, and so do these now. Two groups sharing a parameter are still refused."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn, optim

_WARNING = "optimizer contains a parameter group with duplicate parameters"


def _param(values, device):
    return nn.Parameter(pdt.tensor(values, dtype=pdt.float64, device=device))


def test_warns_and_keeps_both_places(device):
    w = _param([1.0, 2.0], device)
    with pytest.warns(UserWarning, match=_WARNING):
        opt = optim.SGD([w, w], lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 2
    w.grad = pdt.ones(2, dtype=pdt.float64, device=device)
    opt.step()
    np.testing.assert_allclose(w.detach().cpu().numpy(), [0.8, 1.8])  # two updates


def test_two_groups_sharing_a_parameter_are_refused():
    w = nn.Parameter(pdt.ones(2))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    opt = optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w]})


# optimizers whose state is one per parameter, updated in place: [w, v, w] stepping once
# is [w] stepped twice and [v] once with the same gradients
@pytest.mark.parametrize("make", [
    lambda ps: optim.Adam(ps, lr=0.1), lambda ps: optim.AdamW(ps, lr=0.1),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, weight_decay=0.1),
    lambda ps: optim.Adagrad(ps, lr=0.1), lambda ps: optim.Adadelta(ps, lr=0.5),
    lambda ps: optim.Rprop(ps, lr=0.1), lambda ps: optim.ASGD(ps, lr=0.1),
    lambda ps: optim.Adafactor(ps, lr=0.1, weight_decay=0.1)],
    ids=["Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Rprop", "ASGD", "Adafactor"])
def test_each_place_is_one_more_step(device, make):
    w, v = _param([1.0, -2.0], device), _param([0.5], device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        opt = make([w, v, w])
    w1, v1 = _param([1.0, -2.0], device), _param([0.5], device)
    once_w, once_v = make([w1]), make([v1])
    for i in range(3):
        gw = pdt.tensor([1.0 + i, 0.5 - i], dtype=pdt.float64, device=device)
        gv = pdt.tensor([2.0 - i], dtype=pdt.float64, device=device)
        w.grad, v.grad = gw, gv
        opt.step()
        for _ in range(2):
            w1.grad = gw.clone()
            once_w.step()
        v1.grad = gv.clone()
        once_v.step()
    np.testing.assert_allclose(w.detach().cpu().numpy(), w1.detach().cpu().numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(v.detach().cpu().numpy(), v1.detach().cpu().numpy(),
                               rtol=1e-12)
    assert len(opt.param_groups[0]["params"]) == 3


def test_sgd_momentum_buffer_starts_at_each_place_on_the_first_step(device):
    # PyTorch's SGD reads the momentum buffers before its loop: on the first step each
    # place starts one from its own gradient, the last one kept; later steps share it
    lr, m, wd = 0.1, 0.9, 0.1
    w = _param([1.0, -2.0], device)
    with pytest.warns(UserWarning, match=_WARNING):
        opt = optim.SGD([w, w], lr=lr, momentum=m, weight_decay=wd)
    p, g = np.array([1.0, -2.0]), np.array([1.0, 3.0])
    buf = None
    for step in range(3):
        w.grad = pdt.tensor(g, device=device)
        opt.step()
        for _ in range(2):
            d = g + wd * p
            buf = d if step == 0 else m * buf + d
            p = p - lr * buf
    np.testing.assert_allclose(w.detach().cpu().numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(opt.state[w]["momentum_buffer"].cpu().numpy(), buf,
                               rtol=1e-12)


def test_state_dict_round_trip(device):
    w, v = _param([1.0, 2.0], device), _param([3.0], device)
    with pytest.warns(UserWarning, match=_WARNING):
        opt = optim.Adam([w, w], lr=0.1)
    opt.add_param_group({"params": [v]})
    w.grad = pdt.ones(2, dtype=pdt.float64, device=device)
    v.grad = pdt.ones(1, dtype=pdt.float64, device=device)
    opt.step()
    sd = opt.state_dict()
    # PyTorch's numbering: places counted, a parameter twice numbered by its last
    assert [g["params"] for g in sd["param_groups"]] == [[1, 1], [2]]
    assert sorted(sd["state"]) == [1, 2] and int(sd["state"][1]["step"]) == 2
    with pytest.warns(UserWarning, match=_WARNING):
        again = optim.Adam([w, w], lr=0.1)
    again.add_param_group({"params": [v]})
    again.load_state_dict(sd)
    assert int(again.state[w]["step"]) == 2 and int(again.state[v]["step"]) == 1
