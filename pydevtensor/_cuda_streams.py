"""``pydevtensor.cuda``'s streams: pydevtensor has one stream per device (Note [one stream
per device] in csrc/cuda/cuda_backend.c), so ``current_stream(device)`` and
``default_stream(device)`` both give that stream, ``stream(s)`` / ``StreamContext(s)``
make s's device current, and ``Stream()`` cannot make another.  Work on one device is
therefore ordered as written; across devices, order it with ``cuda.Event``'s
``record()`` and ``wait()``.
"""
from . import _C
from ._devices import _cuda_device

__all__ = ["Stream", "StreamContext", "current_stream", "default_stream", "stream"]

_ONE_STREAM = ("pydevtensor has one stream per device: cuda.current_stream(device) gives "
               "it, and work on one device runs in the order it was queued")


class Stream:
    """The one stream of a CUDA device, as ``cuda.current_stream(device)`` gives it.

    pydevtensor queues every op of a device on one stream, so ``Stream()`` cannot make
    another one and raises; the methods are ``torch.cuda.Stream``'s.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        torch.cuda.Stream's; refused, as any call of Stream().
    priority : int, optional
        torch.cuda.Stream's; refused likewise.

    Raises
    ------
    RuntimeError
        When made directly (``cuda.Stream()``).

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> s = pydevtensor.cuda.current_stream()  # doctest: +SKIP
    >>> s == pydevtensor.cuda.default_stream()  # doctest: +SKIP
    True
    >>> s.synchronize()  # doctest: +SKIP
    """

    __slots__ = ("_device",)

    def __new__(cls, device=None, priority=0, **kwargs):
        raise RuntimeError(f"cuda.Stream(): {_ONE_STREAM}; it makes no other")

    @classmethod
    def _of(cls, device):
        s = object.__new__(cls)
        s._device = device
        return s

    @property
    def device(self):
        """The stream's CUDA device.

        Examples
        --------
        >>> pydevtensor.cuda.current_stream(0).device  # doctest: +SKIP
        device(type='cuda', index=0)
        """
        return self._device

    @property
    def device_index(self):
        """The index of the stream's CUDA device, as ``torch.cuda.Stream.device_index``.

        Examples
        --------
        >>> pydevtensor.cuda.current_stream(0).device_index  # doctest: +SKIP
        0
        """
        return self._device.index

    @property
    def stream_id(self):
        """0, as PyTorch's id of a device's default stream: the one stream of each device
        is its default stream.

        Examples
        --------
        >>> pydevtensor.cuda.default_stream().stream_id  # doctest: +SKIP
        0
        """
        return 0

    @property
    def _pdt_stream_device(self):  # read by Event.record() and Event.wait()
        return self._device

    @property
    def priority(self):
        """0: the one stream has the default priority.

        Examples
        --------
        >>> pydevtensor.cuda.current_stream().priority  # doctest: +SKIP
        0
        """
        return 0

    def synchronize(self):
        """Waits until every op queued on the stream has finished (``cuda.synchronize``
        of its device).

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.cuda.current_stream().synchronize()  # doctest: +SKIP
        """
        _C._synchronize(self._device)

    def query(self):
        """Whether every op queued on the stream so far has finished, without waiting
        (``torch.cuda.Stream.query``).

        cudaStreamQuery on the device's one stream.

        Returns
        -------
        bool
            True when the work has finished, False while some of it runs.

        Examples
        --------
        >>> s = pydevtensor.cuda.current_stream()  # doctest: +SKIP
        >>> s.synchronize()  # doctest: +SKIP
        >>> s.query()  # doctest: +SKIP
        True
        """
        return _C._stream_query(self._device)

    def record_event(self, event=None):
        """Records event (a new ``cuda.Event()`` by default) on the stream.

        Parameters
        ----------
        event : pydevtensor.cuda.Event, optional
            The event to record.

        Returns
        -------
        pydevtensor.cuda.Event
            The recorded event.

        Examples
        --------
        >>> e = pydevtensor.cuda.current_stream().record_event()  # doctest: +SKIP
        >>> e.synchronize()  # doctest: +SKIP
        """
        if event is None:
            event = _C._Event()
        event.record(self)
        return event

    def wait_event(self, event):
        """Makes the work queued on the stream from now on wait for event, without
        blocking the calling thread (``event.wait(self)``).

        Parameters
        ----------
        event : pydevtensor.cuda.Event
            A recorded event, of any device.

        Returns
        -------
        None

        Examples
        --------
        With two GPUs (skipped here: it needs them):

        >>> done = pydevtensor.cuda.current_stream(0).record_event()  # doctest: +SKIP
        >>> pydevtensor.cuda.current_stream(1).wait_event(done)  # doctest: +SKIP
        """
        if not isinstance(event, _C._Event):
            raise TypeError(f"wait_event(): expected a cuda.Event, got {type(event).__name__}")
        event.wait(self)

    def wait_stream(self, stream):
        """Makes the work queued on this stream from now on wait for the work queued on
        stream so far.

        Parameters
        ----------
        stream : pydevtensor.cuda.Stream
            Another device's stream (this device's own is already in order).

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.cuda.current_stream(1).wait_stream(
        ...     pydevtensor.cuda.current_stream(0))  # doctest: +SKIP
        """
        if not isinstance(stream, Stream):
            raise TypeError(f"wait_stream(): expected a cuda.Stream, got "
                            f"{type(stream).__name__}")
        if stream != self:
            self.wait_event(stream.record_event())

    def __eq__(self, other):
        return isinstance(other, Stream) and other._device == self._device

    def __hash__(self):
        return hash(("pydevtensor.cuda.Stream", self._device))

    def __repr__(self):
        return f"<pydevtensor.cuda.Stream device={self._device} (the device's one stream)>"


