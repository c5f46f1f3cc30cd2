"""Strided views and the diagonal's odd jobs: ``as_strided`` (a view of the storage
with sizes and strides of one's choosing, bounds-checked against the storage),
``Tensor.unfold`` (sliding windows as a view), ``trace``, ``Tensor.fill_diagonal_``,
``put``/``Tensor.put_``, ``is_inference`` and ``Tensor.is_inference``.

The backward of a strided view sums the gradient into a buffer the size of the
storage span, at each output element's storage position, and reads the input's
elements back out of it: overlapping windows add up, as in PyTorch
(autograd/derivatives_strided.py)."""
from __future__ import annotations

import numbers

from . import _C
from ._args import flag
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_shape import _where
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

__all__ = ["as_strided", "trace", "put", "is_inference"]


def _ints(value, op, name):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{op}(): {name} must be a tuple of ints, got "
                        f"{type(value).__name__}") from None
    for v in items:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{op}(): {name} must be a tuple of ints, got an element of type "
                            f"{type(v).__name__}")
    return tuple(int(v) for v in items)


@recorded("as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with the given sizes and strides (in elements),
    starting at storage_offset (default: input's own).  The view must stay inside the
    storage; elements may overlap (such a view can be read, not written).

    Parameters
    ----------
    input : Tensor
        Also the method ``x.as_strided(size, stride)``.
    size : tuple of int
        The view's shape.
    stride : tuple of int
        Its strides (>= 0), one per dimension.
    storage_offset : int, optional
        The storage element the view starts at.

    Returns
    -------
    Tensor
        A view sharing input's storage.

    Raises
    ------
    ValueError
        When size and stride differ in length, a size or stride is negative, or the view
        reaches outside the storage.
    TypeError
        When size or stride is not a tuple of ints.

    Examples
    --------
    >>> x = pydevtensor.arange(4.)
    >>> x.as_strided((3, 2), (1, 1))
    tensor([[0., 1.],
            [1., 2.],
            [2., 3.]])
    """
    _tensor_arg(input, "as_strided")
    size = _ints(size, "as_strided", "size")
    stride = _ints(stride, "as_strided", "stride")
    if storage_offset is None:
        storage_offset = input.storage_offset()
    storage_offset = _int_arg(storage_offset, "as_strided", "storage_offset")
    return _C._as_strided(input, size, stride, storage_offset)


@recorded("unfold")
def _unfold(self, dimension, size, step):
    """Tensor.unfold(dimension, size, step): every window of ``size`` elements along
    ``dimension``, ``step`` apart, as a new last dimension of a view of self.

    Parameters
    ----------
    dimension : int
        The dimension the windows slide along.
    size : int
        The window's length (>= 0, at most the dimension's size).
    step : int
        The distance between window starts (> 0).

    Returns
    -------
    Tensor
        A view: dimension has ``(n - size) // step + 1`` windows and a last dimension of
        ``size`` is added.

    Raises
    ------
    RuntimeError
        When size exceeds the dimension or step is not positive.
    IndexError
        When dimension is out of range.

    Examples
    --------
    >>> pydevtensor.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    _tensor_arg(self, "unfold")
    size = _int_arg(size, "unfold", "size")
    step = _int_arg(step, "unfold", "step")
    shape = list(self.shape)
    if self.ndim == 0:
        shape = [1]
        d = _dim(_int_arg(dimension, "unfold", "dimension"), 1, "unfold", self)
    else:
        d = _dim(_int_arg(dimension, "unfold", "dimension"), self.ndim, "unfold", self)
    if size < 0 or size > shape[d]:
        raise RuntimeError(f"unfold(): maximum size for tensor at dimension {d} is "
                           f"{shape[d]} but size is {size}{_where(self)}")
    if step <= 0:
        raise RuntimeError(f"unfold(): step is {step} but must be > 0{_where(self)}")
    # from the tensor's own layout, negative strides (a reversed NumPy array's) kept
    return _C._unfold(self, d, size, step)


def trace(input):
    """The sum of the main diagonal of a matrix (int64 for integer and bool input, as
    ``sum``).

    Parameters
    ----------
    input : Tensor
        2-D (also the method ``x.trace()``).

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        When input is not 2-D.

    Examples
    --------
    >>> pydevtensor.trace(pydevtensor.arange(9.).reshape(3, 3))
    tensor(12.)
    """
    _tensor_arg(input, "trace")
    if input.ndim != 2:
        raise RuntimeError(f"trace(): expected a matrix, but got tensor with dim "
                           f"{input.ndim}{_where(input)}")
    return _trace(input)


@recorded("trace")
def _trace(x):
    """The sum of x's main diagonal: one node, TraceBackward0 as PyTorch's (composed,
    its grad_fn was SumBackward0)."""
    return x.diagonal().sum()


@derivative("trace")
class TraceBackward0(Node):
    """g on the main diagonal, zeros elsewhere (g times the identity: recorded, so
    differentiable again in g)."""

    def save(self, out, x):
        self.shape = tuple(x.shape)
        return (x,)

    def backward(self, g):
        return (g * _C.eye(*self.shape, dtype=g.dtype, device=g.device),)


def _fill_diagonal_(self, fill_value, wrap=False):
    """Tensor.fill_diagonal_(fill_value, wrap=False): writes fill_value on the main
    diagonal, in place.  A tensor of more than 2 dimensions needs them all equal
    (its diagonal is ``x[i, i, ..., i]``); with wrap=True the diagonal of a tall matrix
    starts again N + 1 rows down (N the number of columns), as in PyTorch.

    Parameters
    ----------
    fill_value : number
        The value.
    wrap : bool, optional
        Continue the diagonal below the first N rows of a tall matrix (default False).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        When self has fewer than 2 dimensions, or more with unequal sizes.

    Examples
    --------
    >>> pydevtensor.zeros(3, 3).fill_diagonal_(5)
    tensor([[5., 0., 0.],
            [0., 5., 0.],
            [0., 0., 5.]])
    >>> pydevtensor.zeros(5, 2).fill_diagonal_(1, wrap=True)[:, 0]
    tensor([1., 0., 0., 1., 0.])
    """
    _tensor_arg(self, "fill_diagonal_")
    wrap = flag(wrap, "fill_diagonal_", "wrap")
    if self.ndim < 2:
        raise RuntimeError(f"fill_diagonal_(): dimensions must be larger than 1, got shape "
                           f"{tuple(self.shape)}{_where(self)}")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_(): all dimensions of input must be of equal "
                           f"length, got shape {tuple(self.shape)}{_where(self)}")
    rows, cols = self.shape[0], self.shape[1]
    if self.ndim == 2 and wrap and rows > cols + 1:
        pos = _C.arange(0, rows * cols, cols + 1, device=self.device)
        index = (pos // cols, pos % cols)
    else:
        k = _C.arange(min(self.shape), device=self.device)
        index = (k,) * self.ndim
    self[index] = fill_value
    return self


def _flat_index(input, index, op):
    if not isinstance(index, _C.Tensor) or index.dtype != _C.int64:
        # a TypeError that is also PyTorch's RuntimeError for a tensor of another dtype
        raise _C.DTypeError(f"{op}(): index must be an int64 (long) Tensor, got "
                            f"{getattr(index, 'dtype', type(index).__name__)}")
    n = input.numel()
    flat = index.reshape(-1)
    if flat.numel():
        lo, hi = int(flat.min()), int(flat.max())
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"{op}(): index {bad} is out of bounds for a tensor of "
                             f"{n} elements{_where(input)}")
    return flat.to(input.device) % max(n, 1)


