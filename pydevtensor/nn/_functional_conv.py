"""unfold, fold, conv1d and conv2d (D2L's chapters 7 and 8), with PyTorch's
signatures, shape rules and errors, on every device, through the two private ops of
nn/_im2col.py: a convolution is im2col followed by one batched matrix product with
the weight seen as (groups, out/groups, in/groups*kh*kw) (float32 on the CPU: the
direct kernel, nn/_conv_direct.py).  Under autograd a convolution is one node,
ConvolutionBackward0 (nn/_conv_node.py), as PyTorch's.

The argument checks shared with the pools (nn/_functional_pool.py) are here too:
sizes given as an int or a tuple, the (N, C, H, W) view of a batched or unbatched
input, and the number of sliding windows.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .. import _C
from .._memory_format import keeps_channels_last
from ..autograd.dispatch import _wants_grad
from ._conv_direct import WIDE_WEIGHT, conv1d_direct, conv2d_direct, usable
from ._conv_node import convolution
from ._functional_pad import _index, pad, pad_constant
from ._im2col import col2im, im2col

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape


class _DtypeMismatch(TypeError, RuntimeError):
    """Tensors of different dtypes: a RuntimeError, as PyTorch's, and a TypeError, as
    pydevtensor's other dtype mismatches (a layer names itself in those)."""


# ---- argument checks, shared with the pools ----

def _tuple(value: Any, n: int, name: str, where: str) -> tuple:
    """value (an int, or a tuple or list of n ints) as a tuple of n ints."""
    if isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be an int or a tuple of {n} ints, got bool")
    one = _index(value)  # an int, a NumPy integer, a 0-d integer tensor
    if one is not None:
        return (one,) * n
    if isinstance(value, (tuple, list)):
        ints = [_index(v) for v in value]
        if None in ints:
            raise TypeError(f"{where}: {name} must be an int or a tuple of {n} ints, got "
                            f"{value!r}")
        value = type(value)(ints)
        if len(value) != n:
            raise _Invalid(f"{where}: expected {name} to be a single integer value or a list "
                           f"of {n} values to match the {n}-d operation, but got {name}="
                           f"{value!r}")
        return tuple(value)
    raise TypeError(f"{where}: {name} must be an int or a tuple of {n} ints, got "
                    f"{type(value).__name__}")


def _at_least(values: tuple, low: int, name: str, where: str) -> tuple:
    if any(v < low for v in values):
        what = "positive" if low == 1 else "non-negative"
        raise _Invalid(f"{where}: {name} must be {what}, got {name}={values}")
    return values


def _tensor(x: Any, name: str, where: str) -> Tensor:
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{where}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _batched(input: Any, spatial: int, where: str, what: str = "input") -> tuple:
    """(input as (N, C, *spatial), whether it came without the batch dim): a tensor of
    spatial + 1 dims is one unbatched sample."""
    _tensor(input, what, where)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise _Invalid(f"{where}: expected a {spatial + 1}-d (unbatched) or {spatial + 2}-d "
                       f"(batched) {what}, got shape {tuple(input.shape)} (on {input.device})")
    unbatched = input.ndim == spatial + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


def _same_device(where: str, first: Tensor, *others: tuple) -> None:
    """A DeviceError when a tensor of others ((name, tensor or None) pairs) is not on
    first's device."""
    for name, t in others:
        if t is not None and t.device != first.device:
            raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, "
                                 f"but the input is on {first.device} and {name} on "
                                 f"{t.device}; move one with .to()")


def _blocks(hw: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple,
            where: str, device: Any) -> tuple:
    """(out_h, out_w): how many windows fit along each side, or an error when none."""
    out = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                for s, k, d, p, st in zip(hw, kernel, dilation, padding, stride))
    if any(o < 1 for o in out):
        padded = tuple(s + 2 * p for s, p in zip(hw, padding))
        span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
        raise _Invalid(f"{where}: the kernel does not fit: padded input size per channel "
                       f"{padded} against a kernel spanning {span} (kernel_size={kernel}, "
                       f"dilation={dilation}, padding={padding}, stride={stride}; input "
                       f"size {tuple(hw)}, on {device}); kernel size can't be greater than "
                       f"the actual input size")
    return out


