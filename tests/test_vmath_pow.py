"""float32 powers on the CPU (Note [float32 powers] in csrc/cpu/cpu_vpow.h) at every
instruction-set level this processor supports: to a scalar exponent, of a scalar base,
2^x, integer powers and special values, against NumPy's float64 power, in ulps as in
test_vmath.py (whose sample and levels they share).
"""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from test_vmath import LEVELS, dense_sample, ulp_errors

# float32 powers to a scalar exponent (Note [float32 powers] in csrc/cpu/cpu_vpow.h):
# correctly rounded but in cases too rare to meet here, so within half an ulp of the
# float64 power (whose own error adds 1e-6 here; measured 0.49999966), the same bits at
# every level.  The reference takes the exponent as the float32 the tensor op uses.
POW_EXPONENTS = [3.0, -2.0, 1.7, 2.5, -0.3, 10.0, 0.1, 1.0, 1e-3, -7.0, 100.0, -1.5, 0.75, 33.0]
POW_BOUND_ULP = 0.5 + 1e-6


def f32(v):
    return float(np.float32(v))


@pytest.mark.parametrize("level", LEVELS)
def test_powers_within_the_bound(level, level_restored):
    _C._cpu_simd_level(level)
    x = dense_sample(per_exponent=300, seed=4)
    for y in map(f32, POW_EXPONENTS):
        got = np.asarray(pdt.tensor(x) ** y)
        err = ulp_errors(got, x, lambda v: np.power(v, y))
        worst = int(np.argmax(err))
        assert err[worst] <= POW_BOUND_ULP, (
            f"x ** {y} at {level}: {err[worst]:.3f} ulp at x={x[worst]!r} (got {got[worst]!r})")
    # exact where the power is a float
    np.testing.assert_array_equal(np.asarray(pdt.tensor([2.0, -3.0, 0.25]) ** 10.0),
                                  np.array([1024.0, 59049.0, 2.0 ** -20], np.float32))


def test_power_levels_agree(level_restored):
    x = dense_sample(per_exponent=100, seed=5)
    for y in map(f32, POW_EXPONENTS):
        outs = {}
        for level in LEVELS:
            _C._cpu_simd_level(level)
            outs[level] = np.asarray(pdt.tensor(x) ** y)
        for level in LEVELS[1:]:
            np.testing.assert_array_equal(outs[level].view(np.uint32),
                                          outs[LEVELS[0]].view(np.uint32), err_msg=str(y))


def test_powers_where_the_evaluation_is_least_exact(level_restored):
    """Where the double evaluation's error is largest (Note [float32 powers with
    tables]): bases within a few float32 steps of 1 and on either side of the log
    tables' interval edges, to large exponents, and results near overflow, underflow
    and the subnormal range (|y log2 x| near 128 and 149), and exact ties.  Every level
    gives the bits of the correctly rounded power: within half an ulp of the float64 one,
    ties to even."""
    rng = np.random.default_rng(12)
    near_one = (1.0 + rng.integers(-4000, 4000, 4000) * 2.0**-24).astype(np.float32)
    nearer = (1.0 + np.arange(-60, 61) * 2.0**-24).astype(np.float32)
    edges = np.array([0x3F440000 + (j << 19) + d for j in range(17) for d in range(-40, 40)],
                     np.uint32).view(np.float32)  # z at the 16 intervals' edges
    wide = (rng.uniform(0.5, 2.0, 4000) * np.exp2(rng.integers(-60, 60, 4000))).astype(np.float32)
    cases = [(near_one, y) for y in (3e4, -1.5e5)]
    cases += [(nearer, y) for y in (2.5e6, -9.5e6, 4.1e7)]
    cases += [(-near_one, 30001.0), (-nearer, -2000001.0)]  # negative bases, odd powers
    cases += [(edges, y) for y in (1.7, -2.5, 40.3, -150.7)]
    # y such that x ** y sweeps through 2^128, 2^-126 and 2^-149 across the sample
    cases += [(wide, float(y)) for y in (128 / 59.5, -126 / 59.5, -149 / 59.5, 149 / 59.5)]
    # exact ties: (s^2) ** 1.5 = s^3, for odd s in [257, 321] an odd 25-bit integer,
    # halfway between two floats (the evaluation alone would round to either side)
    squares = (np.arange(257, 322, 2, dtype=np.float64) ** 2).astype(np.float32)
    cases += [(squares, 1.5)]
    for x, y in cases:
        y = f32(y)
        outs = {}
        for level in LEVELS:
            _C._cpu_simd_level(level)
            outs[level] = np.asarray(pdt.tensor(x) ** y)
        err = ulp_errors(outs[LEVELS[-1]], x, lambda v: np.power(v, y))
        worst = int(np.argmax(err))
        assert err[worst] <= POW_BOUND_ULP, f"x ** {y}: {err[worst]:.3f} ulp at x={x[worst]!r}"
        if x is squares:  # halfway: the even one of the two, in place too
            want = (x.astype(np.float64) ** 1.5).astype(np.float32)
            np.testing.assert_array_equal(outs[LEVELS[-1]], want)
            t = pdt.tensor(x)
            t **= y
            np.testing.assert_array_equal(np.asarray(t), want)
        for level in LEVELS[:-1]:
            np.testing.assert_array_equal(outs[level].view(np.uint32),
                                          outs[LEVELS[-1]].view(np.uint32), err_msg=f"{y} {level}")


