"""The graph's nodes: Node (one per recorded op), AccumulateGrad (one per leaf), edges
and saved tensors with their version check.

A tensor that a recorded op made holds its Node (``grad_fn``) and which of the Node's
outputs it is (``output_nr``); a Node holds its inputs' edges (``next_functions``:
``(node, output_nr)``, or ``(None, 0)`` for an input that needs no gradient: Note [no
edge]) and what its backward formula needs.  Nodes never hold their own outputs (a saved output is a detached view),
so the graph has no reference cycles and dies with the last tensor that reaches it.
"""
import weakref

from .. import _C
from .saved_hooks import HOOKS as _SAVED_HOOKS
from .saved_hooks import pack_saved, unpack_saved
from .hooks import _HOOK_SEEN, run_hooks, run_node_posthooks, run_node_prehooks, seen_by_hook

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_TYPE_NAMES = {_C.float32: "FloatTensor", _C.float64: "DoubleTensor", _C.int32: "IntTensor",
               _C.int64: "LongTensor", _C.bool: "BoolTensor"}


def check_versions(name, saved, versions):
    """Raises RuntimeError when a saved tensor was modified in place after it was
    saved (its version moved); name: the Node that saved it."""
    for t, v in zip(saved, versions):
        if t._version != v:
            kind = _TYPE_NAMES.get(t.dtype, str(t.dtype))
            where = "" if t.device.type == "cpu" else "cuda."
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified "
                f"by an inplace operation: [pydevtensor.{where}{kind} {list(t.shape)}] is "
                f"at version {t._version}; expected version {v} instead. Hint: the "
                f"operation that saved it is {name}; clone() the tensor before "
                "modifying it in place, or modify a copy.")


def check_recorded(node, grads):
    """With create_graph=True and an incoming gradient that requires grad: raises
    when the backward gave an input a gradient that does not (its formula called
    something unrecorded, and a second derivative through it would be silently
    wrong), unless the op is piecewise constant (zero_derivative) or that input's
    gradient is always zero (zero_grad_inputs, as copysign's sign argument)."""
    if node.zero_derivative:
        return
    for k, g in enumerate(grads):
        if g is not None and not g.requires_grad and node.needs_input_grad[k] and \
                k not in node.zero_grad_inputs:
            raise RuntimeError(
                f"{node.name()} does not support double backward: its backward's result "
                f"for input {k} was not recorded, so a gradient computed with "
                "create_graph=True cannot be differentiated through it")


# Note [mask derivatives]
# ~~~~~~~~~~~~~~~~~~~~~~~
# abs's backward is g sign(x), relu's g where y > 0: a piecewise constant of the saved
# tensors, whose derivative is zero.  PyTorch records those factors (sgn,
# threshold_backward), so with create_graph=True the gradient requires grad whenever x
# does, and differentiating it again gives zeros (for x, also when grad_output requires
# grad).  Here the factors are masks computed unrecorded, so under create_graph a Node
# marked mask_derivative links each gradient to the saved tensors that require grad
# (link_masks): a view of it recorded by ZeroLinkBackward, which passes its gradient on
# and gives those tensors zeros.  Without create_graph (grad mode off) nothing changes.

def link_masks(node, grads):
    """grads, each linked (Note [mask derivatives]) to the saved tensors of node that
    require grad."""
    sources = tuple([t for t in node.saved_tensors
                     if isinstance(t, _C.Tensor) and t.requires_grad])
    if not sources:
        return grads
    from .dispatch import record  # imported late: dispatch imports this module
    return tuple([g if g is None or not g.is_floating_point() else
                  record(ZeroLinkBackward, g.view_as(g), (g,) + sources, {}) for g in grads])


# Note [no edge]
# ~~~~~~~~~~~~~~
# PyTorch's next_functions gives (None, 0) for an input that needs no gradient.  The
# engine (autograd_engine.c) and the C recorder store and skip a bare None there, so a
# Node keeps its edges as an Edges tuple: its items, as C reads them, are the edges or
# None; iterated, indexed, compared or printed from Python, a None reads (None, 0).
# Python code that walks the graph tests ``e[0] is None``.

