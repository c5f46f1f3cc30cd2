"""adaptive_avg_pool2d over bins that are not equal windows, and adaptive_avg_pool3d
(interpolate's mode 'area' too), recorded as one node each under PyTorch's names,
AdaptiveAvgPool2DBackward0 and AdaptiveAvgPool3DBackward0 (Note [linear ops as one
node] in _linear_nodes.py); composed, their grad_fn was the last piece's, DivBackward0
(or ToCopyBackward0 for the half types) and CloneBackward0.

Each adjoint is the composition's backward written out, piece by piece in reverse and
in the same dtypes, so the gradients are the numbers the composition gave: a bin sum's
transpose spreads each bin's g over its cells (index_add where bins overlap), a mean's
divides by the count.  Like PyTorch's backward, which takes the input, the gradient is
linked to x under create_graph (its derivative in x zeros: Note [linear inputs]).
"""
from __future__ import annotations

from .. import _C
from .._ops_scatter import index_add_built
from . import _functional_pool as FPL
from ._linear_nodes import linear_map
from ._norm_nodes import wide as _wide


def bin_mean2d(input, out):
    """adaptive_avg_pool2d of input ((N, C, H, W) or (C, H, W), floating, bins not all
    equal windows) to out = (out_h, out_w), recorded as AdaptiveAvgPool2DBackward0."""
    return linear_map("AdaptiveAvgPool2DBackward0", True, _bin_mean, input, out)


def _bin_mean(x, out):
    """The mean of each bin over the last two dims, in float32 for the half types
    (rounded once)."""
    h, w = x.ndim - 2, x.ndim - 1
    wide = _wide(x.dtype)
    sums = FPL._bin_sums(FPL._bin_sums(x if wide == x.dtype else x.to(wide), h, out[0]),
                         w, out[1])
    mean = sums / FPL._bin_counts(tuple(x.shape[-2:]), out, wide, x.device)
    return mean if wide == x.dtype else mean.to(x.dtype)


def _bin_mean_adjoint(g, meta, out):
    shape, dtype, device = meta
    wide = _wide(dtype)
    g = g if g.dtype == wide else g.to(wide)
    g = g / FPL._bin_counts(tuple(shape[-2:]), out, wide, device)
    g = _bin_sums_adjoint(g, len(shape) - 1, shape[-1], out[1])
    g = _bin_sums_adjoint(g, len(shape) - 2, shape[-2], out[0])
    return g if g.dtype == dtype else g.to(dtype)


_bin_mean.adjoint = _bin_mean_adjoint


def _bin_sums_adjoint(g, dim, size, out):
    """The transpose of FPL._bin_sums(x, dim, out) for x of size cells along dim: each
    bin's g on each of its cells (summed where bins share a cell)."""
    k = size // out if size % out == 0 else FPL._widest(size, out)
    lead, tail = tuple(g.shape[:dim]), tuple(g.shape[dim + 1:])
    spread = g.unsqueeze(dim + 1).expand(lead + (out, k) + tail).reshape(lead + (out * k,) +
                                                                         tail)
    if size % out == 0:
        return spread
    taps, padded, _ = FPL._bin_taps(size, out, g.device)
    cells = lead + (size + 1 if padded else size,) + tail
    dx = index_add_built(_C.zeros(cells, dtype=g.dtype, device=g.device), dim, taps, spread)
    return dx.narrow(dim, 0, size) if padded else dx


def pool2d_adjoint(g, shape, out):
    """The transpose of FPL._adaptive_avg_pool of a (N, C, H, W) input of shape (floating)
    to out, at g, by the path the forward took: a 1x1 output's mean, equal windows'
    avg_pool2d, or the bins'."""
    h, w = shape[2:]
    if tuple(out) == (1, 1):  # MeanBackward1's: g / count, broadcast
        return (g / max(h * w, 1)).expand(shape)
    if h % out[0] == 0 and w % out[1] == 0:  # AvgPool2DBackward0's tiles
        kh, kw = h // out[0], w // out[1]
        wide = _wide(g.dtype)
        dx = (g if g.dtype == wide else g.to(wide)) / float(kh * kw)
        dx = dx.reshape(shape[0], shape[1], out[0], 1, out[1], 1).expand(
            shape[0], shape[1], out[0], kh, out[1], kw).reshape(shape)
        return dx if dx.dtype == g.dtype else dx.to(g.dtype)
    return _bin_mean_adjoint(g, (shape, g.dtype, g.device), out)


def no_bins(name, x, out):
    """The empty (..., *out) result of adaptive_avg_pool2d / 3d of an x with no elements
    or an out holding 0, recorded as one node called name (its gradient: zeros)."""
    return linear_map(name, True, _no_bins, x, tuple(out))


def _no_bins(x, out):
    return _C.zeros(tuple(x.shape[:-len(out)]) + out, dtype=x.dtype, device=x.device)


def _no_bins_adjoint(g, meta, out):
    shape, dtype, device = meta
    return _C.zeros(shape, dtype=g.dtype, device=device)


_no_bins.adjoint = _no_bins_adjoint


def pool3d(x, sizes):
    """adaptive_avg_pool3d of x ((N, C, D, H, W) or (C, D, H, W), floating, no empty
    dims or output sizes) to sizes, recorded as AdaptiveAvgPool3DBackward0."""
    return linear_map("AdaptiveAvgPool3DBackward0", True, _pool3d, x, sizes)


def _pool3d(x, sizes):
    """Depth first (F3._adaptive3d's order): the 2-d pool of the (D, H*W) planes to
    (out_d, H*W), then of the (H, W) images to (out_h, out_w); row-major."""
    from . import _functional_3d as F3  # late: it imports this module's importers
    unbatched = x.ndim == 4
    x5 = x.unsqueeze(0) if unbatched else x
    n, c, d, h, w = x5.shape

    def pool(v, size):
        return FPL._adaptive_avg_pool(v, size, "adaptive_avg_pool2d()")

    deep = pool(x5.reshape(n, c, d, h * w), (sizes[0], h * w))
    images = deep.reshape(n, c, sizes[0], h, w).transpose(1, 2).reshape(
        (n * sizes[0], c, h, w))
    out = F3._from_images(pool(images, sizes[1:]), n, sizes[0]).contiguous()
    return _C._saved_aliases((out.squeeze(0),))[0] if unbatched else out


def _pool3d_adjoint(g, meta, sizes):
    shape, dtype, device = meta
    unbatched = len(shape) == 4
    g = g.unsqueeze(0) if unbatched else g
    n, c, d, h, w = (1,) + tuple(shape) if unbatched else shape
    od = sizes[0]
    images = g.transpose(1, 2).reshape((n * od, c) + tuple(sizes[1:]))
    images = pool2d_adjoint(images, (n * od, c, h, w), sizes[1:])
    deep = images.reshape(n, od, c, h, w).transpose(1, 2).reshape(n, c, od, h * w)
    dx = pool2d_adjoint(deep, (n, c, d, h * w), (od, h * w)).reshape(n, c, d, h, w)
    return dx.squeeze(0) if unbatched else dx


_pool3d.adjoint = _pool3d_adjoint
