"""The derivative of the strided views (as_strided, Tensor.unfold): the gradient is
summed at each output element's position in the storage, and the input's elements are
read back from those positions (overlapping windows add up)."""
from .. import _C
from .dispatch import derivative
from .node import Node, linear_in_g


def _positions(shape, strides, offset, device):
    """The storage position of every element of a (shape, strides, offset) layout, in
    row-major order: an int64 tensor on device."""
    import numpy as np  # at first use: importing pydevtensor does not load NumPy (its OpenBLAS)
    pos = np.full((1,), offset, dtype=np.int64)
    for n, s in zip(shape, strides):
        pos = (pos[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).reshape(-1)
    return _C.tensor(pos, device=device)


@derivative("as_strided")
class AsStridedBackward0(Node):
    is_view = True

    def save(self, result, input, *args, **kw):
        self.in_shape = tuple(input.shape)
        self.dtype, self.device = input.dtype, input.device
        self.out_layout = (tuple(result.shape), tuple(result.stride()), result.storage_offset())
        self.in_layout = (self.in_shape, tuple(input.stride()), input.storage_offset())
        return (input,)

    def backward(self, g):
        from .._ops_scatter import index_add
        out_pos = _positions(*self.out_layout, self.device)
        in_pos = _positions(*self.in_layout, self.device)
        span = 1 + max([int(p.max()) for p in (out_pos, in_pos) if p.numel()] or [0])
        out_shape = self.out_layout[0]

        def make(g):
            acc = _C.zeros((span,), dtype=g.dtype, device=self.device)
            acc = index_add(acc, 0, out_pos, g.reshape(-1))
            return acc[in_pos].reshape(self.in_shape)

        def adjoint(g2):
            acc = _C.zeros((span,), dtype=g2.dtype, device=self.device)
            acc = index_add(acc, 0, in_pos, g2.reshape(-1))
            return acc[out_pos].reshape(out_shape)

        return linear_in_g(make, adjoint, g)


@derivative("unfold")
class UnfoldBackward0(AsStridedBackward0):
    pass
