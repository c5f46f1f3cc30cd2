"""Diagonals and index sets, as PyTorch names them: diagonal, diag, diagflat,
diag_embed, block_diag, cartesian_prod, combinations, triu_indices, tril_indices.

diagonal is the core's view (pdt_diagonal_view in csrc/core/pdt_view.h: the two
dims replaced by one whose stride is the sum of theirs), with its gradient in
autograd/derivatives_shape.py (DiagonalBackward0, a view's node).  diag_embed (diag
of a vector, diagflat) is zeros with the input copied into their diagonal view and
diag of a matrix a copy of its diagonal view, each one recorded op with PyTorch's node
(DiagEmbedBackward0, DiagonalBackward0_copy), whose gradients are each other's kind.
block_diag, cartesian_prod and combinations compose cat, meshgrid and index_select, so
they run on every device and record their gradients through them; the
index sets are computed on the host (they depend on sizes only) and created on the
requested device.
"""
import builtins
import itertools
import math

from . import _C
from ._args import flag, output_fits
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_join import _same_device, cat, meshgrid, stack
from ._ops_shape import _tensors_arg, _where
from ._out import takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node


@recorded("diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The offset diagonal of the matrices in the plane of dim1 and dim2, as a new
    last dimension: a view of input (its stride the sum of the two dims').

    Parameters
    ----------
    input : Tensor
        At least 2-d (also the method ``x.diagonal()``).
    offset : int, optional
        0 the main diagonal, > 0 above it, < 0 below it.
    dim1, dim2 : int, optional
        The plane (default 0 and 1).

    Returns
    -------
    Tensor
        input with dim1 and dim2 removed and the diagonal last; shares input's storage.

    Raises
    ------
    RuntimeError
        When dim1 and dim2 are the same dimension.
    IndexError
        When a dimension is out of range.

    Examples
    --------
    >>> x = pydevtensor.arange(9).reshape(3, 3)
    >>> pydevtensor.diagonal(x)
    tensor([0, 4, 8])
    >>> x.diagonal(1)
    tensor([1, 5])
    """
    _tensor_arg(input, "diagonal")
    offset = _int_arg(offset, "diagonal", "offset")
    d1 = _dim(_int_arg(dim1, "diagonal", "dim1"), input.ndim, "diagonal", input)
    d2 = _dim(_int_arg(dim2, "diagonal", "dim2"), input.ndim, "diagonal", input)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}"
                           f"{_where(input)}")
    return _C._diagonal(input, offset, d1, d2)


_diagonal = diagonal  # for diag, whose argument is named diagonal


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose offset diagonals (in the plane of dim1 and dim2 of the result)
    hold the last dimension of input, zeros elsewhere.

    Parameters
    ----------
    input : Tensor
        At least 1-d (also the method ``x.diag_embed()``).
    offset : int, optional
        0 the main diagonal, > 0 above it, < 0 below it.
    dim1, dim2 : int, optional
        The plane in the result, which has one dimension more than input (default
        the last two).

    Returns
    -------
    Tensor
        A new tensor; its matrices are n + abs(offset) square, n being input's last size.

    Raises
    ------
    RuntimeError
        When dim1 and dim2 are the same dimension.
    IndexError
        When a dimension is out of range.

    Examples
    --------
    >>> pydevtensor.diag_embed(pydevtensor.tensor([[1, 2], [3, 4]]))
    tensor([[[1, 0],
             [0, 2]],
    <BLANKLINE>
            [[3, 0],
             [0, 4]]])
    """
    _tensor_arg(input, "diag_embed")
    offset = _int_arg(offset, "diag_embed", "offset")
    nd = input.ndim + 1
    d1 = _dim(_int_arg(dim1, "diag_embed", "dim1"), nd, "diag_embed", input)
    d2 = _dim(_int_arg(dim2, "diag_embed", "dim2"), nd, "diag_embed", input)
    if d1 == d2:  # also every pair of dims in range for a 0-d input (a 1-d result)
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, "
                           f"{dim2}{_where(input)}")
    return _embedded(input, offset, d1, d2)


@takes_out("diag")
def diag(input, diagonal=0):
    """A 1-d input as the diagonal of a square matrix (zeros elsewhere), or the
    diagonal of a 2-d input as a 1-d copy.

    Parameters
    ----------
    input : Tensor
        1-d or 2-d (also the method ``x.diag()``).
    diagonal : int, optional
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Tensor
        A new tensor: n + abs(diagonal) square for a 1-d input of n elements.

    Raises
    ------
    RuntimeError
        When input is not 1-d or 2-d.

    Examples
    --------
    >>> pydevtensor.diag(pydevtensor.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    >>> pydevtensor.diag(pydevtensor.arange(4).reshape(2, 2))
    tensor([0, 3])
    """
    _tensor_arg(input, "diag")
    k = _int_arg(diagonal, "diag", "diagonal")
    if input.ndim == 1:
        return diag_embed(input, k)
    if input.ndim == 2:
        return _diagonal_copy(input, k)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D"
                       f"{_where(input)}")


