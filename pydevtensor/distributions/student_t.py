"""StudentT(df, loc, scale): PyTorch's ``torch.distributions.StudentT``."""
import math

from .. import _C
from .._ops_index import where
from . import constraints
from ._lgamma_steps import step_log
from .distribution import Distribution
from .gamma import Chi2
from .utils import broadcast_all

__all__ = ["StudentT"]

_HALF_LOG_2PI_E = 0.5 * (math.log(2 * math.pi) + 1.0)

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, shifted by ``loc`` and
    scaled by ``scale``, as PyTorch's; reparameterisable: a draw is
    ``loc + scale * x / sqrt(z / df)``, x standard normal and z a Chi2(df) draw (whose
    gradient in df is the gamma sampler's implicit one).

    The mean is nan for df <= 1; the variance is nan for df <= 1 and inf for
    1 < df <= 2, as PyTorch's.  PyTorch's StudentT has no cdf, nor has this one.

    Parameters
    ----------
    df : float or Tensor
        The degrees of freedom, > 0.
    loc : float or Tensor, optional
        The location (default 0).
    scale : float or Tensor, optional
        The scale, > 0 (default 1); the three broadcast together.
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import StudentT
    >>> d = StudentT(pydevtensor.tensor([1.0, 2.0, 5.0]))
    >>> d.mean, d.variance
    (tensor([nan, 0., 0.]), tensor([   nan,    inf, 1.6667]))
    >>> d.log_prob(pydevtensor.tensor([0.0, 0.0, 0.0]))
    tensor([-1.1447, -1.0397, -0.9686])
    >>> d.entropy()
    tensor([2.5310, 1.9603, 1.6275])
    >>> d.sample((4,)).shape
    pydevtensor.Size([4, 3])
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df, validate_args=False)
        super().__init__(tuple(self.df.shape), (), validate_args)

    @property
    def mean(self):
        return where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        big = self.df > 2
        df = where(big, self.df, 3.0)  # no inf * 0 in the gradient of the masked part
        finite = self.scale.pow(2) * df / (df - 2)
        return where(big, finite, where(self.df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x = _C.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        # lgamma(df/2) - lgamma((df+1)/2) + log(df)/2 = log(2)/2 - step_log(df/2, 1/2),
        # without its df log df terms (Note [lgamma steps]): those gave -0.0 for -0.919 at
        # df = 1e20 and were 7e-6 off at df = 1e10, as PyTorch's
        z = self.scale.log() + _HALF_LOG_2PI - step_log(0.5 * self.df, 0.5)
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - z

    def entropy(self):
        # lgamma(df/2) - lgamma((df+1)/2) + 0.5 log df cancels its df log df terms (17 off
        # at df = 1e16, as PyTorch 2.15's): past df = 1e3 (30 below float64) it is the
        # series 0.5 log(2 pi e) + 1/df + 1/(4df^2) - 1/(6df^3) - 1/(8df^4) + 3/(10df^5)
        # (the expansion's coefficients fitted in mpmath at 120 digits)
        df = self.df
        large = df > (1e3 if df.dtype == _C.float64 else 30.0)
        dl = where(large, df, 1e4)
        inv = 1 / dl
        series = _HALF_LOG_2PI_E + inv * (1 + inv * (0.25 - inv * (1 / 6 + inv * (
            0.125 - inv * 0.3))))
        ds = where(large, 1.0, df)
        half, half1 = 0.5 * ds, 0.5 * (ds + 1)
        lbeta = half.lgamma() + math.lgamma(0.5) - half1.lgamma()
        direct = half1 * (half1.digamma() - half.digamma()) + 0.5 * ds.log() + lbeta
        return self.scale.log() + where(large, series, direct)
