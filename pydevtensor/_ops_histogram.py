"""Counting along a sequence with PyTorch's names: unique_consecutive, histc, histogram,
histogramdd, trapezoid and cumulative_trapezoid.

unique_consecutive's result size depends on the data: the number of runs is read
back to the host (a counted copy on a GPU), as unique and nonzero read theirs.
histc reads input's min and max back only when it is asked to find the range
itself (min == max); bins are counted by the core's index_add.

Note [histc's bins]
~~~~~~~~~~~~~~~~~~~
A value's bin is PyTorch's, bit for bit: trunc((v - min) bins / (max - min))
with every op rounded to the input's dtype (min and max rounded to it first), and
v == max in the last bin.  Computed in float64 as before, a float32 value written
on an interior edge (0.6 of [0, 1] in 10 bins) could land one bin away from
PyTorch's; float32 rounding is what decides there, in either direction, and
PyTorch's histc uses no edge array (its torch.histogram does).
Where (v - min) bins passes the dtype's largest value (float16 in [0, 1000] with
100 bins) the bin is found in float64; PyTorch's overflows to inf there and counts
those values in the first bin.
"""
import builtins
import functools

from . import _C, _args
from ._dtype_info import finfo
from ._ops_counting import _from_rows, _rows_along, _run_lengths, _run_starts
from ._ops_index import _dim, _int_arg, _tensor_arg, index_select, nonzero, where
from ._ops_join import cat
from ._ops_sort import cumsum
from ._out import _out_written, _outs_written


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The values of input with each run of equal consecutive elements (or slices
    along dim) kept once.  NaN never equals NaN.  The number of runs is read back to
    the host (a counted copy on a GPU).

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.unique_consecutive()``).
    return_inverse : bool, optional
        Also return, for each element (or slice), the index of its run.
    return_counts : bool, optional
        Also return each run's length.
    dim : int, optional
        Runs of equal slices along dim instead of elements of the flattened input.

    Returns
    -------
    Tensor or tuple of Tensor
        The values (1-d without dim), then the int64 inverse (input's shape, or the
        size of dim) and counts when asked for.  No gradient.

    Examples
    --------
    >>> x = pydevtensor.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    >>> pydevtensor.unique_consecutive(x, return_counts=True)
    (tensor([1, 2, 3, 1, 2]), tensor([2, 2, 1, 2, 1]))
    """
    x = _tensor_arg(input, "unique_consecutive").detach()
    return_inverse = _args.flag(return_inverse, "unique_consecutive", "return_inverse")
    return_counts = _args.flag(return_counts, "unique_consecutive", "return_counts")
    rows, axes = _rows_along(x, dim, "unique_consecutive")
    n = rows.shape[0]
    new = _run_starts(rows)
    starts = nonzero(new).reshape(-1)  # reads the number of runs
    results = [_from_rows(index_select(rows, 0, starts), x, axes)]
    if return_inverse:
        inverse = cumsum(new, 0) - 1
        results.append(inverse.reshape(tuple(x.shape)) if axes is None else inverse)
    if return_counts:
        results.append(_run_lengths(starts, n))
    return results[0] if len(results) == 1 else tuple(results)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of input's values: bins equal-width bins between min and max
    (the last bin includes max; values outside, and NaN, are not counted).  With
    min == max (the default 0, 0) the range is input's own smallest and largest
    value, read back to the host (counted copies on a GPU); equal ones are widened
    by 1 each way, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.histc()``).
    bins : int, optional
        The number of bins (default 100).
    min, max : number, optional
        The range.
    out : Tensor, optional
        Written with the counts and returned: of input's dtype and device, of length
        bins or with no elements (then given that length).

    Returns
    -------
    Tensor
        1-d of length bins, input's dtype.  No gradient.

    Raises
    ------
    NotImplementedError
        For an integer input (a RuntimeError, as PyTorch's).
    RuntimeError
        For bins < 1, max < min or a non-finite range; for an out of another dtype,
        device or shape.

    Examples
    --------
    >>> pydevtensor.histc(pydevtensor.tensor([1., 2., 1., 4.]), bins=4, min=0, max=4)
    tensor([0., 2., 1., 1.])
    """
    if out is not None:
        return _out_written(histc(input, bins, min, max), out, "histc")
    x = _tensor_arg(input, "histc").detach()
    bins = _int_arg(bins, "histc", "bins")
    if not x.is_floating_point():
        raise NotImplementedError(f"histc(): expected a floating point input, got {x.dtype} "
                                  f"(shape {tuple(x.shape)}, on {x.device})")
    if bins < 1:
        raise RuntimeError(f"histc(): bins must be > 0, got {bins} (input "
                           f"{tuple(x.shape)}, on {x.device})")
    lo, hi = _args.real(min, "histc", "min"), _args.real(max, "histc", "max")
    if lo == hi and x.numel():
        lo, hi = cat([x.amin().reshape(1), x.amax().reshape(1)]).to(_C.float64).tolist()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
        raise RuntimeError(f"histc(): range of [{lo}, {hi}] is not finite (input "
                           f"{tuple(x.shape)}, on {x.device})")
    if hi < lo:
        raise RuntimeError(f"histc(): max must be larger than min, got min={lo}, max={hi}")
    # the range in input's dtype, as PyTorch's: a float32 0.3 is 0.30000001, and an
    # element equal to it lies inside (compared in float64 it was dropped)
    lo, hi = (float(_C.full((), e, dtype=x.dtype)) for e in (lo, hi))
    v = x.reshape(-1)
    inside = (v >= lo) & (v <= hi)
    slot = where(inside, _bin_of(v, lo, hi, bins), bins).contiguous()  # NaN: spare bin
    counts = _C.zeros((bins + 1,), dtype=_C.float64, device=x.device)
    _C._index_add(counts, 0, slot, _C.ones((slot.shape[0],), dtype=_C.float64,
                                          device=x.device), True)
    return counts[:bins].to(x.dtype)


