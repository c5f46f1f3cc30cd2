"""float64 powers x ** y (Note [float64 powers] in csrc/cpu/cpu_vpow64.h): on the CPU at
every instruction-set level this processor supports (the AVX-512 level's own kernel, the
C library's pow at the others), and on CUDA devices.

The sample: bases over every binade with exponents that keep the result normal, bases near
1 with large exponents, results next to e^+-708 (where the kernel hands over to the C
library), negative bases with integer exponents (odd and even), random pairs, and every
pair of the special values.  The reference is NumPy's power in np.longdouble.  The bound: 1
ulp at every level (ulps64 of tests/test_vmath64.py); MEASURED_ULP is this sample's worst.
Pairs the kernel does not take (a zero, a subnormal, inf or NaN either side, a negative
base to a fraction, an exponent of 0, a result past e^+-708) are the C library's pow, bit
for bit (called through ctypes: C's special values, Annex F.10.4.4).  On CUDA, CUDA's pow
(2 ulp by the CUDA Math API's appendix)."""
import numpy as np
import pytest

import pydevtensor as pdt
from binary64_checks import check_cpu_and_cuda, check_every_layout, check_within_the_bound
from binary64_checks import evaluate, libm
from pydevtensor import _C
from test_vmath64 import LD, levels_of

LEVELS = _C._cpu_simd_level()[1]

BOUND_ULP = 1.0
CUDA_BOUND_ULP = 2.0
# this sample's worst (2026-12-02, AMD EPYC Zen 4): the C library's (baseline, AVX2) and
# the AVX-512 kernel's
MEASURED_ULP = {"libm": 0.505, "avx512": 0.551}  # a review found 0.564 on 5 million pairs
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324, 2.0, -2.0, 0.5,
           -0.5, 3.0, -3.0, 1e308, 2.2250738585072014e-308, 700.0, -710.0, 1e20, -1e20, 1075.0]

def sample(seed=0, n=20000):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    x = np.exp2(rng.uniform(-1020, 1020, n)) * rng.uniform(1, 2, n)
    xs.append(x)
    ys.append(rng.uniform(-1, 1, n) * np.minimum(700 / np.abs(np.log(x)), 1e6))
    x = 1 + rng.uniform(-1e-3, 1e-3, n)
    xs.append(x)
    ys.append(rng.uniform(-1, 1, n) * 700 / np.abs(np.log(x)))
    x = rng.uniform(0.5, 4, n)  # e^+-708 and just past it
    xs.append(x)
    ys.append(np.sign(rng.uniform(-1, 1, n)) * (708 + rng.uniform(-0.5, 0.5, n)) / np.log(x))
    xs.append(-rng.uniform(0.1, 20, n))
    ys.append(rng.integers(-200, 200, n).astype(np.float64))
    xs.append(rng.uniform(0, 10, n))
    ys.append(rng.uniform(-10, 10, n))
    pairs = [(a, b) for a in SPECIAL for b in SPECIAL]
    xs.append(np.array([p[0] for p in pairs]))
    ys.append(np.array([p[1] for p in pairs]))
    return np.concatenate(xs), np.concatenate(ys)


def reference(x, y):
    with np.errstate(all="ignore"):
        return np.power(x.astype(LD), y.astype(LD))


def library_takes(x, y):
    """the pairs the kernel leaves to the C library (past e^+-708.01: the kernel's own
    test, y log |x| rounded, may fall either side of 708 just there)"""
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        ordinary = ((ax >= 2.0 ** -1022) & np.isfinite(x) & np.isfinite(y) & (y != 0)
                    & ((x > 0) | (y == np.trunc(y))))
        return ~ordinary | (np.abs(y * np.log(ax)) > 708.01)


def _bounds(level):
    if not level:
        return CUDA_BOUND_ULP, None
    return BOUND_ULP, MEASURED_ULP["avx512" if level == "avx512" else "libm"]


def test_within_the_bound_everywhere(device, level_restored):
    """1 ulp at every level (CPU devices), CUDA's bound on a CUDA device; NaN exactly where
    the reference is NaN; the pairs the kernel leaves are the C library's bits."""
    x, y = sample()
    check_within_the_bound(pdt.pow, x, y, reference(x, y), device, _bounds,
                           library_takes(x, y), libm("pow"))


def test_exact_powers_and_signs(device, level_restored):
    """Exact results come out exact (integer powers of small integers, x ** 1, powers of
    two), a negative base to an odd integer keeps its sign, to an even one loses it."""
    x = np.array([2.0, 3.0, -3.0, -3.0, 10.0, 1.7, -1.7, 0.5, 7.0, 2.0, -2.0])
    y = np.array([10.0, 7.0, 7.0, 8.0, 15.0, 1.0, 1.0, -3.0, 3.0, -1074.0 + 52, 61.0])
    want = np.array([1024.0, 2187.0, -2187.0, 6561.0, 1e15, 1.7, -1.7, 8.0, 343.0,
                     2.0 ** -1022, -(2.0 ** 61)])
    for level in levels_of(device):
        got = evaluate(pdt.pow, x, y, device)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64), err_msg=level)


def test_every_layout_gives_the_same_bits(device, level_restored):
    """A number either side, a transposed operand, out=, in place, and vectors holding pairs
    for the C library: the other elements keep the kernel's bits."""
    rng = np.random.default_rng(3)
    check_every_layout(pdt.pow, rng.uniform(0.1, 5, 1027), rng.uniform(-6, 6, 1027), device,
                       (0.0, -1.5, np.inf, np.nan, 1e-320, 1e300))


@pytest.mark.cuda
def test_cpu_and_cuda_agree_within_the_stated_bound(device):
    if device.type == "cpu":
        pytest.skip("a CUDA device against the CPU")
    x, y = sample(seed=2, n=4000)
    check_cpu_and_cuda(pdt.pow, x, y, reference(x, y), BOUND_ULP + CUDA_BOUND_ULP, device)


def test_tensor_exponents_2_half_and_minus_1_are_the_scalars(level_restored):
    """At AVX-512 the kernel gives y = 2, 0.5 and -1 as x x, sqrt x and 1 / x, the bits the
    core gives a scalar exponent (Note [squares]); the C library's pow at the other levels
    may differ from them by an ulp."""
    if "avx512" not in LEVELS:
        pytest.skip("no AVX-512 on this processor")
    _C._cpu_simd_level("avx512")
    x = pdt.tensor(np.random.default_rng(6).uniform(0, 1e6, 5000))
    for e in (2.0, 0.5, -1.0):
        want = (x ** e).numpy().view(np.int64)
        np.testing.assert_array_equal((x ** pdt.full_like(x, e)).numpy().view(np.int64), want)
        np.testing.assert_array_equal((x ** pdt.tensor(e, dtype=pdt.float64)).numpy()
                                      .view(np.int64), want)
