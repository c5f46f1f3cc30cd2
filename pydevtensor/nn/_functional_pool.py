"""max_pool2d, avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d (D2L's
chapters 7 and 8), with PyTorch's signatures, defaults, output sizes (ceil_mode
included) and errors, on every device.

The windowed pools read their windows with im2col (nn/_im2col.py): max pooling pads
with -inf and takes, per window, the first largest element (the gradient goes to it
alone, as PyTorch's; a window whose real cells are all -inf picks its first real
cell, never the padding); average pooling sums the windows and divides by each
window's count (PyTorch's divisor: the padding counts with count_include_pad, the
cells that ceil_mode adds past the padding never do).  The adaptive pools split each
side into PyTorch's bins, ``[floor(i * H / out), ceil((i + 1) * H / out))``: when out
divides H they are the windowed pools with kernel = stride = H / out; otherwise the
average sums each side's bins in turn, an index_select of their cells padded with a
zero (not a product with an averaging matrix, whose 0 * inf would spread a NaN or
inf to every bin), and the maximum is read through one index_select of the bins'
cells.  float16 and bfloat16 are summed and divided in float32 and rounded once, as
PyTorch does.

The constant tensors (divisors, bin counts and cells, bin offsets, first real taps)
are made on the device from aranges and kept in nn/_index_cache.py; indices are
computed with integer arithmetic, so that no pool but the uneven adaptive max
(its index_select's range check) reads anything back from a GPU besides im2col.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import flag
from .._dtype_info import iinfo
from .._memory_format import keeps_channels_last
from .._ops_index import where
from .._ops_join import cat
from ..autograd.dispatch import derivative, recorded, run_no_grad
from ..autograd.node import Node, linked_input
from . import _index_cache
from ._functional_conv import (_Invalid, _at_least, _batched, _tuple, _window_args,
                               pad_end)
from ._functional_norm import _wide
from ._functional_pad import pad as F_pad
from ._im2col import col2im, im2col

if TYPE_CHECKING:
    from .._C import Tensor


_INTEGERS = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)  # max pooling takes them
_INT64 = (_C.int64,)  # average pooling: PyTorch's sums and truncating division


def _floating(x: Tensor, where: str, integers: tuple = ()) -> None:
    """x is floating point, or of one of the integer dtypes integers (PyTorch's pools
    take the integers for images: max_pool2d/3d any, avg_pool int64)."""
    if not x.dtype.is_floating_point and x.dtype not in integers:
        also = f" or {', '.join(str(d) for d in integers)}" if integers else ""
        raise RuntimeError(f"{where}: expected a floating point input{also}, got {x.dtype} "
                           f"of shape {tuple(x.shape)} (on {x.device})")


def _lowest(dtype):
    """max pooling's padding: -inf, or the integer dtype's least value."""
    return -math.inf if dtype.is_floating_point else iinfo(dtype).min


def _pool_size(size: int, k: int, d: int, p: int, s: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size along one side: with ceil_mode the last window may
    hang past the end, but must start inside the input or its left padding."""
    span = d * (k - 1) + 1
    if not ceil_mode:
        return (size + 2 * p - span) // s + 1
    out = -(-(size + 2 * p - span) // s) + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, where, effective,
               integers=()):
    """(x as (N, C, H, W), unbatched, kernel, stride, padding, dilation, (out_h, out_w))
    after PyTorch's checks; effective: the padding is compared with the dilated kernel
    (max pooling) rather than the kernel (average pooling); integers: the integer dtypes
    taken."""
    x, unbatched = _batched(input, 2, where)
    _floating(x, where, integers)
    x = linked_input(x)  # Note [linear inputs]: the second derivative is zeros
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel_size
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride,
                                                     where)
    for k, d, p in zip(kernel, dilation, padding):
        half = ((k - 1) * d + 1) // 2 if effective else k // 2
        if p > half:
            what = (f"effective kernel size, but got pad={p}, kernel_size={k} and "
                    f"dilation={d}") if effective else f"kernel size, but got pad={p} and " \
                                                       f"kernel_size={k}"
            raise _Invalid(f"{where}: pad should be at most half of {what} (on {x.device})")
    hw = tuple(x.shape[2:])
    out = tuple(_pool_size(*args, ceil_mode) for args in zip(hw, kernel, dilation, padding,
                                                               stride))
    if min(out) < 1:
        c = x.shape[1]
        raise _Invalid(f"{where}: given input size ({c}x{hw[0]}x{hw[1]}), calculated output "
                       f"size ({c}x{out[0]}x{out[1]}) is too small (kernel_size={kernel}, "
                       f"stride={stride}, padding={padding}, dilation={dilation}; on "
                       f"{x.device})")
    return x, unbatched, kernel, stride, padding, dilation, out


