"""Note [saved tensors hooks]: ``autograd.graph.saved_tensors_hooks(pack, unpack)``, as
PyTorch's: while it is active, each tensor a recorded op keeps for its backward
(``Node.save_tensors``, ``ctx.save_for_backward``) is handed to ``pack`` and only what
pack returned is kept; reading the saved tensors back (the backward, or
``grad_fn.saved_tensors``) calls ``unpack`` on it.  ``save_on_cpu`` keeps them in host
memory that way.  The Node keeps a weak reference to each original tensor: while that
tensor lives, an in-place change of it still fails the backward (Note [version
counter]); PyTorch keeps the version counter alone, which here lives on the tensor.
The hooks are per thread, as PyTorch's: the innermost pair the recording thread entered
applies, and another thread's ops are saved as they are (a checkpoint with
use_reentrant=False in one thread packed the tensors another thread's ops saved at the
same time, and recomputed its function for them).  A Node
keeps every tensor of the forward that its backward reads through save_tensors:
indices, masks and indexing keys too (keep_tensors in node.py), as do the nodes a
backward with create_graph=True records (the fused cells' gates, the indices of
LinearInGradBackward).  Left out, as PyTorch leaves them: what is no activation,
such as positions derived from a view's layout (CopySlices, AsStridedBackward0),
caches shared between calls, a checkpoint's RNG state, the gradients a backward
collects, a Function's own ctx attributes."""
from __future__ import annotations

import threading
import weakref

from .. import _C

# (thread ident, pack, unpack) of every thread, innermost last: node.py tests it before
# packing, so an empty list (no thread has hooks) costs recording one truth test
HOOKS: list = []
_DISABLED: list = []  # (thread ident, disable_saved_tensors_hooks' message), innermost last
_LOCK = threading.Lock()  # the stacks change only under it (several threads remove)


def _innermost(stack):
    """The calling thread's innermost entry of stack, or None."""
    me = threading.get_ident()
    for entry in reversed(stack):
        if entry[0] == me:
            return entry
    return None


def _push(stack, entry):
    with _LOCK:
        stack.append((threading.get_ident(),) + entry)


def _pop(stack):
    """Removes the calling thread's innermost entry of stack."""
    me = threading.get_ident()
    with _LOCK:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i][0] == me:
                del stack[i]
                return


def pack_saved(node, tensors):
    """Hands tensors (None kept as None) to the innermost pack hook and keeps what it
    returned on node; returns the placeholders node._saved holds instead (tensors
    itself, kept as they are, when only other threads have hooks)."""
    from .node import edge_of
    entry = _innermost(HOOKS)
    if entry is None:
        return tensors
    _, pack, unpack = entry
    packed = []
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)  # PyTorch's: the hook's own ops are not recorded
    try:
        for t in tensors:
            packed.append(None if t is None else _packed(pack, t))
    finally:
        _C._set_grad_enabled(prev)
    refs = tuple(None if t is None else weakref.ref(t) for t in tensors)
    # where each one's gradient flows (its grad_fn, or its leaf's AccumulateGrad), for
    # a backward with create_graph=True: the unpacked tensor takes it, as PyTorch's
    edges = tuple(edge_of(t) if t is not None and t.requires_grad else None for t in tensors)
    node.__dict__["_packed"] = (unpack, tuple(packed), refs, edges)
    return (None,) * len(tensors)


def _packed(pack, t):
    v = t._version
    p = pack(t)
    if t._version != v:
        raise RuntimeError("A saved tensor pack hook is modifying its input in place. "
                           "Tensors provided as input to pack hook can not be modified "
                           "by in-place operations as this can lead to unexpected "
                           "side-effects. Please open an issue if you need to perform "
                           "in-place operations on the input to a pack hook.")
    return p


