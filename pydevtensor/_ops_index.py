"""Selection and indexing (issue 17): where, masked_fill, index_select, gather and
nonzero, and the argument checks the index ops share (advanced indexing in
``x[...]`` / ``x[...] = v`` is in _ops_getitem.py).

The kernels are the core's where, index_select and index_put (csrc/core/pdt_index.h,
one per backend); the rest is composed here from views, elementwise ops and
cumsum, so it runs on every device.  Indices are checked against the sizes before
any element moves (an IndexError naming the index, the dim and its size); on a
CUDA device that check reads the index's min and max back to the host, a counted
device-to-host copy of 8 bytes each (as PyTorch's nonzero and boolean masks also
wait for the device).
"""
import builtins
import math
import warnings

from . import _C
from ._args import flag
from ._dtype_info import result_type as _elementwise_result_type
from ._out import _out_written, takes_out
from .autograd.dispatch import dispatch, recorded, run_no_grad

# the slots' basic paths (the index ops use them for views that are only basic;
# Note [indexing's fast keys] in csrc/python/tensor_subscript.c)
_basic_getitem = _C._basic_getitem
_basic_setitem = _C._basic_setitem


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def result_type(a, b):
    """The dtype of joining a and b (Tensors or Python numbers), as cat() does: two
    tensors promote_types, whatever their dimensions (where() and the elementwise ops
    rank a 0-d tensor lower: _dtype_info.result_type); a number only lifts the
    category (int -> int64, float -> the default float)."""
    def category(x):
        if isinstance(x, _C.Tensor):
            d = x.dtype
            return (0 if d == _C.bool else 2 if d.is_floating_point else 1), d
        if isinstance(x, builtins.bool):
            return 0, None
        if isinstance(x, builtins.int):
            return 1, None
        if isinstance(x, builtins.float):
            return 2, None
        raise TypeError(f"expected a Tensor or a number, got {type(x).__name__}")

    (ca, da), (cb, db) = category(a), category(b)
    if da is not None and db is not None:
        return _C.promote_types(da, db)
    default = {0: _C.bool, 1: _C.int64, 2: _C.empty(0).dtype}
    if da is None and db is None:
        return default[builtins.max(ca, cb)]
    c, d = (cb, db) if da is None else (ca, da)
    other = ca if da is None else cb
    return default[other] if other > c else d


