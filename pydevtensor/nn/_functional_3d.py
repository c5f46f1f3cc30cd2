"""The 3-d (volume) convolutions and pools, as PyTorch's conv3d, conv_transpose3d,
max_pool3d, avg_pool3d, adaptive_avg_pool3d and adaptive_max_pool3d, composed of the
2-d kernels along the depth.

Note [3-d by slices of depth]: a 3-d window is a 2-d window in each of kd depth slices,
so conv3d is the sum over the kernel's depth taps kd of a conv2d of the input's depth
slices d * stride + kd * dilation (all output depths at once, as a batch of N * Do
images) with the weight's tap kd; conv_transpose3d scatters each tap's
conv_transpose2d to depths d * stride + kd * dilation; max and sum are separable, so the
pools are a 2-d pool of each slice and a max (first-in-window tie, as PyTorch's
indices) or sum over the taps.  Every device gets them from the 2-d ops; there is no
3-d kernel.  Under autograd a 3-d convolution is one node, ConvolutionBackward0
(nn/_conv_node.py), as PyTorch's.
"""
from __future__ import annotations

from .. import _C
from .._args import flag
from .._memory_format import keeps_channels_last
from . import _functional_conv as FC
from . import _functional_conv_transpose as FCT
from . import _functional_pad as FP
from . import _functional_pool as FPL
from .._ops_join import stack as _stack
from ..autograd.dispatch import _wants_grad, run_no_grad
from ..autograd.grad_mode import no_grad as _no_grad
from ..autograd.node import linked_input

__all__ = ["adaptive_avg_pool3d", "adaptive_max_pool3d", "avg_pool3d", "conv3d",
           "conv_transpose3d", "max_pool3d"]

_Invalid = _C.InvalidArgumentError


def _depth_slices(x, taps, dilation, stride, out_depth):
    """For each tap k, the (N * Do, C, H, W) images of x's depths k * dilation + d *
    stride, d < out_depth."""
    n, c = x.shape[0], x.shape[1]
    for k in range(taps):
        start = k * dilation
        part = x[:, :, start:start + stride * (out_depth - 1) + 1:stride]
        yield part.transpose(1, 2).reshape((n * out_depth, c) + tuple(x.shape[3:]))


def _from_images(y, n, out_depth):
    """(N * Do, C, H, W) back to (N, C, Do, H, W)."""
    return y.reshape((n, out_depth) + tuple(y.shape[1:])).transpose(1, 2)


