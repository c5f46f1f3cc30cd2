"""``torch.cuda.amp`` (``pydevtensor.cuda.amp``): deprecated aliases of pydevtensor.amp's
autocast, GradScaler, custom_fwd and custom_bwd for CUDA (they warn)."""
import functools
import warnings

from .amp._deprecated import aliases
from .amp import autocast_mode as _autocast_mode

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = aliases("cuda", "pydevtensor.cuda.amp")


def _warn(name):
    warnings.warn(f"`pydevtensor.cuda.amp.{name}(args...)` is deprecated. Please use "
                  f"`pydevtensor.amp.{name}(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=3)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """:func:`pydevtensor.amp.custom_fwd` with device_type='cuda' under its deprecated
    name (warns a FutureWarning, as PyTorch's ``torch.cuda.amp.custom_fwd``).

    Parameters
    ----------
    fwd : callable, optional
        The ``forward``; without it, the decorator.
    cast_inputs : dtype, optional
        As :func:`pydevtensor.amp.custom_fwd`'s.

    Returns
    -------
    callable
        The wrapped ``forward``, or a decorator when fwd is None.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f = pydevtensor.cuda.amp.custom_fwd(lambda ctx, x: x)
    >>> callable(f)
    True
    """
    _warn("custom_fwd")
    return functools.partial(_autocast_mode.custom_fwd, device_type="cuda")(
        fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """:func:`pydevtensor.amp.custom_bwd` with device_type='cuda' under its deprecated
    name (warns a FutureWarning, as PyTorch's ``torch.cuda.amp.custom_bwd``).

    Parameters
    ----------
    bwd : callable
        The ``backward``.

    Returns
    -------
    callable
        The wrapped ``backward``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     b = pydevtensor.cuda.amp.custom_bwd(lambda ctx, g: g)
    >>> callable(b)
    True
    """
    _warn("custom_bwd")
    return functools.partial(_autocast_mode.custom_bwd, device_type="cuda")(bwd)
