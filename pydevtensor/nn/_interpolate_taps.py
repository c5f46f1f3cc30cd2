"""The taps of interpolate's modes along one axis, made on the tensor's device.

Along an axis of n_in cells resampled to n_out, output cell o reads K input cells
index[k, o] with weights weight[k, o] (k < K), and out[o] is
``weight[0, o] * in[index[0, o]] + ... + weight[K-1, o] * in[index[K-1, o]]``,
summed in that order.  Both (K, n_out) tensors are made on the device from
``arange`` by elementwise arithmetic in PyTorch's opmath type (float32, float64 for
a float64 input), one rounding per operation as in PyTorch's kernels, so nothing
is copied from the host; they are kept per device in nn/_index_cache.py.  With s
the scale the formulas use:

    s = (in - 1) / (out - 1)          align_corners (0 when out = 1)
      = 1 / scale_factor              scale_factor given, not recomputed
      = in / out                      otherwise

    nearest        i = min(floor(o * s), in - 1)     (of a 4-d input: o when out = in,
                                                      o // 2 when out = 2 * in, as
                                                      PyTorch's 2-d kernel); K = 1
    nearest-exact  i = min(floor((o + 0.5) * s), in - 1); K = 1
    linear         x = o * s (align_corners) or max((o + 0.5) * s - 0.5, 0);
                   i0 = min(floor(x), in - 1), t = clamp(x - i0, 0, 1),
                   i1 = i0 + 1 unless i0 = in - 1; weights 1 - t and t; K = 2
                   (the identity when out = in, as PyTorch)
    cubic          x as linear but not clamped at 0; i0 = min(floor(x), in - 1),
                   t = clamp(x - i0, 0, 1); taps i0 - 1 .. i0 + 2 (each clamped
                   into [0, in - 1]) with Keys' cubic convolution weights, A = -0.75;
                   K = 4
    antialias      (bilinear and bicubic; PyTorch's, PIL's) s as above; the filter
                   is stretched by f = max(s, 1): support = f (linear) or 2 f
                   (cubic); centre c = s * (o + 0.5); the taps are i = lo .. hi - 1
                   with lo = max(trunc(c - support + 0.5), 0) and
                   hi = min(trunc(c + support + 0.5), in), weighted by
                   filter((i - c + 0.5) / f) (the triangle 1 - |z|, or Keys' cubic
                   with A = -0.5) divided by their sum; K = 2 ceil(support) + 1,
                   and an output with fewer taps reads cell ``in`` (a zero that
                   the caller appends) with weight 0; the identity when out = in,
                   as PyTorch

    uint8          (bilinear, and antialiased bicubic: PyTorch's uint8 kernel, its
                   torchvision resize) the antialias taps, and without antialias
                   f = 1 and, with align_corners, c = s * o, lo and hi shifted by
                   +0.5 and the filter read at i - c; the weights w of the axis
                   in fixed point, q = trunc(w * 2^p +- 0.5) for the largest p <= 22
                   with round(max w * 2^(p+1)) < 2^15; out[o] = clamp((2^(p-1) +
                   sum q in) >> p, 0, 255), each axis rounded so, the last first

An axis that nearest resamples by an integer factor (each cell repeated r times;
decided on the host from the same float32 formula, no device data read) is a
broadcast view instead ('repeat'), and an axis that is not resampled is left alone
('identity').
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _C
from .._ops_index import where
from .._ops_join import cat, stack
from .._ops_scatter import index_add_built
from . import _index_cache

if TYPE_CHECKING:
    from .._C import Tensor

_A = -0.75  # the cubic convolution's parameter, PyTorch's
_A_ANTIALIAS = -0.5  # the antialiasing cubic filter's, PIL's and PyTorch's


def _scale(n_in: int, n_out: int, scale, align_corners: bool, ft) -> Any:
    """The scale s of the formulas, rounded to ft (a NumPy float type)."""
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _nearest_position(o, s, exact: bool):
    """o * s, or (o + 0.5) * s for nearest-exact: o a float array or Tensor."""
    return (o + 0.5) * s if exact else o * s


def _repeat_factor(mode: str, n_in: int, n_out: int, scale) -> int:
    """r when nearest copies each input cell r times in a row, else 0 (on the host)."""
    if n_out % n_in:
        return 0
    if mode == "nearest2d" and n_out in (n_in, 2 * n_in):
        return n_out // n_in
    s = _scale(n_in, n_out, scale, False, np.float32)
    pos = _nearest_position(np.arange(n_out, dtype=np.float32), s, mode == "nearest-exact")
    index = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    r = n_out // n_in
    return r if np.array_equal(index, np.arange(n_out) // r) else 0


def _nearest_taps(mode: str, n_in: int, n_out: int, scale, device) -> Tensor:
    """(1, n_out) int64 on device: the cell each output copies (float32 arithmetic)."""
    s = float(_scale(n_in, n_out, scale, False, np.float32))
    o = _C.arange(n_out, dtype=_C.float32, device=device)
    pos = _nearest_position(o, s, mode == "nearest-exact")
    return pos.floor().to(_C.int64).clamp(max=n_in - 1).reshape(1, n_out)


def _keys(z, a: float, far: bool):
    """Keys' cubic convolution kernel at z >= 0: near (z <= 1) or far (1 < z < 2)."""
    if far:
        return ((z * a - 5 * a) * z + 8 * a) * z - 4 * a
    return (z * (a + 2) - (a + 3)) * z * z + 1


