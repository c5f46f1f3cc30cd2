"""More selection ops with PyTorch's names: index_copy, index_fill, masked_select,
masked_scatter, take, take_along_dim, argwhere and isin (and the ``_`` in-place
methods), composed of advanced indexing, index_select, gather, sort and
searchsorted, so they run on every device and record their gradients.

Index ranges are checked as gather and index_select check them (on a CUDA device,
a counted read of the index's min and max).  masked_select, masked_scatter and
argwhere give or take a number of elements that depends on the data: the mask's
count of True is read back to the host (a counted copy on a GPU), as nonzero does.
"""
import builtins
import numbers

from . import _C
from ._args import flag
from ._ops_index import (_as_tensor, _broadcast_shape, _dim, _index_tensor, _int_arg,
                         _scalar_overload, _tensor_arg, gather, index_select, nonzero,
                         result_type)
from ._out import _out_written, refuse_grad, takes_out
from ._ops_scatter import _in_place, _same_device, _same_dtype, along, in_place_method
from .autograd.dispatch import _wants_grad


def _key(d, index):
    return (slice(None),) * d + (index,)


@takes_out("index_copy")
def index_copy(input, dim, index, source):
    """input with the slices of source copied along dim to the positions in index
    (``out[index[j]] = source[j]`` for dim 0).  Where an index repeats, which slice
    lands is not specified (as in PyTorch).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.index_copy(dim, index, source)``).
    dim : int
        The dimension to index.
    index : Tensor
        1-d (or 0-d), int32 or int64, in ``[0, input.shape[dim])``.
    source : Tensor
        input's dtype and shape, but ``len(index)`` along dim.

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype.

    Raises
    ------
    IndexError
        When an index or dim is out of range.
    RuntimeError
        When source's shape or dtype does not fit.

    Examples
    --------
    >>> x = pydevtensor.zeros(3, 2)
    >>> x.index_copy(0, pydevtensor.tensor([2, 0]), pydevtensor.tensor([[1., 2.], [3., 4.]]))
    tensor([[3., 4.],
            [0., 0.],
            [1., 2.]])
    """
    d, index = along("index_copy", input, dim, index, source)
    want = list(input.shape) or [1]
    want[d] = index.shape[0]
    out = (input if input.ndim else input.reshape(1)).clone()
    out[_key(d, index)] = source.reshape(tuple(want))
    return out.reshape(tuple(input.shape))


def index_fill(input, dim, index, value):
    """input with the slices along dim at the positions in index set to value.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.index_fill(dim, index, value)``).
    dim : int
        The dimension to index.
    index : Tensor
        1-d (or 0-d), int32 or int64, in ``[-input.shape[dim], input.shape[dim])``
        (negative ones count from the end, as in PyTorch).
    value : number or 0-d Tensor
        The new value (a 0-d tensor gets the sum of the gradients it replaced).

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
    >>> x = pydevtensor.ones(2, 3)
    >>> x.index_fill(1, pydevtensor.tensor([0, 2]), -1.)
    tensor([[-1.,  1., -1.],
            [-1.,  1., -1.]])
    """
    d, index = along("index_fill", input, dim, index, negative_ok=True)
    if isinstance(value, _C.Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill(): only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s) (on {input.device})")
        _same_device("index_fill", input, value)
        value = value.to(input.dtype)
    elif not isinstance(value, (builtins.int, builtins.float, builtins.bool)):
        # a TypeError, and PyTorch's RuntimeError for a complex value
        raise _C.DTypeError(f"index_fill(): value must be a number or a 0-d Tensor, got "
                            f"{type(value).__name__}")
    else:
        _C._number_fits("index_fill", value, input)  # named here, not by the 0-d number
    out = (input if input.ndim else input.reshape(1)).clone()
    if isinstance(value, _C.Tensor) and value.requires_grad and index.numel() > 1:
        # each place once: a repeated index (or -1 beside size - 1) would count the
        # gradient of its place twice in value's (PyTorch's counts it once)
        from ._ops_counting import unique  # late: _ops_counting imports this module's
        index = unique(index % out.shape[d])
    out[_key(d, index)] = value
    return out.reshape(tuple(input.shape))


