"""Module.register_full_backward_hook: ``hook(module, grad_input, grad_output)`` once
the gradients of a call's tensor inputs are known (as PyTorch's).

Note [module backward hooks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A call of a module with such hooks passes its tensor outputs through an identity
autograd.Function whose backward keeps grad_output, and its tensor inputs that require
grad through another whose backward calls the hooks with (grad_input, grad_output) and
hands on what a hook returns in place of grad_input.  When no input requires grad
(the first layer), the outputs' identity calls the hooks with grad_input all None.
"""
from .. import _C
from ..autograd.function import Function


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
    # no input requires grad: all None (PyTorch's)
    grad_input = [None if not state.slots or m is None else
                  _C.zeros(m[0], dtype=m[1], device=m[2]) for m in state.metas]
    for slot, g in zip(state.slots, grads):
        grad_input[slot] = g
    grad_input = tuple(grad_input)
    for hook in tuple(state.hooks.values()):
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
        state.grad_output = grads
        if state.n_inputs == 0:
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
