"""The 3-d (volume) layers, as PyTorch's: Conv3d, ConvTranspose3d, MaxPool3d, AvgPool3d,
AdaptiveAvgPool3d, AdaptiveMaxPool3d, BatchNorm3d, InstanceNorm3d and Dropout3d, and the
lazy LazyConv3d, LazyConvTranspose3d, LazyBatchNorm3d and LazyInstanceNorm3d.  They
share their 1-d and 2-d siblings' bases (arguments, parameters, initialisation, repr), and the 3-d padding layers
(F.pad takes 5-d inputs in every mode);
the functions are nn/_functional_3d.py's (Note [3-d by slices of depth]) and the
normalisations' and dropout's own, which take any number of dimensions.
"""
from __future__ import annotations

from . import _functional_3d as F3
from . import _functional_dropout as FD
from .conv import _ConvNd, _LazyConv
from .conv_transpose import _ConvTransposeNd, _LazyConvTranspose
from .group_norm import _InstanceNorm, _lazy_instance_doc
from .layers import _DropoutNd
from .normalization import _BatchNorm, _LazyBatchNorm
from .padding import _ConstantPadNd, _PadNd
from .pooling import _AdaptiveMaxPoolNd, _AdaptivePoolNd, _AvgPoolNd, _MaxPoolNd

__all__ = ["AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "AvgPool3d", "BatchNorm3d",
           "CircularPad3d", "ConstantPad3d", "Conv3d", "ConvTranspose3d", "Dropout3d",
           "InstanceNorm3d", "LazyBatchNorm3d", "LazyConv3d", "LazyConvTranspose3d",
           "LazyInstanceNorm3d", "MaxPool3d", "ReflectionPad3d", "ReplicationPad3d",
           "ZeroPad3d"]


class Conv3d(_ConvNd):
    """A 3-d convolution layer (:func:`~pydevtensor.nn.functional.conv3d`) with a learned
    weight ``(out_channels, in_channels / groups, kd, kh, kw)`` and bias, as
    ``torch.nn.Conv3d``; the arguments, initialisation and padding modes are
    :class:`Conv2d`'s with 3-tuples.

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 3 ints
        The filters' size.
    stride, padding, dilation, groups, bias, padding_mode, device, dtype
        As :class:`Conv2d`'s (3-tuples).

    Raises
    ------
    ValueError
        As :class:`Conv2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.Conv3d(2, 4, 3, padding=1)
    >>> conv(pydevtensor.ones(1, 2, 5, 6, 7)).shape
    pydevtensor.Size([1, 4, 5, 6, 7])
    """

    _nd = 3
    _fn = staticmethod(F3.conv3d)


class LazyConv3d(_LazyConv, Conv3d):
    """A :class:`Conv3d` whose in_channels is read from its first input (or a loaded
    state_dict's weight), as ``torch.nn.LazyConv3d``; then the module becomes a
    :class:`Conv3d`, as :class:`LazyConv2d` becomes a :class:`Conv2d`.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        As in :class:`Conv3d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`Conv3d`; at the first forward, when the input is not 4-d or 5-d or
        its channels are not a multiple of groups.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.LazyConv3d(4, 3, padding=1)
    >>> conv(pydevtensor.ones(1, 2, 5, 6, 7)).shape
    pydevtensor.Size([1, 4, 5, 6, 7])
    >>> conv
    Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    """

    _layer = Conv3d


class ConvTranspose3d(_ConvTransposeNd):
    """The transposed 3-d convolution layer (conv3d's adjoint,
    :func:`~pydevtensor.nn.functional.conv_transpose3d`), as ``torch.nn.ConvTranspose3d``;
    the arguments are :class:`ConvTranspose2d`'s with 3-tuples.

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 3 ints
        The filters' size.
    stride, padding, output_padding, groups, bias, dilation, padding_mode, device, dtype
        As :class:`ConvTranspose2d`'s (3-tuples).

    Raises
    ------
    ValueError
        As :class:`ConvTranspose2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.ConvTranspose3d(4, 2, 2, stride=2)
    >>> up(pydevtensor.ones(1, 4, 3, 3, 3)).shape
    pydevtensor.Size([1, 2, 6, 6, 6])
    """

    _nd = 3
    _fn = staticmethod(F3.conv_transpose3d)


class MaxPool3d(_MaxPoolNd):
    """:func:`~pydevtensor.nn.functional.max_pool3d` as a layer, as ``torch.nn.MaxPool3d``.

    Parameters
    ----------
    kernel_size : int or tuple of 3 ints
        The window.
    stride, padding, dilation : int or tuple of 3 ints, optional
        As max_pool3d's (stride default: kernel_size).
    return_indices : bool, optional
        Only False for 3-d pools.
    ceil_mode : bool, optional
        Round the output size up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.MaxPool3d(2)(pydevtensor.ones(1, 1, 4, 4, 4)).shape
    pydevtensor.Size([1, 1, 2, 2, 2])
    """

    _pool = staticmethod(F3.max_pool3d)