NO_EDGE = (None, 0)


class Edges(tuple):
    """A Node's next_functions (Note [no edge])."""

    __slots__ = ()

    def __iter__(self):
        for e in tuple.__iter__(self):
            yield NO_EDGE if e is None else e

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self)[k]
        e = tuple.__getitem__(self, k)
        return NO_EDGE if e is None else e

    def __repr__(self):
        return repr(tuple(self))

    def __eq__(self, other):
        return tuple(self) == other

    def __ne__(self, other):
        return tuple(self) != other

    def __hash__(self):
        return hash(tuple(self))

    def __contains__(self, item):
        return item in tuple(self)

    def __add__(self, other):
        return tuple(self) + other

    def __radd__(self, other):
        return other + tuple(self)

    def count(self, item):
        return tuple(self).count(item)

    def index(self, *args):
        return tuple(self).index(*args)


# what release() keeps of a Node's __dict__
_KEPT = ("_tensor_hooks", "_retained", "_pre_hooks", "_post_hooks", "_metadata")


class Node:
    """One recorded op.  Subclasses (derivatives.py) define ``save(out, *args, **kw)``,
    called once after the forward with the op's own arguments, which stores what the
    backward needs (its tensors through ``save_tensors``, Note [saved tensors hooks])
    and returns the differentiable inputs in order; and
    ``backward(grad)``, which returns one gradient (or None) per such input.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> y = w * w
    >>> y.grad_fn
    <MulBackward0 object at 0x...>
    >>> isinstance(y.grad_fn, pydevtensor.autograd.Node)
    True
    """

    __slots__ = ("_edges", "needs_input_grad", "_saved", "_versions", "__weakref__",
                 "__dict__")
    num_outputs = 1
    is_view = False  # True for the ops whose output shares its input's storage
    pick = None  # or a function of the op's arguments choosing the Node class
    zero_derivative = False  # True for piecewise constant ops (check_recorded)
    zero_grad_inputs = ()  # the inputs whose gradient is always zeros (check_recorded)
    mask_derivative = False  # True when backward is g times a piecewise constant of the
    # saved tensors (abs, relu): Note [mask derivatives]

    @property
    def next_functions(self):
        """The edges to the nodes of this op's inputs, one per input: ``(node,
        output_nr)``, or ``(None, 0)`` for an input that needs no gradient.

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> (w * pydevtensor.ones(2)).grad_fn.next_functions
        ((<AccumulateGrad object at 0x...>, 0), (None, 0))
        """
        return self._edges

    @next_functions.setter
    def next_functions(self, edges):
        self._edges = edges if type(edges) is Edges else Edges(edges)

    def name(self):
        """The class's name, as PyTorch's Node.name().

        Returns
        -------
        str

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * w
        >>> y.grad_fn.name()
        'MulBackward0'
        """
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self):
        """A dict of the user's own, kept with the node (PyTorch's Node.metadata).

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * 2
        >>> y.grad_fn.metadata['step'] = 3
        >>> y.grad_fn.metadata
        {'step': 3}
        """
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, fn):
        """Registers ``fn(grad_inputs, grad_outputs)``, called each time this node's
        backward has run; a result that is not None (a tuple with one entry per
        input) replaces grad_inputs, as PyTorch's Node.register_hook.

        Parameters
        ----------
        fn : callable
            ``fn(grad_inputs, grad_outputs) -> tuple of Tensor or None``; on an
            ``AccumulateGrad`` grad_inputs is ``()``, after the gradient was added
            into the leaf's ``.grad``.

        Returns
        -------
        RemovableHandle
            Its ``remove()`` unregisters the hook.

        Raises
        ------
        TypeError
            When fn is not callable.
        RuntimeError
            When, during the backward, fn returns another number of gradients.

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * 3
        >>> h = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[1]))
        >>> y.sum().backward()
        >>> w.grad
        tensor([30., 30.])
        >>> h.remove()
        """
        from .hooks import add_node_hook
        return add_node_hook(self, fn)

    def register_prehook(self, fn):
        """Registers ``fn(grad_outputs)``, called each time before this node's
        backward runs; a result that is not None (a tuple with one entry per output)
        replaces grad_outputs, as PyTorch's Node.register_prehook.

        Parameters
        ----------
        fn : callable
            ``fn(grad_outputs) -> tuple of Tensor or None``; it runs after the
            outputs' tensor hooks (``Tensor.register_hook``) and ``retain_grad``.

        Returns
        -------
        RemovableHandle
            Its ``remove()`` unregisters the hook.

        Raises
        ------
        TypeError
            When fn is not callable.
        RuntimeError
            When, during the backward, fn returns another number of gradients.

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * 3
        >>> h = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        >>> y.sum().backward()
        >>> w.grad
        tensor([6., 6.])
        >>> h.remove()
        """
        from .hooks import add_node_hook
        return add_node_hook(self, fn, pre=True)

    def save_tensors(self, *tensors, outputs=()):
        """Keeps tensors for backward, with their versions (Note [version counter]).

        Parameters
        ----------
        *tensors : Tensor
            What backward will need.
        outputs : tuple of int or (int, int), optional
            The positions among tensors of this op's outputs, saved detached: k for
            its first output, (k, i) for its output i.  Read back with grad mode on
            (create_graph=True) they take this Node as grad_fn again (Note
            [higher-order gradients] in engine.py).

        Returns
        -------
        None

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * w
        >>> len(y.grad_fn.saved_tensors)
        2
        """
        # a view in the graph is kept as an alias without its base: Note [views and
        # their base] (no reference cycle through the base's later node)
        self._saved = tensors = _C._saved_aliases(tensors)
        if outputs:
            self._output_slots = outputs
        # one or two tensors without a comprehension: in Python 3.11 each one makes
        # a function object, a sizeable part of recording an op (Note [recording in C])
        n = len(tensors)
        self._versions = ((tensors[0]._version,) if n == 1 else
                          (tensors[0]._version, tensors[1]._version) if n == 2 else
                          tuple([t._version for t in tensors]))
        if _SAVED_HOOKS and n:  # Note [saved tensors hooks] (saved_hooks.py)
            self._saved = pack_saved(self, tensors)

    @property
    def saved_tensors(self):
        """The tensors save_tensors kept.  Raises RuntimeError when they were freed by a backward without retain_graph, or one was modified in place since (its version changed).

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * w
        >>> [t.shape for t in y.grad_fn.saved_tensors]
        [pydevtensor.Size([2]), pydevtensor.Size([2])]
        """
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MSG)
        d = self.__dict__
        if "_packed" in d:
            saved = unpack_saved(self, self._versions)
        else:
            versions = self._versions
            # one or two tensors (most nodes) compared inline, the name made only for
            # the error: this runs in every backward
            n = len(saved)
            if n > 2 or (n and (saved[0]._version != versions[0]
                                or (n == 2 and saved[1]._version != versions[1]))):
                check_versions(self.name(), saved, versions)
        slots = d.get("_output_slots")
        if slots and _C.is_grad_enabled():
            saved = list(saved)
            for k in slots:
                k, i = (k, 0) if type(k) is int else k
                saved[k] = saved[k].detach()._set_grad_fn(self, i)
            saved = tuple(saved)
        return saved

    def release(self):
        """Frees what was saved (after a backward without retain_graph).

        Returns
        -------
        None

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * w
        >>> y.grad_fn.release()
        >>> try:
        ...     y.grad_fn.saved_tensors
        ... except RuntimeError:
        ...     print('freed')
        freed
        """
        if self._saved:
            self._saved = None
            d = self.__dict__
            if d.keys().isdisjoint(_KEPT):  # no hooks nor metadata: the common case
                d.clear()
                return
            # Note [where tensor hooks live] (hooks.py); a Node's own hooks and metadata
            # outlive its saved tensors, as PyTorch's
            kept = {k: d[k] for k in _KEPT if k in d}
            d.clear()
            if "_tensor_hooks" in kept:
                from .hooks import keep_hooks
                keep_hooks(self, kept)
            else:
                d.update(kept)

    def apply(self, grads):
        """The gradients of this op's inputs from the gradient of its output: ``backward(grads[0])`` as a tuple.

        Parameters
        ----------
        grads : sequence of Tensor
            The gradient of each output.

        Returns
        -------
        tuple of Tensor or None

        Examples
        --------
        >>> w = pydevtensor.ones(2, requires_grad=True)
        >>> y = w * w
        >>> with pydevtensor.no_grad():  # as the engine runs it
        ...     y.grad_fn.apply((pydevtensor.ones(2),))
        (tensor([1., 1.]), tensor([1., 1.]))
        """
        g = self.backward(grads[0])
        g = g if type(g) is tuple else (g,)
        if self.mask_derivative and _C.is_grad_enabled():
            g = link_masks(self, g)
        if grads[0] is not None and grads[0].requires_grad and _C.is_grad_enabled():
            check_recorded(self, g)
        return g


