"""NegativeBinomial(total_count, probs | logits): PyTorch's
``torch.distributions.NegativeBinomial``."""
from .. import _C
from .._ops_index import where
from .._ops_poisson import poisson
from .._ops_special import xlog1py, xlogy
from ..autograd import no_grad
from ..nn.functional import logsigmoid
from . import constraints
from ._loader import loader_ok, log_negative_binomial, split_probs
from .bernoulli import _one_of
from .distribution import Distribution
from .gamma import Gamma, _as_tensor
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes of independent Bernoulli trials of success probability
    ``probs`` before ``total_count`` failures (a real total_count is allowed), as
    PyTorch's: ``P(k) = Gamma(r + k) / (k! Gamma(r)) p^k (1 - p)^r``.  Given by probs or
    by logits (``probs = sigmoid(logits)``), not both.  A draw is a Poisson draw of a
    Gamma(total_count, exp(-logits)) rate (the gamma-Poisson mixture).

    Parameters
    ----------
    total_count : float or Tensor
        r >= 0, broadcastable with the probabilities.
    probs : Tensor, optional
        The probability of a success, in [0, 1).
    logits : Tensor, optional
        The log-odds of a success.
    validate_args : bool, optional
        Check the parameters, and that the values given to log_prob are integers >= 0
        (default: ``Distribution``'s setting).

    Raises
    ------
    ValueError
        Neither or both of probs and logits given; with validation on, a parameter out
        of range.

    Examples
    --------
    >>> from pydevtensor.distributions import NegativeBinomial
    >>> d = NegativeBinomial(pydevtensor.tensor([3.0]), pydevtensor.tensor([0.25]))
    >>> d.mean, d.variance
    (tensor([1.0000]), tensor([1.3333]))
    >>> d.log_prob(pydevtensor.tensor([2.0]))
    tensor([-1.8439])
    >>> d.sample((5,)).shape
    pydevtensor.Size([5, 1])
    """

    arg_constraints = {"total_count": constraints.greater_than(0, strict=False),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _one_of("NegativeBinomial()", probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(tuple(self._param.shape), (), validate_args)

    @lazy_property
    def logits(self):
        """The log-odds of a success, from probs (clamped to [eps, 1 - eps] first).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, pydevtensor.tensor([0.5])).logits
        tensor([0.])
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a success, from logits (their sigmoid).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, logits=pydevtensor.tensor([0.0])).probs
        tensor([0.5000])
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the probability parameter (the batch shape).

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, pydevtensor.full((2, 3), 0.5)).param_shape
        pydevtensor.Size([2, 3])
        """
        return self._param.shape

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape=()):
        with no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(),
                         validate_args=False).sample(sample_shape)
            return poisson(rate.contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        value = _as_tensor(value, r)
        given = self._param is self.__dict__.get("probs")
        if given:  # p itself: the logits clamp it to [eps, 1 - eps] (PyTorch's: r log q
            # was -2.2e-16 r for -1e-20 r at p = 1e-20 in float64), kept off a log's pole
            # where its factor is 0
            p = self.probs
            unnormalized = (xlog1py(r, -where(r > 0, p, 0.5))
                            + xlogy(value, where(value > 0, p, 0.5)))
        else:
            unnormalized = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        norm = -(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma()
        norm = norm.masked_fill(r + value == 0.0, 0.0)
        naive = unnormalized - norm
        # Loader's form for k, r > 0 (Note [Loader's Poisson density]): the lgammas of
        # size r log r gave -10.5 for -18.53 at r = k = 1e15, p = 1/2 (as PyTorch's),
        # -320 at 1e17; p and q = 1 - p with p + q = 1 exactly (the smaller one rounded
        # once, the other its complement and that rounding). From r + k = 15 on: below
        # it the naive form's lgammas are small (max 7.7 eps over r, k <= 300, Loader's
        # everywhere 9.4, the naive everywhere 2938)
        k, r = _C.as_tensor(value).to(naive.dtype), r.to(naive.dtype)
        with no_grad():
            n = r + k
            p_all = self.probs.to(naive.dtype)
            ok = loader_ok((k > 0) & (r > 0) & (n >= 15), n, self._param, p_all, 1 - p_all)
        ks, rs = where(ok, k, 1.0), where(ok, r, 1.0)
        if given:
            ps, qs, q_err = split_probs(ok, p.to(naive.dtype))
            p_err = 0.0
        else:
            ls = where(ok, self.logits.to(naive.dtype), 0.0)
            small = (-ls.abs()).sigmoid()
            large = 1 - small
            with no_grad():
                large_err = (1 - large) - small
            low = ls < 0
            ps, qs = where(low, small, large), where(low, large, small)
            p_err, q_err = where(low, 0.0, large_err), where(low, large_err, 0.0)
        stable = log_negative_binomial(ks, rs, ps, qs, p_err, q_err)
        return where(ok, stable, naive)
