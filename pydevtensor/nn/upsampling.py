"""The layers that change the spatial size without weights: Upsample,
UpsamplingNearest2d and UpsamplingBilinear2d (over
:func:`~pydevtensor.nn.functional.interpolate`), PixelShuffle and PixelUnshuffle,
with PyTorch's arguments, stored attributes and reprs."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _args
from . import _functional_interpolate as FI
from . import _functional_pixel_shuffle as FS
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


def _floats(scale_factor):
    """PyTorch's storage of a scale factor: a float, or a tuple of floats."""
    if isinstance(scale_factor, (tuple, list)):
        return tuple(_args.real(s, "Upsample", "scale_factor") for s in scale_factor)
    return _args.real(scale_factor, "Upsample", "scale_factor") if scale_factor else None


class Upsample(Module):
    """:func:`~pydevtensor.nn.functional.interpolate` as a layer, as
    ``torch.nn.Upsample``.

    Parameters
    ----------
    size : int or tuple of int, optional
        The output's spatial sizes.
    scale_factor : float or tuple of float, optional
        The multiplier of each spatial size (exactly one of size and scale_factor,
        checked when called).
    mode : str, optional
        'nearest' (default), 'nearest-exact', 'linear', 'bilinear', 'bicubic',
        'trilinear' or 'area'.
    align_corners : bool, optional
        For the linear and cubic modes.
    recompute_scale_factor : bool, optional
        Use ``in / out`` rather than scale_factor in the source positions.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.Upsample(scale_factor=2, mode='nearest')
    >>> up
    Upsample(scale_factor=2.0, mode='nearest')
    >>> up(pydevtensor.tensor([[[[1., 2.]]]]))
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        one = _args.index(size)  # a NumPy integer as an int, so the repr shows 2
        self.size = size if one is None else one
        self.scale_factor = _floats(scale_factor)
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return FI.interpolate(input, self.size, self.scale_factor, self.mode,
                              self.align_corners, self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode='nearest')`` for images, as
    ``torch.nn.UpsamplingNearest2d``.

    Parameters
    ----------
    size : int or tuple of 2 ints, optional
        The output's (H, W).
    scale_factor : float or tuple of 2 floats, optional
        The multiplier of H and W.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    >>> nn.UpsamplingNearest2d(size=(2, 3))(pydevtensor.ones(1, 1, 1, 1)).shape
    pydevtensor.Size([1, 1, 2, 3])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode='bilinear', align_corners=True)`` for
    images, as ``torch.nn.UpsamplingBilinear2d``.

    Parameters
    ----------
    size : int or tuple of 2 ints, optional
        The output's (H, W).
    scale_factor : float or tuple of 2 floats, optional
        The multiplier of H and W.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> up = nn.UpsamplingBilinear2d(size=(1, 3))
    >>> up
    UpsamplingBilinear2d(size=(1, 3), mode='bilinear')
    >>> up(pydevtensor.tensor([[[[0., 2.]]]]))
    tensor([[[[0., 1., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """:func:`~pydevtensor.nn.functional.pixel_shuffle` as a layer, as
    ``torch.nn.PixelShuffle``: ``(*, C * r * r, H, W) -> (*, C, H * r, W * r)``.

    Parameters
    ----------
    upscale_factor : int
        r.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> ps = nn.PixelShuffle(3)
    >>> ps
    PixelShuffle(upscale_factor=3)
    >>> ps(pydevtensor.ones(1, 9, 4, 4)).shape
    pydevtensor.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = _args.plain(upscale_factor)  # a NumPy integer as an int

    def forward(self, input: Tensor) -> Tensor:
        return FS.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """:func:`~pydevtensor.nn.functional.pixel_unshuffle` as a layer, as
    ``torch.nn.PixelUnshuffle``: ``(*, C, H * r, W * r) -> (*, C * r * r, H, W)``.

    Parameters
    ----------
    downscale_factor : int
        r.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pu = nn.PixelUnshuffle(2)
    >>> pu
    PixelUnshuffle(downscale_factor=2)
    >>> pu(pydevtensor.ones(1, 1, 4, 6)).shape
    pydevtensor.Size([1, 4, 2, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = _args.plain(downscale_factor)

    def forward(self, input: Tensor) -> Tensor:
        return FS.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
