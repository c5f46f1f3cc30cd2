"""pydevtensor.cuda: what ``torch.cuda`` offers for devices and memory.

Every function works on a machine without a GPU: the queries report zero devices,
and the ones that need a device raise a ``RuntimeError`` (``pydevtensor.DeviceError``)
that says why none is available: not built with CUDA, no driver, or no such device.
"""
import numbers
from collections import namedtuple
from functools import partial

from . import _C
from . import _devices
from ._devices import (_as_device, _cuda_device, _device_doc, _release_caches,
                       device_count, reset_peak_memory_stats)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "get_device_name",
    "get_device_properties", "get_device_capability", "mem_get_info", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "memory_stats", "reset_max_memory_allocated",
    "empty_cache", "synchronize", "is_built", "unavailable_reason", "Event",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "device",
    "is_bf16_supported", "can_device_access_peer", "memory_snapshot",
    # random numbers: one stream for every device (pydevtensor/_cuda_random.py)
    "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "set_rng_state", "set_rng_state_all",
    # state and reports (pydevtensor/_cuda_info.py)
    "init", "is_initialized", "get_arch_list", "memory_summary", "ipc_collect",
    "is_current_stream_capturing",
    "device_of", "OutOfMemoryError",
    # the one stream of each device (pydevtensor/_cuda_streams.py)
    "Stream", "StreamContext", "current_stream", "default_stream", "stream",
    # smaller names of PyTorch's (pydevtensor/_cuda_compat.py) and cuda.nvtx
    "set_stream", "memory_cached", "max_memory_cached", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "is_tf32_supported", "get_gencode_flags", "nvtx",
    # reports (pydevtensor/_cuda_info.py)
    "memory_stats_as_nested_dict", "get_allocator_backend",
    # cuda.nccl: version, is_available (pydevtensor/_cuda_nccl.py)
    "nccl",
    # warn or raise on a synchronising read (pydevtensor/_cuda_sync_debug.py)
    "set_sync_debug_mode", "get_sync_debug_mode",
    # nvidia-smi's figures through pynvml (pydevtensor/_cuda_monitor.py)
    "utilization", "memory_usage", "temperature", "power_draw", "clock_rate",
    "list_gpu_processes",
]
# Read through __getattr__ below, so added apart (pyflakes looks for a definition of what
# the list names): one Generator per GPU, all the one stream (pydevtensor/_cuda_random.py),
# made when first read (the devices are found then); the legacy typed CUDA tensors
# (pydevtensor/_tensor_legacy.py, loaded on first use: pydevtensor/_lazy.py)
_LEGACY_TYPES = ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor")
_READ_LATE = ("default_generators", *_LEGACY_TYPES)
__all__ += _READ_LATE
from ._C import OutOfMemoryError  # noqa: E402  (the one class: pydevtensor.OutOfMemoryError)
from ._cuda_info import (get_allocator_backend, get_arch_list, init, ipc_collect,  # noqa: E402
                         is_current_stream_capturing, is_initialized,
                         memory_stats_as_nested_dict, memory_summary)
from ._cuda_streams import (Stream, StreamContext, current_stream, default_stream,  # noqa: E402
                            stream)
from . import _cuda_nvtx as nvtx  # noqa: E402  (torch.cuda.nvtx: ranges and marks)
from . import _cuda_nccl as nccl  # noqa: E402  (torch.cuda.nccl: version, is_available)
from ._cuda_sync_debug import get_sync_debug_mode, set_sync_debug_mode  # noqa: E402
from ._cuda_monitor import (clock_rate, list_gpu_processes, memory_usage,  # noqa: E402
                            power_draw, temperature, utilization)
from ._cuda_compat import (get_gencode_flags, is_tf32_supported,  # noqa: E402
                           max_memory_cached, memory_cached, reset_accumulated_memory_stats,
                           reset_max_memory_allocated, reset_max_memory_cached, set_stream)
