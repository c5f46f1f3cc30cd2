"""``torch.cpu.amp``: deprecated aliases of pydevtensor.amp's autocast and GradScaler
for the CPU (they warn)."""
from ..amp._deprecated import aliases

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = aliases("cpu", __name__)
