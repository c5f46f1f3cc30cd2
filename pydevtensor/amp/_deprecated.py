"""``torch.cuda.amp`` and ``torch.cpu.amp``'s deprecated autocast and GradScaler: the
pydevtensor.amp classes for one device type, warning as PyTorch's do."""
import warnings

from .. import _C
from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


def aliases(device_type, module):
    """(autocast, GradScaler) for device_type ('cuda' or 'cpu'), defined in module."""
    # PyTorch's default arguments, whatever set_autocast_dtype set
    default = _C.float16 if device_type == "cuda" else _C.bfloat16

    def warn(cls):
        warnings.warn(f"`pydevtensor.{device_type}.amp.{cls}(args...)` is deprecated. Please "
                      f"use `pydevtensor.amp.{cls}('{device_type}', args...)` instead.",
                      FutureWarning, stacklevel=3)

    class autocast(_autocast):
        def __init__(self, enabled=True, dtype=default, cache_enabled=True):
            warn("autocast")
            super().__init__(device_type, dtype=dtype, enabled=enabled,
                             cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000, enabled=True):
            warn("GradScaler")
            super().__init__(device_type, init_scale, growth_factor, backoff_factor,
                             growth_interval, enabled)

    for cls, base, args in ((autocast, "autocast", "enabled, dtype, cache_enabled"),
                            (GradScaler, "amp.GradScaler", "init_scale, growth_factor, "
                             "backoff_factor, growth_interval, enabled")):
        name = cls.__name__
        cls.__module__, cls.__qualname__ = module, name
        cls.__doc__ = f"""``pydevtensor.{base}`` for '{device_type}' under its deprecated
    name ``{device_type}.amp.{name}`` (warns, as PyTorch's ``torch.{device_type}.amp.{name}``).

    Parameters
    ----------
    {args}
        As :class:`pydevtensor.{base}`'s.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     x = pydevtensor.{device_type}.amp.{name}()
    >>> isinstance(x, pydevtensor.{base})
    True
    """
    return autocast, GradScaler