@keeps_channels_last(with_weight=True)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 3-d convolution (cross-correlation) of (N, C, D, H, W) volumes, as PyTorch's
    ``F.conv3d`` (Note [3-d by slices of depth]).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)``, or ``(C_in, D, H, W)`` unbatched.
    weight : Tensor
        ``(C_out, C_in / groups, kD, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, dilation : int or tuple of 3 ints, optional
        Default 1.
    padding : int, tuple of 3 ints, 'valid' or 'same', optional
        Zeros on both sides of each spatial dimension (default 0).
    groups : int, optional
        Default 1.

    Returns
    -------
    Tensor
        ``(N, C_out, D_out, H_out, W_out)``, PyTorch's sizes.

    Raises
    ------
    TypeError
        When input or weight is not a Tensor.
    ValueError
        When the shapes, groups or arguments do not fit (InvalidArgumentError, also a
        RuntimeError).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.conv3d(pydevtensor.ones(1, 1, 3, 3, 3), pydevtensor.ones(1, 1, 2, 2, 2)).shape
    pydevtensor.Size([1, 1, 2, 2, 2])
    """
    where = "conv3d()"
    x, unbatched, _ = FC.check_conv_tensors(input, weight, bias, groups, 3, where)
    if _wants_grad((x, weight, bias), {}):  # one node (nn/_conv_node.py)
        return FC.recorded_conv(x, unbatched, weight, bias, stride, padding, dilation, groups,
                                where)
    if x.dtype in FC.HALF_TYPES:  # a sum of kD products: Note [convolutions in half types]
        return FC.half_in_float32(conv3d, input, weight, bias, stride, padding, dilation,
                                  groups)
    stride = FC._at_least(FC._tuple(stride, 3, "stride", where), 1, "stride", where)
    dilation = FC._at_least(FC._tuple(dilation, 3, "dilation", where), 1, "dilation", where)
    kernel = tuple(weight.shape[2:])
    pad, extra = FC._padding(padding, 3, kernel, stride, dilation, where)
    if any(extra):  # 'same' with an odd total: every side padded here, asymmetrically
        x = FP.pad(x, (pad[2], pad[2] + extra[2], pad[1], pad[1] + extra[1], pad[0],
                       pad[0] + extra[0]))
        pad = (0, 0, 0)
    elif pad[0]:  # the depth's padding (conv2d pads height and width itself)
        x = FP.pad(x, (0, 0, 0, 0, pad[0], pad[0]))
    span = dilation[0] * (kernel[0] - 1) + 1
    if x.shape[2] < span:
        raise _Invalid(f"{where}: Calculated padded input size per channel: {x.shape[2]} "
                       f"(depth). Kernel size: {span} (dilated). Kernel size can't be greater "
                       f"than actual input size (input {tuple(input.shape)}, on "
                       f"{input.device})")
    out_depth = (x.shape[2] - span) // stride[0] + 1
    out = None
    for k, images in enumerate(_depth_slices(x, kernel[0], dilation[0], stride[0], out_depth)):
        part = FC._conv(images, weight[:, :, k], None, stride[1:], pad[1:], dilation[1:],
                        groups, 2, "conv2d()")
        out = part if out is None else out + part
    out = _from_images(out, x.shape[0], out_depth)
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


@keeps_channels_last(with_weight=True)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """The transposed 3-d convolution (conv3d's adjoint), as PyTorch's
    ``F.conv_transpose3d`` (Note [3-d by slices of depth]).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)``, or ``(C_in, D, H, W)`` unbatched.
    weight : Tensor
        ``(C_in, C_out / groups, kD, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, output_padding, dilation : int or tuple of 3 ints, optional
        As PyTorch's (output_padding below stride or dilation).
    groups : int, optional
        Default 1.

    Returns
    -------
    Tensor
        ``(N, C_out, (D - 1) * s - 2 p + d (k - 1) + op + 1, ...)``.

    Raises
    ------
    TypeError
        When input or weight is not a Tensor.
    ValueError
        When the shapes, groups or arguments do not fit.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.conv_transpose3d(pydevtensor.ones(1, 1, 2, 2, 2), pydevtensor.ones(1, 1, 2, 2, 2),
    ...                    stride=2).shape
    pydevtensor.Size([1, 1, 4, 4, 4])
    """
    where = "conv_transpose3d()"
    x, unbatched, c_out = FC.check_conv_tensors(input, weight, bias, groups, 3, where,
                                                transposed=True)
    if _wants_grad((x, weight, bias), {}):  # one node (nn/_conv_node.py)
        return FC.recorded_conv(x, unbatched, weight, bias, stride, padding, dilation, groups,
                                where, output_padding)
    if x.dtype in FC.HALF_TYPES:  # Note [convolutions in half types]
        return FC.half_in_float32(conv_transpose3d, input, weight, bias, stride, padding,
                                  output_padding, groups, dilation)
    stride = FC._at_least(FC._tuple(stride, 3, "stride", where), 1, "stride", where)
    dilation = FC._at_least(FC._tuple(dilation, 3, "dilation", where), 1, "dilation", where)
    pad = FC._at_least(FC._tuple(padding, 3, "padding", where), 0, "padding", where)
    out_pad = FC._at_least(FC._tuple(output_padding, 3, "output_padding", where), 0,
                           "output_padding", where)
    for op, s, d in zip(out_pad, stride, dilation):
        if op >= max(s, d):
            raise _Invalid(f"{where}: output padding must be smaller than either stride or "
                           f"dilation, got output_padding={out_pad}, stride={stride}, "
                           f"dilation={dilation}")
    n, depth, taps = x.shape[0], x.shape[2], weight.shape[2]
    full = (depth - 1) * stride[0] + dilation[0] * (taps - 1) + 1
    out_depth = full - 2 * pad[0] + out_pad[0]
    if out_depth < 0:
        raise _Invalid(f"{where}: the output depth {out_depth} is negative (input "
                       f"{tuple(input.shape)}, padding {pad}, on {input.device})")
    sizes = FCT.transposed_sizes(tuple(x.shape[2:]), tuple(weight.shape[2:]), stride, pad,
                                 dilation, out_pad)
    if 0 in sizes and min(sizes) >= 0:  # empty, as conv_transpose2d's; gradients 0
        out = _C.zeros((n, c_out) + sizes, dtype=x.dtype, device=x.device)
        return out.squeeze(0) if unbatched else out
    images = x.transpose(1, 2).reshape((n * depth, x.shape[1]) + tuple(x.shape[3:]))
    parts = [FCT._conv_transpose(images, weight[:, :, k], None, stride[1:], pad[1:],
                                 out_pad[1:], groups, dilation[1:], 2, where)
             for k in range(taps)]
    h, w = parts[0].shape[2], parts[0].shape[3]
    out = _C.zeros((n, c_out, max(full, pad[0] + out_depth), h, w), dtype=parts[0].dtype,
                   device=parts[0].device)
    for k, part in enumerate(parts):
        start = k * dilation[0]
        out[:, :, start:start + stride[0] * (depth - 1) + 1:stride[0]] += _from_images(
            part, n, depth)
    out = out[:, :, pad[0]:pad[0] + out_depth]
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


def _pool_depth(x, kernel, stride, padding, dilation, ceil_mode, where, fill):
    """x padded along the depth (with fill, also past the end for ceil_mode) and the
    output depth, PyTorch's pooling size rule."""
    depth = x.shape[2]
    if padding > kernel // 2:
        raise _Invalid(f"{where}: pad should be at most half of effective kernel size, but "
                       f"got pad={padding}, kernel_size={kernel} and dilation={dilation}")
    span = dilation * (kernel - 1) + 1
    top = depth + 2 * padding - span
    out = (-(-top // stride) if ceil_mode else top // stride) + 1
    if ceil_mode and (out - 1) * stride >= depth + padding:
        out -= 1  # PyTorch's: the last window starts inside the input or its padding
    if out < 1:  # with ceil_mode a window may hang past the end (top < 0), as PyTorch's
        raise _Invalid(f"{where}: the output depth is too small ({out}) for an input of "
                       f"depth {depth} with kernel {kernel}, padding {padding} and dilation "
                       f"{dilation} (on {x.device})")
    after = max(padding, (out - 1) * stride + span - depth - padding)
    if padding or after:
        x = FP.pad(x, (0, 0, 0, 0, padding, after), value=fill)
    return x, out


def _pool_args(input, kernel_size, stride, padding, dilation, where, integers):
    x, unbatched = FC._batched(input, 3, where)
    FPL._floating(x, where, integers)
    x = linked_input(x)  # Note [linear inputs] in autograd/node.py
    kernel = FC._at_least(FC._tuple(kernel_size, 3, "kernel_size", where), 1, "kernel_size",
                          where)
    empty = isinstance(stride, (list, tuple)) and not stride  # not ==: a NumPy integer
    stride = kernel if stride is None or empty else FC._at_least(
        FC._tuple(stride, 3, "stride", where), 1, "stride", where)
    padding = FC._at_least(FC._tuple(padding, 3, "padding", where), 0, "padding", where)
    dilation = FC._at_least(FC._tuple(dilation, 3, "dilation", where), 1, "dilation", where)
    return x, unbatched, kernel, stride, padding, dilation


@keeps_channels_last()
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over 3-d windows, as PyTorch's ``F.max_pool3d`` (Note [3-d by slices
    of depth]; the gradient goes to the first maximum of a window, as PyTorch's).

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``, floating point or integer (not bool).
    kernel_size : int or tuple of 3 ints
        The window.
    stride : int or tuple of 3 ints, optional
        Default kernel_size.
    padding : int or tuple of 3 ints, optional
        -inf (an integer dtype's least value) on both sides, at most half the window (default 0).
    dilation : int or tuple of 3 ints, optional
        Default 1.
    ceil_mode : bool, optional
        Round the output size up (default False).
    return_indices : bool, optional
        Also return where each maximum is, as flat indices ``(z * H + y) * W + x`` into
        each ``(D, H, W)`` volume (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, Do, Ho, Wo)``, and the int64 indices.

    Raises
    ------
    ValueError
        When the sizes do not fit.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> F.max_pool3d(x, 2).flatten().tolist()
    [7.0]
    """
    where = "max_pool3d()"
    ceil_mode = flag(ceil_mode, "max_pool3d", "ceil_mode")
    x, unbatched, k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, where,
                                          FPL._INTEGERS)
    depth, (height, width) = x.shape[2], x.shape[3:]
    x, out_depth = _pool_depth(x, k[0], s[0], p[0], d[0], ceil_mode, where,
                               FPL._lowest(x.dtype))
    parts = [FPL._max_pool(images, k[1:], s[1:], p[1:], d[1:], ceil_mode, return_indices,
                           "max_pool2d()", FPL._INTEGERS)
             for images in _depth_slices(x, k[0], d[0], s[0], out_depth)]
    planes = [part[0] for part in parts] if return_indices else parts
    best = _stack(planes).max(0).values if len(planes) > 1 else planes[0]
    out = _from_images(best, x.shape[0], out_depth)
    out = out.squeeze(0) if unbatched else out
    if not return_indices:
        return out
    with _no_grad():
        indices = _max_indices_3d(best.detach(), [part[0].detach() for part in parts],
                                  [part[1] for part in parts], (depth, height, width),
                                  (k[0], s[0], p[0], d[0]), out_depth)
    indices = _from_images(indices, x.shape[0], out_depth)
    return out, indices.squeeze(0) if unbatched else indices


def _max_indices_3d(best, planes, plane_indices, size, depth_args, out_depth):
    """The flat index (z * H + y) * W + x into each (D, H, W) volume of every window's
    maximum, from each depth tap's 2-d maxima (planes, their indices y * W + x): the
    first tap holding the maximum (or a NaN) whose depth is in the volume, not the
    padding, as PyTorch's scan order (depth, then rows, then columns) finds it."""
    depth, height, width = size
    taps, stride, padding, dilation = depth_args
    values = _stack(planes)  # (K, N * Do, C, Ho, Wo)
    hit = (values == best) | (values.isnan() & best.isnan())
    tap = _C.arange(taps, device=best.device).reshape(taps, 1)
    z = tap * dilation + _C.arange(out_depth, device=best.device).reshape(1, out_depth) * \
        stride - padding  # (K, Do): the depth each tap reads for each output depth
    inside = ((z >= 0) & (z < depth)).repeat(1, best.shape[0] // out_depth)  # (K, N * Do)
    lead = (taps, best.shape[0]) + (1,) * (best.ndim - 1)
    zs = z.repeat(1, best.shape[0] // out_depth).reshape(lead)
    # the first tap inside the volume that holds it (score 3); where the window's depths
    # are all padding, the first at a depth >= 0 (score 1), PyTorch's start of the scan
    score = (hit & inside.reshape(lead)).to(_C.int8) * 2 + (zs >= 0).to(_C.int8)
    which = score.argmax(0, keepdim=True)
    z_best = zs.expand(values.shape).gather(0, which).squeeze(0)
    plane_best = _stack(plane_indices).gather(0, which).squeeze(0)
    return z_best * (height * width) + plane_best


@keeps_channels_last(follows=False)
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean over 3-d windows, as PyTorch's ``F.avg_pool3d`` (Note [3-d by slices of
    depth]): the sum over the window divided by its size (count_include_pad, clipped to
    the padded input), by the input elements in it, or by divisor_override.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``, floating point, or int64 (rounded
        toward zero).
    kernel_size : int or tuple of 3 ints
        The window.
    stride : int or tuple of 3 ints, optional
        Default kernel_size.
    padding : int or tuple of 3 ints, optional
        Zeros on both sides, at most half the window (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the padding's zeros in the divisor (default True).
    divisor_override : int, optional
        The divisor of every window.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        When the sizes do not fit or divisor_override is 0.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.avg_pool3d(pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
    [3.5]
    """
    where = "avg_pool3d()"
    ceil_mode = flag(ceil_mode, "avg_pool3d", "ceil_mode")
    count_include_pad = flag(count_include_pad, "avg_pool3d", "count_include_pad")
    if divisor_override is not None and (isinstance(divisor_override, bool) or
                                         not isinstance(divisor_override, int) or
                                         divisor_override == 0):
        raise _Invalid(f"{where}: divisor must be not zero, got {divisor_override!r}")
    x, unbatched, k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1, where,
                                          FPL._INT64)

    def window_sums(v, fill):
        v, out_depth = _pool_depth(v, k[0], s[0], p[0], 1, ceil_mode, where, fill)
        total = None
        for images in _depth_slices(v, k[0], 1, s[0], out_depth):
            part = FPL._avg_pool(images, k[1:], s[1:], p[1:], ceil_mode, True, 1,
                                 "avg_pool2d()")
            total = part if total is None else total + part
        return _from_images(total, v.shape[0], out_depth)

    sums = window_sums(x, 0.0)
    if divisor_override is not None:
        out = FPL._mean(sums, divisor_override)
    else:  # PyTorch's divisor: the window clipped to the padded input (count_include_pad)
        # or to the input, a product of one count per dimension
        counts = None
        for axis in range(3):
            n_in, n_out = x.shape[2 + axis], sums.shape[2 + axis]
            c = []
            for o in range(n_out):
                start = o * s[axis] - p[axis]
                end = min(start + k[axis], n_in + p[axis])
                c.append(end - start if count_include_pad else
                         min(end, n_in) - max(start, 0))
            shape = [1, 1, 1]
            shape[axis] = n_out
            v = _C.tensor(c, dtype=x.dtype, device=x.device).reshape(shape)
            counts = v if counts is None else counts * v
        out = FPL._mean(sums, counts)
    return out.squeeze(0) if unbatched else out


def _adaptive3d_args(input, output_size, where):
    """(x as (N, C, D, H, W), unbatched, (out_d, out_h, out_w)) after the checks; a size
    of 0 gives an empty output, as PyTorch's."""
    x, unbatched = FC._batched(input, 3, where)
    FPL._floating(x, where)
    x = linked_input(x)  # Note [linear inputs] in autograd/node.py
    dhw = tuple(x.shape[2:])
    if isinstance(output_size, (tuple, list)) and len(output_size) == 3:
        output_size = tuple(s if v is None else v for v, s in zip(output_size, dhw))
    sizes = FC._at_least(FC._tuple(output_size, 3, "output_size", where), 0, "output_size",
                         where)
    if min(dhw) < 1:  # no channels give an empty output, as the 2-d pools
        raise _Invalid(f"{where}: expected an input with non-zero spatial sizes, got shape "
                       f"{tuple(input.shape)} (on {input.device})")
    FPL._check_output_bytes(x, sizes, where)
    return x, unbatched, sizes


def _no_bins3d(x, sizes, unbatched):
    """The empty (N, C, *sizes) output of an output_size holding 0 (or of an x with no
    elements), still x's function (its gradient: zeros), as the 2-d pools' _no_bins."""
    n, c, d, h, w = x.shape
    out = x.reshape(n, c, d * h * w)[:, :, :0].reshape((n, c) + tuple(sizes))
    return out.squeeze(0) if unbatched else out


def _adaptive3d(input, output_size, where, reduce2d):
    x, unbatched, sizes = _adaptive3d_args(input, output_size, where)
    if 0 in sizes or x.numel() == 0:  # an output_size holding 0, no batch or channels
        return _no_bins3d(x, sizes, unbatched)
    # depth first: the 2-d pool of (D, H*W) planes to (out_d, H*W) reduces each depth
    # bin and leaves the H*W cells alone (bins of one cell), with no loop over out_d
    n, c, d, h, w = x.shape
    deep = reduce2d(x.reshape(n, c, d, h * w), (sizes[0], h * w))
    images = deep.reshape(n, c, sizes[0], h, w).transpose(1, 2).reshape(
        (n * sizes[0], c, h, w))
    out = _from_images(reduce2d(images, sizes[1:]), n, sizes[0])
    return out.squeeze(0) if unbatched else out


@keeps_channels_last(follows=False)
def adaptive_avg_pool3d(input, output_size):
    """The mean over PyTorch's adaptive 3-d windows, for an output of output_size.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size : int or tuple of 3 ints (or None: the input's)
        The output's spatial size.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        For an output_size that is not 3 non-negative ints (0: an empty output) or
        None, or an input with an empty spatial dim.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.adaptive_avg_pool3d(pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2), 1).item()
    3.5
    """
    x, unbatched, sizes = _adaptive3d_args(input, output_size, "adaptive_avg_pool3d()")
    x = x.squeeze(0) if unbatched else x
    if sizes == (1, 1, 1):
        # PyTorch's adaptive_avg_pool3d takes a 1x1x1 output as this mean (MeanBackward1)
        return x.mean(dim=(-3, -2, -1), keepdim=True)
    # one node, AdaptiveAvgPool3DBackward0 (nn/_adaptive_avg_nodes.py)
    from ._adaptive_avg_nodes import no_bins, pool3d  # late: it imports the pools
    if 0 in sizes or x.numel() == 0:  # an output_size holding 0, no batch or channels
        return no_bins("AdaptiveAvgPool3DBackward0", x, sizes)
    return pool3d(input, sizes)


@keeps_channels_last(follows=False)
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maximum over PyTorch's adaptive 3-d windows, for an output of output_size.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size : int or tuple of 3 ints (or None: the input's)
        The output's spatial size.
    return_indices : bool, optional
        Also return the flat int64 indices of the maxima into D * H * W, as
        max_pool3d's (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)

    Raises
    ------
    ValueError
        When output_size does not hold 3 non-negative ints (0: an empty output) or
        None, or the input has an empty spatial dim.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.adaptive_max_pool3d(pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2), 1).item()
    7.0
    """
    if return_indices or _wants_grad((input,), {}):
        # its maxima are PyTorch's first in (d, h, w) order, so a tie's gradient goes
        # where PyTorch's does (the depth-first pool's: to the first (h, w) cell holding
        # the maximum at any depth); the values are the same, the depth-first pool faster
        if not _wants_grad((input,), {}):
            got = _adaptive_max3d_indices(input, output_size)
            return got if return_indices else got[0]
        # one node, AdaptiveMaxPool3DBackward0 (nn/_adaptive_max_nodes.py)
        from ._adaptive_max_nodes import at_maxima  # late: it imports the pools
        _, index = run_no_grad(_adaptive_max3d_indices, input, output_size)
        values = at_maxima("AdaptiveMaxPool3DBackward0", input, index, 3)
        return (values, index) if return_indices else values
    return _adaptive3d(input, output_size, "adaptive_max_pool3d()",
                       lambda v, size: FPL._adaptive_max_pool(v, size, False,
                                                              "adaptive_max_pool2d()"))


def _adaptive_max3d_indices(input, output_size):
    """adaptive_max_pool3d with the flat D * H * W index of each maximum: the plane's bins
    first (each depth's first maximum in row-major order), then the depth bins of those
    (the first depth holding the maximum): PyTorch's first maximum in (d, h, w) order."""
    where = "adaptive_max_pool2d()"
    x, unbatched, (od, oh, ow) = _adaptive3d_args(input, output_size, "adaptive_max_pool3d()")
    if 0 in (od, oh, ow) or x.numel() == 0:
        out = _no_bins3d(x, (od, oh, ow), unbatched)
        return out, _C.zeros(tuple(out.shape), dtype=_C.int64, device=x.device)
    n, c, d, h, w = x.shape
    planes, in_plane = FPL._adaptive_max_pool(
        x.transpose(1, 2).reshape(n * d, c, h, w), (oh, ow), True, where)
    cols = planes.reshape(n, d, c, oh * ow).transpose(1, 2)  # (N, C, D, oh * ow)
    out, deep = FPL._adaptive_max_pool(cols, (od, oh * ow), True, where)
    depth = deep // (oh * ow)  # bins of one column: deep = depth * (oh * ow) + column
    in_plane = in_plane.reshape(n, d, c, oh * ow).transpose(1, 2)
    index = depth * (h * w) + in_plane.gather(2, depth)
    out, index = (t.reshape(n, c, od, oh, ow) for t in (out, index))
    return (out.squeeze(0), index.squeeze(0)) if unbatched else (out, index)
