"""geqrf and ormqr, PyTorch's top-level names for LAPACK's Householder QR routines
(orgqr, their third, is linalg.householder_product: _linalg_tensor.py).

geqrf is linalg.qr's own factorization (_linalg_decomp._geqrf, LAPACK's or cuSOLVER's
geqrf), returned in LAPACK's form; like PyTorch's it has no derivative (a backward that
reaches it raises).  ormqr multiplies by Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
without forming Q: each reflector is applied in turn as a rank-1 update, so it runs and
records its gradient on every device.
"""
import collections

from . import _C
from ._linalg_decomp import _check_matrix, _geqrf
from ._linalg_solve import _by_columns
from ._linalg_tensor import orgqr
from ._ops_reduce import return_types
from ._out import takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

return_types.geqrf = collections.namedtuple("geqrf", ["a", "tau"])
return_types.geqrf.__module__ = "pydevtensor.return_types"

__all__ = ["geqrf", "ormqr"]


@takes_out("geqrf", tuple_of="a, tau", column_major=True)
@recorded("geqrf")
def geqrf(input):
    """The QR decomposition of each matrix in LAPACK's geqrf form, as ``torch.geqrf``.

    ``a`` holds R on and above its diagonal and, below it, the vectors v_i of the
    Householder reflectors ``H_i = I - tau_i v_i v_i^T`` (their leading 1 implied), with
    ``input = H_1 H_2 ... H_k R``, k = min(m, n).

    :func:`orgqr` (``linalg.householder_product``) forms Q from ``(a, tau)``,
    :func:`ormqr` multiplies by it.  Like PyTorch's, geqrf has no derivative: a backward
    through it raises NotImplementedError (use ``linalg.qr``).

    Parameters
    ----------
    input : Tensor
        ``(..., m, n)``, float32 or float64.

    Returns
    -------
    (a, tau) : named tuple of Tensor
        a ``(..., m, n)`` (column-major, as LAPACK's: strides ``(..., 1, m)``; an
        empty ``out`` a is given them too) and tau ``(..., min(m, n))``.

    Raises
    ------
    RuntimeError
        When input has fewer than 2 dimensions.
    NotImplementedError
        For other dtypes.

    Examples
    --------
    >>> a, tau = pydevtensor.geqrf(pydevtensor.tensor([[3., 1.], [4., 2.]]))
    >>> a
    tensor([[-5.0000, -2.2000],
            [ 0.5000,  0.4000]])
    >>> tau
    tensor([1.6000, 0.0000])
    >>> (pydevtensor.orgqr(a, tau) @ a.triu()).round(decimals=4)
    tensor([[3., 1.],
            [4., 2.]])
    """
    _check_matrix("geqrf", input)
    a, tau = _geqrf(input)
    return return_types.geqrf(a.mT, tau)


@derivative("geqrf")
class GeqrfBackward0(Node):
    """PyTorch's: geqrf's results require grad, and a backward that reaches them
    raises."""

    num_outputs = 2

    def save(self, out, input):
        return (input,)

    def backward(self, *grads):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _ormqr_checks(input, tau, other, left):
    name = "ormqr"
    for what, t in (("input", input), ("tau", tau), ("other", other)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{name}(): {what} must be a Tensor, got {type(t).__name__}")
    for what, t in (("input", input), ("other", other)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.ormqr: {what} must have at least 2 dimensions (got "
                               f"shape {tuple(t.shape)})")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2] "
                           f"(got other of shape {tuple(other.shape)} and input of shape "
                           f"{tuple(input.shape)}, left={left})")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"torch.ormqr: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{input.ndim}")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{side}], input.shape[-1]) (got tau of shape {tuple(tau.shape)}, "
                           f"other {tuple(other.shape)}, input {tuple(input.shape)})")
    if other.ndim != input.ndim:
        raise RuntimeError(f"torch.ormqr: Expected other to have the same number of "
                           f"dimensions as input, but got other.ndim equal to {other.ndim} and "
                           f"input.ndim is equal to {input.ndim}")
    for what, t in (("tau", tau), ("other", other)):
        if tuple(t.shape[:input.ndim - 2]) != tuple(input.shape[:-2]):
            raise RuntimeError(f"torch.ormqr: Expected batch dimensions of {what} to be equal "
                               f"to input.shape[:-2], but got {list(t.shape[:input.ndim - 2])}")
        if t.dtype != input.dtype:
            raise RuntimeError(f"torch.ormqr: Expected input and {what} to have the same "
                               f"dtype, but input has dtype {input.dtype} and {what} has "
                               f"dtype {t.dtype}")
        if t.device != input.device:
            raise _C.DeviceError(f"torch.ormqr: Expected {what} and input to be on the same "
                                 f"device, but found {what} on {t.device} and input on "
                                 f"{input.device}")
    if not input.is_floating_point():
        raise NotImplementedError(f"torch.ormqr: expected a floating point input, got "
                                  f"{input.dtype} on {input.device}")


