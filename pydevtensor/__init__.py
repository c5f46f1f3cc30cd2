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
from ._ops_join import *  # noqa: F401,F403  (cat, stack, flip, ...)
from ._ops_split import *  # noqa: F401,F403  (split, chunk, unbind)
from ._ops_einsum import *  # noqa: F401,F403  (einsum, outer)
from ._ops_distance import cdist, dist, pdist, renorm
from ._ops_logical import *  # noqa: F401,F403  (logical_and, any, all, ...; & | ^ ~ on masks)
from ._ops_shortcuts import *  # noqa: F401,F403  (square, reciprocal, rand_like, is_tensor, ...)
from ._ops_sort import *  # noqa: F401,F403  (sort, argsort, topk, cumsum)
from ._ops_stats import *  # noqa: F401,F403  (softmax, var, std, isnan, allclose, ...)
from ._ops_stats import tensor  # also takes lists of 0-d tensors
from ._ops_nan import *  # noqa: F401,F403  (logsumexp, logaddexp, nan_to_num, nansum, ...)
from ._ops_pointwise import *  # noqa: F401,F403  (frac, signbit, sgn, lerp, addcmul, addcdiv)
from ._ops_cumulative import *  # noqa: F401,F403  (diff, cumprod, roll; Tensor.mT, .mH)
from ._ops_counting import *  # noqa: F401,F403  (bincount, unique, searchsorted, bucketize)
from ._ops_multinomial import multinomial
from ._ops_bernoulli import bernoulli
from ._ops_gamma import mvlgamma, polygamma
from ._ops_special_more import i0
from ._ops_igamma import igamma, igammac
from ._ops_special import *  # noqa: F401,F403  (logit, xlogy, exp2, sinc; special.py has more)
from ._ops_trig import *  # noqa: F401,F403  (tan, asin, atan2, log2, rsqrt, erfinv, ...)
from . import _ops_trig
from ._ops_cov import *  # noqa: F401,F403  (cov, corrcoef)
from . import _ops_cov
from ._memory_format import (channels_last, channels_last_3d, contiguous_format,  # noqa: E402
                             layout, memory_format, preserve_format, strided)
from ._ops_repeat import repeat_interleave
from . import (_ops_einsum, _ops_index, _ops_join, _ops_logical,
               _ops_shortcuts, _ops_sort, _ops_stats, linalg)
from . import _ops_counting, _ops_cumulative, _ops_nan, _ops_pointwise, _ops_special, _ops_split
# everyday3: scatter, index_add/copy/fill, masked_select, isin, median, cross, ...
from ._ops_scatter import *  # noqa: F401,F403
from ._ops_index_more import *  # noqa: F401,F403
from ._ops_elementwise_more import *  # noqa: F401,F403
from ._ops_float_parts import *  # noqa: F401,F403
from ._ops_small_names import *  # noqa: F401,F403
from ._ops_reduce_more import *  # noqa: F401,F403
from ._ops_quantile import *  # noqa: F401,F403  (quantile, nanquantile)
from ._ops_histogram import *  # noqa: F401,F403
from ._storage import TypedStorage, UntypedStorage  # noqa: F401
from ._ops_linalg_small import *  # noqa: F401,F403
from . import _ops_elementwise_more, _ops_histogram, _ops_index_more, _ops_reduce_more
from . import _storage
from . import _ops_float_parts, _ops_small_names
from . import _ops_quantile
from . import _ops_linalg_small, _ops_scatter
from ._linalg_solve import (cholesky_solve, det, inverse, logdet,  # noqa: E402
                            torch_slogdet as slogdet)
