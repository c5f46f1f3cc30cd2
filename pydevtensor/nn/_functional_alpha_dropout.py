"""Alpha dropout: nn.functional.alpha_dropout and feature_alpha_dropout, PyTorch's
dropout for self-normalizing (SELU) networks.  functional.py re-exports them.

In training, each element (alpha_dropout) or each channel of each sample
(feature_alpha_dropout: one draw per input[n, c]) is dropped with probability p:
set to SELU's negative saturation value -alpha' (alpha' = lambda alpha =
1.7580993408473766), not to 0, and then the whole is mapped affinely,
``a x + b``, with ``a = ((alpha'^2 p + 1) (1 - p))^-1/2`` and ``b = a alpha' p`` on the
kept values, ``a (alpha' p - alpha')`` on the dropped ones (PyTorch's formula):
an input of mean 0 and variance 1 keeps mean 0 and variance 1.  The mask comes from
the package's generator on input's device, as F.dropout's does; the gradient is ``a``
through the kept values, 0 through the dropped ones.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import _C
from ._functional_dropout import _all_dropped, _checked

if TYPE_CHECKING:
    from .._C import Tensor

_SELU_SATURATION = 1.7580993408473766  # lambda * alpha of SELU, PyTorch's constant


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                   feature: bool, where: str) -> Tensor:
    training = _checked(input, p, where, training)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _all_dropped(input, inplace)
    if feature and input.ndim < 2:
        raise RuntimeError(f"{where}: Feature dropout requires at least 2 dimensions in the "
                           f"input, got shape {tuple(input.shape)} (on {input.device})")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{where}: expected a floating point tensor, got {input.dtype} (on "
                           f"{input.device})")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = (_C.rand(shape, device=input.device) >= p).to(input.dtype)  # kept: 1 - p
    alpha = _SELU_SATURATION
    a = 1.0 / math.sqrt((alpha * alpha * p + 1.0) * (1.0 - p))
    b = (keep - 1.0) * (alpha * a) + alpha * a * p
    if inplace:
        return input.mul_(keep * a).add_(b)
    return input * (keep * a) + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Alpha dropout, as ``torch.nn.functional.alpha_dropout``: in training each element
    is dropped with probability p to SELU's saturation value and the result mapped so
    that a standard input keeps mean 0 and variance 1; otherwise input itself.

    Parameters
    ----------
    input : Tensor
        Any shape; floating point.
    p : float, optional
        The probability of dropping an element (default 0.5).
    training : bool, optional
        Apply dropout (default False, as PyTorch's).
    inplace : bool, optional
        Change input in place (default False).

    Returns
    -------
    Tensor
        Of input's shape, dtype and device.

    Raises
    ------
    ValueError
        When p is not a number in [0, 1].
    TypeError
        When input is not a Tensor.
    RuntimeError
        When input is not floating point (in training, with 0 < p < 1).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.alpha_dropout(pydevtensor.ones(3), 0.5)
    tensor([1., 1., 1.])
    >>> _ = pydevtensor.manual_seed(0)
    >>> y = F.alpha_dropout(pydevtensor.randn(100000), 0.2, training=True)
    >>> round(y.mean().item(), 1), round(y.std().item(), 1)
    (0.0, 1.0)
    """
    return _alpha_dropout(input, p, training, inplace, False, "alpha_dropout()")


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels, as ``torch.nn.functional.feature_alpha_dropout``:
    in training each ``input[n, c]`` is dropped whole with probability p (alpha_dropout's
    values and map); otherwise input itself.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, at least 2-d in training; floating point.
    p : float, optional
        The probability of dropping a channel (default 0.5).
    training : bool, optional
        Apply dropout (default False, as PyTorch's).
    inplace : bool, optional
        Change input in place (default False).

    Returns
    -------
    Tensor
        Of input's shape, dtype and device.

    Raises
    ------
    ValueError
        When p is not a number in [0, 1].
    TypeError
        When input is not a Tensor.
    RuntimeError
        In training with 0 < p < 1: when input is not floating point, or has fewer than 2
        dimensions.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> _ = pydevtensor.manual_seed(0)
    >>> y = F.feature_alpha_dropout(pydevtensor.ones(2, 8, 3), 0.5, training=True)
    >>> bool((y.amax(dim=2) == y.amin(dim=2)).all())
    True
    """
    return _alpha_dropout(input, p, training, inplace, True, "feature_alpha_dropout()")
