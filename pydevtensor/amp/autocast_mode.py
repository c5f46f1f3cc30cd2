"""``autocast``: PyTorch's mixed-precision regions, as a context manager and decorator,
and the functions that read and set its thread-local state."""
import collections.abc
import functools
import sys
import warnings

from .. import _C
from . import _state as S

__all__ = ["autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "is_autocast_available", "custom_fwd", "custom_bwd",
           "is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "autocast_increment_nesting", "autocast_decrement_nesting"]

_SUPPORTED = {"cpu": "torch.bfloat16, torch.float16", "cuda": "torch.float16, torch.bfloat16"}


def _device_type(device_type, fn):
    """'cpu' or 'cuda' for device_type, which may carry an index ('cuda:0', as PyTorch's
    device parsing takes); the autocast class refuses a non-str with PyTorch's ValueError,
    the state functions with its TypeError (their C argument parsing)."""
    if not isinstance(device_type, str):
        if fn == "autocast":
            raise ValueError(f"{fn}: Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        raise TypeError(f"{fn}: argument 'device_type' must be str, not "
                        f"{type(device_type).__name__}")
    kind, colon, index = device_type.partition(":")
    if colon and index.isdigit() and kind in S.DEVICE_TYPES:
        return kind
    if device_type not in S.DEVICE_TYPES:
        raise RuntimeError(f"{fn}: unsupported autocast device_type {device_type!r}: expected "
                           f"'cpu' or 'cuda'")
    return device_type


# The device types PyTorch's autocast knows but pydevtensor does not run: their autocast
# dtype (PyTorch's default) for get_autocast_dtype, and is_autocast_enabled answers False
# (PyTorch's get_autocast_dtype knows 'hip', its is_autocast_enabled does not)
_OTHER_DTYPES = {"xla": "bfloat16", "hpu": "bfloat16", "maia": "bfloat16", "mps": "float16",
                 "xpu": "float16", "ipu": "float16", "mtia": "float16",
                 "privateuseone": "float16", "hip": "float16"}


def _check_dtype(dtype, fn):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{fn}: dtype must be a pydevtensor.dtype (float16 or bfloat16), not "
                        f"{type(dtype).__name__}")


def _check_bool(enabled, fn, name="enabled"):
    if not isinstance(enabled, bool):
        raise TypeError(f"{fn}: {name} must be a bool (got {type(enabled).__name__})")


