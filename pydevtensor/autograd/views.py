"""In-place ops on views, and views whose base changed (Note [views and their base] in
csrc/python/autograd_view.c).

A view ``v`` knows the tensor it was taken of (``v._base``).  When an op writes into
``v`` in place with grad mode on, the base takes a new place in the graph: a
``CopySlices`` node whose backward sends the gradient of the written elements to the
view's new value and the rest to the base's old value, as PyTorch's CopySlices.  A
base that required no grad thus joins the graph when a view of it is written with a
value that requires grad.  The view itself (and every other view of the base, the
first time it is used after the change) then takes an ``AsStridedBackward0`` node: its
elements picked out of the base's new value.
"""
import numpy as np

from .. import _C
from .hooks import carry_retained
from .node import Node, edge_of, linear_in_g

NO_GRAD_VIEW, MULTI_OUTPUT_VIEW = 1, 2

_NO_GRAD_MSG = (
    "A view was created in no_grad mode and is being modified inplace with grad mode "
    "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
    "can clarify your code by moving both the view and the inplace either both inside the "
    "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
    "want the inplace to be tracked).")
_MULTI_TAIL = (
    "This view is the output of a function that returns multiple views. Such functions do "
    "not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one.")
VIEW_OF_LEAF_MSG = ("a view of a leaf Variable that requires grad is being used in an "
                    "in-place operation.")


def _op_name(fn):
    """SplitBackward0 -> Split (PyTorch's messages name the op so)."""
    if fn is None:
        return "a function that returns multiple views"
    name = fn.name()
    for tail in ("Backward0", "Backward"):
        if name.endswith(tail):
            return name[:-len(tail)]
    return name


def _flat_index(t):
    """The storage index of each of t's elements (a NumPy int64 array of t's shape)."""
    idx = np.asarray(t.storage_offset(), dtype=np.int64)
    for n, s in zip(t.shape, t.stride()):
        idx = idx[..., None] + np.arange(n, dtype=np.int64) * s
    return idx


class _Geometry:
    """Where view's elements sit among base's (both of one storage): ``pos`` gives,
    for each element of the view, its position in base's row-major order; ``keep``
    marks base's elements that the view does not cover.  Built on the host once per
    node; copied to a device the first time a backward there needs it."""

    def __init__(self, base, view):
        ib, iv = _flat_index(base).ravel(), _flat_index(view)
        lo = min(int(ib.min(initial=0)), int(iv.min(initial=0)))
        span = max(int(ib.max(initial=0)), int(iv.max(initial=0))) - lo + 1
        where = np.full(span, -1, dtype=np.int64)
        where[ib - lo] = np.arange(ib.size, dtype=np.int64)
        pos = where[iv - lo]
        if (pos < 0).any():  # a view's elements always lie in its base's
            raise RuntimeError("autograd: a view reaches outside its base's elements")
        keep = np.ones(ib.size, dtype=bool)
        keep[pos.ravel()] = False
        self.base_shape, self.view_shape = tuple(base.shape), tuple(view.shape)
        self._host = (pos, keep.reshape(self.base_shape))
        self._on = {}

    def on(self, device):
        got = self._on.get(device)
        if got is None:
            pos, keep = self._host
            got = (_C.tensor(pos, device=device), _C.tensor(keep, device=device))
            self._on[device] = got
        return got


class CopySlices(Node):
    """base's new value after an in-place op on its view: the view's elements from the
    view's new value (the second edge), the others from base's old value (the first)."""

    def backward(self, g):
        pos, keep = self.geometry.on(g.device)
        g_rest = g * keep if self.needs_input_grad[0] else None
        g_view = g.reshape(-1)[pos] if self.needs_input_grad[1] else None
        return g_rest, g_view


class AsStridedBackward0(Node):
    """A view as its base's elements (the view regenerated after an in-place change of
    the base or of a view of it)."""

    is_view = True

    def backward(self, g):
        geo = self.geometry
        pos, _ = geo.on(g.device)
        n = 1
        for s in geo.base_shape:
            n *= s

        def make(gv):
            out = _C.zeros(n, dtype=gv.dtype, device=gv.device)
            _C._index_add(out, 0, pos.reshape(-1), gv.reshape(-1))
            return out.reshape(geo.base_shape)

        return linear_in_g(make, lambda g2: g2.reshape(-1)[pos], g)


def _edge_node(cls, edges, geometry):
    node = cls.__new__(cls)
    node._saved = ()
    node.geometry = geometry
    node.next_functions = edges
    node.needs_input_grad = tuple(e is not None for e in edges)
    return node


def regenerate(view, geometry=None):
    """view (whose base requires grad) takes its elements of its base's current value
    as its place in the graph (the C refresh calls this for a stale view)."""
    base = view._base
    if view._view_flags & MULTI_OUTPUT_VIEW:
        fn = view.grad_fn
        raise RuntimeError(f"Output {view.output_nr} of {_op_name(fn)} is a view and its base "
                           "or another view of its base has been modified inplace. "
                           + _MULTI_TAIL)
    edge = edge_of(base)
    if edge is None:
        return
    node = _edge_node(AsStridedBackward0, (edge,), geometry or _Geometry(base, view))
    carry_retained(view, node, 0)
    view._set_grad_fn(node, 0)


def check_view_in_place(x):
    """Refuses an in-place op in grad mode on the view x where PyTorch does."""
    flags = x._view_flags
    if flags & NO_GRAD_VIEW:
        raise RuntimeError(_NO_GRAD_MSG if not flags & MULTI_OUTPUT_VIEW else
                           _NO_GRAD_MSG.split(" Given")[0] + " " + _MULTI_TAIL)
    fn = x.grad_fn
    if fn is not None and "_view_outputs" in fn.__dict__:
        from .function import view_output_error  # late: function imports dispatch
        err = view_output_error(fn, x.output_nr)
        if err is not None:
            raise err
    if flags & MULTI_OUTPUT_VIEW:
        if fn is None:
            raise RuntimeError(_NO_GRAD_MSG.split(" Given")[0] + " " + _MULTI_TAIL)
        raise RuntimeError(f"Output {x.output_nr} of {_op_name(fn)} is a view and is being modified "
                           f"inplace. {_MULTI_TAIL}")
    if x.requires_grad and x.is_leaf:
        from .dispatch import LEAF_MSG
        raise RuntimeError(LEAF_MSG)
    base = x._base
    if base.requires_grad and base.is_leaf:
        raise RuntimeError(VIEW_OF_LEAF_MSG)


def in_place_on_view(x, do):
    """do() records an in-place op on the view x (x's new value gets its node); then
    x's base takes a CopySlices node and x an AsStridedBackward0 of it."""
    check_view_in_place(x)
    base_edge = edge_of(x._base)
    out = do()
    rebase(x, base_edge)
    return out


def rebase(x, base_edge):
    """After x (a view) took the node of its new value: its base, whose old place in
    the graph was base_edge, takes a CopySlices node, and x its elements of it."""
    fn = x.grad_fn
    if fn is None:
        return
    base = x._base
    geometry = _Geometry(base, x)
    node = _edge_node(CopySlices, (base_edge, (fn, x.output_nr)), geometry)
    carry_retained(base, node, 0)
    base._set_grad_fn(node, 0)
    regenerate(x, geometry)


_C._set_view_regenerator(regenerate)