def _tensor_arg(x, op, name="input"):
    """x, or a TypeError naming op and the argument when x is not a Tensor."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x


def _int_arg(x, op, name):
    """x as an int: Python ints and objects with __index__, among them one-element integer
    tensors, as PyTorch takes them (a GPU tensor's value is read through a counted copy,
    which transfer_guard('disallow') refuses, as int(t) does); bools and other tensors are
    refused."""
    if type(x) is builtins.int:  # the common case, first
        return x
    if isinstance(x, _C.Tensor):
        if x.numel() != 1 or x.dtype.is_floating_point or x.dtype == _C.bool:
            raise TypeError(f"{op}(): argument '{name}' must be int, got a Tensor of shape "
                            f"{tuple(x.shape)} and dtype {x.dtype} on {x.device} (a "
                            f"one-element integer tensor is taken as its value)")
        return x.__index__()
    if isinstance(x, builtins.bool) or not (isinstance(x, builtins.int) or hasattr(x, "__index__")):
        raise TypeError(f"{op}(): argument '{name}' must be int, got {type(x).__name__}")
    try:
        return x.__index__()
    except TypeError:  # an array of more than one element
        raise TypeError(f"{op}(): argument '{name}' must be int, got {type(x).__name__}") \
            from None


def _scalar_overload(op, name, value, alias, alias_value):
    """The argument that PyTorch's Scalar overload of op names alias (isin's element and
    test_element, searchsorted's self) or its Tensor one name: alias_value, a number or
    a 0-d tensor, when given by that name, else value (which must then be given)."""
    if alias_value is None:
        if value is None:
            raise TypeError(f"{op}() missing required argument '{name}' (or '{alias}')")
        return value
    if value is not None:
        raise TypeError(f"{op}(): '{name}' and '{alias}' are two names of one argument; "
                        f"give one of them")
    is_tensor = isinstance(alias_value, _C.Tensor)
    if (is_tensor and alias_value.ndim) or not (is_tensor or isinstance(
            alias_value, (builtins.int, builtins.float, builtins.complex))):
        shape = f" of shape {tuple(alias_value.shape)}" if is_tensor else ""
        raise TypeError(f"{op}(): argument '{alias}' must be a number (or a 0-d tensor), got "
                        f"{type(alias_value).__name__}{shape}; a tensor goes as '{name}'")
    return alias_value


def _truncated_for(x, value, op, what):
    """A float value meant for integer tensor x, truncated toward zero (PyTorch's cast
    of a scalar to the tensor's type); one that no int64 holds is a RuntimeError
    naming op, what and x.  Anything but a float is returned as it is."""
    if not isinstance(value, builtins.float):
        return value
    if not (math.isfinite(value) and -2.0**63 <= value < 2.0**63):
        raise RuntimeError(f"{op}(): {what} {value!r} cannot be converted to {x.dtype} "
                           f"without overflow (input {tuple(x.shape)}, on {x.device})")
    return math.trunc(value)


def _broadcast_pair(a, b, error):
    """The shape that the shapes a and b (tuples) broadcast to; when they do not, the
    exception error(a, b) makes of them, padded with leading 1s to one length."""
    if a == b:
        return a
    n = builtins.max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise error(a, b)
    return tuple([y if x == 1 else x for x, y in zip(a, b)])


def _broadcast_shape(*shapes):
    nd = builtins.max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        size = 1
        for s in shapes:
            k = i - (nd - len(s))
            if k < 0 or s[k] == 1:
                continue
            if size not in (1, s[k]):
                names = [str(tuple(x)) for x in shapes]
                raise ValueError(
                    f"shapes {', '.join(names[:-1])} and {names[-1]} cannot be broadcast "
                    f"together (size {size} against {s[k]} in dim {i})")
            size = s[k]
        out.append(size)
    return tuple(out)


def _as_tensor(x, dtype, device):
    """x (a Tensor or a number) as a Tensor of dtype on device (a Tensor on another
    device is refused by the op that uses it, naming both devices)."""
    if isinstance(x, _C.Tensor):
        return x if x.dtype == dtype else x.to(dtype)
    return _C.full((), x, dtype=dtype, device=device)


@takes_out("where")
def where(condition, input=None, other=None):
    """input where condition is True, else other, broadcast together; either may be a
    number.  ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    Parameters
    ----------
    condition : Tensor
        bool (a uint8 condition, nonzero as True, is deprecated: a UserWarning, as in
        PyTorch).
    input, other : Tensor or number, optional
        The values to choose from, on condition's device.

    Returns
    -------
    Tensor or tuple of Tensor
        A new tensor of the broadcast shape; with condition alone, its indices.

    Raises
    ------
    ValueError
        When the shapes do not broadcast.
    TypeError
        When condition is not bool.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., -2., 3.])
    >>> pydevtensor.where(x > 0, x, 0.)
    tensor([1., 0., 3.])
    >>> pydevtensor.where(x > 0)
    (tensor([0, 2]),)
    """
    out = _C._where_fast(condition, input, other, False)  # the common call, in C
    if out is not None:
        return out
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, _C.Tensor) and condition.dtype == _C.uint8:
        # PyTorch still takes a uint8 condition (nonzero is True), with a deprecation
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=2)
        condition = condition != 0
    return _where(condition, input, other)


@recorded("where")
def _where(condition, input, other):
    """where() of two operands outside _C._where_fast's cases: with autograd, two
    dtypes, numbers that lift the dtype, and the argument errors (the C call
    itself reports shapes that do not broadcast, devices that differ and a number
    too large)."""
    if not isinstance(condition, _C.Tensor):
        raise TypeError(f"where(): condition must be a Tensor, got {type(condition).__name__}")
    if condition.dtype != _C.bool:
        raise _C.DTypeError(f"where(): condition must be a bool tensor, got {condition.dtype} "
                            f"(on {condition.device})")
    device = condition.device
    for t in (input, other):
        if isinstance(t, _C.Tensor):
            device = t.device
            break
    # the elementwise ops' rule, where a 0-d tensor ranks below one with dimensions
    # (where(x > 0, x, tensor(0.)) keeps float16 x's dtype, as x + tensor(0.) does)
    for x, name in ((input, "input"), (other, "other")):
        if not isinstance(x, (_C.Tensor, builtins.bool, builtins.int, builtins.float)):
            raise TypeError(f"where(): argument '{name}' must be a Tensor or a number, got "
                            f"{type(x).__name__}")
    dtype = _elementwise_result_type(input, other)
    tensors = isinstance(input, _C.Tensor) or isinstance(other, _C.Tensor)
    # one dtype now: the C call takes it (and gives the result its operands' memory
    # order) with grad mode off, as it is anyway when recorded or in a backward; a
    # Python number stays one, an operand the C call makes (past the dtype's range: inf,
    # as PyTorch's where(h > 1, h, 1e5) of float16)
    a, b = (x if tensors and type(x) in (builtins.bool, builtins.int, builtins.float)
            else _as_tensor(x, dtype, device) for x in (input, other))
    return run_no_grad(_C._where_fast, condition, a, b, False)


def _value_fits(input, value, op):
    """Refuses a 0-d CPU tensor value that input's dtype cannot hold (1e40 into float32),
    as the number itself is refused: PyTorch reads such a value by item() and checks it.
    A value of input's dtype, a complex one, or one on another device passes unread.
    Returns the value to fill with: a 0-d CPU tensor beside a tensor on another device
    (a GPU's) becomes its number, which needs no transfer."""
    if (isinstance(value, _C.Tensor) and isinstance(input, _C.Tensor) and value.ndim == 0
            and value.dtype != input.dtype and value.device.type == "cpu"
            and not value.dtype.is_complex):
        number = value.item()
        try:
            _C.full((), number, dtype=input.dtype)
        except _C.InvalidArgumentError:
            raise _C.InvalidArgumentError(
                f"{op}: the value {number:g} (a 0-d {_name(value.dtype)} tensor) cannot be "
                f"converted to {_name(input.dtype)} without overflow (into a tensor of shape "
                f"{tuple(input.shape)} on {input.device})") from None
    if (isinstance(value, _C.Tensor) and isinstance(input, _C.Tensor) and value.ndim == 0
            and value.device.type == "cpu" and value.device != input.device
            and not value.requires_grad):
        return value.item()  # a CPU scalar beside a GPU tensor is its number, as PyTorch's
    return value


def masked_fill(input, mask, value):
    """input with the elements where mask is True replaced by value.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.masked_fill(mask, value)``).
    mask : Tensor
        bool, broadcast with input (a wider mask widens the result, as PyTorch's).
    value : number or 0-d Tensor
        The new value.

    Returns
    -------
    Tensor
        A new tensor of input's dtype and the broadcast shape.

    Raises
    ------
    TypeError
        When mask is not bool.
    RuntimeError
        When the shapes do not broadcast.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., -2., 3.])
    >>> x.masked_fill(x < 0, 0.)
    tensor([1., 0., 3.])
    """
    value = _value_fits(input, value, "masked_fill")
    out = _C._where_fast(mask, value, input, True)  # the common call, in C
    if out is not None:
        return out
    _tensor_arg(input, "masked_fill")
    _tensor_arg(mask, "masked_fill", "mask")
    if isinstance(value, _C.Tensor) and value.ndim != 0:
        raise RuntimeError(f"masked_fill only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s)")
    ms, xs = tuple(mask.shape), tuple(input.shape)
    try:  # the result has the broadcast shape: a wider mask widens it, as PyTorch's
        _broadcast_shape(ms, xs)
    except ValueError:  # checked first: where() would name itself
        raise RuntimeError(f"masked_fill: the mask of shape {ms} does not broadcast with "
                           f"the input's shape {xs} (on {input.device})") from None
    if mask.device != input.device:  # checked first: where() would blame its 'out'
        raise _C.DeviceError(f"masked_fill(): the mask is on {mask.device}, the input on "
                             f"{input.device} (shapes {ms} and {xs}); move one with .to(), "
                             f"no copy is made for you")
    if _C.is_grad_enabled() and (input.requires_grad or getattr(value, "requires_grad", False)):
        return _masked_fill_node(input, mask, value)  # MaskedFillBackward0/1, as PyTorch's
    return where(mask, _as_tensor(value, input.dtype, input.device), input)


@recorded("masked_fill")
def _masked_fill_node(input, mask, value):
    """masked_fill recorded as one op (autograd/derivatives_index.py: MaskedFillBackward0
    for a number, MaskedFillBackward1 for a 0-d tensor value, as PyTorch's); checked."""
    return where(mask, _as_tensor(value, input.dtype, input.device), input)


def masked_fill_(input, mask, value):
    """masked_fill in place.

    Parameters
    ----------
    input : Tensor
        The tensor to change (also the method ``x.masked_fill_(mask, value)``).
    mask : Tensor
        bool, broadcast to input's shape.
    value : number or 0-d Tensor
        The new value.

    Returns
    -------
    Tensor
        input.

    Raises
    ------
    TypeError
        When mask is not bool.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., -2., 3.])
    >>> x.masked_fill_(x < 0, 0.)
    tensor([1., 0., 3.])
    """
    value = _value_fits(input, value, "masked_fill_")
    if isinstance(input, _C.Tensor) and _C._masked_fill_(input, mask, value):
        return input  # one where into input itself, in C (Note [mask writes in C])
    if (isinstance(input, _C.Tensor) and _C.is_grad_enabled() and isinstance(mask, _C.Tensor)
            and (input.requires_grad or getattr(value, "requires_grad", False))):
        _check_in_place_mask(input, mask)
        # recorded as masked_fill on input's old value, written back: MaskedFillBackward0/1
        return dispatch("masked_fill_", True, (input, mask, value), None)
    filled = masked_fill(input, mask, value)
    if tuple(filled.shape) != tuple(input.shape):
        raise RuntimeError(f"masked_fill_: the mask of shape {tuple(mask.shape)} would widen "
                           f"the input's shape {tuple(input.shape)} to "
                           f"{tuple(filled.shape)} in place (on {input.device})")
    input.copy_(filled)
    return input


def _check_in_place_mask(input, mask):
    """masked_fill_'s refusal of a mask that would widen input (or does not broadcast)."""
    try:
        widened = _broadcast_shape(tuple(mask.shape), tuple(input.shape)) != tuple(input.shape)
    except ValueError:
        widened = True
    if widened:
        raise RuntimeError(f"masked_fill_: the mask of shape {tuple(mask.shape)} does not "
                           f"broadcast to the input's shape {tuple(input.shape)} in place (on "
                           f"{input.device})")


def _dim(dim, ndim, op, of=None):
    """dim in [0, ndim) (ndim 0 takes -1 and 0), for op's errors; an int, or an object
    with __index__ (a bool, a float or a str raises TypeError, as PyTorch's).  of: the
    tensor whose dim it is (or its (shape, device)), whose shape and device the error
    names."""
    if type(dim) is not builtins.int:
        dim = _int_arg(dim, op, "dim")
    n = ndim if ndim > 1 else 1
    if not -n <= dim < n:
        where = ""
        if of is not None:
            shape, device = (of.shape, of.device) if isinstance(of, _C.Tensor) else of
            where = f" (a tensor of shape {tuple(shape)} on {device})"
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of "
                         f"[{-n}, {n - 1}], but got {dim}){where}")
    return dim % n


