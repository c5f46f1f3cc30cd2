"""pydevtensor.config.experimental: the names TensorFlow kept under
``tf.config.experimental``, so that the chapter's TensorFlow code runs unchanged::

    gpus = config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        config.experimental.set_memory_growth(gpu, True)

Each is the function of ``pydevtensor.config`` with the same meaning (the
``*_virtual_device_configuration`` pair is the ``*_logical_device_configuration``
pair, ``VirtualDeviceConfiguration`` is ``LogicalDeviceConfiguration``).
"""
from . import _C
from ._config_devices import (LogicalDeviceConfiguration, get_logical_device_configuration,
                              get_memory_growth, get_memory_info, get_visible_devices,
                              list_logical_devices, list_physical_devices,
                              set_logical_device_configuration, set_memory_growth,
                              set_visible_devices)
from ._devices import _as_device, reset_peak_memory_stats

__all__ = [
    "VirtualDeviceConfiguration", "get_device_details", "get_memory_growth", "get_memory_info",
    "get_memory_usage", "get_virtual_device_configuration", "get_visible_devices",
    "list_logical_devices", "list_physical_devices", "reset_memory_stats",
    "set_memory_growth", "set_virtual_device_configuration", "set_visible_devices",
]

VirtualDeviceConfiguration = LogicalDeviceConfiguration
set_virtual_device_configuration = set_logical_device_configuration
get_virtual_device_configuration = get_logical_device_configuration


def reset_memory_stats(device):
    """Resets the peak that get_memory_info(device)['peak'] reports."""
    reset_peak_memory_stats(_as_device(device))


def get_memory_usage(device):
    """Bytes allocated on the device now (TensorFlow's deprecated form of
    ``get_memory_info(device)['current']``)."""
    return get_memory_info(device)["current"]


def get_device_details(device):
    """{'device_name': ..., 'compute_capability': (major, minor)} for a GPU, {} for the
    CPU, as TensorFlow's; device is a PhysicalDevice (or any device)."""
    dev = _as_device(device)
    if dev.type != "cuda":
        return {}
    p = _C._properties(_C._check_device(dev))
    return {"device_name": p["name"], "compute_capability": (p["major"], p["minor"])}
