"""Storages with PyTorch's names: Tensor.untyped_storage() and Tensor.storage(), the
UntypedStorage and TypedStorage they return, Tensor.is_set_to and Tensor.set_.

A storage object holds a tensor that views the whole storage (made by as_strided
from the tensor asked), never a bare address: the memory stays alive as long as the
storage object does, whatever happens to the tensor it came from (``t.data = other``,
``t.set_(other)``).  Its data_ptr() is the storage's base address, that of every view
of it, as PyTorch's.

set_ never grows a storage: PyTorch's resizes one that is too small for the size and
strides asked, which every other view of it would see; here that is refused, as
as_strided refuses it.  share_memory_ is not offered (no multiprocessing support).
"""

from . import _C
from ._runtime_flags import warn_once


def _whole(t):
    """A 1-d tensor of t's dtype over t's whole storage (no autograd record)."""
    n = t._storage_nbytes() // t.element_size()
    return _C._as_strided(t.detach(), (n,), (1,), 0)


class _Storage:
    """What both storages offer over their tensor _values (1-d, the whole storage)."""

    __slots__ = ("_values",)

    @property
    def device(self):
        """The storage's device."""
        return self._values.device

    def data_ptr(self):
        """The storage's base address (0 for an empty one)."""
        return self._values.data_ptr()

    def nbytes(self):
        """The storage's size in bytes."""
        return self._values.numel() * self._values.element_size()

    def element_size(self):
        return self._values.element_size()

    def size(self):
        """The storage's size in its elements (bytes for an UntypedStorage)."""
        return self._values.numel()

    def __len__(self):
        return self._values.numel()

    def __getitem__(self, i):
        if not isinstance(i, int):
            raise TypeError(f"{type(self).__name__} indices must be integers, got "
                            f"{type(i).__name__}")
        return self._values[i].item()

    def __setitem__(self, i, value):
        self._values[i] = value

    def tolist(self):
        return self._values.tolist()

    def is_shared(self):
        """Whether the storage is in shared memory: device memory is, as PyTorch says;
        host memory is not (pydevtensor has no share_memory_)."""
        return self._values.device.type != "cpu"

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return f"pydevtensor.{type(self).__name__}({self.tolist()}{self._describe()})"

class UntypedStorage(_Storage):
    """A tensor's storage as bytes, as PyTorch's ``torch.UntypedStorage``: what
    ``x.untyped_storage()`` returns.  It keeps the memory alive (it holds a view of
    the whole storage).

    Parameters
    ----------
    size : int, optional
        A new storage of that many zero bytes (default 0).
    device : str or pydevtensor.device, optional
        Its device.

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, 2.0, 3.0])
    >>> s = x[1:].untyped_storage()
    >>> s.data_ptr() == x.data_ptr(), s.nbytes(), len(s), s.element_size()
    (True, 12, 12, 1)
    >>> s[7]
    64
    """

    __slots__ = ()

    def __init__(self, size=0, *, device=None):
        self._values = _C.zeros((size,), dtype=_C.uint8, device=device)

    @classmethod
    def _of(cls, whole):
        new = cls.__new__(cls)
        new._values = whole.view(_C.uint8)
        return new

    def _describe(self):
        return f", device={self.device}"

    def cpu(self):
        """The storage's bytes in host memory (itself when there already).

        Returns
        -------
        UntypedStorage

        Examples
        --------
        >>> pydevtensor.ones(1, dtype=pydevtensor.int16).untyped_storage().cpu().tolist()
        [1, 0]
        """
        return self if self.device.type == "cpu" else UntypedStorage._of(self._values.cpu())


class TypedStorage(_Storage):
    """A tensor's storage as elements of its dtype, as PyTorch's (deprecated there)
    ``torch.TypedStorage``: what ``x.storage()`` returns, with a UserWarning the first
    time, as PyTorch's.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     s = pydevtensor.tensor([1.0, 2.0, 3.0])[1:].storage()
    >>> s.dtype, s.size(), s[0], s.tolist()
    (pydevtensor.float32, 3, 1.0, [1.0, 2.0, 3.0])
    """

    __slots__ = ()

    def __init__(self):
        raise TypeError("TypedStorage: take a tensor's with x.storage()")

    @classmethod
    def _of(cls, whole):
        new = cls.__new__(cls)
        new._values = whole
        return new

    @property
    def dtype(self):
        """The storage's dtype.

        Examples
        --------
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     pydevtensor.zeros(2, dtype=pydevtensor.int8).storage().dtype
        pydevtensor.int8
        """
        return self._values.dtype

    def _describe(self):
        return f", dtype={self.dtype}, device={self.device}"

    def untyped(self):
        """The same storage as bytes.

        Returns
        -------
        UntypedStorage

        Examples
        --------
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     pydevtensor.zeros(2).storage().untyped().nbytes()
        8
        """
        return UntypedStorage._of(self._values)

    def cpu(self):
        """The storage's elements in host memory (itself when there already).

        Returns
        -------
        TypedStorage

        Examples
        --------
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     pydevtensor.ones(2).storage().cpu().tolist()
        [1.0, 1.0]
        """
        return self if self.device.type == "cpu" else TypedStorage._of(self._values.cpu())


_warned = set()  # the TypedStorage warning: given once