class AvgPool3d(_AvgPoolNd):
    """:func:`~pydevtensor.nn.functional.avg_pool3d` as a layer, as ``torch.nn.AvgPool3d``.

    Parameters
    ----------
    kernel_size : int or tuple of 3 ints
        The window.
    stride, padding : int or tuple of 3 ints, optional
        As avg_pool3d's (stride default: kernel_size).
    ceil_mode, count_include_pad, divisor_override : optional
        As avg_pool3d's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.AvgPool3d(2)(pydevtensor.ones(1, 1, 4, 4, 4)).shape
    pydevtensor.Size([1, 1, 2, 2, 2])
    """

    _pool = staticmethod(F3.avg_pool3d)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_avg_pool3d` as a layer.

    Parameters
    ----------
    output_size : int or tuple of 3 (int or None)
        The output's spatial size.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.AdaptiveAvgPool3d(1)(pydevtensor.ones(2, 3, 4, 5, 6)).shape
    pydevtensor.Size([2, 3, 1, 1, 1])
    """

    _pool = staticmethod(F3.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_max_pool3d` as a layer.

    Parameters
    ----------
    output_size : int or tuple of 3 (int or None)
        The output's spatial size.
    return_indices : bool, optional
        Only False for 3-d pools.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.AdaptiveMaxPool3d((1, 2, 2))(pydevtensor.ones(2, 3, 4, 5, 6)).shape
    pydevtensor.Size([2, 3, 1, 2, 2])
    """

    _pool = staticmethod(F3.adaptive_max_pool3d)


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A :class:`ConvTranspose3d` whose in_channels is read from its first input (or a
    loaded state_dict's weight), as ``torch.nn.LazyConvTranspose3d``; then the module
    becomes a :class:`ConvTranspose3d`.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, output_padding, groups, bias, dilation, padding_mode
        As in :class:`ConvTranspose3d`.
    device, dtype
        As in :class:`ConvTranspose3d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`ConvTranspose3d`; at the first forward, when the input is not 4-d
        or 5-d or its channels are not a multiple of groups.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.LazyConvTranspose3d(2, 2, stride=2)
    >>> up(pydevtensor.ones(1, 4, 3, 3, 3)).shape
    pydevtensor.Size([1, 2, 6, 6, 6])
    >>> up
    ConvTranspose3d(4, 2, kernel_size=(2, 2, 2), stride=(2, 2, 2))
    """

    _layer = ConvTranspose3d


class BatchNorm3d(_BatchNorm):
    """Batch normalization of volumes, as ``torch.nn.BatchNorm3d``: per channel over the
    batch and the D, H and W positions; the options are :class:`BatchNorm1d`'s.

    Parameters
    ----------
    num_features : int
        C, the channels.
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As :class:`BatchNorm1d`'s.

    Raises
    ------
    ValueError
        As :class:`BatchNorm1d`; at forward, when the input is not 5-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> y = nn.BatchNorm3d(2)(pydevtensor.randn(4, 2, 3, 3, 3))
    >>> bool(y.mean(dim=(0, 2, 3, 4)).abs().max() < 1e-5)
    True
    """

    _ndims = (5,)
    _layout = "5D input (N, C, D, H, W)"


class LazyBatchNorm3d(_LazyBatchNorm, BatchNorm3d):
    """A :class:`BatchNorm3d` whose num_features is read from its first input (or a
    loaded state_dict), as ``torch.nn.LazyBatchNorm3d``; then the module becomes a
    :class:`BatchNorm3d`, as :class:`LazyBatchNorm2d` becomes a :class:`BatchNorm2d`.

    Parameters
    ----------
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`BatchNorm3d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm3d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.LazyBatchNorm3d()
    >>> bn(pydevtensor.ones(2, 3, 2, 2, 2)).shape
    pydevtensor.Size([2, 3, 2, 2, 2])
    >>> bn
    BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _layer = BatchNorm3d


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of volumes, as ``torch.nn.InstanceNorm3d``: each channel of
    each sample normalised over its D, H and W positions; the options are
    :class:`InstanceNorm2d`'s.

    Parameters
    ----------
    num_features : int
        C, the channels.
    eps, momentum, affine, track_running_stats, device, dtype
        As :class:`InstanceNorm2d`'s.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> y = nn.InstanceNorm3d(2)(pydevtensor.randn(1, 2, 3, 3, 3))
    >>> bool(y.mean(dim=(2, 3, 4)).abs().max() < 1e-5)
    True
    """

    _ndims = (4, 5)
    _layout = "4D (unbatched) or 5D (batched) input (C, D, H, W) or (N, C, D, H, W)"


class LazyInstanceNorm3d(_LazyBatchNorm, InstanceNorm3d):
    _layer = InstanceNorm3d
    __doc__ = _lazy_instance_doc(InstanceNorm3d, (2, 3, 2, 2, 2))


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of volumes (F.dropout3d), as ``torch.nn.Dropout3d``.

    Parameters
    ----------
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Dropout3d(0.5).eval()(pydevtensor.ones(1, 2, 2, 2, 2)).sum().item()
    16.0
    """

    _fn = staticmethod(FD.dropout3d)


_PAD_DOC = """Pads the last three dimensions{what}, as ``torch.nn.{name}``.

    Parameters
    ----------
    padding : int or tuple of 6 ints
        (left, right, top, bottom, front, back), or one count for all six{extra}.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.{name}({example_args})(pydevtensor.ones(1, 1, 2, 2, 2)).shape
    pydevtensor.Size([1, 1, 4, 4, 4])
    """


class ConstantPad3d(_ConstantPadNd):
    _nd = 3


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad3d(_PadNd):
    _nd, _mode = 3, "reflect"


class ReplicationPad3d(_PadNd):
    _nd, _mode = 3, "replicate"


class CircularPad3d(_PadNd):
    _nd, _mode = 3, "circular"


for _cls, _what, _extra, _args in (
        (ConstantPad3d, " with a constant", "; negative crops; and value, the fill", "1, 0.5"),
        (ZeroPad3d, " with zeros", "; negative crops", "1"),
        (ReflectionPad3d, " of a 4-d or 5-d input with their reflection at the edges", "",
         "1"),
        (ReplicationPad3d, " of a 4-d or 5-d input with copies of the edge", "", "1"),
        (CircularPad3d, " of a 4-d or 5-d input by wrapping around", "", "1")):
    _cls.__doc__ = _PAD_DOC.format(what=_what, name=_cls.__name__, extra=_extra,
                                   example_args=_args)
