"""torch.linalg's core solvers: solve, inv, det, slogdet, cholesky (and the ``_ex``
forms that return ``info`` instead of raising), torch.inverse, det, logdet, slogdet
and cholesky_solve, on every device that factors matrices (the CPU: OpenBLAS's
LAPACK; CUDA: cuSOLVER).

Each op copies its matrices once, stored by columns, into a fresh tensor that the
core factors in place (Note [column-major factorizations] in csrc/core/pdt_linalg.h)
and reads the results back through ``.mT`` views.  Batch dimensions broadcast as in
PyTorch.  A singular (or, for cholesky, not positive-definite) matrix raises
LinAlgError naming the op, the batch element and the pivot; finding it reads the
factorization's ``info`` back to the host: one counted copy on a GPU
(``pydevtensor.transfer_stats()``), which the ``_ex`` forms skip unless
``check_errors=True``.  The derivatives are in autograd/derivatives_linalg.py.
"""
import collections
import math

from . import _C
from ._args import flag
from ._numpy_names import native_names
from ._ops_index import _broadcast_pair, _tensor_arg, where
from ._ops_reduce import return_types
from ._out import takes_out
from .autograd.dispatch import recorded

for _name, _fields in (("linalg_solve_ex", ["result", "info"]),
                       ("linalg_inv_ex", ["inverse", "info"]),
                       ("linalg_cholesky_ex", ["L", "info"]),
                       ("linalg_slogdet", ["sign", "logabsdet"]),
                       ("slogdet", ["sign", "logabsdet"])):
    setattr(return_types, _name, collections.namedtuple(_name, _fields))
    getattr(return_types, _name).__module__ = "pydevtensor.return_types"


class LinAlgError(RuntimeError):
    """A matrix the op cannot factor: singular for solve and inv, not positive-definite
    for cholesky (torch.linalg.LinAlgError, a RuntimeError).

    Examples
    --------
    >>> try:
    ...     pydevtensor.linalg.inv(pydevtensor.zeros(2, 2))
    ... except pydevtensor.linalg.LinAlgError as e:
    ...     print("singular")
    singular
    """


LinAlgError.__module__ = "pydevtensor.linalg"

_TORCH_DTYPE_NAMES = {_C.int32: "Int", _C.int64: "Long", _C.bool: "Bool", _C.uint8: "Byte",
                      _C.int8: "Char", _C.int16: "Short",
                      _C.float16: "Half", _C.bfloat16: "BFloat16"}


def _square(op, A, name="A"):
    """Checks that A is a float32/float64 stack of square matrices, as PyTorch does
    (integer and low precision dtypes are NotImplementedError there, a RuntimeError)."""
    _tensor_arg(A, op, name)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions "
                           f"(got shape {tuple(A.shape)}, on {A.device})")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices (shape {tuple(A.shape)}, "
                           f"on {A.device})")
    _float_dtype(op, A)


def _float_dtype(op, A):
    """A is float32 or float64 (integer and low precision dtypes are
    NotImplementedError in PyTorch, a RuntimeError)."""
    if A.dtype not in (_C.float32, _C.float64):
        kind = _TORCH_DTYPE_NAMES.get(A.dtype, str(A.dtype))
        if A.dtype in (_C.float16, _C.bfloat16):
            raise NotImplementedError(f"{op}: Low precision dtypes not supported. Got {kind} "
                                      f"(shape {tuple(A.shape)}, on {A.device})")
        raise NotImplementedError(f"{op}: Expected a floating point tensor as input. Got "
                                  f"{kind} (shape {tuple(A.shape)}, on {A.device})")


def _by_columns(A):
    """A fresh contiguous tensor whose last two dims hold each matrix of A by columns
    (A's transpose, row-major): the core overwrites it."""
    t = A.mT
    return t.clone() if t.is_contiguous() else t.contiguous()


def _lu(A):
    """(lu, pivots, info) of each matrix of A (..., n, n): lu by columns (read it as
    ``lu.mT``), pivots int32 (..., n) 1-based, info int32 (...)."""
    lu = _by_columns(A)
    batch = tuple(A.shape[:-2])
    piv = _C.zeros(batch + (A.shape[-1],), dtype=_C.int32, device=A.device)
    info = _C.zeros(batch, dtype=_C.int32, device=A.device)
    _C._lu_factor(lu, piv, info)
    return lu, piv, info


