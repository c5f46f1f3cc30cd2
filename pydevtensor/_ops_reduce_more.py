"""Order statistics and paired reductions with PyTorch's names: median, nanmedian,
kthvalue, mode, aminmax, cummax, cummin, std_mean, var_mean and msort.

The order statistics pick a position per row of the stable sort along dim (NaN
largest): by selection where the device has the kernel (the CPU; Note [selection in
sort order] in csrc/cpu/cpu_select.c, one call giving the values and indices), else
by sorting; where the input needs a gradient the values are
``gather(input, dim, indices)``, so it goes to the element picked, as PyTorch's.  cummax and cummin are a scan by
doubling (log2(n) elementwise steps) over (value, index) pairs.  Nothing is read
back to the host.
"""
import collections

from . import _C
from ._args import flag
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg, _tensor_arg, gather, where
from ._ops_reduce import return_types
from ._ops_sort import sort
from ._out import _out_written, _outs_written, refuse_grad

for _n, _fields in (("median", ("values", "indices")), ("nanmedian", ("values", "indices")),
                    ("kthvalue", ("values", "indices")), ("mode", ("values", "indices")),
                    ("cummax", ("values", "indices")), ("cummin", ("values", "indices")),
                    ("aminmax", ("min", "max"))):
    _t = collections.namedtuple(_n, _fields)
    _t.__module__ = "pydevtensor.return_types"
    setattr(return_types, _n, _t)


def _rows(op, input, dim):
    """(input as at least 1-d, dim wrapped)."""
    _tensor_arg(input, op)
    d = _dim(_int_arg(dim, op, "dim"), input.ndim, op, input)
    return (input if input.ndim else input.reshape(1)), d


def _pick(x, d, idx, keepdim, ndim, kind):
    """The values at idx (shape of x with 1 along d) and idx; a return_types.kind."""
    values = gather(x, d, idx)
    if not keepdim or ndim == 0:
        shape = tuple(x.shape[:d]) + tuple(x.shape[d + 1:]) if ndim else ()
        idx, values = idx.reshape(shape), values.reshape(shape)
    return getattr(return_types, kind)(values, idx)


# the positions _C._select_rows takes (PDT_SELECT_* in csrc/core/pdt_backend.h)
_KTH, _MEDIAN, _NANMEDIAN = 0, 1, 2


def _select(x, d, rule, k):
    """(values, indices) of the element at the position rule says (with k) of each row
    along d in the stable sort's order, of x's shape less d, in one call where the device
    has the kernel (Note [selection in sort order] in csrc/cpu/cpu_select.c), else None.
    No gradient: the caller gathers the values where it needs one.  d is moved to the
    end with the other dims kept in their order (a transpose would swap the last dim into
    d's place: a (2, 3, 4) x along dim 0 gave (4, 3)), detached (nothing to record)."""
    rows = x.detach()
    if d != x.ndim - 1:
        rows = rows.movedim(d, -1)
    return _C._select_rows(rows.contiguous(), rule, k)


def _order_stat(op, input, dim, keepdim, position, rule=None, k=0):
    """(values, indices) of input's rows along dim at the position of each row's stable
    sort that rule and k say (by _select where the device has the kernel), else at the
    one position(n, nans, x, d) gives (an int64 tensor of x's shape with 1 along dim), by
    sorting."""
    keepdim = flag(keepdim, op, "keepdim")
    x, d = _rows(op, input, dim)
    _refuse_empty_dim(op, input, x, d)
    got = _select(x, d, rule, k) if rule is not None else None
    if got is not None:
        values, idx = got
        if not x.requires_grad:
            if keepdim and input.ndim:
                shape = _keep_shape(x, d)
                values, idx = values.reshape(shape), idx.reshape(shape)
            return getattr(return_types, op)(values, idx)
        idx = idx.reshape(_keep_shape(x, d))
    else:
        with _no_grad():
            nans = x.isnan().sum(d, keepdim=True) if x.is_floating_point() else None
            idx = gather(sort(x.detach(), d)[1], d, position(x.shape[d], nans, x, d))
    return _pick(x, d, idx, keepdim, input.ndim, op)


def _refuse_empty_dim(op, input, x, d):
    """PyTorch's IndexError for an order statistic along a dimension of size 0."""
    if x.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size (input "
                         f"{tuple(input.shape)}, on {input.device})")


