"""The 1-d pools max_pool1d, avg_pool1d, adaptive_avg_pool1d and adaptive_max_pool1d
as the 2-d pools of nn/_functional_pool.py over rows of height 1 (a view: the input
gains a height of 1, the output loses it), and the power-average pools lp_pool1d,
lp_pool2d and lp_pool3d over the average pools, with PyTorch's signatures, defaults, output sizes
and formula::

    lp_pool(x) = (sum over the window of x ** p) ** (1 / p)

computed, as PyTorch does, as ``avg_pool(x ** p) * kernel_cells`` (so with ceil_mode
a window cut by the end gives its cells' mean times the full kernel's number of
cells, not their sum), passed through
``sign(s) * relu(|s|)`` (whose gradient is 0 at s = 0) and raised to 1 / p.

Everything runs through the 2-d pools' kernels and caches, so the 1-d pools read
nothing back from a GPU either; their errors name the 1-d function.

max_unpool1d/2d/3d put a max pool's values back at their indices (zeros elsewhere) with
an index assignment, which autograd records (its gradient gathers at the indices).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import _C
from .._ops_index import where as _where
from .._ops_join import stack as _stack
from . import _functional_pool as FP
from ._functional_3d import avg_pool3d, max_pool3d
from ._functional_conv import _at_least, _batched, _tuple

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError


def _rows(input, where: str, integers: tuple = ()) -> tuple:
    """(input as (N, C, 1, L), unbatched) after the 1-d checks (integers: the integer
    dtypes taken)."""
    x, unbatched = _batched(input, 1, where)
    FP._floating(x, where, integers)
    return x.unsqueeze(2), unbatched


def _one(value, name: str, where: str) -> int:
    """value (an int or a 1-tuple of ints) as an int."""
    return _tuple(value, 1, name, where)[0]


def _stride1(stride, kernel: int, where: str) -> int:
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return kernel
    return _one(stride, "stride", where)


def _drop_rows(t: Tensor, unbatched: bool) -> Tensor:
    """(N, C, 1, L) -> (N, C, L), or (C, L) when the input came unbatched."""
    t = t.squeeze(2)
    return t.squeeze(0) if unbatched else t


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """The largest value of each window of a batch of sequences, as
    ``torch.nn.functional.max_pool1d``: :func:`max_pool2d` of rows of height 1.

    The output has ``L_out = (L + 2 * padding - dilation * (kernel_size - 1) - 1) //
    stride + 1`` positions (rounded up with ceil_mode); the padding reads -inf and the
    gradient goes to the first largest element of each window.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)``; floating point.
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        The step between windows (default: kernel_size).
    padding : int or tuple of 1 int, optional
        -inf added on both ends, at most half the dilated kernel (default 0).
    dilation : int or tuple of 1 int, optional
        The spacing of the window's taps (default 1).
    ceil_mode : bool, optional
        Round the output length up (default False).
    return_indices : bool, optional
        Also return where each maximum is, as indices into L (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, L_out)`` (or ``(C, L_out)``), and the int64 indices.

    Raises
    ------
    TypeError
        When input is not a Tensor or a size is not an int or a tuple of one int.
    RuntimeError
        When input is not floating point; (InvalidArgumentError, also a ValueError) when
        it is not 2-d or 3-d, a size is not positive, padding is more than half the
        kernel, or the output would be empty.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 3., 2., 5., 4.]]])
    >>> F.max_pool1d(x, 2)
    tensor([[[3., 5.]]])
    >>> F.max_pool1d(x, 2, ceil_mode=True, return_indices=True)
    (tensor([[[3., 5., 4.]]]), tensor([[[1, 3, 4]]]))
    """
    where = "max_pool1d()"
    x, unbatched = _rows(input, where)
    k = _one(kernel_size, "kernel_size", where)
    s = _stride1(stride, k, where)
    p, d = _one(padding, "padding", where), _one(dilation, "dilation", where)
    out = FP._max_pool(x, (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices, where)
    if return_indices:
        return _drop_rows(out[0], unbatched), _drop_rows(out[1], unbatched)
    return _drop_rows(out, unbatched)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of a batch of sequences, as
    ``torch.nn.functional.avg_pool1d``: :func:`avg_pool2d` of rows of height 1.

    The padding reads 0; each window's sum is divided by its number of cells inside
    the padded input (count_include_pad) or inside the input alone; the cells that
    ceil_mode adds past the padding never count.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)``; floating point, or int64 (rounded toward zero).
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        The step between windows (default: kernel_size).
    padding : int or tuple of 1 int, optional
        Zeros added on both ends, at most half the kernel (default 0).
    ceil_mode : bool, optional
        Round the output length up (default False).
    count_include_pad : bool, optional
        Count the padding in the divisor (default True).

    Returns
    -------
    Tensor
        ``(N, C, L_out)``, or ``(C, L_out)``.

    Raises
    ------
    TypeError, RuntimeError, ValueError
        As :func:`max_pool1d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 3., 2., 5., 4.]]])
    >>> F.avg_pool1d(x, 2)
    tensor([[[2.0000, 3.5000]]])
    >>> F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False)
    tensor([[[2.0000, 3.3333, 4.5000]]])
    """
    where = "avg_pool1d()"
    x, unbatched = _rows(input, where, FP._INT64)
    k = _one(kernel_size, "kernel_size", where)
    s = _stride1(stride, k, where)
    p = _one(padding, "padding", where)
    return _drop_rows(FP._avg_pool(x, (1, k), (1, s), (0, p), ceil_mode, count_include_pad,
                                   None, where), unbatched)


