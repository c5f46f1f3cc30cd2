"""set_num_threads() / get_num_threads(): the CPU's threads, as in PyTorch."""
import operator

from . import _C


def set_num_threads(n):
    """Use ``n`` threads on the CPU: for pydevtensor's own parallel loops (elementwise
    operations, reductions) and for OpenBLAS (matmul), which runs its parallel parts on
    the same pool of threads (``build_info()["blas"]["runs_on"]``), at most one a core
    (its parts wait on each other, so more of them than cores only wait longer).

    Parameters
    ----------
    n : int
        At least 1.  The pool starts with the cores this process may use, or
        ``OMP_NUM_THREADS`` when that is set, and grows to ``n`` threads when ``n`` is
        larger, at most 16.  It never shrinks: a smaller ``n`` leaves threads idle.
        OpenBLAS starts with the pool's count, or with the count it takes from the
        environment (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS``) when that is
        lower (``OPENBLAS_NUM_THREADS=1``: one core a product, as OpenBLAS alone would
        run), until this is called.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        When ``n`` is less than 1.  TypeError when it is not an int.

    Examples
    --------
    >>> before = pydevtensor.get_num_threads()
    >>> pydevtensor.set_num_threads(1)
    >>> pydevtensor.get_num_threads()
    1
    >>> pydevtensor.set_num_threads(before)
    """
    _C._set_num_threads(operator.index(n))


def get_num_threads():
    """The number of threads pydevtensor's CPU loops use.

    By default the cores this process may run on (at most 16), or ``OMP_NUM_THREADS`` when
    the environment sets it, as PyTorch reads it; then what :func:`set_num_threads` set.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.get_num_threads() >= 1
    True
    """
    return _C._get_num_threads()
