"""interpolate (upsampling and downsampling of 3-d, 4-d and 5-d batches), with
PyTorch's modes, output sizes and source-index formulas, on every device.

Every mode but 'area' is separable: along each spatial axis, output position o reads
a few input positions i with weights w, and the axes are resampled one after the
other.  Per axis (in -> out cells; s the scale the formulas use):

    s = (in - 1) / (out - 1)          align_corners (0 when out = 1)
      = 1 / scale_factor              scale_factor given, not recomputed
      = in / out                      otherwise

    nearest        i = min(floor(o * s), in - 1)     (of a 4-d input: o when out = in,
                                                      o // 2 when out = 2 * in, as
                                                      PyTorch's 2-d kernel)
    nearest-exact  i = min(floor((o + 0.5) * s), in - 1)
    linear         x = o * s (align_corners) or max((o + 0.5) * s - 0.5, 0);
                   i0 = min(floor(x), in - 1), t = clamp(x - i0, 0, 1),
                   i1 = i0 + 1 unless i0 = in - 1; weights 1 - t and t
                   (the identity when out = in, as PyTorch)
    cubic          x as linear but not clamped at 0; i0 = min(floor(x), in - 1),
                   t = clamp(x - i0, 0, 1); taps i0 - 1 .. i0 + 2 (each clamped
                   into [0, in - 1]) with Keys' cubic convolution weights, A = -0.75

computed on the host in NumPy, in float32 (float64 for a float64 input), PyTorch's
opmath type, so that the nearest indices are PyTorch's to the bit.  Each axis's
weights form an (out, in) matrix, made on the device once per (sizes, mode, scale,
dtype) and kept in nn/_index_cache.py; an axis is resampled by one matmul with it,
so forward and backward are existing differentiable ops that read nothing back from
a GPU and, after the first call, copy nothing to it.  An axis that nearest mode
resamples by an integer factor (each input cell repeated r times) is resampled
exactly by a broadcast view instead, and an identity axis is left alone.

A matrix product reads every input cell of a row, so a non-finite input cell gives
NaN (0 * inf) in the outputs of its row that do not use it, where PyTorch's gathers
leave them finite; the integer-factor nearest path has no such effect.

float16 and bfloat16 are resampled in float32 and rounded once, as PyTorch does.
'area' is adaptive_avg_pool1d / adaptive_avg_pool2d.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _C
from . import _index_cache
from ._functional_norm import _wide

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
_LINEAR_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
_A = -0.75  # the cubic convolution's parameter, PyTorch's


# ---- sizes and scales ----

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _spatial(x: Tensor) -> str:
    return f"input with spatial dimensions of {list(x.shape[2:])}"


def _output_sizes(x: Tensor, size, scale_factor, recompute, where: str) -> tuple:
    """(output sizes, the scales the formulas use: a float per axis or None)."""
    dim = x.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError(f"{where}: only one of size or scale_factor should be defined")
    if size is not None:
        if recompute:
            raise ValueError(f"{where}: recompute_scale_factor is not meaningful with an "
                             f"explicit size.")
        sizes = list(size) if isinstance(size, (tuple, list)) else [size] * dim
        if isinstance(size, (tuple, list)) and len(sizes) != dim:
            raise ValueError(f"{where}: Input and output must have the same number of spatial "
                             f"dimensions, but got {_spatial(x)} and output size of {size!r} "
                             f"(on {x.device})")
        if not all(_is_int(v) for v in sizes):
            raise TypeError(f"{where}: expected size to be an int or a tuple of {dim} ints, "
                            f"but got {size!r}")
        return tuple(sizes), (None,) * dim
    if scale_factor is None:
        raise ValueError(f"{where}: either size or scale_factor should be defined")
    scales = list(scale_factor) if isinstance(scale_factor, (tuple, list)) else \
        [scale_factor] * dim
    if isinstance(scale_factor, (tuple, list)) and len(scales) != dim:
        raise ValueError(f"{where}: Input and scale_factor must have the same number of "
                         f"spatial dimensions, but got {_spatial(x)} and scale_factor of "
                         f"shape {scale_factor!r} (on {x.device})")
    if not all(_is_number(v) for v in scales):
        raise TypeError(f"{where}: expected scale_factor to be a float or a tuple of {dim} "
                        f"floats, but got {scale_factor!r}")
    scales = [float(v) for v in scales]
    sizes = tuple(math.floor(n * s) if math.isfinite(n * s) else -1
                  for n, s in zip(x.shape[2:], scales))
    return sizes, (None,) * dim if recompute else tuple(scales)


# ---- one axis's weights, on the host ----

def _scale(n_in: int, n_out: int, scale, align_corners: bool, ft) -> Any:
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _nearest_index(mode: str, n_in: int, n_out: int, scale) -> np.ndarray:
    """(out,) int64: the input cell each output cell copies (float32 arithmetic).
    mode 'nearest2d': PyTorch's 2-d nearest kernel, which copies when out = in and
    halves when out = 2 * in whatever the scale (its 1-d and 3-d kernels do not)."""
    o = np.arange(n_out)
    if mode == "nearest2d" and n_out == n_in:
        return o
    if mode == "nearest2d" and n_out == 2 * n_in:
        return o >> 1
    s = _scale(n_in, n_out, scale, False, np.float32)
    pos = o.astype(np.float32)
    if mode == "nearest-exact":
        pos = pos + np.float32(0.5)
    return np.minimum(np.floor(pos * s).astype(np.int64), n_in - 1)


def _taps(mode: str, n_in: int, n_out: int, scale, align_corners: bool, ft) -> tuple:
    """(index (out, k) int64, weight (out, k) of ft): linear (k = 2) or cubic (k = 4)."""
    cubic = mode == "bicubic"
    o = np.arange(n_out)
    if n_out == n_in and not cubic:
        return o.reshape(-1, 1), np.ones((n_out, 1), dtype=ft)
    s = _scale(n_in, n_out, scale, align_corners, ft)
    of = o.astype(ft)
    x = of * s if align_corners else s * (of + ft(0.5)) - ft(0.5)
    if not cubic:
        x = np.maximum(x, ft(0))
    i0 = np.minimum(np.floor(x).astype(np.int64), n_in - 1)
    t = np.clip(x - i0.astype(ft), ft(0), ft(1)).astype(ft)
    if not cubic:
        i1 = i0 + (i0 < n_in - 1)
        return np.stack([i0, i1], 1), np.stack([ft(1) - t, t], 1).astype(ft)
    a = ft(_A)

    def near(z):  # |z| <= 1
        return ((a + ft(2)) * z - (a + ft(3))) * z * z + ft(1)

    def far(z):  # 1 < |z| < 2
        return ((a * z - ft(5) * a) * z + ft(8) * a) * z - ft(4) * a

    u = ft(1) - t
    w = np.stack([far(t + ft(1)), near(t), near(u), far(u + ft(1))], 1).astype(ft)
    index = np.clip(i0.reshape(-1, 1) + np.arange(-1, 3).reshape(1, 4), 0, n_in - 1)
    return index, w


def _axis_plan(mode: str, n_in: int, n_out: int, scale, align_corners, dtype) -> tuple:
    """('identity',), ('repeat', r) or ('matrix', (out, in) float ndarray)."""
    if mode in ("nearest", "nearest2d", "nearest-exact"):
        index = _nearest_index(mode, n_in, n_out, scale)
        if n_out % n_in == 0 and np.array_equal(index, np.arange(n_out) // (n_out // n_in)):
            r = n_out // n_in
            return ("identity",) if r == 1 else ("repeat", r)
        ft = np.float64 if dtype == _C.float64 else np.float32
        index, weight = index.reshape(-1, 1), np.ones((n_out, 1), dtype=ft)
    else:
        ft = np.float64 if dtype == _C.float64 else np.float32
        index, weight = _taps(mode, n_in, n_out, scale, align_corners, ft)
        if index.shape[1] == 1:
            return ("identity",)
    m = np.zeros((n_out, n_in), dtype=ft)
    np.add.at(m, (np.repeat(np.arange(n_out), index.shape[1]), index.reshape(-1)),
              weight.reshape(-1))
    return ("matrix", m)


def _plan_on(device, mode, n_in, n_out, scale, align_corners, dtype) -> tuple:
    """_axis_plan with its matrix on device (kept per device)."""
    def build():
        plan = _axis_plan(mode, n_in, n_out, scale, align_corners, dtype)
        if plan[0] != "matrix":
            return plan
        return ("matrix", _C.tensor(plan[1], device=device))

    key = ("interpolate", mode, n_in, n_out, scale, bool(align_corners), str(dtype))
    return _index_cache.get(key, device, build)


# ---- resampling ----

def _resample_axis(x: Tensor, axis: int, plan: tuple) -> Tensor:
    kind = plan[0]
    if kind == "identity":
        return x
    shape = tuple(x.shape)
    n = shape[axis]
    if kind == "repeat":
        r = plan[1]
        wide = shape[:axis + 1] + (r,) + shape[axis + 1:]
        out = shape[:axis] + (n * r,) + shape[axis + 1:]
        return x.unsqueeze(axis + 1).expand(*wide).reshape(out)
    m = plan[1]  # (out, in)
    if axis == x.ndim - 1:
        return _C.matmul(x, m.T)
    before = 1
    for s in shape[:axis]:
        before *= s
    after = 1
    for s in shape[axis + 1:]:
        after *= s
    y = _C.matmul(m, x.reshape(before, n, after))
    return y.reshape(shape[:axis] + (m.shape[0],) + shape[axis + 1:])


def _check_input(input: Any, mode: str, align_corners, antialias, where: str) -> None:
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    if mode not in _MODES:
        raise NotImplementedError(f"{where}: mode {mode!r} is not supported; the modes are "
                                  f"{', '.join(_MODES)} (input of shape "
                                  f"{tuple(input.shape)} on {input.device})")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError(f"{where}: align_corners option can only be set with the "
                         f"interpolating modes: linear | bilinear | bicubic | trilinear "
                         f"(got mode={mode!r})")
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError(f"{where}: Input Error: Only 3D, 4D and 5D input Tensors "
                                  f"supported (got {input.ndim}D, shape {tuple(input.shape)} "
                                  f"on {input.device}) for the modes: {' | '.join(_MODES)} "
                                  f"(got {mode})")
    need = _LINEAR_DIMS.get(mode)
    if need is not None and input.ndim != need:
        raise NotImplementedError(f"{where}: Got {input.ndim}D input (shape "
                                  f"{tuple(input.shape)} on {input.device}), but {mode} mode "
                                  f"needs {need}D input")
    if mode == "area" and input.ndim == 5:
        raise NotImplementedError(f"{where}: mode 'area' of a 5D input (adaptive_avg_pool3d) "
                                  f"is not supported (shape {tuple(input.shape)} on "
                                  f"{input.device})")
    if antialias:
        if mode not in ("bilinear", "bicubic") or input.ndim != 4:
            raise ValueError(f"{where}: Anti-alias option is restricted to bilinear and "
                             f"bicubic modes and requires a 4-D tensor as input")
        raise NotImplementedError(f"{where}: antialias=True is not supported")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{where}: expected a floating point input, got {input.dtype} of "
                           f"shape {tuple(input.shape)} (on {input.device})")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resamples a batch of sequences, images or volumes to a new spatial size, as
    ``torch.nn.functional.interpolate``.

    The output's spatial sizes are size, or ``floor(in * scale_factor)``.  When
    scale_factor is given (and recompute_scale_factor is not True) the source
    positions use ``1 / scale_factor``, else ``in / out``; align_corners=True maps
    the corner cells onto each other, ``(in - 1) / (out - 1)``.  The formulas of each
    mode are PyTorch's (the module docstring of nn/_functional_interpolate.py spells
    them out).  Each axis is resampled by a product with a weight matrix kept on the
    device, so after the first call with given sizes nothing is copied to or from
    it; the product reads every cell of a row, so an inf or NaN input cell makes
    NaN of the other outputs of its rows (PyTorch leaves those finite), except in
    nearest mode with integer factors.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``; floating point.
    size : int or tuple of int, optional
        The output's spatial sizes.
    scale_factor : float or tuple of float, optional
        The multiplier of each spatial size (exactly one of size and scale_factor).
    mode : str, optional
        'nearest' (default), 'nearest-exact', 'linear' (3-d), 'bilinear' (4-d),
        'bicubic' (4-d), 'trilinear' (5-d) or 'area' (adaptive average pooling;
        3-d and 4-d).
    align_corners : bool, optional
        For the linear and cubic modes (default False); None for the others.
    recompute_scale_factor : bool, optional
        Use ``in / out`` rather than the given scale_factor in the formulas.
    antialias : bool, optional
        Must be False (anti-aliased downsampling is not supported).

    Returns
    -------
    Tensor
        ``(N, C, *out_sizes)``, of input's dtype, on its device.

    Raises
    ------
    TypeError
        When input is not a Tensor, or size or scale_factor has the wrong type.
    ValueError
        When both or neither of size and scale_factor are given, their length is not
        the number of spatial dimensions, align_corners is given with a nearest mode,
        or recompute_scale_factor with size; (InvalidArgumentError, also a
        RuntimeError) when an input or output size is not positive.
    NotImplementedError
        For an unknown mode, a mode that needs another number of dimensions, or
        antialias=True.
    RuntimeError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 2., 4.]]])
    >>> F.interpolate(x, scale_factor=2)
    tensor([[[1., 1., 2., 2., 4., 4.]]])
    >>> F.interpolate(x, size=5, mode='linear', align_corners=True)
    tensor([[[1.0000, 1.5000, 2.0000, 3.0000, 4.0000]]])
    >>> F.interpolate(x, size=4, mode='linear')
    tensor([[[1.0000, 1.6250, 2.7500, 4.0000]]])
    """
    where = "interpolate()"
    _check_input(input, mode, align_corners, antialias, where)
    if align_corners is None:
        align_corners = False
    recompute = bool(recompute_scale_factor) or (mode == "area" and size is None)
    sizes, scales = _output_sizes(input, size, scale_factor, recompute, where)
    spatial = tuple(input.shape[2:])
    if min(spatial) < 1 or min(sizes) < 1:
        raise _Invalid(f"{where}: Input and output sizes should be greater than 0, but got "
                       f"input {spatial} and output {sizes} (input of shape "
                       f"{tuple(input.shape)} on {input.device})")
    if mode == "area":
        from . import _functional_pool as FP
        from . import _functional_pool_more as FPM
        if input.ndim == 3:
            return FPM.adaptive_avg_pool1d(input, sizes)
        return FP.adaptive_avg_pool2d(input, sizes)
    wide = _wide(input.dtype)
    x = input
    if mode == "nearest" and input.ndim == 4:
        mode = "nearest2d"
    kinds = [_plan_on(input.device, mode, n, o, s, align_corners, wide)
             for n, o, s in zip(spatial, sizes, scales)]
    if any(k[0] == "matrix" for k in kinds) and wide != input.dtype:
        x = input.to(wide)
    for axis, plan in enumerate(kinds):
        x = _resample_axis(x, axis + 2, plan)
    if x is input:
        return input.clone()
    return x if x.dtype == input.dtype else x.to(input.dtype)
