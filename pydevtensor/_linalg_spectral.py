"""torch.linalg's functions of the singular values and eigenvalues: matrix_rank, pinv
and cond, composed from svd, svdvals and eigh (_linalg_decomp.py), so they run on
every device that decomposes matrices and differentiate through those ops' gradients
(pinv: where the singular values kept are distinct and non-zero)."""
import math

from . import _C, _args
from ._args import flag
from ._numpy_names import native_names
from ._linalg_decomp import _check_matrix, eigh, eigvalsh, svd, svdvals
from ._linalg_solve import _square, inv_ex
from ._ops_index import where
from ._out import takes_out
from .autograd.dispatch import recorded

_EPS = {_C.float32: 1.1920928955078125e-07, _C.float64: 2.220446049250313e-16}


def _tolerance(op, A, S, atol, rtol, tol=None):
    """max(atol, rtol * S_max) per matrix (..., 1), PyTorch's defaults: rtol =
    eps * max(m, n) when neither is given, 0 when only atol > 0 is."""
    for name, v in (("tol", tol), ("atol", atol), ("rtol", rtol)):
        if v is not None and not isinstance(v, (float, _C.Tensor)):
            _args.real(v, op, name)
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError(f"{op}: tol cannot be given with atol or rtol (on {A.device})")
        atol, rtol = tol, 0.0
    default_rtol = _EPS[A.dtype] * max(A.shape[-2], A.shape[-1])
    if rtol is None and isinstance(atol, _C.Tensor):
        # per matrix, as PyTorch: rtol = where(atol > 0, 0, eps * max(m, n)), so a tensor
        # atol of 0 keeps the default rtol (no value read back to the host)
        if atol.device != A.device:
            raise _C.DeviceError(f"{op}: Expected all tensors to be on the same device, but "
                                 f"found A on {A.device} and a tolerance on {atol.device}")
        rtol = (atol <= 0).to(S.dtype) * default_rtol
    elif rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else default_rtol

    def as_tensor(x):
        if isinstance(x, _C.Tensor):
            if x.device != A.device:
                raise _C.DeviceError(f"{op}: Expected all tensors to be on the same device, but "
                                     f"found A on {A.device} and a tolerance on {x.device}")
            return x.to(S.dtype).unsqueeze(-1)
        return _C.full((), float(x), dtype=S.dtype, device=S.device)

    smax = S.amax(-1, keepdim=True) if S.shape[-1] else _C.zeros(
        tuple(S.shape[:-1]) + (1,), dtype=S.dtype, device=S.device)
    t = as_tensor(rtol) * smax
    if atol is not None:
        t = _C.maximum(t, as_tensor(atol))
    return t


def _inverse_kept(S, keep):
    """1 / S where keep, 0 elsewhere (no division by the values dropped: their
    gradient stays finite)."""
    return where(keep, 1 / where(keep, S, _C.ones_like(S)), _C.zeros_like(S))


