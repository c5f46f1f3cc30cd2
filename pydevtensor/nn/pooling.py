"""The pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d and AdaptiveMaxPool2d
(D2L's chapters 7 and 8), the functions of nn/_functional_pool.py as modules with
PyTorch's arguments and repr.  Like PyTorch's, they check their arguments when
called, not when made."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._args import plain as _plain
from . import _functional_pool as FP
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


class _MaxPoolNd(Module):
    """The arguments, forward and repr MaxPool1d and MaxPool2d share; _pool is the
    function."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size = _plain(kernel_size)  # a NumPy integer as an int
        self.stride = _plain(stride) if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding,
                                self.dilation, ceil_mode=self.ceil_mode,
                                return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """:func:`~pydevtensor.nn.functional.max_pool2d` as a layer, as
    ``torch.nn.MaxPool2d``.

    Parameters
    ----------
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        Default: kernel_size.
    padding : int or tuple of 2 ints, optional
        -inf added on both sides, at most half the kernel (default 0).
    dilation : int or tuple of 2 ints, optional
        Default 1.
    return_indices : bool, optional
        Also return the flat indices of the maxima (default False).
    ceil_mode : bool, optional
        Round the output size up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.MaxPool2d(3, stride=2, padding=1)
    >>> pool
    MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)
    >>> pool(pydevtensor.ones(1, 64, 112, 112)).shape
    pydevtensor.Size([1, 64, 56, 56])
    """

    _pool = staticmethod(FP.max_pool2d)


class _AvgPoolNd(Module):
    """The arguments and repr AvgPool2d and AvgPool3d share (siblings, as in PyTorch: an
    AvgPool3d is not an AvgPool2d); _pool is the function."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size = _plain(kernel_size)  # a NumPy integer as an int
        self.stride = _plain(stride) if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding,
                                self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """:func:`~pydevtensor.nn.functional.avg_pool2d` as a layer, as
    ``torch.nn.AvgPool2d``.

    Parameters
    ----------
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        Default: kernel_size.
    padding : int or tuple of 2 ints, optional
        Zeros added on both sides, at most half the kernel (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the padding in each window's divisor (default True).
    divisor_override : int, optional
        One divisor for every window instead.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AvgPool2d(kernel_size=2, stride=2)
    >>> pool
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    >>> pool(pydevtensor.ones(1, 6, 28, 28)).shape
    pydevtensor.Size([1, 6, 14, 14])
    """

    _pool = staticmethod(FP.avg_pool2d)


class _AdaptivePoolNd(Module):
    """The argument, forward and repr the adaptive pools share; _pool is the function
    (return_indices goes to the max pools only)."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = _plain(output_size)

    def forward(self, input: Tensor):
        return type(self)._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_avg_pool2d` as a layer, as
    ``torch.nn.AdaptiveAvgPool2d`` (D2L's NiN and ResNet end with
    ``nn.AdaptiveAvgPool2d((1, 1))``).

    Parameters
    ----------
    output_size : int or tuple of 2 (int or None)
        (out_h, out_w); None keeps that side's size.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AdaptiveAvgPool2d((1, 1))
    >>> pool
    AdaptiveAvgPool2d(output_size=(1, 1))
    >>> pool(pydevtensor.ones(2, 512, 7, 7)).shape
    pydevtensor.Size([2, 512, 1, 1])
    """

    _pool = staticmethod(FP.adaptive_avg_pool2d)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    """An adaptive pool that can return the indices of its maxima."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor):
        return type(self)._pool(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_max_pool2d` as a layer, as
    ``torch.nn.AdaptiveMaxPool2d``.

    Parameters
    ----------
    output_size : int or tuple of 2 (int or None)
        (out_h, out_w); None keeps that side's size.
    return_indices : bool, optional
        Also return the flat indices of the maxima (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AdaptiveMaxPool2d(1)
    >>> pool
    AdaptiveMaxPool2d(output_size=1)
    >>> pool(pydevtensor.arange(8.).reshape(2, 2, 2))
    tensor([[[3.]],
    <BLANKLINE>
            [[7.]]])
    """

    _pool = staticmethod(FP.adaptive_max_pool2d)
