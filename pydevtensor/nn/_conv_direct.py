"""The float32 CPU convolution without im2col (csrc/cpu/cpu_conv_direct.c, Note [the
direct convolution]) as a differentiable op, and its backward.

    conv2d_direct(x, weight, bias, stride, padding, dilation, groups)
        x (N, C, H, W), weight (O, C/groups, kh, kw), bias (O) or None; the window's
        arguments pairs, already checked by conv2d (nn/_functional_conv.py).

Backward:
  - the input's gradient is the convolution of the output's gradient with the weight
    flipped and its two channel axes swapped (per group), padded by
    dilation * (k - 1) - padding: the same direct kernel, for stride 1 and that
    padding not negative (LeNet's second conv, 256 x 16 x 10 x 10 back to 6 channels,
    one thread: 3.9 ms, against 5.6 for a matrix product with the weight and col2im,
    which the other cases take);
  - the weight's gradient: dot products of the output's gradient with the input's
    rows (csrc/cpu/cpu_conv_wgrad.c, Note [the direct weight gradient]) for up to
    _MAX_DIRECT_WGRAD output channels a group; with more, or when it is to be
    differentiated again (create_graph), im2col of the input (the input itself for a
    1 x 1 stride-1 kernel; the forward's when it made them) times the output's
    gradient, summed over the batch (in one product for a weight of WIDE_WEIGHT bytes
    or more, as conv2d's forward);
  - the bias's: the output's gradient summed over the batch and the positions.
So a gradient of a gradient works too.  grad_input and grad_weight are also the 1-d and
2-d gradients of every convolution's node on every device (nn/_conv_node.py).
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from ._im2col import col2im, im2col

_MAX_STRIDE = 64  # the direct kernel's limit (cpu_conv_direct.c)
# output channels a group up to which the weight's gradient takes the direct dot products:
# they read both operands from L2 for every 4 x 6 block, which with more channels loses
# to OpenBLAS's packed product (one thread: 8 x 64 x 56 x 56 through 64 3 x 3, 20 ms
# direct, 27 im2col + product; 8 x 256 x 14 x 14 through 256 3 x 3, 34 and 20)
_MAX_DIRECT_WGRAD = 64
WIDE_WEIGHT = 1 << 20  # bytes of weight from which one product for the batch pays (conv2d)


def usable(x, stride) -> bool:
    """Whether conv2d of x takes the direct kernel: float32 on the CPU."""
    return (x.dtype == _C.float32 and x.device.type == "cpu" and x.shape[0] > 0
            and max(stride) <= _MAX_STRIDE)


@recorded("conv2d_direct")
def conv2d_direct(x, weight, bias, stride, padding, dilation, groups):
    """x (N, C, H, W) * weight (O, C/groups, kh, kw) + bias: (N, O, oh, ow)."""
    return _C._conv2d(x, weight, bias, stride, padding, dilation, groups)


def _flipped(weight, groups):
    """weight (G Og, Cg, kh, kw) as (G Cg, Og, kh, kw), each kernel turned by 180
    degrees: the weight of the input's gradient as a convolution."""
    o, cg, kh, kw = weight.shape
    w = weight.reshape(groups, o // groups, cg, kh, kw).transpose(1, 2)
    return w.reshape(groups * cg, o // groups, kh, kw).flip(2, 3)


def grad_input(g, weight, hw, stride, padding, dilation, groups):
    """The input's gradient (N, C, H, W) from the output's g (N, O, oh, ow)."""
    kernel = tuple(weight.shape[2:])
    back = tuple(d * (k - 1) - p for k, d, p in zip(kernel, dilation, padding))
    if stride == (1, 1) and min(back) >= 0 and usable(g, stride):
        return conv2d_direct(g, _flipped(weight, groups), None, (1, 1), back, dilation,
                             groups)
    n, o = g.shape[:2]
    cg = weight.shape[1]
    k = kernel[0] * kernel[1]
    ell = g.shape[2] * g.shape[3]
    w = weight.reshape(groups, o // groups, cg * k).transpose(1, 2)  # (G, Cg k, Og)
    if _wide(n, weight):  # one product for the batch, as conv2d's forward
        gg = g.reshape(n, groups, o // groups, ell).permute(1, 2, 0, 3)
        cols = _C.matmul(w, gg.reshape(groups, o // groups, n * ell))  # (G, Cg k, N L)
        cols = cols.reshape(groups, cg * k, n, ell).permute(2, 0, 1, 3)
    else:
        cols = _C.matmul(w, g.reshape(n, groups, o // groups, ell))  # (N, G, Cg k, L)
    return col2im(cols.reshape(n, groups * cg * k, ell), hw, kernel, dilation, padding,
                  stride)


def _wide(n, weight):
    """Whether a batch's products are one (conv2d's forward: a weight that does not
    stay in the cache between images, WIDE_WEIGHT)."""
    return n > 1 and weight.numel() * weight.element_size() >= WIDE_WEIGHT


def grad_weight(g, x, weight, stride, padding, dilation, groups, cols=None):
    """The weight's gradient (O, C/groups, kh, kw); cols: im2col of x when the forward
    made them (not under create_graph, where they are made again from x)."""
    kernel = tuple(weight.shape[2:])
    n, o = g.shape[:2]
    plain = kernel == (1, 1) and stride == (1, 1) and padding == (0, 0)
    again = _C.is_grad_enabled() and (g.requires_grad or x.requires_grad)
    if (usable(x, stride) and o // groups <= _MAX_DIRECT_WGRAD and not plain
            and not again):
        return _C._conv2d_grad_weight(x, g, kernel, stride, padding, dilation, groups)
    cg = weight.shape[1]
    k = kernel[0] * kernel[1]
    ell = g.shape[2] * g.shape[3]
    # (N, C k, L): a 1 x 1 stride-1 kernel's columns are the input itself
    if cols is None or again:
        cols = x.reshape(n, x.shape[1], ell) if plain else im2col(x, kernel, dilation,
                                                                   padding, stride)
    if _wide(n, weight):
        # one product for the batch, summed in the GEMM (conv2d's wide case): no
        # (N, O, C k) stack of per-image gradients
        wide = cols.reshape(n, groups, cg * k, ell).permute(1, 0, 3, 2)
        gg = g.reshape(n, groups, o // groups, ell).permute(1, 2, 0, 3)
        dw = _C.matmul(gg.reshape(groups, o // groups, n * ell),
                       wide.reshape(groups, n * ell, cg * k))
        return dw.reshape(weight.shape)
    cols = cols.reshape(n, groups, cg * k, ell).transpose(2, 3)
    dw = _C.matmul(g.reshape(n, groups, o // groups, ell), cols).sum(0)  # (G, Og, Cg k)
    return dw.reshape(weight.shape)


@derivative("conv2d_direct")
class ConvolutionBackward0(Node):
    """conv2d_direct's gradients (module docstring)."""

    def save(self, out, x, weight, bias, stride, padding, dilation, groups):
        self.args = (stride, padding, dilation, groups)
        self.hw = tuple(x.shape[2:])
        self.save_tensors(x, weight)
        return (x, weight, bias)

    def backward(self, g):
        x, weight = self.saved_tensors
        return _gradients(g, x, weight, self.hw, self.args, self.needs_input_grad)


def _gradients(g, x, weight, hw, args, need):
    """(dx, dw, db) of conv2d_direct, each None where need says so."""
    stride, padding, dilation, groups = args
    dx = grad_input(g, weight, hw, stride, padding, dilation, groups) if need[0] else None
    dw = grad_weight(g, x, weight, stride, padding, dilation, groups) if need[1] else None
    db = g.sum((0, 2, 3)) if len(need) > 2 and need[2] else None
    return dx, dw, db


def conv1d_direct(x, weight, bias, stride, padding, dilation, groups):
    """x (N, C, L) * weight (O, C/groups, k) + bias: (N, O, out_l), conv2d_direct of
    rows of height 1 (the window's arguments pairs, their first entries for the height),
    not recorded: under autograd conv1d is nn/_conv_node.py's one node."""
    out = _C._conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, stride, padding, dilation,
                     groups)
    return out.squeeze(2)
