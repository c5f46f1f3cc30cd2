"""nn.Module's hook tables laid out as PyTorch's: ``_forward_pre_hooks``, ``_forward_hooks``,
``_backward_hooks``, ``_backward_pre_hooks`` and the state dict ones are OrderedDicts of
handle id -> the hook itself (flags in ``_forward_hooks_with_kwargs`` and the like), so
user code that finds a hook by its class and deletes it by key (HiFi-GAN's
remove_weight_norm) works."""
import copy
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn.utils import prune
from pydevtensor.nn.utils.spectral_norm import SpectralNorm
from pydevtensor.nn.utils.weight_norm import WeightNorm

pytestmark = pytest.mark.filterwarnings(
    "ignore:`nn.utils.weight_norm` is deprecated:FutureWarning")


def _remove_by_key(module, cls, name):
    """The loop many repositories run to undo weight_norm and the like."""
    found = []
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, cls) and getattr(hook, "name", None) == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            found.append(k)
    return found


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("fn, cls", [(nn.utils.weight_norm, WeightNorm),
                                     (nn.utils.spectral_norm, SpectralNorm)])
def test_user_code_finds_a_norm_hook_by_class_and_deletes_it_by_key(device, fn, cls):
    lin = nn.Linear(3, 2).to(device)
    w0 = _np(lin.weight)
    fn(lin)
    assert [type(h) for h in lin._forward_pre_hooks.values()] == [cls]
    assert len(_remove_by_key(lin, cls, "weight")) == 1 and len(lin._forward_pre_hooks) == 0
    assert sorted(n for n, _ in lin.named_parameters()) == ["bias", "weight"]
    w = _np(lin.weight)
    if cls is WeightNorm:  # g = ||v|| at first: g * v / ||v|| is the weight it began with
        np.testing.assert_allclose(w, w0, rtol=1e-5, atol=1e-6)
    with pdt.no_grad():  # no hook recomputes the weight any more: the new one is used
        lin.weight.mul_(2.0)
    x = pdt.tensor([[1.0, -2.0, 0.5]], device=device)
    np.testing.assert_allclose(_np(lin(x)), _np(x) @ (2 * w).T + _np(lin.bias),
                               rtol=1e-5, atol=1e-5)


