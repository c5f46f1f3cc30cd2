"""pydevtensor.amp: automatic mixed precision, as ``torch.amp``.

:class:`autocast` runs a region's matrix products, linear layers, convolutions and
attention in float16 or bfloat16 and its losses (and on CUDA its softmax, norms and
reductions) in float32; :class:`GradScaler` scales the loss so that float16 gradients
keep their small values, and skips the steps whose gradients overflowed.
"""
from .autocast_mode import (autocast, clear_autocast_cache, custom_bwd, custom_fwd,
                            get_autocast_dtype,
                            is_autocast_available, is_autocast_cache_enabled,
                            is_autocast_enabled, set_autocast_cache_enabled,
                            set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler
from . import _policy

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled",
           "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
           "custom_fwd", "custom_bwd"]

_policy.install()