def is_autocast_available(device_type):
    """Whether autocast supports device_type ('cpu' and 'cuda').

    Parameters
    ----------
    device_type : str
        'cpu' or 'cuda'.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.amp.is_autocast_available("cpu")
    True
    """
    try:
        return _device_type(device_type, "is_autocast_available()") in S.DEVICE_TYPES
    except RuntimeError:
        return False


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for device_type in this thread (PyTorch's default device
    type, with no argument, is 'cuda').  The other device types PyTorch's autocast knows
    ('xla', 'hpu', 'mps', 'xpu', 'ipu', 'mtia', 'maia', 'privateuseone'), which
    pydevtensor does not run, answer False.

    Parameters
    ----------
    device_type : str, optional
        'cpu' or 'cuda' (default), or one of those.

    Returns
    -------
    bool

    Examples
    --------
    >>> with pydevtensor.autocast("cpu"):
    ...     pydevtensor.is_autocast_enabled("cpu"), pydevtensor.is_autocast_enabled("cuda")
    (True, False)
    """
    if isinstance(device_type, str) and device_type in _OTHER_DTYPES and device_type != "hip":
        return False  # PyTorch's answer for a device type pydevtensor does not run
    return S._state.enabled[_device_type(device_type, "is_autocast_enabled()")]


def set_autocast_enabled(device_type, enabled=None):
    """Turns autocast on or off for device_type in this thread (the old one-argument
    form ``set_autocast_enabled(True)`` means 'cuda').  Prefer :class:`autocast`.

    Parameters
    ----------
    device_type : str
        'cpu' or 'cuda'.
    enabled : bool
        On or off.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.set_autocast_enabled("cpu", True)
    >>> pydevtensor.is_autocast_enabled("cpu")
    True
    >>> pydevtensor.set_autocast_enabled("cpu", False)
    """
    if enabled is None and isinstance(device_type, bool):
        device_type, enabled = "cuda", device_type
    kind = _device_type(device_type, "set_autocast_enabled()")
    _check_bool(enabled, "set_autocast_enabled()")
    S._state.enabled[kind] = enabled
    S._refresh()


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on device_type (defaults: float16 on 'cuda', bfloat16
    on 'cpu', as in PyTorch).  The other device types PyTorch's autocast knows, which
    pydevtensor does not run, answer PyTorch's defaults: bfloat16 for 'xla', 'hpu' and
    'maia', float16 for 'mps', 'xpu', 'ipu', 'mtia', 'privateuseone' and 'hip'.

    Parameters
    ----------
    device_type : str
        'cpu' or 'cuda', or one of those.

    Returns
    -------
    dtype

    Examples
    --------
    >>> pydevtensor.get_autocast_dtype("cpu"), pydevtensor.get_autocast_dtype("cuda")
    (pydevtensor.bfloat16, pydevtensor.float16)
    >>> pydevtensor.get_autocast_dtype("xla"), pydevtensor.get_autocast_dtype("mps")
    (pydevtensor.bfloat16, pydevtensor.float16)
    """
    if isinstance(device_type, str) and device_type in _OTHER_DTYPES:
        return getattr(_C, _OTHER_DTYPES[device_type])  # PyTorch's default for the type
    return S._state.dtype[_device_type(device_type, "get_autocast_dtype()")]


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype autocast casts to on device_type in this thread.

    Parameters
    ----------
    device_type : str
        'cpu' or 'cuda'.
    dtype : dtype
        float16 or bfloat16.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.set_autocast_dtype("cpu", pydevtensor.float16)
    >>> pydevtensor.get_autocast_dtype("cpu")
    pydevtensor.float16
    >>> pydevtensor.set_autocast_dtype("cpu", pydevtensor.bfloat16)
    """
    kind = _device_type(device_type, "set_autocast_dtype()")
    _check_dtype(dtype, "set_autocast_dtype()")
    S._state.dtype[kind] = dtype


def is_autocast_cache_enabled():
    """Whether casts of the weights are cached within an autocast region.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.is_autocast_cache_enabled()
    True
    """
    return S._state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Turns the cache of the weights' casts on or off in this thread.

    Parameters
    ----------
    enabled : bool
        On or off.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.set_autocast_cache_enabled(True)
    """
    _check_bool(enabled, "set_autocast_cache_enabled()")
    S._state.cache_enabled = enabled


def clear_autocast_cache():
    """Drops the cached casts (done on leaving the outermost autocast region).

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.clear_autocast_cache()
    """
    S._state.cache.clear()