def _windows(x, kernel, stride, padding, dilation, out, pad_value):
    """(N, C, kh*kw, L) windows of x, with ceil_mode's extra cells at the end."""
    n, c, h, w = x.shape
    if not x.dtype.is_floating_point:  # im2col takes floating point: unfold's views
        return _integer_windows(x, kernel, stride, padding, dilation, out, pad_value)
    extra = _extra((h, w), kernel, stride, padding, dilation, out)
    if any(extra):
        x = pad_end(x, extra, pad_value)
    cols = im2col(x, kernel, dilation, padding, stride, pad_value)
    return cols.reshape(n, c, kernel[0] * kernel[1], out[0] * out[1])


def _extra(hw, kernel, stride, padding, dilation, out) -> tuple:
    """The (rows, cols) that ceil_mode's last windows reach past the padded input."""
    return tuple(max(0, (o - 1) * s + d * (k - 1) + 1 - (size + 2 * p))
                 for o, s, d, k, size, p in zip(out, stride, dilation, kernel, hw, padding))


def _integer_windows(x, kernel, stride, padding, dilation, out, pad_value):
    """_windows of an integer x: x padded with pad_value (to the last window's end),
    each window's taps by unfold (exact for every integer dtype)."""
    n, c, h, w = x.shape
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    after = tuple(max(0, (o - 1) * s + sp - size - p)
                  for o, s, sp, size, p in zip(out, stride, span, (h, w), padding))
    x = F_pad(x, (padding[1], padding[1] + after[1], padding[0], padding[0] + after[0]),
              value=pad_value)
    taps = x.unfold(2, span[0], stride[0]).unfold(3, span[1], stride[1])
    taps = taps[:, :, :out[0], :out[1], ::dilation[0], ::dilation[1]]
    return taps.reshape(n, c, out[0] * out[1], kernel[0] * kernel[1]).transpose(2, 3)


def _unbatch(t: Tensor, unbatched: bool) -> Tensor:
    return t.squeeze(0) if unbatched else t


