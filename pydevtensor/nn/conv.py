"""The convolution layers: Conv1d, Conv2d, their lazy forms LazyConv1d and LazyConv2d
(D2L's chapters 7 and 8 use ``nn.LazyConv2d`` throughout), and Unfold and Fold, with
PyTorch's arguments, initialisation, checks and repr."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import plain as _plain, size as _size
from . import _functional_conv as FC
from . import _functional_pad as FP
from .init import kaiming_uniform_
from .module import Module
from .parameter import (LazyModuleMixin, Parameter, UninitializedParameter,
                        _uninitialized_weight_and_bias)

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _count(name: str, v: Any, where: str, low: int = 1) -> int:
    return _size(v, where, name, low)  # a NumPy integer too, kept as an int


class _ConvNd(Module):
    """What Conv1d and Conv2d share (siblings, as in PyTorch: a Conv1d is not a
    Conv2d): the arguments' checks, the parameters, PyTorch's initialisation and
    repr.  Subclasses set _nd and _fn."""

    _nd = 2
    _fn = staticmethod(FC.conv2d)
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self._setup(out_channels, kernel_size, stride, padding, dilation, groups, padding_mode)
        where = type(self).__name__
        self.in_channels = in_channels = _count("in_channels", in_channels, where)
        self._check_in_channels(in_channels, where)
        dtype = _C._get_default_dtype() if dtype is None else dtype
        self.weight = Parameter(_C.empty(self._weight_shape(in_channels), device=device,
                                         dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(self.out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _setup(self, out_channels, kernel_size, stride, padding, dilation, groups,
               padding_mode) -> None:
        where = type(self).__name__
        nd = self._nd
        self.out_channels = _count("out_channels", out_channels, where)
        self.groups = _count("groups", groups, where)
        if self.out_channels % self.groups:
            raise ValueError(f"{where}: out_channels must be divisible by groups, got "
                             f"out_channels={out_channels} and groups={groups}")
        self.kernel_size = FC._at_least(FC._tuple(kernel_size, nd, "kernel_size", where), 1,
                                        "kernel_size", where)
        self.stride = FC._at_least(FC._tuple(stride, nd, "stride", where), 1, "stride", where)
        self.dilation = FC._at_least(FC._tuple(dilation, nd, "dilation", where), 1,
                                     "dilation", where)
        if isinstance(padding, str):
            FC._padding(padding, nd, self.kernel_size, self.stride, self.dilation, where,
                        warn=False)
            self.padding = padding
        else:
            self.padding = FC._at_least(FC._tuple(padding, nd, "padding", where), 0, "padding",
                                        where)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{where}: padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode={padding_mode!r}")
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._mode_pad()  # PyTorch's attribute
        self.output_padding = (0,) * nd
        self.transposed = self._transposed

    def _weight_shape(self, in_channels: int) -> tuple:
        """(out_channels, in_channels / groups, k...); transposed layers swap the two."""
        return (self.out_channels, in_channels // self.groups) + self.kernel_size

    def _in_channels_of(self, weight: Tensor) -> int:
        """in_channels, read from a weight of this layer's layout."""
        return weight.shape[1] * self.groups

    def _check_in_channels(self, in_channels: int, where: str) -> None:
        if in_channels % self.groups:
            raise ValueError(f"{where}: in_channels must be divisible by groups, got "
                             f"in_channels={in_channels} and groups={self.groups}")

    def reset_parameters(self) -> None:
        """PyTorch's initialisation, again: the weight from ``kaiming_uniform_`` with
        ``a = sqrt(5)`` (that is U(-1/sqrt(fan_in), 1/sqrt(fan_in))), the bias from
        U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups * kh * kw.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> conv = nn.Conv2d(1, 2, 3)
        >>> conv.reset_parameters()
        >>> bool(conv.weight.abs().max() <= 1 / 3)
        True
        """
        w = self.weight.data
        kaiming_uniform_(w, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = w.numel() // w.shape[0] if w.shape[0] else 0
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            self.bias.data.uniform_(-bound, bound)

    def _mode_pad(self) -> tuple | list:
        """F.pad's counts (last dimension first) for a padding_mode other than 'zeros':
        padding on both sides, or 'same''s total with the odd one at the end; a list
        for a string padding, as PyTorch's _reversed_padding_repeated_twice."""
        if self.padding == "valid":
            return [0, 0] * self._nd
        if self.padding == "same":
            total = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            return [v for t in reversed(total) for v in (t // 2, t - t // 2)]
        return tuple(v for p in reversed(self.padding) for v in (p, p))

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        """The convolution of input with weight and bias under the layer's settings, as
        PyTorch's Conv1d/2d/3d._conv_forward (which subclasses call with a changed
        weight: weight standardization)."""
        if (self.padding_mode != "zeros" and isinstance(input, _C.Tensor)
                and input.ndim in (self._nd + 1, self._nd + 2)):
            # padded by F.pad, then a convolution without padding, as PyTorch's
            return self._fn(FP.pad(input, self._reversed_padding_repeated_twice,
                                   self.padding_mode), weight, bias, self.stride, 0,
                            self.dilation, self.groups)
        return self._fn(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        nd = self._nd
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv2d(_ConvNd):
    """A 2-d convolution layer (:func:`~pydevtensor.nn.functional.conv2d`) with a
    learned weight of shape ``(out_channels, in_channels / groups, kh, kw)`` and bias of
    shape ``(out_channels,)``, as ``torch.nn.Conv2d``.

    PyTorch's default initialisation: the weight from ``kaiming_uniform_(a=sqrt(5))``,
    the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in_channels / groups
    * kh * kw, here from the Philox generator (one seed, the same layer on every
    device).

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 2 ints
        The filters' size.
    stride : int or tuple of 2 ints, optional
        Default 1.
    padding : int, tuple of 2 ints, 'valid' or 'same', optional
        Default 0.
    dilation : int or tuple of 2 ints, optional
        Default 1.
    groups : int, optional
        Default 1; it must divide in_channels and out_channels.
    bias : bool, optional
        Learn a bias (default True).
    padding_mode : str, optional
        What the padding holds: 'zeros' (the default), or 'reflect', 'replicate' or
        'circular' (the input padded by :func:`~pydevtensor.nn.functional.pad` in
        that mode, then convolved without padding).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When a count or size is not an int (or a tuple of ints).
    ValueError
        When a count is not positive, groups does not divide the channels, padding
        is an unknown string or 'same' with a stride, or padding_mode is unknown;
        at forward, see :func:`~pydevtensor.nn.functional.conv2d` (and
        :func:`~pydevtensor.nn.functional.pad` for a padding_mode other than
        'zeros').

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.Conv2d(1, 6, kernel_size=5, padding=2)
    >>> conv
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))
    >>> conv(pydevtensor.ones(4, 1, 28, 28)).shape
    pydevtensor.Size([4, 6, 28, 28])
    """

    _nd = 2
    _fn = staticmethod(FC.conv2d)


class Conv1d(_ConvNd):
    """A 1-d convolution layer (:func:`~pydevtensor.nn.functional.conv1d`) with a
    learned weight of shape ``(out_channels, in_channels / groups, k)``, as
    ``torch.nn.Conv1d``; its arguments, initialisation and errors are
    :class:`Conv2d`'s, with one size per argument.

    Parameters
    ----------
    in_channels, out_channels : int
        The channels of the input and of the output.
    kernel_size : int or tuple of 1 int
        The filters' length.
    stride, padding, dilation, groups, bias, padding_mode, device, dtype
        As in :class:`Conv2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`Conv2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.Conv1d(2, 4, 3, padding=1)
    >>> conv
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))
    >>> conv(pydevtensor.ones(5, 2, 10)).shape
    pydevtensor.Size([5, 4, 10])
    """

    _nd = 1
    _fn = staticmethod(FC.conv1d)


class _LazyConv(LazyModuleMixin):
    """What LazyConv1d and LazyConv2d add to their layer: in_channels from the first
    input (or from a loaded state_dict's weight), then the module becomes that layer."""

    _layer = Conv2d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        Module.__init__(self)
        self._setup(out_channels, kernel_size, stride, padding, dilation, groups, padding_mode)
        self.in_channels = 0
        _uninitialized_weight_and_bias(self, bias, device, dtype)

    def reset_parameters(self) -> None:
        if not isinstance(self.weight, UninitializedParameter):
            _ConvNd.reset_parameters(self)

    def forward(self, input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        layer = self._layer  # the class, before the first call makes self one
        if isinstance(self.weight, UninitializedParameter):
            where = type(self).__name__
            nd = self._nd
            if not isinstance(input, _C.Tensor):
                raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
            if input.ndim not in (nd + 1, nd + 2):
                raise _C.InvalidArgumentError(
                    f"{where}: expected a {nd + 1}-d (unbatched) or {nd + 2}-d (batched) input "
                    f"to take in_channels from, got shape {tuple(input.shape)} (on "
                    f"{input.device})")
            self._materialize(input.shape[0 if input.ndim == nd + 1 else 1])
        return layer.forward(self, input, *args, **kwargs)

    def _materialize(self, in_channels: int) -> None:
        """Gives weight and bias their shapes, drawn as the layer draws them (the call
        then makes this module that layer)."""
        self._check_in_channels(in_channels, type(self).__name__)
        self.weight.materialize(self._weight_shape(in_channels))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.in_channels = in_channels
        self.reset_parameters()

    def _lazy_load_check(self, prefix: str, state_dict: Any) -> list[str]:
        """What load_state_dict would find wrong with this layer's entries of state_dict
        (it gives an uninitialized layer its shapes)."""
        w, b = state_dict.get(prefix + "weight"), state_dict.get(prefix + "bias")
        if not isinstance(self.weight, UninitializedParameter):
            return []
        if not isinstance(w, _C.Tensor):
            return [f"'{prefix}bias' of a lazy layer cannot be loaded without "
                    f"'{prefix}weight', which gives in_channels"] if b is not None else []
        want = ", ".join(map(str, self._weight_shape(0)[2:]))
        want = (f"(in_channels, {self.out_channels // self.groups}, {want})" if self.transposed
                else f"({self.out_channels}, in_channels / groups, {want})")
        if (w.dim() != self._nd + 2 or tuple(w.shape) != self._weight_shape(
                self._in_channels_of(w))):
            return [f"size mismatch for '{prefix}weight': copying a tensor of shape "
                    f"{tuple(w.shape)}, the lazy parameter has shape {want}"]
        if isinstance(b, _C.Tensor) and tuple(b.shape) != (self.out_channels,):
            return [f"size mismatch for '{prefix}bias': copying a tensor of shape "
                    f"{tuple(b.shape)}, the parameter has shape ({self.out_channels},)"]
        return []

    def _lazy_load(self, prefix: str, state_dict: Any) -> None:
        w = state_dict.get(prefix + "weight")
        if isinstance(self.weight, UninitializedParameter) and isinstance(w, _C.Tensor):
            self._materialize(self._in_channels_of(w))


class LazyConv2d(_LazyConv, Conv2d):
    """A :class:`Conv2d` whose in_channels is read from its first input (D2L's
    ``nn.LazyConv2d(6, kernel_size=5, padding=2)``): until then its weight and bias
    are :class:`UninitializedParameter` objects; the first forward, or
    ``load_state_dict``, gives them their shapes, draws them as Conv2d does, and the
    first call makes the module a :class:`Conv2d`, as in PyTorch.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        As in :class:`Conv2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`Conv2d`; at the first forward, when the input is not 3-d or 4-d or
        its channels are not a multiple of groups.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid())
    >>> net[0].weight
    <UninitializedParameter>
    >>> net(pydevtensor.ones(1, 1, 28, 28)).shape
    pydevtensor.Size([1, 6, 28, 28])
    >>> net[0]
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))
    """

    _layer = Conv2d


class LazyConv1d(_LazyConv, Conv1d):
    """A :class:`Conv1d` whose in_channels is read from its first input, as
    :class:`LazyConv2d` is a lazy :class:`Conv2d`.

    Parameters
    ----------
    out_channels : int
        The channels of the output.
    kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        As in :class:`Conv1d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`LazyConv2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.LazyConv1d(4, 3)
    >>> conv(pydevtensor.ones(2, 3, 8)).shape
    pydevtensor.Size([2, 4, 6])
    >>> conv
    Conv1d(3, 4, kernel_size=(3,), stride=(1,))
    """

    _layer = Conv1d


class Unfold(Module):
    """:func:`~pydevtensor.nn.functional.unfold` as a layer, as ``torch.nn.Unfold``.

    Parameters
    ----------
    kernel_size : int or tuple of 2 ints
        The window's size.
    dilation, padding, stride : int or tuple of 2 ints, optional
        Defaults 1, 0, 1.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Unfold(kernel_size=(2, 3))
    Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=1)
    >>> nn.Unfold(2)(pydevtensor.ones(1, 3, 4, 4)).shape
    pydevtensor.Size([1, 12, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation = _plain(kernel_size), _plain(dilation)
        self.padding, self.stride = _plain(padding), _plain(stride)

    def forward(self, input: Tensor) -> Tensor:
        return FC.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """:func:`~pydevtensor.nn.functional.fold` as a layer, as ``torch.nn.Fold``.

    Parameters
    ----------
    output_size : int or tuple of 2 ints
        (H, W) of the images.
    kernel_size : int or tuple of 2 ints
        The window's size.
    dilation, padding, stride : int or tuple of 2 ints, optional
        Defaults 1, 0, 1.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> fold = nn.Fold(output_size=(3, 3), kernel_size=2)
    >>> fold
    Fold(output_size=(3, 3), kernel_size=2, dilation=1, padding=0, stride=1)
    >>> fold(pydevtensor.ones(1, 4, 4))[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = _plain(output_size), _plain(kernel_size)
        self.dilation, self.padding = _plain(dilation), _plain(padding)
        self.stride = _plain(stride)

    def forward(self, input: Tensor) -> Tensor:
        return FC.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                       self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
