"""Layers' reshapes as functions: channel_shuffle (ShuffleNet's) and unflatten
(nn.Unflatten's), views and one copy, on every device (channel_shuffle is re-exported
by nn.functional)."""
from __future__ import annotations

import operator

from .. import _C
from ._functional_pad import fresh

_Invalid = _C.InvalidArgumentError


def channel_shuffle(input, groups):
    """PyTorch's ``channel_shuffle``: the C channels of ``(N, C, *)`` seen as a
    ``(groups, C / groups)`` grid and transposed, so that channel ``g * (C / groups) +
    k`` moves to ``k * groups + g``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, at least 3-d, C divisible by groups.
    groups : int
        The number of groups, > 0.

    Returns
    -------
    Tensor
        Of input's shape (a copy, also for groups = 1).

    Raises
    ------
    TypeError
        When input is not a Tensor, or groups not an int.
    ValueError
        When input has fewer than 3 dimensions, groups <= 0 or C is not divisible by
        it (an InvalidArgumentError, also a RuntimeError as PyTorch's).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.channel_shuffle(pydevtensor.arange(6.).reshape(1, 6, 1), 2).flatten()
    tensor([0., 3., 1., 4., 2., 5.])
    """
    where = "channel_shuffle()"
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"{where}: groups must be an int, got {type(groups).__name__}")
    if input.ndim < 3:
        raise _Invalid(f"{where}: expected an input with more than 2 dimensions (N, C, *), got "
                       f"shape {tuple(input.shape)} (on {input.device})")
    if groups <= 0:
        raise _Invalid(f"{where}: the number of groups to divide channels in must be "
                       f"positive, got {groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise _Invalid(f"{where}: the number of channels must be divisible by groups: {c} "
                       f"channels and {groups} groups (input of shape {tuple(input.shape)} "
                       f"on {input.device})")
    rest = tuple(input.shape[2:])
    grid = input.reshape(n, groups, c // groups, *rest)
    return fresh(grid.transpose(1, 2).reshape(n, c, *rest), input)


def unflattened_sizes(sizes, where):
    """sizes (a tuple or list of ints, as nn.Unflatten takes them), checked."""
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"{where}: unflattened_size must be a tuple of ints, but found type "
                        f"{type(sizes).__name__}")
    for i, s in enumerate(sizes):
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"{where}: unflattened_size must be tuple of ints, but found "
                            f"element of type {type(s).__name__} at pos {i}")
    return sizes


def unflatten(input, dim, sizes, where="unflatten()"):
    """input with dimension dim split into sizes (one may be -1: inferred), a view
    where the strides allow (reshape)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    sizes = [operator.index(s) for s in unflattened_sizes(sizes, where)]
    nd = input.ndim
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{where}: dim must be an int, got {type(dim).__name__}")
    if not -max(nd, 1) <= dim < max(nd, 1) or nd == 0:
        raise IndexError(f"{where}: dim {dim} is out of range for a {nd}-d input of shape "
                         f"{tuple(input.shape)} (on {input.device})")
    d = dim % nd
    size = input.shape[d]
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    inferred = sizes.count(-1)
    if inferred:
        fits = inferred == 1 and known > 0 and size % known == 0
    else:
        fits = known == size
    if not fits or any(s < -1 for s in sizes):
        raise _Invalid(f"{where}: provided sizes {list(sizes)} don't multiply up to the size "
                       f"of dim {d} ({size}) in the input tensor of shape "
                       f"{tuple(input.shape)} (on {input.device})")
    if inferred:
        sizes[sizes.index(-1)] = size // known
    shape = tuple(input.shape)
    return input.reshape(*shape[:d], *sizes, *shape[d + 1:])
