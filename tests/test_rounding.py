"""floor, ceil, round, trunc, sign, log1p and expm1 (csrc/python/tensor_round.c) on every
device, against NumPy.

The rounding ops and sign are exact, so they must give NumPy's bits (np.floor, np.ceil,
np.rint, np.trunc, np.sign): halves, both zeros, NaN, infinities, subnormals and values at
and past 2^23 (2^52), where every float is whole.  On the CPU they are checked at every
instruction-set level (the vector levels use the rounding instructions, the baseline the
C library).  log1p and expm1 of float32 are within 1 ulp of NumPy's float64 result on
every device and CPU level (the stated bound: Note [log1p and expm1] in
csrc/cpu/cpu_vexpm1.h; CUDA rounds the float64 function once), float64 within 2 ulps."""
import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C
from conftest import DEVICES, torch_or_skip, ulps32

ROUNDING = {"floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc}
LEVELS = _C._cpu_simd_level()[1]


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def sample(dtype, n=4000, seed=0):
    """A dense sample of the dtype's range, with the values where rounding can go wrong."""
    rng = np.random.default_rng(seed)
    bits = 23 if dtype == np.float32 else 52
    mags = 2.0 ** rng.uniform(-30, bits + 3, n)
    x = mags * rng.choice([-1.0, 1.0], n)
    k = rng.integers(-2**20, 2**20, 400).astype(np.float64)
    special = np.concatenate([
        k + 0.5, k - 0.5, k + 0.25, k,  # halves (to even), quarters, whole numbers
        [0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
         0.49999997, -0.49999997, 2.0**bits, 2.0**bits + 1, -(2.0**bits) - 1, 2.0**bits - 0.5,
         np.finfo(dtype).max, -np.finfo(dtype).max, np.finfo(dtype).tiny,
         np.finfo(dtype).smallest_subnormal, -np.finfo(dtype).smallest_subnormal]])
    return np.concatenate([x, special]).astype(dtype)


def bits_equal(got, want):
    """Equal bit for bit (the sign of a zero counts), NaN where NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    u = np.uint32 if got.dtype == np.float32 else np.uint64
    bad = np.flatnonzero(got.view(u)[~nan] != want.view(u)[~nan])
    assert bad.size == 0, (got[~nan][bad[:5]], want[~nan][bad[:5]])


@pytest.mark.parametrize("name", sorted(ROUNDING) + ["sign"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rounding_and_sign_give_numpys_bits(dev, name, dtype):
    a = sample(dtype)
    x = pdt.tensor(a, device=dev)
    want = ROUNDING.get(name, np.sign)(a)
    bits_equal(getattr(pdt, name)(x).cpu().numpy(), want)
    bits_equal(getattr(x, name)().cpu().numpy(), want)
    # strided (every other element, reversed) and in place
    v = x.flip(0)[::2]
    bits_equal(getattr(v, name)().cpu().numpy(), want[::-1][::2])
    y = x.clone()
    assert getattr(y, name + "_")() is y
    bits_equal(y.cpu().numpy(), want)


@pytest.mark.skipif(len(LEVELS) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("name", sorted(ROUNDING) + ["sign"])
def test_every_cpu_level_gives_the_same_bits(name, level_restored):
    """The vector levels' rounding instructions and the baseline's C library agree (rows
    long enough for the vector loop, plus a tail)."""
    for dtype in (np.float32, np.float64):
        a = sample(dtype, n=4093, seed=1)
        want = ROUNDING.get(name, np.sign)(a)
        for level in LEVELS:
            _C._cpu_simd_level(level)
            bits_equal(getattr(pdt, name)(pdt.tensor(a)).numpy(), want)


@pytest.mark.skipif(len(LEVELS) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_signalling_nans_come_out_quietened_at_every_level(name, level_restored):
    """A signalling NaN (payloads of both signs) comes out with its quiet bit set and its
    payload kept, at every level, in the vector loop and the tail, contiguous and
    strided (the baseline's inline expansion once passed it through unchanged)."""
    for dtype, utype, quiet in ((np.float32, np.uint32, 0x00400000),
                                (np.float64, np.uint64, 0x0008000000000000)):
        info = np.finfo(dtype)
        exp = utype((1 << (info.bits - 1)) - (1 << info.nmant))  # the exponent's bits
        sign = utype(1) << utype(info.bits - 1)
        payload = np.array([1, 2, 3, 0x1234, quiet - 1], utype)
        snan = np.concatenate([exp | payload, sign | exp | payload])
        a = np.tile(snan, 7).view(dtype)
        want = np.tile(snan, 7) | utype(quiet)
        for level in LEVELS:
            _C._cpu_simd_level(level)
            x = pdt.tensor(a)
            for got in (getattr(pdt, name)(x), getattr(pdt, name)(x.flip(0)).flip(0)):
                assert (got.numpy().view(utype) == want).all(), (level, dtype, name)


@pytest.mark.parametrize("name", sorted(ROUNDING) + ["sign"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integers_keep_their_dtype(dev, name, dtype):
    a = np.array([0, 1, -1, 7, -8, np.iinfo(dtype).max, np.iinfo(dtype).min], dtype=dtype)
    x = pdt.tensor(a, device=dev)
    got = getattr(pdt, name)(x)
    assert got.dtype == x.dtype
    want = np.sign(a) if name == "sign" else a
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    if name != "sign":
        assert got.data_ptr() != x.data_ptr()  # a new tensor, as in PyTorch


def test_bool(dev):
    b = pdt.tensor([True, False], device=dev)
    got = pdt.sign(b)
    assert got.dtype == pdt.bool
    np.testing.assert_array_equal(got.cpu().numpy(), [True, False])
    for name in ROUNDING:
        with pytest.raises(TypeError, match=rf"{name}: not supported for bool tensors"):
            getattr(pdt, name)(b)


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16])
def test_half_dtypes(dev, dtype):
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.75, -3.75])  # exact in both
    x = pdt.tensor(a, dtype=dtype, device=dev)
    for name, f in ROUNDING.items():
        got = getattr(pdt, name)(x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.to(pdt.float64).cpu().numpy(), f(a))
    np.testing.assert_array_equal(pdt.sign(x).to(pdt.float64).cpu().numpy(), np.sign(a))