def _first_failure(info, op):
    """(batch index as a tuple, info value) of the first non-zero info, or None; reads
    info back to the host (one counted copy on a GPU, an implicit transfer by op)."""
    flat = _C._implicit_cpu(info.reshape(-1), f"{op}'s check of info").tolist()
    for k, v in enumerate(flat):
        if v != 0:
            idx, rest = [], k
            for s in reversed(tuple(info.shape)):
                idx.append(rest % s)
                rest //= s
            return tuple(reversed(idx)), v
    return None


def _raise_for(op, info, A, what):
    """LinAlgError when an info is non-zero; what(v) says what info v means."""
    bad = _first_failure(info, op)
    if bad is None:
        return
    idx, v = bad
    where = f"(Batch element {idx[0] if len(idx) == 1 else idx}): " if info.ndim else ""
    raise LinAlgError(f"{op}: {where}{what(v)} (A of shape {tuple(A.shape)}, {A.dtype}, on "
                      f"{A.device})")


def _zero_diagonal_info(T):
    """info for a triangular factor T (..., n, n): int32 (...), the 1-based position of
    the first zero on each diagonal, 0 where there is none (as LAPACK's trtrs/potri
    report it)."""
    zero = T.diagonal(dim1=-2, dim2=-1) == 0
    if not T.shape[-1]:
        return _C.zeros(tuple(T.shape[:-2]), dtype=_C.int32, device=T.device)
    return ((zero.to(_C.int32).argmax(-1) + 1) * zero.any(-1)).to(_C.int32)


def _singular(v):
    return (f"The diagonal element {v} is zero: U[{v - 1}, {v - 1}] of the LU factorization "
            "(with partial pivoting) is exactly 0, so the input matrix is singular and the "
            "solver could not complete")


def _not_positive_definite(v):
    return ("The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {v} is not positive-definite)")


def _is_vector(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_shapes(A, B, op="linalg.solve"):
    """(B as matrices, vector_case) with PyTorch's rule: B is a batch of vectors when it
    is 1-d, or when its shape is A's without the last dim."""
    vector = _is_vector(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.ndim < 2 or Bm.shape[-2] != A.shape[-1]:
        shape = "x".join(str(s) for s in Bm.shape[-2:]) if Bm.ndim >= 2 else "a number"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"AX = B ({A.shape[-2]}x{A.shape[-1]} and {shape}; A "
                           f"{tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")
    return Bm, vector


def _broadcast_batch(op, A, Bm):
    batch = _broadcast_pair(tuple(A.shape[:-2]), tuple(Bm.shape[:-2]), lambda a, b: RuntimeError(
        f"{op}: the batch dimensions of A {tuple(A.shape)} and B {tuple(Bm.shape)} do not "
        f"broadcast (on {A.device})"))
    return (A.expand(*batch, *A.shape[-2:]), Bm.expand(*batch, *Bm.shape[-2:]))


def _check_pair(op, A, B):
    _square(op, A)
    _tensor_arg(B, op, "B")
    if A.device != B.device:
        raise _C.DeviceError(f"{op}: Expected all tensors to be on the same device, but found "
                             f"A on {A.device} and B on {B.device}")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of "
                           f"type {A.dtype} and B of type {B.dtype} instead (A "
                           f"{tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")


def _solve(A, B, op, check):
    """(X, info) for A X = B, left=True."""
    Bm, vector = _solve_shapes(A, B, op)
    X, info = _solve_matrices(A, Bm, op, check)
    return (X.squeeze(-1) if vector else X), info


def _nan_pivot_before(lu, info):
    """Note [NaN in a solve]: which failed factorizations met a NaN pivot at or before
    their zero one (...).  OpenBLAS's getrf takes a NaN pivot as too small to divide by,
    so the rows below keep their values and a later pivot can come out exactly 0: an
    accident of the NaN, not a singularity to report (torch's LAPACK divides by it, and
    NaN runs through the rest).  Such a matrix's X is NaN, as PyTorch's.  A zero pivot
    before any NaN one (a zero column) is singular, as in PyTorch.  Read only where a
    failure is read back anyway: the _ex forms without check_errors report the LU's
    info as it is."""
    n = lu.shape[-1]
    diag = lu.diagonal(dim1=-2, dim2=-1)
    upto = _C.arange(n, device=lu.device) < info.unsqueeze(-1)
    return (diag.isnan() & upto).any(-1)


