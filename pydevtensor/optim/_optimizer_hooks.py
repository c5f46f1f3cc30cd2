"""The hooks of an Optimizer, as PyTorch's (methods of Optimizer, defined here): ``register_step_pre_hook``,
``register_step_post_hook``, ``register_state_dict_pre_hook``,
``register_state_dict_post_hook``, ``register_load_state_dict_pre_hook`` and
``register_load_state_dict_post_hook``, each returning a RemovableHandle; and the wrapper
every optimizer class's ``step`` gets (Optimizer.__init_subclass__), which runs the step
hooks and records, for the learning-rate schedulers, that the optimizer has stepped."""
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


def hooked_step(step: Callable[..., Any]) -> Callable[..., Any]:
    """step, running the optimizer's step pre-hooks before it and post-hooks after it,
    and marking the optimizer as stepped (``_opt_called``) where a learning-rate
    scheduler watches it.  A subclass's step that calls ``super().step()`` runs the
    hooks once: the inner call goes straight through."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        state = self.__dict__
        if state.get("_in_step"):
            return step(self, *args, **kwargs)
        state["_in_step"] = True
        try:
            for hook in list(state.get("_step_pre_hooks", {}).values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            f"{type(self).__name__}.step(): a step pre-hook must return None "
                            f"or a tuple (new_args, new_kwargs), got {type(result).__name__}")
                    args, kwargs = result
            out = step(self, *args, **kwargs)
            if "_opt_called" in state:  # a scheduler watches: PyTorch's flag
                state["_opt_called"] = True
            for hook in list(state.get("_step_post_hooks", {}).values()):
                hook(self, args, kwargs)
            return out
        finally:
            state["_in_step"] = False
    wrapper._pdt_hooked = True
    return wrapper


# The registrars, methods of Optimizer (assigned in its class body).


def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)``, called before each ``step()``
    with step's arguments; returning ``(new_args, new_kwargs)`` replaces them.

    Parameters
    ----------
    hook : callable
        hook(optimizer, args, kwargs) -> None or (args, kwargs).

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> calls = []
    >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append('pre'))
    >>> opt.step()
    >>> handle.remove()
    >>> opt.step()
    >>> calls
    ['pre']
    """
    return _register(self, "_step_pre_hooks", hook, False, "register_step_pre_hook")

def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)``, called after each ``step()``.

    Parameters
    ----------
    hook : callable
        hook(optimizer, args, kwargs) -> None.

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> calls = []
    >>> handle = opt.register_step_post_hook(lambda o, args, kwargs: calls.append('post'))
    >>> opt.step()
    >>> calls
    ['post']
    """
    return _register(self, "_step_post_hooks", hook, False, "register_step_post_hook")

def register_state_dict_pre_hook(self, hook: Callable[..., Any],
                                 prepend: bool = False) -> RemovableHandle:
    """Registers ``hook(optimizer)``, called at the start of ``state_dict()``.

    Parameters
    ----------
    hook : callable
        hook(optimizer) -> None.
    prepend : bool, optional
        Run it before the hooks already registered (default False: after).

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> handle = opt.register_state_dict_pre_hook(lambda o: print('saving'))
    >>> _ = opt.state_dict()
    saving
    """
    return _register(self, "_state_dict_pre_hooks", hook, prepend,
                     "register_state_dict_pre_hook")

def register_state_dict_post_hook(self, hook: Callable[..., Any],
                                  prepend: bool = False) -> RemovableHandle:
    """Registers ``hook(optimizer, state_dict)``, called at the end of
    ``state_dict()``; a dict it returns replaces the state dict.

    Parameters
    ----------
    hook : callable
        hook(optimizer, state_dict) -> None or dict.
    prepend : bool, optional
        Run it before the hooks already registered (default False: after).

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> def tag(o, sd):
    ...     sd['note'] = 'run 1'
    >>> handle = opt.register_state_dict_post_hook(tag)
    >>> opt.state_dict()['note']
    'run 1'
    """
    return _register(self, "_state_dict_post_hooks", hook, prepend,
                     "register_state_dict_post_hook")

def register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                      prepend: bool = False) -> RemovableHandle:
    """Registers ``hook(optimizer, state_dict)``, called at the start of
    ``load_state_dict()``; a dict it returns is loaded instead.

    Parameters
    ----------
    hook : callable
        hook(optimizer, state_dict) -> None or dict.
    prepend : bool, optional
        Run it before the hooks already registered (default False: after).

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> sd = opt.state_dict()
    >>> handle = opt.register_load_state_dict_pre_hook(lambda o, sd: print('loading'))
    >>> opt.load_state_dict(sd)
    loading
    """
    return _register(self, "_load_state_dict_pre_hooks", hook, prepend,
                     "register_load_state_dict_pre_hook")

def register_load_state_dict_post_hook(self, hook: Callable[..., Any],
                                       prepend: bool = False) -> RemovableHandle:
    """Registers ``hook(optimizer)``, called at the end of ``load_state_dict()``.

    Parameters
    ----------
    hook : callable
        hook(optimizer) -> None.
    prepend : bool, optional
        Run it before the hooks already registered (default False: after).

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD([nn.Parameter(pydevtensor.ones(1))], lr=0.1)
    >>> sd = opt.state_dict()
    >>> handle = opt.register_load_state_dict_post_hook(lambda o: print('loaded'))
    >>> opt.load_state_dict(sd)
    loaded
    """
    return _register(self, "_load_state_dict_post_hooks", hook, prepend,
                     "register_load_state_dict_post_hook")