@pytest.mark.parametrize("level", LEVELS)
def test_integer_powers_round_ties_to_even(level, level_restored):
    """Powers that are exact doubles (odd integers cubed past 2^24 fall between floats,
    many exactly halfway) round as the exact value does: 261 ** 3 = 17779581 is
    17779580, 259 ** 3 = 17373979 is 17373980; tiny ones too (2 ** -150 is 0)."""
    _C._cpu_simd_level(level)
    odd = np.arange(1, 60001, 2).astype(np.float32)
    for y in (3.0, 4.0, -2.0, -3.0):
        got = np.asarray(pdt.tensor(odd) ** y)
        exact = (odd.astype(np.float64) ** y).astype(np.float32)  # exact in double, or
        np.testing.assert_array_equal(got, exact, err_msg=str(y))  # within 2^-53 of it
    for base, y, want in ((261.0, 3.0, 17779580.0), (259.0, 3.0, 17373980.0), (2.0, -150.0, 0.0),
                          (0.5, 150.0, 0.0), (2.0, -149.0, 2.0 ** -149), (-3.0, 3.0, -27.0)):
        assert float(pdt.tensor([base]) ** y) == want, (base, y)


@pytest.mark.parametrize("level", LEVELS)
def test_power_bits_do_not_depend_on_layout_or_neighbours(level, level_restored):
    """A scalar exponent (contiguous, strided, next to zeros, NaN or negative bases) and
    a tensor exponent (whole or broadcast) give each element the same bits."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(1100) * np.exp2(rng.uniform(-20, 20, 1100))).astype(np.float32)
    # cubes and fourth powers in and below the subnormal range, and NaNs of either sign
    # (x ** 3 and x ** 4 are products in double; these take pow_f32)
    x[500:520] = np.float32(2.0) ** np.arange(-45, -25, dtype=np.float32)
    x[520:524] = [np.nan, -np.nan, -1e-13, 1e-30]
    for y in map(f32, [3.0, 4.0, -2.0, 1.7, 0.3]):
        want = np.asarray(pdt.tensor(x) ** y).view(np.uint32)
        t = pdt.tensor(x)
        np.testing.assert_array_equal(np.asarray(t ** pdt.full((1100,), y)).view(np.uint32), want)
        np.testing.assert_array_equal(
            np.asarray(t.reshape(11, 100) ** pdt.full((11, 1), y)).reshape(-1).view(np.uint32), want)
        wide = pdt.tensor(np.repeat(x, 2))[::2]
        np.testing.assert_array_equal(np.asarray(wide ** y).view(np.uint32), want)
        y_odd = x.copy()
        y_odd[[0, 300, 301, 999]] = [0.0, np.nan, -1e-40, np.inf]
        mixed = np.asarray(pdt.tensor(y_odd) ** y).view(np.uint32)
        keep = np.ones(x.size, bool)
        keep[[0, 300, 301, 999]] = False
        np.testing.assert_array_equal(mixed[keep], want[keep], err_msg=str(y))
    # split across threads (powers split from 8,192 elements, at unaligned points)
    big = pdt.tensor(np.tile(x, 19)[:20_001])
    old = pdt.get_num_threads()
    try:
        got = []
        for n in (1, 3):
            pdt.set_num_threads(n)
            got.append(np.asarray(big ** f32(1.7)).view(np.uint32))
    finally:
        pdt.set_num_threads(old)
    np.testing.assert_array_equal(got[0], got[1])
    alone = np.asarray(pdt.tensor(x) ** f32(1.7)).view(np.uint32)
    np.testing.assert_array_equal(got[0][:1100], alone)


@pytest.mark.parametrize("level", LEVELS)
def test_power_of_two_rows_has_pows_bits(level, level_restored):
    """a ** y for two contiguous rows (the pairs row: blocks of positive normal bases and
    finite exponents at once, the others element by element) gives each element the bits
    of the strided evaluation (pow_f32 one element at a time) and of a ** y[i] with a
    scalar exponent, within POW_BOUND_ULP of the float64 power; blocks with negative, zero,
    subnormal, infinite and NaN bases or exponents keep their neighbours' bits."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(21)
    n = 2000
    a = np.abs(rng.standard_normal(n) * np.exp2(rng.uniform(-30, 30, n))).astype(np.float32)
    y = (rng.standard_normal(n) * np.exp2(rng.uniform(-8, 4, n))).astype(np.float32)
    y[:40] = np.arange(-20, 20)  # integers, ties among them
    a[:40] = 3.0
    got = np.asarray(pdt.tensor(a) ** pdt.tensor(y))
    strided = np.asarray(pdt.tensor(np.stack([a, a], 1)).t()[0] ** pdt.tensor(np.stack([y, y], 1)).t()[0])
    np.testing.assert_array_equal(got.view(np.uint32), strided.view(np.uint32))
    one = np.array([np.asarray(pdt.tensor(a[i:i + 1]) ** float(y[i]))[0] for i in range(0, n, 37)])
    np.testing.assert_array_equal(got[::37].view(np.uint32), one.view(np.uint32))
    err = ulp_errors(got, a, lambda v: np.power(v, y.astype(np.float64)))
    assert err.max() <= POW_BOUND_ULP, (a[int(np.argmax(err))], y[int(np.argmax(err))])
    odd_a, odd_y = a.copy(), y.copy()
    at = np.array([3, 300, 600, 1100, 1998])
    odd_a[at] = [-2.0, 0.0, 1e-40, np.inf, np.nan]
    odd_y[at + 1] = [np.inf, np.nan, 0.0, -0.0, 1e-40]
    mixed = np.asarray(pdt.tensor(odd_a) ** pdt.tensor(odd_y))
    keep = np.ones(n, bool)
    keep[at] = keep[at + 1] = False
    np.testing.assert_array_equal(mixed[keep].view(np.uint32), got[keep].view(np.uint32))
    with np.errstate(all="ignore"):
        ref = np.power(odd_a.astype(np.float64), odd_y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(mixed), np.isnan(ref))
    np.testing.assert_array_equal(mixed[~keep & ~np.isnan(ref)], ref[~keep & ~np.isnan(ref)])


