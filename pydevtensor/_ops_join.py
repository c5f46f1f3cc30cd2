"""Joining and reshaping by copy (issue 17): cat, stack, expand, repeat, flip, tril
and triu (split, chunk and unbind: _ops_split.py; outer and einsum: _ops_einsum.py).

All are compositions of device-generic pieces - views, ``copy_`` into slices,
``where``, broadcasting and ``matmul`` - so they run on every device without
kernels of their own.  Every tensor argument must be on one device; a tensor on
another is refused with a RuntimeError naming both (nothing is moved behind the
caller's back).
"""
import builtins
import operator

from . import _C
from ._dtype_info import can_cast
from ._numpy_names import numpy_names
from ._runtime_flags import warn_once
from ._ops_index import _basic_getitem, _dim, _int_arg, _tensor_arg, result_type, where
from .autograd.dispatch import recorded


def _same_device(op, tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}(): expected a sequence of Tensors, got "
                            f"{type(t).__name__} at position {i}")
    first = tensors[0].device
    for i, t in enumerate(tensors):
        if t.device != first:
            raise _C.DeviceError(f"{op}(): Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {first} and {t.device} "
                                 f"(tensor 0 and tensor {i})")
    return first


def cat(tensors, dim=0, *, out=None, axis=None):
    """The tensors joined along dim (PyTorch's torch.cat; concat and concatenate are
    aliases).  Sizes must match outside dim; 1-d empty tensors are skipped, as in
    PyTorch; the dtype is the promoted one.

    Parameters
    ----------
    tensors : sequence of Tensor
        On one device; their dtypes promote.
    dim : int, optional
        The dimension to join along (default 0).
    out : Tensor, optional
        Receives the result: a dtype the promoted dtype can be cast to (can_cast).
    axis : int, optional
        NumPy's name for dim, which PyTorch accepts too.

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    ValueError
        When tensors is empty.
    RuntimeError
        When the sizes differ outside dim, or the devices differ.
    TypeError
        When out's dtype cannot hold the result's (a float result in an int64 out).

    Examples
    --------
    >>> a = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.cat([a, pydevtensor.tensor([[5, 6]])])
    tensor([[1, 2],
            [3, 4],
            [5, 6]])
    >>> pydevtensor.cat([a, a], dim=1)
    tensor([[1, 2, 1, 2],
            [3, 4, 3, 4]])
    """
    if axis is not None:  # NumPy's name, which PyTorch accepts too (_numpy_names.py)
        if dim != 0:
            raise TypeError("cat() got multiple values for argument 'dim' (dim= and axis=)")
        dim = axis
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _listed("cat", tensors)  # a generator: the recorder must see its tensors
    if out is None and type(dim) is builtins.int:
        joined = _C._cat_fast(tensors, dim)  # the common case, in C; None: see below
        if joined is not None:
            return joined
    return _cat(tensors, dim, out=out)


def _stack_args(op, tensors, out):
    """tensors (a list or tuple) for hstack and vstack, or a TypeError naming op and
    what is not a Tensor: tensors itself, one of them, or out."""
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _listed(op, tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}(): expected a sequence of Tensors, got "
                            f"{type(t).__name__} at position {i}")
    if out is not None:
        _tensor_arg(out, op, "out")
    return tensors


def _listed(op, tensors):
    """tensors as a list, for an iterable that is not a list or tuple (a generator:
    read once, and the autograd recorder looks only into lists and tuples)."""
    if isinstance(tensors, (_C.Tensor, builtins.str, builtins.bytes)):
        raise TypeError(f"{op}(): argument 'tensors' must be a sequence of Tensors, got "
                        f"{type(tensors).__name__}")
    try:
        return list(tensors)
    except TypeError:
        raise TypeError(f"{op}(): argument 'tensors' must be a sequence of Tensors, got "
                        f"{type(tensors).__name__}") from None


