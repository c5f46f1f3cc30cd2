"""Scattering: index_add, index_reduce, scatter, scatter_add and scatter_reduce (and their ``_``
in-place forms).

Every op here turns its (dim, index) into flat row-major offsets into the
destination (``gather_offsets``, the same checks as gather: an IndexError naming the
index, the dim and its size; on a CUDA device that check reads the index's min and
max back to the host, two counted copies of 8 bytes) and moves the values with the
core's 1-d index_put and index_add kernels (csrc/core/pdt_index.h), so it runs on
every device.  'prod', 'amax' and 'amin' have no kernel of their own: the values are
sorted by their destination and reduced within each run of equal destinations by a
segmented scan of log2(n) elementwise steps (Note [segmented scan]).

Gradients: 'sum' and 'mean' (and scatter, index_add) are composed of recorded ops;
'amax'/'amin' share the gradient evenly among the elements equal to the result, as
PyTorch does; 'prod' gives each factor the product of the others (Note [the
gradient of a scattered product]).
"""
import builtins

from . import _C
from ._args import flag
from ._ops_index import (_dim, _index_tensor, _int_arg, _tensor_arg, _truncated_for,
                         gather_offsets, where)
from ._out import takes_out
from .autograd.derivatives import meta, reduce_grad
from .autograd.dispatch import _wants_grad, derivative, recorded
from .autograd.node import Node, delay_error, edge_of, keep_tensors, kept_tensors

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # scatter_reduce takes both, as PyTorch


def _wide_dtype(dtype):
    """The dtype the index_add kernel adds dtype in (it has int32, int64, float32 and
    float64): the halves in float32, bool and the small integers in int64."""
    if dtype in (_C.float16, _C.bfloat16):
        return _C.float32
    if dtype in (_C.bool, _C.int8, _C.uint8, _C.int16):  # added in int64, cast back (wraps)
        return _C.int64
    return dtype


def _added_at(dst, dim, index, values):
    """A new contiguous tensor: dst with values added along dim at index (no grad)."""
    wide = _wide_dtype(dst.dtype)
    out = dst.to(wide).contiguous() if wide != dst.dtype else dst.contiguous().clone()
    _C._index_add(out, dim, index, values.to(wide).contiguous(), True)  # out is new
    if dst.dtype == _C.bool:
        return out != 0
    return out.to(dst.dtype) if wide != dst.dtype else out


def _same_device(op, *ts):
    dev = ts[0].device
    for t in ts[1:]:
        if t.device != dev:
            raise _C.DeviceError(f"{op}(): Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {dev} and {t.device}")


def _same_dtype(op, x, src, name="source"):
    if src.dtype != x.dtype:
        raise RuntimeError(f"{op}(): self ({x.dtype}) and {name} ({src.dtype}) must have the "
                           f"same dtype (self {tuple(x.shape)}, {name} {tuple(src.shape)}, on "
                           f"{x.device})")


def _in_place(op, self, *args, **kwargs):
    """self.copy_(op(self, ...)): the op reads a copy of self's old value when
    autograd records it (a saved input must not change under the Node); it runs
    without autocast, as PyTorch's in-place ops (c.addmm_(a, b) in c's dtype)."""
    from .amp._state import plain
    src = self.clone() if _wants_grad((self,) + args, kwargs) else self
    self.copy_(plain(op, src, *args, **kwargs))
    return self


def along(op, x, dim, index, source=None, negative_ok=False):
    """(dim wrapped, index as 1-d contiguous int64) for the ops that take slices
    along dim at a vector of positions, after their checks: index a vector on x's
    device; source (when given) of x's dtype and of x's shape but len(index) along
    dim; then every index in range (on a GPU, a counted read of its min and max),
    counting from the end too when negative_ok (index_fill, as PyTorch's)."""
    _tensor_arg(x, op)
    index = _index_tensor(_tensor_arg(index, op, "index"), op)
    d = _dim(_int_arg(dim, op, "dim"), x.ndim, op, x)
    _same_device(op, x, index)
    if index.ndim > 1:  # both PyTorch's kinds: IndexError (index_add), RuntimeError (index_fill)
        raise _C.IndexOutOfRangeError(f"{op}(): Index is supposed to be a vector, got shape "
                                      f"{tuple(index.shape)} (on {x.device})")
    index = index.reshape(-1).contiguous()
    if source is not None:
        _tensor_arg(source, op, "source")
        _same_device(op, x, source)
        _same_dtype(op, x, source)
        want = list(x.shape) or [1]
        want[d] = index.shape[0]
        if (list(source.shape) or [1]) != want:  # PyTorch's RuntimeError, index_copy's IndexError
            raise _C.IndexOutOfRangeError(
                f"{op}(): source must have shape {tuple(want)} (self {tuple(x.shape)} with "
                f"len(index) = {index.shape[0]} along dim {d}), got {tuple(source.shape)} "
                f"(on {x.device})")
    _C._index_check(index, (list(x.shape) or [1])[d], d, op, negative_ok)
    return d, index