_NO_EDGES = Edges()


class AccumulateGrad(Node):
    """The end of the graph for a leaf: adds the gradient into ``leaf.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        if type(self) is AccumulateGrad:  # the slot, as next_functions' setter sets it,
            # without its frame (one per leaf per graph: Note [edges in C] in
            # csrc/python/autograd_record.c); a subclass may have its own setter
            self._edges = _NO_EDGES
        else:
            self.next_functions = ()
        self.needs_input_grad = ()
        self._saved = ()

    def release(self):
        pass

    def accumulate(self, g, fresh):
        leaf = self.variable
        # Tensor.register_hook on a leaf (hooks.py's leaf_hooks, read here without its
        # frame, as are the checks below: they run for each leaf in each backward)
        hooks = leaf._leaf_hooks
        # a gradient a hook was given or returned (here or on a tensor it passed through)
        # may be kept by it: adopting it would let the next backward change the kept one
        if hooks:
            g, fresh = run_hooks(hooks, g), False
        d = self.__dict__
        if "_pre_hooks" in d or "_post_hooks" in d:  # Node.register_prehook, register_hook
            g = run_node_prehooks(self, [g])[0]
            fresh = False
            if g is not None:
                self._add(leaf, g, fresh)
            run_node_posthooks(self, (), (g,))
            return
        self._add(leaf, g, fresh)

    def _add(self, leaf, g, fresh):
        fresh = fresh and not (_HOOK_SEEN and seen_by_hook(g))
        old = leaf.grad
        if _C.is_grad_enabled():  # create_graph: the sum recorded, out of place
            # a view is cloned, as PyTorch's grad is never one (zero_grad detaches it
            # in place)
            adopt = fresh and not g._is_view()
            leaf.grad = (g if adopt else g.clone()) if old is None else old + g
        elif old is None:
            # Adopt the engine's buffer when nothing else can see its storage; copy it
            # otherwise (a gradient passed through unchanged to two leaves, or the
            # user's own gradient tensor).  A dense leaf's grad takes the leaf's strides
            # (PyTorch's gradient layout contract: a transposed weight's grad is
            # transposed too, so an optimizer step runs in memory order)
            if g.stride() != leaf.stride() and not _same_layout(g, leaf):
                laid = _C.empty_like(leaf, dtype=g.dtype)
                if _same_layout(laid, leaf):  # leaf dense, without overlaps
                    laid.copy_(g)
                    leaf.grad = laid
                    return self._after(leaf)
            leaf.grad = g if fresh else g.clone()
        else:
            old.add_(g)
        self._after(leaf)

    @staticmethod
    def _after(leaf):
        # Tensor.register_post_accumulate_grad_hook (DistributedDataParallel's buckets)
        table = leaf._leaf_hooks  # hooks.py's post_accumulate_hooks(leaf)
        hooks = None if table is None else table.post
        if hooks:
            for hook in tuple(hooks.values()):
                hook(leaf)


def _same_layout(a, b):
    """a and b (one shape) laid out alike: equal strides in the dims of size past 1."""
    return all(n < 2 or sa == sb for n, sa, sb in zip(a.shape, a.stride(), b.stride()))


def accumulator(leaf):
    """The leaf's AccumulateGrad (one per leaf while a graph holds it; the leaf keeps
    only a weak reference, so the leaf and its node are no cycle).  The C recorder's
    edge_of does the same (Note [recording in C] in csrc/python/autograd_record.c)."""
    ref = leaf._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(acc)
    return acc


def edge_of(x):
    """The edge a gradient for tensor x follows, or None when x needs none."""
    if not isinstance(x, _C.Tensor) or not x.requires_grad:
        return None
    fn = x.grad_fn
    if fn is not None:
        return (fn, x.output_nr)
    return (accumulator(x), 0)


SAVED = object()  # stands in a Node's arguments for a tensor kept by save_tensors


def keep_tensors(node, obj):
    """obj (an index, a condition, an indexing key) with its tensors, obj itself or the
    items of a tuple or list, kept by ``node.save_tensors`` (so that the saved tensors
    hooks pack them and an in-place change of one fails the backward: Note [saved
    tensors hooks]) and SAVED in their place; obj itself when it holds none.  A Node
    keeps one such obj, read back by kept_tensors."""
    if isinstance(obj, _C.Tensor):
        node.save_tensors(obj)
        return SAVED
    if isinstance(obj, (tuple, list)):
        tensors = [t for t in obj if isinstance(t, _C.Tensor)]
        if tensors:
            node.save_tensors(*tensors)
            marked = [SAVED if isinstance(t, _C.Tensor) else t for t in obj]
            return tuple(marked) if isinstance(obj, tuple) else marked
    return obj


def kept_tensors(node, obj):
    """obj of keep_tensors with node's saved tensors in place of SAVED."""
    if obj is SAVED:
        return node.saved_tensors[0]
    if isinstance(obj, (tuple, list)) and any(t is SAVED for t in obj):
        saved = iter(node.saved_tensors)
        marked = [next(saved) if t is SAVED else t for t in obj]
        return tuple(marked) if isinstance(obj, tuple) else marked
    return obj


