"""PyTorch's legacy top-level solvers and normalisations, with torch's positional
signatures: ``lu`` (linalg.lu_factor_ex's factorization), ``lu_solve(b, LU_data,
LU_pivots)`` (linalg.lu_solve's arguments reordered), ``triangular_solve(b, A, ...)``
(linalg.solve_triangular, and a copy of A), and ``batch_norm`` and ``instance_norm``
(nn.functional's, every argument positional and required).  The solvers warn once per
process that they are deprecated, as PyTorch's do."""
import collections

from ._ops_reduce import return_types
from ._args import flag
from ._runtime_flags import warn_once

for _name, _fields in (("_lu_with_info", ["LU", "pivots", "info"]),
                       ("triangular_solve", ["solution", "cloned_coefficient"])):
    setattr(return_types, _name, collections.namedtuple(_name, _fields))
    getattr(return_types, _name).__module__ = "pydevtensor.return_types"

_WARNED = set()


def _deprecated(name, instead):
    # once per process, as PyTorch's TORCH_WARN_ONCE
    warn_once(_WARNED, name, f"pydevtensor.{name} is deprecated in favor of {instead} and "
              f"will be removed in a future PyTorch release.", 3)


def lu(A, pivot=True, get_infos=False):
    """The compact LU factorization with partial pivoting of each matrix, as PyTorch's
    legacy ``torch.lu`` (deprecated there in favour of linalg.lu_factor and
    lu_factor_ex): a singular matrix does not raise.

    Parameters
    ----------
    A : Tensor
        (..., m, n), float32 or float64.
    pivot : bool, optional
        Only True: LU without pivoting is not implemented (PyTorch has it on CUDA only).
    get_infos : bool, optional
        Also return getrf's info.

    Returns
    -------
    (LU, pivots) : tuple of Tensor
        As linalg.lu_factor's: L below the diagonal (its unit diagonal not stored), U on
        and above it; pivots int32 (..., min(m, n)), 1-based.
    (LU, pivots, infos) : named tuple of Tensor
        With get_infos: infos int32 (...), 0 or i > 0 when ``U[i-1, i-1]`` is zero.

    Raises
    ------
    RuntimeError
        When A has fewer than 2 dimensions, or pivot is False.
    NotImplementedError
        For integer or low precision dtypes.

    Examples
    --------
    >>> LU, pivots = pydevtensor.lu(pydevtensor.tensor([[1., 2.], [3., 4.]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    >>> pydevtensor.lu(pydevtensor.zeros(2, 2), get_infos=True).info
    tensor(1, dtype=pydevtensor.int32)
    """
    from ._linalg_lu import lu_factor_ex
    _deprecated("lu", "pydevtensor.linalg.lu_factor / pydevtensor.linalg.lu_factor_ex")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return return_types._lu_with_info(LU, pivots, info)
    return LU, pivots