def _solve_matrices(A, Bm, op, check):
    """(X, info) for A X = Bm, Bm (..., n, k) (no vector rule), the batch dims
    broadcast."""
    A, Bm = _broadcast_batch(op, A, Bm)
    lu, piv, info = _lu(A)
    nan = None
    if check and _first_failure(info, op) is not None:
        nan = _nan_pivot_before(lu, info)
        info = where(nan, 0, info)
        _raise_for(op, info, A, _singular)
    x = _by_columns(Bm)  # (..., k, n): the right-hand sides by columns
    _C._lu_solve(lu, piv, x)
    # Note [NaN in a solve]: a matrix holding a NaN solves to NaN, as PyTorch's (its
    # LAPACK divides by a NaN pivot, and NaN runs through all of X; the getrf here skips
    # such a pivot and leaves rows of X finite).  A mask and a fill, nothing read back.
    has_nan = A.isnan().any((-2, -1))
    nan = has_nan if nan is None else nan.logical_or(has_nan)
    return x.mT.masked_fill(nan[..., None, None], math.nan), info


@takes_out("linalg.solve_ex", tuple_of="result, info")
@recorded("linalg_solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False):
    """The solution X of ``A X = B`` (``X A = B`` with left=False) and the LU
    factorization's info, without raising for a singular A (unless check_errors).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64.
    B : Tensor
        (..., n, k), or a batch of vectors (..., n) when B is 1-d or has A's shape
        without its last dim (PyTorch's rule); the batch dims broadcast with A's.
    left : bool, optional
        Solve ``A X = B`` (default) or ``X A = B``.
    check_errors : bool, optional
        Raise LinAlgError for a singular matrix (reads info back: a counted copy on a
        GPU).

    Returns
    -------
    (result, info) : named tuple of Tensor
        X, as B broadcast; info int32 of A's batch shape (as PyTorch's): 0, or i > 0
        when the i-th diagonal element of U (1-based) is exactly zero, where X holds
        infinities or NaN.

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> A = pydevtensor.tensor([[3., 1.], [1., 2.]])
    >>> pydevtensor.linalg.solve_ex(A, pydevtensor.tensor([9., 8.]))
    linalg_solve_ex(result=tensor([2., 3.]), info=tensor(0, dtype=pydevtensor.int32))
    """
    X, info = _solve_either(A, B, left, "linalg.solve_ex", check_errors)
    return return_types.linalg_solve_ex(X, _own_batch(info, tuple(A.shape[:-2])))


def _own_batch(info, batch):
    """info of the broadcast batch cut to A's own batch shape, as PyTorch's solve_ex gives
    it (A's factorization's info: its values repeat along the dims A was broadcast
    over, so one slice of each is all of them)."""
    lead = info.ndim - len(batch)
    if lead == 0 and tuple(info.shape) == batch:
        return info
    if info.numel() == 0:  # B's batch was empty: no factorization failed
        return _C.zeros(batch, dtype=info.dtype, device=info.device)
    cut = (0,) * lead + tuple(slice(0, 1) if s == 1 else slice(None) for s in batch)
    return info[cut].clone()


def _solve_either(A, B, left, op, check):
    """(X, info) for ``A X = B``, or ``X A = B`` (``A^T X^T = B^T``) when not left."""
    _check_pair(op, A, B)
    left, check = flag(left, op, "left"), flag(check, op, "check_errors")
    if left:
        return _solve(A, B, op, check)
    if B.ndim < 2 or _is_vector(A, B):  # PyTorch: no vectors for X A = B
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation XA = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and "
                           f"{B.shape[-1] if B.ndim else 1}x1: a vector B needs left=True; "
                           f"A {tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")
    if B.shape[-1] != A.shape[-1]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation XA = B "
                           f"({B.shape[-2]}x{B.shape[-1]} and {A.shape[-2]}x{A.shape[-1]}; "
                           f"A {tuple(A.shape)}, B {tuple(B.shape)}, on {A.device})")
    # B is matrices here: the batch dims broadcast first, so that solve's vector rule
    # cannot take B^T (n, k) for a batch of vectors when A's batch happens to be (n,)
    At, Bt = _broadcast_batch(op, A.mT, B.mT)
    X, info = _solve(At, Bt, op, check)
    return X.mT, info


