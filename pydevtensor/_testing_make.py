"""testing.make_tensor, as ``torch.testing.make_tensor``: a random tensor of a shape and
dtype, its values drawn uniformly from [low, high) (clamped to what the dtype holds)."""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from . import _C
from ._dtype_info import finfo, iinfo

__all__ = ["make_tensor"]

_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def _interval(low, high, dtype, name, lowest, highest, default_low, default_high):
    """[low, high) with the defaults filled in, checked and clamped to [lowest,
    highest) (PyTorch's rules and messages); integer bounds are ceiled."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and name in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                         f"{high}), but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if name in _FLOATING:
        return low, high
    return math.ceil(low), math.ceil(high)


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Any:
    """Creates a tensor of the given shape, dtype and device filled with random values
    drawn uniformly from [low, high), as ``torch.testing.make_tensor``.

    The interval defaults to [-9, 9) for floating dtypes, [-9, 10) for integer ones
    (ceiled bounds, clamped to what the dtype holds: [0, 10) for uint8) and [0, 2) for
    bool.

    Parameters
    ----------
    shape : int, or a sequence of int
        The sizes, as separate ints or one sequence.
    dtype : dtype
        bool, an integer or a floating dtype.
    device : str or pydevtensor.device
    low, high : float, optional
        The interval; ``low < high``, neither NaN, and overlapping the dtype's range.
    requires_grad : bool, optional
        Whether the (floating) result requires grad (default False).
    noncontiguous : bool, optional
        Return a non-contiguous view (every second element of a tensor twice as long
        in the last dimension), when the result has more than one element.
    exclude_zero : bool, optional
        Replace zeros by 1 (bool and integers) or the dtype's smallest normal number.
    memory_format : memory_format, optional
        The result's memory format (not with noncontiguous).

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        When low or high is NaN, ``low >= high``, the interval misses the dtype's
        range, requires_grad is given for bool or an integer dtype, or noncontiguous
        and memory_format are both given.
    TypeError
        When dtype is not supported.

    Examples
    --------
    >>> from pydevtensor.testing import make_tensor
    >>> t = make_tensor(2, 3, dtype=pydevtensor.float32, device="cpu", low=-1, high=1)
    >>> tuple(t.shape), t.dtype, bool(((t >= -1) & (t < 1)).all())
    ((2, 3), pydevtensor.float32, True)
    >>> make_tensor((4,), dtype=pydevtensor.int64, device="cpu", low=5, high=6).tolist()
    [5, 5, 5, 5]
    >>> make_tensor(2, 2, dtype=pydevtensor.float64, device="cpu",
    ...             noncontiguous=True).is_contiguous()
    False
    """
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    name = str(dtype).split(".")[-1]
    if requires_grad and (name == "bool" or name in _INTEGRAL):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice as long in the last dimension, every second element kept
        shape = (*shape[:-1], 2 * shape[-1])
    if name == "bool":
        low, high = _interval(low, high, dtype, name, 0, 2, 0, 2)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif name in _INTEGRAL:
        info = iinfo(dtype)
        # as PyTorch's: randint cannot draw int64's maximum
        highest = info.max + (1 if name != "int64" else 0)
        low, high = _interval(low, high, dtype, name, info.min, highest, -9, 10)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif name in _FLOATING:
        info = finfo(dtype)
        low, high = _interval(low, high, dtype, name, info.min, info.max, -9, 9)
        result = _C.empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:  # the width overflows: draw half of it, then double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        f"torch.testing.make_tensor().")
    if noncontiguous:  # offset by 1 to also catch offset errors
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = (finfo(dtype).tiny if name in _FLOATING else 1)
    if name in _FLOATING:
        result.requires_grad_(requires_grad)
    return result
