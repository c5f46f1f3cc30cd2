"""Public names of the matrix products, re-exported by pydevtensor/__init__.

``@`` (``Tensor.__matmul__``), ``matmul``, ``mm``, ``mv``, ``bmm``, ``addmm`` and ``dot`` follow
PyTorch's rules.  CPU tensors go through OpenBLAS, CUDA tensors through cuBLAS;
transposed views (``x.T @ y``) are read in place through the BLAS's transpose flag,
never copied.  Integer tensors use a plain loop (CPU) or kernel (CUDA); bool tensors
are refused, as in PyTorch.  ``a @= b`` raises: write ``a = a @ b``.

Importing this module also makes ``pydevtensor.backends`` (with
``backends.cuda.matmul.allow_tf32``) available.
"""
from . import _C, backends  # noqa: F401  (backends: pydevtensor.backends exists after import)

__all__ = ["matmul", "mm", "mv", "bmm", "addmm", "dot", "backends"]

matmul = _C.matmul
mm = _C.mm
bmm = _C.bmm
addmm = _C.addmm
dot = _C.dot


def mv(input, vec):
    """The product of a matrix and a vector: ``input @ vec`` with the shapes checked.

    Parameters
    ----------
    input : Tensor
        2-D, of shape (n, m) (also the method ``A.mv(x)``).
    vec : Tensor
        1-D, of size m, on input's device and of its dtype.

    Returns
    -------
    Tensor
        1-D, of size n.

    Raises
    ------
    RuntimeError
        When input is not 2-D, vec is not 1-D, or their sizes or devices differ.

    Examples
    --------
    >>> A = pydevtensor.arange(6.0).reshape(2, 3)
    >>> pydevtensor.mv(A, pydevtensor.tensor([1.0, 0.0, -1.0]))
    tensor([-2., -2.])
    """
    for name, t in (("input", input), ("vec", vec)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"mv(): {name} must be a Tensor, got {type(t).__name__}")
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"mv: expected a 2-d matrix and a 1-d vector, got shapes "
                           f"{tuple(input.shape)} and {tuple(vec.shape)} (on {input.device})")
    return _C.matmul(input, vec)


_C.Tensor.mv = mv
