"""Small linear algebra with PyTorch's names: addmv, addr, addbmm (and their ``_``
forms), matrix_power, cross, chain_matmul, and for pydevtensor.linalg
matrix_power, cross and multi_dot.  Composed of matmul, bmm, outer and elementwise
ops (GEMM through the backend's BLAS), so they run on every device and record their
gradients.
"""
import builtins

from . import _C, _args
from ._numpy_names import native_names
from ._ops_index import _dim, _int_arg, _tensor_arg, where
from ._ops_matmul import addmm, baddbmm
from .autograd.dispatch import _wants_grad
from ._ops_scatter import _in_place, _same_device, in_place_method
from ._out import takes_out


def _number(op, name, v):
    """v, a bool as its int (PyTorch's True and False are 1 and 0 here)."""
    if not isinstance(v, (builtins.int, builtins.float)):
        raise TypeError(f"{op}(): {name} must be a number, got {type(v).__name__}")
    return builtins.int(v) if isinstance(v, builtins.bool) else v


def _combine(op, input, product, beta, alpha):
    """``beta * input + alpha * product``, input broadcast to product's shape; with
    beta == 0 input is not read (NaN in it does not propagate), as PyTorch's."""
    logical = product.dtype == input.dtype == _C.bool
    for name, v in (("beta", beta), ("alpha", alpha)):
        if op == "addr" and isinstance(v, builtins.bool) and not logical:
            raise _C.DTypeError(f"addr(): Boolean {name} only supported for Boolean results, "
                                f"got {product.dtype} (on {product.device})")
    beta, alpha = _number(op, "beta", beta), _number(op, "alpha", alpha)
    _same_device(op, input, product)
    if not product.is_floating_point() and not (
            isinstance(beta, builtins.int) and isinstance(alpha, builtins.int)):
        # as addmm: an integer product stays integer (PyTorch: "For integral input
        # tensors, argument beta must not be a floating point number")
        raise _C.DTypeError(f"{op}: for {product.dtype.name} tensors, beta and alpha must be "
                            f"integers, got {beta} and {alpha} (on {product.device})")
    shape = tuple(product.shape)
    ishape = tuple(input.shape)
    if len(ishape) > len(shape) or any(a not in (1, b) for a, b in zip(ishape[::-1],
                                                                       shape[::-1])):
        raise RuntimeError(f"{op}(): input {ishape} does not broadcast to the product's shape "
                           f"{shape} (on {product.device})")
    if logical:  # PyTorch's bool result: (beta and input) or (alpha and product)
        out = product if alpha else _C.zeros_like(product)
        return out | input if beta else out.clone()
    out = product if alpha == 1 else product * alpha
    if beta == 0:
        if _wants_grad((input,), {}):
            # input's gradient is zeros, as PyTorch's, and its values still unread
            return where(_C.ones((), dtype=_C.bool, device=out.device), out, input)
        return out.clone() if alpha == 1 else out
    return out + (input if beta == 1 else input * beta)


def _ndim(op, name, t, n):
    _tensor_arg(t, op, name)
    if t.ndim != n:
        raise RuntimeError(f"{op}(): {name} must be {n}-d, got shape {tuple(t.shape)} (on "
                           f"{t.device})")


