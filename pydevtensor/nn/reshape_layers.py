"""Reshaping layers: Unflatten (Flatten's inverse) and ChannelShuffle (ShuffleNet's);
their functions are in _functional_reshape.py."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _functional_reshape as _R
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


class Unflatten(Module):
    """Splits dimension dim of its input into unflattened_size, as
    ``torch.nn.Unflatten`` (a view where the strides allow).

    Parameters
    ----------
    dim : int
        The dimension split (negative: from the end).
    unflattened_size : tuple or list of int
        Its new sizes; one may be -1 (inferred).

    Raises
    ------
    TypeError
        When unflattened_size is not a tuple or list of ints.
    ValueError
        At forward, when the sizes do not multiply up to the dimension's size (an
        InvalidArgumentError, also a RuntimeError as PyTorch's).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Unflatten(1, (2, 5))
    Unflatten(dim=1, unflattened_size=(2, 5))
    >>> nn.Unflatten(1, (2, -1))(pydevtensor.ones(3, 10)).shape
    pydevtensor.Size([3, 2, 5])
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"Unflatten: dim must be an int (named dimensions are not "
                            f"supported), got {type(dim).__name__}")
        self.dim = dim
        self.unflattened_size = _R.unflattened_sizes(unflattened_size, "Unflatten")

    def forward(self, input: Tensor) -> Tensor:
        return _R.unflatten(input, self.dim, self.unflattened_size, "Unflatten")

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class ChannelShuffle(Module):
    """Shuffles the channels of ``(N, C, *)`` in groups (F.channel_shuffle), as
    ``torch.nn.ChannelShuffle``.

    Parameters
    ----------
    groups : int
        The number of groups, > 0, dividing C.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> shuffle = nn.ChannelShuffle(2)
    >>> shuffle
    ChannelShuffle(groups=2)
    >>> shuffle(pydevtensor.arange(4.).reshape(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return _R.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


__all__ = ["ChannelShuffle", "Unflatten"]
