"""uint8, int8 and int16 on every device (Note [small integers] in csrc/core/pdt_dtype.h).

They are stored as themselves and computed in int32, the results wrapped back, so
every integer op is checked here against NumPy's arithmetic in the same dtype (which
wraps too) and, where torch imports, against PyTorch: promotion (all pairs of the ten
dtypes), wrap-around, Python scalars wrapped into the dtype, casts both ways (floats
out of range: Note [float to small int] in csrc/core/pdt_convert.h), reductions (sum,
prod and cumsum accumulate in int64), sorting, indexing with a uint8 mask, and the
NumPy, DLPack and save/load boundaries.
"""
import itertools
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

SMALL = ["uint8", "int8", "int16"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}


def values(name, n=64, seed=0):
    """n values spanning the whole range of the small dtype, ends included."""
    lo, hi = RANGE[name]
    rng = np.random.default_rng(seed)
    v = rng.integers(lo, hi + 1, size=n, dtype=np.int64)
    v[:4] = [lo, hi, 0, 1]
    return v.astype(name)


def on(device, a):
    return pdt.tensor(a, device=device)


def host(t):
    return t.cpu().numpy()


# ---- the dtypes themselves ----

def test_names_aliases_and_properties():
    assert pdt.short is pdt.int16
    for name, size, signed in (("uint8", 1, False), ("int8", 1, True), ("int16", 2, True)):
        d = getattr(pdt, name)
        assert (d.name, d.itemsize, d.is_signed, d.is_floating_point) == (name, size, signed,
                                                                           False)
        assert repr(d) == f"pydevtensor.{name}"
        assert pdt.zeros(1, dtype=name).dtype is d
        assert pdt.zeros(1, dtype=np.dtype(name)).dtype is d
    assert pdt.float32.is_signed and not pdt.bool.is_signed
    # PyTorch's is_complex, False for each dtype here (there are no complex ones)
    for d in (pdt.float32, pdt.float64, pdt.float16, pdt.bfloat16, pdt.int64, pdt.int32,
              pdt.int16, pdt.int8, pdt.uint8, pdt.bool):
        assert d.is_complex is False
    torch = torch_or_skip()
    for name in SMALL:
        assert getattr(torch, name).is_signed == getattr(pdt, name).is_signed


