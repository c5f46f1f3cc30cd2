"""``torch.cuda.set_sync_debug_mode`` / ``get_sync_debug_mode``: warn or raise when an
operation makes the host wait for a GPU (Note [sync debug mode] in csrc/python/guard.c).

pydevtensor sees these where its transfer guard sees implicit transfers: each implicit
device-to-host read (``item()``, ``float()``, ``int()``, ``bool()``, ``tolist()``,
``repr()``, ``equal()``, ``nonzero``, ``x[mask]`` and the other reads that
``pydevtensor.transfer_guard`` lists, the index checks included) waits for the device.
"""
import numbers
import operator

from . import _C
from ._cuda_info import _require_cuda

__all__ = ["set_sync_debug_mode", "get_sync_debug_mode"]

_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode):
    """Sets what happens on an operation that makes the host wait for a GPU, as
    ``torch.cuda.set_sync_debug_mode``: "default" (0) nothing, "warn" (1) a
    UserWarning "called a synchronizing CUDA operation: ..." that names the transfer,
    "error" (2) a RuntimeError (``pydevtensor.TransferError``) instead of the operation.
    For the whole process, as PyTorch's.

    The operations seen are the implicit device-to-host transfers of
    ``pydevtensor.transfer_guard``: ``item()``, ``float()``, ``int()``, ``bool()``,
    ``tolist()``, ``repr()`` and ``str()`` of a GPU tensor, ``equal()`` and
    ``allclose()``, ``nonzero``, ``x[mask]``, ``masked_scatter``, ``repeat_interleave``,
    ``one_hot`` without ``num_classes``, the ``linalg`` solvers' checks and the check of
    a GPU index before a write through it.  Not seen (PyTorch's flags them too): explicit
    copies to the CPU (``.cpu()``, ``.to('cpu')``, ``.numpy(force=True)``), which wait
    unless non_blocking, and ``cuda.synchronize()``, ``Event.synchronize()`` and
    ``Stream.synchronize()``, which are asked for by name.

    Parameters
    ----------
    debug_mode : int or str
        0 or "default", 1 or "warn", 2 or "error" (an int: also a NumPy integer).

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        For a str that is none of "default", "warn", "error", or an int other than 0, 1,
        2, as PyTorch's.
    TypeError
        For another type.
    pydevtensor.DeviceError
        When no CUDA device can be used (the message says why), as PyTorch's raises.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.set_sync_debug_mode("warn")  # doctest: +SKIP
    >>> pydevtensor.ones(1, device="cuda").item()  # doctest: +SKIP
    UserWarning: called a synchronizing CUDA operation: implicit device-to-host ...
    >>> pydevtensor.cuda.set_sync_debug_mode(0)  # doctest: +SKIP
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError(f"invalid value of debug_mode {debug_mode!r}, expected one of "
                               f"`default`, `warn`, `error`")
        mode = _MODES[debug_mode]
    elif isinstance(debug_mode, numbers.Integral) and not isinstance(debug_mode, bool):
        mode = operator.index(debug_mode)  # a NumPy integer too, as PyTorch's
        if mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode {mode}, expected one of "
                               f"0, 1, 2")
    else:
        raise TypeError(f"set_sync_debug_mode(): debug_mode must be an int or a str, got "
                        f"{type(debug_mode).__name__}")
    _require_cuda("cuda.set_sync_debug_mode()")
    _C._set_sync_debug_mode(mode)


def get_sync_debug_mode():
    """The mode ``set_sync_debug_mode`` set: 0 (default), 1 (warn) or 2 (error), as
    ``torch.cuda.get_sync_debug_mode``.

    Returns
    -------
    int

    Raises
    ------
    pydevtensor.DeviceError
        When no CUDA device can be used (the message says why), as PyTorch's raises.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.get_sync_debug_mode()  # doctest: +SKIP
    0
    """
    _require_cuda("cuda.get_sync_debug_mode()")
    return _C._get_sync_debug_mode()
