"""Device queries shared by pydevtensor, pydevtensor.cuda and the CLI."""
import re
import textwrap

from . import _C

device = _C.device

# The numpydoc sections that the device and memory queries of pydevtensor,
# pydevtensor.cuda and pydevtensor.accelerator (one optional device argument) share,
# filled in by _device_doc around each function's own summary and Examples (as
# _ops_view_copy.py fills in its _DOC).
_DEVICE_DOC = """{summary}

    Parameters
    ----------
    {param}, optional
        {what} (default: {default}).

    Returns
    -------
    {result}

    Raises
    ------
    {errors}

{examples}"""
_STATS = ("dict\n    {'allocated': int, 'peak': int, 'reserved': int, 'reserved_peak': int,\n"
          "    'limit': int}; limit 0 is none.")  # what memory_stats returns


def _fill_doc(fn, template, **fields):
    """fn with its docstring (a summary, then an Examples section) put into template's
    {summary} and {examples} fields, and fields into the others (python -OO: no
    docstring, none made)."""
    if fn.__doc__ is None:
        return fn
    summary, examples = re.split(r"\n(?= *Examples\n *-+\n)", fn.__doc__, maxsplit=1)
    fn.__doc__ = template.format(summary=summary.rstrip(), examples=examples, **fields)
    return fn


def _device_doc(returns, *, param="device : str, int, pydevtensor.device or config device",
                default='the current CUDA device; "cpu" works too',
                raises="pydevtensor.DeviceError\n    When the device does not exist.",
                what="The device"):
    """A decorator: the function's docstring (its summary, then its Examples) with the
    Parameters (one device, optional), Returns and Raises sections put in between.
    returns and raises are numpydoc text without the docstring's indent."""
    def document(fn):
        return _fill_doc(fn, _DEVICE_DOC, param=param, what=what, default=default,
                         result=textwrap.indent(returns, "    ").lstrip(),
                         errors=textwrap.indent(raises, "    ").lstrip())
    return document


def device_count():
    """The number of CUDA devices that can be used now; 0 with no driver or no GPU.  Never
    raises.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.device_count() >= 0
    True
    """
    return _C._device_count(_C._KIND_CUDA)


def try_gpu(i=0):
    """The i-th GPU if it exists, else the CPU (D2L's ``try_gpu``).

    Parameters
    ----------
    i : int, optional
        The GPU's index (default 0).

    Returns
    -------
    pydevtensor.device

    Raises
    ------
    TypeError
        When i is not an int.

    Examples
    --------
    >>> d = pydevtensor.try_gpu()
    >>> d.type == ("cuda" if pydevtensor.device_count() else "cpu")
    True
    >>> pydevtensor.ones(2, device=d).device == d
    True
    """
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(): i must be an int, got {type(i).__name__}")
    if device_count() >= i + 1:
        return device("cuda", i)
    return device("cpu")


def try_all_gpus():
    """Every GPU, or ``[device('cpu')]`` when there is none.

    D2L's docstring promises this; its code returns ``[]``.  We keep the promise, so
    code that splits work over ``try_all_gpus()`` always has a device to run on.

    Returns
    -------
    list of pydevtensor.device

    Examples
    --------
    >>> len(pydevtensor.try_all_gpus()) == max(pydevtensor.device_count(), 1)
    True
    """
    n = device_count()
    return [device("cuda", i) for i in range(n)] or [device("cpu")]


def _as_device(d, default_cuda=True):
    """d (None, int, str, device, or config.PhysicalDevice/LogicalDevice) as a device
    object; None means the current CUDA device."""
    if d is None:
        return device("cuda", _C._current_device()) if default_cuda else device("cpu")
    if isinstance(d, device):
        return d
    if isinstance(d, bool) or not isinstance(d, (int, str)):
        named = getattr(d, "_pdt_device", None)
        if isinstance(named, device):
            return named
        raise TypeError(f"expected a device, a device string, a CUDA index or a "
                        f"config.PhysicalDevice/LogicalDevice, got {type(d).__name__}")
    return device("cuda", d) if isinstance(d, int) else device(d)


