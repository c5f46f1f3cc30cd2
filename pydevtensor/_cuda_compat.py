"""``torch.cuda``'s smaller names that code written for PyTorch calls: ``set_stream``,
the deprecated ``memory_cached`` / ``max_memory_cached`` / ``reset_max_memory_cached`` /
``reset_max_memory_allocated``,
``reset_accumulated_memory_stats``, ``is_tf32_supported`` and ``get_gencode_flags``.
"""
import warnings

from . import _C
from ._cuda_info import get_arch_list
from ._cuda_streams import Stream
from ._devices import _as_device, _device_doc, reset_peak_memory_stats

__all__ = ["set_stream", "memory_cached", "max_memory_cached", "reset_max_memory_allocated",
           "reset_max_memory_cached",
           "reset_accumulated_memory_stats", "is_tf32_supported", "get_gencode_flags"]

_PARAM = "device : int, str or pydevtensor.device"
# the deprecated names' docstrings: the memory reports (0 without a GPU), the resets
_cached_doc = _device_doc("int", param=_PARAM, default="the current CUDA device; 0 without a GPU",
                          raises="pydevtensor.DeviceError\n    When an explicit device does "
                                 "not exist.")
_reset_doc = _device_doc("None", param=_PARAM, default="the current CUDA device",
                         raises="pydevtensor.DeviceError\n    When the device does not exist "
                                "(with none named: when no CUDA\n    device can be used).")


def set_stream(stream):
    """Makes stream the current stream: its device becomes the current CUDA device (each
    device has one stream), as ``torch.cuda.set_stream``; None does nothing.

    PyTorch, too, prefers the ``cuda.stream(s)`` context manager.

    Parameters
    ----------
    stream : pydevtensor.cuda.Stream or None
        A device's stream, from ``cuda.current_stream(device)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When stream is neither a pydevtensor.cuda.Stream nor None.

    Examples
    --------
    >>> pydevtensor.cuda.set_stream(None)

    With a GPU (skipped here: it needs one):

    >>> pydevtensor.cuda.set_stream(pydevtensor.cuda.current_stream(0))  # doctest: +SKIP
    >>> pydevtensor.cuda.current_device()  # doctest: +SKIP
    0
    """
    if stream is None:
        return
    if not isinstance(stream, Stream):
        raise TypeError(f"cuda.set_stream(): expected a cuda.Stream or None, got "
                        f"{type(stream).__name__}")
    _C._set_device(stream.device)


def _renamed(old, new):
    """torch.cuda's older name old of the memory report new (it warns, as PyTorch's)."""
    def report(device=None):
        from . import cuda
        warnings.warn(f"`pydevtensor.cuda.{old}` has been renamed to `pydevtensor.cuda.{new}`",
                      FutureWarning, stacklevel=2)
        return getattr(cuda, new)(device)
    report.__name__ = report.__qualname__ = old
    report.__doc__ = f"""PyTorch's older name of ``cuda.{new}`` (deprecated there, with a
    FutureWarning, and here).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.cuda.{old}("cpu") == pydevtensor.cuda.{new}("cpu")
    True
    """
    return _cached_doc(report)


memory_cached = _renamed("memory_cached", "memory_reserved")
max_memory_cached = _renamed("max_memory_cached", "max_memory_reserved")


def _resets_the_peaks(name):
    """torch.cuda's older names of reset_peak_memory_stats (each warns, as PyTorch's)."""
    def reset(device=None):
        warnings.warn(f"pydevtensor.cuda.{name} now calls "
                      "pydevtensor.cuda.reset_peak_memory_stats, which resets all peak memory "
                      "statistics (as in PyTorch).", FutureWarning, stacklevel=2)
        reset_peak_memory_stats(device)
    reset.__name__ = reset.__qualname__ = name
    reset.__doc__ = f"""PyTorch's older name of ``reset_peak_memory_stats`` (deprecated there,
    with a FutureWarning, and here): it resets every peak, of allocated and of reserved
    memory.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.cuda.{name}("cpu")
    """
    return _reset_doc(reset)


reset_max_memory_allocated = _resets_the_peaks("reset_max_memory_allocated")
reset_max_memory_cached = _resets_the_peaks("reset_max_memory_cached")


@_reset_doc
def reset_accumulated_memory_stats(device=None):
    """Resets the allocator's accumulated counters (``torch.cuda``'s counts of allocations,
    frees and retries): pydevtensor's memory statistics are current figures and peaks
    (``memory_stats``), none accumulated, so after checking the device this changes
    nothing; ``reset_peak_memory_stats`` resets the peaks.

    Examples
    --------
    >>> pydevtensor.cuda.reset_accumulated_memory_stats("cpu")
    """
    _C._check_device(_as_device(device))


def is_tf32_supported():
    """Whether the current CUDA device has TensorFloat-32 matrix units: as PyTorch's, the
    GPUs that compute in bfloat16 natively (compute capability 8.0 or later); False when
    no CUDA device can be used.

    Returns
    -------
    bool

    Examples
    --------
    >>> (pydevtensor.cuda.is_tf32_supported()
    ...  == pydevtensor.cuda.is_bf16_supported(including_emulation=False))
    True
    """
    from .cuda import is_bf16_supported
    return is_bf16_supported(including_emulation=False)


def get_gencode_flags():
    """The nvcc ``-gencode`` flags of the architectures pydevtensor was compiled for
    (``get_arch_list()``), as ``torch.cuda.get_gencode_flags``; "" when that list is
    empty.

    Returns
    -------
    str

    Examples
    --------
    >>> flags = pydevtensor.cuda.get_gencode_flags()
    >>> flags.count("-gencode") == len(pydevtensor.cuda.get_arch_list())
    True
    """
    kinds = (arch.split("_", 1) for arch in get_arch_list())
    return " ".join(f"-gencode compute=compute_{arch},code={kind}_{arch}"
                    for kind, arch in kinds)
