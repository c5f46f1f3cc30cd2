"""The derivatives of pydevtensor.linalg's solvers (pydevtensor/_linalg_solve.py):
solve, inv, det, slogdet and cholesky, with PyTorch's Node names.  Each backward is
written with the same solvers, on the tensors' own device: the fast unrecorded
solve (_solve_matrices, which overwrites a copy in place) under no_grad, as the
engine runs it; the recorded linalg.solve under create_graph=True, and the saved
outputs (X, A^-1, det, L) are kept as output slots (Node.save_tensors(outputs=)), so
that a second derivative sees their dependence on A and B.

Note [linalg derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~
With X = A^-1 B:  gB = A^-T gX,  gA = -gB X^T (summed over broadcast batch dims).
With Y = A^-1:    gA = -Y^T gY Y^T.
With d = det A:   gA = g d A^-T; where A is singular (LU's info), from A's SVD
A = U diag(S) Vh:  gA = g det(U) det(Vh) U diag(P) Vh, P[i] the product of the S[j],
j != i (the cofactor matrix, as PyTorch).  logabsdet: gA = g A^-T (the sign has none;
a singular A raises LinAlgError in backward).
With A = L L^T:   gA = sym(L^-T Phi(L^T gL) L^-1), Phi(M) = M's lower triangle with
its diagonal halved, sym(S) = (S + S^T) / 2 (the gradient of a symmetric input;
PyTorch's convention).  U = L^T with upper=True: gL = gU^T.

Note [LU derivative]
~~~~~~~~~~~~~~~~~~~~
PyTorch's (linalg_lu_backward), with A = P L U (m, n), k = min(m, n).  Square:
gA = P L^-T (tril_-1(L^T gL) + triu(gU U^T)) U^-T.  Wide (m < n, U = [U1 U2]):
gA = P L^-T [tril_-1(L^T gL - triu(gU) U^T) U1^-T + triu(gU1), gU2].  Tall (m > n,
L = [L1; L2]): gA = P [L1^-T triu(gU U^T - L^T tril_-1(gL)) + tril_-1(gL1); gL2] U^-T.
lu_factor's gLU gives gL = gLU[..., :k] and gU = gLU[..., :k, :] (each formula reads
only the triangle of them that L or U occupies).
"""
from .. import _C
from .derivatives import meta, reduce_grad
from .dispatch import derivative
from .node import Node


def _solver():
    from .. import _linalg_solve  # late: it imports the recorder
    return _linalg_solve


def _solve(A, Bm, op):
    """A^-1 Bm for matrices; recorded (a differentiable solve) when grad mode is on,
    i.e. under create_graph=True, so that the gradient can be differentiated again."""
    s = _solver()
    if _C.is_grad_enabled() and (A.requires_grad or Bm.requires_grad):
        return s.solve(A, Bm)
    return s._solve_matrices(A, Bm, op, True)[0]


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _solve_left_grads(A, Xm, gXm):
    """(gA, gBm) of Xm = A^-1 Bm for matrices (..., n, k) (batch dims broadcast)."""
    gBm = _solve(A.mT, gXm, "linalg.solve backward")
    return -(gBm @ Xm.mT), gBm


@derivative("linalg_solve", "linalg_solve_ex")
class LinalgSolveExBackward0(Node):
    def save(self, out, A, B, left=True, **kw):
        self.left = left
        self.vector = left and _solver()._solve_shapes(A, B)[1]
        self.metas = (meta(A), meta(B))
        self.save_tensors(A, _first(out).detach(), outputs=(1,))
        return (A, B)

    def backward(self, g):
        A, X = self.saved_tensors
        if self.left:
            Xm, gXm = (X.unsqueeze(-1), g.unsqueeze(-1)) if self.vector else (X, g)
            gA, gB = _solve_left_grads(A, Xm, gXm)
            if self.vector:
                gB = gB.squeeze(-1)
        else:  # X A = B: X^T = A^-T B^T
            gAt, gBt = _solve_left_grads(A.mT, X.mT, g.mT)
            gA, gB = gAt.mT, gBt.mT
        need = self.needs_input_grad
        return (reduce_grad(gA, self.metas[0]) if need[0] else None,
                reduce_grad(gB, self.metas[1]) if need[1] else None)


