"""The Poisson log-density without its cancellation, for Poisson's and Gamma's log_prob.

Note [Loader's Poisson density]
-------------------------------
``k log(lam) - lam - lgamma(k + 1)`` subtracts terms of size k log k to leave one of
size log k: at lam = k = 1e15 its float64 terms are 3e16 apart by 4 (the result was
-8, true -18.1; at 1e17 it was +0.0).  Loader (2000), "Fast and accurate computation of
binomial probabilities" (R's dpois_raw), writes it as

    log p(k; lam) = -stirlerr(k) - bd0(k, lam) - log(2 pi k) / 2,     k > 0,

stirlerr(k) = lgamma(k + 1) - (k + 1/2) log k + k - log(2 pi) / 2 (Stirling's series 1/(12k)
- 1/(360k^3) + ... from k = 15, the lgammas below it), and bd0(k, lam) = k log(k / lam) +
lam - k >= 0, which for |k - lam| < (k + lam) / 10 is the series (k - lam) v + 2k sum_j
v^(2j+1) / (2j + 1), v = (k - lam) / (k + lam), 8 terms (v^2 < 1/100 each).  Every term is
now of the result's size or below it.  k = 0 gives -lam.  Computed in the inputs' dtype.
The binomial's is the same with two bd0 (log_binomial, R's dbinom_raw).

The others are the same sum, from lgamma(c) = (c - 1/2) log c - c + log(2 pi) / 2 +
stirlerr(c) for each lgamma and c log(c / lam) = bd0(c, lam) + c - lam for each power:

    Dirichlet(c), a = sum c_i:  stirlerr(a) - sum stirlerr(c_i) - (K - 1) log(2 pi) / 2
        + (sum log c_i - log a) / 2 - sum log x_i - sum bd0(c_i, a x_i) - a (1 - sum x_i),
    NegativeBinomial(r, p), n = r + k:  stirlerr(n) - stirlerr(r) - stirlerr(k)
        - log(2 pi) / 2 + log(r / (n k)) / 2 - bd0(k, n p) - bd0(r, n q),
    F(d1, d2), a_j = d_j / 2, A = a_1 + a_2, w = d1 x / d2:  stirlerr(A) - stirlerr(a_1)
        - stirlerr(a_2) - log(2 pi) / 2 + log(a_1 a_2 / A) / 2 - log x
        - bd0(a_1, A w / (1 + w)) - bd0(a_2, A / (1 + w)),

the sums c_i - a x_i of the bd0s' differences taken out (0 on the simplex; the last term
keeps the formula's value off it, with 1 - sum x_i summed exactly); for F the differences
are +-D, D = a_1 (1 - x) / (1 + w), formed as that.  The sums a = sum c_i and n = r + k are
rounded: their errors (TwoSum's) go into the lam's errors, as p's or q's (1 - p's rounding).

Gamma's density is r p(c - 1; r x) (c >= 1; (c / x) p(c; r x) below, R's dgamma), where
near the mode k - r x is far below r x: so that r x's rounding (1e34 at c = 1e50, where
the density's log is -58) does not enter it, bd0 takes the product's rounding error
(Dekker's exact product) and forms k - r x as (k - fl(r x)) - error.
"""
import math

from .. import _C
from .._dtype_info import finfo
from .._ops_float_parts import frexp, ldexp
from .._ops_index import where
from .._ops_join import cat
from ..autograd import no_grad