@takes_out("linalg.solve")
@recorded("linalg_solve")
def solve(A, B, *, left=True):
    """The solution X of the square system ``A X = B`` (``X A = B`` with left=False),
    by an LU factorization with partial pivoting, as torch.linalg.solve.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64.
    B : Tensor
        (..., n, k), or a batch of vectors (..., n) when B is 1-d or has A's shape
        without its last dim; the batch dims broadcast with A's.
    left : bool, optional
        Solve ``A X = B`` (default) or ``X A = B``.

    Returns
    -------
    Tensor
        X, of B's shape with the batch dims broadcast.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When a matrix is singular (names the batch element and the pivot); not for
        one holding NaN, whose result is NaN, as PyTorch's (Note [NaN in a solve]).
    RuntimeError
        When the shapes, dtypes or devices do not fit.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> A = pydevtensor.tensor([[3., 1.], [1., 2.]])
    >>> pydevtensor.linalg.solve(A, pydevtensor.tensor([9., 8.]))
    tensor([2., 3.])
    """
    return _solve_either(A, B, left, "linalg.solve", True)[0]


def _identity_like(A):
    eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return eye.expand(*A.shape)


@takes_out("linalg.inv_ex", tuple_of="inverse, info")
@recorded("linalg_inv_ex")
def inv_ex(A, *, check_errors=False):
    """The inverse of each square matrix and the LU factorization's info, without
    raising for a singular matrix (unless check_errors).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64.
    check_errors : bool, optional
        Raise LinAlgError for a singular matrix (a counted copy on a GPU).

    Returns
    -------
    (inverse, info) : named tuple of Tensor
        The inverses (..., n, n); info int32 (...): 0, or i > 0 when the i-th diagonal
        element of U is exactly zero (that inverse holds infinities or NaN).

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.inv_ex(pydevtensor.tensor([[2., 0.], [0., 4.]]))
    linalg_inv_ex(inverse=tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]]), info=tensor(0, dtype=pydevtensor.int32))
    """
    return return_types.linalg_inv_ex(*_inv(A, "linalg.inv_ex", check_errors))


def _inv(A, op, check):
    _square(op, A)
    check = flag(check, op, "check_errors")
    return _solve(A, _identity_like(A), op, check)


