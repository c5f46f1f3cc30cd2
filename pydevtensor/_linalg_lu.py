"""torch.linalg's LU factorization with partial pivoting, exposed: lu_factor,
lu_factor_ex, lu, lu_solve and torch.lu_unpack, on the core's LU (_linalg_solve._lu:
OpenBLAS's getrf on the CPU, cuSOLVER's on CUDA devices), batched.

The core factors square matrices; a rectangular one (m, n) is factored padded to a
square with zero columns (tall) or zero rows (wide): elimination on the first
min(m, n) columns neither reads the zeros nor moves a zero row above a real one
(a pivot search takes the first of equal magnitudes), so the factor's leading part
is the rectangular matrix's, as LAPACK's getrf on it.  The permutation P is read
from the pivots by the core's LU solve against the identity with a unit LU (exact:
it only swaps rows), on the tensors' device.  lu_solve uses the core's solve where
nothing is differentiated, and triangular solves (recorded) otherwise.  The
derivatives of lu and lu_factor are in autograd/derivatives_linalg.py.
"""
import collections

from . import _C
from ._args import flag
from ._linalg_solve import _broadcast_batch, _by_columns, _float_dtype, _raise_for
from ._ops_index import _tensor_arg
from ._ops_reduce import return_types
from ._out import takes_out
from .autograd.dispatch import recorded

for _name, _fields in (("linalg_lu_factor", ["LU", "pivots"]),
                       ("linalg_lu_factor_ex", ["LU", "pivots", "info"]),
                       ("linalg_lu", ["P", "L", "U"]),
                       ("lu_unpack", ["P", "L", "U"])):
    setattr(return_types, _name, collections.namedtuple(_name, _fields))
    getattr(return_types, _name).__module__ = "pydevtensor.return_types"


def _matrices(op, A, name="A"):
    _tensor_arg(A, op, name)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead (on {A.device})")
    _float_dtype(op, A)


def _factor(op, A, pivot):
    """(LU (..., m, n), pivots int32 (..., k), info int32 (...)), k = min(m, n)."""
    _matrices(op, A)
    if not flag(pivot, op, "pivot"):
        where = "on the CPU" if A.device.type == "cpu" else f"in pydevtensor (on {A.device})"
        raise RuntimeError(f"{op}: LU without pivoting is not implemented {where}")
    m, n = A.shape[-2], A.shape[-1]
    k, s = min(m, n), max(m, n)
    batch = tuple(A.shape[:-2])
    if m != n:  # the zero padding of the module's docstring
        sq = _C.zeros(batch + (s, s), dtype=A.dtype, device=A.device)
        sq[..., :m, :n] = A
        A = sq
    lu = _by_columns(A)
    piv = _C.zeros(batch + (s,), dtype=_C.int32, device=A.device)
    info = _C.zeros(batch, dtype=_C.int32, device=A.device)
    if s:
        _C._lu_factor(lu, piv, info)
    LU = lu.mT
    if m != n:
        LU, piv = LU[..., :m, :n].contiguous(), piv[..., :k].contiguous()
        info = info * (info <= k).to(_C.int32)  # a zero pivot of the padding is none
    return LU, piv, info


