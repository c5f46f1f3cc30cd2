"""The graph's nodes: Node (one per recorded op), AccumulateGrad (one per leaf), edges
and saved tensors with their version check.

A tensor that a recorded op made holds its Node (``grad_fn``) and which of the Node's
outputs it is (``output_nr``); a Node holds its inputs' edges (``next_functions``:
``(node, output_nr)`` or None for an input that needs no gradient) and what its backward
formula needs.  Nodes never hold their own outputs (a saved output is a detached view),
so the graph has no reference cycles and dies with the last tensor that reaches it.
"""
import weakref

from .. import _C

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_TYPE_NAMES = {_C.float32: "FloatTensor", _C.float64: "DoubleTensor", _C.int32: "IntTensor",
               _C.int64: "LongTensor", _C.bool: "BoolTensor"}


class Node:
    """One recorded op.  Subclasses (derivatives.py) define ``save(out, *args, **kw)``,
    called once after the forward with the op's own arguments, which stores what the
    backward needs and returns the differentiable inputs in order; and
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

    __slots__ = ("next_functions", "needs_input_grad", "_saved", "_versions", "__weakref__",
                 "__dict__")
    num_outputs = 1
    is_view = False  # True for the ops whose output shares its input's storage
    pick = None  # or a function of the op's arguments choosing the Node class

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

    def save_tensors(self, *tensors):
        """Keeps tensors for backward, with their versions (Note [version counter]).

        Parameters
        ----------
        *tensors : Tensor
            What backward will need.

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
        self._saved = tensors
        # one or two tensors without a comprehension: in Python 3.11 each one makes
        # a function object, a sizeable part of recording an op (Note [recording in C])
        n = len(tensors)
        self._versions = ((tensors[0]._version,) if n == 1 else
                          (tensors[0]._version, tensors[1]._version) if n == 2 else
                          tuple([t._version for t in tensors]))

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
        for t, v in zip(saved, self._versions):
            if t._version != v:
                kind = _TYPE_NAMES.get(t.dtype, str(t.dtype))
                where = "" if t.device.type == "cpu" else "cuda."
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [pydevtensor.{where}{kind} {list(t.shape)}] is "
                    f"at version {t._version}; expected version {v} instead. Hint: the "
                    f"operation that saved it is {self.name()}; clone() the tensor before "
                    "modifying it in place, or modify a copy.")
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
            self.__dict__.clear()

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
        return g if type(g) is tuple else (g,)


class AccumulateGrad(Node):
    """The end of the graph for a leaf: adds the gradient into ``leaf.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        self.needs_input_grad = ()
        self._saved = ()

    def release(self):
        pass

    def accumulate(self, g, fresh):
        leaf = self.variable
        old = leaf.grad
        if old is None:
            # Adopt the engine's buffer when nothing else can see its storage; copy it
            # otherwise (a gradient passed through unchanged to two leaves, or the
            # user's own gradient tensor).
            leaf.grad = g if fresh else g.clone()
        else:
            old.add_(g)
        # Parameter.register_post_accumulate_grad_hook (DistributedDataParallel's buckets)
        hooks = getattr(leaf, "_post_accumulate_grad_hooks", None)
        if hooks:
            for hook in tuple(hooks.values()):
                hook(leaf)


def accumulator(leaf):
    """The leaf's AccumulateGrad (one per leaf while a graph holds it; the leaf keeps
    only a weak reference, so the leaf and its node are no cycle)."""
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
