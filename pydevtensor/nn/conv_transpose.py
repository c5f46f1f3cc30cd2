"""The transposed convolution layers: ConvTranspose1d, ConvTranspose2d and their lazy
forms (D2L's chapter 14: ``nn.ConvTranspose2d(num_classes, num_classes,
kernel_size=64, padding=16, stride=32)`` upsamples the FCN's features), with
PyTorch's arguments, weight layout (in_channels, out_channels / groups, k...),
initialisation, repr and the forward's ``output_size=``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C, _args
from . import _functional_conv as FC
from . import _functional_conv_transpose as FT
from .conv import _ConvNd, _LazyConv

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


def _transposed_args(where: str, nd: int, padding: Any, output_padding: Any,
                     padding_mode: str) -> tuple:
    """output_padding as nd ints, after the checks only transposed layers make."""
    if padding_mode != "zeros":
        raise ValueError(f'Only "zeros" padding mode is supported for {where}, got '
                         f"padding_mode={padding_mode!r}")
    if isinstance(padding, str):
        raise TypeError(f"{where}: padding must be an int or a tuple of {nd} ints, got "
                        f"{padding!r} (the strings 'same' and 'valid' are for Conv{nd}d)")
    return FC._at_least(FC._tuple(output_padding, nd, "output_padding", where), 0,
                        "output_padding", where)


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: the weight's layout, the
    output_padding, and the forward's output_size."""

    _transposed = True
    _nd = 2
    _fn = staticmethod(FT.conv_transpose2d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device: str | device | None = None,
                 dtype: dtype | None = None) -> None:
        output_padding = _transposed_args(type(self).__name__, self._nd, padding,
                                          output_padding, padding_mode)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = output_padding

    def _weight_shape(self, in_channels: int) -> tuple:
        return (in_channels, self.out_channels // self.groups) + self.kernel_size

    def _in_channels_of(self, weight: Tensor) -> int:
        return weight.shape[0]

    def _output_padding(self, input: Any, output_size: Any) -> tuple:
        """The output_padding that gives output_size (PyTorch's rule: it must lie
        between the smallest output size and that plus stride - 1)."""
        nd, where = self._nd, type(self).__name__
        if output_size is None or not isinstance(input, _C.Tensor) or \
                input.ndim not in (nd + 1, nd + 2):
            return self.output_padding  # F.conv_transpose raises for a bad input
        size = _args.ints(output_size, where, "output_size", single=False)
        if len(size) == input.ndim:  # with the batch and channel dimensions
            size = size[input.ndim - nd:]
        if len(size) != nd:
            raise ValueError(f"{where}: for {input.ndim}D input, output_size must have {nd} "
                             f"or {input.ndim} elements (got {len(size)})")
        low = FT.transposed_sizes(tuple(input.shape[input.ndim - nd:]), self.kernel_size,
                                  self.stride, self.padding, self.dilation, (0,) * nd)
        high = tuple(lo + s - 1 for lo, s in zip(low, self.stride))
        if any(not lo <= s <= hi for s, lo, hi in zip(size, low, high)):
            raise ValueError(f"{where}: requested an output size of {size}, but valid sizes "
                             f"range from {list(low)} to {list(high)} (for an input of "
                             f"{tuple(input.shape[input.ndim - nd:])}, on {input.device})")
        return tuple(s - lo for s, lo in zip(size, low))

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        return self._fn(input, self.weight, self.bias, self.stride, self.padding,
                        self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """A 2-d transposed convolution layer
    (:func:`~pydevtensor.nn.functional.conv_transpose2d`) with a learned weight of
    shape ``(in_channels, out_channels / groups, kh, kw)`` and bias of shape
    ``(out_channels,)``, as ``torch.nn.ConvTranspose2d``: each input pixel scatters a
    kernel-sized patch onto an output ``(H - 1) * stride - 2 * padding + dilation *
    (k - 1) + output_padding + 1`` rows high (W alike).

    PyTorch's default initialisation: the weight from ``kaiming_uniform_(a=sqrt(5))``
    and the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in computed from
    the weight's layout (out_channels / groups * kh * kw), from the Philox generator.

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 2 ints
        The filters' size.
    stride : int or tuple of 2 ints, optional
        Default 1.
    padding : int or tuple of 2 ints, optional
        Rows and columns removed from each side of the output (default 0).
    output_padding : int or tuple of 2 ints, optional
        Added to the bottom and the right of the output (default 0).
    groups : int, optional
        Default 1; it must divide in_channels and out_channels.
    bias : bool, optional
        Learn a bias (default True).
    dilation : int or tuple of 2 ints, optional
        Default 1.
    padding_mode : str, optional
        'zeros' only, as PyTorch's.
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When a count or size is not an int (or a tuple of ints), padding included.
    ValueError
        When a count is not positive, groups does not divide the channels, or
        padding_mode is not 'zeros'; at forward, for an output_size out of reach,
        and see :func:`~pydevtensor.nn.functional.conv_transpose2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.ConvTranspose2d(3, 2, kernel_size=4, padding=1, stride=2)
    >>> up
    ConvTranspose2d(3, 2, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))
    >>> up.weight.shape
    pydevtensor.Size([3, 2, 4, 4])
    >>> up(pydevtensor.ones(1, 3, 16, 16)).shape
    pydevtensor.Size([1, 2, 32, 32])
    >>> nn.ConvTranspose2d(3, 2, 3, stride=2)(pydevtensor.ones(1, 3, 4, 4),
    ...                                        output_size=(10, 10)).shape
    pydevtensor.Size([1, 2, 10, 10])
    """

    _nd = 2
    _fn = staticmethod(FT.conv_transpose2d)


class ConvTranspose1d(_ConvTransposeNd):
    """A 1-d transposed convolution layer
    (:func:`~pydevtensor.nn.functional.conv_transpose1d`) with a learned weight of
    shape ``(in_channels, out_channels / groups, k)``, as ``torch.nn.ConvTranspose1d``;
    its arguments, initialisation and errors are :class:`ConvTranspose2d`'s, with one
    size per argument.

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 1 int
        The filters' length.
    stride, padding, output_padding, groups, bias, dilation, padding_mode, device, dtype
        As in :class:`ConvTranspose2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`ConvTranspose2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.ConvTranspose1d(4, 2, 3, stride=2)
    >>> up
    ConvTranspose1d(4, 2, kernel_size=(3,), stride=(2,))
    >>> up(pydevtensor.ones(5, 4, 10)).shape
    pydevtensor.Size([5, 2, 21])
    """

    _nd = 1
    _fn = staticmethod(FT.conv_transpose1d)


class _LazyConvTranspose(_LazyConv):
    """_LazyConv with the transposed layers' arguments (output_padding, and groups,
    bias and dilation in PyTorch's order)."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros",
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        output_padding = _transposed_args(type(self).__name__, self._nd, padding,
                                          output_padding, padding_mode)
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)
        self.output_padding = output_padding


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A :class:`ConvTranspose2d` whose in_channels is read from its first input (or a
    loaded state_dict's weight), as ``torch.nn.LazyConvTranspose2d``; then the module
    becomes a :class:`ConvTranspose2d`.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, output_padding, groups, bias, dilation, padding_mode, device, dtype
        As in :class:`ConvTranspose2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`ConvTranspose2d`; at the first forward, when the input is not 3-d
        or 4-d or its channels are not a multiple of groups.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.LazyConvTranspose2d(2, kernel_size=4, padding=1, stride=2)
    >>> up(pydevtensor.ones(1, 3, 8, 8)).shape
    pydevtensor.Size([1, 2, 16, 16])
    >>> up
    ConvTranspose2d(3, 2, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))
    """

    _layer = ConvTranspose2d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A :class:`ConvTranspose1d` whose in_channels is read from its first input, as
    :class:`LazyConvTranspose2d` is a lazy :class:`ConvTranspose2d`.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, output_padding, groups, bias, dilation, padding_mode, device, dtype
        As in :class:`ConvTranspose1d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`LazyConvTranspose2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.LazyConvTranspose1d(3, 2, stride=2)
    >>> up(pydevtensor.ones(2, 5, 4)).shape
    pydevtensor.Size([2, 3, 8])
    >>> up
    ConvTranspose1d(5, 3, kernel_size=(2,), stride=(2,))
    """

    _layer = ConvTranspose1d