def untyped_storage(self):
    """The storage self views, as bytes (PyTorch's): its data_ptr() is the storage's
    base address, shared by every view of it.

    Returns
    -------
    UntypedStorage
        Keeps the storage alive.

    Examples
    --------
    >>> x = pydevtensor.arange(6.0)
    >>> x[2:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    True
    >>> x[2:].untyped_storage().nbytes()
    24
    """
    return UntypedStorage._of(_whole(self))


def storage(self):
    """The storage self views, as elements of self's dtype (PyTorch's: TypedStorage is
    deprecated there, and the first call warns, as PyTorch's does).

    Returns
    -------
    TypedStorage
        Keeps the storage alive.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.arange(4)[1:].storage().size()
    4
    """
    warn_once(_warned, "storage", "TypedStorage is deprecated. It will be removed in the future "
              "and UntypedStorage will be the only storage class. This should only matter to "
              "you if you are using storages directly.  To access UntypedStorage directly, use "
              "tensor.untyped_storage() instead of tensor.storage()", 2)
    return TypedStorage._of(_whole(self))


def _base_address(t):
    return t.data_ptr() - t.storage_offset() * t.element_size()


def is_set_to(self, tensor):
    """Whether self and tensor view the same storage with the same offset, shape and
    strides (PyTorch's).  Storages without bytes have no address to compare: only a
    tensor is set to itself there.

    Parameters
    ----------
    tensor : Tensor

    Returns
    -------
    bool

    Examples
    --------
    >>> x = pydevtensor.arange(4.0)
    >>> x.is_set_to(x.view(4)), x.is_set_to(x[1:])
    (True, False)
    """
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"is_set_to(): expected a Tensor, got {type(tensor).__name__}")
    if self is tensor:
        return True
    return (self.device == tensor.device and self._storage_nbytes() > 0
            and self._storage_nbytes() == tensor._storage_nbytes()
            and _base_address(self) == _base_address(tensor)
            and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride())


def _target(self, source, storage_offset, size, stride):
    """The view of source's storage that set_ makes self."""
    if source is None:
        return _C.empty((0,), dtype=self.dtype, device=self.device)
    if isinstance(source, (_Storage, _C.Tensor)):
        whole = source._values if isinstance(source, _Storage) else _whole(source)
    else:
        raise TypeError(f"set_(): source must be a Tensor or a storage, got "
                        f"{type(source).__name__}")
    if isinstance(source, UntypedStorage):
        if whole.numel() % self.element_size():
            raise RuntimeError(f"set_(): a storage of {whole.numel()} bytes does not hold "
                               f"whole {self.dtype} elements (on {whole.device})")
        whole = whole.view(self.dtype)
    if whole.dtype != self.dtype:
        raise RuntimeError(f"set_(): could not set a tensor of {self.dtype} to a source of "
                           f"{whole.dtype} (on {whole.device})")
    if whole.device != self.device:
        raise _C.DeviceError(f"set_(): self is on {self.device}, the source on "
                             f"{whole.device}")
    if isinstance(source, _C.Tensor) and size is None and not storage_offset:
        return source.detach()  # source's shape, strides and offset
    offset = int(storage_offset)
    size = (whole.numel() - offset,) if size is None else tuple(size)
    if stride is None or not tuple(stride):
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    # as_strided refuses a view beyond the storage (PyTorch would grow it)
    return _C._as_strided(whole, size, tuple(stride), offset)


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Makes self view source's storage (PyTorch's, in place): ``x.set_(y)`` takes y's
    storage, shape, strides and offset; with storage_offset, size and stride (a Tensor's
    storage or a storage) that view of it; ``x.set_()`` an empty storage.  A view that
    would reach past the storage is refused (PyTorch grows the storage).  ``set_`` is not
    differentiable: under grad mode self and source may not require grad.

    Parameters
    ----------
    source : Tensor, UntypedStorage or TypedStorage, optional
        Of self's dtype and device (an UntypedStorage: bytes read as self's dtype).
    storage_offset : int, optional
        In elements.
    size, stride : sequence of int, optional
        The view's shape (default: the rest of the storage, 1-d) and strides (default
        contiguous).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        For another dtype, a view past the storage, self or source requiring grad
        under grad mode, or self a view of another tensor.

    Examples
    --------
    >>> x, y = pydevtensor.zeros(2), pydevtensor.arange(5.0)
    >>> x.set_(y[1:]), x.is_set_to(y[1:])
    (tensor([1., 2., 3., 4.]), True)
    >>> x.set_(y, 1, (2, 2), (2, 1))
    tensor([[1., 2.],
            [3., 4.]])
    """
    if _C.is_grad_enabled():
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if self.requires_grad or (isinstance(source, _C.Tensor) and source.requires_grad):
            raise RuntimeError("set_() is not differentiable: under grad mode neither self "
                               "nor the source may require grad (use pydevtensor.no_grad())")
    if self._base is not None:
        raise RuntimeError(f"set_(): self is a view of another tensor (shape "
                           f"{tuple(self.shape)}, on {self.device}); call it on a tensor "
                           "that owns its storage")
    target = _target(self, source, storage_offset, size, stride)
    _C.Tensor.data.__set__(self, target)
    self._bump_version()
    return self


__all__ = ["TypedStorage", "UntypedStorage"]

for _n in ("untyped_storage", "storage", "is_set_to", "set_"):
    setattr(_C.Tensor, _n, globals()[_n])
