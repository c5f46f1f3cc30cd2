"""Tensor.register_hook, Tensor.retain_grad and Tensor.retains_grad (PyTorch's).

Note [where tensor hooks live]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A hook on a tensor made by an op belongs to the tensor's place in the graph: its
grad_fn and output_nr.  The Node keeps them (``_tensor_hooks``: output_nr -> {key:
hook}) and gets an ``apply`` of its own in its ``__dict__`` (what the engines call,
found before the class's method), which runs the hooks on the gradient of that output
before the Node's formula; the wrapper holds the Node weakly, so the Node and its
wrapper are no cycle.  A hook on a leaf runs before the gradient is added into
``.grad`` (AccumulateGrad.accumulate, node.py); leaves are C tensors without a
``__dict__``, so their hooks are kept in the tensor's slot ``_leaf_hooks``, which the
collector sees (Note [tensors in cycles] in csrc/python/tensor_object.c: a hook whose
closure names its own leaf is a cycle, collected; a table kept here by id held such a
leaf forever).  retain_grad() is a hook that keeps a weak reference to its
tensor and runs after the tensor's other hooks, as in PyTorch.
"""
import itertools
import weakref

from .. import _C

_keys = itertools.count()


_handle_ids = itertools.count()


class RemovableHandle:
    """What register_hook returns: ``remove()`` unregisters the hook (also as a
    context manager, on leaving); ``id``, as PyTorch's, is an int no other handle of
    this process has.

    Examples
    --------
    >>> x = pydevtensor.ones(2, requires_grad=True)
    >>> a, b = x.register_hook(lambda g: g), x.register_hook(lambda g: g)
    >>> isinstance(a.id, int) and a.id != b.id
    True
    """

    __slots__ = ("_hooks", "_key", "_extra", "id")

    def __init__(self, hooks, key=None, extra_dict=()):
        # key None: the entry is (to be) stored under the handle's id, as PyTorch's;
        # extra_dict: the tables of flags kept under the same key (with_kwargs, ...)
        self.id = next(_handle_ids)
        self._hooks, self._key = weakref.ref(hooks), self.id if key is None else key
        self._extra = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        for ref in (self._hooks, *self._extra):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _Hooks(dict):
    """A dict that a weak reference can point at (RemovableHandle); ``captured``: the
    gradient after the hooks, kept for autograd.grad when it asked for this tensor
    (prepare_captures), else None."""

    __slots__ = ("__weakref__", "captured", "post")

    def __init__(self):
        super().__init__()
        self.captured = None
        self.post = None  # a leaf's post-accumulate-grad hooks (another _Hooks), or None


def new_hooks():
    """An empty hook table a RemovableHandle can point at."""
    return _Hooks()


def leaf_hooks(leaf):
    """The hooks registered on a leaf, or None."""
    return leaf._leaf_hooks


def _leaf_hooks_for_adding(leaf):
    hooks = leaf._leaf_hooks
    if hooks is None:
        hooks = leaf._leaf_hooks = _Hooks()
    return hooks


# Gradients a tensor hook was given, by id (a weak reference each: a tensor's __eq__ is
# elementwise, so no WeakSet): a hook may keep one (a list of gradients for logging), so
# a leaf never adopts it as its .grad, which the next backward adds into in place.
# PyTorch's AccumulateGrad steals a gradient only when nothing else holds a reference.
_HOOK_SEEN = {}


def _mark_seen(g):
    k = id(g)
    _HOOK_SEEN[k] = weakref.ref(g, lambda _r, k=k, d=_HOOK_SEEN: d.pop(k, None))


def seen_by_hook(g):
    """Whether a tensor hook was given g (and so may hold it)."""
    r = _HOOK_SEEN.get(id(g))
    return r is not None and r() is g


def run_hooks(hooks, g):
    """g after each hook in turn (a hook returning None leaves it as it is)."""
    for hook in tuple(hooks.values()):
        _mark_seen(g)
        r = hook(g)
        if r is not None:
            if not isinstance(r, _C.Tensor):
                raise TypeError(f"a tensor hook must return a Tensor or None, got "
                                f"{type(r).__name__}")
            if tuple(r.shape) != tuple(g.shape):
                raise RuntimeError(f"hook {getattr(hook, '__name__', hook)!r} returned a "
                                   f"gradient of shape {tuple(r.shape)} for a tensor of shape "
                                   f"{tuple(g.shape)}")
            if r.dtype != g.dtype or r.device != g.device:  # PyTorch's check of a hook
                raise RuntimeError(f"hook {getattr(hook, '__name__', hook)!r} has changed the "
                                   f"type of value (was {g.dtype} on {g.device}, got "
                                   f"{r.dtype} on {r.device})")
            g = r
    return g


