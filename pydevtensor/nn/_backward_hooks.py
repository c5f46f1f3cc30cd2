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
the outputs' identity calls the hooks with grad_input all None.  A module keeps
PyTorch's tables (made on first use): ``_backward_hooks``, an OrderedDict of handle
id -> hook holding the full backward hooks or register_backward_hook's (which kind:
``_is_full_backward_hook``, True, False or None before any), and ``_backward_pre_hooks``;
a call sees them through a _Tables (own_tables), None while both are empty.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import _C
from ..autograd.function import Function
from ..autograd.hooks import RemovableHandle, add_node_hook, new_hooks, replaced
from ._module_hooks import add_hook, hook_table, returns_handle


class _Tables:
    """The backward hooks a call runs: ``full``, ``pre`` and ``legacy``
    (register_backward_hook's), key -> hook in calling order (the module's own tables
    themselves, or merged with every module's hooks)."""

    def __init__(self, full=None, pre=None, legacy=None):
        self.full, self.pre, self.legacy = (new_hooks() if t is None else t
                                            for t in (full, pre, legacy))

    def __bool__(self):
        return bool(self.full or self.pre or self.legacy)

    def __getstate__(self):  # an earlier version pickled this under _backward_hooks
        return dict(self.full), dict(self.pre), dict(self.legacy)

    def __setstate__(self, state):
        self.__init__(*(dict(saved) for saved in state))


def own_tables(module):
    """The module's backward hooks as a _Tables (PyTorch's tables, not copies), or None
    while it has none."""
    d = module.__dict__
    hooks, pre = d.get("_backward_hooks"), d.get("_backward_pre_hooks")
    if not (hooks or pre):
        return None
    full = d.get("_is_full_backward_hook") is not False
    return _Tables(hooks if full else None, pre, None if full else hooks)


_BOTH = ("Cannot use both regular backward hooks and full backward hooks on a single "
         "Module. Please use only one of them.")


def _register(module, hook, which, where, prepend=False):
    if not callable(hook):
        raise TypeError(f"{where}(): hook must be callable, got {type(hook).__name__}")
    if which == "pre":
        return add_hook(hook_table(module, "_backward_pre_hooks"), hook, bool(prepend))
    hooks = hook_table(module, "_backward_hooks")
    full = which == "full"
    if hooks and module.__dict__.get("_is_full_backward_hook") is (not full):
        raise RuntimeError(f"{where}(): {_BOTH}")  # PyTorch's
    object.__setattr__(module, "_is_full_backward_hook", full)
    return add_hook(hooks, hook, bool(prepend))


class _BackwardHooksMixin:
    """nn.Module's backward hooks."""

    @returns_handle
    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(module, grad_input, grad_output)`` each time the gradients of a
        call's tensor inputs have been computed (as PyTorch's); grad_input holds one
        gradient per input that requires grad (``(None,)`` when none does), and a
        tuple the hook returns replaces it.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_input, grad_output) -> tuple or None``.
        prepend : bool, optional
            Run it before the module's other full backward hooks (default False: after).

        {handle}

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
        return _register(self, hook, "full", "register_full_backward_hook", prepend)

    @returns_handle
    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(module, grad_output)`` each time the gradients of a call's
        outputs are known, before the gradients of its inputs are computed (as
        PyTorch's); a tuple the hook returns replaces grad_output for the rest of the
        backward pass.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_output) -> tuple or None``.
        prepend : bool, optional
            Run it before the module's other backward pre-hooks (default False: after).

        {handle}

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
        return _register(self, hook, "pre", "register_full_backward_pre_hook", prepend)

    @returns_handle
    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """PyTorch's deprecated backward hook: ``hook(module, grad_input, grad_output)``
        runs after the backward of the last autograd node of each call (the grad_fn of
        its first output tensor), with that node's gradients, as PyTorch's: grad_input
        is then the gradients of that node's inputs (for a Linear, those of its bias, its
        input and its transposed weight), not necessarily the module's.  A call warns
        PyTorch's FutureWarning when the module is more than that one node.  Use
        register_full_backward_hook instead.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_input, grad_output) -> tuple or None`` (a tuple replaces
            grad_input).

        {handle}
        RuntimeError
            When the module has full backward hooks (PyTorch's: not both kinds).

        Examples
        --------
        >>> import warnings
        >>> from pydevtensor import nn
        >>> relu = nn.ReLU()
        >>> h = relu.register_backward_hook(
        ...     lambda m, gi, go: print([tuple(g.shape) for g in gi + go]))
        >>> x = pydevtensor.ones(3, requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     relu(x).sum().backward()
        [(3,), (3,)]
        >>> h.remove()
        """
        return _register(self, hook, "legacy", "register_backward_hook")


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
    if not state.hooks.full or state.grad_output is None:
        # pre-hooks only; or the gradient reached the inputs without passing through
        # the outputs' identity (outputs in a dict, a double backward): PyTorch's
        # skips the hooks then
        return tuple(grads)
    # no input requires grad: all None (PyTorch's)
    grad_input = [None if not state.slots or m is None else
                  _C.zeros(m[0], dtype=m[1], device=m[2]) for m in state.metas]
    for slot, g in zip(state.slots, grads):
        grad_input[slot] = g
    grad_input = tuple(grad_input)
    for hook in tuple(state.hooks.full.values()):
        grad_input = replaced(hook(state.module, grad_input, state.grad_output), grad_input,
                              f"backward hook of {type(state.module).__name__}", "inputs")
    state.grad_output = None  # used once: a double backward reaching the inputs skips them
    return tuple(grad_input[slot] for slot in state.slots)


