"""local_response_norm (AlexNet's normalisation across channels, D2L 8.1 as PyTorch
had it) and rms_norm (PyTorch 2.4's root-mean-square normalisation), as compositions
of differentiable ops with PyTorch's formulas, defaults and output dtypes; float16
and bfloat16 are computed in float32 and rounded once (``_wide``).

    local_response_norm:  y = x / (k + alpha / size * sum_window x ** 2) ** beta
        the window over channels c - size // 2 .. c + (size - 1) // 2 (zeros past the
        ends), its sum divided by size, as PyTorch's (an average pool of x ** 2)
    rms_norm:  y = x / sqrt(mean(x ** 2) + eps) * weight
        over the trailing normalized_shape; eps None means the machine epsilon of
        the type computed in (float32 for the half types, as PyTorch's opmath)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .. import _C
from ._functional_norm import _floating, _trailing_shape, _wide
from ._functional_pad import pad_constant
from ._functional_pool import _avg_pool

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError


def _number(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    return float(value)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Normalises each element by the squares of its neighbours across channels, as
    ``torch.nn.functional.local_response_norm``::

        y[n, c] = x[n, c] / (k + alpha / size * sum(x[n, c'] ** 2)) ** beta

    summed over ``c' = c - size // 2 .. c + (size - 1) // 2`` (channels past the ends
    count as zeros).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` with at least one trailing dimension; floating point.
    size : int
        The number of neighbouring channels, positive.
    alpha : float, optional
        The multiplier (default 1e-4).
    beta : float, optional
        The exponent (default 0.75).
    k : float, optional
        The additive constant (default 1.0).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor, size not an int, or alpha, beta or
        k not a number.
    ValueError
        When input has fewer than 3 dimensions or size is not positive.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1.], [2.], [3.]]])
    >>> F.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=0.0)
    tensor([[[2.0000],
             [0.8000],
             [0.4615]]])
    """
    where = "local_response_norm()"
    _floating(input, where)
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(f"{where}: size must be an int, got {type(size).__name__}")
    if size < 1:
        raise _Invalid(f"{where}: size must be positive, got {size}")
    alpha, beta, k = (_number(v, n, where) for v, n in ((alpha, "alpha"), (beta, "beta"),
                                                         (k, "k")))
    if input.ndim < 3:
        raise ValueError(f"{where}: Expected 3D or higher dimensionality input (got "
                         f"{input.ndim} dimensions, shape {tuple(input.shape)} on "
                         f"{input.device})")
    if input.numel() == 0:  # nothing to pool: an empty output, as PyTorch's
        return input.clone()
    wide = _wide(input.dtype)
    x = input if wide == input.dtype else input.to(wide)
    n, c = x.shape[:2]
    rest = 1
    for s in x.shape[2:]:
        rest *= s
    squares = (x * x).reshape(n, 1, c, rest)
    padded = pad_constant(squares, ((0, 0), (size // 2, (size - 1) // 2)), 0.0)
    mean = _avg_pool(padded, (size, 1), (1, 1), 0, False, True, None, where)
    div = (mean.reshape(x.shape) * alpha + k).pow(beta)
    out = x / div
    return out if out.dtype == input.dtype else out.to(input.dtype)


def cross_map_lrn2d(input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
    """nn.CrossMapLRN2d's forward (Lua Torch's SpatialCrossMapLRN): x * (k + alpha /
    size * s) ** -beta, s the sum of the squares of channels c - p + 1 .. c + p - 1
    (those that exist), p = (size - 1) // 2 + 1; the half types in float32."""
    where = "CrossMapLRN2d"
    _floating(input, where)
    alpha, beta, k = (_number(v, n, where) for v, n in ((alpha, "alpha"), (beta, "beta"),
                                                         (k, "k")))
    if input.ndim != 4:
        raise ValueError(f"{where}: Expected input to be 4D, got {input.ndim}D instead "
                         f"(shape {tuple(input.shape)} on {input.device})")
    wide = _wide(input.dtype)
    x = input if wide == input.dtype else input.to(wide)
    c = x.shape[1]
    half = (size - 1) // 2  # p - 1 channels each side
    squares = x * x
    if half:
        padded = pad_constant(squares, ((0, 0), (0, 0), (half, half)), 0.0)  # channels
        total = padded[:, 0:c]
        for j in range(1, 2 * half + 1):
            total = total + padded[:, j:j + c]
    else:
        total = squares
    out = x * (total * (alpha / size) + k).pow(-beta)
    return out if out.dtype == input.dtype else out.to(input.dtype)


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """Divides each sample by the root mean square of its trailing block, as
    ``torch.nn.functional.rms_norm``::

        y = x / sqrt(mean(x ** 2) + eps) * weight

    Parameters
    ----------
    input : Tensor
        Floating point, of shape ``(*, *normalized_shape)``.
    normalized_shape : int or sequence of int
        The trailing shape to normalise over.
    weight : Tensor, optional
        Of shape normalized_shape: the scale.
    eps : float, optional
        Added to the mean square; None (default) means the machine epsilon of the
        type the mean is taken in (float32's for float16 and bfloat16).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor or eps not a number.
    ValueError
        When input's trailing shape is not normalized_shape, or weight has another
        shape (naming both and the device).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.rms_norm(pydevtensor.tensor([[3., 4.]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    where = "rms_norm()"
    shape = _trailing_shape(input, normalized_shape, where)
    nd = len(shape)
    if weight is not None:
        if not isinstance(weight, _C.Tensor):
            raise TypeError(f"{where}: weight must be a Tensor or None, got "
                            f"{type(weight).__name__}")
        if tuple(weight.shape) != shape:
            raise _Invalid(f"{where}: Expected weight to be of same shape as normalized_shape, "
                           f"but got weight of shape {tuple(weight.shape)} and "
                           f"normalized_shape={shape} (on {weight.device})")
    wide = _wide(input.dtype)
    if eps is None:
        eps = float(np.finfo(np.float64 if wide == _C.float64 else np.float32).eps)
    else:
        eps = _number(eps, "eps", where)
    x = input if wide == input.dtype else input.to(wide)
    dims = tuple(range(x.ndim - nd, x.ndim))
    out = x / _C.sqrt((x * x).mean(dim=dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight
    return out if out.dtype == input.dtype else out.to(input.dtype)
