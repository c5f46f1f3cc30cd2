"""``torch.cuda.nvtx`` (``pydevtensor.cuda.nvtx``): NVTX ranges and marks, the
annotations a profiler (Nsight Systems) shows on its timeline.

pydevtensor is not linked against NVTX, so no profiler sees these; they keep the nesting
depth NVTX would report (per thread, as NVTX's), so that code annotated for
``torch.cuda.nvtx`` runs unchanged, with or without a GPU.
"""
import contextlib
import itertools
import threading

from ._devices import _fill_doc

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_local = threading.local()
_range_ids = itertools.count(1)


# the Parameters, Returns and Raises of the functions that take a message
_MSG_DOC = """{summary}

    Parameters
    ----------
    msg : str
        {name}

    {result}

    Raises
    ------
    TypeError
        When msg is not a str.

{examples}"""


def _msg_doc(result, name="The range's name."):
    return lambda fn: _fill_doc(fn, _MSG_DOC, name=name, result=result)


def _stack():
    if not hasattr(_local, "depth"):
        _local.depth = 0
    return _local


def _check_msg(fn, msg):
    if not isinstance(msg, str):
        raise TypeError(f"cuda.nvtx.{fn}(): msg must be a str, got {type(msg).__name__}")


@_msg_doc("Returns\n    -------\n    int\n        The zero-based depth of the range opened, as NVTX's.")
def range_push(msg):
    """Opens a nested range named msg on this thread (``nvtxRangePushA``).

    Examples
    --------
    >>> pydevtensor.cuda.nvtx.range_push("forward")
    0
    >>> pydevtensor.cuda.nvtx.range_pop()
    0
    """
    _check_msg("range_push", msg)
    state = _stack()
    state.depth += 1
    return state.depth - 1


def range_pop():
    """Closes this thread's innermost range (``nvtxRangePop``).

    Returns
    -------
    int
        The zero-based depth of the range closed; -1 when none was open, as NVTX's.

    Examples
    --------
    >>> pydevtensor.cuda.nvtx.range_pop()
    -1
    """
    state = _stack()
    if state.depth == 0:
        return -1
    state.depth -= 1
    return state.depth


@_msg_doc("Returns\n    -------\n    int\n        The range's id, for ``range_end``.")
def range_start(msg):
    """Starts a range that need not nest, and may end on another thread
    (``nvtxRangeStartA``).

    Examples
    --------
    >>> rid = pydevtensor.cuda.nvtx.range_start("load")
    >>> pydevtensor.cuda.nvtx.range_end(rid)
    """
    _check_msg("range_start", msg)
    return next(_range_ids)


def range_end(range_id):
    """Ends the range that ``range_start`` started (``nvtxRangeEnd``).

    Parameters
    ----------
    range_id : int
        What ``range_start`` returned.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When range_id is not an int.

    Examples
    --------
    >>> pydevtensor.cuda.nvtx.range_end(pydevtensor.cuda.nvtx.range_start("step"))
    """
    if not isinstance(range_id, int) or isinstance(range_id, bool):
        raise TypeError(f"cuda.nvtx.range_end(): range_id must be an int from range_start(), "
                        f"got {type(range_id).__name__}")


@_msg_doc("Returns\n    -------\n    None", name="The event's name.")
def mark(msg):
    """Marks an instant named msg (``nvtxMarkA``).

    Examples
    --------
    >>> pydevtensor.cuda.nvtx.mark("checkpoint saved")
    """
    _check_msg("mark", msg)


@contextlib.contextmanager
@_msg_doc("Returns\n    -------\n    contextlib.AbstractContextManager\n"
          "        Whose block runs inside the range; also a decorator.",
          name="The range's name, a format string when args or kwargs are given.\n"
               "    args, kwargs\n        Formatted into msg (``str.format``).")
def range(msg, *args, **kwargs):  # noqa: A001  (torch.cuda.nvtx.range's name)
    """``with cuda.nvtx.range(msg):`` pushes a range named ``msg.format(*args, **kwargs)``
    for the block and pops it after, as ``torch.cuda.nvtx.range`` (also a decorator).

    Examples
    --------
    >>> with pydevtensor.cuda.nvtx.range("epoch {}", 3):
    ...     depth = pydevtensor.cuda.nvtx.range_push("inner")
    ...     _ = pydevtensor.cuda.nvtx.range_pop()
    >>> depth
    1
    """
    _check_msg("range", msg)
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
