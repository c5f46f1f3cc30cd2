"""Tensor methods of PyTorch's about a tensor's size and parts: ``resize_`` and
``resize_as_``, ``is_same_size``, ``new_empty_strided`` and the ``real`` and ``imag``
properties of a real tensor.

Note [resize_]
~~~~~~~~~~~~~~
``x.resize_(sizes)`` gives x the sizes with contiguous strides from its storage
offset, as PyTorch's: when the storage holds them, x stays a view of the same memory
(its leading values kept, shared with the other views of that storage); when not, x
gets a new storage of the size needed, the old storage's values copied to its start.
PyTorch grows the storage itself, so the other views of the old storage see the new
one; here they keep the old memory (nothing is freed under them).  The same sizes
leave x as it is (its strides too).  Tensors that require grad are refused, as
PyTorch refuses them.  New sizes bump x's version once, as PyTorch's (a new storage
starts at x's old version: the counter is the storage's, Note [version counter] in
csrc/core/pdt_tensor.h); new strides alone (a memory_format) do not.
"""
import builtins

from . import _C
from ._memory_format import channels_last, channels_last_3d, contiguous_format

__all__ = []


def _strides(size, memory_format, op):
    """The row-major strides of size, or those of memory_format (channels_last: 4-d,
    channels_last_3d: 5-d, the channels dim last in memory)."""
    if memory_format is None or memory_format is contiguous_format:
        order = list(range(len(size)))
    elif memory_format is channels_last or memory_format is channels_last_3d:
        rank = 4 if memory_format is channels_last else 5
        if len(size) != rank:
            raise RuntimeError(f"{op}(): required rank {rank} tensor to use {memory_format} "
                               f"format, got the sizes {tuple(size)}")
        order = [0] + list(range(2, rank)) + [1]
    else:
        raise RuntimeError(f"{op}(): unsupported memory format {memory_format!r}")
    strides, step = [0] * len(size), 1
    for d in reversed(order):
        strides[d] = step
        step *= builtins.max(size[d], 1)
    return tuple(strides)


def _size_keyword(sizes, size, name):
    """sizes, or (size,) when the sizes came by the keyword size= (PyTorch's name)."""
    if size is None:
        return sizes
    if sizes:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (size,)


def _resize_(self, *sizes, size=None, memory_format=None):
    """Gives this tensor the sizes, in place, with contiguous strides from its storage
    offset (PyTorch's ``Tensor.resize_``; ``Note [resize_]`` in _tensor_resize.py):
    the leading values of its storage are kept, and a storage too small is replaced
    by a larger one holding the old values first.  The same sizes change nothing.

    Parameters
    ----------
    *sizes : int or sequence of ints
        The new sizes (``x.resize_(2, 3)`` or ``x.resize_((2, 3))``), none negative.
    size : sequence of ints, optional
        The new sizes by keyword (``x.resize_(size=(2, 3))``), instead of sizes.
    memory_format : memory_format, optional
        contiguous_format (the default), or channels_last (4-d) or channels_last_3d (5-d).

    Returns
    -------
    Tensor
        This tensor.

    Raises
    ------
    RuntimeError
        When the tensor requires grad, a size is negative, or the memory format does
        not fit the sizes.
    TypeError
        When a size is not an int.

    Examples
    --------
    >>> x = pydevtensor.arange(6.)
    >>> x.resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    >>> x.resize_(3, 2)
    tensor([[0., 1.],
            [2., 3.],
            [4., 5.]])
    """
    from ._ops_join import _sizes
    sizes = _size_keyword(sizes, size, "resize_")
    if self.requires_grad:
        raise RuntimeError(f"cannot resize variables that require grad (a tensor of shape "
                           f"{tuple(self.shape)} on {self.device}); resize its detach() or "
                           f"make a new tensor")
    size = _sizes(sizes, "resize_")
    if builtins.any(s < 0 for s in size):
        raise RuntimeError(f"resize_(): Trying to create tensor with negative dimension: "
                           f"{size} (a tensor of shape {tuple(self.shape)} on {self.device})")
    strides = _strides(size, memory_format, "resize_")
    if size == tuple(self.shape) and (memory_format is None or self.is_contiguous(
            memory_format=memory_format)):
        return self
    n = 1
    for s in size:
        n *= s
    offset = self.storage_offset()
    capacity = self._storage_nbytes() // self.element_size()
    version = self._version + (size != tuple(self.shape))
    base = self
    if offset + n > capacity and self._storage_is_foreign():
        # another library's memory (from_numpy, as_tensor, from_dlpack): growing it would
        # quietly end the sharing, so PyTorch refuses, and so does pydevtensor
        raise RuntimeError(f"resize_(): Trying to resize storage that is not resizable: "
                           f"it is shared with another library's array (from_numpy, "
                           f"as_tensor or from_dlpack) and holds {capacity} elements, "
                           f"{offset + n} needed for sizes {tuple(size)} (on "
                           f"{self.device})")
    if offset + n > capacity:  # a larger storage, the old values first
        base = _C.empty((offset + n,), dtype=self.dtype, device=self.device)
        if capacity:  # nothing to record: self does not require grad
            base[:capacity].copy_(_C._as_strided(self, (capacity,), (1,), 0))
    self.data = _C._as_strided(base, size, strides, offset)
    for _ in range(version - self._version):  # once, or up to the old count on a new storage
        self._bump_version()
    return self


