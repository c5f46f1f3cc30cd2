"""torch.linalg's LDL factorization of symmetric matrices: ldl_factor, ldl_factor_ex and
ldl_solve, of real (float32, float64) matrices.

The factorization is LAPACK's unblocked sytf2 with uplo='L' (Bunch-Kaufman diagonal
pivoting), which PyTorch's sytrf runs for matrices smaller than its block size: A =
P L D L^T P^T, L unit lower triangular, D block diagonal with 1x1 and 2x2 blocks.  LD
holds D's diagonal and the 2x2 blocks' subdiagonal entries, and L below them (its unit
diagonal not stored; the 2x2 blocks' entry of L under the diagonal is 0 and not
stored), zeros above the diagonal; pivots (int32, 1-based, LAPACK's ipiv): ``p > 0``
at k, a 1x1 block, rows and columns k and p - 1 swapped; ``pivots[k] = pivots[k+1] = p
< 0``, a 2x2 block, rows and columns k + 1 and -p - 1 swapped.  Only the lower
triangle of A is read.  Pivot choices come from the computed values, so when two
candidates are within rounding of each other PyTorch's LAPACK (blocked for large
matrices, or another library's) may choose differently: LD and pivots are then another,
as valid, factorization; what is guaranteed is that ldl_solve with them solves A X = B.

Each matrix is factored column by column with the package's ops on its device; the
pivot decisions are read back (a counted copy per column on a GPU), so this suits
small and moderate matrices.  Neither op is differentiable (PyTorch's backward raises
for them): a call where grad mode is on and an input requires grad raises at once.
"""
import collections
import math

from . import _C
from ._args import flag
from ._linalg_solve import _float_dtype, _raise_for
from ._ops_einsum import outer as _outer
from ._ops_index import _tensor_arg
from ._ops_reduce import return_types
from ._ops_shape import broadcast_shapes as _broadcast_shapes
from ._out import takes_out
from .autograd.grad_mode import no_grad

for _name, _fields in (("linalg_ldl_factor", ["LD", "pivots"]),
                       ("linalg_ldl_factor_ex", ["LD", "pivots", "info"])):
    setattr(return_types, _name, collections.namedtuple(_name, _fields))
    getattr(return_types, _name).__module__ = "pydevtensor.return_types"

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's growth bound


def _no_derivative(op, *tensors):
    if _C.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"{op}: the derivative of {op} is not implemented (PyTorch's "
                           f"backward raises for it too); call it on detached tensors")


