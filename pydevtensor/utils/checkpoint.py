"""utils.checkpoint: activation checkpointing, as ``torch.utils.checkpoint``.
``checkpoint(fn, *args, use_reentrant=...)`` runs fn without keeping its intermediate
tensors, and recomputes it with grad mode on when the backward reaches it, with the
random number generators as they were at the first run (preserve_rng_state), so
dropout draws the same masks and the gradients are those of the plain call.
use_reentrant=False is PyTorch's saved tensors hooks way, in _checkpoint_hooks.py
(Note [checkpoint without reentrance]); use_reentrant=True is the Function below.

Note [checkpoint's recomputation]
With use_reentrant=True, the call is one autograd.Function whose inputs are the
tensor arguments and one scalar that requires grad (so that a node is recorded even
when only parameters inside fn need gradients, as PyTorch's reentrant checkpoint does
not allow: there they got no gradient).  Its backward
recomputes fn on detached copies of the arguments and runs a backward through the
recomputed graph: the gradients of the parameters used inside fn are accumulated into
their .grad there (PyTorch's reentrant way), those of the arguments are returned.
When the outer pass asked for some tensors only (autograd.grad, backward(inputs=...);
autograd.engine.current_run), the inner pass is an autograd.grad over the arguments
and the tensors asked for: no other .grad is written, a parameter asked for by
backward(inputs=...) is accumulated, and one asked for by autograd.grad() raises (it
cannot be handed back; PyTorch's reentrant checkpoint refuses grad() altogether);
loss.backward() gives exactly the plain gradients.
The recomputation runs under the autocast state of the first run, and the tensor
arguments are saved as any op saves them (changed in place before the backward, they
are refused).  Its backward is once differentiable: a gradient taken with
create_graph=True raises when differentiated again (the recomputed graph starts at
detached copies, so a second derivative would miss the arguments' part).
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from .. import _C
from ._checkpoint_hooks import CheckpointError, noop_context_fn
from ._checkpoint_hooks import checkpoint_without_reentrant as _without_reentrant

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential", "noop_context_fn"]


def _rng_states(tensors: list) -> tuple[Any, dict]:
    from .. import cuda as _cuda
    from .. import random as _random
    devices = {t.device for t in tensors if t.device.type == "cuda"}
    return _random.get_rng_state(), {d: _cuda.get_rng_state(d) for d in devices}


def _set_rng_states(states: tuple[Any, dict]) -> None:
    from .. import cuda as _cuda
    from .. import random as _random
    cpu, devices = states
    _random.set_rng_state(cpu)
    for d, s in devices.items():
        _cuda.set_rng_state(s, d)


def _autocast_state() -> dict:
    """{device type: (enabled, dtype, cache_enabled)} of this thread's autocast."""
    from ..amp import _state as S
    st = S._state
    return {d: (st.enabled[d], st.dtype[d], st.cache_enabled) for d in S.DEVICE_TYPES}


def _autocast_as(saved: dict) -> Any:
    """A context that puts autocast back as it was when saved was taken (for each
    device type where it differs now)."""
    import contextlib

    from ..amp.autocast_mode import autocast
    stack = contextlib.ExitStack()
    for device, state in _autocast_state().items():
        if state != saved[device]:
            enabled, dtype, cache = saved[device]
            stack.enter_context(autocast(device, dtype, enabled, cache))
    return stack