def test_user_code_finds_and_deletes_a_pruning_method(device):
    lin = nn.Linear(4, 3).to(device)
    prune.l1_unstructured(lin, "weight", amount=0.5)
    prune.random_unstructured(lin, "weight", amount=0.25)  # a PruningContainer now
    (method,) = lin._forward_pre_hooks.values()
    assert isinstance(method, prune.PruningContainer) and len(method._pruning_methods) == 2
    mask = _np(lin.weight_mask)
    orig = _np(lin.weight_orig)
    for k, hook in list(lin._forward_pre_hooks.items()):
        if isinstance(hook, prune.BasePruningMethod):
            hook.remove(lin)
            del lin._forward_pre_hooks[k]
    assert not prune.is_pruned(lin) and sorted(lin.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(_np(lin.weight), orig * mask)


def test_forward_tables_hold_the_hooks_by_handle_id_with_flags_apart(device):
    lin = nn.Linear(2, 2).to(device)
    assert [len(getattr(lin, t)) for t in (
        "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
        "_forward_hooks_with_kwargs", "_forward_hooks_always_called")] == [0] * 5
    log = []

    def first(m, a, o):
        log.append("first")

    def kw(m, a, k, o):
        log.append("kw")

    def front(m, a, o):
        log.append("front")

    def pre(m, a, k):
        log.append("pre")

    h1 = lin.register_forward_hook(first)
    h2 = lin.register_forward_hook(kw, with_kwargs=True, always_call=True)
    h3 = lin.register_forward_hook(front, prepend=True)
    hp = lin.register_forward_pre_hook(pre, with_kwargs=True)
    assert list(lin._forward_hooks.items()) == [(h3.id, front), (h1.id, first), (h2.id, kw)]
    assert dict(lin._forward_hooks_with_kwargs) == {h2.id: True}
    assert dict(lin._forward_hooks_always_called) == {h2.id: True}
    assert list(lin._forward_pre_hooks.items()) == [(hp.id, pre)]
    assert dict(lin._forward_pre_hooks_with_kwargs) == {hp.id: True}
    x = pdt.ones(1, 2, device=device)
    lin(x)
    assert log == ["pre", "front", "first", "kw"]
    del lin._forward_hooks[h1.id]  # deleting the entry unregisters the hook
    h1.remove()  # its handle after that: nothing left to remove, no error
    h2.remove()  # the flags go with the hook
    assert len(lin._forward_hooks) == 1 and not lin._forward_hooks_with_kwargs
    assert not lin._forward_hooks_always_called
    log.clear()
    lin(x)
    assert log == ["pre", "front"]
    h3.remove()
    hp.remove()
    assert not lin._forward_hooks and not lin._forward_pre_hooks
    assert not lin._forward_pre_hooks_with_kwargs


def test_backward_tables_hold_the_hooks_by_handle_id(device):
    lin = nn.Linear(2, 1).to(device)
    assert not lin._backward_hooks and not lin._backward_pre_hooks
    assert lin._is_full_backward_hook is None
    seen = []
    h = lin.register_full_backward_hook(lambda m, gi, go: seen.append("full"))
    hp = lin.register_full_backward_pre_hook(lambda m, go: seen.append("pre"))
    assert list(lin._backward_hooks) == [h.id] and list(lin._backward_pre_hooks) == [hp.id]
    assert lin._is_full_backward_hook is True
    x = pdt.ones(3, 2, device=device, requires_grad=True)
    lin(x).sum().backward()
    assert seen == ["pre", "full"]
    del lin._backward_hooks[h.id]
    seen.clear()
    lin(x).sum().backward()
    assert seen == ["pre"]
    np.testing.assert_allclose(_np(x.grad), np.tile(2 * _np(lin.weight), (3, 1)), rtol=1e-6)
    del lin._backward_pre_hooks[hp.id]
    legacy = nn.ReLU()
    hl = legacy.register_backward_hook(lambda m, gi, go: None)
    assert list(legacy._backward_hooks) == [hl.id] and legacy._is_full_backward_hook is False


def test_state_dict_tables_hold_the_hooks_by_handle_id(device):
    lin = nn.Linear(2, 2).to(device)

    def extra(m, sd, prefix, meta):
        sd[prefix + "extra"] = 1

    h = lin.register_state_dict_post_hook(extra)
    hp = lin.register_state_dict_pre_hook(lambda m, prefix, keep_vars: None)
    hl = lin.register_load_state_dict_post_hook(lambda m, keys: None)
    assert list(lin._state_dict_hooks) == [h.id] and list(lin._state_dict_pre_hooks) == [hp.id]
    assert list(lin._load_state_dict_post_hooks) == [hl.id]
    assert list(lin._state_dict_hooks.values()) == [extra]  # the hook itself
    assert sorted(lin.state_dict()) == ["bias", "extra", "weight"]
    del lin._state_dict_hooks[h.id]
    assert sorted(lin.state_dict()) == ["bias", "weight"]

    class Saver:
        def add(self, m, sd, prefix, meta):
            sd[prefix + "saved"] = 2

        def bad(self, m, sd, prefix, meta):
            return sd

    # a bound method takes no mark: still a public hook, whose result must be None
    lin.register_state_dict_post_hook(Saver().add)
    assert lin.state_dict()["saved"] == 2
    lin.register_state_dict_post_hook(Saver().bad)
    with pytest.raises(RuntimeError, match="must return None"):
        lin.state_dict()


def _plus_one(m, args, kwargs, out):  # module level: picklable
    return out + 1


def _double(m, args):
    return (args[0] * 2,)


def _note(m, grad_input, grad_output):
    m.seen = True


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_keep_the_tables(device, how):
    lin = nn.Linear(2, 2).to(device)
    h0 = lin.register_forward_hook(_plus_one, with_kwargs=True, always_call=True)
    h1 = lin.register_forward_hook(_plus_one, with_kwargs=True, prepend=True)
    if how == "pickle":
        nn.utils.weight_norm(lin)  # its weight is computed: deepcopy refuses it, as PyTorch's
        copied = pickle.loads(pickle.dumps(lin))
    else:
        lin.register_forward_pre_hook(_double)
        copied = copy.deepcopy(lin)
    assert list(copied._forward_hooks) == [h1.id, h0.id]
    assert list(copied._forward_hooks_with_kwargs) == [h0.id, h1.id]
    assert list(copied._forward_hooks_always_called) == [h0.id]
    assert list(copied._forward_pre_hooks) == list(lin._forward_pre_hooks)
    x = pdt.ones(1, 2, device=device)
    np.testing.assert_allclose(_np(copied(x)), _np(lin(x)), rtol=1e-6)
    scale = 2 if how == "deepcopy" else 1
    np.testing.assert_allclose(_np(copied(x)), scale * _np(x) @ _np(copied.weight).T
                               + _np(copied.bias) + 2, rtol=1e-5, atol=1e-5)
    if how == "pickle":
        nn.utils.remove_weight_norm(copied)
        assert not copied._forward_pre_hooks and not hasattr(copied, "weight_g")


def test_a_module_pickled_with_the_earlier_tables_is_upgraded(device):
    from pydevtensor.nn._backward_hooks import _Tables
    lin = nn.Linear(2, 2).to(device)
    for table in ("_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                  "_forward_pre_hooks_with_kwargs", "_backward_pre_hooks",
                  "_is_full_backward_hook"):
        lin.__dict__.pop(table, None)  # none of these then
    lin.__dict__["_forward_hooks"] = {0: (_plus_one, True, True)}  # key -> (hook, flags)
    lin.__dict__["_backward_hooks"] = _Tables(full={3: _note})
    back = pickle.loads(pickle.dumps(lin))
    assert list(back._forward_hooks.items()) == [(0, _plus_one)]
    assert dict(back._forward_hooks_with_kwargs) == {0: True}
    assert dict(back._forward_hooks_always_called) == {0: True}
    assert list(back._backward_hooks.items()) == [(3, _note)]
    assert back._is_full_backward_hook is True and not back._backward_pre_hooks
    x = pdt.ones(1, 2, device=device, requires_grad=True)
    y = back(x)
    np.testing.assert_allclose(_np(y), _np(x) @ _np(back.weight).T + _np(back.bias) + 1,
                               rtol=1e-5, atol=1e-5)
    y.sum().backward()
    assert back.seen


def test_global_tables_hold_the_hooks_by_handle_id(device):
    from pydevtensor.nn.modules import module
    log = []

    def pre(m, args):
        log.append("pre")

    def post(m, args, kwargs, out):
        log.append("post")

    h = module.register_module_forward_hook(post, with_kwargs=True, always_call=True)
    hp = module.register_module_forward_pre_hook(pre)
    hb = module.register_module_full_backward_hook(lambda m, gi, go: log.append("backward"))
    try:
        assert list(module._global_forward_hooks.items()) == [(h.id, post)]
        assert dict(module._global_forward_hooks_with_kwargs) == {h.id: True}
        assert dict(module._global_forward_hooks_always_called) == {h.id: True}
        assert list(module._global_forward_pre_hooks.items()) == [(hp.id, pre)]
        assert list(module._global_backward_hooks) == [hb.id]
        x = pdt.ones(1, 2, device=device, requires_grad=True)
        lin = nn.Linear(2, 1).to(device)
        lin(x).sum().backward()
        assert log == ["pre", "post", "backward"]
        del module._global_forward_hooks[h.id]
        del module._global_backward_hooks[hb.id]
        log.clear()
        lin(x).sum().backward()
        assert log == ["pre"]
    finally:
        for handle in (h, hp, hb):
            handle.remove()
    assert not module._global_forward_hooks_with_kwargs
    assert not module._global_forward_hooks_always_called
    assert not module._global_forward_pre_hooks