@recorded("diag_embed")
def _embedded(input, offset, d1, d2):
    """diag_embed of checked arguments: zeros, and input copied into their diagonal view
    (one write of the result); one node, DiagEmbedBackward0 as PyTorch's."""
    m = input.shape[-1] + builtins.abs(offset)
    rest = iter(input.shape[:-1])
    shape = tuple(m if d in (d1, d2) else next(rest) for d in range(input.ndim + 1))
    out = _C.zeros(shape, dtype=input.dtype, device=input.device)
    _C._diagonal(out, offset, d1, d2).copy_(input)
    return out


@recorded("diagonal_copy")
def _diagonal_copy(input, k):
    """The k-th diagonal of a matrix as a new 1-d tensor (diag of a 2-d input): one node,
    PyTorch's DiagonalBackward0_copy."""
    return _diagonal(input, k).clone()


@recorded("diagonal_put")
def _diagonal_put(g, shape, k):
    """Zeros of a matrix's shape with g on its k-th diagonal: _diagonal_copy's
    gradient (and its transpose)."""
    out = _C.zeros(shape, dtype=g.dtype, device=g.device)
    _C._diagonal(out, k, 0, 1).copy_(g)
    return out


@derivative("diag_embed")
class DiagEmbedBackward0(Node):
    """The diagonal of g in the plane of the two dims (recorded: a view of g)."""

    def save(self, out, input, offset, d1, d2):
        self.args = (offset, d1, d2)
        return (input,)

    def backward(self, g):
        return (diagonal(g, *self.args),)


@derivative("diagonal_copy")
class DiagonalCopyBackward(Node):
    """g written on the diagonal of zeros of the matrix's shape."""

    def save(self, out, input, k):
        self.shape, self.k = tuple(input.shape), k
        return (input,)

    def backward(self, g):
        return (_diagonal_put(g, self.shape, self.k),)


DiagonalCopyBackward.__name__ = DiagonalCopyBackward.__qualname__ = "DiagonalBackward0_copy"


@derivative("diagonal_put")
class DiagonalPutBackward(Node):
    """The diagonal written, copied back out."""

    def save(self, out, g, shape, k):
        self.k = k
        return (g,)

    def backward(self, gg):
        return (_diagonal_copy(gg, self.k),)


def diagflat(input, offset=0):
    """The elements of input (flattened) on the offset diagonal of a square matrix.

    Parameters
    ----------
    input : Tensor
        Any shape (also the method ``x.diagflat()``).
    offset : int, optional
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Tensor
        A new 2-d tensor, numel + abs(offset) square.

    Examples
    --------
    >>> pydevtensor.diagflat(pydevtensor.tensor([[1, 2]]), 1)
    tensor([[0, 1, 0],
            [0, 0, 2],
            [0, 0, 0]])
    """
    _tensor_arg(input, "diagflat")
    return diag_embed(input.reshape(-1), _int_arg(offset, "diagflat", "offset"))


def _tensors(tensors, op):
    tensors = _tensors_arg(tensors, op)
    if tensors:
        _same_device(op, tensors)
    return tensors