@pytest.mark.parametrize("name", ["log1p", "expm1"])
def test_log1p_and_expm1_float32_within_one_ulp(dev, name):
    rng = np.random.default_rng(2)
    if name == "log1p":
        a = np.concatenate([-1 + 2.0 ** rng.uniform(-24, 0, 3000),
                            2.0 ** rng.uniform(-40, 100, 3000),
                            -(2.0 ** rng.uniform(-40, -1, 1000)),
                            [0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-30]])
    else:
        a = np.concatenate([rng.uniform(-100, 88.7, 5000),
                            2.0 ** rng.uniform(-40, 0, 1000) * rng.choice([-1, 1], 1000),
                            [0.0, -0.0, 89.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30]])
    a = a.astype(np.float32)
    got = getattr(pdt, name)(pdt.tensor(a, device=dev)).cpu().numpy()
    assert got.dtype == np.float32
    with np.errstate(all="ignore"):
        ref = getattr(np, name)(a.astype(np.float64))
    err = ulps32(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"{name}({a[worst]!r}) = {got[worst]!r}, float64 {ref[worst]!r}"
    # near 0 the whole point: log(1 + x) in float32 would give 0 here
    tiny = pdt.tensor([1e-10], device=dev)
    assert getattr(pdt, name)(tiny).item() == pytest.approx(1e-10, rel=1e-6)


def dense_sample(name, per_exponent=200, seed=5):
    """Every float32 exponent with random mantissas, both signs where the function is
    defined (log1p: x >= -1), and the special values."""
    rng = np.random.default_rng(seed)
    mant = rng.integers(0, 2**23, (254, per_exponent), dtype=np.uint32)
    expo = np.arange(1, 255, dtype=np.uint32)[:, None] << 23
    pos = (expo | mant).view(np.float32).ravel()
    sub = rng.integers(1, 2**23, per_exponent, dtype=np.uint32).view(np.float32)
    x = np.concatenate([pos, sub, -sub, -pos]).astype(np.float32)
    x = x[x >= -1] if name == "log1p" else x[np.abs(x) < 100]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan] + ([-1.0, -2.0] if name == "log1p" else [])
    return np.concatenate([x, np.array(special, np.float32)])


