"""linalg.solve_triangular and linalg.vecdot, with PyTorch's names and rules, composed of
the solvers and elementwise ops (so they run, and record their gradients, on every
device)."""
from . import _C
from ._args import flag
from ._numpy_names import native_names
from ._ops_index import _tensor_arg
from ._out import takes_out


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
    pydevtensor.linalg.LinAlgError
        When A has a zero on its diagonal (a singular triangle).
    RuntimeError
        When the shapes, dtypes or devices do not fit.

    Examples
    --------
    >>> A = pydevtensor.tensor([[2., 0.], [1., 4.]])
    >>> pydevtensor.linalg.solve_triangular(A, pydevtensor.tensor([[2.], [9.]]), upper=False)
    tensor([[1.],
            [2.]])
    """
    from ._linalg_solve import LinAlgError, _broadcast_batch, solve
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
    T = A.triu() if upper else A.tril()
    if unitriangular:  # the diagonal is ones, whatever A holds there
        eye = _C.eye(n, dtype=A.dtype, device=A.device)
        T = T * (1 - eye) + eye
    if not left:  # X A = B is A^T X^T = B^T
        T, B = T.mT, B.mT
    Tb, Bb = _broadcast_batch(op, T, B)  # matrices: no vector rule
    try:
        X = solve(Tb, Bb)  # recorded: the gradient reaches A's triangle and B
    except LinAlgError as e:
        raise LinAlgError(str(e).replace("linalg.solve", op, 1)) from None
    X = X if left else X.mT
    if out is None:
        return X
    from ._out import _write_out
    return _write_out(X, out, op)


@takes_out("linalg.vecdot")
def vecdot(x, y, *, dim=-1):
    """The dot product of x and y along dim, the other dims broadcast, as
    torch.linalg.vecdot: ``(x.conj() * y).sum(dim)`` (real tensors here).

    Parameters
    ----------
    x, y : Tensor
        Of broadcastable shapes and one dtype.
    dim : int, optional
        The dimension summed over (default the last).

    Returns
    -------
    Tensor
        The broadcast shape without dim.

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
    return (x * y).sum(dim)
