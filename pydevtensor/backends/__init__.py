"""pydevtensor.backends: switches for the libraries behind the devices, as ``torch.backends``.

``pydevtensor.backends.cuda.matmul.allow_tf32`` (default False, as in PyTorch) lets
float32 matrix products on CUDA use TF32 tensor cores.  ``backends.cudnn`` holds
PyTorch's cuDNN switches (pydevtensor uses no cuDNN: ``is_available()`` is False) and
``backends.mps.is_available()`` is False.
"""
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