def lu_solve(b, LU_data, LU_pivots):
    """The solution x of ``A x = b`` given A's LU factorization, as PyTorch's legacy
    ``torch.lu_solve``: ``linalg.lu_solve(LU_data, LU_pivots, b)`` (note the order).

    Parameters
    ----------
    b : Tensor
        (..., n, k): always matrices; the batch dims broadcast against LU_data's.
    LU_data : Tensor
        (..., n, n), from :func:`lu` or linalg.lu_factor.
    LU_pivots : Tensor
        int32 (..., n), 1-based.

    Returns
    -------
    Tensor
        x, (..., n, k) with the broadcast batch dims.

    Raises
    ------
    RuntimeError
        When the shapes, dtypes or devices do not fit.

    Examples
    --------
    >>> A = pydevtensor.tensor([[1., 2.], [3., 4.]])
    >>> pydevtensor.lu_solve(pydevtensor.tensor([[5.], [11.]]), *pydevtensor.lu(A))
    tensor([[1.],
            [2.]])
    """
    from ._linalg_lu import lu_solve as linalg_lu_solve
    _deprecated("lu_solve", "pydevtensor.linalg.lu_solve (its arguments reversed)")
    return linalg_lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """The solution X of ``A X = b`` for a triangular A, and a copy of A, as PyTorch's
    legacy ``torch.triangular_solve`` (linalg.solve_triangular with its arguments
    reversed): only A's upper (upper=True) or lower triangle is read.

    Parameters
    ----------
    b : Tensor
        (..., n, k): always matrices; the batch dims broadcast against A's.
    A : Tensor
        (..., n, n).
    upper : bool, optional
        Read A's upper triangle (default) or its lower one.
    transpose : bool, optional
        Solve ``A^T X = b`` instead.
    unitriangular : bool, optional
        A's diagonal is taken as ones (not read).

    Returns
    -------
    (solution, cloned_coefficient) : named tuple of Tensor
        X, (..., n, k), and a copy of A, (..., n, n), both with the broadcast batch dims.

    Raises
    ------
    TypeError
        When upper, transpose or unitriangular is not a bool.
    RuntimeError
        When b or A has fewer than 2 dimensions, or the shapes, dtypes or devices do not
        fit.
    pydevtensor.linalg.LinAlgError
        When A's triangle has a zero on its diagonal (PyTorch gives infinities and NaNs).

    Examples
    --------
    >>> A = pydevtensor.tensor([[2., 1.], [0., 4.]])
    >>> pydevtensor.triangular_solve(pydevtensor.tensor([[4.], [8.]]), A).solution
    tensor([[1.],
            [2.]])
    """
    from ._linalg_more import solve_triangular
    from ._linalg_solve import _broadcast_batch
    from ._ops_index import _tensor_arg
    op = "triangular_solve"
    _tensor_arg(b, op, "b")
    _tensor_arg(A, op, "A")
    for position, (name, value) in enumerate((("upper", upper), ("transpose", transpose),
                                              ("unitriangular", unitriangular)), 3):
        flag(value, op, name, numpy=False, position=position)
    for name, t in (("b", b), ("A", A)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.{op}: Expected {name} to have at least 2 dimensions, "
                               f"but it has {t.ndim} dimensions instead (shape "
                               f"{tuple(t.shape)}, on {t.device})")
    _deprecated(op, "pydevtensor.linalg.solve_triangular (its arguments reversed)")
    cloned = _broadcast_batch(op, A, b)[0].clone()
    X = solve_triangular(cloned.mT if transpose else cloned, b, upper=upper != transpose,
                         unitriangular=unitriangular)
    return return_types.triangular_solve(X, cloned)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """nn.functional's batch_norm with PyTorch's top-level signature, as
    ``torch.batch_norm``: every argument positional and required, weight and bias first.

    Parameters
    ----------
    input : Tensor
        Floating point, ``(N, C, *)``.
    weight, bias : Tensor or None
        ``(C,)``: the scale and shift.
    running_mean, running_var : Tensor or None
        ``(C,)``; updated in place in training.
    training : bool
        Normalise with the batch's statistics (and update the running ones).
    momentum : float
        The weight of the batch in the running update.
    eps : float
        Added to the variance.
    cudnn_enabled : bool
        Accepted for PyTorch's signature; it changes nothing.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When training or cudnn_enabled is not a bool.
    ValueError, RuntimeError
        As nn.functional.batch_norm.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1.], [3.]])
    >>> pydevtensor.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False)
    tensor([[-1.],
            [ 1.]])
    """
    from .nn import _functional_norm as FN
    flag(training, "batch_norm", "training", numpy=False, position=6)
    flag(cudnn_enabled, "batch_norm", "cudnn_enabled", numpy=False, position=9)
    # PyTorch's ATen op: any eps (F.batch_norm's check is in its Python)
    return FN._batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps, False)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """nn.functional's instance_norm with PyTorch's top-level signature, as
    ``torch.instance_norm``: every argument positional and required, weight and bias
    first.

    Parameters
    ----------
    input : Tensor
        Floating point, ``(N, C, *)`` with at least one spatial dimension.
    weight, bias : Tensor or None
        ``(C,)``: the scale and shift.
    running_mean, running_var : Tensor or None
        ``(C,)``; updated in place with use_input_stats.
    use_input_stats : bool
        Normalise with each sample's own statistics; otherwise the running ones.
    momentum : float
        The weight of the batch in the running update.
    eps : float
        Added to the variance.
    cudnn_enabled : bool
        Accepted for PyTorch's signature; it changes nothing.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When use_input_stats or cudnn_enabled is not a bool.
    ValueError, RuntimeError
        As nn.functional.instance_norm.

    Examples
    --------
    >>> x = pydevtensor.tensor([[[1., 3.], [0., 10.]]])
    >>> pydevtensor.instance_norm(x, None, None, None, None, True, 0.1, 0.0, False)
    tensor([[[-1.,  1.],
             [-1.,  1.]]])
    """
    from .nn import functional as F
    flag(use_input_stats, "instance_norm", "use_input_stats", numpy=False, position=6)
    flag(cudnn_enabled, "instance_norm", "cudnn_enabled", numpy=False, position=9)
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


__all__ = ["batch_norm", "instance_norm", "lu", "lu_solve", "triangular_solve"]
