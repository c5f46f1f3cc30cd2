"""The recorder: what an op binding calls when one of its arguments requires grad and
grad mode is on (Note [where the graph is recorded] in csrc/python/autograd.c).

``dispatch(name, method, args, kwargs)`` runs the op again with grad mode off (the C
binding of ``pydevtensor.name``, or of ``Tensor.name`` when method is True), then lets
the op's Node class (derivatives.py, registered with ``@derivative``) record it.  An op
added later gets its backward by one class with ``@derivative("its_name")`` and one
PDT_AUTOGRAD_HOOK line at the top of its binding.

In-place ops (``x.add_(y)``, ``x[i] = v``, ``x.copy_(y)``, ``x.zero_()``) on a tensor in
the graph are recorded as the out-of-place op on a copy of x's old value, written back
into x (x's version counter moves, so a Node that saved x's old value refuses to run).
"""
import functools

from .. import _C
from .._numpy_names import torch_names
from .hooks import carry_retained
from .node import Node, edge_of, keep_tensors

RULES = {}  # op name -> Node subclass (or NOT_DIFFERENTIABLE)
NOT_DIFFERENTIABLE = object()
_forwards = {}


def derivative(*names):
    """Class decorator: the Node class records the ops with these names."""

    def register(cls):
        for n in names:
            RULES[n] = cls
        return cls

    return register


def not_differentiable(*names):
    for n in names:
        RULES[n] = NOT_DIFFERENTIABLE


def _get_T(x):
    return _C.Tensor.T.__get__(x)


def _to(x, device, dtype, non_blocking=False, copy=False):
    return _C.Tensor.to(x, device, dtype, non_blocking=non_blocking, copy=copy)


_SPECIAL_FORWARDS = {"T": _get_T, "to": _to}


def register_forward(name, f):
    """f runs the method `name` when it is recorded (instead of Tensor.name): for
    __getitem__, the C basic indexing that the recorded calls always are, not the
    Python dispatcher over basic and advanced indices, which would run twice."""
    _SPECIAL_FORWARDS[name] = f
    _forwards.pop((name, True), None)


def _forward(name, method):
    f = _forwards.get((name, method))
    if f is None:
        f = _SPECIAL_FORWARDS.get(name) or getattr(_C.Tensor if method else _C, name)
        _forwards[(name, method)] = f
    return f


def run_no_grad(f, *args, **kwargs):
    prev = _C._set_grad_enabled(False)
    try:
        return f(*args, **kwargs)
    finally:
        _C._set_grad_enabled(prev)


def record(cls, out, args, kwargs):
    """Makes a cls Node for out = op(*args, **kwargs) and marks out (a Tensor, or a
    tuple whose Tensors are the Node's outputs)."""
    node = cls.__new__(cls)
    node._saved = ()
    inputs = node.save(out, *args, **kwargs)
    edges = tuple([edge_of(x) for x in inputs])
    needs = tuple([e is not None for e in edges])
    if True not in needs:
        return out
    node.next_functions = edges
    node.needs_input_grad = needs
    if isinstance(out, _C.Tensor):
        if out.is_floating_point():
            out._set_grad_fn(node, 0)
    else:
        for nr in range(node.num_outputs):  # save() may set it (unbind)
            t = out[nr]
            if isinstance(t, _C.Tensor) and t.is_floating_point():
                t._set_grad_fn(node, nr)
    return out


def _base_name(name):
    return name[:-1]


def dispatch(name, method, args, kwargs):
    kwargs = kwargs or {}
    if name == "__setitem__" or (name.endswith("_") and not name.endswith("__")):
        return _in_place(name, args, kwargs)
    rule = RULES.get(name)
    if rule is None:
        raise NotImplementedError(
            f"autograd: {name}() has no derivative in pydevtensor yet; call it under "
            f"pydevtensor.no_grad() or on detached tensors")
    if kwargs.get("out") is not None:
        raise _out_refused(name)
    out = run_no_grad(_forward(name, method), *args, **kwargs)
    if rule is NOT_DIFFERENTIABLE:
        return out
    return _record_picked(rule, out, args, kwargs)


def _out_refused(name):
    return RuntimeError(f"{name}(): functions with out=... arguments don't support "
                        "automatic differentiation, but one of the arguments requires grad.")


def _record_picked(rule, out, args, kwargs):
    """record() by the Node the rule picks for these arguments, the keywords under
    PyTorch's names: the last step of dispatch() and of a recorded() op."""
    if kwargs:
        kwargs = torch_names(kwargs)
    if rule.pick is not None:
        rule = rule.pick(*args, **kwargs)
    return record(rule, out, args, kwargs)