def test_power_special_values_are_cs():
    """Pairs outside the evaluation's domain go to C's powf (C11 Annex F.10.4.4), as
    NumPy's float32 power does; x ** -1 is 1 / x (Note [squares])."""
    v = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 1e-40, -1e-40,
                  0.5, -0.5], np.float32)
    for y in [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e30, -1e30]:
        got = np.asarray(pdt.tensor(v) ** f32(y))
        with np.errstate(all="ignore"):
            want = np.power(v, np.full(v.shape, y, np.float32))
        np.testing.assert_array_equal(got, want, err_msg=f"y={y}")
    x = pdt.tensor(dense_sample(per_exponent=20))
    np.testing.assert_array_equal(np.asarray(x ** -1).view(np.uint32),
                                  np.asarray(1 / x).view(np.uint32))


def _exponents(rng, lo, hi):
    """random finite bit patterns (a block of 256 with an inf or NaN goes element by
    element: the row would not run), a 1/64 grid over [lo, hi) and the special values"""
    bits = rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([bits[np.isfinite(bits)],
                           np.arange(lo, hi, 1 / 64, dtype=np.float32),
                           np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 149.9, -149.0, -150.0,
                                     -126.5, 128.0, 127.99999, 1.0, -1.0, 2.0, 3.0],
                                    np.float32)])