def _hooked_apply(node_ref):
    def apply(grads):
        node = node_ref()
        grads = list(grads)
        for nr, hooks in node._tensor_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                grads[nr] = run_hooks(hooks, grads[nr])
                if hooks.captured is not None:
                    hooks.captured = grads[nr]
        for nr, tensor_ref in node._retained.items():
            t = tensor_ref()
            if t is not None and nr < len(grads) and grads[nr] is not None:
                _retain(t, grads[nr])
        grads = run_node_prehooks(node, grads)
        out = type(node).apply(node, grads)
        return run_node_posthooks(node, out, grads)

    return apply


def _node_hooks(fn):
    """fn's hook tables, its own apply installed the first time."""
    d = fn.__dict__
    if "_tensor_hooks" not in d:
        d["_tensor_hooks"] = {}
        d["_retained"] = {}
        d["apply"] = _hooked_apply(weakref.ref(fn))
    return d["_tensor_hooks"], d["_retained"]


def replaced(r, grads, what, of):
    """What a gradient hook returned (None, one tensor, or a tuple or list of them) as
    the gradients to hand on in place of grads; RuntimeError naming what when their
    number differs."""
    if r is None:
        return grads
    r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
    if len(r) != len(grads):
        raise RuntimeError(f"{what} returned {len(r)} gradients for {len(grads)} {of}")
    return r


def add_node_hook(fn, hook, pre=False):
    """Registers on Node fn a hook called after its backward, ``hook(grad_inputs,
    grad_outputs)``, or with pre=True before it, ``hook(grad_outputs)``; a result that
    is not None replaces grad_inputs (grad_outputs), as PyTorch's Node.register_hook
    and register_prehook (nn.Module.register_backward_hook's hooks are post hooks).
    Returns the RemovableHandle."""
    if not callable(hook):
        name = "register_prehook" if pre else "register_hook"
        raise TypeError(f"{name}(): hook must be callable, got {type(hook).__name__}")
    _node_hooks(fn)
    table = fn.__dict__.get(_NODE_TABLES[pre])
    if table is None:
        table = fn.__dict__[_NODE_TABLES[pre]] = _Hooks()
    key = next(_keys)
    table[key] = hook
    return RemovableHandle(table, key)


_NODE_TABLES = {False: "_post_hooks", True: "_pre_hooks"}


def _node_replaced(r, grads, what, of):
    """replaced(), refusing a gradient in place of None (PyTorch's check of a Node's
    hooks: no edge, or no gradient, is there to take it)."""
    new = replaced(r, grads, what, of)
    if any(g is None and n is not None for g, n in zip(grads, new)):
        raise RuntimeError("can't replace a None gradient with a non-None value")
    return new


def run_node_prehooks(node, grads):
    """grads (the gradients of node's outputs) after node's pre hooks, in order."""
    for hook in tuple(node.__dict__.get("_pre_hooks", {}).values()):
        grads = list(_node_replaced(hook(tuple(grads)), grads,
                                    f"pre hook of {type(node).__name__}", "outputs"))
    return grads


def run_node_posthooks(node, out, grads):
    """out (the gradients of node's inputs) after node's post hooks, in order."""
    for hook in tuple(node.__dict__.get("_post_hooks", {}).values()):
        out = _node_replaced(hook(tuple(out), tuple(grads)), out,
                             f"hook of {type(node).__name__}", "inputs")
    return out


def keep_hooks(fn, kept):
    """Puts fn's hook tables and metadata (kept: the items of its __dict__ to keep)
    back after release() cleared what it saved."""
    d = fn.__dict__
    d.update(kept)
    d.setdefault("_retained", {})
    d["apply"] = _hooked_apply(weakref.ref(fn))


def carry_retained(t, node, nr):
    """Before t (changed in place) takes (node, nr) as its place in the graph: a
    retain_grad() on t moves with it, as PyTorch's, so t.grad is the gradient of t's
    new value, not the old one's (which nothing else may keep then)."""
    old = t.grad_fn
    if old is None or old is node:
        return
    retained = old.__dict__.get("_retained")
    if not retained:
        return
    ref = retained.get(t.output_nr)
    if ref is None or ref() is not t:
        return
    del retained[t.output_nr]
    _node_hooks(node)[1][nr] = ref


def _retain(t, g):
    old = t.grad
    t.grad = g.clone() if old is None else old + g