_ADDS = (_C.float32, _C.float64, _C.int32, _C.int64)


def _adds_into(self, index, values):
    """Whether self can be added into by the index_add kernel itself, not through a
    new tensor copied back (Note [adding in place]): nothing records a gradient, self
    is contiguous and of a dtype the kernel adds, and neither the index nor the values
    share its memory (they would be read after a write)."""
    return (isinstance(self, _C.Tensor) and isinstance(index, _C.Tensor) and
            isinstance(values, _C.Tensor) and self.dtype in _ADDS and self.is_contiguous() and
            not _wants_grad((self, index, values), None) and
            not _C._spans_overlap(index, self) and not _C._spans_overlap(values, self))


def _index_add_into(self, dim, index, source, *rest, alpha=1, **other):
    """Note [adding in place]: x.index_add_ and x.scatter_add_ out of autograd's sight
    add into x (its version bumped by the kernel's binding), the same additions in the
    same order as the op's new tensor copied back, without the copy and the
    copy back: scatter_add_ of 1e3 float32 9.4 -> 3.4 us; None when it cannot.  The
    index is checked before anything is written, as scatter's writes always are; the
    kernel's own check of it may then run on the device (deferred_ok: on a GPU no
    second read of its min and max)."""
    if rest or other:  # index_add's arguments only, alpha by keyword: its errors
        return None
    if not (isinstance(alpha, (builtins.int, builtins.float)) and alpha == 1 and
            _adds_into(self, index, source)):
        return None
    if index.shape == source.shape and \
            _vector_add_into("index_add", self, dim, index, source) is not None:
        return self
    d, index = along("index_add", self, dim, index, source)
    one = (1,)
    _C._index_add(self if self.ndim else self.reshape(one), d, index,
                  source if source.ndim else source.reshape(one), True)  # checked above
    return self


def _vector_add_into(op, self, dim, index, src):
    """Note [adding in place] for vectors, with the checks a vector needs (none of
    _plan's shapes): the offsets are the index, checked non-negative and in range by
    the core's _index_check; None (left to the general path, and its errors) for
    anything else."""
    if (type(dim) is builtins.int and dim in (0, -1) and self.ndim == 1 and index.ndim == 1 and
            src.ndim == 1 and index.dtype == _C.int64 and index.is_contiguous() and
            src.dtype == self.dtype and index.device == self.device == src.device):
        m = index.shape[0]
        if m <= src.shape[0]:
            _C._index_check(index, self.shape[0], 0, op, False)
            _C._index_add(self, 0, index, src if src.shape[0] == m else src[:m], True)
            return self
    return None


def _scatter_add_into(self, dim, index, src):
    """scatter_add_'s Note [adding in place]; None when it cannot."""
    if not _adds_into(self, index, src):
        return None
    if _vector_add_into("scatter_add", self, dim, index, src) is not None:
        return self
    flat, values = _plan("scatter_add", self, dim, index, src)
    _C._index_add(self.reshape(-1), 0, flat, values.contiguous(), True)  # checked by _plan
    return self