def _in(dtype, f):
    """f of 0-d CPU tensors in dtype (each op rounded to it), as a Python float."""
    return float(f(lambda e: _C.full((), e, dtype=dtype)))


@functools.cache
def _largest(dtype):
    return finfo(dtype).max  # looked up once per dtype (0.9 us each time otherwise)


def _bin_of(v, lo, hi, bins):
    """Each value's bin as PyTorch's histc finds it (Note [histc's bins]); lo and hi
    are values of v's dtype, v within them where it matters."""
    width = _in(v.dtype, lambda t: t(hi) - t(lo))
    pos = (v - lo) * bins / width
    if not (hi - lo) * bins < _largest(v.dtype):
        # (v - lo) bins can pass the dtype's largest value (float16 in [0, 1000] with
        # 100 bins): those positions, and all of them if the width itself overflowed,
        # are computed in float64 (in the dtype they were inf, all in the last bin)
        exact = (v.to(_C.float64) - lo) * bins / (hi - lo)
        pos = exact if width == float("inf") else where(pos == float("inf"), exact, pos)
    return pos.clamp(0, bins).to(_C.int64).clamp(max=bins - 1)  # v == hi: the last bin


def _edges(v, bins, range, op, where_, dim=""):
    """The bin edges of the values v (1-d, floating) for bins: the increasing 1-d
    edges given (checked, in v's dtype) or that many equal-width bins over range (v's
    smallest and largest value by default, read back to the host; [0, 1] without values;
    equal ends widened by 0.5 each way, as NumPy's), the ends pinned to the range's own
    values.  dim names the dimension in messages (histogramdd)."""
    if isinstance(bins, _C.Tensor):
        if range is not None:
            raise RuntimeError(f"{op}(): range is for an int bins, not for edges")
        edges = bins.detach().to(v.dtype)
        if edges.ndim != 1 or edges.shape[0] < 2:
            raise RuntimeError(f"{op}(): bins{dim} must be 1-d with at least 2 edges, got "
                               f"shape {tuple(edges.shape)} {where_}")
        if edges.device != v.device:
            raise _C.DeviceError(f"{op}(): bins{dim} are on {edges.device}, input on "
                                 f"{v.device}")
        if bool(((edges[1:] - edges[:-1]) < 0).any()):
            raise RuntimeError(f"{op}(): bin edges{dim} must be increasing {where_}")
        return edges
    nbins = _int_arg(bins, op, "bins")
    if nbins < 1:
        raise RuntimeError(f"{op}(): bins{dim} must be > 0, got {nbins} {where_}")
    if range is not None:
        rng = tuple(_args.sequence(range, op, "range", "two numbers"))
        if len(rng) != 2:
            raise RuntimeError(f"{op}(): range should have 2 elements, but got {len(rng)} "
                               f"{where_}")
        lo, hi = (_args.real(e, op, "range") for e in rng)
    elif v.numel():
        lo, hi = cat([v.amin().reshape(1), v.amax().reshape(1)]).to(_C.float64).tolist()
    else:  # an empty input: [0, 1], as NumPy's and PyTorch's
        lo, hi = 0.0, 1.0
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
        raise RuntimeError(f"{op}(): range{dim} of [{lo}, {hi}] is not finite {where_}")
    if hi < lo:
        raise RuntimeError(f"{op}(): max must be larger than min, got min={lo}, "
                           f"max={hi}{dim} {where_}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = _C.linspace(lo, hi, nbins + 1, dtype=v.dtype, device=v.device)
    # the ends are the range's own, whatever linspace's rounding gave (-6 to 5.4 in
    # 9 float64 steps ends at 5.3999...): the maximum is counted in the last bin
    edges[0], edges[nbins] = lo, hi
    return edges


def _bin_in(v, edges):
    """Each value's bin among edges (int64, v's shape): half-open [edges[i], edges[i+1])
    but the last, which includes its right edge; -1 outside and for NaN."""
    from ._ops_counting import bucketize

    n = edges.shape[0] - 1
    pos = bucketize(v, edges, right=True) - 1  # edges[pos] <= v < edges[pos + 1]
    pos = where(v == edges[n], n - 1, pos)  # the last bin includes its right edge
    return where((pos >= 0) & (pos < n) & (v == v), pos, -1)


def _counts(slot, size, weight, x):
    """float64 counts of size slots: 1 (or the weight, of x's shape but maybe its last
    dimension) at each slot."""
    w = _C.ones((slot.shape[0],), dtype=_C.float64, device=x.device) if weight is None \
        else weight.detach().reshape(-1).to(_C.float64)
    counts = _C.zeros((size,), dtype=_C.float64, device=x.device)
    _C._index_add(counts, 0, slot.contiguous(), w.contiguous())
    return counts


class _HistogramResult(tuple):
    """(hist, bin_edges), also by name, as PyTorch's torch.return_types."""

    __slots__ = ()
    _fields = ("hist", "bin_edges")  # as a named tuple's, for _outs_written

    def __new__(cls, hist, bin_edges):
        return super().__new__(cls, (hist, bin_edges))

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])

    def __repr__(self):
        return f"{type(self).__name__}(hist={self[0]!r}, bin_edges={self[1]!r})"


