"""Float // and %, fmod and the truncating division against NumPy, bit for bit (Note
[float division with remainder] in csrc/cpu/cpu_vdivmod.h): float32 rows take an exact
fmod in double lanes where |a / b| < 2^29, and a block holding any other pair the C
library's fmodf, so the bits must be NumPy's (npy_divmod) whatever the path, the level,
the layout or the neighbours.  On every device; on the CPU at every instruction-set
level."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

LEVELS = _C._cpu_simd_level()[1]
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38, 1.0,
                    -1.0, 0.5, 2.0**29, 2.0**30, 2.0**-126], np.float32)


def pairs(seed, n=60_000):
    """random bit patterns; quotients at, just above and just below integers up to
    2^30 (past the fast path's 2^29) over divisors of every scale; ordinary values; and
    every pair of the special values"""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    k = rng.integers(-2**30, 2**30, n).astype(np.float32)
    d = (rng.standard_normal(n) * np.exp2(rng.uniform(-40, 40, n))).astype(np.float32)
    at = (k * d).astype(np.float32)
    ordinary = (rng.standard_normal(n) * 100).astype(np.float32)
    divisor = ((rng.random(n) + 0.1) * rng.choice([-1, 1], n)).astype(np.float32)
    a = np.concatenate([bits[0], at, np.nextafter(at, np.inf), np.nextafter(at, -np.inf),
                        ordinary, np.repeat(SPECIAL, SPECIAL.size)])
    b = np.concatenate([bits[1], d, d, d, divisor, np.tile(SPECIAL, SPECIAL.size)])
    return a, b


def fast_pairs(seed, n=40_000):
    """pairs that all stay on the fast path (|a / b| < 2^29, b finite and nonzero): so no
    block goes back to fmodf.  Quotients at, just above and just below integers up to
    2^28, divisors from the subnormals to 2^100, zeros and subnormal dividends, both
    signs."""
    rng = np.random.default_rng(seed)
    k = rng.integers(-2**28, 2**28, n).astype(np.float32)
    d = (rng.choice([-1, 1], n) * np.exp2(rng.uniform(-149, 100, n))).astype(np.float32)
    d[d == 0] = np.float32(1e-45)
    at = (k * d).astype(np.float32)
    ok = np.isfinite(at) & (np.abs(at.astype(np.float64) / d) < 2.0**28)
    at, d = at[ok], d[ok]
    small = (rng.standard_normal(n) * np.exp2(rng.uniform(-149, 0, n))).astype(np.float32)
    a = np.concatenate([at, np.nextafter(at, np.inf), np.nextafter(at, -np.inf),
                        small, np.zeros(64, np.float32), -np.zeros(64, np.float32)])
    b = np.concatenate([d, d, d, (np.abs(small) + 1e-45).astype(np.float32) *
                        rng.choice([-1, 1], n).astype(np.float32),
                        d[:64], d[:64]])
    return a, b


OPS = {"floordiv": (lambda x, y: x // y, np.floor_divide),
       "remainder": (lambda x, y: x % y, np.remainder),
       "fmod": (pdt.fmod, np.fmod),
       "trunc": (lambda x, y: pdt.div(x, y, rounding_mode="trunc"),
                 lambda x, y: np.trunc(x / y))}


def assert_numpys_bits(got, want, what):
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (what, bad.size, got[bad[:3]], want[bad[:3]])


@pytest.mark.parametrize("name", sorted(OPS))
def test_float32_rows_give_numpys_bits(device, name):
    """The fast path alone (fast_pairs), then every kind of pair mixed (pairs: most blocks
    go back to fmodf)."""
    ours, ref = OPS[name]
    for a, b in (fast_pairs(2), pairs(3)):
        with np.errstate(all="ignore"):
            want = ref(a, b)
        x, y = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
        assert_numpys_bits(ours(x, y).cpu().numpy(), want, name)


@pytest.mark.skipif(len(LEVELS) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("name", sorted(OPS))
def test_every_cpu_level_every_layout(name, level_restored):
    """Each level; a scalar dividend and a scalar divisor (the rows' modes); in place; a
    strided view (through buffers to the same rows);
    float64 too."""
    ours, ref = OPS[name]
    fa, fb = fast_pairs(5, n=20_000)
    a, b = pairs(4, n=20_000)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the bit patterns
        # float64 operands that float32 cannot hold
        a64 = np.concatenate([a, fa]).astype(np.float64) * np.float64(1 + 2.0**-40)
        b64 = np.concatenate([b, fb]).astype(np.float64)
    for level in LEVELS:
        _C._cpu_simd_level(level)
        with np.errstate(all="ignore"):
            assert_numpys_bits(ours(pdt.tensor(fa), pdt.tensor(fb)).numpy(), ref(fa, fb),
                               (level, name, "fast path"))
            got = ours(pdt.tensor(a64), pdt.tensor(b64)).numpy()
            want = ref(a64, b64)
            same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) &
                                                                     np.isnan(want))
            assert same.all(), (level, name, "float64", got[~same][:3], want[~same][:3])
            x, y = pdt.tensor(a), pdt.tensor(b)
            for s in (2.5, -0.3, 1e-30, 0.0):
                assert_numpys_bits(ours(x, s).numpy(), ref(a, np.float32(s)), (level, name, s))
                assert_numpys_bits(ours(s, y).numpy(), ref(np.float32(s), b),
                                   (level, name, s))
            strided = pdt.tensor(np.stack([a, a], 1)).t()[0]
            assert_numpys_bits(ours(strided, y).numpy(), ref(a, b), (level, name, "strided"))
            if name in ("floordiv", "remainder"):
                inplace = pdt.tensor(a)
                if name == "floordiv":
                    inplace //= y
                else:
                    inplace %= y
                assert_numpys_bits(inplace.numpy(), ref(a, b), (level, name, "in place"))


def _int_divmod_reference(a, d):
    """Python's // and %, and the truncating division, of int32 a by d != 0 in int64,
    wrapped to int32 (INT32_MIN // -1 wraps, as Note [integer division by zero] says)."""
    a = a.astype(np.int64)
    q = a // d
    t = np.abs(a) // abs(d) * np.sign(a) * np.sign(d)
    return (q.astype(np.int32), (a - q * d).astype(np.int32), t.astype(np.int32))


@pytest.mark.parametrize("level", LEVELS)
def test_int32_by_a_tensor_of_divisors_at_every_level(device, level, level_restored):
    """int32 // y, % y and the truncating division by a tensor y (the vector levels: Note
    [int32 division by a tensor of divisors] in cpu_vdivmod.h, through the double
    quotient) give Python's answers: random pairs over the whole range, the extremes
    (INT32_MIN // -1 wraps), integer quotients and their neighbours, a number as the
    dividend, every tail, and in place."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(17)
    info = np.iinfo(np.int32)
    d = np.concatenate([rng.integers(info.min, info.max, 4000, dtype=np.int64, endpoint=True),
                        rng.integers(-70, 70, 4000), [-1, -1, 2, -2, info.max, info.min] * 3])
    d[d == 0] = 3
    k = rng.integers(-(2**31), 2**31, d.size) // np.maximum(np.abs(d), 1)
    multiples = np.clip(k * d + rng.integers(-1, 2, d.size), info.min, info.max)
    a = np.concatenate([rng.integers(info.min, info.max, 4000, dtype=np.int64, endpoint=True),
                        multiples[4000:8000], [info.min, info.max, 0, 7, -7, 1] * 3])
    a[4000:8000] = multiples[4000:8000]
    a, d = np.clip(a, info.min, info.max).astype(np.int32), d.astype(np.int32)
    d64 = d.astype(np.int64)
    a64 = a.astype(np.int64)
    floor = a64 // d64
    want = {"floor": floor.astype(np.int32), "rem": (a64 - floor * d64).astype(np.int32),
            "trunc": (np.abs(a64) // np.abs(d64) * np.sign(a64) * np.sign(d64)).astype(np.int32)}
    x, y = pdt.tensor(a, device=device), pdt.tensor(d, device=device)
    got = {"floor": x // y, "rem": x % y, "trunc": pdt.div(x, y, rounding_mode="trunc")}
    for name, g in got.items():
        np.testing.assert_array_equal(g.cpu().numpy(), want[name], err_msg=f"{level} {name}")
    for n in (1, 7, 9, 17):  # tails
        np.testing.assert_array_equal((x[:n] // y[:n]).cpu().numpy(), want["floor"][:n])
    c = 1000003
    np.testing.assert_array_equal((c // y).cpu().numpy(), (c // d64).astype(np.int32))
    np.testing.assert_array_equal((c % y).cpu().numpy(), (c % d64).astype(np.int32))
    x %= y
    np.testing.assert_array_equal(x.cpu().numpy(), want["rem"])


@pytest.mark.parametrize("level", LEVELS)
def test_int32_by_one_divisor_at_every_level(device, level, level_restored):
    """int32 // d, % d and the truncating division by one d (the vector levels: Note
    [int32 division by one divisor] in cpu_vdivmod.h; the baseline and other devices:
    integer division) give Python's answers: the extremes, quotients that are integers
    (where trunc(x / d) may come out one short) and their neighbours, every tail."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(16)
    info = np.iinfo(np.int32)
    edge = np.array([0, 1, -1, 2, -2, 7, -7, info.max, info.min, info.max - 1,
                     info.min + 1, 46341, -46341, 1 << 30, -(1 << 30)], np.int32)
    for d in [1, -1, 2, -2, 3, 7, -7, 641, -65536, 1 << 30, info.max, info.min, info.min + 1,
              int(rng.integers(1, 1 << 20)), -int(rng.integers(1, 1 << 20))]:
        k = rng.integers(-(2**31) // max(abs(d), 1), 2**31 // max(abs(d), 1), 3000)
        multiples = np.clip(k * d, info.min, info.max)  # integer quotients, and around them
        a = np.concatenate([edge, rng.integers(info.min, info.max, 3000, dtype=np.int64,
                                               endpoint=True), multiples, multiples + 1,
                            multiples - 1]).astype(np.int64)
        a = np.clip(a, info.min, info.max).astype(np.int32)
        x = pdt.tensor(a, device=device)
        floor, rem, trunc = _int_divmod_reference(a, d)
        np.testing.assert_array_equal((x // d).cpu().numpy(), floor, err_msg=f"{level} // {d}")
        np.testing.assert_array_equal((x % d).cpu().numpy(), rem, err_msg=f"{level} % {d}")
        np.testing.assert_array_equal(pdt.div(x, d, rounding_mode="trunc").cpu().numpy(),
                                      trunc, err_msg=f"{level} trunc {d}")
        for n in (1, 7, 9, 17):  # tails
            np.testing.assert_array_equal((x[:n] // d).cpu().numpy(), floor[:n])