@keeps_channels_last()
def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """The largest value of each window, as ``torch.nn.functional.max_pool2d``.

    The padding reads -inf; the output has
    ``out_h = (H + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1`` rows
    (rounded up with ceil_mode, where the last window still starts inside the input
    or its left padding).  The gradient goes to the first largest element of each
    window.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point or integer (not bool).
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        The step between windows (default: kernel_size).
    padding : int or tuple of 2 ints, optional
        -inf (an integer dtype's least value) added on both sides, at most half the
        dilated kernel (default 0).
    dilation : int or tuple of 2 ints, optional
        The spacing of the window's taps (default 1).
    ceil_mode : bool, optional
        Round the output size up (default False).
    return_indices : bool, optional
        Also return where each maximum is, as flat indices into H * W (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, out_h, out_w)`` (or ``(C, out_h, out_w)``), and the int64 indices.

    Raises
    ------
    TypeError
        When input is not a Tensor or a size is not an int or a tuple of ints.
    RuntimeError
        When input is not floating point; (InvalidArgumentError, also a ValueError) when
        it is not 3-d or 4-d, a size is not positive, padding is more than half the
        kernel, or the output would be empty.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> F.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    >>> F.max_pool2d(x, 3, stride=2, ceil_mode=True, return_indices=True)[1]
    tensor([[[[10, 11],
              [14, 15]]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     "max_pool2d()", _INTEGERS)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, where,
              integers=()):
    """max_pool2d, naming where in its errors (max_pool1d calls it with a height of 1)."""
    ceil_mode = flag(ceil_mode, where.removesuffix("()"), "ceil_mode")
    x, unbatched, kernel, stride, padding, dilation, out = _pool_args(
        input, kernel_size, stride, padding, dilation, ceil_mode, where, True, integers)
    n, c, h, w = x.shape
    cols = _windows(x, kernel, stride, padding, dilation, out, _lowest(x.dtype))
    if not return_indices and not (x.requires_grad and _C.is_grad_enabled()):
        # no one asks where the maxima are: amax, without the indices (2-4x faster)
        return _unbatch(cols.amax(dim=2).reshape(n, c, out[0], out[1]), unbatched)
    first = _first_real_taps(kernel, stride, padding, dilation, out, x.device)
    # unbatched: (C, out_h, out_w) from the op itself, whose node PyTorch's grad_fn is
    values, taps = _window_max(cols, first, ((c,) if unbatched else (n, c)) + tuple(out))
    if not return_indices:
        return values
    return values, _tap_positions(taps, kernel, stride, padding, dilation, out, w, x.device)


def _int_range(n: int, device) -> Tensor:
    return _C.arange(n, dtype=_C.int64, device=device)


def _first_real_taps(kernel, stride, padding, dilation, out, device) -> Tensor:
    """(L,) int64: each window's first tap (row-major, i * kw + j) that reads the input
    rather than the padding, kept per device."""
    def build():
        def axis(k, s, p, d, o):  # ceil(max(0, p - o * s) / d)
            return (_int_range(o, device).mul_(-s).add_(p).clamp(min=0).add_(d - 1)) // d

        rows = axis(kernel[0], stride[0], padding[0], dilation[0], out[0])
        cols = axis(kernel[1], stride[1], padding[1], dilation[1], out[1])
        return (rows.mul_(kernel[1]).reshape(out[0], 1) + cols.reshape(1, out[1])).reshape(-1)

    return _index_cache.get(("max_pool2d first", kernel, stride, padding, dilation, out),
                            device, build)


@recorded("max_pool2d_with_indices")
def _window_max(cols: Tensor, first: Tensor, shape: tuple) -> tuple:
    """cols (N, C, K, L) -> (values, taps), each of shape (N, C, out_h, out_w), or
    (C, out_h, out_w) unbatched: each window's maximum and the first tap holding it; a
    window whose maximum is -inf (its
    real cells all -inf) takes its first real tap, first (L,), as PyTorch's, so that
    neither its index nor its gradient lands on the padding.  The reshape is part of
    the op: its grad_fn is MaxPool2DWithIndicesBackward0, as PyTorch's."""
    values, which = cols.max(dim=2)
    taps = where(values == _lowest(cols.dtype), first, which)
    return values.reshape(shape), taps.reshape(shape)


@derivative("max_pool2d_with_indices")
class MaxPool2DWithIndicesBackward0(Node):
    """The gradient of each window's maximum goes to the tap _window_max chose."""

    def save(self, out, cols, first, shape):
        self.save_tensors(out[1])  # the taps (an output, not differentiable)
        self.cols = tuple(cols.shape)
        return (cols,)

    def backward(self, g):
        (taps,) = self.saved_tensors
        n, c, kk, cells = self.cols  # sizes, not -1: an empty batch has no -1 to infer
        k = _int_range(kk, g.device).reshape(1, 1, kk, 1)
        shape = (n, c, 1, cells)
        return ((k == taps.reshape(shape)).to(g.dtype) * g.reshape(shape),)


