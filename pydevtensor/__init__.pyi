# Type stubs for the pydevtensor package (what `import pydevtensor` gives).  The C
# extension's names come from _C.pyi; the functions written in Python are declared here.
# Keep in step with __init__.py: tests/test_typing.py checks that every name in
# pydevtensor.__all__ is declared, and runs mypy --strict on the README's tour.
import builtins
from contextlib import AbstractContextManager
from typing import Any

from . import _C as _C
from . import backends as backends
from . import config as config
from . import cuda as cuda
from . import debugging as debugging
from . import distribute as distribute
from . import nn as nn
from . import optim as optim
from . import serialization as serialization
from ._C import *
from ._C import _DeviceLike
from ._tensor_py import Size as Size

__version__: str

# PyTorch's aliases
clip = clamp
divide = div
multiply = mul
negative = neg
subtract = sub

return_types: Any  # return_types.max / .min: the (values, indices) named tuples

def device_count() -> builtins.int: ...
def try_gpu(i: builtins.int = 0) -> device: ...
def try_all_gpus() -> list[device]: ...
def memory_stats(d: _DeviceLike = None) -> dict[str, Any]: ...
def memory_allocated(d: _DeviceLike = None) -> builtins.int: ...
def max_memory_allocated(d: _DeviceLike = None) -> builtins.int: ...
def memory_reserved(d: _DeviceLike = None) -> builtins.int: ...
def reset_peak_memory_stats(d: _DeviceLike = None) -> None: ...
def build_info() -> dict[str, Any]: ...
def transfer_guard(level: str) -> AbstractContextManager[None]: ...
def save(obj: Any, f: Any) -> None: ...
def load(f: Any, map_location: Any = None) -> Any: ...
