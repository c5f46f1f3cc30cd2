"""The derivatives of joining, splitting, broadcasting and scans (issue 17): cat, stack,
split, chunk, unbind, expand, repeat, tril, triu and cumsum.

The ops are written in Python (pydevtensor/_ops_join.py, _ops_split.py, _ops_sort.py)
on kernels without a derivative of their own (a copy into slices of a new tensor,
the stride-0 view of _expand, the cumsum kernel), so each is recorded whole through
``dispatch.recorded``, with PyTorch's Node name; split, chunk and unbind share one
node for all their pieces.  The ops composed of differentiable pieces need nothing
here: flip (a copy of a reversed view), hstack/vstack (cat), masked_fill (where),
outer (a product of reshapes), einsum (permutes, expand, sums and matmul),
softmax/log_softmax, var/std and linalg's norms (elementwise ops and reductions).
"""
from .. import _C
from .derivatives import meta, reduce_grad
from .dispatch import derivative
from .node import Node


def _dim(dim, ndim, op, of=None):
    from .._ops_index import _dim as check  # imported late: _ops_index imports the recorder
    return check(dim, ndim, op, of)


@derivative("cat")
class CatBackward0(Node):
    """Each input gets its slice of the gradient along dim (an empty 1-d input,
    which cat skips, gets an empty gradient)."""

    def save(self, result, tensors, dim=0, **kw):
        tensors = list(tensors)
        self.metas = tuple(meta(t) for t in tensors)
        # only 1-d empty inputs: cat took any dim (PyTorch's), the gradient is empty
        only_empty = all(len(m[0]) == 1 and m[0][0] == 0 for m in self.metas)
        self.dim = 0 if only_empty else _dim(dim, result.ndim, "cat", result)
        return tuple(tensors)

    def backward(self, g):
        d, at, grads = self.dim, 0, []
        lead = (slice(None),) * d
        for m, need in zip(self.metas, self.needs_input_grad):
            shape = m[0]
            skipped = len(shape) == 1 and shape[0] == 0 and g.ndim != 1
            n = 0 if skipped else shape[d]
            if need:
                # skipped: an empty slice of g, so that it is recorded as g is (a
                # create_graph=True gradient can be differentiated again, as PyTorch's)
                part = g[lead + (slice(at, at + n),)]
                part = part.reshape(0) if skipped else part
                grads.append(reduce_grad(part, m))
            else:
                grads.append(None)
            at += n
        return tuple(grads)


@derivative("stack")
class StackBackward0(Node):
    def save(self, result, tensors, dim=0, **kw):
        tensors = list(tensors)
        self.metas = tuple(meta(t) for t in tensors)
        self.dim = _dim(dim, result.ndim, "stack", result)
        return tuple(tensors)

    def backward(self, g):
        lead = (slice(None),) * self.dim
        return tuple(reduce_grad(g[lead + (i,)], m) if need else None
                     for i, (m, need) in enumerate(zip(self.metas, self.needs_input_grad)))


class _PiecesBackward(Node):
    """One node for all the views that one split, chunk or unbind returned: backward
    joins the pieces' gradients along dim (``join``: cat or stack) into one tensor of
    the input's size, with zeros only for the pieces that got no gradient."""
    is_view = True

    def save(self, result, input, dim):
        self.num_outputs = len(result)
        self.dim = dim % input.ndim  # checked by the forward, which ran (input is not 0-d)
        self.shapes = [r.shape for r in result]
        return (input,)

    def apply(self, grads):
        return (self.backward(grads),)

    def backward(self, grads):
        grads = list(grads)
        present = [g for g in grads if g is not None]
        if len(present) < len(grads):
            like = present[0]
            grads = [_C.zeros(shape, dtype=like.dtype, device=like.device) if g is None else g
                     for g, shape in zip(grads, self.shapes)]
        return self.join(grads, self.dim)


def _join(name):
    def join(grads, dim):
        from .. import _ops_join  # imported late: _ops_join imports the recorder
        return getattr(_ops_join, name)(grads, dim)

    return staticmethod(join)


@derivative("unbind")
class UnbindBackward0(_PiecesBackward):
    """unbind's slices: their gradients are stacked."""
    join = _join("stack")

    def save(self, result, input, dim=0, **kw):
        return _PiecesBackward.save(self, result, input, dim)


class SplitBackward0(_PiecesBackward):
    """split by one size, and chunk: the pieces' gradients are concatenated."""
    join = _join("cat")

    def save(self, result, tensor, split_size_or_sections, dim=0, **kw):
        return _PiecesBackward.save(self, result, tensor, dim)


class SplitWithSizesBackward0(SplitBackward0):
    """split by a list of sizes (and chunk of an empty dim), as PyTorch names it."""


@derivative("split")
class _Split(Node):
    pick = staticmethod(lambda tensor, split_size_or_sections, dim=0, **kw: (
        SplitWithSizesBackward0 if isinstance(split_size_or_sections, (list, tuple))
        else SplitBackward0))


@derivative("expand")
class ExpandBackward0(Node):
    """A broadcast view: the gradient is summed over the repeated dims."""

    is_view = True

    def save(self, result, input, *sizes):
        self.in_meta = meta(input)
        return (input,)

    def backward(self, g):
        return reduce_grad(g, self.in_meta)


@derivative("flip")
class FlipBackward0(Node):
    """The gradient flipped back over the same dims."""

    def save(self, result, input, dims):
        self.dims = dims
        return (input,)

    def backward(self, g):
        return g.flip(self.dims) if self.dims else g.clone()


@derivative("repeat")
class RepeatBackward0(Node):
    """input tiled r_i times along dim i: the gradient of each tile, summed."""

    def save(self, result, input, *sizes, **kw):  # kw: repeats= (read off the shapes)
        self.in_meta = meta(input)
        self.repeats = tuple(result.shape[i] // max(s, 1) for i, s in enumerate(
            (1,) * (result.ndim - input.ndim) + tuple(input.shape)))
        return (input,)

    def backward(self, g):
        shape = self.in_meta[0]
        full = (1,) * (g.ndim - len(shape)) + tuple(shape)
        split = []
        for r, s in zip(self.repeats, full):
            split += [r, s]
        g = g.reshape(tuple(split)).sum(dim=tuple(range(0, 2 * g.ndim, 2))) if g.ndim else g
        return reduce_grad(g.reshape(shape), self.in_meta)


class _Triangle(Node):
    def save(self, result, input, diagonal=0):
        self.diagonal = diagonal
        return (input,)

    def backward(self, g):
        from .. import _ops_join
        op = getattr(_ops_join, self.op)  # recorded under create_graph=True
        return (op if _C.is_grad_enabled() else op.__wrapped__)(g, self.diagonal)


@derivative("tril")
class TrilBackward0(_Triangle):
    op = "tril"


@derivative("triu")
class TriuBackward0(_Triangle):
    op = "triu"


@derivative("cumsum")
class CumsumBackward0(Node):
    """The gradient of a running sum is the reversed running sum of the gradient."""

    def save(self, result, input, dim, *, dtype=None):
        self.in_meta = meta(input)
        self.dim = _dim(dim, input.ndim, "cumsum", input)
        return (input,)

    def backward(self, g):
        if g.ndim == 0:
            return reduce_grad(g, self.in_meta)
        from .._ops_sort import cumsum
        d = self.dim
        return reduce_grad(cumsum(g.flip(d), d).flip(d), self.in_meta)
