"""Autocast's op lists (PyTorch's policy) and their installation at the ops' entry points.

Each public op named below (the function ``_HOMES`` names: no other function that shares
its name) is replaced, wherever a pydevtensor module exports it under that name
(``pydevtensor.matmul``, ``nn.functional.linear``, the defining module, the convolution
layers' ``_fn``), by a wrapper from :mod:`._state` that casts its inputs
while autocast is on and calls the op directly, in C, while it is off.  Tensor's
methods of those names and its operators (``@``, ``**``, ``.mm``, ``.sum``, ...) are
wrapped only while some thread has autocast on.
"""
import sys

from .. import _C
from . import _state as S

# ops run in the autocast dtype (float16 / bfloat16), on both device types
LOWER = ["matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "conv1d", "conv2d",
         "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
         "scaled_dot_product_attention", "vecdot"]
# ... on CUDA only (PyTorch's CPU list leaves these in the input dtype)
LOWER_CUDA = ["mv", "addmv", "addr"]
# on CUDA's lower list; made of mm on the CPU, where its products are autocast
LOWER_CUDA_COMPOSITE_CPU = ["chain_matmul"]
# ops run in float32, on both device types (losses; cdist)
FP32 = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
        "poisson_nll_loss", "cosine_embedding_loss", "hinge_embedding_loss",
        "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
        "multilabel_margin_loss", "cdist"]
# ... float32 on CPU only (PyTorch's CUDA lists leave these in the input dtype); F.pad in
# its reflect and replicate modes too ("pad": fp32_cpu_pad)
FP32_CPU = ["avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
            "max_unpool1d", "max_unpool2d", "max_unpool3d", "ctc_loss", "trace",
            "inv", "inv_ex", "inverse", "svd", "householder_product", "solve_triangular",
            "svdvals", "qr", "cholesky", "cholesky_ex", "solve", "eigh", "eigvalsh",
            "matrix_rank", "cond", "lstsq", "pinverse", "cholesky_solve", "cholesky_inverse",
            "quantile", "nanquantile"]
# ... float32 unless given dtype=, both device types (prod is on PyTorch's CPU list too)
FP32_OPT_DTYPE = ["prod"]
# ... float32 on CUDA only
FP32_CUDA = ["layer_norm", "group_norm", "normalize", "cosine_similarity", "softplus",
             "exp", "expm1", "log", "log10", "log1p", "log2", "pow", "reciprocal", "rsqrt",
             "tan", "acos", "asin", "cosh", "sinh", "erfinv", "logsumexp", "norm", "renorm"]
FP32_CUDA_OPT_DTYPE = ["softmax", "log_softmax", "softmin", "sum", "cumsum", "cumprod"]
# ops on no list whose PyTorch kernel is one op, made of listed ops here: under autocast
# they run in their input dtype, their inner products not lowered (matrix_exp's Pade
# coefficients overflow float16)
PLAIN = ["matrix_exp"]
# ops run in the widest floating dtype of their inputs (cat and stack promote by themselves)
# (on CUDA only; PyTorch's CPU autocast refuses a mixed index_put as outside autocast)
PROMOTE = ["addcmul", "addcdiv", "atan2", "bilinear", "cross", "dot", "scatter_add",
           "index_put"]
# ... on CUDA, float32 on CPU (PyTorch's grid_sampler is on its CUDA promote and CPU
# float32 lists)
PROMOTE_CUDA_FP32_CPU = ["grid_sample"]
# ... and on CPU made of lowered products (PyTorch's tensordot: mm)
PROMOTE_CUDA_LOWER_CPU = ["tensordot"]
# ... on CPU only (PyTorch's CPU promote list: cat, stack, which promote by themselves here)
PROMOTE_CPU = ["index_copy"]
# Tensor's operators cast as their functions are; its methods of the lists' names
# (x.mm(w), x.sum(), x.softmax(-1), ...) are added by tensor_methods(), as PyTorch casts
# an op whatever form it is called in
# (PyTorch's ``2 / x`` is ``x.reciprocal() * 2``: reciprocal is on its CUDA float32 list)
TENSOR_OPERATORS = {"__matmul__": "lower", "__rmatmul__": "lower",
                    "__pow__": "fp32_cuda", "__rpow__": "fp32_cuda",
                    "__rtruediv__": "fp32_cuda"}

