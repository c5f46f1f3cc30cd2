"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): PyTorch's
``torch.distributions.MultivariateNormal``."""
import math

from .. import _C
from .._ops_shape import broadcast_shapes
from ..linalg import cholesky, solve_triangular
from . import constraints
from .distribution import Distribution, _shape_arg
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mahalanobis(L, x):
    """|L^-1 x|^2 over the last dimension, L lower triangular, broadcasting their
    batches."""
    n = x.shape[-1]
    batch = tuple(broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1])))
    y = solve_triangular(L.expand(batch + (n, n)), x.expand(batch + (n,)).unsqueeze(-1),
                         upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The Cholesky factor of P's inverse, through that of P flipped (PyTorch's way)."""
    Lf = cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).mT
    eye = _C.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return solve_triangular(L_inv, eye, upper=False)


def _one_matrix(where, covariance_matrix, precision_matrix, scale_tril):
    """(name, matrix) of the one matrix given, at least 2-d; ValueError otherwise."""
    given = [(k, v) for k, v in (("covariance_matrix", covariance_matrix),
                                 ("precision_matrix", precision_matrix),
                                 ("scale_tril", scale_tril)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"{where}: Exactly one of covariance_matrix or precision_matrix "
                         f"or scale_tril may be specified.")
    name, matrix = given[0]
    if not isinstance(matrix, _C.Tensor) or matrix.ndim < 2:
        raise ValueError(f"{where}: {name} must be at least two-dimensional, with optional "
                         f"leading batch dimensions")
    return name, matrix


def _scale_tril_of(name, matrix):
    """The lower Cholesky factor of the covariance that matrix (named name) gives."""
    if name == "scale_tril":
        return matrix
    if name == "covariance_matrix":
        return cholesky(matrix)
    return _precision_to_scale_tril(matrix)


class _ScaleTrilMatrices:
    """scale_tril, covariance_matrix and precision_matrix from the lower Cholesky factor
    ``_unbroadcasted_scale_tril``, expanded over the batch shape: MultivariateNormal's and
    Wishart's."""

    def _matrix_shape(self):
        n = self._unbroadcasted_scale_tril.shape[-1]
        return tuple(self.batch_shape) + (n, n)

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance (of the scale matrix of a
        Wishart), batch_shape + (n, n).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import MultivariateNormal
        >>> cov = pydevtensor.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> MultivariateNormal(pydevtensor.zeros(2), cov).scale_tril
        tensor([[2., 0.],
                [1., 1.]])
        """
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The covariance (the scale matrix of a Wishart), batch_shape + (n, n).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import MultivariateNormal
        >>> L = pydevtensor.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> MultivariateNormal(pydevtensor.zeros(2), scale_tril=L).covariance_matrix
        tensor([[4., 2.],
                [2., 2.]])
        """
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse of the covariance (of the scale matrix of a Wishart),
        batch_shape + (n, n).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import MultivariateNormal
        >>> cov = pydevtensor.tensor([[4.0, 0.0], [0.0, 0.5]])
        >>> MultivariateNormal(pydevtensor.zeros(2), cov).precision_matrix
        tensor([[0.2500, 0.0000],
                [0.0000, 2.0000]])
        """
        L = self._unbroadcasted_scale_tril
        eye = _C.eye(L.shape[-1], dtype=L.dtype, device=L.device)
        L_inv = solve_triangular(L, eye, upper=False)
        return (L_inv.mT @ L_inv).expand(self._matrix_shape())


class MultivariateNormal(_ScaleTrilMatrices, Distribution):
    """The multivariate normal distribution of mean ``loc`` (..., n), given by exactly one
    of its covariance matrix, its precision matrix (the inverse) or the lower Cholesky
    factor ``scale_tril`` of its covariance; batched over the broadcast batch shapes of
    loc and the matrix; reparameterisable: a draw is ``loc + scale_tril @ eps``.

    Parameters
    ----------
    loc : Tensor
        The mean, (..., n).
    covariance_matrix : Tensor, optional
        Symmetric positive definite, (..., n, n).
    precision_matrix : Tensor, optional
        Symmetric positive definite, (..., n, n).
    scale_tril : Tensor, optional
        Lower triangular of a positive diagonal, (..., n, n).
    validate_args : bool, optional
        Check the matrix given (default: ``Distribution``'s setting).

    Raises
    ------
    ValueError
        loc of no dimension, a matrix of fewer than 2, none or more than one matrix given,
        shapes that do not broadcast; with validation on, a matrix outside its constraint.

    Examples
    --------
    >>> from pydevtensor.distributions import MultivariateNormal
    >>> d = MultivariateNormal(pydevtensor.zeros(2), pydevtensor.eye(2))
    >>> d.log_prob(pydevtensor.zeros(2)), d.entropy()
    (tensor(-1.8379), tensor(2.8379))
    >>> d.sample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if not isinstance(loc, _C.Tensor) or loc.ndim < 1:
            raise ValueError("MultivariateNormal(): loc must be at least one-dimensional.")
        name, matrix = _one_matrix("MultivariateNormal()", covariance_matrix,
                                   precision_matrix, scale_tril)
        n = loc.shape[-1]
        if tuple(matrix.shape[-2:]) != (n, n):
            raise ValueError(f"MultivariateNormal(): {name} of shape {tuple(matrix.shape)} "
                             f"is not (..., {n}, {n}) for loc of shape {tuple(loc.shape)}")
        try:
            batch_shape = tuple(broadcast_shapes(tuple(matrix.shape[:-2]),
                                                 tuple(loc.shape[:-1])))
        except (RuntimeError, ValueError) as e:
            raise ValueError(f"MultivariateNormal(): the batch shapes of loc "
                             f"{tuple(loc.shape)} and {name} {tuple(matrix.shape)} do not "
                             f"broadcast") from e
        setattr(self, name, matrix.expand(batch_shape + (n, n)))
        self.loc = loc.expand(batch_shape + (n,))
        super().__init__(batch_shape, (n,), validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(name, matrix)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(_shape_arg("MultivariateNormal.expand()", batch_shape))
        old = tuple(self.batch_shape)
        if len(shape) < len(old) or any(
                a not in (1, b) for a, b in zip(old[::-1], shape[::-1])):
            raise ValueError(f"MultivariateNormal.expand(): the batch shape {old} does not "
                             f"expand to {shape}")
        new = self._get_checked_instance(MultivariateNormal, _instance)
        n = self.event_shape[0]
        new.loc = self.loc.expand(shape + (n,))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape + (n, n)))
        Distribution.__init__(new, shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        L = self._unbroadcasted_scale_tril
        return L.pow(2).sum(-1).expand(tuple(self.batch_shape) + tuple(self.event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _C.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # in the dtype of the scale (float32 for float32 parameters and a float64 value),
        # as PyTorch's
        diff = (value - self.loc).to(self._unbroadcasted_scale_tril.dtype)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H.expand(tuple(self.batch_shape))