def register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor)``, called each time backward has accumulated a gradient
    into this leaf's ``.grad`` (PyTorch's; an optimizer step per parameter during the
    backward, DistributedDataParallel's buckets).

    Parameters
    ----------
    hook : callable
        ``hook(tensor) -> None``.

    Returns
    -------
    RemovableHandle
        Its ``remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.
    RuntimeError
        When the tensor does not require grad, or is not a leaf.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> h = w.register_post_accumulate_grad_hook(lambda p: print('grad', p.grad))
    >>> (w * 3).sum().backward()
    grad tensor([3., 3.])
    >>> h.remove()
    """
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook(): hook must be callable, got "
                        f"{type(hook).__name__}")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError(f"post accumulate grad hooks cannot be registered on non-leaf "
                           f"tensors (this one has grad_fn {type(self.grad_fn).__name__})")
    table = _leaf_hooks_for_adding(self)
    if table.post is None:
        table.post = _Hooks()
    key = max(table.post, default=-1) + 1
    table.post[key] = hook
    return RemovableHandle(table.post, key)


def post_accumulate_hooks(leaf):
    """The leaf's post-accumulate-grad hooks (a dict), or None."""
    table = leaf._leaf_hooks
    return None if table is None else table.post


def register_hook(self, hook):
    """Registers a function called with this tensor's gradient each time one is
    computed; it may return a replacement (as torch.Tensor.register_hook).

    On a leaf the hook runs before the gradient is added into ``.grad``; on a tensor
    made by an op, before the gradient travels on to the op's inputs.

    Parameters
    ----------
    hook : callable
        ``hook(grad) -> Tensor or None``.

    Returns
    -------
    RemovableHandle
        Its ``remove()`` unregisters the hook.

    Raises
    ------
    TypeError
        When hook is not callable.
    RuntimeError
        When the tensor does not require grad.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2.], requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> (x * 3).sum().backward()
    >>> x.grad
    tensor([30., 30.])
    >>> h.remove()
    """
    if not callable(hook):
        raise TypeError(f"register_hook(): hook must be callable, got {type(hook).__name__}")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is None:
        hooks = _leaf_hooks_for_adding(self)
    else:
        table = _node_hooks(fn)[0]
        hooks = table.get(self.output_nr)
        if hooks is None:
            hooks = table[self.output_nr] = _Hooks()
    key = next(_keys)
    hooks[key] = hook
    return RemovableHandle(hooks, key)


def retain_grad(self):
    """Makes backward() fill this non-leaf tensor's ``.grad`` too (as
    torch.Tensor.retain_grad); on a leaf it does nothing.

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        When the tensor does not require grad.

    Examples
    --------
    >>> x = pydevtensor.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> y.retain_grad()
    >>> (y * y).sum().backward()
    >>> y.grad
    tensor([4., 4.])
    """
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = self.grad_fn
    if fn is None:
        return
    _node_hooks(fn)[1][self.output_nr] = weakref.ref(self)


def retains_grad(self):
    """True for a non-leaf tensor whose ``.grad`` backward fills (after
    retain_grad()).

    Examples
    --------
    >>> x = pydevtensor.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> y.retains_grad
    False
    >>> y.retain_grad()
    >>> y.retains_grad
    True
    """
    fn = self.grad_fn
    if fn is None:
        return False
    ref = fn.__dict__.get("_retained", {}).get(self.output_nr)
    return ref is not None and ref() is self


_WANTED = object()  # _Hooks.captured of a table whose gradient grad() will return


def prepare_captures(inputs):
    """For autograd.grad: the hook tables of the inputs that have hooks, as
    (position, leaf hooks or None, node hooks or None); the node hooks are told to keep
    the gradient they produce, which grad() returns, as PyTorch's (the engine takes a
    wanted gradient before the Node's apply, where the hooks run)."""
    found = []
    for k, x in enumerate(inputs):
        fn = x.grad_fn
        if fn is None:
            hooks = leaf_hooks(x)
            if hooks:
                found.append((k, hooks, None))
        else:
            hooks = fn.__dict__.get("_tensor_hooks", {}).get(x.output_nr)
            if hooks:
                hooks.captured = _WANTED
                found.append((k, None, hooks))
    return found


def finish_captures(found, results):
    """results (grad()'s list, None after an error) with the inputs' hooks applied
    (prepare_captures)."""
    for k, leaf, node in found:
        if results is None:
            if node is not None:
                node.captured = None
        elif leaf is not None:
            if results[k] is not None:
                results[k] = run_hooks(leaf, results[k])
        else:
            if node.captured is _WANTED:  # the Node did not run: its hooks, here
                if results[k] is not None:
                    results[k] = run_hooks(node, results[k])
            elif node.captured is not None:
                results[k] = node.captured
            node.captured = None