class _Identity(Function):
    """The tensors as they are (aliases, marked with the call's node); ctx.state is
    the call's _State."""
    _view_name = "BackwardHookFunction"  # PyTorch's name, in the in-place error

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.set_materialize_grads(False)  # an unused output's grad_output is None
        # an output that did not require grad still does not (PyTorch's), its
        # grad_output None
        ctx.mark_non_differentiable(*(t for t in tensors if not t.requires_grad))
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
            grads = replaced(hook(state.module, grads), grads,
                             f"backward pre-hook of {type(state.module).__name__}", "outputs")
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
    recording = _C.is_grad_enabled()
    if not (hooks.full or hooks.pre):  # register_backward_hook's only
        state = _State(module, hooks, 0, metas=args)  # metas: the inputs, for the warning
        out = module.forward(*args, **kwargs)
        if states is not None and recording:
            states.append(state)
            return out
        return mark_outputs(state, out)
    args = list(args)
    wanted = [k for k, a in enumerate(args) if isinstance(a, _C.Tensor) and a.requires_grad]
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
    if (state.hooks.full or state.hooks.pre) and isinstance(outs, tuple) and any(
            isinstance(o, _C.Tensor) and o.requires_grad for o in outs):
        marked = BackwardHookOutputs.apply(state, *outs)
        out = marked[0] if single else marked
    if state.hooks.legacy:
        _attach_legacy(state, out)
    return out


def _attach_legacy(state, out):
    """register_backward_hook's hooks put on the grad_fn of out's first tensor (the
    first item of tuples and lists, the first tensor of a dict's values), PyTorch's."""
    var = out
    while not isinstance(var, _C.Tensor):
        if isinstance(var, dict):
            var = next((v for v in var.values() if isinstance(v, _C.Tensor)), None)
        elif isinstance(var, (list, tuple)) and var:
            var = var[0]
        else:
            return
    fn = var.grad_fn
    if fn is None:
        return
    for hook in tuple(state.hooks.legacy.values()):
        add_node_hook(fn, lambda gi, go, hook=hook, module=state.module: hook(module, gi, go))
    problem = _legacy_problem(state.metas, out, fn)
    if problem:
        warnings.warn(problem, FutureWarning, stacklevel=4)


_USE_FULL = " Please use register_full_backward_hook to get the documented behavior."


def _legacy_problem(inputs, out, fn):
    """PyTorch's warning when register_backward_hook's hooks will not see the module's
    own gradients (PyTorch's checks), or None."""
    def deprecated(what, missing, tail=_USE_FULL):
        return (f"Using {what} is deprecated and will be removed in future versions. This "
                f"hook will be missing some {missing}.{tail}")
    outs = (out,) if isinstance(out, _C.Tensor) else out
    if not (isinstance(outs, tuple) and all(isinstance(o, _C.Tensor) for o in outs)):
        return deprecated("non-full backward hooks on a Module that does not return a "
                          "single Tensor or a tuple of Tensors", "of the grad_output")
    if not all(isinstance(i, _C.Tensor) for i in inputs):
        return deprecated("non-full backward hooks on a Module that does not take as input "
                          "a single Tensor or a tuple of Tensors", "of the grad_input")
    out_fns = {o.grad_fn for o in outs if o.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and fn not in out_fns):
        return deprecated("a non-full backward hook when outputs are nested in python data "
                          "structure", "grad_output", "")
    if len(out_fns) > 1:
        return deprecated("a non-full backward hook when outputs are generated by different "
                          "autograd Nodes", "grad_output")
    if {i.grad_fn for i in inputs if i.grad_fn is not None} != {n for n, _ in fn.next_functions}:
        return deprecated("a non-full backward hook when the forward contains multiple "
                          "autograd Nodes", "grad_input")
    return None
