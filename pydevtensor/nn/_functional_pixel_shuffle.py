"""pixel_shuffle and pixel_unshuffle (sub-pixel convolution's rearrangement), as a
reshape, a permute and a reshape: differentiable through those, any dtype, any
device, nothing read back.

    pixel_shuffle:   (*, C * r * r, H, W) -> (*, C, H * r, W * r)
        out[..., c, h * r + i, w * r + j] = in[..., (c * r + i) * r + j, h, w]
    pixel_unshuffle: its inverse
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import size as _size
from ._functional_conv import _tensor
from ._functional_pad import fresh

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError


def _factor(value: Any, name: str, where: str) -> int:
    value = _size(value, where, name)  # a NumPy integer too, as an int
    if value < 1:
        raise _Invalid(f"{where}: expects a positive {name}, but got {value}")
    return value


def _at_least_3d(x: Tensor, where: str) -> None:
    if x.ndim < 3:
        raise _Invalid(f"{where}: expects input to have at least 3 dimensions, but got input "
                       f"of shape {tuple(x.shape)} (on {x.device})")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearranges ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)``, as
    ``torch.nn.functional.pixel_shuffle`` (r = upscale_factor): each group of r * r
    channels becomes an r x r block of pixels.

    Parameters
    ----------
    input : Tensor
        At least 3-d; its channel dimension (the third from the end) divisible by
        ``r * r``.
    upscale_factor : int
        r, positive.

    Returns
    -------
    Tensor
        ``(*, C, H * r, W * r)``, of input's dtype; a new tensor (also for r = 1).

    Raises
    ------
    TypeError
        When input is not a Tensor or upscale_factor not an int.
    ValueError
        (InvalidArgumentError, also a RuntimeError) when input has fewer than 3
        dimensions, r is not positive, or the channels are not divisible by r * r.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.pixel_shuffle(pydevtensor.arange(8.).reshape(1, 8, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]],
    <BLANKLINE>
             [[4., 5.],
              [6., 7.]]]])
    """
    where = "pixel_shuffle()"
    x = _tensor(input, "input", where)
    r = _factor(upscale_factor, "upscale_factor", where)
    if r * r > 2 ** 63 - 1:  # PyTorch's check: the square is an int64 there
        raise _Invalid(f"{where}: upscale_factor is too large, (upscale_factor)^2 overflowed "
                       f"int64: upscale_factor={r}")
    _at_least_3d(x, where)
    *lead, c, h, w = x.shape
    if c % (r * r):
        raise _Invalid(f"{where}: expects its input's 'channel' dimension to be divisible by "
                       f"the square of upscale_factor, but input.size(-3)={c} is not "
                       f"divisible by {r * r} (input of shape {tuple(x.shape)} on {x.device})")
    lead, k = tuple(lead), len(lead)
    y = x.reshape(lead + (c // (r * r), r, r, h, w))
    y = y.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)  # (*, C, H, r, W, r)
    return fresh(y.reshape(lead + (c // (r * r), h * r, w * r)), x)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearranges ``(*, C, H * r, W * r)`` into ``(*, C * r * r, H, W)``, as
    ``torch.nn.functional.pixel_unshuffle`` (r = downscale_factor): the inverse of
    :func:`pixel_shuffle`.

    Parameters
    ----------
    input : Tensor
        At least 3-d; its last two sizes divisible by r.
    downscale_factor : int
        r, positive.

    Returns
    -------
    Tensor
        ``(*, C * r * r, H, W)``, of input's dtype; a new tensor (also for r = 1).

    Raises
    ------
    TypeError
        When input is not a Tensor or downscale_factor not an int.
    ValueError
        (InvalidArgumentError, also a RuntimeError) when input has fewer than 3
        dimensions, r is not positive, or the height or width is not divisible by r.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.pixel_unshuffle(pydevtensor.arange(4.).reshape(1, 1, 2, 2), 2)
    tensor([[[[0.]],
    <BLANKLINE>
             [[1.]],
    <BLANKLINE>
             [[2.]],
    <BLANKLINE>
             [[3.]]]])
    """
    where = "pixel_unshuffle()"
    x = _tensor(input, "input", where)
    r = _factor(downscale_factor, "downscale_factor", where)
    _at_least_3d(x, where)
    *lead, c, h, w = x.shape
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise _Invalid(f"{where}: expects {name} to be divisible by downscale_factor, but "
                           f"input.size({dim})={size} is not divisible by {r} (input of shape "
                           f"{tuple(x.shape)} on {x.device})")
    lead, k = tuple(lead), len(lead)
    y = x.reshape(lead + (c, h // r, r, w // r, r))
    y = y.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)  # (*, C, r, r, H, W)
    return fresh(y.reshape(lead + (c * r * r, h // r, w // r)), x)
