"""autograd.Function: an op whose forward and backward the user writes (as
torch.autograd.Function), and the once_differentiable decorator.

``MyOp.apply(*args)`` runs ``MyOp.forward(ctx, *args)`` with grad mode off, then, when
grad mode is on and a Tensor argument requires grad, records one Node for the call:
the ctx object itself (an instance of ``MyOpBackward``, a Node subclass made once per
Function class), so ``y.grad_fn`` is the ctx, as in PyTorch.  The engine calls its
apply(), which runs ``MyOp.backward(ctx, *grads)`` and checks what it returns against
the forward's inputs (count, shapes, devices) before the gradients travel on.

Note [saved outputs of a Function]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A tensor the forward returns and also saves would make a cycle (output -> its grad_fn,
the ctx -> the saved output).  As the other Nodes do (node.py), the ctx keeps a
detached alias instead, and remembers which output it was: when the backward runs
with grad mode on (create_graph=True), ``ctx.saved_tensors`` gives that alias with
the ctx as its grad_fn again, so a second derivative flows through the output's
dependence on the inputs.
"""
import functools

from .. import _C
from .hooks import carry_retained
from .node import FREED_MSG, Node, check_versions, delay_error, edge_of
from .saved_hooks import HOOKS as _SAVED_HOOKS
from .saved_hooks import pack_saved, unpack_saved
from .views import check_view_in_place, rebase

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The methods of the ``ctx`` argument a :class:`Function`'s forward and backward
    get (as torch.autograd.function.FunctionCtx).

    Examples
    --------
    >>> class Square(pydevtensor.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = pydevtensor.tensor([3.], requires_grad=True)
    >>> Square.apply(x).sum().backward()
    >>> x.grad
    tensor([6.])
    """

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Keeps tensors (or None) for the backward, which reads them back as
        ``ctx.saved_tensors``; an in-place change of one after this makes the
        backward raise.

        Parameters
        ----------
        *tensors : Tensor or None
            Inputs, outputs or intermediate values of the forward.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When an argument is neither a Tensor nor None.

        Examples
        --------
        >>> class Cube(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x ** 2 * g
        >>> x = pydevtensor.tensor([2.], requires_grad=True)
        >>> Cube.apply(x).backward()
        >>> x.grad
        tensor([12.])
        """
        for k, t in enumerate(tensors):
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {k} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Declares the inputs the forward changed in place (and returns): they take
        the Function's node as their place in the graph.

        Parameters
        ----------
        *tensors : Tensor
            Inputs modified in place.

        Returns
        -------
        None

        Examples
        --------
        >>> class AddOne(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.mark_dirty(x)
        ...         return x.add_(1)
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g
        >>> y = pydevtensor.ones(2, requires_grad=True) * 1
        >>> AddOne.apply(y).grad_fn.name()
        'AddOneBackward'
        """
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (indices, masks): they do not
        require grad, and the backward gets zeros (or None, see
        set_materialize_grads) for them.

        Parameters
        ----------
        *tensors : Tensor
            Outputs of the forward.

        Returns
        -------
        None

        Examples
        --------
        >>> class Sorted(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         values, idx = x.sort()
        ...         ctx.mark_non_differentiable(idx)
        ...         ctx.save_for_backward(idx)
        ...         return values, idx
        ...     @staticmethod
        ...     def backward(ctx, g, g_idx):
        ...         (idx,) = ctx.saved_tensors
        ...         out = pydevtensor.zeros_like(g)
        ...         out[idx] = g
        ...         return out
        >>> x = pydevtensor.tensor([2., 1.], requires_grad=True)
        >>> v, i = Sorted.apply(x)
        >>> i.requires_grad
        False
        """
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether the backward gets zeros (True, the default) or None for the
        gradients of outputs that received none.

        Parameters
        ----------
        value : bool

        Returns
        -------
        None

        Examples
        --------
        >>> class Two(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.set_materialize_grads(False)
        ...         return x * 1, x * 2
        ...     @staticmethod
        ...     def backward(ctx, g1, g2):
        ...         return g1 if g2 is None else g1 + 2 * g2
        >>> x = pydevtensor.ones(1, requires_grad=True)
        >>> Two.apply(x)[0].backward()
        >>> x.grad
        tensor([1.])
        """
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The Node (and ctx) of one Function call; ``_forward_cls`` is the Function."""

    _forward_cls = None
    _materialize = True
    _to_save = ()
    _dirty = ()
    _non_differentiable = ()

    def __init__(self, needs):
        self._saved = ()
        self._versions = ()
        self._output_slots = ()
        self.next_functions = ()
        self.needs_input_grad = needs

    @property
    def saved_tensors(self):
        """The tensors save_for_backward kept (Note [saved outputs of a Function]).

        Examples
        --------
        >>> class Id(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x, None)
        ...         return x.clone()
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g
        >>> y = Id.apply(pydevtensor.ones(1, requires_grad=True))
        >>> len(y.grad_fn.saved_tensors)
        2
        """
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MSG)
        if "_packed" in self.__dict__:  # Note [saved tensors hooks]
            saved = unpack_saved(self, self._versions)
        else:
            check_versions(self.name(), [t for t in saved if t is not None], self._versions)
        if self._output_slots and _C.is_grad_enabled():
            saved = list(saved)
            for k, nr in self._output_slots:
                saved[k] = saved[k].detach()._set_grad_fn(self, nr)
        return tuple(saved)

    def release(self):
        if self._saved:  # as Node.release: a ctx that saved nothing can run again
            self._saved = None
            self.__dict__.pop("_packed", None)

    def apply(self, grads):
        cls = self._forward_cls
        name = self.name()
        grads = list(grads) + [None] * (len(self._output_metas) - len(grads))
        if self._materialize:
            for k, g in enumerate(grads):
                if g is None and self._output_metas[k] is not None:
                    shape, dtype, device = self._output_metas[k]
                    grads[k] = _C.zeros(shape, dtype=dtype, device=device)
        result = _user_backward(cls)(self, *grads)
        result = result if isinstance(result, tuple) else (result,)
        result = _check_gradients(name, result, self._input_metas, self.needs_input_grad)
        # one per Tensor input, as next_functions
        return tuple(g for g, m in zip(result, self._input_metas) if m is not None)


def _user_backward(cls):
    """cls's backward, or its vjp (PyTorch's aliases: a Function defines one of them)."""
    backward, vjp = cls.backward, cls.vjp
    if backward is Function.backward:
        return vjp
    if vjp is not Function.vjp:
        raise RuntimeError(f"{cls.__name__}: implementing both 'backward' and 'vjp' for a "
                           "custom Function is not allowed. You should only implement one "
                           "of them.")
    return backward


def _check_gradients(name, result, metas, needs):
    n = len(metas)
    if len(result) != n:
        if len(result) < n or any(g is not None for g in result[n:]):
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        result = result[:n]
    out = []
    for k, (g, m) in enumerate(zip(result, metas)):
        if g is None:
            out.append(None)
            continue
        if m is None:
            raise RuntimeError(f"function {name} returned a gradient different than None at "
                               f"position {k}, but the corresponding forward input was not a "
                               "Tensor")
        if not isinstance(g, _C.Tensor):
            raise TypeError(f"function {name} returned a {type(g).__name__} as the gradient "
                            f"at position {k}; expected a Tensor or None")
        if not needs[k]:
            out.append(None)
            continue
        shape, dtype, device = m
        if tuple(g.shape) != shape:
            if not _expandable(shape, tuple(g.shape)):
                raise RuntimeError(f"function {name} returned an invalid gradient at index {k} "
                                   f"- got {list(g.shape)} but expected shape compatible with "
                                   f"{list(shape)}")
            from .derivatives import reduce_grad
            g = reduce_grad(g, m)
        if g.device != device:
            raise RuntimeError(f"function {name} returned an invalid gradient at index {k} - "
                               f"expected device {device} but got {g.device}")
        if g.dtype != dtype:  # any dtype, integers and bool too, as PyTorch
            g = g.to(dtype)
        out.append(g)
    return tuple(out)


def _expandable(shape, to):
    """Whether shape broadcasts to the shape `to`."""
    if len(shape) > len(to):
        return False
    return all(s == 1 or s == t for s, t in zip(shape[::-1], to[::-1]))


def _meta(x):
    return (tuple(x.shape), x.dtype, x.device) if isinstance(x, _C.Tensor) else None


class _FunctionMeta(type):
    """Makes each Function subclass's Node class (``<Name>Backward``) once."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__})


class Function(metaclass=_FunctionMeta):
    """Base class of an op with a hand-written backward (as torch.autograd.Function).

    Subclass it with two static methods, ``forward(ctx, *args)`` and ``backward(ctx,
    *grad_outputs)`` (one gradient, or None, per forward argument; or ``vjp``, its
    alias: define one of the two), and call it as ``MyOp.apply(*args)``.  Keywords
    given to apply() name the forward's parameters after the positional arguments (in
    order, no gap): they are inputs as the positional ones are, and the defaults left
    out are none.  ``grad_fn.next_functions`` has one edge per Tensor input.  Or write ``forward(*args)`` without ctx and a
    ``setup_context(ctx, inputs, output)`` that saves what backward needs (PyTorch's
    newer form).  The forward runs with grad mode off; the ctx is the result's
    ``grad_fn``.  ``ctx`` offers save_for_backward/saved_tensors, needs_input_grad,
    mark_dirty, mark_non_differentiable and set_materialize_grads; other attributes
    may be set on it freely.

    The backward is checked when it runs: the number of gradients must be the
    number of forward arguments (extra ones must be None), a non-Tensor argument gets
    None, and each gradient has its input's shape (or one that sums to it by
    broadcasting) and device; one of another dtype is cast to its input's.

    Examples
    --------
    >>> class Exp(pydevtensor.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp()
    ...         ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (y,) = ctx.saved_tensors
    ...         return g * y
    >>> x = pydevtensor.zeros(2, requires_grad=True)
    >>> y = Exp.apply(x)
    >>> y.grad_fn.name()
    'ExpBackward'
    >>> y.sum().backward()
    >>> x.grad
    tensor([1., 1.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """The op's result(s) from its arguments (runs with grad mode off).

        Parameters
        ----------
        ctx : FunctionCtx
            Where to keep what backward needs (absent in the setup_context form).
        *args
            The arguments given to apply().

        Returns
        -------
        Tensor or tuple

        Raises
        ------
        NotImplementedError
            When the subclass does not define it.

        Examples
        --------
        >>> class Double(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> Double.apply(pydevtensor.ones(1))
        tensor([2.])
        """
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """In the form whose forward takes no ctx: saves what backward needs from the
        inputs (a tuple) and the output.

        Parameters
        ----------
        ctx : FunctionCtx
        inputs : tuple
            The arguments given to apply().
        output : Tensor or tuple
            What forward returned.

        Returns
        -------
        None

        Examples
        --------
        >>> class Mul(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(x, y):
        ...         return x * y
        ...     @staticmethod
        ...     def setup_context(ctx, inputs, output):
        ...         ctx.save_for_backward(*inputs)
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         x, y = ctx.saved_tensors
        ...         return g * y, g * x
        >>> x = pydevtensor.tensor([2.], requires_grad=True)
        >>> Mul.apply(x, pydevtensor.tensor([5.])).backward()
        >>> x.grad
        tensor([5.])
        """
        raise NotImplementedError("setup_context is not overridden")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradients of the forward's arguments from those of its outputs.

        Parameters
        ----------
        ctx : FunctionCtx
        *grad_outputs : Tensor or None
            One per output of forward.

        Returns
        -------
        Tensor, None, or a tuple of them (one per forward argument)

        Raises
        ------
        NotImplementedError
            When the subclass does not define it.

        Examples
        --------
        >>> class Neg(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return -x
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return -g
        >>> x = pydevtensor.ones(1, requires_grad=True)
        >>> Neg.apply(x).backward()
        >>> x.grad
        tensor([-1.])
        """
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs the op and records it (see the class).

        Parameters
        ----------
        *args, **kwargs
            The forward's arguments.

        Returns
        -------
        Tensor or tuple
            What forward returned, the Tensors marked with the op's node.

        Raises
        ------
        RuntimeError
            When a leaf that requires grad is marked dirty.

        Examples
        --------
        >>> class Half(pydevtensor.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x / 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g / 2
        >>> x = pydevtensor.ones(2, requires_grad=True)
        >>> Half.apply(x)
        tensor([0.5000, 0.5000], grad_fn=<HalfBackward>)
        """
        if cls.setup_context is not Function.setup_context:
            # the setup_context form: forward's defaults and keywords bound into args, as
            # PyTorch's bind_default_args (setup_context sees every input)
            args = _bound(cls.forward, args, kwargs)
        elif kwargs:
            args = _by_position(cls.forward, args, kwargs)
        recording = _C.is_grad_enabled() and any(
            isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        needs = tuple(isinstance(a, _C.Tensor) and a.requires_grad and recording for a in args)
        ctx = cls._backward_cls(needs)
        new_style = cls.setup_context is not Function.setup_context
        prev = _C._set_grad_enabled(False)
        try:
            if new_style:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
        if not recording:
            ctx._saved = tuple(ctx._to_save)  # saved_tensors works on ctx even so
            ctx._versions = tuple(t._version for t in ctx._saved if t is not None)
            ctx._to_save = ()
            return out
        return _record(ctx, args, out)


def _bound(forward, args, kwargs):
    """args and kwargs of forward as one positional tuple, its defaults filled in."""
    import inspect
    sig = inspect.signature(forward)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:  # keyword-only parameters have no place among the inputs
        raise TypeError(f"{forward.__qualname__}: keyword-only arguments are not supported by "
                        f"Function.apply (got {sorted(bound.kwargs)})")
    return tuple(bound.args)


def _by_position(forward, args, kwargs):
    """args and the keywords that name forward's next parameters (after ctx), as one
    positional tuple: the inputs of a forward that takes ctx, as PyTorch's (no
    defaults filled in, no keyword-only or gap)."""
    import inspect
    sig = inspect.signature(forward)
    params = list(sig.parameters.values())[1:]  # ctx dropped
    try:
        bound = sig.replace(parameters=params).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{forward.__qualname__}(): {e}") from None
    if bound.kwargs:  # a keyword-only parameter, or one after a gap left to its default
        nxt = params[len(bound.args)] if len(bound.args) < len(params) else None
        gap = f", '{nxt.name}' missing" if nxt is not None and \
            nxt.kind == nxt.POSITIONAL_OR_KEYWORD else ""
        raise TypeError(f"{forward.__qualname__}(): the inputs of Function.apply are "
                        f"positional: keywords may name the parameters after the positional "
                        f"arguments in order only (got {sorted(bound.kwargs)}{gap})")
    return tuple(bound.args)


def _record(ctx, args, out):
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    dirty = {id(t) for t in ctx._dirty}
    if not dirty <= {id(o) for o in outs}:
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    non_diff = {id(t) for t in ctx._non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, _C.Tensor)}
    # views marked dirty: their bases move in the graph too (Note [views and their base])
    dirty_views = [(nr, o) for nr, o in enumerate(outs)
                   if isinstance(o, _C.Tensor) and id(o) in dirty and o._base is not None]
    for _, o in dirty_views:
        check_view_in_place(o)
    base_edges = [edge_of(o._base) for _, o in dirty_views]
    # one edge per Tensor input, as PyTorch's (the gradients of the others dropped)
    ctx.next_functions = tuple(edge_of(a) for a in args if isinstance(a, _C.Tensor))
    ctx._input_metas = tuple(_meta(a) for a in args)
    ctx._output_metas = tuple(_meta(o) for o in outs)
    ctx.num_outputs = len(outs)
    marked = []
    views = []  # Note [views made by a Function]
    for nr, o in enumerate(outs):
        if not isinstance(o, _C.Tensor):
            marked.append(o)
            continue
        differentiable = id(o) not in non_diff  # asked of the object forward returned
        if id(o) in dirty:
            if o.is_leaf and o.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
        elif id(o) in inputs:
            o = o.detach()  # an input returned as it is: an alias that takes the node
            views.append(nr)
        elif _overlaps_any(o, args):
            views.append(nr)
        if not differentiable or not o.is_floating_point():
            if o.requires_grad and id(o) not in dirty:
                o = o.detach()
            marked.append(o)
            continue
        if id(o) in dirty:
            carry_retained(o, ctx, nr)
        o._set_grad_fn(ctx, nr)
        marked.append(o)
    # Note [saved outputs of a Function]
    by_id = {id(o): nr for nr, o in enumerate(outs) if isinstance(o, _C.Tensor)}
    saved, slots = [], []
    for k, t in enumerate(ctx._to_save):
        nr = by_id.get(id(t)) if t is not None else None
        if nr is not None and marked[nr].grad_fn is ctx:
            slots.append((k, nr))
            t = t.detach()
        saved.append(t)
    ctx._saved = tuple(saved)
    ctx._versions = tuple(t._version for t in saved if t is not None)
    if _SAVED_HOOKS and saved:  # Note [saved tensors hooks]
        ctx._saved = pack_saved(ctx, ctx._saved)
    ctx._output_slots = tuple(slots)
    ctx._view_outputs = frozenset(views)
    ctx._to_save = ctx._dirty = ctx._non_differentiable = ()
    for (nr, _), base_edge in zip(dirty_views, base_edges):
        if marked[nr].grad_fn is ctx:
            rebase(marked[nr], base_edge)
    return marked[0] if single else tuple(marked)


# Note [views made by a Function]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# An output that is an input returned as it is, or a view of one (memory shared), and
# not marked dirty: changing it in place would change the input behind the Function's
# backward, so that is refused, as PyTorch does (dispatch._check_in_place).

def _extent(t):
    """The byte range [start, end) that t's elements span."""
    start = t.data_ptr()
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))
    return start, start + span * t.element_size()


def _overlaps_any(o, args):
    if o.numel() == 0:
        return False
    lo, hi = _extent(o)
    for a in args:
        if isinstance(a, _C.Tensor) and a.numel() and a.device == o.device:
            alo, ahi = _extent(a)
            if lo < ahi and alo < hi:
                return True
    return False


def view_output_error(fn, nr):
    """The error for an in-place change of output nr of Function node fn when it is a
    view (Note [views made by a Function]), or None."""
    if nr not in getattr(fn, "_view_outputs", ()):
        return None
    cls = fn._forward_cls
    name = fn.name() if cls is None else getattr(cls, "_view_name", cls.__name__)
    return RuntimeError(
        f"Output {nr} of {name} is a view and is being modified inplace. This view was "
        "created inside a custom Function (or because an input was returned as-is) and the "
        "autograd logic to handle view+inplace would override the custom backward "
        "associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function.")


def once_differentiable(fn):
    """Decorator for a Function's backward that is not itself differentiable: it runs
    with grad mode off, and differentiating its results (create_graph=True) raises
    instead of giving a wrong second derivative (as torch.autograd.function's): they
    carry a node that raises when one of the incoming gradients requires grad, and
    do not require grad otherwise.

    Parameters
    ----------
    fn : callable
        The ``backward(ctx, *grads)``.

    Returns
    -------
    callable

    Examples
    --------
    >>> from pydevtensor.autograd.function import once_differentiable
    >>> class Sq(pydevtensor.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = pydevtensor.tensor([3.], requires_grad=True)
    >>> pydevtensor.autograd.grad(Sq.apply(x), x)
    (tensor([6.]),)
    """

    return _once_differentiable(fn)


def _once_differentiable(fn, inputs_too=False):
    """once_differentiable(fn); with inputs_too the error node also takes the edges of
    the Function's inputs, so that its results require grad under create_graph=True
    even when no incoming gradient does (checkpoint: a second order through it raises
    rather than being silently lost)."""

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        prev = _C._set_grad_enabled(False)
        try:
            result = fn(ctx, *grads)
        finally:
            _C._set_grad_enabled(prev)
        if not prev:
            return result
        name = ctx.name() if isinstance(ctx, Node) else fn.__qualname__
        # the gradients' edges, as PyTorch's: unless one of them requires grad, the
        # result does not either (and backward through it says so)
        edges = tuple(edge_of(g) for g in grads)
        if inputs_too:
            edges += tuple(e for e in getattr(ctx, "next_functions", ()) if e[0] is not None)
        return delay_error(result, edges,
                           "trying to differentiate twice a function that was marked with "
                           f"@once_differentiable ({name})")

    return wrapper