def block_diag(*tensors):
    """The tensors as blocks on the diagonal of one matrix, zeros elsewhere (0-d
    tensors are 1 x 1 blocks, 1-d ones a row); the dtype is the promoted one.

    Parameters
    ----------
    *tensors : Tensor
        At most 2-d each, on one device.

    Returns
    -------
    Tensor
        A new 2-d tensor (1 x 0 when no tensor is given, as PyTorch's).

    Raises
    ------
    RuntimeError
        When a tensor has more than 2 dimensions, or the devices differ.

    Examples
    --------
    >>> pydevtensor.block_diag(pydevtensor.tensor([[1, 2]]), pydevtensor.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    tensors = _tensors(tensors, "block_diag")
    if not tensors:
        return _C.empty((1, 0))
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions"
                               f"{_where(t)}")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    blocks = [t.reshape((1, -1) if t.ndim < 2 else tuple(t.shape)).to(dtype) for t in tensors]
    width = builtins.sum(b.shape[1] for b in blocks)
    dev, rows, at = tensors[0].device, [], 0
    for b in blocks:
        r, c = b.shape
        parts = [_C.zeros((r, at), dtype=dtype, device=dev), b,
                 _C.zeros((r, width - at - c), dtype=dtype, device=dev)]
        rows.append(cat(parts, 1))
        at += c
    return cat(rows, 0)


def _vector(t, op):
    if t.ndim != 1:
        raise RuntimeError(f"{op}(): Expect a 1D vector, but got shape {list(t.shape)} "
                           f"(on {t.device})")


def cartesian_prod(*tensors):
    """All tuples with one element of each 1-d tensor, in row-major order
    (itertools.product), as the rows of a matrix; one tensor comes back as it is.

    Parameters
    ----------
    *tensors : Tensor
        1-d, of one dtype, on one device.

    Returns
    -------
    Tensor
        (product of the lengths, number of tensors), or the one tensor given.

    Raises
    ------
    RuntimeError
        When a tensor is not 1-d, or none is given.
    TypeError
        When the dtypes differ.

    Examples
    --------
    >>> pydevtensor.cartesian_prod(pydevtensor.tensor([1, 2]), pydevtensor.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    tensors = _tensors(tensors, "cartesian_prod")
    if not tensors:
        raise RuntimeError("cartesian_prod(): expects a non-empty TensorList")
    for t in tensors:
        _vector(t, "cartesian_prod")
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of input's elements (itertools.combinations, or
    combinations_with_replacement), as the rows of a matrix.

    Parameters
    ----------
    input : Tensor
        1-d.
    r : int, optional
        The length of each combination (default 2, >= 0).
    with_replacement : bool, optional
        Whether an element may repeat within a combination.

    Returns
    -------
    Tensor
        (number of combinations, r); an empty 1-d tensor for r = 0, as PyTorch's.

    Raises
    ------
    RuntimeError
        When input is not 1-d, or r is negative.

    Examples
    --------
    >>> pydevtensor.combinations(pydevtensor.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    _tensor_arg(input, "combinations")
    _vector(input, "combinations")
    r = _int_arg(r, "combinations", "r")
    with_replacement = flag(with_replacement, "combinations", "with_replacement")
    if r < 0:
        raise RuntimeError(f"combinations(): Expect a non-negative number, but got {r} "
                           f"(input of shape {tuple(input.shape)} on {input.device})")
    if r == 0:
        return _C.empty((0,), dtype=input.dtype, device=input.device)
    n = input.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    # too many combinations raise the allocator's error before any is listed
    output_fits("combinations()", (count, r), input.dtype, input.device)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    import numpy as np
    flat = np.fromiter(itertools.chain.from_iterable(pick(range(n), r)), dtype=np.int64,
                       count=count * r)
    index = _C.tensor(flat, dtype=_C.int64, device=input.device)
    return input.index_select(0, index).reshape(-1, r)


def _tri_indices(row, col, offset, dtype, device, layout, lower):
    op = "tril_indices" if lower else "triu_indices"
    row, col = _int_arg(row, op, "row"), _int_arg(col, op, "col")
    offset = _int_arg(offset, op, "offset")
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{op}(): {name} must be non-negative, got {v}")
    if dtype is None:
        dtype = _C.int64
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{op}(): dtype must be a pydevtensor.dtype, got "
                        f"{type(dtype).__name__}")
    if dtype not in (_C.int32, _C.int64):
        raise NotImplementedError(f"\"{op}\" not implemented for {dtype.name} (only int32 "
                                  f"and int64 indices)")
    from ._memory_format import _check_layout
    _check_layout(layout, op)
    import numpy as np

    lo, hi, total = _tri_count(row, col, offset, lower)
    # the result's size is known first: too large a one is the allocator's error, and the
    # rows are written a block at a time (NumPy's tri*_indices make row x col masks)
    output_fits(f"{op}()", (2, total), dtype, device)
    data = np.empty((2, total), dtype=np.int64 if dtype == _C.int64 else np.int32)
    at, step = 0, max(1, (1 << 20) // max(col, 1))
    for a in range(lo, hi, step):
        i = np.arange(a, min(hi, a + step), dtype=np.int64)
        start = np.zeros_like(i) if lower else np.maximum(i + offset, 0)
        stop = np.minimum(i + offset + 1, col) if lower else np.full_like(i, col)
        counts = stop - start  # > 0 on rows lo..hi
        n = int(counts.sum())
        data[0, at:at + n] = np.repeat(i, counts)
        data[1, at:at + n] = np.arange(n) + np.repeat(start - (np.cumsum(counts) - counts),
                                                      counts)
        at += n
    return _C.tensor(data, dtype=dtype, device=device)


def _tri_count(row, col, offset, lower):
    """(lo, hi, total): the rows lo..hi - 1 of a row x col matrix that hold indices of
    its lower (upper) triangle from the offset diagonal, and how many there are, by the
    arithmetic series of each run of rows (whole rows, then rows that grow or shrink by
    one), with no array of the rows."""
    if col == 0 or row == 0:
        return 0, 0, 0

    def ramp(a, b, first):  # rows a..b - 1 holding first, first + 1, ... indices
        k = max(0, b - a)
        return k * first + k * (k - 1) // 2

    if lower:  # row i holds min(col, i + offset + 1) indices, from row -offset on
        lo = min(row, max(0, -offset))
        full = min(row, max(lo, col - offset - 1))  # rows before it are partial
        return lo, row, ramp(lo, full, lo + offset + 1) + (row - full) * col
    # upper: row i holds col - max(0, i + offset) indices, until row col - offset
    hi = min(row, max(0, col - offset))
    whole = min(hi, max(0, 1 - offset))  # rows where i + offset <= 0
    rest = hi - whole
    return 0, hi, whole * col + rest * (col - offset - whole) - rest * (rest - 1) // 2


_TRI_DOC = """The (row, column) indices of the {part} triangle of a row x col matrix ({side}
    the offset diagonal), in row-major order, as the two rows of a tensor.

    Parameters
    ----------
    row, col : int
        The matrix's size (>= 0).
    offset : int, optional
        The diagonal that bounds the triangle (0 the main one, > 0 above, < 0 below).
    dtype : pydevtensor.dtype, optional
        int64 (the default) or int32.
    device : device or str, optional
        Where to create it (default: the default device).

    Returns
    -------
    Tensor
        Of shape (2, N).

    Raises
    ------
    RuntimeError
        When row or col is negative.

    Examples
    --------
    >>> pydevtensor.{name}(3, 3)
    tensor([[{rows}],
            [{cols}]])
    """


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, device, layout, False)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, device, layout, True)


triu_indices.__doc__ = _TRI_DOC.format(part="upper", side="on and above", name="triu_indices",
                                       rows="0, 0, 0, 1, 1, 2", cols="0, 1, 2, 1, 2, 2")
tril_indices.__doc__ = _TRI_DOC.format(part="lower", side="on and below", name="tril_indices",
                                       rows="0, 1, 1, 2, 2, 2", cols="0, 0, 1, 0, 1, 2")


for _name_, _fn in (("diagonal", diagonal), ("diag", diag), ("diagflat", diagflat),
                    ("diag_embed", diag_embed)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["block_diag", "cartesian_prod", "combinations", "diag", "diag_embed", "diagflat",
           "diagonal", "tril_indices", "triu_indices"]