def _adaptive_rows(input, output_size, where: str) -> tuple:
    x, unbatched = _rows(input, where)
    if x.shape[3] < 1:
        raise _Invalid(f"{where}: expected an input with a non-zero length, got shape "
                       f"{tuple(input.shape)} (on {input.device})")
    out = _at_least((_one(output_size, "output_size", where),), 0, "output_size", where)
    return x, unbatched, (1, out[0])


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """The mean over each of L_out bins that split a batch of sequences, as
    ``torch.nn.functional.adaptive_avg_pool1d``: bin i covers
    ``[floor(i * L / L_out), ceil((i + 1) * L / L_out))``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)``; floating point.
    output_size : int or tuple of 1 int
        L_out.

    Returns
    -------
    Tensor
        ``(N, C, L_out)``, or ``(C, L_out)``.

    Raises
    ------
    TypeError
        When input is not a Tensor or output_size not an int or a tuple of one int.
    RuntimeError
        When input is not floating point; (InvalidArgumentError, also a ValueError) when
        it is not 2-d or 3-d, has length 0, or output_size is negative (0: an
        empty output).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.adaptive_avg_pool1d(pydevtensor.tensor([[[1., 3., 2., 5., 4.]]]), 2)
    tensor([[[2.0000, 3.6667]]])
    """
    where = "adaptive_avg_pool1d()"
    x, unbatched, out = _adaptive_rows(input, output_size, where)
    return _drop_rows(FP._adaptive_avg_pool(x, out, where), unbatched)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """The largest value of each of L_out bins that split a batch of sequences, as
    ``torch.nn.functional.adaptive_max_pool1d`` (the bins of
    :func:`adaptive_avg_pool1d`; the gradient goes to the first largest element).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)``; floating point.
    output_size : int or tuple of 1 int
        L_out.
    return_indices : bool, optional
        Also return where each maximum is, as indices into L (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, L_out)`` (or ``(C, L_out)``), and the int64 indices.

    Raises
    ------
    TypeError, RuntimeError, ValueError
        As :func:`adaptive_avg_pool1d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.adaptive_max_pool1d(pydevtensor.tensor([[[1., 3., 2., 5., 4.]]]), 2,
    ...                       return_indices=True)
    (tensor([[[3., 5.]]]), tensor([[[1, 3]]]))
    """
    where = "adaptive_max_pool1d()"
    x, unbatched, out = _adaptive_rows(input, output_size, where)
    got = FP._adaptive_max_pool(x, out, return_indices, where)
    if return_indices:
        return _drop_rows(got[0], unbatched), _drop_rows(got[1], unbatched)
    return _drop_rows(got, unbatched)


# ---- power-average pools ----

def _norm_type(norm_type, where: str) -> float:
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)):
        raise TypeError(f"{where}: norm_type must be a number, got {type(norm_type).__name__}")
    if norm_type == 0:
        raise ValueError(f"{where}: norm_type must be a non-zero value, but got {norm_type}")
    return float(norm_type)


