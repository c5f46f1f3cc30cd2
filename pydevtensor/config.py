"""pydevtensor.config: process-wide settings, under TensorFlow's ``tf.config`` names
where TensorFlow has the feature and PyTorch does not.

- devices: list_physical_devices, list_logical_devices, set_visible_devices,
  set_logical_device_configuration (logical devices with memory limits, also on the CPU);
- memory: set_memory_limit, set_memory_growth, get_memory_info;
- placement: set_log_device_placement, set_soft_device_placement;
- transfers: set_transfer_guard / get_transfer_guard, the default level of the transfer
  guard (see ``pydevtensor.transfer_guard`` for the levels and a per-thread override);
- index checks: set_index_checks / get_index_checks, whether GPU gathers check their
  indices on the device (reported at the next synchronisation) or before the op;
- threads: ``config.threading.set_intra_op_parallelism_threads`` and the inter-op
  count, TensorFlow's names of ``set_num_threads`` / ``set_num_interop_threads``;
- ``config.experimental``: the same under the names TensorFlow keeps there
  (``experimental.set_memory_growth``, ``experimental.set_virtual_device_configuration``...).

Devices are given as PhysicalDevice/LogicalDevice objects, ``pydevtensor.device``
objects, or strings in PyTorch's ('cuda:1') or TensorFlow's ('/GPU:1') form.
"""
import sys

from ._config_devices import *  # noqa: F401,F403
from ._config_devices import __all__ as _devices_all
from ._config_index import get_index_checks, set_index_checks
from ._guard import get_transfer_guard, set_transfer_guard
from . import _config_experimental as experimental
from . import _config_threading as threading

sys.modules[__name__ + ".threading"] = threading  # import pydevtensor.config.threading

__all__ = list(_devices_all) + ["experimental", "get_index_checks", "get_transfer_guard",
                                "set_index_checks", "set_transfer_guard", "threading"]
