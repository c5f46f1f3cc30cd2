"""pydevtensor: tensors that know which device holds them.

The CPU or the i-th CUDA GPU; copies between devices that are always visible
(``transfer_stats()``), and a NumPy boundary where no device-to-host copy happens
behind your back.  The names follow PyTorch, so the GPU chapter of *Dive into Deep
Learning* runs after ``import pydevtensor as torch``.
"""
__version__ = "0.1.0"

try:
    from . import _C
except ImportError as _err:  # e.g. the source tree shadowing an installed copy
    from ._build_errors import missing_extension_error as _missing
    raise _missing(__path__[0], _err) from None
import math as _math
from ._libraries import register_library_paths as _register_library_paths

_register_library_paths()
from ._C import (DTypeError, DeviceError, IndexOutOfRangeError, InvalidArgumentError,
                 OutOfMemoryError, Tensor, TransferError,
                 arange, bfloat16, bool, device, double, dtype, empty, empty_like, eye, float,
                 float16, float32, float64, from_numpy, full, full_like, half, int,
                 int8, int16, int32, int64,
                 linspace, long, ones, ones_like, promote_types, rand, randint,
                 randn, reset_transfer_stats, short, tensor, transfer_stats, uint8, zeros,
                 zeros_like)
from ._generator import Generator, default_generator
from . import random
from .random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from . import cuda
from . import _config_index  # noqa: F401  (PYDEVTENSOR_INDEX_CHECKS, at import)
from ._build import build_info
from ._devices import (device_count, empty_cache, get_default_device, max_memory_allocated,
                       memory_allocated, memory_reserved, memory_stats,
                       reset_peak_memory_stats, set_default_device, try_all_gpus, try_gpu)
from ._tensor_py import Size
from ._interop import as_tensor, from_dlpack, to_numpy  # the NumPy/DLPack boundary
from ._guard import transfer_guard
from ._threads import get_num_threads, set_num_threads
from ._ops_math import *  # noqa: F401,F403  (elementwise ops)
from ._ops_reduce import *  # noqa: F401,F403  (reductions)
from ._ops_view import *  # noqa: F401,F403  (views and indexing)
from ._ops_matmul import *  # noqa: F401,F403  (matmul)
from . import _ops_math, _ops_matmul, _ops_reduce, _ops_view
from . import autograd
from .autograd import (enable_grad, inference_mode, is_anomaly_check_nan_enabled,
                       is_anomaly_enabled, is_grad_enabled, is_inference_mode_enabled, no_grad,
                       set_grad_enabled)
from ._ops_index import *  # noqa: F401,F403  (where, gather, issue 17)
from . import _ops_getitem  # noqa: F401,E402  (x[...] and x[...] = v: the index hooks)
from ._memory_format import (channels_last, channels_last_3d, contiguous_format,  # noqa: E402
                             layout, memory_format, preserve_format, strided)
from . import _ops_index
from ._ops_stats import *  # noqa: F401,F403  (softmax, var, std, isnan, allclose, ...)
from ._ops_stats import tensor  # also takes lists of 0-d tensors
from . import _ops_stats
from ._dtype_info import *  # noqa: F401,F403  (finfo, iinfo, result_type, can_cast)
from ._repr import set_printoptions
from . import _dtype_info
from . import _tensor_resize  # noqa: F401  (resize_, is_same_size, .real, .imag, ... methods)
from . import _lazy, _lazy_table

# Note [lazy submodules]: nn, optim, utils, distribute, distributed, config, debugging,
# special, jit and save/load (and compile) are imported on first use.  They pull in
# logging, json, threading and queue, which would otherwise cost `import pydevtensor` tens
# of milliseconds (the goal is < 30 ms on top of NumPy; benchmarks/bench_import.py
# measures it).  So are most op modules (Note [lazy ops modules] in _lazy.py).
_LAZY_SUBMODULES = ("nn", "optim", "distribute", "distributed", "config", "debugging",
                    "serialization", "special", "utils", "jit", "distributions", "testing",
                    "version", "func", "quasirandom", "signal", "linalg")


def __getattr__(name):
    import importlib
    import types

    if name in _LAZY_SUBMODULES or name in _lazy_table.MODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    owner = _lazy.owner(name)
    if owner is not None:
        # amp's wrapper where the op is on its lists (torch.svd), as for the names set at
        # import; installed on a namespace of its own before it is published (another
        # thread reads the package's while this one, or another first read, writes it)
        one = types.SimpleNamespace(
            **{name: getattr(importlib.import_module(f".{owner[0]}", __name__), owner[1])})
        importlib.import_module(".amp._policy", __name__).install([one])
        globals()[name] = vars(one)[name]
        return vars(one)[name]
    if name in ("save", "load"):
        return getattr(importlib.import_module(".serialization", __name__), name)
    if name in _lazy_table.FUNCTIONAL:  # torch.conv2d, torch.adaptive_max_pool1d: F's
        renamed = importlib.import_module("._ops_torch_names", __name__).FUNCTIONAL_RENAMED
        return getattr(importlib.import_module(".nn.functional", __name__),
                       renamed.get(name, name))
    if name == "compile":  # torch.compile: pydevtensor.jit's pass-through
        return importlib.import_module(".jit", __name__).compile
    if name == "vmap":  # torch.vmap: pydevtensor.func's
        return importlib.import_module(".func", __name__).vmap
    raise AttributeError(f"module 'pydevtensor' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES) | {"save", "load", "compile", "vmap"}
                  | set(_lazy_table.MODULES) | set(_lazy._OWNERS) | set(_lazy_table.ALIASES)
                  | set(_lazy_table.FUNCTIONAL))

