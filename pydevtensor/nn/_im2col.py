"""im2col and col2im: the two private, differentiable ops under unfold, fold, the
convolutions and the pools (nn/_functional_conv.py, nn/_functional_pool.py).

    im2col(x, kernel, dilation, padding, stride, pad_value=0.0)
        x: (N, C, H, W) -> cols: (N, C*kh*kw, L), L = out_h*out_w
    col2im(cols, output_hw, kernel, dilation, padding, stride)
        cols: (N, C*kh*kw, L) -> (N, C, H, W), overlapping entries summed

The layout is PyTorch's unfold's: the rows of cols run over the channel first, then
the kernel's row, then its column; its columns over the output positions row-major.
With the padded plane Hp = H + 2*ph, Wp = W + 2*pw (filled with pad_value) and
out_h = (Hp - dh*(kh-1) - 1) // sh + 1 (out_w alike):

    cols[n, (c*kh + i)*kw + j, oy*out_w + ox] = xp[n, c, oy*sh + i*dh, ox*sw + j*dw]

col2im is its adjoint: each entry of cols is added at that position, and the padding
is dropped.  Each op is the other's backward (recorded: a gradient of a gradient
would be too, were create_graph supported).

The arguments are checked by the callers (2-tuples of ints, a window that fits);
these two only move elements, in the backends' kernels (_C._im2col/_C._col2im:
csrc/core/pdt_conv.c, csrc/cpu/cpu_conv.c, csrc/cuda/cuda_conv.cu).  They read
strided inputs in place, need no index tensor (so no range check that would read
back from a GPU), and col2im adds each element's terms in a fixed order without
atomics (the same bits on every device), float16 and bfloat16 in float32.
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node


@recorded("im2col")
def im2col(x, kernel, dilation, padding, stride, pad_value=0.0):
    """x: (N, C, H, W) -> (N, C*kh*kw, L), the sliding windows as columns (module
    docstring); the padding reads pad_value."""
    return _C._im2col(x, kernel, dilation, padding, stride, pad_value)


@recorded("col2im")
def col2im(cols, output_hw, kernel, dilation, padding, stride):
    """cols: (N, C*kh*kw, L) -> (N, C, H, W) with (H, W) = output_hw: each entry added
    where im2col took it from, the padding dropped (module docstring)."""
    return _C._col2im(cols, output_hw, kernel, dilation, padding, stride)


@derivative("im2col")
class Im2ColBackward0(Node):
    """im2col's gradient: col2im of the incoming gradient (the padding's share is
    dropped)."""

    def save(self, out, x, kernel, dilation, padding, stride, pad_value=0.0):
        self.args = (tuple(x.shape[2:]), kernel, dilation, padding, stride)
        return (x,)

    def backward(self, g):
        return (col2im(g, *self.args),)


@derivative("col2im")
class Col2ImBackward0(Node):
    """col2im's gradient: im2col of the incoming gradient, with zeros as padding."""

    def save(self, out, cols, output_hw, kernel, dilation, padding, stride):
        self.args = (kernel, dilation, padding, stride)
        return (cols,)

    def backward(self, g):
        return (im2col(g, *self.args, 0.0),)
