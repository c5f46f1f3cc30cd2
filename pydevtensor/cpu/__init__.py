"""pydevtensor.cpu: ``torch.cpu``'s names; ``cpu.amp.autocast`` is the deprecated spelling
of ``pydevtensor.autocast("cpu", ...)``."""
from . import amp

__all__ = ["amp", "is_available", "synchronize"]


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