_WRAPPERS = {"lower": S.lower, "lower_cuda": S.lower_cuda, "fp32": S.fp32,
             "fp32_opt_dtype": lambda f: S.fp32(f, opt_dtype=True),
             "fp32_cuda": S.fp32_cuda, "fp32_cuda_opt_dtype": S.fp32_cuda_opt_dtype,
             "lower_cuda_composite_cpu": lambda f: S.lower(f, ("cuda",), composite=("cpu",)),
             "fp32_cpu": S.fp32_cpu, "fp32_cpu_pad": S.fp32_cpu_pad,
             "fp32_cpu_lrn": S.fp32_cpu_lrn, "promote": S.promote,
             "promote_cuda_lower_cpu": lambda f: S.promote(f, composite=("cpu",)),
             "promote_cpu": lambda f: S.promote(f, kinds=("cpu",)), "plain": S.unlisted,
             "promote_cuda_fp32_cpu": S.fp32_cpu_promote_cuda}


def policy():
    """{op name: 'lower' | 'lower_cuda' | 'fp32' | ... } for the functions."""
    table = {}
    for kind, names in (("lower", LOWER), ("lower_cuda", LOWER_CUDA),
                        ("lower_cuda_composite_cpu", LOWER_CUDA_COMPOSITE_CPU), ("fp32", FP32),
                        ("fp32_opt_dtype", FP32_OPT_DTYPE), ("fp32_cpu", FP32_CPU),
                        ("fp32_cpu_pad", ["pad"]), ("fp32_cpu_lrn", ["local_response_norm"]),
                        ("fp32_cuda", FP32_CUDA),
                        ("fp32_cuda_opt_dtype", FP32_CUDA_OPT_DTYPE), ("promote", PROMOTE),
                        ("promote_cuda_lower_cpu", PROMOTE_CUDA_LOWER_CPU),
                        ("promote_cpu", PROMOTE_CPU),
                        ("promote_cuda_fp32_cpu", PROMOTE_CUDA_FP32_CPU), ("plain", PLAIN)):
        for n in names:
            table[n] = kind
    return table


def tensor_methods():
    """{Tensor method name: kind}: the operators, and every listed op that is also a
    Tensor method."""
    table = {n: k for n, k in policy().items() if _has_method(n)}
    table.update(TENSOR_OPERATORS)
    return table


def _has_method(name):
    """Whether Tensor has the method now, without loading a module for it (a method of a
    module not loaded yet, Note [lazy ops modules], is taken when that module loads)."""
    from .._lazy import LazyAttr
    for cls in _C.Tensor.__mro__:
        if name in vars(cls):
            return not isinstance(vars(cls)[name], LazyAttr)
    return False


