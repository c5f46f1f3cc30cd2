"""interpolate (upsampling and downsampling of 3-d, 4-d and 5-d batches), with
PyTorch's modes, output sizes, source-index formulas and antialiasing, on every
device.

Every mode but 'area' is separable: the axes are resampled one after the other,
the last first (PyTorch's order of the sums).  Along an axis each output cell is a
weighted sum of a few input cells, its taps (nn/_interpolate_taps.py has the
formulas): each tap is an ``index_select`` along the axis by an index tensor made
on the device, times its weights broadcast along the axis, so the forward and the
backward (index_add) are existing differentiable ops, the work is linear in the
output's size, and an inf or NaN input cell reaches only the outputs whose taps
read it, as in PyTorch.  The taps are kept per device (nn/_index_cache.py).

float16 and bfloat16 are resampled in float32 and rounded once, as PyTorch does.
'area' is adaptive_avg_pool1d / adaptive_avg_pool2d / adaptive_avg_pool3d.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import flag, output_fits
from .._memory_format import channels_last, channels_last_3d
from . import _interpolate_taps as taps
from ._functional_norm import _wide
from ._functional_pad import _index
from ._linear_nodes import linear_map

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
_LINEAR_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


# ---- sizes and scales ----

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
        if not all(_index(v) is not None for v in sizes):
            raise TypeError(f"{where}: expected size to be an int or a tuple of {dim} ints, "
                            f"but got {size!r}")
        return tuple(_index(v) for v in sizes), (None,) * dim
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
    if antialias:
        if mode not in ("bilinear", "bicubic") or input.ndim != 4:
            raise ValueError(f"{where}: Anti-alias option is restricted to bilinear and "
                             f"bicubic modes and requires a 4-D tensor as input (got "
                             f"mode={mode!r} and an input of shape {tuple(input.shape)} "
                             f"on {input.device})")
    if not input.dtype.is_floating_point and (mode not in ("nearest", "nearest-exact") or
                                              input.dtype == _C.bool) \
            and not _fixed_point(input, mode, antialias):
        # nearest only picks elements: integer images and masks too, as PyTorch's;
        # NotImplementedError (a RuntimeError) as PyTorch's kernels' dtype dispatch
        raise NotImplementedError(f"{where}: expected a floating point input for mode {mode!r} "
                           f"(integers only with 'nearest' and 'nearest-exact'; uint8 with "
                           f"'bilinear' and antialiased 'bicubic' too), got {input.dtype} "
                           f"of shape {tuple(input.shape)} (on {input.device})")


def _fixed_point(input: Tensor, mode: str, antialias: bool) -> bool:
    """Whether PyTorch's uint8 image kernel resizes input (torchvision's resize):
    bilinear, and bicubic with antialias, in fixed point (nn/_interpolate_taps.py)."""
    return input.dtype == _C.uint8 and (mode == "bilinear" or (mode == "bicubic" and
                                                               bool(antialias)))


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resamples a batch of sequences, images or volumes to a new spatial size, as
    ``torch.nn.functional.interpolate``.

    The output's spatial sizes are size, or ``floor(in * scale_factor)``.  When
    scale_factor is given (and recompute_scale_factor is not True) the source
    positions use ``1 / scale_factor``, else ``in / out``; align_corners=True maps
    the corner cells onto each other, ``(in - 1) / (out - 1)``.  The formulas of each
    mode are PyTorch's (nn/_interpolate_taps.py spells them out).  Along each axis
    an output cell is a weighted sum of the few input cells its formula names (two
    for linear, four for cubic), gathered on the device, so an inf or NaN input cell
    reaches only the outputs that read it, as in PyTorch.  antialias=True
    (bilinear and bicubic, as PyTorch) widens the filter by the downsampling factor
    so that every input cell counts: a triangle (bilinear) or cubic (bicubic,
    A = -0.5) filter stretched by ``max(in / out, 1)``, normalised per output, as
    PIL and PyTorch.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``; floating point (integers
        too for the nearest modes; uint8 images for 'bilinear' and antialiased 'bicubic',
        in PyTorch's fixed point: each axis rounded and clamped to 0..255).
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
        Anti-aliased resampling (default False): bilinear and bicubic modes of a 4-d
        input only.

    Returns
    -------
    Tensor
        ``(N, C, *out_sizes)``, of input's dtype, on its device; channels_last
        (channels_last_3d) when input is, as PyTorch.

    Raises
    ------
    TypeError
        When input is not a Tensor, or size or scale_factor has the wrong type.
    ValueError
        When both or neither of size and scale_factor are given, their length is not
        the number of spatial dimensions, align_corners is given with a nearest mode,
        or recompute_scale_factor with size, or antialias=True with a mode other
        than bilinear and bicubic; (InvalidArgumentError, also a RuntimeError) when
        an input or output size is not positive ('area' may make an empty output,
        as PyTorch's).
    NotImplementedError
        For an unknown mode, or a mode that needs another number of dimensions, or
        an input that is not floating point (nor integer, for a nearest mode; nor
        uint8 for bilinear and antialiased bicubic), as PyTorch's.

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
    >>> img = pydevtensor.arange(16.).reshape(1, 1, 4, 4)
    >>> F.interpolate(img, size=2, mode='bilinear', antialias=True)
    tensor([[[[ 3.5714,  5.1429],
              [ 9.8571, 11.4286]]]])
    """
    where = "interpolate()"
    _check_input(input, mode, align_corners, antialias, where)
    align_corners = False if align_corners is None else flag(align_corners, "interpolate",
                                                             "align_corners")
    recompute = bool(recompute_scale_factor) or (mode == "area" and size is None)
    sizes, scales = _output_sizes(input, size, scale_factor, recompute, where)
    spatial = tuple(input.shape[2:])
    if min(spatial) < 1 or min(sizes) < (0 if mode == "area" else 1):  # PyTorch's
        # adaptive pools (area) make an empty output too
        raise _Invalid(f"{where}: Input and output sizes should be greater than 0, but got "
                       f"input {spatial} and output {sizes} (input of shape "
                       f"{tuple(input.shape)} on {input.device})")
    output_fits(where, tuple(input.shape[:2]) + tuple(sizes), input.dtype, input.device)
    if mode == "area" and min(sizes) == 0:  # nothing to average; the gradient is zero
        return input.flatten(2)[..., :0].reshape(tuple(input.shape[:2]) + tuple(sizes))
    if mode == "area":
        from . import _functional_pool as FP
        from . import _functional_pool_more as FPM
        if input.ndim == 3:
            return FPM.adaptive_avg_pool1d(input, sizes)
        if input.ndim == 5:
            from . import _functional_3d as F3
            return F3.adaptive_avg_pool3d(input, sizes)
        return FP.adaptive_avg_pool2d(input, sizes)
    if _fixed_point(input, mode, antialias):
        x = input
        for axis in reversed(range(len(sizes))):
            x = taps.resample(x, axis + 2, taps.uint8_plan(
                input.device, mode, spatial[axis], sizes[axis], scales[axis], align_corners,
                antialias))
        return input.clone() if x is input else _like(input, x)
    # one node under PyTorch's name (Note [linear ops as one node])
    name = _NAMES[mode] + f"{input.ndim - 2}D" + ("Aa" if antialias else "") + "Backward0"
    return linear_map(name, False, _resample, input, mode, sizes, scales, align_corners, antialias)