def _broadcast_mask(op, input, mask):
    _tensor_arg(input, op)
    _tensor_arg(mask, op, "mask")
    if mask.dtype != _C.bool:
        raise RuntimeError(f"{op}(): expected a bool mask, got {mask.dtype} (shape "
                           f"{tuple(mask.shape)}, on {mask.device})")
    _same_device(op, input, mask)
    try:
        return _broadcast_shape(tuple(input.shape), tuple(mask.shape))
    except ValueError as e:
        raise RuntimeError(f"{op}(): the mask {tuple(mask.shape)} and input "
                           f"{tuple(input.shape)} do not broadcast: {e} (on {input.device})"
                           ) from None


def masked_select(input, mask, *, out=None):
    """The elements of input where mask is True, as a 1-d tensor (input and mask
    broadcast together).  The number of True elements is read back to the host (a
    counted copy on a GPU), as nonzero does.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.masked_select(mask)``).
    mask : Tensor
        bool, broadcast with input.
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        1-d, input's dtype, in row-major order.

    Raises
    ------
    RuntimeError
        When mask is not bool or the shapes do not broadcast; for an out of another
        dtype, device or shape, or out= where an argument requires grad.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., -2.], [3., -4.]])
    >>> x.masked_select(x > 0)
    tensor([1., 3.])
    """
    if out is not None:
        refuse_grad("masked_select", input, mask, out)
        return _out_written(masked_select(input, mask), out, "masked_select")
    if (type(input) is _C.Tensor and type(mask) is _C.Tensor and mask.dtype == _C.bool
            and input.ndim and input.shape == mask.shape and input.device == mask.device):
        return input[mask]  # one shape, no broadcast: 3 elements 3.0 -> 0.9 us (NumPy 1.0)
    shape = _broadcast_mask("masked_select", input, mask)
    x = input if tuple(input.shape) == shape else input.expand(*shape)
    m = mask if tuple(mask.shape) == shape else mask.expand(*shape)
    if not shape:
        x, m = x.reshape(1), m.reshape(1)
    return x[m]


