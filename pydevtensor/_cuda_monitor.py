"""``torch.cuda``'s monitoring functions (``utilization``, ``memory_usage``,
``temperature``, ``power_draw``, ``clock_rate``, ``list_gpu_processes``): what
``nvidia-smi`` shows, read through NVML's Python binding ``pynvml`` (the
``nvidia-ml-py`` package), as PyTorch's.  pydevtensor does not depend on it: without
it these raise ModuleNotFoundError (``list_gpu_processes`` says so in its answer), as
PyTorch's.  A CUDA device is found in NVML by its PCI address (``pci_domain_id``,
``pci_bus_id``, ``pci_device_id`` of ``get_device_properties``), so
``CUDA_VISIBLE_DEVICES`` and logical devices (which report their GPU's figures) need no
translation.
"""
from ._devices import _device_doc

__all__ = ["utilization", "memory_usage", "temperature", "power_draw", "clock_rate",
           "list_gpu_processes"]

_MISSING = "nvidia-ml-py does not seem to be installed or it can't be imported"
_RAISES = """ModuleNotFoundError
    Without ``pynvml`` (``pip install nvidia-ml-py``), as PyTorch's.
RuntimeError
    When NVML cannot load the driver.
pydevtensor.DeviceError
    When there is no such CUDA device (the message says why)."""
_monitor_doc = _device_doc("int", param="device : int, str or pydevtensor.device",
                           what="A CUDA device", default="the current one", raises=_RAISES)


def _nvml(where):
    """pynvml, imported and initialised: ModuleNotFoundError without it, RuntimeError
    when NVML cannot load the driver (where names the function), as PyTorch's."""
    try:
        import pynvml
    except ImportError as e:
        raise ModuleNotFoundError(f"cuda.{where}(): {_MISSING} (pip install nvidia-ml-py)") \
            from e
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError(f"cuda.{where}(): cuda driver can't be loaded, is cuda "
                           f"enabled?") from e
    return pynvml


def _handle(pynvml, device):
    """NVML's handle of the GPU of a CUDA device, by its PCI address."""
    from .cuda import get_device_properties
    p = get_device_properties(device)
    bus_id = f"{p.pci_domain_id:08X}:{p.pci_bus_id:02X}:{p.pci_device_id:02X}.0"
    return pynvml.nvmlDeviceGetHandleByPciBusId(bus_id)


def _query(where, device, read):
    pynvml = _nvml(where)
    return read(pynvml, _handle(pynvml, device))


@_monitor_doc
def utilization(device=None):
    """The percent of time over the past sample period (1/6 s to 1 s) during which one
    or more kernels ran on the device's GPU, as ``nvidia-smi`` gives it.

    Examples
    --------
    With a GPU and nvidia-ml-py (skipped here: it needs both):

    >>> 0 <= pydevtensor.cuda.utilization() <= 100  # doctest: +SKIP
    True
    """
    return _query("utilization", device,
                  lambda nv, h: nv.nvmlDeviceGetUtilizationRates(h).gpu)


@_monitor_doc
def memory_usage(device=None):
    """The percent of time over the past sample period during which the device's GPU
    memory was read or written, as ``nvidia-smi`` gives it (not the bytes in use:
    ``memory_allocated`` and ``mem_get_info`` give those).

    Examples
    --------
    With a GPU and nvidia-ml-py (skipped here: it needs both):

    >>> 0 <= pydevtensor.cuda.memory_usage() <= 100  # doctest: +SKIP
    True
    """
    return _query("memory_usage", device,
                  lambda nv, h: nv.nvmlDeviceGetUtilizationRates(h).memory)


@_monitor_doc
def temperature(device=None):
    """The temperature of the device's GPU die, in degrees Celsius.

    Examples
    --------
    With a GPU and nvidia-ml-py (skipped here: it needs both):

    >>> pydevtensor.cuda.temperature() > 0  # doctest: +SKIP
    True
    """
    return _query("temperature", device,
                  lambda nv, h: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU))


@_monitor_doc
def power_draw(device=None):
    """The power the device's GPU draws, in milliwatts (averaged over the past sample
    period on Fermi and later).

    Examples
    --------
    With a GPU and nvidia-ml-py (skipped here: it needs both):

    >>> pydevtensor.cuda.power_draw() > 0  # doctest: +SKIP
    True
    """
    return _query("power_draw", device, lambda nv, h: nv.nvmlDeviceGetPowerUsage(h))


@_monitor_doc
def clock_rate(device=None):
    """The clock of the device's GPU's streaming multiprocessors, in MHz.

    Examples
    --------
    With a GPU and nvidia-ml-py (skipped here: it needs both):

    >>> pydevtensor.cuda.clock_rate() > 0  # doctest: +SKIP
    True
    """
    return _query("clock_rate", device,
                  lambda nv, h: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM))


def list_gpu_processes(device=None):
    """The processes running on the device's GPU and the GPU memory each uses, as a
    readable text, as ``torch.cuda.list_gpu_processes``; without nvidia-ml-py, or when
    NVML cannot load the driver, the text says so (as PyTorch's, which does not raise
    there).

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        A CUDA device (default: the current one).

    Returns
    -------
    str
        ``GPU:<index>`` and a line per process: its pid and the MB it uses.

    Raises
    ------
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).

    Examples
    --------
    >>> text = pydevtensor.cuda.list_gpu_processes()
    >>> isinstance(text, str)
    True
    """
    try:
        pynvml = _nvml("list_gpu_processes")
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    except RuntimeError:  # the driver: _nvml raises no other RuntimeError
        return "cuda driver can't be loaded, is cuda enabled?"
    from ._devices import _cuda_device
    index = _cuda_device(device).index
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(_handle(pynvml, index))
    lines = [f"GPU:{index}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:  # usedGpuMemory None: NVML_VALUE_NOT_AVAILABLE (PyTorch's raises)
        used = ("an amount of GPU memory NVML does not report" if p.usedGpuMemory is None
                else f"{p.usedGpuMemory / 2**20:>12.3f} MB GPU memory")
        lines.append(f"process {p.pid:>10d} uses {used}")
    return "\n".join(lines)
