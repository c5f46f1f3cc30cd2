"""linalg.tensorinv, linalg.tensorsolve and linalg.householder_product (also the
top-level ``orgqr``), with PyTorch's names, shapes and errors, composed of inv, solve,
matmul and reshapes (so they run, and record their gradients, on every device)."""
import math

from . import _C, _args
from ._out import _out_written


def _split_product(shape, k, requirement):
    """prod(shape[k:]), refused unless it equals prod(shape[:k]), as PyTorch's check."""
    left, right = math.prod(shape[:k]), math.prod(shape[k:])
    if left != right:
        raise RuntimeError(f"Expected self to satisfy the requirement {requirement}, but got "
                           f"{right} != {left} (self of shape {tuple(shape)})")
    return right


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A for tensordot with ``ind`` dimensions, as torch.linalg.tensorinv:
    ``tensordot(tensorinv(A, ind), A, ind)`` is the identity of A.shape[:ind]; A
    reshaped to a (prod(A.shape[:ind]), prod(A.shape[ind:])) matrix and inverted.

    Parameters
    ----------
    A : Tensor
        Floating point, with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
    ind : int, optional
        How many leading dimensions of A are the "rows" (default 2), > 0.
    out : Tensor, optional
        Receives the result.

    Returns
    -------
    Tensor
        Of shape ``A.shape[ind:] + A.shape[:ind]``.

    Raises
    ------
    RuntimeError
        When ind is not in [1, A.ndim] or the two products differ.
    pydevtensor.linalg.LinAlgError
        When the matrix is singular.

    Examples
    --------
    >>> A = pydevtensor.eye(6, dtype=pydevtensor.float64).reshape(6, 2, 3) * 2
    >>> Ainv = pydevtensor.linalg.tensorinv(A, ind=1)
    >>> Ainv.shape
    pydevtensor.Size([2, 3, 6])
    >>> float(pydevtensor.tensordot(Ainv, A, 1)[0, 0, 0, 0])
    1.0
    """
    from ._linalg_solve import inv
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"linalg.tensorinv(): A must be a Tensor, got {type(A).__name__}")
    if isinstance(ind, bool) or not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    if ind > len(shape):
        raise RuntimeError(f"linalg.tensorinv(): ind={ind} is more than the {len(shape)} "
                           f"dimensions of A (shape {shape}, on {A.device})")
    n = _split_product(shape, ind, "prod(self.shape[ind:]) == prod(self.shape[:ind])")
    result = inv(A.reshape(n, n)).reshape(shape[ind:] + shape[:ind])
    return result if out is None else _out_written(result, out, "linalg.tensorinv")


def tensorsolve(A, B, dims=None, *, out=None):
    """The X of ``tensordot(A, X, X.ndim) == B``, as torch.linalg.tensorsolve: A (with
    the dimensions ``dims`` moved to its end first) reshaped to a square matrix and
    solved against B flattened.

    Parameters
    ----------
    A : Tensor
        Floating point, with ``prod(A.shape[B.ndim:]) == prod(B.shape)``.
    B : Tensor
        A's dtype and device.
    dims : sequence of int, optional
        Dimensions of A moved to its end before solving (default none).
    out : Tensor, optional
        Receives the result.

    Returns
    -------
    Tensor
        X, of shape ``A.shape[B.ndim:]`` (after the move).

    Raises
    ------
    RuntimeError
        When the products differ, or A and B have different dtypes.
    pydevtensor.linalg.LinAlgError
        When the matrix is singular.

    Examples
    --------
    >>> A = pydevtensor.eye(6, dtype=pydevtensor.float64).reshape(2, 3, 6)
    >>> B = pydevtensor.arange(6, dtype=pydevtensor.float64).reshape(2, 3)
    >>> pydevtensor.linalg.tensorsolve(A, B)
    tensor([0., 1., 2., 3., 4., 5.], dtype=pydevtensor.float64)
    """
    from ._linalg_solve import solve
    for name, t in (("A", A), ("B", B)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"linalg.tensorsolve(): {name} must be a Tensor, got "
                            f"{type(t).__name__}")
    if dims is not None:
        dims = tuple(_args.sequence(dims, "linalg.tensorsolve", "dims", single=True))
        A = A.movedim(dims, tuple(range(A.ndim - len(dims), A.ndim)))
    shape = tuple(A.shape)
    result_shape = shape[B.ndim:]
    n, m = math.prod(result_shape), math.prod(tuple(B.shape))
    if n != m:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape["
                           f"other.ndim:]) == prod(self.shape[:other.ndim]), but got {n} != "
                           f"{m} (A of shape {shape}, B of shape {tuple(B.shape)})")
    result = solve(A.reshape(n, n), B.flatten()).reshape(result_shape)
    return result if out is None else _out_written(result, out, "linalg.tensorsolve")


def _householder_checks(A, tau, name):
    for what, t in (("input", A), ("tau", tau)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions (got shape "
                           f"{tuple(A.shape)})")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1] (got shape {tuple(A.shape)})")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{A.ndim}")
    if n < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1] (got {n} and {tau.shape[-1]})")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype} does not match input dtype "
                           f"{A.dtype}")
    if tau.device != A.device:
        raise _C.DeviceError(f"{name}: Expected tau and input to be on the same device, but "
                             f"found tau on {tau.device} and input on {A.device}")
    if not A.is_floating_point():
        raise NotImplementedError(f"{name}: expected a floating point input, got {A.dtype} "
                                  f"on {A.device}")


def householder_product(A, tau, *, out=None):
    """The first n columns of the product of the k Householder reflectors
    ``H_i = I - tau_i v_i v_i^T`` (i from 1 to k, in that order), as
    torch.linalg.householder_product (LAPACK's orgqr):
    v_i is column i of A below the diagonal with a 1 on it (zeros above), as
    linalg.qr's LAPACK form stores them; batched, differentiable.

    Parameters
    ----------
    A : Tensor
        (..., m, n), m >= n, floating point: the reflectors' vectors.
    tau : Tensor
        (..., k), k <= n, A's dtype and device: their scales.
    out : Tensor, optional
        Receives the result.

    Returns
    -------
    Tensor
        (..., m, n), column-major (strides ``(..., 1, m)``) as PyTorch's.

    Raises
    ------
    RuntimeError
        For A with fewer than 2 dims or m < n, k > n, tau's dims not A's batch dims,
        another dtype or device.
    NotImplementedError
        For an integer A.

    Examples
    --------
    >>> A = pydevtensor.tensor([[1., 2.], [3., 4.], [5., 6.]])
    >>> pydevtensor.linalg.householder_product(A, pydevtensor.tensor([0.5, 1.5]))
    tensor([[  0.5000,  23.2500],
            [ -1.5000,  69.2500],
            [ -2.5000, 107.2500]])
    """
    name = "linalg.householder_product"
    _householder_checks(A, tau, name)
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    eye = _C.eye(m, n, dtype=A.dtype, device=A.device)
    V = A.tril(-1) + eye  # the reflectors' vectors as columns (those past k unused)
    # Q^T, updated from the right, so that Q = Qt.mT is column-major (strides (..., 1, m))
    # as PyTorch's (LAPACK's) is, with no copy: Q^T (H_i ...)^T = (Q^T ...) H_i
    Qt = eye.mT.expand(tuple(A.shape[:-2]) + (n, m))
    if not k:  # no reflector: the identity's columns, in A's and tau's graph (zero
        # gradients), so that backward through it is no error, as with PyTorch's
        from ._ops_index import where
        Qt = where(_C.zeros((), dtype=_C.bool, device=A.device), A.mT, Qt)
        Qt = Qt + tau.sum(-1)[..., None, None]  # an exact 0: tau is empty
    for i in range(k - 1, -1, -1):  # H_i (H_i+1 ... H_k I), from the right
        v = V[..., :, i:i + 1]
        Qt = Qt - (Qt @ v) @ (tau[..., i:i + 1].unsqueeze(-1) * v.mT)
    Q = Qt.contiguous().mT
    return Q if out is None else _out_written(Q, out, name)


def orgqr(input, input2, *, out=None):
    """PyTorch's top-level ``orgqr``: ``linalg.householder_product(input, input2)``.

    Parameters
    ----------
    input : Tensor
        (..., m, n), m >= n: the reflectors' vectors.
    input2 : Tensor
        tau, (..., k), k <= n: their scales (PyTorch's keyword name).
    out : Tensor, optional
        Written with the result (as householder_product's out=) and returned.

    Returns
    -------
    Tensor
        (..., m, n).

    Raises
    ------
    RuntimeError
        For the shapes, dtypes and devices householder_product refuses.

    Examples
    --------
    >>> pydevtensor.orgqr(pydevtensor.zeros(3, 2), pydevtensor.zeros(2))
    tensor([[1., 0.],
            [0., 1.],
            [0., 0.]])
    """
    return householder_product(input, input2, out=out)


__all__ = ["householder_product", "tensorinv", "tensorsolve"]
