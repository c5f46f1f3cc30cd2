"""pydevtensor.config.threading: the CPU's threads under ``tf.config.threading``'s names.

``set_intra_op_parallelism_threads`` is :func:`pydevtensor.set_num_threads` (the threads
one op is split over) and ``set_inter_op_parallelism_threads`` is
:func:`pydevtensor.set_num_interop_threads`; 0 asks for the default, as in TensorFlow.
Unlike TensorFlow's, the intra-op count may change after the first op (as PyTorch's).
"""

from . import _C, _args
from ._runtime_flags import _state, set_num_interop_threads
from ._threads import set_num_threads

__all__ = ["get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]

_DEFAULT_INTRA = _C._get_num_threads()  # at import, before a program sets it
_intra = {"n": 0}  # what set_intra_op_parallelism_threads set; 0: the default


def _count(fname, n):
    given, n = n, _args.index(n)
    if n is None:
        raise TypeError(f"{fname}(): expected an int number of threads, got {given!r} "
                        f"({type(given).__name__})")
    if n < 0:
        raise ValueError(f"{fname}(): the number of threads must be >= 0 (0: the default), "
                         f"got {n}")
    return n


def set_intra_op_parallelism_threads(num_threads):
    """Sets the number of threads one op is split over (``pydevtensor.set_num_threads``).

    Parameters
    ----------
    num_threads : int
        At least 1; 0: the default (the cores this process may use, or
        ``OMP_NUM_THREADS``).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When num_threads is not an int.
    ValueError
        When num_threads is negative.

    Examples
    --------
    >>> threading = pydevtensor.config.threading
    >>> threading.set_intra_op_parallelism_threads(1)
    >>> threading.get_intra_op_parallelism_threads(), pydevtensor.get_num_threads()
    (1, 1)
    >>> threading.set_intra_op_parallelism_threads(0)
    >>> threading.get_intra_op_parallelism_threads()
    0
    """
    n = _count("set_intra_op_parallelism_threads", num_threads)
    set_num_threads(n or _DEFAULT_INTRA)
    _intra["n"] = n


def get_intra_op_parallelism_threads():
    """The number of threads set_intra_op_parallelism_threads set; 0 (the default, as
    TensorFlow's) when it was not called or was given 0: ``pydevtensor.get_num_threads()``
    is the number in use.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.config.threading.get_intra_op_parallelism_threads()
    0
    """
    return _intra["n"]


def set_inter_op_parallelism_threads(num_threads):
    """Sets the number of inter-op threads (``pydevtensor.set_num_interop_threads``: once
    a process; the same number again is accepted, so a rerun notebook cell works).

    Parameters
    ----------
    num_threads : int
        At least 1; 0: the default (nothing is set).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When num_threads is not an int.
    ValueError
        When num_threads is negative.
    RuntimeError
        When another number was set before in this process.

    Examples
    --------
    Once a process (skipped here, where the doctests share one):

    >>> threading = pydevtensor.config.threading
    >>> threading.set_inter_op_parallelism_threads(2)  # doctest: +SKIP
    >>> threading.get_inter_op_parallelism_threads()  # doctest: +SKIP
    2
    """
    n = _count("set_inter_op_parallelism_threads", num_threads)
    if n and _state["interop_threads"] != n:
        set_num_interop_threads(n)


def get_inter_op_parallelism_threads():
    """The number of inter-op threads set_inter_op_parallelism_threads set; 0 (the
    default, as TensorFlow's) when none was set.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.config.threading.get_inter_op_parallelism_threads() >= 0
    True
    """
    return _state["interop_threads"] or 0