class LinearInGradBackward(Node):
    """A backward's own result made by a kernel with no derivative of its own but
    linear in the incoming gradient g (zeros with g added at indices, or written
    into a diagonal), recorded when the backward itself is (create_graph=True): its
    backward is the matching pick, ``adjoint(g2)`` (Note [higher-order gradients] in
    engine.py)."""

    def backward(self, g2):
        if self.kept is _NOTHING:
            return (self.adjoint(g2),)
        return (self.adjoint(g2, kept_tensors(self, self.kept)),)


_NOTHING = object()  # linear_in_g's keep when adjoint reads g2 alone


def linear_in_g(make, adjoint, g, keep=_NOTHING):
    """make(g) (a kernel with no derivative, linear in g), recorded with adjoint as
    its backward when grad mode is on and g requires grad (create_graph=True); keep:
    what adjoint reads besides g2 (an index, a key), given to it as ``adjoint(g2,
    keep)``, its tensors kept by save_tensors (keep_tensors)."""
    if not (g.requires_grad and _C.is_grad_enabled()):
        return make(g)
    prev = _C._set_grad_enabled(False)
    try:
        out = make(g)
    finally:
        _C._set_grad_enabled(prev)
    node = LinearInGradBackward.__new__(LinearInGradBackward)
    node._saved = ()
    node.kept = keep if keep is _NOTHING else keep_tensors(node, keep)
    node.adjoint = adjoint
    node.next_functions = (edge_of(g),)
    node.needs_input_grad = (True,)
    return out._set_grad_fn(node, 0)