def _restricted(pairs, inputs, wanted, accumulate):
    """The recomputed graph's gradients for an outer pass that asked for some tensors
    only (autograd.grad, or backward(inputs=...)): those of fn's arguments, returned,
    and those of the tensors asked for that fn used inside (its parameters),
    accumulated for backward(inputs=...) and refused for autograd.grad, which cannot be
    handed them; no other .grad is written (a plain backward here filled every
    parameter's .grad)."""
    from ..autograd import grad as _grad
    args = [a for a in inputs if isinstance(a, _C.Tensor) and a.requires_grad]
    inner = [t for t in wanted if isinstance(t, _C.Tensor) and t.requires_grad and
             not any(t is a for a in args)]
    got = _grad([o for o, _ in pairs], args + inner, [g for _, g in pairs],
                allow_unused=True) if pairs and (args or inner) else [None] * (len(args) +
                                                                              len(inner))
    for t, g in zip(inner, got[len(args):]):
        if g is None:
            continue
        if not accumulate:
            raise RuntimeError("checkpoint: autograd.grad() asked for a tensor used inside "
                               "the checkpointed function (a parameter); its gradient can "
                               "only be accumulated: use backward(inputs=[...]) or "
                               "loss.backward()")
        t.grad = g if t.grad is None else t.grad + g
    by_arg = iter(got[:len(args)])
    return tuple(next(by_arg) if isinstance(a, _C.Tensor) and a.requires_grad else None
                 for a in inputs)


def _function():
    from ..autograd import Function, backward
    from ..autograd.engine import current_run
    from ..autograd.function import _once_differentiable
    from ..autograd.grad_mode import enable_grad

    class CheckpointFunction(Function):
        @staticmethod
        def forward(ctx, run, preserve, kwargs, _anchor, *args):
            tensors = [a for a in args if isinstance(a, _C.Tensor)]
            ctx.run, ctx.kwargs = run, kwargs
            # the tensors saved (an in-place change before backward raises, as for any
            # op), the rest kept as they are
            ctx.args = [None if isinstance(a, _C.Tensor) else a for a in args]
            ctx.save_for_backward(*tensors)
            ctx.rng = _rng_states(tensors) if preserve else None
            ctx.autocast = _autocast_state()  # recomputed under the same autocast
            # a Tensor or a tuple (of anything) is the Function's output, as PyTorch's
            # reentrant checkpoint; anything else (None, a dict) is returned as it is,
            # outside the graph
            return run(*args, **kwargs)

        @staticmethod
        # create_graph=True raises, where it would lose the second order
        @functools.partial(_once_differentiable, inputs_too=True)
        def backward(ctx, *grads):
            saved = iter(ctx.saved_tensors)
            args = [next(saved) if a is None else a for a in ctx.args]
            inputs = [a.detach().requires_grad_(a.requires_grad)
                      if isinstance(a, _C.Tensor) else a for a in args]
            now = None
            if ctx.rng is not None:
                tensors = [a for a in args if isinstance(a, _C.Tensor)]
                now = _rng_states(tensors)
                _set_rng_states(ctx.rng)
            try:
                with enable_grad(), _autocast_as(ctx.autocast):
                    out = ctx.run(*inputs, **ctx.kwargs)
            finally:
                if now is not None:
                    _set_rng_states(now)
            outs = (out,) if isinstance(out, _C.Tensor) else \
                out if isinstance(out, tuple) else ()
            pairs = [(o, g) for o, g in zip(outs, grads)
                     if isinstance(o, _C.Tensor) and o.requires_grad and g is not None]
            run = current_run()
            if run is not None and run[0] is not None:
                return (None, None, None, None) + _restricted(pairs, inputs, run[0], run[1])
            if pairs:
                backward([o for o, _ in pairs], [g for _, g in pairs])
            return (None, None, None, None) + tuple(
                a.grad if isinstance(a, _C.Tensor) and a.requires_grad else None
                for a in inputs)

    return CheckpointFunction


