"""Memory formats, as PyTorch's: ``pydevtensor.contiguous_format``,
``channels_last``, ``channels_last_3d`` and ``preserve_format``.  The methods that
take them are the C methods ``Tensor.clone(memory_format=)``,
``Tensor.contiguous(memory_format=)``, ``Tensor.is_contiguous(memory_format=)`` and
``Tensor.to(memory_format=)`` (csrc/python/memory_format.c and tensor_copy.c), which
recognise the four objects made here (installed by ``_C._set_memory_formats``) and
their names as strings.  ``layout`` and its one value ``strided`` (PyTorch's default
layout, the only one here) live here too.

A channels-last tensor is an (N, C, H, W) tensor whose strides are those of a
row-major (N, H, W, C) one: made by a permute, a row-major copy and the inverse
permute, so autograd sees three recorded ops.
"""
from __future__ import annotations

from . import _C


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
_C._set_memory_formats(preserve_format, contiguous_format, channels_last, channels_last_3d)



class layout:
    """A tensor layout, as ``torch.layout``: pydevtensor's tensors are all dense and
    strided, so its one value is ``pydevtensor.strided`` (PyTorch's default layout),
    which the factories that take ``layout=`` (``tril_indices``, ``triu_indices``,
    ``Tensor.new_empty_strided``) accept, as they accept None.

    Parameters
    ----------
    name : str
        The layout's name ("strided": the constant is the only instance).

    Examples
    --------
    >>> pydevtensor.strided
    pydevtensor.strided
    >>> pydevtensor.tril_indices(2, 2, layout=pydevtensor.strided)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        if name == "strided" and "strided" in globals():
            raise TypeError("layout: strided exists already: use pydevtensor.strided")
        self._name = name

    def __repr__(self) -> str:
        return f"pydevtensor.{self._name}"

    def __reduce__(self):
        return _layout_by_name, (self._name,)


def _layout_by_name(name: str) -> layout:
    return strided


strided = layout("strided")


def _check_layout(value, op: str) -> None:
    """Refuses a layout= other than None and pydevtensor.strided, naming it."""
    if value is not None and value is not strided:
        raise ValueError(f"{op}(): only the strided layout (pydevtensor.strided) is "
                         f"supported, got {value!r}")


__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "layout", "strided"]
