"""Process-wide precision and determinism switches, as PyTorch's:
``set_float32_matmul_precision``/``get_float32_matmul_precision`` (wired to
``backends.cuda.matmul.allow_tf32``: 'high' and 'medium' let float32 GEMMs on CUDA use
TF32, 'highest' does not; the CPU always computes in float32) and
``use_deterministic_algorithms``/``are_deterministic_algorithms_enabled`` and their other
form, ``set_deterministic_debug_mode``/``get_deterministic_debug_mode``."""
from __future__ import annotations

import warnings

from . import _C
from ._C import InvalidArgumentError

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Sets how precise float32 matrix products must be: 'highest' (float32 throughout,
    the default), 'high' or 'medium' (both let CUDA GEMMs use TF32 tensor cores, i.e.
    set ``backends.cuda.matmul.allow_tf32``).  Another string warns and changes
    nothing, as in PyTorch.

    Parameters
    ----------
    precision : str
        'highest', 'high' or 'medium'.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When precision is not a str.

    Examples
    --------
    >>> pydevtensor.set_float32_matmul_precision('high')
    >>> pydevtensor.get_float32_matmul_precision(), pydevtensor.backends.cuda.matmul.allow_tf32
    ('high', True)
    >>> pydevtensor.set_float32_matmul_precision('highest')
    """
    if not isinstance(precision, str):
        raise TypeError(f"set_float32_matmul_precision(): precision must be a str "
                        f"('highest', 'high' or 'medium'), got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the "
                      f"set_float32_matmul_precision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    _state["precision"] = precision
    _C._set_allow_tf32(precision != "highest")


def get_float32_matmul_precision() -> str:
    """The float32 matrix product precision: 'highest', 'high' or 'medium' (setting
    ``backends.cuda.matmul.allow_tf32`` moves it between 'highest' and 'high', as in
    PyTorch).

    Returns
    -------
    str

    Examples
    --------
    >>> pydevtensor.get_float32_matmul_precision()
    'highest'
    """
    tf32 = _C._get_allow_tf32()
    if tf32 and _state["precision"] == "highest":
        return "high"
    if not tf32 and _state["precision"] != "highest":
        return "highest"
    return _state["precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records whether operations must be deterministic (PyTorch's switch).  The flag is
    kept and reported by ``are_deterministic_algorithms_enabled``; no pydevtensor
    kernel consults it yet (index_add and scatter-add on CUDA use atomics, whose sum
    order can vary).

    Parameters
    ----------
    mode : bool
    warn_only : bool, optional

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When mode or warn_only is not a bool.

    Examples
    --------
    >>> pydevtensor.use_deterministic_algorithms(True)
    >>> pydevtensor.are_deterministic_algorithms_enabled()
    True
    >>> pydevtensor.use_deterministic_algorithms(False)
    """
    for name, v in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(v, bool):
            raise TypeError(f"use_deterministic_algorithms(): argument '{name}' must be bool, "
                            f"not {type(v).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms`` was given warn_only=True.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """Sets the determinism switch by level, as PyTorch's: 0 or 'default' is
    ``use_deterministic_algorithms(False)``, 1 or 'warn' is
    ``use_deterministic_algorithms(True, warn_only=True)`` and 2 or 'error' is
    ``use_deterministic_algorithms(True)``.

    Parameters
    ----------
    debug_mode : int or str
        0, 1, 2, 'default', 'warn' or 'error' (a bool is an int, as in Python).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When debug_mode is neither an int nor a str.
    InvalidArgumentError
        (a ValueError and a RuntimeError) When it is another int or str.

    Examples
    --------
    >>> pydevtensor.set_deterministic_debug_mode("warn")
    >>> pydevtensor.get_deterministic_debug_mode()
    1
    >>> pydevtensor.is_deterministic_algorithms_warn_only_enabled()
    True
    >>> pydevtensor.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise InvalidArgumentError(f"invalid value of debug_mode, expected one of "
                                       f"`default`, `warn`, `error`, but got {debug_mode}")
        level = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int):
        if debug_mode not in (0, 1, 2):
            raise InvalidArgumentError(f"invalid value of debug_mode, expected 0, 1, or 2, "
                                       f"but got {debug_mode}")
        level = int(debug_mode)
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


def get_deterministic_debug_mode() -> int:
    """The determinism switch as a level: 0 when ``use_deterministic_algorithms`` is off,
    1 when on with warn_only=True, 2 when on (PyTorch's).

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.get_deterministic_debug_mode()
    0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2