@pytest.mark.parametrize("name", ["log1p", "expm1"])
def test_log1p_and_expm1_within_one_ulp_at_every_cpu_level(name, level_restored):
    """Note [log1p and expm1] (csrc/cpu/cpu_vexpm1.h): at most 1 ulp from
    the float64 function, at every instruction-set level, over every exponent."""
    x = dense_sample(name)
    with np.errstate(all="ignore"):
        ref = getattr(np, name)(x.astype(np.float64))
    for level in LEVELS:
        _C._cpu_simd_level(level)
        got = getattr(pdt, name)(pdt.tensor(x)).numpy()
        err = ulps32(got, ref)
        worst = int(np.argmax(err))
        assert err[worst] <= 1.0, (level, x[worst], got[worst], ref[worst])
        zero = np.flatnonzero(x == 0)
        assert (np.signbit(got[zero]) == np.signbit(x[zero])).all()


@pytest.mark.skipif("avx512" not in LEVELS, reason="this CPU has no AVX-512")
def test_log1p_with_logs_table_at_avx512(level_restored):
    """AVX-512's log1p (Note [float32 log1p with log's table] in cpu_vtrig_avx512.h):
    within 0.54 ulp (0.537 measured over every float), on the dense sample, the 3000
    floats on each side of the series' threshold +-2^-10, of -1/2 (where 1 + x turns
    exact) and of 1, and the 3000 above -1."""
    _C._cpu_simd_level("avx512")
    def around(c, k):  # the k floats on each side of c, and c
        b = np.array([abs(c)], np.float32).view(np.int32)[0] + np.arange(-k, k + 1)
        return np.copysign(b.astype(np.int32).view(np.float32), np.float32(c))

    edges = [around(c, 3000) for c in (2.0**-10, -2.0**-10, -0.5, 1.0)]
    x = np.concatenate([dense_sample("log1p"), *edges, around(-1.0, 3000)[:3000]])
    got = pdt.log1p(pdt.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        ref = np.log1p(x.astype(np.float64))
    err = ulps32(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 0.54, (x[worst], got[worst], ref[worst])


@pytest.mark.parametrize("name", ["log1p", "expm1"])
def test_log1p_and_expm1_float64_and_integers(dev, name):
    a = np.array([-0.75, -1e-12, 0.0, 1e-300, 0.5, 3.0, 30.0])
    got = getattr(pdt, name)(pdt.tensor(a, device=dev)).cpu().numpy()
    np.testing.assert_allclose(got, getattr(np, name)(a), rtol=4.5e-16, atol=0)
    ints = pdt.tensor([0, 1, 2], device=dev)
    r = getattr(ints, name)()
    assert r.dtype == pdt.float32
    np.testing.assert_allclose(r.cpu().numpy(), getattr(np, name)(np.array([0.0, 1.0, 2.0])),
                               rtol=6e-8)


def test_gradients(dev):
    a = np.array([0.25, 1.5, -0.5, 3.0])
    x = pdt.tensor(a, device=dev, requires_grad=True)
    (x.log1p() * 2 + x.expm1()).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 / (1 + a) + np.exp(a), rtol=1e-12)
    for name in list(ROUNDING) + ["sign"]:
        x.grad = None
        y = getattr(pdt, name)(x)
        assert y.requires_grad  # differentiable, with a zero gradient, as in PyTorch
        (y * 3 + x).sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), np.ones(4))


def test_out(dev):
    x = pdt.tensor([1.5, -1.5], device=dev)
    o = pdt.empty(2, device=dev)
    assert pdt.floor(x, out=o) is o
    np.testing.assert_array_equal(o.cpu().numpy(), [1.0, -2.0])
    with pytest.raises(TypeError, match="argument 'input' must be a Tensor, got list"):
        pdt.ceil([1.5])


@pytest.mark.skipif(platform.machine() != "x86_64" or not ctypes.util.find_library("m"),
                    reason="FE_UPWARD's value is x86-64 glibc's")
