"""The derivatives of selection and indexing (issue 17): where, index_select, gather,
advanced indexing (``x[mask]``, ``x[idx]`` and ``x[idx] = v``), sort and topk.

Their backwards put the incoming gradient back where the forward took it from: a
zero tensor of the input's shape receives it through the core's index_add
(pdt_index.h), so an element selected more than once (a repeated index) gets the sum
of its gradients, as PyTorch's scatter-add does.  The ops themselves are written in
Python (pydevtensor/_ops_index.py, _ops_getitem.py, _ops_sort.py) and recorded through
``dispatch.recorded``: their kernels (_index_select, _index_put, _sort) have no
derivative, so composing their backward from them would not record a graph.
"""
from .. import _C
from .derivatives import meta, reduce_grad
from .derivatives_shape import CopySlices
from .dispatch import derivative
from .node import Node, keep_tensors, kept_tensors, linear_in_g


def _ops():
    from .. import _ops_index  # imported late: _ops_index imports the recorder
    return _ops_index


def _zeros(m):
    shape, dtype, device = m
    return _C.zeros(shape, dtype=dtype, device=device)


def _wide(g):
    """g in a dtype index_add adds in: float32 for a narrower float (float16 and
    bfloat16 gradients are summed in float32, then brought back by reduce_grad)."""
    return g if g.dtype in (_C.float32, _C.float64) else g.to(_C.float32)


def scatter_add_along(m, dim, index, g):
    """A zero tensor of meta m with g added at index (a tensor of g's shape holding
    positions along dim, as gather's index), in m's dtype: gather's backward."""
    shape, g = m[0], _wide(g)
    flat = _ops().gather_offsets(shape, g.device, dim, index, deferred_ok=True)
    n = 1
    for s in shape:
        n *= s
    g_shape = tuple(g.shape)

    def make(g):
        out = _C.zeros((n,), dtype=g.dtype, device=g.device)
        _C._index_add(out, 0, flat, g.reshape(-1), True)  # out is new
        return out

    out = linear_in_g(make, lambda g2, flat: g2[flat].reshape(g_shape), g, flat)
    return reduce_grad(out.reshape(shape), m)


@derivative("where")
class WhereBackward0(Node):
    """input where condition, else other: each gets the gradient where it was
    chosen (zero elsewhere), summed back to its own shape."""

    def save(self, result, condition, input=None, other=None):
        self.condition = keep_tensors(self, condition)
        self.metas = (meta(input), meta(other))
        return input, other

    def backward(self, g):
        zero = _C.zeros((), dtype=g.dtype, device=g.device)
        where = _ops()._where  # recorded under create_graph=True
        where = where if _C.is_grad_enabled() else where.__wrapped__
        need_a, need_b = self.needs_input_grad
        ma, mb = self.metas
        condition = kept_tensors(self, self.condition)
        ga = reduce_grad(where(condition, g, zero), ma) if need_a else None
        gb = reduce_grad(where(condition, zero, g), mb) if need_b else None
        return ga, gb


@derivative("masked_fill")
class MaskedFillBackward0(Node):
    """masked_fill(input, mask, value) with a number value (PyTorch's formula): input's
    gradient is g.masked_fill(mask, 0), summed back to its shape where the mask widened
    the result; a 0-d tensor value (MaskedFillBackward1) gets the sum of g where the mask
    is set."""

    @staticmethod
    def pick(input, mask, value):
        return MaskedFillBackward1 if isinstance(value, _C.Tensor) else MaskedFillBackward0

    def save(self, result, input, mask, value):
        self.mask = keep_tensors(self, mask)
        self.metas = (meta(input), meta(value))
        return (input, value) if isinstance(value, _C.Tensor) else (input,)

    def backward(self, g):
        mask = kept_tensors(self, self.mask)
        need = self.needs_input_grad
        gx = reduce_grad(g.masked_fill(mask, 0), self.metas[0]) if need[0] else None
        if len(need) == 1:
            return (gx,)
        gv = None
        if need[1]:
            mv = self.metas[1]
            gv = reduce_grad(_ops().where(mask, g, 0).sum(), mv)
            gv = gv if gv.device == mv[2] else gv.to(mv[2])
        return gx, gv


class MaskedFillBackward1(MaskedFillBackward0):
    pass


@derivative("index_select")
class IndexSelectBackward0(Node):
    def save(self, result, input, dim, index):
        self.in_meta = meta(input)
        self.dim = dim
        self.index = keep_tensors(self, index)
        return (input,)

    def backward(self, g):
        ops, g = _ops(), _wide(g)
        shape = self.in_meta[0]
        d = ops._dim(ops._int_arg(self.dim, "index_select", "dim"), len(shape),
                     "index_select", (shape, self.in_meta[2]))
        index = ops._index_tensor(kept_tensors(self, self.index), "index_select")
        index = index.reshape(-1).contiguous()
        g = g if shape else g.reshape(1)

        def make(g):
            out = _C.zeros(shape if shape else (1,), dtype=g.dtype, device=g.device)
            _C._index_add(out, d, index, g, True)  # out is new
            return out

        out = linear_in_g(make, lambda g2, index: ops.index_select(g2, d, index), g, index)
        out = out if shape else out.reshape(())
        return reduce_grad(out, self.in_meta)


@derivative("gather")
class GatherBackward0(Node):
    def save(self, result, input, dim, index, sparse_grad=False):
        self.in_meta = meta(input)
        self.dim, self.index = dim, keep_tensors(self, index)
        return (input,)

    def backward(self, g):
        return scatter_add_along(self.in_meta, self.dim, kept_tensors(self, self.index), g)


@derivative("index")
class IndexBackward0(Node):
    """x[idx] with advanced indices: the gradient is added at idx into zeros of x's
    shape (an element picked twice gets both gradients)."""

    def save(self, result, input, key):
        self.in_meta = meta(input)
        self.key = keep_tensors(self, key)
        return (input,)

    def backward(self, g):
        g, key = _wide(g), kept_tensors(self, self.key)
        from .._ops_getitem import _index_put_  # imported late, as _ops()

        def make(g):
            out = _C.zeros(self.in_meta[0], dtype=g.dtype, device=g.device)
            _index_put_(out, key, g, accumulate=True, into_new=True)
            return out

        out = linear_in_g(make, lambda g2, key: g2[key], g, key)
        return reduce_grad(out, self.in_meta)


class IndexPutBackward0(CopySlices):
    """x[idx] = value with advanced indices: x's old value gets the gradient outside
    idx, value gets g[idx] summed back to its shape (CopySlices' formula; the
    indexing on g is the advanced one)."""


class _Scatter(Node):
    """sort/topk: the values' gradient goes back to the positions the indices
    name (a permutation, or part of one, along dim)."""

    def save(self, result, input, *args, **kw):
        self.in_meta = meta(input)
        self.dim = self.dim_of(input, *args, **kw)
        self.save_tensors(result[1])  # the indices (an output, not differentiable)
        return (input,)

    def backward(self, g):
        (indices,) = self.saved_tensors
        if not self.in_meta[0]:
            return g.reshape(())
        return scatter_add_along(self.in_meta, self.dim, indices, g)


@derivative("sort")
class SortBackward0(_Scatter):
    @staticmethod
    def dim_of(input, dim=-1, *args, **kw):
        return dim


@derivative("topk")
class TopkBackward0(_Scatter):
    @staticmethod
    def dim_of(input, k, dim=-1, *args, **kw):
        return dim