def _zero_pivot(v):
    return (f"U[{v - 1},{v - 1}] is zero and using it on lu_solve would result in a division "
            "by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@takes_out("linalg.lu_factor_ex", tuple_of="LU, pivots, info")
@recorded("linalg_lu_factor_ex")
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """The compact LU factorization with partial pivoting of each matrix and getrf's
    info, without raising for a singular matrix (unless check_errors), as
    torch.linalg.lu_factor_ex.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    pivot : bool, optional
        Only True: LU without pivoting is not implemented (PyTorch has it on CUDA
        only).
    check_errors : bool, optional
        Raise LinAlgError where U has a zero on its diagonal (reads info back: a
        counted copy on a GPU).

    Returns
    -------
    (LU, pivots, info) : named tuple of Tensor
        LU (..., m, n) holds L below its diagonal (L's unit diagonal not stored) and U
        on and above it; pivots int32 (..., min(m, n)), 1-based as LAPACK's: row i was
        swapped with row ``pivots[i] - 1``; info int32 (...): 0, or i > 0 when
        ``U[i-1, i-1]`` is exactly zero.

    Raises
    ------
    RuntimeError
        When A has fewer than 2 dimensions, or pivot is False.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> LU, pivots, info = pydevtensor.linalg.lu_factor_ex(pydevtensor.zeros(2, 2))
    >>> pivots, info
    (tensor([1, 2], dtype=pydevtensor.int32), tensor(1, dtype=pydevtensor.int32))
    """
    op = "linalg.lu_factor_ex"
    check_errors = flag(check_errors, op, "check_errors")
    LU, piv, info = _factor(op, A, pivot)
    if check_errors:
        _raise_for(op, info, A, _zero_pivot)
    return return_types.linalg_lu_factor_ex(LU, piv, info)


@takes_out("linalg.lu_factor", tuple_of="LU, pivots")
@recorded("linalg_lu_factor")
def lu_factor(A, *, pivot=True):
    """The compact LU factorization with partial pivoting of each matrix, as
    torch.linalg.lu_factor (``A = P L U``; see lu_unpack and lu_solve).

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    pivot : bool, optional
        Only True: LU without pivoting is not implemented (PyTorch has it on CUDA
        only).

    Returns
    -------
    (LU, pivots) : named tuple of Tensor
        LU (..., m, n): L below the diagonal (its unit diagonal not stored), U on and
        above it; pivots int32 (..., min(m, n)), 1-based as LAPACK's.  The gradient
        flows through LU (square A; rectangular A: see linalg.lu).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When U has a zero on its diagonal (reads getrf's info back: a counted copy on a
        GPU), as PyTorch's; lu_factor_ex returns info instead.
    RuntimeError
        When A has fewer than 2 dimensions, or pivot is False.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> LU, pivots = pydevtensor.linalg.lu_factor(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    >>> pivots
    tensor([2, 2], dtype=pydevtensor.int32)
    """
    op = "linalg.lu_factor"
    LU, piv, info = _factor(op, A, pivot)
    _raise_for(op, info, A, _zero_pivot)
    return return_types.linalg_lu_factor(LU, piv)


def _permutation(piv, m, dtype):
    """P (..., m, m) of the 1-based row swaps piv (..., k): ``P^T`` applies them.  The
    core's LU solve of the identity with a unit LU and these pivots is ``P^T``; its
    buffer, by columns, is P."""
    batch, k = tuple(piv.shape[:-1]), piv.shape[-1]
    if k < m:  # the rows after k stay where they are
        rest = _C.arange(k + 1, m + 1, dtype=_C.int32, device=piv.device)
        from ._ops_join import cat
        piv = cat([piv, rest.expand(batch + (m - k,))], -1)
    eye = _C.eye(m, dtype=dtype, device=piv.device).expand(batch + (m, m))
    P = eye.clone()  # clones: the core overwrites P and reads the unit LU
    if m:
        _C._lu_solve(eye.clone(), piv.contiguous(), P)
    return P


def _unpack(LU, piv, unpack_data, unpack_pivots):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    empty = _C.empty((0,), dtype=LU.dtype, device=LU.device)
    P = _permutation(piv, m, LU.dtype) if unpack_pivots else empty
    if not unpack_data:
        return P, empty, empty
    eye = _C.eye(m, k, dtype=LU.dtype, device=LU.device)
    return P, LU[..., :, :k].tril(-1) + eye, LU[..., :k, :].triu()


@takes_out("linalg.lu", tuple_of="P, L, U")
@recorded("linalg_lu")
def lu(A, *, pivot=True):
    """The LU factorization with partial pivoting ``A = P L U`` of each matrix, as
    torch.linalg.lu.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    pivot : bool, optional
        Only True: LU without pivoting is not implemented (PyTorch has it on CUDA
        only).

    Returns
    -------
    (P, L, U) : named tuple of Tensor
        P (..., m, m) a permutation matrix, L (..., m, k) unit lower triangular, U
        (..., k, n) upper triangular, k = min(m, n).  A singular matrix raises
        nothing (U has a zero on its diagonal).  The gradient flows through L and U
        (PyTorch's formulas; U must have no zero on its diagonal).

    Raises
    ------
    RuntimeError
        When A has fewer than 2 dimensions, or pivot is False.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> P, L, U = pydevtensor.linalg.lu(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    >>> L
    tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]])
    >>> U
    tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]])
    """
    LU, piv, _ = _factor("linalg.lu", A, pivot)
    return return_types.linalg_lu(*_unpack(LU, piv, True, True))


def _check_pivots(op, LU, piv):
    _tensor_arg(piv, op, "pivots")
    if piv.dtype != _C.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type "
                           f"pydevtensor.int32, got {piv.dtype} (on {piv.device})")
    k = min(LU.shape[-2], LU.shape[-1])
    if tuple(piv.shape) != tuple(LU.shape[:-2]) + (k,):
        raise RuntimeError(f"{op}: pivots of shape {tuple(piv.shape)} do not fit LU of shape "
                           f"{tuple(LU.shape)}: expected {tuple(LU.shape[:-2]) + (k,)} (on "
                           f"{LU.device})")
    if piv.device != LU.device:
        raise _C.DeviceError(f"{op}: Expected all tensors to be on the same device, but found "
                             f"LU on {LU.device} and pivots on {piv.device}")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """P, L and U (``A = P L U``) from a compact LU factorization (linalg.lu_factor's
    LU and pivots), as torch.lu_unpack.

    Parameters
    ----------
    LU_data : Tensor
        (..., m, n), float32 or float64.
    LU_pivots : Tensor
        int32 (..., min(m, n)), 1-based.
    unpack_data : bool, optional
        Return L and U (empty tensors when False).
    unpack_pivots : bool, optional
        Return P (an empty tensor when False).

    Returns
    -------
    (P, L, U) : named tuple of Tensor
        P (..., m, m), L (..., m, k), U (..., k, n), k = min(m, n).  The gradient
        flows from L and U to LU_data (its lower and upper parts).

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit, or a pivot is outside the
        matrix.

    Examples
    --------
    >>> LU, piv = pydevtensor.linalg.lu_factor(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    >>> pydevtensor.lu_unpack(LU, piv).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    op = "lu_unpack"
    _matrices(op, LU_data, "LU_data")
    _check_pivots(op, LU_data, LU_pivots)
    unpack_data = flag(unpack_data, op, "unpack_data")
    unpack_pivots = flag(unpack_pivots, op, "unpack_pivots")
    return return_types.lu_unpack(*_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots))


@takes_out("linalg.lu_solve")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution X of ``A X = B`` given A's LU factorization (linalg.lu_factor), as
    torch.linalg.lu_solve: ``X A = B`` with left=False, A^T in place of A with
    adjoint=True (the conjugate transpose: the transpose of a real matrix).

    Parameters
    ----------
    LU : Tensor
        (..., n, n), float32 or float64.
    pivots : Tensor
        int32 (..., n), 1-based, as linalg.lu_factor returns them.
    B : Tensor
        (..., n, k) (``(..., k, n)`` with left=False): always matrices; the batch dims
        broadcast against LU's.
    left : bool, optional
        Solve ``A X = B`` (default) or ``X A = B``.
    adjoint : bool, optional
        Solve with A's (conjugate) transpose.

    Returns
    -------
    Tensor
        X, of B's shape with the batch dims broadcast.  Differentiable in LU and B.

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit.

    Examples
    --------
    >>> LU, piv = pydevtensor.linalg.lu_factor(pydevtensor.tensor([[3., 1.], [1., 2.]]))
    >>> pydevtensor.linalg.lu_solve(LU, piv, pydevtensor.tensor([[9.], [8.]]))
    tensor([[2.],
            [3.]])
    """
    op = "linalg.lu_solve"
    _matrices(op, LU, "LU")
    _tensor_arg(B, op, "B")
    left, adjoint = flag(left, op, "left"), flag(adjoint, op, "adjoint")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"{op}: LU must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices (shape "
                           f"{tuple(LU.shape)}, on {LU.device})")
    _check_pivots(op, LU, pivots)
    if B.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions (got "
                           f"shape {tuple(B.shape)}, on {B.device})")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq}: LU "
                           f"{tuple(LU.shape)}, B {tuple(B.shape)} (on {LU.device})")
    if LU.device != B.device or LU.dtype != B.dtype:
        err = _C.DeviceError if LU.device != B.device else RuntimeError
        raise err(f"{op}: Expected LU and B to have the same dtype and device, but "
                  f"found LU {LU.dtype} on {LU.device} and B {B.dtype} on {B.device}")
    C = B if left else B.mT  # X A^T = B is A X^T = B^T; X A = B is A^T X^T = B^T
    transposed = adjoint == left
    LUb, C = _broadcast_batch(op, LU, C)
    piv = pivots.expand(tuple(LUb.shape[:-2]) + (n,))
    if not transposed and not (_C.is_grad_enabled() and (LU.requires_grad or B.requires_grad)):
        x = _by_columns(C)  # the core's solve, overwriting C's copy by columns
        _C._lu_solve(_by_columns(LUb), piv.contiguous(), x)
        X = x.mT
    else:  # A = P L U: triangular solves, recorded
        from ._linalg_more import solve_triangular
        P, L, U = _unpack(LUb, piv, True, True)
        if transposed:  # A^T X = C: X = P L^-T U^-T C
            Y = solve_triangular(U.mT, C, upper=False)
            X = P @ solve_triangular(L.mT, Y, upper=True, unitriangular=True)
        else:  # X = U^-1 L^-1 P^T C
            Y = solve_triangular(L, P.mT @ C, upper=False, unitriangular=True)
            X = solve_triangular(U, Y, upper=True)
    return X if left else X.mT
