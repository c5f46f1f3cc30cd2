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
permute, so autograd sees three recorded ops.  The convolutions and pools give a
channels-last result for a channels-last input (``keeps_channels_last``), by PyTorch's
rule for the format a tensor's strides suggest (``suggested_format``).
"""
from __future__ import annotations

import functools

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


def suggested_format(x) -> memory_format | None:
    """channels_last (channels_last_3d) when x is a 4-d (5-d) tensor whose strides are
    ordered as that format's, by PyTorch's rule (``suggest_memory_format``): the strides
    grow through C, W, H (D), N, a size-1 dim taking its neighbour's; an ambiguous
    layout (N111, or a size-0 dim) is row-major.  None otherwise."""
    if not isinstance(x, _C.Tensor) or x.ndim not in (4, 5):
        return None
    sizes, strides = x.shape, x.stride()
    if strides[1] == 0:
        return None
    least = 0
    for d in (1, 3, 2, 0) if x.ndim == 4 else (1, 4, 3, 2, 0):
        if sizes[d] == 0 or strides[d] < least or (d == 0 and least == strides[1]):
            return None
        least = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return channels_last if x.ndim == 4 else channels_last_3d


def _laid_out_as(t, fmt: memory_format | None):
    """t row-major (fmt None), or t or a copy of it with fmt's strides, PyTorch's for a
    new tensor in fmt (a size-1 dim's stride the product of the sizes inside it: (2, 3,
    1, 1) channels_last is (3, 1, 3, 3)) when t has fmt's rank."""
    from ._tensor_resize import _strides
    if fmt is None:
        return t.contiguous()
    if t.ndim != (4 if fmt is channels_last else 5):
        return t
    return t if t.stride() == _strides(t.shape, fmt, "") else t.clone(memory_format=fmt)


def keeps_channels_last(with_weight: bool = False, follows: bool = True):
    """Makes fn(input, ...)'s results row-major, or, follows, channels_last
    (channels_last_3d) when input's strides suggest that format (suggested_format) or,
    with_weight, those of fn's second argument (a convolution's weight), as PyTorch's
    convolutions and pools lay out their results: at most one copy of fn's result."""
    def wrap(fn):
        @functools.wraps(fn)
        def laid_out(input, *args, **kwargs):
            out = fn(input, *args, **kwargs)
            fmt = suggested_format(input) if follows else None
            if fmt is None and follows and with_weight:
                fmt = suggested_format(args[0] if args else kwargs.get("weight"))
            if isinstance(out, tuple):
                return tuple(_relaid(t, fmt) for t in out)
            return _relaid(out, fmt)
        return laid_out
    return wrap


def _relaid(t, fmt: memory_format | None):
    """_laid_out_as(t, fmt); a copy made of a result that autograd recorded takes the
    result's node, unrecorded (the op's own, as PyTorch's pools and convolutions lay out
    their result inside the op: the copy's node was PermuteBackward0 or CloneBackward0
    where it was MaxPool2DWithIndicesBackward0, AdaptiveAvgPool2DBackward0, ...)."""
    fn = t.grad_fn if isinstance(t, _C.Tensor) else None
    if fn is None:
        return _laid_out_as(t, fmt)
    was = _C._set_grad_enabled(False)
    try:
        new = _laid_out_as(t, fmt)
    finally:
        _C._set_grad_enabled(was)
    if new is not t:
        new._set_grad_fn(fn, t.output_nr)
    return new


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
