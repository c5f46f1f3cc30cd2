"""``pydevtensor.cuda``'s state and report functions (``torch.cuda.init``,
``is_initialized``, ``get_arch_list``, ``memory_summary``, ``memory_stats_as_nested_dict``,
``get_allocator_backend``).

pydevtensor finds its devices once, when it is first imported or asked (Note [device
registry] in csrc/core/pdt_registry.c); there is no separate lazy CUDA start as in
PyTorch, so these report that one initialisation.
"""
from . import _C
from ._devices import _as_device, memory_stats

__all__ = ["init", "is_initialized", "get_arch_list", "memory_summary",
           "memory_stats_as_nested_dict", "get_allocator_backend"]


def _available():
    return _C._device_count(_C._KIND_CUDA) > 0


def is_initialized():
    """Whether pydevtensor's CUDA backend is initialised: its devices are found and at
    least one can be used.  pydevtensor finds its devices once, as it starts, so this is
    ``cuda.is_available()`` after that (False on a build without CUDA or a machine
    without a usable GPU, as in PyTorch).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.cuda.is_initialized() == pydevtensor.cuda.is_available()
    True
    """
    return bool(_C._initialized()) and _available()


def init():
    """Initialises CUDA now, as ``torch.cuda.init``: finds the devices (pydevtensor does
    this once, as it starts, so calling it again costs nothing), and raises when none
    can be used.

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When no CUDA device can be used; the message says why (not built with CUDA, no
        driver, no GPU).

    Examples
    --------
    >>> try:
    ...     pydevtensor.cuda.init()
    ...     ok = True
    ... except pydevtensor.DeviceError:
    ...     ok = False
    >>> ok == pydevtensor.cuda.is_available()
    True
    """
    _require_cuda("cuda.init()")


def _require_cuda(where):
    """Raises DeviceError (a RuntimeError), saying why, when no CUDA device can be used,
    as PyTorch's lazy CUDA start does: for init() and the functions that need a GPU
    (where names the function)."""
    if _available():
        return
    built, why = _C._cuda_status()
    reason = why if built else "pydevtensor was built without CUDA"
    raise _C.DeviceError(f"{where}: no CUDA device can be used: {reason}")


def get_arch_list():
    """The CUDA architectures this copy of pydevtensor was compiled for, as
    ``['sm_80', 'sm_90']`` (setup.py's ``PYDEVTENSOR_CUDA_ARCH``); empty when no CUDA
    device can be used (as in PyTorch), on a build without CUDA, and on the emulated
    device (compiled for the host's CPU).

    Returns
    -------
    list of str

    Examples
    --------
    >>> archs = pydevtensor.cuda.get_arch_list()
    >>> all(a.startswith("sm_") for a in archs)
    True
    """
    if not _available():
        return []
    try:
        from ._build_config import BUILD_CONFIG
    except ImportError:
        return []
    return [f"sm_{a}" for a in BUILD_CONFIG.get("cuda_archs") or []]


def ipc_collect():
    """Releases the CUDA memory that other processes held through CUDA IPC, as
    ``torch.cuda.ipc_collect``: pydevtensor shares no CUDA memory between processes, so
    there is none and this does nothing, on any machine (memory-freeing snippets call it
    after ``empty_cache()``).

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.cuda.empty_cache(); pydevtensor.cuda.ipc_collect()
    """


def is_current_stream_capturing():
    """Whether the current stream is capturing a CUDA graph: False, always (pydevtensor
    captures no CUDA graphs), as ``torch.cuda.is_current_stream_capturing`` answers
    outside a capture.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.cuda.is_current_stream_capturing()
    False
    """
    return False


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def memory_summary(device=None, abbreviated=False):
    """A readable table of a device's memory accounting (``memory_stats``): what live
    tensors hold, their peak, what the allocator reserves, and the limit.

    pydevtensor's allocator is CUDA's stream-ordered pool, so the table has the four
    numbers pydevtensor keeps, not PyTorch's per-pool breakdown.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        The device (default: the current CUDA device; 'cpu' works too).
    abbreviated : bool, optional
        Accepted for PyTorch's signature; the table is short either way.

    Returns
    -------
    str

    Raises
    ------
    pydevtensor.DeviceError
        When the device does not exist.

    Examples
    --------
    >>> print(pydevtensor.cuda.memory_summary('cpu'))  # doctest: +ELLIPSIS
    pydevtensor memory summary, device cpu
    ...
    allocated ...
    """
    dev = _as_device(device)
    stats = memory_stats(dev)
    rows = [("allocated", stats["allocated"], "bytes of live tensors"),
            ("peak allocated", stats["peak"], "highest 'allocated' since the last reset"),
            ("reserved", stats["reserved"], "held by the allocator: live tensors + cache"),
            ("peak reserved", stats["reserved_peak"], "highest 'reserved' since the last reset"),
            ("cached", max(stats["reserved"] - stats["allocated"], 0),
             "reserved but unused: empty_cache() returns it"),
            ("limit", stats["limit"], "0: none")]
    width = max(len(_size(v)) for _, v, _ in rows)
    title = f"pydevtensor memory summary, device {dev}"
    lines = [title, "=" * len(title)]
    lines += [f"{name:<15} {_size(v):>{width}}   {what}" for name, v, what in rows]
    return "\n".join(lines)


def memory_stats_as_nested_dict(device=None):
    """``cuda.memory_stats(device)`` as a nested dict, as ``torch.cuda``'s: each dotted
    key split at its dots, so that ``'allocated_bytes.all.peak'`` is
    ``nested['allocated_bytes']['all']['peak']`` (pydevtensor's own keys, without dots,
    stay at the top); joining the keys back with dots gives ``memory_stats(device)``.
    {} without a GPU and with no device named, as PyTorch's.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        The device (default: the current CUDA device; 'cpu' works too).

    Returns
    -------
    dict

    Raises
    ------
    pydevtensor.DeviceError
        When an explicit device does not exist and a CUDA device can be used (without
        one, a CUDA device gives {}, as PyTorch's).

    Examples
    --------
    >>> nested = pydevtensor.cuda.memory_stats_as_nested_dict('cpu')
    >>> nested['allocated_bytes']['all']['peak'] == nested['peak']
    True
    """
    from .cuda import memory_stats
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        inner = nested
        for part in path:
            inner = inner.setdefault(part, {})
        inner[last] = value
    return nested


def get_allocator_backend():
    """The allocator the current CUDA device allocates with: ``'cudaMallocAsync'``, CUDA's
    stream-ordered pool allocator (each device has a pool of pydevtensor's own, from
    which ``cudaMallocFromPoolAsync`` allocates), which PyTorch names so when
    ``PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync`` picks it; or ``'cudaMalloc'`` on
    a device without memory pools (``cudaDevAttrMemoryPoolsSupported`` is 0: some
    virtualised GPUs and old drivers), where pydevtensor allocates and frees with plain
    ``cudaMalloc`` and ``cudaFree``, caching nothing.  PyTorch's default, ``'native'``,
    is its own caching allocator, which pydevtensor does not have.  Without a usable GPU
    the answer is ``'cudaMallocAsync'``, what a device with pools would use (PyTorch's
    answers from its configuration there too).

    Returns
    -------
    str

    Examples
    --------
    >>> pydevtensor.cuda.get_allocator_backend() in ('cudaMallocAsync', 'cudaMalloc')
    True
    """
    if not _available():
        return "cudaMallocAsync"
    pools = _C._properties(_C._check_device(_as_device(None)))["_memory_pools"]
    return "cudaMallocAsync" if pools else "cudaMalloc"