def masked_scatter(input, mask, source):
    """input with the first elements of source (in row-major order) written where
    mask is True, one after another.  The number of True elements is read back to
    the host (a counted copy on a GPU), as nonzero does.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.masked_scatter(mask, source)``).
    mask : Tensor
        bool, broadcast with input.
    source : Tensor
        input's dtype, with at least as many elements as mask has True.

    Returns
    -------
    Tensor
        A new tensor of input and mask's broadcast shape.

    Raises
    ------
    RuntimeError
        When source is too small, mask is not bool, or the shapes do not broadcast.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 2)
    >>> x.masked_scatter(pydevtensor.tensor([[True, False], [True, True]]),
    ...                  pydevtensor.tensor([1., 2., 3., 4.]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    shape = _broadcast_mask("masked_scatter", input, mask)
    _tensor_arg(source, "masked_scatter", "source")
    _same_device("masked_scatter", input, source)
    _same_dtype("masked_scatter", input, source)
    m = (mask if tuple(mask.shape) == shape else mask.expand(*shape)).reshape(-1)
    # the data-dependent count, read as nonzero reads it: an implicit transfer
    count = int(_C._implicit_cpu(m.sum(), "masked_scatter()").item())
    if source.numel() < count:
        raise RuntimeError(f"masked_scatter(): source has {source.numel()} elements (shape "
                           f"{tuple(source.shape)}) but the mask {tuple(mask.shape)}, "
                           f"broadcast to {shape}, has {count} True (on {input.device})")
    x = input if tuple(input.shape) == shape else input.expand(*shape)
    out = x.reshape(-1).clone()
    out[m] = source.reshape(-1)[:count]
    return out.reshape(shape)


def masked_scatter_(input, mask, source):
    """masked_scatter in place (mask broadcast to input's shape).

    Parameters
    ----------
    input : Tensor
        The tensor to change (also the method ``x.masked_scatter_(mask, source)``).
    mask, source
        As masked_scatter.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> x = pydevtensor.zeros(3)
    >>> x.masked_scatter_(pydevtensor.tensor([False, True, True]), pydevtensor.tensor([7., 8.]))
    tensor([0., 7., 8.])
    """
    shape = _broadcast_mask("masked_scatter_", input, mask)
    if shape != tuple(input.shape):
        raise RuntimeError(f"masked_scatter_(): the mask {tuple(mask.shape)} does not broadcast "
                           f"to the input's shape {tuple(input.shape)} (on {input.device})")
    return _in_place(masked_scatter, input, mask, source)


def take(input, index, *, out=None):
    """The elements of input, seen as 1-d in row-major order, at index (negative
    indices count from the end).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.take(index)``).
    index : Tensor
        int32 or int64, any shape, each in ``[-input.numel(), input.numel())``.
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        index's shape, input's dtype.

    Raises
    ------
    IndexError
        When an index is out of range.
    RuntimeError
        For an out of another dtype, device or shape, or out= where an argument requires
        grad.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.take(x, pydevtensor.tensor([[0, 3], [-1, 1]]))
    tensor([[1, 4],
            [4, 2]])
    """
    if out is not None:
        refuse_grad("take", input, index, out)
        return _out_written(take(input, index), out, "take")
    _tensor_arg(input, "take")
    index = _index_tensor(_tensor_arg(index, "take", "index"), "take")
    _same_device("take", input, index)
    n = input.numel()
    flat = index.reshape(-1).contiguous()
    if not input.requires_grad:  # the kernel checks and counts negatives from the end
        out = _C.empty((flat.shape[0],), dtype=input.dtype, device=input.device)
        _C._index_select(out, input.reshape(-1), 0, flat, True, True, "take")  # out is new
        return out.reshape(tuple(index.shape))
    _C._index_check(flat, n, 0, "take", True, True)
    if n:  # index_select's derivative takes no negative index
        flat = flat % n
    return index_select(input.reshape(-1), 0, flat).reshape(tuple(index.shape))


def take_along_dim(input, indices, dim=None, *, out=None):
    """The values of input picked along dim at indices, which broadcasts with input
    outside dim (gather with broadcasting; argsort's and argmax's results fit).
    With no dim, input and indices are read as 1-d.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.take_along_dim(indices, dim)``).
    indices : Tensor
        int32 or int64, input's number of dims (any shape without dim).  Along a
        dim each is in ``[-input.shape[dim], input.shape[dim])``, negative ones
        counting from the end (as in PyTorch); without dim, in ``[0, input.numel())``
        (PyTorch refuses negative ones there too).
    dim : int, optional
        The dimension to pick along.
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        The broadcast shape, with indices' size along dim; 1-d without dim.

    Raises
    ------
    IndexError
        When an index or dim is out of range.
    RuntimeError
        When the numbers of dims differ or the shapes do not broadcast; for an out of
        another dtype, device or shape, or out= where an argument requires grad.

    Examples
    --------
    >>> x = pydevtensor.tensor([[10., 30., 20.], [60., 40., 50.]])
    >>> pydevtensor.take_along_dim(x, x.argmax(1, keepdim=True), 1)
    tensor([[30.],
            [60.]])
    """
    if out is not None:
        refuse_grad("take_along_dim", input, indices, out)
        return _out_written(take_along_dim(input, indices, dim), out, "take_along_dim")
    _tensor_arg(input, "take_along_dim")
    indices = _index_tensor(_tensor_arg(indices, "take_along_dim", "indices"),
                            "take_along_dim")
    _same_device("take_along_dim", input, indices)
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    dim = _int_arg(dim, "take_along_dim", "dim")
    if input.ndim == 0:  # PyTorch's wraps dim without the scalar allowance
        raise IndexError(f"take_along_dim(): Dimension specified as {dim} but tensor has no "
                         f"dimensions (a 0-d input on {input.device}); leave dim=None to "
                         f"read it as 1-d")
    d = _dim(dim, input.ndim, "take_along_dim", input)
    if indices.ndim != input.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.ndim} dimensions for input "
                           f"{tuple(input.shape)}, and {indices.ndim} dimensions for indices "
                           f"{tuple(indices.shape)} (on {input.device})")
    xs, js = list(input.shape), list(indices.shape)
    xs[d] = js[d] = 1
    try:
        common = list(_broadcast_shape(tuple(xs), tuple(js)))
    except ValueError as e:
        raise RuntimeError(f"take_along_dim(): input {tuple(input.shape)} and indices "
                           f"{tuple(indices.shape)} do not broadcast outside dim {d}: {e}"
                           ) from None
    xs, js = list(common), list(common)
    xs[d], js[d] = input.shape[d], indices.shape[d]
    x = input if list(input.shape) == xs else input.expand(*xs)
    i = indices if list(indices.shape) == js else indices.expand(*js)
    n = input.shape[d]
    if indices.numel():  # negative ones count from the end (PyTorch's wrap)
        _C._index_check(indices.reshape(-1).contiguous(), n, d, "take_along_dim", True)
        i = i % n
    return gather(x, d, i.contiguous())


def argwhere(input):
    """The indices of input's non-zero elements, one row each: ``nonzero(input)``.
    Their count is read back to the host (a counted copy on a GPU).

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.argwhere()``).

    Returns
    -------
    Tensor
        int64, shape (count, input.ndim).

    Examples
    --------
    >>> pydevtensor.argwhere(pydevtensor.tensor([[0., 2.], [3., 0.]]))
    tensor([[0, 1],
            [1, 0]])
    """
    return nonzero(_tensor_arg(input, "argwhere"))


@takes_out("nonzero_static", differentiable=False)
def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's (count, ndim) indices in a result of size rows: the first size of them,
    then rows of fill_value where there are fewer.  Unlike PyTorch's (which keeps a CUDA
    tensor's count on the GPU), the count is read back to the host (a counted copy on a
    GPU), as nonzero's.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.nonzero_static(size=...)``).
    size : int
        The number of rows, at least 0 (keyword only).
    fill_value : int, optional
        The padding rows' value (default -1, an index that names no element).

    Returns
    -------
    Tensor
        int64, shape (size, input.ndim), on input's device.

    Raises
    ------
    RuntimeError
        For a negative size.
    TypeError
        For a size or fill_value that is not an int (a bool or a float is refused).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1, 0], [3, 2]])
    >>> pydevtensor.nonzero_static(x, size=4)
    tensor([[ 0,  0],
            [ 1,  0],
            [ 1,  1],
            [-1, -1]])
    >>> x.nonzero_static(size=2)
    tensor([[0, 0],
            [1, 0]])
    >>> out = pydevtensor.empty(0, dtype=pydevtensor.int64)
    >>> pydevtensor.nonzero_static(x, size=3, fill_value=9, out=out) is out
    True
    """
    _tensor_arg(input, "nonzero_static")
    size = _int_arg(size, "nonzero_static", "size")
    fill_value = _int_arg(fill_value, "nonzero_static", "fill_value")
    if size < 0:
        raise RuntimeError(f"nonzero_static(): 'size' must be a non-negative integer, got "
                           f"{size} (input {tuple(input.shape)}, on {input.device})")
    found = nonzero(input)
    if found.shape[0] == size:
        return found
    result = _C.full((size, input.ndim), fill_value, dtype=_C.int64, device=input.device)
    kept = builtins.min(size, found.shape[0])
    result[:kept] = found[:kept]
    return result