def _index_tensor(index, op):
    if not isinstance(index, _C.Tensor):
        raise TypeError(f"{op}(): index must be a Tensor, got {type(index).__name__}")
    if _name(index.dtype) not in ("int32", "int64"):
        # an IndexError (as before) that is also PyTorch's RuntimeError
        raise _C.IndexOutOfRangeError(f"{op}(): Expected dtype int32/int64 for index, got "
                                      f"{index.dtype}")
    return index if index.dtype == _C.int64 else index.to(_C.int64)


@recorded("index_select")
def index_select(input, dim, index, *, out=None):
    """The entries of input along dim at the positions in index.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.index_select(dim, index)``).
    dim : int
        The dimension to index.
    index : Tensor
        1-D or 0-d, integer.
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        A new tensor, of index's length along dim.

    Raises
    ------
    IndexError
        When an index or dim is out of range.

    Examples
    --------
    >>> a = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.index_select(a, 0, pydevtensor.tensor([1, 0, 1]))
    tensor([[3, 4],
            [1, 2],
            [3, 4]])
    """
    if out is not None:
        return _out_written(index_select(input, dim, index), out, "index_select")
    out = _C._index_select_fast(input, dim, index, False)  # the common call, in C
    if out is not None:
        return out
    _tensor_arg(input, "index_select")
    dim = _int_arg(dim, "index_select", "dim")
    index = _index_tensor(index, "index_select")
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got shape "
                         f"{tuple(index.shape)}")
    src = input if input.ndim else input.reshape(1)
    d = _dim(dim, input.ndim, "index_select", input)
    index = index.reshape(-1).contiguous()
    shape = list(src.shape)
    shape[d] = index.shape[0]
    out = _C.empty(tuple(shape), dtype=input.dtype, device=input.device)
    _C._index_select(out, src, d, index, False, True)  # no negative index, as PyTorch
    return out if input.ndim else out.reshape(())


