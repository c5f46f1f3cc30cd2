"""pydevtensor.accelerator: ``torch.accelerator``, the device-generic names for the
accelerator this copy of pydevtensor was built for: CUDA in a CUDA build (whether or not
a GPU is there, as PyTorch's), none otherwise.  Each maps onto ``pydevtensor.cuda``.
Logical CPU devices (``config.set_logical_device_configuration`` on the CPU) are not
accelerators.

Without a usable GPU they behave as PyTorch's: ``is_available()`` is False,
``device_count()`` 0, the memory reports 0 (``memory_stats()`` {}) and ``empty_cache()``
does nothing, while the ones that need a device (``current_device_index()``,
``set_device_index(0)``, ``synchronize()``, ``current_stream()``, ``get_memory_info()``)
raise ``pydevtensor.DeviceError``, saying why.  A device given as a str or a
``pydevtensor.device`` must be of the accelerator's type (ValueError); an int is an index.
"""
import warnings
from functools import partial

from . import _C, cuda
from ._devices import _device_doc
from ._streams import Stream

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream",
    "device_count", "device_index", "empty_cache", "get_memory_info", "is_available",
    "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
    "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
    "set_device_idx", "set_device_index", "set_stream", "synchronize",
]


def _no_accelerator(what):
    return _C.DeviceError(f"accelerator.{what}: no accelerator can be used: "
                          f"{cuda.unavailable_reason()}")


def _device_index(device, what, optional=True):
    """device (None, an int index, or a str / device of the accelerator's type) as an
    index; None or a device without an index: the current one (PyTorch's
    _get_device_index)."""
    if isinstance(device, bool) or not isinstance(device, (type(None), int, str, _C.device)):
        raise TypeError(f"accelerator.{what}: expected a device, a device string, an index "
                        f"or None, got {type(device).__name__}")
    if isinstance(device, int):
        return device
    if device is None:
        if not optional:
            raise ValueError(f"accelerator.{what}: expected a device with an index or an "
                             f"int, got None")
        return current_device_index()
    acc = current_accelerator()
    if acc is None:
        raise _no_accelerator(what)
    dev = _C.device(device)
    if dev.type != acc.type:
        raise ValueError(f"accelerator.{what}: {dev} doesn't match the current "
                         f"accelerator {acc.type}")
    return dev.index


def current_accelerator(check_available=False):
    """The accelerator's device type this copy was built for, as ``torch.accelerator``'s:
    ``device('cuda')`` in a CUDA build, even without a GPU; None without one.

    Parameters
    ----------
    check_available : bool, optional
        When True, also None unless ``is_available()`` (a GPU can be used now).

    Returns
    -------
    pydevtensor.device or None

    Examples
    --------
    >>> acc = pydevtensor.accelerator.current_accelerator(check_available=True)
    >>> (acc is not None) == pydevtensor.cuda.is_available()
    True
    >>> device = acc or pydevtensor.device("cpu")
    """
    if not cuda.is_built() or (check_available and not is_available()):
        return None
    return _C.device("cuda")


def is_available():
    """True when the accelerator can be used now: built, with a driver and a device.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.accelerator.is_available() == pydevtensor.cuda.is_available()
    True
    """
    return cuda.is_built() and cuda.is_available()


def device_count():
    """The number of accelerator devices that can be used (logical GPUs counted); 0
    without one.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.accelerator.device_count() == pydevtensor.cuda.device_count()
    True
    """
    return cuda.device_count() if cuda.is_built() else 0


def current_device_index():
    """The index of the calling thread's current accelerator device
    (``cuda.current_device()``).

    Returns
    -------
    int

    Raises
    ------
    pydevtensor.DeviceError
        When no accelerator can be used (the message says why), as PyTorch's.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.accelerator.current_device_index()  # doctest: +SKIP
    0
    """
    if not is_available():
        raise _no_accelerator("current_device_index()")
    return cuda.current_device()


def current_device_idx():
    """PyTorch's deprecated name of ``current_device_index`` (it warns, FutureWarning).

    Returns
    -------
    int

    Raises
    ------
    pydevtensor.DeviceError
        When no accelerator can be used.

    Examples
    --------
    >>> pydevtensor.accelerator.current_device_idx()  # doctest: +SKIP
    0
    """
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /):
    """Makes device the calling thread's current accelerator device
    (``cuda.set_device``); a negative index does nothing.

    Parameters
    ----------
    device : int, str or pydevtensor.device
        An index, or a device of the accelerator's type with an index.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For None, or a device of another type ('cpu').
    pydevtensor.DeviceError
        When there is no such device (the message says why).

    Examples
    --------
    >>> pydevtensor.accelerator.set_device_index(-1)  # does nothing, on any machine
    >>> pydevtensor.accelerator.set_device_index(0)  # doctest: +SKIP
    """
    idx = _device_index(device, "set_device_index()", optional=False)
    if idx >= 0:
        cuda.set_device(idx)


