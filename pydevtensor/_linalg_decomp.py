"""torch.linalg's matrix decompositions: eigh and eigvalsh (the symmetric eigen
decomposition, LAPACK's syevd / cuSOLVER's syevd), svd and svdvals (LAPACK's gesdd
/ cuSOLVER's gesvd), torch.svd, and qr (geqrf and orgqr), on every device that
computes them.

As the solvers (_linalg_solve.py), each op copies its matrices once, stored by
columns, into a fresh tensor that the core overwrites (Note [column-major
factorizations] in csrc/core/pdt_linalg.h), and reads the results back through
``.mT`` views.  The core's SVD takes m >= n: a wide matrix is decomposed through its
transpose (``A^T = U' S V'^T`` gives ``A = V' S U'^T``), whose row-major copy is
already the column-major matrix.  A failure to converge raises LinAlgError; finding
it reads ``info`` back to the host (one counted copy on a GPU).  The derivatives are
in autograd/derivatives_linalg_decomp.py.
"""
import collections

import math

from . import _C
from ._args import flag
from ._numpy_names import native_names
from ._linalg_solve import _by_columns, _float_dtype, _raise_for, _square
from ._ops_index import _tensor_arg
from ._ops_reduce import return_types
from ._out import takes_out
from .autograd.dispatch import recorded

for _name, _fields in (("linalg_eigh", ["eigenvalues", "eigenvectors"]),
                       ("linalg_svd", ["U", "S", "Vh"]),
                       ("svd", ["U", "S", "V"]),
                       ("linalg_qr", ["Q", "R"])):
    setattr(return_types, _name, collections.namedtuple(_name, _fields))
    getattr(return_types, _name).__module__ = "pydevtensor.return_types"


def _eigh(A, UPLO, vectors, op):
    """(eigenvalues (..., n), eigenvectors (..., n, n) or None)."""
    _square(op, A)
    if isinstance(UPLO, str) and UPLO in ("l", "u"):  # PyTorch upper-cases it
        UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO!r} "
                           f"(A of shape {tuple(A.shape)}, on {A.device})")
    batch, n = tuple(A.shape[:-2]), A.shape[-1]
    a = _by_columns(A)
    w = _C.empty(batch + (n,), dtype=A.dtype, device=A.device)
    info = _C.zeros(batch, dtype=_C.int32, device=A.device)
    _C._eigh(a, UPLO == "U", vectors, w, info)
    _raise_for(op, info, A, lambda v: (
        "The algorithm failed to converge because the input matrix is ill-conditioned or "
        f"has too many repeated eigenvalues (error code: {v})"))
    return w, (a.mT if vectors else None)


@takes_out("linalg.eigh", tuple_of="eigenvalues, eigenvectors")
@native_names(input="A")
@recorded("linalg_eigh")
def eigh(A, UPLO="L"):
    """The eigenvalues (ascending) and orthonormal eigenvectors of each real symmetric
    matrix, as torch.linalg.eigh: ``A = V diag(L) V^T``.

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64; only its lower triangle is read (the upper one
        with UPLO='U').  Also by PyTorch's keyword ``input=``.
    UPLO : {'L', 'U'}, optional
        The triangle read.

    Returns
    -------
    (eigenvalues, eigenvectors) : named tuple of Tensor
        L (..., n) ascending; V (..., n, n), column j the eigenvector of L[j].  Each
        eigenvector is determined up to its sign only (up to a rotation within a
        repeated eigenvalue): only gradients of functions invariant to that choice
        are meaningful, and the gradient through V is infinite or NaN where two
        eigenvalues coincide.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the algorithm fails to converge.
    RuntimeError
        When A is not a stack of square matrices, or UPLO is not 'L' or 'U'.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> L, V = pydevtensor.linalg.eigh(pydevtensor.tensor([[2., 1.], [1., 2.]]))
    >>> L
    tensor([1., 3.])
    >>> (V @ pydevtensor.diag(L) @ V.mT).round(decimals=4)
    tensor([[2., 1.],
            [1., 2.]])
    """
    return return_types.linalg_eigh(*_eigh(A, UPLO, True, "linalg.eigh"))


