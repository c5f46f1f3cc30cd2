"""Public names of the matrix products, re-exported by pydevtensor/__init__.

``@`` (``Tensor.__matmul__``), ``matmul``, ``mm``, ``bmm``, ``addmm`` and ``dot`` follow
PyTorch's rules.  CPU tensors go through OpenBLAS, CUDA tensors through cuBLAS;
transposed views (``x.T @ y``) are read in place through the BLAS's transpose flag,
never copied.  Integer tensors use a plain loop (CPU) or kernel (CUDA); bool tensors
are refused, as in PyTorch.  ``a @= b`` raises: write ``a = a @ b``.

Importing this module also makes ``pydevtensor.backends`` (with
``backends.cuda.matmul.allow_tf32``) available.
"""
from . import _C, backends  # noqa: F401  (backends: pydevtensor.backends exists after import)

__all__ = ["matmul", "mm", "bmm", "addmm", "dot", "backends"]

matmul = _C.matmul
mm = _C.mm
bmm = _C.bmm
addmm = _C.addmm
dot = _C.dot