def _window_args(kernel_size, dilation, padding, stride, where):
    kernel = _at_least(_tuple(kernel_size, 2, "kernel_size", where), 1, "kernel_size", where)
    dilation = _at_least(_tuple(dilation, 2, "dilation", where), 1, "dilation", where)
    padding = _at_least(_tuple(padding, 2, "padding", where), 0, "padding", where)
    stride = _at_least(_tuple(stride, 2, "stride", where), 1, "stride", where)
    return kernel, dilation, padding, stride


def pad_end(x: Tensor, extra: tuple, value: float) -> Tensor:
    """x (N, C, H, W) with extra = (rows, cols) more of value at the bottom and the
    right (differentiable: F.pad's constant mode)."""
    return pad_constant(x, ((0, extra[1]), (0, extra[0])), value)


# ---- unfold and fold ----

def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The sliding windows of a batch of images as columns, as
    ``torch.nn.functional.unfold``.

    Each column holds one window of every channel (the channel first, then the
    kernel's row, then its column); the columns run over the window positions
    row-major, L = out_h * out_w of them, with
    ``out_h = (H + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)`` for one image.
    kernel_size : int or tuple of 2 ints
        The window's size.
    dilation : int or tuple of 2 ints, optional
        The spacing of the window's taps (default 1).
    padding : int or tuple of 2 ints, optional
        Zeros added on both sides (default 0).
    stride : int or tuple of 2 ints, optional
        The step between windows (default 1).

    Returns
    -------
    Tensor
        ``(N, C * kh * kw, L)``, or ``(C * kh * kw, L)`` for one image.

    Raises
    ------
    TypeError
        When input is not a Tensor or a size is not an int or a tuple of ints.
    ValueError, RuntimeError
        (InvalidArgumentError) When input is not 3-d or 4-d, a size is not positive
        (padding: negative), or no window fits.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(9.).reshape(1, 1, 3, 3)
    >>> F.unfold(x, 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    where = "unfold()"
    x, unbatched = _batched(input, 2, where)
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride,
                                                     where)
    _blocks(tuple(x.shape[2:]), kernel, dilation, padding, stride, where, x.device)
    cols = im2col(x, kernel, dilation, padding, stride)
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The columns of :func:`unfold` put back into images, entries that fall on one
    pixel summed, as ``torch.nn.functional.fold`` (unfold's adjoint; fold(unfold(x))
    is x times the number of windows covering each pixel).

    Parameters
    ----------
    input : Tensor
        ``(N, C * kh * kw, L)``, or ``(C * kh * kw, L)``; L must be the number of
        windows that fit in output_size.
    output_size : int or tuple of 2 ints
        (H, W) of the images.
    kernel_size, dilation, padding, stride : int or tuple of 2 ints
        As in :func:`unfold`.

    Returns
    -------
    Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``.

    Raises
    ------
    TypeError
        When input is not a Tensor or a size is not an int or a tuple of ints.
    ValueError, RuntimeError
        (InvalidArgumentError) When input is not 2-d or 3-d, its dimension -2 is not a
        multiple of kh * kw, or its last dimension is not the number of windows.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.fold(pydevtensor.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    where = "fold()"
    _tensor(input, "input", where)
    if input.ndim not in (2, 3):
        raise _Invalid(f"{where}: expected a 2-d (unbatched) or 3-d (batched) input "
                       f"(N, C * kh * kw, L), got shape {tuple(input.shape)} (on "
                       f"{input.device})")
    unbatched = input.ndim == 2
    cols = input.unsqueeze(0) if unbatched else input
    size = _at_least(_tuple(output_size, 2, "output_size", where), 1, "output_size", where)
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride,
                                                     where)
    k = kernel[0] * kernel[1]
    if cols.shape[1] % k:
        raise _Invalid(f"{where}: expected size of input's dimension -2 to be divisible by "
                       f"the product of kernel_size {kernel}, {k}, but got {cols.shape[1]} "
                       f"(input of shape {tuple(input.shape)} on {input.device})")
    out_h, out_w = _blocks(size, kernel, dilation, padding, stride, where, input.device)
    if cols.shape[2] != out_h * out_w:
        raise _Invalid(f"{where}: given output_size={size}, kernel_size={kernel}, "
                       f"dilation={dilation}, padding={padding}, stride={stride}, expected "
                       f"size of input's last dimension to match the calculated number of "
                       f"sliding blocks {out_h} * {out_w} = {out_h * out_w}, but got "
                       f"{cols.shape[2]} (input of shape {tuple(input.shape)} on "
                       f"{input.device})")
    out = col2im(cols, size, kernel, dilation, padding, stride)
    return out.squeeze(0) if unbatched else out


# ---- convolutions ----

def _padding(padding: Any, nd: int, kernel: tuple, stride: tuple, dilation: tuple,
             where: str, warn: bool = True) -> tuple:
    """(padding on both sides, extra at the end): 'same' pads dilation * (k - 1) in all,
    the odd one at the end (as PyTorch); 'valid' is 0.  An odd total (an even kernel
    length with an odd dilation) warns as PyTorch's forward does (warn=False: a layer's
    constructor checking its arguments), once a process under Python's default filter
    (the warning is attributed to this line, as TORCH_WARN_ONCE)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * nd, (0,) * nd
        if padding != "same":
            raise _Invalid(f"{where}: invalid padding string {padding!r}, should be one of "
                           f"{{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise _Invalid(f"{where}: padding='same' is not supported for strided "
                           f"convolutions (stride={stride})")
        total = tuple(d * (k - 1) for k, d in zip(kernel, dilation))
        if warn and any(t % 2 for t in total):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                          "require a zero-padded copy of the input be created", UserWarning,
                          stacklevel=1)
        return tuple(t // 2 for t in total), tuple(t % 2 for t in total)
    return _at_least(_tuple(padding, nd, "padding", where), 0, "padding", where), (0,) * nd


def check_conv_tensors(input, weight, bias, groups, nd, where, transposed=False):
    """The checks a convolution (transposed: its adjoint, weight (in_channels,
    out_channels / groups, k...)) makes of its tensors and groups; returns (input as
    (N, C, ...), whether it came unbatched, out_channels)."""
    x, unbatched = _batched(input, nd, where)
    _tensor(weight, "weight", where)
    if bias is not None:
        _tensor(bias, "bias", where)
    if weight.ndim != nd + 2:
        layout = ("in_channels, out_channels / groups" if transposed else
                  "out_channels, in_channels / groups")
        raise _Invalid(f"{where}: weight must be {nd + 2}-d ({layout}, "
                       f"{('kW', 'kH, kW', 'kD, kH, kW')[nd - 1]}), got shape "
                       f"{tuple(weight.shape)} (on {weight.device})")
    _same_device(where, input, ("weight", weight), ("bias", bias))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.dtype != input.dtype:
            raise _DtypeMismatch(f"{where}: input and {name} must have the same dtype, got "
                                 f"{input.dtype} and {t.dtype} (on {input.device})")
    if not input.dtype.is_floating_point:
        raise _C.DTypeError(f"{where}: expected a floating point input, got {input.dtype} (on "
                            f"{input.device})")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"{where}: groups must be an int, got {type(groups).__name__}")
    if groups < 1:
        raise _Invalid(f"{where}: non-positive groups is not supported, got groups={groups}")
    if weight.shape[0] % groups:
        raise _Invalid(f"{where}: given groups={groups}, expected weight to be divisible by "
                       f"{groups} at dimension 0, but got weight of shape "
                       f"{tuple(weight.shape)} (on {weight.device})")
    if transposed:
        in_c, out_c = weight.shape[0], weight.shape[1] * groups
    else:
        in_c, out_c = weight.shape[1] * groups, weight.shape[0]
    if x.shape[1] != in_c:
        raise _Invalid(f"{where}: given groups={groups}, weight of shape "
                       f"{tuple(weight.shape)}, expected input of shape {tuple(input.shape)} "
                       f"to have {in_c} channels, but got {x.shape[1]} "
                       f"channels instead (on {input.device})")
    if bias is not None and tuple(bias.shape) != (out_c,):
        raise _Invalid(f"{where}: given weight of shape {tuple(weight.shape)}, expected bias "
                       f"to be 1-d with {out_c} elements, but got bias of shape "
                       f"{tuple(bias.shape)} (on {bias.device})")
    return x, unbatched, out_c


# Note [convolutions in half types]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's CPU convolutions in float16 and bfloat16 sum in float32 and round the output
# once.  The GEMM does (cpu_gemm_half.c), so a convolution that is one product, with the
# bias as its addend (conv1d and conv2d, groups=1: addmm), is rounded once here too.
# Where the output is more than one product (the bias added to a batched product, the
# depth taps of conv3d added, col2im's overlapping windows of a transposed convolution),
# the half types are computed in float32 and rounded at the end (half_in_float32):
# rounded after each step, the error against the float64 answer was up to 3x
# PyTorch's (bfloat16 conv_transpose3d, stride 1: 0.36 against 0.11).  The float32
# copies cost 2 bytes per element of the operands; gradients come back in the half type.
# PyTorch 2.15's float16 transposed convolutions (not its bfloat16 ones) round the
# columns before col2im sums them: there these are closer to the float64 answer than
# PyTorch's, not equal to its bits (conv_transpose3d, stride 1: 0.016 against 0.054).
HALF_TYPES = (_C.float16, _C.bfloat16)


def half_in_float32(conv, input, weight, bias, *args):
    """conv(input, weight, bias, *args) of float16 or bfloat16 tensors, computed in float32
    and rounded to their dtype once (Note [convolutions in half types])."""
    wide = conv(input.float(), weight.float(), None if bias is None else bias.float(), *args)
    return wide.to(input.dtype)


def recorded_conv(x, unbatched, weight, bias, stride, padding, dilation, groups,
                  where, output_padding=None):
    """A convolution of x (N, C, ...), checked by check_conv_tensors, or with
    output_padding its transposed convolution, recorded as one ConvolutionBackward0
    (nn/_conv_node.py) after 'same''s odd padding at the end, as PyTorch's."""
    nd, layout_of = x.ndim - 2, x
    stride = _at_least(_tuple(stride, nd, "stride", where), 1, "stride", where)
    dilation = _at_least(_tuple(dilation, nd, "dilation", where), 1, "dilation", where)
    if output_padding is None:
        padding, extra = _padding(padding, nd, tuple(weight.shape[2:]), stride, dilation,
                                  where)
        if any(extra):
            x = pad(x, tuple(v for e in reversed(extra) for v in (0, e)))
    else:
        padding = _at_least(_tuple(padding, nd, "padding", where), 0, "padding", where)
        output_padding = _at_least(_tuple(output_padding, nd, "output_padding", where), 0,
                                   "output_padding", where)
    out = convolution(x, weight, bias, stride, padding, dilation, output_padding is not None,
                      output_padding or (0,) * nd, groups, layout_of)
    return out.squeeze(0) if unbatched else out


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, where, keep=None):
    """conv1d (nd = 1, done as a 2-d convolution of height 1) and conv2d; keep, a list,
    takes the columns when im2col makes them (for the weight's gradient)."""
    x, unbatched, out_c = check_conv_tensors(input, weight, bias, groups, nd, where)
    if _wants_grad((x, weight, bias), {}):  # one node (nn/_conv_node.py)
        return recorded_conv(x, unbatched, weight, bias, stride, padding, dilation, groups,
                             where)
    if x.dtype in HALF_TYPES and bias is not None and groups > 1:
        # a batched product, then the bias: Note [convolutions in half types]
        return half_in_float32(_conv, input, weight, bias, stride, padding, dilation,
                               groups, nd, where)
    in_per_group = weight.shape[1]
    kernel = tuple(weight.shape[2:])
    stride = _at_least(_tuple(stride, nd, "stride", where), 1, "stride", where)
    dilation = _at_least(_tuple(dilation, nd, "dilation", where), 1, "dilation", where)
    padding, extra = _padding(padding, nd, kernel, stride, dilation, where)
    rows = (x, weight)  # conv1d's own, for its direct kernel
    if nd == 1:  # a row of height 1
        x, weight = x.unsqueeze(2), weight.unsqueeze(2)
        kernel, stride, dilation = (1,) + kernel, (1,) + stride, (1,) + dilation
        padding, extra = (0,) + padding, (0,) + extra
    if any(extra):
        x = pad_end(x, extra, 0.0)
    hw = tuple(x.shape[2:])
    out_h, out_w = _blocks(hw, kernel, dilation, padding, stride, where, input.device)
    n, k = x.shape[0], kernel[0] * kernel[1]
    if usable(x, stride):
        # float32 on the CPU: no im2col (Note [the direct convolution]); under autograd the
        # gradients are nn/_conv_node.py's
        out = (conv2d_direct(x, weight, bias, stride, padding, dilation, groups) if nd == 2
               else conv1d_direct(x.squeeze(2) if any(extra) else rows[0], rows[1], bias,
                                  stride, padding, dilation, groups))
        return out.squeeze(0) if unbatched else out
    cols = im2col(x, kernel, dilation, padding, stride)  # (N, C * k, L)
    if keep is not None:
        keep.append(cols)
    # A 2-d product takes the bias as its addend (addmm), so a float16 or bfloat16 output
    # is rounded once, as PyTorch's: added after, the product was rounded to the half type
    # and the sum rounded again (a quarter of the elements one half-ulp off; Note
    # [convolutions in half types])
    folded = bias is not None and groups == 1
    if n > 1 and (x.dtype in (_C.float16, _C.bfloat16) or (
            out_h * out_w < in_per_group * k
            and weight.numel() * weight.element_size() >= WIDE_WEIGHT)):
        # N inside the GEMM: (groups, C_g * k, N * L), one product for the batch.  The
        # weight's gradient is then one product too, summed in the GEMM's accumulator
        # (float32 for the half types, not N products each rounded before they are
        # added), and no (N, C_out, C_g * k) stack of per-image gradients is made.
        # Worth the two transposing copies when the images are small against the
        # window (the late layers of a ResNet or VGG: L = 9, C * k = 4608): 32 images
        # of 512 x 3 x 3 through a 3 x 3 conv, forward+backward 150 -> 32-40 ms (torch's
        # oneDNN 30), 256 x 7 x 7 80-90 -> 46-54 ms, two threads.  Only for a weight that
        # does not stay in the cache between images (WIDE_WEIGHT): with a small one the
        # per-image products win and the copies are pure cost (LeNet's second conv, 256
        # images of 6 x 14 x 14 through 16 5 x 5 filters: 6.2 ms wide, 2.2 per image;
        # 128 x 16 x 10 x 10 through 32 5 x 5: 5.6 and 1.3; one thread).
        w = weight.reshape(groups, out_c // groups, in_per_group * k)
        wide = cols.reshape(n, groups, in_per_group * k, out_h * out_w).permute(1, 2, 0, 3)
        wide = wide.reshape(groups, in_per_group * k, n * out_h * out_w)
        out = _C.addmm(bias.reshape(out_c, 1), w[0], wide[0]).unsqueeze(0) if folded else \
            _C.matmul(w, wide)
        out = out.reshape(groups, out_c // groups, n, out_h * out_w).permute(2, 0, 1, 3)
    elif groups == 1:
        w = weight.reshape(out_c, in_per_group * k)
        folded = folded and n == 1
        out = _C.addmm(bias.reshape(out_c, 1), w, cols[0]).unsqueeze(0) if folded else \
            _C.matmul(w, cols)
    else:
        w = weight.reshape(groups, out_c // groups, in_per_group * k)
        out = _C.matmul(w, cols.reshape(n, groups, in_per_group * k, out_h * out_w))
    out = out.reshape(n, out_c, out_h, out_w) if nd == 2 else out.reshape(n, out_c, out_w)
    if bias is not None and not folded:
        out = out + bias.reshape((out_c,) + (1,) * nd)
    return out.squeeze(0) if unbatched else out


@keeps_channels_last(with_weight=True)
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups=1) -> Tensor:
    """The 2-d cross-correlation of a batch of images with a bank of filters, as
    ``torch.nn.functional.conv2d``::

        out[n, o, y, x] = bias[o] + sum over c, i, j of
            weight[o, c, i, j] * xp[n, g * C_g + c, y * sh + i * dh, x * sw + j * dw]

    where xp is the input padded with zeros, g = o // (out_channels / groups) is
    output channel o's group and C_g = in_channels / groups.  The output has
    ``out_h = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1`` rows (out_w alike).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)``, or ``(C_in, H, W)`` for one image; floating point.
    weight : Tensor
        ``(C_out, C_in / groups, kh, kw)``, of input's dtype and device.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or tuple of 2 ints, optional
        The step between windows (default 1).
    padding : int, tuple of 2 ints, 'valid' or 'same', optional
        Zeros added on both sides (default 0); 'same' keeps the size (stride 1 only;
        an odd total goes to the bottom and the right), 'valid' is 0.
    dilation : int or tuple of 2 ints, optional
        The spacing of the kernel's taps (default 1).
    groups : int, optional
        Input and output channels split into this many groups, each convolved alone
        (default 1); it must divide both.

    Returns
    -------
    Tensor
        ``(N, C_out, out_h, out_w)``, or ``(C_out, out_h, out_w)``.

    Raises
    ------
    TypeError
        When an argument is not a Tensor, the input is not floating point, or a
        size is not an int or a tuple of ints.
    RuntimeError, TypeError
        When the dtypes of input, weight and bias differ (both classes).
    ValueError, RuntimeError
        (InvalidArgumentError) For a weight that is not 4-d, a channel count that does
        not match, groups that do not divide the channels, a non-positive stride or
        dilation, a negative padding, a kernel larger than the padded input, an
        unknown padding string or 'same' with a stride.
    DeviceError
        When the tensors are on different devices.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(9.).reshape(1, 1, 3, 3)
    >>> F.conv2d(x, pydevtensor.ones(1, 1, 2, 2))
    tensor([[[[ 8., 12.],
              [20., 24.]]]])
    >>> F.conv2d(x, pydevtensor.ones(1, 1, 3, 3), padding='same').shape
    pydevtensor.Size([1, 1, 3, 3])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d()")


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups=1) -> Tensor:
    """The 1-d cross-correlation of a batch of sequences with a bank of filters, as
    ``torch.nn.functional.conv1d``: :func:`conv2d` of rows of height 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)``, or ``(C_in, L)``; floating point.
    weight : Tensor
        ``(C_out, C_in / groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, dilation : int or tuple of 1 int, optional
        As in :func:`conv2d` along one axis (padding also 'valid' or 'same').
    groups : int, optional
        As in :func:`conv2d` (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, L_out)``, or ``(C_out, L_out)``, with
        ``L_out = (L + 2 * padding - dilation * (k - 1) - 1) // stride + 1``.

    Raises
    ------
    TypeError, ValueError, RuntimeError, DeviceError
        As :func:`conv2d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 2., 3., 4.]]])
    >>> F.conv1d(x, pydevtensor.tensor([[[1., -1.]]]))
    tensor([[[-1., -1., -1.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d()")