def _root(avg: Tensor, cells: int, p: float) -> Tensor:
    """(sign(avg) * relu(|avg|) * cells) ** (1 / p): PyTorch's steps.  A window summing
    to 0 gives 0 with a zero gradient, as PyTorch's (a ReLU before the pool makes whole
    windows of zeros): pow's derivative there is inf, so the power is taken of 1 in
    those windows instead (Note [the other branch of where] in _ops_special.py)."""
    base = (_C.sign(avg) * _C.relu(avg.abs())).mul(float(cells))
    zero = base == 0
    return _where(zero, 0.0, _where(zero, 1.0, base).pow(1.0 / p))


def _inf_norm(x: Tensor, p: float, pool) -> Tensor:
    """norm_type +inf and -inf, as PyTorch's: the largest and the smallest magnitude in
    each window (pool is the max pool over the same windows)."""
    return pool(x.abs()) if p > 0 else pool(x.abs().neg()).neg()


def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window of a batch of sequences, ``(sum x ** p) ** (1 / p)``,
    as ``torch.nn.functional.lp_pool1d`` (p = 1 gives the window sums; no padding).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)``; floating point.
    norm_type : float
        p, non-zero.
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        The step between windows (default: kernel_size).
    ceil_mode : bool, optional
        Round the output length up (a window cut by the end gives its cells' mean
        times kernel_size, as PyTorch).

    Returns
    -------
    Tensor
        ``(N, C, L_out)``, or ``(C, L_out)``.

    Raises
    ------
    TypeError
        When input is not a Tensor, norm_type not a number, or a size not an int.
    ValueError
        When norm_type is 0; as :func:`avg_pool1d` otherwise.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.lp_pool1d(pydevtensor.tensor([[[3., 4., 1., 1.]]]), 2, 2)
    tensor([[[5.0000, 1.4142]]])
    """
    where = "lp_pool1d()"
    p = _norm_type(norm_type, where)
    x, unbatched = _rows(input, where)
    k = _one(kernel_size, "kernel_size", where)
    s = _stride1(stride, k, where)
    if math.isinf(p):
        return _drop_rows(_inf_norm(x, p, lambda v: FP._max_pool(
            v, (1, k), (1, s), (0, 0), (1, 1), ceil_mode, False, where)), unbatched)
    avg = FP._avg_pool(x.pow(p), (1, k), (1, s), (0, 0), ceil_mode, True, None, where)
    return _drop_rows(_root(avg, k, p), unbatched)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window of a batch of images, ``(sum x ** p) ** (1 / p)``,
    as ``torch.nn.functional.lp_pool2d`` (p = 1 gives the window sums; no padding).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point.
    norm_type : float
        p, non-zero.
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        The step between windows (default: kernel_size).
    ceil_mode : bool, optional
        Round the output size up (a window cut by the end gives its cells' mean
        times the kernel's number of cells, as PyTorch).

    Returns
    -------
    Tensor
        ``(N, C, out_h, out_w)``, or ``(C, out_h, out_w)``.

    Raises
    ------
    TypeError
        When input is not a Tensor, norm_type not a number, or a size not an int.
    ValueError
        When norm_type is 0; as :func:`avg_pool2d` otherwise.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[[1., 2.], [2., 4.]]]])
    >>> F.lp_pool2d(x, 2, 2)
    tensor([[[[5.]]]])
    """
    where = "lp_pool2d()"
    p = _norm_type(norm_type, where)
    x, unbatched = _batched(input, 2, where)
    FP._floating(x, where)
    kh, kw = _tuple(kernel_size, 2, "kernel_size", where)
    if math.isinf(p):
        return FP._unbatch(_inf_norm(x, p, lambda v: FP._max_pool(
            v, (kh, kw), stride, 0, 1, ceil_mode, False, where)), unbatched)
    avg = FP._avg_pool(x.pow(p), (kh, kw), stride, 0, ceil_mode, True, None, where)
    return FP._unbatch(_root(avg, kh * kw, p), unbatched)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window of a batch of volumes, ``(sum x ** p) ** (1 / p)``,
    as ``torch.nn.functional.lp_pool3d`` (p = 1 gives the window sums; no padding): the
    3-d average pool of ``x ** p`` times the kernel's cells, as :func:`lp_pool2d`.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)``, or ``(C, D, H, W)``; floating point.
    norm_type : float
        p, non-zero (+-inf: the largest or smallest magnitude in each window).
    kernel_size : int or tuple of 3 ints
        The window's size.
    stride : int or tuple of 3 ints, optional
        The step between windows (default: kernel_size).
    ceil_mode : bool, optional
        Round the output size up (a window cut by the end gives its cells' mean
        times the kernel's number of cells, as PyTorch).

    Returns
    -------
    Tensor
        ``(N, C, out_d, out_h, out_w)``, or ``(C, out_d, out_h, out_w)``.

    Raises
    ------
    TypeError
        When input is not a Tensor, norm_type not a number, or a size not an int.
    ValueError
        When norm_type is 0; as :func:`avg_pool3d` otherwise.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.full((1, 1, 2, 2, 2), 2.)
    >>> F.lp_pool3d(x, 2, 2).flatten().tolist()
    [5.656854152679443]
    """
    where = "lp_pool3d()"
    p = _norm_type(norm_type, where)
    x, _ = _batched(input, 3, where)
    FP._floating(x, where)
    kd, kh, kw = _at_least(_tuple(kernel_size, 3, "kernel_size", where), 1, "kernel_size",
                           where)
    if math.isinf(p):
        return _inf_norm(input, p, lambda v: max_pool3d(v, kernel_size, stride, 0, 1,
                                                        ceil_mode))
    avg = avg_pool3d(input.pow(p), kernel_size, stride, 0, ceil_mode)
    return _root(avg, kd * kh * kw, p)

# ---- max_unpool1d/2d/3d ----

def _unpool_size(sizes: tuple, kernel: tuple, stride: tuple, padding: tuple, output_size,
                 where: str) -> tuple:
    """PyTorch's output size: ``(in - 1) * stride - 2 * padding + kernel`` per spatial
    dim, or output_size (its last len(sizes) entries) when each lies strictly within
    stride of it."""
    dims = len(sizes)
    default = tuple((n - 1) * s - 2 * p + k for n, k, s, p in zip(sizes, kernel, stride,
                                                                  padding))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)
        if len(size) == dims + 2:
            size = size[2:]
        if len(size) != dims or any(isinstance(v, bool) or not isinstance(v, int)
                                    for v in size):
            raise ValueError(f"{where}: output_size should be a sequence of {dims} or "
                             f"{dims + 2} ints, but got {output_size!r}")
        for d in range(dims):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < size[d] < high:
                raise ValueError(f'{where}: invalid output_size "{tuple(output_size)}" (dim {d} '
                                 f'must be between {low} and {high})')
    if min(size) < 1:
        raise _Invalid(f"{where}: the output size {size} is empty (input size {sizes}, "
                       f"kernel_size={kernel}, stride={stride}, padding={padding})")
    return size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, dims: int,
                where: str):
    """max_unpool1d/2d/3d: input's values written at indices (flat positions in each
    output plane or volume) of zeros, after PyTorch's checks."""
    x, unbatched = _batched(input, dims, where)
    FP._floating(x, where)
    if not isinstance(indices, _C.Tensor):
        raise TypeError(f"{where}: indices must be a Tensor, got {type(indices).__name__}")
    if indices.dtype != _C.int64:
        raise _C.DTypeError(f"{where}: elements in indices should be type int64 but got "
                            f"{indices.dtype} (on {indices.device})")
    if tuple(indices.shape) != tuple(input.shape):
        raise _Invalid(f"{where}: Expected shape of indices to be same as that of the input "
                       f"tensor {tuple(input.shape)} but got indices tensor with shape "
                       f"{tuple(indices.shape)} (on {input.device})")
    if indices.device != input.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but the "
                             f"input is on {input.device} and indices on {indices.device}")
    kernel = _at_least(_tuple(kernel_size, dims, "kernel_size", where), 1, "kernel_size", where)
    stride = kernel if stride is None else _at_least(_tuple(stride, dims, "stride", where), 1,
                                                     "stride", where)
    padding = _at_least(_tuple(padding, dims, "padding", where), 0, "padding", where)
    n, c, sizes = x.shape[0], x.shape[1], tuple(x.shape[2:])
    out_sizes = _unpool_size(sizes, kernel, stride, padding, output_size, where)
    planes, cells = n * c, math.prod(out_sizes)
    idx = indices.reshape(planes, math.prod(sizes))
    if idx.numel():
        lo, hi = _C._implicit_cpu(_stack([idx.min(), idx.max()]), where).tolist()
        if lo < 0 or hi >= cells:
            raise RuntimeError(f"{where}: Found an invalid max index: {lo if lo < 0 else hi} "
                               f"(output volumes are of size {'x'.join(map(str, out_sizes))}; "
                               f"on {input.device})")
    offsets = _C.arange(0, planes * cells, cells, dtype=_C.int64, device=x.device)
    flat = (idx + offsets.reshape(planes, 1)).reshape(-1)
    out = _C.zeros((planes * cells,), dtype=x.dtype, device=x.device)
    out[flat] = x.reshape(-1)
    out = out.reshape((n, c) + out_sizes)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """Places each value of a 1-d max pool's output where its indices say, zeros
    elsewhere, as ``torch.nn.functional.max_unpool1d``: :func:`max_unpool2d` over
    ``(N, C, L)`` (or ``(C, L)``) with indices into each row of
    ``(L - 1) * stride - 2 * padding + kernel_size`` cells (or output_size's).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``: the pooled values; floating point.
    indices : Tensor
        int64, of input's shape, on its device.
    kernel_size, stride, padding : int or tuple of 1 int
        The pool's (stride default: kernel_size; padding default 0).
    output_size : tuple of 1 or 3 ints, optional
        The output's length, within stride of the default.

    Returns
    -------
    Tensor
        ``(N, C, L_out)``, or ``(C, L_out)``, of input's dtype.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`max_unpool2d`'s.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> values, indices = F.max_pool1d(pydevtensor.arange(6.).reshape(1, 1, 6), 2,
    ...                                return_indices=True)
    >>> F.max_unpool1d(values, indices, 2)
    tensor([[[0., 1., 0., 3., 0., 5.]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1,
                       "max_unpool1d()")


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """Places each value of a max pool's output where its indices say, zeros elsewhere,
    as ``torch.nn.functional.max_unpool2d`` (the partial inverse of
    ``max_pool2d(..., return_indices=True)``).

    The output has ``(H - 1) * stride - 2 * padding + kernel_size`` rows (columns
    alike) unless output_size says otherwise.  Every index is checked to lie inside
    the output plane first (on a GPU that reads their minimum and maximum back, a
    counted device-to-host copy, as ``x[i] = v`` does).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``: the pooled values; floating point.
    indices : Tensor
        int64, of input's shape, on its device: flat positions in each output plane.
    kernel_size : int or tuple of 2 ints
        The pool's window.
    stride : int or tuple of 2 ints, optional
        The pool's stride (default: kernel_size).
    padding : int or tuple of 2 ints, optional
        The pool's padding (default 0).
    output_size : tuple of 2 or 4 ints, optional
        The output's (H_out, W_out), within stride of the default size.

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)``, or ``(C, H_out, W_out)``, of input's dtype.

    Raises
    ------
    TypeError
        When input or indices is not a Tensor, or indices not int64.
    ValueError
        When indices' shape differs from input's or output_size is out of range;
        (InvalidArgumentError) when input is not 3-d or 4-d.
    RuntimeError
        When an index lies outside the output plane (naming it), or indices are on
        another device (DeviceError).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> values, indices = F.max_pool2d(x, 2, return_indices=True)
    >>> F.max_unpool2d(values, indices, 2)
    tensor([[[[ 0.,  0.,  0.,  0.],
              [ 0.,  5.,  0.,  7.],
              [ 0.,  0.,  0.,  0.],
              [ 0., 13.,  0., 15.]]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2,
                       "max_unpool2d()")


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """Places each value of a 3-d max pool's output where its indices say, zeros
    elsewhere, as ``torch.nn.functional.max_unpool3d`` (the partial inverse of
    ``max_pool3d(..., return_indices=True)``): :func:`max_unpool2d` over volumes, each
    of ``(D - 1) * stride - 2 * padding + kernel_size`` planes (rows, columns alike).

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``: the pooled values; floating point.
    indices : Tensor
        int64, of input's shape, on its device: flat ``(z * H + y) * W + x`` positions.
    kernel_size, stride, padding : int or tuple of 3 ints
        The pool's (stride default: kernel_size; padding default 0).
    output_size : tuple of 3 or 5 ints, optional
        The output's (D_out, H_out, W_out), within stride of the default size.

    Returns
    -------
    Tensor
        ``(N, C, D_out, H_out, W_out)``, or without N, of input's dtype.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`max_unpool2d`'s.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> values, indices = F.max_pool3d(pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2), 2,
    ...                                return_indices=True)
    >>> F.max_unpool3d(values, indices, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3,
                       "max_unpool3d()")
