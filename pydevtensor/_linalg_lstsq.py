"""torch.linalg.lstsq, composed from the decompositions (_linalg_decomp.py) so that it
runs on every device and differentiates through their gradients.

PyTorch's drivers and what each returns are kept: 'gels' (QR, A of full rank; the
only one on CUDA, for m >= n, as in PyTorch) returns no rank or singular values;
'gelsy' (the CPU default), 'gelsd' and 'gelss' return the numerical rank (singular
values above ``rcond`` times the largest), and 'gelsd'/'gelss' the singular values.
Here the three rank-revealing drivers all compute the minimum-norm solution from the
SVD (LAPACK's gelsy uses a pivoted QR instead: the same solution wherever the rank
decision agrees)."""
import collections

from . import _C, _args
from ._linalg_decomp import _check_matrix, qr, svd
from ._linalg_solve import (_broadcast_batch, _float_dtype, _is_vector, _raise_for,
                            _zero_diagonal_info)
from ._linalg_spectral import _EPS, _inverse_kept, pinv
from ._ops_index import _tensor_arg, where
from ._ops_reduce import return_types
from ._out import takes_out

return_types.linalg_lstsq = collections.namedtuple(
    "linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
return_types.linalg_lstsq.__module__ = "pydevtensor.return_types"

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _tri_solve(R, B, upper, A):
    """R^-1 B for QR's triangular R (upper) or R^T: a zero on its diagonal (A not of full
    rank) raises PyTorch's LinAlgError, with LAPACK's trtrs code; else a triangular
    solve (recorded when grad is on; Note [triangular solves])."""
    from ._linalg_more import solve_triangular
    _raise_for("linalg.lstsq", _zero_diagonal_info(R), A, lambda v: (
        "The least squares solution could not be computed because the input matrix does "
        f"not have full rank (error code: {v})"))
    return solve_triangular(R, B, upper=upper)


def _check(op, A, B, driver):
    _check_matrix(op, A)
    _tensor_arg(B, op, "B")
    if A.device != B.device:
        raise _C.DeviceError(f"{op}: Expected all tensors to be on the same device, but found "
                             f"A on {A.device} and B on {B.device}")
    _float_dtype(op, B)
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of "
                           f"type {A.dtype} and B of type {B.dtype} instead (A "
                           f"{tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")
    cuda = A.device.type == "cuda"
    if driver is None:
        driver = "gels" if cuda else "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss), got {driver!r} (on {A.device})")
    if cuda and driver != "gels":
        raise RuntimeError(f"{op}: `driver` other than `gels` is not supported on CUDA (got "
                           f"{driver!r}, on {A.device})")
    if cuda and A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: only overdetermined systems (input.size(-2) >= "
                           f"input.size(-1)) are allowed on CUDA (A {tuple(A.shape)}, on "
                           f"{A.device})")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(f"{op}: input.dim() must be greater or equal to other.dim() and "
                           f"(input.dim() - other.dim()) <= 1 (A {tuple(A.shape)}, B "
                           f"{tuple(B.shape)}, on {A.device})")
    # PyTorch's vector rule (as solve's): B 1-d, or A's shape without its last dim; a
    # B of one dim fewer that is not (A (3, 3, 2), B (3, 1)) is a matrix, broadcast
    vector = _is_vector(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.ndim < 2 or Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2) (A "
                           f"{tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")
    return driver, vector, Bm


@takes_out("linalg.lstsq", castable=True,
           tuple_of="solution, residuals, rank, singular_values")
