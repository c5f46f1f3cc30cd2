"""``torch.Stream``, ``torch.Event`` and ``torch.get_device_module``: the device-generic
names.  On a CUDA device they are ``pydevtensor.cuda``'s (one stream per device, so
``Stream('cuda')`` cannot make another, as ``cuda.Stream()``); on the CPU they are
PyTorch's CPU ones: a stream whose work has always finished, and an event that cannot
be recorded (CPU work is synchronous: time it with ``time.perf_counter()``).
"""
import abc

from . import _C
from ._devices import _as_device, _fill_doc

__all__ = ["Event", "Stream", "get_device_module"]

_NO_CPU_EVENTS = ("the CPU has no events, as PyTorch's (\"cpu backend doesn't support "
                  "events\"): CPU work is synchronous, time it with time.perf_counter()")

# The Parameters, Returns and Raises of the CPU methods that always raise, filled in by
# _refused around each one's own summary and Examples (as _devices._device_doc).
_REFUSED_DOC = """{summary}

        Parameters
        ----------
        {param}
            {about}

        Returns
        -------
        {result}
            Never, on the CPU.

        Raises
        ------
        {error}
            Always, on the CPU{why}.

{examples}"""


def _refused(param, about, result, error="RuntimeError", why=""):
    """A decorator: a CPU method's docstring (its summary, then its Examples) with the
    sections of one that always raises error put in between."""
    def document(fn):
        return _fill_doc(fn, _REFUSED_DOC, param=param, about=about, result=result,
                         error=error, why=why)
    return document


def _generic_device(device, what):
    """device (None: the accelerator's type, CUDA in a CUDA build, else the CPU) as a
    device object; a CPU one is checked to exist."""
    if device is None:
        return None if _C._cuda_built() else _C.device("cpu")
    if isinstance(device, bool) or not isinstance(device, (int, str, _C.device)):
        raise TypeError(f"{what}(): device must be a device, a device string or a CUDA "
                        f"index, got {type(device).__name__}")
    dev = _as_device(device)
    return _C._check_device(dev) if dev.type == "cpu" else dev


