"""The derivatives of pydevtensor.linalg's decompositions (pydevtensor/_linalg_decomp.py):
eigh, eigvalsh, svd and svdvals, with PyTorch's Node names, in real arithmetic,
written with matmuls and elementwise ops on the tensors' own device.

Note [decomposition derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
eigh, A = V diag(L) V^T:  with skew(X) = (X - X^T) / 2 and E[i, j] = L[j] - L[i],
    gA = V (diag(gL) + skew(V^T gV) / E) V^T        (off the diagonal of E)
which is symmetric (PyTorch's convention for a symmetric input).  Only functions
invariant to each eigenvector's sign have a meaningful gradient; where two
eigenvalues coincide the division makes it infinite or NaN, as in PyTorch.
eigvalsh: gA = V diag(gL) V^T, V computed in backward.
svd, A = U diag(S) Vh (reduced; k = min(m, n)): with skew'(X) = X - X^T and
E[i, j] = S[j]^2 - S[i]^2,
    G = (skew'(U^T gU) S[None, :] + S[:, None] skew'(V^T gV)) / E,  diag(G) = gS
    gA = U G Vh  + (I - U U^T) gU diag(1/S) Vh       (m > k)
                 + U diag(1/S) gV^T (I - V V^T)      (n > k)
With full_matrices=True only the first k columns of U (rows of Vh) take part.
svdvals: gA = U diag(gS) Vh.
qr, A = Q R (reduced, m >= n): with M = R gR^T - gQ^T Q and copyltu(M) the symmetric
matrix of M's lower triangle,
    gA = (gQ + Q copyltu(M)) R^-T
(R^-T by a solve: R must be nonsingular, i.e. A of full column rank).  m < n: A = [X | Y]
and R = [U | V] with X = Q U square, so gX is the formula above with gQ + Y gV^T and gU,
and gY = Q gV (PyTorch's linalg_qr_backward).

Each formula is written with recorded ops on the saved outputs, which take their Node
as grad_fn again under create_graph=True (save_tensors' outputs=), so a second
derivative sees their dependence on A, as PyTorch's.  eigvalsh and svdvals, whose
vectors are not outputs, compute them again from A, recorded, when the gradient is to
be differentiated (A is kept for that, and must not change in place).
"""
from .. import _C
from .derivatives_linalg import _solve
from .dispatch import derivative, run_no_grad
from .node import Node


def _decomp():
    from .. import _linalg_decomp  # late: it imports the recorder
    return _linalg_decomp


def _off_diagonal_inverse(E):
    """1 / E off the diagonal, 0 on it."""
    n = E.shape[-1]
    eye = _C.eye(n, dtype=E.dtype, device=E.device)
    return (1 - eye) / (E + eye)


def _with_diagonal(M, d):
    """M with its diagonal replaced by d (zeros when d is None)."""
    n = M.shape[-1]
    eye = _C.eye(n, dtype=M.dtype, device=M.device)
    M = M * (1 - eye)
    return M if d is None else M + eye * d.unsqueeze(-2)


@derivative("linalg_eigh")
class LinalgEighBackward0(Node):
    num_outputs = 2  # eigenvalues, eigenvectors

    def save(self, out, A, UPLO="L", **kw):
        self.save_tensors(out[0].detach(), out[1].detach(), outputs=(0, (1, 1)))
        return (A,)

    def apply(self, grads):
        gL, gV = grads
        L, V = self.saved_tensors
        if gV is None:
            M = _with_diagonal(_C.zeros_like(V), gL)
        else:
            VtgV = V.mT @ gV
            F = _off_diagonal_inverse(L.unsqueeze(-2) - L.unsqueeze(-1))
            M = _with_diagonal(0.5 * (VtgV - VtgV.mT) * F, gL)
        return (V @ M @ V.mT,)


@derivative("linalg_eigvalsh")
class LinalgEigvalshBackward0(Node):
    def save(self, out, A, UPLO="L", **kw):
        self.uplo = UPLO
        V = run_no_grad(_decomp().eigh, A, UPLO).eigenvectors
        self.save_tensors(V, A)
        return (A,)

    def backward(self, g):
        V, A = self.saved_tensors
        if _C.is_grad_enabled():  # create_graph: V's own dependence on A, recorded
            V = _decomp().eigh(A, self.uplo).eigenvectors
        return (V * g.unsqueeze(-2)) @ V.mT


