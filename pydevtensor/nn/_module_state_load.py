"""load_state_dict's per-module steps (the checks of one module's entries, then their
writes), shared by its two paths: the all-or-nothing one, which checks every module
before writing any, and PyTorch's walk, which calls each module's _load_from_state_dict
(taken where a module of the tree overrides it)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .. import _C


def has_extra_state(m: Any, method: str) -> bool:
    """Whether m's class overrides Module's get_extra_state or set_extra_state."""
    from ._module_state import _StateMixin
    return getattr(type(m), method) is not getattr(_StateMixin, method)


def initialized(state_dict: Any) -> dict:
    """The entries of state_dict that are not uninitialized (what lazy layers read)."""
    from .parameter import is_uninitialized
    return {k: v for k, v in state_dict.items() if not is_uninitialized(v)}


def own_entries(m: Any) -> dict:
    """name -> (tensor, is_parameter) of m's own parameters and persistent buffers."""
    own = {n: (p, True) for n, p in m._parameters.items() if p is not None}
    own.update((n, (b, False)) for n, b in m._buffers.items()
               if b is not None and n not in m._non_persistent_buffers_set)
    return own


def check_entries(m: Any, prefix: str, own: dict, state_dict: Any, missing: list,
                  given: dict | None) -> list[str]:
    """What is wrong with m's entries of state_dict (nothing written): the messages,
    and m's keys that state_dict lacks appended to missing.  given: state_dict's
    initialized entries, for a lazy layer."""
    from .parameter import is_uninitialized as lazy
    problems = []
    for name, (t, is_param) in own.items():
        k = prefix + name
        if k not in state_dict:
            missing.append(k)
            continue
        v = state_dict[k]
        what = "parameter" if is_param else "buffer"
        if not isinstance(v, _C.Tensor):
            problems.append(f"'{k}' is a {type(v).__name__}, not a Tensor")
        elif lazy(t):
            continue  # its layer checks the shapes (nn.LazyLinear)
        elif lazy(v):
            problems.append(f"'{k}' is an uninitialized {what} (its lazy layer never "
                            f"ran), the {what} has shape {tuple(t.shape)}")
        elif tuple(v.shape) != tuple(t.shape):
            problems.append(f"size mismatch for '{k}': copying a tensor of shape "
                            f"{tuple(v.shape)}, the {what} has shape {tuple(t.shape)}")
    if has_extra_state(m, "set_extra_state") and prefix + "_extra_state" not in state_dict:
        missing.append(prefix + "_extra_state")
    if hasattr(m, "_lazy_load_check"):
        problems += m._lazy_load_check(prefix, given)
    return problems


def write_entries(m: Any, prefix: str, own: dict, state_dict: Any, given: dict | None,
                  assign: bool) -> None:
    """Writes m's entries of state_dict, checked by check_entries: copied into its
    parameters and buffers (counted as writes, their versions), or with assign put in
    their place; then its extra state.  A lazy layer first takes its shapes."""
    from .parameter import Parameter, is_uninitialized as lazy
    if hasattr(m, "_lazy_load"):
        m._lazy_load(prefix, given)
    for name, (t, is_param) in own.items():
        v = state_dict.get(prefix + name)
        if v is None or lazy(v):  # an uninitialized entry leaves a lazy layer so
            continue
        if assign:
            if is_param:  # the module's requires_grad, as PyTorch's (v's own changes)
                m._parameters[name] = v.requires_grad_(t.requires_grad) \
                    if isinstance(v, Parameter) else Parameter(v, requires_grad=t.requires_grad)
            else:
                m._buffers[name] = v
        elif not lazy(t):
            t.detach().copy_(v)  # a write to t (its version), as in PyTorch
    if has_extra_state(m, "set_extra_state") and prefix + "_extra_state" in state_dict:
        m.set_extra_state(state_dict[prefix + "_extra_state"])


def load_one(m: Any, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
             missing: list, unexpected: list, errors: list) -> None:
    """Module._load_from_state_dict: m's own entries, PyTorch's steps."""
    for hook in hooks_of(m, "_load_state_dict_pre_hooks"):
        hook(m, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
    if hasattr(m, "_old_checkpoint_entries"):  # BatchNorm's count, kept
        for k, v in m._old_checkpoint_entries(prefix, local_metadata.get("version")).items():
            state_dict.setdefault(k, v)
    own = own_entries(m)
    given = initialized(state_dict) if hasattr(m, "_lazy_load_check") else None
    lacking: list[str] = []
    problems = check_entries(m, prefix, own, state_dict, lacking, given)
    extra = prefix + "_extra_state"
    if strict:
        missing += lacking
        for k in state_dict:  # PyTorch's rule: a key under prefix that names nothing
            if not k.startswith(prefix) or k == extra:
                continue
            head, dot, _ = k[len(prefix):].partition(".")
            if head not in (m._modules if dot else own):
                unexpected.append(k)
        if extra in state_dict and not has_extra_state(m, "set_extra_state"):
            unexpected.append(extra)
    if problems:  # nothing of this module is written
        errors += problems
        return
    write_entries(m, prefix, own, state_dict, given,
                  bool(local_metadata.get("assign_to_params_buffers", False)))


def load_walk(root: Any, state_dict: Any, strict: bool, assign: bool) -> Any:
    """load_state_dict as PyTorch's: each module's _load_from_state_dict, on a copy of
    the entries under its prefix, then its children's, then its post-hooks; the
    errors raised at the end (what was loaded before stays loaded)."""
    from ._module_state import IncompatibleKeys, _run_post_hooks
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []

    def load(m: Any, local: Any, prefix: str, above: frozenset) -> None:
        meta = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
        if assign:
            meta["assign_to_params_buffers"] = True
        m._load_from_state_dict(local, prefix, meta, True, missing, unexpected, errors)
        inner = above | {id(m)}  # a module inside itself would never end
        for name, child in m._modules.items():
            if child is not None and id(child) not in inner:
                cp = f"{prefix}{name}."
                load(child, {k: v for k, v in local.items() if k.startswith(cp)}, cp, inner)
        _run_post_hooks([m], IncompatibleKeys(missing, unexpected))

    load(root, state_dict, "", frozenset())
    if strict:
        errors += [f"missing key '{k}'" for k in missing]
        errors += [f"unexpected key '{k}'" for k in unexpected]
    root._state_check(errors)
    return IncompatibleKeys(missing, unexpected)


def hooks_of(m: Any, table: str) -> tuple:
    hooks = m.__dict__.get(table)
    return tuple(hooks.values()) if hooks else ()