class Stream(metaclass=abc.ABCMeta):
    """A device's queue of work, as ``torch.Stream``: for a CUDA device, its one stream
    (``pydevtensor.cuda.Stream``, which cannot be made: ``cuda.current_stream(device)``
    or ``accelerator.current_stream()`` gives it); for the CPU, a stream whose work has
    always finished when an op returns.  ``isinstance(cuda.current_stream(), Stream)``
    is True.

    Parameters
    ----------
    device : str, int or pydevtensor.device, optional
        The device (default: CUDA in a CUDA build, else the CPU).
    priority : int, optional
        Keyword only; PyTorch's (0 or negative).  Nothing to order on the CPU.

    Raises
    ------
    RuntimeError
        For a CUDA device: pydevtensor has one stream per device and makes no other.
    TypeError
        When device is not a device, a device string or an int.
    pydevtensor.DeviceError
        For a logical CPU device that does not exist.

    Examples
    --------
    >>> s = pydevtensor.Stream("cpu")
    >>> s.query(), s.device
    (True, device(type='cpu'))
    >>> with s:
    ...     y = pydevtensor.ones(2) * 2
    >>> s.synchronize()
    """

    __slots__ = ("_device",)

    def __new__(cls, device=None, *, priority=0):
        dev = _generic_device(device, "Stream")
        if dev is None or dev.type == "cuda":
            from . import cuda
            return cuda.Stream(dev, priority=priority)  # refused: one stream per device
        s = object.__new__(cls)
        s._device = dev
        return s

    @property
    def device(self):
        """The stream's device.

        Examples
        --------
        >>> pydevtensor.Stream("cpu").device
        device(type='cpu')
        """
        return self._device

    def query(self):
        """True: the work of a CPU stream has finished when its op returns.

        Returns
        -------
        bool

        Examples
        --------
        >>> pydevtensor.Stream("cpu").query()
        True
        """
        return True

    def synchronize(self):
        """Does nothing: there is nothing left to wait for on the CPU.

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.Stream("cpu").synchronize()
        """

    @_refused("event : pydevtensor.Event, optional", "The event to record.",
              "pydevtensor.Event")
    def record_event(self, event=None):
        """Refused on the CPU, as PyTorch's: the CPU has no events.

        Examples
        --------
        >>> pydevtensor.Stream("cpu").record_event()
        Traceback (most recent call last):
        ...
        RuntimeError: Stream.record_event(): the CPU has no events, ...
        """
        raise RuntimeError(f"Stream.record_event(): {_NO_CPU_EVENTS}")

    def wait_event(self, event):
        """Does nothing on the CPU (the work before event has run), as PyTorch's.

        Parameters
        ----------
        event : pydevtensor.Event
            An event.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When event is not an Event.

        Examples
        --------
        >>> pydevtensor.Stream("cpu").wait_event(pydevtensor.Event("cpu"))
        """
        if not isinstance(event, Event):
            raise TypeError(f"wait_event(): expected an Event, got {type(event).__name__}")

    @_refused("stream : pydevtensor.Stream", "Another stream.", "None")
    def wait_stream(self, stream):
        """Refused on the CPU, as PyTorch's (it records an event on stream, and the CPU
        has no events).

        Examples
        --------
        >>> s = pydevtensor.Stream("cpu")
        >>> s.wait_stream(s)
        Traceback (most recent call last):
        ...
        RuntimeError: Stream.wait_stream(): the CPU has no events, ...
        """
        raise RuntimeError(f"Stream.wait_stream(): {_NO_CPU_EVENTS}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return type(other) is type(self) and other._device == self._device

    def __hash__(self):
        return hash(("pydevtensor.Stream", self._device))

    def __repr__(self):
        return f"<pydevtensor.Stream device={self._device} (its work is always done)>"


class Event(metaclass=abc.ABCMeta):
    """A marker in a device's stream, as ``torch.Event``: for a CUDA device (or none
    named, in a CUDA build) a ``pydevtensor.cuda.Event``; for the CPU, PyTorch's CPU
    event, which cannot be recorded, has always completed, and has no elapsed time.
    ``isinstance(cuda.Event(), Event)`` is True.

    Parameters
    ----------
    device : str, int or pydevtensor.device, optional
        The device (default: CUDA in a CUDA build, the event taking its device when
        first recorded; else the CPU).
    enable_timing : bool, optional
        Keyword only: whether elapsed_time() can measure from this event.
    blocking : bool, optional
        Keyword only: whether synchronize() blocks (CUDA).
    interprocess : bool, optional
        Keyword only: refused as True on CUDA (events are not shared between processes).

    Raises
    ------
    TypeError
        When device is not a device, or a flag is not a bool.
    pydevtensor.DeviceError
        For a device that does not exist.

    Examples
    --------
    >>> e = pydevtensor.Event("cpu")
    >>> e.query(), e.device
    (True, device(type='cpu'))
    >>> e.synchronize()
    """

    __slots__ = ("_device", "enable_timing")

    def __new__(cls, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        for name, flag in (("enable_timing", enable_timing), ("blocking", blocking),
                           ("interprocess", interprocess)):
            if not isinstance(flag, bool):
                raise TypeError(f"Event(): {name} must be a bool, got {type(flag).__name__}")
        dev = _generic_device(device, "Event")
        if dev is None or dev.type == "cuda":
            return _C._Event(enable_timing, blocking, interprocess, device=dev)
        e = object.__new__(cls)
        e._device = dev
        e.enable_timing = enable_timing
        return e

    @property
    def device(self):
        """The event's device.

        Examples
        --------
        >>> pydevtensor.Event("cpu").device
        device(type='cpu')
        """
        return self._device

    @_refused("stream : pydevtensor.Stream, optional", "The stream to record on.", "None")
    def record(self, stream=None):
        """Refused on the CPU, as PyTorch's: the CPU has no events.

        Examples
        --------
        >>> pydevtensor.Event("cpu").record()
        Traceback (most recent call last):
        ...
        RuntimeError: Event.record(): the CPU has no events, ...
        """
        raise RuntimeError(f"Event.record(): {_NO_CPU_EVENTS}")

    def query(self):
        """True: a CPU event has no work to wait for.

        Returns
        -------
        bool

        Examples
        --------
        >>> pydevtensor.Event("cpu").query()
        True
        """
        return True

    def wait(self, stream=None):
        """Does nothing on the CPU, as PyTorch's.

        Parameters
        ----------
        stream : pydevtensor.Stream, optional
            The stream that would wait.

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.Event("cpu").wait()
        """

    def synchronize(self):
        """Does nothing: there is nothing to wait for on the CPU.

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.Event("cpu").synchronize()
        """

    @_refused("end_event : pydevtensor.Event", "The later event.", "float",
              "ValueError", ": both events must be recorded first")
    def elapsed_time(self, end_event):
        """Refused on the CPU, as PyTorch's: a CPU event is never recorded.

        Examples
        --------
        >>> pydevtensor.Event("cpu").elapsed_time(pydevtensor.Event("cpu"))
        Traceback (most recent call last):
        ...
        ValueError: Event.elapsed_time(): both events must be recorded ...
        """
        if not isinstance(end_event, Event):
            raise TypeError(f"elapsed_time(): expected an Event, got "
                            f"{type(end_event).__name__}")
        raise ValueError(f"Event.elapsed_time(): both events must be recorded before "
                         f"calculating elapsed time, and {_NO_CPU_EVENTS}")

    def __repr__(self):
        return f"<pydevtensor.Event device={self._device} (CPU: never recorded)>"


Event.register(_C._Event)


def get_device_module(device=None):
    """The module of a device type, as ``torch.get_device_module``: ``pydevtensor.cuda``
    for a CUDA device, ``pydevtensor.cpu`` for the CPU; with no device, the current
    accelerator's (``cuda`` in a CUDA build, as PyTorch's, whether or not a GPU is
    there), else ``cpu``.

    Parameters
    ----------
    device : str or pydevtensor.device, optional
        The device.

    Returns
    -------
    module

    Raises
    ------
    RuntimeError
        When device is neither a device, a device string nor None (PyTorch's error).

    Examples
    --------
    >>> pydevtensor.get_device_module("cpu") is pydevtensor.cpu
    True
    >>> pydevtensor.get_device_module("cuda:1") is pydevtensor.cuda
    True
    """
    from . import cpu, cuda
    if device is None:
        return cuda if _C._cuda_built() else cpu
    if not isinstance(device, (str, _C.device)):
        raise RuntimeError(f"get_device_module(): invalid value of device {device!r}: "
                           f"expected a pydevtensor.device, a str or None")
    return cuda if _C.device(device).type == "cuda" else cpu


from ._cuda_streams import Stream as _CudaStream  # noqa: E402  (imports only _C, _devices)

Stream.register(_CudaStream)