class histogram_result(_HistogramResult):
    """histogram's (hist, bin_edges), also by name, as PyTorch's
    torch.return_types.histogram."""

    __slots__ = ()


class histogramdd_result(_HistogramResult):
    """histogramdd's (hist, bin_edges), also by name, as PyTorch's
    torch.return_types.histogramdd: bin_edges is a tuple of 1-d tensors."""

    __slots__ = ()


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """A histogram of input's values, as ``torch.histogram`` (and NumPy's): the bins
    are half-open ``[edge_i, edge_i+1)`` but for the last, which includes its right
    edge; values outside and NaN are not counted.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.histogram(bins)``).
    bins : int or Tensor, optional
        The number of equal-width bins (default 100) over range, or the increasing
        1-d bin edges themselves.
    range : (float, float), optional
        The leftmost and rightmost edges for an int bins (default input's smallest and
        largest value, read back to the host: counted copies on a GPU; [0, 1] for an
        empty input); equal ones are widened by 0.5 each way, as NumPy's and PyTorch's.
    weight : Tensor, optional
        Of input's shape: each value counts its weight instead of 1.
    density : bool, optional
        Divide the counts by their total and the bin widths, so that the histogram
        integrates to 1.
    out : tuple of two Tensors, optional
        (hist, bin_edges), written with the result and returned: of input's dtype (as
        PyTorch's) and device, each of the result's shape or with no elements (then
        given it).  Allowed where input requires grad: no gradient.

    Returns
    -------
    histogram_result
        ``(hist, bin_edges)``, also ``.hist`` and ``.bin_edges``: 1-d, in input's dtype
        on its device.  No gradient.

    Raises
    ------
    NotImplementedError
        For an integer input (a RuntimeError, as PyTorch's).
    RuntimeError
        For bins < 1, edges that are not 1-d and increasing, a range whose end is below
        its start or not finite, or a weight of another shape; for outs of another
        dtype, device or shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2., 1., 4.])
    >>> pydevtensor.histogram(x, bins=4, range=(0., 3.))
    histogram_result(hist=tensor([0., 2., 1., 0.]), bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    >>> pydevtensor.histogram(x, pydevtensor.tensor([0., 1., 2., 5.]), density=True).hist
    tensor([0.0000, 0.5000, 0.1667])
    """
    density = _args.flag(density, "histogram", "density")
    if out is not None:
        return _outs_written(histogram(input, bins, range=range, weight=weight,
                                       density=density), out, "histogram", histogram_result)
    x = _tensor_arg(input, "histogram").detach()
    where_ = f"(input {tuple(x.shape)}, on {x.device})"
    if not x.is_floating_point():
        raise NotImplementedError(f"histogram(): expected a floating point input, got "
                                  f"{x.dtype} {where_}")
    edges = _edges(x.reshape(-1), bins, range, "histogram", where_)
    n = edges.shape[0] - 1
    v = x.reshape(-1)
    if weight is not None:
        if not isinstance(weight, _C.Tensor) or tuple(weight.shape) != tuple(x.shape):
            raise RuntimeError(f"histogram(): weight must be a tensor of input's shape "
                               f"{tuple(x.shape)}, got "
                               f"{tuple(weight.shape) if isinstance(weight, _C.Tensor) else weight!r}")
    pos = _bin_in(v, edges)
    slot = where(pos >= 0, pos, n)  # outside and NaN: a spare bin
    counts = _counts(slot, n + 1, weight, x)
    hist = counts[:n]
    if density:
        widths = (edges[1:] - edges[:-1]).to(_C.float64)
        hist = hist / (hist.sum() * widths)
    return histogram_result(hist.to(x.dtype), edges)


