"""The derivatives of the views, indexing, copies between devices and dtypes, and the
matrix products (one Node class per op, as in derivatives.py).

The backward GEMMs are matmuls whose operands are transposed views (``g @ b.T``): the
core reads those through the BLAS/cuBLAS transpose flag, never copying them.  The
backward of ``.to()`` is the gradient's own ``.to()`` back to the input's device and
dtype, so that copy is counted in transfer_stats() and explicit for the transfer guard,
like the user's forward copy it mirrors.
"""
import numbers

from .. import _C
from .derivatives import expand_to, meta, reduce_grad
from .dispatch import derivative
from .node import Node, kept_tensors, linear_in_g


# ---- views ----

class _ShapeView(Node):
    """Ops whose gradient is the incoming one put back in the input's shape."""

    is_view = True

    def save(self, result, input, *args, **kw):
        self.shape = tuple(input.shape)
        return (input,)

    def backward(self, g):
        return g.reshape(self.shape)


@derivative("view", "flatten", "reshape")
class ViewBackward0(_ShapeView):
    """view, flatten and a reshape that is a view, as PyTorch 2 names them."""

    def save(self, result, input, *args, **kw):
        if result.data_ptr() != input.data_ptr() and result.numel():
            # reshape had to copy: not a view (in-place changes of it are fine), named
            # as PyTorch's copying reshape is
            self.__class__ = UnsafeViewBackward0
            self.shape = tuple(input.shape)
            return (input,)
        return super().save(result, input, *args, **kw)


class UnsafeViewBackward0(_ShapeView):
    """A reshape that copied (ViewBackward0.save switches to it): not a view."""

    is_view = False


@derivative("squeeze")
class SqueezeBackward0(_ShapeView):
    @staticmethod
    def pick(input, dim=None):
        """PyTorch's overloads: squeeze() SqueezeBackward0, squeeze(dim)
        SqueezeBackward1, squeeze(dims) SqueezeBackward2 (squeeze's own parameters:
        derivatives._pick_over_dims says why)."""
        if dim is None:
            return SqueezeBackward0
        return SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


@derivative("unsqueeze")
class UnsqueezeBackward0(_ShapeView):
    pass


@derivative("transpose")
class TransposeBackward0(Node):
    is_view = True

    def save(self, result, input, dim0, dim1, **kw):
        self.dims = (dim0, dim1)
        return (input,)

    def backward(self, g):
        return g.transpose(*self.dims)


@derivative("t")
class TBackward0(Node):
    is_view = True

    def save(self, result, input, **kw):
        return (input,)

    def backward(self, g):
        return g.t()


@derivative("T")
class PermuteBackward0(Node):
    """permute(dims), and .T (every dim reversed)."""

    is_view = True

    def save(self, result, input, *dims, **kw):
        if "dims" in kw:
            dims = (kw["dims"],)
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        n = input.ndim
        if not dims:  # .T
            dims = tuple(range(n - 1, -1, -1))
        inverse = [0] * n
        for i, d in enumerate(dims):
            inverse[d % max(n, 1)] = i
        self.inverse = tuple(inverse)
        return (input,)

    def backward(self, g):
        return g.permute(*self.inverse) if self.inverse else g


derivative("permute")(PermuteBackward0)


@derivative("diagonal")
class DiagonalBackward0(Node):
    """diagonal(offset, dim1, dim2): the gradient lands on the same diagonal of a zero
    tensor of the input's shape."""

    is_view = True

    def save(self, result, input, offset=0, dim1=0, dim2=1, **kw):
        self.in_meta = meta(input)
        self.args = (offset, dim1, dim2)
        return (input,)

    def backward(self, g):
        shape, dtype, device = self.in_meta
        args = self.args

        def make(g):
            out = _C.zeros(shape, dtype=dtype, device=device)
            _C._diagonal(out, *args).copy_(g)
            return out

        return linear_in_g(make, lambda g2: g2.diagonal(*args), g)


class _Index(Node):
    """x[key] (basic indexing): the gradient lands in a zero tensor of x's shape."""

    is_view = True

    def save(self, result, input, key, **kw):
        self.in_meta = meta(input)
        self.key = key
        return (input,)

    def backward(self, g):
        shape, dtype, device = self.in_meta
        out = _C.zeros(shape, dtype=dtype, device=device)
        out[self.key] = g
        return out


class SelectBackward0(_Index):
    pass


class SliceBackward0(_Index):
    pass


# x[0, None] ends in an unsqueeze: PyTorch's node is UnsqueezeBackward0; x[...] and
# x[()] take no step: AliasBackward0
_IndexUnsqueeze = type("UnsqueezeBackward0", (_Index,), {"__module__": __name__})
_IndexAlias = type("AliasBackward0", (_Index,), {"__module__": __name__})