@takes_out("linalg.eigvalsh")
@native_names(input="A")
@recorded("linalg_eigvalsh")
def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each real symmetric matrix, as
    torch.linalg.eigvalsh (syevd without the eigenvectors).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64; only its lower triangle is read (the upper one
        with UPLO='U').  Also by PyTorch's keyword ``input=``.
    UPLO : {'L', 'U'}, optional
        The triangle read.

    Returns
    -------
    Tensor
        (..., n), ascending.  Its gradient is ``V diag(g) V^T`` (the eigenvectors are
        computed in backward).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the algorithm fails to converge.
    RuntimeError
        When A is not a stack of square matrices, or UPLO is not 'L' or 'U'.

    Examples
    --------
    >>> pydevtensor.linalg.eigvalsh(pydevtensor.tensor([[2., 1.], [1., 2.]]))
    tensor([1., 3.])
    """
    return _eigh(A, UPLO, False, "linalg.eigvalsh")[0]


def _check_matrix(op, A):
    """A is a float32/float64 stack of matrices (of any shape m x n)."""
    _tensor_arg(A, op, "A")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions "
                           f"(got shape {tuple(A.shape)}, on {A.device})")
    _float_dtype(op, A)


def _svd(A, vectors, op):
    """(U, S, Vh) of A (..., m, n); vectors 0 (U and Vh None), 1 reduced, 2 full."""
    _check_matrix(op, A)
    batch, (m, n) = tuple(A.shape[:-2]), tuple(A.shape[-2:])
    k = min(m, n)
    dev, dt = A.device, A.dtype
    if k == 0:
        S = _C.empty(batch + (0,), dtype=dt, device=dev)
        if not vectors:
            return None, S, None

        def eye(r, c):
            return _C.eye(r, c, dtype=dt, device=dev).expand(*batch, r, c).contiguous()
        return ((eye(m, m), S, eye(n, n)) if vectors == 2 else (eye(m, 0), S, eye(0, n)))
    tall = m >= n
    big, small = (m, n) if tall else (n, m)
    # LAPACK's gesdd (OpenBLAS's) can loop forever on a matrix holding inf: such a
    # matrix goes in as zeros and comes out NaN, as PyTorch's result is (the CPU reads
    # the check for free; cuSOLVER's gesvd returns).  One holding NaN is refused by
    # gesdd's own check (info < 0: LinAlgError below, PyTorch's error too)
    bad = None
    if dev.type == "cpu":
        flat = A.reshape(batch + (m * n,))
        inf = flat.isinf().any(-1) & flat.isnan().any(-1).logical_not()
        if bool(inf.any()):
            bad = inf
            A = A.masked_fill(bad.reshape(batch + (1, 1)), 0.0)
    # the column-major big x small matrix: A's by columns, or A^T's (A itself, row-major)
    a = _by_columns(A) if tall else (A.clone() if A.is_contiguous() else A.contiguous())
    S = _C.empty(batch + (small,), dtype=dt, device=dev)
    u = (_C.empty(batch + (big if vectors == 2 else small, big), dtype=dt, device=dev)
         if vectors else None)
    vt = _C.empty(batch + (small, small), dtype=dt, device=dev) if vectors else None
    info = _C.zeros(batch, dtype=_C.int32, device=dev)
    _C._svd(a, vectors, S, u, vt, info)
    _raise_for(op, info, A, lambda v: (
        "The algorithm failed to converge because the input matrix contained non-finite "
        "values" if v < 0 else
        "The algorithm failed to converge because the input matrix is ill-conditioned or "
        f"has too many repeated singular values (error code: {v})"))
    if bad is not None:
        S = S.masked_fill(bad.reshape(batch + (1,)), math.nan)
        if vectors:
            u = u.masked_fill(bad.reshape(batch + (1, 1)), math.nan)
            vt = vt.masked_fill(bad.reshape(batch + (1, 1)), math.nan)
    if not vectors:
        return None, S, None
    # u holds U' by columns, vt V'^T by columns (V' row-major)
    return (u.mT, S, vt.mT) if tall else (vt, S, u)


@takes_out("linalg.svd", tuple_of="U, S, Vh")
@recorded("linalg_svd")
def svd(A, full_matrices=True, *, driver=None):
    """The singular value decomposition ``A = U diag(S) Vh`` of each matrix, as
    torch.linalg.svd (LAPACK's gesdd on the CPU, cuSOLVER's gesvd on CUDA).

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    full_matrices : bool, optional
        U (..., m, m) and Vh (..., n, n) (default); else the reduced U (..., m, k)
        and Vh (..., k, n), k = min(m, n).
    driver : None, optional
        Accepted for PyTorch's signature (its cuSOLVER drivers); only None.

    Returns
    -------
    (U, S, Vh) : named tuple of Tensor
        S (..., k) descending and non-negative.  The singular vectors are determined
        up to sign (a rotation within a repeated singular value): only gradients of
        functions invariant to that are meaningful, and with full_matrices=True only
        the first k columns of U and rows of Vh carry gradient.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the algorithm fails to converge, or A has non-finite values.
    RuntimeError
        When A has fewer than 2 dimensions.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> U, S, Vh = pydevtensor.linalg.svd(pydevtensor.tensor([[3., 0.], [0., -2.]]))
    >>> S
    tensor([3., 2.])
    >>> (U @ pydevtensor.diag(S) @ Vh).round(decimals=4)
    tensor([[ 3.,  0.],
            [ 0., -2.]])
    """
    full_matrices = flag(full_matrices, "linalg.svd", "full_matrices")
    if driver is not None:
        raise RuntimeError(f"linalg.svd: driver={driver!r} is not supported by pydevtensor "
                           "(only None: gesdd on the CPU, gesvd on CUDA)")
    return return_types.linalg_svd(*_svd(A, 2 if full_matrices else 1, "linalg.svd"))


@takes_out("linalg.svdvals")
@recorded("linalg_svdvals")
def svdvals(A, *, driver=None):
    """The singular values of each matrix, descending, as torch.linalg.svdvals.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    driver : None, optional
        Accepted for PyTorch's signature; only None.

    Returns
    -------
    Tensor
        (..., min(m, n)).  Its gradient is ``U diag(g) Vh`` (the singular vectors are
        computed in backward).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the algorithm fails to converge, or A has non-finite values.

    Examples
    --------
    >>> pydevtensor.linalg.svdvals(pydevtensor.tensor([[3., 0.], [0., -2.]]))
    tensor([3., 2.])
    """
    if driver is not None:
        raise RuntimeError(f"linalg.svdvals: driver={driver!r} is not supported by "
                           "pydevtensor (only None)")
    return _svd(A, 0, "linalg.svdvals")[1]


def torch_svd(input, some=True, compute_uv=True):
    """The singular value decomposition ``input = U diag(S) V^T``, as torch.svd (V, not
    Vh; the reduced U and V unless some=False).

    Parameters
    ----------
    input : Tensor
        (..., m, n), float32 or float64 (also the method ``A.svd()``).
    some : bool, optional
        The reduced decomposition (default), else the complete one.
    compute_uv : bool, optional
        When False, only S is computed; U (..., m, m) and V (..., n, n) are zeros
        (PyTorch's convention; some has no effect then).

    Returns
    -------
    (U, S, V) : named tuple of Tensor

    Examples
    --------
    >>> pydevtensor.svd(pydevtensor.tensor([[3., 0.], [0., -2.]])).S
    tensor([3., 2.])
    """
    some = flag(some, "svd", "some")
    compute_uv = flag(compute_uv, "svd", "compute_uv")
    if not compute_uv:  # PyTorch: U (m, m) and V (n, n) of zeros, whatever some says
        S = svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        return return_types.svd(_C.zeros(batch + (m, m), dtype=input.dtype, device=input.device),
                                S, _C.zeros(batch + (n, n), dtype=input.dtype,
                                            device=input.device))
    U, S, Vh = svd(input, full_matrices=not some)
    return return_types.svd(U, S, Vh.mT)


torch_svd.__name__ = torch_svd.__qualname__ = "svd"


def _geqrf(A):
    """LAPACK's geqrf of each (..., m, n) float matrix (PyTorch's torch.geqrf, transposed):
    a (..., n, m) fresh tensor whose .mT holds R over the upper triangle and the
    reflectors' vectors below the diagonal (their 1 implied), and tau (..., min(m, n))
    with H_i = I - tau_i v_i v_i^T and A = H_1 ... H_k R."""
    a = _by_columns(A)  # (..., n, m)
    tau = _C.empty(tuple(A.shape[:-2]) + (min(A.shape[-2:]),), dtype=A.dtype,
                   device=A.device)
    if tau.shape[-1]:
        _C._qr_factor(a, tau)
    return a, tau


@takes_out("linalg.qr", tuple_of="Q, R")
@recorded("linalg_qr")
def qr(A, mode="reduced"):
    """The QR decomposition ``A = Q R`` of each matrix (Householder reflections:
    LAPACK's geqrf and orgqr; cuSOLVER's on CUDA), as torch.linalg.qr.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    mode : {'reduced', 'complete', 'r'}, optional
        'reduced': Q (..., m, k) and R (..., k, n), k = min(m, n); 'complete': Q
        (..., m, m) and R (..., m, n); 'r': R (..., k, n) alone, Q an empty tensor.

    Returns
    -------
    (Q, R) : named tuple of Tensor
        Q with orthonormal columns, R upper triangular (LAPACK's signs: R's diagonal
        may be negative, as in PyTorch).  Differentiable for mode='reduced', and for
        'complete' when m <= n (PyTorch's rule).

    Raises
    ------
    RuntimeError
        For an unknown mode, or A with fewer than 2 dimensions; in backward for
        mode='complete' with m > n.
    NotImplementedError
        For integer or low precision dtypes, and in backward for mode='r'.

    Examples
    --------
    >>> Q, R = pydevtensor.linalg.qr(pydevtensor.tensor([[3., 1.], [4., 2.]]))
    >>> R
    tensor([[-5.0000, -2.2000],
            [ 0.0000,  0.4000]])
    >>> (Q @ R).round(decimals=4)
    tensor([[3., 1.],
            [4., 2.]])
    """
    op = "linalg.qr"
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"{op}: qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete' (on {A.device})")
    _check_matrix(op, A)
    batch, (m, n) = tuple(A.shape[:-2]), tuple(A.shape[-2:])
    k, dev, dt = min(m, n), A.device, A.dtype
    a, tau = _geqrf(A)
    rows = m if mode == "complete" else k
    F = a.mT  # (..., m, n): R over the upper triangle, the reflectors below
    R = F[..., :rows, :].triu()  # a copy: q may overwrite a below
    if mode == "r":
        return return_types.linalg_qr(_C.empty(0, dtype=dt, device=dev), R)
    cols = m if mode == "complete" else k
    if cols > n:  # complete Q of a tall matrix: the reflectors, then the unit matrix's columns
        q = _C.zeros(batch + (cols, m), dtype=dt, device=dev)
        q[..., :n, :] = a
    else:
        q = a[..., :cols, :].contiguous()  # a itself when cols == n (ours to overwrite)
    if k and cols:
        _C._qr_orgqr(q, tau)
    elif cols:  # no reflectors (n == 0): Q is the unit matrix's first columns
        q = _C.eye(cols, m, dtype=dt, device=dev).expand(*batch, cols, m).contiguous()
    return return_types.linalg_qr(q.mT, R)
_C.Tensor.svd = torch_svd

__all__ = ["eigh", "eigvalsh", "qr", "svd", "svdvals"]