def in_place_method(name, fn, example, into=None):
    """The Tensor method name: ``fn`` in place, ``self.copy_(fn(self, ...))`` (a copy of
    self's old value is what fn reads when autograd records it), or ``into(self, ...)``
    when that gives other than None; example: the docstring's Examples lines."""
    def method(self, *args, **kwargs):
        if into is not None:
            done = into(self, *args, **kwargs)
            if done is not None:
                return done
        return _in_place(fn, self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"""{fn.__name__} in place.

    Parameters
    ----------
    *args, **kwargs
        As {fn.__name__}'s, after input.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
{example}
    """
    return method


@recorded("index_add")
def _index_add(input, d, index, source):
    return _added_at(input, d, index, source)


def index_add_built(input, dim, index, source):
    """index_add(input, dim, index, source) for an index its caller built in range,
    recorded as index_add is (IndexAddBackward0), without along()'s checks: on a GPU
    its bounds check reads the index's min and max back to the host, an implicit
    device-to-host transfer (counted, or refused under the transfer guard) inside an
    op the user asked no copy of (the gradients of padding and interpolate).  The
    caller's contract: input and source of one dtype and device, input not 0-d,
    source of input's shape but len(index) along dim (0 <= dim < input.ndim), and
    index a 1-d int64 tensor on that device whose every value is in
    [0, input.shape[dim]) by construction, never taken from the user: no check
    stands between it and the kernel's writes."""
    return _index_add(input, dim, index.contiguous(), source)


@derivative("index_add")
class IndexAddBackward0(Node):
    def save(self, result, input, d, index, source):
        self.d, self.index = d, keep_tensors(self, index)
        self.metas = (meta(input), meta(source))
        return input, source

    def backward(self, g):
        from ._ops_index import index_select
        ga = reduce_grad(g, self.metas[0]) if self.needs_input_grad[0] else None
        gb = None
        if self.needs_input_grad[1]:
            shape = self.metas[1][0]
            gb = index_select(g if shape else g.reshape(1), self.d,
                              kept_tensors(self, self.index))
            gb = reduce_grad(gb.reshape(shape), self.metas[1])
        return ga, gb


@takes_out("index_add")
def index_add(input, dim, index, source, *, alpha=1):
    """input with ``alpha * source`` added along dim at the positions in index:
    ``out[index[j]] += alpha * source[j]`` for dim 0; a repeated index adds each time.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.index_add(dim, index, source)``).
    dim : int
        The dimension to index.
    index : Tensor
        1-d (or 0-d), int32 or int64, each in ``[0, input.shape[dim])``.
    source : Tensor
        input's dtype and shape, but ``len(index)`` along dim.
    alpha : number, optional
        The factor on source (default 1); for an integer input a float alpha is
        truncated toward zero first, as PyTorch does (2.5 adds twice source).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype.

    Raises
    ------
    IndexError
        When an index or dim is out of range.
    RuntimeError
        When source's shape or dtype does not fit, or a float alpha for an integer
        input is not finite or out of int64's range.

    Examples
    --------
    >>> x = pydevtensor.zeros(3, 2)
    >>> pydevtensor.index_add(x, 0, pydevtensor.tensor([0, 2, 0]), pydevtensor.ones(3, 2))
    tensor([[2., 2.],
            [0., 0.],
            [1., 1.]])
    """
    x = input
    d, index = along("index_add", x, dim, index, source)
    if not x.is_floating_point():
        alpha = _truncated_for(x, alpha, "index_add", "alpha")
    if not (isinstance(alpha, (builtins.int, builtins.float)) and alpha == 1):
        source = source * alpha
    flat_x = x if x.ndim else x.reshape(1)
    out = _index_add(flat_x, d, index, source if source.ndim else source.reshape(1))
    return out if x.ndim else out.reshape(())


_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def _reduce_arg(reduce, op):
    """reduce, a str; another type is PyTorch's TypeError (None and 1 were RuntimeErrors)."""
    if not isinstance(reduce, str):
        raise TypeError(f"{op}(): argument 'reduce' must be str, not {type(reduce).__name__}")
    return reduce


@takes_out("index_reduce")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with the slices of source reduced into it along dim at the positions in
    index: for dim 0, ``out[index[j]]`` is the reduction ('prod', 'mean', 'amax' or
    'amin') of the rows ``source[j]`` sent to it, and of input's own row when
    include_self.  Rows no index names keep input's values.

    It is scatter_reduce with index broadcast along the other dims: 'mean' divides by
    the number of values taken (integers: rounded down, as PyTorch's); 'amax' and
    'amin' propagate NaN.

    Parameters
    ----------
    input : Tensor
        The values (also the methods ``x.index_reduce(...)`` and ``x.index_reduce_(...)``).
    dim : int
        The dimension to index.
    index : Tensor
        1-d (or 0-d), int32 or int64, each in ``[0, input.shape[dim])``.
    source : Tensor
        input's dtype and shape, but ``len(index)`` along dim.
    reduce : {'prod', 'mean', 'amax', 'amin'}
        The reduction.
    include_self : bool, optional
        Whether input's values at the named positions take part (default True).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype, with scatter_reduce's gradients in
        input and source.

    Raises
    ------
    IndexError
        When an index or dim is out of range, or index is not a vector.
    RuntimeError
        For an unknown reduce, or a source whose shape or dtype does not fit.
    TypeError
        When reduce is not a str.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 2.], [3., 4.]])
    >>> s = pydevtensor.tensor([[5., 1.], [2., 6.]])
    >>> x.index_reduce(0, pydevtensor.tensor([1, 1]), s, "amax")
    tensor([[1., 2.],
            [5., 6.]])
    >>> x.index_reduce(0, pydevtensor.tensor([0, 0]), s, "mean", include_self=False)
    tensor([[3.5000, 3.5000],
            [3.0000, 4.0000]])
    """
    op = "index_reduce"
    include_self = flag(include_self, op, "include_self")
    if _reduce_arg(reduce, op) not in _INDEX_REDUCES:
        raise RuntimeError(f"{op}(): Expected reduce to be one of prod, mean, amax or amin but "
                           f"got {reduce!r}")
    d, index = along(op, input, dim, index, source)
    x = input if input.ndim else input.reshape(1)
    src = source if source.ndim else source.reshape(1)
    shape = [1] * x.ndim
    shape[d] = index.shape[0]
    out = scatter_reduce(x, d, index.reshape(shape).expand(*src.shape), src, reduce,
                         include_self=include_self, _op=op)
    return out if input.ndim else out.reshape(())


# ---------------------------------------------------------------- scatter

def _plan(op, x, dim, index, src):
    """(flat offsets into x, src's part of index's shape, flattened): after the
    checks (PyTorch's: index has x's number of dims; index no larger than src in
    every dim, nor than x outside dim; every index in range)."""
    _tensor_arg(x, op)
    index = _tensor_arg(index, op, "index")
    ishape = tuple(index.shape)
    if isinstance(src, _C.Tensor):
        _same_device(op, x, index, src)
        _same_dtype(op, x, src, "src")
        sshape = tuple(src.shape) if src.ndim else (1,)
        if index.numel() and (builtins.max(src.ndim, 1) != builtins.max(x.ndim, 1) or
                              any(i > s for i, s in zip(ishape or (1,), sshape))):
            raise RuntimeError(f"{op}(): Expected index {ishape} to be smaller than src "
                               f"{tuple(src.shape)} in every dimension (self "
                               f"{tuple(x.shape)}, on {x.device})")
    else:
        _same_device(op, x, index)
    flat = gather_offsets(tuple(x.shape), x.device, dim, index, op)
    if isinstance(src, _C.Tensor):
        if not flat.shape[0]:
            part = src.reshape(-1)[:0]
        elif src.ndim == 0:
            part = src.reshape(1)
        else:
            part = src[tuple(slice(0, k) for k in ishape or (1,))]
        values = part.reshape(-1)
    else:
        values = _C.full((flat.shape[0],), src, dtype=x.dtype, device=x.device)
    return flat, values


def _value(op, src, value):
    if src is not None and value is not None:
        raise TypeError(f"{op}(): give src or value, not both")
    v = src if src is not None else value
    if v is None:
        raise TypeError(f"{op}(): missing the argument src (a Tensor) or value (a number)")
    if not isinstance(v, (_C.Tensor, builtins.int, builtins.float, builtins.bool)):
        raise TypeError(f"{op}(): src must be a Tensor or a number, got {type(v).__name__}")
    return v


@takes_out("scatter")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """input with the values of src (or the number value) written along dim at index:
    ``out[index[i][j]][j] = src[i][j]`` for dim 0, ``out[i][index[i][j]] = src[i][j]``
    for dim 1, and so on (gather's reverse).  Where an index repeats, which of its
    values lands is not specified (as in PyTorch).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.scatter(dim, index, src)``).
    dim : int
        The dimension to index.
    index : Tensor
        int32 or int64, input's number of dims; no larger than src in any dim, nor
        than input outside dim.
    src : Tensor or number
        input's dtype (only its part of index's shape is read); or a number.
    value : number, optional
        The keyword form of a number src.
    reduce : {None, 'add', 'multiply'}, optional
        Add or multiply instead of writing (as ``scatter_reduce`` with 'sum' or
        'prod').

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype.

    Raises
    ------
    IndexError
        When an index or dim is out of range.
    RuntimeError
        When the shapes or dtypes do not fit.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 3)
    >>> x.scatter(1, pydevtensor.tensor([[2], [0]]), pydevtensor.tensor([[5.], [7.]]))
    tensor([[0., 0., 5.],
            [7., 0., 0.]])
    >>> x.scatter(1, pydevtensor.tensor([[1], [1]]), 1.5)
    tensor([[0.0000, 1.5000, 0.0000],
            [0.0000, 1.5000, 0.0000]])
    """
    v = _value("scatter", src, value)
    if not isinstance(v, _C.Tensor) and isinstance(input, _C.Tensor):
        _C._number_fits("scatter", v, input)  # named here, not by the tensor made of it
    if reduce is not None:
        modes = {"add": "sum", "multiply": "prod"}
        if reduce not in modes:
            raise RuntimeError(f"scatter(): reduce argument must be either add or multiply, "
                               f"got {reduce!r}")
        if not isinstance(v, _C.Tensor):
            v = _C.full(tuple(index.shape), v, dtype=input.dtype, device=input.device)
        return scatter_reduce(input, dim, index, v, modes[reduce])
    flat, values = _plan("scatter", input, dim, index, v)
    out = input.reshape(-1).clone()
    out[flat] = values
    return out.reshape(tuple(input.shape))


@takes_out("scatter_add")
def scatter_add(input, dim, index, src):
    """input with src added along dim at index (repeated indices add up):
    ``out[index[i][j]][j] += src[i][j]`` for dim 0, and so on.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.scatter_add(dim, index, src)``).
    dim : int
        The dimension to index.
    index : Tensor
        As scatter's.
    src : Tensor
        input's dtype; only its part of index's shape is read.

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype.

    Raises
    ------
    IndexError
        When an index or dim is out of range.

    Examples
    --------
    >>> x = pydevtensor.zeros(3)
    >>> x.scatter_add(0, pydevtensor.tensor([0, 2, 0]), pydevtensor.tensor([1., 2., 3.]))
    tensor([4., 0., 2.])
    """
    _tensor_arg(src, "scatter_add", "src")
    return scatter_reduce(input, dim, index, src, "sum", _op="scatter_add")


def _touched(flat, n, device):
    """bool (n,): True at the offsets in flat."""
    mask = _C.zeros((n,), dtype=_C.bool, device=device)
    _C._index_put(mask, 0, flat, _C.ones((flat.shape[0],), dtype=_C.bool, device=device),
                  True)
    return mask


@takes_out("scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, _op="scatter_reduce"):
    """input with the values of src reduced into it along dim at index: each element
    of the result is the reduction ('sum', 'prod', 'mean', 'amax' or 'amin') of the
    src values scattered to it, and of input's own value when include_self.
    Elements no index names keep input's value.

    'mean' divides by the number of values taken (integers: rounded down, as
    PyTorch's).  'amax' and 'amin' propagate NaN.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.scatter_reduce(dim, index, src, reduce)``).
    dim : int
        The dimension to index.
    index : Tensor
        As scatter's.
    src : Tensor
        input's dtype; only its part of index's shape is read.
    reduce : {'sum', 'prod', 'mean', 'amax', 'amin'}
        The reduction ('max' and 'min' are taken as 'amax' and 'amin').
    include_self : bool, optional
        Whether input's values at the named positions take part (default True).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype, with gradients as PyTorch's
        ('amax' and 'amin' share theirs evenly among tied values; 'prod' gives each
        factor the product of the others, zeros included).

    Raises
    ------
    IndexError
        When an index or dim is out of range.
    RuntimeError
        For an unknown reduce, or shapes or dtypes that do not fit.
    TypeError
        When reduce is not a str.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2., 3.])
    >>> i = pydevtensor.tensor([0, 0, 2, 2])
    >>> s = pydevtensor.tensor([5., 6., 7., 1.])
    >>> x.scatter_reduce(0, i, s, "amax")
    tensor([6., 2., 7.])
    >>> x.scatter_reduce(0, i, s, "mean", include_self=False)
    tensor([5.5000, 2.0000, 4.0000])
    """
    reduce = _REDUCE_ALIASES.get(_reduce_arg(reduce, _op), reduce)
    if reduce not in _REDUCES:
        raise RuntimeError(f"{_op}(): reduce argument must be one of 'sum', 'prod', 'mean', "
                           f"'amax', 'amin', got {reduce!r}")
    _tensor_arg(src, _op, "src")
    include_self = flag(include_self, _op, "include_self")
    flat, values = _plan(_op, input, dim, index, src)
    shape = tuple(input.shape)
    base = input.reshape(-1)
    n = base.shape[0]
    if reduce in ("sum", "mean"):
        touched = None if include_self else _touched(flat, n, input.device)
        start = base if include_self else where(touched, _C.zeros(
            (), dtype=input.dtype, device=input.device), base)
        total = _index_add(start, 0, flat, values)
        if reduce == "sum":
            return total.reshape(shape)
        ones = _C.ones((flat.shape[0],), dtype=_C.int64, device=input.device)
        count = _added_at(_C.full((n,), 1 if include_self else 0, dtype=_C.int64,
                                  device=input.device), 0, flat, ones)
        count = count.clamp(min=1)
        if input.is_floating_point():
            mean = total / count.to(input.dtype)
        else:
            mean = (total // count).to(input.dtype)
        return mean.reshape(shape)
    return _scatter_extreme(base, flat, values, reduce, include_self).reshape(shape)


def _segment_reduce(flat, values, n, combine):
    """(per destination result (n,), bool touched (n,)) of the values reduced by
    combine within each destination.

    Note [segmented scan]: the values sorted by destination form runs of equal
    destinations; an inclusive scan by doubling (step s: each element combines with
    the one s before it when both are in the same run) leaves each run's reduction at
    its last element, which index_put writes to its destination (the others go to a
    spare slot n that is then dropped)."""
    device = values.device
    from ._ops_sort import argsort
    order = argsort(flat, stable=True)
    from ._ops_join import cat
    f, v = flat[order], values[order]
    m = f.shape[0]
    s = 1
    while s < m:
        same = f[s:] == f[:-s]
        v = cat([v[:s], where(same, combine(v[s:], v[:-s]), v[s:])])
        s *= 2
    last = cat([f[1:] != f[:-1], _C.ones((builtins.min(m, 1),), dtype=_C.bool,
                                         device=device)])
    slots = where(last, f, n).contiguous()
    out = _C.zeros((n + 1,), dtype=values.dtype, device=device)
    _C._index_put(out, 0, slots, v.contiguous(), True)
    return out[:n], _touched(flat, n, device)


def _combine(reduce):
    from ._ops_math import maximum, minimum
    return {"prod": lambda a, b: a * b, "amax": maximum, "amin": minimum}[reduce]


@recorded("scatter_extreme")
def _scatter_extreme(base, flat, values, reduce, include_self):
    combine = _combine(reduce)
    agg, touched = _segment_reduce(flat, values, base.shape[0], combine)
    if include_self:
        agg = combine(base, agg)
    return where(touched, agg.to(base.dtype), base)


@derivative("scatter_extreme")
class ScatterReduceBackward0(Node):
    """amax/amin: each value equal to its destination's result gets an equal share
    of that result's gradient (PyTorch's rule for ties, input's own value counted
    among them); input's elements no index names pass the gradient through.
    prod: Note [the gradient of a scattered product]."""

    def save(self, result, base, flat, values, reduce, include_self):
        # the result (read back with this Node as grad_fn: prod's formula below is
        # differentiable again, Note [higher-order gradients]) and the flat index
        self.save_tensors(base, values, result.detach(), flat, outputs=(2,))
        self.include_self = include_self
        self.metas = (meta(base), meta(values))
        return base, values

    @staticmethod
    def pick(base, flat, values, reduce, include_self):
        return ScatterProdBackward0 if reduce == "prod" else ScatterReduceBackward0

    def backward(self, g):
        from ._ops_index import index_select
        base, values, result, flat = (t.detach() for t in self.saved_tensors)
        n = base.shape[0]
        r_at = index_select(result, 0, flat)
        hit = (values == r_at).to(g.dtype)
        # input's own tied value counts in the share even without include_self (where
        # it then gets nothing): PyTorch's rule, matched
        own = (base == result).to(g.dtype)
        count = _added_at(own, 0, flat, hit)
        share = g / count.clamp(min=1)
        if not self.include_self:
            own = own * (~_touched(flat, n, g.device)).to(g.dtype)
        ga = reduce_grad(share * own, self.metas[0]) if self.needs_input_grad[0] else None
        gb = reduce_grad(index_select(share, 0, flat) * hit, self.metas[1]) \
            if self.needs_input_grad[1] else None
        return ga, gb


class ScatterProdBackward0(ScatterReduceBackward0):
    """scatter_reduce(reduce='prod'): Note [the gradient of a scattered product]."""

    def backward(self, g):
        """Note [the gradient of a scattered product]: each factor's gradient is the
        product of the other factors of its destination, PyTorch's formula in recorded
        ops (so it has a derivative of its own): input's, ``g * P / x`` with P the
        product in which x's zero (if it is one) counts as 1; src's, ``g * result / s``,
        or for a src zero that is its destination's only src zero the product with it
        counted as 1.  No division by zero happens.  A destination with several src
        zeros has the right gradient, 0, but not its derivative: differentiating it
        raises, as PyTorch's."""
        from ._ops_index import index_select
        base, values, result, flat = self.saved_tensors
        n = base.shape[0]
        one = _C.ones((), dtype=values.dtype, device=g.device)
        ga = gb = None
        if self.needs_input_grad[0]:
            if self.include_self:
                masked = where(base == 0, one, base)
                ga = g * _scatter_extreme(masked, flat, values, "prod", True) / masked
            else:
                ga = g * (~_touched(flat, n, g.device)).to(g.dtype)
            ga = reduce_grad(ga, self.metas[0])
        if self.needs_input_grad[1]:
            zero = values == 0
            zeros = index_select(_added_at(_C.zeros((n,), dtype=_C.int64, device=g.device),
                                           0, flat, zero.to(_C.int64)), 0, flat)
            single = zero & (zeros == 1)
            with_one = _scatter_extreme(base, flat, where(single, one, values), "prod",
                                        self.include_self)
            gb = where(single, index_select(g * with_one, 0, flat),
                       index_select(g * result, 0, flat) / where(zero, one, values))
            if _C.is_grad_enabled() and bool((zeros > 1).any()):  # PyTorch reads it too
                edges = (edge_of(g),) + tuple(e for e in self.next_functions
                                              if e[0] is not None)
                gb = delay_error(gb, edges, "scatter_reduce(): Double backward is unsupported "
                                 "for src when more than one zero in src is scattered to "
                                 "the same position (as in PyTorch)")
            gb = reduce_grad(gb, self.metas[1])
        return ga, gb