@recorded("cat")
def _cat(tensors, dim=0, *, out=None):
    """cat() outside _C._cat_fast's cases: autograd, out=, dtypes to promote, and
    every error (cat() has made tensors a list or a tuple)."""
    if out is None and type(dim) is builtins.int:
        joined = _C._cat_fast(tensors, dim)  # under the recorder (grad mode off)
        if joined is not None:
            return joined
    tensors = list(tensors)
    if not tensors:
        raise _C.InvalidArgumentError("cat(): expected a non-empty list of Tensors")
    device = _same_device("cat", tensors)
    parts = [t for t in tensors if t.ndim != 1 or t.shape[0] != 0]
    if not parts:  # only 1-d empty tensors: PyTorch skips them all, whatever dim is
        _int_arg(dim, "cat", "dim")
        parts, dim = tensors[:1], 0
    ref = parts[0]
    if ref.ndim == 0:
        raise RuntimeError("cat(): zero-dimensional tensor (at position 0) cannot be "
                           "concatenated")
    d = _dim(dim, ref.ndim, "cat", ref)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = result_type(_C.empty(0, dtype=dtype), t)
    if out is not None and not can_cast(dtype, out.dtype):  # PyTorch's rule: no 1.7 -> 1
        raise TypeError(f"cat(): input types can't be cast to the desired output type "
                        f"{out.dtype} (the inputs promote to {dtype}, on {device})")
    shape = list(ref.shape)
    rest = shape[:d] + shape[d + 1:]
    total = 0
    for t in parts:
        s = list(t.shape)
        if s[:d] + s[d + 1:] != rest or len(s) != len(shape):
            raise _C.InvalidArgumentError(
                f"cat(): Sizes of tensors must match except in dimension {d}. "
                f"Expected {tuple(ref.shape)} but got {tuple(t.shape)} for tensor number "
                f"{[x is t for x in tensors].index(True)} in the list (on {device})")
        total += s[d]
    shape[d] = total
    if out is not None and tuple(out.shape) != tuple(shape):
        if out.numel() != 0 or out._base is not None:
            raise RuntimeError(f"cat(): out has shape {tuple(out.shape)}, expected "
                               f"{tuple(shape)} (on {device})")
        # an empty out takes the result's shape, as PyTorch resizes it (out.data =: the
        # same object, its own version counter)
        out.data = _C.empty(tuple(shape), dtype=out.dtype, device=out.device)
    if out is not None and out.numel() > 1 and builtins.any(
            st == 0 and n > 1 for n, st in zip(out.shape, out.stride())):
        # each part's copy_ sees no overlap of its own slice, but the slices share memory:
        # stack([a, b], out=x.expand(2, ...)) left b in both (as the elementwise ops, refuse)
        raise _C.InvalidArgumentError(
            f"cat(): unsupported operation: more than one element of the written-to tensor "
            f"refers to a single memory location (out of shape {tuple(out.shape)} with "
            f"strides {tuple(out.stride())}, on {out.device}); clone() it first")
    result = _C.empty(tuple(shape), dtype=dtype, device=device) if out is None else out
    if out is not None:  # an input that out's memory meets is read before anything is written
        parts = [t.clone() if _C._spans_overlap(t, out) else t for t in parts]
    at = 0
    lead = (slice(None),) * d
    for t in parts:
        n = t.shape[d]
        if n:
            _basic_getitem(result, lead + (slice(at, at + n),)).copy_(t)
        at += n
    return result


@numpy_names
def stack(tensors, dim=0, *, out=None):
    """The tensors (all one shape) joined along a new dim.

    Parameters
    ----------
    tensors : sequence of Tensor
        Of one shape, on one device.
    dim : int, optional
        Where the new dimension goes (default 0).
    out : Tensor, optional
        Receives the result: a dtype the promoted dtype can be cast to (can_cast).

    Returns
    -------
    Tensor
        A new tensor with one more dimension.

    Raises
    ------
    RuntimeError
        When the shapes or the devices differ.

    Examples
    --------
    >>> pydevtensor.stack([pydevtensor.tensor([1, 2]), pydevtensor.tensor([3, 4])], dim=1)
    tensor([[1, 3],
            [2, 4]])
    """
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _listed("stack", tensors)  # a generator: the recorder must see its tensors
    if out is None and type(dim) is builtins.int:
        joined = _C._cat_fast(tensors, dim, True)  # the common case, in C; None: see below
        if joined is not None:
            return joined
    return _stack(tensors, dim, out=out)


