"""torch.linalg's small names composed of other ops (so they run, and differentiate, on
every device): linalg.vander, linalg.diagonal, linalg.matmul, and torch.cholesky_inverse
(also a Tensor method)."""
from . import _C, _args
from ._args import flag
from ._linalg_solve import _raise_for, _square, _zero_diagonal_info, cholesky_solve
from ._ops_diag import diagonal as _diagonal
from ._ops_index import _tensor_arg
from ._ops_matmul import matmul  # noqa: F401  (linalg.matmul: torch's alias of matmul)
from ._out import takes_out


def vander(x, N=None):
    """The Vandermonde matrix of x with increasing powers, as torch.linalg.vander
    (``x[..., i] ** j`` at ``[..., i, j]``; torch.vander's default is decreasing).

    Parameters
    ----------
    x : Tensor
        (..., n).
    N : int, optional
        The number of columns, at least 2 (default n).

    Returns
    -------
    Tensor
        (..., n, N), x's dtype.

    Raises
    ------
    RuntimeError
        When x is 0-d or N is below 2.
    NotImplementedError
        For a bool x, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.linalg.vander(pydevtensor.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    _tensor_arg(x, "linalg.vander", "x")
    if x.ndim == 0:
        raise RuntimeError(f"linalg.vander: x must have at least 1 dimension, got a 0-d "
                           f"tensor (on {x.device})")
    if x.dtype == _C.bool:
        raise NotImplementedError(f"linalg.vander supports floating point, complex, and "
                                  f"integer tensors, but got {x.dtype} (x of shape "
                                  f"{tuple(x.shape)}, on {x.device})")
    N = x.shape[-1] if N is None else _args.integer(N, "linalg.vander", "N")
    if N <= 1:
        raise RuntimeError(f"linalg.vander: N must be greater than 1, got {N} (x of shape "
                           f"{tuple(x.shape)}, on {x.device})")
    from ._ops_join import cat
    col = x.unsqueeze(-1)
    return cat([_C.ones_like(col), col.expand(*x.shape, N - 1)], -1).cumprod(-1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix of A (a view), as torch.linalg.diagonal: diagonal
    with the last two dims by default.

    Parameters
    ----------
    A : Tensor
        At least 2-D.
    offset : int, optional
        Above (> 0) or below (< 0) the main diagonal.
    dim1, dim2 : int, optional
        The matrix dims (default the last two).

    Returns
    -------
    Tensor
        A's other dims then the diagonal.

    Examples
    --------
    >>> pydevtensor.linalg.diagonal(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    tensor([1., 4.])
    """
    return _diagonal(A, offset, dim1, dim2)


@takes_out("cholesky_inverse", castable=True)
def cholesky_inverse(L, upper=False):
    """The inverse of ``A = L L^T`` (``U^T U`` with upper=True) from its Cholesky
    factor, as torch.cholesky_inverse (also ``L.cholesky_inverse()``): cholesky_solve
    of the identity, so it differentiates.

    Parameters
    ----------
    L : Tensor
        (..., n, n), lower triangular (upper with upper=True), float32 or float64.
    upper : bool, optional
        L is upper triangular.

    Returns
    -------
    Tensor
        (..., n, n).  Only L's lower (upper) triangle is read, so L's gradient is lower
        (upper) triangular, deliberately (PyTorch's has entries in the other triangle).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When L has a zero on its diagonal.
    RuntimeError
        When L is not a stack of square matrices.

    Examples
    --------
    >>> pydevtensor.cholesky_inverse(pydevtensor.tensor([[2., 0.], [1., 3.]]))
    tensor([[ 0.2778, -0.0556],
            [-0.0556,  0.1111]])
    """
    _square("cholesky_inverse", L)
    upper = flag(upper, "cholesky_inverse", "upper")
    n = L.shape[-1]
    # PyTorch's potri refuses a zero on the diagonal (cholesky_solve does not)
    _raise_for("cholesky_inverse", _zero_diagonal_info(L), L, lambda v: (
        f"The diagonal element {v} is zero, the inversion could not be completed because "
        "the input matrix is singular"))
    eye = _C.eye(n, dtype=L.dtype, device=L.device).expand(*L.shape)
    return cholesky_solve(eye, L, upper)


_C.Tensor.cholesky_inverse = cholesky_inverse


def _cholesky_solve(self, input2, upper=False):
    """The solution X of ``A X = self`` given A's Cholesky factor input2, as PyTorch's
    ``Tensor.cholesky_solve``: :func:`pydevtensor.cholesky_solve` with self as B.

    Parameters
    ----------
    input2 : Tensor
        (..., n, n), A's lower triangular factor (upper with upper=True).
    upper : bool, optional
        input2 is upper triangular.

    Returns
    -------
    Tensor
        (..., n, k).

    Examples
    --------
    >>> L = pydevtensor.tensor([[2., 0.], [1., 2.]])
    >>> pydevtensor.tensor([[8.], [9.]]).cholesky_solve(L)
    tensor([[1.3750],
            [1.2500]])
    """
    return cholesky_solve(self, input2, upper)


_C.Tensor.cholesky_solve = _cholesky_solve