def isin(elements=None, test_elements=None, *, assume_unique=False, invert=False,
         element=None, test_element=None, out=None):
    """For each element of elements, whether it occurs in test_elements (NaN matches
    nothing).  test_elements is sorted on the device and searched (searchsorted); no
    data comes back to the host.  A number test_elements is compared exactly, as in
    NumPy: an int its dtype cannot hold (300 for uint8) matches nothing.

    Parameters
    ----------
    elements : Tensor or number
        The values to look up.
    test_elements : Tensor or number
        The values to look for.
    assume_unique : bool, optional
        Accepted for PyTorch's signature (the result is the same either way).
    invert : bool, optional
        Whether an element does *not* occur.
    element, test_element : number, optional
        PyTorch's names of elements and test_elements when they are a number (its
        Scalar overloads): ``isin(x, test_element=2)``.
    out : Tensor, optional
        Written with the result and returned: bool (as PyTorch's), on the result's
        device, of its shape or with no elements (then given it).

    Returns
    -------
    Tensor
        bool, elements' shape.

    Raises
    ------
    TypeError
        When neither argument is a Tensor.
    RuntimeError
        For an out of another dtype, device or shape.

    Examples
    --------
    >>> pydevtensor.isin(pydevtensor.tensor([[1, 2], [3, 4]]), pydevtensor.tensor([2, 3]))
    tensor([[False,  True],
            [ True, False]])
    >>> pydevtensor.isin(pydevtensor.tensor([1, 2, 3]), test_element=2)
    tensor([False,  True, False])
    """
    if element is not None or test_element is not None or elements is None \
            or test_elements is None:
        elements = _scalar_overload("isin", "elements", elements, "element", element)
        test_elements = _scalar_overload("isin", "test_elements", test_elements,
                                         "test_element", test_element)
    flag(assume_unique, "isin", "assume_unique")
    invert = flag(invert, "isin", "invert")
    if out is not None:  # no gradient: grad-requiring arguments are allowed
        return _out_written(isin(elements, test_elements, assume_unique=assume_unique,
                                 invert=invert), out, "isin")
    if not isinstance(elements, _C.Tensor) and not isinstance(test_elements, _C.Tensor):
        raise TypeError(f"isin(): expected a Tensor for elements or test_elements, got "
                        f"{type(elements).__name__} and {type(test_elements).__name__}")
    if isinstance(elements, _C.Tensor) and isinstance(test_elements, numbers.Real):
        # one number: the exact comparison, as NumPy's isin (an int past elements' dtype
        # matches nothing: uint8 with 300, int64 with 2**63, Note [ints beyond 64 bits])
        found = elements.detach() == test_elements
        return ~found if invert else found
    from ._ops_counting import searchsorted
    from ._ops_sort import sort
    device = (elements if isinstance(elements, _C.Tensor) else test_elements).device
    dtype = result_type(elements, test_elements)
    if dtype == _C.bool:
        dtype = _C.int64
    a = _as_tensor(elements, dtype, device).detach()
    b = _as_tensor(test_elements, dtype, device).detach()
    _same_device("isin", a, b)
    if b.numel() == 0:
        return _C.full(tuple(a.shape), builtins.bool(invert), dtype=_C.bool, device=device)
    table = sort(b.reshape(-1))[0]
    found = _C._search_rows(table.reshape(1, -1), a.reshape(1, -1).contiguous(), 2)
    if found is not None:  # one binary search (or table lookup) per element
        found = found.reshape(tuple(a.shape))
    else:
        pos = searchsorted(table, a.contiguous()).clamp(max=table.shape[0] - 1)
        found = index_select(table, 0, pos.reshape(-1)).reshape(tuple(a.shape)) == a
    return ~found if invert else found


