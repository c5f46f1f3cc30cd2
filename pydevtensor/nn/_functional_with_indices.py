"""nn.functional's ``*_with_indices`` pools, as PyTorch's: each is its pool with
``return_indices=True``, so it always gives ``(values, indices)`` (``return_indices``
is accepted and ignored, as PyTorch).  The indices are flat positions in each plane of
the input (int64), what ``max_unpool*d`` takes.  The checks and messages are the pool's."""
import functools
import inspect

from . import _functional_3d as _F3
from . import _functional_fractional as _Ffr
from . import _functional_pool as _FP
from . import _functional_pool_more as _FPM

_RETURNS = """
    Returns
    -------
    (Tensor, Tensor)
        The pooled values, and the int64 indices of each maximum (flat, within its plane
        of the input), as ``{base}(..., return_indices=True)``.

    Raises
    ------
    TypeError, ValueError
        As :func:`{base}`.
"""


def _with_indices(base, name, params, example):
    """base with return_indices forced on, under name, with base's signature."""
    sig = inspect.signature(base)

    @functools.wraps(base)
    def pool(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.arguments["return_indices"] = True
        return base(*bound.args, **bound.kwargs)

    pool.__name__ = pool.__qualname__ = name
    pool.__module__ = "pydevtensor.nn.functional"
    pool.__doc__ = (f"{base.__name__} that also gives the position of each maximum, as "
                    f"``torch.nn.functional.{name}``.\n\n    Parameters\n    ----------\n"
                    f"{params}{_RETURNS.format(base=base.__name__)}\n    Examples\n"
                    f"    --------\n    >>> from pydevtensor.nn import functional as F\n"
                    f"{example}")
    del pool.__wrapped__
    pool.__signature__ = sig
    return pool


_INPUT = "    input : Tensor\n        {}; floating point.\n"
_WINDOW = ("    kernel_size, stride, padding, dilation, ceil_mode\n"
           "        As :func:`{}`.\n"
           "    return_indices : bool, optional\n        Ignored (the indices always come).\n")
_ADAPTIVE = ("    output_size : int or tuple\n        The output's size.\n"
             "    return_indices : bool, optional\n        Ignored (the indices always come).\n")
_FRACTIONAL = ("    kernel_size, output_size, output_ratio, _random_samples\n"
               "        As :func:`{}`.\n"
               "    return_indices : bool, optional\n        Ignored (the indices always come).\n")

max_pool1d_with_indices = _with_indices(
    _FPM.max_pool1d, "max_pool1d_with_indices",
    _INPUT.format("``(N, C, L)`` or ``(C, L)``") + _WINDOW.format("max_pool1d"),
    "    >>> v, i = F.max_pool1d_with_indices(pydevtensor.tensor([[[1., 3., 2., 0.]]]), 2)\n"
    "    >>> v, i\n    (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))\n")
max_pool2d_with_indices = _with_indices(
    _FP.max_pool2d, "max_pool2d_with_indices",
    _INPUT.format("``(N, C, H, W)`` or ``(C, H, W)``") + _WINDOW.format("max_pool2d"),
    "    >>> x = pydevtensor.tensor([[[[1., 5.], [7., 2.]]]])\n"
    "    >>> F.max_pool2d_with_indices(x, 2)\n    (tensor([[[[7.]]]]), tensor([[[[2]]]]))\n")
max_pool3d_with_indices = _with_indices(
    _F3.max_pool3d, "max_pool3d_with_indices",
    _INPUT.format("``(N, C, D, H, W)`` or ``(C, D, H, W)``") + _WINDOW.format("max_pool3d"),
    "    >>> x = pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2)\n"
    "    >>> F.max_pool3d_with_indices(x, 2)\n"
    "    (tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))\n")
adaptive_max_pool1d_with_indices = _with_indices(
    _FPM.adaptive_max_pool1d, "adaptive_max_pool1d_with_indices",
    _INPUT.format("``(N, C, L)`` or ``(C, L)``") + _ADAPTIVE,
    "    >>> x = pydevtensor.tensor([[[1., 3., 2., 0.]]])\n"
    "    >>> F.adaptive_max_pool1d_with_indices(x, 2)\n"
    "    (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))\n")
adaptive_max_pool2d_with_indices = _with_indices(
    _FP.adaptive_max_pool2d, "adaptive_max_pool2d_with_indices",
    _INPUT.format("``(N, C, H, W)`` or ``(C, H, W)``") + _ADAPTIVE,
    "    >>> x = pydevtensor.tensor([[[[1., 5.], [7., 2.]]]])\n"
    "    >>> F.adaptive_max_pool2d_with_indices(x, 1)\n"
    "    (tensor([[[[7.]]]]), tensor([[[[2]]]]))\n")
adaptive_max_pool3d_with_indices = _with_indices(
    _F3.adaptive_max_pool3d, "adaptive_max_pool3d_with_indices",
    _INPUT.format("``(N, C, D, H, W)`` or ``(C, D, H, W)``") + _ADAPTIVE,
    "    >>> x = pydevtensor.arange(8.).reshape(1, 1, 2, 2, 2)\n"
    "    >>> F.adaptive_max_pool3d_with_indices(x, 1)\n"
    "    (tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))\n")
fractional_max_pool2d_with_indices = _with_indices(
    _Ffr.fractional_max_pool2d, "fractional_max_pool2d_with_indices",
    _INPUT.format("``(N, C, H, W)`` or ``(C, H, W)``")
    + _FRACTIONAL.format("fractional_max_pool2d"),
    "    >>> x = pydevtensor.tensor([[[[1., 5.], [7., 2.]]]])\n"
    "    >>> F.fractional_max_pool2d_with_indices(x, 2, output_size=1)\n"
    "    (tensor([[[[7.]]]]), tensor([[[[2]]]]))\n")
fractional_max_pool3d_with_indices = _with_indices(
    _Ffr.fractional_max_pool3d, "fractional_max_pool3d_with_indices",
    _INPUT.format("``(N, C, D, H, W)`` or ``(C, D, H, W)``")
    + _FRACTIONAL.format("fractional_max_pool3d"),
    "    >>> x = pydevtensor.zeros(1, 1, 3, 3, 3)\n    >>> x[0, 0, 1, 1, 1] = 5.\n"
    "    >>> F.fractional_max_pool3d_with_indices(x, 2, output_size=1)\n"
    "    (tensor([[[[[5.]]]]]), tensor([[[[[13]]]]]))\n")

__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]
