"""Taking a tensor apart into views: split, chunk and unbind (PyTorch's), moved out of
_ops_join.py (which joins).

Each returns views of its input.  Under autograd all the pieces of one call share
one node (autograd/derivatives_join.py: SplitBackward0, SplitWithSizesBackward0,
UnbindBackward0) whose backward joins the pieces' gradients into one tensor of the
input's size, zeros only for the pieces that got no gradient: an RNN step that
chunks its gates (nn/_functional_rnn.py) or a loop over a sequence's steps costs one
gradient of the input, not one zero-filled tensor of the input's size per piece.
"""
import builtins

from . import _C
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg, _tensor_arg
from .autograd.dispatch import recorded


def _at_least_1d(t, op):
    if t.ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor, got a 0-d tensor "
                           f"(on {t.device})")


def split_sections(tensor, split_size_or_sections, d):
    """The sizes of the pieces that split(tensor, split_size_or_sections, d) makes (d
    already checked), or the RuntimeError PyTorch raises."""
    size = tensor.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = [_int_arg(s, "split", "split_size_or_sections")
                    for s in split_size_or_sections]
        if builtins.sum(sections) != size or any(s < 0 for s in sections):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {d}), but got split_sizes="
                               f"{sections} (on {tensor.device})")
        return sections
    step = _int_arg(split_size_or_sections, "split", "split_size_or_sections")
    if step <= 0 and not (step == 0 and size == 0):
        raise RuntimeError((f"split expects split_size be non-negative, but got "
                            f"split_size={step}" if step < 0 else
                            f"split_size can only be 0 if dimension size is 0, but got "
                            f"dimension size of {size}") + f" (on {tensor.device})")
    return [builtins.min(step, size - a) for a in range(0, size, step)] if size else [0]


@numpy_names
@recorded("split")
def split(tensor, split_size_or_sections, dim=0):
    """Views of tensor along dim: pieces of split_size (the last may be smaller), or
    of the sizes in a list (which must add up to the dim's size).  Under autograd the
    pieces share one node (SplitBackward0, or SplitWithSizesBackward0 for a list of
    sizes, as PyTorch's), whose backward joins their gradients.

    Parameters
    ----------
    tensor : Tensor
        The tensor to split (also the method ``x.split(size)``).
    split_size_or_sections : int or list of ints
        The size of each piece, or the sizes of all of them.
    dim : int, optional
        The dimension to split (default 0).

    Returns
    -------
    tuple of Tensor
        Views of tensor.

    Raises
    ------
    RuntimeError
        When the sizes do not add up, a size is 0 for a dimension that is not, or
        tensor is 0-d.
    IndexError
        When a dim is out of range.

    Examples
    --------
    >>> x = pydevtensor.arange(5)
    >>> pydevtensor.split(x, 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> x.split([1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """
    _tensor_arg(tensor, "split", "tensor")
    _at_least_1d(tensor, "split")
    d = _dim(dim, tensor.ndim, "split", tensor)
    return _C._views_along(tensor, d, split_sections(tensor, split_size_or_sections, d))