def _interp_taps(mode, n_in, n_out, scale, align_corners, dtype, device) -> tuple:
    """(index (K, n_out) int64, weight (K, n_out) of dtype): linear or cubic."""
    cubic = mode == "bicubic"
    ft = np.float64 if dtype == _C.float64 else np.float32
    s = float(_scale(n_in, n_out, scale, align_corners, ft))
    o = _C.arange(n_out, dtype=dtype, device=device)
    x = o * s if align_corners else (o + 0.5) * s - 0.5
    if not cubic:
        x = x.clamp(min=0)
    i0 = x.floor().to(_C.int64).clamp(max=n_in - 1)
    t = (x - i0.to(dtype)).clamp(0, 1)
    if not cubic:
        i1 = i0 + (i0 < n_in - 1).to(_C.int64)
        return stack([i0, i1]), stack([1 - t, t])
    u = 1 - t
    w = stack([_keys(t + 1, _A, True), _keys(t, _A, False), _keys(u, _A, False),
                  _keys(u + 1, _A, True)])
    index = stack([(i0 + k).clamp(0, n_in - 1) for k in (-1, 0, 1, 2)])
    return index, w


def _antialias_taps(mode, n_in, n_out, scale, align_corners, dtype, device,
                    antialias=True) -> tuple:
    """(index (K, n_out) int64, weight (K, n_out) of dtype): the antialiasing filter
    (see the module docstring); padding taps read cell n_in with weight 0.  Without
    antialias: the unstretched filter of PyTorch's uint8 kernel."""
    cubic = mode == "bicubic"
    ft = np.float64 if dtype == _C.float64 else np.float32
    s = float(_scale(n_in, n_out, scale, align_corners, ft))
    stretch = max(s, 1.0) if antialias else 1.0
    delta = 0.5 if align_corners and not antialias else 0.0
    support = (2.0 if cubic else 1.0) * stretch
    taps = 2 * math.ceil(support) + 1
    centre = (_C.arange(n_out, dtype=dtype, device=device) + (0.5 - delta)) * s
    lo = (centre - support + (0.5 + delta)).to(_C.int64).clamp(min=0)
    hi = (centre + support + (0.5 + delta)).to(_C.int64).clamp(max=n_in)
    k = _C.arange(taps, dtype=_C.int64, device=device).reshape(taps, 1)
    index = lo + k  # (taps, n_out)
    valid = index < hi
    z = ((index.to(dtype) - centre + (0.5 - delta)) * (1.0 / stretch)).abs()
    if cubic:
        w = where(z < 1, _keys(z, _A_ANTIALIAS, False),
                     where(z < 2, _keys(z, _A_ANTIALIAS, True), 0.0))
    else:
        w = (1 - z).clamp(min=0)
    w = where(valid, w, 0.0)
    total = w.sum(0)
    w = w / where(total == 0, 1.0, total)
    return where(valid, index, n_in), w


