"""Integer +, -, *, maximum, minimum, &, |, ^ and the six comparisons on the CPU at
every instruction-set level (the level's rows on contiguous operands, cpu_vmath.h's VI_ROWS
and, for uint8, int8 and int16, cpu_vsmall.h's; the shared expressions on strided ones,
cpu_elementwise.c), and on every device: exactly
NumPy's, wrapping at the type's ends as NumPy's (two's complement), for rows of every length
around the vector widths, a row and one value on either side, a row with itself, in place
and strided."""
import operator

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

LEVELS = pdt._C._cpu_simd_level()[1]
# every integer dtype: uint8, int8 and int16 run rows of their own (Note [small integer rows]
# in csrc/cpu/cpu_vsmall.h), with the values the int32 route gave
INTS = ["uint8", "int8", "int16", "int32", "int64"]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_,
       "|": operator.or_, "^": operator.xor, "==": operator.eq, "!=": operator.ne,
       "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
FUNCS = {"maximum": np.maximum, "minimum": np.minimum}


def _values(rng, dtype, n):
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, -1, 1]).astype(dtype)
    v = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    k = min(n, 3)
    v[rng.integers(0, n, k)] = rng.choice(edges, k)  # wraps: min * -1, max + 1, ...
    return v


def _check(got, want, what):
    got = got.cpu().numpy()
    assert got.dtype == want.dtype, what
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", INTS)
def test_rows_at_every_level(level, dtype, level_restored):
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(11)
    for n in (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 257, 1031):
        a, b = _values(rng, dtype, n), _values(rng, dtype, n)
        x, y = pdt.from_numpy(a), pdt.from_numpy(b)
        s = int(b[0])
        with np.errstate(over="ignore"):
            for name, f in OPS.items():
                _check(f(x, y), f(a, b), f"{name} {level} {dtype} n={n}")
                _check(f(x, s), f(a, a.dtype.type(s)), f"x {name} s")
                _check(f(s, x), f(a.dtype.type(s), a), f"s {name} x")
                _check(f(x, x), f(a, a), f"x {name} x")
                if n > 2:
                    _check(f(x[::2], y[1::2][: (n + 1) // 2]) if n % 2 == 0 else
                           f(x[::2][: n // 2], y[1::2]),
                           f(a[::2], b[1::2][: (n + 1) // 2]) if n % 2 == 0 else
                           f(a[::2][: n // 2], b[1::2]), f"strided {name}")
            for name, f in FUNCS.items():
                _check(getattr(pdt, name)(x, y), f(a, b), f"{name} {level} {dtype} n={n}")
                _check(getattr(pdt, name)(x, y[:1]), f(a, b[:1]), f"{name} broadcast")
            z = x.clone()
            z.mul_(y)
            _check(z, a * b, "mul_ in place")
            z = x.clone()
            z.add_(z)
            _check(z, a + a, "add_ of itself")


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", INTS)
def test_every_device_wraps_as_numpy(dev, dtype):
    rng = np.random.default_rng(12)
    a, b = _values(rng, dtype, 100), _values(rng, dtype, 100)
    x, y = pdt.tensor(a, device=dev), pdt.tensor(b, device=dev)
    with np.errstate(over="ignore"):
        for name, f in OPS.items():
            _check(f(x, y), f(a, b), f"{name} on {dev}")
        for name, f in FUNCS.items():
            _check(getattr(pdt, name)(x, y), f(a, b), f"{name} on {dev}")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", INTS)
def test_unary_rows_and_shifts_at_every_level(level, dtype, level_restored):
    """neg, abs, sign, relu and clamp (the level's rows contiguous, the expressions strided):
    NumPy's, -INT_MIN and |INT_MIN| wrapping to INT_MIN; << and >> by counts from -3 to past
    the width give 0 (and -1 for >> of a negative), as PyTorch's CPU kernels do."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(13)
    bits = np.iinfo(dtype).bits
    lo = max(-5, np.iinfo(dtype).min)  # the core saturates a bound to the dtype's range
    lo3, hi3 = max(-300, np.iinfo(dtype).min), min(300, np.iinfo(dtype).max)
    for n in (1, 7, 16, 17, 33, 65, 1031):
        a = _values(rng, dtype, n)
        x = pdt.from_numpy(a)
        with np.errstate(over="ignore"):
            for got, want, what in ((-x, -a, "neg"), (x.abs(), np.abs(a), "abs"),
                                    (x.sign(), np.sign(a), "sign"),
                                    (pdt.relu(x), np.maximum(a, 0), "relu"),
                                    (x.clamp(-5, 7), np.clip(a, lo, 7), "clamp"),
                                    (x.clamp(-300, 300), np.clip(a, lo3, hi3), "clamp -300, 300"),
                                    (x[::3].abs(), np.abs(a[::3]), "strided abs"),
                                    (-x[::2], -a[::2], "strided neg")):
                _check(got, want.astype(dtype), f"{what} {level} {dtype} n={n}")
        counts = rng.integers(-3, bits + 4, n).astype(dtype)
        c = pdt.from_numpy(counts)
        ok = (counts >= 0) & (counts < bits)
        safe = np.where(ok, counts, 0)
        with np.errstate(over="ignore"):
            want_l = np.where(ok, a << safe, 0).astype(dtype)
            want_r = np.where(ok, a >> safe, np.where(a < 0, -1, 0)).astype(dtype)
        _check(x << c, want_l, f"<< {level} {dtype} n={n}")
        _check(x >> c, want_r, f">> {level} {dtype} n={n}")
        # every count by itself (Note [small integer shifts by one count] in
        # csrc/cpu/cpu_vsmall.h), a negative one as one past the width, and in place
        for s in range(-3, bits + 6):
            with np.errstate(over="ignore"):
                inside = 0 <= s < bits
                wl = (a << s if inside else np.zeros_like(a)).astype(dtype)
                wr = (a >> s if inside else np.where(a < 0, -1, 0)).astype(dtype)
            _check(x << s, wl, f"<< {s} {level} {dtype} n={n}")
            _check(x >> s, wr, f">> {s} {level} {dtype} n={n}")
            z = x.clone()
            z >>= s
            _check(z, wr, f">>= {s} {level} {dtype} n={n}")
            z = x.clone()
            z <<= s
            _check(z, wl, f"<<= {s} {level} {dtype} n={n}")


@pytest.mark.parametrize("level", LEVELS)
def test_mask_equality_rows_at_every_level(level, level_restored):
    """bool == and != (and ~m, which is m == 0): any nonzero byte reads as True."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(14)
    for n in (1, 17, 64, 65, 1031):
        ua = rng.choice(np.array([0, 1, 2, 255], np.uint8), n)
        ub = rng.choice(np.array([0, 1, 7], np.uint8), n)
        x, y = pdt.from_numpy(ua.view(bool)), pdt.from_numpy(ub.view(bool))
        ra, rb = ua != 0, ub != 0
        for got, want in ((x == y, ra == rb), (x != y, ra != rb), (~x, ~ra), (x == x, ra == ra),
                          (x[::2] != y[::2], ra[::2] != rb[::2]), (x != True, ~ra)):  # noqa: E712
            out = got.numpy()
            assert set(np.unique(out.view(np.uint8))) <= {0, 1}
            np.testing.assert_array_equal(out, want, err_msg=f"{level} n={n}")


@pytest.mark.parametrize("level", LEVELS)
def test_integer_and_bool_casts_at_every_level(level, level_restored):
    """int32/int64 into float32/float64 (to the nearest, past 2^24 and 2^53 too), int32 <->
    int64 (int64 into int32 keeps the low 32 bits, as NumPy's astype), bool (any nonzero
    byte) into float32 and int64: NumPy's values at every level, contiguous and strided."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(15)
    for n in (1, 7, 16, 17, 65, 1031, 70000):  # 70,000: split over the pool
        a64 = _values(rng, "int64", n)
        a64[: n // 3] >>= rng.integers(0, 40, n // 3)  # magnitudes from 2^23 to 2^63
        a32 = _values(rng, "int32", n)
        ub = rng.choice(np.array([0, 1, 2, 255], np.uint8), n)
        cases = [(a32, "float32"), (a32, "float64"), (a64, "float32"), (a64, "float64"),
                 (a32, "int64"), (a64, "int32"), (ub.view(bool), "float32"),
                 (ub.view(bool), "int64")]
        for src, to in cases:
            want = (src != 0 if src.dtype == bool else src).astype(to)
            x = pdt.from_numpy(src)
            _check(x.to(getattr(pdt, to)), want, f"{src.dtype} -> {to} {level} n={n}")
            _check(x[::2].to(getattr(pdt, to)), want[::2], f"strided {src.dtype} -> {to}")


@pytest.mark.parametrize("level", LEVELS)
def test_int64_running_sums_at_every_level(level, level_restored):
    """cumsum of int64 rows (one row at a time through the level's row, eight rows side by
    side, in place of nothing: the result apart from its input): NumPy's, wrapping."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(16)
    for shape in ((1,), (7,), (8,), (9,), (17,), (1031,), (3, 21), (9, 40), (20, 5)):
        a = _values(rng, "int64", int(np.prod(shape))).reshape(shape)
        x = pdt.from_numpy(a)
        with np.errstate(over="ignore"):
            for dim in range(len(shape)):
                _check(pdt.cumsum(x, dim), np.cumsum(a, dim), f"{level} {shape} dim {dim}")
        a32 = a.astype(np.int32)
        _check(pdt.cumsum(pdt.from_numpy(a32), -1), np.cumsum(a32, -1, dtype=np.int64),
               "int32 sums in int64")
        got = pdt.cumsum(x, -1)
        with np.errstate(over="ignore"):
            want = np.cumsum(a, -1)
        x.zero_()  # the sums do not share x's memory (nor a's, which x shares)
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", INTS)
def test_division_and_powers_at_every_level(level, dtype, level_restored):
    """//, %, fmod, the truncating division and ** of every integer dtype (the small ones'
    divisions through the level's rows, strided ones a block of 256 at a time: Note [small
    integer rows] in csrc/cpu/cpu_vsmall.h): NumPy's (Python's floor and remainder; C's
    truncation), for rows around the block, a divisor row or one divisor, strided."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(14)
    info = np.iinfo(dtype)
    for n in (1, 7, 255, 256, 257, 1031):
        a = _values(rng, dtype, n)
        b = _values(rng, dtype, n)
        b[b == 0] = 3
        b[(a == info.min) & (b == -1)] = 1  # MIN // -1 overflows in NumPy
        x, y = pdt.from_numpy(a), pdt.from_numpy(b)
        s = int(b[n // 2])
        sa = a.dtype.type(s)
        sa_ok = a if s != -1 else np.where(a == info.min, 0, a)
        xs = pdt.from_numpy(sa_ok)
        trunc = a // b + ((a % b != 0) & ((a < 0) != (b < 0)))  # C's division, exact
        with np.errstate(over="ignore"):  # MIN // -1 in the strided pairs wraps to MIN
            strided = a[1::2] // b[::2][: n // 2]
        for got, want, what in ((x // y, a // b, "//"), (x % y, a % b, "%"),
                                (pdt.fmod(x, y), np.fmod(a, b), "fmod"),
                                (pdt.div(x, y, rounding_mode="trunc"), trunc, "trunc"),
                                (xs // s, sa_ok // sa, "// one"), (xs % s, sa_ok % sa, "% one"),
                                (x[1::2] // y[::2][: n // 2], strided, "strided //")):
            _check(got, want.astype(dtype), f"{what} {level} {dtype} n={n}")
        e = rng.integers(0, 9, n).astype(dtype)
        with np.errstate(over="ignore"):
            _check(x ** pdt.from_numpy(e), a ** e, f"** {level} {dtype} n={n}")
            _check(x ** 3, a ** a.dtype.type(3), f"** 3 {level} {dtype} n={n}")


def _divisors(dtype):
    """Every divisor of an 8-bit dtype; for int16 and int32 the edges, every power of two
    and its neighbours, and a sample between."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        return list(range(info.min, info.max + 1))
    twos = [s * ((1 << k) + e) for k in range(info.bits) for e in (-1, 0, 1) for s in (1, -1)]
    rng = np.random.default_rng(15)
    some = rng.integers(info.min, info.max, 64, endpoint=True).tolist()
    return sorted({d for d in twos + some + [info.min, info.max, 3, 7, -7, 10, 255, 1000]
                   if info.min <= d <= info.max})


def _dividends(dtype, d):
    """Every value of a small dtype; for int32 and int64 the edges, a sample (int64's of
    every magnitude), and the multiples of d (where a quotient is exact) with their
    neighbours: Python ints (an object array)."""
    info = np.iinfo(dtype)
    if info.bits <= 16:
        return np.arange(info.min, info.max + 1, dtype=np.int64).astype(object)
    rng = np.random.default_rng(abs(d) % 2**32)
    k = rng.integers(info.min // abs(d), info.max // abs(d), 512, endpoint=True).astype(object)
    some = rng.integers(info.min, info.max, 2048, endpoint=True)
    some = some >> rng.integers(0, info.bits - 1, some.size)
    v = np.concatenate([some.astype(object), k * d, k * d - 1, k * d + 1,
                        np.array([info.min, info.max, info.min + 1, 0, 1, -1], dtype=object)])
    return v[(v >= info.min) & (v <= info.max)]


def _wrapped(v, dtype):
    """Python ints v wrapped into dtype (MIN // -1 is MIN, as C's two's complement)."""
    info = np.iinfo(dtype)
    return ((v - info.min) % 2 ** info.bits + info.min).astype(dtype)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_division_by_one_divisor_every_value(level, dtype, level_restored):
    """x // d, x % d and the truncating division of an integer row by one divisor (a
    multiply's high half: Notes [small integer division by one divisor] in
    csrc/cpu/cpu_vsdiv.h, [int32 division by one divisor] and [int64 division by one
    divisor] in cpu_vdivmod.h) for every value of a small dtype (int32, int64: a sample),
    against Python's floor and remainder and C's truncation in Python ints, wrapped; -1
    as the int32 route (MIN // -1 wraps)."""
    pdt._C._cpu_simd_level(level)
    for d in _divisors(dtype):
        if d == 0:  # refused (tests/test_integer_division_by_zero.py)
            continue
        a = _dividends(dtype, d)
        x = pdt.from_numpy(a.astype(dtype))
        floor, rem = a // d, a % d
        trunc = floor + ((rem != 0) & ((a < 0) != (d < 0)))
        for s in (d, pdt.tensor(d, dtype=getattr(pdt, dtype))):
            for got, want, what in ((x // s, floor, "//"), (x % s, rem, "%"),
                                    (pdt.div(x, s, rounding_mode="trunc"), trunc, "trunc")):
                _check(got, _wrapped(want, dtype), f"x {what} {s!r} {level} {dtype}")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_strided_rows_in_blocks(level, dtype, level_restored):
    """Strided small-integer shifts by one count and divisions run the level's row a block
    of 256 at a time (BLOCKED_ROW in csrc/cpu/cpu_elementwise.c): every- other and reversed
    operands, one value on either side, two strided rows, and a strided output written in
    place, for rows shorter than a block, of one, and across blocks; NumPy's values."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(16)
    for n in (15, 16, 256, 257, 1031):
        a = _values(rng, dtype, 2 * n)
        b = _values(rng, dtype, 2 * n)
        b[b == 0] = 5
        b[b == -1] = 3  # MIN // -1 overflows in NumPy
        x, y = pdt.from_numpy(a), pdt.from_numpy(b)
        k = np.dtype(dtype).type(7)
        with np.errstate(over="ignore"):
            for xs, as_ in ((x[::2], a[::2]), (x[::-1], a[::-1])):
                cases = [(xs << 3, as_ << np.dtype(dtype).type(3), "<< 3"),
                         (xs >> 2, as_ >> np.dtype(dtype).type(2), ">> 2"),
                         (xs // 7, as_ // k, "// 7"), (xs % 7, as_ % k, "% 7"),
                         (pdt.div(xs, -7, rounding_mode="trunc"),
                          np.trunc(as_ / -7.0).astype(dtype) if dtype != "uint8" else None,
                          "trunc -7"),
                         (7 // y[::2], k // b[::2], "7 //"),
                         (xs[: n] // y[1::2][: n], as_[: n] // b[1::2][: n], "// rows")]
                for got, want, what in cases:
                    if want is not None:
                        _check(got, want.astype(dtype), f"{what} {level} {dtype} n={n}")
        z = x.clone()
        v = z[::2]
        v //= 7
        want = a.copy()
        want[::2] //= k
        _check(z, want, f"in place //= {level} {dtype} n={n}")
        z = x.clone()
        v = z[1::2]
        v <<= 1
        want = a.copy()
        with np.errstate(over="ignore"):
            want[1::2] <<= np.dtype(dtype).type(1)
        _check(z, want, f"in place <<= {level} {dtype} n={n}")