__all__ = ["index_add", "index_reduce", "scatter", "scatter_add", "scatter_reduce"]

for _n in __all__:
    setattr(_C.Tensor, _n, globals()[_n])
# the in-place forms: methods only, as PyTorch's
_C.Tensor.index_add_ = in_place_method("index_add_", index_add, """\
    >>> x = pydevtensor.zeros(3)
    >>> x.index_add_(0, pydevtensor.tensor([1, 1]), pydevtensor.tensor([1., 2.]), alpha=2)
    tensor([0., 6., 0.])""", _index_add_into)
_C.Tensor.index_reduce_ = in_place_method("index_reduce_", index_reduce, """\
    >>> x = pydevtensor.tensor([2., 3.])
    >>> x.index_reduce_(0, pydevtensor.tensor([0, 0]), pydevtensor.tensor([4., 5.]), "prod")
    tensor([40.,  3.])""")
_C.Tensor.scatter_ = in_place_method("scatter_", scatter, """\
    >>> x = pydevtensor.zeros(4)
    >>> x.scatter_(0, pydevtensor.tensor([3, 1]), 2.)
    tensor([0., 2., 0., 2.])""")
_C.Tensor.scatter_add_ = in_place_method("scatter_add_", scatter_add, """\
    >>> x = pydevtensor.ones(2)
    >>> x.scatter_add_(0, pydevtensor.tensor([1, 1]), pydevtensor.tensor([1., 1.]))
    tensor([1., 3.])""", _scatter_add_into)
_C.Tensor.scatter_reduce_ = in_place_method("scatter_reduce_", scatter_reduce, """\
    >>> x = pydevtensor.tensor([1, 2])
    >>> x.scatter_reduce_(0, pydevtensor.tensor([1, 1]), pydevtensor.tensor([3, 4]), "prod")
    tensor([ 1, 24])""")