@recorded("stack")
def _stack(tensors, dim=0, *, out=None):
    if out is None and type(dim) is builtins.int:
        joined = _C._cat_fast(tensors, dim, True)  # under the recorder (grad mode off)
        if joined is not None:
            return joined
    if not tensors:
        raise _C.InvalidArgumentError("stack(): expected a non-empty list of Tensors")
    device = _same_device("stack", tensors)
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise _C.InvalidArgumentError(
                f"stack(): stack expects each tensor to be equal size, but got {tuple(shape)} "
                f"at entry 0 and {tuple(t.shape)} at entry {i} (on {device})")
    d = _dim(dim, len(shape) + 1, "stack", tensors[0])
    # cat's body: stack records its own gradient, so cat's recording wrapper is skipped
    return _cat.__wrapped__([t.unsqueeze(d) for t in tensors], d, out=out)


def hstack(tensors, *, out=None):
    """cat along dim 1, or dim 0 for 1-d tensors.

    Parameters
    ----------
    tensors : sequence of Tensor
        On one device.
    out : Tensor, optional
        Receives the result (a dtype the inputs' promoted dtype can be cast to).

    Returns
    -------
    Tensor
        A new tensor (out, when given).

    Raises
    ------
    RuntimeError
        When the sizes or the devices do not fit.
    TypeError
        When out's dtype cannot hold the result's (can_cast).

    Examples
    --------
    >>> pydevtensor.hstack([pydevtensor.tensor([1, 2]), pydevtensor.tensor([3])])
    tensor([1, 2, 3])
    """
    tensors = _stack_args("hstack", tensors, out)
    # at least 1-d each, as PyTorch's (atleast_1d): 0-d tensors join as one element each
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """cat along dim 0 of the tensors made at least 2-d.

    Parameters
    ----------
    tensors : sequence of Tensor
        On one device.
    out : Tensor, optional
        Receives the result (a dtype the inputs' promoted dtype can be cast to).

    Returns
    -------
    Tensor
        A new tensor (out, when given).

    Raises
    ------
    RuntimeError
        When the sizes or the devices do not fit.
    TypeError
        When out's dtype cannot hold the result's (can_cast).

    Examples
    --------
    >>> pydevtensor.vstack([pydevtensor.tensor([1, 2]), pydevtensor.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    tensors = _stack_args("vstack", tensors, out)
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0, out=out)


def _size_args(args):
    """Sizes given as separate arguments or as one tuple or list (``x.expand(2, 3)`` or
    ``x.expand((2, 3))``), as reshape's C parsing (pdt_parse_sizes) and PyTorch take
    them: the sizes, a tuple."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _sizes(args, op):
    """The sizes as ints: ints and integer tensors of one element (__index__), not floats
    or bools, as PyTorch takes them."""
    out = []
    for i, a in enumerate(_size_args(args)):
        if (isinstance(a, builtins.bool) or not hasattr(a, "__index__")
                or isinstance(a, _C.Tensor) and a.dtype == _C.bool):
            raise TypeError(f"{op}(): argument 'size' must be a tuple of ints, but found "
                            f"element of type {type(a).__name__} at pos {i}")
        out.append(operator.index(a))
    return tuple(out)


