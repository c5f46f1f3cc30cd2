"""pydevtensor.debugging: as tf.debugging, for placement logging."""
from ._config_devices import get_log_device_placement, set_log_device_placement

__all__ = ["set_log_device_placement", "get_log_device_placement"]