def histogramdd(input, bins, range=None, weight=None, density=False):
    """A D-dimensional histogram of the points in input's rows, as ``torch.histogramdd``
    (and NumPy's): each coordinate is binned among its dimension's edges as
    :func:`histogram` bins (half-open bins but the last, which includes its right edge;
    the equal-width edges' ends pinned to the range); a point outside, or with a NaN,
    is not counted.

    Parameters
    ----------
    input : Tensor
        Floating point, at least 2-d: its last dimension (size D) holds each point's
        coordinates, the others are flattened.
    bins : int, sequence of D ints or sequence of D Tensors
        The number of equal-width bins of every dimension, of each, or each
        dimension's increasing 1-d edges.
    range : sequence of 2 D floats, optional
        ``[min_0, max_0, min_1, max_1, ...]``, the outer edges for int bins (default
        each dimension's smallest and largest coordinate, read back to the host:
        counted copies on a GPU; equal ones widened by 0.5 each way).
    weight : Tensor, optional
        Of input's shape without its last dimension: each point counts its weight.
    density : bool, optional
        Divide the counts by their total and the bin volumes, so that the histogram
        integrates to 1.

    Returns
    -------
    histogramdd_result
        ``(hist, bin_edges)``, also by name: hist of shape (bins_0, ..., bins_D-1) in
        input's dtype, bin_edges a tuple of D 1-d tensors; on input's device.  No
        gradient.

    Raises
    ------
    NotImplementedError
        For an integer input (a RuntimeError, as PyTorch's).
    RuntimeError
        For a less than 2-d input, a count of bins or of range entries that does not
        fit D, bins < 1, edges that are not 1-d and increasing, a range
        whose end is below its start or not finite, or a weight of another shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
    >>> h = pydevtensor.histogramdd(x, bins=[3, 3], weight=pydevtensor.tensor([1., 2., 4., 8.]))
    >>> h.hist
    tensor([[0., 1., 0.],
            [2., 0., 0.],
            [4., 0., 8.]])
    >>> h.bin_edges[0]
    tensor([0.0000, 0.6667, 1.3333, 2.0000])
    >>> pydevtensor.histogramdd(x, bins=2, range=[0., 1., 0., 2.], density=True).hist
    tensor([[0., 1.],
            [1., 0.]])
    """
    x = _tensor_arg(input, "histogramdd").detach()
    density = _args.flag(density, "histogramdd", "density")
    where_ = f"(input {tuple(x.shape)}, on {x.device})"
    if not x.is_floating_point():
        raise NotImplementedError(f"histogramdd(): expected a floating point input, got "
                                  f"{x.dtype} {where_}")
    if x.ndim < 2:
        raise RuntimeError(f"histogramdd(): input must have at least 2 dimensions (points "
                           f"along its last) {where_}")
    d = x.shape[-1]
    if isinstance(bins, _C.Tensor):
        raise TypeError(f"histogramdd(): bins must be an int or a sequence of {d} ints or of "
                        f"{d} 1-d Tensors (each dimension's edges), got one Tensor {where_}")
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    if len(per_dim) != d:
        raise RuntimeError(f"histogramdd(): {len(per_dim)} bins for {d}-dimensional points "
                           f"(the size of input's last dimension) {where_}")
    if range is not None:
        range = [float(e) for e in range]
        if len(range) != 2 * d:
            raise RuntimeError(f"histogramdd(): for a {d}-dimensional histogram range should "
                               f"have {2 * d} elements, got {len(range)} {where_}")
    if weight is not None and (not isinstance(weight, _C.Tensor)
                               or tuple(weight.shape) != tuple(x.shape[:-1])):
        got = tuple(weight.shape) if isinstance(weight, _C.Tensor) else repr(weight)
        raise RuntimeError(f"histogramdd(): weight must be a tensor of input's shape without "
                           f"its last dimension, {tuple(x.shape[:-1])}, got {got} {where_}")
    points = x.reshape(-1, d)
    edges, slot, inside = [], None, None
    for k, b in enumerate(per_dim):
        v = points[:, k]
        e = _edges(v, b, None if range is None else range[2 * k:2 * k + 2], "histogramdd",
                   where_, f" for dimension {k}")
        pos = _bin_in(v, e)
        n = e.shape[0] - 1
        slot = pos if slot is None else slot * n + pos
        inside = (pos >= 0) if inside is None else inside & (pos >= 0)
        edges.append(e)
    shape = tuple(e.shape[0] - 1 for e in edges)
    size = 1
    for n in shape:
        size *= n
    counts = _counts(where(inside, slot, size), size + 1, weight, x)
    hist = counts[:size].reshape(shape)
    if density:
        volume = _C.ones((), dtype=_C.float64, device=x.device)
        for e in edges:
            widths = (e[1:] - e[:-1]).to(_C.float64)
            volume = volume.unsqueeze(-1) * widths  # the outer product, dimension by dimension
        hist = hist / (hist.sum() * volume)
    return histogramdd_result(hist.to(x.dtype), tuple(edges))