def _deprecated(old, new):
    warnings.warn(f"pydevtensor.{old}() is deprecated. Please use pydevtensor.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Whether CPU autocast is on in this thread: ``is_autocast_enabled('cpu')`` under
    PyTorch's deprecated name (warns a DeprecationWarning, as PyTorch's).

    Returns
    -------
    bool

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(), pydevtensor.autocast("cpu"):
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.is_autocast_cpu_enabled()
    True
    """
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return S._state.enabled["cpu"]


def get_autocast_cpu_dtype():
    """CPU autocast's dtype in this thread: ``get_autocast_dtype('cpu')`` under PyTorch's
    deprecated name (warns a DeprecationWarning, as PyTorch's).

    Returns
    -------
    dtype

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.get_autocast_cpu_dtype()
    pydevtensor.bfloat16
    """
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return S._state.dtype["cpu"]


def get_autocast_gpu_dtype():
    """CUDA autocast's dtype in this thread: ``get_autocast_dtype('cuda')`` under
    PyTorch's deprecated name (warns a DeprecationWarning, as PyTorch's).

    Returns
    -------
    dtype

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.get_autocast_gpu_dtype()
    pydevtensor.float16
    """
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return S._state.dtype["cuda"]


def autocast_increment_nesting():
    """Counts one more autocast region entered in this thread, as :class:`autocast` does
    on entry (PyTorch's ``torch.autocast_increment_nesting``).

    Returns
    -------
    int
        The count after it.

    Examples
    --------
    >>> pydevtensor.autocast_increment_nesting()
    1
    >>> pydevtensor.autocast_decrement_nesting()
    0
    """
    S._state.depth += 1
    return S._state.depth


def autocast_decrement_nesting():
    """Counts one autocast region fewer in this thread, as :class:`autocast` does on exit
    (where it drops the cached casts when the count reaches 0); PyTorch's
    ``torch.autocast_decrement_nesting``.

    Returns
    -------
    int
        The count after it (it may go below 0, as PyTorch's).

    Examples
    --------
    >>> with pydevtensor.autocast("cpu"):
    ...     pydevtensor.autocast_increment_nesting()
    ...     pydevtensor.autocast_decrement_nesting()
    2
    1
    """
    S._state.depth -= 1
    return S._state.depth


class autocast:
    """A region (``with``) or function (decorator) whose ops run in mixed precision, as
    PyTorch's ``torch.autocast``.

    Inside, matrix products, linear layers, convolutions and attention cast their
    floating inputs to ``dtype``; losses, and on CUDA softmax, norms and
    reductions, run in float32; ops such as ``addcmul`` and ``cat`` take the widest
    floating input dtype.  Everything else runs in its inputs' dtype.  The casts are
    differentiable, so gradients reach float32 parameters in float32.  The state is
    per thread; regions nest, and ``enabled=False`` turns autocast off inside one.

    Parameters
    ----------
    device_type : str
        'cuda' or 'cpu': the tensors whose ops are cast.
    dtype : dtype, optional
        float16 or bfloat16; default float16 for 'cuda' and bfloat16 for 'cpu'.  Another
        dtype warns and disables the region, as in PyTorch.
    enabled : bool, optional
        False runs the region without autocast (default True).
    cache_enabled : bool, optional
        Whether casts of the weights are cached inside the region (default True).

    Raises
    ------
    ValueError
        device_type is not a str.
    RuntimeError
        device_type is neither 'cpu' nor 'cuda'.
    TypeError
        dtype is not a pydevtensor dtype.

    Examples
    --------
    >>> a, b = pydevtensor.ones(2, 3), pydevtensor.ones(3, 2)
    >>> with pydevtensor.autocast("cpu"):
    ...     (a @ b).dtype
    pydevtensor.bfloat16
    >>> @pydevtensor.autocast("cpu", dtype=pydevtensor.float16)
    ... def f(x, y):
    ...     return pydevtensor.mm(x, y)
    >>> f(a, b).dtype
    pydevtensor.float16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _device_type(device_type, "autocast")
        self.fast_dtype = S._state.dtype[self.device] if dtype is None else dtype
        _check_dtype(self.fast_dtype, "autocast")
        # PyTorch takes any value here and refuses one that is not a bool on entry
        self._cache_enabled = (S._state.cache_enabled if cache_enabled is None
                               else cache_enabled)
        if enabled and self.fast_dtype not in (_C.float16, _C.bfloat16):
            warnings.warn(f"In {self.device.upper() if self.device == 'cpu' else 'CUDA'} "
                          f"autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\nAutocast on {self.device} only supports dtypes of "
                          f"{_SUPPORTED[self.device]} currently.", UserWarning, stacklevel=2)
            enabled = False
        if enabled and self.device == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available. Disabling autocast.", UserWarning,
                          stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        _check_bool(self._enabled, "autocast")
        _check_bool(self._cache_enabled, "autocast", "cache_enabled")
        st = S._state
        self._prev = (st.enabled[self.device], st.dtype[self.device], st.cache_enabled)
        st.depth += 1
        st.enabled[self.device] = self._enabled
        st.dtype[self.device] = self.fast_dtype
        st.cache_enabled = self._cache_enabled
        S._refresh()
        return self

    def __exit__(self, *exc):
        st = S._state
        st.depth -= 1
        if st.depth == 0:
            st.cache.clear()
        st.enabled[self.device], st.dtype[self.device], st.cache_enabled = self._prev
        S._refresh()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return decorated


def _cuda_available():
    from .. import cuda
    return cuda.is_available()


def _cast_inputs(value, device_type, dtype):
    """value with its floating tensors on device_type (not float64) cast to dtype, through
    lists, tuples and dicts (keys too), as PyTorch's ``torch.amp.autocast_mode._cast``:
    strings and ndarrays are kept, another iterable becomes a generator."""
    if isinstance(value, _C.Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype != _C.float64)
        return value.to(dtype) if eligible else value
    np = sys.modules.get("numpy")
    if isinstance(value, (str, bytes)) or (np is not None and isinstance(value, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_inputs(k, device_type, dtype): _cast_inputs(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast_inputs(v, device_type, dtype) for v in value)
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*items)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def _check_device_type_str(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom :class:`pydevtensor.autograd.Function`
    under autocast, as PyTorch's ``torch.amp.custom_fwd``.

    It records the autocast state of device_type on the ctx (``ctx._fwd_used_autocast``,
    ``ctx._dtype``) for :func:`custom_bwd`.  With cast_inputs, a ``forward`` called
    inside an autocast region of device_type gets its floating tensors (on device_type,
    not float64; also inside lists, tuples and dicts) cast to cast_inputs and runs with
    autocast off; outside such a region, or without cast_inputs, it runs as it is.

    Parameters
    ----------
    fwd : callable, optional
        The ``forward`` (``forward(ctx, *args, **kwargs)``); without it, the decorator.
    device_type : str
        'cpu' or 'cuda' (keyword only).
    cast_inputs : dtype, optional
        The dtype of the floating inputs inside an autocast region (default None: no
        cast, autocast stays on in ``forward``).

    Returns
    -------
    callable
        The wrapped ``forward``, or a decorator when fwd is None.

    Raises
    ------
    ValueError
        device_type is not a str.

    Examples
    --------
    >>> class Mul(pydevtensor.autograd.Function):
    ...     @staticmethod
    ...     @pydevtensor.amp.custom_fwd(device_type="cpu", cast_inputs=pydevtensor.float32)
    ...     def forward(ctx, a, b):
    ...         return a.mm(b)
    ...     @staticmethod
    ...     @pydevtensor.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         return g, g
    >>> with pydevtensor.autocast("cpu"):
    ...     Mul.apply(pydevtensor.ones(2, 2), pydevtensor.ones(2, 2).bfloat16()).dtype
    pydevtensor.float32
    """
    _check_device_type_str(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(*_cast_inputs(args, device_type, cast_inputs),
                       **_cast_inputs(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom :class:`pydevtensor.autograd.Function`
    whose ``forward`` has :func:`custom_fwd`: ``backward`` runs under the autocast state
    (on or off, and its dtype) that ``forward`` ran under, as PyTorch's
    ``torch.amp.custom_bwd``.

    Parameters
    ----------
    bwd : callable, optional
        The ``backward`` (``backward(ctx, *grads)``); without it, the decorator.
    device_type : str
        'cpu' or 'cuda' (keyword only).

    Returns
    -------
    callable
        The wrapped ``backward``, or a decorator when bwd is None.

    Raises
    ------
    ValueError
        device_type is not a str.

    Examples
    --------
    >>> class Id(pydevtensor.autograd.Function):
    ...     @staticmethod
    ...     @pydevtensor.amp.custom_fwd(device_type="cpu")
    ...     def forward(ctx, x):
    ...         return x.clone()
    ...     @staticmethod
    ...     @pydevtensor.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         print(pydevtensor.is_autocast_enabled("cpu"))
    ...         return g
    >>> x = pydevtensor.ones(2, requires_grad=True)
    >>> with pydevtensor.autocast("cpu"):
    ...     y = Id.apply(x)
    >>> y.sum().backward()
    True
    """
    _check_device_type_str(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
