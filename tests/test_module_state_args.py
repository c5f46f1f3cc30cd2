"""Module.state_dict(destination=, prefix=, keep_vars=), load_state_dict(assign=),
named_parameters / named_modules / named_buffers(remove_duplicate=), against torch."""
from collections import OrderedDict

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
    with pytest.warns(FutureWarning, match=r"^Positional args are being deprecated, use "
                      r"kwargs instead\. Refer to https://pytorch\.org/docs/main/generated/"
                      r"torch\.nn\.Module\.html#torch\.nn\.Module\.state_dict for details\.$"):
        old = m.state_dict(None, "q.", True)  # the old positional form, as PyTorch's
    assert list(old)[0] == "q.0.weight" and isinstance(old["q.0.weight"], nn.Parameter)


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



@pytest.mark.parametrize("walk", [False, True])
def test_load_state_dict_assign_gives_a_parameter_the_module_s_requires_grad(device, walk):
    """As PyTorch's: the Parameter of the state dict is put in itself, its requires_grad
    set to the module's (both ways; walk: the path taken when _load_from_state_dict is
    overridden)."""
    cls = type("L", (nn.Linear,), {"_load_from_state_dict": (
        lambda self, *a: nn.Linear._load_from_state_dict(self, *a))}) if walk else nn.Linear
    m, src = cls(2, 2, device=device), nn.Linear(2, 2, device=device)
    m.bias.requires_grad_(False)
    src.weight.requires_grad_(False)
    m.load_state_dict(src.state_dict(keep_vars=True), assign=True)
    assert m.weight is src.weight and m.bias is src.bias
    assert m.weight.requires_grad and src.weight.requires_grad
    assert not m.bias.requires_grad

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


def test_batchnorm_loads_a_checkpoint_without_num_batches_tracked(device):
    """PyTorch's _NormBase is at version 2 (state_dict's _metadata says so): a state dict
    of an older version, or a plain dict with no _metadata, may lack num_batches_tracked,
    and loading it keeps the module's own count; at version 2 the key is required."""
    net = nn.Sequential(nn.Linear(1, 2), nn.BatchNorm1d(2)).to(device)
    full = net.state_dict()
    assert full._metadata["1"] == {"version": 2} and full._metadata["0"] == {"version": 1}
    net[1].num_batches_tracked.fill_(5)
    net[1].running_mean.fill_(9.0)
    old = OrderedDict((k, v.clone()) for k, v in full.items() if k != "1.num_batches_tracked")
    old["1.running_mean"].fill_(3.0)
    plain = dict(old)
    assert repr(net.load_state_dict(plain)) == "<All keys matched successfully>"
    assert "1.num_batches_tracked" not in plain  # the caller's dict is left as it was
    assert int(net[1].num_batches_tracked) == 5
    assert net[1].running_mean.tolist() == [3.0, 3.0]
    old._metadata = OrderedDict(full._metadata)
    old._metadata["1"] = {"version": 1}
    assert not net.load_state_dict(old).missing_keys
    old._metadata["1"] = {"version": 2}
    with pytest.raises(RuntimeError, match="missing key '1.num_batches_tracked'"):
        net.load_state_dict(old)
    assert net.load_state_dict(old, strict=False).missing_keys == ["1.num_batches_tracked"]
    off = nn.BatchNorm1d(2, track_running_stats=False)
    assert list(off.state_dict()) == ["weight", "bias"]
    assert not off.load_state_dict(dict(off.state_dict())).missing_keys
