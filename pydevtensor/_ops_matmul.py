"""Public names of the matrix products, re-exported by pydevtensor/__init__.

``@`` (``Tensor.__matmul__``), ``matmul``, ``mm``, ``mv``, ``bmm``, ``addmm``, ``baddbmm`` and
``dot`` follow PyTorch's rules.  CPU tensors go through OpenBLAS, CUDA tensors through cuBLAS;
transposed views (``x.T @ y``) are read in place through the BLAS's transpose flag,
never copied.  Integer tensors use a plain loop (CPU) or kernel (CUDA); bool tensors
are refused, as in PyTorch.  ``a @= b`` raises: write ``a = a @ b``.

Importing this module also makes ``pydevtensor.backends`` (with
``backends.cuda.matmul.allow_tf32``) available.
"""
from . import _C, backends  # noqa: F401  (backends: pydevtensor.backends exists after import)
from ._out import takes_out
from .autograd.dispatch import recorded

__all__ = ["matmul", "mm", "mv", "bmm", "addmm", "baddbmm", "dot", "backends"]



def _with_out(name, f):
    # f (the C function) parses the operands, by PyTorch's names: matmul(input, other),
    # mm(input, mat2)
    op = takes_out(name)(f)
    op.__name__ = op.__qualname__ = name
    op.__module__ = "pydevtensor"
    return op


matmul = _with_out("matmul", _C.matmul)
mm = _with_out("mm", _C.mm)
bmm = _with_out("bmm", _C.bmm)
dot = _with_out("dot", _C.dot)
_SMALL_INTS = (_C.int8, _C.uint8, _C.int16)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    try:
        return _C.addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    except NotImplementedError:  # the GEMMs have no uint8, int8 or int16 (all else checked)
        if mat1.dtype not in _SMALL_INTS:
            raise
    # as mm's (Note [small integers] in pdt_dtype.h): in int32, whose wrapping sums keep
    # the low bits exact, then wrapped back
    wide = _C.addmm(input.to(_C.int32), mat1.to(_C.int32), mat2.to(_C.int32), beta=beta,
                    alpha=alpha)
    return wide.to(mat1.dtype)


addmm.__doc__ = _C.addmm.__doc__.replace(
    "one GEMM.\n", "one GEMM\n(uint8, int8 and int16 in int32, wrapped back, as mm's).\n", 1)
addmm.__module__ = "pydevtensor"
addmm = takes_out("addmm")(addmm)
_C.Tensor.addmm = addmm


@takes_out("mv")
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


def _number(value, name, floating):
    if not isinstance(value, (int, float)):
        raise TypeError(f"baddbmm(): {name} must be a number, got {type(value).__name__}")
    if isinstance(value, bool):  # PyTorch's True and False are 1 and 0 here
        return int(value)
    if not floating and isinstance(value, float):
        raise TypeError(f"baddbmm(): for integer tensors, beta and alpha must be integers, "
                        f"got {name}={value}")
    return value


@takes_out("baddbmm")
@recorded("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices, as
    ``torch.baddbmm``: batch1 (b, n, m), batch2 (b, m, p), input broadcastable to
    (b, n, p).

    It is addmm's computation per matrix of the batch: one batched GEMM (bmm, the
    transposed views read through the BLAS's flags), then input added with weight beta
    in one elementwise pass.  As in PyTorch, beta = 0 ignores input's values (NaN and
    inf included); its shape is still checked.

    Parameters
    ----------
    input : Tensor
        Broadcastable to (b, n, p), of the batches' dtype and device (also the method
        ``input.baddbmm(batch1, batch2)``).
    batch1, batch2 : Tensor
        3-D, (b, n, m) and (b, m, p), with the same b (no broadcasting, as bmm).
    beta, alpha : number, optional
        The weights (default 1); integers for integer tensors.

    Returns
    -------
    Tensor
        (b, n, p); gradients flow to all three tensors.

    Raises
    ------
    RuntimeError
        When the shapes do not fit, or the tensors differ in device or dtype.
    TypeError
        For a float beta or alpha with integer tensors.

    Examples
    --------
    >>> b1 = pydevtensor.ones(2, 1, 3)
    >>> b2 = pydevtensor.ones(2, 3, 2)
    >>> pydevtensor.baddbmm(pydevtensor.tensor([10.0, 20.0]), b1, b2, alpha=2)
    tensor([[[16., 26.]],
    <BLANKLINE>
            [[16., 26.]]])
    """
    for name, t in (("input", input), ("batch1", batch1), ("batch2", batch2)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"baddbmm(): {name} must be a Tensor, got {type(t).__name__}")
    floating = batch1.dtype.is_floating_point
    beta, alpha = _number(beta, "beta", floating), _number(alpha, "alpha", floating)
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError(f"baddbmm(): batch1 and batch2 must be 3-D tensors, got shapes "
                           f"{tuple(batch1.shape)} and {tuple(batch2.shape)} (on "
                           f"{batch1.device})")
    if input.device != batch1.device:
        raise _C.DeviceError(f"baddbmm(): Expected all tensors to be on the same device, but "
                             f"found at least two devices, {input.device} (input) and "
                             f"{batch1.device} (batch1)")
    if input.dtype != batch1.dtype:
        raise RuntimeError(f"baddbmm(): Input dtypes must be the same, got: input "
                           f"{input.dtype}, batch1: {batch1.dtype} (on {input.device})")
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    ok = input.ndim <= 3 and all(s in (1, want) for s, want in
                                 zip(reversed(tuple(input.shape)), reversed(shape)))
    product = _C.bmm(batch1, batch2)  # checks the batches' shapes, dtype and device
    if not ok:
        raise RuntimeError(f"baddbmm(): input of shape {tuple(input.shape)} cannot be "
                           f"broadcast to the product's shape {shape} (on {input.device})")
    if alpha != 1:
        product.mul_(alpha)
    if beta == 0:
        return product
    return _C.add(product, input, alpha=beta)


_C.Tensor.baddbmm = baddbmm
