"""The padding layers: ZeroPad1d/2d, ConstantPad1d/2d, ReflectionPad1d/2d,
ReplicationPad1d/2d and CircularPad1d/2d, :func:`~pydevtensor.nn.functional.pad` as
modules with PyTorch's arguments and repr (D2L's chapter 14 pads images before a
convolution)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._functional_pad import _index, pad
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


_SIDES = ("left, right", "left, right, top, bottom", "left, right, top, bottom, front, back")


def _padding(padding: Any, nd: int, where: str) -> tuple:
    """padding (an int, or 2 * nd ints: left, right, then top, bottom) as a tuple of
    2 * nd ints."""
    if isinstance(padding, bool):
        raise TypeError(f"{where}: padding must be an int or a tuple of {2 * nd} ints, got bool")
    one = _index(padding)  # an int, a NumPy integer
    if one is not None:
        return (one,) * (2 * nd)
    ints = [_index(v) for v in padding] if isinstance(padding, (tuple, list)) else [None]
    if None in ints:
        raise TypeError(f"{where}: padding must be an int or a tuple of {2 * nd} ints, got "
                        f"{padding!r}")
    padding = ints
    if len(padding) != 2 * nd:
        raise ValueError(f"{where}: padding must be an int or a tuple of {2 * nd} ints "
                         f"({_SIDES[nd - 1]}), got "
                         f"{tuple(padding)}")
    return tuple(padding)


class _PadNd(Module):
    """What the padding layers share: the padding as 2 * _nd ints, F.pad in _mode."""

    _nd = 2
    _mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _padding(padding, self._nd, type(self).__name__)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with a constant, as ``torch.nn.ConstantPad2d``.

    Parameters
    ----------
    padding : int or tuple of 4 ints
        (left, right, top, bottom), or one count for all four; negative crops.
    value : float
        The fill.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ConstantPad2d((1, 0, 0, 1), 9.)(pydevtensor.ones(1, 2, 2))
    tensor([[[9., 1., 1.],
             [9., 1., 1.],
             [9., 9., 9.]]])
    """

    _nd = 2


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with a constant, as ``torch.nn.ConstantPad1d``.

    Parameters
    ----------
    padding : int or tuple of 2 ints
        (left, right), or one count for both; negative crops.
    value : float
        The fill.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ConstantPad1d((2, 1), -1.)(pydevtensor.ones(1, 2))
    tensor([[-1., -1.,  1.,  1., -1.]])
    """

    _nd = 1


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros, as ``torch.nn.ZeroPad2d``.

    Parameters
    ----------
    padding : int or tuple of 4 ints
        (left, right, top, bottom), or one count for all four; negative crops.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ZeroPad2d(1)
    ZeroPad2d((1, 1, 1, 1))
    >>> nn.ZeroPad2d((1, 1, 0, 0))(pydevtensor.ones(1, 1, 2))
    tensor([[[0., 1., 1., 0.]]])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros, as ``torch.nn.ZeroPad1d``.

    Parameters
    ----------
    padding : int or tuple of 2 ints
        (left, right), or one count for both; negative crops.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ZeroPad1d((0, 2))(pydevtensor.ones(1, 2))
    tensor([[1., 1., 0., 0.]])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad2d(_PadNd):
    """Pads the last two dimensions of a 3-d or 4-d input with their reflection at
    the edges (the edge not repeated), as ``torch.nn.ReflectionPad2d``; each count
    must be smaller than its dimension.

    Parameters
    ----------
    padding : int or tuple of 4 ints
        (left, right, top, bottom), or one count for all four.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReflectionPad2d((2, 0, 0, 0))(pydevtensor.tensor([[[1., 2., 3.]]]))
    tensor([[[3., 2., 1., 2., 3.]]])
    """

    _nd, _mode = 2, "reflect"


class ReflectionPad1d(_PadNd):
    """Pads the last dimension of a 2-d or 3-d input with its reflection at the
    edges, as ``torch.nn.ReflectionPad1d``.

    Parameters
    ----------
    padding : int or tuple of 2 ints
        (left, right), or one count for both; each smaller than the dimension.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReflectionPad1d(1)(pydevtensor.tensor([[1., 2., 3.]]))
    tensor([[2., 1., 2., 3., 2.]])
    """

    _nd, _mode = 1, "reflect"


class ReplicationPad2d(_PadNd):
    """Pads the last two dimensions of a 3-d or 4-d input with copies of the edge,
    as ``torch.nn.ReplicationPad2d``.

    Parameters
    ----------
    padding : int or tuple of 4 ints
        (left, right, top, bottom), or one count for all four.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReplicationPad2d((0, 0, 1, 0))(pydevtensor.tensor([[[1., 2.], [3., 4.]]]))
    tensor([[[1., 2.],
             [1., 2.],
             [3., 4.]]])
    """

    _nd, _mode = 2, "replicate"


class ReplicationPad1d(_PadNd):
    """Pads the last dimension of a 2-d or 3-d input with copies of the edge, as
    ``torch.nn.ReplicationPad1d``.

    Parameters
    ----------
    padding : int or tuple of 2 ints
        (left, right), or one count for both.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReplicationPad1d((2, 1))(pydevtensor.tensor([[1., 2.]]))
    tensor([[1., 1., 1., 2., 2.]])
    """

    _nd, _mode = 1, "replicate"


class CircularPad2d(_PadNd):
    """Pads the last two dimensions of a 3-d or 4-d input by wrapping around, as
    ``torch.nn.CircularPad2d``; no count larger than its dimension.

    Parameters
    ----------
    padding : int or tuple of 4 ints
        (left, right, top, bottom), or one count for all four.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.CircularPad2d((1, 1, 0, 0))(pydevtensor.tensor([[[1., 2., 3.]]]))
    tensor([[[3., 1., 2., 3., 1.]]])
    """

    _nd, _mode = 2, "circular"


class CircularPad1d(_PadNd):
    """Pads the last dimension of a 2-d or 3-d input by wrapping around, as
    ``torch.nn.CircularPad1d``.

    Parameters
    ----------
    padding : int or tuple of 2 ints
        (left, right), or one count for both.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.CircularPad1d((0, 2))(pydevtensor.tensor([[1., 2., 3.]]))
    tensor([[1., 2., 3., 1., 2.]])
    """

    _nd, _mode = 1, "circular"
