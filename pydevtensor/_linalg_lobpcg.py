"""torch.lobpcg: a few extreme eigenpairs of a large symmetric positive definite generalized
eigenproblem A x = lambda B x by Knyazev's locally optimal block preconditioned conjugate
gradient method (SIAM J. Sci. Comput. 23 (2001) 517-541), in the robust form of Duersch,
Shao, Yang and Gu ("A robust and efficient implementation of LOBPCG", SIAM J. Sci.
Comput. 40 (2018) C655-C676) that PyTorch's default method ("ortho") follows: the search
basis [X, P, W] is kept B-orthonormal (SVQB, Stathopoulos and Wu 2002), so the
Rayleigh-Ritz step is a symmetric eigenproblem; P comes implicitly from the Ritz vectors;
converged leading pairs are locked.  PyTorch's method="basic" (which alone uses a
preconditioner iK) is not provided.

Composed of matmul, linalg.eigh, linalg.cholesky, linalg.solve_triangular and linalg.qr,
so it runs on every device.  The iteration is not differentiated: A and B must not
require gradients while grad mode is on (PyTorch's own backward is not provided).
"""
import builtins
import math

from . import _C
from . import _args
from ._linalg_decomp import eigh as _eigh
from ._linalg_decomp import qr as _qr
from ._linalg_more import solve_triangular as _solve_triangular
from ._linalg_solve import LinAlgError as _LinAlgError
from ._linalg_solve import cholesky as _cholesky
from ._ops_join import cat as _cat
from ._ops_join import stack as _stack
from .autograd import grad_mode

__all__ = ["lobpcg"]

_EPS = {"float32": 1.2e-07, "float64": 2.23e-16}  # PyTorch's feps, tol = sqrt(feps)


def _B(B, U):
    return U if B is None else B @ U


def _norm(T):
    return float((T * T).sum().sqrt()) if T.numel() else 0.0


def _ritz(M, largest):
    """Eigenvalues and orthonormal eigenvectors of the symmetric M, largest first if
    largest, else smallest first."""
    E, Z = _eigh(M)
    return (E.flip(-1), Z.flip(-1)) if largest else (E, Z)


class _Solver:
    def __init__(self, k, n, niter, tol, largest):
        self.A = self.B = None
        self.k, self.n, self.niter, self.tol, self.largest = k, n, niter, tol, largest

    def svqb(self, U):
        """U's columns made B-orthonormal (SVQB): scaled to unit B-norm, rotated to the
        eigenvectors of their Gram matrix, divided by the square roots of its eigenvalues
        (those below tol times the largest raised to it, so that nearly dependent columns
        stay bounded); columns of zero B-norm are dropped."""
        G = U.mT @ _B(self.B, U)
        keep = (G.diagonal() != 0).nonzero().flatten()
        if keep.numel() < U.shape[-1]:
            U, G = U[:, keep], G[keep][:, keep]
        if U.shape[-1] == 0:
            return U
        d = G.diagonal().rsqrt()
        theta, Z = _eigh(G * d[:, None] * d[None, :])
        theta = theta.clamp(min=self.tol * float(theta.abs().max()))
        return (U * d) @ (Z * theta.rsqrt())

    def ortho(self, U, V):
        """U made B-orthonormal and B-orthogonal to the B-orthonormal V (Duersch et al.'s
        algorithm: project out V, SVQB until U^T B U = I to tol, and again while V^T B U
        is not 0 to tol; 3 rounds of each at most)."""
        BV_norm = _norm(_B(self.B, V))
        for _ in range(3):
            U = U - V @ (V.mT @ _B(self.B, U))
            for _ in range(3):
                U = self.svqb(U)
                if U.shape[-1] == 0:
                    return U
                BU = _B(self.B, U)
                I = _C.eye(U.shape[-1], dtype=U.dtype, device=U.device)
                if _norm(U.mT @ BU - I) < self.tol * _norm(BU) * _norm(U):
                    break
            if _norm(V.mT @ BU) < self.tol * BV_norm * _norm(U):
                break
        return U

    def rayleigh_ritz(self, S):
        """(E, C): the Ritz values and the coefficients C (S C B-orthonormal) of A on
        span(S), through the Cholesky factor of S's scaled B-Gram matrix."""
        G = S.mT @ _B(self.B, S)
        d = G.diagonal().rsqrt()
        R = _cholesky(G * d[:, None] * d[None, :], upper=True)
        Ri = _solve_triangular(R, d.diag_embed(), upper=True, left=False)
        E, Z = _ritz(Ri.mT @ (S.mT @ (self.A @ S)) @ Ri, self.largest)
        return E, Ri @ Z

    def converged(self, X, E, before):
        """The number of leading pairs whose relative residual norm
        |A x - e B x| / (|x| (|A| + |e| |B|)) is below tol (never fewer than before)."""
        R = self.A @ X - _B(self.B, X) * E
        rerr = (R * R).sum(0).sqrt() / ((X * X).sum(0).sqrt() * (self.A_norm
                                                                 + E.abs() * self.B_norm))
        ok = (rerr < self.tol).tolist()
        count = ok.index(False) if False in ok else len(ok)
        return R, builtins.max(count, before)

    def run(self, X):
        why = "its n columns must be linearly independent (and B positive definite)"
        if not bool((_B(self.B, X) * X).sum(0).gt(0).all()):  # else 0 / 0 below
            raise _LinAlgError(f"lobpcg(): the start X {tuple(X.shape)} has a column of zero "
                               f"B-norm; {why}")
        X0_norm = _norm(X)
        self.A_norm = _norm(self.A @ X) / X0_norm
        self.B_norm = _norm(_B(self.B, X)) / X0_norm
        n, nc = self.n, 0
        try:
            E, C = self.rayleigh_ritz(X)
        except _LinAlgError as e:  # the Cholesky factor of X^T B X
            raise _LinAlgError(f"lobpcg(): X^T B X of the start X {tuple(X.shape)} is not "
                               f"positive definite; {why}") from e
        X, E = X @ C, E.clone()
        R, nc = self.converged(X, E, 0)
        P = X[:, :0]
        steps = 0
        while nc < self.k and steps != self.niter:
            steps += 1
            W = self.ortho(R[:, nc:], _cat([X, P], 1))
            S = _cat([X[:, nc:], P, W], 1)
            if S.shape[-1] > self.A.shape[-1]:
                raise ValueError(f"lobpcg(): the search basis has {S.shape[-1]} columns, "
                                 f"more than A's {self.A.shape[-1]} rows")
            E_, Z = _ritz(S.mT @ (self.A @ S), self.largest)
            kept = n - nc
            X = _cat([X[:, :nc], S @ Z[:, :kept]], 1)
            E = _cat([E[:nc], E_[:kept]])
            # P: the other Ritz vectors, rotated to span what they add to the old X
            P = S @ (Z[:, kept:] @ _qr(Z[:kept, kept:].mT).Q)
            R, nc = self.converged(X, E, nc)
        return E[:self.k], X[:, :self.k]


