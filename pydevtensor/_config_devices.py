"""Devices, memory and placement in pydevtensor.config, under tf.config's names.

TensorFlow's ``tf.config`` has these features and PyTorch does not; a reader of
the chapter's TensorFlow edition finds them here under the same names.  See
Note [logical devices] in csrc/core/pdt_registry.c.
"""
import logging
import math
import numbers
import sys
from collections import namedtuple

import numpy

from . import _C
from ._devices import _as_device, device, memory_stats

__all__ = [
    "PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration",
    "list_physical_devices", "list_logical_devices", "get_visible_devices",
    "set_visible_devices", "get_logical_device_configuration",
    "set_logical_device_configuration", "set_memory_limit", "get_memory_info",
    "set_memory_growth", "get_memory_growth", "set_log_device_placement",
    "get_log_device_placement", "set_soft_device_placement", "get_soft_device_placement",
]

_KINDS = {"CPU": _C._KIND_CPU, "GPU": _C._KIND_CUDA}
_TYPE_OF_KIND = {v: k for k, v in _KINDS.items()}
_TORCH_TYPE = {"CPU": "cpu", "GPU": "cuda"}


def _kind(device_type):
    """'GPU'/'gpu'/'cuda' -> the CUDA kind; 'CPU'/'cpu' -> the CPU kind."""
    key = str(device_type).upper()
    key = {"CUDA": "GPU"}.get(key, key)
    if key not in _KINDS:
        raise ValueError(f"unknown device type {device_type!r}: expected 'CPU' or 'GPU'")
    return key


class PhysicalDevice(namedtuple("PhysicalDevice", ["name", "device_type"])):
    """A physical device, as ``tf.config.list_physical_devices`` returns it.

    Accepted wherever a device is (``ones(2, device=gpu)``, ``.to(gpu)``,
    ``set_memory_growth(gpu, True)``): it stands for the first logical device on it.

    Parameters
    ----------
    name : str
        '/physical_device:GPU:0', ...
    device_type : {'CPU', 'GPU'}
        The kind.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> cpu = config.list_physical_devices('CPU')[0]
    >>> cpu
    PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')
    >>> pydevtensor.ones(1, device=cpu).device
    device(type='cpu')
    """

    __slots__ = ()

    @property
    def index(self):
        """The device's index among the physical devices of its kind.

        Examples
        --------
        >>> config = pydevtensor.config
        >>> cpu = config.list_physical_devices('CPU')[0]
        >>> cpu.index
        0
        """
        return int(self.name.rsplit(":", 1)[1])

    @property
    def _pdt_device(self):
        kind = _KINDS[self.device_type]
        logical = _C._logical_device_map(kind)
        if self.index not in logical:
            raise ValueError(f"{self.name} is not visible (set_visible_devices hid it)")
        return device(_TORCH_TYPE[self.device_type], logical.index(self.index))


class LogicalDevice(namedtuple("LogicalDevice", ["name", "device_type"])):
    """A logical device; ``.device`` is the ``pydevtensor.device`` to put tensors on.

    Parameters
    ----------
    name : str
        '/device:GPU:0', ...
    device_type : {'CPU', 'GPU'}
        The kind.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.list_logical_devices('CPU')[0]
    LogicalDevice(name='/device:CPU:0', device_type='CPU')
    """

    __slots__ = ()

    @property
    def index(self):
        """The device's index among the logical devices of its kind.

        Examples
        --------
        >>> config = pydevtensor.config
        >>> config.list_logical_devices('CPU')[0].index
        0
        """
        return int(self.name.rsplit(":", 1)[1])

    @property
    def device(self):
        """The pydevtensor.device to put tensors on.

        Examples
        --------
        >>> config = pydevtensor.config
        >>> config.list_logical_devices('CPU')[0].device
        device(type='cpu')
        """
        return device(_TORCH_TYPE[self.device_type], self.index)

    _pdt_device = device  # accepted wherever a device is


