"""float64 atan2 (v64_atan2_fast in csrc/cpu/cpu_vfunc64.h): on the CPU at every
instruction-set level this processor supports, and on CUDA devices.

The sample: pairs whose exponent fields run over every value (subnormals included) with
random mantissas and signs, uniform pairs in the square, pairs next to the switches of the
reduction (|y| = |x|, a ratio of tan(pi/8)), ratios next to 2^-1000 (below it the C
library's atan2 takes the pair) and operands next to 2^1023, and every pair of the special
values.  The reference is NumPy's arctan2 in np.longdouble (64-bit significand here).  The
bound: 1 ulp at every level (ulps64 of tests/test_vmath64.py); MEASURED_ULP is this
sample's worst.  Pairs outside the fast path's range (a zero, a subnormal, inf, NaN, an
operand from 2^1023, a ratio below 2^-1000), and every pair at the baseline level, are the
C library's atan2, bit for bit (called through ctypes: C's special values, Annex
F.10.1.4).  On CUDA, CUDA's atan2 (2 ulp by the CUDA Math API's
appendix); a CPU and a CUDA result differ by at most the sum of the bounds."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from binary64_checks import check_cpu_and_cuda, check_every_layout, check_within_the_bound
from binary64_checks import evaluate, libm
from pydevtensor import _C
from test_vmath64 import LD, levels_of

BOUND_ULP = 1.0
CUDA_BOUND_ULP = 2.0
# this sample's worst (2026-12-02, AMD EPYC Zen 4): the baseline (the C library's atan2),
# and the FMA levels (the same bits at AVX2 and AVX-512, asserted below; a review's 40
# million pairs found 0.65)
MEASURED_ULP = {"baseline": 0.52, "fma": 0.620}
LEVELS = _C._cpu_simd_level()[1]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324, 2.2250738585072014e-308,
           1e-300, -1e-300, 1e300, 2.0 ** 1023, -np.finfo(np.float64).max, 3.0, -0.5]


def _bits(n, rng):
    exps = rng.integers(0, 2047, n, dtype=np.uint64)
    mant = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    sign = rng.integers(0, 2, n, dtype=np.uint64)
    return ((sign << np.uint64(63)) | (exps << np.uint64(52)) | mant).view(np.float64)


def sample(seed=0, n=20000):
    rng = np.random.default_rng(seed)
    sgn = lambda k: rng.choice([-1.0, 1.0], k)  # noqa: E731
    ys, xs = [_bits(n, rng)], [_bits(n, rng)]
    # exponents within 60 of each other, where the result is neither 0 nor +-pi/2 rounded
    base = _bits(n, rng)
    ys.append(base)
    with np.errstate(over="ignore"):
        near = np.ldexp(rng.uniform(1, 2, n), np.frexp(base)[1] + rng.integers(-60, 60, n))
    xs.append(near * sgn(n))
    ys.append(rng.uniform(-1, 1, n))
    xs.append(rng.uniform(-1, 1, n))
    for ratio in (1.0, math.tan(math.pi / 8), 2.0 ** -1000):
        x = rng.uniform(0.5, 2, n) * sgn(n)
        ys.append(np.abs(x) * ratio * (1 + rng.uniform(-1e-9, 1e-9, n)) * sgn(n))
        xs.append(x)
        ys.append(xs[-1].copy())  # and swapped
        xs.append(ys[-2].copy())
    big = np.nextafter(2.0 ** 1023, 0) * rng.uniform(0.99, 1, n)
    ys.append(big * sgn(n))
    xs.append(big * rng.uniform(0.1, 1.2, n) * sgn(n))
    pairs = [(a, b) for a in SPECIAL for b in SPECIAL]
    ys.append(np.array([p[0] for p in pairs]))
    xs.append(np.array([p[1] for p in pairs]))
    return np.concatenate(ys), np.concatenate(xs)


def reference(y, x):
    with np.errstate(all="ignore"):
        return np.arctan2(y.astype(LD), x.astype(LD))


def outside(y, x):
    """the pairs the C library takes (all of them at the baseline level)"""
    ay, ax = np.abs(y), np.abs(x)
    n, d = np.minimum(ay, ax), np.maximum(ay, ax)
    with np.errstate(all="ignore"):
        return ~((n >= 2.0 ** -1022) & (d < 2.0 ** 1023) & (n >= d * 2.0 ** -1000))


def _bounds(level):
    if not level:
        return CUDA_BOUND_ULP, None
    return BOUND_ULP, MEASURED_ULP["baseline" if level == "baseline" else "fma"]


def test_within_the_bound_everywhere(device, level_restored):
    """1 ulp at every level (CPU devices), CUDA's bound on a CUDA device; NaN exactly where
    the reference is NaN; outside the fast path's range the C library's bits."""
    y, x = sample()
    check_within_the_bound(pdt.atan2, y, x, reference(y, x), device, _bounds, outside(y, x),
                           libm("atan2"))


def test_the_quadrants_and_the_signs_of_zero(device, level_restored):
    """Exact results where the C standard gives them (+-0, +-pi, +-pi/2, +-pi/4, +-3pi/4 for
    the zeros and infinities) and y's sign on every result, at every level."""
    y = np.array([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, -0.0, 2.0, -2.0, 3.0, 3.0])
    x = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 3.0, -3.0])
    want = np.array([np.pi / 4, 3 * np.pi / 4, -np.pi / 4, -3 * np.pi / 4, 0.0, -0.0, np.pi,
                     -np.pi, np.pi / 2, -np.pi / 2, np.pi / 4, 3 * np.pi / 4])
    for level in levels_of(device):
        got = evaluate(pdt.atan2, y, x, device)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64), err_msg=level)
        y2, x2 = sample(seed=5, n=500)
        got2 = evaluate(pdt.atan2, y2, x2, device)
        ok = ~np.isnan(got2) & (y2 != 0)
        np.testing.assert_array_equal(np.signbit(got2[ok]), np.signbit(y2[ok]))


def test_every_layout_gives_the_same_bits(device, level_restored):
    """A number either side, a transposed operand, out=, in place, and a block of 256
    holding pairs for the C library: the other elements keep the fast path's bits (an
    element's bits are its pair's alone)."""
    rng = np.random.default_rng(3)
    check_every_layout(pdt.atan2, rng.uniform(-3, 3, 1027), rng.uniform(-3, 3, 1027), device,
                       (0.0, np.inf, np.nan, 1e-320, 2.0 ** 1023))


def test_fma_levels_agree_to_the_bit(level_restored):
    fma = [lv for lv in LEVELS if lv != "baseline"]
    if len(fma) < 2:
        pytest.skip("one FMA level on this processor")
    y, x = sample(seed=4, n=4000)
    outs = []
    for level in fma:
        _C._cpu_simd_level(level)
        outs.append(evaluate(pdt.atan2, y, x, "cpu").view(np.int64))
    differ = np.flatnonzero(outs[0] != outs[1])
    assert differ.size == 0, f"{fma} differ at y={y[differ[:5]]}, x={x[differ[:5]]}"


@pytest.mark.cuda
def test_cpu_and_cuda_agree_within_the_stated_bound(device):
    if device.type == "cpu":
        pytest.skip("a CUDA device against the CPU")
    y, x = sample(seed=2, n=4000)
    check_cpu_and_cuda(pdt.atan2, y, x, reference(y, x), BOUND_ULP + CUDA_BOUND_ULP, device)
