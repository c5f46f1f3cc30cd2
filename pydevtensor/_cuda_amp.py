"""``torch.cuda.amp`` (``pydevtensor.cuda.amp``): deprecated aliases of pydevtensor.amp's
autocast and GradScaler for CUDA (they warn)."""
from .amp._deprecated import aliases

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = aliases("cuda", "pydevtensor.cuda.amp")