from ._linalg_decomp import torch_svd as svd  # noqa: E402
from ._linalg_lu import lu_unpack  # noqa: E402
from ._linalg_exp import matrix_exp  # noqa: E402
from ._linalg_names import cholesky_inverse  # noqa: E402
from ._linalg_tensor import orgqr  # noqa: E402
from ._linalg_householder import geqrf, ormqr  # noqa: E402
# everyday names (swapaxes, narrow, tile, tensor_split, diag, finfo, set_printoptions, ...)
from ._ops_shape import *  # noqa: F401,F403  (movedim, narrow, unflatten, broadcast_to, ...)
from ._ops_split_stack import *  # noqa: F401,F403  (tensor_split, hsplit, dstack, rot90, ...)
from ._ops_diag import *  # noqa: F401,F403  (diagonal, diag, diag_embed, block_diag, ...)
from ._ops_view_scatter import *  # noqa: F401,F403  (select_scatter, slice_scatter, ...)
from ._dtype_info import *  # noqa: F401,F403  (finfo, iinfo, result_type, can_cast)
from ._repr import set_printoptions
from ._default_dtype import get_default_dtype, set_default_dtype
from . import _dtype_info, _ops_diag, _ops_shape, _ops_split_stack, _ops_view_scatter
from ._tensor_legacy import BoolTensor, DoubleTensor, FloatTensor, IntTensor, LongTensor
from ._ops_strided import as_strided, is_inference, put, trace
from ._ops_view_copy import *  # noqa: F401,F403  (view_copy, t_copy, split_copy, ...)
from . import _ops_view_copy
from . import _tensor_resize  # noqa: F401  (resize_, is_same_size, .real, .imag, ... methods)
from . import _tensor_queries  # noqa: F401  (dim_order, is_sparse, layout, ... of Tensor)
from . import _tensor_aliases  # noqa: F401  (as_subclass, to_dense, conj_physical, ...)
from ._ops_products import inner, kron, tensordot, vander
from . import _ops_view_in_place  # noqa: F401  (t_, transpose_, unsqueeze_, ... methods)
from ._ops_real import *  # noqa: F401,F403  (isposinf, vdot, adjoint, ..., random fills)
from . import _ops_real
from ._runtime_flags import *  # noqa: F401,F403  (set_warn_always, set_flush_denormal, ...)
from . import _runtime_flags
from ._ops_torch_names import *  # noqa: F401,F403  (sqrt_, fill, typename, ...)
from . import _ops_torch_names
from ._ops_aten_losses import *  # noqa: F401,F403  (torch.kl_div(x, t, 1), torch.embedding)
from . import _ops_aten_losses
from ._control_flow import cond, while_loop  # noqa: E402
from . import _control_flow

# Note [lazy submodules]: nn, optim, utils, distribute, distributed, config, debugging,
# special, jit and save/load (and compile) are imported on first use.  They pull in logging, json, threading and queue, which
# would otherwise cost `import pydevtensor` tens of milliseconds (the goal is < 30 ms
# on top of NumPy; benchmarks/bench_import.py measures it).
_LAZY_SUBMODULES = ("nn", "optim", "distribute", "distributed", "config", "debugging",
                    "serialization", "special", "utils", "jit", "distributions", "testing",
                    "version", "func", "quasirandom", "signal")
# Note [lazy ops modules]: the top-level names of these modules load them on first use
# (about a tenth of import's module loading).  Such a module sets nothing on Tensor and
# holds no op of amp's lists (both installed at import, for every loaded module only), and
# its names here are its __all__: tests/test_import_lazy.py checks all three.
_LAZY_NAMES = {
    "_ops_aten_more": ("as_strided_", "index_put_", "resize_as_", "as_strided_scatter",
                       "empty_permuted", "constant_pad_nd", "convolution", "conv_tbc"),
    "_ops_binomial": ("binomial",),
    "_ops_creation_more": ("asarray", "frombuffer", "scalar_tensor", "hann_window",
                           "hamming_window", "blackman_window", "bartlett_window",
                           "kaiser_window"),
    "_ops_gradient": ("gradient",),
    "_ops_logspace": ("logspace",),
    "_ops_norm_names": ("frobenius_norm", "norm_except_dim", "nuclear_norm"),
    "_ops_poisson": ("poisson",),
    "_ops_random": ("normal",),
    "_ops_torch_dropout": ("alpha_dropout", "dropout", "feature_alpha_dropout",
                           "feature_dropout", "alpha_dropout_", "dropout_",
                           "feature_alpha_dropout_", "feature_dropout_"),
    "_ops_torch_legacy": ("batch_norm", "instance_norm", "lu", "lu_solve", "triangular_solve"),
    "_linalg_lobpcg": ("lobpcg",),
    "_linalg_lowrank": ("svd_lowrank", "pca_lowrank"),
    "_precision": ("set_float32_matmul_precision", "get_float32_matmul_precision",
                   "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
                   "is_deterministic_algorithms_warn_only_enabled",
                   "set_deterministic_debug_mode", "get_deterministic_debug_mode"),
}
_LAZY_OWNER = {n: m for m, names in _LAZY_NAMES.items() for n in names}


