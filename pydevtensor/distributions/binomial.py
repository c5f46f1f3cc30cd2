"""Binomial(total_count, probs or logits): PyTorch's ``torch.distributions.Binomial``."""
import math

from .. import _C
from .._ops_index import where
from .._default_dtype import get_default_dtype
from .._dtype_info import result_type
from .._ops_special import xlog1py, xlogy
from ..autograd import no_grad
from ..nn.functional import logsigmoid
from . import constraints
from ._loader import loader_ok, log_binomial, split_probs
from .bernoulli import Bernoulli, _one_of
from .distribution import Distribution
from .utils import broadcast_all, enumerate_values

__all__ = ["Binomial"]

_BTRS_MIN_MEAN = 10.0  # n * min(p, 1 - p) from which sample() uses BTRS, not inversion
# log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2 for k = 0 .. 9 (Stirling's tail)
_STIRLING_TAIL = (0.08106146679532726, 0.04134069595540929, 0.02767792568499834,
                  0.02079067210376509, 0.01664469118982119, 0.01387612882307075,
                  0.01189670994589177, 0.01041126526197209, 0.009255462182712733,
                  0.008330563433362871)


class Binomial(Distribution):
    """The number of successes in total_count independent trials, each a success with
    probability ``probs`` (or ``sigmoid(logits)``).

    A draw takes a number of uniforms that does not grow with total_count: Hormann's
    BTRS (transformed rejection with squeeze) where ``n * min(p, 1 - p) >= 10``, else
    inversion by geometric waiting times (as PyTorch's sampler), in float64.

    Parameters
    ----------
    total_count : int or Tensor, optional
        The number of trials (default 1), >= 0.
    probs : float or Tensor, optional
        The probability of a success, in [0, 1].
    logits : float or Tensor, optional
        The log-odds of a success.
    validate_args : bool, optional
        Check the parameters and, in log_prob, the values (default: ``Distribution``'s
        setting).

    Examples
    --------
    >>> from pydevtensor.distributions import Binomial
    >>> d = Binomial(10, pydevtensor.tensor([0.5]))
    >>> d.mean, d.variance
    (tensor([5.]), tensor([2.5000]))
    >>> d.log_prob(pydevtensor.tensor([5.0])).exp()
    tensor([0.2461])
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _one_of("Binomial()", probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            shape = tuple(self.probs.shape)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            shape = tuple(self.logits.shape)
        self._param = self.__dict__.get("probs", self.__dict__.get("logits"))
        super().__init__(shape, (), validate_args)

    # probs and logits, each computed from the other on first use, and param_shape:
    # Bernoulli's
    logits = Bernoulli.__dict__["logits"]
    probs = Bernoulli.__dict__["probs"]
    param_shape = Bernoulli.__dict__["param_shape"]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The counts 0 .. total_count.

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Binomial
        >>> Binomial(3, pydevtensor.tensor(0.5)).support
        IntegerInterval(lower_bound=0, upper_bound=3.0)
        """
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            probs = self.probs.to(_C.float64).expand(*shape).reshape(-1)
            count = self.total_count.to(_C.float64).expand(*shape).reshape(-1)
            return _sample_binomial(count, probs).reshape(shape).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        logits = self.logits
        # the dtype of PyTorch's form, k logits - lgamma(k + 1) - lgamma(n - k + 1) +
        # n softplus(logits) - lgamma(n + 1): k's and logits', an integer k's lgamma in
        # the default dtype, which a 0-d k's does not widen against logits with
        # dimensions (Note [elementwise dtypes])
        dtype = result_type(k, logits)
        if k.dim() or not logits.dim():
            dtype = _C.promote_types(dtype, k.dtype if k.is_floating_point()
                                     else get_default_dtype())
        # Loader's form for 0 < k < n (Note [Loader's Poisson density]): the lgammas of
        # size n log n gave -20 for -17.5 at n = 1e15, p = 1/2, k = n/2, as PyTorch's;
        # where n p or n q is below the normal range (p or q 0 included), the naive form
        n, k = n.to(dtype), _C.as_tensor(k).to(dtype)
        given = self._param is self.__dict__.get("probs")
        with no_grad():
            p_all = self.probs.to(dtype) if given else logits.sigmoid()
            q_all = 1 - p_all if given else (-logits).sigmoid()
            ok = loader_ok((k > 0) & (k < n), n, logits, p_all, q_all)
        ks, ns = where(ok, k, 1.0), where(ok, n, 2.0)
        if given:  # 1 - p and its rounding
            # the naive form with p itself: the logits clamp p to [eps, 1 - eps] (as
            # PyTorch's: n log p was -3.6e5 for -6.9e6 at n = 1e4, p = 1e-300); p kept
            # off each log's pole where its factor is 0 (no 0 * inf in the gradient)
            p = self.probs.to(dtype)
            # (the lgammas again of n and k in p's dtype: an integer value's are float32)
            naive = ((n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
                     + xlogy(k, where(k > 0, p, 0.5)) + xlog1py(n - k, -where(k < n, p, 0.5)))
            ps, qs, q_err = split_probs(ok, p)
        else:
            # the naive form as k log p + (n - k) log q: its n softplus(logits) less
            # lgamma(n + 1) kept nothing of -n log1p(e^l) at k = 0 (0 for -0.0042 at n =
            # 1e15, logits = -40; 1.6 off -2.06e6 at -20; as PyTorch's)
            # (each term 0 where its count is: logits -inf at k = 0 and +inf at k = n,
            # point masses, made 0 * -inf = nan)
            naive = ((n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
                     + where(k != 0, k * logsigmoid(where(k != 0, logits, 0.0)), 0.0)
                     + where(k != n, (n - k) * logsigmoid(-where(k != n, logits, 0.0)), 0.0))
            ls = where(ok, logits, 0.0)
            ps, qs, q_err = ls.sigmoid(), (-ls).sigmoid(), 0.0
        stable = log_binomial(ks, ns, ps, qs, q_err)
        # in dtype: 0-d float64 logits made both forms float64 for a float32 value with
        # dimensions (where() broadcast them), PyTorch's float32
        return where(ok, stable, naive).to(dtype)

    def entropy(self):
        log_prob = self.log_prob(self.enumerate_support(False))
        # p log p = 0 where p = 0: at probs 0 or 1 the other counts' log_prob is -inf and
        # exp(-inf) * -inf was nan (as PyTorch's), for an entropy of 0; a NaN stays NaN
        seen = log_prob != -math.inf
        log_prob = where(seen, log_prob, 0.0)
        return where(seen, -(log_prob.exp() * log_prob), 0.0).sum(0)

    def enumerate_support(self, expand=True):
        """The counts 0 .. total_count along a new first dimension (one total_count for
        the whole batch), expanded over the batch shape when expand is True.

        Parameters
        ----------
        expand : bool, optional

        Returns
        -------
        Tensor

        Raises
        ------
        NotImplementedError
            total_count differs across the batch.

        Examples
        --------
        >>> from pydevtensor.distributions import Binomial
        >>> Binomial(2, pydevtensor.tensor([0.5])).enumerate_support()
        tensor([[0.],
                [1.],
                [2.]])
        """
        count = self.total_count
        n = int(count.max().item()) if count.numel() else 0
        if count.numel() and int(count.min().item()) != n:
            raise NotImplementedError("Binomial: an inhomogeneous total_count is not supported "
                                      "by enumerate_support and entropy (as in PyTorch)")
        values = _C.arange(1 + n, dtype=count.dtype, device=count.device)
        return enumerate_values(values, self.batch_shape, expand)


def _stirling_tail(k):
    table = _C.tensor(_STIRLING_TAIL, dtype=k.dtype, device=k.device)
    big = k.clamp(min=10.0)
    big2 = big * big
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / big2) / big2) / big
    return where(k < 10, table[k.clamp(0, 9).to(_C.int64)], series)


