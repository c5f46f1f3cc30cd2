"""Module state-dict hooks (register_state_dict_pre_hook / post_hook,
register_load_state_dict_pre_hook / post_hook) and extra state (get_extra_state /
set_extra_state), with PyTorch's keys, calling order and strictness, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn


class Counted(nn.Linear):
    """A layer with extra state: how often it ran."""

    calls = 0

    def get_extra_state(self):
        return {"calls": self.calls}

    def set_extra_state(self, state):
        self.calls = state["calls"]


class SaveOnly(nn.Linear):
    def get_extra_state(self):
        return 5


def _net(device):
    return nn.Sequential(nn.Linear(2, 2, device=device), Counted(2, 1, device=device))


def test_extra_state_saved_after_the_tensors_and_loaded_back(device):
    net = _net(device)
    net[1].calls = 3
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1._extra_state"]
    assert sd["1._extra_state"] == {"calls": 3}
    assert sd._metadata[""] == {"version": 1} and set(sd._metadata) == {"", "0", "1"}
    twin = _net(device)
    assert repr(twin.load_state_dict(sd)) == "<All keys matched successfully>"
    assert twin[1].calls == 3
    np.testing.assert_array_equal(twin[0].weight.detach().cpu().numpy(),
                                  net[0].weight.detach().cpu().numpy())


def test_extra_state_missing_or_unexpected(device):
    net = _net(device)
    sd = net.state_dict()
    del sd["1._extra_state"]
    before = net[0].weight.detach().cpu().numpy().copy()
    sd["0.weight"] = pdt.zeros(2, 2, device=device)
    with pytest.raises(RuntimeError, match=r"missing key '1\._extra_state'"):
        net.load_state_dict(sd)
    # a refused load changes nothing
    np.testing.assert_array_equal(net[0].weight.detach().cpu().numpy(), before)
    keys = net.load_state_dict(sd, strict=False)
    assert keys.missing_keys == ["1._extra_state"] and keys.unexpected_keys == []
    assert net[0].weight.abs().sum().item() == 0.0
    # a module that saves extra state but takes none back: the key is unexpected
    m = nn.Sequential(SaveOnly(1, 1, device=device))
    assert "0._extra_state" in m.state_dict()
    with pytest.raises(RuntimeError, match=r"unexpected key '0\._extra_state'"):
        m.load_state_dict(m.state_dict())
    assert m.load_state_dict(m.state_dict(), strict=False).unexpected_keys == \
        ["0._extra_state"]


def test_module_own_extra_state_methods_raise():
    with pytest.raises(RuntimeError, match="override it"):
        nn.Linear(1, 1).get_extra_state()
    with pytest.raises(RuntimeError, match="override it"):
        nn.Linear(1, 1).set_extra_state({})


def test_state_dict_hooks_order_and_in_place_changes(device):
    net = _net(device)
    order = []
    net.register_state_dict_pre_hook(lambda m, p, kv: order.append(("pre", p, kv)))
    net[0].register_state_dict_pre_hook(lambda m, p, kv: order.append(("pre0", p, kv)))
    net[0].register_state_dict_post_hook(
        lambda m, sd, p, meta: order.append(("post0", p, meta["version"], sorted(sd))))
    def drop_bias(m, sd, prefix, meta):
        del sd[prefix + "0.bias"]

    handle = net.register_state_dict_post_hook(drop_bias)
    sd = net.state_dict(prefix="x.", keep_vars=True)
    assert order == [("pre", "x.", True), ("pre0", "x.0.", True),
                     ("post0", "x.0.", 1, ["x.0.bias", "x.0.weight"])]
    assert "x.0.bias" not in sd and sd["x.1.weight"] is net[1].weight
    handle.remove()
    assert "0.bias" in net.state_dict()


def test_state_dict_post_hook_must_return_none_but_the_private_form_replaces():
    lin = nn.Linear(2, 1)
    lin.register_state_dict_post_hook(lambda m, sd, p, meta: {})
    with pytest.raises(RuntimeError, match="must return None"):
        lin.state_dict()
    lin = nn.Linear(2, 1)
    lin._register_state_dict_hook(lambda m, sd, p, meta: {"only": 1})
    assert lin.state_dict() == {"only": 1}


def test_load_pre_hook_renames_keys_in_a_copy(device):
    lin = nn.Linear(2, 1, device=device)

    def rename(m, sd, prefix, meta, strict, missing, unexpected, errors):
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    lin.register_load_state_dict_pre_hook(rename)
    old = {"w": pdt.full((1, 2), 4.0), "bias": pdt.zeros(1)}
    assert repr(lin.load_state_dict(old)) == "<All keys matched successfully>"
    assert list(old) == ["w", "bias"]  # the caller's dict is not changed
    assert lin.weight.detach().cpu().numpy().tolist() == [[4.0, 4.0]]
    lin.register_load_state_dict_pre_hook(
        lambda m, sd, p, meta, s, mk, uk, errors: errors.append("refused by a hook"))
    with pytest.raises(RuntimeError, match="refused by a hook"):
        lin.load_state_dict(old)


def test_load_post_hooks_children_first_and_may_forgive_keys(device):
    net = nn.Sequential(nn.Linear(2, 1, device=device),
                        nn.Sequential(nn.Linear(1, 1, device=device)))
    order = []
    for m, name in [(net, "root"), (net[1], "1"), (net[1][0], "1.0"), (net[0], "0")]:
        m.register_load_state_dict_post_hook(
            lambda mod, keys, name=name: order.append((name, list(keys.missing_keys))))
    sd = net.state_dict()
    del sd["0.bias"]
    with pytest.raises(RuntimeError, match=r"missing key '0\.bias'"):
        net.load_state_dict(sd)
    assert order == [("0", ["0.bias"]), ("1.0", ["0.bias"]), ("1", ["0.bias"]),
                     ("root", ["0.bias"])]
    forgiving = nn.Linear(2, 1, device=device)
    forgiving.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
    w = pdt.full((1, 2), 2.0)
    assert repr(forgiving.load_state_dict({"weight": w})) == "<All keys matched successfully>"
    assert forgiving.weight.detach().cpu().numpy().tolist() == [[2.0, 2.0]]
    bad = nn.Linear(1, 1)
    bad.register_load_state_dict_post_hook(lambda m, keys: keys)
    with pytest.raises(RuntimeError, match="must return None"):
        bad.load_state_dict(bad.state_dict())


def test_load_keys_a_post_hook_adds_raise_with_strict(device):
    # PyTorch's: the post-hooks' additions count, the load itself done before the error
    lin = nn.Linear(2, 1, device=device)
    lin.register_load_state_dict_post_hook(lambda m, keys: keys.unexpected_keys.append("x"))
    sd = {"weight": pdt.full((1, 2), 3.0), "bias": pdt.full((1,), 4.0)}
    with pytest.raises(RuntimeError, match=r"unexpected key 'x'"):
        lin.load_state_dict(sd)
    assert lin.weight.detach().cpu().numpy().tolist() == [[3.0, 3.0]]
    result = lin.load_state_dict(sd, strict=False)
    assert result.missing_keys == [] and result.unexpected_keys == ["x"]
    lin.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.append("y"))
    with pytest.raises(RuntimeError, match=r"missing key 'y'; unexpected key 'x'"):
        lin.load_state_dict(sd)
