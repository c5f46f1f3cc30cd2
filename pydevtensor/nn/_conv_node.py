"""Every convolution under autograd as one node, ConvolutionBackward0, as PyTorch 2.x
records conv1d/2d/3d and conv_transpose1d/2d/3d (at::convolution_backward).

    convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups)
        x batched (N, C, *spatial), nd = 1, 2 or 3 spatial dims; the window's arguments
        tuples of nd ints, padding symmetric (the public functions pad 'same''s odd
        total first, as PyTorch's constant_pad_nd); PyTorch's torch.convolution.

The forward is the composite of nn/_functional_conv.py, _functional_conv_transpose.py
and _functional_3d.py run with grad mode off (the direct float32 CPU kernel, im2col and
a product, 3-d by depth slices), laid out as the public functions lay out their result.
The backward, with g the output's gradient:
  - a convolution's input gradient is the transposed convolution of g with the same
    weight (output_padding the rows the forward's windows left over); 1-d and 2-d take
    the direct kernel's backward (nn/_conv_direct.py grad_input), which is that;
  - a transposed convolution's input gradient is the convolution of g (cut to the
    input's size where output_padding >= stride gave it more);
  - the weight's gradient: nn/_conv_direct.py's grad_weight of 2-d images (1-d as rows
    of height 1, 3-d one depth tap at a time over the depth slices), the output's
    gradient and the input swapping roles for a transposed convolution;
  - the bias's: g summed over the batch and the positions.
Each is computed only where needs_input_grad asks, from recorded ops (a convolution
again under create_graph, so double backward and forward mode work); float16 and
bfloat16 in float32, rounded once (Note [convolutions in half types]).
"""
from .. import _C
from .._memory_format import _laid_out_as, suggested_format
from .._ops_join import stack
from ..autograd.dispatch import _record_picked, _wants_grad, run_no_grad
from ..autograd.node import Node
from ..autograd.saved_hooks import HOOKS as _SAVED_HOOKS
from ._conv_direct import grad_input, grad_weight


def _functions():
    from . import _functional_3d as F3  # late: they import this module
    from . import _functional_conv as FC
    from . import _functional_conv_transpose as FCT
    return FC, FCT, F3


def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups, layout_of=None):
    """(module docstring) Recorded as one node where grad mode is on and x, weight or
    bias requires grad; the composite's columns (im2col of x) kept for the weight's
    gradient when they were made, the weight requires grad and no saved tensors hooks
    are on (they would not see them)."""
    args = (x, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
            layout_of)
    if not _wants_grad((x, weight, bias), {}):
        return _forward(*args)
    # the columns are kept beside the saved tensors, out of the saved tensors hooks'
    # sight (Note [saved tensors hooks]): with hooks on, backward makes them again from x
    keep = [] if weight.requires_grad and not _SAVED_HOOKS else None
    out = run_no_grad(_forward, *args, keep=keep)
    out = _record_picked(ConvolutionBackward0, out, args, {})
    if keep and out.grad_fn is not None:
        out.grad_fn.cols = keep[0]
    return out


def _forward(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
             layout_of, keep=None):
    """The composite's result, as a tensor of its own in the layout the public function
    gives (channels_last following layout_of, the input before any padding, or a
    convolution's weight)."""
    FC, FCT, F3 = _functions()
    nd = x.ndim - 2
    if transposed:
        where = f"conv_transpose{nd}d()"
        out = (F3.conv_transpose3d(x, weight, bias, stride, padding, output_padding, groups,
                                   dilation) if nd == 3 else
               FCT._conv_transpose(x, weight, bias, stride, padding, output_padding, groups,
                                   dilation, nd, where))
        # channels_last following the input, or else the weight, as PyTorch's (2-d
        # was always row-major)
        fmt = suggested_format(layout_of) or suggested_format(weight) if nd > 1 else None
    else:
        out = (F3.conv3d(x, weight, bias, stride, padding, dilation, groups) if nd == 3 else
               FC._conv(x, weight, bias, stride, padding, dilation, groups, nd,
                        f"conv{nd}d()", keep))
        fmt = suggested_format(layout_of) or suggested_format(weight) if nd > 1 else None
    return _C._saved_aliases((_laid_out_as(out, fmt),))[0]  # not a view of a temporary


def _rows(t):
    """1-d as 2-d: (N, C, L) -> (N, C, 1, L)."""
    return t.unsqueeze(2)