def unpack_saved(node, versions):
    """The tensors node saved, through the unpack hook, after the version check of
    the originals still alive (versions: one per tensor that was not None)."""
    from .node import check_versions
    unpack, packed, refs, edges = node.__dict__["_packed"]
    live = [(r(), v) for r, v in zip([r for r in refs if r is not None], versions)]
    live = [(t, v) for t, v in live if t is not None]
    check_versions(node.name(), [t for t, _ in live], [v for _, v in live])
    out = []
    linked = _C.is_grad_enabled()
    for p, r, e in zip(packed, refs, edges):
        if r is None:
            out.append(None)
            continue
        t = unpack(p)
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(t).__name__}")
        out.append(t.detach()._set_grad_fn(*e) if linked and e is not None else t)
    return tuple(out)


class saved_tensors_hooks:
    """A context manager under which each tensor saved for a backward is kept as
    ``pack_hook(tensor)`` and read back as ``unpack_hook(packed)`` (PyTorch's
    ``autograd.graph.saved_tensors_hooks``).

    Tensors a recorded op saves through ``Node.save_tensors`` or a Function's
    ``ctx.save_for_backward`` are packed; the innermost pair active in the recording
    thread applies (the hooks are per thread, as PyTorch's: other threads' ops are not
    packed).  While the original tensor lives, changing it in place still fails the
    backward.

    Parameters
    ----------
    pack_hook : callable
        ``pack_hook(tensor) -> object``; must not change tensor in place.
    unpack_hook : callable
        ``unpack_hook(object) -> Tensor``: the tensor the backward reads.

    Raises
    ------
    TypeError
        When a hook is not callable, or unpack_hook returns no Tensor.
    RuntimeError
        When entered inside ``disable_saved_tensors_hooks``, or pack_hook changes its
        input in place.

    Examples
    --------
    >>> from pydevtensor.autograd.graph import saved_tensors_hooks
    >>> packed = []
    >>> def pack(t):
    ...     packed.append(t.shape)
    ...     return t.clone()
    >>> x = pydevtensor.tensor([1., 2.], requires_grad=True)
    >>> with saved_tensors_hooks(pack, lambda t: t):
    ...     y = (x * x).sum()
    >>> packed
    [pydevtensor.Size([2]), pydevtensor.Size([2])]
    >>> y.backward()
    >>> x.grad
    tensor([2., 4.])
    """

    def __init__(self, pack_hook, unpack_hook):
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"saved_tensors_hooks(): {name} must be callable, got "
                                f"{type(hook).__name__}")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        disabled = _innermost(_DISABLED)
        if disabled is not None:
            raise RuntimeError(disabled[1])
        _push(HOOKS, (self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _pop(HOOKS)
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keeps the tensors saved for a backward in host memory, each moved back to its
    own device when the backward reads it (PyTorch's ``autograd.graph.save_on_cpu``):
    device memory for activations traded against copies.

    Parameters
    ----------
    pin_memory : bool, optional
        Copy into page-locked host memory (default False).
    device_type : str, optional
        Accepted for PyTorch's signature (default ``"cuda"``); each tensor goes back to
        the device it came from.

    Examples
    --------
    >>> from pydevtensor.autograd.graph import save_on_cpu
    >>> x = pydevtensor.tensor([1., 2.], requires_grad=True)
    >>> with save_on_cpu():
    ...     y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 4.])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            host = t.detach().to("cpu", copy=True)
            if pin_memory and t.device.type != "cpu":
                host = host.pin_memory()
            return t.device, host

        def unpack(packed):
            device, host = packed
            return host.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """A context manager inside which entering ``saved_tensors_hooks`` (or
    ``save_on_cpu``) raises RuntimeError with error_message (PyTorch's
    ``autograd.graph.disable_saved_tensors_hooks``).

    Parameters
    ----------
    error_message : str
        The message of the RuntimeError.

    Examples
    --------
    >>> from pydevtensor.autograd.graph import (disable_saved_tensors_hooks,
    ...                                         saved_tensors_hooks)
    >>> with disable_saved_tensors_hooks("no hooks here"):
    ...     try:
    ...         with saved_tensors_hooks(lambda t: t, lambda t: t):
    ...             pass
    ...     except RuntimeError as e:
    ...         print(e)
    no hooks here
    """

    def __init__(self, error_message):
        self.error_message = str(error_message)

    def __enter__(self):
        _push(_DISABLED, (self.error_message,))
        return self

    def __exit__(self, *exc):
        _pop(_DISABLED)
        return False
