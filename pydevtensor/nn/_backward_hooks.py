"""Module backward hooks (a mixin of nn.Module, in a file of its own):
register_full_backward_hook, ``hook(module, grad_input, grad_output)`` once the gradients
of a call's tensor inputs are known, and register_full_backward_pre_hook,
``hook(module, grad_output)`` before them, as PyTorch's.

Note [module backward hooks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A call of a module with such hooks passes its tensor outputs through an identity
autograd.Function whose backward runs the pre-hooks (a tuple one returns replaces
grad_output) and keeps grad_output, and its tensor inputs that require grad through
another whose backward calls the hooks with (grad_input, grad_output) and hands on what
a hook returns in place of grad_input.  When no input requires grad (the first layer),
the outputs' identity calls the hooks with grad_input all None.  A module keeps both
tables in one _Tables, under ``_backward_hooks``, which is false while both are empty:
a call looks up one attribute to know whether to attach anything.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import _C
from ..autograd.function import Function
from ..autograd.hooks import RemovableHandle, new_hooks
from ._module_hooks import add_hook


class _Tables:
    """A module's backward hooks: ``full`` and ``pre``, key -> hook in calling order."""

    def __init__(self):
        self.full, self.pre = new_hooks(), new_hooks()

    def __bool__(self):
        return bool(self.full or self.pre)

    def __getstate__(self):  # copy.deepcopy and pickle of a module: plain dicts
        return dict(self.full), dict(self.pre)

    def __setstate__(self, state):
        self.__init__()
        self.full.update(state[0])
        self.pre.update(state[1])


def _register(module, hook, which, where):
    if not callable(hook):
        raise TypeError(f"{where}(): hook must be callable, got {type(hook).__name__}")
    tables = module.__dict__.get("_backward_hooks")
    if tables is None:
        tables = _Tables()
        object.__setattr__(module, "_backward_hooks", tables)
    return add_hook(getattr(tables, which), hook)


class _BackwardHooksMixin:
    """nn.Module's backward hooks."""

    def register_full_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Calls ``hook(module, grad_input, grad_output)`` each time the gradients of a
        call's tensor inputs have been computed (as PyTorch's); grad_input holds one
        gradient per input that requires grad (``(None,)`` when none does), and a
        tuple the hook returns replaces it.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_input, grad_output) -> tuple or None``.

        Returns
        -------
        handle
            Its ``remove()`` unregisters the hook.

        Raises
        ------
        TypeError
            When hook is not callable.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 1)
        >>> h = lin.register_full_backward_hook(
        ...     lambda m, gi, go: print(type(m).__name__, [tuple(g.shape) for g in go]))
        >>> lin(pydevtensor.ones(3, 2)).sum().backward()
        Linear [(3, 1)]
        >>> h.remove()
        """
        return _register(self, hook, "full", "register_full_backward_hook")

    def register_full_backward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Calls ``hook(module, grad_output)`` each time the gradients of a call's
        outputs are known, before the gradients of its inputs are computed (as
        PyTorch's); a tuple the hook returns replaces grad_output for the rest of the
        backward pass.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_output) -> tuple or None``.

        Returns
        -------
        handle
            Its ``remove()`` unregisters the hook.

        Raises
        ------
        TypeError
            When hook is not callable.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 1)
        >>> x = pydevtensor.ones(3, 2, requires_grad=True)
        >>> h = lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
        >>> lin(x).sum().backward()
        >>> x.grad.abs().sum().item(), lin.weight.grad.abs().sum().item()
        (0.0, 0.0)
        >>> h.remove()
        """
        return _register(self, hook, "pre", "register_full_backward_pre_hook")


