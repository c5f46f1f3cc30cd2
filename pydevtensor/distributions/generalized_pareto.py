"""GeneralizedPareto(loc, scale, concentration): PyTorch's
``torch.distributions.GeneralizedPareto``."""
import math

from .. import _C
from .._ops_index import where
from . import constraints
from .distribution import Distribution
from .gamma import _as_tensor
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of survival function
    ``(1 + c z)^(-1/c)`` (``exp(-z)`` at c = 0), z = (x - loc) / scale, on
    [loc, loc - scale / c] for c < 0 and [loc, inf) otherwise, as PyTorch 2.15's (c =
    concentration, abs(c) <= 1e-8 read as 0); reparameterisable (the icdf of a uniform
    draw).  Exponential (loc = 0, c = 0), Pareto (c > 0, loc = scale / c) and Uniform (c
    = -1) are special cases.

    The mean is inf for c >= 1 and the variance inf for 1/2 <= c < 1 (nan for c >= 1,
    where the mean is infinite); PyTorch 2.15 reads nan for both.

    Parameters
    ----------
    loc : float or Tensor
        The least value.
    scale : float or Tensor
        > 0.
    concentration : float or Tensor
        The shape c (any real).
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob and cdf (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import GeneralizedPareto
    >>> d = GeneralizedPareto(0.0, 2.0, pydevtensor.tensor([0.0, 0.5, -1.0]))
    >>> d.log_prob(pydevtensor.tensor(1.0))
    tensor([-1.1931, -1.3626, -0.6931])
    >>> d.cdf(pydevtensor.tensor(1.0)), d.mean
    (tensor([0.3935, 0.3600, 0.5000]), tensor([2., 4., 1.]))
    >>> d.rsample((5,)).shape
    pydevtensor.Size([5, 3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(tuple(self.loc.shape), (), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        shape = tuple(batch_shape)
        new.loc = self.loc.expand(shape)
        new.scale = self.scale.expand(shape)
        new.concentration = self.concentration.expand(shape)
        Distribution.__init__(new, shape, (), validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _safe_concentration(self):
        """(c == 0 as PyTorch's isclose, c with 1 where it is 0)."""
        c = self.concentration
        eq_zero = c.abs() <= 1e-8
        return eq_zero, where(eq_zero, _C.ones_like(c), c)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = _C.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, c = self._safe_concentration()
        y = 1 / c + _C.ones_like(z)
        nonzero = where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        """log P(X > value): ``-log1p(c z) / c`` (``-z`` at c = 0).

        Parameters
        ----------
        value : Tensor

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.0).log_survival_function(pydevtensor.tensor(2.0))
        tensor(-2.)
        """
        value = _as_tensor(value, self.loc)
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, c = self._safe_concentration()
        return where(eq_zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value):
        """log P(X <= value).

        Parameters
        ----------
        value : Tensor

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, -1.0).log_cdf(pydevtensor.tensor(0.5)).exp()
        tensor(0.5000)
        """
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        eq_zero, c = self._safe_concentration()
        logu = (-value).log1p()
        nonzero = self.loc + self.scale / c * (-c * logu).expm1()
        return where(eq_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        c = self.concentration
        valid = c < 1
        result = self.loc + self.scale / (1 - where(valid, c, 0.5))
        return where(valid, result, math.inf)

    @property
    def variance(self):
        c = self.concentration
        valid = c < 0.5
        safe = where(valid, c, 0.25)
        result = self.scale.square() / ((1 - safe).square() * (1 - 2 * safe))
        return where(valid, result, where(c < 1, math.inf, math.nan))

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(tuple(self.batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """[loc, loc - scale / c] for c < 0, [loc, inf) otherwise.

        Examples
        --------
        >>> from pydevtensor.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, -0.5).support.upper_bound
        tensor(2.)
        """
        c = self.concentration
        upper = where(c < 0, self.loc - self.scale / where(c < 0, c, -1.0), math.inf)
        return constraints.interval(self.loc, upper)