@derivative("__getitem__")
class _GetItem(Node):
    @staticmethod
    def pick(input, key):
        """The node of the last step PyTorch's basic indexing takes: an int selects
        (x[:, 1] is SelectBackward0), a slice slices, None unsqueezes; a full slice ':'
        and '...' in a tuple are no step (x[:, :] and x[...] alias), a key that is one
        slice slices (x[:], PyTorch's fast path).  Exact type checks first: this runs for
        every recorded x[key]."""
        if type(key) is int:
            return SelectBackward0
        if type(key) is slice:
            return SliceBackward0
        if type(key) is tuple and key and type(key[-1]) is int:
            return SelectBackward0  # x[:, 1], x[..., 0]: no loop for the commonest
        for item in reversed(key) if type(key) is tuple else (key,):
            kind = type(item)
            if kind is int:
                return SelectBackward0
            if kind is slice:
                if item.start is None and item.stop is None and item.step is None:
                    continue
                return SliceBackward0
            if item is None:
                return _IndexUnsqueeze
            if item is Ellipsis:
                continue
            if isinstance(item, numbers.Integral) and kind is not bool:
                return SelectBackward0
            return SliceBackward0
        return _IndexAlias


class CopySlices(Node):
    """x[key] = value on a tensor in the graph: x's old value gets the gradient outside
    key, value gets the part inside (summed back to value's shape)."""

    def backward(self, g):
        g_old = g_value = None
        key = kept_tensors(self, self.key)  # an advanced key's tensors: keep_tensors
        if self.needs_input_grad[0]:
            g_old = g.clone()
            g_old[key] = 0
        if self.needs_input_grad[1]:
            g_value = reduce_grad(g[key], self.value_meta)
        return g_old, g_value


# ---- copies: to(), cuda(), cpu(), clone(), contiguous(), float(), ... ----

class _Copy(Node):
    def save(self, result, input, device=None, dtype=None, non_blocking=False, copy=False, **kw):
        self.in_meta = meta(input)
        return (input,)

    def backward(self, g):
        _, dtype, device = self.in_meta
        if g.device != device or g.dtype != dtype:
            g = g.to(device, dtype)  # counted, explicit: it mirrors the user's .to()
        return g


class ToCopyBackward0(_Copy):
    pass


@derivative("contiguous")
class CloneBackward0(_Copy):
    pass


@derivative("to")
class _To(Node):
    @staticmethod
    def pick(input, device=None, dtype=None, *args, **kw):
        if device == input.device and dtype == input.dtype:
            return CloneBackward0
        return ToCopyBackward0


# ---- matrix products ----

def _mT(x):
    return x.transpose(-2, -1)


def _is_T(x):
    """Whether x is the transpose of a row-major matrix (linear()'s weight.T)."""
    return x.ndim == 2 and not x.is_contiguous() and x.T.is_contiguous()


def _mm_like(transposed, left, right):
    """left @ right for the gradient of a 2-d operand, laid out as it is: when it is the
    transpose of a row-major matrix (transposed, _is_T), the product is formed as
    (right.T @ left.T).T, the same GEMM with the transposes as flags, so that the gradient
    reaching the weight is row-major like the weight (PyTorch's gradient layout contract)
    and the optimizer's updates run on matching layouts."""
    if transposed:
        return _C.mm(right.T, left.T).T
    return _C.mm(left, right)


class _Product(Node):
    def save(self, result, input, other=None, **kw):
        if other is None:  # given by its own keyword: mm's and bmm's mat2=, dot's tensor=
            other = kw["mat2"] if "mat2" in kw else kw["tensor"]
        # a's gradient reads b, b's reads a: only those wanted are kept (as PyTorch's mm
        # saves self only when mat2 needs a gradient), with what backward needs of the
        # others' layout
        need_a, need_b = input.requires_grad, other.requires_grad
        if need_a and need_b:
            self.save_tensors(input, other)
        else:
            self.save_tensors(other if need_a else input)
        self.metas = (meta(input), meta(other))
        self.layouts = (_is_T(input), _is_T(other))
        return input, other

    def backward(self, g):
        need_a, need_b = self.needs_input_grad
        saved = self.saved_tensors
        a = saved[0] if need_b else None
        b = saved[-1] if need_a else None
        ma, mb = self.metas
        nda, ndb = len(ma[0]), len(mb[0])
        if nda == 1 and ndb == 1:
            return (g * b if need_a else None), (g * a if need_b else None)
        # 1-D operands become a row (left) or a column (right), as in the forward
        g2 = g
        if nda == 1:
            g2 = g2.unsqueeze(-2)
        if ndb == 1:
            g2 = g2.unsqueeze(-1)
        ga = gb = None
        flat = max(nda, 2) == 2 and max(ndb, 2) == 2
        if need_a:
            b2 = b.unsqueeze(-1) if ndb == 1 else b
            ga = _mm_like(self.layouts[0], g2, _mT(b2)) if flat else _C.matmul(g2, _mT(b2))
            if nda == 1:
                ga = ga.squeeze(-2)
            ga = reduce_grad(ga, ma)
        if need_b:
            a2 = a.unsqueeze(0) if nda == 1 else a
            gb = _mm_like(self.layouts[1], _mT(a2), g2) if flat else _C.matmul(_mT(a2), g2)
            if ndb == 1:
                gb = gb.squeeze(-1)
            gb = reduce_grad(gb, mb)
        return ga, gb


