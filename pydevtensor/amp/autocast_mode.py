"""``autocast``: PyTorch's mixed-precision regions, as a context manager and decorator,
and the functions that read and set its thread-local state."""
import functools
import warnings

from .. import _C
from . import _state as S

__all__ = ["autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "is_autocast_available"]

_SUPPORTED = {"cpu": "torch.bfloat16, torch.float16", "cuda": "torch.float16, torch.bfloat16"}


def _device_type(device_type, fn):
    if not isinstance(device_type, str):
        raise ValueError(f"{fn}: Expected `device_type` of type `str`, got: "
                         f"`{type(device_type)}`")
    if device_type not in S.DEVICE_TYPES:
        raise RuntimeError(f"{fn}: unsupported autocast device_type {device_type!r}: expected "
                           f"'cpu' or 'cuda'")
    return device_type


def _check_dtype(dtype, fn):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{fn}: dtype must be a pydevtensor.dtype (float16 or bfloat16), not "
                        f"{type(dtype).__name__}")


def _check_bool(enabled, fn):
    if not isinstance(enabled, bool):
        raise TypeError(f"{fn}: enabled must be a bool (got {type(enabled).__name__})")


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
    return device_type in S.DEVICE_TYPES


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for device_type in this thread (PyTorch's default device
    type, with no argument, is 'cuda').

    Parameters
    ----------
    device_type : str, optional
        'cpu' or 'cuda' (default).

    Returns
    -------
    bool

    Examples
    --------
    >>> with pydevtensor.autocast("cpu"):
    ...     pydevtensor.is_autocast_enabled("cpu"), pydevtensor.is_autocast_enabled("cuda")
    (True, False)
    """
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
    on 'cpu', as in PyTorch).

    Parameters
    ----------
    device_type : str
        'cpu' or 'cuda'.

    Returns
    -------
    dtype

    Examples
    --------
    >>> pydevtensor.get_autocast_dtype("cpu"), pydevtensor.get_autocast_dtype("cuda")
    (pydevtensor.bfloat16, pydevtensor.float16)
    """
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
        self._cache_enabled = (S._state.cache_enabled if cache_enabled is None
                               else bool(cache_enabled))
        enabled = bool(enabled)
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
