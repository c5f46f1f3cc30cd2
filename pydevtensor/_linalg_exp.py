"""linalg.matrix_exp (torch.matrix_exp, Tensor.matrix_exp): the scaling and squaring
method with a Pade approximant (Higham, "The scaling and squaring method for the
matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005, Algorithm 2.3),
written with matmul and linalg.solve, so it runs on every device and autograd
differentiates it by composition.

The degree (3, 5, 7, 9 or 13) is the smallest whose theta bounds the largest 1-norm
of the batch (float64's thetas, Table 2.3, for float32 too: at most a degree more
than PyTorch's float32 choice); past theta_13 each matrix is scaled by its own power
of 2 and squared back that many times.  Choosing them reads the 1-norms back to the
host (one counted copy on a GPU), as PyTorch's does."""
import math

from . import _C
from ._linalg_solve import _square, solve
from ._ops_index import where

# Table 2.3's theta_m (float64) and the Pade coefficients b_0..b_m (eq. 2.11 / 10.3)
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 5.371920351148152e0}
_B = {3: (120., 60., 12., 1.),
      5: (30240., 15120., 3360., 420., 30., 1.),
      7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
      9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
          3960., 90., 1.),
      13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)}


def _pade(A, m):
    """The [m/m] Pade approximant of exp at A: (V - U)^-1 (V + U), U holding the odd
    powers and V the even ones."""
    b = _B[m]
    eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    A2 = A @ A
    if m == 13:  # eq. 10.4: six matmuls for the powers 2, 4, 6 and the two products
        A4 = A2 @ A2
        A6 = A4 @ A2
        U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2)
                 + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
        V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + \
            b[2] * A2 + b[0] * eye
    else:
        powers = [eye, A2]  # A^0, A^2, A^4, ...
        while len(powers) <= m // 2:
            powers.append(powers[-1] @ A2)
        U = A @ sum(b[2 * j + 1] * p for j, p in enumerate(powers))
        V = sum(b[2 * j] * p for j, p in enumerate(powers))
    return solve(V - U, V + U)


def matrix_exp(A):
    """The exponential ``sum_k A^k / k!`` of each square matrix, as
    torch.linalg.matrix_exp (also ``pydevtensor.matrix_exp`` and ``A.matrix_exp()``).

    Parameters
    ----------
    A : Tensor
        (..., n, n), float32 or float64.

    Returns
    -------
    Tensor
        (..., n, n), with its gradient (by composition of matmul and linalg.solve).

    Raises
    ------
    RuntimeError
        When A is not a stack of square matrices.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> pydevtensor.linalg.matrix_exp(pydevtensor.tensor([[0., 1.], [0., 0.]]))
    tensor([[1., 1.],
            [0., 1.]])
    >>> pydevtensor.linalg.matrix_exp(pydevtensor.tensor([[1., 0.], [0., 2.]]))
    tensor([[2.7183, 0.0000],
            [0.0000, 7.3891]])
    """
    _square("linalg.matrix_exp", A)
    if A.numel() == 0:
        return A.clone()
    norms = A.detach().abs().sum(-2).amax(-1)  # the 1-norm of each matrix
    # a matrix holding inf or NaN comes out NaN by itself: it chooses nothing
    norms = where(norms.isfinite(), norms, 0)
    top = float(norms.amax())  # on the host: a counted copy on a GPU
    for m in (3, 5, 7, 9):
        if top <= _THETA[m]:
            return _pade(A, m)
    # s = ceil(log2(norm / theta_13)) halvings per matrix, at least 0
    s = (norms / _THETA[13]).log2().ceil().clamp(min=0)
    X = _pade(A * (0.5 ** s)[..., None, None], 13)
    steps = int(math.ceil(math.log2(top / _THETA[13])))
    for k in range(steps):
        X = where((s > k)[..., None, None], X @ X, X)
    return X


_C.Tensor.matrix_exp = matrix_exp

__all__ = ["matrix_exp"]