__all__ = [
    "DTypeError", "DeviceError", "IndexOutOfRangeError", "InvalidArgumentError",
    "OutOfMemoryError", "Size", "Tensor", "TransferError",
    "arange", "bool",
    "build_info", "config", "cuda", "debugging", "device", "load", "save", "nn", "device_count", "double", "dtype", "empty", "empty_like",
    "eye", "float", "float32", "float64", "float16", "half", "bfloat16", "from_numpy", "full", "full_like", "initial_seed",
    "int", "int8", "int16", "int32", "int64", "uint8", "short", "linspace", "long", "manual_seed", "max_memory_allocated",
    "empty_cache", "memory_allocated", "memory_reserved", "memory_stats", "ones", "ones_like",
    "promote_types", "rand",
    "randint", "randn", "reset_peak_memory_stats", "reset_transfer_stats", "tensor",
    "transfer_stats", "try_all_gpus", "try_gpu", "zeros", "zeros_like",
] + _ops_math.__all__ + _ops_reduce.__all__ + _ops_view.__all__ + _ops_matmul.__all__
__all__ += ["autograd", "enable_grad", "inference_mode", "is_anomaly_check_nan_enabled",
            "is_anomaly_enabled", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
            "set_grad_enabled"]
__all__ += ["as_tensor", "config", "distribute", "distributed", "from_dlpack", "optim",
            "to_numpy",
            "transfer_guard", "get_num_threads", "set_num_threads", "get_default_device",
            "set_default_device"]
__all__ += _ops_index.__all__ + _ops_stats.__all__ + _dtype_info.__all__ + ["set_printoptions"]
__all__ += ["special", "jit", "compile"]
__all__ += ["linalg", "utils", "distributions", "func", "vmap", "quasirandom", "signal"]
__all__ += ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
            "preserve_format", "layout", "strided"]
__all__ += ["Generator", "default_generator", "get_rng_state", "random", "seed",
            "set_rng_state"]
__all__ += ["e", "inf", "nan", "pi"]
__all__ += ["testing", "version"]
__all__ += list(_lazy._OWNERS) + list(_lazy_table.ALIASES)
__all__ += _lazy_table.FUNCTIONAL

# PyTorch's constants (torch.pi, torch.e, torch.inf, torch.nan): Python floats
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan

# Tensor's methods written in Python take no out= (PyTorch's take none): the functions set
# as methods above are wrapped to refuse it, before autocast reads them
from ._out import methods_without_out  # noqa: E402
methods_without_out(Tensor)

# mixed precision (torch.amp): autocast's casts are installed at the ops' entry points
# here and again when nn is first imported (amp/_policy.py)
from . import amp  # noqa: E402
from .amp import GradScaler  # noqa: E402  (torch.GradScaler: amp's)
from .amp import (autocast, clear_autocast_cache, get_autocast_dtype,  # noqa: E402
                  is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                  set_autocast_dtype, set_autocast_enabled)
from .amp.autocast_mode import (autocast_decrement_nesting,  # noqa: E402
                                autocast_increment_nesting, get_autocast_cpu_dtype,
                                get_autocast_gpu_dtype, is_autocast_cpu_enabled)
from . import cpu  # noqa: E402  (torch.cpu.amp)
from . import _cuda_amp  # noqa: E402  (torch.cuda.amp, set on the cuda module)
cuda.amp = _cuda_amp
__import__("sys").modules["pydevtensor.cuda.amp"] = _cuda_amp
__import__("sys").modules["pydevtensor.cuda.nvtx"] = cuda.nvtx  # import pydevtensor.cuda.nvtx
__import__("sys").modules["pydevtensor.cuda.nccl"] = cuda.nccl  # import pydevtensor.cuda.nccl
__all__ += ["amp", "GradScaler", "autocast", "clear_autocast_cache", "get_autocast_dtype", "cpu",
            "is_autocast_cache_enabled", "is_autocast_enabled", "set_autocast_cache_enabled",
            "set_autocast_dtype", "set_autocast_enabled", "is_autocast_cpu_enabled",
            "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "autocast_increment_nesting",
            "autocast_decrement_nesting"]

# the device-generic names (torch.accelerator, torch.Stream, torch.Event)
from . import accelerator  # noqa: E402
from ._streams import Event, Stream, get_device_module  # noqa: E402
__all__ += ["accelerator", "Event", "Stream", "get_device_module"]

# the methods of the op modules loaded on first use (Note [lazy ops modules])
_lazy.install()
