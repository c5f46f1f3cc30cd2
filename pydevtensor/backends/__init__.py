"""pydevtensor.backends: switches for the libraries behind the devices, as ``torch.backends``.

``pydevtensor.backends.cuda.matmul.allow_tf32`` (default False, as in PyTorch) lets
float32 matrix products on CUDA use TF32 tensor cores.
"""
from . import cuda

__all__ = ["cuda"]
