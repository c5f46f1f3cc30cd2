"""Renaming and reshaping views, as PyTorch names them: swapaxes, swapdims, movedim,
moveaxis, narrow, unflatten, ravel, ``reversed(x)``, broadcast_to,
broadcast_tensors, broadcast_shapes, atleast_1d/2d/3d and tile.

All are compositions of the core's views (transpose, permute, view, expand, basic
indexing) or of repeat and flip, so each runs on every device and records its
gradient through the pieces it is made of.  The views share storage with their
input exactly where PyTorch's do (writing through one changes the input); tile and
``reversed`` copy, as PyTorch's do.
"""
import builtins

from . import _C, _args
from ._ops_index import _basic_getitem, _dim, _int_arg, _tensor_arg
from ._ops_join import _size_args, expand, flip, repeat
from ._tensor_py import Size


def _where(t):
    """' (a tensor of shape (2, 3) on cuda:0)': the sizes and the device, for messages."""
    return f" (a tensor of shape {tuple(t.shape)} on {t.device})"


_SWAP_DOC = """input with two dimensions swapped: {what} (a view).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.{name}(0, 1)``).
    {a}, {b} : int
        The dimensions to swap (negative counts from the end).

    Returns
    -------
    Tensor
        A view of input (shares its storage).

    Raises
    ------
    IndexError
        When a dimension is out of range.

    Examples
    --------
    >>> pydevtensor.{name}(pydevtensor.zeros(2, 3, 4), 0, 2).shape
    pydevtensor.Size([4, 3, 2])
    """


def swapaxes(input, axis0, axis1):
    _tensor_arg(input, "swapaxes")
    return input.transpose(axis0, axis1)


def swapdims(input, dim0, dim1):
    _tensor_arg(input, "swapdims")
    return input.transpose(dim0, dim1)


swapaxes.__doc__ = _SWAP_DOC.format(what="NumPy's name for transpose", name="swapaxes",
                                    a="axis0", b="axis1")
swapdims.__doc__ = _SWAP_DOC.format(what="another name for transpose", name="swapdims",
                                    a="dim0", b="dim1")


def _dims_arg(dims, input, op, name):
    ndim = input.ndim
    dims = _args.sequence(dims, op, name, single=True)
    out = [_dim(_int_arg(d, op, name), ndim, op, input) for d in dims]
    if len(set(out)) != len(out):
        raise RuntimeError(f"{op}: repeated dim in `{name}` ({list(dims)}){_where(input)}")
    return out


def movedim(input, source, destination):
    """input with the dimensions in source moved to the positions in destination,
    the others keeping their order (a view: a permute).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.movedim(0, -1)``).
    source : int or sequence of ints
        The dimensions to move.
    destination : int or sequence of ints
        Where they go, as many as in source.

    Returns
    -------
    Tensor
        A view of input (shares its storage).

    Raises
    ------
    IndexError
        When a dimension is out of range.
    RuntimeError
        When source and destination differ in length, or one repeats a dimension.

    Examples
    --------
    >>> pydevtensor.movedim(pydevtensor.zeros(2, 3, 4), 0, -1).shape
    pydevtensor.Size([3, 4, 2])
    >>> pydevtensor.zeros(2, 3, 4).movedim((0, 1), (2, 0)).shape
    pydevtensor.Size([3, 4, 2])
    """
    _tensor_arg(input, "movedim")
    nd = input.ndim
    src = _dims_arg(source, input, "movedim", "source")
    dst = _dims_arg(destination, input, "movedim", "destination")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} "
                           f"dims){_where(input)}")
    if nd == 0:
        return input.view(())
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return input.permute(order)


moveaxis = movedim


def narrow(input, dim, start, length):
    """The view of input's elements start to start + length - 1 along dim.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.narrow(dim, start, length)``), at least 1-d.
    dim : int
        The dimension to narrow.
    start : int or 0-d integer Tensor
        The first position (negative counts from the end).
    length : int
        How many positions (>= 0).

    Returns
    -------
    Tensor
        A view of input (shares its storage).

    Raises
    ------
    RuntimeError
        When input is 0-d, length is negative, or the range runs past the end.
    IndexError
        When dim or start is out of range.

    Examples
    --------
    >>> x = pydevtensor.arange(9).reshape(3, 3)
    >>> pydevtensor.narrow(x, 1, 1, 2)
    tensor([[1, 2],
            [4, 5],
            [7, 8]])
    """
    _tensor_arg(input, "narrow")
    if input.ndim == 0:
        raise RuntimeError(f"narrow() cannot be applied to a 0-dim tensor (on {input.device})")
    d = _dim(_int_arg(dim, "narrow", "dim"), input.ndim, "narrow", input)
    if isinstance(start, _C.Tensor):
        if start.ndim != 0 or start.dtype.is_floating_point or start.dtype == _C.bool:
            # a TypeError (as before) that is also PyTorch's RuntimeError
            raise _C.DTypeError(f"narrow(): start must be an int or a 0-d integer tensor, "
                                f"got a {start.dtype.name} tensor of shape "
                                f"{tuple(start.shape)}")
        start = builtins.int(start.item())
    start = _int_arg(start, "narrow", "start")
    length = _int_arg(length, "narrow", "length")
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start}){_where(input)}")
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative, got {length}"
                           f"{_where(input)}")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}) of dim {d}{_where(input)}")
    return _basic_getitem(input, (slice(None),) * d + (slice(start, start + length),))


