"""The out-of-place inverses of three views, as PyTorch names them: select_scatter,
slice_scatter and diagonal_scatter (and their methods).

Each returns a copy of input with one view of it (select, a strided slice, diagonal)
replaced by src: a clone of input whose view is copied into.  The copy into a view of
the new tensor is recorded by autograd as any in-place write into a view
(CopySlices), so the gradients are PyTorch's: input's gradient with the view zeroed,
src's the view of the gradient.  src is cast to input's dtype, as the copy does, and
must have the view's shape exactly (no broadcasting, PyTorch's rule) and be on
input's device.
"""
from . import _C
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_join import _same_device
from ._ops_shape import _where, select


def _embedded(op, input, src, view):
    """A clone of input with view(clone) replaced by src, after src's checks."""
    _tensor_arg(src, op, "src")
    _same_device(op, (input, src))
    out = input.clone()
    target = view(out)
    if tuple(src.shape) != tuple(target.shape):
        raise RuntimeError(f"{op}(): expected src to have a size equal to the slice of self. "
                           f"src size = {list(src.shape)}, slice size = {list(target.shape)}"
                           f"{_where(input)}")
    target.copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """A copy of input whose slice ``input.select(dim, index)`` holds src.

    Parameters
    ----------
    input : Tensor
        At least 1-d (also the method ``x.select_scatter(src, dim, index)``).
    src : Tensor
        The new values: the shape of input without dim, cast to input's dtype.
    dim : int
        The dimension to index.
    index : int
        The position along dim (negative counts from the end).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype (differentiable in input and src).

    Raises
    ------
    IndexError
        When dim or index is out of range.
    RuntimeError
        When src's shape is not the slice's.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 3)
    >>> pydevtensor.select_scatter(x, pydevtensor.ones(3), 0, 1)
    tensor([[0., 0., 0.],
            [1., 1., 1.]])
    """
    _tensor_arg(input, "select_scatter")
    dim = _int_arg(dim, "select_scatter", "dim")
    index = _int_arg(index, "select_scatter", "index")
    return _embedded("select_scatter", input, src, lambda t: select(t, dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of input whose slice ``start:end:step`` along dim holds src.

    Parameters
    ----------
    input : Tensor
        At least 1-d (also the method ``x.slice_scatter(src, ...)``).
    src : Tensor
        The new values: the slice's shape, cast to input's dtype.
    dim : int, optional
        The dimension to slice (default 0).
    start, end : int or None, optional
        The slice's bounds, as Python's (None: the ends; clipped to the size).
    step : int, optional
        The slice's step, positive (default 1).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype (differentiable in input and src).

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        When step is not positive or src's shape is not the slice's.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 4)
    >>> pydevtensor.slice_scatter(x, pydevtensor.ones(2, 2), 1, step=2)
    tensor([[1., 0., 1., 0.],
            [1., 0., 1., 0.]])
    """
    op = "slice_scatter"
    _tensor_arg(input, op)
    d = _dim(_int_arg(dim, op, "dim"), input.ndim, op, input)
    start = None if start is None else _int_arg(start, op, "start")
    end = None if end is None else _int_arg(end, op, "end")
    step = _int_arg(step, op, "step")
    if step <= 0:
        raise RuntimeError(f"{op}(): slice step must be positive, got {step}{_where(input)}")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _embedded(op, input, src, lambda t: t[key])


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of input whose diagonal ``input.diagonal(offset, dim1, dim2)`` holds src.

    Parameters
    ----------
    input : Tensor
        At least 2-d (also the method ``x.diagonal_scatter(src, ...)``).
    src : Tensor
        The new values: the diagonal's shape (the other dims, then the diagonal's
        length), cast to input's dtype.
    offset : int, optional
        0 the main diagonal, > 0 above it, < 0 below it.
    dim1, dim2 : int, optional
        The plane (default 0 and 1).

    Returns
    -------
    Tensor
        A new tensor of input's shape and dtype (differentiable in input and src).

    Raises
    ------
    IndexError
        When a dimension is out of range.
    RuntimeError
        When dim1 and dim2 are the same or src's shape is not the diagonal's.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 3)
    >>> pydevtensor.diagonal_scatter(x, pydevtensor.tensor([1., 2.]), 1)
    tensor([[0., 1., 0.],
            [0., 0., 2.]])
    """
    from ._ops_diag import diagonal
    _tensor_arg(input, "diagonal_scatter")
    return _embedded("diagonal_scatter", input, src,
                     lambda t: diagonal(t, offset, dim1, dim2))


__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter"]

for _n in __all__:
    setattr(_C.Tensor, _n, globals()[_n])
