"""The hooks of every module's call, as PyTorch's torch.nn.modules.module has them:
register_module_forward_pre_hook, register_module_forward_hook,
register_module_full_backward_pre_hook and register_module_full_backward_hook, and
the registration hooks register_module_buffer_registration_hook,
register_module_parameter_registration_hook and register_module_module_registration_hook
(pydevtensor.nn.modules.module re-exports them).

They live in PyTorch's tables (GLOBAL in _module_hooks.py; pydevtensor.nn.modules.module
holds them under PyTorch's names: _global_forward_hooks, ...), handle id -> hook, the
flags by id in _global_forward_hooks_with_kwargs and _global_forward_hooks_always_called;
a module's call with any runs them before its own hooks of the same kind, as PyTorch's."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.hooks import RemovableHandle
from ._module_hooks import GLOBAL, REGISTRATION, add_hook, returns_handle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]


def _add(kind, hook, where, **flags):
    if not callable(hook):
        raise TypeError(f"{where}(): hook must be callable, got {type(hook).__name__}")
    table = f"_global_{kind}_hooks"
    return add_hook(GLOBAL[table], hook, flags=tuple((GLOBAL[f"{table}_{flag}"], bool(on))
                                                      for flag, on in flags.items()))


@returns_handle
def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Calls ``hook(module, args)`` before the forward of every module's call (before
    the module's own pre-hooks), as PyTorch's; a value it returns replaces args (a
    tuple, or one value that becomes a one-tuple).  For debugging and profiling: every
    call of every module runs it.

    Parameters
    ----------
    hook : callable
        ``hook(module, args) -> None or new args``.

    {handle}

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.modules.module import register_module_forward_pre_hook
    >>> h = register_module_forward_pre_hook(lambda m, args: print(type(m).__name__))
    >>> _ = nn.Sequential(nn.ReLU())(pydevtensor.ones(1))
    Sequential
    ReLU
    >>> h.remove()
    """
    return _add("forward_pre", hook, "register_module_forward_pre_hook")


@returns_handle
def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Calls ``hook(module, args, output)`` after the forward of every module's call
    (before the module's own forward hooks), as PyTorch's; a value it returns replaces
    the output.

    Parameters
    ----------
    hook : callable
        ``hook(module, args, output)``, or ``hook(module, args, kwargs, output)`` with
        with_kwargs.
    with_kwargs : bool, optional
        Pass the call's keyword arguments too (default False).
    always_call : bool, optional
        Call it (with output None) also when forward raises (default False).

    {handle}

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.modules.module import register_module_forward_hook
    >>> h = register_module_forward_hook(lambda m, args, out: out * 10)
    >>> nn.Identity()(pydevtensor.ones(2))
    tensor([10., 10.])
    >>> h.remove()
    """
    return _add("forward", hook, "register_module_forward_hook", with_kwargs=with_kwargs,
                always_called=always_call)


@returns_handle
def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Calls ``hook(module, grad_input, grad_output)`` in the backward of every module's
    call, as a full backward hook of each module (Module.register_full_backward_hook),
    before the module's own; a tuple it returns replaces grad_input.

    Parameters
    ----------
    hook : callable
        ``hook(module, grad_input, grad_output) -> tuple or None``.

    {handle}

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.modules.module import register_module_full_backward_hook
    >>> x = pydevtensor.ones(1, 2, requires_grad=True)
    >>> h = register_module_full_backward_hook(lambda m, gi, go: print(type(m).__name__))
    >>> nn.Linear(2, 1)(x).sum().backward()
    Linear
    >>> h.remove()
    """
    return _add("backward", hook, "register_module_full_backward_hook")


@returns_handle
def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Calls ``hook(module, grad_output)`` in the backward of every module's call, as
    a full backward pre-hook of each module (Module.register_full_backward_pre_hook),
    before the module's own, as PyTorch's; a tuple it returns replaces grad_output.

    Parameters
    ----------
    hook : callable
        ``hook(module, grad_output) -> tuple or None``.

    {handle}

    Examples
    --------
    >>> from pydevtensor.nn.modules import module
    >>> zeroing = module.register_module_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    >>> x = pydevtensor.ones(3, requires_grad=True)
    >>> pydevtensor.nn.Tanh()(x).sum().backward()
    >>> x.grad
    tensor([0., 0., 0.])
    >>> zeroing.remove()
    """
    return _add("backward_pre", hook, "register_module_full_backward_pre_hook")


def backward_tables(module: Any) -> Any:
    """module's backward hook tables (its _Tables, or None), with the global full
    backward hooks and pre-hooks put before its own."""
    from ._backward_hooks import _Tables, own_tables
    own = own_tables(module)
    hooks = list(GLOBAL["_global_backward_hooks"].values())
    pre_hooks = list(GLOBAL["_global_backward_pre_hooks"].values())
    if not (hooks or pre_hooks):
        return own
    merged = _Tables()
    for hook in hooks:
        add_hook(merged.full, hook)
    for hook in pre_hooks:
        add_hook(merged.pre, hook)
    if own is not None:
        for table, mine in ((merged.full, own.full), (merged.pre, own.pre),
                            (merged.legacy, own.legacy)):
            for hook in mine.values():
                add_hook(table, hook)
    return merged


_REGISTRATION_DOC = """Calls ``hook(module, name, {value})`` each time a module registers a {kind}:
    {calls}, as PyTorch's.  A value the hook returns is registered in place
    of {value}.

    Parameters
    ----------
    hook : callable
        ``hook(module, name, {value}) -> None or new {value}``.

    {{handle}}

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.modules import module
    >>> h = module.{name}(
    ...     {example_hook})
    >>> {example}
    >>> h.remove()
    """


def _registration_hook(kind: str, value: str, calls: str, example_hook: str,
                       example: str) -> Callable[..., RemovableHandle]:
    name = f"register_module_{kind}_registration_hook"

    def register(hook: Callable[..., Any]) -> RemovableHandle:
        if not callable(hook):
            raise TypeError(f"{name}(): hook must be callable, got {type(hook).__name__}")
        return add_hook(REGISTRATION[kind], hook)

    register.__name__ = register.__qualname__ = name
    register.__module__ = __name__
    register.__doc__ = _REGISTRATION_DOC.format(kind=kind, value=value, calls=calls,
                                                name=name, example_hook=example_hook,
                                                example=example)
    return returns_handle(register)


register_module_buffer_registration_hook = _registration_hook(
    "buffer", "buffer", "register_buffer, or an assignment that registers one",
    "lambda m, name, t: t * 0",
    "m = nn.Module()\n    >>> m.register_buffer('b', pydevtensor.ones(2))\n    >>> m.b\n"
    "    tensor([0., 0.])")
register_module_parameter_registration_hook = _registration_hook(
    "parameter", "param", "register_parameter, or assigning an nn.Parameter",
    "lambda m, name, p: print(type(m).__name__, name)",
    "lin = nn.Linear(2, 1)\n    Linear weight\n    Linear bias")
register_module_module_registration_hook = _registration_hook(
    "module", "submodule", "add_module, register_module, or assigning a Module",
    "lambda m, name, sub: nn.Identity()",
    "m = nn.Module()\n    >>> m.act = nn.ReLU()\n    >>> m.act\n    Identity()")
