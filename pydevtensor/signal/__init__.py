"""torch.signal: window functions (pydevtensor.signal.windows)."""
from . import windows

__all__ = ["windows"]
