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


def _flat_index(shape, strides, offset, device):
    """The storage index of each element of the strided layout (an int64 tensor of
    that shape on device)."""
    idx = _C.full((), offset, dtype=_C.int64, device=device)
    for n, st in zip(shape, strides):
        idx = idx.unsqueeze(-1) + _C.arange(n, dtype=_C.int64, device=device) * st
    return idx


def _extent(shape, strides, offset):
    """The lowest and highest storage index of a non-empty strided layout."""
    lo = hi = offset
    for n, st in zip(shape, strides):
        lo += min(0, (n - 1) * st)
        hi += max(0, (n - 1) * st)
    return lo, hi


class _Geometry:
    """Where a view's elements sit among its base's (one storage).  Kept as the two
    layouts (shape, strides, storage offset); the first backward on a device makes
    there ``pos``, for each element of the view its position in base's row-major
    order, and ``keep``, which of base's elements the view does not cover (O(base's
    size), as PyTorch's CopySlices' backward, and on the device: no host copy)."""

    def __init__(self, base, view):
        self.base_layout = (tuple(base.shape), base.stride(), base.storage_offset())
        self.view_layout = (tuple(view.shape), view.stride(), view.storage_offset())
        self.base_shape = self.base_layout[0]
        self._on = {}

    def on(self, device):
        got = self._on.get(device)
        if got is None:
            prev = _C._set_grad_enabled(False)
            try:
                got = self._on[device] = self._make(device)
            finally:
                _C._set_grad_enabled(prev)
        return got

    def _make(self, device):
        ib = _flat_index(*self.base_layout, device).reshape(-1)
        iv = _flat_index(*self.view_layout, device).reshape(-1)
        nb = ib.shape[0]
        if nb == 0 or iv.shape[0] == 0:
            return (_C.zeros(self.view_layout[0], dtype=_C.int64, device=device),
                    _C.ones(self.base_shape, dtype=_C.bool, device=device))
        (lb, hb), (lv, hv) = _extent(*self.base_layout), _extent(*self.view_layout)
        lo = min(lb, lv)  # from the layouts: no read of the device
        span = max(hb, hv) - lo + 1
        where = _C.zeros((span,), dtype=_C.int64, device=device)
        _C._index_put(where, 0, (ib - lo).contiguous(),
                      _C.arange(nb, dtype=_C.int64, device=device), True)
        pos = where[(iv - lo).contiguous()]  # a view's elements lie in its base's
        keep = _C.ones((nb,), dtype=_C.bool, device=device)
        _C._index_put(keep, 0, pos, _C.zeros((pos.shape[0],), dtype=_C.bool, device=device),
                      True)
        return pos.reshape(self.view_layout[0]), keep.reshape(self.base_shape)


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
            # float16 and bfloat16 summed in float32 (index_add takes neither) and rounded
            # once: conv_transpose3d's slices added in place into its output
            half = gv.dtype == _C.float16 or gv.dtype == _C.bfloat16
            out = _C.zeros(n, dtype=_C.float32 if half else gv.dtype, device=gv.device)
            # out is new: pos (the view's positions in its base, in range by
            # construction) may be checked on the device, no read back to the host
            _C._index_add(out, 0, pos.reshape(-1), (gv.float() if half else gv).reshape(-1),
                          True)
            return (out.to(gv.dtype) if half else out).reshape(geo.base_shape)

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
