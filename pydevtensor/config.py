"""pydevtensor.config: devices, memory and placement, under tf.config's names."""
from ._config_devices import *  # noqa: F401,F403
from ._config_devices import __all__ as _devices_all

__all__ = list(_devices_all)