class DelayedError(Node):
    """Stands between the results of a backward that is not itself differentiable and
    what they depend on: differentiating through it raises msg."""

    def __init__(self, edges, msg):
        self._saved = ()
        self.next_functions = edges
        self.needs_input_grad = tuple(e is not None for e in edges)
        self.msg = msg

    def apply(self, grads):
        raise RuntimeError(self.msg)


def delay_error(result, edges, msg):
    """result (a Tensor, or a tuple of them and None) with its float tensors marked
    by a DelayedError over edges (the Nones dropped); result as it is when no edge
    is left."""
    edges = tuple(e for e in edges if e is not None)
    if not edges:
        return result
    err = DelayedError(edges, msg)
    single = not isinstance(result, tuple)
    marked = []
    slot = 0
    for r in (result,) if single else result:
        if isinstance(r, _C.Tensor) and r.is_floating_point():
            # an output slot of its own: the gradients of results of different shapes
            # (a backward's for two inputs) are not added up before the error
            r = r.detach()._set_grad_fn(err, slot)
            slot += 1
        marked.append(r)
    err.num_outputs = max(slot, 1)
    return marked[0] if single else tuple(marked)


# Note [linear inputs]
# ~~~~~~~~~~~~~~~~~~~~
# A pool's gradient for its input is linear in the incoming gradient g; for max pools it
# goes to taps that comparisons chose.  Its derivative with respect to the input is zero.
# PyTorch's pools record their backward with the input saved, so with create_graph=True
# that gradient requires grad whenever the input does, and differentiating it again gives
# zeros.  Ours are composites (windows, sums, an argmax): for a g that needs no gradient,
# the input's gradient came out with no graph, and a second grad() raised "does not
# require grad".  linked_input(x) hands the composite a view of x recorded by
# LinkedInputBackward, whose backward passes g on, linked as Note [mask derivatives] links
# (ZeroLinkBackward) to x's own edge when it records.  It keeps no reference to x: no
# saved tensor, no version check; without create_graph it only passes g on.