@pytest.mark.parametrize("level", LEVELS)
def test_two_to_the_x_has_pows_bits(level, level_restored):
    """2 ** x with a tensor exponent takes the scalar base's row (a table at AVX-512): the
    bits of the elementwise float32 pow (a base tensor of 2s), correctly rounded, at every
    level, contiguous (the row) and strided (element by element), on random bit patterns,
    a fine grid over the float range of 2 ** x and the special values.  (exp2 is its own
    op, within 1 ulp: Note [float32 exp2], FUNCS above.)"""
    x = _exponents(np.random.default_rng(9), -160, 160)
    _C._cpu_simd_level(level)
    elementwise = pdt.pow(pdt.full((x.size,), 2.0), pdt.tensor(x)).numpy()
    for got in (pdt.pow(2.0, pdt.tensor(x)).numpy(), (2.0 ** pdt.tensor(x)).numpy(),
                (2.0 ** pdt.tensor(np.stack([x, x], 1)).t()[0]).numpy()):
        np.testing.assert_array_equal(got.view(np.uint32), elementwise.view(np.uint32))
    with np.errstate(over="ignore", invalid="ignore"):
        ref = np.exp2(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(elementwise), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_array_equal(elementwise[ok], ref[ok])


# bases of every kind: the row's (positive normal, 1 among them) and the element by
# element ones (negative, zero, subnormal, inf, NaN)
SCALAR_BASES = [3.0, 0.5, 10.0, float(np.float32(np.e)), 1.0, float(np.float32(1.0001)),
                1 + 2.0**-23, 1 - 2.0**-24, 1 + 2.0**-22,
                float(np.float32(0.999)), 1e-30, 3e38, float(np.float32(1.5e-38)), -2.0, -0.5,
                0.0, -0.0, 1e-40, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("level", LEVELS)
def test_scalar_base_power_has_pows_bits(level, level_restored):
    """c ** x for a Python scalar c (the scalar base's row, Note [float32 powers of a
    scalar base]): the bits of the elementwise float32 pow (a base tensor of c), at every
    level, in place and into a fresh tensor; where the power is finite and not
    subnormal, the float32 rounding of NumPy's float64 power (correctly rounded)."""
    rng = np.random.default_rng(10)
    _C._cpu_simd_level(level)
    for c in SCALAR_BASES:
        with np.errstate(divide="ignore"):
            span = 150 / max(abs(np.log2(abs(np.float64(c)))), 1 / 64) if c == c else 160
        # the grid near 0, and exponents over the whole span of results (2^-150 to 2^128;
        # near-1 bases need large ones, where l's relative error counts most)
        x = np.concatenate([_exponents(rng, -min(span, 200), min(span, 200)),
                            rng.uniform(-span, span, 20_000).astype(np.float32)])
        elementwise = pdt.pow(pdt.full((x.size,), c), pdt.tensor(x)).numpy()
        got = (c ** pdt.tensor(x)).numpy()
        np.testing.assert_array_equal(got.view(np.uint32), elementwise.view(np.uint32),
                                      err_msg=f"c={c}")
        inplace = pdt.tensor(x)
        pdt.pow(c, inplace, out=inplace)
        np.testing.assert_array_equal(inplace.numpy().view(np.uint32),
                                      elementwise.view(np.uint32), err_msg=f"c={c}")
        with np.errstate(all="ignore"):
            ref = np.power(np.float64(np.float32(c)), x.astype(np.float64))
        ok = np.isfinite(ref) & (np.abs(ref) >= 2.0**-126) & (np.abs(ref) <= 3e38)
        np.testing.assert_array_equal(elementwise[ok], ref[ok].astype(np.float32),
                                      err_msg=f"c={c}")
