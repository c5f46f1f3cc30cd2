"""float64 atan2 (v64_atan2_fast in csrc/cpu/cpu_vfunc64.h): on the CPU at every
instruction-set level this processor supports, and on CUDA devices.

The sample: pairs whose exponent fields run over every value (subnormals included) with
random mantissas and signs, uniform pairs in the square, pairs next to the switches of the
reduction (|y| = |x|, a ratio of tan(pi/8)), ratios next to 2^-1000 (below it the C
library's atan2 takes the pair) and operands next to 2^1023, and every pair of the special
values.  The reference is NumPy's arctan2 in np.longdouble (64-bit significand here).  The
bound: 1 ulp at every level (ulps64 of tests/test_vmath64.py); MEASURED_ULP is this
sample's worst.  Pairs outside the fast path's range (a zero, a subnormal, inf, NaN, an
operand from 2^1023, a ratio below 2^-1000) are the C library's atan2, bit for bit (C's
special values, Annex F.10.1.4).  On CUDA, CUDA's atan2 (2 ulp by the CUDA Math API's
appendix); a CPU and a CUDA result differ by at most the sum of the bounds."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C
from test_vmath64 import LD, check_blocks, levels_of, ulps64

BOUND_ULP = 1.0
CUDA_BOUND_ULP = 2.0
# this sample's worst (2026-12-02, AMD EPYC Zen 4): the baseline, and the FMA levels (the
# same bits at AVX2 and AVX-512, asserted below)
MEASURED_ULP = {"baseline": 0.629, "fma": 0.620}
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


def libm(y, x):
    return np.array([math.atan2(a, b) for a, b in zip(y, x)])


def outside(y, x):
    """the pairs the C library takes"""
    ay, ax = np.abs(y), np.abs(x)
    n, d = np.minimum(ay, ax), np.maximum(ay, ax)
    with np.errstate(all="ignore"):
        return ~((n >= 2.0 ** -1022) & (d < 2.0 ** 1023) & (n >= d * 2.0 ** -1000))


def _eval(y, x, device):
    return np.asarray(pdt.atan2(pdt.tensor(y, device=device), pdt.tensor(x, device=device)).cpu())


def test_within_the_bound_everywhere(device, level_restored):
    """1 ulp at every level (CPU devices), CUDA's bound on a CUDA device; NaN exactly where
    the reference is NaN; outside the fast path's range the C library's bits."""
    y, x = sample()
    ref = reference(y, x)
    for level in levels_of(device):
        got = _eval(y, x, device)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"{level}")
        err = ulps64(got, ref)
        worst = int(np.argmax(err))
        bound = BOUND_ULP if level else CUDA_BOUND_ULP
        assert err[worst] <= bound, (
            f"atan2 on {device} at {level}: {err[worst]:.4f} ulp at y={y[worst]!r}, x={x[worst]!r}")
        if level:
            measured = MEASURED_ULP["baseline" if level == "baseline" else "fma"]
            assert err[worst] <= measured + 0.01, (level, err[worst], y[worst], x[worst])
            far = outside(y, x)
            np.testing.assert_array_equal(got[far].view(np.int64),
                                          libm(y[far], x[far]).view(np.int64))


def test_the_quadrants_and_the_signs_of_zero(device, level_restored):
    """Exact results where the C standard gives them (+-0, +-pi, +-pi/2, +-pi/4, +-3pi/4 for
    the zeros and infinities) and y's sign on every result, at every level."""
    y = np.array([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, -0.0, 2.0, -2.0, 3.0, 3.0])
    x = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 3.0, -3.0])
    want = np.array([np.pi / 4, 3 * np.pi / 4, -np.pi / 4, -3 * np.pi / 4, 0.0, -0.0, np.pi,
                     -np.pi, np.pi / 2, -np.pi / 2, np.pi / 4, 3 * np.pi / 4])
    for level in levels_of(device):
        got = _eval(y, x, device)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64), err_msg=level)
        y2, x2 = sample(seed=5, n=500)
        got2 = _eval(y2, x2, device)
        ok = ~np.isnan(got2) & (y2 != 0)
        np.testing.assert_array_equal(np.signbit(got2[ok]), np.signbit(y2[ok]))


def test_every_layout_gives_the_same_bits(device, level_restored):
    """A number either side, a broadcast, a transposed operand, out=, in place, and a block
    of 256 holding pairs for the C library: the other elements keep the fast path's bits
    (an element's bits are its pair's alone)."""
    rng = np.random.default_rng(3)
    y, x = rng.uniform(-3, 3, 1027), rng.uniform(-3, 3, 1027)
    for level in levels_of(device):
        fast = _eval(y, x, device).view(np.int64)
        ty, tx = pdt.tensor(y, device=device), pdt.tensor(x, device=device)
        for i in (0, 300, 1026):
            got = np.asarray(pdt.atan2(ty, float(x[i])).cpu())
            full = np.asarray(pdt.atan2(ty, pdt.full_like(tx, x[i])).cpu())
            np.testing.assert_array_equal(got, full)
            got = np.asarray(pdt.atan2(pdt.tensor(y[i], device=device), tx).cpu())
            full = np.asarray(pdt.atan2(pdt.full_like(ty, y[i]), tx).cpu())
            np.testing.assert_array_equal(got, full)
        t = pdt.tensor(np.stack([y, x]), device=device)
        two = pdt.tensor(np.stack([x, y]), device=device)
        strided = np.asarray(pdt.atan2(t.T, two.T).cpu())[:, 0].copy().view(np.int64)
        np.testing.assert_array_equal(strided, fast, err_msg=f"strided at {level}")
        out = pdt.empty((2, 1027), dtype=pdt.float64, device=device)
        pdt.atan2(ty, tx, out=out[1])
        np.testing.assert_array_equal(np.asarray(out[1].cpu()).view(np.int64), fast)
        ty2 = ty.clone()
        ty2.atan2_(tx)
        np.testing.assert_array_equal(np.asarray(ty2.cpu()).view(np.int64), fast)
        check_blocks(lambda y2: _eval(y2, x, device), y, fast,
                     (0.0, np.inf, np.nan, 1e-320, 2.0 ** 1023), f"atan2 at {level}")


def test_fma_levels_agree_to_the_bit(level_restored):
    fma = [lv for lv in LEVELS if lv != "baseline"]
    if len(fma) < 2:
        pytest.skip("one FMA level on this processor")
    y, x = sample(seed=4, n=4000)
    outs = []
    for level in fma:
        _C._cpu_simd_level(level)
        outs.append(_eval(y, x, "cpu").view(np.int64))
    differ = np.flatnonzero(outs[0] != outs[1])
    assert differ.size == 0, f"{fma} differ at y={y[differ[:5]]}, x={x[differ[:5]]}"


@pytest.mark.cuda
def test_cpu_and_cuda_agree_within_the_stated_bound(device):
    if device.type == "cpu":
        pytest.skip("a CUDA device against the CPU")
    y, x = sample(seed=2, n=4000)
    ref = reference(y, x)
    cpu, gpu = _eval(y, x, "cpu"), _eval(y, x, device)
    err = ulps64(cpu, ref) + ulps64(gpu, ref)
    err = np.where(np.isnan(cpu) & np.isnan(gpu), 0.0, err)
    worst = int(np.argmax(err))
    assert err[worst] <= BOUND_ULP + CUDA_BOUND_ULP, (y[worst], x[worst], cpu[worst], gpu[worst])