def _count(value, name, default):
    if value is None:
        return default
    return _args.size(value, "lobpcg()", name, least=1)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The k largest (or smallest) eigenpairs of the symmetric positive definite
    generalized problem ``A x = lambda B x`` (PyTorch's ``torch.lobpcg``), by LOBPCG.

    The m x m matrices A and B (B the identity if None) are read as given (symmetric);
    batches of them are solved one after another.  m must be at least 3 n.  The start
    is X, or an (m, n) draw of ``randn`` from the global generator.

    Parameters
    ----------
    A : Tensor
        The (\\*, m, m) symmetric matrix, float32 or float64.
    k : int, optional
        The number of eigenpairs wanted (default X's columns, or 1).
    B : Tensor, optional
        The (\\*, m, m) symmetric positive definite matrix (default the identity).
    X : Tensor, optional
        The (\\*, m, n) start; its columns give n.
    n : int, optional
        The block size when X is None (default k).
    iK : None
        Only None: PyTorch's preconditioner is used by its method="basic" alone, which
        is not provided.
    niter : int, optional
        The most iterations (default 1000; -1: until k pairs converge).
    tol : float, optional
        The relative residual tolerance (default the square root of the dtype's epsilon).
    largest : bool, optional
        True (the default): the largest eigenvalues; False: the smallest.
    method : str, optional
        Only "ortho" (the default); "basic" is not implemented.
    tracker : None
        Only None (PyTorch's tracker is deprecated).
    ortho_iparams, ortho_fparams, ortho_bparams : dict, optional
        Accepted for PyTorch's signature; only None or empty.

    Returns
    -------
    (Tensor, Tensor)
        The (\\*, k) eigenvalues, largest first (smallest first if not largest), and
        the (\\*, m, k) B-orthonormal eigenvectors.

    Raises
    ------
    LinAlgError
        When the start X's columns are not B-linearly independent (a zero column, a
        repeated one), or a decomposition fails (NaN or inf in A, B not positive
        definite).

    Examples
    --------
    >>> A = pydevtensor.diag(pydevtensor.arange(1.0, 11.0, dtype=pydevtensor.float64))
    >>> _ = pydevtensor.manual_seed(0)
    >>> E, X = pydevtensor.lobpcg(A, k=2)
    >>> E.round(decimals=6)
    tensor([10.,  9.], dtype=pydevtensor.float64)
    >>> pydevtensor.lobpcg(A, k=2, largest=False)[0].round(decimals=6)
    tensor([1., 2.], dtype=pydevtensor.float64)
    """
    A = _matrix(A, "A")
    if B is not None:
        B = _matrix(B, "B")
        if B.shape != A.shape or B.dtype != A.dtype or B.device != A.device:
            raise ValueError(f"lobpcg(): A and B must have the same shape, dtype and device, "
                             f"got {tuple(A.shape)} {A.dtype} on {A.device} and "
                             f"{tuple(B.shape)} {B.dtype} on {B.device}")
    m = A.shape[-1]
    if X is not None:
        X = _matrix(X, "X", square=False)
        if X.shape[:-1] != A.shape[:-1] or X.dtype != A.dtype or X.device != A.device:
            raise ValueError(f"lobpcg(): X must be (*, m, n) = {tuple(A.shape[:-1])} + (n,) "
                             f"of A's dtype and device, got {tuple(X.shape)} {X.dtype} on "
                             f"{X.device}")
    k = _count(k, "k", 1 if X is None else X.shape[-1])
    n = X.shape[-1] if X is not None else _count(n, "n", k)
    if k > n:
        raise ValueError(f"lobpcg(): k (={k}) must not exceed the block size n (={n})")
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows "
                         f"(={m}) is smaller than 3 x the number of requested eigenpairs "
                         f"(={n})")
    niter = 1000 if niter is None else _args.integer(niter, "lobpcg", "niter")
    if niter < -1:
        raise ValueError(f"lobpcg(): niter must be >= -1 (-1: until convergence), got {niter}")
    tol = (math.sqrt(_EPS[str(A.dtype).rsplit(".", 1)[1]]) if tol is None
           else _args.real(tol, "lobpcg", "tol"))
    if not tol > 0:
        raise ValueError(f"lobpcg(): tol must be positive, got {tol}")
    largest = True if largest is None else _args.flag(largest, "lobpcg", "largest")
    if method not in (None, "ortho"):
        if method == "basic":
            raise NotImplementedError("lobpcg(): method='basic' is not implemented; use the "
                                      "default, 'ortho'")
        raise ValueError(f"lobpcg(): method must be 'ortho' or 'basic', got {method!r}")
    if iK is not None:  # PyTorch's 'ortho' ignores it; refused rather than ignored here
        raise NotImplementedError("lobpcg(): the preconditioner iK is used only by "
                                  "method='basic', which is not implemented")
    if tracker is not None:
        raise ValueError("lobpcg(): tracker must be None (PyTorch deprecated it)")
    if any(p for p in (ortho_iparams, ortho_fparams, ortho_bparams)):
        raise ValueError("lobpcg(): ortho_iparams, ortho_fparams and ortho_bparams are not "
                         "supported (only None or empty)")
    if grad_mode.is_grad_enabled() and any(
            t is not None and t.requires_grad for t in (A, B, X)):
        raise NotImplementedError("lobpcg(): gradients are not supported; pass detached "
                                  "tensors or call it under no_grad()")
    solver = _Solver(k, n, niter, tol, largest)
    batch = tuple(A.shape[:-2])
    flat_A = A.reshape(-1, m, m)
    if flat_A.shape[0] == 0:  # an empty batch: empty results, as PyTorch's
        return (_C.empty(*batch, k, dtype=A.dtype, device=A.device),
                _C.empty(*batch, m, k, dtype=A.dtype, device=A.device))
    E_all, X_all = [], []
    for i in range(flat_A.shape[0]):
        solver.A = flat_A[i]
        solver.B = None if B is None else B.reshape(-1, m, m)[i]
        start = (_C.randn(m, n, dtype=A.dtype, device=A.device) if X is None
                 else X.reshape(-1, m, n)[i])
        E, V = solver.run(start)
        E_all.append(E)
        X_all.append(V)
    if not batch:
        return E_all[0], X_all[0]
    return _stack(E_all).reshape(*batch, k), _stack(X_all).reshape(*batch, m, k)


def _matrix(T, name, square=True):
    if not isinstance(T, _C.Tensor):
        raise TypeError(f"lobpcg(): argument '{name}' must be a Tensor, got {type(T).__name__}")
    if T.ndim < 2 or (square and T.shape[-1] != T.shape[-2]):
        raise ValueError(f"lobpcg(): {name} must be {'square ' if square else ''}(*, m, "
                         f"{'m' if square else 'n'}), got shape {tuple(T.shape)}")
    if T.dtype not in (_C.float32, _C.float64):
        raise _C.DTypeError(f"lobpcg(): {name} must be float32 or float64, got {T.dtype}")
    return T