def unflatten(input, dim, sizes):
    """A view of input with dimension dim split into dimensions of sizes (one of
    them may be -1, inferred): the inverse of flatten.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.unflatten(dim, sizes)``).
    dim : int
        The dimension to split.
    sizes : sequence of ints
        The new sizes, whose product is input.shape[dim].

    Returns
    -------
    Tensor
        A view of input (shares its storage).

    Raises
    ------
    RuntimeError
        When sizes is empty or does not multiply up to the dimension's size.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> pydevtensor.arange(6).unflatten(0, (2, -1))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    _tensor_arg(input, "unflatten")
    dim = _int_arg(dim, "unflatten", "dim")
    d = _dim(dim, input.ndim, "unflatten", input)  # out of range: IndexError
    if input.ndim == 0:  # PyTorch's refuses even 0 and -1 of a 0-d tensor here
        raise RuntimeError(f"unflatten(): Dimension specified as {dim} but tensor has no "
                           f"dimensions{_where(input)}")
    if isinstance(sizes, builtins.int) or not isinstance(sizes, (list, tuple, Size)):
        raise TypeError(f"unflatten(): sizes must be a tuple or list of ints, got "
                        f"{type(sizes).__name__}")
    sizes = [_int_arg(s, "unflatten", "sizes") for s in sizes]
    if not sizes:
        raise RuntimeError(f"unflatten: sizes must be non-empty{_where(input)}")
    size = input.shape[d] if input.ndim else 1
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    inferred = [i for i, s in enumerate(sizes) if s == -1]
    if len(inferred) == 1 and known and size % known == 0:
        sizes[inferred[0]] = size // known
    bad = len(inferred) > 1 or any(s < 0 for s in sizes)
    product = 1
    for s in sizes:
        product *= s
    if bad or product != size:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size "
                           f"of dim {d} ({size}) in the input tensor{_where(input)}")
    shape = tuple(input.shape)
    return input.view(shape[:d] + tuple(sizes) + shape[d + 1:])


def ravel(input):
    """input as one dimension: a view when input is contiguous, else a contiguous copy
    (``input.contiguous().view(-1)``, as PyTorch's: a strided input that reshape could
    view is copied too, so the result is always contiguous).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.ravel()``).

    Returns
    -------
    Tensor
        1-d, of input.numel() elements.

    Examples
    --------
    >>> pydevtensor.ravel(pydevtensor.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    _tensor_arg(input, "ravel")
    return input.contiguous().view(-1)


def _reversed(self):
    """reversed(x): x.flip(0), a copy, as PyTorch's (a 0-d tensor gives itself)."""
    return self if self.ndim == 0 else flip(self, 0)


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to, without making a tensor.

    Parameters
    ----------
    *shapes : int or sequence of ints
        The shapes (an int n stands for the shape (n,)).

    Returns
    -------
    Size
        The broadcast shape.

    Raises
    ------
    RuntimeError
        When two shapes do not broadcast together (it names both and the dim).

    Examples
    --------
    >>> pydevtensor.broadcast_shapes((2, 1), (3,), 1)
    pydevtensor.Size([2, 3])
    """
    norm = []
    for i, s in enumerate(shapes):
        if isinstance(s, builtins.int) or hasattr(s, "__index__") and not isinstance(
                s, (list, tuple, _C.Tensor)):
            s = (s,)
        if not isinstance(s, (list, tuple)):
            raise TypeError(f"broadcast_shapes(): expected ints or sequences of ints, got "
                            f"{type(s).__name__} at position {i}")
        s = tuple(_int_arg(k, "broadcast_shapes", "shape") for k in s)
        if any(k < 0 for k in s):
            raise RuntimeError(f"broadcast_shapes(): negative size in shape {s} at position "
                               f"{i}")
        norm.append(s)
    return Size(_broadcast(norm, lambda i, j, n, out: RuntimeError(
        f"broadcast_shapes(): shape mismatch: shape {norm[i]} at position {i} does not "
        f"broadcast to {tuple(out)} (size {n} against {out[j]} in dim {j})")))


def _broadcast(shapes, error):
    """The list of sizes that the shapes (tuples) broadcast to; error(i, j, n, out), the
    exception raised when size n of shapes[i] does not fit out[j], the size so far of
    dim j (counted from the front of the result)."""
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for i, s in enumerate(shapes):
        for k, n in enumerate(s):
            if n != 1:
                j = nd - len(s) + k
                if out[j] not in (1, n):
                    raise error(i, j, n, out)
                out[j] = n
    return out


def broadcast_to(input, size):
    """A view of input broadcast to size (``input.expand(size)``; -1 keeps a size).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.broadcast_to(size)``).
    size : sequence of ints
        The shape to broadcast to.

    Returns
    -------
    Tensor
        A view of input (stride 0 along the broadcast dimensions).

    Raises
    ------
    RuntimeError
        When input's shape does not broadcast to size.

    Examples
    --------
    >>> pydevtensor.broadcast_to(pydevtensor.tensor([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    _tensor_arg(input, "broadcast_to")
    size = tuple(_int_arg(s, "broadcast_to", "size")
                 for s in _args.sequence(size, "broadcast_to", "size", single=True))
    lead = len(size) - input.ndim
    for i, n in enumerate(input.shape):
        want = size[lead + i] if lead + i >= 0 else None
        if want is not None and n != 1 and want not in (-1, n):
            raise RuntimeError(f"broadcast_to(): The expanded size of the tensor ({want}) must "
                               f"match the existing size ({n}) at non-singleton dimension "
                               f"{lead + i}.  Target sizes: {list(size)}.  Tensor sizes: "
                               f"{list(input.shape)} (on {input.device})")
    return expand(input, size)


def _tensors_arg(tensors, op):
    """The Tensors of *tensors (or of one list or tuple given), or a TypeError naming
    op and the first position that is not one."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}(): expected Tensors, got {type(t).__name__} at position {i}")
    return tensors


def broadcast_tensors(*tensors):
    """The tensors broadcast to one shape, as views (no copy).

    Parameters
    ----------
    *tensors : Tensor
        On one device.

    Returns
    -------
    tuple of Tensor
        Views of the inputs, all of the broadcast shape.

    Raises
    ------
    RuntimeError
        When the shapes do not broadcast together, or the devices differ.

    Examples
    --------
    >>> a, b = pydevtensor.broadcast_tensors(pydevtensor.tensor([[1], [2]]),
    ...                                      pydevtensor.tensor([3, 4, 5]))
    >>> b
    tensor([[3, 4, 5],
            [3, 4, 5]])
    """
    tensors = _tensors_arg(tensors, "broadcast_tensors")
    for i, t in enumerate(tensors):
        if t.device != tensors[0].device:
            raise _C.DeviceError(f"broadcast_tensors(): Expected all tensors to be on the same "
                                 f"device, but found at least two devices, {tensors[0].device} "
                                 f"and {t.device} (tensor 0 and tensor {i})")
    shape = tuple(_broadcast([t.shape for t in tensors], lambda i, j, n, out: RuntimeError(
        f"broadcast_tensors(): The size of tensor a ({out[j]}) must match the size of tensor "
        f"b ({n}) at non-singleton dimension {j} (tensor {i} has shape "
        f"{tuple(tensors[i].shape)}, on {tensors[i].device})")))
    return tuple(expand(t, shape) for t in tensors)


def _atleast(tensors, op, shape_of):
    single = len(tensors) == 1 and not isinstance(tensors[0], (list, tuple))
    out = []
    for t in _tensors_arg(tensors, op):
        shape = shape_of(tuple(t.shape))
        out.append(t if shape is None else t.view(shape))
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    """Each tensor viewed with at least one dimension (a 0-d tensor becomes shape (1,)).

    Parameters
    ----------
    *tensors : Tensor, or one list or tuple of Tensors

    Returns
    -------
    Tensor or tuple of Tensor
        One tensor for one tensor given, else a tuple; views of the inputs.

    Examples
    --------
    >>> pydevtensor.atleast_1d(pydevtensor.tensor(5))
    tensor([5])
    """
    return _atleast(tensors, "atleast_1d", lambda s: (1,) if not s else None)


def atleast_2d(*tensors):
    """Each tensor viewed with at least two dimensions: 0-d as (1, 1), 1-d (n,) as (1, n).

    Parameters
    ----------
    *tensors : Tensor, or one list or tuple of Tensors

    Returns
    -------
    Tensor or tuple of Tensor
        One tensor for one tensor given, else a tuple; views of the inputs.

    Examples
    --------
    >>> pydevtensor.atleast_2d(pydevtensor.tensor([1, 2]))
    tensor([[1, 2]])
    """
    return _atleast(tensors, "atleast_2d", lambda s: (1,) * (2 - len(s)) + s
                    if len(s) < 2 else None)


def atleast_3d(*tensors):
    """Each tensor viewed with at least three dimensions: 0-d as (1, 1, 1), (n,) as
    (1, n, 1), (m, n) as (m, n, 1), as PyTorch and NumPy do.

    Parameters
    ----------
    *tensors : Tensor, or one list or tuple of Tensors

    Returns
    -------
    Tensor or tuple of Tensor
        One tensor for one tensor given, else a tuple; views of the inputs.

    Examples
    --------
    >>> pydevtensor.atleast_3d(pydevtensor.tensor([1, 2])).shape
    pydevtensor.Size([1, 2, 1])
    """
    def shape(s):
        return {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s))
    return _atleast(tensors, "atleast_3d", shape)


def tile(input, *args, dims=None):
    """input repeated dims[i] times along each dimension (a copy); when dims is
    shorter than input's dimensions it is padded with ones in front (NumPy's tile).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.tile(dims)``).
    dims : sequence of ints
        How many times along each dimension (the method also takes them as
        separate ints: ``x.tile(2, 2)``).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        When a count is negative.

    Examples
    --------
    >>> pydevtensor.tile(pydevtensor.tensor([[1, 2]]), (2,))
    tensor([[1, 2, 1, 2]])
    """
    _tensor_arg(input, "tile")
    if args and dims is not None:
        raise TypeError("tile() got multiple values for argument 'dims'")
    if dims is None:
        if not args:
            raise TypeError("tile() missing required argument 'dims'")
        dims = _size_args(args)
    if isinstance(dims, builtins.int):
        dims = (dims,)
    dims = tuple(_int_arg(d, "tile", "dims") for d in dims)
    if any(d < 0 for d in dims):
        raise RuntimeError(f"tile(): Trying to create tensor with negative dimension: dims "
                           f"{dims}{_where(input)}")
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def select(input, dim, index):
    """The view of input at position index along dim, dim removed: ``x.select(1, 2)`` is
    ``x[:, 2]``.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.select(dim, index)``), at least 1-d.
    dim : int
        The dimension (negative counts from the end).
    index : int
        The position along dim (negative counts from the end).

    Returns
    -------
    Tensor
        A view of input with one dimension fewer (shares its storage).

    Raises
    ------
    IndexError
        When input is 0-d, or dim or index is out of range.

    Examples
    --------
    >>> x = pydevtensor.arange(6).reshape(2, 3)
    >>> x.select(1, -1)
    tensor([2, 5])
    """
    _tensor_arg(input, "select")
    if input.ndim == 0:
        raise IndexError(f"select() cannot be applied to a 0-dim tensor (on {input.device})")
    d = _dim(_int_arg(dim, "select", "dim"), input.ndim, "select", input)
    index = _int_arg(index, "select", "index")
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d} (on {input.device})")
    return input[(slice(None),) * d + (index,)]


for _name_, _fn in (("swapaxes", swapaxes), ("swapdims", swapdims), ("movedim", movedim),
                    ("moveaxis", movedim), ("narrow", narrow), ("unflatten", unflatten),
                    ("ravel", ravel), ("__reversed__", _reversed), ("select", select),
                    ("tile", tile)):
    setattr(_C.Tensor, _name_, _fn)


def _broadcast_to_method(self, *sizes, size=None):
    """A view of self broadcast to size (``self.expand(size)``; -1 keeps a size).

    Parameters
    ----------
    *sizes : ints, or one sequence of ints
        The new shape: ``x.broadcast_to(3, 4)`` or ``x.broadcast_to((3, 4))``, as
        PyTorch's method takes them.
    size : sequence of ints, optional
        The new shape by PyTorch's keyword, ``x.broadcast_to(size=(3, 4))``, instead.

    Returns
    -------
    Tensor
        A view sharing self's memory.

    Raises
    ------
    RuntimeError
        When self's shape does not broadcast to size.

    Examples
    --------
    >>> pydevtensor.tensor([[1, 2]]).broadcast_to(2, 2)
    tensor([[1, 2],
            [1, 2]])
    """
    if size is not None:
        if sizes:
            raise TypeError("broadcast_to() got multiple values for argument 'size'")
        return broadcast_to(self, size)
    if not sizes:  # PyTorch's argument parser refuses it before the size check
        raise TypeError('broadcast_to() missing 1 required positional arguments: "size"')
    return broadcast_to(self, _size_args(sizes))


_broadcast_to_method.__name__ = _broadcast_to_method.__qualname__ = "broadcast_to"
_C.Tensor.broadcast_to = _broadcast_to_method

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "broadcast_to", "movedim", "moveaxis", "narrow", "ravel", "select", "swapaxes",
           "swapdims", "tile", "unflatten"]
