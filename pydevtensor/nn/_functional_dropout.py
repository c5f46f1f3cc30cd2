"""Channel dropout: nn.functional.dropout1d and dropout2d, with PyTorch's arguments,
shapes and warnings.  A channel of a sample is zeroed whole (with probability p) and
the others scaled by 1 / (1 - p), in training only; the mask, one number per sample
and channel, comes from the package's Philox generator on the input's device, as
F.dropout's does, so one seed gives the same mask on every device.  functional.py
re-exports them (and the probability check that nn.Dropout uses)."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .. import _C
from .. import _args
from .._args import flag

if TYPE_CHECKING:
    from .._C import Tensor


def _dropout_p(p):
    """p, when it is a probability (nn.Dropout checks it when made, dropout when called);
    a NumPy scalar as a Python number."""
    p = _args.plain(p)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
    return p


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                     where: str) -> Tensor:
    """Zeroes input[n, c, ...] whole with probability p for each (n, c), the others
    scaled by 1 / (1 - p); the gradient flows through the kept channels, scaled alike."""
    if not training or p == 0.0 or input.numel() == 0:  # input itself, as PyTorch's
        return input
    if p == 1.0:
        return _all_dropped(input, inplace)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{where}: expected a floating point tensor, got {input.dtype} (on "
                           f"{input.device})")
    return _dropped(input, p, inplace, tuple(input.shape[:2]) + (1,) * (input.ndim - 2))


def _all_dropped(input: Tensor, inplace: bool) -> Tensor:
    """input times a 0 of its dtype (a NaN or inf stays NaN), what every dropout gives
    for p = 1 as PyTorch's: before any check of the input's dtype or dimensions, so an
    integer input gives integer zeros."""
    zero = _C.zeros((), dtype=input.dtype, device=input.device)
    return input.mul_(zero) if inplace else input * zero


def _dropped(input: Tensor, p: float, inplace: bool, shape: tuple[int, ...]) -> Tensor:
    """input times a random mask of shape (broadcast to input's; each entry kept with
    probability 1 - p), scaled by 1 / (1 - p); p < 1."""
    keep = _C.rand(shape, device=input.device) >= p  # kept with probability 1 - p
    scale = 1.0 / (1.0 - p)
    if inplace:  # one write, so one version bump, as PyTorch's
        return input.copy_(input * keep * scale)
    return input * keep * scale


def _checked(input, p, where: str, training) -> bool:
    """training as a bool, once p and input are checked."""
    _dropout_p(p)
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    return flag(training, where.removesuffix("()"), "training")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels (2-d feature maps) of a batch of images, each with
    probability p, and scales the rest by 1 / (1 - p), as
    ``torch.nn.functional.dropout2d``; in evaluation (training=False) the input itself.

    The mask has one entry per sample and channel, drawn from the package's
    generator on input's device (the same mask on every device for one seed).  As in
    PyTorch, dimensions 0 and 1 are the sample and the channel whatever the input's
    dimensions: a 3-d input is taken as (N, C, L), with a warning, and one that is
    neither 3-d nor 4-d is accepted with a warning.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``; floating point.
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    training : bool, optional
        Apply dropout (default True); False returns input.
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
        When input is not floating point (in training, with 0 < p < 1), as F.dropout.
    ValueError, RuntimeError
        (InvalidArgumentError) When input has fewer than 2 dimensions.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> _ = pydevtensor.manual_seed(0)
    >>> y = F.dropout2d(pydevtensor.ones(2, 8, 3, 3), p=0.5)
    >>> sorted(set(y.flatten().tolist()))
    [0.0, 2.0]
    >>> bool((y.amax(dim=(2, 3)) == y.amin(dim=(2, 3))).all())
    True
    """
    where = "dropout2d()"
    training = _checked(input, p, where, training)
    if input.ndim < 2 and training and 0.0 < p < 1.0 and input.numel():  # a mask needs them
        raise _C.InvalidArgumentError(
            f"{where}: Feature dropout requires at least 2 dimensions in the input, got shape "
            f"{tuple(input.shape)} (on {input.device})")
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d; dropout2d "
                      f"zeroes channels of (N, C, H, W) inputs (or (N, C, L)); use dropout "
                      f"for element-wise dropout", UserWarning, stacklevel=2)
    elif input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim, as PyTorch does; use "
                      "dropout1d for that, or add the batch dimension to an image (C, H, W)",
                      UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace, where)


def _maybe_unbatched(input, batched_ndim, p, training, inplace, where):
    """_feature_dropout of input, one unbatched sample (batched_ndim - 1 dims) made a
    batch of one first (its channels are dimension 0)."""
    if input.ndim == batched_ndim or not training or p == 0.0:
        return _feature_dropout(input, p, training, inplace, where)
    out = _feature_dropout(input.unsqueeze(0), p, training, inplace, where)
    return input if inplace else out.squeeze(0)  # in place: input's own storage changed


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels (1-d feature maps) of a batch of sequences, each with
    probability p, and scales the rest by 1 / (1 - p), as
    ``torch.nn.functional.dropout1d``; in evaluation (training=False) the input itself.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)`` for one sequence; floating point.
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    training : bool, optional
        Apply dropout (default True).
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
        When input is not floating point (in training, with 0 < p < 1), as F.dropout.
    ValueError, RuntimeError
        (InvalidArgumentError) When input is not 2-d or 3-d.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.dropout1d(pydevtensor.ones(2, 3), p=0.5, training=False)
    tensor([[1., 1., 1.],
            [1., 1., 1.]])
    >>> F.dropout1d(pydevtensor.ones(2, 3), p=1.0)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """
    where = "dropout1d()"
    training = _checked(input, p, where, training)
    if input.ndim not in (2, 3):
        raise _C.InvalidArgumentError(
            f"{where}: Expected 2D or 3D input, but received a {input.ndim}D input of shape "
            f"{tuple(input.shape)} (on {input.device}); dropout1d zeroes channels of inputs "
            f"with 1 spatial dimension, a channel dimension and an optional batch dimension")
    return _maybe_unbatched(input, 3, p, training, inplace, where)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels (3-d feature maps) of a batch of volumes, each with
    probability p, and scales the rest by 1 / (1 - p), as
    ``torch.nn.functional.dropout3d``; in evaluation (training=False) the input itself.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)``, or ``(C, D, H, W)`` for one volume; floating point.
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    training : bool, optional
        Apply dropout (default True).
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
    ValueError, RuntimeError
        (InvalidArgumentError) When input is 0-d; another count of dimensions than 4 or
        5 warns, as in PyTorch, and is read as one sample.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> _ = pydevtensor.manual_seed(0)
    >>> y = F.dropout3d(pydevtensor.ones(2, 8, 2, 2, 2), p=0.5)
    >>> bool((y.amax(dim=(2, 3, 4)) == y.amin(dim=(2, 3, 4))).all())
    True
    """
    where = "dropout3d()"
    training = _checked(input, p, where, training)
    if input.ndim not in (4, 5):  # PyTorch warns (deprecated) and reads it as unbatched
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      f"deprecated and will result in an error in a future release (as in "
                      f"PyTorch); inputs of (C, D, H, W) or (N, C, D, H, W) are expected",
                      UserWarning, stacklevel=2)
    if input.ndim < 1 and training and 0.0 < p < 1.0:  # as dropout2d's check
        raise _C.InvalidArgumentError(
            f"{where}: Feature dropout requires at least 1 dimension here, got shape "
            f"{tuple(input.shape)} (on {input.device})")
    return _maybe_unbatched(input, 5, p, training, inplace, where)
