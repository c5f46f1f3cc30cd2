"""Anomaly detection, as ``torch.autograd``'s: ``detect_anomaly()`` (a context manager
and decorator) and ``set_detect_anomaly(mode)`` (a function, and a context manager
that restores the previous mode).  While it is on with check_nan, every backward runs
on the Python engine (engine.py), which checks each Node's gradients and raises
RuntimeError naming the first Node that returned NaN.  The mode is per process (as a
flag), not per thread."""
from __future__ import annotations

import functools
import warnings
from typing import Any

from .. import _args

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

_STATE = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import autograd
    >>> autograd.is_anomaly_enabled()
    False
    """
    return _STATE["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks the gradients for NaN.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import autograd
    >>> autograd.is_anomaly_check_nan_enabled()
    True
    """
    return _STATE["check_nan"]


def _set(mode: bool, check_nan: bool) -> tuple[bool, bool]:
    _args.flag(mode, "set_detect_anomaly", "mode", numpy=False, position=1)
    _args.flag(check_nan, "set_detect_anomaly", "check_nan", numpy=False, position=2)
    old = (_STATE["enabled"], _STATE["check_nan"])
    _STATE["enabled"], _STATE["check_nan"] = mode, check_nan
    return old


class set_detect_anomaly:
    """Turns anomaly detection on or off, as PyTorch's: called, it sets the mode; used
    in a ``with`` block, the previous mode comes back at its end.

    Parameters
    ----------
    mode : bool
        On or off.
    check_nan : bool, optional
        Raise when a backward Node returns NaN (default True).

    Examples
    --------
    >>> from pydevtensor import autograd
    >>> with autograd.set_detect_anomaly(True):
    ...     autograd.is_anomaly_enabled()
    True
    >>> autograd.is_anomaly_enabled()
    False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _set(*self.prev)


class detect_anomaly:
    """A context manager (and decorator) that turns anomaly detection on inside it, as
    PyTorch's: a backward Node returning NaN raises RuntimeError naming it.  Slower (the
    backward runs on the Python engine and checks every gradient); for debugging.

    Parameters
    ----------
    check_nan : bool, optional
        Check the gradients for NaN (default True).

    Examples
    --------
    >>> from pydevtensor import autograd
    >>> x = pydevtensor.tensor([0.], requires_grad=True)
    >>> with autograd.detect_anomaly():  # doctest: +SKIP
    ...     (x.sqrt() * 0).sum().backward()
    Traceback (most recent call last):
    RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev: tuple[bool, bool] | None = None

    def __enter__(self) -> None:
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", UserWarning,
                      stacklevel=2)
        self.prev = _set(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        _set(*self.prev)

    def __call__(self, fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


def check_gradients(node: Any, grads: Any) -> None:
    """The engine's check, with anomaly detection on: RuntimeError when a gradient node
    returned has a NaN."""
    from .._C import Tensor
    for k, g in enumerate(grads):
        if isinstance(g, Tensor) and g.is_floating_point() and bool(g.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {k}th "
                               f"output.")