def _spacing(op, y, x, dx, d):
    """The widths between consecutive samples along d: a number, or a tensor that
    broadcasts against y's n - 1 intervals."""
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): give x or dx, not both")
    if x is None:
        if dx is None:
            return 1.0
        return dx if isinstance(dx, (float, _C.Tensor)) else _args.real(dx, op, "dx")
    _tensor_arg(x, op, "x")
    n = y.shape[d]
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{op}(): There must be one `x` value for each sample point "
                               f"(x {tuple(x.shape)}, y {tuple(y.shape)} along dim {d}, on "
                               f"{y.device})")
        w = x[1:] - x[:-1]
        return w.reshape((n - 1,) + (1,) * (y.ndim - 1 - d)) if n else w
    xd = d - y.ndim + x.ndim
    if xd < 0 or x.shape[xd] != n:
        raise RuntimeError(f"{op}(): x {tuple(x.shape)} does not fit y {tuple(y.shape)} "
                           f"along dim {d} (on {y.device})")
    k = x.shape[xd]
    lead = (slice(None),) * xd
    return x[lead + (slice(1, k),)] - x[lead + (slice(0, k - 1),)]


def _areas(op, y, x, dx, dim):
    _tensor_arg(y, op, "y")
    if y.ndim == 0:  # PyTorch's IndexError
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions "
                         f"(y is 0-d, on {y.device})")
    d = _dim(_int_arg(dim, op, "dim"), y.ndim, op, y)
    n = y.shape[d]
    lead = (slice(None),) * d
    w = _spacing(op, y, x, dx, d)
    if not y.is_floating_point():
        y = y.to(_C.empty(0).dtype)
    pairs = y[lead + (slice(1, n),)] + y[lead + (slice(0, builtins.max(n - 1, 0)),)]
    return pairs * w * 0.5, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of y along dim by the trapezoidal rule, with samples at x (or
    dx apart, default 1).

    Parameters
    ----------
    y : Tensor
        The sampled values.
    x : Tensor, optional
        The sample points: 1-d of y's length along dim, or broadcasting with y.
    dx : number, optional
        The constant spacing when x is not given.
    dim : int, optional
        The dimension to integrate along (default -1).

    Returns
    -------
    Tensor
        y's shape without dim; floating.

    Examples
    --------
    >>> pydevtensor.trapezoid(pydevtensor.tensor([1., 2., 3.]), dx=0.5)
    tensor(2.)
    >>> pydevtensor.trapezoid(pydevtensor.tensor([1., 2., 3.]), pydevtensor.tensor([0., 1., 3.]))
    tensor(6.5000)
    """
    area, d = _areas("trapezoid", y, x, dx, dim)
    return area.sum(d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of y along dim by the trapezoidal rule (one value per
    interval: dim shrinks by 1).

    Parameters
    ----------
    y : Tensor
        The sampled values.
    x : Tensor, optional
        The sample points, as trapezoid's.
    dx : number, optional
        The constant spacing when x is not given.
    dim : int, optional
        The dimension (default -1).

    Returns
    -------
    Tensor
        y's shape with one less along dim; floating.

    Examples
    --------
    >>> pydevtensor.cumulative_trapezoid(pydevtensor.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
    """
    area, d = _areas("cumulative_trapezoid", y, x, dx, dim)
    return cumsum(area, d)


trapz = trapezoid  # PyTorch's alias


__all__ = ["cumulative_trapezoid", "histc", "histogram", "histogramdd", "trapezoid", "trapz",
           "unique_consecutive"]

for _n in ("histc", "histogram", "unique_consecutive"):
    setattr(_C.Tensor, _n, globals()[_n])