@numpy_names
def chunk(input, chunks, dim=0):
    """At most `chunks` views along dim, each of ceil(size / chunks) (the last may be
    smaller, and fewer may come back), as PyTorch's chunk.  Under autograd the pieces
    share split's node (SplitBackward0; SplitWithSizesBackward0 for an empty dim).

    Parameters
    ----------
    input : Tensor
        The tensor to split (also the method ``x.chunk(n)``).
    chunks : int
        How many pieces at most (> 0).
    dim : int, optional
        The dimension to split (default 0).

    Returns
    -------
    tuple of Tensor
        Views of input.

    Raises
    ------
    RuntimeError
        When chunks is not positive, or input is 0-d.
    IndexError
        When a dim is out of range.

    Examples
    --------
    >>> pydevtensor.chunk(pydevtensor.arange(5), 2)
    (tensor([0, 1, 2]), tensor([3, 4]))
    """
    _tensor_arg(input, "chunk")
    chunks = _int_arg(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    _at_least_1d(input, "chunk")
    d = _dim(dim, input.ndim, "chunk", input)
    size = input.shape[d]
    sizes = [0] * chunks if size == 0 else -(-size // chunks)
    if type(input) is _C.Tensor and not input.requires_grad:  # nothing to record
        return _C._views_along(input, d, split_sections(input, sizes, d))
    return split(input, sizes, d)


@recorded("unbind")
def unbind(input, dim=0):
    """The slices of input along dim, as a tuple of views with that dim removed
    (PyTorch's unbind).  Under autograd the slices share one node, whose backward
    stacks their gradients into one tensor: iterating over a sequence step by step
    (an RNN's loop) costs one gradient of input's size, not one per step.

    Parameters
    ----------
    input : Tensor
        The tensor to take apart (also the method ``x.unbind(dim)``).
    dim : int, optional
        The dimension to remove (default 0).

    Returns
    -------
    tuple of Tensor
        input.shape[dim] views of input.

    Raises
    ------
    IndexError
        When dim is out of range, or input is 0-d.

    Examples
    --------
    >>> pydevtensor.unbind(pydevtensor.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    _tensor_arg(input, "unbind")
    d = _dim(dim, input.ndim, "unbind", input)
    if input.ndim == 0:
        raise IndexError(f"unbind(): Dimension specified as {d} but tensor has no dimensions "
                         f"(a 0-d tensor on {input.device})")
    return _C._views_along(input, d)  # views marked multi-output, made in one C call


_unbind_recorded = unbind


def unbind(input, dim=0):
    if type(input) is _C.Tensor and type(dim) is builtins.int and not input.requires_grad:
        n = input.ndim  # nothing to record: straight to the views (1.17 -> 0.5 us, 3 rows)
        if -n <= dim < n:
            return _C._views_along(input, dim % n)
    return _unbind_recorded(input, dim)


unbind.__doc__, unbind.__wrapped__ = _unbind_recorded.__doc__, _unbind_recorded


def split_with_sizes(input, split_sizes, dim=0):
    """Views of input along dim of the sizes in split_sizes, which add up to the dim's
    size: split with a list (PyTorch's split_with_sizes; its node SplitWithSizesBackward0).

    Parameters
    ----------
    input : Tensor
        The tensor to split (also the method ``x.split_with_sizes(sizes)``).
    split_sizes : sequence of ints
        The sizes of the pieces (>= 0).
    dim : int, optional
        The dimension to split (default 0).

    Returns
    -------
    tuple of Tensor
        Views of input.

    Raises
    ------
    TypeError
        When split_sizes is not a sequence of ints.
    RuntimeError
        When the sizes do not add up to the dim's size or one is negative.

    Examples
    --------
    >>> pydevtensor.split_with_sizes(pydevtensor.arange(5), [2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
    """
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' must be a sequence of "
                        f"ints, not {type(split_sizes).__name__}")
    return split(input, [_int_arg(s, "split_with_sizes", "split_sizes") for s in split_sizes],
                 dim)


def unsafe_split(tensor, split_size, dim=0):
    """split by one int size (PyTorch's unsafe_split, whose pieces are not tracked as
    views; here they are split's views, so an in-place change of one is checked as
    any view's).

    Parameters
    ----------
    tensor : Tensor
        The tensor to split (also the method ``x.unsafe_split(2)``).
    split_size : int
        The size of each piece (the last may be smaller).
    dim : int, optional
        The dimension to split (default 0).

    Returns
    -------
    tuple of Tensor
        Views of tensor.

    Raises
    ------
    TypeError
        When split_size is not an int.

    Examples
    --------
    >>> pydevtensor.unsafe_split(pydevtensor.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    return split(tensor, _int_arg(split_size, "unsafe_split", "split_size"), dim)


def unsafe_chunk(input, chunks, dim=0):
    """chunk (PyTorch's unsafe_chunk, whose pieces are not tracked as views; here they
    are chunk's views, so an in-place change of one is checked as any view's).

    Parameters
    ----------
    input : Tensor
        The tensor to split (also the method ``x.unsafe_chunk(2)``).
    chunks : int
        How many pieces at most (> 0).
    dim : int, optional
        The dimension to split (default 0).

    Returns
    -------
    tuple of Tensor
        Views of input.

    Raises
    ------
    RuntimeError
        When chunks is not positive, or input is 0-d.

    Examples
    --------
    >>> pydevtensor.unsafe_chunk(pydevtensor.arange(5), 2)
    (tensor([0, 1, 2]), tensor([3, 4]))
    """
    return chunk(input, chunks, dim)


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


# the method's keyword is PyTorch's Tensor.split's, split_size (the function's is
# split_size_or_sections)
_split_method.__doc__, _split_method.__name__ = split.__doc__, "split"
_split_method.__qualname__ = "Tensor.split"

for _name_, _fn in (("split", _split_method), ("chunk", chunk), ("unbind", unbind),
                    ("split_with_sizes", split_with_sizes), ("unsafe_split", unsafe_split),
                    ("unsafe_chunk", unsafe_chunk)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["chunk", "split", "split_with_sizes", "unbind", "unsafe_chunk", "unsafe_split"]
