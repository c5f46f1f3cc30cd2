"""Memory formats, as PyTorch's: ``pydevtensor.contiguous_format``,
``channels_last``, ``channels_last_3d`` and ``preserve_format``, and the methods that
take them: ``Tensor.clone(memory_format=)``, ``Tensor.contiguous(memory_format=)``,
``Tensor.is_contiguous(memory_format=)`` and ``pydevtensor.clone``.

A channels-last tensor is an (N, C, H, W) tensor whose strides are those of a
row-major (N, H, W, C) one: made by a permute, a row-major copy and the inverse
permute, so autograd sees three recorded ops.  The strings 'contiguous_format',
'channels_last', 'channels_last_3d' and 'preserve_format' are accepted too.

Tensor.clone and Tensor.contiguous stay the C methods when called without a memory
format (this module wraps them: one Python call more).
"""
from __future__ import annotations

from typing import Any

from . import _C

_clone_c = _C.Tensor.clone
_contiguous_c = _C.Tensor.contiguous
_is_contiguous_c = _C.Tensor.is_contiguous
_to_c = _C.Tensor.to


def _by_name(name: str) -> "memory_format":
    return _FORMATS[name]


class memory_format:
    """A tensor memory layout, as ``torch.memory_format``; its values are the
    module's constants ``contiguous_format``, ``channels_last``, ``channels_last_3d``
    and ``preserve_format``.

    Parameters
    ----------
    name : str
        One of the four names (the constants are the only instances).

    Examples
    --------
    >>> pydevtensor.channels_last
    pydevtensor.channels_last
    >>> x = pydevtensor.ones(2, 3, 4, 5).contiguous(memory_format=pydevtensor.channels_last)
    >>> x.stride(), x.is_contiguous(memory_format=pydevtensor.channels_last)
    ((60, 1, 15, 3), True)
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        if name in _FORMATS:
            raise TypeError(f"memory_format: {name} exists already: use pydevtensor.{name}")
        self._name = name

    def __repr__(self) -> str:
        return f"pydevtensor.{self._name}"

    def __reduce__(self):
        return _by_name, (self._name,)


_FORMATS: dict = {}
for _name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
    _FORMATS[_name] = memory_format(_name)
contiguous_format = _FORMATS["contiguous_format"]
channels_last = _FORMATS["channels_last"]
channels_last_3d = _FORMATS["channels_last_3d"]
preserve_format = _FORMATS["preserve_format"]
_ORDER = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def _format(value: Any, where: str) -> memory_format:
    """value (a memory_format, one of their names, or None for preserve_format) as a
    memory_format."""
    if value is None:
        return preserve_format
    if isinstance(value, memory_format):
        return value
    if isinstance(value, str) and value in _FORMATS:
        return _FORMATS[value]
    raise TypeError(f"{where}: memory_format must be a pydevtensor.memory_format "
                    f"(pydevtensor.contiguous_format, channels_last, channels_last_3d or "
                    f"preserve_format), got {value!r}")


def _rank(x, fmt: memory_format, where: str) -> tuple:
    rank, perm = _ORDER[fmt]
    if x.ndim != rank:
        raise _C.InvalidArgumentError(
            f"{where}: required rank {rank} tensor to use {fmt._name} format, got shape "
            f"{tuple(x.shape)} (on {x.device})")
    return perm


def _strides_follow(x, perm: tuple) -> bool:
    """Whether x's strides are those of a row-major tensor with its dims in perm's
    order (size-1 dims match any stride, as PyTorch)."""
    expected = 1
    shape, strides = x.shape, x.stride()
    for d in reversed(perm):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _permuted_copy(x, perm: tuple):
    """A copy of x with its elements in perm's order (x's shape, channels-last
    strides)."""
    inverse = tuple(sorted(range(len(perm)), key=perm.__getitem__))
    y = x.permute(*perm)
    y = _clone_c(y) if _is_contiguous_c(y) else _contiguous_c(y)
    return y.permute(*inverse)


def clone_as(x, fmt: Any, where: str):
    """x.clone(memory_format=fmt)."""
    fmt = _format(fmt, where)
    if fmt is preserve_format:
        return _clone_c(x)
    if fmt is contiguous_format:
        return _contiguous_c(x) if not _is_contiguous_c(x) else _clone_c(x)
    return _permuted_copy(x, _rank(x, fmt, where))


def _tensor_clone(self, *, memory_format=preserve_format):
    """A copy on the same device, in the layout memory_format asks for.

    Parameters
    ----------
    memory_format : pydevtensor.memory_format, optional
        preserve_format (default: the copy keeps a dense input's strides, a
        transposed input gives a transposed copy), contiguous_format (row-major),
        channels_last (4-d) or channels_last_3d (5-d).

    Returns
    -------
    Tensor
        A new tensor with self's values, dtype and device; autograd records it.

    Raises
    ------
    TypeError
        When memory_format is not a memory format.
    ValueError
        (InvalidArgumentError, also a RuntimeError) for channels_last of a tensor not
        4-d (channels_last_3d: not 5-d).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> y = x.clone()
    >>> y.data_ptr() != x.data_ptr(), pydevtensor.equal(x, y)
    (True, True)
    >>> x.t().clone().stride(), x.t().clone(memory_format=pydevtensor.contiguous_format).stride()
    ((1, 3), (2, 1))
    """
    if memory_format is preserve_format:
        return _clone_c(self)
    return clone_as(self, memory_format, "clone()")


def _tensor_contiguous(self, memory_format=contiguous_format):
    """Itself when laid out as memory_format asks (row-major by default), else a copy
    that is.

    Parameters
    ----------
    memory_format : pydevtensor.memory_format, optional
        contiguous_format (default), channels_last (4-d) or channels_last_3d (5-d).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When memory_format is not a memory format.
    ValueError
        (InvalidArgumentError, also a RuntimeError) for preserve_format, and for
        channels_last of a tensor not 4-d (channels_last_3d: not 5-d).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> x.contiguous() is x
    True
    >>> x.t().contiguous().is_contiguous()
    True
    >>> pydevtensor.ones(1, 3, 2, 2).contiguous(memory_format=pydevtensor.channels_last).stride()
    (12, 1, 6, 3)
    """
    if memory_format is contiguous_format:
        return _contiguous_c(self)
    fmt = _format(memory_format, "contiguous()")
    if fmt is contiguous_format:
        return _contiguous_c(self)
    if fmt is preserve_format:
        raise _C.InvalidArgumentError(f"contiguous(): preserve memory format is unsupported by "
                                      f"the contiguous operator (tensor of shape "
                                      f"{tuple(self.shape)} on {self.device})")
    perm = _rank(self, fmt, "contiguous()")
    return self if _strides_follow(self, perm) else _permuted_copy(self, perm)


def _tensor_is_contiguous(self, memory_format=contiguous_format):
    """Whether the elements are laid out as memory_format says: row-major by default,
    or channels-last.

    Parameters
    ----------
    memory_format : pydevtensor.memory_format, optional
        contiguous_format (default), channels_last or channels_last_3d (a tensor of
        another rank is not).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When memory_format is not a memory format.
    ValueError
        For preserve_format.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    >>> pydevtensor.ones(2, 3, 4, 5).is_contiguous(memory_format=pydevtensor.channels_last)
    False
    """
    if memory_format is contiguous_format:
        return _is_contiguous_c(self)
    fmt = _format(memory_format, "is_contiguous()")
    if fmt is contiguous_format:
        return _is_contiguous_c(self)
    if fmt is preserve_format:
        raise _C.InvalidArgumentError("is_contiguous(): preserve memory format is unsupported "
                                      "by the contiguous operator")
    rank, perm = _ORDER[fmt]
    return self.ndim == rank and _strides_follow(self, perm)


def in_layout(x, fmt: Any, where: str):
    """x itself when its strides already follow fmt (a memory_format; preserve_format:
    any), else a copy that does (Tensor.to's and Module.to's memory_format)."""
    fmt = _format(fmt, where)
    if fmt is preserve_format:
        return x
    if fmt is contiguous_format:
        return _contiguous_c(x)
    rank, perm = _ORDER[fmt]
    if x.ndim == rank and _strides_follow(x, perm):
        return x
    return _permuted_copy(x, _rank(x, fmt, where))


def _tensor_to(self, *args, memory_format=None, **kwargs):
    out = _to_c(self, *args, **kwargs)
    return out if memory_format is None else in_layout(out, memory_format, "to()")


_tensor_to.__doc__ = (_to_c.__doc__.replace("""copy : bool, optional
    Copy even when nothing changes.""", """copy : bool, optional
    Copy even when nothing changes.
memory_format : pydevtensor.memory_format, optional
    The layout of the result (channels_last: 4-d; channels_last_3d: 5-d): a copy when
    the tensor is not laid out so (default: preserve_format)."""))
_tensor_to.__name__ = _tensor_to.__qualname__ = "to"

_C.Tensor.clone = _tensor_clone
_C.Tensor.contiguous = _tensor_contiguous
_C.Tensor.is_contiguous = _tensor_is_contiguous
_C.Tensor.to = _tensor_to

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format"]
