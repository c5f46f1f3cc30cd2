"""The ``*_copy`` variants of the view ops, as PyTorch's (``view_copy``, ``t_copy``,
``split_copy``, ...) and ``narrow_copy``: each is its view op followed by a copy into a
new contiguous tensor, so the result never shares memory with the input and its
gradient is the view op's (then the copy's, which passes it through).

The ops that return several views (``unbind_copy``, ``split_copy``,
``split_with_sizes_copy``) return a tuple of copies; with out= (a sequence of tensors,
one per piece) they write them there and return None, as PyTorch's.
"""
from . import _C
from ._args import flag
from ._memory_format import contiguous_format
from ._ops_index import _dim, _int_arg, _out_written

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "narrow_copy", "permute_copy", "select_copy", "slice_copy", "split_copy",
           "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy"]


def _copied(result, out, op):
    """result (a tensor or a tuple of them) copied into new contiguous tensors, or
    written into out (a tensor, or a sequence of one tensor per piece)."""
    if isinstance(result, tuple):
        copies = tuple(r.clone(memory_format=contiguous_format) for r in result)
        if out is None:
            return copies
        if not isinstance(out, (list, tuple)) or len(out) != len(copies):
            raise RuntimeError(f"{op}(): out must be a sequence of {len(copies)} tensors (one "
                               f"per piece), got {type(out).__name__}"
                               f"{f' of {len(out)}' if isinstance(out, (list, tuple)) else ''}")
        for c, o in zip(copies, out):
            _out_written(c, o, op)
        return None
    copy = result.clone(memory_format=contiguous_format)
    return copy if out is None else _out_written(copy, out, op)


def _tensor(input, op):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{op}(): argument 'input' must be a Tensor, not "
                        f"{type(input).__name__}")
    return input


def view_copy(input, size=None, *, dtype=None, out=None):
    if isinstance(size, _C.dtype):  # view_copy(x, pydevtensor.int32), PyTorch's overload
        size, dtype = None, size
    if (size is None) == (dtype is None):
        raise TypeError("view_copy(): expected one of size and dtype")
    view = _tensor(input, "view_copy").view(size if dtype is None else dtype)
    return _copied(view, out, "view_copy")


def expand_copy(input, size, *, implicit=False, out=None):
    flag(implicit, "expand_copy", "implicit")
    return _copied(_tensor(input, "expand_copy").expand(size), out, "expand_copy")


def permute_copy(input, dims, *, out=None):
    return _copied(_tensor(input, "permute_copy").permute(dims), out, "permute_copy")


def transpose_copy(input, dim0, dim1, *, out=None):
    return _copied(_tensor(input, "transpose_copy").transpose(dim0, dim1), out,
                   "transpose_copy")


def t_copy(input, *, out=None):
    return _copied(_tensor(input, "t_copy").t(), out, "t_copy")


def squeeze_copy(input, dim=None, *, out=None):
    x = _tensor(input, "squeeze_copy")
    return _copied(x.squeeze() if dim is None else x.squeeze(dim), out, "squeeze_copy")


def unsqueeze_copy(input, dim, *, out=None):
    return _copied(_tensor(input, "unsqueeze_copy").unsqueeze(dim), out, "unsqueeze_copy")


def diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None):
    return _copied(_tensor(input, "diagonal_copy").diagonal(offset, dim1, dim2), out,
                   "diagonal_copy")


def unfold_copy(input, dimension, size, step, *, out=None):
    return _copied(_tensor(input, "unfold_copy").unfold(dimension, size, step), out,
                   "unfold_copy")


def unbind_copy(input, dim=0, *, out=None):
    return _copied(_tensor(input, "unbind_copy").unbind(dim), out, "unbind_copy")


def split_copy(input, split_size, dim=0, *, out=None):
    from ._ops_split import split  # by one int size, as PyTorch's split_copy
    return _copied(split(_tensor(input, "split_copy"),
                         _int_arg(split_size, "split_copy", "split_size"), dim),
                   out, "split_copy")


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    from ._ops_split import split_with_sizes
    return _copied(split_with_sizes(_tensor(input, "split_with_sizes_copy"), split_sizes, dim),
                   out, "split_with_sizes_copy")


def alias_copy(input, *, out=None):
    return _copied(_tensor(input, "alias_copy"), out, "alias_copy")


def detach_copy(input, *, out=None):
    return _copied(_tensor(input, "detach_copy").detach(), out, "detach_copy")


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    from ._ops_strided import as_strided
    return _copied(as_strided(_tensor(input, "as_strided_copy"), size, stride, storage_offset),
                   out, "as_strided_copy")