# ---- ops written in Python ----

def _wants_grad(args, kwargs):
    """Grad mode is on and a Tensor among args/kwargs (or in a list or tuple there)
    requires grad."""
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, _C.Tensor):
            if a.requires_grad:
                return _C.is_grad_enabled()
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, _C.Tensor) and t.requires_grad:
                    return _C.is_grad_enabled()
    return False


def recorded(name):
    """Decorator for an op written in Python (pydevtensor/_ops_*.py) whose kernels
    have no derivative of their own: when grad mode is on and an argument requires
    grad, the op runs with grad mode off and RULES[name] records it, as dispatch()
    does for the C bindings.  The check is made in C (_C._RecordedOp, Note [recorded ops
    in C] in csrc/python/op_wrappers.c): a call with nothing to record goes straight to
    the op; the others to `slow` below, which asks again."""

    def wrap(fn):
        def slow(*args, **kwargs):
            if not _wants_grad(args, kwargs):
                return fn(*args, **kwargs)
            if kwargs.get("out") is not None:
                raise _out_refused(name)
            kwargs.pop("out", None)  # out=None given: no argument of the gradient rule
            out = run_no_grad(fn, *args, **kwargs)
            return _record_picked(RULES[name], out, args, kwargs)

        return functools.update_wrapper(_C._RecordedOp(fn, slow), fn)

    return wrap


# ---- in place ----

LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."


def _check_in_place(x):
    """Refuses an in-place change of x (not a view: views go to views.in_place_on_view)
    that autograd cannot follow."""
    if x.requires_grad and x.is_leaf:
        raise RuntimeError(LEAF_MSG)
    fn = x.grad_fn
    if fn is not None and "_view_outputs" in fn.__dict__:
        from .function import view_output_error  # late: function imports this module
        err = view_output_error(fn, x.output_nr)
        if err is not None:
            raise err


def _write_back(x, out):
    """x takes out's values (no recording: bumps x's version) and its place in the
    graph."""
    run_no_grad(_C.Tensor.copy_, x, out)
    if out.grad_fn is not None:
        carry_retained(x, out.grad_fn, out.output_nr)
        x._set_grad_fn(out.grad_fn, out.output_nr)
    return x


def _in_place(name, args, kwargs):
    x = args[0]
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{name}(): self must be a Tensor")
    if x._base is not None:  # Note [views and their base] in csrc/python/autograd_view.c
        from .views import in_place_on_view
        return in_place_on_view(x, lambda: _in_place_on(name, x, args, kwargs))
    _check_in_place(x)
    return _in_place_on(name, x, args, kwargs)


def in_place(x, compute):
    """x overwritten by compute(x), an op written in Python that records itself out of
    place (on a copy of x's value, when it saves its input): its result's node becomes
    x's, with the leaf and view rules of the in-place ops (F.silu(x, inplace=True) is
    SiluBackward0, as PyTorch's, not the copy_ of the result into x)."""
    if x._base is not None:  # Note [views and their base] in csrc/python/autograd_view.c
        from .views import in_place_on_view
        return in_place_on_view(x, lambda: _write_back(x, compute(x)))
    _check_in_place(x)
    return _write_back(x, compute(x))


def _in_place_on(name, x, args, kwargs):
    special = _IN_PLACE_SPECIAL.get(name)
    if special is not None:
        return special(x, *args[1:], **kwargs)
    base = _base_name(name)
    if RULES.get(base) in (None, NOT_DIFFERENTIABLE):
        raise NotImplementedError(f"autograd: {name}() has no derivative in pydevtensor yet")
    old = dispatch("to", True, (x, x.device, x.dtype), {"copy": True}) if x.requires_grad \
        else run_no_grad(_C.Tensor.clone, x)
    out = dispatch(base, True, (old,) + tuple(args[1:]), kwargs)
    if out.dtype != x.dtype:
        if not (out.is_floating_point() and x.is_floating_point()):
            raise RuntimeError(f"result type {out.dtype} can't be cast to the desired output "
                               f"type {x.dtype}")
        # a float64 operand into float32 x: cast back, recorded, as the op without
        # autograd writes it (the same kind; PyTorch's in-place rule)
        out = dispatch("to", True, (out, x.device, x.dtype), {})
    return _write_back(x, out)


class _Overwritten(Node):
    """x.zero_() / x.fill_(v) / x.copy_(src) on a tensor in the graph: x's old value gets
    a zero gradient (PyTorch's zeros_like(grad), so a leaf behind it gets a .grad of
    zeros, not None); src (copy_) gets g, brought back to src's dtype, device and
    shape."""

    zero_grad_inputs = (0,)  # the old value's zeros: a second derivative through them is 0

    def backward(self, g):
        src_meta = self.src_meta
        old = _C.zeros_like(g) if self.needs_input_grad[0] else None
        if src_meta is None:
            return (old,)
        from .derivatives import reduce_grad
        g = g if g.device == src_meta[2] else g.to(src_meta[2])
        return old, reduce_grad(g, src_meta)


