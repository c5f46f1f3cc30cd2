"""float16 and bfloat16 on every device (issue 18).

The bounds are those of Note [half precision arithmetic] (csrc/core/pdt_half.h) and
Note [half precision matmul] (csrc/cpu/cpu_gemm_half.c): every op computes in float32
and rounds once, so against NumPy in float64 on the same (exact) half inputs

    |got - ref| <= (u_half + c * u32) * |ref| + tiny

with u_half = 2^-11 (float16) or 2^-8 (bfloat16), u32 = 2^-24, c a few float32
roundings (more for reductions and products, see each test), and tiny the half type's
smallest subnormal (for results that round into the subnormal range).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_EMULATED

ml_dtypes = pytest.importorskip("ml_dtypes")

HALF = ["float16", "bfloat16"]
U_HALF = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}
U32 = 2.0 ** -24
NP_TYPE = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def dt(name):
    return getattr(pdt, name)


def host(t):
    """The float64 values of a tensor (on any device)."""
    return t.cpu().float().numpy().astype(np.float64)


def half_values(name, shape, lo=-4.0, hi=4.0, seed=0):
    """Random values that are exact in the half type, as float64."""
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, size=shape).astype(NP_TYPE[name]).astype(np.float64)


def check_bound(got, ref, name, c=4.0, scale=None):
    """|got - ref| <= (u_half + c*u32) * |scale| + tiny, NaNs matching."""
    scale = np.abs(ref) if scale is None else scale
    bound = (U_HALF[name] + c * U32) * scale + TINY[name]
    both_nan = np.isnan(got) & np.isnan(ref)
    same_inf = np.isinf(got) & (got == ref)
    bad = ~(np.abs(got - ref) <= bound) & ~both_nan & ~same_inf
    assert not bad.any(), (f"{name}: max error {np.nanmax(np.abs(got - ref))}, "
                           f"at {np.argwhere(bad)[:5].tolist()}: got {got[bad][:5]}, "
                           f"ref {ref[bad][:5]}")


# ---- conversions (Note [half precision]): against NumPy's and ml_dtypes' own

@pytest.mark.parametrize("name", HALF)
def test_half_to_float32_exhaustive(name):
    bits = np.arange(1 << 16, dtype=np.uint16)
    ref = bits.view(NP_TYPE[name]).astype(np.float32)
    t = pdt.tensor(bits.view(NP_TYPE[name]))
    for sl in (slice(None), slice(None, None, 3)):  # contiguous (F16C on x86) and strided rows
        got = t[sl].float().numpy()
        same = (got.view(np.uint32) == ref[sl].view(np.uint32)) | (np.isnan(got) &
                                                                    np.isnan(ref[sl]))
        assert same.all()


def _float32_samples():
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 1 << 32, size=200_000, dtype=np.uint64).astype(np.uint32)
    # every tie and neighbour around the half types' rounding points, and the edges
    ties = np.arange(0, 1 << 16, 7, dtype=np.uint32) << 13
    ties = np.concatenate([ties, ties + (1 << 12), ties + (1 << 12) - 1, ties + (1 << 12) + 1,
                           (ties >> 13 << 16) + 0x8000, (ties >> 13 << 16) + 0x7fff])
    edges = np.array([0x477fefff, 0x477ff000, 0x477ff001, 0x7f7fffff, 0x7f800000, 0x33000000,
                      0x33000001, 0x387fffff, 0x38800000, 0x7fc00000, 0x7f800001, 0xff800000,
                      0x80000000, 0x00000001], dtype=np.uint32)
    return np.concatenate([bits, ties, edges]).view(np.float32)


@pytest.mark.parametrize("name", HALF)
def test_float32_to_half_rounds_to_nearest_even(device, name):
    x = _float32_samples()
    with np.errstate(over="ignore", invalid="ignore"):
        ref = x.astype(NP_TYPE[name]).astype(np.float32)
    t = pdt.tensor(x, device=device)
    for sl in (slice(None), slice(None, None, 3)):  # contiguous (F16C on x86) and strided rows
        got = t[sl].to(dt(name)).cpu().float().numpy()
        same = (got.view(np.uint32) == ref[sl].view(np.uint32)) | (np.isnan(got) &
                                                                    np.isnan(ref[sl]))
        assert same.all(), x[sl][~same][:5]


@pytest.mark.parametrize("name", HALF)
def test_float64_to_half_rounds_once(device, name):
    # values next to the half types' ties, where rounding through float32 twice fails
    rng = np.random.default_rng(2)
    base = rng.uniform(-100, 100, 5000).astype(NP_TYPE[name]).astype(np.float64)
    ulp = np.abs(base) * U_HALF[name]
    x = np.concatenate([base + ulp * (1 + 2.0 ** -30), base + ulp * (1 - 2.0 ** -30),
                        base - ulp * (1 + 2.0 ** -30), rng.normal(0, 1e4, 5000),
                        [1e300, -1e300, 1e-300, np.inf, -np.inf, np.nan]])
    with np.errstate(over="ignore", invalid="ignore"):
        ref = x.astype(NP_TYPE[name]).astype(np.float64)
    if name == "bfloat16":
        # ml_dtypes goes through float32 (two roundings); the correctly rounded value:
        # the significand rounded to 8 bits, ties to even (np.round), in bfloat16's range
        m, e = np.frexp(x[:15000])
        ref[:15000] = np.round(m * 256) * np.exp2(e - 8.0)
    got = host(pdt.tensor(x, device=device).to(dt(name)))
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    assert same.all(), x[~same][:5]


def test_float64_to_float16_rows_are_the_scalar_casts():
    """A contiguous float64 row into float16 (round to odd into float32, then F16C where
    present: cpu_kernels.c) gives the bits of the element-by-element cast (a strided row):
    random bit patterns of every exponent (subnormals, NaN payloads of both signs, inf),
    the values next to float16's ties and overflow; NumPy's correctly rounded values."""
    rng = np.random.default_rng(17)
    bits = rng.integers(0, 2**64, 60000, dtype=np.uint64)
    with np.errstate(over="ignore"):
        near = np.float16(rng.uniform(-70000, 70000, 5000)).astype(np.float64)
    x = np.concatenate([bits.view(np.float64), near, np.nextafter(near, np.inf),
                        np.nextafter(near, -np.inf), 2.0 ** np.arange(-30, 20),
                        [65504.0, 65519.99, 65520.0, -65520.0, 2.0 ** -25, 2.0 ** -24 * 1.5,
                         0.0, -0.0, np.inf, -np.inf, np.nan, 1e-320, -1e-320]])
    got = pdt.tensor(x).to(pdt.float16).numpy()
    strided = pdt.tensor(np.stack([x, x], 1)).t()[0].to(pdt.float16).numpy()
    np.testing.assert_array_equal(got.view(np.uint16), strided.view(np.uint16))
    with np.errstate(over="ignore", invalid="ignore"):
        ref = x.astype(np.float16)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_array_equal(got[ok].view(np.uint16), ref[ok].view(np.uint16))


@pytest.mark.parametrize("name", HALF)
def test_casts_to_and_from_every_dtype(device, name):
    v = np.array([0.0, -0.0, 1.0, -2.5, 3.75, 100.0, 1e4], dtype=np.float64)
    t = pdt.tensor(v, device=device).to(dt(name))
    for other in ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16"]:
        back = t.to(dt(other))
        assert back.dtype == dt(other)
        ref = v.astype(NP_TYPE[name]).astype(np.float64)
        if other == "bool":
            assert back.cpu().numpy().tolist() == (ref != 0).tolist()
        elif other.startswith("int"):
            assert back.cpu().numpy().tolist() == [int(r) for r in ref]
        else:
            assert host(back).tolist() == ref.astype(NP_TYPE[other] if other in NP_TYPE
                                                     else np.float64).astype(float).tolist()
    # integers and bools into the half type
    assert host(pdt.tensor([True, False], device=device).to(dt(name))).tolist() == [1.0, 0.0]
    assert host(pdt.tensor([2049, -3], device=device).to(dt(name))).tolist() == [2048.0, -3.0]
    assert host(pdt.tensor([2**40 + 1], device=device).to(dt(name))).tolist() == (
        [math.inf] if name == "float16" else [2.0**40])


def test_nan_stays_nan_and_inf_overflow(device):
    for name in HALF:
        t = pdt.tensor([float("nan"), float("inf"), -1e39 if name == "float16" else -3.5e38,
                        70000.0], device=device).to(dt(name))
        got = host(t)
        assert math.isnan(got[0]) and got[1] == math.inf and got[2] == -math.inf
        assert got[3] == (math.inf if name == "float16" else 70144.0)


# ---- dtype objects, promotion, names

def test_dtype_objects():
    assert pdt.half is pdt.float16 and pdt.float16.itemsize == 2
    assert pdt.bfloat16.itemsize == 2 and pdt.bfloat16.is_floating_point
    assert repr(pdt.float16) == "pydevtensor.float16" and pdt.bfloat16.name == "bfloat16"
    assert pdt.zeros(2, dtype="half").dtype == pdt.float16
    assert pdt.zeros(2, dtype=np.float16).dtype == pdt.float16
    assert pdt.zeros(2, dtype=ml_dtypes.bfloat16).dtype == pdt.bfloat16
    assert pdt.ones(2).half().type() == "pydevtensor.HalfTensor"
    assert pdt.ones(2).bfloat16().type() == "pydevtensor.BFloat16Tensor"


@pytest.mark.parametrize("a, b, want", [
    ("float16", "bfloat16", "float32"), ("float16", "float32", "float32"),
    ("bfloat16", "float64", "float64"), ("float16", "int64", "float16"),
    ("bfloat16", "int32", "bfloat16"), ("float16", "bool", "float16"),
    ("float16", "float16", "float16")])
def test_promotion(device, a, b, want):
    x, y = pdt.ones(3, dtype=dt(a), device=device), pdt.ones(3, dtype=dt(b), device=device)
    assert (x + y).dtype == dt(want) and (y * x).dtype == dt(want)
    assert pdt.promote_types(dt(a), dt(b)) == dt(want) == pdt.promote_types(b, a)
    assert pdt.where(x > 0, x, y).dtype == dt(want)
    assert pdt.tensor([x[0], y[0]]).dtype == dt(want)


def test_promotion_with_scalars_and_zero_dim(device):
    for name in HALF:
        x = pdt.ones(3, dtype=dt(name), device=device)
        assert (x * 2.5).dtype == dt(name) and (x + 1).dtype == dt(name)
        assert (x + pdt.tensor(1.0, device=device)).dtype == dt(name)  # 0-d float32
        assert (pdt.arange(3, device=device) + pdt.tensor(1.0, dtype=dt(name),
                                                          device=device)).dtype == dt(name)
        assert (x / 3).dtype == dt(name) and (x > 0).dtype == pdt.bool


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("int_name", ["int16", "int32", "int64", "uint8"])
def test_integer_operand_is_rounded_to_the_half_type_first(device, name, int_name):
    """Note [integers and halves]: PyTorch casts both operands to the common half
    dtype, so an integer with no half value is rounded before the op (257 - 256 in
    bfloat16 is 256 - 256 = 0), in arithmetic, comparisons, in place and 0-d."""
    ints = {"uint8": [255, 3, 1, 200]}.get(int_name, [257, 2049, -4097, 70])
    i = pdt.tensor(ints, dtype=getattr(pdt, int_name), device=device)
    rounded = np.asarray(ints, dtype=np.float64).astype(NP_TYPE[name]).astype(np.float64)
    h = pdt.tensor(half_values(name, (4,), -8.0, 8.0), device=device).to(dt(name))
    hv = host(h)
    for got, ref in [(i - h, rounded - hv), (h - i, hv - rounded), (i * h, rounded * hv),
                     (h / i, hv / rounded)]:
        assert got.dtype == dt(name)
        check_bound(host(got), ref, name)
    assert host(i == pdt.tensor(rounded, device=device).to(dt(name))).all()
    assert host((i > h) == pdt.tensor(rounded > hv, device=device)).all()
    acc = pdt.zeros(4, dtype=dt(name), device=device)
    acc += i
    assert host(acc).tolist() == rounded.tolist()
    for v, r in zip(ints, rounded):  # a 0-d integer tensor too
        zero_d = pdt.tensor(v, device=device) - pdt.tensor([r], device=device).to(dt(name))
        assert host(zero_d).tolist() == [0.0]


def test_repr():
    assert repr(pdt.tensor([1.5, 2.0], dtype=pdt.float16)) == (
        "tensor([1.5000, 2.0000], dtype=pydevtensor.float16)")
    assert repr(pdt.tensor([1.0, 3.0], dtype=pdt.bfloat16)) == (
        "tensor([1., 3.], dtype=pydevtensor.bfloat16)")
    assert str(pdt.zeros(0, dtype=pdt.half)) == "tensor([], dtype=pydevtensor.float16)"


# ---- factories and random

@pytest.mark.parametrize("name", HALF)
def test_factories(device, name):
    d = dt(name)
    assert host(pdt.zeros(2, 3, dtype=d, device=device)).tolist() == [[0.0] * 3] * 2
    assert host(pdt.ones(4, dtype=d, device=device)).tolist() == [1.0] * 4
    want = float(np.float64(0.1).astype(NP_TYPE[name]))
    assert host(pdt.full((2,), 0.1, dtype=d, device=device)).tolist() == [want] * 2
    assert host(pdt.arange(0, 5, 0.5, dtype=d, device=device)).tolist() == [
        i * 0.5 for i in range(10)]
    assert host(pdt.tensor([[1.25, -2]], dtype=d, device=device)).tolist() == [[1.25, -2.0]]
    t = pdt.tensor([0.1, 1 / 3], dtype=d, device=device)
    assert t.tolist() == np.array([0.1, 1 / 3]).astype(NP_TYPE[name]).astype(float).tolist()
    assert t[1].item() == float(np.float64(1 / 3).astype(NP_TYPE[name]))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_random_is_float32_rounded_once_on_every_device(device, name, fn):
    pdt.manual_seed(123)
    got = getattr(pdt, fn)(257, dtype=dt(name), device=device)
    pdt.manual_seed(123)
    ref = getattr(pdt, fn)(257, device="cpu").numpy().astype(NP_TYPE[name])
    assert got.dtype == dt(name)
    assert host(got).tolist() == ref.astype(np.float64).tolist()


# ---- the NumPy, DLPack and file boundaries

def test_numpy_boundary():
    a = np.array([1.5, -2.25, 65504], dtype=np.float16)
    t = pdt.from_numpy(a)  # shares memory
    assert t.dtype == pdt.float16
    t[0] = 3.0
    assert a[0] == 3.0 and t.numpy().dtype == np.float16
    b = np.array([1.5, 1e38, -0.0], dtype=ml_dtypes.bfloat16)
    u = pdt.tensor(b)
    assert u.dtype == pdt.bfloat16 and u.numpy().dtype == ml_dtypes.bfloat16
    assert u.numpy().astype(np.float64).tolist() == b.astype(np.float64).tolist()
    s = pdt.from_numpy(b)
    s[2] = 5.0
    assert float(b[2]) == 5.0


def test_numpy_sees_bfloat16_values_not_bits(monkeypatch):
    # Note [bfloat16 at the NumPy boundary]: np.asarray reaches __array__, the
    # ml_dtypes view of the same memory, never the uint16 bits a buffer would show
    import pickle
    import sys
    t = pdt.tensor([1.5, -2.0, 3.0], dtype=pdt.bfloat16)
    a = np.asarray(t)
    assert a.dtype == ml_dtypes.bfloat16 and a.astype(np.float64).tolist() == [1.5, -2.0, 3.0]
    a[0] = 7.0  # the same memory
    assert t.tolist() == [7.0, -2.0, 3.0]
    assert np.asarray(t, dtype=np.float32).tolist() == [7.0, -2.0, 3.0]
    assert np.array(t[::2]).astype(np.float64).tolist() == [7.0, 3.0]
    assert (np.add(t, 1) == np.asarray([8.0, -1.0, 4.0], ml_dtypes.bfloat16)).all()
    with pytest.raises(BufferError, match="bfloat16 tensor has no buffer format"):
        memoryview(t)
    assert not hasattr(t, "__array_interface__")
    assert pickle.loads(pickle.dumps(t)).tolist() == [7.0, -2.0, 3.0]  # through its bits
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as if it were not installed
    with pytest.raises(TypeError, match="ml_dtypes"):
        np.asarray(t)
    assert pickle.loads(pickle.dumps(t)).tolist() == [7.0, -2.0, 3.0]


def test_bfloat16_to_numpy_needs_ml_dtypes(monkeypatch):
    import sys
    t = pdt.tensor([1.5, -2.0], dtype=pdt.bfloat16)
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as if it were not installed
    with pytest.raises(TypeError, match=r"through the ml_dtypes package.*\.float\(\)"):
        t.numpy()
    assert repr(t) == "tensor([ 1.5000, -2.0000], dtype=pydevtensor.bfloat16)"  # no NumPy type
    assert t.float().numpy().tolist() == [1.5, -2.0]


def test_dlpack_roundtrip(device):
    for name in HALF:
        t = pdt.arange(6, dtype=dt(name), device=device).reshape(2, 3)
        u = pdt.from_dlpack(t)
        assert u.dtype == dt(name) and host(u).tolist() == host(t).tolist()
    a = np.array([1.0, 2.5], dtype=np.float16)
    assert pdt.from_dlpack(a).dtype == pdt.float16
    assert np.from_dlpack(pdt.from_numpy(a)).dtype == np.float16


def test_save_load(tmp_path, device):
    sd = {"h": pdt.tensor([1.5, -2.0], dtype=pdt.float16, device=device),
          "b": pdt.tensor([3.0, 1e30], dtype=pdt.bfloat16, device=device)}
    path = tmp_path / "half.pdt"
    pdt.save(sd, path)
    back = pdt.load(path)
    for k, v in sd.items():
        assert back[k].dtype == v.dtype and back[k].device == v.device
        assert host(back[k]).tolist() == host(v).tolist()
    with np.load(path, allow_pickle=False) as f:  # plain NumPy reads them too
        assert f["h"].dtype == np.float16 and f["b"].dtype == np.uint16


# ---- ops: computed in float32, rounded once

BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "maximum": np.maximum, "minimum": np.minimum, "pow": np.power}
EXACT_BINARY = {"eq": np.equal, "lt": np.less, "ge": np.greater_equal}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops(device, name, op):
    a = half_values(name, (5, 7), 0.5, 4.0 if op == "pow" else 60.0, seed=3)
    b = half_values(name, (7,), 0.5, 3.0 if op == "pow" else 60.0, seed=4)
    ta = pdt.tensor(a, dtype=dt(name), device=device)
    tb = pdt.tensor(b, dtype=dt(name), device=device)
    got = getattr(pdt, op)(ta, tb)
    assert got.dtype == dt(name)
    check_bound(host(got), BINARY[op](a, b), name)
    # with a Python scalar, in place, and with alpha
    check_bound(host(getattr(pdt, op)(ta, 1.5)), BINARY[op](a, 1.5), name)
    if op in ("add", "sub"):
        check_bound(host(getattr(pdt, op)(ta, tb, alpha=3)), BINARY[op](a, 3 * b), name,
                    scale=np.abs(a) + 3 * np.abs(b))
    if op not in ("maximum", "minimum"):
        c = ta.clone()
        getattr(c, op + "_")(tb)
        check_bound(host(c), BINARY[op](a, b), name)


@pytest.mark.parametrize("name", HALF)
def test_comparisons_and_exact_ops(device, name):
    a = half_values(name, (40,), seed=5)
    b = np.concatenate([a[:20], half_values(name, (20,), seed=6)])
    ta = pdt.tensor(a, dtype=dt(name), device=device)
    tb = pdt.tensor(b, dtype=dt(name), device=device)
    for op, f in EXACT_BINARY.items():
        assert getattr(pdt, op)(ta, tb).cpu().numpy().tolist() == f(a, b).tolist()
    r = pdt.remainder(ta, 1.0)
    check_bound(host(r), np.remainder(a, 1.0), name, scale=np.ones_like(a))


UNARY = {"neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
         "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
         "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0)}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_ops(device, name, op):
    lo = 0.01 if op in ("log", "sqrt") else -6.0
    x = half_values(name, (3, 11), lo, 6.0, seed=7)
    t = pdt.tensor(x, dtype=dt(name), device=device)
    got = getattr(pdt, op)(t)
    assert got.dtype == dt(name)
    ref = UNARY[op](x)
    # sin and cos near their zeros: the float32 argument error, not the result's, bounds it
    scale = np.maximum(np.abs(ref), np.abs(x)) if op in ("sin", "cos") else None
    check_bound(host(got), ref, name, c=8.0, scale=scale)


@pytest.mark.parametrize("name", HALF)
def test_clamp(device, name):
    x = half_values(name, (30,), seed=8)
    t = pdt.tensor(x, dtype=dt(name), device=device)
    got = pdt.clamp(t, -1.3, 2.2)
    assert got.dtype == dt(name)
    lo = float(np.float64(-1.3).astype(NP_TYPE[name]))
    hi = float(np.float64(2.2).astype(NP_TYPE[name]))
    check_bound(host(got), np.clip(x, -1.3, 2.2), name)
    assert host(got).min() >= lo and host(got).max() <= hi


# ---- reductions: float32 accumulation, rounded once

@pytest.mark.parametrize("name", HALF)
def test_reductions(device, name):
    x = half_values(name, (6, 300), -2.0, 2.0, seed=9)
    t = pdt.tensor(x, dtype=dt(name), device=device)
    n = x.shape[1]
    absum = np.abs(x).sum(axis=1)
    for got, ref, scale in [
            (t.sum(dim=1), x.sum(axis=1), absum),
            (t.mean(dim=1), x.mean(axis=1), absum / n),
            (t.sum(), x.sum(), np.abs(x).sum()),
            (t.norm(), np.sqrt((x * x).sum()), np.sqrt((x * x).sum()))]:
        assert got.dtype == dt(name)
        # float32 accumulation over n terms: n*u32*sum|x|, then one half rounding
        g = host(got)
        assert np.all(np.abs(g - ref) <= n * U32 * scale + U_HALF[name] * np.abs(ref)
                      + TINY[name]), (g, ref)
    assert host(t.max(dim=1).values).tolist() == x.max(axis=1).tolist()
    assert t.argmin(dim=1).cpu().numpy().tolist() == x.argmin(axis=1).tolist()
    p = pdt.tensor(half_values(name, (8,), 0.5, 1.5, seed=10), dtype=dt(name), device=device)
    check_bound(host(p.prod()), np.prod(host(p)), name, c=16.0)
    s = t[0].sort()
    assert s.values.dtype == dt(name) and host(s.values).tolist() == sorted(x[0].tolist())
    c = t[0].cumsum(0)
    assert c.dtype == dt(name)
    ref = np.cumsum(x[0])
    assert np.all(np.abs(host(c) - ref) <= n * U32 * np.cumsum(np.abs(x[0]))
                  + U_HALF[name] * np.abs(ref) + TINY[name])


# ---- matmul: Note [half precision matmul]

@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 33, 5), (64, 130, 70), (0, 3, 4)])
@pytest.mark.parametrize("trans", [False, True])
def test_matmul_bound(device, name, shape, trans):
    m, k, n = shape
    a = half_values(name, (k, m) if trans else (m, k), seed=11)
    b = half_values(name, (n, k) if trans else (k, n), seed=12)
    ta = pdt.tensor(a, dtype=dt(name), device=device)
    tb = pdt.tensor(b, dtype=dt(name), device=device)
    if trans:
        ta, tb, a, b = ta.T, tb.T, a.T, b.T
    got = ta @ tb
    assert got.dtype == dt(name) and tuple(got.shape) == (m, n)
    ref = a @ b
    bound = k * U32 * (np.abs(a) @ np.abs(b)) + U_HALF[name] * np.abs(ref) + TINY[name]
    assert np.all(np.abs(host(got) - ref) <= bound)


@pytest.mark.parametrize("name", HALF)
def test_batched_matmul_and_addmm(device, name):
    a = half_values(name, (3, 4, 20), seed=13)
    b = half_values(name, (20, 6), seed=14)
    c = half_values(name, (4, 6), seed=15)
    ta, tb, tc = (pdt.tensor(v, dtype=dt(name), device=device) for v in (a, b, c))
    # With the reduced-precision reduction allowed (the default, as in PyTorch), cuBLAS
    # may round partial sums to the half type (Note [half precision GEMM]): one more
    # U_HALF of the sum of magnitudes.  A batched bfloat16 product on an H200 used it.
    flag = {"float16": "allow_fp16_reduced_precision_reduction",
            "bfloat16": "allow_bf16_reduced_precision_reduction"}[name]
    rpr = U_HALF[name] if (device.type == "cuda"
                           and getattr(pdt.backends.cuda.matmul, flag)) else 0.0
    ref = a @ b
    bound = (20 * U32 + rpr) * (np.abs(a) @ np.abs(b)) + U_HALF[name] * np.abs(ref) + TINY[name]
    err = np.abs(host(ta @ tb) - ref)
    assert np.all(err <= bound), (err - bound).max()
    got = pdt.addmm(tc, ta[0], tb, beta=0.5, alpha=2.0)
    ref = 0.5 * c + 2.0 * (a[0] @ b)
    bound = (22 * U32 + rpr) * (0.5 * np.abs(c) + 2 * np.abs(a[0]) @ np.abs(b)) + \
        U_HALF[name] * np.abs(ref) + TINY[name]
    assert np.all(np.abs(host(got) - ref) <= bound)
    with pytest.raises(TypeError, match="same dtype"):
        ta[0] @ tb.float()


# ---- the reduced-precision reduction switches (Note [half precision GEMM])

@pytest.mark.parametrize("name, attr", [
    ("float16", "allow_fp16_reduced_precision_reduction"),
    ("bfloat16", "allow_bf16_reduced_precision_reduction")])
def test_reduced_precision_reduction_switches(device, name, attr):
    m = pdt.backends.cuda.matmul
    assert getattr(m, attr) is True  # PyTorch's default
    k = 512  # >= the emulator's split-K size (Note [emulated reduced-precision reduction])
    a = half_values(name, (6, k), 0.0, 1.0, seed=16)
    b = half_values(name, (k, 5), 0.0, 1.0, seed=17)
    ta, tb = (pdt.tensor(v, dtype=dt(name), device=device) for v in (a, b))
    ref, mag = a @ b, np.abs(a) @ np.abs(b)
    allowed = host(ta @ tb)
    try:
        setattr(m, attr, False)
        assert getattr(m, attr) is False and attr in repr(m)
        strict = host(ta @ tb)  # accumulated in float32 only
    finally:
        setattr(m, attr, True)
    assert np.all(np.abs(strict - ref) <= k * U32 * mag + U_HALF[name] * np.abs(ref))
    # allowed: partial sums may be rounded to the half type too
    assert np.all(np.abs(allowed - ref) <= k * U32 * mag + U_HALF[name] * (mag + np.abs(ref)))
    if device.type == "cpu":
        assert allowed.tolist() == strict.tolist()  # the CPU always accumulates in float32
    elif CUDA_EMULATED:
        assert allowed.tolist() != strict.tolist()  # the emulator rounds its split-K halves


def test_reduced_precision_reduction_bad_dtype():
    with pytest.raises(TypeError, match="float16 or bfloat16, not float32"):
        pdt._C._set_allow_reduced_reduction("float32", False)


# ---- composed functions (softmax, activations): float32 inside, rounded once

def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _np_erfc(x):
    return np.array([math.erfc(v) for v in x.ravel()]).reshape(x.shape)


COMPOSED = {
    # name: (pydevtensor call, float64 reference)
    "softmax": (lambda t: pdt.softmax(t, -1), _np_softmax),
    "log_softmax": (lambda t: pdt.log_softmax(t, -1), lambda x: np.log(_np_softmax(x))),
    "gelu": (lambda t: pdt.nn.functional.gelu(t), lambda x: x * _np_erfc(-x / math.sqrt(2)) / 2),
    "gelu_tanh": (lambda t: pdt.nn.functional.gelu(t, approximate="tanh"),
                  lambda x: x / 2 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (lambda t: pdt.nn.functional.silu(t), lambda x: x / (1 + np.exp(-x))),
    "silu_": (lambda t: pdt.nn.functional.silu(t.clone(), inplace=True), lambda x: x / (1 + np.exp(-x))),
    "softplus": (lambda t: pdt.nn.functional.softplus(t), lambda x: np.log1p(np.exp(x))),
    "logsigmoid": (lambda t: pdt.nn.functional.logsigmoid(t), lambda x: -np.log1p(np.exp(-x))),
    "mish": (lambda t: pdt.nn.functional.mish(t), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "elu": (lambda t: pdt.nn.functional.elu(t), lambda x: np.where(x > 0, x, np.expm1(x))),
    "softsign": (lambda t: pdt.nn.functional.softsign(t), lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (lambda t: pdt.nn.functional.tanhshrink(t), lambda x: x - np.tanh(x)),
    "glu": (lambda t: pdt.nn.functional.glu(t, -1),
            lambda x: x[..., :8] / (1 + np.exp(-x[..., 8:]))),
}


@pytest.mark.parametrize("fn", sorted(COMPOSED))
@pytest.mark.parametrize("name", HALF)
def test_composed_functions_round_once(device, name, fn):
    # PyTorch's kernels compute these in float32 and round once; composed from half
    # precision ops, each op rounded (softmax of [1, 2, 3] in float16 summed above 1,
    # gelu was wrong in 849 of 2001 inputs).  The result is the float32 computation
    # rounded once, bit for bit, and within half an ulp of the half type (plus a few
    # float32 roundings) of NumPy's float64 value on the same exact half inputs.
    call, ref = COMPOSED[fn]
    x = half_values(name, (6, 16), seed=3)
    t = pdt.tensor(x, dtype=dt(name), device=device)
    got = call(t)
    assert got.dtype == dt(name) and got.device == t.device
    want = call(t.float()).to(dt(name))
    np.testing.assert_array_equal(host(got), host(want))
    r = ref(x)
    # log_softmax and logsigmoid subtract: their float32 error is relative to the
    # larger of the terms, bounded by 8 here (|x| <= 4, 16 entries)
    scale = np.maximum(np.abs(r), 8.0) * U32 / U_HALF[name] + np.abs(r) \
        if fn in ("log_softmax", "logsigmoid", "tanhshrink") else None
    check_bound(host(got), r, name, c=8.0, scale=scale)


@pytest.mark.parametrize("name", HALF)
def test_composed_functions_gradients_in_the_input_dtype(device, name):
    x = half_values(name, (4, 8), seed=4)
    t = pdt.tensor(x, dtype=dt(name), device=device, requires_grad=True)
    (pdt.softmax(t, -1)[:, 0].sum() + pdt.nn.functional.gelu(t).sum()).backward()
    assert t.grad.dtype == dt(name)
    s = _np_softmax(x)
    g = s[:, :1] * ((np.arange(8) == 0) - s) + (
        _np_erfc(-x / math.sqrt(2)) / 2 + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi))
    check_bound(host(t.grad), g, name, c=16.0, scale=np.abs(g) + 1.0)


# ---- negation and abs in the sign bit (Note [half sign bit] in csrc/core/pdt_half.h)

@pytest.mark.parametrize("name", HALF)
def test_neg_and_abs_flip_or_clear_the_sign_bit_only(device, name):
    """All 65,536 bit patterns, NaN payloads and signalling NaNs among them (IEEE 754-2008
    5.5.1): -x is x ^ 0x8000 and abs(x) is x & 0x7fff bit for bit, as NumPy's float16
    gives them; by the function and the operator, in place, into out=, on a transposed
    view, and into a float32 out= (the float32 value of those bits)."""
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = pdt.tensor(bits.view(NP_TYPE[name]), device=device)
    assert (x.cpu().numpy().view(np.uint16) == bits).all()  # the patterns arrive intact
    want = {"neg": bits ^ np.uint16(0x8000), "abs": bits & np.uint16(0x7FFF)}
    if name == "float16":
        assert (want["neg"] == np.negative(bits.view(np.float16)).view(np.uint16)).all()
        assert (want["abs"] == np.abs(bits.view(np.float16)).view(np.uint16)).all()

    def check(got, op, how):
        assert got.dtype == dt(name) and got.device == device, how
        assert (got.cpu().numpy().view(np.uint16).reshape(-1) == want[op]).all(), (op, how)

    for op, f, f_ in (("neg", pdt.neg, pdt.Tensor.neg_), ("abs", pdt.abs, pdt.Tensor.abs_)):
        check(f(x), op, "function")
        y = x.clone()
        assert f_(y) is y
        check(y, op, "in place")
        o = pdt.empty(1 << 16, dtype=dt(name), device=device)
        assert f(x, out=o) is o
        check(o, op, "out=")
        got = f(x.reshape(256, 256).t())
        check(got.t().contiguous(), op, "transposed")
        o32 = pdt.empty(1 << 16, dtype=pdt.float32, device=device)
        f(x, out=o32)
        ref = pdt.tensor(want[op].view(NP_TYPE[name]), device=device).float()
        assert (o32.cpu().numpy().view(np.uint32) == ref.cpu().numpy().view(np.uint32)).all()
    check(-x, "neg", "operator")
    check(abs(x), "abs", "operator")