def _no_grad():
    from .autograd import no_grad
    return no_grad()


def _keep_shape(x, d):
    shape = list(x.shape)
    shape[d] = 1
    return tuple(shape)


@numpy_names
def median(input, dim=None, keepdim=False, *, out=None):
    """The median: the lower of the two middle values for an even count.  Without
    dim, of all elements (a 0-d tensor); with dim, of each row along dim, with its
    index.  A row holding NaN has median NaN (see nanmedian).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.median()``).
    dim : int, optional
        The dimension to reduce.
    keepdim : bool, optional
        Keep dim with size 1.
    out : tuple of two Tensors, optional
        With dim only (as PyTorch's): (values, indices), written with the result and
        returned as the named tuple: values of input's dtype, int64 indices, on input's
        device, each of the result's shape or with no elements (then given it).

    Returns
    -------
    Tensor or pydevtensor.return_types.median
        Without dim, the value; with dim, (values, indices).

    Raises
    ------
    IndexError
        When dim is out of range or the reduced dim is empty.
    TypeError
        For out= without dim.
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad;
        without dim, for an empty integer input (PyTorch's gives NaN cast to its dtype).
    DTypeError
        For a bool input, as PyTorch's.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 4., 2., 3.], [5., 0., 9., 7.]])
    >>> pydevtensor.median(x)
    tensor(3.)
    >>> x.median(1)
    median(values=tensor([2., 5.]), indices=tensor([2, 0]))
    """
    if out is not None:
        return _median_out("median", median, input, dim, keepdim, out)
    return _median("median", input, dim, keepdim, skip_nan=False)


@numpy_names
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """median ignoring NaN: the lower middle of each row's non-NaN values (NaN when
    a row has nothing else).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.nanmedian()``).
    dim : int, optional
        The dimension to reduce.
    keepdim : bool, optional
        Keep dim with size 1.
    out : tuple of two Tensors, optional
        With dim only (as PyTorch's): (values, indices), written with the result and
        returned as the named tuple: values of input's dtype, int64 indices, on input's
        device, each of the result's shape or with no elements (then given it).

    Returns
    -------
    Tensor or pydevtensor.return_types.nanmedian
        As median.

    Raises
    ------
    TypeError
        For out= without dim.
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad;
        without dim, for an empty integer input (PyTorch's gives NaN cast to its dtype).
    DTypeError
        For a bool input, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.nanmedian(pydevtensor.tensor([1., float("nan"), 3., 2.]))
    tensor(2.)
    """
    if out is not None:
        return _median_out("nanmedian", nanmedian, input, dim, keepdim, out)
    return _median("nanmedian", input, dim, keepdim, skip_nan=True)


def _median_out(op, fn, input, dim, keepdim, out):
    if dim is None:  # PyTorch's median of all elements has no out=
        raise TypeError(f"{op}(): out= needs dim (the {op} of all elements takes no out)")
    refuse_grad(op, input, out)
    return _outs_written(fn(input, dim, keepdim), out, op, getattr(return_types, op))