def _square_matrices(op, A, name):
    _tensor_arg(A, op, name)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions "
                           f"(got shape {tuple(A.shape)}, on {A.device})")
    _float_dtype(op, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices (shape "
                           f"{tuple(A.shape)}, on {A.device})")


def _swap(x, y):
    """Exchanges the values of the views x and y (of one shape)."""
    t = x.clone()
    x.copy_(y)
    y.copy_(t)


def _absmax(v):
    """(index, value) of v's first entry of largest absolute value (LAPACK's i?amax)."""
    i = int(v.abs().argmax())
    return i, abs(float(v[i]))


def _interchange(a, k, kk, kp, kstep):
    """sytf2's swap of rows and columns kk and kp > kk of the trailing lower triangle."""
    n = a.shape[0]
    if kp < n - 1:
        _swap(a[kp + 1:, kk], a[kp + 1:, kp])
    if kp > kk + 1:
        _swap(a[kk + 1:kp, kk], a[kp, kk + 1:kp])
    _swap(a[kk, kk], a[kp, kp])
    if kstep == 2:
        _swap(a[k + 1, k], a[kp, k])


def _pivot(a, k):
    """(kp, kstep, singular): Bunch-Kaufman's choice at column k."""
    n = a.shape[0]
    absakk = abs(float(a[k, k]))
    imax, colmax = k, 0.0
    if k < n - 1:
        i, colmax = _absmax(a[k + 1:, k])
        imax = k + 1 + i
    # a zero column is singular; a NaN is passed over as Fortran's MAX (fmax) does in
    # PyTorch's LAPACK, so the NaN runs through the factorization as in PyTorch
    if (colmax if math.isnan(absakk) else max(absakk, colmax)) == 0.0:
        return k, 1, True
    if absakk >= _ALPHA * colmax:
        return k, 1, False
    rowmax = _absmax(a[imax, k:imax])[1]
    if imax < n - 1:
        rowmax = max(rowmax, _absmax(a[imax + 1:, imax])[1])
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(float(a[imax, imax])) >= _ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _sytf2(a, piv):
    """Factors the matrix a (n, n) in place (its lower triangle), writing piv (a list);
    returns LAPACK's info."""
    n, info, k = a.shape[0], 0, 0
    while k < n:
        kp, kstep, singular = _pivot(a, k)
        if singular:
            info = info or k + 1
        elif kp != k + kstep - 1:
            _interchange(a, k, k + kstep - 1, kp, kstep)
        if kstep == 1:
            if not singular and k < n - 1:
                d11 = 1.0 / float(a[k, k])
                x = a[k + 1:, k]
                a[k + 1:, k + 1:] += _outer(x, x * -d11)
                x.mul_(d11)
            piv[k] = kp + 1
        else:
            if k < n - 2:
                d21 = float(a[k + 1, k])
                d11 = float(a[k + 1, k + 1]) / d21
                d22 = float(a[k, k]) / d21
                d21 = (1.0 / (d11 * d22 - 1.0)) / d21
                xk, xk1 = a[k + 2:, k], a[k + 2:, k + 1]
                wk = (xk * d11 - xk1) * d21
                wkp1 = (xk1 * d22 - xk) * d21
                a[k + 2:, k + 2:] -= _outer(xk, wk)
                a[k + 2:, k + 2:] -= _outer(xk1, wkp1)
                xk.copy_(wk)
                xk1.copy_(wkp1)
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return info


def _factor(op, A, hermitian):
    _square_matrices(op, A, "A")
    flag(hermitian, op, "hermitian")  # a real symmetric matrix is hermitian too
    _no_derivative(op, A)
    n, batch = A.shape[-1], tuple(A.shape[:-2])
    LD = A.clone().contiguous()
    flat = LD.view(math.prod(batch), n, n)
    pivots, infos = [], []
    with no_grad():
        for b in range(flat.shape[0]):
            piv = [0] * n
            infos.append(_sytf2(flat[b], piv))
            pivots.append(piv)
        LD = LD.tril()
    pivots = _C.tensor(pivots, dtype=_C.int32).reshape(batch + (n,)).to(A.device)
    info = _C.tensor(infos, dtype=_C.int32).reshape(batch).to(A.device)
    return LD, pivots, info


def _zero_block(v):
    return (f"D[{v - 1}, {v - 1}] of the LDL factorization is exactly zero: the matrix is "
            f"singular (linalg.ldl_factor_ex returns the factorization with info instead)")


@takes_out("linalg.ldl_factor_ex", tuple_of="LD, pivots, info")
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """The LDL factorization ``A = P L D L^T P^T`` of each symmetric matrix (Bunch-Kaufman
    pivoting, LAPACK's sytf2 'L') and LAPACK's info, without raising for a singular
    matrix (unless check_errors), as torch.linalg.ldl_factor_ex.

    Only A's lower triangle is read.  LD and pivots are in LAPACK's format (see
    pydevtensor/_linalg_ldl.py); they are meant for ldl_solve, and match PyTorch's for
    small matrices up to pivot choices within rounding (see there).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64, symmetric.
    hermitian : bool, optional
        For a real matrix, the same factorization (default False).
    check_errors : bool, optional
        Raise LinAlgError where D has an exactly zero diagonal block.

    Returns
    -------
    (LD, pivots, info) : named tuple of Tensor
        LD (..., n, n) lower triangular, pivots int32 (..., n), info int32 (...): 0, or
        i > 0 when the factorization met an exactly zero column at i - 1 (D singular).

    Raises
    ------
    RuntimeError
        When A is not a batch of square matrices, or requires grad in grad mode.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> A = pydevtensor.tensor([[0., 1., 2.], [1., 0., 3.], [2., 3., 0.]])
    >>> LD, pivots, info = pydevtensor.linalg.ldl_factor_ex(A)
    >>> LD
    tensor([[ 0.0000,  0.0000,  0.0000],
            [ 2.0000,  0.0000,  0.0000],
            [ 1.5000,  0.5000, -3.0000]])
    >>> pivots, info
    (tensor([-3, -3,  3], dtype=pydevtensor.int32), tensor(0, dtype=pydevtensor.int32))
    """
    op = "linalg.ldl_factor_ex"
    check_errors = flag(check_errors, op, "check_errors")
    LD, piv, info = _factor(op, A, hermitian)
    if check_errors:
        _raise_for(op, info, A, _zero_block)
    return return_types.linalg_ldl_factor_ex(LD, piv, info)


@takes_out("linalg.ldl_factor", tuple_of="LD, pivots")
def ldl_factor(A, *, hermitian=False):
    """The LDL factorization ``A = P L D L^T P^T`` of each symmetric matrix (Bunch-Kaufman
    pivoting), as torch.linalg.ldl_factor; see ldl_factor_ex for the format.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64, symmetric (only its lower triangle is read).
    hermitian : bool, optional
        For a real matrix, the same factorization (default False).

    Returns
    -------
    (LD, pivots) : named tuple of Tensor
        LD (..., n, n) lower triangular and pivots int32 (..., n), for ldl_solve.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When D is singular (an exactly zero block).
    RuntimeError
        When A is not a batch of square matrices, or requires grad in grad mode.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> A = pydevtensor.tensor([[4., 2.], [2., 3.]])
    >>> LD, pivots = pydevtensor.linalg.ldl_factor(A)
    >>> LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    >>> pivots
    tensor([1, 2], dtype=pydevtensor.int32)
    """
    op = "linalg.ldl_factor"
    LD, piv, info = _factor(op, A, hermitian)
    _raise_for(op, info, A, _zero_block)
    return return_types.linalg_ldl_factor(LD, piv)


def _solve_one(ld, piv, x):
    """sytrs 'L': x (n, k) becomes A^-1 x, A factored as ld, piv (a list)."""
    n, k = ld.shape[0], 0
    while k < n:  # L D y = P^T x
        if piv[k] > 0:
            kp = piv[k] - 1
            if kp != k:
                _swap(x[k], x[kp])
            x[k + 1:] -= _outer(ld[k + 1:, k], x[k])
            x[k] /= ld[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            if kp != k + 1:
                _swap(x[k + 1], x[kp])
            x[k + 2:] -= _outer(ld[k + 2:, k], x[k])
            x[k + 2:] -= _outer(ld[k + 2:, k + 1], x[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = x[k] / akm1k, x[k + 1] / akm1k
            x[k] = (bkm1 * ak - bk) / denom
            x[k + 1] = (bk * akm1 - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T x = y
        x[k] -= ld[k + 1:, k] @ x[k + 1:]
        if piv[k] > 0:
            kp = piv[k] - 1
            step = 1
        else:
            x[k - 1] -= ld[k + 1:, k - 1] @ x[k + 1:]
            kp = -piv[k] - 1
            step = 2
        if kp != k:
            _swap(x[k], x[kp])
        k -= step


def _check_pivot_values(op, piv, n):
    """Pivots as LAPACK writes them: 1 <= |p| <= n, the negative ones in equal pairs."""
    k = 0
    while k < n:
        p = piv[k]
        if p > 0 and p <= n:
            k += 1
        elif p < 0 and -p <= n and k + 1 < n and piv[k + 1] == p:
            k += 2
        else:
            raise RuntimeError(f"{op}: pivots {piv} are not an LDL factorization's of "
                               f"{n} by {n} matrices (pivots[{k}] = {p})")


@takes_out("linalg.ldl_solve")
def ldl_solve(LD, pivots, B, *, hermitian=False):
    """The solution X of ``A X = B`` given A's LDL factorization (linalg.ldl_factor), as
    torch.linalg.ldl_solve (LAPACK's sytrs 'L').

    Parameters
    ----------
    LD : Tensor
        (..., n, n), float32 or float64, from ldl_factor.
    pivots : Tensor
        Integer (..., n), from ldl_factor.
    B : Tensor
        (..., n, k), of LD's dtype and device: always matrices; the batch dims broadcast
        against LD's.
    hermitian : bool, optional
        For real matrices, the same solve (default False).

    Returns
    -------
    Tensor
        X, of B's shape with the batch dims broadcast.

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit, pivots are not an LDL
        factorization's, or an input requires grad in grad mode.

    Examples
    --------
    >>> A = pydevtensor.tensor([[0., 1., 2.], [1., 0., 3.], [2., 3., 0.]])
    >>> LD, pivots = pydevtensor.linalg.ldl_factor(A)
    >>> pydevtensor.linalg.ldl_solve(LD, pivots, pydevtensor.tensor([[4.], [4.], [8.]]))
    tensor([[1.],
            [2.],
            [1.]])
    """
    op = "linalg.ldl_solve"
    _square_matrices(op, LD, "LD")
    flag(hermitian, op, "hermitian")
    _tensor_arg(pivots, op, "pivots")
    _tensor_arg(B, op, "B")
    n = LD.shape[-1]
    if pivots.is_floating_point() or pivots.dtype == _C.bool or \
            tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same "
                           f"and pivots an integer tensor, but got pivots {pivots.dtype} of "
                           f"shape {list(pivots.shape)} for LD of shape {list(LD.shape)}")
    if B.ndim < 2 or B.shape[-2] != n:
        raise RuntimeError(f"{op}: Incompatible matrix sizes: each A matrix is {n} by {n} but "
                           f"B has shape {tuple(B.shape)} (on {B.device}); B must be "
                           f"(..., {n}, k)")
    if LD.dtype != B.dtype or LD.device != B.device or pivots.device != LD.device:
        err = RuntimeError if LD.dtype != B.dtype else _C.DeviceError
        raise err(f"{op}: Expected LD, pivots and B to have the same device and LD and B the "
                  f"same dtype, but found LD {LD.dtype} on {LD.device}, pivots on "
                  f"{pivots.device} and B {B.dtype} on {B.device}")
    _no_derivative(op, LD, B)
    batch = tuple(_broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2])))
    count = math.prod(batch)
    lds = LD.expand(batch + (n, n)).reshape(count, n, n)
    pivs = pivots.expand(batch + (n,)).reshape(count, n).tolist()
    X = B.expand(batch + tuple(B.shape[-2:])).clone().contiguous()
    xs = X.view(count, n, B.shape[-1])
    with no_grad():
        for b in range(xs.shape[0]):
            _check_pivot_values(op, pivs[b], n)
            _solve_one(lds[b], pivs[b], xs[b])
    return X