def _svd_grad(U, S, Vh, gU, gS, gVh):
    """gA of the reduced A = U diag(S) Vh (Note [decomposition derivatives])."""
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)) @ Vh
    V = Vh.mT
    gV = gVh.mT if gVh is not None else None
    G = None
    if gU is not None:
        UtgU = U.mT @ gU
        G = (UtgU - UtgU.mT) * S.unsqueeze(-2)
    if gV is not None:
        VtgV = V.mT @ gV
        T = S.unsqueeze(-1) * (VtgV - VtgV.mT)
        G = T if G is None else G + T
    S2 = S * S
    G = _with_diagonal(G * _off_diagonal_inverse(S2.unsqueeze(-2) - S2.unsqueeze(-1)), gS)
    gA = U @ G @ Vh
    if m > k and gU is not None:
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + (gUSinv - U @ (U.mT @ gUSinv)) @ Vh
    if n > k and gV is not None:
        SinvgVh = gV.mT / S.unsqueeze(-1)
        gA = gA + U @ (SinvgVh - (SinvgVh @ V) @ Vh)
    return gA


@derivative("linalg_svd")
class LinalgSvdBackward0(Node):
    num_outputs = 3  # U, S, Vh

    def save(self, out, A, full_matrices=True, **kw):
        self.full = full_matrices
        self.save_tensors(*(t.detach() for t in out), outputs=(0, (1, 1), (2, 2)))
        return (A,)

    def apply(self, grads):
        gU, gS, gVh = grads
        U, S, Vh = self.saved_tensors
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]  # full_matrices: the first k take part
        if self.full:
            gU = gU[..., :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        if gS is None:
            gS = _C.zeros_like(S)
        return (_svd_grad(U, S, Vh, gU, gS, gVh),)


@derivative("linalg_svdvals")
class LinalgSvdvalsBackward0(Node):
    def save(self, out, A, **kw):
        U, _, Vh = run_no_grad(_decomp().svd, A, False)
        self.save_tensors(U, Vh, A)
        return (A,)

    def backward(self, g):
        U, Vh, A = self.saved_tensors
        if _C.is_grad_enabled():  # create_graph: the vectors' dependence on A, recorded
            U, _, Vh = _decomp().svd(A, False)
        return (U * g.unsqueeze(-2)) @ Vh


@derivative("linalg_qr")
class LinalgQrBackward0(Node):
    num_outputs = 2  # Q, R

    def save(self, out, A, mode="reduced", **kw):
        self.mode = mode
        self.save_tensors(out[0].detach(), out[1].detach(), outputs=(0, (1, 1)))
        return (A,)

    def apply(self, grads):
        gQ, gR = grads
        Q, R = self.saved_tensors
        if self.mode == "r":
            raise NotImplementedError(
                "The derivative of linalg.qr depends on Q, which is not computed when "
                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               f"and nrows > ncols (a {m} x {n} matrix).")
        if m >= n:
            return (_qr_grad(Q, R, gQ, gR),)
        # m < n (PyTorch's rule): A = [X | Y], R = [U | V], X = Q U the square case and
        # Y = Q V, so gY = Q gV and X takes gQ + Y gV^T with gU
        from .._ops_join import cat  # imported late: it imports the recorder
        U, V = R[..., :m], R[..., m:]
        if gR is None:
            gU, gY = None, _C.zeros(tuple(V.shape), dtype=V.dtype, device=V.device)
        else:
            gU, gV = gR[..., :m], gR[..., m:]
            gY, extra = Q @ gV, (Q @ V) @ gV.mT
            gQ = extra if gQ is None else gQ + extra
        return (cat([_qr_grad(Q, U, gQ, gU), gY], -1),)


def _qr_grad(Q, R, gQ, gR):
    """linalg.qr's gradient for m >= n (R square, n x n): with M = R gR^T - gQ^T Q,
    gA = (gQ + Q copyltu(M)) R^-T, copyltu(M) the lower triangle mirrored."""
    n = R.shape[-1]
    M = _C.zeros_like(R)
    if gR is not None:
        M = M + R @ gR.mT
    if gQ is not None:
        M = M - gQ.mT @ Q
    low = M.tril(-1)
    B = Q @ (low + low.mT + M * _C.eye(n, dtype=M.dtype, device=M.device))
    if gQ is not None:
        B = B + gQ
    return _solve(R, B.mT, "linalg.qr backward").mT


@derivative("linalg_pinv")
class LinalgPinvBackward0(Node):
    """Note [pinv derivative]: with P = A^+ (n, m) and G its gradient,
    gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A), the derivative of a
    pseudo-inverse of locally constant rank (Golub and Pereyra, SIAM J. Numer. Anal.
    10(2), 1973, eq. 4.12), written with A and P alone: finite at repeated and zero
    singular values, where the way through svd's gradient (1 / (s_i^2 - s_j^2)) gave
    NaN for the identity.  The same for hermitian=True and for truncated (rtol/atol)
    pseudo-inverses, as PyTorch's pinv_backward."""

    def save(self, out, A, **kw):
        self.save_tensors(A, out.detach(), outputs=(1,))
        return (A,)

    def backward(self, g):
        A, P = self.saved_tensors
        Pt, Gt = P.mT, g.mT
        first = -(Pt @ g @ Pt)
        second = (Gt - A @ (P @ Gt)) @ (P @ Pt)
        third = (Pt @ P) @ (Gt - (Gt @ P) @ A)
        return first + second + third



def _sylvester(s, V, M):
    """Y with H Y + Y H = M for the symmetric positive (semi-)definite H = V diag(s) V^T:
    in H's eigenbasis a division of V^T M V by s_i + s_j, finite at repeated s."""
    return V @ ((V.mT @ M @ V) / (s.unsqueeze(-1) + s.unsqueeze(-2))) @ V.mT


@derivative("linalg_matrix_sqrth")
class LinalgMatrixSqrthBackward0(Node):
    """Note [matrix root derivatives]
    matrix_sqrth, X X = A:  dX X + X dX = dA, so gA solves X gA + gA X = sym(gX) with
    sym(G) = (G + G^T) / 2 (symmetric, PyTorch's convention for a symmetric input); in
    X's eigenbasis a division by s_i + s_j, finite at repeated eigenvalues (sqrth(I)),
    where the way through eigh's gradient (1 / (s_i - s_j)) gave NaN.
    polar, A = U H (m >= n, U^T U = I, H = (A^T A)^(1/2)): U^T dA = Omega H + dH with
    Omega = U^T dU skew, so H Omega + Omega H = U^T dA - dA^T U, and
    dU = U Omega + (I - U U^T) dA H^-1.  With M = U^T gU - gH H and Y solving
    H Y + Y H = skew(M) = (M - M^T) / 2,
        gA = U gH + 2 U Y + (I - U U^T) gU H^-1     (the last term only for m > n)
    (H^-1 infinite, and the gradient NaN, at a rank-deficient A, as PyTorch's)."""

    def save(self, out, A, **kw):
        self.save_tensors(out.detach(), outputs=(0,))
        return (A,)

    def backward(self, g):
        (X,) = self.saved_tensors
        return _sylvester(*_decomp().eigh(X), 0.5 * (g + g.mT))


@derivative("linalg_polar")
class LinalgPolarBackward0(Node):
    """Note [matrix root derivatives] (above)."""
    num_outputs = 2  # U, H

    def save(self, out, A, **kw):
        self.save_tensors(out[0].detach(), out[1].detach(), outputs=(0, (1, 1)))
        return (A,)

    def apply(self, grads):
        gU, gH = grads
        U, H = self.saved_tensors
        s, V = _decomp().eigh(H)
        M = -(gH @ H) if gU is None else U.mT @ gU if gH is None else U.mT @ gU - gH @ H
        gA = 2 * (U @ _sylvester(s, V, 0.5 * (M - M.mT)))
        if gH is not None:
            gA = gA + U @ gH
        if gU is not None and U.shape[-2] > U.shape[-1]:
            rest = gU - U @ (U.mT @ gU)  # (I - U U^T) gU, times H^-1 = V diag(1/s) V^T
            gA = gA + ((rest @ V) / s.unsqueeze(-2)) @ V.mT
        return (gA,)