def narrow_copy(input, dim, start, length, *, out=None):
    from ._ops_shape import narrow
    return _copied(narrow(_tensor(input, "narrow_copy"), dim, start, length), out,
                   "narrow_copy")


def select_copy(input, dim, index, *, out=None):
    return _copied(_tensor(input, "select_copy").select(dim, index), out, "select_copy")


def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    x = _tensor(input, "slice_copy")
    d = _dim(dim, x.dim(), "slice_copy", x)
    if x.dim() == 0:
        raise IndexError("slice_copy(): slice() cannot be applied to a 0-dim tensor")
    bounds = [None if v is None else _int_arg(v, "slice_copy", n)
              for n, v in (("start", start), ("end", end))]
    step = _int_arg(step, "slice_copy", "step")
    if step < 1:
        raise _C.InvalidArgumentError(f"slice_copy(): slice step must be positive, got {step}")
    return _copied(x[(slice(None),) * d + (slice(*bounds, step),)], out, "slice_copy")


_DOC = """``{call}`` copied into a new contiguous tensor{s}, never sharing memory with
    input (PyTorch's {name}); the gradient is {grad}.

    Parameters
    ----------
    input : Tensor
        The tensor{method}.
{params}    out : {out_type}, optional
        Written with the result{s} (of its dtype and device; its shape, or no elements),
        {out_returns}.

    Returns
    -------
    {returns}

    Raises
    ------
    {raises}

    Examples
    --------
    >>> x = pydevtensor.arange(6.).reshape(2, 3)
    >>> pydevtensor.{name}({example})
    {result}
"""
_ONE = ("Tensor", "then returned", "Tensor\n        A new contiguous tensor.")
_MANY = ("sequence of Tensor", "one per piece; None is then returned",
         "tuple of Tensor\n        New contiguous tensors (None with out=).")