from ._cuda_random import (get_rng_state, get_rng_state_all, initial_seed,  # noqa: E402
                           manual_seed, manual_seed_all, seed, seed_all, set_rng_state,
                           set_rng_state_all)

# Event(enable_timing=False, blocking=False, interprocess=False, *, device=None):
# record() / query() / wait() / synchronize() / elapsed_time(end) on a device's stream
# (csrc/python/events.c).  Without device= it takes its device when first recorded, so
# making one needs no GPU (as PyTorch's); record() without a usable GPU raises DeviceError.
Event = _C._Event

# the docstrings' Parameters, Returns and Raises: of a CUDA device's queries, and of the
# memory reports (0 or {} with no device named and no GPU)
_PARAM = "device : int, str or pydevtensor.device"
_NO_SUCH = "pydevtensor.DeviceError\n    When there is no such CUDA device (the message says why)."
_cuda_doc = partial(_device_doc, param=_PARAM, what="A CUDA device", default="the current one",
                    raises=_NO_SUCH)
_EXPLICIT = ("pydevtensor.DeviceError\n    When an explicit device does not exist and a CUDA "
             "device can be used\n    (without one, a CUDA device reports 0 or {}, as "
             "PyTorch's).")
_report_doc = partial(_device_doc, param=_PARAM, raises=_EXPLICIT)

# torch.cuda's _CudaDeviceProperties attributes (the first five, in this order, as before)
DeviceProperties = namedtuple(
    "DeviceProperties",
    ["name", "total_memory", "multi_processor_count", "major", "minor", "is_integrated",
     "is_multi_gpu_board", "max_threads_per_block", "max_threads_per_multi_processor",
     "warp_size", "regs_per_multiprocessor", "shared_memory_per_block",
     "shared_memory_per_block_optin", "shared_memory_per_multiprocessor", "L2_cache_size",
     "uuid", "pci_bus_id", "pci_device_id", "pci_domain_id"])


def is_built():
    """True when this copy of pydevtensor was compiled with its CUDA backend.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(pydevtensor.cuda.is_built(), bool)
    True
    """
    return _C._cuda_built()


def is_available():
    """True when at least one CUDA device can be used.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.cuda.is_available() == (pydevtensor.cuda.device_count() > 0)
    True
    """
    return device_count() > 0


def unavailable_reason():
    """Why no CUDA device can be used (None when one can).

    Returns
    -------
    str or None

    Examples
    --------
    >>> (pydevtensor.cuda.unavailable_reason() is None) == pydevtensor.cuda.is_available()
    True
    """
    built, why = _C._cuda_status()
    if not built:
        return "pydevtensor was built without CUDA"
    return why


def current_device():
    """Index of the calling thread's current CUDA device (0 until set_device).

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.cuda.current_device()
    0
    """
    return _C._current_device()


def set_device(device):
    """Makes device the calling thread's current CUDA device: 'cuda' and .cuda() then mean it.

    Parameters
    ----------
    device : int, str or pydevtensor.device
        A CUDA device; a negative int does nothing, as ``torch.cuda.set_device(-1)``.

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).

    Examples
    --------
    >>> pydevtensor.cuda.set_device(-1)  # does nothing, on any machine

    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.set_device(0)  # doctest: +SKIP
    >>> pydevtensor.cuda.current_device()  # doctest: +SKIP
    0
    """
    if isinstance(device, int) and not isinstance(device, bool) and device < 0:
        return
    _C._set_device(_as_device(device))