def _linear_offsets(shape, device):
    """int64 tensor of `shape` holding each element's row-major offset."""
    n = 1
    for s in shape:
        n *= s
    return _C.arange(n, dtype=_C.int64, device=device).reshape(shape)


@recorded("gather")
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Values of input picked along dim: ``out[i][j] = input[index[i][j]][j]`` for dim 0,
    ``input[i][index[i][j]]`` for dim 1, and so on.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.gather(dim, index)``).
    dim : int
        The dimension to index.
    index : Tensor
        int32 or int64, with input's number of dimensions and, outside dim, sizes no
        larger than input's (a 0-d index counts as 1-d).
    sparse_grad : bool, optional
        False (the default): a dense gradient; True (a sparse one) is not supported.
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        A new tensor of index's shape.

    Raises
    ------
    IndexError
        When an index or dim is out of range, or index is not an integer tensor.
    NotImplementedError
        For sparse_grad=True: pydevtensor has no sparse gradients.

    Examples
    --------
    >>> a = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.gather(a, 1, pydevtensor.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    if out is not None:
        return _out_written(gather(input, dim, index, sparse_grad=sparse_grad), out, "gather")
    _tensor_arg(input, "gather")
    if sparse_grad is not False and flag(sparse_grad, "gather", "sparse_grad"):
        raise NotImplementedError(f"gather(): sparse_grad=True asks for a sparse gradient, "
                                  f"which pydevtensor does not have (input "
                                  f"{tuple(input.shape)} on {input.device}); use "
                                  f"sparse_grad=False")
    if (input.ndim == 1 and type(dim) is builtins.int and dim in (0, -1) and
            isinstance(index, _C.Tensor) and index.ndim == 1 and index.dtype == _C.int64 and
            input.device.type == "cpu" and index.device == input.device):
        # a vector's gather is its take: index_select's one call checks the index (none
        # negative) and reads input in place, strided or not (10 elements 3.1 -> ~1 us)
        out = _C.empty(tuple(index.shape), dtype=input.dtype, device=input.device)
        _C._index_select(out, input, 0, index.contiguous(), False, False, "gather")
        return out
    flat = gather_offsets(tuple(input.shape), input.device, dim, index, deferred_ok=True)
    src = input.contiguous().reshape(-1) if input.ndim else input.reshape(1)
    out = _C.empty((flat.shape[0],), dtype=input.dtype, device=input.device)
    _C._index_select(out, src, 0, flat, True, True)
    return out.reshape(tuple(index.shape))


def gather_offsets(in_shape, device, dim, index, op="gather", deferred_ok=False):
    """gather's index as row-major offsets into an input of in_shape on device (1-d
    contiguous int64), after the checks; scatter-adding into those offsets is
    gather's backward.  deferred_ok: only reads into (or adds into) a new tensor follow,
    so on a GPU the range check may run on the device (Note [deferred index checks] in
    csrc/core/pdt_index.h); scatter's writes keep it before the op."""
    dim = _int_arg(dim, op, "dim")
    index = _index_tensor(index, op)
    if index.device != device:
        raise _C.DeviceError(f"{op}(): expected index and input on the same device, got "
                             f"index {tuple(index.shape)} on {index.device}, input on {device}")
    ndim = len(in_shape)
    d = _dim(dim, ndim, op, (in_shape, device))
    if index.numel() == 0:  # nothing read or written: no shape checks (as PyTorch)
        return _C.empty((0,), dtype=_C.int64, device=device)
    if builtins.max(index.ndim, 1) != builtins.max(ndim, 1):  # 0-d counts as 1-d
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions "
                           f"as input tensor (index {tuple(index.shape)}, input "
                           f"{in_shape})")
    ishape = tuple(index.shape) if index.ndim else (1,)
    xshape = in_shape if ndim else (1,)
    for k, (a, b) in enumerate(zip(ishape, xshape)):
        if k != d and a > b:
            raise RuntimeError(f"{op}(): Size does not match at dimension {k} expected index "
                               f"{ishape} to be smaller than self {xshape} apart from "
                               f"dimension {d}")
    index = index.reshape(ishape)
    _C._index_check(index.contiguous(), xshape[d], d, op, False, deferred_ok)  # none negative
    # the flat offset: the other coordinates' offsets plus the index along d (checked
    # non-negative; where the check is deferred, a bad index gives an offset that the
    # read through it checks again, and the op fails at the next synchronisation)
    strides = [1] * len(xshape)
    for k in range(len(xshape) - 2, -1, -1):
        strides[k] = strides[k + 1] * xshape[k + 1]
    flat = index * strides[d] if strides[d] != 1 else index
    for k in range(len(xshape)):
        if k != d and ishape[k] > 1:
            shape = [1] * len(xshape)
            shape[k] = ishape[k]
            flat = flat + _C.arange(ishape[k], dtype=_C.int64,
                                    device=device).reshape(shape) * strides[k]
    return flat.reshape(-1).contiguous()