@derivative("linalg_solve_triangular_upper")
class LinalgSolveTriangularBackward0(Node):
    """X = U^-1 B for upper triangles U (solve_triangular's back substitution, Note
    [triangular solves] in _linalg_more.py): gB = U^-T g by substitution too (a
    solve_triangular of the lower U^T, recorded under create_graph=True; a general solve
    of it would pivot and lose the accuracy), and gU = triu(-gB X^T), the entries read."""

    def save(self, out, U, B):
        self.save_tensors(U, out.detach(), outputs=(1,))
        return (U, B)

    def backward(self, g):
        from .._linalg_more import solve_triangular
        U, X = self.saved_tensors
        gB = solve_triangular(U.mT, g, upper=False)
        need = self.needs_input_grad
        return ((-(gB @ X.mT)).triu() if need[0] else None, gB if need[1] else None)


@derivative("linalg_inv", "linalg_inv_ex")
class LinalgInvExBackward0(Node):
    def save(self, out, A, **kw):
        self.save_tensors(_first(out).detach(), outputs=(0,))
        return (A,)

    def backward(self, g):
        Yt = self.saved_tensors[0].mT
        return -(Yt @ g @ Yt)


def _products_but_one(S):
    """P[..., i] = the product of S[..., j] over j != i (no division: exact with zeros)."""
    from .._ops_join import cat
    one = _C.ones_like(S[..., :1])
    before = cat([one, S[..., :-1]], -1).cumprod(-1)
    after = cat([S[..., 1:], one], -1).flip(-1).cumprod(-1).flip(-1)
    return before * after


def _det_grad_svd(A, g):
    """g times the gradient of det at A, from A = U diag(S) Vh (Note [linalg
    derivatives]): U diag(sign P) Vh, sign = det(U) det(Vh), P the products of all
    singular values but one; defined for a singular A too."""
    from .. import _linalg_decomp
    U, S, Vh = _linalg_decomp.svd(A)
    det = _solver().det
    scale = (g * det(U) * det(Vh)).unsqueeze(-1) * _products_but_one(S)
    return (U * scale.unsqueeze(-2)) @ Vh


@derivative("linalg_det")
class LinalgDetBackward0(Node):
    def save(self, out, A, **kw):
        self.save_tensors(A, out.detach(), outputs=(1,))
        return (A,)

    def backward(self, g):
        A, d = self.saved_tensors
        s = _solver()
        if A.shape[-1] == 0:
            return _C.zeros_like(A)
        Ainv, info = s.inv_ex(A)  # reads nothing back
        lu = (g * d).unsqueeze(-1).unsqueeze(-1) * Ainv.mT
        if s._first_failure(info, "det's backward") is None:  # info on the host: a counted copy
            return lu
        singular = (info != 0).unsqueeze(-1).unsqueeze(-1)
        from .._ops_index import where
        # each branch from a matrix it is defined at (the other slots get a stand-in),
        # so that a second derivative (create_graph) has no inf * 0 from the branch
        # where() drops: the inverse of the identity where A is singular, the SVD of
        # diag(1..n) (distinct singular values) where it is not
        n = A.shape[-1]
        eye = _C.eye(n, dtype=A.dtype, device=A.device)
        lu = (g * d).unsqueeze(-1).unsqueeze(-1) * s.inv_ex(where(singular, eye, A))[0].mT
        distinct = eye * _C.arange(1, n + 1, dtype=A.dtype, device=A.device)
        return where(singular, _det_grad_svd(where(singular, A, distinct), g), lu)


@derivative("linalg_slogdet")
class LinalgSlogdetBackward0(Node):
    num_outputs = 2  # sign (no gradient), logabsdet

    def save(self, out, A, **kw):
        self.save_tensors(A)
        return (A,)

    def apply(self, grads):
        g = grads[1]
        if g is None:
            return (None,)
        A = self.saved_tensors[0]
        # inv_ex, not inv: a singular matrix of the batch gets its inverse's inf and NaN
        # (PyTorch's gradient there holds infinities too) instead of failing the whole
        # backward, and nothing is read back to find it
        return (g.unsqueeze(-1).unsqueeze(-1) * _solver().inv_ex(A)[0].mT,)