__all__ = ["log_binomial", "log_dirichlet", "log_fisher", "log_negative_binomial",
           "log_poisson", "product_error", "sum_error"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_STIRLING_CUT = 15.0
# stirlerr's series: sum c_m k^-m, m = 1, 3, ..., 11
_STIRLING = ((1, 1 / 12), (3, -1 / 360), (5, 1 / 1260), (7, -1 / 1680), (9, 1 / 1188),
             (11, -691 / 360360))


def _stirlerr(k):
    """lgamma(k + 1) - (k + 1/2) log k + k - log(2 pi) / 2, k > 0."""
    large = k >= _STIRLING_CUT
    kl = where(large, k, 2 * _STIRLING_CUT)
    ks = where(large, 1.0, k)
    series = sum(c * kl.pow(-m) for m, c in _STIRLING)
    direct = (ks + 1).lgamma() - (ks + 0.5) * ks.log() + ks - _HALF_LOG_2PI
    return where(large, series, direct)


def _bd0(k, lam, lam_err=0.0, d=None):
    """k log(k / lam') + lam' - k, k > 0, lam' = lam + lam_err > 0 (lam_err below lam's
    rounding); d, where given, is k - lam' (formed without the cancellation by the
    caller), and lam_err is then not used."""
    if d is None:
        d = (k - lam) - lam_err
    near = d.abs() < (k + lam) * 0.1
    v = where(near, d / (k + lam), 0.0)
    term = 2 * k * v
    series = d * v
    v2 = v * v
    for j in range(1, 9):
        term = term * v2
        series = series + term / (2 * j + 1)
    kf, lf = where(near, 1.0, k), where(near, 1.0, lam)
    ratio = (kf / lf).detach()  # log k - log lam where it over- or underflows
    fits = (ratio > 0) & ratio.isfinite()
    logs = kf.log() - lf.log()
    # log(k / lam)'s value (one rounding; |log(k / lam)| > 0.18 here, so the correction is
    # exact) with the derivative of the logs: through k / lam it is -k / lam^2, which
    # overflows (inf, or nan in where's other branch) for lam below 1e-154
    log_ratio = logs + where(fits, where(fits, ratio, 1.0).log() - logs.detach(), 0.0)
    return where(near, series, kf * log_ratio + lf - kf)


def product_error(a, b):
    """e with a b = fl(a b) + e exactly, a, b > 0 and a b normal (Dekker's product of the
    frexp mantissas, Veltkamp's split, scaled back); a constant to autograd (its derivative
    is 0; through frexp and the split it was 0 * inf = nan at the range's ends)."""
    a, b = (t.detach() if isinstance(t, _C.Tensor) else t for t in (a, b))
    (ma, ea), (mb, eb) = frexp(a), frexp(b)
    p = ma * mb
    halves = []
    for m in (ma, mb):
        t = m * (134217729.0 if m.dtype == _C.float64 else 4097.0)  # 2^27 + 1, 2^12 + 1
        high = t - (t - m)
        halves.append((high, m - high))
    (ah, al), (bh, bl) = halves
    return ldexp(((ah * bh - p) + ah * bl + al * bh) + al * bl, ea + eb)


def log_poisson(k, lam, lam_err=0.0):
    """log(lam'^k e^-lam' / Gamma(k + 1)) for k >= 0, lam' = lam + lam_err > 0, finite,
    broadcast, lam_err a rounding error of lam's or 0 (Note [Loader's Poisson density])."""
    pos = k > 0
    kp = where(pos, k, 1.0)
    out = -_stirlerr(kp) - _bd0(kp, lam, lam_err) - 0.5 * kp.log() - _HALF_LOG_2PI
    return where(pos, out, -lam)


def log_binomial(k, n, p, q, q_err=0.0):
    """log(C(n, k) p^k q'^(n - k)) for 0 < k < n, p, q' = q + q_err > 0 (q' = 1 - p, given
    so that either may be tiny; q_err a rounding error of q's or 0), finite, broadcast:
    Loader's dbinom_raw, stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n p) -
    bd0(n - k, n q') - log(2 pi k (1 - k / n)) / 2, the roundings of n p, n q' and n - k
    taken into bd0's k - lam."""
    nk = n - k
    nk_err = (n - nk) - k  # n - k = nk + nk_err exactly (Fast2Sum: n > k)
    lc = (_stirlerr(n) - _stirlerr(k) - _stirlerr(nk)
          - _bd0(k, n * p, product_error(n, p))
          - _bd0(nk, n * q, product_error(n, q) + n * q_err - nk_err))
    # log(1 - k/n) from the smaller of k and n - k (1 - k/n rounds away n - k's digits)
    log_rest = where(k < nk, (-k / n).log1p(), (nk / n).log())
    return lc - _HALF_LOG_2PI - 0.5 * (k.log() + log_rest)


def loader_ok(counts_ok, n, param, p, q):
    """Where Loader's form applies (Note [Loader's Poisson density]), Binomial's and
    NegativeBinomial's log_prob: where counts_ok (the counts in the form's range), n +
    param is finite (param the probs or the logits: NaN and inf are left to the naive
    form), and n p and n q are normal (n's dtype's; p or q 0 included).  No gradient."""
    tiny = finfo(n.dtype).tiny
    with no_grad():
        return counts_ok & (n + param).isfinite() & (n * p >= tiny) & (n * q >= tiny)


def split_probs(ok, p):
    """(ps, qs, q_err) for Loader's form from given probs p: p where ok (else 1/2, kept
    off the form's poles), q = 1 - p and its rounding, ps + (qs + q_err) = 1 exactly."""
    ps = where(ok, p, 0.5)
    qs = 1 - ps
    with no_grad():
        q_err = (1 - qs) - ps
    return ps, qs, q_err


def sum_error(x):
    """(s, e) over x's last dimension: s its float sum, s + e the exact sum to a rounding
    of e (a pairwise sum, each TwoSum's error kept; exact for two terms); e a constant to
    autograd."""
    # a tensor of the sum's shape also for one term (a float 0.0 broke log_dirichlet's
    # a_err.unsqueeze(-1) at Dirichlet's event size 1)
    err = _C.zeros(tuple(x.shape[:-1]), dtype=x.dtype, device=x.device)
    while x.shape[-1] > 1:
        if x.shape[-1] % 2:
            x = cat([x, 0 * x.narrow(-1, 0, 1).detach()], -1)
        a, b = x[..., 0::2], x[..., 1::2]
        s = a + b
        with no_grad():
            z = s - a
            err = err + ((a - (s - z)) + (b - z)).sum(-1)
        x = s
    return x.select(-1, 0), err


def _log_harmonic(a, b):
    """log(a b / (a + b)), a, b > 0: log(min) - log1p(min / max), without terms of size
    log(a + b) that cancel."""
    low, high = a.minimum(b), a.maximum(b)
    return low.log() - (low / high).log1p()


def log_dirichlet(c, x, x_err=0.0):
    """log(Gamma(a) prod_i x_i'^(c_i - 1) / Gamma(c_i)) over the last dimension, a = sum_i
    c_i, for c > 0 and x' = x + x_err > 0 of one shape, finite, a x normal; x_err a
    rounding error of x's (a constant) or 0 (Note [Loader's Poisson density])."""
    k = c.shape[-1]
    a, a_err = sum_error(c)
    s, s_err = sum_error(x)
    off = (1 - s) - s_err  # 1 - sum x', exact where sum x' is near 1 (Sterbenz)
    log_x = x.log()
    if isinstance(x_err, _C.Tensor):
        off = off - x_err.sum(-1)
        log_x = log_x + (x_err / x).log1p()
    a1 = a.unsqueeze(-1)
    lam_err = product_error(a1, x) + a_err.unsqueeze(-1) * x + a1.detach() * x_err
    # sum log c_i - log a without the two terms of size log a: the largest c_i's log out
    # of the sum, log(a / c_max) = log1p(the others' sum / c_max) for it
    top = c.argmax(-1, keepdim=True)
    is_top = _C.arange(k, device=c.device) == top
    c_max = c.gather(-1, top).squeeze(-1)
    log_ratio = (where(is_top, 0.0, c.log()).sum(-1)
                 - ((a - c_max) / c_max).log1p())
    return (_stirlerr(a) - _stirlerr(c).sum(-1) - (k - 1) * _HALF_LOG_2PI
            + 0.5 * log_ratio - log_x.sum(-1)
            - _bd0(c, a1 * x, lam_err).sum(-1) - a * off)


def log_negative_binomial(k, r, p, q, p_err=0.0, q_err=0.0):
    """log(Gamma(r + k) / (Gamma(r) k!) p'^k q'^r) for k, r > 0, p' = p + p_err and q' = q +
    q_err > 0 with p' + q' = 1, finite, broadcast, (r + k) p and (r + k) q normal (Note
    [Loader's Poisson density])."""
    n = r + k
    with no_grad():
        z = n - r
        n_err = (r - (n - z)) + (k - z)  # r + k = n + n_err exactly (TwoSum)
    return (_stirlerr(n) - _stirlerr(r) - _stirlerr(k) - _HALF_LOG_2PI
            + 0.5 * _log_harmonic(r, k) - k.log()
            - _bd0(k, n * p, product_error(n, p) + n_err * p + n.detach() * p_err)
            - _bd0(r, n * q, product_error(n, q) + n_err * q + n.detach() * q_err))


def log_fisher(d1, d2, x):
    """The F(d1, d2) log-density at x, for d1, d2, x > 0, finite, broadcast, w = (d1 / d2) x
    finite and A / (1 + w), A w / (1 + w) > 0 (A = (d1 + d2) / 2; Note [Loader's Poisson
    density])."""
    a1, a2 = d1 * 0.5, d2 * 0.5
    big = a1 + a2
    w = (d1 / d2) * x
    diff = a1 * (1 - x) / (1 + w)  # a1 - A w / (1 + w) = A / (1 + w) - a2
    return (_stirlerr(big) - _stirlerr(a1) - _stirlerr(a2) - _HALF_LOG_2PI
            + 0.5 * _log_harmonic(a1, a2) - x.log()
            - _bd0(a1, big * w / (1 + w), d=diff) - _bd0(a2, big / (1 + w), d=-diff))