def __getattr__(name):
    import importlib

    if name in _LAZY_SUBMODULES or name in _LAZY_NAMES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name in _LAZY_OWNER:
        value = getattr(importlib.import_module(f".{_LAZY_OWNER[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in ("save", "load"):
        return getattr(importlib.import_module(".serialization", __name__), name)
    if name in _ops_torch_names.FUNCTIONAL_ALIASES:  # torch.conv2d: nn.functional's own
        return getattr(importlib.import_module(".nn.functional", __name__), name)
    if name in _ops_torch_names.FUNCTIONAL_RENAMED:  # torch.adaptive_max_pool1d
        return getattr(importlib.import_module(".nn.functional", __name__),
                       _ops_torch_names.FUNCTIONAL_RENAMED[name])
    if name == "compile":  # torch.compile: pydevtensor.jit's pass-through
        return importlib.import_module(".jit", __name__).compile
    if name == "vmap":  # torch.vmap: pydevtensor.func's
        return importlib.import_module(".func", __name__).vmap
    raise AttributeError(f"module 'pydevtensor' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES) | {"save", "load", "compile", "vmap"}
                  | set(_LAZY_OWNER) | set(_LAZY_NAMES)
                  | set(_ops_torch_names.FUNCTIONAL_ALIASES)
                  | set(_ops_torch_names.FUNCTIONAL_RENAMED))

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
__all__ += _ops_index.__all__ + _ops_join.__all__ + _ops_sort.__all__ + _ops_stats.__all__
__all__ += _ops_split.__all__
__all__ += _ops_einsum.__all__ + _ops_logical.__all__
__all__ += _ops_shortcuts.__all__
__all__ += (_ops_nan.__all__ + _ops_pointwise.__all__ + _ops_cumulative.__all__
            + _ops_counting.__all__ + ["multinomial", "repeat_interleave"])
__all__ += _ops_special.__all__ + ["special", "jit", "compile"]
__all__ += ["linalg", "utils", "distributions", "func", "vmap", "quasirandom", "signal"]
__all__ += ["cdist", "dist", "pdist", "renorm"]
__all__ += _ops_shape.__all__ + _ops_split_stack.__all__ + _ops_diag.__all__
__all__ += _ops_view_copy.__all__
__all__ += _ops_view_scatter.__all__
__all__ += _dtype_info.__all__ + ["set_printoptions", "get_default_dtype", "set_default_dtype"]
__all__ += ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
            "preserve_format", "layout", "strided"]
__all__ += _ops_scatter.__all__ + _ops_index_more.__all__  # everyday3
__all__ += _ops_elementwise_more.__all__ + _ops_reduce_more.__all__ + _ops_histogram.__all__
__all__ += _storage.__all__
__all__ += _ops_float_parts.__all__ + _ops_small_names.__all__
__all__ += _ops_linalg_small.__all__ + _ops_quantile.__all__
__all__ += ["cholesky_inverse", "cholesky_solve", "det", "inverse", "logdet", "lu_unpack", "matrix_exp", "slogdet",
            "svd", "orgqr", "geqrf", "ormqr"]
__all__ += ["Generator", "default_generator", "get_rng_state", "random", "seed",
            "set_rng_state", "bernoulli", "mvlgamma", "polygamma", "i0",
            "igamma", "igammac"]
__all__ += _ops_trig.__all__
__all__ += _ops_cov.__all__ + ["e", "inf", "nan", "pi"]
__all__ += ["BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor"]
__all__ += ["as_strided", "is_inference", "put", "trace", "inner", "kron", "tensordot", "vander",
            "testing", "version"]
__all__ += _ops_real.__all__ + _runtime_flags.__all__
__all__ += _ops_aten_losses.__all__ + _control_flow.__all__
__all__ += (list(_LAZY_OWNER) + _ops_torch_names.__all__
            + list(_ops_torch_names.FUNCTIONAL_ALIASES)
            + list(_ops_torch_names.FUNCTIONAL_RENAMED))

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
__all__ += ["amp", "GradScaler", "autocast", "clear_autocast_cache", "get_autocast_dtype", "cpu",
            "is_autocast_cache_enabled", "is_autocast_enabled", "set_autocast_cache_enabled",
            "set_autocast_dtype", "set_autocast_enabled", "is_autocast_cpu_enabled",
            "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "autocast_increment_nesting",
            "autocast_decrement_nesting"]

# the device-generic names (torch.accelerator, torch.Stream, torch.Event)
from . import accelerator  # noqa: E402
from ._streams import Event, Stream, get_device_module  # noqa: E402
__all__ += ["accelerator", "Event", "Stream", "get_device_module"]