@takes_out("linalg.inv")
@recorded("linalg_inv")
def inv(A):
    """The inverse of each square matrix, as torch.linalg.inv (an LU solve against
    the identity).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64 (also ``pydevtensor.inverse`` and the method
        ``A.inverse()``).

    Returns
    -------
    Tensor
        (..., n, n).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When a matrix is singular (names the batch element and the pivot); not for
        one holding NaN, whose result is NaN, as PyTorch's (Note [NaN in a solve]).
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.inv(pydevtensor.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _inv(A, "linalg.inv", True)[0]


def _lu_diagonal(op, A):
    """(U's diagonal (..., n), the permutation's sign (...)) of each matrix's LU
    factorization: det(A) is their product (-1 for each pivot that moved a row)."""
    _square(op, A)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    if n == 0:
        return (_C.ones(batch + (0,), dtype=A.dtype, device=A.device),
                _C.ones(batch, dtype=A.dtype, device=A.device))
    lu, piv, _ = _lu(A)
    rows = _C.arange(1, n + 1, dtype=_C.int32, device=A.device)
    swaps = (piv != rows).sum(-1)
    return lu.diagonal(0, -2, -1), 1 - 2 * (swaps % 2).to(A.dtype)


@takes_out("linalg.slogdet", tuple_of="sign, logabsdet")
@recorded("linalg_slogdet")
def slogdet(A):
    """The sign and the natural log of the absolute value of the determinant of each
    square matrix, as torch.linalg.slogdet (for a singular matrix: sign 0 and
    logabsdet -inf).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64 (also ``pydevtensor.slogdet`` and the method
        ``A.slogdet()``).

    Returns
    -------
    (sign, logabsdet) : named tuple of Tensor
        Each of the batch shape (...).  The gradient flows through logabsdet (A's
        inverse transposed: A must be nonsingular).

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.slogdet(pydevtensor.tensor([[0., 2.], [3., 0.]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(1.7918))
    """
    diag, perm_sign = _lu_diagonal("linalg.slogdet", A)
    # a NaN pivot's sign is 0, as PyTorch's (sign(nan) is 0 there): a NaN matrix has sign 0
    sign = where(diag.isnan(), 0.0, diag.sign())
    return return_types.linalg_slogdet(sign.prod(-1) * perm_sign,
                                       diag.abs().log().sum(-1))


@takes_out("linalg.det")
@recorded("linalg_det")
def det(A):
    """The determinant of each square matrix, from its LU factorization, as
    torch.linalg.det (0 for a singular matrix, without an error).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64 (also ``pydevtensor.det`` and the method
        ``A.det()``).

    Returns
    -------
    Tensor
        Of the batch shape (...).  Its gradient is ``det(A) * inv(A).mT``, and for a
        singular A the cofactor matrix, from A's SVD (finding which matrices are
        singular reads the LU's info back: a counted copy on a GPU).

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.det(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    tensor(-2.0000)
    """
    diag, perm_sign = _lu_diagonal("linalg.det", A)
    return diag.prod(-1) * perm_sign


def logdet(A):
    """The natural log of the determinant of each square matrix, as torch.logdet: NaN
    where the determinant is negative, -inf where it is 0.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64 (also the method ``A.logdet()``).

    Returns
    -------
    Tensor
        Of the batch shape (...).

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.

    Examples
    --------
    >>> pydevtensor.logdet(pydevtensor.tensor([[2., 0.], [0., 3.]]))
    tensor(1.7918)
    """
    sign, logabs = slogdet(A)
    nan = _C.full((), float("nan"), dtype=logabs.dtype, device=logabs.device)
    return where(sign < 0, nan, logabs)


def _cholesky(A, upper, op, check):
    _square(op, A)
    upper, check = flag(upper, op, "upper"), flag(check, op, "check_errors")
    f = _by_columns(A)
    info = _C.zeros(tuple(A.shape[:-2]), dtype=_C.int32, device=A.device)
    _C._cholesky_factor(f, upper, info)
    if check:
        _raise_for(op, info, A, _not_positive_definite)
    F = f.mT
    return (F.triu() if upper else F.tril()), info


@takes_out("linalg.cholesky_ex", tuple_of="L, info")
@native_names(input="A")
@recorded("linalg_cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False):
    """The Cholesky factor of each symmetric positive-definite matrix and potrf's info,
    without raising (unless check_errors), as torch.linalg.cholesky_ex.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64; only its lower triangle is read (the upper one
        with upper=True).  Also by PyTorch's keyword ``input=``.
    upper : bool, optional
        Return U with ``A = U^T U`` instead of L with ``A = L L^T``.
    check_errors : bool, optional
        Raise LinAlgError for a matrix that is not positive-definite (a counted copy on
        a GPU).

    Returns
    -------
    (L, info) : named tuple of Tensor
        The factors (..., n, n); info int32 (...): 0, or i > 0 when the leading minor
        of order i is not positive-definite (that factor is incomplete).  A NaN pivot
        counts as not positive-definite on every device, as on torch's CPU; an
        infinite one does not.

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.cholesky_ex(pydevtensor.tensor([[4., 2.], [2., 5.]]))
    linalg_cholesky_ex(L=tensor([[2., 0.],
            [1., 2.]]), info=tensor(0, dtype=pydevtensor.int32))
    """
    return return_types.linalg_cholesky_ex(*_cholesky(A, upper, "linalg.cholesky_ex",
                                                      check_errors))


@takes_out("linalg.cholesky")
@native_names(input="A")
@recorded("linalg_cholesky")
def cholesky(A, *, upper=False):
    """The Cholesky factor L (``A = L L^T``, L lower triangular with a positive
    diagonal) of each symmetric positive-definite matrix, as torch.linalg.cholesky.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64; only its lower triangle is read (the upper one
        with upper=True).  Also by PyTorch's keyword ``input=``.
    upper : bool, optional
        Return U with ``A = U^T U`` instead.

    Returns
    -------
    Tensor
        (..., n, n).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When a matrix is not positive-definite, or a pivot is NaN (names the batch
        element and the order of the leading minor), on every device, as torch's CPU
        cholesky does.
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.cholesky(pydevtensor.tensor([[4., 2.], [2., 5.]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    return _cholesky(A, upper, "linalg.cholesky", True)[0]


@takes_out("cholesky_solve", castable=True)
@native_names(input="B", input2="L")
def cholesky_solve(B, L, upper=False):
    """The solution X of ``A X = B`` given A's Cholesky factor (``A = L L^T``, or
    ``A = U^T U`` with upper=True), as torch.cholesky_solve: two triangular solves
    (linalg.solve_triangular, so it runs and differentiates on every device).

    Parameters
    ----------
    B : Tensor
        (..., n, k) (also by PyTorch's keyword ``input=``).
    L : Tensor
        (..., n, n), lower triangular (upper with upper=True); batch dims broadcast
        (also by PyTorch's keyword ``input2=``).
    upper : bool, optional
        L is upper triangular.

    Returns
    -------
    Tensor
        (..., n, k).  Only L's lower (upper) triangle is read, so L's gradient is lower
        (upper) triangular, deliberately (PyTorch's has entries in the other triangle).

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit.  A zero on L's diagonal is no
        error: X holds inf or NaN, as PyTorch's.
    NotImplementedError
        For a dtype other than float32 and float64, as PyTorch's.

    Examples
    --------
    >>> L = pydevtensor.linalg.cholesky(pydevtensor.tensor([[4., 2.], [2., 5.]]))
    >>> pydevtensor.cholesky_solve(pydevtensor.tensor([[8.], [9.]]), L)
    tensor([[1.3750],
            [1.2500]])
    """
    _tensor_arg(B, "cholesky_solve", "B")
    upper = flag(upper, "cholesky_solve", "upper")
    if B.ndim < 2:
        raise RuntimeError(f"cholesky_solve: B must have at least 2 dimensions, got shape "
                           f"{tuple(B.shape)} (on {B.device})")
    _tensor_arg(L, "cholesky_solve", "L")
    if L.ndim < 2 or L.shape[-1] != L.shape[-2] or B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"cholesky_solve: Incompatible matrix sizes: B of shape "
                           f"{tuple(B.shape)} and L of shape {tuple(L.shape)} (L must be "
                           f"(..., n, n) and B (..., n, k)) (on {B.device})")
    from ._linalg_more import solvable_dtype, solve_triangular
    solvable_dtype("cholesky_solve", L)
    # only L's triangle is read, as LAPACK's potrs; B is always matrices (no vector
    # rule of solve): the batch dims broadcast first
    low = (L.mT if upper else L).tril()
    from ._ops_shape import broadcast_shapes
    batch = tuple(broadcast_shapes(tuple(B.shape[:-2]), tuple(low.shape[:-2])))
    B = B.expand(batch + tuple(B.shape[-2:]))
    low = low.expand(batch + tuple(low.shape[-2:]))
    # triangular solves (Note [triangular solves]): substitution's accuracy (a general
    # solve of the lower factor pivots: a relative error of 4e-5 where PyTorch's potrs
    # had 4e-15, on a 60 x 60 factor), and a zero on the diagonal gives inf / NaN, as
    # PyTorch's, not an error
    Y = solve_triangular(low, B, upper=False)
    return solve_triangular(low.mT, Y, upper=True)


@takes_out("inverse")
def inverse(input):
    """The inverse of each square matrix, as torch.inverse (linalg.inv).

    Parameters
    ----------
    input : Tensor
        (..., n, n), float32 or float64 (also the method ``A.inverse()``).

    Returns
    -------
    Tensor
        (..., n, n).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When a matrix is singular.

    Examples
    --------
    >>> pydevtensor.inverse(pydevtensor.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return inv(input)


def torch_slogdet(input):
    """The sign and log of the absolute determinant of each square matrix, as
    torch.slogdet (linalg.slogdet, returned as ``slogdet(sign, logabsdet)``).

    Parameters
    ----------
    input : Tensor
        (..., n, n), float32 or float64 (also the method ``A.slogdet()``).

    Returns
    -------
    (sign, logabsdet) : named tuple of Tensor

    Examples
    --------
    >>> pydevtensor.slogdet(pydevtensor.tensor([[0., 2.], [3., 0.]]))
    slogdet(sign=tensor(-1.), logabsdet=tensor(1.7918))
    """
    return return_types.slogdet(*slogdet(input))


torch_slogdet.__name__ = torch_slogdet.__qualname__ = "slogdet"

# the Tensor methods (pydevtensor's functions of these names: __init__.py)
for _n, _f in (("inverse", inverse), ("det", det), ("logdet", logdet),
               ("slogdet", torch_slogdet)):
    setattr(_C.Tensor, _n, _f)

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "det", "inv", "inv_ex", "slogdet",
           "solve", "solve_ex"]