def _draw_rounds(todo, out, draw):
    """Rounds of draw(idx) -> (accepted, values) over the flat indices todo until every
    one is accepted; out[idx] takes the accepted values."""
    while todo.numel():
        accepted, values = draw(todo)
        out[todo[accepted]] = values[accepted]
        todo = todo[~accepted]


def _inversion(n, q, out, todo, generator=None):
    """Counts of successes before the total of the geometric waiting times passes n:
    about n * q + 1 rounds of one uniform an element (for n * q < 10); a total past n
    stays past it (each waiting time is >= 0)."""
    n, log_q = n[todo], (-q[todo]).log1p()
    total = _C.zeros(todo.shape, dtype=n.dtype, device=n.device)
    found = _C.zeros(todo.shape, dtype=n.dtype, device=n.device)
    while todo.numel():
        u = _C.rand(todo.shape, dtype=n.dtype, device=n.device, generator=generator)
        total = total + (u.log() / log_q).ceil()
        within = total <= n
        if not bool(within.any()):
            break
        found = found + within.to(n.dtype)
    out[todo] = found


def _btrs(n, q, out, todo, generator=None):
    """Hormann (1993), BTRS: k = floor((2a/us + b) U + c), accepted by the squeeze or
    by the bound of log f(k) / f(m) (Stirling's tails); for n * q >= 10, where about 9
    in 10 proposals are accepted."""
    n_all, q_all = n, q

    def draw(idx):
        n, p = n_all[idx], q_all[idx]
        spq = (n * p * (1 - p)).sqrt()
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * p
        c = n * p + 0.5
        v_r = 0.92 - 4.2 / b
        r = p / (1 - p)
        alpha = (2.83 + 5.1 / b) * spq
        m = ((n + 1) * p).floor()
        u = _C.rand(idx.shape, dtype=n.dtype, device=n.device, generator=generator) - 0.5
        v = _C.rand(idx.shape, dtype=n.dtype, device=n.device, generator=generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= n)
        kk = k.clamp(min=0.0).minimum(n)
        squeeze = (us >= 0.07) & (v <= v_r)
        log_v = (v * alpha / (a / (us * us) + b)).log()
        bound = ((m + 0.5) * ((m + 1) / (r * (n - m + 1))).log()
                 + (n + 1) * ((n - m + 1) / (n - kk + 1)).log()
                 + (kk + 0.5) * (r * (n - kk + 1) / (kk + 1)).log()
                 + _stirling_tail(m) + _stirling_tail(n - m)
                 - _stirling_tail(kk) - _stirling_tail(n - kk))
        return inside & (squeeze | (log_v <= bound)), k

    _draw_rounds(todo, out, draw)


def _sample_binomial(n, p, generator=None):
    """One draw of Binomial(n, p) for each element of the flat float64 n and p, in a
    time that does not grow with n: for q = min(p, 1 - p), inversion where n * q < 10,
    BTRS elsewhere; the count of failures where p > 1/2.  The uniforms come from
    generator (default: the default generator)."""
    flip = p > 0.5
    q = where(flip, 1 - p, p)
    out = _C.zeros(n.shape, dtype=n.dtype, device=n.device)
    live = (n > 0) & (q > 0)
    small = live & (n * q < _BTRS_MIN_MEAN)
    _inversion(n, q, out, small.nonzero().reshape(-1), generator)
    _btrs(n, q, out, (live & ~small).nonzero().reshape(-1), generator)
    return where(flip, n - out, out)