def _cuda_device(device):
    """device (as _as_device takes it; None: the current CUDA device) checked to be a CUDA
    device that exists."""
    dev = _as_device(device)
    if dev.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {dev}")
    return _C._check_device(dev)


def set_default_device(device):
    """Makes device the one that factory functions (zeros, ones, rand, tensor, ..., and the
    parameters of new layers) use when given no device=, in every thread that is not
    inside a ``with pydevtensor.device(...)`` block.

    Unlike PyTorch's, this default is the process's, not the calling thread's (as
    ``config.set_transfer_guard``): threads started by a library see it too.  See Note
    [the default device] in csrc/python/default_device.c.

    Parameters
    ----------
    device : str, int, pydevtensor.device or None
        The device; None means the CPU again.

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When the device does not exist.

    Examples
    --------
    >>> pydevtensor.set_default_device("cpu")
    >>> pydevtensor.zeros(2).device
    device(type='cpu')
    >>> pydevtensor.set_default_device(None)
    """
    _C._set_default_device(_C.device("cpu") if device is None else _as_device(device))


def get_default_device():
    """The device factory functions use now on this thread when given none.

    Returns
    -------
    pydevtensor.device

    Examples
    --------
    >>> pydevtensor.get_default_device()
    device(type='cpu')
    """
    return _C._get_default_device()


@_device_doc(_STATS)
def memory_stats(device=None):
    """allocated, peak, reserved, its peak and limit, in bytes, of a device (any device).

    Examples
    --------
    >>> sorted(pydevtensor.memory_stats('cpu'))
    ['allocated', 'limit', 'peak', 'reserved', 'reserved_peak']
    """
    return _C._memory_stats(_as_device(device))


@_device_doc("int")
def memory_allocated(device=None):
    """The bytes of live tensors on device.

    Examples
    --------
    >>> pydevtensor.memory_allocated('cpu') >= 0
    True
    """
    return memory_stats(device)["allocated"]


@_device_doc("int")
def max_memory_allocated(device=None):
    """The peak of memory_allocated(device) since the last reset_peak_memory_stats(device).

    Examples
    --------
    >>> pydevtensor.max_memory_allocated('cpu') >= pydevtensor.memory_allocated('cpu')
    True
    """
    return memory_stats(device)["peak"]


@_device_doc("int")
def memory_reserved(device=None):
    """The bytes the device's allocator holds: live tensors plus its cached pool.

    Examples
    --------
    >>> pydevtensor.memory_reserved('cpu') >= pydevtensor.memory_allocated('cpu')
    True
    """
    return memory_stats(device)["reserved"]


_cache_releasers = []  # f(device): drop what a Python-side cache keeps on device


def _release_caches(dev) -> None:
    """Empties the Python-side caches of constant tensors on dev (nn/_index_cache.py)."""
    for release in _cache_releasers:
        release(dev)


@_device_doc("None", default="the current CUDA device")
def empty_cache(device=None):
    """Frees the cached, unused blocks of device d's allocator (the current CUDA device
    by default; 'cpu' or 'cpu:1' for the CPU's cache of large blocks, Note [CPU block
    cache]); memory_reserved(device) drops to what live tensors hold.

    Examples
    --------
    >>> pydevtensor.empty_cache('cpu')
    >>> pydevtensor.memory_reserved('cpu') >= pydevtensor.memory_allocated('cpu')
    True
    """
    dev = _as_device(device)
    _C._empty_cache(dev)
    _release_caches(dev)


@_device_doc("None")
def reset_peak_memory_stats(device=None):
    """Sets the peak of device's memory_allocated to what is allocated now.

    Examples
    --------
    >>> pydevtensor.reset_peak_memory_stats('cpu')
    >>> pydevtensor.max_memory_allocated('cpu') == pydevtensor.memory_allocated('cpu')
    True
    """
    _C._reset_peak(_as_device(device))
