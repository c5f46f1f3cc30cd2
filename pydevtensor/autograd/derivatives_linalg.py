"""The derivatives of pydevtensor.linalg's solvers (pydevtensor/_linalg_solve.py):
solve, inv, det, slogdet and cholesky, with PyTorch's Node names.  Each backward is
written with the same solvers (under no_grad, as the engine runs it), on the
tensors' own device.

Note [linalg derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~
With X = A^-1 B:  gB = A^-T gX,  gA = -gB X^T (summed over broadcast batch dims).
With Y = A^-1:    gA = -Y^T gY Y^T.
With d = det A:   gA = g d A^-T;  logabsdet: gA = g A^-T (the sign has none).  Both
need A nonsingular: a singular A raises LinAlgError in backward (PyTorch goes through
an SVD there; not done here).
With A = L L^T:   gA = sym(L^-T Phi(L^T gL) L^-1), Phi(M) = M's lower triangle with
its diagonal halved, sym(S) = (S + S^T) / 2 (the gradient of a symmetric input;
PyTorch's convention).  U = L^T with upper=True: gL = gU^T.
"""
from .. import _C
from .derivatives import meta, reduce_grad
from .dispatch import derivative
from .node import Node


def _solver():
    from .. import _linalg_solve  # late: it imports the recorder
    return _linalg_solve


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _solve_left_grads(A, Xm, gXm):
    """(gA, gBm) of Xm = A^-1 Bm for matrices (..., n, k) (batch dims broadcast)."""
    gBm = _solver()._solve_matrices(A.mT, gXm, "linalg.solve backward", True)[0]
    return -(gBm @ Xm.mT), gBm


@derivative("linalg_solve", "linalg_solve_ex")
class LinalgSolveExBackward0(Node):
    def save(self, out, A, B, left=True, **kw):
        self.left = left
        self.vector = left and _solver()._solve_shapes(A, B)[1]
        self.metas = (meta(A), meta(B))
        self.save_tensors(A, _first(out).detach())
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


@derivative("linalg_inv", "linalg_inv_ex")
class LinalgInvExBackward0(Node):
    def save(self, out, A, **kw):
        self.save_tensors(_first(out).detach())
        return (A,)

    def backward(self, g):
        Yt = self.saved_tensors[0].mT
        return -(Yt @ g @ Yt)


def _inv_transposed(A):
    return _solver().inv(A).mT


@derivative("linalg_det")
class LinalgDetBackward0(Node):
    def save(self, out, A, **kw):
        self.save_tensors(A, out.detach())
        return (A,)

    def backward(self, g):
        A, d = self.saved_tensors
        return (g * d).unsqueeze(-1).unsqueeze(-1) * _inv_transposed(A)


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
        return (g.unsqueeze(-1).unsqueeze(-1) * _inv_transposed(A),)


@derivative("linalg_cholesky", "linalg_cholesky_ex")
class LinalgCholeskyExBackward0(Node):
    def save(self, out, A, upper=False, **kw):
        self.upper = upper
        self.save_tensors(_first(out).detach())
        return (A,)

    def backward(self, g):
        F = self.saved_tensors[0]
        L, gL = (F.mT, g.mT) if self.upper else (F, g)
        n = L.shape[-1]
        half = _C.ones((n, n), dtype=L.dtype, device=L.device).tril() - \
            0.5 * _C.eye(n, dtype=L.dtype, device=L.device)
        phi = (L.mT @ gL) * half
        s = _solver()
        T = s._solve_matrices(L.mT, phi, "linalg.cholesky backward", True)[0]  # L^-T Phi
        S = s._solve_matrices(L.mT, T.mT, "linalg.cholesky backward", True)[0].mT
        return 0.5 * (S + S.mT)
