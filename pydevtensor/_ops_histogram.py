"""Counting along a sequence with PyTorch's names: unique_consecutive, histc, histogram,
trapezoid and cumulative_trapezoid.

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
"""
import builtins

from . import _C
from ._ops_counting import _run_lengths, _run_starts
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
    if dim is None:
        rows, d = x.reshape(-1, 1), None
    else:
        d = _dim(_int_arg(dim, "unique_consecutive", "dim"), x.ndim, "unique_consecutive")
        moved = x.permute([d] + [k for k in range(x.ndim) if k != d])
        rows = moved.reshape(moved.shape[0], -1) if moved.numel() else _C.zeros(
            (moved.shape[0], 0), dtype=x.dtype, device=x.device)
    n = rows.shape[0]
    new = _run_starts(rows)
    starts = nonzero(new).reshape(-1)  # reads the number of runs
    out = index_select(rows, 0, starts)
    if d is None:
        out = out.reshape(-1)
    else:
        kept = [starts.shape[0]] + list(moved.shape[1:])
        out = out.reshape(tuple(kept))
        back = builtins.sorted(range(x.ndim), key=([d] + [k for k in range(x.ndim)
                                                          if k != d]).__getitem__)
        out = out.permute(back).contiguous()
    results = [out]
    if return_inverse:
        inverse = cumsum(new, 0) - 1
        results.append(inverse.reshape(tuple(x.shape)) if d is None else inverse)
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
    RuntimeError
        For bins < 1, max < min, a non-finite range, or an integer input; for an out of
        another dtype, device or shape.

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
        raise RuntimeError(f"histc(): expected a floating point input, got {x.dtype} (shape "
                           f"{tuple(x.shape)}, on {x.device})")
    if bins < 1:
        raise RuntimeError(f"histc(): bins must be > 0, got {bins} (input "
                           f"{tuple(x.shape)}, on {x.device})")
    lo, hi = float(min), float(max)
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


def _bin_of(v, lo, hi, bins):
    """Each value's bin as PyTorch's histc finds it (Note [histc's bins]); lo and hi
    are values of v's dtype, v within them where it matters."""
    width = _in(v.dtype, lambda t: t(hi) - t(lo))
    pos = ((v - lo) * bins / width).clamp(0, bins).to(_C.int64)
    return pos.clamp(max=bins - 1)  # v == hi: the last bin


class histogram_result(tuple):
    """histogram's (hist, bin_edges), also by name, as PyTorch's
    torch.return_types.histogram."""

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
        return f"histogram_result(hist={self[0]!r}, bin_edges={self[1]!r})"


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
    RuntimeError
        For an integer input, bins < 1, edges that are not 1-d and increasing, a range
        whose end is below its start or not finite, or a weight of another shape; for
        outs of another dtype, device or shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2., 1., 4.])
    >>> pydevtensor.histogram(x, bins=4, range=(0., 3.))
    histogram_result(hist=tensor([0., 2., 1., 0.]), bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    >>> pydevtensor.histogram(x, pydevtensor.tensor([0., 1., 2., 5.]), density=True).hist
    tensor([0.0000, 0.5000, 0.1667])
    """
    from ._ops_counting import bucketize

    if out is not None:
        return _outs_written(histogram(input, bins, range=range, weight=weight,
                                       density=density), out, "histogram", histogram_result)
    x = _tensor_arg(input, "histogram").detach()
    where_ = f"(input {tuple(x.shape)}, on {x.device})"
    if not x.is_floating_point():
        raise RuntimeError(f"histogram(): expected a floating point input, got {x.dtype} "
                           f"{where_}")
    if isinstance(bins, _C.Tensor):
        if range is not None:
            raise RuntimeError("histogram(): range is for an int bins, not for edges")
        edges = bins.detach().to(x.dtype)
        if edges.ndim != 1 or edges.shape[0] < 2:
            raise RuntimeError(f"histogram(): bins must be 1-d with at least 2 edges, got "
                               f"shape {tuple(edges.shape)} {where_}")
        if edges.device != x.device:
            raise _C.DeviceError(f"histogram(): bins are on {edges.device}, input on {x.device}")
        if bool(((edges[1:] - edges[:-1]) < 0).any()):
            raise RuntimeError(f"histogram(): bin edges must be increasing {where_}")
    else:
        nbins = _int_arg(bins, "histogram", "bins")
        if nbins < 1:
            raise RuntimeError(f"histogram(): bins must be > 0, got {nbins} {where_}")
        if range is not None:
            lo, hi = (float(e) for e in range)
        elif x.numel():
            lo, hi = cat([x.amin().reshape(1), x.amax().reshape(1)]).to(_C.float64).tolist()
        else:  # an empty input: [0, 1], as NumPy's and PyTorch's
            lo, hi = 0.0, 1.0
        if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
            raise RuntimeError(f"histogram(): range of [{lo}, {hi}] is not finite {where_}")
        if hi < lo:
            raise RuntimeError(f"histogram(): max must be larger than min, got min={lo}, "
                               f"max={hi} {where_}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _C.linspace(lo, hi, nbins + 1, dtype=x.dtype, device=x.device)
        # the ends are the range's own, whatever linspace's rounding gave (-6 to 5.4 in
        # 9 float64 steps ends at 5.3999...): the maximum is counted in the last bin
        edges[0], edges[nbins] = lo, hi
    n = edges.shape[0] - 1
    v = x.reshape(-1)
    if weight is not None:
        if not isinstance(weight, _C.Tensor) or tuple(weight.shape) != tuple(x.shape):
            raise RuntimeError(f"histogram(): weight must be a tensor of input's shape "
                               f"{tuple(x.shape)}, got "
                               f"{tuple(weight.shape) if isinstance(weight, _C.Tensor) else weight!r}")
        w = weight.detach().reshape(-1).to(_C.float64)
    else:
        w = _C.ones((v.shape[0],), dtype=_C.float64, device=x.device)
    pos = bucketize(v, edges, right=True) - 1  # edges[pos] <= v < edges[pos + 1]
    last = v == edges[n]  # the last bin includes its right edge
    pos = where(last, n - 1, pos)
    inside = (pos >= 0) & (pos < n) & (v == v)
    slot = where(inside, pos, n).contiguous()  # outside and NaN: a spare bin
    counts = _C.zeros((n + 1,), dtype=_C.float64, device=x.device)
    _C._index_add(counts, 0, slot, w.contiguous())
    hist = counts[:n]
    if density:
        widths = (edges[1:] - edges[:-1]).to(_C.float64)
        hist = hist / (hist.sum() * widths)
    return histogram_result(hist.to(x.dtype), edges)


def _spacing(op, y, x, dx, d):
    """The widths between consecutive samples along d: a number, or a tensor that
    broadcasts against y's n - 1 intervals."""
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): give x or dx, not both")
    if x is None:
        return 1.0 if dx is None else dx
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
    d = _dim(_int_arg(dim, op, "dim"), y.ndim, op)
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


__all__ = ["cumulative_trapezoid", "histc", "histogram", "trapezoid", "trapz", "unique_consecutive"]

for _n in ("histc", "histogram", "unique_consecutive"):
    setattr(_C.Tensor, _n, globals()[_n])