class device:
    """``with pydevtensor.cuda.device(i):`` makes CUDA device i the calling thread's
    current device for the block ('cuda' and ``.cuda()`` then mean it), and restores
    the previous one after, as ``torch.cuda.device``.  i is an int, 'cuda:1' or a
    device; None or a negative int does nothing.  Entering it for a device that does
    not exist raises DeviceError.

    Parameters
    ----------
    device : int, str, pydevtensor.device or None
        The CUDA device.

    Raises
    ------
    ValueError
        For a device that is not a CUDA one.
    pydevtensor.DeviceError
        On entering, for a device that does not exist.

    Examples
    --------
    >>> with pydevtensor.cuda.device(None):  # None: does nothing, on any machine
    ...     pydevtensor.cuda.current_device()
    0
    """

    def __init__(self, device):
        if device is None or (isinstance(device, int) and not isinstance(device, bool)
                              and device < 0):
            self.idx = -1
        else:
            dev = _as_device(device)
            if dev.type != "cuda":
                raise ValueError(f"cuda.device() expects a CUDA device, got {dev}")
            self.idx = dev.index
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = _C._current_device()
            _C._set_device(_C.device("cuda", self.idx))
        return self

    def __exit__(self, *exc):
        if self.idx >= 0:
            _C._set_device(_C.device("cuda", self.prev_idx))
        return False


class device_of(device):
    """``with pydevtensor.cuda.device_of(t):`` makes the device of tensor t the current
    CUDA device for the block, as ``torch.cuda.device_of``; a CPU tensor changes
    nothing.

    Parameters
    ----------
    obj : pydevtensor.Tensor
        The tensor whose device to use.

    Raises
    ------
    TypeError
        When obj is not a tensor.

    Examples
    --------
    >>> t = pydevtensor.ones(2, device=pydevtensor.try_gpu())
    >>> with pydevtensor.cuda.device_of(t):
    ...     here = pydevtensor.cuda.current_device()
    >>> here == (t.device.index if t.is_cuda else pydevtensor.cuda.current_device())
    True
    """

    def __init__(self, obj):
        if not isinstance(obj, _C.Tensor):
            raise TypeError(f"cuda.device_of() expects a tensor, got {type(obj).__name__}")
        super().__init__(obj.device.index if obj.is_cuda else -1)


@_cuda_doc("DeviceProperties\n    A named tuple.")
def get_device_properties(device=None):
    """name, total_memory (bytes), multi_processor_count, major, minor of a CUDA device,
    and the other figures of PyTorch's ``_CudaDeviceProperties``, as the runtime gives
    them (cudaDeviceProp): is_integrated, is_multi_gpu_board, max_threads_per_block,
    max_threads_per_multi_processor, warp_size, regs_per_multiprocessor,
    shared_memory_per_block (and its _optin, and per_multiprocessor, in bytes),
    L2_cache_size (bytes), uuid (a str, 8-4-4-4-12 hex digits), pci_bus_id, pci_device_id
    and pci_domain_id.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.get_device_properties(0).total_memory > 0  # doctest: +SKIP
    True
    >>> pydevtensor.cuda.get_device_properties(0).warp_size  # doctest: +SKIP
    32

    On a device with a memory limit (a logical device of a split GPU, or
    ``config.set_memory_limit``), total_memory is the limit: the memory the program sees,
    as TensorFlow's logical devices are.
    """
    dev = _cuda_device(device)
    props = _C._properties(dev)
    del props["_memory_pools"]  # pydevtensor's own (cuda.get_allocator_backend)
    limit = _C._memory_stats(dev)["limit"]
    if limit:
        props = dict(props, total_memory=min(limit, props["total_memory"]))
    return DeviceProperties(**props)


@_cuda_doc("str")
def get_device_name(device=None):
    """The name of a CUDA device, as the driver gives it.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.get_device_name(0)  # doctest: +SKIP
    'NVIDIA H100 80GB HBM3'
    """
    return get_device_properties(device).name


def is_bf16_supported(including_emulation=True):
    """Whether the current CUDA device computes in bfloat16 natively (compute
    capability 8.0, Ampere, or later); False when no CUDA device is available.

    Parameters
    ----------
    including_emulation : bool, optional
        Accepted for PyTorch's signature; pydevtensor's bfloat16 kernels on older
        GPUs are not counted.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.cuda.is_bf16_supported() == (pydevtensor.cuda.is_available()
    ...                                          and pydevtensor.cuda.get_device_capability()[0] >= 8)
    True
    """
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