class _State:
    __slots__ = ("module", "hooks", "grad_output", "n_inputs", "slots", "metas")

    def __init__(self, module, hooks, n_inputs, slots=(), metas=()):
        self.module, self.hooks, self.n_inputs = module, hooks, n_inputs
        # grad_input has one entry per positional argument (PyTorch's: zeros for the
        # tensors that do not require grad, None for what is not a tensor; metas: the
        # tensors' shapes, dtypes and devices, None for the rest); slots[i] is where
        # the i-th input that requires grad sits among them
        self.slots, self.metas = slots, metas
        self.grad_output = None


def _call_hooks(state, grads):
    if not state.hooks.full:  # pre-hooks only
        return tuple(grads)
    # no input requires grad: all None (PyTorch's)
    grad_input = [None if not state.slots or m is None else
                  _C.zeros(m[0], dtype=m[1], device=m[2]) for m in state.metas]
    for slot, g in zip(state.slots, grads):
        grad_input[slot] = g
    grad_input = tuple(grad_input)
    for hook in tuple(state.hooks.full.values()):
        r = hook(state.module, grad_input, state.grad_output)
        if r is not None:
            r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
            if len(r) != len(grad_input):
                raise RuntimeError(f"backward hook of {type(state.module).__name__} returned "
                                   f"{len(r)} gradients for {len(grad_input)} inputs")
            grad_input = r
    return tuple(grad_input[slot] for slot in state.slots)


class _Identity(Function):
    """The tensors as they are (aliases, marked with the call's node); ctx.state is
    the call's _State."""
    _view_name = "BackwardHookFunction"  # PyTorch's name, in the in-place error

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.set_materialize_grads(False)  # an unused output's grad_output is None
        return tensors


class BackwardHookInputs(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(_call_hooks(ctx.state, grads))


class BackwardHookOutputs(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        for hook in tuple(state.hooks.pre.values()):
            r = hook(state.module, grads)
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grads):
                    raise RuntimeError(f"backward pre-hook of {type(state.module).__name__} "
                                       f"returned {len(r)} gradients for {len(grads)} outputs")
                grads = r
        state.grad_output = grads
        if state.n_inputs == 0:
            if state.hooks.full:  # PyTorch's warning: grad_input is all None
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. "
                              "See https://docs.pytorch.org/docs/main/generated/torch.nn."
                              "Module.html#torch.nn.Module.register_full_backward_hook for "
                              "more details.", UserWarning)
            _call_hooks(state, ())
        return (None,) + grads


def call_with_backward_hooks(module, hooks, args, kwargs, states=None):
    """module(*args, **kwargs) with its full backward hooks attached.  With states (a
    list: the module also has forward hooks), the call's state is appended and the
    outputs are left for mark_outputs, after the forward hooks."""
    args = list(args)
    wanted = [k for k, a in enumerate(args) if isinstance(a, _C.Tensor) and a.requires_grad]
    recording = _C.is_grad_enabled()
    # grad_input: one entry per positional argument (PyTorch's n_inputs = len(args)),
    # None for one that is not a tensor
    state = _State(module, hooks, len(wanted) if recording else 0, tuple(wanted),
                   tuple((tuple(a.shape), a.dtype, a.device) if isinstance(a, _C.Tensor)
                         else None for a in args))
    if wanted and recording:
        aliases = BackwardHookInputs.apply(state, *(args[k] for k in wanted))
        for k, t in zip(wanted, aliases):
            args[k] = t
    out = module.forward(*args, **kwargs)
    if not recording:
        return out
    if states is not None:
        states.append(state)
        return out
    return mark_outputs(state, out)


def mark_outputs(state, out):
    """out with its tensors passed through the identity whose backward keeps
    grad_output (and calls the hooks when no input requires grad)."""
    if not _C.is_grad_enabled():
        return out
    single = isinstance(out, _C.Tensor)
    outs = (out,) if single else out
    if not isinstance(outs, tuple) or not any(isinstance(o, _C.Tensor) and o.requires_grad
                                               for o in outs):
        return out
    marked = BackwardHookOutputs.apply(state, *outs)
    return marked[0] if single else marked