@takes_out("linalg.matrix_rank", castable=True)
@native_names(input="A")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The numerical rank of each matrix: the number of singular values (absolute
    eigenvalues with hermitian=True) above ``max(atol, rtol * largest)``, as
    torch.linalg.matrix_rank.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64 (also by PyTorch's keyword ``input=``).
    tol : float or Tensor, optional
        The deprecated absolute tolerance (atol with rtol 0), as PyTorch's older
        ``matrix_rank(A, tol, hermitian)``; not with atol or rtol.
    hermitian : bool, optional
        A is symmetric: eigvalsh instead of svdvals (only its lower triangle read).
    atol, rtol : float or Tensor, optional
        Absolute and relative tolerances (tensors broadcast with the batch).  Neither
        given: rtol is ``eps * max(m, n)``; only atol > 0 given: rtol is 0.

    Returns
    -------
    Tensor
        int64 (...).

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the decomposition fails to converge.

    Examples
    --------
    >>> pydevtensor.linalg.matrix_rank(pydevtensor.tensor([[1., 2.], [2., 4.]]))
    tensor(1)
    >>> pydevtensor.linalg.matrix_rank(pydevtensor.tensor([[10., 0.], [0., 1.]]), 2.0)
    tensor(1)
    """
    S = _values(A, hermitian, "linalg.matrix_rank").detach()
    return (S > _tolerance("linalg.matrix_rank", A, S, atol, rtol, tol)).sum(-1)


def _values(A, hermitian, op):
    """The singular values (..., k), or the absolute eigenvalues with hermitian."""
    if flag(hermitian, op, "hermitian"):
        _square(op, A)
        return eigvalsh(A).abs()
    _check_matrix(op, A)
    return svdvals(A)


@takes_out("linalg.pinv", castable=True)
@native_names(input="A")
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD (eigh with
    hermitian=True), singular values at or below ``max(atol, rtol * largest)`` taken
    as zero, as torch.linalg.pinv.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64 (also by PyTorch's keyword ``input=``).
    rcond : float or Tensor, optional
        The deprecated relative tolerance (rtol), as PyTorch's older
        ``pinv(A, rcond, hermitian)``; not with atol or rtol.
    hermitian : bool, optional
        A is symmetric (only its lower triangle read).
    atol, rtol : float or Tensor, optional
        As matrix_rank's.

    Returns
    -------
    Tensor
        (..., n, m).  Its gradient is the pseudo-inverse's own (Note [pinv
        derivative] in autograd/derivatives_linalg_decomp.py), finite at repeated and
        zero singular values, as PyTorch's.

    Raises
    ------
    pydevtensor.linalg.LinAlgError
        When the decomposition fails to converge.

    Examples
    --------
    >>> pydevtensor.linalg.pinv(pydevtensor.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    >>> pydevtensor.linalg.pinv(pydevtensor.tensor([[10., 0.], [0., 1.]]), 0.5)
    tensor([[0.1000, 0.0000],
            [0.0000, 0.0000]])
    """
    hermitian = flag(hermitian, "linalg.pinv", "hermitian")
    if rcond is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError(f"linalg.pinv: rcond cannot be given with atol or rtol (on "
                               f"{A.device})")
        if not isinstance(rcond, (float, _C.Tensor)):
            _args.real(rcond, "linalg.pinv", "rcond")
        rtol = rcond
    return _pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


@recorded("linalg_pinv")
def _pinv(A, *, atol, rtol, hermitian):
    op = "linalg.pinv"
    if hermitian:
        _square(op, A)
        L, V = eigh(A)
        keep = L.abs() > _tolerance(op, A, L.detach().abs(), atol, rtol)
        return (V * _inverse_kept(L, keep).unsqueeze(-2)) @ V.mT
    _check_matrix(op, A)
    U, S, Vh = svd(A, full_matrices=False)
    keep = S > _tolerance(op, A, S.detach(), atol, rtol)
    return (Vh.mT * _inverse_kept(S, keep).unsqueeze(-2)) @ U.mT


@takes_out("linalg.cond", castable=True)
@native_names(input="A")
def cond(A, p=None):
    """The condition number of each matrix in the norm p, as torch.linalg.cond: the
    ratio of the largest to the smallest singular value for p None or 2 (the inverse
    for -2), else ``matrix_norm(A, p) * matrix_norm(inv(A), p)`` (square A; inf where
    A is singular, NaN for 'nuc' of a zero matrix, as PyTorch's).

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64 (square for p other than None, 2 and -2); also
        by PyTorch's keyword ``input=``.
    p : {None, 2, -2, 'fro', 'nuc', inf, -inf, 1, -1}, optional
        The norm.

    Returns
    -------
    Tensor
        (...).

    Raises
    ------
    RuntimeError
        For a p out of that list, or a non-square A with a p that needs the inverse.

    Examples
    --------
    >>> pydevtensor.linalg.cond(pydevtensor.tensor([[4., 0.], [0., 2.]]))
    tensor(2.)
    """
    from .linalg import matrix_norm
    op = "linalg.cond"
    if p is None or p in (2, -2):
        _check_matrix(op, A)
        if A.shape[-1] == 0 or A.shape[-2] == 0:  # PyTorch: 0 for an empty matrix
            return _C.zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
        S = svdvals(A)
        return S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"{op}: got an invalid norm type: {p!r} (on {A.device})")
    _square(op, A)
    if A.shape[-1] == 0:
        return _C.zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
    Ainv, info = inv_ex(A)
    singular = info > 0
    # a singular matrix's inverse holds inf and NaN, which svdvals ('nuc') refuses: its
    # norm is inf, kept out of the norms
    norm_a = matrix_norm(A, p)
    out = norm_a * matrix_norm(Ainv.masked_fill(singular[..., None, None], 0), p)
    inf = _C.full((), math.inf, dtype=out.dtype, device=out.device)
    if p == "nuc":  # PyTorch's ||A|| * inf: NaN for A = 0, as the 2-norm's 0 / 0 (a
        # constant, not a product: 0 * inf in its gradient made every gradient NaN)
        inf = where(norm_a == 0, _C.full((), math.nan, dtype=out.dtype, device=out.device),
                    inf)
    return where(singular, inf, out)


__all__ = ["cond", "matrix_rank", "pinv"]