class MmBackward0(_Product):
    pass


class DotBackward0(_Product):
    pass


class BmmBackward0(_Product):
    pass


class MvBackward0(_Product):
    pass


class SqueezeBackward4(_Product):
    """vector @ matrix: PyTorch's matmul runs unsqueeze(0).mm(other).squeeze_(0)."""


class _FoldedMatmul(_Product):
    """An operand of 3 or more dims: PyTorch's matmul folds it into mm or bmm, the
    result an _unsafe_view, so repr() shows this name (not a view: one Node here)."""


_FoldedMatmul.__name__ = _FoldedMatmul.__qualname__ = "UnsafeViewBackward0"


@derivative("matmul")
class _Matmul(Node):
    @staticmethod
    def pick(input, other, **kw):
        """The Node named as PyTorch's matmul names its result's grad_fn (at::matmul's
        cases; a broadcast matrix beside a batch, CloneBackward0 in PyTorch when the
        matrix needs a gradient, is left UnsafeViewBackward0)."""
        if input.ndim <= 2 and other.ndim <= 2:
            return ((DotBackward0, SqueezeBackward4), (MvBackward0, MmBackward0))[
                input.ndim - 1][other.ndim - 1]
        return _FoldedMatmul


derivative("mm")(MmBackward0)
derivative("bmm")(BmmBackward0)
derivative("dot")(DotBackward0)


@derivative("addmm")
class AddmmBackward0(Node):
    """beta * input + alpha * (mat1 @ mat2)."""

    def save(self, result, input, mat1, mat2, beta=1, alpha=1, **kw):
        self.save_tensors(mat1, mat2)
        self.in_meta = meta(input)
        self.beta, self.alpha = beta, alpha
        return input, mat1, mat2

    def backward(self, g):
        m1, m2 = self.saved_tensors
        need_in, need_1, need_2 = self.needs_input_grad
        ga = g1 = g2 = None
        if need_in:
            ga = reduce_grad(g if self.beta == 1 else g * self.beta, self.in_meta)
        if need_1:
            g1 = _mm_like(_is_T(m1), g, m2.T)
            if self.alpha != 1:
                g1 = g1 * self.alpha
        if need_2:
            g2 = _mm_like(_is_T(m2), m1.T, g)
            if self.alpha != 1:
                g2 = g2 * self.alpha
        return ga, g1, g2


@derivative("baddbmm")
class BaddbmmBackward0(Node):
    """beta * input + alpha * (batch1 @ batch2), batched: addmm's gradients per matrix."""

    def save(self, result, input, batch1, batch2, beta=1, alpha=1, **kw):
        self.save_tensors(batch1, batch2)
        self.in_meta = meta(input)
        self.beta, self.alpha = beta, alpha
        if beta == 0:  # input's gradient is zeros, whose second derivative is zero too
            self.zero_grad_inputs = (0,)
        return input, batch1, batch2

    def backward(self, g):
        b1, b2 = self.saved_tensors
        need_in, need_1, need_2 = self.needs_input_grad
        ga = g1 = g2 = None
        if need_in and self.beta != 0:
            ga = reduce_grad(g if self.beta == 1 else g * self.beta, self.in_meta)
        elif need_in:
            ga = _C.zeros(self.in_meta[0], dtype=self.in_meta[1], device=self.in_meta[2])
        if need_1:
            g1 = _C.bmm(g, b2.transpose(1, 2))
            g1 = g1 if self.alpha == 1 else g1 * self.alpha
        if need_2:
            g2 = _C.bmm(b1.transpose(1, 2), g)
            g2 = g2 if self.alpha == 1 else g2 * self.alpha
        return ga, g1, g2


__all__ = ["expand_to"]