_FUNCTION: list = []


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True,
               context_fn: Callable[[], Any] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """Runs ``function(*args, **kwargs)`` without keeping its intermediate tensors, and
    recomputes it in the backward (trading compute for memory), as PyTorch's
    ``checkpoint``.  The gradients are those of the plain call.

    Parameters
    ----------
    function : callable
        Returns anything: Tensors, alone or in a tuple (or, with use_reentrant=False, in
        any structure), take part in the backward.
    *args
        Its arguments (Tensors and anything else).
    use_reentrant : bool, optional
        Pass it, as PyTorch asks (a warning when not given; then True, as PyTorch's).
        False (recommended): PyTorch's saved tensors hooks way (Note [checkpoint
        without reentrance] in utils/_checkpoint_hooks.py): any outputs, keyword
        arguments that require grad, second derivatives.  True: one autograd Function
        (see the module's Note), once differentiable; the Tensors of a Tensor or tuple
        output are in the graph (any other output is returned outside it).
    preserve_rng_state : bool, optional
        Recompute with the random generators as they were (default True): dropout
        inside draws the same masks.
    context_fn : callable, optional
        use_reentrant=False only: returns two context managers, the first run's and
        the recomputation's (default: ``noop_context_fn``, two that do nothing).
    determinism_check : str, optional
        use_reentrant=False only: ``'default'`` (the recomputation must save tensors of
        the same number, shapes, dtypes and devices, or CheckpointError, a RuntimeError,
        is raised) or ``'none'``.
    debug : bool, optional
        use_reentrant=False only; accepted, no effect.
    early_stop : bool, optional
        use_reentrant=False only: stop the recomputation once it has saved what the
        backward needs (default True).
    **kwargs
        Keyword arguments of function.

    Returns
    -------
    object
        What function returns.

    Raises
    ------
    ValueError
        A determinism_check other than ``'default'`` and ``'none'``; context_fn or
        debug with use_reentrant=True.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.utils.checkpoint import checkpoint
    >>> lin = nn.Linear(2, 2)
    >>> x = pydevtensor.ones(3, 2, requires_grad=True)
    >>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> lin.weight.grad is not None and x.grad is not None
    True
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly (pydevtensor.utils.checkpoint.checkpoint); "
                      "use_reentrant=False is recommended", UserWarning, stacklevel=2)
        use_reentrant = True
    if not callable(function):
        raise TypeError(f"checkpoint: function must be callable, got {type(function).__name__}")
    if context_fn is None:
        context_fn = noop_context_fn
    if use_reentrant and (context_fn is not noop_context_fn or debug):
        raise ValueError("checkpoint: passing context_fn or debug is only supported when "
                         "use_reentrant=False")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"checkpoint: determinism_check should be one of ['default', 'none'], "
                         f"but got {determinism_check!r}")
    from ..autograd.grad_mode import is_grad_enabled
    if not is_grad_enabled():
        return function(*args, **kwargs)
    if not use_reentrant:
        return _without_reentrant(function, args, kwargs, preserve_rng_state, context_fn,
                                  determinism_check, early_stop)
    if not _FUNCTION:
        _FUNCTION.append(_function())
    anchor = _C.zeros((), requires_grad=True)  # Note [checkpoint's recomputation]
    return _FUNCTION[0].apply(function, preserve_rng_state, kwargs, anchor, *args)


def checkpoint_sequential(functions: Any, segments: int, input: _C.Tensor,
                          use_reentrant: bool | None = None, **kwargs: Any) -> _C.Tensor:
    """Runs a Sequential (or a list of modules) in segments, each checkpointed but the
    last, as PyTorch's ``checkpoint_sequential``.

    Parameters
    ----------
    functions : nn.Sequential or list of callables
        Run one after the other.
    segments : int
        How many segments.
    input : Tensor
        The first one's input.
    use_reentrant : bool, optional
        As :func:`checkpoint`.
    **kwargs
        preserve_rng_state, as :func:`checkpoint`.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        For a keyword argument other than preserve_rng_state, as PyTorch's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.utils.checkpoint import checkpoint_sequential
    >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    >>> checkpoint_sequential(net, 2, pydevtensor.ones(4, 2), use_reentrant=False).shape
    pydevtensor.Size([4, 1])
    """
    unexpected = sorted(set(kwargs) - {"preserve_rng_state"})
    if unexpected:
        raise ValueError(f"checkpoint_sequential: Unexpected keyword arguments: "
                         f"{','.join(unexpected)}")
    fns = list(functions)
    size = max(1, len(fns) // segments)

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for f in fns[start:end]:
                x = f(x)
            return x
        return forward
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end, len(fns))(input)
