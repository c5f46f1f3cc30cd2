"""torch.svd_lowrank and torch.pca_lowrank: the randomized SVD of Halko, Martinsson and
Tropp (2009; their algorithms 4.4 and 5.1), as torch/_lowrank.py computes it, composed of
randn, matmul, linalg.qr and linalg.svd (so it runs, and differentiates, on every device).
"""
import builtins
import numbers

from . import _C
from ._linalg_decomp import qr as _qr
from ._linalg_decomp import svd as _svd
from ._ops_index import _tensor_arg

__all__ = ["svd_lowrank", "pca_lowrank"]


def _matrix(A, op):
    A = _tensor_arg(A, op, "A")
    if A.ndim < 2:
        raise ValueError(f"{op}(): A must have at least 2 dimensions (*, m, n), got a "
                         f"{A.ndim}-d tensor of shape {tuple(A.shape)}")
    if not A.is_floating_point():
        raise _C.DTypeError(f"{op}(): expected a floating-point A, got {A.dtype} "
                            "(convert it with .to(dtype) first)")
    return A


def _count(value, name, op, most=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{op}(): {name} must be an int, got {type(value).__name__}")
    if value < 0 or (most is not None and value > most):
        if name == "q":  # PyTorch's words (pca_lowrank's)
            raise ValueError(f"q(={value}) must be non-negative integer and not greater than "
                             f"min(m, n)={most}" if most is not None else
                             f"{op}(): q(={value}) must be a non-negative integer")
        raise ValueError(f"niter(={value}) must be non-negative integer")
    return builtins.int(value)


def _basis(A, q, niter, M):
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M (Halko et
    al.'s algorithm 4.4), from one Gaussian (n, q) draw of the global generator."""
    R = _C.randn(A.shape[-1], q, dtype=A.dtype, device=A.device)

    def times(X):  # (A - M) @ X, never forming A - M
        return A @ X if M is None else A @ X - M @ X

    def times_h(X):
        return A.mH @ X if M is None else A.mH @ X - M.mH @ X

    Q = _qr(times(R)).Q
    for _ in range(niter):
        Q = _qr(times_h(Q)).Q
        Q = _qr(times(Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mH
        M = None if M is None else M.mH
    Q = _basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = _svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """A randomized truncated SVD, as torch.svd_lowrank: ``A - M ~ U diag(S) V^H`` with q
    singular triplets, from a Gaussian sketch ``(A - M) R`` (R of shape (n, q), drawn from
    the global generator: seed it for repeatable results) refined by niter subspace
    iterations (Halko et al. 2009, algorithms 4.4 and 5.1).

    Parameters
    ----------
    A : Tensor
        Of shape ``(*, m, n)``, floating point.
    q : int, optional
        The number of singular triplets, a slight overestimate of A's rank (default 6;
        None means 6). Results have ``min(q, m, n)`` columns.
    niter : int, optional
        The number of subspace iterations, >= 0 (default 2; None means 2).
    M : Tensor, optional
        A's mean, broadcast to A's shape: the SVD is of ``A - M``, never formed.

    Returns
    -------
    tuple of Tensor
        (U, S, V): U ``(*, m, k)``, S ``(*, k)`` descending, V ``(*, n, k)``, with
        k = min(q, m, n); note V, not V^H (a plain tuple, as torch's).

    Raises
    ------
    TypeError
        When A or M is not a Tensor, or q or niter is not an int.
    ValueError
        For A of fewer than 2 dims, a negative q or niter, or an M that does not
        broadcast to A's shape.
    DTypeError
        For an A that is not floating point, or an M of another dtype.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> A = pydevtensor.randn(8, 2, dtype=pydevtensor.float64) @ pydevtensor.randn(
    ...     2, 6, dtype=pydevtensor.float64)
    >>> U, S, V = pydevtensor.svd_lowrank(A, q=3)
    >>> U.shape, S.shape, V.shape
    (pydevtensor.Size([8, 3]), pydevtensor.Size([3]), pydevtensor.Size([6, 3]))
    >>> bool(pydevtensor.allclose(U @ pydevtensor.diag(S) @ V.mT, A))
    True
    """
    op = "svd_lowrank"
    A = _matrix(A, op)
    q = _count(6 if q is None else q, "q", op)
    niter = _count(2 if niter is None else niter, "niter", op)
    if M is not None:
        M = _tensor_arg(M, op, "M")
        if M.dtype != A.dtype:
            raise _C.DTypeError(f"{op}(): M must have A's dtype {A.dtype}, got {M.dtype}")
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """A randomized PCA, as torch.pca_lowrank: svd_lowrank of A with its column means
    subtracted (``center=True``) or of A itself. V's columns are the principal
    directions, ``S ** 2 / (m - 1)`` the variances along them, and ``A @ V[:, :k]``
    projects the data onto the first k.

    Parameters
    ----------
    A : Tensor
        Of shape ``(*, m, n)``: m samples of n features, floating point.
    q : int, optional
        The number of components, 0 to min(m, n) (default min(6, m, n)).
    center : bool, optional
        Subtract the mean over the samples first (default True).
    niter : int, optional
        The number of subspace iterations, >= 0 (default 2).

    Returns
    -------
    tuple of Tensor
        (U, S, V): U ``(*, m, q)``, S ``(*, q)`` descending, V ``(*, n, q)``.

    Raises
    ------
    TypeError
        When A is not a Tensor, or q or niter is not an int.
    ValueError
        For A of fewer than 2 dims, q outside [0, min(m, n)] or a negative niter
        (PyTorch's messages).
    DTypeError
        For an A that is not floating point.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> X = pydevtensor.randn(50, 1, dtype=pydevtensor.float64) * pydevtensor.tensor(
    ...     [[3.0, 4.0, 0.0]], dtype=pydevtensor.float64) + 7.0
    >>> U, S, V = pydevtensor.pca_lowrank(X, q=2)
    >>> V[:, 0].abs()
    tensor([0.6000, 0.8000, 0.0000], dtype=pydevtensor.float64)
    >>> bool(S[1] < 1e-8)
    True
    """
    op = "pca_lowrank"
    A = _matrix(A, op)
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else _count(q, "q", op, min(m, n))
    niter = _count(niter, "niter", op)
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return _svd_lowrank(A, q, niter, None)
