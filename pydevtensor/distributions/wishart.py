"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): PyTorch's
``torch.distributions.Wishart``.

Note [Bartlett sampling]
------------------------
A draw is ``(L A)(L A)^T``, L the lower Cholesky factor of the scale matrix and A lower
triangular with ``A_ii = sqrt(c_i)``, c_i a Chi2(df - i) draw (i = 0 .. p-1), and
standard normals below the diagonal (Bartlett's decomposition; for a df that is no
integer too, Ku and Bloomfield 2010).  The chi-squared draws are reparameterised (the
gamma sampler's implicit gradient), so rsample is differentiable in df and the scale.
A draw that is not positive definite (likely for p - 1 < df < p, where a warning is
given at construction) is redrawn, up to max_try_correction times, as PyTorch's means to
(its 2.15 checks the draws the other way round: it redraws the positive-definite ones and
warns "Singular sample detected." on every call).
"""
import math
import warnings
from numbers import Number

from .. import _C
from .._dtype_info import finfo
from .._ops_diag import diag_embed
from .._ops_gamma import mvlgamma
from .._ops_index import where
from .._ops_shape import broadcast_shapes
from ..linalg import slogdet
from . import constraints
from .distribution import _shape_arg
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import _one_matrix, _scale_tril_of, _ScaleTrilMatrices
from .utils import vec_to_tril_matrix

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """sum_{i<p} digamma(x - i/2): the derivative of mvlgamma(x, p)."""
    half = _C.arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - half).digamma().sum(-1)


class Wishart(_ScaleTrilMatrices, ExponentialFamily):
    """The Wishart distribution over p x p positive-definite matrices of ``df`` degrees of
    freedom and scale matrix Sigma, given by exactly one of its covariance matrix
    (Sigma), precision matrix (Sigma's inverse) or lower Cholesky factor ``scale_tril``,
    as PyTorch's: density ``|X|^((df-p-1)/2) exp(-tr(Sigma^-1 X)/2) / (2^(df p/2)
    |Sigma|^(df/2) Gamma_p(df/2))``; reparameterisable (Note [Bartlett sampling] in
    pydevtensor/distributions/wishart.py).  mean ``df Sigma``; mode ``(df - p - 1) Sigma``
    (NaN where df <= p + 1, as PyTorch's); variance ``df (Sigma_ij^2 + Sigma_ii
    Sigma_jj)``.  Sigma, its inverse and its Cholesky factor are its
    ``covariance_matrix``, ``precision_matrix`` and ``scale_tril``, as MultivariateNormal's.

    Parameters
    ----------
    df : float or Tensor
        > p - 1, broadcastable with the matrix's batch shape.
    covariance_matrix, precision_matrix : Tensor, optional
        (..., p, p), symmetric positive definite.
    scale_tril : Tensor, optional
        (..., p, p), lower triangular of a positive diagonal.
    validate_args : bool, optional

    Raises
    ------
    ValueError
        Not exactly one of the matrices, a matrix of fewer than two dimensions or not
        square, batch shapes that do not broadcast, or df <= p - 1.

    Warns
    -----
    UserWarning
        df < p: singular draws are likely (they are redrawn).

    Examples
    --------
    >>> from pydevtensor.distributions import Wishart
    >>> d = Wishart(pydevtensor.tensor(4.0), covariance_matrix=pydevtensor.eye(2))
    >>> d.mean
    tensor([[4., 0.],
            [0., 4.]])
    >>> d.log_prob(pydevtensor.eye(2) * 3)
    tensor(-5.1256)
    >>> d.rsample((5,)).shape
    pydevtensor.Size([5, 2, 2])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        name, matrix = _one_matrix("Wishart()", covariance_matrix, precision_matrix,
                                   scale_tril)
        p = matrix.shape[-1]
        if matrix.shape[-2] != p:
            raise ValueError(f"Wishart(): {name} of shape {tuple(matrix.shape)} is not "
                             f"square")
        if isinstance(df, Number) and not isinstance(df, bool):
            batch_shape = tuple(matrix.shape[:-2])
            self.df = _C.tensor(float(df), dtype=matrix.dtype, device=matrix.device)
        elif isinstance(df, _C.Tensor):
            try:
                batch_shape = tuple(broadcast_shapes(tuple(matrix.shape[:-2]),
                                                     tuple(df.shape)))
            except (RuntimeError, ValueError) as e:
                raise ValueError(f"Wishart(): the batch shapes of df {tuple(df.shape)} and "
                                 f"{name} {tuple(matrix.shape)} do not broadcast") from e
            self.df = df.expand(batch_shape)
        else:
            raise TypeError(f"Wishart(): df must be a number or a Tensor, got "
                            f"{type(df).__name__}")
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Wishart(): Value of df={df} expected to be greater than "
                             f"ndim - 1 = {p - 1}.")
        setattr(self, name, matrix.expand(batch_shape + (p, p)))
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, (p, p), validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(name, matrix)

    def _df_matrix(self):
        return self.df.reshape(tuple(self.batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.event_shape[-1] - 1
        factor = where(factor > 0, factor, math.nan)
        return factor.reshape(tuple(self.batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        """(L A)(L A)^T of Note [Bartlett sampling], sample_shape + batch_shape + (p, p)."""
        p = self.event_shape[-1]
        L = self._unbroadcasted_scale_tril
        shape = tuple(sample_shape) + tuple(self.batch_shape)
        dfs = self.df.unsqueeze(-1) - _C.arange(p, dtype=L.dtype, device=L.device)
        chi = Chi2(dfs).rsample(tuple(sample_shape))
        diag = diag_embed(chi.sqrt().clamp(min=finfo(chi.dtype).eps))
        below = _C.randn(shape + (p * (p - 1) // 2,), dtype=L.dtype, device=L.device)
        chol = L @ (diag + vec_to_tril_matrix(below, diag=-1))
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Draws by Bartlett's decomposition (Note [Bartlett sampling] in
        pydevtensor/distributions/wishart.py), differentiable in df and the scale; a draw
        that is not positive definite is redrawn up to max_try_correction times (10 by
        default), with a warning, and may still be singular after them (its log_prob is
        then -inf).

        Parameters
        ----------
        sample_shape : tuple of ints, optional
        max_try_correction : int, optional

        Returns
        -------
        Tensor
            sample_shape + batch_shape + (p, p).

        Examples
        --------
        >>> from pydevtensor.distributions import Wishart
        >>> Wishart(pydevtensor.tensor([3.0, 5.0]), covariance_matrix=pydevtensor.eye(2)
        ...         ).rsample((4,)).shape
        pydevtensor.Size([4, 2, 2, 2])
        """
        sample_shape = tuple(_shape_arg("Wishart.rsample()", sample_shape))
        tries = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sampling(sample_shape)
        for _ in range(tries):
            singular = self.support.check(sample.detach()).logical_not()
            if not bool(singular.any()):
                break
            warnings.warn("Singular sample detected.", stacklevel=2)
            redraw = self._bartlett_sampling(sample_shape)
            sample = where(singular.unsqueeze(-1).unsqueeze(-1), redraw, sample)
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        from .._linalg_solve import cholesky_solve
        nu, p = self.df, self.event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self.event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self.event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self.event_shape[-1]
        return ((y + (p + 1) / 2) * (-slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + mvlgamma(y + (p + 1) / 2, p))
