"""The hooks of an Optimizer, as PyTorch's (methods of Optimizer, defined here):
``register_step_pre_hook``, ``register_step_post_hook``, ``register_state_dict_pre_hook``,
``register_state_dict_post_hook``, ``register_load_state_dict_pre_hook`` and
``register_load_state_dict_post_hook``, each returning a RemovableHandle; the step hooks of
every optimizer, ``register_optimizer_step_pre_hook`` and
``register_optimizer_step_post_hook`` (re-exported by pydevtensor.optim.optimizer, where
PyTorch has them); and the wrapper every optimizer class's ``step`` gets
(Optimizer.__init_subclass__), which runs the step hooks and records, for the
learning-rate schedulers, that the optimizer has stepped."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..autograd.hooks import RemovableHandle, new_hooks

def _table(optimizer, name):
    """The optimizer's hook table called name (made on first use: an optimizer made
    by __new__, as a replica is, has none yet)."""
    table = optimizer.__dict__.get(name)
    if table is None:
        table = optimizer.__dict__[name] = new_hooks()
    return table


def _register(optimizer, name, hook, prepend, where):
    if not callable(hook):
        raise TypeError(f"{type(optimizer).__name__}.{where}(): the hook must be callable, "
                        f"got {type(hook).__name__}")
    table = _table(optimizer, name)
    handle = RemovableHandle(table, object())
    if prepend:  # the table is the dict the handle points at: reorder it in place
        rest = list(table.items())
        table.clear()
        table[handle._key] = hook
        table.update(rest)
    else:
        table[handle._key] = hook
    return handle


def run_hooks(optimizer, name):
    """Calls the hooks of table name with (optimizer), in order."""
    for hook in list(optimizer.__dict__.get(name, {}).values()):
        hook(optimizer)


def chain_hooks(optimizer, name, state_dict):
    """Calls the hooks of table name with (optimizer, state_dict), in order, each
    getting the state dict the last one returned (if not None); the last."""
    for hook in list(optimizer.__dict__.get(name, {}).values()):
        changed = hook(optimizer, state_dict)
        if changed is not None:
            state_dict = changed
    return state_dict


# The hooks of every optimizer (register_optimizer_step_pre_hook and
# register_optimizer_step_post_hook): the pre-hooks run before each optimizer's own,
# the post-hooks after, as PyTorch's.
_global_pre_hooks = new_hooks()
_global_post_hooks = new_hooks()


def hooked_step(step: Callable[..., Any]) -> Callable[..., Any]:
    """step, running the step pre-hooks (every optimizer's, then this one's) before it
    and the post-hooks (this one's, then every optimizer's) after it, and marking the
    optimizer as stepped (``_opt_called``) where a learning-rate scheduler watches
    it.  The hooks get ``hook(optimizer, args, kwargs)`` with args the arguments of
    the call to the method, the optimizer first, as PyTorch's: ``opt.step()`` gives
    ``args == (opt,)``; a pre-hook's ``(new_args, new_kwargs)`` replaces them (the
    optimizer still first).  A subclass's step that calls ``super().step()`` runs the
    hooks once: the inner call goes straight through."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        state = self.__dict__
        if state.get("_in_step"):
            return step(self, *args, **kwargs)
        state["_in_step"] = True
        args = (self, *args)
        try:
            for hook in [*_global_pre_hooks.values(),
                         *state.get("_step_pre_hooks", {}).values()]:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            f"{type(self).__name__}.step(): a step pre-hook must return None "
                            f"or a tuple (new_args, new_kwargs), got {type(result).__name__}")
                    args, kwargs = result
            if state.get("_repeated"):  # a parameter twice in a group
                out = self._step_each_place(step, args, kwargs)
            else:
                out = step(*args, **kwargs)
            if "_opt_called" in state:  # a scheduler watches: PyTorch's flag
                state["_opt_called"] = True
            for hook in [*state.get("_step_post_hooks", {}).values(),
                         *_global_post_hooks.values()]:
                hook(self, args, kwargs)
            return out
        finally:
            state["_in_step"] = False
    wrapper._pdt_hooked = True
    return wrapper


def _register_global(table, hook, where):
    if not callable(hook):
        raise TypeError(f"{where}(): the hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(table, object())
    table[handle._key] = hook
    return handle


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)``, called before the ``step()`` of
    every optimizer (before the optimizer's own pre-hooks), as PyTorch's
    ``torch.optim.optimizer.register_optimizer_step_pre_hook``.

    Parameters
    ----------
    hook : callable
        hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs); args are
        step's arguments, the optimizer first.

    Returns
    -------
    RemovableHandle
        To unregister the hook: ``remove()`` it, or leave its ``with`` block.

    Raises
    ------
    TypeError
        For a hook that is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> from pydevtensor.optim.optimizer import register_optimizer_step_pre_hook
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> def show(o, args, kwargs):
    ...     print(type(o).__name__, args[0] is o, kwargs)
    >>> with register_optimizer_step_pre_hook(show):
    ...     opt.step()
    SGD True {}
    >>> opt.step()
    """
    return _register_global(_global_pre_hooks, hook, "register_optimizer_step_pre_hook")


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)``, called after the ``step()`` of
    every optimizer (after the optimizer's own post-hooks), as PyTorch's
    ``torch.optim.optimizer.register_optimizer_step_post_hook``.

    Parameters
    ----------
    hook : callable
        hook(optimizer, args, kwargs) -> None; args are step's arguments, the
        optimizer first.

    Returns
    -------
    RemovableHandle
        To unregister the hook: ``remove()`` it, or leave its ``with`` block.

    Raises
    ------
    TypeError
        For a hook that is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> from pydevtensor.optim.optimizer import register_optimizer_step_post_hook
    >>> opt = optim.Adam([nn.Parameter(pydevtensor.ones(1))])
    >>> handle = register_optimizer_step_post_hook(lambda o, a, k: print('stepped', a[1:], k))
    >>> opt.step(closure=None)
    stepped () {'closure': None}
    >>> handle.remove()
    """
    return _register_global(_global_post_hooks, hook, "register_optimizer_step_post_hook")


