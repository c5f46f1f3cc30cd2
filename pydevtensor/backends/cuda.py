"""pydevtensor.backends.cuda: cuBLAS switches, as ``torch.backends.cuda``.

``matmul.allow_tf32`` (default False, as in PyTorch since 1.12): when True, float32
matrix products on CUDA may use TF32 tensor cores (cuBLAS's
``CUBLAS_TF32_TENSOR_OP_MATH``), several times faster on Ampere and later GPUs, with
inputs rounded to 10 mantissa bits (a relative error of about 1e-3 instead of
1e-6).  float64 products and the CPU are never affected.  The switch is process-wide
and takes effect at the next product.

``matmul.allow_fp16_reduced_precision_reduction`` and
``matmul.allow_bf16_reduced_precision_reduction`` (default True, as in PyTorch):
float16 and bfloat16 products on CUDA always multiply on tensor cores and accumulate
in float32 (``cublasGemmEx`` with ``CUBLAS_COMPUTE_32F``); when these are True, cuBLAS
may still reduce partial sums (split-K) in the half type.  False sets
``CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION``.  The CPU always accumulates in
float32.
"""
from .. import _C

__all__ = ["matmul", "is_built", "enable_math_sdp", "math_sdp_enabled", "enable_flash_sdp",
           "flash_sdp_enabled", "enable_mem_efficient_sdp", "mem_efficient_sdp_enabled",
           "enable_cudnn_sdp", "cudnn_sdp_enabled", "sdp_kernel"]


def _reduced_switch(dtype_name):
    """The property for one half type's reduced-precision reduction switch."""
    def get(self):
        return _C._get_allow_reduced_reduction(dtype_name)

    def set(self, value):
        _C._set_allow_reduced_reduction(dtype_name, bool(value))
    return property(get, set, doc=f"Whether {dtype_name} GEMMs on CUDA may reduce partial "
                                  f"sums in {dtype_name} (default True, as in PyTorch).")


class _CublasSettings:
    """The settable ``matmul`` namespace; unknown attributes are refused."""

    __slots__ = ()

    @property
    def allow_tf32(self):
        """Whether float32 GEMMs on CUDA may use TF32 tensor cores (default False)."""
        return _C._get_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _C._set_allow_tf32(bool(value))

    allow_fp16_reduced_precision_reduction = _reduced_switch("float16")
    allow_bf16_reduced_precision_reduction = _reduced_switch("bfloat16")

    def __repr__(self):
        return (f"<pydevtensor.backends.cuda.matmul allow_tf32={self.allow_tf32} "
                f"allow_fp16_reduced_precision_reduction="
                f"{self.allow_fp16_reduced_precision_reduction} "
                f"allow_bf16_reduced_precision_reduction="
                f"{self.allow_bf16_reduced_precision_reduction}>")


matmul = _CublasSettings()


def is_built():
    """True when pydevtensor was compiled with its CUDA backend."""
    return _C._cuda_built()


# scaled_dot_product_attention's kernels (Note [one attention kernel]): PyTorch's switches
from .._sdp_backends import (cudnn_sdp_enabled, enable_cudnn_sdp,  # noqa: E402
                                enable_flash_sdp, enable_math_sdp, enable_mem_efficient_sdp,
                                flash_sdp_enabled, math_sdp_enabled, mem_efficient_sdp_enabled)


def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """PyTorch's older context manager (deprecated there for
    ``torch.nn.attention.sdpa_kernel``): the kernels allowed inside the block.

    Parameters
    ----------
    enable_flash, enable_math, enable_mem_efficient, enable_cudnn : bool, optional
        Which kernels scaled_dot_product_attention may use (default all).

    Returns
    -------
    context manager

    Examples
    --------
    >>> with pydevtensor.backends.cuda.sdp_kernel(enable_flash=False):
    ...     pass
    """
    from .._sdp_backends import SDPBackend, sdpa_kernel
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                              (SDPBackend.MATH, enable_math),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    return sdpa_kernel(chosen)