def test_iinfo():
    for name in SMALL + ["int32", "int64"]:
        info, ref = pdt.iinfo(getattr(pdt, name)), np.iinfo(name)
        assert (info.min, info.max, info.bits, info.dtype) == (ref.min, ref.max, ref.bits, name)
    assert repr(pdt.iinfo(pdt.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"


def test_conversion_methods_and_type(device):
    x = pdt.tensor([3.7, -1.0, 300.0], device=device)
    assert x.byte().dtype == pdt.uint8 and x.byte().tolist() == [3, 255, 44]
    assert x.char().dtype == pdt.int8 and x.char().tolist() == [3, -1, 44]
    assert x.short().dtype == pdt.int16 and x.short().tolist() == [3, -1, 300]
    b = x.byte()
    assert b.byte() is b
    prefix = "pydevtensor.cuda." if str(device).startswith("cuda") else "pydevtensor."
    assert [t.type() for t in (b, x.char(), x.short())] == [
        prefix + "ByteTensor", prefix + "CharTensor", prefix + "ShortTensor"]


# ---- promotion ----

def test_promote_types_matches_torch_for_all_pairs():
    torch = torch_or_skip()
    for a, b in itertools.product(ALL, ALL):
        got = pdt.promote_types(getattr(pdt, a), getattr(pdt, b)).name
        assert got == str(torch.promote_types(getattr(torch, a), getattr(torch, b)))[6:], (a, b)


def test_promotion_table_numpy_reference():
    # no torch needed: the small-integer rows of PyTorch's table, written out
    expect = {("uint8", "int8"): "int16", ("uint8", "int16"): "int16",
              ("int8", "int16"): "int16", ("uint8", "bool"): "uint8", ("int8", "bool"): "int8",
              ("uint8", "int32"): "int32", ("int16", "int64"): "int64",
              ("uint8", "float16"): "float16", ("int16", "bfloat16"): "bfloat16",
              ("int8", "float32"): "float32"}
    for (a, b), r in expect.items():
        assert pdt.promote_types(a, b).name == r and pdt.promote_types(b, a).name == r


@pytest.mark.parametrize("a", SMALL)
def test_op_result_dtypes_match_torch(device, a):
    torch = torch_or_skip()
    x = pdt.ones(2, dtype=a, device=device)
    tx = torch.ones(2, dtype=getattr(torch, a))
    for b in ALL:
        for y, ty in ((pdt.ones(2, dtype=b, device=device), torch.ones(2, dtype=getattr(torch, b))),
                      (pdt.ones((), dtype=b, device=device), torch.ones((), dtype=getattr(torch, b)))):
            for r, tr in ((x + y, tx + ty), (y * x, ty * tx), (x / y, tx / ty), (x < y, tx < ty)):
                assert r.dtype.name == str(tr.dtype)[6:], (a, b, y.ndim)
            assert pdt.result_type(x, y).name == str(torch.result_type(tx, ty))[6:]
    for s in (1, -1, 300, 1.5, True):
        assert (x + s).dtype.name == str((tx + s).dtype)[6:], s
        assert pdt.result_type(x, s).name == str(torch.result_type(tx, s))[6:]


# ---- arithmetic ----

@pytest.mark.parametrize("name", SMALL)
def test_arithmetic_wraps_like_numpy(device, name):
    a, b = values(name, seed=1), values(name, seed=2)
    x, y = on(device, a), on(device, b)
    with np.errstate(all="ignore"):
        for got, ref in ((x + y, a + b), (x - y, a - b), (x * y, a * b), (-x, -a),
                         (x.abs(), np.abs(a)), (pdt.maximum(x, y), np.maximum(a, b)),
                         (pdt.minimum(x, y), np.minimum(a, b)), (x ** 3, a ** 3),
                         (x.square(), a * a)):
            assert got.dtype.name == name
            np.testing.assert_array_equal(host(got), ref)
    nz = np.where(b == 0, 1, b).astype(name)
    # Python's floor rules: NumPy's // and % on the same dtype
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(host(x // on(device, nz)), a // nz)
        np.testing.assert_array_equal(host(x % on(device, nz)), a % nz)
        np.testing.assert_array_equal(host(pdt.fmod(x, on(device, nz))), np.fmod(a, nz))
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        got = getattr(x, op)(y)
        assert got.dtype == pdt.bool
        np.testing.assert_array_equal(host(got), getattr(a, op)(b))
    # true division: the default float, exact against float64 within float32 rounding
    np.testing.assert_allclose(host(x / on(device, nz)), a.astype(np.float64) / nz, rtol=2e-7)


def test_known_answers_match_torch(device):
    u = pdt.tensor([200, 3], dtype=pdt.uint8, device=device)
    i8 = pdt.tensor([-128, 100, -7, 7], dtype=pdt.int8, device=device)
    assert (u + u).tolist() == [144, 6]
    assert (u * 2).tolist() == [144, 6] and (u - 250).tolist() == [206, 9]
    assert (-u).tolist() == [56, 253]
    assert (i8 // -1).tolist() == [-128, -100, 7, -7]
    assert (i8 * 2).tolist() == [0, -56, -14, 14]
    assert (i8 // 2).tolist() == [-64, 50, -4, 3] and (i8 % 3).tolist() == [1, 1, 2, 1]
    assert (i8 % -3).tolist() == [-2, -2, -1, -2]
    assert i8.abs().tolist() == [-128, 100, 7, 7]  # abs(-128) wraps, as in PyTorch
    assert (u / 2).dtype == pdt.float32 and (u + 1.5).tolist() == [201.5, 4.5]
    assert u.clamp(-5, 300).tolist() == [200, 3] and u.clamp(0, 100).tolist() == [100, 3]


def test_python_ints_wrap_into_the_dtype(device):
    # as PyTorch: in arithmetic the scalar is converted to uint8 first (300 -> 44, -1 -> 255)
    u = pdt.tensor([200, 3], dtype=pdt.uint8, device=device)
    assert (u + 300).tolist() == [244, 47] and (u + (-1)).tolist() == [199, 2]
    assert (u // 300).tolist() == [4, 0] and (u % 300).tolist() == [24, 3]
    # comparisons take the int as it is, as NumPy 2 (PyTorch compares with the wrapped
    # value: u < 300 is [False, True] and u == 456 is [True, False] there); Note [ints
    # beyond the dtype] in csrc/core/pdt_compare_scalar.c
    assert (u < 300).tolist() == [True, True] and (u > -1).tolist() == [True, True]
    assert (u == 456).tolist() == [False, False] and (u != 456).tolist() == [True, True]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        u // 256  # 256 wraps to 0
    with pytest.raises(RuntimeError, match="exponent 300 cannot be converted to uint8"):
        u ** 300
    with pytest.raises(RuntimeError, match="negative integer powers"):
        u ** -1
    torch = torch_or_skip()
    tu = torch.tensor([200, 3], dtype=torch.uint8)
    for s in (300, -1, -56, 1000):
        for op in ("__add__", "__sub__", "__mul__"):
            assert getattr(u, op)(s).tolist() == getattr(tu, op)(s).tolist(), (op, s)


def test_alpha_and_value_outside_the_dtype_are_refused(device):
    """As PyTorch's alpha_check: add/sub's alpha and addcmul/addcdiv's value must fit the
    result's integer dtype (the Python int operand itself wraps: int8 + 300 adds 44, but
    alpha=300 was wrapped to 44 too); nothing is written by a refused in-place call."""
    for name in ("int8", "uint8", "int16", "int32"):
        lo, hi = int(np.iinfo(name).min), int(np.iinfo(name).max)
        x = pdt.tensor([1, 2], dtype=getattr(pdt, name), device=device)
        for bad in (lo - 1, hi + 1, 2**40):
            for run in (lambda: pdt.add(x, 3, alpha=bad), lambda: x.sub(x, alpha=bad),
                        lambda: x.add_(x, alpha=bad)):
                with pytest.raises(ValueError, match=f"alpha={bad} does not fit in {name}"):
                    run()
            with pytest.raises(ValueError, match=f"value={bad} cannot be converted to "):
                pdt.addcmul(x, x, x, value=bad)
        assert x.cpu().numpy().tolist() == [1, 2]
        w = np.array([1, 2], dtype=name)
        with np.errstate(over="ignore"):
            want = (w + w * w.dtype.type(hi)).tolist()
            assert pdt.add(x, x, alpha=hi).cpu().numpy().tolist() == want
            assert pdt.addcmul(x, x, x, value=lo).cpu().numpy().tolist() == \
                (w + w.dtype.type(lo) * w * w).tolist()


def test_mixed_small_dtypes(device):
    a = pdt.tensor([1, 2, 255], dtype=pdt.uint8, device=device)
    b = pdt.tensor([-1, 127, -128], dtype=pdt.int8, device=device)
    r = a * b
    assert r.dtype == pdt.int16 and r.tolist() == [-1, 254, -32640]
    assert (a + b).tolist() == [0, 129, 127]


@pytest.mark.parametrize("name", SMALL)
def test_other_dtypes_are_cast_into_the_small_one_first(device, name):
    """An operand of another dtype that does not promote (a 0-d tensor) is cast into the
    small dtype first, and an out= of a wider dtype gets the wrapped result, as in PyTorch
    (Note [small integers] in csrc/core/pdt_dtype.h)."""
    a = values(name, 40, seed=5)
    x = on(device, a)
    with np.errstate(over="ignore"):
        for k, dt in ((-1, "int8"), (300, "int64"), (200, "int16"), (-129, "int32")):
            s = pdt.tensor(k, dtype=getattr(pdt, dt), device=device)
            kk = np.array(k).astype(dt).astype(name)  # the 0-d value cast into x's dtype
            for got, want in ((x < s, a < kk), (x == s, a == kk), (x + s, a + kk),
                              (pdt.maximum(x, s), np.maximum(a, kk)), (x & s, a & kk),
                              (x * s, a * kk), (x // s, a // kk), (x % s, a % kk),
                              (pdt.fmod(x, s), np.fmod(a, kk))):
                assert got.dtype == (pdt.bool if want.dtype == bool else x.dtype)
                np.testing.assert_array_equal(host(got), want, err_msg=f"{name} {k} {dt}")
        e = pdt.tensor(259, dtype=pdt.int16, device=device)  # 3 in uint8 and int8, 259 in int16
        ee = np.array(259).astype(name)
        np.testing.assert_array_equal(host(x ** e), a ** ee)
        out = pdt.empty(40, dtype=pdt.int32, device=device)
        pdt.add(x, x, out=out)
        np.testing.assert_array_equal(host(out), (a + a).astype(np.int32))
        pdt.pow(x, 2, out=out)
        np.testing.assert_array_equal(host(out), (a * a).astype(np.int32))
        pdt.floor_divide(x, 3, out=out)
        np.testing.assert_array_equal(host(out), (a // a.dtype.type(3)).astype(np.int32))
        pdt.neg(x, out=out)
        np.testing.assert_array_equal(host(out), (-a).astype(np.int32))


def test_other_dtypes_as_torch():
    torch = torch_or_skip()
    x = pdt.tensor([200, 5, 0, 255], dtype=pdt.uint8)
    tx = torch.tensor([200, 5, 0, 255], dtype=torch.uint8)
    assert (x < pdt.tensor(-1, dtype=pdt.int8)).tolist() == (
        tx < torch.tensor(-1, dtype=torch.int8)).tolist()
    assert (x << pdt.tensor(259)).tolist() == (tx << torch.tensor(259)).tolist()
    out, tout = pdt.empty(4, dtype=pdt.int32), torch.empty(4, dtype=torch.int32)
    assert pdt.add(x, x, out=out).tolist() == torch.add(tx, tx, out=tout).tolist()
    assert pdt.pow(x, 2, out=out).tolist() == torch.pow(tx, 2, out=tout).tolist()
    m1 = pdt.tensor(-1, dtype=pdt.int8)
    assert (x // m1).tolist() == (tx // torch.tensor(-1, dtype=torch.int8)).tolist()
    assert (x % pdt.tensor(300)).tolist() == (tx % torch.tensor(300)).tolist()


def test_in_place_keeps_the_dtype(device):
    x = pdt.tensor([250, 10], dtype=pdt.uint8, device=device)
    x += 10
    assert x.dtype == pdt.uint8 and x.tolist() == [4, 20]
    x *= pdt.tensor([2, 3], dtype=pdt.int64, device=device)
    assert x.dtype == pdt.uint8 and x.tolist() == [8, 60]
    with pytest.raises(TypeError, match="can't be cast"):
        x += 1.5


def test_unary_float_results(device):
    a = values("uint8")
    x = on(device, a)
    r = x.sqrt()
    assert r.dtype == pdt.float32
    np.testing.assert_allclose(host(r), np.sqrt(a.astype(np.float64)), rtol=2e-7)


# ---- casts ----

def wrap_ref(f, name):
    """Note [float to small int]: truncate, int64 (saturating, NaN -> 0), wrap."""
    f = np.asarray(f, dtype=np.float64)
    t = np.where(np.isnan(f), 0.0, np.trunc(f))
    i = np.where(t >= 2.0 ** 63, np.iinfo(np.int64).max,
                 np.where(t <= -2.0 ** 63, np.iinfo(np.int64).min,
                          np.clip(t, -2.0 ** 63, 2.0 ** 62).astype(np.int64)))
    return i.astype(name)  # int64 -> small wraps in NumPy


FLOATS = [0.0, 0.9, -0.9, 1.5, -1.5, 127.9, 128.0, -128.5, -129.0, 255.5, 256.0, 300.0, -1.0,
          -200.0, 32767.5, 32768.0, 65535.0, 70000.0, -32769.0, 1e6, -1e6, float("nan")]


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float_to_small_int(device, name, src):
    f = np.array(FLOATS, dtype=src)
    got = on(device, f).to(getattr(pdt, name))
    np.testing.assert_array_equal(host(got), wrap_ref(f, name))
    torch = torch_or_skip()  # PyTorch's CPU result is the same within int32's range
    ref = torch.tensor(f).to(getattr(torch, name)).numpy()
    np.testing.assert_array_equal(host(got), ref)


def test_float_to_small_int_beyond_int32_and_half_sources(device):
    f = np.array([3e9, -3e9, 1e19, -1e19, float("inf"), float("-inf")])
    for name in SMALL:
        np.testing.assert_array_equal(host(on(device, f).to(name)), wrap_ref(f, name))
    h = np.array([1.5, -2.5, 300.0, 65504.0, -65504.0, np.inf, np.nan], dtype=np.float16)
    for name in SMALL:
        np.testing.assert_array_equal(host(on(device, h).to(name)), wrap_ref(h, name))
        np.testing.assert_array_equal(host(on(device, h).to("bfloat16").to(name)),
                                      wrap_ref(host(on(device, h).to("bfloat16").double()), name))


@pytest.mark.parametrize("name", SMALL)
def test_casts_between_integers_and_to_floats(device, name):
    a = values(name, n=200)
    x = on(device, a)
    for other in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                  "float64"]:
        got = host(x.to(other))
        np.testing.assert_array_equal(got, a.astype(other))  # NumPy wraps ints too
        back = on(device, a.astype("int64")).to(name)
        np.testing.assert_array_equal(host(back), a)
    wide = np.array([70000, -70000, 2 ** 40 + 5, -1], dtype=np.int64)
    np.testing.assert_array_equal(host(on(device, wide).to(name)), wide.astype(name))
    np.testing.assert_array_equal(host(x.to("bfloat16").float()),
                                  host(on(device, a.astype(np.float32)).to("bfloat16").float()))
    # strided (a transposed view) through the same conversions
    m = on(device, a[:60].reshape(6, 10)).t()
    np.testing.assert_array_equal(host(m.to("float64")), a[:60].reshape(6, 10).T)


# ---- creation ----

def test_creation(device):
    for name in SMALL:
        d = getattr(pdt, name)
        assert pdt.zeros(3, dtype=d, device=device).tolist() == [0, 0, 0]
        assert pdt.ones(2, 2, dtype=d, device=device).tolist() == [[1, 1], [1, 1]]
        lo, hi = RANGE[name]
        assert pdt.full((2,), lo, dtype=d, device=device).tolist() == [lo, lo]
        assert pdt.full((2,), hi, dtype=d, device=device).tolist() == [hi, hi]
        with pytest.raises(RuntimeError, match=f"cannot be converted to {name}"):
            pdt.full((2,), hi + 1, dtype=d, device=device)
        with pytest.raises(OverflowError, match=f"cannot be converted to {name}"):
            pdt.tensor([lo - 1], dtype=d, device=device)
        t = pdt.zeros(2, dtype=d, device=device)
        with pytest.raises(OverflowError, match=f"cannot be converted to {name}"):
            t.fill_(hi + 1)
        assert t.tolist() == [0, 0]
        assert pdt.arange(5, dtype=d, device=device).tolist() == [0, 1, 2, 3, 4]
        assert pdt.tensor([1.9, -0.5], dtype=d, device=device).tolist() == [1, 0]
    # arange wraps, as PyTorch's does
    assert pdt.arange(250, 260, dtype=pdt.uint8, device=device).tolist() == \
        [250, 251, 252, 253, 254, 255, 0, 1, 2, 3]


def test_randint(device):
    for name in SMALL:
        lo, hi = RANGE[name]
        x = pdt.randint(lo, hi + 1, (4000,), dtype=getattr(pdt, name), device=device)
        assert x.dtype.name == name
        v = host(x).astype(np.int64)
        assert v.min() >= lo and v.max() <= hi and len(np.unique(v)) > min(200, hi - lo)
        with pytest.raises(RuntimeError, match=f"cannot be converted to {name}"):
            pdt.randint(lo, hi + 2, (3,), dtype=getattr(pdt, name), device=device)
    pdt.manual_seed(5)
    a = pdt.randint(0, 256, (50,), dtype=pdt.uint8, device=device)
    pdt.manual_seed(5)
    b = pdt.randint(0, 256, (50,), device=device)
    assert a.tolist() == b.tolist()  # the same draws as int64, on every device
    r = pdt.zeros(1000, dtype=pdt.uint8, device=device).random_()
    assert 0 <= int(r.min()) and int(r.max()) <= 255 and int(r.max()) > 200


# ---- reductions, sorting, indexing ----

@pytest.mark.parametrize("name", SMALL)
def test_reductions(device, name):
    a = values(name, n=300, seed=3).reshape(3, 100)
    x = on(device, a)
    wide = a.astype(np.int64)
    assert x.sum().dtype == pdt.int64 and int(x.sum()) == wide.sum()
    np.testing.assert_array_equal(host(x.sum(1)), wide.sum(1))
    small = on(device, (a[:, :5] % 5).astype(name))
    assert small.prod().dtype == pdt.int64
    assert int(small.prod(1)[0]) == (a[0, :5] % 5).astype(np.int64).prod()
    np.testing.assert_array_equal(host(x.cumsum(1)), wide.cumsum(1))
    assert x.cumsum(1).dtype == pdt.int64
    assert x.max().dtype.name == name and int(x.max()) == a.max() and int(x.min()) == a.min()
    np.testing.assert_array_equal(host(x.amax(0)), a.max(0))
    np.testing.assert_array_equal(host(x.argmax(1)), a.argmax(1))
    np.testing.assert_array_equal(host(x.argmin(1)), a.argmin(1))
    with pytest.raises(TypeError, match="mean needs a floating point dtype"):
        x.mean()
    assert float(x.float().mean()) == pytest.approx(wide.mean(), rel=1e-6)


@pytest.mark.parametrize("name", SMALL)
def test_sort_topk_unique(device, name):
    a = values(name, n=500, seed=4)
    x = on(device, a)
    s = x.sort()
    assert s.values.dtype.name == name
    np.testing.assert_array_equal(host(s.values), np.sort(a, kind="stable"))
    np.testing.assert_array_equal(host(x.sort(descending=True).values), np.sort(a)[::-1])
    np.testing.assert_array_equal(host(x.argsort(stable=True)), np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(host(x.topk(5).values), np.sort(a)[::-1][:5])
    np.testing.assert_array_equal(host(x.unique()), np.unique(a))


def test_indexing(device):
    x = pdt.arange(5, device=device)
    m = pdt.tensor([1, 0, 1, 0, 2], dtype=pdt.uint8, device=device)
    with pytest.warns(UserWarning, match="uint8 is deprecated"):
        assert x[m].tolist() == [0, 2, 4]  # a mask, as in PyTorch
    y = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y[m] = 9
    assert y.tolist() == [9, 1, 9, 3, 9]
    for name in ("int8", "int16"):
        with pytest.raises(IndexError, match="long, int, byte or bool"):
            x[pdt.tensor([1], dtype=name, device=device)]
    u = pdt.tensor([10, 20, 30], dtype=pdt.uint8, device=device)
    assert u[pdt.tensor([2, 0], device=device)].tolist() == [30, 10]
    assert u[u > 15].tolist() == [20, 30]
    assert pdt.where(u > 15, u, pdt.tensor(0, dtype=pdt.uint8, device=device)).tolist() == \
        [0, 20, 30]
    assert pdt.cat([u, u]).dtype == pdt.uint8 and u.flip(0).tolist() == [30, 20, 10]


# ---- boundaries ----

@pytest.mark.parametrize("name", SMALL)
def test_numpy_without_copies(name):
    a = values(name)
    t = pdt.from_numpy(a)
    assert t.dtype.name == name
    a[0] = 7
    assert t[0].item() == 7  # shares the memory
    n = t.numpy()
    assert n.dtype == np.dtype(name) and np.shares_memory(n, a)
    assert np.asarray(t).dtype == np.dtype(name)
    assert pdt.as_tensor(a).data_ptr() == a.ctypes.data
    c = pdt.tensor(a)  # a copy
    assert c.dtype.name == name and c.data_ptr() != a.ctypes.data
    assert t.tolist() == a.tolist() and isinstance(t[1].item(), int)
    assert pdt.tensor([np.array(3, dtype=name).item()]).dtype == pdt.int64
    assert pdt.tensor([getattr(np, name)(3)]).dtype.name == name


def test_image_pipeline(device):
    img = np.random.default_rng(0).integers(0, 256, (4, 5, 3), dtype=np.uint8)  # HWC, as PIL
    x = pdt.as_tensor(img).to(device).permute(2, 0, 1).float() / 255
    assert x.dtype == pdt.float32 and tuple(x.shape) == (3, 4, 5)
    np.testing.assert_allclose(host(x), img.transpose(2, 0, 1).astype(np.float64) / 255,
                               rtol=1e-7, atol=0)
    back = (x * 255).round().byte()
    np.testing.assert_array_equal(host(back), img.transpose(2, 0, 1))


def test_dlpack_codes():
    for name in SMALL:
        a = values(name)
        t = pdt.from_dlpack(a)
        assert t.dtype.name == name and t.data_ptr() == a.ctypes.data
        back = np.from_dlpack(t)
        assert back.dtype == np.dtype(name) and np.shares_memory(back, a)
    torch = torch_or_skip()
    for name in SMALL:
        tt = torch.arange(5).to(getattr(torch, name))
        p = pdt.from_dlpack(tt)
        assert p.dtype.name == name and p.tolist() == tt.tolist()
        assert torch.from_dlpack(p).dtype == getattr(torch, name)


def test_save_load_and_repr(tmp_path, device):
    sd = {name: on(device, values(name, n=5)) for name in SMALL}
    path = tmp_path / "small.pt"
    pdt.save(sd, path)
    back = pdt.load(path)
    for name in SMALL:
        assert back[name].dtype.name == name and back[name].tolist() == sd[name].tolist()
        assert back[name].device == sd[name].device
    with np.load(path) as z:  # a plain NumPy user reads them
        assert {z[k].dtype.name for k in z.files if k in SMALL} <= set(SMALL)
    r = repr(pdt.tensor([[1, 2], [3, 4]], dtype=pdt.int16))
    assert r == "tensor([[1, 2],\n        [3, 4]], dtype=pydevtensor.int16)"
    assert repr(pdt.tensor([200, 3], dtype=pdt.uint8)) == \
        "tensor([200,   3], dtype=pydevtensor.uint8)"


# ---- bitwise ops and shifts (every integer dtype) ----

INTS = SMALL + ["int32", "int64"]


def int_values(name, n=64, seed=0):
    info = np.iinfo(name)
    v = np.random.default_rng(seed).integers(info.min, info.max, size=n, dtype=np.int64,
                                             endpoint=True)
    v[:3] = [info.min, info.max, 0]
    return v.astype(name)


@pytest.mark.parametrize("name", INTS)
def test_bitwise_ops_match_numpy(device, name):
    a, b = int_values(name, seed=5), int_values(name, seed=6)
    x, y = on(device, a), on(device, b)
    for got, ref in ((x & y, a & b), (x | y, a | b), (x ^ y, a ^ b), (~x, ~a),
                     (pdt.bitwise_and(x, 6), a & np.array(6, dtype=name)),
                     (x.bitwise_or(y), a | b), (pdt.bitwise_not(x), ~a), (3 & x, a & 3)):
        assert got.dtype.name == name
        np.testing.assert_array_equal(host(got), ref)
    bits = np.iinfo(name).bits
    s = (np.arange(64) % bits).astype(name)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(host(x << on(device, s)), a << s)
        np.testing.assert_array_equal(host(x >> on(device, s)), a >> s)
    np.testing.assert_array_equal(host(x >> 1), a >> 1)
    z = x.clone()
    z ^= y
    z <<= 1
    np.testing.assert_array_equal(host(z), (a ^ b) << np.array(1, dtype=name))


def test_shifts_past_the_width_and_torch(device):
    torch = torch_or_skip()
    for name in INTS:
        a = int_values(name, n=16, seed=7)
        bits = np.iinfo(name).bits
        shifts = [bits, bits + 1, 40, 63, -1, -5] if name != "int8" else [8, 9, 100, -1, -5]
        if name == "uint8":
            shifts = [8, 9, 100, 200, 255]
        for k in shifts:
            ta = torch.tensor(a.astype(np.int64)).to(getattr(torch, name))
            ts = torch.full((16,), k, dtype=getattr(torch, name))
            x, s = on(device, a), pdt.full((16,), k, dtype=name, device=device)
            assert (x << s).tolist() == (ta << ts).tolist(), (name, k)
            assert (x >> s).tolist() == (ta >> ts).tolist(), (name, k)
        u = pdt.tensor([200, 3], dtype=pdt.uint8, device=device)
        assert (u & 300).tolist() == (torch.tensor([200, 3], dtype=torch.uint8) & 300).tolist()


def test_bitwise_dtypes_and_errors(device):
    u = pdt.tensor([12, 10], dtype=pdt.uint8, device=device)
    i8 = pdt.tensor([-1, 3], dtype=pdt.int8, device=device)
    assert (u & i8).dtype == pdt.int16 and (u & i8).tolist() == [12, 2]
    m = pdt.tensor([True, False], device=device)
    assert pdt.bitwise_xor(m, pdt.tensor([True, True], device=device)).tolist() == [False, True]
    assert (m & u).dtype == pdt.uint8 and (m | u).tolist() == [13, 10]
    f = pdt.tensor([1.0, 2.0], device=device)
    with pytest.raises(TypeError, match="integer"):
        pdt.bitwise_and(f, 1)
    with pytest.raises(TypeError, match="integer"):
        f << 1
    with pytest.raises(TypeError, match="integer or bool"):
        pdt.bitwise_not(f)
    with pytest.raises(TypeError):
        u & 1.5
    assert pdt.bitwise_left_shift(u, 1).tolist() == [24, 20]


def test_matmul(device):
    torch = torch_or_skip()
    for name in SMALL:
        a = int_values(name, n=12, seed=8).reshape(3, 4)
        b = int_values(name, n=8, seed=9).reshape(4, 2)
        got = on(device, a) @ on(device, b)
        assert got.dtype.name == name
        ref = (a.astype(np.int64) @ b.astype(np.int64)).astype(name)  # wraps, as torch's
        np.testing.assert_array_equal(host(got), ref)
        t = torch.tensor(a.astype(np.int64)).to(getattr(torch, name)) @ \
            torch.tensor(b.astype(np.int64)).to(getattr(torch, name))
        np.testing.assert_array_equal(host(got), t.numpy())
        v = on(device, a[0])
        assert int(v @ v) == np.int64(a[0].astype(np.int64) @ a[0].astype(np.int64)).astype(name)


def test_any_all_keep_uint8(device):
    u = pdt.tensor([[0, 2], [3, 4]], dtype=pdt.uint8, device=device)
    assert u.all().dtype == pdt.uint8 and int(u.all()) == 0 and int(u.any()) == 1
    assert u.all(dim=1).tolist() == [0, 1]
    assert pdt.tensor([0, 2], dtype=pdt.int8, device=device).any().dtype == pdt.bool
    torch = torch_or_skip()
    assert str(torch.tensor([1], dtype=torch.uint8).all().dtype) == "torch.uint8"


def test_rng_state_is_uint8():
    state = pdt.get_rng_state()
    assert state.dtype == pdt.uint8 and tuple(state.shape) == (16,)
    a = pdt.rand(3)
    pdt.set_rng_state(state.int().to(pdt.uint8))  # an earlier version's int32 state
    assert pdt.rand(3).tolist() == a.tolist()
    g = pdt.Generator().manual_seed(3)
    assert g.get_state().dtype == pdt.uint8