def _tap_positions(taps, kernel, stride, padding, dilation, out, w, device) -> Tensor:
    """taps (N, C, out_h, out_w), each i * kw + j -> the flat index y * W + x of that
    tap in the unpadded plane (integer arithmetic: nothing read back)."""
    (_, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ky = taps // kw
    kx = taps - ky * kw
    oy = _int_range(out[0], device).mul_(sh).sub_(ph).reshape(out[0], 1)
    ox = _int_range(out[1], device).mul_(sw).sub_(pw).reshape(1, out[1])
    return (ky * dh + oy) * w + kx * dw + ox


def _uniform_count(size: int, k: int, p: int, s: int, out: int, include_pad: bool):
    """Every window's number of cells along one side when they are all equal (as the
    first's), else None (then _divisor counts each)."""
    first = min(k, size + 2 * p) if include_pad else min(k - p, size)
    last_end = (out - 1) * s - p + k
    if out == 1 or (include_pad and last_end <= size + p) or \
            (not include_pad and p == 0 and last_end <= size):
        return first
    return None


def _divisor(hw, kernel, padding, stride, out, include_pad, dtype, device) -> Tensor:
    """(out_h, out_w): each window's number of cells inside the padded input
    (include_pad) or inside the input (ceil_mode's extra cells never count), kept per
    device."""
    def build():
        def axis(size, k, p, s, o):
            start = _int_range(o, device).mul_(s).sub_(p)
            end = (start + k).clamp(max=size + p)
            if not include_pad:
                start, end = start.clamp(min=0), end.clamp(max=size)
            return (end - start).to(dtype)

        rows = axis(hw[0], kernel[0], padding[0], stride[0], out[0])
        cols = axis(hw[1], kernel[1], padding[1], stride[1], out[1])
        return rows.reshape(out[0], 1) * cols.reshape(1, out[1])

    return _index_cache.get(("avg_pool2d divisor", hw, kernel, padding, stride, out,
                             include_pad, dtype), device, build)


@keeps_channels_last()
def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window, as ``torch.nn.functional.avg_pool2d``.

    The padding reads 0; each window's sum is divided by divisor_override when given,
    else by its number of cells inside the padded input (count_include_pad) or inside
    the input alone; the cells that ceil_mode adds past the padding never count.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point, or int64 (the sums divided
        as integers, rounded toward zero, as PyTorch's).
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        The step between windows (default: kernel_size).
    padding : int or tuple of 2 ints, optional
        Zeros added on both sides, at most half the kernel (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the padding in the divisor (default True).
    divisor_override : int, optional
        A divisor for every window instead (not 0).

    Returns
    -------
    Tensor
        ``(N, C, out_h, out_w)``, or ``(C, out_h, out_w)``.

    Raises
    ------
    TypeError
        When input is not a Tensor, a size is not an int or a tuple of ints, or
        divisor_override is not an int.
    RuntimeError
        When input is not floating point or divisor_override is 0;
        (InvalidArgumentError, also a ValueError) when it is not 3-d or 4-d, a size
        is not positive, padding is more than half the kernel, or the output would
        be empty.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> F.avg_pool2d(x, 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    >>> F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
    tensor([[[[ 2.5000,  4.0000],
              [ 8.5000, 10.0000]]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool2d()")


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, where, adaptive=False):
    """avg_pool2d, naming where in its errors (avg_pool1d calls it with a height of 1);
    adaptive: recorded as adaptive_avg_pool2d (its bins are these windows)."""
    ceil_mode = flag(ceil_mode, where.removesuffix("()"), "ceil_mode")
    count_include_pad = flag(count_include_pad, where.removesuffix("()"), "count_include_pad")
    if divisor_override is not None:
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, int):
            raise TypeError(f"{where}: divisor_override must be an int or None, got "
                            f"{type(divisor_override).__name__}")
        if divisor_override == 0:
            raise RuntimeError(f"{where}: divisor must be not zero")
    x, unbatched, kernel, stride, padding, _, out = _pool_args(
        input, kernel_size, stride, padding, 1, ceil_mode, where, False, _INT64)
    n, c, h, w = x.shape
    wide = _wide(x.dtype)
    if divisor_override is not None:
        divisor = divisor_override
    else:
        include = bool(count_include_pad)
        per = [_uniform_count(size, k, p, s, o, include)
               for size, k, p, s, o in zip((h, w), kernel, padding, stride, out)]
        divisor = per[0] * per[1] if None not in per else _divisor(  # one for all, or each's
            (h, w), kernel, padding, stride, out, include, wide, x.device)
    if adaptive:
        return _unbatch(_adaptive_window_mean(x, kernel, stride, padding, out, divisor),
                        unbatched)
    # unbatched: (C, out_h, out_w) from the op itself, whose node PyTorch's grad_fn is
    return _window_mean(x, kernel, stride, padding, out, divisor, unbatched)


def _tiles(hw, kernel, stride, padding, out) -> bool:
    """Note [tiling windows]: large windows that tile the input (a global average:
    adaptive_avg_pool2d(x, 1)) are a reshape of it, (n, c, oh, kh, ow, kw), summed over
    kh and kw where it lies: no window copy, and a backward that only broadcasts.
    (32, 64, 28, 28) float32, one thread: the global average 14.5 -> 0.44 ms, 14x14
    windows 7.0 -> 3.5; below 8x8 windows the copy and its row sums are faster (2x2:
    3.1 against 19 ms through the reshape).  ceil_mode's windows may not tile."""
    return (tuple(stride) == tuple(kernel) and tuple(padding) == (0, 0)
            and kernel[0] * kernel[1] >= 64
            and out[0] * kernel[0] <= hw[0] and out[1] * kernel[1] <= hw[1])


@recorded("avg_pool2d")
def _window_mean(x, kernel, stride, padding, out, divisor, unbatched=False):
    """(N, C, out_h, out_w), or (C, out_h, out_w) when unbatched (N is 1): each window's
    sum over divisor (an int, or a Tensor of each window's count), in float32 for the half
    types and rounded once; recorded as one op, AvgPool2DBackward0 as PyTorch's."""
    n, c, h, w = x.shape
    wide = _wide(x.dtype)
    if _tiles((h, w), kernel, stride, padding, out):
        (kh, kw), (oh, ow) = kernel, out
        tiles = x if (oh * kh, ow * kw) == (h, w) else x[:, :, :oh * kh, :ow * kw]
        sums = tiles.reshape(n, c, oh, kh, ow, kw).sum(dim=(3, 5), dtype=wide)
    else:
        sums = _windows(x, kernel, stride, padding, (1, 1), out, 0.0).sum(dim=2, dtype=wide)
        sums = sums.reshape(n, c, out[0], out[1])
    mean = _mean(sums, divisor)
    mean = mean.squeeze(0) if unbatched else mean
    return mean if wide == x.dtype else mean.to(x.dtype)


@derivative("avg_pool2d")
class AvgPool2DBackward0(Node):
    """Each window's share g / divisor goes to each of its cells (the padding's and
    ceil_mode's extra cells dropped): broadcast over the tiles, or col2im of it
    repeated over the window's taps.  Linear in g, by recorded ops (create_graph)."""

    def save(self, out, x, kernel, stride, padding, out_hw, divisor, unbatched=False):
        self.args = (tuple(x.shape), x.dtype, kernel, stride, padding, out_hw, divisor)
        return (x,)

    def backward(self, g):
        (n, c, h, w), dtype, kernel, stride, padding, out, divisor = self.args
        wide = _wide(dtype)
        g = _mean(g if g.dtype == wide else g.to(wide), divisor)
        (kh, kw), (oh, ow) = kernel, out
        if _tiles((h, w), kernel, stride, padding, out):
            dx = g.reshape(n, c, oh, 1, ow, 1).expand(n, c, oh, kh, ow, kw)
            dx = dx.reshape(n, c, oh * kh, ow * kw)
            if (oh * kh, ow * kw) != (h, w):
                dx = F_pad(dx, (0, w - ow * kw, 0, h - oh * kh))
        else:
            extra = _extra((h, w), kernel, stride, padding, (1, 1), out)
            cols = g.reshape(n, c, 1, oh * ow).expand(n, c, kh * kw, oh * ow)
            dx = col2im(cols.reshape(n, c * kh * kw, oh * ow), (h + extra[0], w + extra[1]),
                        kernel, (1, 1), padding, stride)
            if any(extra):
                dx = dx[:, :, :h, :w]
        return (dx if dx.dtype == dtype else dx.to(dtype),)


# adaptive_avg_pool2d whose bins are avg_pool2d's windows: the same op under
# PyTorch's name for it
_adaptive_window_mean = recorded("adaptive_avg_pool2d")(_window_mean.__wrapped__)


@derivative("adaptive_avg_pool2d")
class AdaptiveAvgPool2DBackward0(AvgPool2DBackward0):
    pass


def _mean(sums: Tensor, divisor) -> Tensor:
    """sums / divisor (an int or a Tensor of counts); an int64 sum's integer division
    rounds toward zero, as PyTorch's integer average pools."""
    if not sums.dtype.is_floating_point:
        return sums.div(divisor, rounding_mode="trunc")
    return sums / (divisor if isinstance(divisor, _C.Tensor) else float(divisor))


# ---- adaptive pools ----

def _output_size(output_size: Any, hw: tuple, where: str) -> tuple:
    """(out_h, out_w) from an int or a pair whose None entries keep the input's size; 0
    gives an empty output, as PyTorch's."""
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        size = tuple(s if v is None else v for v, s in zip(output_size, hw))
    else:
        size = output_size
    return _at_least(_tuple(size, 2, "output_size", where), 0, "output_size", where)


def _bin_ends(size: int, out: int, device) -> tuple:
    """PyTorch's adaptive bins along one side, as two (out,) int64 tensors: start
    floor(i * size / out) and end ceil((i + 1) * size / out)."""
    i = _int_range(out, device)
    return (i * size) // out, (i * size).add_(size + out - 1) // out


def _widest(size: int, out: int) -> int:
    """The widest adaptive bin, in O(1): bin i is ceil((r + size) / out) wide, r being
    i * size mod out, which takes every multiple of gcd(size, out) below out."""
    return -(-(out - math.gcd(size, out) + size) // out)


def _narrowest(size: int, out: int) -> int:
    """The narrowest adaptive bin (r = 0 above): bin 0."""
    return -(-size // out)


def _check_output_bytes(x: Tensor, out: tuple, where: str) -> None:
    """InvalidArgumentError, naming output_size, when the output of an adaptive pool
    would hold more than 2^62 bytes (the factories' limit); a smaller output that does
    not fit raises OutOfMemoryError when its bins are made, before any work."""
    numel = math.prod(x.shape[:2]) * math.prod(out)
    if numel * x.element_size() > 2 ** 62:
        raise _Invalid(f"{where}: output_size {out} is too large: the output, of shape "
                       f"{tuple(x.shape[:2]) + tuple(out)} ({x.dtype}, on {x.device}), "
                       f"would hold more than 2^62 bytes")


def _adaptive_args(input, output_size, where):
    x, unbatched = _batched(input, 2, where)
    _floating(x, where)
    x = linked_input(x)  # Note [linear inputs] in autograd/node.py
    hw = tuple(x.shape[2:])
    out = _output_size(output_size, hw, where)
    if min(hw) < 1:
        raise _Invalid(f"{where}: expected an input with non-zero spatial sizes, got shape "
                       f"{tuple(input.shape)} (on {input.device})")
    _check_output_bytes(x, out, where)
    return x, unbatched, hw, out


def _no_bins(x: Tensor, out: tuple, unbatched: bool) -> Tensor:
    """The empty (N, C, *out) output of an output_size holding 0 (or of an x with no
    elements), still x's function (its gradient: zeros)."""
    n, c, h, w = x.shape
    return _unbatch(x.reshape(n, c, h * w)[:, :, :0].reshape((n, c) + tuple(out)), unbatched)


def _bin_taps(size: int, out: int, device) -> tuple:
    """(taps, padded, k) for the adaptive bins of a side of size cells: taps (out * k,)
    int64 holds each bin's cells, each bin padded to the widest (k) with the index
    size (a zero the caller appends), padded whether any bin is narrower.  Kept per
    device."""
    k = _widest(size, out)
    padded = _narrowest(size, out) < k

    def build():
        start, end = _bin_ends(size, out, device)
        taps = start.reshape(out, 1) + _int_range(k, device).reshape(1, k)
        return where(taps < end.reshape(out, 1), taps, size).reshape(-1)

    return _index_cache.get(("adaptive bin taps", size, out), device, build), padded, k


def _bin_sums(x: Tensor, dim: int, out: int) -> Tensor:
    """x summed over PyTorch's adaptive bins along dim, which becomes out long.  Each
    sum reads its bin's cells only (and zeros), so a NaN or inf reaches the bins that
    hold it and no other (a product with an averaging matrix spread it everywhere:
    0 * inf is NaN).  Differentiable: a reshape or an index_select, and a sum."""
    size = x.shape[dim]
    shape = list(x.shape)
    if size % out == 0:  # equal bins side by side
        shape[dim:dim + 1] = [out, size // out]
        return x.reshape(shape).sum(dim + 1)
    taps, padded, k = _bin_taps(size, out, x.device)
    if padded:
        zero = list(x.shape)
        zero[dim] = 1
        x = cat([x, _C.zeros(tuple(zero), dtype=x.dtype, device=x.device)], dim)
    shape[dim:dim + 1] = [out, k]
    return x.index_select(dim, taps).reshape(shape).sum(dim + 1)


def _bin_counts(hw: tuple, out: tuple, dtype, device) -> Tensor:
    """(out_h, out_w): the number of cells in each adaptive bin, kept per device."""
    def build():
        (sh, eh), (sw, ew) = _bin_ends(hw[0], out[0], device), _bin_ends(hw[1], out[1], device)
        return ((eh - sh).reshape(out[0], 1) * (ew - sw).reshape(1, out[1])).to(dtype)

    return _index_cache.get(("adaptive bin counts", hw, out, dtype), device, build)


@keeps_channels_last()
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """The mean over each of out_h x out_w bins that split the input, as
    ``torch.nn.functional.adaptive_avg_pool2d``: bin i of a side of size H covers
    ``[floor(i * H / out_h), ceil((i + 1) * H / out_h))``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point.
    output_size : int or tuple of 2 (int or None)
        (out_h, out_w); None keeps that side's size.

    Returns
    -------
    Tensor
        ``(N, C, out_h, out_w)``, or ``(C, out_h, out_w)``.

    Raises
    ------
    TypeError
        When input is not a Tensor or output_size is not an int or a pair.
    RuntimeError
        When input is not floating point; (InvalidArgumentError, also a ValueError) when
        it is not 3-d or 4-d, has an empty side, or an output size is not positive.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> F.adaptive_avg_pool2d(x, 1)
    tensor([[[[7.5000]]]])
    >>> F.adaptive_avg_pool2d(x, (3, 2)).shape
    pydevtensor.Size([1, 1, 3, 2])
    """
    return _adaptive_avg_pool(input, output_size, "adaptive_avg_pool2d()")


def _adaptive_avg_pool(input, output_size, where):
    """adaptive_avg_pool2d, naming where in its errors."""
    x, unbatched, (h, w), (oh, ow) = _adaptive_args(input, output_size, where)
    if (oh, ow) == (1, 1) and x.dtype.is_floating_point:
        # PyTorch's adaptive_avg_pool2d takes a 1x1 output as this mean (MeanBackward1),
        # of the unbatched input too, and of an empty batch or no channels
        return _unbatch(x, unbatched).mean(dim=(-2, -1), keepdim=True)
    from ._adaptive_avg_nodes import bin_mean2d, no_bins  # late: it imports this module
    if 0 in (oh, ow) or x.numel() == 0:  # no channels: PyTorch's empty result too
        # one node, AdaptiveAvgPool2DBackward0, as PyTorch's (was ViewBackward0)
        return no_bins("AdaptiveAvgPool2DBackward0", _unbatch(x, unbatched), (oh, ow))
    if h % oh == 0 and w % ow == 0:
        return _avg_pool(input, (h // oh, w // ow), None, 0, False, True, None, where, True)
    # one node, AdaptiveAvgPool2DBackward0 (nn/_adaptive_avg_nodes.py); half types
    # averaged in float32, rounded once
    return bin_mean2d(input, (oh, ow))


@keeps_channels_last()
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """The largest value of each of out_h x out_w bins that split the input, as
    ``torch.nn.functional.adaptive_max_pool2d`` (the bins of
    :func:`adaptive_avg_pool2d`; the gradient goes to the first largest element).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point.
    output_size : int or tuple of 2 (int or None)
        (out_h, out_w); None keeps that side's size.
    return_indices : bool, optional
        Also return where each maximum is, as flat indices into H * W (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, out_h, out_w)`` (or ``(C, out_h, out_w)``), and the int64 indices.

    Raises
    ------
    TypeError, RuntimeError, ValueError
        As :func:`adaptive_avg_pool2d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> F.adaptive_max_pool2d(x, (1, 2))
    tensor([[[[13., 15.]]]])
    >>> F.adaptive_max_pool2d(x, 3, return_indices=True)[1]
    tensor([[[[ 5,  6,  7],
              [ 9, 10, 11],
              [13, 14, 15]]]])
    """
    return _adaptive_max_pool(input, output_size, return_indices, "adaptive_max_pool2d()")


def _adaptive_max_pool(input, output_size, return_indices, where):
    """adaptive_max_pool2d, naming where in its errors; with grad, one node,
    AdaptiveMaxPool2DBackward0 (nn/_adaptive_max_nodes.py)."""
    if not (_C.is_grad_enabled() and isinstance(input, _C.Tensor) and input.requires_grad):
        return _adaptive_max_values(input, output_size, return_indices, where)
    from ._adaptive_max_nodes import at_maxima  # late: it imports this module's importers
    _, index = run_no_grad(_adaptive_max_values, input, output_size, True, where)
    values = at_maxima("AdaptiveMaxPool2DBackward0", input, index, 2)
    return (values, index) if return_indices else values


def _adaptive_max_values(input, output_size, return_indices, where):
    """adaptive_max_pool2d, recorded as its pieces."""
    x, unbatched, (h, w), (oh, ow) = _adaptive_args(input, output_size, where)
    if 0 in (oh, ow):
        values = _no_bins(x, (oh, ow), unbatched)
        return (values, _C.zeros(tuple(values.shape), dtype=_C.int64, device=x.device)
                ) if return_indices else values
    if h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        return _max_pool(input, k, k, 0, 1, False, return_indices, where)
    index, rows, cols = _adaptive_taps(h, w, oh, ow, x.device)
    (first_r, last_r), (first_c, last_c) = rows, cols
    kh, kw = _widest(h, oh), _widest(w, ow)
    n, c = x.shape[:2]
    cells = x.reshape(n, c, h * w).index_select(2, index).reshape(n, c, oh, ow, kh * kw)
    values, which = cells.max(dim=4)
    values = _unbatch(values, unbatched)
    if not return_indices:
        return values
    ty = which // kw  # the tap's row and column in its bin, then in the plane
    row = _C.minimum(ty + first_r.reshape(oh, 1), last_r.reshape(oh, 1))
    col = _C.minimum(which - ty * kw + first_c.reshape(1, ow), last_c.reshape(1, ow))
    return values, _unbatch(row * w + col, unbatched)


def _adaptive_taps(h: int, w: int, oh: int, ow: int, device) -> tuple:
    """(index, (first_row, last_row), (first_col, last_col)): index (oh*ow*kh*kw,)
    holds each bin's cells as flat offsets, in (oh, ow, kh, kw) order, each bin
    padded to the widest (kh x kw) by repeating its last row and column (a repeat
    changes neither the maximum nor the first place it occurs); the (out,) firsts and
    lasts are the bins' first and last cells along each side.  Kept per device."""
    def build():
        def axis(size, out):
            start, end = _bin_ends(size, out, device)
            last = end.sub_(1)
            k = _widest(size, out)
            taps = _C.minimum(start.reshape(out, 1) + _int_range(k, device).reshape(1, k),
                              last.reshape(out, 1))
            return taps, start, last

        (rows, fr, lr), (cols, fc, lc) = axis(h, oh), axis(w, ow)
        kh, kw = rows.shape[1], cols.shape[1]
        index = (rows.reshape(oh, 1, kh, 1) * w + cols.reshape(1, ow, 1, kw)).reshape(-1)
        return index, fr, lr, fc, lc

    index, fr, lr, fc, lc = _index_cache.get(("adaptive_max_pool2d taps", h, w, oh, ow),
                                             device, build)
    return index, (fr, lr), (fc, lc)
