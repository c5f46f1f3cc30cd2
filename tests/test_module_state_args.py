"""Module.state_dict(destination=, prefix=, keep_vars=), load_state_dict(assign=),
named_parameters / named_modules / named_buffers(remove_duplicate=), against torch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn


def _tied(lib, device=None):
    kw = {} if device is None else {"device": device}
    m = lib.nn.Sequential(lib.nn.Linear(2, 3, **kw), lib.nn.BatchNorm1d(3, **kw))
    m.add_module("tied", m[0])
    return m


def test_names_match_torch():
    torch = torch_or_skip()
    m, tm = _tied(pdt), _tied(torch)
    for prefix in ["", "net.", "net"]:
        assert list(m.state_dict(prefix=prefix)) == list(tm.state_dict(prefix=prefix))
    for dup in (True, False):
        assert [n for n, _ in m.named_parameters(remove_duplicate=dup)] == \
            [n for n, _ in tm.named_parameters(remove_duplicate=dup)]
        assert [n for n, _ in m.named_modules(remove_duplicate=dup)] == \
            [n for n, _ in tm.named_modules(remove_duplicate=dup)]
        assert [n for n, _ in m.named_buffers(remove_duplicate=dup)] == \
            [n for n, _ in tm.named_buffers(remove_duplicate=dup)]
    assert [n for n, _ in m.named_modules(prefix="p")] == \
        [n for n, _ in tm.named_modules(prefix="p")]


def test_state_dict_keep_vars_and_destination(device):
    m = _tied(pdt, device)
    sd = m.state_dict(keep_vars=True)
    assert sd["0.weight"] is m[0].weight and isinstance(sd["0.weight"], nn.Parameter)
    plain = m.state_dict()
    assert not isinstance(plain["0.weight"], nn.Parameter)
    assert not plain["0.weight"].requires_grad
    dest = {"x": 1}
    assert m.state_dict(destination=dest, prefix="m.") is dest and "m.1.running_mean" in dest
    assert list(m.state_dict(None, "q.", True))[0] == "q.0.weight"  # the old positional form


def test_load_state_dict_assign(device):
    m = _tied(pdt, device)
    w = pdt.arange(6.0, device=device).reshape(3, 2).double()
    frozen = m[0].bias.requires_grad_(False)
    assert frozen is m[0].bias
    sd = {k: v.double() for k, v in m.state_dict().items()}
    sd["0.weight"] = w
    sd["tied.weight"] = w
    sd["1.running_mean"] = pdt.ones(3, device=device, dtype=pdt.float64)
    m.load_state_dict(sd, assign=True)
    assert isinstance(m[0].weight, nn.Parameter) and m[0].weight.dtype == pdt.float64
    np.testing.assert_array_equal(m[0].weight.detach().cpu().numpy(), np.arange(6.0).reshape(3, 2))
    assert m[0].weight.data_ptr() == w.data_ptr()  # assigned, not copied
    assert m[0].weight.requires_grad and not m[0].bias.requires_grad
    assert m[1].running_mean is sd["1.running_mean"] and m.tied is m[0]
    m[0](pdt.ones(4, 2, device=device, dtype=pdt.float64)).sum().backward()
    assert m[0].weight.grad is not None


def test_load_state_dict_assign_against_torch():
    torch = torch_or_skip()
    m, tm = _tied(pdt), _tied(torch)
    tsd = {k: v.double() for k, v in tm.state_dict().items()}
    tm.load_state_dict(tsd, assign=True)
    m.load_state_dict({k: pdt.tensor(v.numpy()) for k, v in tsd.items()}, assign=True)
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn and str(p.dtype).split(".")[1] == str(tp.dtype).split(".")[1]
        assert p.requires_grad == tp.requires_grad


def test_bad_prefix():
    with pytest.raises(TypeError, match="prefix must be a str, got int"):
        nn.Linear(1, 1).state_dict(prefix=3)