# The registrars, methods of Optimizer (assigned in its class body), made by
# _registrar from their summaries and examples.

_HANDLE = """
Returns
-------
RemovableHandle
    To unregister the hook: ``remove()`` it, or leave its ``with`` block.

Raises
------
TypeError
    For a hook that is not callable (the message names the optimizer).

Examples
--------
>>> from pydevtensor import nn, optim
>>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
"""

_PREPEND = """
prepend : bool, optional
    Run it before the hooks already registered (default False: after)."""


def _registrar(name, table, summary, hook, example, prepend=True):
    """The method name of Optimizer registering into table (see the module's
    docstring): summary, the hook's signature and an example go into its docstring."""
    if prepend:
        def register(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
            return _register(self, table, hook, prepend, name)
    else:
        def register(self, hook: Callable[..., Any]) -> RemovableHandle:
            return _register(self, table, hook, False, name)
    register.__name__ = name
    register.__qualname__ = f"Optimizer.{name}"
    register.__doc__ = (f"{summary}\n\nParameters\n----------\nhook : callable\n    {hook}" +
                        (_PREPEND if prepend else "") + "\n" + _HANDLE + example)
    return register


register_step_pre_hook = _registrar(
    "register_step_pre_hook", "_step_pre_hooks",
    "Registers ``hook(optimizer, args, kwargs)``, called before each ``step()``\nwith "
    "step's arguments, the optimizer first (``args == (optimizer,)`` for\n``step()``), "
    "as PyTorch's; returning ``(new_args, new_kwargs)`` replaces them.",
    "hook(optimizer, args, kwargs) -> None or (args, kwargs).", """\
>>> calls = []
>>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append('pre'))
>>> opt.step()
>>> handle.remove()
>>> opt.step()
>>> calls
['pre']
""", prepend=False)

register_step_post_hook = _registrar(
    "register_step_post_hook", "_step_post_hooks",
    "Registers ``hook(optimizer, args, kwargs)``, called after each ``step()``.",
    "hook(optimizer, args, kwargs) -> None.", """\
>>> w = opt.param_groups[0]['params'][0]
>>> w.grad = pydevtensor.ones(1)
>>> h = opt.register_step_post_hook(lambda o, a, k: print('w is now', w.item()))
>>> opt.step()
w is now 0.8999999761581421
""", prepend=False)

register_state_dict_pre_hook = _registrar(
    "register_state_dict_pre_hook", "_state_dict_pre_hooks",
    "Registers ``hook(optimizer)``, called at the start of ``state_dict()``.",
    "hook(optimizer) -> None.", """\
>>> handle = opt.register_state_dict_pre_hook(lambda o: print('saving'))
>>> _ = opt.state_dict()
saving
""")

register_state_dict_post_hook = _registrar(
    "register_state_dict_post_hook", "_state_dict_post_hooks",
    "Registers ``hook(optimizer, state_dict)``, called at the end of\n``state_dict()``; a "
    "dict it returns replaces the state dict.",
    "hook(optimizer, state_dict) -> None or dict.", """\
>>> def tag(o, sd):
...     sd['note'] = 'run 1'
>>> handle = opt.register_state_dict_post_hook(tag)
>>> opt.state_dict()['note']
'run 1'
""")

register_load_state_dict_pre_hook = _registrar(
    "register_load_state_dict_pre_hook", "_load_state_dict_pre_hooks",
    "Registers ``hook(optimizer, state_dict)``, called at the start of\n"
    "``load_state_dict()``; a dict it returns is loaded instead.",
    "hook(optimizer, state_dict) -> None or dict.", """\
>>> sd = opt.state_dict()
>>> handle = opt.register_load_state_dict_pre_hook(lambda o, sd: print('loading'))
>>> opt.load_state_dict(sd)
loading
""")

register_load_state_dict_post_hook = _registrar(
    "register_load_state_dict_post_hook", "_load_state_dict_post_hooks",
    "Registers ``hook(optimizer)``, called at the end of ``load_state_dict()``.",
    "hook(optimizer) -> None.", """\
>>> def report(o):
...     print('lr now', o.param_groups[0]['lr'])
>>> with opt.register_load_state_dict_post_hook(report):
...     opt.load_state_dict(optim.SGD(opt.param_groups[0]['params'], lr=0.5).state_dict())
lr now 0.5
""")