def test_round_ignores_the_rounding_mode(level_restored):
    """round takes halves to even whatever fesetround says, at every level (the vector
    instructions take the mode from their immediate, the scalar path does not use
    nearbyint)."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    a = sample(np.float32, n=4093, seed=3)
    b = sample(np.float64, n=4093, seed=3)
    want_a, want_b = np.rint(a), np.rint(b)
    old = libm.fegetround()
    assert libm.fesetround(0x800) == 0  # FE_UPWARD
    try:
        for level in LEVELS:
            _C._cpu_simd_level(level)
            got_a, got_b = pdt.round(pdt.tensor(a)).numpy(), pdt.round(pdt.tensor(b)).numpy()
            libm.fesetround(old)  # NumPy's own checks in the default mode
            bits_equal(got_a, want_a)
            bits_equal(got_b, want_b)
            libm.fesetround(0x800)
    finally:
        libm.fesetround(old)


def test_fix_is_trunc(dev):
    x = pdt.tensor([-1.5, 2.5], device=dev, requires_grad=True)
    assert pdt.fix(x).tolist() == x.fix().tolist() == [-1.0, 2.0]
    x.fix().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    y = x.detach().clone()
    assert y.fix_() is y and y.tolist() == [-1.0, 2.0]


@pytest.mark.parametrize("decimals", [1, 2, 3, -1, -2])
def test_round_to_decimals(dev, decimals):
    """round(x, decimals=d) as PyTorch defines it: rint(x * 10^d) / 10^d in x's dtype
    (for d < 0, rint(x / 10^-d) * 10^-d), so NumPy's float32 arithmetic gives the bits."""
    a = np.concatenate([sample(np.float32, n=500, seed=6) / 1e3,
                        np.array([0.125, -2.675, 1234.5, 0.05, 250.0], np.float32)])
    scale = np.float32(10.0 ** abs(decimals))
    with np.errstate(all="ignore"):
        want = np.rint(a * scale) / scale if decimals > 0 else np.rint(a / scale) * scale
    x = pdt.tensor(a, device=dev)
    bits_equal(pdt.round(x, decimals=decimals).cpu().numpy(), want)
    bits_equal(x.round(decimals=decimals).cpu().numpy(), want)
    o = pdt.empty(a.shape[0], device=dev)
    assert pdt.round(x, decimals=decimals, out=o) is o
    bits_equal(o.cpu().numpy(), want)
    torch = torch_or_skip()
    ref = torch.round(torch.from_numpy(a[np.isfinite(a)]), decimals=decimals).numpy()
    bits_equal(x[pdt.isfinite(x)].round(decimals=decimals).cpu().numpy(), ref)


def test_round_to_decimals_refuses(dev):
    with pytest.raises(TypeError, match=r"round\(\): decimals=2 needs a floating-point "
                                        r"tensor, got int64"):
        pdt.round(pdt.tensor([1, 2], device=dev), decimals=2)
    with pytest.raises(TypeError, match=r"decimals must be an int, got float"):
        pdt.tensor([1.5], device=dev).round(decimals=1.0)
    w = pdt.tensor([1.26, -3.5], device=dev, requires_grad=True)
    w.round(decimals=1).sum().backward()
    assert w.grad.tolist() == [0.0, 0.0]


# ---- div(rounding_mode='trunc'): PyTorch's truncating division


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_div_trunc_floats_give_trunc_of_the_quotient(dev, dtype):
    """trunc(a / b) with the quotient rounded in the dtype first, as PyTorch computes
    it: NumPy's np.trunc(a / b) in the same dtype, bit for bit (signed zeros, NaN and
    infinities included)."""
    rng = np.random.default_rng(3)
    a = sample(np.dtype(dtype).type, 600, seed=1)
    n = len(a)
    a = np.concatenate([a, [7.0, -7.0, 5.5, -5.5, 0.0, -0.0, 1.0, np.inf, np.nan, 3.0]])
    b = np.concatenate([rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-8, 8, n),
                        [2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 2.0, 1.0, -0.0]])
    a, b = a.astype(dtype), b.astype(dtype)
    got = pdt.div(pdt.tensor(a, device=dev), pdt.tensor(b, device=dev), rounding_mode="trunc")
    assert got.dtype == getattr(pdt, dtype) and got.device == pdt.device(dev)
    with np.errstate(all="ignore"):
        want = np.trunc(a / b)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    assert (np.signbit(got.cpu().numpy()) == np.signbit(want)).all()


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_div_trunc_integers_round_toward_zero(dev, dtype):
    info = np.iinfo(dtype)
    a = np.array([7, -7, 7, -7, 0, 5, info.min, info.min, info.max, 9], dtype=dtype)
    b = np.array([2, 2, -2, -2, 3, 4, -1, 1, -1, 10], dtype=dtype)
    # MIN / -1 wraps to MIN (Note [integer division by zero]; a zero divisor raises,
    # tests/test_integer_division_by_zero.py)
    want = np.array([3, -3, -3, 3, 0, 1, info.min, info.min, -info.max, 0], dtype=dtype)
    got = pdt.div(pdt.tensor(a, device=dev), pdt.tensor(b, device=dev), rounding_mode="trunc")
    assert got.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    # the method, in place, a scalar divisor and out= give the same
    t = pdt.tensor(a, device=dev)
    assert t.div_(-2, rounding_mode="trunc") is t
    np.testing.assert_array_equal(t.cpu().numpy(), np.fix(a.astype(np.float64) / -2))
    out = pdt.empty(10, dtype=getattr(pdt, dtype), device=dev)
    pdt.div(pdt.tensor(a, device=dev), 3, rounding_mode="trunc", out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), np.fix(a.astype(np.float64) / 3))