# The functions that are the listed ops, by their __module__ and __qualname__s: install
# wraps only these, wherever it finds them under an op's name, never another function
# that shares the name (_linear_nodes.linear was wrapped as F.linear, 0b922770; torch.cond's
# control flow as linalg.cond, jit.trace as trace).  A new op needs its line here
# (test_every_listed_op_found_is_wrapped)
_HOMES = {
    "pydevtensor": "addmm bmm dot matmul mm",
    "pydevtensor._C": ("acos addmm asin atan2 bmm cosh dot erfinv exp expm1 log log10 log1p log2 "
                       "matmul mm norm pow prod rsqrt sinh sum tan"),
    "pydevtensor._linalg_decomp": "eigh eigvalsh qr svd svdvals",
    "pydevtensor._linalg_exp": "matrix_exp",
    "pydevtensor._linalg_lstsq": "lstsq",
    "pydevtensor._linalg_more": "solve_triangular vecdot",
    "pydevtensor._linalg_names": "cholesky_inverse",
    "pydevtensor._linalg_solve": "cholesky cholesky_ex cholesky_solve inv inv_ex inverse solve",
    "pydevtensor._linalg_spectral": "cond matrix_rank",
    "pydevtensor._linalg_tensor": "householder_product",
    "pydevtensor._ops_aten_losses": ("binary_cross_entropy_with_logits cosine_embedding_loss "
                                     "ctc_loss hinge_embedding_loss kl_div margin_ranking_loss "
                                     "poisson_nll_loss triplet_margin_loss"),
    "pydevtensor._ops_cumulative": "cumprod",
    "pydevtensor._ops_distance": "cdist renorm",
    "pydevtensor._ops_index_more": "index_copy index_put",
    "pydevtensor._ops_linalg_small": "addbmm addmv addr chain_matmul cross linalg_cross",
    "pydevtensor._ops_matmul": "baddbmm mv",
    "pydevtensor._ops_nan": "logsumexp",
    "pydevtensor._ops_pointwise": "addcdiv addcmul",
    "pydevtensor._ops_products": "tensordot",
    "pydevtensor._ops_quantile": "nanquantile quantile",
    "pydevtensor._ops_real": "pinverse",
    "pydevtensor._ops_reduce": "norm",
    "pydevtensor._ops_scatter": "scatter_add",
    "pydevtensor._ops_shortcuts": "reciprocal",
    "pydevtensor._ops_small_names": "cosine_similarity",
    "pydevtensor._ops_sort": "cumsum",
    "pydevtensor._ops_stats": "log_softmax softmax",
    "pydevtensor._ops_strided": "trace",
    "pydevtensor.linalg": "norm",
    "pydevtensor.nn._functional_3d": ("adaptive_avg_pool3d adaptive_max_pool3d avg_pool3d conv3d "
                                      "conv_transpose3d max_pool3d"),
    "pydevtensor.nn._functional_activation": "softplus",
    "pydevtensor.nn._functional_activation_more": "prelu softmin",
    "pydevtensor.nn._functional_attention": "scaled_dot_product_attention",
    "pydevtensor.nn._functional_bilinear": "bilinear",
    "pydevtensor.nn._functional_conv": "conv1d conv2d",
    "pydevtensor.nn._functional_conv_transpose": "conv_transpose1d conv_transpose2d",
    "pydevtensor.nn._functional_cross_entropy": "cross_entropy nll_loss",
    "pydevtensor.nn._functional_ctc": "ctc_loss",
    "pydevtensor.nn._functional_grid_sample": "grid_sample",
    "pydevtensor.nn._functional_group_norm": "group_norm",
    "pydevtensor.nn._functional_losses": ("binary_cross_entropy binary_cross_entropy_with_logits "
                                          "kl_div"),
    "pydevtensor.nn._functional_losses_likelihood": "poisson_nll_loss",
    "pydevtensor.nn._functional_losses_margin": ("cosine_embedding_loss hinge_embedding_loss "
                                                 "margin_ranking_loss multi_margin_loss "
                                                 "multilabel_margin_loss soft_margin_loss "
                                                 "triplet_margin_loss"),
    "pydevtensor.nn._functional_norm": "cosine_similarity layer_norm normalize",
    "pydevtensor.nn._functional_norm_more": "local_response_norm",
    "pydevtensor.nn._functional_pad": "pad",
    "pydevtensor.nn._functional_pool_more": "max_unpool1d max_unpool2d max_unpool3d",
    "pydevtensor.nn.functional": ("huber_loss l1_loss linear log_softmax mse_loss smooth_l1_loss "
                                  "softmax"),
}
_OPS = frozenset(f"{module}.{name}" for module, names in _HOMES.items()
                 for name in names.split())


def _is_op(obj):
    """Whether a function found under an op's name is one of the ops of the lists."""
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}" in _OPS


def install(mods=None):
    """Replaces the listed ops (_HOMES's functions) by their wrappers in every loaded
    pydevtensor module (or in mods) that exports them under their name, in the classes
    that hold them as ``_fn``, and on Tensor (the methods).  Idempotent."""
    table = policy()
    done = {}  # id(original) -> wrapper: one wrapper per function object

    def wrapped(obj, kind):
        if getattr(obj, "_autocast", None):
            return obj
        w = done.get(id(obj))
        if w is None:
            w = done[id(obj)] = _WRAPPERS[kind](obj)
        return w

    if mods is None:
        mods = [m for n, m in list(sys.modules.items())
                if m is not None and (n == "pydevtensor" or n.startswith("pydevtensor."))
                and not n.startswith("pydevtensor.amp")]
    for mod in mods:
        d = vars(mod)
        for name, kind in table.items():
            obj = d.get(name)
            if obj is not None and callable(obj) and not isinstance(obj, type) and _is_op(obj):
                setattr(mod, name, wrapped(obj, kind))
        # list(): a copy made at once, as another thread may be running the module
        for cls in [v for v in list(d.values()) if isinstance(v, type)]:
            fn = cls.__dict__.get("_fn")
            if (isinstance(fn, staticmethod) and fn.__func__.__name__ in table
                    and _is_op(fn.__func__)):
                setattr(cls, "_fn", staticmethod(wrapped(fn.__func__,
                                                         table[fn.__func__.__name__])))
    for name, kind in tensor_methods().items():  # set on Tensor while autocast is on
        meth = getattr(_C.Tensor, name, None)
        if meth is not None and name not in S._methods:
            with S._lock:
                S._methods[name] = (meth, wrapped(meth, kind))
                if S._on:  # a module loaded while autocast is on: as _refresh sets them
                    setattr(_C.Tensor, name, S._methods[name][1])
