"""convert_conv2d_weight_memory_format and convert_conv3d_weight_memory_format, as
PyTorch's torch.nn.utils.memory_format: the weights of a model's 2-d (3-d) convolutions,
transposed ones too, laid out in a memory format (channels_last for the faster kernels),
in place, the Parameter objects kept."""
from __future__ import annotations

from typing import Any

from ..module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_DOC = """Lays out the weight of every Conv{n}d and ConvTranspose{n}d in module (itself
    included) in memory_format, in place, as PyTorch's; other layers are left as they
    are, and so are the inputs (give them the same format for the kernels that use it).

    Parameters
    ----------
    module : Module
        The model.
    memory_format : pydevtensor.memory_format
        ``pydevtensor.{fmt}`` or ``pydevtensor.contiguous_format``.

    Returns
    -------
    Module
        module.

    Raises
    ------
    ValueError
        When memory_format does not fit a {dims}-d weight ({other}).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv = nn.Conv{n}d(2, 4, 1)
    >>> _ = nn.utils.convert_conv{n}d_weight_memory_format(conv, pydevtensor.{fmt})
    >>> conv.weight.stride()
    {stride}
    """


def _convert(module: Module, memory_format: Any, kinds: tuple) -> Module:
    for m in module.modules():
        if isinstance(m, kinds):
            m.weight.data = m.weight.detach().clone(memory_format=memory_format)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    from ..conv import Conv2d
    from ..conv_transpose import ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    from ..layers_3d import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))


convert_conv2d_weight_memory_format.__doc__ = _DOC.format(
    n=2, fmt="channels_last", dims=4, other="channels_last_3d", stride="(2, 1, 2, 2)")
convert_conv3d_weight_memory_format.__doc__ = _DOC.format(
    n=3, fmt="channels_last_3d", dims=5, other="channels_last", stride="(2, 1, 2, 2, 2)")
