"""FisherSnedecor(df1, df2): PyTorch's ``torch.distributions.FisherSnedecor``."""
import math

from .._dtype_info import finfo
from .._ops_index import where
from ..autograd import no_grad
from . import constraints
from ._lgamma_steps import step_log
from ._loader import log_fisher
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F distribution of ``df1`` and ``df2`` degrees of freedom, as PyTorch's:
    reparameterisable, a draw is the ratio ``g1 / g2`` of a Gamma(df1 / 2, df1) and a
    Gamma(df2 / 2, df2) draw (each clamped below at the smallest normal number of the
    dtype).

    The mean is nan for df2 <= 2, the mode for df1 <= 2 and the variance for df2 <= 4,
    as PyTorch's (which has no entropy and no cdf for it, nor has this one).

    Parameters
    ----------
    df1, df2 : float or Tensor
        The degrees of freedom, > 0, broadcastable together.
    validate_args : bool, optional
        Check the parameters, and the values given to log_prob (default:
        ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import FisherSnedecor
    >>> d = FisherSnedecor(pydevtensor.tensor([4.0, 1.0]), pydevtensor.tensor([6.0, 2.0]))
    >>> d.mean, d.variance
    (tensor([1.5000,    nan]), tensor([4.5000,    nan]))
    >>> d.log_prob(pydevtensor.tensor([1.0, 1.0]))
    tensor([-0.8802, -1.6479])
    >>> d.sample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1, validate_args=False)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2, validate_args=False)
        super().__init__(tuple(self.df1.shape), (), validate_args)

    @property
    def mean(self):
        df2 = where(self.df2 > 2, self.df2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return where(self.df1 > 2, mode, math.nan)

    @property
    def variance(self):
        df2 = where(self.df2 > 4, self.df2, math.nan)
        return (2 * df2.pow(2) * (self.df1 + df2 - 2)
                / (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))

    def rsample(self, sample_shape=()):
        tiny = finfo(self.df1.dtype).tiny
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape).clamp(min=tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        # lgamma(ct1 + ct2) - lgamma(ct2) - ct1 log ct2 as one step (Note [lgamma steps]):
        # its terms of size ct2 log ct2 gave -68.9 for -0.77 at df = (3, 1e20), as PyTorch's
        t1 = step_log(ct2, ct1) + ct1 * ct1.log() - ct1.lgamma()
        t2 = (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        naive = t1 + t2 - t3
        # Loader's form (Note [Loader's Poisson density]): with both dfs large t1, t2 and
        # t3 of size df1 log df1 cancel (15.25 for 16.0039 at df = (1e15, 1e20), x = 1); the
        # step form for df1 < 10 (max 4.5 eps there, Loader's 27 from its stirlerr of small
        # df; from 10 on 27 and 1555) and where w = (df1 / df2) x or the bd0s' rates
        # leave the normal range
        d1, d2, x = (t.to(naive.dtype) for t in broadcast_all(self.df1, self.df2, value))
        with no_grad():
            w = d1 / d2 * x
            big = 0.5 * (d1 + d2)
            tiny = finfo(naive.dtype).tiny
            ok = ((x > 0) & (d1 >= 10) & (w + big).isfinite() & (big * w / (1 + w) >= tiny)
                  & (big / (1 + w) >= tiny))
        ones = where(ok, 1.0, 1.0 + 0 * d1.detach())
        stable = log_fisher(where(ok, d1, ones), where(ok, d2, ones), where(ok, x, ones))
        return where(ok, stable, naive)