@_cuda_doc("tuple of (int, int)")
def get_device_capability(device=None):
    """The compute capability (major, minor) of a CUDA device.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.get_device_capability(0)  # doctest: +SKIP
    (9, 0)
    """
    p = get_device_properties(device)
    return (p.major, p.minor)


@_cuda_doc("tuple of (int, int)")
def mem_get_info(device=None):
    """(free, total) bytes of a CUDA device, as the driver reports them; on a device with a
    memory limit (a logical device of a split GPU, or ``config.set_memory_limit``),
    (limit - allocated, limit), what is left under the limit (less when the card itself has
    less free, counting the device's cached pool as free).

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> free, total = pydevtensor.cuda.mem_get_info()  # doctest: +SKIP
    >>> free <= total  # doctest: +SKIP
    True
    """
    dev = _cuda_device(device)
    free, total = _C._mem_get_info(dev)
    stats = _C._memory_stats(dev)
    if not stats["limit"]:
        return free, total
    limit = min(stats["limit"], total)
    pooled = max(0, stats["reserved"] - stats["allocated"])  # this device's to reuse
    return max(0, min(limit - stats["allocated"], free + pooled)), limit


@_cuda_doc("None", raises=_NO_SUCH + "  Not raised without an argument.")
def empty_cache(device=None):
    """Returns the cached, unused memory of the device's pool to the driver.

    With no CUDA device this does nothing, so notebooks can call it unconditionally.

    Examples
    --------
    >>> pydevtensor.cuda.empty_cache()  # does nothing without a GPU
    """
    if device is None and not is_available():
        return
    dev = _cuda_device(device)
    _C._empty_cache(dev)
    _release_caches(dev)


