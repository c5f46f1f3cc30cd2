"""Where index checks of GPU gathers run: ``config.set_index_checks`` and
``config.get_index_checks`` (Note [deferred index checks] in csrc/core/pdt_index.h).

=========  ==================================================================
mode       meaning
=========  ==================================================================
'device'   (the default) ops that read through user indices into a new tensor
           (``index_select``, ``gather``, ``take``, ``x[idx]``, ``F.embedding``
           and their gradients) check the indices on the GPU, with no read-back;
           an index out of range raises ``IndexError`` at the next
           synchronisation with that device (``.cpu()``, ``.item()``,
           ``.tolist()``, ``bool()``, ``cuda.synchronize()``, an event's
           ``synchronize()``, and an export through ``__dlpack__`` or
           ``__cuda_array_interface__`` while checks are pending), naming the
           op, the index, the dim and its size, and counting the bad values
           later ops found before that point (each error is raised once: every
           result computed on that device since the previous report may be
           invalid).
'sync'     every op checks its indices before it runs, through a read-back of
           their min and max (a device-to-host copy and a wait per op): the
           ``IndexError`` comes from the op itself.
=========  ==================================================================

Ops that write at user indices into an existing tensor (``index_add_``,
``index_copy_``, ``index_fill_``, ``scatter_``, ``x[idx] = v``) check before the op
in both modes, so that a bad index never leaves the tensor half-changed.  CPU ops
always check before the op.  At import, the environment variable
``PYDEVTENSOR_INDEX_CHECKS`` ('device' or 'sync') sets the mode; without it,
``CUDA_LAUNCH_BLOCKING=1`` (PyTorch's switch for errors at the op) chooses 'sync'
(another value of the variable is ignored, with a RuntimeWarning).
"""
import os
import warnings

from . import _C

MODES = ("device", "sync")


def set_index_checks(mode):
    """Chooses where GPU gathers check their indices (see MODES).

    Parameters
    ----------
    mode : str
        'device': on the GPU, an error raised at the next synchronisation with the
        device (the default; no read-back per op): one IndexError naming the first
        bad index, with the count of the bad values later ops found and their
        names; every result computed on that device since the previous report may
        then be invalid.  Handing a tensor to another library (``__dlpack__``,
        ``__cuda_array_interface__``) while checks are pending synchronises and
        reports first.  'sync': before each op, through a read-back of the indices'
        min and max, an error raised by the op itself.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        For a mode that is not a str.
    ValueError
        For another mode.

    Examples
    --------
    >>> pydevtensor.config.set_index_checks('sync')
    >>> pydevtensor.config.get_index_checks()
    'sync'
    >>> pydevtensor.config.set_index_checks('device')
    """
    if not isinstance(mode, str):
        raise TypeError(f"set_index_checks(): mode must be a str ('device' or 'sync'), got "
                        f"{type(mode).__name__}")
    if mode not in MODES:
        raise ValueError(f"set_index_checks(): mode must be 'device' or 'sync', got {mode!r}")
    _C._set_index_checks(mode == "device")


def get_index_checks():
    """Where GPU gathers check their indices now: 'device' or 'sync' (see
    set_index_checks).

    Returns
    -------
    str
        'device' or 'sync'.

    Examples
    --------
    >>> pydevtensor.config.get_index_checks()
    'device'
    """
    return "device" if _C._get_index_checks() else "sync"


def _from_environment(environ=os.environ):
    """The mode the environment asks for, or None: PYDEVTENSOR_INDEX_CHECKS, else
    'sync' for CUDA_LAUNCH_BLOCKING=1.  Another value warns (import never fails)."""
    mode = environ.get("PYDEVTENSOR_INDEX_CHECKS", "").strip().lower()
    if mode in MODES:
        return mode
    if mode:
        warnings.warn(f"PYDEVTENSOR_INDEX_CHECKS must be 'device' or 'sync', got {mode!r}; "
                      f"ignored", RuntimeWarning, stacklevel=2)
    return "sync" if environ.get("CUDA_LAUNCH_BLOCKING", "").strip() == "1" else None


_mode = _from_environment()
if _mode is not None:
    set_index_checks(_mode)
