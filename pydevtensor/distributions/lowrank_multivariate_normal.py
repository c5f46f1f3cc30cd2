"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): PyTorch's
``torch.distributions.LowRankMultivariateNormal``: the covariance ``W W^T + D`` is never
factorised; the log determinant and the Mahalanobis distance go through the m x m
capacitance matrix ``C = I + W^T D^-1 W`` (the matrix determinant lemma and the
Woodbury identity), as PyTorch's."""
import math

from .. import _C
from .._ops_diag import diag_embed
from .._ops_shape import broadcast_tensors
from ..linalg import cholesky, solve_triangular
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _eye_plus(K):
    return K + _C.eye(K.shape[-1], dtype=K.dtype, device=K.device)


def _capacitance_tril(W, D):
    """The Cholesky factor of I + W^T D^-1 W."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return cholesky(_eye_plus(Wt_Dinv @ W))


def _lowrank_logdet(D, capacitance_tril):
    """log |W W^T + D| = log |C| + log |D| (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by Woodbury: x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = (Wt_Dinv @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal distribution of mean ``loc`` (..., n) and covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``, cov_factor (..., n, m) of low rank
    m, as PyTorch's: log_prob and entropy need only the m x m capacitance matrix
    ``I + W^T D^-1 W``; reparameterisable: a draw is ``loc + W eps_m + sqrt(D) eps_n``.

    Parameters
    ----------
    loc : Tensor
        The mean, (..., n).
    cov_factor : Tensor
        W, (..., n, m).
    cov_diag : Tensor
        D, (..., n), > 0.
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        loc of no dimension, cov_factor of fewer than 2, shapes that do not match n or
        whose batch shapes do not broadcast; with validation on, a parameter outside its
        constraint.

    Examples
    --------
    >>> from pydevtensor.distributions import LowRankMultivariateNormal
    >>> W = pydevtensor.tensor([[1.0], [0.0]])
    >>> d = LowRankMultivariateNormal(pydevtensor.zeros(2), W, pydevtensor.ones(2))
    >>> d.covariance_matrix
    tensor([[2., 0.],
            [0., 1.]])
    >>> d.log_prob(pydevtensor.zeros(2)), d.entropy()
    (tensor(-2.1845), tensor(3.1845))
    >>> d.rsample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        name = "LowRankMultivariateNormal()"
        if not isinstance(loc, _C.Tensor) or loc.ndim < 1:
            raise ValueError(f"{name}: loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if not isinstance(cov_factor, _C.Tensor) or cov_factor.ndim < 2:
            raise ValueError(f"{name}: cov_factor must be at least two-dimensional, with "
                             f"optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"{name}: cov_factor must be a batch of matrices with shape "
                             f"{n} x m, got {tuple(cov_factor.shape)}")
        if not isinstance(cov_diag, _C.Tensor) or cov_diag.ndim < 1 or cov_diag.shape[-1] != n:
            raise ValueError(f"{name}: cov_diag must be a batch of vectors with shape ({n},), "
                             f"got {tuple(getattr(cov_diag, 'shape', ()))}")
        try:
            loc_, self.cov_factor, diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as e:
            raise ValueError(f"{name}: Incompatible batch shapes: loc {tuple(loc.shape)}, "
                             f"cov_factor {tuple(cov_factor.shape)}, cov_diag "
                             f"{tuple(cov_diag.shape)}") from e
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        # validated before the capacitance's Cholesky, so that a bad cov_diag is named
        super().__init__(tuple(self.loc.shape[:-1]), (n,), validate_args)
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)

    def _matrix_shape(self):
        return tuple(self.batch_shape) + tuple(self.event_shape) * 2

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(tuple(self.batch_shape) + tuple(self.event_shape))

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance, batch_shape + (n, n), as
        ``sqrt(D) cholesky(I + D^-1/2 W W^T D^-1/2)``.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import LowRankMultivariateNormal
        >>> W = pydevtensor.tensor([[1.0], [0.0]])
        >>> LowRankMultivariateNormal(pydevtensor.zeros(2), W, pydevtensor.ones(2)).scale_tril
        tensor([[1.4142, 0.0000],
                [0.0000, 1.0000]])
        """
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / sqrt_d
        L = sqrt_d * cholesky(_eye_plus(Dinvsqrt_W @ Dinvsqrt_W.mT))
        return L.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """``W W^T + diag(D)``, batch_shape + (n, n).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import LowRankMultivariateNormal
        >>> W = pydevtensor.tensor([[1.0], [1.0]])
        >>> LowRankMultivariateNormal(pydevtensor.zeros(2), W, pydevtensor.ones(2)
        ...                           ).covariance_matrix
        tensor([[2., 1.],
                [1., 2.]])
        """
        W = self._unbroadcasted_cov_factor
        cov = W @ W.mT + diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance by Woodbury, ``D^-1 - A^T A`` with ``A = L_C^-1 W^T
        D^-1``, batch_shape + (n, n).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import LowRankMultivariateNormal
        >>> W = pydevtensor.tensor([[1.0], [0.0]])
        >>> LowRankMultivariateNormal(pydevtensor.zeros(2), W, pydevtensor.ones(2)
        ...                           ).precision_matrix
        tensor([[0.5000, 0.0000],
                [0.0000, 1.0000]])
        """
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        P = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return P.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        m = self.cov_factor.shape[-1]
        like = {"dtype": self.loc.dtype, "device": self.loc.device}
        eps_w = _C.randn(shape[:-1] + (m,), **like)
        eps_d = _C.randn(shape, **like)
        return (self.loc + (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def _log_det(self):
        return _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                 value - self.loc, self._capacitance_tril)
        return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H.expand(tuple(self.batch_shape))
