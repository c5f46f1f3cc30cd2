"""Module forward hooks (a mixin of nn.Module, in a file of its own):
register_forward_pre_hook and register_forward_hook, as PyTorch's (with_kwargs,
prepend, always_call), and the call that runs them around forward().

Each module keeps PyTorch's tables (FORWARD_TABLES; made on first use, Module.__getattr__
makes an empty one that is read before):
``_forward_pre_hooks`` and ``_forward_hooks``, OrderedDicts of handle id -> the hook
itself in calling order, and the flags by the same id in ``_forward_pre_hooks_with_kwargs``,
``_forward_hooks_with_kwargs`` and ``_forward_hooks_always_called`` (id -> True).  User
code finds a hook by its class (``for k, hook in m._forward_pre_hooks.items()``) and
``del m._forward_pre_hooks[k]`` unregisters it; the RemovableHandle a registration returns
(its ``id`` is the key) removes the entry and its flags."""
from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..autograd.hooks import RemovableHandle


# A module's forward hook tables (PyTorch's names), each handle id -> hook or True.
FORWARD_TABLES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                  "_forward_hooks_with_kwargs", "_forward_hooks_always_called")


# Every table of a module (the state dict ones are _module_state.py's), made on first
# use: Module.__getattr__ makes an empty one when read first, so a module without hooks
# costs nothing (Module() stays as fast as before) and reads as PyTorch's.
HOOK_TABLES = FORWARD_TABLES + ("_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
                                "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                                "_load_state_dict_post_hooks")


def upgrade_hook_tables(state: dict) -> None:
    """A module's pickled __dict__ with PyTorch's hook tables: an earlier version's
    forward tables (key -> (hook, with_kwargs, always_call)) split into the hook and its
    flags, its backward _Tables into PyTorch's tables, plain dicts made OrderedDicts."""
    old = state.get("_backward_hooks")
    if hasattr(old, "legacy"):  # full and legacy hooks never both
        state["_backward_hooks"], state["_backward_pre_hooks"] = old.full or old.legacy, old.pre
        state["_is_full_backward_hook"] = bool(old.full) if old.full or old.legacy else None
    for table in HOOK_TABLES:
        if table in state and not isinstance(state[table], OrderedDict):
            state[table] = OrderedDict(state[table])
    for table in ("_forward_pre_hooks", "_forward_hooks"):
        for key, entry in list(state.get(table, {}).items()):
            if isinstance(entry, tuple):  # a hook is callable, never a tuple
                state[table][key], with_kwargs, always_call = entry
                for flag, on in (("_with_kwargs", with_kwargs),
                                 ("_always_called", always_call)):
                    if on:
                        state.setdefault(table + flag, OrderedDict())[key] = True


# The hooks of every module (_global_hooks.py): PyTorch's tables of
# torch.nn.modules.module, handle id -> hook (or a flag), which
# pydevtensor.nn.modules.module holds under these names too.
GLOBAL = {name: OrderedDict() for name in (
    "_global_forward_pre_hooks", "_global_forward_hooks", "_global_forward_hooks_with_kwargs",
    "_global_forward_hooks_always_called", "_global_backward_pre_hooks",
    "_global_backward_hooks", "_global_buffer_registration_hooks",
    "_global_parameter_registration_hooks", "_global_module_registration_hooks")}

# Those of every module's call, which Module.__call__ checks (any_global).
GLOBAL_CALL = tuple(GLOBAL[f"_global_{kind}_hooks"]
                    for kind in ("forward_pre", "forward", "backward", "backward_pre"))


def any_global() -> bool:
    """Whether there are hooks of every module's call."""
    forward_pre, forward, backward, backward_pre = GLOBAL_CALL
    return bool(forward_pre or forward or backward or backward_pre)


# The registration hooks of every module: 'buffer', 'parameter' and 'module', each
# id -> hook(module, name, value), run by register_buffer, register_parameter,
# add_module and an assignment that registers.
REGISTRATION = {kind: GLOBAL[f"_global_{kind}_registration_hooks"]
                for kind in ("buffer", "parameter", "module")}


def registered(kind: str, module: Any, name: str, value: Any) -> Any:
    """value as the registration hooks of kind leave it (a hook's result that is not None
    replaces it, as PyTorch's)."""
    for hook in tuple(REGISTRATION[kind].values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def global_entries(table: str) -> list:
    """[(hook, with_kwargs, always_call)] of every module's forward hooks (table
    "_global_forward_hooks") or pre-hooks (table "_global_forward_pre_hooks")."""
    return _entries(GLOBAL[table], GLOBAL.get(table + "_with_kwargs"),
                    GLOBAL.get(table + "_always_called"))


def hook_table(module: Any, table: str, hook: Any = None, where: str = "") -> Any:
    """The module's hook table named table, an OrderedDict as PyTorch's (made on first
    use), once hook (when where names the registration) is known to be callable."""
    if where and not callable(hook):
        raise TypeError(f"{where}(): hook must be callable, got {type(hook).__name__}")
    hooks = module.__dict__.get(table)
    if hooks is None:
        hooks = OrderedDict()
        object.__setattr__(module, table, hooks)
    return hooks


# The Returns and Raises sections every hook registration's docstring shares
# (returns_handle puts them in place of a line "{handle}").
_HANDLE_SECTIONS = ("Returns", "-------", "handle", "    Its ``remove()`` unregisters the hook.",
                    "", "Raises", "------", "TypeError", "    When hook is not callable.")


def returns_handle(f: Any) -> Any:
    """f, the line ``{handle}`` of its docstring replaced by _HANDLE_SECTIONS at that
    line's indentation (a hook registration: it returns a handle and refuses a hook
    that is not callable); a Raises entry of its own may follow the line."""
    if f.__doc__:  # none under python -OO
        lines = f.__doc__.split("\n")
        i = [line.strip() for line in lines].index("{handle}")
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        lines[i:i + 1] = [indent + line if line else line for line in _HANDLE_SECTIONS]
        f.__doc__ = "\n".join(lines)
    return f


def add_hook(hooks: Any, entry: Any, prepend: bool = False,
             flags: tuple = ()) -> RemovableHandle:
    """entry put in a hook table under the id of the handle that removes it (PyTorch's
    key), last (or first); flags: (table, on) pairs, each table given True under that
    id when on, all of them cleared by the handle's remove()."""
    handle = RemovableHandle(hooks, extra_dict=[table for table, _ in flags])
    hooks[handle.id] = entry
    for table, on in flags:
        if on:
            table[handle.id] = True
    if prepend:
        if isinstance(hooks, OrderedDict):
            hooks.move_to_end(handle.id, last=False)
        else:  # a plain dict keeps insertion order: rebuild it with the new entry first
            rest = {k: v for k, v in hooks.items() if k != handle.id}
            hooks.clear()
            hooks[handle.id] = entry
            hooks.update(rest)
    return handle


def _register(module: Any, table: str, hook: Callable[..., Any], prepend: bool,
              flags: dict, where: str) -> RemovableHandle:
    hooks = hook_table(module, table, hook, where)
    return add_hook(hooks, hook, prepend,
                    tuple((hook_table(module, f"{table}_{flag}"), bool(on))
                          for flag, on in flags.items()))


def forward_entries(module: Any, table: str) -> list:
    """[(hook, with_kwargs, always_call)] of the module's forward (pre-)hooks, in calling
    order (table: "_forward_pre_hooks" or "_forward_hooks")."""
    d = module.__dict__
    return _entries(d.get(table), d.get(table + "_with_kwargs"),
                    d.get(table + "_always_called"))


def _entries(hooks: Any, kwargs: Any, always: Any) -> list:
    if not hooks:
        return []
    kwargs, always = kwargs or {}, always or {}
    return [(hook, k in kwargs, k in always) for k, hook in hooks.items()]


class _ForwardHooksMixin:
    """nn.Module's forward hooks."""

    @returns_handle
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Calls ``hook(module, args)`` before each forward(); a value it returns
        (not None) replaces args (a single value is wrapped in a tuple).  With
        with_kwargs, ``hook(module, args, kwargs)`` returns None or ``(args, kwargs)``.

        Parameters
        ----------
        hook : callable
            The hook.
        prepend : bool, optional
            Run it before the hooks already registered (default: after them).
        with_kwargs : bool, optional
            Pass the keyword arguments too (default False).

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 1)
        >>> h = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
        >>> bool((lin(pydevtensor.ones(1, 2)) == lin.bias).all())
        True
        >>> h.remove()
        """
        return _register(self, "_forward_pre_hooks", hook, prepend,
                         {"with_kwargs": with_kwargs}, "register_forward_pre_hook")

    @returns_handle
    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Calls ``hook(module, args, output)`` after each forward(); a value it
        returns (not None) replaces the output.  With with_kwargs, ``hook(module, args,
        kwargs, output)``.

        Parameters
        ----------
        hook : callable
            The hook.
        prepend : bool, optional
            Run it before the hooks already registered (default: after them).
        with_kwargs : bool, optional
            Pass the keyword arguments too (default False).
        always_call : bool, optional
            Call it (with output None) even when forward() raises (default False).

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        >>> feats = {}
        >>> h = net[0].register_forward_hook(lambda m, args, out: feats.update(out=out))
        >>> _ = net(pydevtensor.ones(4, 2))
        >>> tuple(feats['out'].shape)
        (4, 3)
        >>> h.remove()
        """
        return _register(self, "_forward_hooks", hook, prepend,
                         {"with_kwargs": with_kwargs, "always_called": always_call},
                         "register_forward_hook")


def call_with_forward_hooks(module: Any, forward: Callable[..., Any], args: tuple,
                            kwargs: dict) -> Any:
    """forward(*args, **kwargs) with the module's forward pre-hooks before it and its
    forward hooks after it, PyTorch's rules."""
    pre = forward_entries(module, "_forward_pre_hooks")
    post = forward_entries(module, "_forward_hooks")
    if any_global():  # every module's hooks first, as PyTorch's
        pre = global_entries("_global_forward_pre_hooks") + pre
        post = global_entries("_global_forward_hooks") + post
    called = 0
    try:  # the always_call hooks run after an error in a pre-hook too, as PyTorch's
        for hook, with_kwargs, _ in pre:
            if with_kwargs:
                res = hook(module, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple "
                                           f"of (new_args, new_kwargs), but got {res!r:.80}.")
                    args, kwargs = res
            else:
                res = hook(module, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        result = forward(*args, **kwargs)
        for hook, with_kwargs, _ in post:
            called += 1
            res = hook(module, args, kwargs, result) if with_kwargs else \
                hook(module, args, result)
            if res is not None:
                result = res
        return result
    except Exception:
        for hook, with_kwargs, always in post[called:]:
            if always:  # PyTorch's: its own errors only warn, the first error is raised
                try:
                    if with_kwargs:
                        hook(module, args, kwargs, None)
                    else:
                        hook(module, args, None)
                except Exception as e:  # noqa: BLE001
                    warnings.warn(f"forward hook with always_call=True raised an exception "
                                  f"that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=3)
        raise


def call_hooked(module: Any, args: tuple, kwargs: dict) -> Any:
    """Module.__call__ when there are forward hooks (the module's or every module's):
    PyTorch's order: pre-hooks, the inputs marked, forward, forward hooks, then the
    (possibly replaced) outputs marked for the backward hooks."""
    from ._backward_hooks import own_tables
    backward = own_tables(module)
    if any_global():
        from ._global_hooks import backward_tables
        backward = backward_tables(module)
    if not backward:
        return call_with_forward_hooks(module, module._call_forward, args, kwargs)
    from ._backward_hooks import mark_outputs
    states: list = []
    result = call_with_forward_hooks(
        module, lambda *a, **k: module._call_forward(*a, _pdt_states=states,
                                                     _pdt_backward=backward, **k),
        args, kwargs)
    return mark_outputs(states[-1], result) if states else result