def set_device_idx(device, /):
    """PyTorch's deprecated name of ``set_device_index`` (it warns, FutureWarning).

    Parameters
    ----------
    device : int, str or pydevtensor.device
        An index, or a device of the accelerator's type with an index.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For None, or a device of another type.
    pydevtensor.DeviceError
        When there is no such device.

    Examples
    --------
    >>> pydevtensor.accelerator.set_device_idx(0)  # doctest: +SKIP
    """
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:
    """``with pydevtensor.accelerator.device_index(i):`` makes accelerator device i the
    current one for the block and restores the previous one after; None (or a negative
    index) does nothing, on any machine.

    Parameters
    ----------
    device : int or None
        The device index.

    Raises
    ------
    TypeError
        When device is not an int or None.
    pydevtensor.DeviceError
        On entering, when there is no such device.

    Examples
    --------
    >>> with pydevtensor.accelerator.device_index(None):
    ...     pass
    """

    def __init__(self, device, /):
        if device is not None and (isinstance(device, bool) or not isinstance(device, int)):
            raise TypeError(f"accelerator.device_index(): expected an int or None, got "
                            f"{type(device).__name__}")
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None and self.idx >= 0:
            self.prev_idx = current_device_index()
            cuda.set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0:
            cuda.set_device(self.prev_idx)
            self.prev_idx = -1
        return False


def synchronize(device=None, /):
    """Waits until every op queued on the accelerator device has finished
    (``cuda.synchronize``).

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        The device (default: the current one).

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        With no device named, when no accelerator can be used (as PyTorch's; an index
        then does nothing), or for a device that does not exist.
    ValueError
        For a device of another type ('cpu').

    Examples
    --------
    >>> y = pydevtensor.ones(3, device="cuda") * 2  # doctest: +SKIP
    >>> pydevtensor.accelerator.synchronize()  # doctest: +SKIP
    """
    idx = _device_index(device, "synchronize()")
    if is_available():
        cuda.synchronize(idx)


def current_stream(device=None, /):
    """The stream of an accelerator device: its one stream (``cuda.current_stream``).

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        The device (default: the current one).

    Returns
    -------
    pydevtensor.cuda.Stream

    Raises
    ------
    pydevtensor.DeviceError
        When no accelerator can be used, or for a device that does not exist.
    ValueError
        For a device of another type ('cpu').

    Examples
    --------
    >>> pydevtensor.accelerator.current_stream().device  # doctest: +SKIP
    device(type='cuda', index=0)
    """
    return cuda.current_stream(_device_index(device, "current_stream()"))


def set_stream(stream):
    """Makes stream the current one: its device becomes the current accelerator device
    (each device has one stream), as PyTorch's.

    Parameters
    ----------
    stream : pydevtensor.Stream
        An accelerator device's stream (``current_stream(i)``).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When stream is not a Stream.
    ValueError
        For a stream of another device type (a CPU one).
    pydevtensor.DeviceError
        When no accelerator can be used.

    Examples
    --------
    >>> pydevtensor.accelerator.set_stream(pydevtensor.accelerator.current_stream(0))
    ... # doctest: +SKIP
    """
    if not isinstance(stream, Stream):
        raise TypeError(f"accelerator.set_stream(): expected a Stream, got "
                        f"{type(stream).__name__}")
    cuda.set_device(_device_index(stream.device, "set_stream()", optional=False))


def empty_cache():
    """Returns the cached, unused memory of the current accelerator device to the driver
    (``cuda.empty_cache()``); does nothing without one.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.accelerator.empty_cache()
    """
    if is_available():
        cuda.empty_cache()



# the memory reports' Parameters, Returns and Raises (0, {} or nothing done when no
# accelerator can be used)
_report_doc = partial(
    _device_doc, param="device_index : int, str or pydevtensor.device", default="the current one",
    raises="ValueError\n    For a device of another type ('cpu'), when an accelerator can be "
           "used.\npydevtensor.DeviceError\n    When there is no such device.")