def _put_key(op, x, indices, values, accumulate):
    """The key x[key] that index_put's indices name (a None entry: the whole dim) and the
    values, after PyTorch's checks: indices a tuple or list of Tensors (or None) on x's
    device, values a Tensor of x's dtype on x's device; or, as PyTorch's masked_fill path,
    one element of any dtype (cast to x's) written (not accumulated) where one bool mask
    (the other indices None) says."""
    _tensor_arg(x, op, "self")
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' must be a tuple of Tensors, got "
                        f"{type(indices).__name__} (self {tuple(x.shape)}, on {x.device})")
    for i, t in enumerate(indices):
        if t is not None and not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}(): indices[{i}] must be a Tensor or None, got "
                            f"{type(t).__name__} (self {tuple(x.shape)}, on {x.device})")
    if len(indices) > builtins.max(x.ndim, 1):
        raise IndexError(f"{op}(): too many indices for a tensor of {x.ndim} dimensions: got "
                         f"{len(indices)} (self {tuple(x.shape)}, on {x.device})")
    _tensor_arg(values, op, "values")
    _same_device(op, x, values, *(t for t in indices if t is not None))
    given = [t for t in indices if t is not None]
    if (values.dtype != x.dtype and not accumulate and values.numel() == 1
            and len(given) == 1 and given[0].dtype == _C.bool):
        values = values.to(x.dtype)  # a differentiable cast: the gradient in values' dtype
    _same_dtype(op, x, values, "values")
    return tuple(slice(None) if t is None else t for t in indices), values


_ACCUMULATE_IN = {_C.float16: _C.float32, _C.bfloat16: _C.float32, _C.uint8: _C.int32,
                  _C.int8: _C.int32, _C.int16: _C.int32, _C.bool: _C.int32}


