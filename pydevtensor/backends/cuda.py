"""pydevtensor.backends.cuda: cuBLAS switches, as ``torch.backends.cuda``.

``matmul.allow_tf32`` (default False, as in PyTorch since 1.12): when True, float32
matrix products on CUDA may use TF32 tensor cores (cuBLAS's
``CUBLAS_TF32_TENSOR_OP_MATH``), several times faster on Ampere and later GPUs, with
inputs rounded to 10 mantissa bits (a relative error of about 1e-3 instead of
1e-6).  float64 products and the CPU are never affected.  The switch is process-wide
and takes effect at the next product.
"""
from .. import _C

__all__ = ["matmul", "is_built"]


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

    def __repr__(self):
        return f"<pydevtensor.backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _CublasSettings()


def is_built():
    """True when pydevtensor was compiled with its CUDA backend."""
    return _C._cuda_status()[0]
