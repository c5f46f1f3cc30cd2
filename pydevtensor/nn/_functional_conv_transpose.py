"""conv_transpose1d and conv_transpose2d (D2L's chapter 14: transposed convolution and
the fully convolutional network), with PyTorch's signatures, shape rules and errors,
on every device: the adjoint of conv2d, so the adjoint of its two steps in reverse.

conv2d is im2col, then a product with the weight seen as (out, in * k).  Its adjoint
takes the product with the weight, here (in, out/groups, kh, kw) seen as
(in, out * k) and transposed, which gives one column of out * k entries per input
pixel, then col2im (nn/_im2col.py), which adds each column's entries onto the output
pixels that the window at that input pixel covers.  The whole batch goes through one
GEMM per group (the input as (in/groups, N * H * W)), so the weight's gradient is one
product too.  Under autograd the whole is one node, ConvolutionBackward0
(nn/_conv_node.py), as PyTorch's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from ..autograd.dispatch import _wants_grad
from .._memory_format import keeps_channels_last
from ._functional_conv import (HALF_TYPES, _Invalid, _at_least, _tuple, check_conv_tensors,
                               half_in_float32, recorded_conv)
from ._functional_pad import pad_constant
from ._im2col import col2im

if TYPE_CHECKING:
    from .._C import Tensor


def transposed_sizes(hw: tuple, kernel: tuple, stride: tuple, padding: tuple,
                     dilation: tuple, output_padding: tuple) -> tuple:
    """The output size per spatial dimension of a transposed convolution:
    (size - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1."""
    return tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1
                 for s, k, st, p, d, op in zip(hw, kernel, stride, padding, dilation,
                                               output_padding))


def _crop(out: Tensor, start: tuple, size: tuple) -> Tensor:
    """out[..., start:start + size] per spatial dimension, zeros where that runs past
    out's end (an output_padding at least as large as the stride reaches pixels that
    no window covers)."""
    full = tuple(out.shape[2:])
    lo = tuple(min(p, f) for p, f in zip(start, full))
    hi = tuple(min(p + s, f) for p, s, f in zip(start, size, full))
    out = out[:, :, lo[0]:hi[0], lo[1]:hi[1]]
    return pad_constant(out, ((0, size[1] - (hi[1] - lo[1])), (0, size[0] - (hi[0] - lo[0]))),
                        0.0)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    nd, where):
    """conv_transpose1d (nd = 1, as rows of height 1) and conv_transpose2d."""
    x, unbatched, out_c = check_conv_tensors(input, weight, bias, groups, nd, where,
                                             transposed=True)
    if _wants_grad((x, weight, bias), {}):  # one node (nn/_conv_node.py)
        return recorded_conv(x, unbatched, weight, bias, stride, padding, dilation, groups,
                             where, output_padding)
    if x.dtype in HALF_TYPES:  # col2im sums overlapping windows, then the bias: Note
        # [convolutions in half types]
        return half_in_float32(_conv_transpose, input, weight, bias, stride, padding,
                               output_padding, groups, dilation, nd, where)
    stride = _at_least(_tuple(stride, nd, "stride", where), 1, "stride", where)
    padding = _at_least(_tuple(padding, nd, "padding", where), 0, "padding", where)
    output_padding = _at_least(_tuple(output_padding, nd, "output_padding", where), 0,
                               "output_padding", where)
    dilation = _at_least(_tuple(dilation, nd, "dilation", where), 1, "dilation", where)
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise _Invalid(f"{where}: output padding must be smaller than either stride or "
                       f"dilation, but got output_padding={output_padding}, stride={stride}, "
                       f"dilation={dilation} (input of shape {tuple(input.shape)} on "
                       f"{input.device})")
    kernel = tuple(weight.shape[2:])
    hw = tuple(x.shape[2:])
    size = transposed_sizes(hw, kernel, stride, padding, dilation, output_padding)
    if any(s < 0 for s in size):
        raise _Invalid(f"{where}: Given input size per channel: {hw}. Calculated output size "
                       f"per channel: {size}. Output size is too small (kernel_size={kernel}, "
                       f"stride={stride}, padding={padding}, dilation={dilation}, "
                       f"output_padding={output_padding}; on {input.device})")
    if 0 in size or out_c == 0:  # empty, as PyTorch's oneDNN path (its native one raises;
        # of 0 output channels both raise, where this empty result is conv2d's); gradients 0
        out = _C.zeros((x.shape[0], out_c) + size, dtype=x.dtype, device=x.device)
        return out.squeeze(0) if unbatched else out
    if nd == 1:  # a row of height 1
        x, weight = x.unsqueeze(2), weight.unsqueeze(2)
        kernel, stride, dilation = (1,) + kernel, (1,) + stride, (1,) + dilation
        padding, output_padding, size = (0,) + padding, (0,) + output_padding, (1,) + size
        hw = (1,) + hw
    n, in_c = x.shape[0], x.shape[1]
    k, pixels = kernel[0] * kernel[1], hw[0] * hw[1]
    in_g, out_gk = in_c // groups, (out_c // groups) * k
    # (groups, in/groups, N * H * W): the batch inside one product per group
    wide = x.reshape(n, groups, in_g, pixels).permute(1, 2, 0, 3).reshape(groups, in_g,
                                                                          n * pixels)
    w = weight.reshape(groups, in_g, out_gk).transpose(1, 2)  # (groups, out/g * k, in/g)
    cols = _C.matmul(w, wide)  # (groups, out/g * k, N * H * W)
    cols = cols.reshape(groups, out_gk, n, pixels).permute(2, 0, 1, 3).reshape(n, out_c * k,
                                                                                pixels)
    if all(op < s for op, s in zip(output_padding, stride)):
        # the output, padded by padding on both sides, holds exactly H x W windows
        out = col2im(cols, size, kernel, dilation, padding, stride)
    else:  # a larger output_padding (below the dilation): the full plane, then cut
        full = tuple((s - 1) * st + d * (kk - 1) + 1
                     for s, st, d, kk in zip(hw, stride, dilation, kernel))
        out = _crop(col2im(cols, full, kernel, dilation, (0, 0), stride), padding, size)
    if bias is not None:
        out = out + bias.reshape(1, out_c, 1, 1)
    if nd == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


@keeps_channels_last(with_weight=True)
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups=1, dilation=1) -> Tensor:
    """The 2-d transposed convolution ("deconvolution") of a batch of images, as
    ``torch.nn.functional.conv_transpose2d``: the adjoint of :func:`conv2d` with this
    weight, plus bias.  Each input pixel scatters its channels times the kernel onto
    the output, windows stride apart::

        full[n, g * O_g + o, y * sh + i * dh, x * sw + j * dw] += x[n, c, y, x]
            * weight[c, o, i, j]     for each input channel c of group g

    and the output is full without padding rows and columns at each side (with
    output_padding more at the bottom and the right), so
    ``H_out = (H - 1) * sh - 2 * ph + dh * (kh - 1) + output_padding_h + 1`` (W_out
    alike).  conv2d with the same stride, padding and dilation maps an H_out x W_out
    image back to H x W.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)``, or ``(C_in, H, W)`` for one image; floating point.
    weight : Tensor
        ``(C_in, C_out / groups, kh, kw)``, of input's dtype and device.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or tuple of 2 ints, optional
        The step between the windows on the output (default 1).
    padding : int or tuple of 2 ints, optional
        Rows and columns removed from each side of the output (default 0).
    output_padding : int or tuple of 2 ints, optional
        Added to the bottom and the right of the output (default 0): choose among the
        sizes that a strided conv2d maps to H x W; smaller than the stride or the
        dilation.
    groups : int, optional
        Channels split into this many independent groups (default 1); it must divide
        C_in.
    dilation : int or tuple of 2 ints, optional
        The spacing of the kernel's taps (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, H_out, W_out)``, or ``(C_out, H_out, W_out)``; channels_last when
        the input's strides suggest it, or else the weight's, as PyTorch's.

    Raises
    ------
    TypeError
        When an argument is not a Tensor, the input is not floating point, or a size
        is not an int or a tuple of ints (a padding string too).
    RuntimeError, TypeError
        When the dtypes of input, weight and bias differ (both classes).
    ValueError, RuntimeError
        (InvalidArgumentError) For a weight that is not 4-d, a channel count that does
        not match, groups that do not divide the weight's first dimension, a
        non-positive stride or dilation, a negative padding or output_padding, an
        output_padding not smaller than the stride or the dilation, or an output
        size below 0.  A size of 0 gives an empty output, as PyTorch 2.15's CPU
        oneDNN path (float32, a batch above 1) does; its native path (float64, a batch
        of 1, unbatched) raises there.
    DeviceError
        When the tensors are on different devices.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[[0., 1.], [2., 3.]]]])
    >>> F.conv_transpose2d(x, pydevtensor.tensor([[[[0., 1.], [2., 3.]]]]))
    tensor([[[[ 0.,  0.,  1.],
              [ 0.,  4.,  6.],
              [ 4., 12.,  9.]]]])
    >>> F.conv_transpose2d(pydevtensor.ones(1, 3, 16, 16), pydevtensor.ones(3, 2, 4, 4),
    ...                    stride=2, padding=1).shape
    pydevtensor.Size([1, 2, 32, 32])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d()")


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups=1, dilation=1) -> Tensor:
    """The 1-d transposed convolution of a batch of sequences, as
    ``torch.nn.functional.conv_transpose1d``: :func:`conv_transpose2d` of rows of
    height 1, ``L_out = (L - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1``.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)``, or ``(C_in, L)``; floating point.
    weight : Tensor
        ``(C_in, C_out / groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, output_padding, dilation : int or tuple of 1 int, optional
        As in :func:`conv_transpose2d`, along one axis.
    groups : int, optional
        As in :func:`conv_transpose2d` (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, L_out)``, or ``(C_out, L_out)``.

    Raises
    ------
    TypeError, ValueError, RuntimeError, DeviceError
        As :func:`conv_transpose2d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 2., 3.]]])
    >>> F.conv_transpose1d(x, pydevtensor.tensor([[[1., 10.]]]), stride=2)
    tensor([[[ 1., 10.,  2., 20.,  3., 30.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d()")
