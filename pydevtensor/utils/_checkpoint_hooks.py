"""utils.checkpoint with use_reentrant=False, as PyTorch's: by saved tensors hooks.

Note [checkpoint without reentrance]
fn runs once with its graph recorded as usual, under a pack hook that keeps, for each
tensor an op saves for its backward, only its place in the order of saving (and its
shape, dtype and device): the intermediate tensors are freed.  When the backward
first reads one of them, the unpack hook recomputes fn on the same arguments (grad
mode on, the random generators and autocast as at the first run, context_fn's second
context) under a pack hook that collects what is saved, in the same order, and
hands back the one asked for (each one once: a second backward with retain_graph
recomputes again).  The backward runs through the first run's graph, so the
gradients are those of the plain call; a keyword argument, an output that does not
require grad, any outputs (a dict, None, numbers) and a second derivative work as
without checkpoint (the unpacked tensors take the first run's edges under
create_graph=True: Note [saved tensors hooks]).  With early stop (PyTorch's default)
the recomputation stops once it has saved as many tensors as the first run;
determinism_check='default' compares their count and metadata and raises
CheckpointError when they differ.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable

from .. import _C


class CheckpointError(RuntimeError):
    """Raised by the backward when the recomputation of a function checkpointed with
    use_reentrant=False saved other tensors than its first run (another number, shape,
    dtype or device: fn is not deterministic), as PyTorch's ``CheckpointError``.

    Examples
    --------
    >>> from pydevtensor.utils.checkpoint import CheckpointError, checkpoint
    >>> calls = []
    >>> def fn(t):
    ...     calls.append(1)
    ...     return (t[:len(calls)] ** 2).sum()
    >>> y = checkpoint(fn, pydevtensor.ones(3, requires_grad=True), use_reentrant=False)
    >>> try:
    ...     y.backward()
    ... except CheckpointError as e:
    ...     print(type(e).__name__, "different metadata" in str(e))
    CheckpointError True
    """


class _Stop(Exception):
    """Raised by the recomputation's pack hook once it has everything (early stop)."""


class _Frame:
    """One checkpointed call: how to recompute it and what its first run saved."""

    def __init__(self, recompute: Callable[[Any], None], check: bool, early_stop: bool):
        self.recompute, self.check, self.early_stop = recompute, check, early_stop
        self.metadata: list = []  # (shape, dtype, device) of each tensor saved
        self.values: dict = {}  # place -> recomputed tensor, until the backward reads it

    def pack(self, x: _C.Tensor) -> int:
        self.metadata.append((tuple(x.shape), x.dtype, x.device))
        return len(self.metadata) - 1

    def unpack(self, place: int) -> _C.Tensor:
        if place not in self.values:
            self._recompute()
        return self.values.pop(place)

    def _recompute(self) -> None:
        from ..autograd.graph import saved_tensors_hooks
        n, got = len(self.metadata), []

        def pack(x: _C.Tensor) -> _C.Tensor:
            got.append(x.detach())
            if self.early_stop and len(got) == n:
                raise _Stop
            return got[-1]

        try:
            with saved_tensors_hooks(pack, lambda x: x):
                self.recompute(None)
        except _Stop:
            pass
        if len(got) < n or (self.check and len(got) != n):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during "
                f"forward: {n}\nNumber of tensors saved during recomputation: {len(got)}")
        if self.check:
            differ = [(i, m, (tuple(x.shape), x.dtype, x.device))
                      for i, (m, x) in enumerate(zip(self.metadata, got))
                      if m != (tuple(x.shape), x.dtype, x.device)]
            if differ:
                lines = "\n".join(f"tensor at position {i}:\nsaved metadata: {m}\n"
                                  f"recomputed metadata: {r}" for i, m, r in differ)
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors "
                    f"have different metadata than during the forward pass.\n{lines}")
        self.values = dict(enumerate(got[:n]))


def checkpoint_without_reentrant(function: Callable[..., Any], args: tuple, kwargs: dict,
                                 preserve_rng_state: bool, context_fn: Callable[[], Any],
                                 determinism_check: str, early_stop: bool) -> Any:
    """function(*args, **kwargs) under Note [checkpoint without reentrance]."""
    from ..autograd.grad_mode import enable_grad
    from ..autograd.graph import saved_tensors_hooks
    from .checkpoint import _autocast_as, _autocast_state, _rng_states, _set_rng_states
    forward_context, recompute_context = context_fn()
    tensors = [a for a in args if isinstance(a, _C.Tensor)]
    rng = _rng_states(tensors) if preserve_rng_state else None
    autocast = _autocast_state()
    contexts = [recompute_context]  # a second recomputation asks context_fn again

    def recompute(_: Any) -> None:
        context = contexts.pop() if contexts else context_fn()[1]
        now = _rng_states(tensors) if rng is not None else None
        if rng is not None:
            _set_rng_states(rng)
        try:
            with enable_grad(), _autocast_as(autocast), context:
                function(*args, **kwargs)
        finally:
            if now is not None:
                _set_rng_states(now)

    frame = _Frame(recompute, determinism_check == "default", early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def noop_context_fn() -> tuple[Any, Any]:
    """The default context_fn of :func:`checkpoint`: two context managers that do
    nothing (PyTorch's ``noop_context_fn``).

    Returns
    -------
    tuple of two context managers
        The first run's and the recomputation's.

    Examples
    --------
    >>> from pydevtensor.utils.checkpoint import noop_context_fn
    >>> first, again = noop_context_fn()
    >>> with first:
    ...     pass
    """
    return contextlib.nullcontext(), contextlib.nullcontext()
