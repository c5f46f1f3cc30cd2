"""pydevtensor.version: ``__version__`` and ``cuda`` (the CUDA toolkit version the
build was compiled with, a string such as '12.4', or None for a CPU build), as
``torch.version``."""
from ._build import build_info as _build_info

__all__ = ["__version__", "cuda"]

_info = _build_info()
__version__ = _info["version"]
cuda = (_info["cuda"].get("toolkit") if _info["cuda"].get("built") else None)
if cuda is not None:
    cuda = str(cuda)
