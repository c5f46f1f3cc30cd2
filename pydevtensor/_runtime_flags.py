"""PyTorch's process switches on warnings, threads and denormals: ``set_warn_always`` /
``is_warn_always_enabled``, ``get_num_interop_threads`` / ``set_num_interop_threads`` /
``init_num_threads`` and ``set_flush_denormal``."""
from __future__ import annotations

import os
import sys
import warnings

from . import _C, _args
from ._C import InvalidArgumentError

__all__ = ["set_warn_always", "is_warn_always_enabled",
           "get_num_interop_threads", "set_num_interop_threads", "init_num_threads",
           "set_flush_denormal"]

_state = {"warn_always": False, "interop_threads": None}


def set_warn_always(b: bool, /) -> None:
    """Makes the warnings that pydevtensor gives once a process (PyTorch's
    TORCH_WARN_ONCE) warn on every call instead, or once again (False, the default).

    They are: ``float(t)`` of a tensor that requires grad, ``x.T`` of other than a matrix,
    ``H``/``mT``/``mH``/``adjoint()`` of a 0-d tensor, ``meshgrid`` without indexing, the
    deprecated solvers (``lu``, ``lu_solve``, ...) and ``Tensor.storage()``.  Python's own
    warning filters still apply on top (the default one shows a warning once a line).

    Parameters
    ----------
    b : bool

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When b is not a bool.

    Examples
    --------
    >>> pydevtensor.set_warn_always(True)
    >>> pydevtensor.is_warn_always_enabled()
    True
    >>> pydevtensor.set_warn_always(False)
    """
    _args.flag(b, "set_warn_always", "b", numpy=False)
    _C._set_warn_always(b)
    _state["warn_always"] = b


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in force.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.is_warn_always_enabled()
    False
    """
    return _state["warn_always"]


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def outside_level() -> int:
    """The stacklevel that warnings.warn, called in the caller's own frame, needs to point
    at the nearest frame outside pydevtensor (the user's line), however many of
    pydevtensor's frames lie between: a layer's __call__ with or without hooks, the first
    read of a lazily attached method (pydevtensor/_lazy.py).  1 is the caller itself."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f, level = f.f_back, level + 1
    return level


def warn_once(given: set, key, message: str, stacklevel: int) -> None:
    """warnings.warn(message) (a UserWarning) the first time key is given, recorded in
    given; every time while ``set_warn_always(True)`` is in force.  stacklevel counts from
    the caller of warn_once."""
    if key in given and not _state["warn_always"]:
        return
    given.add(key)
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def get_num_interop_threads() -> int:
    """The number of threads for inter-op parallelism (PyTorch's, which runs TorchScript's
    forked tasks on them): the cores this process may use, or what
    :func:`set_num_interop_threads` set.  pydevtensor runs no inter-op work (its ops run
    one after another, each split over :func:`get_num_threads` threads), so the number
    is recorded and reported only.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.get_num_interop_threads() >= 1
    True
    """
    if _state["interop_threads"] is not None:
        return _state["interop_threads"]
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def set_num_interop_threads(n: int) -> None:
    """Sets the number of inter-op threads: once a process, as PyTorch's (which also
    refuses it after inter-op work has started; pydevtensor starts none, see
    :func:`get_num_interop_threads`).

    Parameters
    ----------
    n : int
        At least 1.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When n is not an int.
    InvalidArgumentError
        (a ValueError and a RuntimeError) When n is less than 1.
    RuntimeError
        When it was set before in this process.

    Examples
    --------
    >>> pydevtensor.set_num_interop_threads(0)
    Traceback (most recent call last):
    ...
    pydevtensor.InvalidArgumentError: set_num_interop_threads expects a positive integer, got 0
    """
    given, n = n, _args.index(n)
    if n is None:
        raise TypeError(f"set_num_interop_threads expects an int, but got "
                        f"{type(given).__name__}")
    if n < 1:
        raise InvalidArgumentError(f"set_num_interop_threads expects a positive integer, "
                                   f"got {n}")
    if _state["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _state["interop_threads"] = n


def init_num_threads() -> None:
    """Prepares the calling thread to use :func:`get_num_threads` threads, as PyTorch's
    does for its per-thread OpenMP setting.  pydevtensor's pool of threads is shared by
    the whole process, so a new thread uses it as it is: nothing to do.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.init_num_threads()
    """


def set_flush_denormal(mode: bool) -> bool:
    """Flushes denormal (subnormal) floating-point numbers to zero on the CPU, or stops
    (PyTorch's): with ``mode=True`` a denormal input reads as zero and a denormal result
    is written as zero (x86's FTZ and DAZ bits), which can make code that meets such tiny
    numbers much faster.

    It is set in the calling thread only, as PyTorch's is (a thread started from it
    afterwards inherits it, as C threads do).  pydevtensor's pool threads run their parts
    of an op with the setting of the thread that called the op, so a result does not
    depend on how an op was split, and other threads of the process keep their own
    setting.  NumPy's operations on the calling thread are affected too.

    Parameters
    ----------
    mode : bool

    Returns
    -------
    bool
        True when set; False (nothing changed) where the processor has no such mode
        here (other than x86).

    Raises
    ------
    TypeError
        When mode is not a bool.

    Examples
    --------
    >>> x = pydevtensor.tensor([1e-39])  # a float32 denormal
    >>> on = pydevtensor.set_flush_denormal(True)  # True on x86
    >>> (x * 1.0).item() == 0 or not on
    True
    >>> pydevtensor.set_flush_denormal(False) == on
    True
    >>> x * 1.0
    tensor([1.0000e-39])
    """
    _args.flag(mode, "set_flush_denormal", "mode", numpy=False)
    return _C._set_flush_denormal(mode)
