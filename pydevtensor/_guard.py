"""The transfer guard: make implicit copies between devices visible or forbidden.

An *implicit* transfer is a read of device data that copies as a side effect:
``item()``, ``float()``, ``int()``, ``bool()``, ``tolist()``, ``repr()`` and
``str()`` of a GPU tensor, ``equal()`` and ``allclose()`` of GPU tensors, and
``tensor([l0, l1])`` of 0-d GPU tensors (with ``device=`` too), and the reads of
ops whose result size or error depends on the data (``nonzero``, ``x[mask]``,
``masked_scatter``, ``repeat_interleave``, ``one_hot`` without ``num_classes``,
the ``linalg`` solvers' checks, the check of a GPU index before a write through it,
or before any GPU indexing under ``config.set_index_checks('sync')``; the error names
the op).  An *explicit* one is a copy you asked for: ``.cpu()``, ``.to()``,
``.cuda()``, ``copy_()``, ``to_numpy(t)``, ``.numpy(force=True)``, pickling and
``save``.  Copies within one device are not transfers.

======================  ========================================================
level                   what happens
======================  ========================================================
``"allow"``             the default: transfers happen silently
``"log"``               implicit transfers are logged (WARNING) on the logger
                        ``pydevtensor.transfer``, with the op, shape, dtype and
                        devices
``"disallow"``          implicit transfers raise ``pydevtensor.TransferError``;
                        explicit ones still work
``"log_explicit"``      every transfer is logged
``"disallow_explicit"`` every transfer raises
======================  ========================================================

``transfer_guard(level)`` sets the level of the calling thread for a ``with``
block (or a decorated function), as in JAX; ``config.set_transfer_guard(level)``
sets the default for threads without one.
"""
import contextlib

from . import _C

LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")


def transfer_guard(level):
    """A context manager (and decorator) setting this thread's transfer guard.

    Parameters
    ----------
    level : str
        One of ``LEVELS``: "allow", "log", "disallow", "log_explicit",
        "disallow_explicit".

    Returns
    -------
    contextlib.AbstractContextManager
        Sets the level on entry and restores the previous one on exit.

    Raises
    ------
    ValueError
        At once, for an unknown level.

    Examples
    --------
    A CPU tensor crosses no device, so printing it is allowed:

    >>> x = pydevtensor.ones(2)
    >>> with pydevtensor.transfer_guard("disallow"):
    ...     print(x)
    tensor([1., 1.])

    With a GPU (skipped here: it needs one), an implicit copy raises:

    >>> g = pydevtensor.ones(2, device="cuda")  # doctest: +SKIP
    >>> with pydevtensor.transfer_guard("disallow"):  # doctest: +SKIP
    ...     y = g.cpu()      # explicit: fine
    ...     print(g)         # implicit: raises pydevtensor.TransferError
    """
    _C._check_transfer_guard(level)
    return _thread_level(level)


@contextlib.contextmanager
def _thread_level(level):
    previous = _C._set_thread_transfer_guard(level)
    try:
        yield
    finally:
        _C._set_thread_transfer_guard(previous)


def set_transfer_guard(level):
    """Sets the default transfer guard level for every thread (see LEVELS).

    Parameters
    ----------
    level : str
        One of LEVELS: 'allow', 'log', 'disallow', 'log_explicit', 'disallow_explicit'.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For an unknown level.

    Examples
    --------
    >>> pydevtensor.config.set_transfer_guard('log')
    >>> pydevtensor.config.get_transfer_guard()
    'log'
    >>> pydevtensor.config.set_transfer_guard('allow')
    """
    _C._set_transfer_guard(level)


def get_transfer_guard():
    """The level in effect on the calling thread: its ``transfer_guard`` block's,
    else the default.

    Returns
    -------
    str

    Examples
    --------
    >>> pydevtensor.config.get_transfer_guard()
    'allow'
    >>> with pydevtensor.transfer_guard('disallow'):
    ...     pydevtensor.config.get_transfer_guard()
    'disallow'
    """
    return _C._get_transfer_guard()
