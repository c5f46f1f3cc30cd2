"""An optimizer's state (pydevtensor.optim.optimizer): what Optimizer.state_dict() and
Optimizer.load_state_dict() do (the methods call state_dict and load_state_dict here),
how a saved parameter's state is checked and copied (loaded_state), and the 0-d state
numbers (step counts, NAdam's mu_product, ASGD's eta and mu) as PyTorch keeps them."""
from __future__ import annotations

import copy
import math
import numbers
import struct
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from .. import _C
from .._default_dtype import get_default_dtype
from ._optimizer_hooks import chain_hooks, run_hooks


def state_dict(opt) -> dict[str, Any]:
    """Optimizer.state_dict() of opt (its docstring says what it holds)."""
    run_hooks(opt, "_state_dict_pre_hooks")
    index: dict[int, int] = {}
    groups, start = [], 0
    for g in opt.param_groups:  # a parameter's place; one twice in a group: its last
        index.update({id(p): i for i, p in enumerate(g["params"], start)})
        start += len(g["params"])
        hyper = copy.deepcopy({k: v for k, v in g.items() if k != "params"})
        hyper["params"] = [index[id(p)] for p in g["params"]]
        groups.append(hyper)
    state = {}
    for p in opt._all_params():
        if opt.state.get(p):
            state[index[id(p)]] = dict(opt.state[p])
    return chain_hooks(opt, "_state_dict_post_hooks", {"state": state, "param_groups": groups})


def load_state_dict(opt, state_dict: Mapping[str, Any]) -> None:
    """Optimizer.load_state_dict(state_dict) of opt (its docstring says what it takes)."""
    where = f"{type(opt).__name__}.load_state_dict()"
    state_dict = chain_hooks(opt, "_load_state_dict_pre_hooks", state_dict)
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"{where}: expected a dict (an optimizer's state_dict()), got "
                        f"{type(state_dict).__name__}")
    missing = [k for k in ("state", "param_groups") if k not in state_dict]
    if missing:
        raise ValueError(f"{where}: the state dict has no {missing[0]!r}")
    saved_groups, saved_state = state_dict["param_groups"], state_dict["state"]
    if not isinstance(saved_groups, (list, tuple)) or not all(
            isinstance(g, Mapping) for g in saved_groups):
        raise TypeError(f"{where}: 'param_groups' must be a list of dicts")
    if not isinstance(saved_state, Mapping):
        raise TypeError(f"{where}: 'state' must be a dict, got "
                        f"{type(saved_state).__name__}")
    if len(saved_groups) != len(opt.param_groups):
        raise ValueError(f"{where}: the state dict has {len(saved_groups)} parameter "
                         f"groups, this optimizer has {len(opt.param_groups)}")
    params: dict[int, _C.Tensor] = {}  # saved index -> this optimizer's parameter
    group_of: dict[int, dict[str, Any]] = {}  # saved index -> its new group
    new_groups = []
    for i, (saved, own) in enumerate(zip(saved_groups, opt.param_groups)):
        indices = saved.get("params")
        if not isinstance(indices, (list, tuple)) or not all(
                type(k) is int for k in indices):
            raise TypeError(f"{where}: parameter group {i}'s 'params' must be a list "
                            f"of ints, got {indices!r:.80}")
        if len(indices) != len(own["params"]):
            raise ValueError(f"{where}: parameter group {i} has {len(indices)} "
                             f"parameters in the state dict, {len(own['params'])} in "
                             f"this optimizer")
        group = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
        for name, value in opt.defaults.items():
            group.setdefault(name, value)
        group["params"] = list(own["params"])
        if "param_names" in own and "param_names" not in group:
            group["param_names"] = list(own["param_names"])
        _check_loaded_group(opt, group)
        new_groups.append(group)
        for k, p in zip(indices, own["params"]):
            if k in params and params[k] is not p:  # one parameter twice is allowed
                raise ValueError(f"{where}: parameter index {k} is in the state dict's "
                                 f"groups twice, for two parameters")
            params[k] = p
            group_of[k] = group
    new_state: defaultdict[_C.Tensor, dict[str, Any]] = defaultdict(dict)
    for k, entry in saved_state.items():
        if type(k) is not int or k not in params:
            raise ValueError(f"{where}: the state dict has state for parameter {k!r}, "
                             f"which no parameter group lists")
        new_state[params[k]] = opt._loaded_state(entry, params[k],
                                                 f"{where}: parameter {k}'s state",
                                                 group_of[k])
    for own, group in zip(opt.param_groups, new_groups):  # nothing fails from here
        own.clear()
        own.update(group)
    opt.state = new_state
    run_hooks(opt, "_load_state_dict_post_hooks")


def _check_loaded_group(opt, group):
    """opt._check_group(group) for a saved group, but for an lr below 0, taken as
    saved (as PyTorch's load_state_dict takes any): the groups of a running optimizer
    hold such a rate when a scheduler sets it (LinearLR's decay to end_factor=0 ends a
    rounding error below 0, -1.5e-18, as PyTorch's), and a saved state always loads."""
    lr = group.get("lr")
    if isinstance(lr, _C.Tensor):  # a Tensor lr: its number is checked, the Tensor kept
        below = lr.numel() == 1 and lr.is_floating_point() and lr.item() < 0
    else:
        below = isinstance(lr, numbers.Real) and not isinstance(lr, bool) and lr < 0
    if below:
        group["lr"] = -lr
    opt._check_group(group)  # (group is the loading's copy: on failure it is dropped)
    if below:
        group["lr"] = lr if isinstance(lr, _C.Tensor) else -group["lr"]