def current_stream(device=None):
    """The stream ops on device are queued on: its one stream.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        A CUDA device (default: the current one).

    Returns
    -------
    pydevtensor.cuda.Stream

    Raises
    ------
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).

    Examples
    --------
    >>> pydevtensor.cuda.current_stream(0).device  # doctest: +SKIP
    device(type='cuda', index=0)
    """
    return Stream._of(_cuda_device(device))


def default_stream(device=None):
    """The device's default stream: its one stream, the same as ``current_stream``.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        A CUDA device (default: the current one).

    Returns
    -------
    pydevtensor.cuda.Stream

    Raises
    ------
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).

    Examples
    --------
    >>> pydevtensor.cuda.default_stream() == pydevtensor.cuda.current_stream()  # doctest: +SKIP
    True
    """
    return current_stream(device)


class StreamContext:
    """``with pydevtensor.cuda.StreamContext(s):`` makes s's device the current one for
    the block (s is that device's one stream, so it is the current stream there); None
    does nothing, as in PyTorch.

    Parameters
    ----------
    stream : pydevtensor.cuda.Stream or None
        A device's stream, from ``cuda.current_stream(device)``.

    Raises
    ------
    TypeError
        When stream is not a pydevtensor.cuda.Stream (pydevtensor has one stream per
        device).

    Examples
    --------
    >>> with pydevtensor.cuda.StreamContext(None):
    ...     pass
    """

    def __init__(self, stream):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"cuda.stream(): expected a cuda.Stream or None, got "
                            f"{type(stream).__name__} ({_ONE_STREAM})")
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is not None:
            self._previous = _C._current_device()
            _C._set_device(self.stream.device)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _C._set_device(_C.device("cuda", self._previous))
        return False


def stream(stream):
    """``with pydevtensor.cuda.stream(s):`` as ``StreamContext(s)``: s's device is the
    current one for the block.

    Parameters
    ----------
    stream : pydevtensor.cuda.Stream or None
        A device's stream (None: does nothing).

    Returns
    -------
    StreamContext

    Raises
    ------
    TypeError
        When stream is not a pydevtensor.cuda.Stream.

    Examples
    --------
    >>> with pydevtensor.cuda.stream(None):
    ...     pass
    """
    return StreamContext(stream)


def record_stream(self, stream):
    """Does nothing: pydevtensor frees a tensor's memory in its device's stream order
    (``cudaFreeAsync`` on the one stream), so no other stream can still be using it
    (``torch.Tensor.record_stream``).

    Parameters
    ----------
    stream : pydevtensor.cuda.Stream
        The stream of the tensor's device.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When stream is not a pydevtensor.cuda.Stream.
    ValueError
        When it is another device's stream.

    Examples
    --------
    >>> x = pydevtensor.ones(2, device="cuda")  # doctest: +SKIP
    >>> x.record_stream(pydevtensor.cuda.current_stream())  # doctest: +SKIP
    """
    if not isinstance(stream, Stream):
        raise TypeError(f"record_stream(): expected a cuda.Stream, got {type(stream).__name__} "
                        f"({_ONE_STREAM})")
    if stream.device != self.device:
        raise ValueError(f"record_stream(): the tensor is on {self.device}, the stream on "
                         f"{stream.device}")


_C.Tensor.record_stream = record_stream