def index_put(input, indices, values, accumulate=False):
    """input with ``values`` written at ``input[indices]`` (broadcast to that shape), as
    ``x[indices] = values`` on a copy; a position named more than once gets the last value
    sent there, on every device, as in NumPy.  With ``accumulate=True`` the values are
    added, and such a position gets every value added (``x[indices] += values`` adds only
    one of them).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.index_put(indices, values)``).
    indices : tuple of Tensor or None
        One index per leading dim: int64/int32/uint8 positions (broadcast together) or a
        bool mask; None takes the whole dim.
    values : Tensor
        input's dtype and device, broadcastable to ``input[indices]``'s shape; of any
        dtype (cast to input's) when it has one element, indices is one bool mask (the
        others None) and accumulate is False, as PyTorch's.
    accumulate : bool, optional
        Add instead of write (default False).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype.

    Raises
    ------
    IndexError
        When an index is out of range, or there are more indices than dims.
    TypeError
        When indices is not a tuple of Tensors, or values is not a Tensor.
    RuntimeError
        When values' dtype or a tensor's device differs from input's.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 3)
    >>> i = (pydevtensor.tensor([0, 0, 1]), pydevtensor.tensor([2, 2, 0]))
    >>> pydevtensor.index_put(x, i, pydevtensor.tensor(1.), accumulate=True)
    tensor([[0., 0., 2.],
            [1., 0., 0.]])
    """
    accumulate = flag(accumulate, "index_put", "accumulate")
    key, values = _put_key("index_put", input, indices, values, accumulate)
    if accumulate and _wants_grad((input, values), None) and input.dtype not in _ACCUMULATE_IN:
        # differentiable: index_add of values at the flat positions input[key] names
        pos = _C.arange(input.numel(), device=input.device).reshape(tuple(input.shape))[key]
        flat = input.reshape(-1).index_add(0, pos.reshape(-1),
                                           values.expand(tuple(pos.shape)).reshape(-1))
        return flat.reshape(tuple(input.shape))
    out = input.clone()
    return index_put_(out, indices, values, accumulate)


def index_put_(self, indices, values, accumulate=False):
    """index_put in place: ``self[indices] = values`` (added when accumulate); returns
    self.

    Parameters
    ----------
    indices, values, accumulate
        As index_put's.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.zeros(3)
    >>> x.index_put_((pydevtensor.tensor([0, 0]),), pydevtensor.tensor([1., 2.]), True)
    tensor([3., 0., 0.])
    """
    accumulate = flag(accumulate, "index_put_", "accumulate")
    key, values = _put_key("index_put_", self, indices, values, accumulate)
    wide = _ACCUMULATE_IN.get(self.dtype) if accumulate else None
    if wide is not None:
        # the index_add kernels add float32, float64, int32 and int64: the others add in
        # the wider dtype, cast back once (the small ints wrap, bool adds as or)
        self.copy_(self.to(wide).index_put_(indices, values.to(wide), True))
    elif not accumulate:
        self[key] = values
    elif _wants_grad((self, values), None):
        _in_place(index_put, self, indices, values, True)
    else:
        from ._ops_getitem import _index_put_
        _index_put_(self, key, values, True)
    return self


__all__ = ["argwhere", "index_copy", "index_fill", "index_put", "isin", "masked_scatter", "masked_select",
           "nonzero_static", "take", "take_along_dim"]


for _n in __all__:
    if _n != "isin":
        setattr(_C.Tensor, _n, globals()[_n])
_C.Tensor.masked_scatter_ = masked_scatter_
_C.Tensor.index_put_ = index_put_
_C.Tensor.index_copy_ = in_place_method("index_copy_", index_copy, """\
    >>> x = pydevtensor.zeros(3)
    >>> x.index_copy_(0, pydevtensor.tensor([1]), pydevtensor.tensor([5.]))
    tensor([0., 5., 0.])""")
_C.Tensor.index_fill_ = in_place_method("index_fill_", index_fill, """\
    >>> x = pydevtensor.zeros(3)
    >>> x.index_fill_(0, pydevtensor.tensor([0, 2]), 1.)
    tensor([1., 0., 1.])""")