class FillBackward0(_Overwritten):
    pass


# the random fills in place: the drawn values carry no gradient (PyTorch's)
UniformBackward0 = type("UniformBackward0", (_Overwritten,), {})
NormalBackward0 = type("NormalBackward0", (_Overwritten,), {})
ExponentialBackward0 = type("ExponentialBackward0", (_Overwritten,), {})
CauchyBackward0 = type("CauchyBackward0", (_Overwritten,), {})
LogNormalBackward0 = type("LogNormalBackward0", (_Overwritten,), {})


class ZeroBackward0(_Overwritten):
    pass


class CopyBackwards(_Overwritten):
    pass


def _overwrite(cls, x, src, do):
    fn = x.grad_fn
    if fn is not None and "_view_outputs" in fn.__dict__:
        _check_in_place(x)
    prev_edge = edge_of(x)
    run_no_grad(do)
    src_edge = edge_of(src) if src is not None else None
    if prev_edge is None and src_edge is None:
        return x
    node = cls.__new__(cls)
    node._saved = ()
    if src is not None:
        node.src_meta = (tuple(src.shape), src.dtype, src.device)
        node.next_functions = (prev_edge, src_edge)
    else:
        node.src_meta = None
        node.next_functions = (prev_edge,)
    node.needs_input_grad = (prev_edge is not None,) + (
        () if src is None else (src_edge is not None,))
    carry_retained(x, node, 0)
    x._set_grad_fn(node, 0)
    return x


def _zero_(x):
    return _overwrite(ZeroBackward0, x, None, lambda: _C.Tensor.zero_(x))


def _fill_(x, *args, **kwargs):
    return _overwrite(FillBackward0, x, None, lambda: _C.Tensor.fill_(x, *args, **kwargs))


def _copy_(x, src, *args, **kwargs):
    return _overwrite(CopyBackwards, x, src, lambda: _C.Tensor.copy_(x, src, *args, **kwargs))


def record_setitem(x, key, value, cls):
    """x[key] = value (advanced indexing, written in Python) on a tensor in the
    graph, recorded as a cls Node (IndexPutBackward0)."""
    if x._base is not None:
        from .views import in_place_on_view
        return in_place_on_view(x, lambda: _setitem(x, key, value, cls))
    _check_in_place(x)
    return _setitem(x, key, value, cls)


def _setitem(x, key, value, cls=None):
    if cls is None:
        from .derivatives_shape import CopySlices as cls
    prev_edge = edge_of(x)
    value_edge = edge_of(value)
    run_no_grad(_C.Tensor.__setitem__, x, key, value)
    if prev_edge is None and value_edge is None:
        return None
    node = cls.__new__(cls)
    node._saved = ()
    node.key = keep_tensors(node, key)  # an advanced key's tensors, packed by the hooks
    node.value_meta = (tuple(value.shape), value.dtype, value.device) \
        if isinstance(value, _C.Tensor) else None
    node.next_functions = (prev_edge, value_edge)
    node.needs_input_grad = (prev_edge is not None, value_edge is not None)
    carry_retained(x, node, 0)
    x._set_grad_fn(node, 0)
    return None


def overwrite_in_place(x, cls, do):
    """x overwritten by do() (a random fill written in Python, several steps in place):
    run without recording and recorded as one cls node, x's old value getting a zero
    gradient; a leaf that requires grad is refused, as every in-place op refuses it."""
    if not (x.requires_grad and _C.is_grad_enabled()):
        return do()
    if x._base is not None:  # Note [views and their base] in csrc/python/autograd_view.c
        from .views import in_place_on_view
        return in_place_on_view(x, lambda: _overwrite(cls, x, None, do))
    _check_in_place(x)
    return _overwrite(cls, x, None, do)


def _uniform_(x, *args, **kwargs):
    return _overwrite(UniformBackward0, x, None,
                      lambda: _C.Tensor.uniform_(x, *args, **kwargs))


def _normal_(x, *args, **kwargs):
    return _overwrite(NormalBackward0, x, None,
                      lambda: _C.Tensor.normal_(x, *args, **kwargs))


_IN_PLACE_SPECIAL = {"zero_": _zero_, "fill_": _fill_, "copy_": _copy_, "__setitem__": _setitem,
                     "uniform_": _uniform_, "normal_": _normal_}
