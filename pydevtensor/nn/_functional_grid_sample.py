"""affine_grid and grid_sample (spatial transformer sampling) of 4-d and 5-d batches,
with PyTorch's formulas, on every device.

A grid holds normalised source positions in [-1, 1] (x first: the last spatial axis,
then y, then z).  Along an axis of n cells a coordinate g becomes a cell position

    x = (g + 1) / 2 * (n - 1)                 align_corners=True  (-1, 1: the corner
                                                                   cells' centres)
    x = ((g + 1) * n - 1) / 2                 align_corners=False (-1, 1: the corner
                                                                   cells' outer edges)

then padding_mode moves it: 'zeros' leaves it (cells outside read 0), 'border'
clamps it into [0, n - 1], 'reflection' mirrors it about the borders (the cell
centres 0 and n - 1, or the edges -0.5 and n - 0.5 without align_corners; PyTorch's
``min(e, 2 s - e)`` with e the distance from the low border modulo the period 2 s)
and clamps it.  'bilinear' (trilinear for 5-d) weighs the 2 (4, 8) cells around x
by ``1 - t`` and ``t``, t = x - floor(x); 'nearest' reads the cell at round(x),
half to even as PyTorch's nearbyint; 'bicubic' reads the 4 x 4 (4 x 4 x 4 for 5-d,
as PyTorch 2.15's) cells around the unpadded x with Keys' weights (A = -0.75), each
cell's integer position padded.

A NaN or infinite position reads what PyTorch's CPU kernels read: under 'border'
and 'reflection' a NaN (and a reflected infinity) is clamped to cell 0 in 2-d (its
vectorised kernel), to cell n - 1 in 3-d (``std::min(n - 1, std::max(x, 0))``);
under 'zeros' bilinear gives NaN in 2-d (0 times a NaN weight) and 0 in 3-d (the
taps outside are skipped).

Every tap is a ``gather`` of the flattened input by an index made on the device and
masked by ``where``, times its weight: existing differentiable ops, so autograd gives
the gradients w.r.t. input and grid.  As in PyTorch's kernels a clamped coordinate
has zero gradient at the border itself (clamped when not strictly inside), and a
reflected one the sign of its reflections.  float16 and bfloat16 are computed in
float32 and rounded once.
"""
from __future__ import annotations

import itertools
import math
import warnings
from typing import TYPE_CHECKING

from .. import _C, _args
from .._ops_index import where
from .._ops_join import stack
from ._functional_norm import _wide
from ._interpolate_taps import _A, _keys

if TYPE_CHECKING:
    from .._C import Tensor

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                    "align_corners=False since 1.3.0. Please specify align_corners=True if "
                    "the old behavior is desired. See the documentation of grid_sample for "
                    "details.")


def _align(align_corners, op) -> bool:
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=3)
        return False
    return _args.flag(align_corners, op, "align_corners")


# ---- affine_grid ----