def nonzero(input, *, out=None, as_tuple=False):
    """The indices of the non-zero elements.  Their count is read back to the host (a
    counted copy on a GPU).

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.nonzero()``).
    out : Tensor, optional
        Written with the (n, ndim) result and returned: int64, on input's device, of
        the result's shape or with no elements (then given the result's shape); not
        with as_tuple=True.
    as_tuple : bool, optional
        One 1-D tensor per dimension instead of one (n, ndim) tensor.

    Returns
    -------
    Tensor or tuple of Tensor
        int64 indices.

    Raises
    ------
    RuntimeError
        For out= with as_tuple=True, or an out of another dtype, device or shape.

    Examples
    --------
    >>> pydevtensor.nonzero(pydevtensor.tensor([[0, 1], [1, 1]]))
    tensor([[0, 1],
            [1, 0],
            [1, 1]])
    >>> pydevtensor.nonzero(pydevtensor.tensor([0, 1, 1]), as_tuple=True)
    (tensor([1, 2]),)
    """
    _tensor_arg(input, "nonzero")
    as_tuple = flag(as_tuple, "nonzero", "as_tuple")
    if out is not None:
        if as_tuple:
            raise RuntimeError(f"nonzero(): out= is not supported with as_tuple=True (input "
                               f"{tuple(input.shape)}, on {input.device})")
        return _out_written(nonzero(input), out, "nonzero")
    mask = input if input.dtype == _C.bool else input != 0
    ndim = input.ndim
    # the backend's kernel where it has one, which counts (the CPU: Note [nonzero on
    # the CPU])
    coords = _C._nonzero(mask) if ndim else None
    if coords is not None:
        if not as_tuple:
            return coords
        return tuple(coords[:, k].contiguous() for k in range(ndim)) if ndim > 1 \
            else (coords.reshape(-1),)
    count = int(_count_of(mask, "nonzero()"))
    flat = mask.reshape(-1)
    positions = _compact(flat, count)
    if as_tuple:
        if ndim == 0:
            return (positions,)
        return tuple(_unravel(positions, tuple(input.shape)))
    if ndim == 0:
        return _C.zeros((count, 0), dtype=_C.int64, device=input.device)
    from ._ops_join import stack
    return stack(_unravel(positions, tuple(input.shape)), dim=1)


