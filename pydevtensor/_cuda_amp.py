"""``torch.cuda.amp`` (``pydevtensor.cuda.amp``): deprecated aliases of pydevtensor.amp for CUDA."""
import warnings

from .amp import autocast as _autocast
from .amp import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """``pydevtensor.autocast("cuda", ...)`` under its deprecated name (warns, as
    PyTorch's ``torch.cuda.amp.autocast``).

    Parameters
    ----------
    enabled, dtype, cache_enabled
        As :class:`pydevtensor.autocast`'s.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with pydevtensor.cuda.amp.autocast():
    ...         ok = pydevtensor.is_autocast_enabled("cuda")
    >>> ok == (pydevtensor.cuda.device_count() > 0)
    True
    """

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        from . import _C
        dtype = _C.float16 if dtype is None else dtype
        warnings.warn("`pydevtensor.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`pydevtensor.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``pydevtensor.amp.GradScaler("cuda", ...)`` under its deprecated name (warns).

    Parameters
    ----------
    init_scale, growth_factor, backoff_factor, growth_interval, enabled
        As :class:`pydevtensor.amp.GradScaler`'s.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     on = pydevtensor.cuda.amp.GradScaler().is_enabled()
    >>> on == (pydevtensor.cuda.device_count() > 0)
    True
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`pydevtensor.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`pydevtensor.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