# PyTorch's node names by mode (then the dims, Aa for antialias, and Backward0)
_NAMES = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact",
          "linear": "UpsampleLinear", "bilinear": "UpsampleBilinear",
          "trilinear": "UpsampleTrilinear", "bicubic": "UpsampleBicubic"}


def _plans(shape, device, wide, mode, sizes, scales, align_corners, antialias) -> list:
    """Each spatial axis's resampling plan (_interpolate_taps.plan)."""
    if mode == "nearest" and len(shape) == 4:
        mode = "nearest2d"
    return [taps.plan(device, mode, n, o, s, align_corners, antialias, wide)
            for n, o, s in zip(shape[2:], sizes, scales)]


def _resample(input: Tensor, mode: str, sizes: tuple, scales: tuple, align_corners: bool,
              antialias: bool) -> Tensor:
    """input resampled to sizes (floating types; a new tensor)."""
    wide = _wide(input.dtype)
    plans = _plans(tuple(input.shape), input.device, wide, mode, sizes, scales, align_corners,
                   antialias)
    x = input
    if any(p[0] == "taps" and p[2] is not None for p in plans) and wide != input.dtype:
        x = input.to(wide)
    for axis in reversed(range(len(plans))):
        x = taps.resample(x, axis + 2, plans[axis])
    if x is input:
        return input.clone()
    if x.dtype != input.dtype:
        x = x.to(input.dtype)
    return _like(input, x)