def plan(device, mode: str, n_in: int, n_out: int, scale, align_corners: bool,
         antialias: bool, dtype) -> tuple:
    """('identity',), ('repeat', r), or ('taps', index (K, n_out), weight (K, n_out)
    or None for the nearest modes, padded) with padded True when index may name cell
    n_in (a zero the caller appends); kept per device.  mode 'nearest2d' is nearest
    of a 4-d input; dtype the opmath type (float32 or float64)."""
    def build():
        if mode in ("nearest", "nearest2d", "nearest-exact"):
            r = _repeat_factor(mode, n_in, n_out, scale)
            if r:
                return ("identity",) if r == 1 else ("repeat", r)
            return ("taps", _nearest_taps(mode, n_in, n_out, scale, device), None, False)
        if n_out == n_in and (antialias or mode != "bicubic"):
            return ("identity",)
        if antialias:
            index, weight = _antialias_taps(mode, n_in, n_out, scale, align_corners, dtype,
                                            device)
            return ("taps", index, weight, True)
        index, weight = _interp_taps(mode, n_in, n_out, scale, align_corners, dtype, device)
        return ("taps", index, weight, False)

    key = ("interpolate", mode, n_in, n_out, scale, bool(align_corners), bool(antialias),
           str(dtype))
    return _index_cache.get(key, device, build)


def uint8_plan(device, mode: str, n_in: int, n_out: int, scale, align_corners: bool,
               antialias: bool) -> tuple:
    """('identity',) or ('fixed', index (K, n_out), weight int64 (K, n_out), p): PyTorch's
    uint8 weights in fixed point with p fraction bits (the module docstring), made on
    the host once (the precision depends on the largest weight), kept per device."""
    def build():
        if n_out == n_in:
            return ("identity",)
        index, weight = _antialias_taps(mode, n_in, n_out, scale, align_corners, _C.float64,
                                        "cpu", antialias)
        w = weight.numpy()
        top, bits = float(w.max()), 0
        while bits < 22 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
            bits += 1
        fixed = np.trunc(w * (1 << bits) + np.where(w < 0, -0.5, 0.5)).astype(np.int64)
        return ("fixed", index.to(device), _C.tensor(fixed, device=device), bits)

    key = ("interpolate uint8", mode, n_in, n_out, scale, bool(align_corners),
           bool(antialias))
    return _index_cache.get(key, device, build)


def resample(x: Tensor, axis: int, plan: tuple) -> Tensor:
    """x resampled along axis by plan (from plan())."""
    kind = plan[0]
    if kind == "identity":
        return x
    shape = tuple(x.shape)
    if kind == "repeat":
        r = plan[1]
        wide = shape[:axis + 1] + (r,) + shape[axis + 1:]
        out = shape[:axis] + (shape[axis] * r,) + shape[axis + 1:]
        # contiguous: of a single cell (shape[axis] == 1) the reshape is a view with a
        # zero stride, aliasing the input and its own elements
        return x.unsqueeze(axis + 1).expand(*wide).reshape(out).contiguous()
    if kind == "fixed":  # uint8 in int64: sum, round, shift, clamp
        _, index, weight, bits = plan
        x = resample(x.to(_C.int64), axis, ("taps", index, weight, True))
        return (x + (1 << (bits - 1))).div(1 << bits, rounding_mode="floor").clamp(
            0, 255).to(_C.uint8)
    _, index, weight, padded = plan
    if padded:
        zero = _C.zeros(shape[:axis] + (1,) + shape[axis + 1:], dtype=x.dtype, device=x.device)
        x = cat([x, zero], axis)
    if weight is None:
        return x.index_select(axis, index[0])
    along = (index.shape[1],) + (1,) * (len(shape) - 1 - axis)
    y = None
    for k in range(index.shape[0]):
        term = x.index_select(axis, index[k]) * weight[k].reshape(along)
        y = term if y is None else y + term
    return y


def resample_transposed(g: Tensor, axis: int, plan: tuple, n_in: int) -> Tensor:
    """The transpose of resample(x, axis, plan), x of n_in cells along axis, at g (its
    gradient): each output cell's g added back onto the cells it read, times their
    weights, by recorded ops (a sum, index_add), so differentiable again in g."""
    kind = plan[0]
    if kind == "identity":
        return g
    shape = tuple(g.shape)
    if kind == "repeat":
        return g.reshape(shape[:axis] + (n_in, plan[1]) + shape[axis + 1:]).sum(axis + 1)
    _, index, weight, padded = plan
    cells = n_in + 1 if padded else n_in  # the zero cell appended: its share dropped
    dx = _C.zeros(shape[:axis] + (cells,) + shape[axis + 1:], dtype=g.dtype, device=g.device)
    along = (index.shape[1],) + (1,) * (len(shape) - 1 - axis)
    for k in range(index.shape[0]):
        dx = index_add_built(dx, axis, index[k],
                             g if weight is None else g * weight[k].reshape(along))
    return dx.narrow(axis, 0, n_in) if padded else dx
