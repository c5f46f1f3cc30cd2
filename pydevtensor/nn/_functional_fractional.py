"""fractional_max_pool2d and fractional_max_pool3d (Graham's Fractional MaxPooling,
arXiv:1412.6071), as PyTorch's.

Each (sample, channel) plane draws one number u in [0, 1) per side (``_random_samples``,
(N, C, 2) or (N, C, 3); the 2-d pool's holds u for the width first, then the height,
the 3-d pool's time, height, width, as PyTorch's kernels read them).  Along a side of
size cells pooled by windows of k into out, window i starts at
``int((i + u) * alpha) - int(u * alpha)``, ``alpha = (size - k) / (out - 1)``, and the
last at ``size - k``: the arithmetic is the input dtype's, one rounding per operation,
as PyTorch's CPU kernels (its CUDA kernels compute half types in float32), so that the
same samples give the same windows.  A start is clamped into ``[0, size - k]``, which
changes nothing for samples in [0, 1) (PyTorch reads outside the plane for others).

The windows of a plane are read with one gather of their cells' flat offsets (the
planes' windows differ, so im2col's shared windows do not apply); the chosen cell of
each window is the first largest, or the last NaN (PyTorch's ``val > max || isnan(val)``
scan), and the output is a gather of the input at those cells: its gradient goes to
them alone, added up where windows overlap, as PyTorch's.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import _C
from .._ops_index import where
from .._ops_join import cat
from ._functional_conv import _Invalid, _at_least, _batched, _same_device, _tensor, _tuple
from ..autograd.node import linked_input
from ._functional_pool import _floating, _int_range, _unbatch

if TYPE_CHECKING:
    from .._C import Tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _ratio(output_ratio: Any, nd: int, where: str) -> tuple:
    """output_ratio (a number, or nd numbers) as a tuple of nd floats."""
    ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else \
        (output_ratio,) * nd
    if len(ratio) != nd or not all(isinstance(r, (int, float)) and not isinstance(r, bool)
                                   for r in ratio):
        raise ValueError(f"{where}: output_ratio must be a number or a tuple of {nd} "
                         f"numbers, got {output_ratio!r}")
    return tuple(float(r) for r in ratio)


def _sizes(x: Tensor, kernel_size, output_size, output_ratio, nd: int, where: str) -> tuple:
    """(kernel, out) after PyTorch's checks: positive kernel sizes, and windows that fit
    out times along each side (3-d: with a cell to spare, as PyTorch's check)."""
    kernel = _tuple(kernel_size, nd, "kernel_size", where)
    if min(kernel) < 1:
        raise _Invalid(f"{where}: kernel size should be greater than zero, but got "
                       f"{'x'.join(map(str, kernel))}")
    spatial = tuple(x.shape[2:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{where} requires specifying either an output_size or an "
                             f"output_ratio")
        output_size = tuple(int(s * r) for s, r in zip(spatial, _ratio(output_ratio, nd,
                                                                       where)))
    out = _at_least(_tuple(output_size, nd, "output_size", where), 0, "output_size", where)
    spare = 1 if nd == 3 else 0
    for axis, o, k, s in zip(_AXES[nd], out, kernel, spatial):
        if o + k - 1 > s - spare:
            raise _Invalid(f"{where}: pool {axis} {k} too large relative to input {axis} {s} "
                           f"(output {axis} {o}; input of shape {tuple(x.shape)} on "
                           f"{x.device})")
    return kernel, out


def _samples(samples: Any, x: Tensor, nd: int, where: str) -> Tensor:
    """The (N, C, nd) samples: drawn uniform in [0, 1) in x's dtype when None, else
    checked as PyTorch's (x's dtype and device, C planes, at least N samples)."""
    n, c = x.shape[:2]
    if samples is None:
        return _C.rand((n, c, nd), dtype=x.dtype, device=x.device)
    _tensor(samples, "_random_samples", where)
    _same_device(where, x, ("_random_samples", samples))
    if samples.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(f"{where}: the function is not differentiable with respect to "
                           f"_random_samples, which requires grad (pass it detached)")
    if samples.dtype != x.dtype:
        raise RuntimeError(f"{where}: expected _random_samples to have the same dtype as "
                           f"input, {x.dtype}, got {samples.dtype}")
    shape = tuple(samples.shape)
    if len(shape) != 3 or shape[1] != c or shape[2] != nd or shape[0] < n:
        raise _Invalid(f"{where}: expected _random_samples of shape (at least {n}, {c}, {nd}) "
                       f"for an input of shape {tuple(x.shape)}, got {shape}")
    return samples[:n]


def _starts(u: Tensor, size: int, k: int, out: int) -> Tensor:
    """u (N, C) -> (N, C, out) int64: each window's first cell along a side (module
    docstring), in u's dtype's arithmetic."""
    last = size - k
    tail = _C.full(tuple(u.shape) + (min(out, 1),), last, dtype=_C.int64, device=u.device)
    if out <= 1:
        return tail
    alpha = _C.full((), float(last), dtype=u.dtype, device=u.device) / (out - 1)
    u = u.unsqueeze(-1)
    i = _C.arange(out - 1, dtype=u.dtype, device=u.device)
    head = ((i + u) * alpha).to(_C.int64) - (u * alpha).to(_C.int64)
    return cat([head.clamp(0, last), tail], -1)


def _offsets(samples: Tensor, spatial: tuple, kernel: tuple, out: tuple) -> Tensor:
    """(N, C, prod(out), prod(kernel)) int64: the flat offsets of each window's cells in
    its plane, row-major over the window."""
    nd = len(spatial)
    n, c = samples.shape[:2]
    order = range(nd) if nd == 3 else reversed(range(nd))  # the 2-d samples: width first
    index = None
    for a, column in zip(range(nd), order):
        starts = _starts(samples[:, :, column], spatial[a], kernel[a], out[a])
        taps = starts.unsqueeze(-1) + _int_range(kernel[a], samples.device)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + a], shape[2 + nd + a] = out[a], kernel[a]
        taps = taps.reshape(shape) * math.prod(spatial[a + 1:])
        index = taps if index is None else index + taps
    return index.reshape(n, c, math.prod(out), math.prod(kernel))


def _argmax(cells: Tensor) -> Tensor:
    """The tap PyTorch's scan keeps along the last dim: the last NaN, else the first
    largest."""
    which = cells.max(dim=-1)[1]
    taps = _int_range(cells.shape[-1], cells.device)
    last_nan = where(cells.isnan(), taps, -1).amax(dim=-1)
    return where(last_nan >= 0, last_nan, which)


def _fractional(input, kernel_size, output_size, output_ratio, return_indices, samples,
                nd: int):
    where_ = f"fractional_max_pool{nd}d()"
    x, unbatched = _batched(input, nd, where_)
    _floating(x, where_)
    x = linked_input(x)  # Note [linear inputs] in autograd/node.py
    if 0 in x.shape[1:]:
        raise _Invalid(f"{where_}: expected an input with non-zero sizes for non-batch "
                       f"dimensions, got shape {tuple(input.shape)} (on {input.device})")
    kernel, out = _sizes(x, kernel_size, output_size, output_ratio, nd, where_)
    samples = _samples(samples, x, nd, where_)
    n, c = x.shape[:2]
    index = _offsets(samples, tuple(x.shape[2:]), kernel, out)
    windows, taps = index.shape[2:]  # sizes, not -1: a batch of 0 images has no -1
    flat = x.reshape(n, c, math.prod(x.shape[2:]))
    cells = flat.detach().gather(2, index.reshape(n, c, windows * taps)).reshape(index.shape)
    indices = index.gather(3, _argmax(cells).unsqueeze(3)).reshape(n, c, windows)
    values = _unbatch(flat.gather(2, indices).reshape((n, c) + out), unbatched)
    if not return_indices:
        return values
    return values, _unbatch(indices.reshape((n, c) + out), unbatched)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Max pooling over windows at pseudo-random steps, as
    ``torch.nn.functional.fractional_max_pool2d`` (Graham, Fractional MaxPooling).

    Along a side of size cells, window ``i < out - 1`` of each plane starts at
    ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (size - k) / (out - 1)``
    and the last at ``size - k``, u being that plane's sample for the side.  The
    gradient goes to the first largest element of each window (the last NaN, if any).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)``; floating point.
    kernel_size : int or tuple of 2 ints
        The window's size.
    output_size : int or tuple of 2 ints, optional
        ``(out_h, out_w)``; each with ``out + k - 1 <= size``.
    output_ratio : float or tuple of 2 floats, optional
        The output's size as a fraction of the input's (rounded down), when no
        output_size is given.
    return_indices : bool, optional
        Also return where each maximum is, as flat indices into H * W (default False).
    _random_samples : Tensor, optional
        ``(N, C, 2)`` in input's dtype, each in [0, 1): per plane, u for the width,
        then the height (default: drawn from the default generator).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, out_h, out_w)`` (or ``(C, out_h, out_w)``), and the int64 indices.

    Raises
    ------
    TypeError
        When input or _random_samples is not a Tensor, or a size is not an int or a
        tuple of ints.
    ValueError
        When neither output_size nor output_ratio is given, or output_ratio is not a
        number or a pair.
    RuntimeError
        When input is not floating point or _random_samples not of its dtype;
        (InvalidArgumentError, also a ValueError) when input is not 3-d or 4-d or has an
        empty plane or no channel, a size is not positive, the windows do not fit, or
        _random_samples is not (at least N, C, 2).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(25.).reshape(1, 1, 5, 5)
    >>> u = pydevtensor.tensor([[[0.5, 0.5]]])
    >>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u)
    tensor([[[[ 6.,  8.,  9.],
              [16., 18., 19.],
              [21., 23., 24.]]]])
    >>> F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True,
    ...                         _random_samples=u)[1]
    tensor([[[[ 6,  9],
              [21, 24]]]])
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """:func:`fractional_max_pool2d` over depth (time), height and width, as
    ``torch.nn.functional.fractional_max_pool3d``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)``, or ``(C, D, H, W)``; floating point.
    kernel_size : int or tuple of 3 ints
        The window's size.
    output_size : int or tuple of 3 ints, optional
        ``(out_d, out_h, out_w)``; each with ``out + k - 1 < size`` (PyTorch's check,
        stricter than the 2-d pool's).
    output_ratio : float or tuple of 3 floats, optional
        The output's size as a fraction of the input's, when no output_size is given.
    return_indices : bool, optional
        Also return where each maximum is, as flat indices into D * H * W.
    _random_samples : Tensor, optional
        ``(N, C, 3)`` in input's dtype, each in [0, 1): per plane, u for the depth,
        the height and the width (default: drawn from the default generator).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, out_d, out_h, out_w)`` (or without N), and the int64 indices.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`fractional_max_pool2d`.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.arange(64.).reshape(1, 1, 4, 4, 4)
    >>> u = pydevtensor.tensor([[[0.5, 0.5, 0.5]]])
    >>> F.fractional_max_pool3d(x, 2, output_size=2, _random_samples=u).flatten()
    tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 3)