def lstsq(A, B, rcond=None, *, driver=None):
    """A least-squares solution X of ``A X = B`` (the minimum-norm one when A is
    rank-deficient or wide), as torch.linalg.lstsq.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    B : Tensor
        (..., m, k), or (..., m) (a batch of vectors) when it has one dimension fewer
        than A; the batch dims broadcast with A's.
    rcond : float, optional
        Singular values at or below ``rcond`` times the largest count as zero (drivers
        gelsy, gelsd, gelss); default ``eps * max(m, n)`` of the dtype.
    driver : {'gels', 'gelsy', 'gelsd', 'gelss'}, optional
        PyTorch's driver names, choosing what is returned: default 'gelsy' on the CPU,
        'gels' (the only one, for m >= n) on CUDA.  'gels' assumes A of full rank.

    Returns
    -------
    (solution, residuals, rank, singular_values) : named tuple of Tensor
        solution (..., n, k) (or (..., n)); residuals: the squared residual norms
        ``sum((A X - B)**2)`` of each column (..., k; k = 1 for vectors), when m > n and (gelsd, gelss)
        every matrix is of full rank, never for gelsy (as PyTorch), else empty; rank int64 (...) except for 'gels' (empty);
        singular_values (..., min(m, n)) for 'gelsd' and 'gelss', else empty.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        With driver='gels', for a matrix not of full rank (an all-zero one gives X = 0,
        as LAPACK's gels and PyTorch's).
    RuntimeError
        When the shapes, dtypes, devices or driver do not fit.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> A = pydevtensor.tensor([[1., 0.], [0., 1.], [1., 1.]])
    >>> B = pydevtensor.tensor([[1.], [2.], [4.]])
    >>> pydevtensor.linalg.lstsq(A, B).solution
    tensor([[1.3333],
            [2.3333]])
    """
    op = "linalg.lstsq"
    if rcond is not None and not isinstance(rcond, float):
        rcond = _args.real(rcond, op, "rcond")
    driver, vector, Bm = _check(op, A, B, driver)
    A, Bm = _broadcast_batch(op, A, Bm)
    m, n = A.shape[-2], A.shape[-1]
    empty = _C.empty(0, dtype=A.dtype, device=A.device)
    rank = _C.empty(0, dtype=_C.int64, device=A.device)
    sv = empty
    if driver == "gels":
        X = _gels(A, Bm)
        with_residuals = m > n
    else:
        U, S, Vh = svd(A, full_matrices=False)
        tol = (rcond if rcond is not None and rcond >= 0 else _EPS[A.dtype] * max(m, n))
        keep = S > tol * S.detach().amax(-1, keepdim=True) if S.shape[-1] else S > 0
        if _C.is_grad_enabled() and A.requires_grad and min(m, n):
            # pinv(A) @ B, PyTorch's lstsq backward: the pseudo-inverse's own gradient
            # (Note [pinv derivative]) is finite where svd's is not (repeated singular
            # values: the identity gave NaN)
            X = pinv(A, rtol=tol) @ Bm
        else:
            X = Vh.mT @ (_inverse_kept(S, keep).unsqueeze(-1) * (U.mT @ Bm))
        rank = keep.sum(-1)
        with_residuals = False
        if driver in ("gelsd", "gelss"):
            sv = S
            with_residuals = m > n and bool((rank == n).all().item())
    residuals = empty
    if with_residuals:
        residuals = ((A @ X - Bm) ** 2).sum(-2)  # (..., k): k = 1 for vectors, as PyTorch
    if vector:
        X = X.squeeze(-1)
    return return_types.linalg_lstsq(X, residuals, rank, sv)


def _gels(A, Bm):
    """The solution for A of full rank, by QR: R^-1 Q^T B (m >= n), or the minimum-norm
    Q R^-T B from A^T = Q R (m < n)."""
    m, n = A.shape[-2], A.shape[-1]
    if min(m, n) == 0:
        return _C.zeros(tuple(A.shape[:-2]) + (n, Bm.shape[-1]), dtype=A.dtype,
                        device=A.device)
    # LAPACK's gels returns X = 0 for an all-zero A (its scaling step), as PyTorch's
    zero = (A == 0).all(-1).all(-1)[..., None, None]
    zero_any = bool(zero.any())
    A0 = A
    if zero_any:
        A = where(zero, _C.eye(m, n, dtype=A.dtype, device=A.device), A)
    if m >= n:
        Q, R = qr(A)
        X = _tri_solve(R, Q.mT @ Bm, True, A0)
    else:
        Q, R = qr(A.mT)
        X = Q @ _tri_solve(R.mT, Bm, False, A0)
    return X.masked_fill(zero, 0) if zero_any else X


__all__ = ["lstsq"]