@takes_out("ormqr")
def ormqr(input, input2, input3, left=True, transpose=False):
    """``op(Q) @ other`` (left) or ``other @ op(Q)`` for the Q of Householder reflectors
    in geqrf's form, without forming Q, as ``torch.ormqr`` (LAPACK's ormqr).

    ``Q = H_1 H_2 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, v_i column i of input below
    the diagonal with a 1 on it; op is the transpose when transpose is True.

    Differentiable in all three arguments (the reflectors are applied one by one as
    rank-1 updates, k of them).

    Parameters
    ----------
    input : Tensor
        ``(..., mn, k')``: the reflectors' vectors, mn = m (left) or n (right).
    input2 : Tensor
        tau, ``(..., k)``, ``k = min(mn, k')``: their scales (PyTorch's keyword name).
    input3 : Tensor
        other, ``(..., m, n)``, the matrix multiplied (PyTorch's keyword name).
    left : bool, optional
        ``op(Q) @ other`` (default True), else ``other @ op(Q)``.
    transpose : bool, optional
        Multiply by Q's transpose (default False).

    Returns
    -------
    Tensor
        ``(..., m, n)``, column-major (strides ``(..., 1, m)``) as PyTorch's.

    Raises
    ------
    RuntimeError
        For the shapes PyTorch refuses (other.shape[-2] (left) or [-1] not input's
        mn, tau's length not k, batch dimensions that differ), or dtypes that differ.
    NotImplementedError
        For an integer input.

    Examples
    --------
    >>> A = pydevtensor.tensor([[3., 1.], [4., 2.]])
    >>> a, tau = pydevtensor.geqrf(A)
    >>> pydevtensor.ormqr(a, tau, a.triu()).round(decimals=4)  # Q R
    tensor([[3., 1.],
            [4., 2.]])
    >>> pydevtensor.ormqr(a, tau, A, transpose=True)  # Q^T A = R
    tensor([[-5.0000, -2.2000],
            [ 0.0000,  0.4000]])
    >>> a.ormqr(input2=tau, input3=A, transpose=True).allclose(a.triu())
    True
    """
    tau, other = input2, input3
    _ormqr_checks(input, tau, other, left)
    k = tau.shape[-1]
    mn = input.shape[-2]
    V = input[..., :k].tril(-1) + _C.eye(mn, k, dtype=input.dtype, device=input.device)
    if not k:  # a new tensor, as PyTorch's, never other itself
        return _by_columns(other).mT
    Ct = other.mT  # C^T, so that the result C = Ct.mT is column-major as PyTorch's
    # Q C = H_1 (... (H_k C)): the last reflector first; Q^T C, C Q: the first first
    order = range(k - 1, -1, -1) if left != transpose else range(k)
    for i in order:
        v = V[..., :, i:i + 1]  # (..., mn, 1)
        t = tau[..., i:i + 1].unsqueeze(-1)  # (..., 1, 1)
        if left:  # (H C)^T = C^T H
            Ct = Ct - (Ct @ v) @ (t * v.mT)
        else:  # (C H)^T = H C^T
            Ct = Ct - (t * v) @ (v.mT @ Ct)
    return Ct.contiguous().mT


_C.Tensor.geqrf = geqrf
_C.Tensor.orgqr = orgqr
_C.Tensor.ormqr = ormqr