def _index_or_none(device_index, what):
    """The device's index, or None when no accelerator can be used: the memory reports
    then give 0 or {} without looking at the argument, as PyTorch's."""
    return _device_index(device_index, what) if is_available() else None


@_report_doc("int")
def memory_allocated(device_index=None, /):
    """The bytes of live tensors on an accelerator device (``cuda.memory_allocated``); 0
    when no accelerator can be used, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.accelerator.memory_allocated() >= 0
    True
    """
    idx = _index_or_none(device_index, "memory_allocated()")
    return 0 if idx is None else cuda.memory_allocated(idx)


@_report_doc("int")
def max_memory_allocated(device_index=None, /):
    """The peak of memory_allocated since the last reset_peak_memory_stats
    (``cuda.max_memory_allocated``); 0 when no accelerator can be used.

    Examples
    --------
    >>> (pydevtensor.accelerator.max_memory_allocated()
    ...  >= pydevtensor.accelerator.memory_allocated())
    True
    """
    idx = _index_or_none(device_index, "max_memory_allocated()")
    return 0 if idx is None else cuda.max_memory_allocated(idx)


@_report_doc("int")
def memory_reserved(device_index=None, /):
    """The bytes the device's allocator holds, live tensors plus its cached pool
    (``cuda.memory_reserved``); 0 when no accelerator can be used.

    Examples
    --------
    >>> (pydevtensor.accelerator.memory_reserved()
    ...  >= pydevtensor.accelerator.memory_allocated())
    True
    """
    idx = _index_or_none(device_index, "memory_reserved()")
    return 0 if idx is None else cuda.memory_reserved(idx)


@_report_doc("int")
def max_memory_reserved(device_index=None, /):
    """The peak of memory_reserved since the last reset_peak_memory_stats
    (``cuda.max_memory_reserved``): 0 when no accelerator can be used.

    Examples
    --------
    >>> A = pydevtensor.accelerator
    >>> A.max_memory_reserved() >= A.memory_reserved()
    True
    """
    idx = _index_or_none(device_index, "max_memory_reserved()")
    return 0 if idx is None else cuda.max_memory_reserved(idx)


@_report_doc("dict")
def memory_stats(device_index=None, /):
    """allocated, peak, reserved, its peak and limit, in bytes, of an accelerator
    device, also under PyTorch's counter names (``cuda.memory_stats``: PyTorch's
    'allocated_bytes.all.current', 'allocated_bytes.all.peak', 'reserved_bytes.all.current'
    and 'reserved_bytes.all.peak'; not its other allocator counters); {} when no
    accelerator can be used, as PyTorch's.

    Examples
    --------
    >>> stats = pydevtensor.accelerator.memory_stats()
    >>> stats == {} or stats['reserved_bytes.all.peak'] >= stats['allocated_bytes.all.peak']
    True
    """
    idx = _index_or_none(device_index, "memory_stats()")
    return {} if idx is None else cuda.memory_stats(idx)


@_report_doc("None")
def reset_peak_memory_stats(device_index=None, /):
    """Sets the device's peak of memory_allocated to what is allocated now
    (``cuda.reset_peak_memory_stats``); does nothing when no accelerator can be used.

    Examples
    --------
    >>> pydevtensor.accelerator.reset_peak_memory_stats()
    """
    idx = _index_or_none(device_index, "reset_peak_memory_stats()")
    if idx is not None:
        cuda.reset_peak_memory_stats(idx)


@_report_doc("None")
def reset_accumulated_memory_stats(device_index=None, /):
    """Resets the accumulated (historical) memory counters of a device: checks
    the device and does nothing, as pydevtensor records no such counters (its reports
    are allocated, peak, reserved and limit); does nothing when no accelerator can be
    used, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.accelerator.reset_accumulated_memory_stats()
    """
    idx = _index_or_none(device_index, "reset_accumulated_memory_stats()")
    if idx is not None:
        _C._check_device(_C.device("cuda", idx))


@_report_doc("tuple of (int, int)",
             raises="pydevtensor.DeviceError\n    When no accelerator can be used, or there is "
                    "no such device.\nValueError\n    For a device of another type ('cpu').")
def get_memory_info(device_index=None, /):
    """(free, total) bytes of an accelerator device (``cuda.mem_get_info``: under a memory
    limit, what is left under it).

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> free, total = pydevtensor.accelerator.get_memory_info()  # doctest: +SKIP
    >>> free <= total  # doctest: +SKIP
    True
    """
    return cuda.mem_get_info(_device_index(device_index, "get_memory_info()"))