class LogicalDeviceConfiguration(namedtuple("LogicalDeviceConfiguration", [
        "memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device of a physical one; memory_limit in MB (None: no limit), as in TF.

    Parameters
    ----------
    memory_limit : float, optional
        MB; None: no limit.  At least one byte and finite.
    experimental_priority : int, optional
        TensorFlow's stream priority of a logical GPU.  Kept for TensorFlow's signature
        and repr; ``set_logical_device_configuration`` refuses a value other than None
        (pydevtensor has no stream priorities there).
    experimental_device_ordinal : int, optional
        TensorFlow's order of the logical devices across GPUs; as experimental_priority,
        None only.

    Raises
    ------
    TypeError
        When memory_limit is not a number (or None), or an experimental field is not an
        int (or None).
    ValueError
        When memory_limit is not a positive finite number of MB of at least one byte.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.LogicalDeviceConfiguration(memory_limit=512)  # doctest: +NORMALIZE_WHITESPACE
    LogicalDeviceConfiguration(memory_limit=512, experimental_priority=None,
                               experimental_device_ordinal=None)
    """

    __slots__ = ()

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        if memory_limit is not None and (isinstance(memory_limit, bool) or not isinstance(
                memory_limit, numbers.Real)):
            raise TypeError(f"memory_limit must be a number of MB or None, got "
                            f"{memory_limit!r} ({type(memory_limit).__name__})")
        if memory_limit is not None and not 0 < memory_limit < math.inf:
            raise ValueError(f"memory_limit must be a positive finite number of MB, got "
                             f"{memory_limit!r}")
        if memory_limit is not None and not 1 <= memory_limit * 2**20 < 2**63:
            # a limit of 0 bytes would be read as none, and int64 holds the bytes
            raise ValueError(f"memory_limit must be between one byte ({2**-20} MB) and 2**63 "
                             f"bytes, got {memory_limit!r} MB")
        for name, value in (("experimental_priority", experimental_priority),
                            ("experimental_device_ordinal", experimental_device_ordinal)):
            if value is not None and (isinstance(value, bool) or not isinstance(
                    value, numbers.Integral)):
                raise TypeError(f"{name} must be an int or None, got {value!r} "
                                f"({type(value).__name__})")
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


def _flag(fname, value):
    """value as a bool, refusing what is no switch: bool('False') is True."""
    if isinstance(value, (bool, numbers.Integral, numpy.bool_)):
        return bool(value)
    raise TypeError(f"{fname}(): expected a bool, got {value!r} ({type(value).__name__})")


def _types(device_type):
    return [_kind(device_type)] if device_type is not None else ["CPU", "GPU"]


def list_physical_devices(device_type=None):
    """Every physical device of device_type ('CPU' or 'GPU'; None: both).

    Parameters
    ----------
    device_type : {'CPU', 'GPU'}, optional
        The kind ('cuda' is 'GPU'); None: both.

    Returns
    -------
    list of PhysicalDevice

    Raises
    ------
    ValueError
        For an unknown device_type.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.list_physical_devices('CPU')
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return [PhysicalDevice(f"/physical_device:{t}:{i}", t) for t in _types(device_type)
            for i in range(_C._physical_device_count(_KINDS[t]))]


def list_logical_devices(device_type=None):
    """Every logical device.  Like TensorFlow's, this initialises the devices, after
    which visible and logical devices can no longer be configured.

    Parameters
    ----------
    device_type : {'CPU', 'GPU'}, optional
        The kind ('cuda' is 'GPU'); None: both.

    Returns
    -------
    list of LogicalDevice

    Raises
    ------
    ValueError
        For an unknown device_type.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> [d.device for d in config.list_logical_devices('CPU')]
    [device(type='cpu')]
    """
    _C._check_device(device("cpu"))  # first use: freezes the configuration
    return [LogicalDevice(f"/device:{t}:{i}", t) for t in _types(device_type)
            for i in range(len(_C._logical_device_map(_KINDS[t])))]


def get_visible_devices(device_type=None):
    """The physical devices that are visible (all unless set_visible_devices hid some).

    Parameters
    ----------
    device_type : {'CPU', 'GPU'}, optional
        The kind ('cuda' is 'GPU'); None: both.

    Returns
    -------
    list of PhysicalDevice

    Raises
    ------
    ValueError
        For an unknown device_type.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.get_visible_devices('CPU')
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return [PhysicalDevice(f"/physical_device:{t}:{i}", t) for t in _types(device_type)
            for i in _C._get_visible_devices(_KINDS[t])]


def _as_list(devices):
    if devices is None:
        return []
    if isinstance(devices, PhysicalDevice):
        return [devices]
    devices = list(devices)
    for d in devices:
        if not isinstance(d, PhysicalDevice):
            raise TypeError(f"expected PhysicalDevice objects from list_physical_devices(), "
                            f"got {type(d).__name__}")
    return devices


def set_visible_devices(devices, device_type=None):
    """Makes only `devices` (PhysicalDevice objects) of their type visible.

    ``set_visible_devices([], 'GPU')`` hides every GPU.  Raises RuntimeError
    ("Visible devices cannot be modified after being initialized") once a device
    has been used.

    Parameters
    ----------
    devices : PhysicalDevice or list of PhysicalDevice
        The devices to keep.
    device_type : {'CPU', 'GPU'}, optional
        The kind to configure (default: the devices').

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When an entry is not a PhysicalDevice.
    ValueError
        When an entry is not of device_type (TensorFlow's "Unrecognized device"), or is
        listed twice (TensorFlow keeps one device; here it would make two logical ones).
    pydevtensor.DeviceError
        Once a device has been used (the configuration is frozen then), unless the call
        asks for the visible devices in force (as TensorFlow: rerunning a notebook's
        configuration cell is harmless).

    Examples
    --------
    In a fresh process, before any tensor is made (skipped here, where devices are in use):

    >>> config = pydevtensor.config
    >>> config.set_visible_devices([], 'GPU')  # doctest: +SKIP
    >>> pydevtensor.cuda.device_count()  # doctest: +SKIP
    0
    """
    devices = _as_list(devices)
    types = _types(device_type) if device_type is not None else sorted(
        {d.device_type for d in devices})
    if not types:
        raise ValueError("set_visible_devices([]) needs a device_type, e.g. 'GPU'")
    for d in devices:
        if d.device_type not in types:
            raise ValueError(f"set_visible_devices(): {d.name} is not a {types[0]} device "
                             f"(device_type={device_type!r})")
    seen = set()
    for d in devices:
        if d in seen:  # it would make a second logical device on the same physical one
            raise ValueError(f"set_visible_devices(): {d.name} is listed twice")
        seen.add(d)
    wanted = {t: [d.index for d in devices if d.device_type == t] for t in types}
    # in the order given: it numbers the logical devices
    if _C._initialized() and all(wanted[t] == list(_C._get_visible_devices(_KINDS[t]))
                                 for t in types):
        return  # as TensorFlow: the configuration in force again (a notebook cell rerun)
    for t in types:
        _C._set_visible_devices(_KINDS[t], wanted[t])


def set_logical_device_configuration(device_, logical_devices):
    """Splits a physical device into logical ones, each with its own index, memory
    accounting and limit (memory_limit in MB).  Works for GPUs and for the CPU, whose
    logical devices are cpu:0, cpu:1, ...  Before first use only.

    Parameters
    ----------
    device_ : PhysicalDevice
        The device to split.
    logical_devices : list of LogicalDeviceConfiguration
        One per logical device.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        For arguments of the wrong types.
    NotImplementedError
        For a configuration with experimental_priority or experimental_device_ordinal.
    pydevtensor.DeviceError
        Once a device has been used (the configuration is frozen then), unless the call
        asks for the configuration in force (as TensorFlow).

    Examples
    --------
    In a fresh process, before any tensor is made (skipped here, where devices are in use):

    >>> config = pydevtensor.config
    >>> cpu = config.list_physical_devices('CPU')[0]
    >>> config.set_logical_device_configuration(  # doctest: +SKIP
    ...     cpu, [config.LogicalDeviceConfiguration()] * 2)
    >>> pydevtensor.ones(2, device='cpu:1').device  # doctest: +SKIP
    device(type='cpu', index=1)
    """
    _check_physical("set_logical_device_configuration", device_)
    configs = list(logical_devices or [])
    for c in configs:
        if not isinstance(c, LogicalDeviceConfiguration):
            raise TypeError(f"set_logical_device_configuration({device_.name}, ...): expected "
                            f"LogicalDeviceConfiguration objects, got {type(c).__name__}")
        if c.experimental_priority is not None or c.experimental_device_ordinal is not None:
            raise NotImplementedError(
                f"set_logical_device_configuration({device_.name}, ...): {c!r}: "
                f"experimental_priority and experimental_device_ordinal are not supported "
                f"(leave them None)")
    limits = [0 if c.memory_limit is None else int(c.memory_limit * 2**20) for c in configs]
    kind = _KINDS[device_.device_type]
    if _C._initialized() and list(_C._get_logical_devices(kind, device_.index)) == limits:
        return  # as TensorFlow: the configuration in force again (a notebook cell rerun)
    _C._set_logical_devices(kind, device_.index, limits)


def _check_physical(fname, device_):
    if not isinstance(device_, PhysicalDevice):
        raise TypeError(f"{fname}(): expected a PhysicalDevice from list_physical_devices(), "
                        f"got {device_!r} ({type(device_).__name__})")


def get_logical_device_configuration(device_):
    """The logical devices a physical one was split into, or None when it was not.

    Parameters
    ----------
    device_ : PhysicalDevice
        The device.

    Returns
    -------
    list of LogicalDeviceConfiguration or None

    Raises
    ------
    TypeError
        When ``device_`` is not a PhysicalDevice (a LogicalDevice or a str).

    Examples
    --------
    >>> config = pydevtensor.config
    >>> cpu = config.list_physical_devices('CPU')[0]
    >>> config.get_logical_device_configuration(cpu) is None
    True
    """
    _check_physical("get_logical_device_configuration", device_)
    kind = _KINDS[device_.device_type]
    limits = _C._get_logical_devices(kind, device_.index)
    if limits and _C._initialized():
        # set_memory_limit may have changed a logical device's limit since it was configured:
        # report the limits in force (read only once devices are in use: reading freezes them)
        mine = [i for i, p in enumerate(_C._logical_device_map(kind)) if p == device_.index]
        if len(mine) == len(limits):
            limits = [memory_stats(device(_TORCH_TYPE[device_.device_type], i))["limit"]
                      for i in mine]
    return [LogicalDeviceConfiguration(None if b == 0 else b / 2**20) for b in limits] or None


def set_memory_limit(device_, limit_bytes):
    """Caps what pydevtensor may allocate on the device (bytes; None or 0: no cap).

    The limit is checked before an allocation is tried, so going over it raises
    OutOfMemoryError without touching the device (PyTorch checks after: pytorch#69688).

    Parameters
    ----------
    device_ : PhysicalDevice, LogicalDevice, str or pydevtensor.device
        The device.
    limit_bytes : int or None
        The cap; None or 0: none.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When limit_bytes is neither an int nor None (a bool or a float: 1.5 bytes is no
        size, and True is no limit).
    ValueError
        For a negative limit.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.set_memory_limit('cpu', 2 ** 20)
    >>> try:
    ...     pydevtensor.empty(2 ** 20)  # 4 MiB
    ... except pydevtensor.OutOfMemoryError:
    ...     print('over the limit')
    over the limit
    >>> config.set_memory_limit('cpu', None)
    """
    dev = _as_device(device_)
    if limit_bytes is None:
        limit = 0
    elif isinstance(limit_bytes, bool) or not isinstance(limit_bytes, numbers.Integral):
        raise TypeError(f"set_memory_limit({dev}, ...): the limit must be an int number of "
                        f"bytes or None, got {limit_bytes!r} ({type(limit_bytes).__name__})")
    else:
        limit = int(limit_bytes)
    if limit < 0:
        raise ValueError(f"set_memory_limit({dev}, ...): the limit must be >= 0 bytes "
                         f"(0 or None: no limit), got {limit}")
    _C._set_memory_limit(dev, limit)


_growth = {}


def set_memory_growth(device_, enable):
    """Memory is taken on demand by default (growth on).  With growth off, the
    device's memory limit is reserved up front: on a GPU the pool keeps it.

    Parameters
    ----------
    device_ : PhysicalDevice, LogicalDevice, str or pydevtensor.device
        The device.
    enable : bool
        True: take memory on demand.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When enable is not a bool (or an int).
    ValueError
        When turning growth off on a device without a memory limit.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.set_memory_growth('cpu', True)
    >>> config.get_memory_growth('cpu')
    True
    """
    dev = _as_device(device_)
    enable = _flag("set_memory_growth", enable)
    if not enable:
        limit = memory_stats(dev)["limit"]
        if not limit:
            raise ValueError(f"set_memory_growth({dev}, False) reserves the memory limit up "
                             f"front, and {dev} has none: set_memory_limit() first")
        from . import empty, float32, uint8
        before = memory_stats(dev)
        free = limit - before["allocated"]
        if free >= 4:
            # allocated and dropped at once: into the pool, which keeps it
            # (Note [pool release threshold])
            empty(free // 4, dtype=float32, device=dev)
            # the reservation is no tensor of the program's: put the peak back where it
            # was (reset to what is allocated now, then raised by a short-lived tensor,
            # taken from the pool just filled)
            _C._reset_peak(dev)
            rise = before["peak"] - memory_stats(dev)["allocated"]
            if rise > 0:
                empty(rise, dtype=uint8, device=dev)
    _growth[dev] = bool(enable)  # only once it is done: a refused call changes nothing


def get_memory_growth(device_):
    """Whether memory is taken on demand on the device (the default).

    Parameters
    ----------
    device_ : PhysicalDevice, LogicalDevice, str or pydevtensor.device
        The device.

    Returns
    -------
    bool

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.get_memory_growth('cpu')
    True
    """
    return _growth.get(_as_device(device_), True)


def get_memory_info(device_):
    """{'current': bytes allocated now, 'peak': the most since the last reset}.

    Parameters
    ----------
    device_ : PhysicalDevice, LogicalDevice, str or pydevtensor.device
        The device.

    Returns
    -------
    dict
        {'current': int, 'peak': int}.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> sorted(config.get_memory_info('cpu'))
    ['current', 'peak']
    """
    s = memory_stats(_as_device(device_))
    return {"current": s["allocated"], "peak": s["peak"]}


_PLACEMENT = logging.getLogger("pydevtensor.placement")
_placement_on = False


def set_log_device_placement(enabled):
    """Logs every op and copy to the ``pydevtensor.placement`` logger:
    ``Executing op matmul in device cuda:0``, ``Copying 24 bytes from cpu to cuda:0``.
    Shows in a terminal and in Jupyter with no logging setup of yours.

    Parameters
    ----------
    enabled : bool
        On or off.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When enabled is not a bool (or an int): a str such as 'False' is refused.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.set_log_device_placement(True)
    >>> config.get_log_device_placement()
    True
    >>> config.set_log_device_placement(False)
    """
    global _placement_on
    _placement_on = _flag("set_log_device_placement", enabled)
    if _placement_on:
        if not _PLACEMENT.hasHandlers():  # nothing configured: print to stderr
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(message)s"))
            _PLACEMENT.addHandler(handler)
        if _PLACEMENT.level == logging.NOTSET or _PLACEMENT.level > logging.INFO:
            _PLACEMENT.setLevel(logging.INFO)
        _C._set_log_device_placement(_PLACEMENT)
    else:
        _C._set_log_device_placement(None)


def get_log_device_placement():
    """Whether ops and copies are logged (set_log_device_placement).

    Returns
    -------
    bool

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.get_log_device_placement()
    False
    """
    return _placement_on


def set_soft_device_placement(enabled):
    """On: a device that does not exist (cuda:2 on a one-GPU machine) resolves to the
    nearest that does (cuda:0, else the CPU), with a warning on the placement logger.
    Off (the default): RuntimeError("cuda:2 unknown device; available: cpu, cuda:0").

    Parameters
    ----------
    enabled : bool
        On or off.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When enabled is not a bool (or an int): a str such as 'False' is refused.

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.set_soft_device_placement(True)
    >>> config.get_soft_device_placement()
    True
    >>> config.set_soft_device_placement(False)
    """
    _C._set_soft_device_placement(_flag("set_soft_device_placement", enabled))


def get_soft_device_placement():
    """Whether a missing device resolves to the nearest that exists (set_soft_device_placement).

    Returns
    -------
    bool

    Examples
    --------
    >>> config = pydevtensor.config
    >>> config.get_soft_device_placement()
    False
    """
    return _C._soft_device_placement()