@recorded("expand")
def expand(input, *sizes):
    """A view of input with size-1 dims (and new leading dims) repeated to sizes by a
    stride of 0, no copy; -1 keeps a dim's size.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.expand(*sizes)``).
    *sizes : int or tuple of ints
        The new shape; -1 keeps a dimension's size (the method also takes it by name,
        ``x.expand(size=(2, 3))``, as PyTorch's).

    Returns
    -------
    Tensor
        A view (stride 0 along the repeated dimensions); write to it only through a copy.

    Raises
    ------
    ValueError
        When input's shape does not broadcast to sizes.

    Examples
    --------
    >>> pydevtensor.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    sizes = _sizes(sizes, "expand")
    if len(sizes) < input.ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be "
                           f"greater or equal to the number of dimensions in the tensor "
                           f"({input.ndim})")
    lead = len(sizes) - input.ndim
    shape = []
    for i, s in enumerate(sizes):
        if s == -1:
            if i < lead:
                raise RuntimeError(f"expand: -1 is not allowed in a leading, non-existing "
                                   f"dimension {i}")
            s = input.shape[i - lead]
        elif s < 0:
            raise RuntimeError(f"expand: invalid size {s} in dimension {i}")
        shape.append(s)
    return _C._expand(input, tuple(shape))


def expand_as(input, other):
    """A view of input expanded to other's shape: ``input.expand(other.shape)``.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.expand_as(y)``).
    other : Tensor
        Gives the shape.

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    ValueError
        When the shapes do not broadcast.

    Examples
    --------
    >>> pydevtensor.tensor([1, 2]).expand_as(pydevtensor.ones(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return expand(input, tuple(_tensor_arg(other, "expand_as", "other").shape))


@recorded("repeat")
def repeat(input, *sizes, repeats=None):
    """input tiled sizes[i] times along each dim (new copies; PyTorch's repeat,
    NumPy's tile).

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.repeat(*sizes)``).
    *sizes : int or tuple of ints
        How many times along each dimension (at least input's number of dimensions).
    repeats : tuple of ints, optional
        PyTorch's keyword for the sizes (``x.repeat(repeats=(2, 2))``), instead of them.

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        When there are fewer sizes than dimensions.

    Examples
    --------
    >>> pydevtensor.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    if repeats is not None:
        if sizes:
            raise TypeError("repeat() got multiple values for argument 'repeats'")
        sizes = (repeats,)
    elif not sizes:  # x.repeat(): PyTorch's argument parser refuses it before the size check
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    sizes = _sizes(sizes, "repeat")
    if len(sizes) < input.ndim:
        raise RuntimeError(f"Number of dimensions of repeat dims can not be smaller than "
                           f"number of dimensions of tensor ({len(sizes)} < {input.ndim}) (a "
                           f"tensor of shape {tuple(input.shape)} on {input.device})")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {sizes}")
    shape = (1,) * (len(sizes) - input.ndim) + tuple(input.shape)
    x = input.reshape(shape)
    inter, big, final = [], [], []
    for r, s in zip(sizes, shape):
        inter += [1, s]
        big += [r, s]
        final.append(r * s)
    # The copy is written into a tensor of the final shape through a view of it, so the
    # result is a tensor of its own, as PyTorch's: no view (`_is_view()` False, no `_base`)
    # of a temporary or of input (`contiguous().reshape()` gave a view of the temporary,
    # and with all counts 1 contiguous() handed back input itself).
    out = _C.empty(tuple(final), dtype=input.dtype, device=input.device)
    out.view(tuple(big)).copy_(_C._expand(x.reshape(tuple(inter)), tuple(big)))
    return out


def flip(input, *args, dims=None):
    """A copy of input with the order of elements along dims reversed.

    Parameters
    ----------
    input : Tensor
        The tensor (also the method ``x.flip(dims)``, or ``x.flip(0, 1)``).
    dims : int or sequence of ints
        The dimensions to reverse, each once (positional: one sequence, or the ints).

    Returns
    -------
    Tensor
        A new tensor (a copy, as in PyTorch).

    Raises
    ------
    IndexError
        When a dim is out of range.
    RuntimeError
        When a dim is named twice.

    Examples
    --------
    >>> a = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.flip(a, (0, 1))
    tensor([[4, 3],
            [2, 1]])
    """
    if args:
        if dims is not None:
            raise TypeError("flip() got multiple values for argument 'dims'")
        dims = args[0] if len(args) == 1 else args
    elif dims is None:
        raise TypeError("flip() missing required argument 'dims'")
    if isinstance(dims, _C.Tensor) and dims.ndim == 0:  # x.flip(tensor(0)), as PyTorch's
        dims = _int_arg(dims, "flip", "dims")
    out = _C._flip_fast(input, dims)  # the common call, in C
    if out is not None:
        return out
    _tensor_arg(input, "flip")
    if isinstance(dims, builtins.int) and not isinstance(dims, builtins.bool):
        dims = [dims]
    elif hasattr(dims, "__iter__") and not isinstance(dims, (builtins.str, builtins.bytes)):
        dims = list(dims)
    else:
        raise TypeError(f"flip(): argument 'dims' must be an int or a sequence of ints, got "
                        f"{type(dims).__name__}")
    if input.ndim == 0:
        for d in dims:
            _dim(d, 0, "flip", input)
        if len(dims) > 1:  # 0 and -1 are both dim 0, as PyTorch's dim_list_to_bitset
            raise RuntimeError(f"flip(): dim 0 appears multiple times in the list of dims "
                               f"{tuple(dims)}")
        return _flip(input, ())
    ks = []
    for d in dims:
        k = _dim(d, input.ndim, "flip", input)
        if k in ks:
            raise RuntimeError(f"flip(): dim {k} appears multiple times in the list of dims "
                               f"{tuple(dims)}")
        ks.append(k)
    return _flip(input, tuple(ks))


@recorded("flip")  # FlipBackward0, as PyTorch's (it was the copy's CopyBackwards)
def _flip(input, dims):
    """flip over dims, checked and made nonnegative by flip(): a new tensor."""
    item = [slice(None)] * input.ndim
    for k in dims:
        item[k] = slice(None, None, -1)
    view = _basic_getitem(input, tuple(item))
    out = _C.empty(tuple(input.shape), dtype=input.dtype, device=input.device)
    out.copy_(view)
    return out


def fliplr(input):
    """A copy of input with its columns (dim 1) in reverse order: ``flip(input, [1])``.

    Parameters
    ----------
    input : Tensor
        At least 2-D (also the method ``x.fliplr()``).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        When input has fewer than 2 dimensions.

    Examples
    --------
    >>> pydevtensor.fliplr(pydevtensor.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
    """
    _at_least(input, 2, "fliplr")
    return flip(input, [1])


def _at_least(input, ndim, op):
    if isinstance(input, _C.Tensor) and input.ndim < ndim:
        raise RuntimeError(f"{op}(): Input must be >= {ndim}-d (got a {input.ndim}-d tensor "
                           f"of shape {list(input.shape)})")


def flipud(input):
    """A copy of input with its rows (dim 0) in reverse order: ``flip(input, [0])``.

    Parameters
    ----------
    input : Tensor
        At least 1-D (also the method ``x.flipud()``).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        When input is 0-d.

    Examples
    --------
    >>> pydevtensor.flipud(pydevtensor.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4],
            [1, 2]])
    """
    _at_least(input, 1, "flipud")
    return flip(input, [0])


def _triangle(input, diagonal, lower, op):
    _tensor_arg(input, op)
    diagonal = _int_arg(diagonal, op, "diagonal")
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions, got "
                           f"{input.ndim} (shape {tuple(input.shape)}, on {input.device})")
    m, n = input.shape[-2], input.shape[-1]
    row = _C.arange(m, dtype=_C.int64, device=input.device).reshape(m, 1)
    col = _C.arange(n, dtype=_C.int64, device=input.device).reshape(1, n)
    keep = (col - row <= diagonal) if lower else (col - row >= diagonal)
    out = where(keep, input, _C.zeros((), dtype=input.dtype, device=input.device))
    return out if out.is_contiguous() else out.contiguous()  # row-major, as PyTorch's


@recorded("tril")
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (on and below `diagonal`), zeros above.

    Parameters
    ----------
    input : Tensor
        At least 2-D; the last two dimensions are the matrices (also the method ``x.tril()``).
    diagonal : int, optional
        0 (the default) is the main diagonal, positive ones lie above it.

    Returns
    -------
    Tensor
        A new tensor of input's shape.

    Raises
    ------
    RuntimeError
        When input has fewer than 2 dimensions.

    Examples
    --------
    >>> pydevtensor.tril(pydevtensor.ones(3, 3))
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """
    return _triangle(input, diagonal, True, "tril")


@recorded("triu")
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (on and above `diagonal`), zeros below.

    Parameters
    ----------
    input : Tensor
        At least 2-D; the last two dimensions are the matrices (also the method ``x.triu()``).
    diagonal : int, optional
        0 (the default) is the main diagonal, positive ones lie above it.

    Returns
    -------
    Tensor
        A new tensor of input's shape.

    Raises
    ------
    RuntimeError
        When input has fewer than 2 dimensions.

    Examples
    --------
    >>> pydevtensor.ones(3, 3).triu(1)
    tensor([[0., 1., 1.],
            [0., 0., 1.],
            [0., 0., 0.]])
    """
    return _triangle(input, diagonal, False, "triu")


_meshgrid_warned = set()  # meshgrid's warning for a missing indexing: given once


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors (PyTorch's torch.meshgrid, as D2L's
    ``show_trace_2d`` calls it): for inputs of lengths n0, n1, ... each output has
    shape (n0, n1, ...) and output i varies along dim i (``indexing='ij'``, the
    default, as in PyTorch), or, with ``indexing='xy'`` (NumPy's default), the first
    two dims swapped: shape (n1, n0, ...).  The outputs are expanded views (stride 0),
    not copies; gradients flow back to the inputs.

    Parameters
    ----------
    *tensors : Tensor, or one list or tuple of Tensors
        0-d or 1-d, of one dtype, on one device.
    indexing : {'ij', 'xy'}, optional
        Matrix ('ij', the default) or Cartesian ('xy') indexing.  Left out, the first
        call of the process warns that it will be required (a UserWarning, once, as
        PyTorch's).

    Returns
    -------
    tuple of Tensor
        One grid for each input, all of one shape.

    Raises
    ------
    ValueError
        When no tensor is given, a tensor has more than one dimension, or indexing is
        neither 'ij' nor 'xy'.
    TypeError
        When an argument is not a Tensor, or the dtypes differ.
    RuntimeError
        When the tensors are on different devices.

    Examples
    --------
    >>> x1, x2 = pydevtensor.meshgrid(pydevtensor.arange(3), pydevtensor.arange(2),
    ...                               indexing='ij')
    >>> x1
    tensor([[0, 0],
            [1, 1],
            [2, 2]])
    >>> x2
    tensor([[0, 1],
            [0, 1],
            [0, 1]])
    >>> pydevtensor.meshgrid(pydevtensor.arange(3), pydevtensor.arange(2),
    ...                      indexing='xy')[0].shape
    pydevtensor.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:  # PyTorch's default; the warning once a process, as PyTorch's
        warn_once(_meshgrid_warned, "indexing", "meshgrid: in an upcoming release, it will be "
                  "required to pass the indexing argument (as in PyTorch); 'ij' is taken now", 2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid(): indexing must be 'ij' or 'xy', got {indexing!r}")
    if not tensors:
        raise ValueError("meshgrid(): expected at least one tensor")
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"meshgrid(): expected a sequence of Tensors, got "
                            f"{type(t).__name__} at position {i}")
    _same_device("meshgrid", tensors)
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise ValueError(f"meshgrid(): expected 0-d or 1-d tensors, got a tensor of shape "
                             f"{tuple(t.shape)} at position {i}")
        if t.dtype != tensors[0].dtype:
            raise TypeError(f"meshgrid(): expected tensors of one dtype, got "
                            f"{tensors[0].dtype.name} at position 0 and {t.dtype.name} at "
                            f"position {i}")
    n = len(tensors)
    dims = list(range(n))
    if indexing == "xy" and n >= 2:
        dims[0], dims[1] = 1, 0
    shape = [0] * n
    for t, d in zip(tensors, dims):
        shape[d] = t.numel()
    out = []
    for t, d in zip(tensors, dims):
        view = [1] * n
        view[d] = -1
        out.append(expand(t.reshape(view), tuple(shape)))
    return tuple(out)


def _expand_method(self, *sizes, size=None):
    """x.expand(*sizes): sizes that are all ints from 0 up, as many as x's dims or more,
    on a tensor that requires no grad, go straight to the view (expand()'s checks and
    its recording cost 1.3 us of the 1.6 a call took, NumPy's broadcast_to 2.4); -1 and
    everything else through expand(), which ends in the same _expand."""
    if size is not None:  # x.expand(size=(2, 3)), as PyTorch names it
        if sizes:
            raise TypeError("expand() got the new shape twice (as sizes and as size=)")
        sizes = (size,)
    shape = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    if (type(self) is _C.Tensor and not self.requires_grad and len(shape) >= self.ndim
            and builtins.all(type(s) is builtins.int and s >= 0 for s in shape)):
        return _C._expand(self, tuple(shape))
    return expand(self, *sizes)


_expand_method.__name__ = _expand_method.__qualname__ = "expand"
_expand_method.__doc__ = expand.__doc__
_C.Tensor.expand = _expand_method
for _name_, _fn in (("repeat", repeat), ("flip", flip), ("tril", tril),
                    ("triu", triu), ("expand_as", expand_as), ("fliplr", fliplr),
                    ("flipud", flipud)):
    setattr(_C.Tensor, _name_, _fn)

concat = concatenate = cat

__all__ = ["cat", "concat", "concatenate", "flip", "fliplr", "flipud", "hstack", "meshgrid",
           "stack", "tril", "triu", "vstack"]