def _count_of(flat_mask, op):
    """The number of True in flat_mask, read to the host: an implicit transfer by op."""
    return _C._implicit_cpu(flat_mask.sum(), op).item()


def _compact(flat_mask, count):
    """The positions (int64, ascending) where the 1-d bool flat_mask is True."""
    n = flat_mask.shape[0]
    device = flat_mask.device
    out = _C.empty((count + 1,), dtype=_C.int64, device=device)
    if n == 0:
        return out[:count]
    pos = _C._cumsum(flat_mask) - 1  # the slot of each True element
    slots = where(flat_mask, pos, count)  # False elements all go to the spare slot
    _C._index_put(out, 0, slots.contiguous(), _C.arange(n, dtype=_C.int64, device=device),
                  True)
    return out[:count]


def _unravel(flat, shape):
    coords = []
    for s in reversed(shape):
        coords.append(flat % s if s else flat)
        flat = flat // s if s else flat
    return coords[::-1]


_C.Tensor.masked_fill = masked_fill
_C.Tensor.masked_fill_ = masked_fill_
_C.Tensor.index_select = index_select
_C.Tensor.gather = gather
_C.Tensor.nonzero = nonzero


def _tensor_where(self, condition, other):
    """self where condition is True, else other: ``where(condition, self, other)``.

    Parameters
    ----------
    condition : Tensor
        bool, broadcast with self and other.
    other : Tensor or number
        The values where condition is False.

    Returns
    -------
    Tensor
        A new tensor of the broadcast shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., -2., 3.])
    >>> x.where(x > 0, 0.)
    tensor([1., 0., 3.])
    """
    return where(condition, self, other)


_tensor_where.__name__ = _tensor_where.__qualname__ = "where"
_C.Tensor.where = _tensor_where

__all__ = ["gather", "index_select", "masked_fill", "nonzero", "where"]