@takes_out("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``.

    Parameters
    ----------
    input : Tensor
        Broadcasts to (n,) (also the method ``x.addmv(mat, vec)``).
    mat : Tensor
        (n, m).
    vec : Tensor
        (m,).
    beta, alpha : number, optional
        The factors (default 1); beta = 0 ignores input, NaN included.

    Returns
    -------
    Tensor
        (n,).

    Raises
    ------
    RuntimeError
        When the shapes do not fit.

    Examples
    --------
    >>> pydevtensor.addmv(pydevtensor.ones(2), pydevtensor.eye(2), pydevtensor.tensor([2., 3.]),
    ...                   alpha=2)
    tensor([5., 7.])
    """
    _tensor_arg(input, "addmv")
    _ndim("addmv", "mat", mat, 2)
    _ndim("addmv", "vec", vec, 1)
    return _combine("addmv", input, mat.mv(vec), beta, alpha)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """addmv in place.

    Parameters
    ----------
    input : Tensor
        (n,), the tensor to change (also the method ``x.addmv_(mat, vec)``).
    mat, vec, beta, alpha
        As addmv.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> x = pydevtensor.zeros(2)
    >>> pydevtensor.addmv_(x, pydevtensor.eye(2), pydevtensor.tensor([1., 2.]))
    tensor([1., 2.])
    """
    return _in_place(addmv, input, mat, vec, beta=beta, alpha=alpha)


@takes_out("addr", castable=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Parameters
    ----------
    input : Tensor
        Broadcasts to (n, m) (also the method ``x.addr(vec1, vec2)``).
    vec1 : Tensor
        (n,).
    vec2 : Tensor
        (m,).
    beta, alpha : number, optional
        The factors (default 1); beta = 0 ignores input.

    Returns
    -------
    Tensor
        (n, m).

    Examples
    --------
    >>> pydevtensor.addr(pydevtensor.zeros(2, 2), pydevtensor.tensor([1., 2.]),
    ...                  pydevtensor.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    from ._ops_einsum import outer
    _tensor_arg(input, "addr")
    _ndim("addr", "vec1", vec1, 1)
    _ndim("addr", "vec2", vec2, 1)
    return _combine("addr", input, outer(vec1, vec2), beta, alpha)


@takes_out("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

    Parameters
    ----------
    input : Tensor
        Broadcasts to (n, p) (also the method ``x.addbmm(batch1, batch2)``).
    batch1 : Tensor
        (b, n, m).
    batch2 : Tensor
        (b, m, p).
    beta, alpha : number, optional
        The factors (default 1); beta = 0 ignores input.

    Returns
    -------
    Tensor
        (n, p).

    Examples
    --------
    >>> pydevtensor.addbmm(pydevtensor.zeros(2, 2), pydevtensor.ones(3, 2, 1),
    ...                    pydevtensor.ones(3, 1, 2))
    tensor([[3., 3.],
            [3., 3.]])
    """
    _tensor_arg(input, "addbmm")
    _ndim("addbmm", "batch1", batch1, 3)
    _ndim("addbmm", "batch2", batch2, 3)
    b, n, m = batch1.shape
    if batch2.shape[0] != b or batch2.shape[1] != m:
        raise RuntimeError(f"addbmm(): batch1 {tuple(batch1.shape)} and batch2 "
                           f"{tuple(batch2.shape)} cannot be multiplied (on {batch1.device})")
    # one GEMM: (n, b*m) @ (b*m, p)
    left = batch1.permute(1, 0, 2).reshape(n, b * m)
    right = batch2.reshape(b * m, batch2.shape[2])
    return _combine("addbmm", input, left.matmul(right), beta, alpha)


@takes_out("linalg.matrix_power")
@native_names(input="A")
def matrix_power(A, n):
    """A (a square matrix, or a batch of them) to the integer power n, by repeated
    squaring (n = 0 gives the identity; n < 0 the power -n of A's inverse,
    linalg.inv).

    Parameters
    ----------
    A : Tensor
        (..., m, m) (also the method ``A.matrix_power(n)``; also
        ``pydevtensor.linalg.matrix_power``; also by PyTorch's keyword ``input=``).
    n : int
        The power.

    Returns
    -------
    Tensor
        A's shape.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When n < 0 and a matrix is singular.

    Examples
    --------
    >>> pydevtensor.matrix_power(pydevtensor.tensor([[1., 1.], [0., 1.]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    >>> pydevtensor.matrix_power(pydevtensor.tensor([[2., 0.], [0., 4.]]), -1)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    _tensor_arg(A, "matrix_power", "A")
    n = _int_arg(n, "matrix_power", "n")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"matrix_power(): A must be batches of square matrices, but they "
                           f"are {tuple(A.shape)} (on {A.device})")
    if n == 0:
        eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(*A.shape)
        # A's clone overwritten, as PyTorch's: in the graph, A gets zeros (CopyBackwards)
        return A.clone().copy_(eye) if A.requires_grad else eye.clone()
    result, base = None, A
    if n < 0:
        from ._linalg_solve import inv  # late: it imports this module's neighbours
        base, n = inv(A), -n
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result if result is not A else A.clone()


def _cross(op, input, other, d):
    from ._ops_join import cat
    _tensor_arg(input, op)
    _tensor_arg(other, op, "other")
    _same_device(op, input, other)
    if input.ndim != other.ndim:
        raise RuntimeError(f"{op}(): inputs must have the same number of dimensions, got "
                           f"{tuple(input.shape)} and {tuple(other.shape)} (on {input.device})")
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"{op}(): inputs dimension {d} must have length 3, got "
                           f"{tuple(input.shape)} and {tuple(other.shape)} (on {input.device})")
    lead = (slice(None),) * d

    def c(t, k):
        return t[lead + (slice(k, k + 1),)]

    a0, a1, a2 = c(input, 0), c(input, 1), c(input, 2)
    b0, b1, b2 = c(other, 0), c(other, 1), c(other, 2)
    return cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


@takes_out("cross")
def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (input and other broadcast).  With
    no dim, the first dim of size 3 (PyTorch's older default).

    Parameters
    ----------
    input : Tensor
        (also the method ``x.cross(other)``).
    other : Tensor
        Same number of dims as input.
    dim : int, optional
        The dimension of size 3.

    Returns
    -------
    Tensor
        The broadcast shape.

    Raises
    ------
    RuntimeError
        When dim does not have length 3 in both.

    Examples
    --------
    >>> pydevtensor.cross(pydevtensor.tensor([1., 0., 0.]), pydevtensor.tensor([0., 1., 0.]))
    tensor([0., 0., 1.])
    """
    _tensor_arg(input, "cross")
    if dim is None:
        sizes = [k for k, s in enumerate(input.shape) if s == 3]
        if not sizes:
            raise RuntimeError(f"cross(): no dimension of size 3 in input {tuple(input.shape)} "
                               f"(on {input.device})")
        d = sizes[0]
    else:
        d = _dim(_int_arg(dim, "cross", "dim"), input.ndim, "cross", input)
    return _cross("cross", input, other, d)


@takes_out("linalg.cross")
def linalg_cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim (default -1), input and other
    broadcast: ``torch.linalg.cross``.

    Parameters
    ----------
    input, other : Tensor
        Length 3 along dim.
    dim : int, optional
        The dimension (default -1).

    Returns
    -------
    Tensor
        The broadcast shape.

    Examples
    --------
    >>> pydevtensor.linalg.cross(pydevtensor.tensor([[0., 1., 0.]]), pydevtensor.tensor([[0., 0., 1.]]))
    tensor([[1., 0., 0.]])
    """
    _tensor_arg(input, "linalg.cross")
    d = _dim(_int_arg(dim, "linalg.cross", "dim"), input.ndim, "linalg.cross", input)
    return _cross("linalg.cross", input, other, d)


def _chain(op, matrices):
    if len(matrices) == 0:
        raise RuntimeError(f"{op}(): expected one or more tensors")
    for k, m in enumerate(matrices):
        _tensor_arg(m, op, f"tensors[{k}]")
    if len(matrices) == 1:
        return matrices[0].clone()  # a new tensor, as PyTorch's
    out = matrices[0]
    for m in matrices[1:]:
        _same_device(op, out, m)
        out = out.matmul(m)
    return out


@takes_out("chain_matmul")
def chain_matmul(*matrices):
    """The product of the 2-d matrices, left to right.

    Parameters
    ----------
    *matrices : Tensor
        2-d, each one's columns the next one's rows.

    Returns
    -------
    Tensor
        (rows of the first, columns of the last).

    Examples
    --------
    >>> pydevtensor.chain_matmul(pydevtensor.ones(2, 3), pydevtensor.ones(3, 4), pydevtensor.ones(4, 1))
    tensor([[12.],
            [12.]])
    """
    for k, m in enumerate(matrices):
        _ndim("chain_matmul", f"matrices[{k}]", m, 2)
    return _chain("chain_matmul", matrices)


@takes_out("linalg.multi_dot")
def multi_dot(tensors):
    """The product of the matrices in tensors, left to right; the first may be 1-d
    (a row) and the last 1-d (a column): ``torch.linalg.multi_dot``.

    Parameters
    ----------
    tensors : sequence of Tensor
        2-d, but the first and last may be 1-d.

    Returns
    -------
    Tensor
        The product.

    Examples
    --------
    >>> pydevtensor.linalg.multi_dot([pydevtensor.ones(3), pydevtensor.ones(3, 2), pydevtensor.ones(2)])
    tensor(6.)
    """
    tensors = list(_args.sequence(tensors, "linalg.multi_dot", "tensors", "Tensors"))
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for k, t in enumerate(tensors):
        _tensor_arg(t, "multi_dot", f"tensors[{k}]")
        allowed = (1, 2) if k in (0, len(tensors) - 1) else (2,)
        if t.ndim not in allowed:
            raise RuntimeError(f"multi_dot(): tensor {k} must be "
                               f"{' or '.join(f'{a}-d' for a in allowed)}, got shape "
                               f"{tuple(t.shape)} (on {t.device})")
    return _chain("multi_dot", tensors)


__all__ = ["addbmm", "addmv", "addmv_", "addr", "chain_matmul", "cross", "matrix_power"]

for _n in ("addbmm", "addmv", "addmv_", "addr", "cross", "matrix_power"):
    setattr(_C.Tensor, _n, globals()[_n])
_C.Tensor.addr_ = in_place_method("addr_", addr, """\
    >>> x = pydevtensor.zeros(2, 2)
    >>> x.addr_(pydevtensor.ones(2), pydevtensor.tensor([1., 2.]))
    tensor([[1., 2.],
            [1., 2.]])""")
_C.Tensor.addbmm_ = in_place_method("addbmm_", addbmm, """\
    >>> x = pydevtensor.zeros(2, 2)
    >>> x.addbmm_(pydevtensor.ones(3, 2, 1), pydevtensor.ones(3, 1, 2), beta=0)
    tensor([[3., 3.],
            [3., 3.]])""")
_C.Tensor.addmm_ = in_place_method("addmm_", addmm, """\
    >>> x = pydevtensor.ones(2, 2)
    >>> x.addmm_(pydevtensor.eye(2), pydevtensor.tensor([[1., 2.], [3., 4.]]), beta=2)
    tensor([[3., 4.],
            [5., 6.]])""")
_C.Tensor.baddbmm_ = in_place_method("baddbmm_", baddbmm, """\
    >>> x = pydevtensor.zeros(2, 1, 2)
    >>> x.baddbmm_(pydevtensor.ones(2, 1, 3), pydevtensor.ones(2, 3, 2), alpha=2)
    tensor([[[6., 6.]],
    <BLANKLINE>
            [[6., 6.]]])""")
