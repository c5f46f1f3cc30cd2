"""Differences of lgamma without its cancellation, for Kumaraswamy's moments and
StudentT's normalizer.

Note [lgamma steps]
-------------------
``step(x, s) = lgamma(x + s) - lgamma(x)``, ``step_log(x, s) = step(x, s) - s log x``
and ``step2(x, s) = lgamma(x + 2s) - 2 lgamma(x + s) + lgamma(x)`` for x > 0, s >= 0.
Below x = 16 the recurrence lgamma(y + 1) = lgamma(y) + log y moves x up, each step's
share being log1p(s / y) (for step2 log((1 + 2u) / (1 + u)^2), u = s / y, all of one
sign); from x = 16 up Stirling's series: with t = s / x,

    step  = (x - 1/2 + s) log1p(t) + s log x - s + R(x + s) - R(x),
    step2 = (x - 1/2) log1p(-w^2) + 2 s log1p(w) + R(x + 2s) - 2 R(x + s) + R(x),

w = t / (1 + t), R's terms B_2k / (2k (2k - 1) x^(2k - 1)) to k = 6 (the next one below
1e-18 at x = 16), each term's difference x^-m expm1(-m log1p(t)) formed without
subtracting the terms (in step2 x^-m ((1 + t)^-2m expm1(-m log1p(-w^2)) +
expm1(-m log1p(t))^2), two positive parts).  The lgammas themselves (1e32 at x = 1e30)
are never formed.
"""
from .._ops_index import where

__all__ = ["step", "step2", "step_log"]

_LOW = 16.0
# Stirling's remainder R(x) = sum c_m x^-m, m = 1, 3, ..., 11
_R = ((1, 1 / 12), (3, -1 / 360), (5, 1 / 1260), (7, -1 / 1680), (9, 1 / 1188),
      (11, -691 / 360360))


def _shift(x, term):
    """x moved to >= 16 by steps of 1, and the sum of term(y) over the y it passed."""
    acc = 0.0
    for _ in range(int(_LOW)):
        low = x < _LOW
        acc = acc + where(low, term(x), 0.0)
        x = where(low, x + 1.0, x)
    return x, acc


def _remainder_step(x, t, n):
    """R(x + n s) - R(x), t = s / x."""
    lp = (t * n).log1p()
    return sum(c * x.pow(-m) * (lp * -m).expm1() for m, c in _R)


def _stirling_step_log(x, s):
    """lgamma(x + s) - lgamma(x) - s log x for x >= 16: (x - 1/2 + s) log1p(t) - s +
    R(x + s) - R(x), t = s / x."""
    t = s / x
    return (x - 0.5 + s) * t.log1p() - s + _remainder_step(x, t, 1)


def step(x, s):
    """lgamma(x + s) - lgamma(x) for x > 0, s >= 0 (Note [lgamma steps])."""
    x, acc = _shift(x, lambda y: (s / y).log1p())
    return _stirling_step_log(x, s) + s * x.log() - acc


def step_log(x, s):
    """lgamma(x + s) - lgamma(x) - s log x for x > 0, s >= 0, without forming the two
    terms of size s log x (Note [lgamma steps]): 1/(8x) for s = 1/2, the share of
    StudentT's normalizer."""
    xs, acc = _shift(x, lambda y: (s / y).log1p())
    return _stirling_step_log(xs, s) + s * (xs.log() - x.log()) - acc


def _curvature(t):
    """log((1 + 2t) / (1 + t)^2) = log1p(-w^2), w = t / (1 + t) (1 - w^2 rounds badly
    once w is near 1)."""
    small = t < 1
    w = where(small, t, 0.0) / (1 + t)
    tl = where(small, 1.0, t)
    return where(small, (-(w * w)).log1p(), (2 * tl).log1p() - 2 * tl.log1p())


def step2(x, s):
    """lgamma(x + 2s) - 2 lgamma(x + s) + lgamma(x) for x >= 1, s >= 0 (Note [lgamma
    steps])."""
    x, acc = _shift(x, lambda y: _curvature(s / y))
    t = s / x
    curv = _curvature(t)
    # R's second difference per term: x^-m ((1 + t)^-2m expm1(-m curv) + expm1(-m
    # log1p(t))^2), two positive parts where the first differences would cancel
    lp = t.log1p()
    rem = sum(c * x.pow(-m) * ((lp * (-2 * m)).exp() * (curv * -m).expm1()
                               + (lp * -m).expm1().pow(2)) for m, c in _R)
    return (x - 0.5) * curv + 2 * s * (t / (1 + t)).log1p() + rem - acc