def _weight_grad(go, inp, weight, stride, padding, dilation, groups, cols=None):
    """The gradient of conv(inp, weight) (2-d or 3-d) with respect to the weight, go the
    output's gradient (of the conv's output size); cols: the forward's im2col of inp."""
    if weight.ndim == 4:
        return grad_weight(go, inp, weight, stride, padding, dilation, groups, cols)
    FC, _, F3 = _functions()
    n, out_depth = go.shape[0], go.shape[2]
    if padding[0]:
        inp = FC.pad_constant(inp, ((0, 0), (0, 0), (padding[0], padding[0])), 0.0)
    images = go.transpose(1, 2).reshape((n * out_depth, go.shape[1]) + tuple(go.shape[3:]))
    taps = [grad_weight(images, part, weight[:, :, k], stride[1:], padding[1:], dilation[1:],
                        groups)
            for k, part in enumerate(F3._depth_slices(inp, weight.shape[2], dilation[0],
                                                      stride[0], out_depth))]
    return stack(taps, 2)


def _conv_gradients(g, x, weight, args, need, cols=None):
    """(dx, dw) of the convolution (2-d or 3-d)."""
    stride, padding, dilation, _, _, groups = args
    dx = dw = None
    if need[0]:
        if weight.ndim == 4:
            dx = grad_input(g, weight, tuple(x.shape[2:]), stride, padding, dilation, groups)
        else:
            _, FCT, F3 = _functions()
            kernel = tuple(weight.shape[2:])
            left = tuple(s + 2 * p - d * (k - 1) - 1 - (o - 1) * st for s, p, d, k, o, st in
                         zip(x.shape[2:], padding, dilation, kernel, g.shape[2:], stride))
            dx = F3.conv_transpose3d(g, weight, None, stride, padding, left, groups, dilation)
    if need[1]:
        dw = _weight_grad(g, x, weight, stride, padding, dilation, groups, cols)
    return dx, dw


def _transposed_gradients(g, x, weight, args, need, cols=None):
    """(dx, dw) of the transposed convolution (2-d or 3-d): the adjoint's."""
    stride, padding, dilation, _, output_padding, groups = args
    FC, _, F3 = _functions()
    # output_padding >= stride (below the dilation) gives conv(g) more positions than x
    extra = tuple(op // s for op, s in zip(output_padding, stride))
    dx = dw = None
    if need[0]:
        dx = (F3.conv3d(g, weight, None, stride, padding, dilation, groups) if x.ndim == 5
              else FC._conv(g, weight, None, stride, padding, dilation, groups, 2,
                            "conv2d()"))
        if any(extra):
            dx = dx[(slice(None), slice(None)) + tuple(slice(0, s) for s in x.shape[2:])]
    if need[1]:
        go = x
        if any(extra):
            go = FC.pad_constant(x, tuple((0, e) for e in reversed(extra)), 0.0)
        dw = _weight_grad(go, g, weight, stride, padding, dilation, groups)
    return dx, dw


class ConvolutionBackward0(Node):
    """convolution's gradients (module docstring)."""

    def save(self, out, x, weight, bias, stride, padding, dilation, transposed,
             output_padding, groups, layout_of=None):
        self.args = (stride, padding, dilation, transposed, output_padding, groups)
        self.save_tensors(x, weight)
        return (x, weight, bias)

    def backward(self, g):
        x, weight = self.saved_tensors
        need = self.needs_input_grad
        dtype = x.dtype
        if dtype in (_C.float16, _C.bfloat16):  # Note [convolutions in half types]
            g, x, weight = g.float(), x.float(), weight.float()
        args = self.args
        if x.ndim == 3:  # rows of height 1
            g, x, weight = _rows(g), _rows(x), _rows(weight)
            args = tuple((1,) + a if i in (0, 2) else (0,) + a if i in (1, 4) else a
                         for i, a in enumerate(args))
        if x.numel() == 0 or g.numel() == 0:  # an empty batch or output: zeros (no im2col
            # or reshape of an empty plane)
            dx, dw = (_C.zeros_like(t) if n else None for t, n in zip((x, weight), need))
        else:
            gradients = _transposed_gradients if args[3] else _conv_gradients
            cols = self.__dict__.get("cols")
            if cols is not None and cols.dtype != x.dtype:
                cols = None
            dx, dw = gradients(g, x, weight, args, need, cols)
        db = g.sum((0,) + tuple(range(2, g.ndim))) if need[2] else None
        if self.args is not args:  # back to 1-d
            dx = None if dx is None else dx.squeeze(2)
            dw = None if dw is None else dw.squeeze(2)
        if dtype != g.dtype:
            dx, dw, db = (None if t is None else t.to(dtype) for t in (dx, dw, db))
        return dx, dw, db