def _resize_as_(self, the_template, *, memory_format=None):
    """``self.resize_(the_template.shape)`` (PyTorch's ``Tensor.resize_as_``): this tensor
    given the template's sizes, in place; its dtype and device stay its own.

    Parameters
    ----------
    the_template : Tensor
        The tensor whose sizes to take.
    memory_format : memory_format, optional
        As for ``resize_``.

    Returns
    -------
    Tensor
        This tensor.

    Raises
    ------
    TypeError
        When the_template is not a Tensor.
    RuntimeError
        When this tensor requires grad.

    Examples
    --------
    >>> pydevtensor.arange(6.).resize_as_(pydevtensor.zeros(2, 2, dtype=pydevtensor.int64))
    tensor([[0., 1.],
            [2., 3.]])
    """
    if not isinstance(the_template, _C.Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' must be Tensor, not "
                        f"{type(the_template).__name__}")
    return _resize_(self, tuple(the_template.shape), memory_format=memory_format)


def _is_same_size(self, other):
    """Whether other has this tensor's sizes (dtypes and devices aside), as PyTorch's
    Tensor.is_same_size.

    Parameters
    ----------
    other : Tensor
        The tensor to compare with.

    Returns
    -------
    bool
        ``self.shape == other.shape``.

    Raises
    ------
    TypeError
        When other is not a Tensor.

    Examples
    --------
    >>> pydevtensor.zeros(2, 3).is_same_size(pydevtensor.ones(2, 3, dtype=pydevtensor.int64))
    True
    """
    if not isinstance(other, _C.Tensor):
        raise TypeError(f"is_same_size(): argument 'other' must be Tensor, not "
                        f"{type(other).__name__}")
    return tuple(self.shape) == tuple(other.shape)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                       layout=None, pin_memory=False):
    """``pydevtensor.empty_strided(size, stride)`` with this tensor's dtype and device,
    unless dtype= or device= say otherwise (PyTorch's Tensor.new_empty_strided).

    Parameters
    ----------
    size, stride : sequence of ints
        The shape and the strides (in elements), of one length.
    dtype : pydevtensor.dtype, optional
        Default: this tensor's.
    device : device or str, optional
        Default: this tensor's.
    requires_grad : bool, optional
        Whether autograd records operations on the result (default False).
    layout : layout, optional
        pydevtensor.strided (the only one) or None.
    pin_memory : bool, optional
        As empty_strided's.

    Returns
    -------
    Tensor
        A new tensor, its values not set.

    Raises
    ------
    ValueError
        When size and stride differ in length or hold a negative number.

    Examples
    --------
    >>> x = pydevtensor.zeros(2, dtype=pydevtensor.float64)
    >>> y = x.new_empty_strided((2, 3), (1, 2))
    >>> y.stride(), y.dtype
    ((1, 2), pydevtensor.float64)
    """
    from ._memory_format import _check_layout
    from ._ops_small_names import empty_strided
    _check_layout(layout, "new_empty_strided")
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device,
                         requires_grad=requires_grad, pin_memory=pin_memory)


def _real(self):
    """The real part: this tensor itself (pydevtensor's tensors are real), as
    PyTorch's ``x.real`` of a real tensor.

    Examples
    --------
    >>> x = pydevtensor.tensor([1.5, -2.0])
    >>> x.real is x
    True
    """
    return self


def _imag(self):
    """The imaginary part, which real tensors have not: reading it raises PyTorch's
    TypeError (pydevtensor has no complex dtypes).

    Examples
    --------
    >>> pydevtensor.tensor([1.5]).imag
    Traceback (most recent call last):
        ...
    TypeError: imag is not implemented for tensors with non-complex dtypes (float32).
    """
    raise TypeError(f"imag is not implemented for tensors with non-complex dtypes "
                    f"({self.dtype.name}).")


for _name_, _fn in (("resize_", _resize_), ("resize_as_", _resize_as_),
                    ("is_same_size", _is_same_size),
                    ("new_empty_strided", _new_empty_strided)):
    _fn.__name__, _fn.__qualname__ = _name_, f"Tensor.{_name_}"
    setattr(_C.Tensor, _name_, _fn)
_C.Tensor.real = property(_real, doc=_real.__doc__)
_C.Tensor.imag = property(_imag, doc=_imag.__doc__)
