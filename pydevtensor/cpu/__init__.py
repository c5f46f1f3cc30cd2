"""pydevtensor.cpu: ``torch.cpu``'s names; ``cpu.amp.autocast`` is the deprecated spelling
of ``pydevtensor.autocast("cpu", ...)``."""
from . import amp

__all__ = ["amp"]