def loaded_state(opt, entry, p, where, group):
    """Optimizer._loaded_state(entry, p, where, group) of opt: one parameter's saved state
    checked and copied."""
    if not isinstance(entry, Mapping):
        raise TypeError(f"{where} is {_a(type(entry).__name__)}, not a dict")
    kinds = opt._param_state_kinds(group, p)
    if _builtin(type(opt)):
        unknown = [k for k in entry if k not in kinds]
        lacking = [k for k in kinds if k not in entry]
        if unknown or lacking:
            raise ValueError(f"{where} has " + (f"the unknown entry {unknown[0]!r}"
                                                if unknown else f"no {lacking[0]!r}") +
                             f" ({type(opt).__name__}'s state holds "
                             f"{', '.join(map(repr, kinds))})")
    else:
        kinds = {k: v for k, v in kinds.items() if k in entry}
    out: dict[str, Any] = {name: _cast_state(v, p, name)
                           for name, v in entry.items() if name not in kinds}
    for name, kind in kinds.items():
        v = entry[name]
        if kind == "count":  # an int in checkpoints before step became a tensor
            n = _scalar(v)  # 0 in Adagrad's state before its first step
            if isinstance(n, bool) or not isinstance(n, (int, float)) or n < 0 or \
                    n != int(n):
                raise ValueError(f"{where}: {name} is {v!r:.40}, not an int >= 0 (or a "
                                 f"one-element tensor holding one)")
            out[name] = step_tensor(int(n))
        elif kind == "number":
            n = _scalar(v)
            if isinstance(n, bool) or not isinstance(n, numbers.Real) or \
                    not math.isfinite(n):
                raise ValueError(f"{where}: {name} is {v!r:.40}, not a finite number")
            out[name] = step_tensor(n)
        elif not isinstance(v, _C.Tensor) or not v.is_floating_point() or \
                tuple(v.shape) != _state_shape(kind, p):
            got = (f"a {v.dtype.name} tensor of shape {tuple(v.shape)}"
                   if isinstance(v, _C.Tensor) else _a(type(v).__name__))
            shape = f"its parameter's shape {tuple(p.shape)}" if kind == "tensor" else \
                f"shape {_state_shape(kind, p)} (its parameter's, {kind} factor)"
            raise ValueError(f"{where}: {name} is {got}, not a floating-point tensor of "
                             f"{shape}")
        else:
            out[name] = v.detach().to(device=p.device, dtype=p.dtype, copy=True)
    return out


def _builtin(cls):
    """Whether cls is one of pydevtensor.optim's optimizers (not a user's subclass)."""
    return cls.__module__ == "pydevtensor.optim"


def _cast_state(value, p, name):
    """A copy of a state entry of a user's optimizer, as PyTorch loads it: a tensor
    onto p's device, a floating one in p's dtype when p is floating ('step' as it
    is); dicts, lists and tuples entry by entry; anything else deep-copied."""
    if isinstance(value, _C.Tensor):
        if name == "step":
            return value.detach().clone()
        if p.is_floating_point() and value.is_floating_point():
            return value.detach().to(device=p.device, dtype=p.dtype, copy=True)
        return value.detach().to(device=p.device, copy=True)
    if isinstance(value, dict):
        return {k: _cast_state(v, p, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_cast_state(v, p, name) for v in value)
    return copy.deepcopy(value)


def _a(noun):
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _scalar_dtype() -> _C.dtype:
    """The dtype of the 0-d state tensors (step counts, NAdam's mu_product, ASGD's eta
    and mu), as PyTorch's _get_scalar_dtype(): float64 while the default dtype is
    float64, float32 otherwise."""
    return _C.float64 if get_default_dtype() == _C.float64 else _C.float32


def _rounded(x: float) -> float:
    """x as a 0-d state tensor holds it (rounded to float32 unless _scalar_dtype() is
    float64), as a Python float."""
    if _scalar_dtype() == _C.float64:
        return float(x)
    return struct.unpack("f", struct.pack("f", x))[0]


def step_tensor(n: float) -> _C.Tensor:
    """A 0-d state number (a parameter's step count, ...) as PyTorch keeps it: a tensor
    of _scalar_dtype() on the CPU."""
    return _C.tensor(float(n), dtype=_scalar_dtype())


def _host_state(state: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
    """A parameter's state for an _update: its counts as ints and numbers as floats
    (read from their 0-d CPU tensors: nothing comes back from a device)."""
    return {k: (int(_scalar(v)) if kinds.get(k) == "count" else float(_scalar(v))
                if kinds.get(k) == "number" else v) for k, v in state.items()}


def _stored_state(state: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
    """The inverse of _host_state: counts and numbers as 0-d tensors (step_tensor)."""
    return {k: (step_tensor(v) if kinds.get(k) in ("count", "number") else v)
            for k, v in state.items()}


def _state_shape(kind: str, p: _C.Tensor) -> tuple:
    """A state tensor's shape: p's ('tensor'), with the last ('row') or second-to-last
    ('col') dim 1 (Adafactor's factored second moment)."""
    return tuple(1 if (kind, i - p.ndim) in (("row", -1), ("col", -2)) else n
                 for i, n in enumerate(p.shape))


def _scalar(v: Any) -> Any:
    """A one-element tensor's value (a Python number); anything else as it is."""
    if isinstance(v, _C.Tensor) and v.numel() == 1:
        return v.item()
    return v