def _median(op, input, dim, keepdim, skip_nan):
    rule = _NANMEDIAN if skip_nan else _MEDIAN

    def position(n, nans, x, d):
        shape = _keep_shape(x, d)
        if nans is None:
            return _C.full(shape, (n - 1) // 2, dtype=_C.int64, device=x.device)
        if skip_nan:
            k = n - nans
            return where(k > 0, (k - 1) // 2, _C.zeros((), dtype=_C.int64, device=x.device))
        return where(nans > 0, n - nans, _C.full((), (n - 1) // 2, dtype=_C.int64,
                                                 device=x.device))

    _tensor_arg(input, op)
    if input.dtype == _C.bool:
        raise _C.DTypeError(f"{op}(): not implemented for bool input (of shape "
                            f"{tuple(input.shape)}, on {input.device}), as PyTorch's")
    if dim is None:
        flat = input.reshape(-1)
        if flat.shape[0] == 0:
            if not input.is_floating_point():  # PyTorch's gives NaN cast to the int dtype
                raise RuntimeError(f"{op}(): an empty {input.dtype} input (shape "
                                   f"{tuple(input.shape)}, on {input.device}) has no median, "
                                   f"and NaN has no integer value")
            return _C.full((), float("nan"), dtype=input.dtype, device=input.device)
        value = _order_stat(op, flat, 0, False, position, rule).values.reshape(())
        if not flat.requires_grad:
            return value
        # the gradient shared evenly by the elements equal to the median, as PyTorch's
        # median() of all elements: v + sum((x - v) over them) / their count is v
        # exactly (each x - v is 0) and its gradient is 1 / count at each of them
        v = value.detach()
        tied = (flat.detach() == v).logical_or(flat.detach().isnan().logical_and(v.isnan()))
        count = tied.sum().clamp(min=1).to(flat.dtype)
        return v + (flat - v).masked_fill(tied.logical_not(), 0.0).sum() / count
    return _order_stat(op, input, dim, keepdim, position, rule)


@numpy_names
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The k-th smallest value of each row along dim (k from 1; NaN counts as the
    largest), and its index.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.kthvalue(k)``).
    k : int
        1 <= k <= input.shape[dim].
    dim : int, optional
        The dimension (default -1).
    keepdim : bool, optional
        Keep dim with size 1.
    out : tuple of two Tensors, optional
        (values, indices), written with the result and returned as the named tuple:
        values of input's dtype, int64 indices, on input's device, each of the result's
        shape or with no elements (then given the result's shape).

    Returns
    -------
    pydevtensor.return_types.kthvalue
        (values, indices).

    Raises
    ------
    IndexError
        When dim has size 0, as PyTorch's.
    RuntimeError
        When k is out of range; for outs of another dtype, device or shape, or out=
        where input requires grad.

    Examples
    --------
    >>> pydevtensor.kthvalue(pydevtensor.tensor([3., 1., 2.]), 2)
    kthvalue(values=tensor(2.), indices=tensor(2))
    """
    if out is not None:
        refuse_grad("kthvalue", input, out)
        return _outs_written(kthvalue(input, k, dim, keepdim), out, "kthvalue",
                             return_types.kthvalue)
    x, d = _rows("kthvalue", input, dim)
    k = _int_arg(k, "kthvalue", "k")
    _refuse_empty_dim("kthvalue", input, x, d)  # PyTorch's IndexError before k's check
    if not 1 <= k <= x.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k = {k} out of range for dimension "
                           f"{d} of size {x.shape[d]} (input {tuple(input.shape)}, on "
                           f"{input.device})")
    return _order_stat("kthvalue", input, dim, keepdim,
                       lambda n, nans, x, d: _C.full(_keep_shape(x, d), k - 1,
                                                     dtype=_C.int64, device=x.device),
                       _KTH, k - 1)


@numpy_names
def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value of each row along dim (the smallest of those tied),
    and the index of its last occurrence.

    NaN never equals NaN: each NaN counts once, on its own, as in PyTorch's count (which
    compares with ``!=``), and sorts above every number, so NaN is the mode only of a
    row of NaNs.  (PyTorch's own answer for a row with NaNs and no repeated number
    depends on the order its unstable sort leaves them in; scipy.stats.mode counts the
    NaNs as one value.)

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.mode()``).
    dim : int, optional
        The dimension (default -1).
    keepdim : bool, optional
        Keep dim with size 1.
    out : tuple of two Tensors, optional
        (values, indices), written with the result and returned as the named tuple:
        values of input's dtype, int64 indices, on input's device, each of the result's
        shape or with no elements (then given it).

    Returns
    -------
    pydevtensor.return_types.mode
        (values, indices).

    Raises
    ------
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.mode(pydevtensor.tensor([[1, 2, 2, 3], [4, 4, 5, 5]]))
    mode(values=tensor([2, 4]), indices=tensor([2, 1]))
    >>> pydevtensor.mode(pydevtensor.tensor([2., float('nan'), float('nan'), 1., 1.]))
    mode(values=tensor(1.), indices=tensor(4))
    """
    if out is not None:
        refuse_grad("mode", input, out)
        return _outs_written(mode(input, dim, keepdim), out, "mode", return_types.mode)

    def position(n, nans, x, d):
        s = sort(x.detach(), d)[0]
        run = _run_lengths(s, d)
        return run.argmax(d, keepdim=True)  # the first (smallest) value's run end

    return _order_stat("mode", input, dim, keepdim, position)


def _run_lengths(s, d):
    """For each position of s (sorted along d): how many equal values end there."""
    n = s.shape[d]
    pos = _C.arange(n, dtype=_C.int64, device=s.device).reshape(
        (n,) + (1,) * (s.ndim - 1 - d))
    new = _C.ones(tuple(s.shape), dtype=_C.bool, device=s.device)
    if n > 1:
        a, b = _part(s, d, 1, n - 1), _part(s, d, 0, n - 1)
        tail = a != b  # NaN != NaN: each NaN a run of its own, as PyTorch's count
        new = _cat_along(_part(new, d, 0, 1), tail, d)
    starts = where(new, pos, _C.zeros((), dtype=_C.int64, device=s.device))
    return pos - cummax(starts, d)[0] + 1


def _part(x, d, start, length):
    """x[start:start + length] along d (a view)."""
    return x[(slice(None),) * d + (slice(start, start + length),)]


def _cat_along(a, b, d):
    from ._ops_join import cat
    return cat([a, b], d)


@numpy_names
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """The minimum and the maximum, of all elements or along dim (NaN propagates).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.aminmax()``).
    dim : int, optional
        The dimension to reduce.
    keepdim : bool, optional
        Keep dim with size 1.
    out : tuple of two Tensors, optional
        (min, max), written with the result and returned as the named tuple: of input's
        dtype and device, each of the result's shape or with no elements (then given
        it).

    Returns
    -------
    pydevtensor.return_types.aminmax
        (min, max).

    Raises
    ------
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.aminmax(pydevtensor.tensor([[1, 5], [-2, 3]]), dim=1)
    aminmax(min=tensor([ 1, -2]), max=tensor([5, 3]))
    """
    keepdim = flag(keepdim, "aminmax", "keepdim")
    if out is not None:
        refuse_grad("aminmax", input, out)
        return _outs_written(aminmax(input, dim=dim, keepdim=keepdim), out, "aminmax",
                             return_types.aminmax)
    _tensor_arg(input, "aminmax")
    if dim is not None:  # one int, as PyTorch's (a tuple reached amin and named min())
        dim = _int_arg(dim, "aminmax", "dim")
    if dim is None:
        if keepdim:
            shape = (1,) * input.ndim
            return return_types.aminmax(input.amin().reshape(shape),
                                        input.amax().reshape(shape))
        return return_types.aminmax(input.amin(), input.amax())
    return return_types.aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def _cumulative_extreme(op, input, dim, larger, out):
    if out is not None:
        refuse_grad(op, input, out)
        return _outs_written(_cumulative_extreme(op, input, dim, larger, None), out, op,
                             getattr(return_types, op))
    x, d = _rows(op, input, dim)
    n = x.shape[d]
    last = x.ndim - 1
    # one pass where the device has the kernel (detached: nothing to record)
    fast = _C._cumextreme_rows(x.detach().transpose(d, last).contiguous(), larger)
    if fast is not None:
        v, i = fast if d == last else (t.transpose(d, last).contiguous() for t in fast)
        values = gather(x, d, i) if x.requires_grad else v  # the gradient to the element
        if input.ndim == 0:
            values, i = values.reshape(()), i.reshape(())
        return getattr(return_types, op)(values, i)
    with _no_grad():
        v = x.detach()
        shape = [1] * x.ndim
        shape[d] = n
        i = _C.arange(n, dtype=_C.int64, device=x.device).reshape(tuple(shape)).expand(
            *x.shape).contiguous()
        floating = x.is_floating_point()
        s = 1
        while s < n:  # Note [cumulative extremes]
            va, ia = _part(v, d, 0, n - s), _part(i, d, 0, n - s)  # the earlier windows
            vb, ib = _part(v, d, s, n - s), _part(i, d, s, n - s)
            later = (vb >= va) if larger else (vb <= va)
            if floating:
                later = (later | vb.isnan()) & ~(va.isnan() & ~vb.isnan())
            v = _cat_along(_part(v, d, 0, s), where(later, vb, va), d)
            i = _cat_along(_part(i, d, 0, s), where(later, ib, ia), d)
            s *= 2
    values = gather(x, d, i)
    if input.ndim == 0:
        values, i = values.reshape(()), i.reshape(())
    return getattr(return_types, op)(values, i)


@numpy_names
def cummax(input, dim, *, out=None):
    """The running maximum along dim, and where it was taken: the latest index on
    ties, and once a NaN appears the values are NaN (as PyTorch's).

    Note [cumulative extremes]: the scan combines (value, index) pairs, preferring
    NaN, then the larger value, then the later index: an associative rule, so a
    scan by doubling (step s: each position combines with the one s before it)
    gives each prefix's choice in log2(n) steps.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.cummax(dim)``).
    dim : int
        The dimension to scan.
    out : tuple of two Tensors, optional
        (values, indices), written with the result and returned as the named tuple:
        values of input's dtype, int64 indices, on input's device, each of the result's
        shape or with no elements (then given the result's shape).

    Returns
    -------
    pydevtensor.return_types.cummax
        (values, indices), input's shape.

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.cummax(pydevtensor.tensor([1., 3., 2., 3.]), 0)
    cummax(values=tensor([1., 3., 3., 3.]), indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative_extreme("cummax", input, dim, True, out)


@numpy_names
def cummin(input, dim, *, out=None):
    """The running minimum along dim, and where it was taken (the latest index on
    ties; NaN propagates), as cummax.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.cummin(dim)``).
    dim : int
        The dimension to scan.
    out : tuple of two Tensors, optional
        (values, indices), as cummax's.

    Returns
    -------
    pydevtensor.return_types.cummin
        (values, indices), input's shape.

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        For outs of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.cummin(pydevtensor.tensor([3, 1, 2, 1]), 0)
    cummin(values=tensor([3, 1, 1, 1]), indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative_extreme("cummin", input, dim, False, out)


def _moments(op, fn, input, dim, unbiased, keepdim, correction):
    from ._ops_stats import _std_of_var, _var
    _tensor_arg(input, op)
    v, half, dims = _var(input, dim, unbiased, keepdim, correction, op)
    if fn == "std":
        v = _std_of_var(v)
    m = input.mean(dims, keepdim=keepdim) if input.ndim else input * 1
    return (v.to(half) if half else v), m


@numpy_names
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std(input, dim, correction=...), mean(input, dim))`` in one call.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions to reduce (all by default).
    unbiased : bool, optional
        The older spelling of correction=1 (True) or 0 (False).
    keepdim : bool, optional
        Keep the reduced dims with size 1.
    correction : int, optional
        The divisor is ``N - correction`` (default 1).

    Returns
    -------
    tuple of Tensor
        (std, mean).

    Examples
    --------
    >>> pydevtensor.std_mean(pydevtensor.tensor([1., 2., 3., 4.]), correction=0)
    (tensor(1.1180), tensor(2.5000))
    """
    return _moments("std_mean", "std", input, dim, unbiased, keepdim, correction)


@numpy_names
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var(input, dim, correction=...), mean(input, dim))`` in one call.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions to reduce (all by default).
    unbiased : bool, optional
        The older spelling of correction=1 (True) or 0 (False).
    keepdim : bool, optional
        Keep the reduced dims with size 1.
    correction : int, optional
        The divisor is ``N - correction`` (default 1).

    Returns
    -------
    tuple of Tensor
        (var, mean).

    Examples
    --------
    >>> pydevtensor.var_mean(pydevtensor.tensor([[1., 2.], [3., 5.]]), 1)
    (tensor([0.5000, 2.0000]), tensor([1.5000, 4.0000]))
    """
    return _moments("var_mean", "var", input, dim, unbiased, keepdim, correction)


def msort(input, *, out=None):
    """input sorted along its first dim: ``sort(input, dim=0).values``.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.msort()``).
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        input's shape and dtype.

    Raises
    ------
    RuntimeError
        For an out of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.msort(pydevtensor.tensor([[3, 1], [1, 2]]))
    tensor([[1, 1],
            [3, 2]])
    """
    if out is not None:
        refuse_grad("msort", input, out)
        return _out_written(msort(input), out, "msort")
    return sort(_tensor_arg(input, "msort"), 0).values


__all__ = ["aminmax", "cummax", "cummin", "kthvalue", "median", "mode", "msort", "nanmedian",
           "std_mean", "var_mean"]

for _n in ("aminmax", "cummax", "cummin", "kthvalue", "median", "mode", "msort", "nanmedian"):
    setattr(_C.Tensor, _n, globals()[_n])
