"""linalg.matrix_sqrth and linalg.polar (new in PyTorch 2.15), composed of eigh and svd
with their own derivatives (Note [matrix root derivatives] in
autograd/derivatives_linalg_decomp.py), so they run on every device."""
import collections

from ._linalg_decomp import _check_matrix, eigh, svd
from ._linalg_solve import _square
from ._ops_reduce import return_types
from ._out import takes_out
from .autograd.dispatch import recorded

return_types.linalg_polar = collections.namedtuple("linalg_polar", ["U", "H"])
return_types.linalg_polar.__module__ = "pydevtensor.return_types"


@recorded("linalg_matrix_sqrth")
def matrix_sqrth(A):
    """The principal square root of a symmetric positive-definite matrix, as
    torch.linalg.matrix_sqrth: the symmetric positive-definite X with ``X @ X = A``.

    Only A's lower triangle is read (as linalg.eigh's); an eigenvalue below 0 (A not
    positive semi-definite) is taken as 0, as PyTorch's.

    Parameters
    ----------
    A : Tensor
        ``(..., n, n)``, float32 or float64, symmetric positive-definite.

    Returns
    -------
    Tensor
        X, of A's shape.

    Raises
    ------
    RuntimeError
        When A is not a batch of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.matrix_sqrth(pydevtensor.tensor([[2., 0.], [0., 9.]]))
    tensor([[1.4142, 0.0000],
            [0.0000, 3.0000]])
    >>> A = pydevtensor.tensor([[5., 4.], [4., 5.]])
    >>> X = pydevtensor.linalg.matrix_sqrth(A)
    >>> X.round(decimals=4)
    tensor([[2., 1.],
            [1., 2.]])
    >>> (X @ X).allclose(A)
    True
    """
    _square("linalg.matrix_sqrth", A)
    w, V = eigh(A)
    return (V * w.clamp(min=0).sqrt().unsqueeze(-2)) @ V.mT


@takes_out("linalg.polar", tuple_of="U, H")
def polar(A):
    """The polar decomposition ``A = U @ H`` of a matrix with at least as many rows as
    columns, as torch.linalg.polar: U with orthonormal columns (the nearest such matrix
    to A), H symmetric positive semi-definite.

    Computed from A's singular value decomposition ``W diag(S) Vh``: ``U = W Vh`` and
    ``H = Vh^T diag(S) Vh``.

    Parameters
    ----------
    A : Tensor
        ``(..., m, n)`` with m >= n, float32 or float64.
    out : tuple of two Tensors, optional
        Receive U and H.

    Returns
    -------
    (U, H) : named tuple of Tensor
        U ``(..., m, n)``, H ``(..., n, n)``.  Differentiable where A has full column
        rank (the gradient is NaN or infinite at a rank-deficient A, as PyTorch's).

    Raises
    ------
    RuntimeError
        When A has fewer than 2 dimensions or fewer rows than columns.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> U, H = pydevtensor.linalg.polar(pydevtensor.tensor([[0., 2.], [3., 0.]]))
    >>> U
    tensor([[0., 1.],
            [1., 0.]])
    >>> H
    tensor([[3., 0.],
            [0., 2.]])
    """
    op = "linalg.polar"
    _check_matrix(op, A)
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input must have at least as many rows as columns, but got "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices (shape "
                           f"{tuple(A.shape)}, on {A.device})")
    return return_types.linalg_polar(*_polar(A))


@recorded("linalg_polar")
def _polar(A):
    W, S, Vh = svd(A, full_matrices=False)
    return W @ Vh, (Vh.mT * S.unsqueeze(-2)) @ Vh