def synchronize(device=None):
    """Waits until every op queued on the device has finished.

    With no CUDA device and no argument this does nothing, and so does a CPU device
    (PyTorch raises there), so timing code written for a GPU also runs on the CPU, where
    ops are synchronous: D2L's ``torch.cuda.synchronize(device)`` with ``device =
    try_gpu()``.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        A CUDA device (default: the current one), or a CPU device (nothing to wait for).

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).  Not raised without an argument.

    Examples
    --------
    >>> y = pydevtensor.ones(3, device=pydevtensor.try_gpu()) * 2
    >>> pydevtensor.cuda.synchronize()  # y is computed now, on any device
    """
    if device is None and not is_available():
        return
    if isinstance(device, (str, _C.device)) and _C.device(device).type == "cpu":
        return
    _C._synchronize(_cuda_device(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps pydevtensor's allocations on a CUDA device at fraction * its total memory.

    Checked before each allocation is tried, so going over raises OutOfMemoryError
    without touching the device (PyTorch checks after: pytorch#69688).

    Parameters
    ----------
    fraction : float
        In [0, 1].
    device : int, str or pydevtensor.device, optional
        A CUDA device (default: the current one).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When fraction is not a real number (a str, a bool).
    ValueError
        When fraction is outside [0, 1].
    pydevtensor.DeviceError
        When there is no such CUDA device (the message says why).

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.set_per_process_memory_fraction(0.5, 0)  # doctest: +SKIP
    >>> pydevtensor.empty(2 ** 40, device='cuda')  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    pydevtensor.OutOfMemoryError: ...
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real):
        raise TypeError(f"set_per_process_memory_fraction(): fraction must be a float, got "
                        f"{type(fraction).__name__}")
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1], got {fraction!r}")
    dev = _cuda_device(device)
    # of the card's memory (not of a limit set before, which total_memory reports)
    _C._set_memory_limit(dev, int(fraction * _C._properties(dev)["total_memory"]))


@_cuda_doc("float\n    In [0, 1]: the allowed memory is fraction * total memory.")
def get_per_process_memory_fraction(device=None):
    """The fraction of a CUDA device's memory pydevtensor may allocate: what
    set_per_process_memory_fraction set (1.0 until then, as PyTorch's).

    A limit set otherwise (``config.set_memory_limit``, a logical device of a split GPU)
    is reported as its fraction of the card's memory.

    Examples
    --------
    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.set_per_process_memory_fraction(0.5, 0)  # doctest: +SKIP
    >>> pydevtensor.cuda.get_per_process_memory_fraction(0)  # doctest: +SKIP
    0.5
    """
    dev = _cuda_device(device)
    total = _C._properties(dev)["total_memory"]
    limit = _C._memory_stats(dev)["limit"]
    return 1.0 if not limit or not total else min(1.0, limit / total)


def __getattr__(name):
    # cuda.comm, as torch.cuda.comm: nn.parallel.comm (imported on first use: nn needs
    # this module)
    if name == "comm":
        from .nn import _parallel_comm
        return _parallel_comm
    # torch.cuda.default_generators: a tuple of one Generator per GPU, made when first
    # read (the devices are found then), each the one stream (_cuda_random.py)
    if name == "default_generators":
        from ._cuda_random import default_generators
        return default_generators()
    if name in _LEGACY_TYPES:  # cuda.FloatTensor and its kin
        from ._tensor_legacy import CUDA_TYPES
        return CUDA_TYPES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _nothing_to_report(device):
    """True when no CUDA device can be used and device is None or names a CUDA device
    (0, "cuda:0", pydevtensor.device("cuda", 1)): torch.cuda's memory reports give 0
    (memory_stats: {}) then for any device, CUDA never having been initialised, so that
    code written for a GPU runs without one.  A CPU device still reports the CPU's
    figures; with a CUDA device available, one that does not exist still raises."""
    return not is_available() and (device is None or _as_device(device).type == "cuda")


@_report_doc("int")
def memory_allocated(device=None):
    """The bytes of live tensors on a CUDA device (0 without a GPU, as PyTorch's).

    Examples
    --------
    >>> pydevtensor.cuda.memory_allocated() >= 0
    True
    """
    return 0 if _nothing_to_report(device) else _devices.memory_allocated(device)


@_report_doc("int")
def max_memory_allocated(device=None):
    """The peak of memory_allocated(device) since the last reset_peak_memory_stats(device)
    (0 without a GPU, as PyTorch's).

    Examples
    --------
    >>> pydevtensor.cuda.max_memory_allocated() >= pydevtensor.cuda.memory_allocated()
    True
    """
    return 0 if _nothing_to_report(device) else _devices.max_memory_allocated(device)


@_report_doc("int")
def memory_reserved(device=None):
    """The bytes the device's allocator holds: live tensors plus its cached pool (0 without
    a GPU, as PyTorch's).

    Examples
    --------
    >>> pydevtensor.cuda.memory_reserved() >= pydevtensor.cuda.memory_allocated()
    True
    """
    return 0 if _nothing_to_report(device) else _devices.memory_reserved(device)


@_report_doc("int", default="the current CUDA device")
def max_memory_reserved(device=None):
    """The peak of memory_reserved(device) since the last reset_peak_memory_stats(device):
    0 without a GPU, as PyTorch's.  Logical devices of one GPU share its pool, so they
    share this peak.

    Examples
    --------
    >>> pydevtensor.cuda.max_memory_reserved() >= pydevtensor.cuda.memory_reserved()
    True
    """
    return 0 if _nothing_to_report(device) else _devices.memory_stats(device)["reserved_peak"]


# PyTorch's names for the same figures (torch.cuda.memory_stats' flat counters), so that
# scripts reading stats["allocated_bytes.all.peak"] run unchanged
_TORCH_STATS = {"allocated_bytes.all.current": "allocated", "allocated_bytes.all.peak": "peak",
                "reserved_bytes.all.current": "reserved",
                "reserved_bytes.all.peak": "reserved_peak"}


@_report_doc("dict\n    pydevtensor.memory_stats(device)'s keys ('allocated', 'peak', "
             "'reserved',\n    'reserved_peak', 'limit'; limit 0 is none), and the same "
             "figures under\n    PyTorch's names: 'allocated_bytes.all.current', "
             "'allocated_bytes.all.peak',\n    'reserved_bytes.all.current', "
             "'reserved_bytes.all.peak'.")
def memory_stats(device=None):
    """allocated, peak, reserved, its peak and limit, in bytes, of a device, also under
    PyTorch's counter names; {} without a GPU and with no device named, as PyTorch's.

    Examples
    --------
    >>> stats = pydevtensor.cuda.memory_stats('cpu')
    >>> stats['allocated_bytes.all.peak'] == stats['peak']
    True
    >>> sorted(k for k in stats if '.' not in k)
    ['allocated', 'limit', 'peak', 'reserved', 'reserved_peak']
    """
    if _nothing_to_report(device):
        return {}
    stats = _devices.memory_stats(device)
    stats.update({torch_name: stats[ours] for torch_name, ours in _TORCH_STATS.items()})
    return stats


def can_device_access_peer(device, peer_device):
    """Whether kernels on a CUDA device can address memory on peer_device directly
    (cudaDeviceCanAccessPeer), as PyTorch's.  False for a device and itself (as CUDA's);
    True for two logical devices of one GPU (``config.set_logical_device_configuration``:
    they share its memory).  Copies between devices work either way: without peer
    access the driver stages them.

    Parameters
    ----------
    device : int, str or pydevtensor.device
        A CUDA device; None is the current one.
    peer_device : int, str or pydevtensor.device
        Another CUDA device.

    Returns
    -------
    bool

    Raises
    ------
    pydevtensor.DeviceError
        When either is no CUDA device that exists (PyTorch: AssertionError "Invalid device
        id"); the message names it and the devices there are.
    ValueError
        When either is not a CUDA device.

    Examples
    --------
    >>> if pydevtensor.cuda.is_available():
    ...     assert not pydevtensor.cuda.can_device_access_peer(0, 0)
    """
    return _C._can_access_peer(_cuda_device(device), _cuda_device(peer_device))


def memory_snapshot():
    """What the allocator holds, as PyTorch's list of segments, one per GPU whose pool
    holds memory.  pydevtensor allocates from CUDA's stream-ordered pool, which keeps
    no per-block record, so each GPU's pool is one segment: 'total_size' is the bytes it
    reserves (memory_reserved), 'allocated_size', 'active_size' and 'requested_size' the
    bytes of live tensors on the GPU's logical devices (memory_allocated), 'address' 0,
    'blocks' and 'frames' empty.  [] without a GPU, as PyTorch's.

    Returns
    -------
    list of dict
        Keys 'device' (the first logical device of the GPU), 'address', 'total_size',
        'allocated_size', 'active_size', 'requested_size', 'stream' (0, the device's
        one stream), 'segment_type' ('large'), 'segment_pool_id' ((0, 0)),
        'is_expandable' (True: the pool grows), 'frames' and 'blocks'.

    Examples
    --------
    >>> all(s['total_size'] >= s['allocated_size'] for s in pydevtensor.cuda.memory_snapshot())
    True
    """
    if not is_available():
        return []
    gpus = _C._logical_device_map(_C._KIND_CUDA)
    segments = []
    for first, gpu in enumerate(gpus):
        if gpu in gpus[:first]:
            continue
        stats = [_devices.memory_stats(i) for i, g in enumerate(gpus) if g == gpu]
        allocated = sum(st["allocated"] for st in stats)
        reserved = max(stats[0]["reserved"], allocated)
        if reserved == 0:
            continue
        segments.append({"device": first, "address": 0, "total_size": reserved,
                         "allocated_size": allocated, "active_size": allocated,
                         "requested_size": allocated, "stream": 0, "segment_type": "large",
                         "segment_pool_id": (0, 0), "is_expandable": True, "frames": [],
                         "blocks": []})
    return segments
