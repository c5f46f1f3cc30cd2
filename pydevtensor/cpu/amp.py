"""``torch.cpu.amp``: deprecated aliases of pydevtensor.amp for the CPU."""
import warnings

from ..amp import autocast as _autocast
from ..amp import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """``pydevtensor.autocast("cpu", ...)`` under its deprecated name (warns, as
    PyTorch's ``torch.cpu.amp.autocast``).

    Parameters
    ----------
    enabled, dtype, cache_enabled
        As :class:`pydevtensor.autocast`'s.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with pydevtensor.cpu.amp.autocast():
    ...         pydevtensor.is_autocast_enabled("cpu")
    True
    """

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`pydevtensor.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`pydevtensor.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``pydevtensor.amp.GradScaler("cpu", ...)`` under its deprecated name (warns).

    Parameters
    ----------
    init_scale, growth_factor, backoff_factor, growth_interval, enabled
        As :class:`pydevtensor.amp.GradScaler`'s.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.cpu.amp.GradScaler().is_enabled()
    True
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`pydevtensor.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`pydevtensor.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