def _resample_adjoint(g: Tensor, meta: tuple, mode: str, sizes: tuple, scales: tuple,
                      align_corners: bool, antialias: bool) -> Tensor:
    """_resample's gradient at g (its transpose): each axis's resampling transposed, in
    the reverse order, summed in float32 for the half types and rounded once."""
    shape, dtype, device = meta
    wide = _wide(dtype)
    plans = _plans(shape, device, wide, mode, sizes, scales, align_corners, antialias)
    g = g if g.dtype == wide else g.to(wide)
    for axis in range(len(plans)):
        g = taps.resample_transposed(g, axis + 2, plans[axis], shape[axis + 2])
    return g if g.dtype == dtype else g.to(dtype)


_resample.adjoint = _resample_adjoint


def _like(input: Tensor, x: Tensor) -> Tensor:
    """x, channels_last (channels_last_3d) when input is, as PyTorch's kernels."""
    if input.ndim > 3 and _channels_last(input) and not _channels_last(x):
        x = x.contiguous(memory_format=channels_last if input.ndim == 4
                         else channels_last_3d)
    return x


def _channels_last(x: Tensor) -> bool:
    fmt = channels_last if x.ndim == 4 else channels_last_3d
    return x.is_contiguous(memory_format=fmt) and not x.is_contiguous()


def _deprecated(name: str) -> None:
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  f"instead.", UserWarning, stacklevel=3)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """:func:`interpolate` under its old name, as ``torch.nn.functional.upsample``
    (deprecated there): warns, then resamples.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``, 1 to 3 spatial dimensions.
    size, scale_factor, mode, align_corners : optional
        As :func:`interpolate`'s.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError, NotImplementedError
        As :func:`interpolate`.

    Examples
    --------
    >>> import warnings
    >>> from pydevtensor.nn import functional as F
    >>> with warnings.catch_warnings(record=True):
    ...     F.upsample(pydevtensor.tensor([[[1., 2.]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """``interpolate(input, size, scale_factor, mode='nearest')``, as
    ``torch.nn.functional.upsample_nearest`` (deprecated there): warns, then resamples.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``, 1 to 3 spatial dimensions.
    size, scale_factor : optional
        As :func:`interpolate`'s.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        As :func:`interpolate`.

    Examples
    --------
    >>> import warnings
    >>> from pydevtensor.nn import functional as F
    >>> with warnings.catch_warnings(record=True):
    ...     F.upsample_nearest(pydevtensor.tensor([[[1., 2.]]]), size=3)
    tensor([[[1., 1., 2.]]])
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """``interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)``,
    as ``torch.nn.functional.upsample_bilinear`` (deprecated there): warns, then
    resamples a 4-d batch with the corners aligned.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``.
    size, scale_factor : optional
        As :func:`interpolate`'s.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError, NotImplementedError
        As :func:`interpolate` (an input that is not 4-d).

    Examples
    --------
    >>> import warnings
    >>> from pydevtensor.nn import functional as F
    >>> with warnings.catch_warnings(record=True):
    ...     F.upsample_bilinear(pydevtensor.tensor([[[[0., 3.]]]]), size=(1, 4))
    tensor([[[[0., 1., 2., 3.]]]])
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