def _steps(n: int, align_corners: bool, dtype, device) -> Tensor:
    """The n normalised cell positions along an axis: linspace(-1, 1, n), scaled by
    (n - 1) / n without align_corners (0 when n = 1), as PyTorch's."""
    if n <= 1:
        return _C.zeros(n, dtype=dtype, device=device)
    r = _C.linspace(-1, 1, n, dtype=dtype, device=device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps, as
    ``torch.nn.functional.affine_grid``: with grid_sample, a spatial transformer.

    Output cell (h, w) of sample n holds ``theta[n] @ (x_w, y_h, 1)``, where x_w and
    y_h are the normalised positions of the cells along W and H: ``linspace(-1, 1)``
    over the cells, times ``(W - 1) / W`` without align_corners (the cells' centres
    when -1 and 1 are the outer edges; 0 for a single cell).  5-d likewise, with
    ``(x_w, y_h, z_d, 1)``.

    Parameters
    ----------
    theta : Tensor
        ``(N, 2, 3)`` for a 4-d size, ``(N, 3, 4)`` for a 5-d size; floating point.
    size : sequence of int
        The target's shape ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    align_corners : bool, optional
        Whether -1 and 1 are the corner cells' centres (True) or outer edges (False,
        the default; leaving it None warns, as PyTorch).

    Returns
    -------
    Tensor
        ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``, of theta's dtype, on its device.

    Raises
    ------
    ValueError
        When theta is not floating point, its shape does not fit size, or a size
        is not positive; (InvalidArgumentError, also a RuntimeError, as PyTorch's
        batched product) when its batch is not size[0].
    NotImplementedError
        When size has neither 4 nor 5 elements.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> theta = pydevtensor.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
    tensor([[[[-0.5000, -0.5000],
              [ 0.5000, -0.5000]],
    <BLANKLINE>
             [[-0.5000,  0.5000],
              [ 0.5000,  0.5000]]]])
    """
    align_corners = _align(align_corners, "affine_grid")
    size = tuple(_args.sequence(size, "affine_grid", "size"))
    if not isinstance(theta, _C.Tensor) or not theta.dtype.is_floating_point:
        got = theta.dtype if isinstance(theta, _C.Tensor) else type(theta).__name__
        raise ValueError(f"Expected theta to have floating point type, but got {got}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    dim = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (dim, dim + 1):
        raise ValueError(f"Expected a batch of {dim}D affine matrices of shape "
                         f"Nx{dim}x{dim + 1} for size {size}. Got {tuple(theta.shape)} "
                         f"(on {theta.device}).")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise _C.InvalidArgumentError(
            f"affine_grid(): theta holds {theta.shape[0]} matrices but size {size} asks for "
            f"a batch of {size[0]} (theta on {theta.device})")
    dtype, device = theta.dtype, theta.device
    spatial = size[2:]
    cols = []
    for k in range(dim):  # x, y, z: along the last spatial axis, then the one before
        axis = dim - 1 - k
        view = [1] * dim
        view[axis] = spatial[axis]
        steps = _steps(spatial[axis], align_corners, dtype, device)
        cols.append(steps.reshape(view).expand(*spatial))
    cols.append(_C.ones(spatial, dtype=dtype, device=device))
    base = stack(cols, -1).reshape(1, -1, dim + 1)
    grid = base.expand(size[0], base.shape[1], dim + 1).bmm(theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, dim)


# ---- grid_sample: source positions ----

def _unnormalize(g: Tensor, n: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (g + 1) / 2 * (n - 1)
    return ((g + 1) * n - 1) / 2


def _tied(value: Tensor, tie: Tensor) -> Tensor:
    """value, tied to tie (broadcastable) with a zero gradient: PyTorch's gradient is
    zero there, not missing."""
    keep = _C.ones((), dtype=_C.bool, device=value.device)
    return where(keep, value, tie)


def _clip(x: Tensor, n: int, volume: bool) -> Tensor:
    """x clamped into [0, n - 1]; NaN to 0, or to n - 1 when volume (5-d input: PyTorch's
    3-d kernel clamps with std::min(n - 1, std::max(x, 0)), its 2-d one with vectors);
    the gradient passes only strictly inside (PyTorch's)."""
    inside = (x > 0) & (x < n - 1)
    high = x.detach() >= n - 1
    if volume:
        high = high | x.detach().isnan()
    return where(inside, x, high.to(x.dtype) * (n - 1))


def _reflect(x: Tensor, n: int, align_corners: bool) -> Tensor:
    """x mirrored about the low and high borders, as PyTorch's reflect_coordinates."""
    if align_corners and n <= 1:
        return _tied(_C.zeros(x.shape, dtype=x.dtype, device=x.device), x)
    low, span2 = (0.0, 2.0 * (n - 1)) if align_corners else (-0.5, 2.0 * n)
    d = x - low
    d = where(d < 0, -d, d)  # the gradient at the low border is +1, as PyTorch's
    extra = d.fmod(span2)  # exact, as PyTorch's std::fmod (a quotient loses a far x)
    flipped = span2 - extra
    return where(extra > flipped, flipped, extra) + low


def _padded(x: Tensor, n: int, padding_mode: str, align_corners: bool,
            volume: bool) -> Tensor:
    if padding_mode == "border":
        return _clip(x, n, volume)
    if padding_mode == "reflection":
        return _clip(_reflect(x, n, align_corners), n, volume)
    return x


# ---- grid_sample: taps ----

def _tap(flat: Tensor, spatial: tuple, cells: list, weight: Tensor | None = None) -> Tensor:
    """The input values (N, C, P) at integer cell positions (N, P) per axis (floating,
    last axis last), 0 outside the input; times weight (N, P) when given, 0 outside
    the input even where weight is not finite (PyTorch's 3-d kernel skips those taps)."""
    index, inside = None, None
    for pos, n in zip(cells, spatial):
        ok = (pos >= 0) & (pos <= n - 1)
        i = where(ok, pos.detach(), 0).to(_C.int64)
        index = i if index is None else index * n + i
        inside = ok if inside is None else inside & ok
    n_, c = flat.shape[0], flat.shape[1]
    vals = flat.gather(2, index.unsqueeze(1).expand(n_, c, index.shape[1]))
    if weight is not None:
        vals = vals * weight.unsqueeze(1)
    return where(inside.unsqueeze(1), vals, 0)


def _linear(flat, spatial, coords) -> Tensor:
    """Bilinear (trilinear): the 2 ** dim cells around coords, weighted 1 - t and t.
    A tap outside the input adds 0 in 3-d even for a non-finite position (PyTorch's
    3-d kernel skips it), 0 times the weight in 2-d (NaN there, as PyTorch's)."""
    lows = [x.floor() for x in coords]  # floor's gradient is zero
    ts = [x - f for x, f in zip(coords, lows)]
    out = None
    for offs in itertools.product((0, 1), repeat=len(coords)):  # PyTorch's order
        cells = [f + o for f, o in zip(lows, offs)]
        w = None
        for t, o in zip(reversed(ts), reversed(offs)):  # x * y * z, as PyTorch
            wk = t if o else 1 - t
            w = wk if w is None else w * wk
        if len(coords) == 3:
            term = _tap(flat, spatial, cells, w)
        else:
            term = _tap(flat, spatial, cells) * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _nearest(flat, spatial, coords) -> Tensor:
    cells = [x.round() for x in coords]  # half to even, as nearbyint
    out = _tap(flat, spatial, cells)
    return _tied(out, cells[0].unsqueeze(1))  # PyTorch's zero gradient w.r.t. grid


def _bicubic(flat, spatial, coords, padding_mode, align_corners) -> Tensor:
    """The 4 x 4 (4 x 4 x 4 for 5-d) cells around (z,) y, x, each position padded, with
    Keys' weights: summed along x first, then y (then z), as PyTorch's."""
    lows = [x.floor() for x in coords]
    weights = [_cubic_weights(x - f) for x, f in zip(coords, lows)]
    volume = len(spatial) == 3
    pos = [[_padded(f.detach() + (k - 1), n, padding_mode, align_corners, volume)
            for k in range(4)] for f, n in zip(lows, spatial)]

    def summed(axis, cells):
        out = None
        for k in range(4):
            at = cells + [pos[axis][k]]
            inner = (_tap(flat, spatial, at) if axis == len(spatial) - 1
                     else summed(axis + 1, at))
            term = inner * weights[axis][k].unsqueeze(1)
            out = term if out is None else out + term
        return out
    return summed(0, [])


def _cubic_weights(t: Tensor) -> list:
    u = 1 - t
    return [_keys(t + 1, _A, True), _keys(t, _A, False), _keys(u, _A, False),
            _keys(u + 1, _A, True)]


def _check(input, grid, mode, padding_mode) -> None:
    where_ = "grid_sample()"
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where_}: {name} must be a Tensor, got {type(t).__name__}")
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    shapes = (f"input with sizes {list(input.shape)} and grid with sizes "
              f"{list(grid.shape)} (on {input.device} and {grid.device})")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"{where_}: expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got {shapes}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"{where_}: expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got {shapes}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"{where_}: expected grid and input to have same batch size, "
                           f"but got {shapes}")
    if min(input.shape[2:]) < 1:
        raise RuntimeError(f"{where_}: expected input to have non-empty spatial "
                           f"dimensions, but got {shapes}")
    if not input.dtype.is_floating_point or grid.dtype != input.dtype:
        raise RuntimeError(f"{where_}: expected floating point input and grid of the same "
                           f"dtype, got {input.dtype} and {grid.dtype} ({shapes})")
    if input.device != grid.device:
        raise _C.DeviceError(f"{where_}: expected input and grid on the same device, but got "
                             f"{shapes}")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """Samples input at the normalised positions of grid, as
    ``torch.nn.functional.grid_sample``.

    ``out[n, :, h, w]`` is input[n] at position ``grid[n, h, w] = (x, y)``, where
    (-1, -1) is the top left of the image and (1, 1) the bottom right: the corner
    cells' centres with align_corners=True, their outer edges without.  5-d input
    likewise with ``(x, y, z)``.  The module docstring of
    nn/_functional_grid_sample.py has PyTorch's formulas.  The gradients w.r.t.
    input and grid are autograd's, as PyTorch's (zero w.r.t. grid for 'nearest').

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``, floating point.
    grid : Tensor
        ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``, input's dtype.
    mode : str, optional
        'bilinear' (default; trilinear for 5-d), 'nearest' or 'bicubic' (tricubic
        for 5-d).
    padding_mode : str, optional
        'zeros' (default: 0 outside), 'border' (the nearest border cell) or
        'reflection' (mirrored about the borders).
    align_corners : bool, optional
        Whether -1 and 1 are the corner cells' centres (True) or outer edges (False,
        the default; leaving it None warns, as PyTorch).

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``, of input's
        dtype, on its device.

    Raises
    ------
    TypeError
        When input or grid is not a Tensor.
    ValueError
        For an unknown mode or padding_mode.
    RuntimeError
        When the shapes do not fit (grid's last size, batch, number of dimensions, an
        empty spatial dimension), or the dtypes or devices differ.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> img = pydevtensor.tensor([[[[1., 2.], [3., 4.]]]])
    >>> grid = pydevtensor.tensor([[[[0., 0.], [-1., -1.], [1., 0.5]]]])
    >>> F.grid_sample(img, grid, align_corners=True)
    tensor([[[[2.5000, 1.0000, 3.5000]]]])
    >>> F.grid_sample(img, grid, align_corners=False)
    tensor([[[[2.5000, 0.2500, 2.0000]]]])
    >>> F.grid_sample(img, grid, padding_mode='border', align_corners=False)
    tensor([[[[2.5000, 1.0000, 4.0000]]]])
    >>> F.grid_sample(img, grid, mode='nearest', align_corners=True)  # 0.5 rounds to 0
    tensor([[[[1., 1., 4.]]]])
    """
    _check(input, grid, mode, padding_mode)
    align_corners = _align(align_corners, "grid_sample")
    wide = _wide(input.dtype)
    x, g = (input.to(wide), grid.to(wide)) if wide != input.dtype else (input, grid)
    n, c = x.shape[0], x.shape[1]
    spatial, out_spatial = tuple(x.shape[2:]), tuple(g.shape[1:-1])
    flat = x.reshape(n, c, math.prod(spatial))  # explicit sizes: n or c may be 0
    g = g.reshape(n, math.prod(out_spatial), len(spatial))
    # grid's component k addresses spatial axis -1 - k: coords listed in axis order
    sizes = list(reversed(spatial))
    raw = [_unnormalize(g[..., k], sizes[k], align_corners) for k in range(len(spatial))]
    raw.reverse()
    if mode == "bicubic":
        out = _bicubic(flat, spatial, raw, padding_mode, align_corners)
    else:
        coords = [_padded(r, s, padding_mode, align_corners, len(spatial) == 3)
                  for r, s in zip(raw, spatial)]
        out = (_linear if mode == "bilinear" else _nearest)(flat, spatial, coords)
    out = out.reshape(n, c, *out_spatial)
    return out.to(input.dtype) if out.dtype != input.dtype else out
