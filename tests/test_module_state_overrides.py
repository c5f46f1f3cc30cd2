"""Subclass overrides of Module._save_to_state_dict and _load_from_state_dict, PyTorch's
way of keeping old checkpoints loadable and of saving extra entries: state_dict() and
load_state_dict() call them on every module, with PyTorch's arguments, keys and
strictness, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn


class Renamed(nn.Linear):
    """A layer whose weight was saved as 'old_w' by an older version."""

    def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errs):
        if prefix + "old_w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "old_w")
        super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errs)


class Scaled(nn.Linear):
    """A layer that saves a tensor that is neither parameter nor buffer."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scale = None

    def _save_to_state_dict(self, dest, prefix, keep_vars):
        super()._save_to_state_dict(dest, prefix, keep_vars)
        dest[prefix + "scale"] = pdt.tensor([3.0], device=self.weight.device)

    def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errs):
        self.scale = sd.pop(prefix + "scale", None)
        super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errs)


def _net(device):
    return nn.Sequential(nn.Linear(2, 2, device=device), Renamed(2, 1, device=device))


def test_an_override_renames_an_old_key_on_load(device):
    net = _net(device)
    w = np.array([[5.0, -1.0]], dtype=np.float32)
    sd = {"0.weight": pdt.ones(2, 2), "0.bias": pdt.zeros(2),
          "1.old_w": pdt.tensor(w), "1.bias": pdt.full((1,), 2.0)}
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    np.testing.assert_array_equal(net[1].weight.detach().cpu().numpy(), w)
    np.testing.assert_array_equal(net[1].bias.detach().cpu().numpy(), [2.0])
    np.testing.assert_array_equal(net[0].weight.detach().cpu().numpy(), np.ones((2, 2)))
    assert sorted(sd) == ["0.bias", "0.weight", "1.bias", "1.old_w"]  # the caller's kept
    # the module's own pre-hooks run from the base method, after the override's rename
    seen = []
    net[1].register_load_state_dict_pre_hook(lambda m, sd, prefix, *rest: seen.append(
        sorted(sd)))
    net.load_state_dict(sd)
    assert seen == [["1.bias", "1.weight"]]


def test_an_override_adds_an_entry_on_save_and_takes_it_back(device):
    net = nn.Sequential(Scaled(2, 1, device=device))
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "0.scale"]
    assert set(sd._metadata) == {"", "0"}
    np.testing.assert_array_equal(sd["0.scale"].cpu().numpy(), [3.0])
    assert list(net.state_dict(keep_vars=True)) == ["0.weight", "0.bias", "0.scale"]
    twin = nn.Sequential(Scaled(2, 1, device=device))
    assert repr(twin.load_state_dict(sd)) == "<All keys matched successfully>"
    np.testing.assert_array_equal(twin[0].scale.cpu().numpy(), [3.0])
    np.testing.assert_array_equal(twin[0].weight.detach().cpu().numpy(),
                                  net[0].weight.detach().cpu().numpy())
    # a module without the override finds the entry unexpected, as PyTorch's
    with pytest.raises(RuntimeError, match=r"unexpected key '0\.scale'"):
        nn.Sequential(nn.Linear(2, 1, device=device)).load_state_dict(sd)


def test_strict_errors_list_missing_and_unexpected_keys(device):
    net = _net(device)
    with pytest.raises(RuntimeError) as err:
        net.load_state_dict({"0.weight": pdt.ones(2, 2), "1.old_w": pdt.ones(1, 2),
                             "zz": pdt.ones(1)})
    msg = str(err.value)
    assert "Sequential" in msg
    for part in ("missing key '0.bias'", "missing key '1.bias'", "unexpected key 'zz'"):
        assert part in msg
    assert "'1.weight'" not in msg and "'1.old_w'" not in msg  # renamed: found
    keys = net.load_state_dict({"1.old_w": pdt.ones(1, 2), "zz": pdt.ones(1),
                                "1.q": pdt.ones(1)}, strict=False)
    assert keys.missing_keys == ["0.weight", "0.bias", "1.bias"]
    assert keys.unexpected_keys == ["zz", "1.q"]  # PyTorch's order: by module


def test_a_size_mismatch_is_reported_and_the_module_is_not_written(device):
    net = _net(device)
    before = net[0].bias.detach().cpu().numpy().copy()
    with pytest.raises(RuntimeError, match=r"size mismatch for '0\.weight'.*\(3, 2\)"):
        net.load_state_dict({"0.weight": pdt.ones(3, 2), "0.bias": pdt.full((2,), 9.0),
                             "1.old_w": pdt.ones(1, 2), "1.bias": pdt.zeros(1)})
    np.testing.assert_array_equal(net[0].bias.detach().cpu().numpy(), before)


def test_post_hooks_assign_and_old_batch_norm_checkpoints_in_the_walk(device):
    net = nn.Sequential(Renamed(2, 2, device=device), nn.BatchNorm1d(2, device=device))
    sd = {k: v for k, v in net.state_dict().items() if "num_batches" not in k}
    net[1].num_batches_tracked.fill_(4)
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert int(net[1].num_batches_tracked) == 4  # a plain dict: an old checkpoint
    seen = []
    net[0].register_load_state_dict_post_hook(
        lambda m, keys: seen.append(list(keys.missing_keys)))
    keys = net.load_state_dict({"0.old_w": pdt.ones(2, 2)}, strict=False)
    assert seen == [["0.bias"]]  # run after the module, before its siblings
    assert keys.missing_keys[0] == "0.bias" and "1.weight" in keys.missing_keys
    w = pdt.full((2, 2), 7.0, dtype=pdt.float64, device=device)
    net[0].load_state_dict({"old_w": w}, strict=False, assign=True)
    assert net[0].weight.dtype == pdt.float64 and isinstance(net[0].weight, nn.Parameter)
    assert net[0].weight.requires_grad


def test_private_pre_hook_without_the_module(device):
    lin = nn.Linear(2, 1, device=device)
    lin._register_load_state_dict_pre_hook(
        lambda sd, prefix, *rest: sd.__setitem__(prefix + "weight", sd.pop(prefix + "w")))
    lin.load_state_dict({"w": pdt.full((1, 2), 4.0), "bias": pdt.zeros(1)})
    np.testing.assert_array_equal(lin.weight.detach().cpu().numpy(), [[4.0, 4.0]])
    with pytest.raises(TypeError, match="must be callable"):
        lin._register_load_state_dict_pre_hook(3)
