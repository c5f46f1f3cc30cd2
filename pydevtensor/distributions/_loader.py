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

Gamma's density is r p(c - 1; r x) (c >= 1; (c / x) p(c; r x) below, R's dgamma), where
near the mode k - r x is far below r x: so that r x's rounding (1e34 at c = 1e50, where
the density's log is -58) does not enter it, bd0 takes the product's rounding error
(Dekker's exact product) and forms k - r x as (k - fl(r x)) - error.
"""
import math

from .. import _C
from .._ops_float_parts import frexp, ldexp
from .._ops_index import where

__all__ = ["log_binomial", "log_poisson", "product_error"]

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


def _bd0(k, lam, lam_err):
    """k log(k / lam') + lam' - k, k > 0, lam' = lam + lam_err > 0 (lam_err below lam's
    rounding)."""
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
