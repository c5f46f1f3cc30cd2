"""linalg.solve_triangular and linalg.vecdot, with PyTorch's names and rules, composed of
the solvers and elementwise ops (so they run, and record their gradients, on every
device)."""
from . import _C
from ._args import flag
from ._numpy_names import native_names
from ._ops_index import _tensor_arg
from ._out import takes_out
from .autograd.dispatch import recorded


@native_names(input="A")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution X of ``A X = B`` (``X A = B`` with left=False) for a triangular A,
    as torch.linalg.solve_triangular: only A's upper (upper=True) or lower triangle is
    read, and with unitriangular=True its diagonal is taken as ones (not read).

    Parameters
    ----------
    A : Tensor
        (..., n, n) (also by PyTorch's keyword ``input=``).
    B : Tensor
        (..., n, k), or (..., k, n) with left=False: always matrices (no vector rule);
        the batch dims broadcast against A's.
    upper : bool
        Keyword only, required: which triangle of A is read.
    left : bool, optional
        Solve ``A X = B`` (default) or ``X A = B``.
    unitriangular : bool, optional
        A's diagonal is all ones (not read).
    out : Tensor, optional
        Receives the result.

    Returns
    -------
    Tensor
        X, of B's shape with the broadcast batch dims.

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit.
    NotImplementedError
        For a dtype other than float32 and float64, as PyTorch's.

    Notes
    -----
    A zero on the diagonal (a singular triangle) is not an error, as in PyTorch:
    substitution divides by it, so X holds infinities or NaN.

    Examples
    --------
    >>> A = pydevtensor.tensor([[2., 0.], [1., 4.]])
    >>> pydevtensor.linalg.solve_triangular(A, pydevtensor.tensor([[2.], [9.]]), upper=False)
    tensor([[1.],
            [2.]])
    """
    from ._linalg_solve import _broadcast_batch
    op = "linalg.solve_triangular"
    _tensor_arg(A, op, "A")
    _tensor_arg(B, op, "B")
    upper, left = flag(upper, op, "upper"), flag(left, op, "left")
    unitriangular = flag(unitriangular, op, "unitriangular")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, got shape "
                           f"{tuple(A.shape)} (on {A.device})")
    n = A.shape[-1]
    if B.ndim < 2 or (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq}: A "
                           f"{tuple(A.shape)}, B {tuple(B.shape)} (on {A.device})")
    if A.dtype != B.dtype:
        raise _C.DTypeError(f"{op}: Expected A and B to have the same dtype, but found A of "
                            f"type {A.dtype} and B of type {B.dtype} instead")
    solvable_dtype(op, A)
    T = A.triu() if upper else A.tril()
    if unitriangular:  # the diagonal is ones, whatever A holds there
        eye = _C.eye(n, dtype=A.dtype, device=A.device)
        T = T * (1 - eye) + eye
    if not left:  # X A = B is A^T X^T = B^T
        T, B = T.mT, B.mT
    Tb, Bb = _broadcast_batch(op, T, B)  # matrices: no vector rule
    lower = upper != left  # which triangle Tb holds
    if lower:  # L X = B is (J L J) (J X) = J B, J L J upper (J reverses the order)
        Tb, Bb = Tb.flip(-2, -1), Bb.flip(-2)
    if bool((Tb.diagonal(dim1=-2, dim2=-1) == 0).any() | Tb.isnan().any()):  # one read
        # a zero on the diagonal: substitution divides by it, as PyTorch's trsm (inf and
        # NaN in X, no error), where the LU solve would refuse it; a NaN reaches the rows
        # whose substitution reads it, as the trsm's (not all of X, a general solve's rule)
        X = _substitute(Tb, Bb)
    else:
        # Note [triangular solves]: the LU of an upper triangle is itself (no pivot moves,
        # every multiplier is 0), so the core's LU solve with it is a back substitution.
        # A lower triangle's own LU would pivot and lose the accuracy of substitution (a
        # relative error of 1 where PyTorch's trsm had 1e-15, on random 60 x 60 lower
        # triangles); so would the backward of a general solve (gB = U^-T g, a lower
        # solve): LinalgSolveTriangularBackward0 solves it by this function again
        X = upper_solve(Tb, Bb)
    if lower:
        X = X.flip(-2)
    X = X if left else X.mT
    if out is None:
        return X
    from ._out import _write_out
    return _write_out(X, out, op)


def solvable_dtype(op, A):
    """Refuses, as PyTorch's NotImplementedError, an A of a dtype the triangular solves
    do not take (float32 and float64 only)."""
    if A.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"{op}: not implemented for {A.dtype} (A of shape "
                                  f"{tuple(A.shape)}, on {A.device}); float32 and float64 "
                                  "are")


@recorded("linalg_solve_triangular_upper")
def upper_solve(U, Bm):
    """U^-1 Bm for upper triangular matrices U with no zero nor NaN (same batch shape as
    Bm), by the core's LU solve with U as its own LU (L = I, no pivots): a back
    substitution, O(n^2) per column; recorded by LinalgSolveTriangularBackward0."""
    from ._linalg_solve import _by_columns
    n = U.shape[-1]
    piv = _C.arange(1, n + 1, dtype=_C.int32, device=U.device)
    x = _by_columns(Bm)  # (..., k, n): the right-hand sides by columns
    _C._lu_solve(_by_columns(U), piv.expand(tuple(U.shape[:-1])).contiguous(), x)
    return x.mT


def _substitute(U, B):
    """X of U X = B by back substitution, row by row of recorded ops: a zero on U's
    diagonal gives inf and NaN where a BLAS trsm gives them."""
    from ._ops_join import cat
    n = U.shape[-1]
    rows = [None] * n
    for i in range(n - 1, -1, -1):
        r = B[..., i:i + 1, :]
        if i + 1 < n:
            r = r - U[..., i:i + 1, i + 1:] @ cat(rows[i + 1:], -2)
        rows[i] = r / U[..., i:i + 1, i:i + 1]
    return cat(rows, -2)


@takes_out("linalg.vecdot")
def vecdot(x, y, *, dim=-1):
    """The dot product of x and y along dim, the other dims broadcast, as
    torch.linalg.vecdot: ``(x.conj() * y).sum(dim)`` (real tensors here).

    Parameters
    ----------
    x, y : Tensor
        Of broadcastable shapes and one floating point dtype.
    dim : int, optional
        The dimension summed over (default the last).

    Returns
    -------
    Tensor
        The broadcast shape without dim.

    Raises
    ------
    NotImplementedError
        For integer or bool inputs, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.linalg.vecdot(pydevtensor.tensor([[1., 2.], [3., 4.]]),
    ...                           pydevtensor.tensor([1., 1.]))
    tensor([3., 7.])
    """
    op = "linalg.vecdot"
    _tensor_arg(x, op, "x")
    _tensor_arg(y, op, "y")
    if x.dtype != y.dtype:
        raise _C.DTypeError(f"{op}: Expected x and y to have the same dtype, but found x of "
                            f"type {x.dtype} and y of type {y.dtype} instead")
    if not x.is_floating_point():  # PyTorch's check (an integer sum could wrap)
        raise NotImplementedError(f"{op}: Expected a floating point tensor as input. Got "
                                  f"{x.dtype} (x of shape {tuple(x.shape)}, on {x.device})")
    return (x * y).sum(dim)