def test_div_trunc_mixed_half_bool_and_gradient(dev):
    x = pdt.tensor([-7, 7, 9], device=dev)
    y = pdt.tensor([2.0, -2.0, 4.0], device=dev)  # int / float promotes to float32
    got = x.div(y, rounding_mode="trunc")
    assert got.dtype == pdt.float32 and got.tolist() == [-3.0, -3.0, 2.0]
    h = pdt.tensor([-7.5, 7.25, 100.0], dtype=pdt.float16, device=dev)
    assert h.div(2, rounding_mode="trunc").tolist() == [-3.0, 3.0, 50.0]
    with pytest.raises(TypeError, match="bool"):
        pdt.div(pdt.ones(2, dtype=pdt.bool, device=dev), pdt.ones(2, dtype=pdt.bool, device=dev),
                rounding_mode="trunc")
    w = pdt.tensor([5.0, -5.0], device=dev, requires_grad=True)
    pdt.div(w, 2.0, rounding_mode="trunc").sum().backward()
    assert w.grad is None or w.grad.tolist() == [0.0, 0.0]  # piecewise constant


def test_div_trunc_matches_torch():
    torch = torch_or_skip()
    a = np.array([7.0, -7.0, 5.5, -5.5, 1e30, -0.0], dtype=np.float32)
    b = np.array([2.0, 2.0, -2.0, 0.3, 3.0, 1.0], dtype=np.float32)
    want = torch.div(torch.from_numpy(a), torch.from_numpy(b), rounding_mode="trunc").numpy()
    got = pdt.div(pdt.tensor(a), pdt.tensor(b), rounding_mode="trunc").numpy()
    np.testing.assert_array_equal(got, want)
    ai = np.array([7, -7, 7, -7], dtype=np.int64)
    bi = np.array([2, 2, -2, -2], dtype=np.int64)
    want = torch.div(torch.from_numpy(ai), torch.from_numpy(bi), rounding_mode="trunc").numpy()
    np.testing.assert_array_equal(pdt.div(pdt.tensor(ai), pdt.tensor(bi),
                                          rounding_mode="trunc").numpy(), want)


def test_round_in_place_takes_decimals():
    """x.round_(decimals=) as PyTorch's (a TypeError before); 0 keeps the C path."""
    x = pdt.tensor([2.5, 0.125, 1.26, -0.35])
    assert x.round_(decimals=1) is x
    np.testing.assert_allclose(x.numpy(), np.round(np.float32([2.5, 0.125, 1.26, -0.35]) * 10)
                               / 10, rtol=1e-6)
    y = pdt.tensor([2.5, 3.5, -0.5])
    assert y.round_().tolist() == [2.0, 4.0, -0.0]
    with pytest.raises(TypeError, match="decimals"):
        pdt.tensor([1, 2]).round_(decimals=1)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sinc_of_half_types_is_computed_in_float32_and_rounded_once(dtype):
    """pi * x was rounded to the half type first: sinc(1) gave 3e-4 in float16.  Now the
    result is float32's rounded once: within half an ulp of the float64 value."""
    x = np.linspace(-6, 6, 241)
    t = pdt.tensor(x, dtype=getattr(pdt, dtype))
    xs = t.float().numpy().astype(np.float64)
    want = np.sinc(xs)
    got = pdt.sinc(t).float().numpy().astype(np.float64)
    ulp = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    assert np.all(np.abs(got - want) <= 0.5 * ulp * np.maximum(np.abs(want), 2.0 ** -14) + 1e-7)
