"""Helpers of the distributions: broadcast_all, the probs/logits conversions, the
lower triangle of a matrix as a vector and back, and the lazily computed property
(PyTorch's ``torch.distributions.utils``)."""
from numbers import Number

from .. import _C
from .._dtype_info import finfo
from .._ops_shape import broadcast_tensors

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def enumerate_values(values, batch_shape, expand):
    """values (1-d) along a new first dimension, expanded over batch_shape when expand
    (else of size 1 there): what enumerate_support returns."""
    values = values.reshape((-1,) + (1,) * len(batch_shape))
    return values.expand(-1, *tuple(batch_shape)) if expand else values


def broadcast_all(*values):
    """The values broadcast to one shape: numbers become tensors of the tensors' dtype
    and device (of the default dtype when all are numbers), as PyTorch's.

    Parameters
    ----------
    *values : Tensor or number

    Returns
    -------
    tuple of Tensor

    Raises
    ------
    ValueError
        A value that is neither a Tensor nor a number.

    Examples
    --------
    >>> from pydevtensor.distributions.utils import broadcast_all
    >>> a, b = broadcast_all(pydevtensor.zeros(2), 1.0)
    >>> b
    tensor([1., 1.])
    """
    for v in values:
        if not isinstance(v, (_C.Tensor, Number)):  # a bool is a Number, as in PyTorch
            raise ValueError(f"Input arguments must all be instances of numbers.Number or "
                             f"Tensor, got {type(v).__name__}")
    like = next((v for v in values if isinstance(v, _C.Tensor)), None)
    if like is None:
        return tuple(_C.tensor(float(v)) for v in values)
    dtype = like.dtype if like.is_floating_point() else _C._get_default_dtype()
    tensors = [v if isinstance(v, _C.Tensor) else _C.tensor(float(v), dtype=dtype,
                                                             device=like.device)
               for v in values]
    return tuple(broadcast_tensors(*tensors))


def clamp_probs(probs):
    """Probabilities clamped to [eps, 1 - eps], eps the machine epsilon of their dtype,
    as PyTorch's (so that their logarithms and those of 1 - p are finite).

    Parameters
    ----------
    probs : Tensor
        Of a floating-point dtype.

    Returns
    -------
    Tensor

    Examples
    --------
    >>> from pydevtensor.distributions.utils import clamp_probs
    >>> clamp_probs(pydevtensor.tensor([0.0, 0.5, 1.0])).tolist()
    [1.1920928955078125e-07, 0.5, 0.9999998807907104]
    """
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def _tril_mask(n, diag, device):
    arange = _C.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The elements of the last two dimensions' lower triangle (on and below diagonal
    ``diag``: 0 the main one, -1 the one below it, 1 the one above) row by row, as
    PyTorch's; the inverse of :func:`vec_to_tril_matrix`.

    Parameters
    ----------
    mat : Tensor
        (..., n, n).
    diag : int, optional
        In [-n, n - 1].

    Returns
    -------
    Tensor
        (..., m), m the number of elements of that triangle.

    Raises
    ------
    ValueError
        diag outside [-n, n - 1].

    Examples
    --------
    >>> from pydevtensor.distributions.utils import tril_matrix_to_vec
    >>> tril_matrix_to_vec(pydevtensor.arange(9.0).reshape(3, 3))
    tensor([0., 3., 4., 6., 7., 8.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"tril_matrix_to_vec: diag ({diag}) provided is outside "
                         f"[{-n}, {n - 1}] (matrix of shape {tuple(mat.shape)})")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The (..., n, n) matrix whose lower triangle (on and below diagonal ``diag``) holds
    the last dimension of vec row by row, zeros elsewhere, as PyTorch's; the inverse of
    :func:`tril_matrix_to_vec`.

    Parameters
    ----------
    vec : Tensor
        (..., m), m the size of such a triangle of some n x n matrix.
    diag : int, optional

    Returns
    -------
    Tensor
        (..., n, n), of vec's dtype and device.

    Raises
    ------
    ValueError
        m is the size of no such triangle.

    Examples
    --------
    >>> from pydevtensor.distributions.utils import vec_to_tril_matrix
    >>> vec_to_tril_matrix(pydevtensor.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    m = vec.shape[-1]
    # the positive root of n^2 + (1 + 2 diag) n - |diag| (diag + 1) - 2 m = 0
    root = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m
                               + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    n = round(root)
    if abs(n - root) > 1e-9 or n < 1:
        raise ValueError(f"vec_to_tril_matrix: the size of last dimension is {m} (vec of "
                         f"shape {tuple(vec.shape)}), which cannot be expressed as the "
                         f"lower triangular part (diag {diag}) of a square D x D matrix.")
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


def probs_to_logits(probs, is_binary=False):
    """Logits of probabilities: ``log(p) - log1p(-p)`` for a binary event, else
    ``log(p)``, with p clamped to [eps, 1 - eps] (eps of its dtype) as PyTorch does.

    Parameters
    ----------
    probs : Tensor
    is_binary : bool, optional

    Returns
    -------
    Tensor

    Examples
    --------
    >>> from pydevtensor.distributions.utils import probs_to_logits
    >>> probs_to_logits(pydevtensor.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    ps = clamp_probs(probs)
    return ps.log() - (-ps).log1p() if is_binary else ps.log()


def logits_to_probs(logits, is_binary=False):
    """Probabilities of logits: ``sigmoid`` for a binary event, else ``softmax`` over the
    last dimension.

    Parameters
    ----------
    logits : Tensor
    is_binary : bool, optional

    Returns
    -------
    Tensor

    Examples
    --------
    >>> from pydevtensor.distributions.utils import logits_to_probs
    >>> logits_to_probs(pydevtensor.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    if is_binary:
        return logits.sigmoid()
    from .._ops_stats import softmax
    return softmax(logits, -1)


class lazy_property:
    """A property computed on first use and then stored on the instance (probs from
    logits, or logits from probs), as PyTorch's: computed with gradients enabled, so
    that a first use under ``no_grad`` (in ``sample()``) stores a value that still has
    the parameter's graph for later log_prob, entropy or mean."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        from ..autograd import enable_grad
        with enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value