_PARAMS = {
    "size": ("size : sequence of ints", "The shape, as the view op's."),
    "size, dtype": ("size : sequence of ints, or dtype; dtype : dtype, optional",
                    "The shape (as view's), or the dtype to read input's bytes as."),
    "size, implicit": ("size : sequence of ints; implicit : bool, optional",
                       "The shape, as expand's (implicit: PyTorch's flag, ignored)."),
    "dims": ("dims : sequence of ints", "The new order of the dimensions."),
    "dim": ("dim : int", "The dimension."),
    "dim0, dim1": ("dim0, dim1 : int", "The dimensions to swap."),
    "offset, dim1, dim2": ("offset, dim1, dim2 : int, optional",
                           "The diagonal and its plane (default 0, 0 and 1)."),
    "dimension, size, step": ("dimension, size, step : int",
                              "The dimension, the window's size and the step."),
    "split_size": ("split_size : int", "The size of each piece (the last may be smaller)."),
    "split_sizes": ("split_sizes : sequence of ints", "The sizes of the pieces."),
    "stride, storage_offset": ("stride : sequence of ints; storage_offset : int, optional",
                               "The view's strides and first storage element."),
    "start, length": ("start, length : int", "The first index and how many."),
    "index": ("index : int", "The index along dim (negative: from the end)."),
    "slice": ("dim, start, end, step : int, optional",
              "The dimension (default 0) and its slice start:end:step (default the whole, "
              "step 1)."),
}
_SPECS = [  # (function, call, parameters, example arguments, result, multi, raises)
    (view_copy, "input.view(size)", ("size, dtype",), "x, (3, 2)",
     "tensor([[0., 1.],\n            [2., 3.],\n            [4., 5.]])", False,
     "RuntimeError\n        When size does not fit input's elements."),
    (expand_copy, "input.expand(size)", ("size, implicit",), "x[:1], (2, 3)",
     "tensor([[0., 1., 2.],\n            [0., 1., 2.]])", False,
     "RuntimeError\n        When a dimension of input that is not 1 differs from size."),
    (permute_copy, "input.permute(dims)", ("dims",), "x, (1, 0)",
     "tensor([[0., 3.],\n            [1., 4.],\n            [2., 5.]])", False,
     "RuntimeError\n        When dims is not a permutation of input's dimensions."),
    (transpose_copy, "input.transpose(dim0, dim1)", ("dim0, dim1",), "x, 0, 1",
     "tensor([[0., 3.],\n            [1., 4.],\n            [2., 5.]])", False,
     "IndexError\n        When a dim is out of range."),
    (t_copy, "input.t()", (), "x",
     "tensor([[0., 3.],\n            [1., 4.],\n            [2., 5.]])", False,
     "RuntimeError\n        When input has more than 2 dimensions."),
    (squeeze_copy, "input.squeeze(dim)", ("dim",), "x[:1]", "tensor([0., 1., 2.])", False,
     "IndexError\n        When dim is out of range."),
    (unsqueeze_copy, "input.unsqueeze(dim)", ("dim",), "x[0], 0",
     "tensor([[0., 1., 2.]])", False, "IndexError\n        When dim is out of range."),
    (diagonal_copy, "input.diagonal(offset, dim1, dim2)", ("offset, dim1, dim2",), "x",
     "tensor([0., 4.])", False, "RuntimeError\n        When dim1 and dim2 are the same."),
    (unfold_copy, "input.unfold(dimension, size, step)", ("dimension, size, step",),
     "x[0], 0, 2, 1", "tensor([[0., 1.],\n            [1., 2.]])", False,
     "RuntimeError\n        When size is larger than the dimension, or step not positive."),
    (unbind_copy, "input.unbind(dim)", ("dim",), "x",
     "(tensor([0., 1., 2.]), tensor([3., 4., 5.]))", True,
     "IndexError\n        When dim is out of range."),
    (split_copy, "split(input, split_size, dim)", ("split_size", "dim"), "x, 2, 1",
     "(tensor([[0., 1.],\n            [3., 4.]]), tensor([[2.],\n            [5.]]))", True,
     "TypeError\n        When split_size is not an int (split_with_sizes_copy takes lists)."),
    (split_with_sizes_copy, "split_with_sizes(input, split_sizes, dim)",
     ("split_sizes", "dim"), "x, [1, 1]",
     "(tensor([[0., 1., 2.]]), tensor([[3., 4., 5.]]))", True,
     "RuntimeError\n        When the sizes do not add up to the dimension's size."),
    (alias_copy, "input", (), "x[0]", "tensor([0., 1., 2.])", False,
     "TypeError\n        When input is not a Tensor."),
    (detach_copy, "input.detach()", (), "x[0]", "tensor([0., 1., 2.])", False,
     "TypeError\n        When input is not a Tensor."),
    (as_strided_copy, "as_strided(input, size, stride, storage_offset)",
     ("size", "stride, storage_offset"), "x, (2, 2), (1, 2)",
     "tensor([[0., 2.],\n            [1., 3.]])", False,
     "ValueError\n        When the view would reach outside input's storage."),
    (narrow_copy, "input.narrow(dim, start, length)", ("dim", "start, length"), "x, 1, 1, 2",
     "tensor([[1., 2.],\n            [4., 5.]])", False,
     "RuntimeError\n        When start + length exceeds the dimension's size."),
    (select_copy, "input.select(dim, index)", ("dim", "index"), "x, 1, -1",
     "tensor([2., 5.])", False, "IndexError\n        When dim or index is out of range."),
    (slice_copy, "input[..., start:end:step] along dim", ("slice",), "x, 1, 0, 3, 2",
     "tensor([[0., 2.],\n            [3., 5.]])", False,
     "InvalidArgumentError\n        (a ValueError and a RuntimeError) When step is not "
     "positive; IndexError when dim is out of range."),
]
for _fn, _call, _names, _example, _result, _multi, _raises in _SPECS:
    _out_type, _out_returns, _returns = _MANY if _multi else _ONE
    _fn.__doc__ = _DOC.format(
        call=_call, name=_fn.__name__, s="s" if _multi else "",
        grad=("none (the result is detached)" if _fn is detach_copy else
              f"the view op's ({_call.split('(')[0]})"),
        method=" (also the method ``x.narrow_copy(dim, start, length)``)"
        if _fn is narrow_copy else "",
        params="".join(f"    {_PARAMS[n][0]}\n        {_PARAMS[n][1]}\n" for n in _names),
        out_type=_out_type, out_returns=_out_returns, returns=_returns, raises=_raises,
        example=_example, result=_result)


def _narrow_copy_method(self, dim, start, length):
    return narrow_copy(self, dim, start, length)


_narrow_copy_method.__doc__ = narrow_copy.__doc__
_narrow_copy_method.__name__ = "narrow_copy"
_narrow_copy_method.__qualname__ = "Tensor.narrow_copy"
_C.Tensor.narrow_copy = _narrow_copy_method
