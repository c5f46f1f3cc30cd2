"""pydevtensor.cpu: ``torch.cpu``'s names; ``cpu.amp.autocast`` is the deprecated spelling
of ``pydevtensor.autocast("cpu", ...)``."""
from . import amp

__all__ = ["amp", "is_available", "synchronize", "device_count", "current_device"]


def is_available():
    """True: the CPU is always there (``torch.cpu.is_available``).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.cpu.is_available()
    True
    """
    return True


def synchronize(device=None):
    """Does nothing, as ``torch.cpu.synchronize``: an op on the CPU has finished when it
    returns, so there is nothing to wait for.  Timing code written with
    ``cuda.synchronize()`` runs on the CPU with this.

    Parameters
    ----------
    device : str, int or pydevtensor.device, optional
        A CPU device ('cpu', 'cpu:1' for a logical one); checked.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        When device is not a CPU device.
    pydevtensor.DeviceError
        When it does not exist.

    Examples
    --------
    >>> y = pydevtensor.ones(3) * 2
    >>> pydevtensor.cpu.synchronize()
    """
    if device is None:
        return
    from .. import _C
    from .._devices import _as_device
    dev = _as_device(device, default_cuda=False)
    if isinstance(device, int) and not isinstance(device, bool):
        dev = _C.device("cpu", device)
    if dev.type != "cpu":
        raise ValueError(f"cpu.synchronize() expects a CPU device, got {dev}")
    _C._check_device(dev)


def device_count():
    """The number of CPU devices: 1, as ``torch.cpu.device_count()``, or the number of
    logical CPU devices (cpu:0, cpu:1, ...) after
    ``config.set_logical_device_configuration`` split the CPU, as ``cuda.device_count()``
    counts the logical GPUs of a split card.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.cpu.device_count() == len(pydevtensor.config.list_logical_devices('CPU'))
    True
    """
    from .. import _C
    return len(_C._logical_device_map(_C._KIND_CPU))


def current_device():
    """'cpu', as ``torch.cpu.current_device()`` (a str, where ``cuda.current_device()``
    gives an index): factory functions put tensors on cpu:0 unless told otherwise.

    Returns
    -------
    str

    Examples
    --------
    >>> pydevtensor.cpu.current_device()
    'cpu'
    """
    return "cpu"
