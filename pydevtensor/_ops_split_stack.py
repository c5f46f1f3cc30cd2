"""NumPy-style splitting and stacking, as PyTorch names them: tensor_split, hsplit,
vsplit, dsplit (views, like split's), dstack, column_stack, row_stack (copies, made
by cat) and rot90 (a copy, made by flip and transpose).

All compose existing ops, so they run on every device and their gradients come
from the pieces (the slices' and cat's, flip's and transpose's nodes).
"""
import builtins

from . import _C, _args
from ._ops_index import _basic_getitem, _dim, _int_arg, _tensor_arg
from ._ops_join import cat, flip, hstack, vstack
from ._ops_shape import _tensors_arg, _where, atleast_3d


def _pieces(input, bounds, d):
    lead = (slice(None),) * d
    return tuple(_basic_getitem(input, lead + (slice(a, b),)) for a, b in bounds)


_MAX_PIECES = 2 ** 31 - 1  # each a Python object of about 100 bytes: 200 GiB of views


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of input along dim: `sections` pieces of nearly equal size (the first
    size % sections one longer), or the pieces between the given indices (as slicing
    would cut them, so an index past the end gives empty pieces).

    Parameters
    ----------
    input : Tensor
        At least 1-d (also the method ``x.tensor_split(3)``).
    indices_or_sections : int, sequence of ints, or integer Tensor
        How many pieces (an int, or a 0-d tensor), or where to cut (a list, or a 1-d
        tensor, on the CPU).
    dim : int, optional
        The dimension to split (default 0).
    sections, indices : int, or sequence of ints, optional
        PyTorch's keyword forms of indices_or_sections (one of the three).

    Returns
    -------
    tuple of Tensor
        Views of input.

    Raises
    ------
    RuntimeError
        When input is 0-d or sections is not positive.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> pydevtensor.tensor_split(pydevtensor.arange(7), 3)
    (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
    >>> pydevtensor.tensor_split(pydevtensor.arange(7), [1, 5])
    (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """
    _tensor_arg(input, "tensor_split")
    given = [a for a in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if a is not None]  # the last, the name of PyTorch's tensor overload
    if len(given) != 1:
        raise TypeError(f"tensor_split(): expected one of indices_or_sections, sections= and "
                        f"indices=, got {len(given)}")
    indices_or_sections = given[0]
    if input.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with 0 dims (on {input.device})")
    d = _dim(_int_arg(dim, "tensor_split", "dim"), input.ndim, "tensor_split", input)
    arg = indices_or_sections
    if isinstance(arg, _C.Tensor):
        if arg.dtype.is_floating_point or arg.dtype == _C.bool or arg.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor of integers, but "
                               f"got a {arg.dtype.name} tensor of shape {tuple(arg.shape)}")
        if arg.device.type != "cpu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on "
                               f"cpu, but it's on {arg.device}")
        arg = arg.item() if arg.ndim == 0 else arg.tolist()
    size = input.shape[d]
    if isinstance(arg, (list, tuple)):
        cuts = [0] + [_int_arg(i, "tensor_split", "indices") for i in arg] + [size]
        cuts = [c + size if c < 0 else c for c in cuts]
        cuts = [builtins.min(builtins.max(c, 0), size) for c in cuts]
        bounds = [(a, builtins.max(a, b)) for a, b in zip(cuts, cuts[1:])]
        return _pieces(input, bounds, d)
    sections = _int_arg(arg, "tensor_split", "sections")
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}"
                           f"{_where(input)}")
    if sections > size and sections > _MAX_PIECES:
        raise ValueError(f"tensor_split(): sections = {sections} is too large: it would make "
                         f"that many views of dim {d} (of size {size}){_where(input)}, more "
                         f"than the {_MAX_PIECES} (2^31 - 1) tensor_split makes at most")
    small, extra = divmod(size, sections)
    bounds, at = [], 0
    for i in range(sections):
        n = small + (1 if i < extra else 0)
        bounds.append((at, at + n))
        at += n
    return _pieces(input, bounds, d)


def _np_split(input, sections, op, min_dims, d):
    _tensor_arg(input, op)
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!{_where(input)}")
    if isinstance(sections, (builtins.int, _C.Tensor)) and not isinstance(sections, (
            builtins.bool)) and not (isinstance(sections, _C.Tensor) and sections.ndim):
        n = builtins.int(sections.item()) if isinstance(sections, _C.Tensor) else sections
        size = input.shape[d]
        if n == 0 or size % n:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {d}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {n}!{_where(input)}")
    return tensor_split(input, sections, d)


_NP_SPLIT_DOC = """tensor_split along {along}; an int must divide the size.

    Parameters
    ----------
    input : Tensor
        {least} (also the method ``x.{name}(2)``).
    indices_or_sections : int or sequence of ints
        How many equal pieces, or where to cut.
    sections, indices : int, or sequence of ints, optional
        PyTorch's keyword forms of indices_or_sections (one of the three).

    Returns
    -------
    tuple of Tensor
        Views of input.

    Raises
    ------
    RuntimeError
        When input has too few dimensions, or the sections do not divide the size.
    TypeError
        When not exactly one of indices_or_sections, sections and indices is given.

    Examples
    --------
    >>> [p.shape for p in pydevtensor.{name}(pydevtensor.zeros(2, 2, 2), 2)]
    [pydevtensor.Size([{one}]), pydevtensor.Size([{one}])]
    """


def _one_of(op, indices_or_sections, sections, indices):
    """The one of indices_or_sections, sections= and indices= given (PyTorch's two
    overloads, ``hsplit(x, sections=2)`` and ``hsplit(x, indices=[1])``)."""
    given = [a for a in (indices_or_sections, sections, indices) if a is not None]
    if len(given) != 1:
        raise TypeError(f"{op}(): expected one of indices_or_sections, sections= and "
                        f"indices=, got {len(given)}")
    return given[0]


def hsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    d = 1 if isinstance(input, _C.Tensor) and input.ndim > 1 else 0
    return _np_split(input, _one_of("hsplit", indices_or_sections, sections, indices),
                     "hsplit", 1, d)


def vsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    return _np_split(input, _one_of("vsplit", indices_or_sections, sections, indices),
                     "vsplit", 2, 0)


def dsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    return _np_split(input, _one_of("dsplit", indices_or_sections, sections, indices),
                     "dsplit", 3, 2)


hsplit.__doc__ = _NP_SPLIT_DOC.format(along="dim 1 (dim 0 for a 1-d tensor)", name="hsplit",
                                      least="At least 1-d", one="2, 1, 2")
vsplit.__doc__ = _NP_SPLIT_DOC.format(along="dim 0 of an at least 2-d tensor", name="vsplit",
                                      least="At least 2-d", one="1, 2, 2")
dsplit.__doc__ = _NP_SPLIT_DOC.format(along="dim 2 of an at least 3-d tensor", name="dsplit",
                                      least="At least 3-d", one="2, 2, 1")


def _tensor_list(tensors, op):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): expected a sequence of Tensors, got {type(tensors).__name__}")
    return list(_tensors_arg((tensors,), op))


def dstack(tensors, *, out=None):
    """cat along dim 2 of the tensors made at least 3-d (atleast_3d).

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
    >>> pydevtensor.dstack([pydevtensor.tensor([1, 2]), pydevtensor.tensor([3, 4])])
    tensor([[[1, 3],
             [2, 4]]])
    """
    return cat(atleast_3d(_tensor_list(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None):
    """The tensors side by side as columns: 0-d and 1-d tensors become columns (n, 1),
    the others join along dim 1 as they are (hstack of the columns).

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
    >>> pydevtensor.column_stack([pydevtensor.tensor([1, 2]), pydevtensor.tensor([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    tensors = _tensor_list(tensors, "column_stack")
    return hstack([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors], out=out)


row_stack = vstack


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by 90 degrees k times in the plane of dims, from the first
    towards the second (a copy, as PyTorch's and NumPy's rot90).

    Parameters
    ----------
    input : Tensor
        At least 2-d (also the method ``x.rot90(k, dims)``).
    k : int, optional
        How many quarter turns (default 1; negative turns the other way).
    dims : sequence of two ints, optional
        The plane (default (0, 1)).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        When dims are not two different dims, or input has fewer than 2 dimensions.
    IndexError
        When a dim is out of range.

    Examples
    --------
    >>> pydevtensor.rot90(pydevtensor.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    _tensor_arg(input, "rot90")
    k = _int_arg(k, "rot90", "k")
    dims = list(_args.sequence(dims, "rot90", "dims"))
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)} "
                           f"(rot90 of a tensor of shape {tuple(input.shape)} on "
                           f"{input.device})")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim} "
                           f"(rot90 of a tensor of shape {tuple(input.shape)} on "
                           f"{input.device})")
    d0, d1 = (_dim(_int_arg(d, "rot90", "dims"), input.ndim, "rot90", input) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}{_where(input)}")
    k %= 4
    if k == 1:
        return flip(input, d1).transpose(d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return flip(input, d0).transpose(d0, d1)
    return input.clone()


for _name_, _fn in (("tensor_split", tensor_split), ("hsplit", hsplit), ("vsplit", vsplit),
                    ("dsplit", dsplit), ("rot90", rot90)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["column_stack", "dsplit", "dstack", "hsplit", "row_stack", "rot90",
           "tensor_split", "vsplit"]