def put(input, index, source, accumulate=False):
    """A copy of input with source's elements written at the given positions of input
    read as 1-D (in row-major order), or added there with accumulate=True (repeated
    positions then add up).

    Parameters
    ----------
    input : Tensor
        Also the method ``x.put(index, source)``; ``x.put_`` writes x in place.
    index : Tensor
        int64 positions in [-numel, numel).
    source : Tensor
        As many elements as index, of input's dtype (another dtype is refused, as in
        PyTorch).
    accumulate : bool, optional
        Add instead of writing (default False).

    Returns
    -------
    Tensor

    Raises
    ------
    IndexError
        When a position is out of range.
    RuntimeError
        When source and index hold different numbers of elements, or source's dtype is
        not input's.
    TypeError
        When index is not an int64 tensor.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 2)
    >>> x.put(pydevtensor.tensor([0, 3, 3]), pydevtensor.tensor([1., 2., 3.]), accumulate=True)
    tensor([[1., 0.],
            [0., 5.]])
    """
    _tensor_arg(input, "put")
    accumulate = flag(accumulate, "put", "accumulate")
    flat = _flat_index(input, index, "put")
    _tensor_arg(source, "put")
    if source.dtype != input.dtype:  # PyTorch's check, as index_put_'s and scatter's
        raise RuntimeError(f"put(): self ({input.dtype}) and source ({source.dtype}) must "
                           f"have the same dtype{_where(input)}")
    if source.numel() != flat.numel():
        # PyTorch's IndexError, a RuntimeError as before
        raise _C.IndexOutOfRangeError(f"put(): expected source to have {flat.numel()} elements "
                                      f"(as index), got {source.numel()}{_where(input)}")
    out = input.reshape(-1).clone()
    src = source.reshape(-1).to(input.dtype)
    if accumulate:
        from ._ops_scatter import index_add
        out = index_add(out, 0, flat, src)
    else:
        out[flat] = src
    return out.reshape(input.shape)


def _put_(self, index, source, accumulate=False):
    """Tensor.put_(index, source, accumulate=False): ``put`` written into self.

    Parameters
    ----------
    index : Tensor
        int64 positions into self read as 1-D.
    source : Tensor
        The values.
    accumulate : bool, optional
        Add instead of writing.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> x = pydevtensor.zeros(3)
    >>> x.put_(pydevtensor.tensor([2]), pydevtensor.tensor([7.]))
    tensor([0., 0., 7.])
    """
    return self.copy_(put(self, index, source, flag(accumulate, "put_", "accumulate")))


def _is_inference(self):
    """Tensor.is_inference(): whether self is an inference tensor.  Always False here:
    ``inference_mode`` works as ``no_grad`` and makes ordinary tensors (PyTorch gives
    True for a tensor made inside inference_mode).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.ones(2).is_inference()
    False
    """
    return False


def is_inference(input):
    """Whether input is an inference tensor, PyTorch's ``torch.is_inference``.  Always
    False here: ``inference_mode`` works as ``no_grad`` and makes ordinary tensors
    (PyTorch gives True for a tensor made inside inference_mode).

    Parameters
    ----------
    input : Tensor
        Any tensor.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input is not a Tensor.

    Examples
    --------
    >>> with pydevtensor.inference_mode():
    ...     t = pydevtensor.ones(2)
    >>> pydevtensor.is_inference(t)
    False
    """
    return _tensor_arg(input, "is_inference").is_inference()


_unfold.__name__ = _unfold.__qualname__ = "unfold"
_C.Tensor.as_strided = as_strided
_C.Tensor.unfold = _unfold
_C.Tensor.trace = trace
_C.Tensor.fill_diagonal_ = _fill_diagonal_
_C.Tensor.put = put
_C.Tensor.put_ = _put_
_C.Tensor.is_inference = _is_inference