def linked_input(x):
    """x, or a view of x recorded by LinkedInputBackward (Note [linear inputs]) when grad
    mode is on and x is floating and requires grad."""
    if not (x.requires_grad and _C.is_grad_enabled() and x.is_floating_point()):
        return x
    return _view_with_node(LinkedInputBackward, x, (edge_of(x),),
                           meta=(tuple(x.shape), x.dtype, x.device))


def _view_with_node(cls, t, edges, **attrs):
    """A view of t whose grad_fn is a new cls Node with these edges (given, not taken
    from tensors as record() takes them: no tensor is kept) and attributes."""
    node = cls.__new__(cls)
    node._saved = ()
    for name, value in attrs.items():
        setattr(node, name, value)
    node.next_functions = edges
    node.needs_input_grad = tuple([e is not None for e in edges])
    return t.view_as(t)._set_grad_fn(node, 0)


class LinkedInputBackward(Node):
    """y = x (a view) at the input of an op whose gradient for x is linear in the
    incoming gradient with no other dependence on x (Note [linear inputs])."""

    def backward(self, g):
        if g is None or not _C.is_grad_enabled():
            return (g,)
        # g linked to x's edge (the node's own), x itself not kept
        return (_view_with_node(ZeroLinkBackward, g, (edge_of(g), self.next_functions[0]),
                                metas=[self.meta]),)


class ZeroLinkBackward(Node):
    """g = link(g, *sources) of Note [mask derivatives]: the gradient on to g, zeros to
    the sources."""

    def save(self, result, g, *sources):
        self.metas = [(tuple(t.shape), t.dtype, t.device) for t in sources]
        return (g,) + sources

    def backward(self, gg):
        return (gg,) + tuple([_C.zeros(shape, dtype=dtype, device=device)
                              for shape, dtype, device in self.metas])