@derivative("linalg_cholesky", "linalg_cholesky_ex")
class LinalgCholeskyExBackward0(Node):
    def save(self, out, A, upper=False, **kw):
        self.upper = upper
        self.save_tensors(_first(out).detach(), outputs=(0,))
        return (A,)

    def backward(self, g):
        F = self.saved_tensors[0]
        L, gL = (F.mT, g.mT) if self.upper else (F, g)
        n = L.shape[-1]
        half = _C.ones((n, n), dtype=L.dtype, device=L.device).tril() - \
            0.5 * _C.eye(n, dtype=L.dtype, device=L.device)
        phi = (L.mT @ gL) * half
        T = _solve(L.mT, phi, "linalg.cholesky backward")  # L^-T Phi
        S = _solve(L.mT, T.mT, "linalg.cholesky backward").mT
        return 0.5 * (S + S.mT)


def _lu_grad(P, L, U, gL, gU):
    """gA of ``A = P L U`` (m, n), L (m, k), U (k, n), from gL and gU (either None),
    PyTorch's formulas (Note [LU derivative]): U's leading k x k block and L's must
    be nonsingular."""
    from .._ops_join import cat
    op = "linalg.lu backward"
    m, n = L.shape[-2], U.shape[-1]
    if m <= n:  # square or wide: L (m, m), U = [U1 U2], U1 (m, m)
        M = _C.zeros_like(L)
        if m == n:
            if gL is not None:
                M = M + (L.mT @ gL).tril(-1)
            if gU is not None:
                M = M + (gU @ U.mT).triu()
        else:
            if gL is not None:
                M = M + L.mT @ gL
            if gU is not None:
                M = M - gU.triu() @ U.mT
            M = M.tril(-1)
        G = _solve(U[..., :m], M.mT, op).mT  # M U1^-T
        if m < n:
            G = cat([G + gU[..., :m].triu(), gU[..., m:]] if gU is not None else
                    [G, _C.zeros_like(U[..., m:])], -1)
        return P @ _solve(L.mT, G, op)
    # tall: L = [L1; L2], L1 (n, n), U (n, n)
    M = _C.zeros_like(U)
    if gU is not None:
        M = M + gU @ U.mT
    if gL is not None:
        M = M - L.mT @ gL.tril(-1)
    G = _solve(L[..., :n, :].mT, M.triu(), op)
    G = cat([G + gL[..., :n, :].tril(-1), gL[..., n:, :]] if gL is not None else
            [G, _C.zeros_like(L[..., n:, :])], -2)
    return P @ _solve(U, G.mT, op).mT  # G U^-T


@derivative("linalg_lu")
class LinalgLuBackward0(Node):
    num_outputs = 3  # P (no gradient), L, U

    def save(self, out, A, **kw):
        self.save_tensors(*[t.detach() for t in out], outputs=(0, (1, 1), (2, 2)))
        return (A,)

    def apply(self, grads):
        _, gL, gU = grads
        if gL is None and gU is None:
            return (None,)
        return (_lu_grad(*self.saved_tensors, gL, gU),)


@derivative("linalg_lu_factor", "linalg_lu_factor_ex")
class LinalgLuFactorExBackward0(Node):
    num_outputs = 3  # LU, pivots and info (integers: no gradient)

    def save(self, out, A, **kw):
        self.num_outputs = len(out)
        self.save_tensors(out[0].detach(), out[1], outputs=(0,))
        return (A,)

    def apply(self, grads):
        g = grads[0]
        if g is None:
            return (None,)
        from .._linalg_lu import _unpack
        LU, piv = self.saved_tensors
        P, L, U = _unpack(LU, piv, True, True)
        k = min(LU.shape[-2], LU.shape[-1])
        return (_lu_grad(P, L, U, g[..., :k], g[..., :k, :]),)
