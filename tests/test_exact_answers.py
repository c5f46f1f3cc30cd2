"""Exact answers (issue 14, "Wrong answers"): each test compares with NumPy in
float64 (or exact integers), on every device, for a case the package once got
wrong.

- add/sub with alpha: the result dtype is the promotion of the two operands, alpha
  must fit it, and other * alpha is formed in that dtype (PyTorch's rule).
- clamp of integers: integer bounds stay integers (int64 values above 2**53 exact).
- float32 norm: the sum of squares stays in double until after the square root, so
  neither overflows nor underflows in between (Note [reduction accuracy]).
- argmax/argmin with keepdim=True and no dim keep every dimension with size 1.
- int32 arange, linspace and randint refuse values int32 cannot hold, as full() does.
- tensor() and as_tensor() convert a big-endian NumPy array; from_numpy() says why not.
- in-place and out= ops on empty tensors from NumPy (stride 0 on an empty dim) work.
- writes into a tensor whose elements overlap (as_strided rows) are refused.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pydevtensor as pdt
from conftest import DTYPES
from test_elementwise import CATEGORY
from test_elementwise import expected_compute_dtype as expected_dtype  # PyTorch's promotion

SETTINGS = settings(max_examples=1000, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def host(x):
    return x.cpu().numpy()


# ---------------------------------------------------------------- add/sub alpha


def test_alpha_product_is_formed_in_the_result_dtype(device):
    # float32 + int32 * 2**12: the product 2**32 does not fit int32, but the
    # result (and so the product) is float32.
    r = pdt.add(pdt.tensor([0.0], device=device), pdt.tensor([2**20], dtype=pdt.int32,
                                                            device=device), alpha=2**12)
    assert r.dtype == pdt.float32 and host(r).tolist() == [2.0**32]
    r = pdt.sub(pdt.tensor([1.0], dtype=pdt.float64, device=device),
                pdt.tensor([3], dtype=pdt.int64, device=device), alpha=2**40)
    assert r.dtype == pdt.float64 and host(r).tolist() == [1.0 - 3 * 2.0**40]
    # A float tensor scaled by an integer tensor's float: int64 other, float alpha.
    x = pdt.tensor([1.5, 2.5], device=device)
    r = x.add(pdt.tensor([1, 2], dtype=pdt.int64, device=device), alpha=0.5)
    assert r.dtype == pdt.float32 and host(r).tolist() == [2.0, 3.5]
    # A 0-dim int64 other with a float tensor: the result is float32, not int64.
    r = pdt.add(x, pdt.tensor(3, dtype=pdt.int64, device=device), alpha=-1)
    assert r.dtype == pdt.float32 and host(r).tolist() == [-1.5, -0.5]


def test_alpha_in_place_and_out(device):
    x = pdt.tensor([1.0, 2.0], dtype=pdt.float64, device=device)
    assert x.add_(pdt.tensor([2**31 - 1, 7], dtype=pdt.int32, device=device), alpha=4) is x
    assert host(x).tolist() == [1.0 + 4 * (2**31 - 1), 30.0]
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    pdt.sub(pdt.tensor([0, 0], dtype=pdt.int32, device=device),
            pdt.tensor([3.0, 4.0], device=device), alpha=3, out=out)
    assert host(out).tolist() == [-9.0, -12.0]
    y = pdt.tensor([1, 2], dtype=pdt.int64, device=device)
    y.sub_(pdt.tensor([2**40, 1], dtype=pdt.int64, device=device), alpha=2**20)
    assert host(y).tolist() == [1 - 2**60, 2 - 2**20]


def test_alpha_must_fit_the_result_dtype(device):
    i32 = pdt.tensor([1, 2], dtype=pdt.int32, device=device)
    with pytest.raises(TypeError, match=r"add: for integral input tensors \(result int32\), "
                                        r"argument alpha must not be a floating point number, "
                                        r"got 0.5"):
        pdt.add(i32, i32, alpha=0.5)
    with pytest.raises(TypeError, match="alpha must not be a floating point"):
        i32.sub_(1, alpha=1.0)
    with pytest.raises(TypeError, match="bool alpha is only supported for bool results, and "
                                        "the result here is int32"):
        pdt.add(i32, i32, alpha=True)
    with pytest.raises(ValueError, match="alpha=1099511627776 does not fit in int32"):
        pdt.add(i32, i32, alpha=2**40)
    with pytest.raises(TypeError, match="alpha must be a number or a 0-d tensor, not a tensor of 1 "
                                        "dimensions"):
        pdt.add(i32, i32, alpha=i32)
    # A float alpha is fine once the result is floating.
    r = pdt.add(i32, pdt.tensor([0.25, 0.5], device=device), alpha=0.5)
    assert r.dtype == pdt.float32 and host(r).tolist() == [1.125, 2.25]
    # Integer products wrap in the result dtype, as every integer op does.
    r = pdt.add(i32, pdt.tensor([2**20, 1], dtype=pdt.int32, device=device), alpha=2**12)
    assert r.dtype == pdt.int32 and host(r).tolist() == [1, 2 + 2**12]
    b = pdt.tensor([True, False], device=device)
    assert host(pdt.add(b, b, alpha=False)).tolist() == [True, False]
    assert host(pdt.add(b, pdt.tensor([False, True], device=device), alpha=2)).tolist() == \
        [True, True]


def _rounded_first(a, b, alpha, sign, dt):
    """a + sign * (b * alpha) in NumPy, the product rounded to dt first; and whether
    a fused multiply-add (the product exact, one rounding) would differ somewhere."""
    prod = (b.astype(dt) * dt(alpha)).astype(dt)
    want = (a.astype(dt) + prod) if sign > 0 else (a.astype(dt) - prod)
    wide = np.longdouble if dt is np.float64 else np.float64
    fused = (a.astype(wide) + sign * b.astype(wide) * wide(dt(alpha))).astype(dt)
    return want, bool(np.any(fused != want))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "broadcast", "into_input",
                                    "into_other", "strided_out", "threads"])
def test_alpha_rounds_the_product_first_in_every_layout(device, dtype, layout):
    # Note [add with alpha]: p.sub_(buf, alpha=lr) is one pass on the CPU, the
    # product rounded before the op, as the two ops in turn give; the data is chosen
    # so that a fused multiply-add would differ from that in some elements.
    dt = getattr(np, dtype)
    rng = np.random.default_rng(7)
    n = 70_001 if layout == "threads" else 24  # above the pool's 65,536
    a = rng.standard_normal((n, 3)).astype(dt)
    b = rng.standard_normal((n, 3)).astype(dt)
    alpha = 0.1 + 2.0 ** -20
    for name, sign in (("add", 1), ("sub", -1)):
        ta, tb = pdt.from_numpy(a.copy()).to(device), pdt.from_numpy(b.copy()).to(device)
        fn = getattr(pdt, name)
        if layout in ("contiguous", "threads"):
            got, (want, fused_differs) = fn(ta, tb, alpha=alpha), _rounded_first(a, b, alpha, sign, dt)
        elif layout == "transposed":
            got = fn(ta.t(), tb.t(), alpha=alpha)
            want, fused_differs = _rounded_first(a.T, b.T, alpha, sign, dt)
        elif layout == "broadcast":
            got = fn(ta, tb[0], alpha=alpha)
            want, fused_differs = _rounded_first(a, np.broadcast_to(b[0], a.shape), alpha, sign, dt)
        elif layout == "into_input":
            assert getattr(ta, name + "_")(tb, alpha=alpha) is ta
            got = ta
            want, fused_differs = _rounded_first(a, b, alpha, sign, dt)
        elif layout == "into_other":  # an optimizer's buf = grad + momentum * buf
            assert fn(ta, tb, alpha=alpha, out=tb) is tb
            got = tb
            want, fused_differs = _rounded_first(a, b, alpha, sign, dt)
        else:
            out = pdt.zeros(n, 6, dtype=getattr(pdt, dtype), device=device)[:, ::2]
            fn(ta, tb, alpha=alpha, out=out)
            got = out
            want, fused_differs = _rounded_first(a, b, alpha, sign, dt)
        assert fused_differs, "the data must tell a fused multiply-add apart"
        np.testing.assert_array_equal(host(got), want, err_msg=f"{name} {layout} on {device}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_alpha_special_values_match_the_two_ops_in_turn(device, dtype):
    # Every pair of special operands (NaN, +-inf, +-0, subnormals, the largest
    # finite value) with special alphas (0, -0, inf, NaN, one whose product
    # overflows, one whose product is subnormal): the values of b * alpha rounded,
    # then the op; a NaN's payload may differ (Note [add with alpha]).
    dt = getattr(np, dtype)
    fi = np.finfo(dt)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal,
                         -fi.smallest_subnormal, fi.max, -fi.max, 1.0, -2.5], dtype=dt)
    a = np.repeat(specials, len(specials))
    b = np.tile(specials, len(specials))
    ta, tb = pdt.from_numpy(a).to(device), pdt.from_numpy(b).to(device)
    for alpha in (0.0, -0.0, math.inf, math.nan, float(fi.max), float(fi.smallest_subnormal),
                  -3.0):
        for name, sign in (("add", 1), ("sub", -1)):
            with np.errstate(all="ignore"):
                prod = b * dt(alpha)
                want = a + prod if sign > 0 else a - prod
            got = host(getattr(pdt, name)(ta, tb, alpha=alpha))
            same = (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (
                np.isnan(got) & np.isnan(want))
            assert same.all(), (name, alpha, a[~same], b[~same], got[~same], want[~same])


def test_alpha_with_half_and_mixed_operands(device):
    # float16 operands compute in float32 and round once at the end, alpha first rounded
    # to float16 as PyTorch does (Note [scalars meeting halves]); an int32 other is cast
    # to the float32 result first.
    rng = np.random.default_rng(8)
    a = rng.standard_normal(1000).astype(np.float16)
    b = rng.standard_normal(1000).astype(np.float16)
    got = pdt.add(pdt.from_numpy(a).to(device), pdt.from_numpy(b).to(device), alpha=0.3)
    alpha = np.float32(np.float16(0.3))
    want = (a.astype(np.float32) + b.astype(np.float32) * alpha).astype(np.float16)
    assert got.dtype == pdt.float16
    np.testing.assert_array_equal(host(got), want)
    i = rng.integers(-1000, 1000, 1000).astype(np.int32)
    x = rng.standard_normal(1000).astype(np.float32)
    got = pdt.sub(pdt.from_numpy(x).to(device), pdt.from_numpy(i).to(device), alpha=0.3)
    np.testing.assert_array_equal(host(got), x - i.astype(np.float32) * np.float32(0.3))


def int_elements(dtype):
    if dtype == "bool":
        return st.booleans()
    if dtype == "int32":
        return st.integers(-2**31, 2**31 - 1)
    if dtype == "int64":
        return st.integers(-2**62, 2**62)
    return st.integers(-2**24, 2**24) if dtype == "float32" else st.integers(-2**53, 2**53)


@st.composite
def alpha_cases(draw):
    """(a, b, alpha): a and b tensors given as (kind, dtype, values) or a Python
    scalar (b only), and an alpha of any kind."""
    n = draw(st.integers(0, 3))
    a_dtype = draw(st.sampled_from(DTYPES))
    a_kind = draw(st.sampled_from(["dim", "zero"]))
    a_vals = draw(st.lists(int_elements(a_dtype), min_size=n, max_size=n))
    a = (a_kind, a_dtype, a_vals if a_kind == "dim" else (a_vals[0] if a_vals else 0))
    if a_kind == "zero" and a_dtype == "bool":
        a = (a_kind, a_dtype, bool(a[2]))
    if draw(st.booleans()):
        b = draw(st.one_of(st.booleans(), st.integers(-2**31, 2**31 - 1),
                           st.floats(-1e6, 1e6)))
    else:
        b_dtype = draw(st.sampled_from(DTYPES))
        b_kind = draw(st.sampled_from(["dim", "zero"]))
        b_vals = draw(st.lists(int_elements(b_dtype), min_size=n, max_size=n))
        b = (b_kind, b_dtype, b_vals if b_kind == "dim" else
             (bool(b_vals[0]) if b_dtype == "bool" else b_vals[0]) if b_vals else
             (False if b_dtype == "bool" else 0))
    alpha = draw(st.one_of(st.booleans(), st.integers(-2**40, 2**40), st.integers(-4, 4),
                           st.floats(-8, 8).map(lambda v: math.ldexp(round(math.ldexp(v, 4)), -4))))
    return a, b, alpha


def make(spec, device):
    if not isinstance(spec, tuple):
        return spec
    kind, dtype, vals = spec
    return pdt.tensor(vals, dtype=getattr(pdt, dtype), device=device)


def kind_of(spec):
    return (spec[0], spec[1]) if isinstance(spec, tuple) else ("scalar", spec)


def wrap(v, dtype):
    """v (an exact integer) as the integer dtype holds it after wrapping."""
    bits = 32 if dtype == "int32" else 64
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@pytest.mark.parametrize("name", ["add", "sub"])
@SETTINGS
@given(case=alpha_cases())
def test_alpha_promotion_matches_pytorch_rule(device, name, case):
    a, b, alpha = case
    res = expected_dtype([kind_of(a), kind_of(b)])
    x, y = make(a, device), make(b, device)
    if name == "sub" and any(isinstance(s, bool) or isinstance(s, tuple) and s[1] == "bool"
                             for s in (a, b)):  # PyTorch's sub refuses a bool either side
        with pytest.raises(TypeError, match="bool"):
            getattr(pdt, name)(x, y, alpha=alpha)
        return
    if isinstance(alpha, bool) and res != "bool":
        with pytest.raises(TypeError, match="bool alpha"):
            getattr(pdt, name)(x, y, alpha=alpha)
        return
    if isinstance(alpha, float) and CATEGORY[res] < 2:
        with pytest.raises(TypeError, match="alpha must not be a floating point"):
            getattr(pdt, name)(x, y, alpha=alpha)
        return
    if res in ("int32", "int64") and not np.iinfo(res).min <= alpha <= np.iinfo(res).max:
        with pytest.raises(ValueError, match=f"does not fit in {res}"):
            getattr(pdt, name)(x, y, alpha=alpha)
        return
    if res == "int32" and not isinstance(b, tuple) and not -2**31 <= b < 2**31:
        return  # the scalar itself does not fit (tested elsewhere)
    got = getattr(pdt, name)(x, y, alpha=alpha)
    assert got.dtype.name == res
    g = host(got)
    a_arr = np.asarray(a[2], dtype=a[1])
    b_arr = np.asarray(b[2], dtype=b[1]) if isinstance(b, tuple) else np.asarray(b)
    shape = np.broadcast_shapes(a_arr.shape, b_arr.shape)
    assert g.shape == shape
    a_arr, b_arr = np.broadcast_to(a_arr, shape), np.broadcast_to(b_arr, shape)
    sign = 1 if name == "add" else -1
    if res == "bool":
        ref = a_arr | (b_arr.astype(bool) & bool(alpha))
        assert g.tolist() == ref.tolist()
    elif res in ("int32", "int64"):
        ref = [wrap(int(x0) + sign * wrap(int(y0) * int(alpha), res), res)
               for x0, y0 in zip(a_arr.ravel().tolist(), b_arr.ravel().tolist())]
        assert g.ravel().tolist() == ref
    else:
        ft = np.float32 if res == "float32" else np.float64
        with np.errstate(all="ignore"):
            prod = b_arr.astype(ft) * ft(alpha)
            ref = a_arr.astype(ft) + ft(sign) * prod
        np.testing.assert_array_equal(g, ref)


# ---------------------------------------------------------------- integer clamp


def ref_clamp(v, lo, hi):
    if lo is not None:
        v = max(v, lo)
    if hi is not None:
        v = min(v, hi)
    return v


BIG = 2**53 + 1
INT64_VALUES = [BIG, -BIG, 2**62 + 3, -(2**63), 2**63 - 1, 5, BIG + 2]
INT64_BOUNDS = [(None, BIG), (-BIG, None), (BIG, BIG), (2**62 + 1, 2**62 + 5),
                (-(2**63), 2**63 - 1), (BIG + 2, BIG), (None, 2**63 - 2), (-(2**63) + 1, None)]


@pytest.mark.parametrize("lo,hi", INT64_BOUNDS)
def test_int64_clamp_is_exact(device, lo, hi):
    x = pdt.tensor(INT64_VALUES, dtype=pdt.int64, device=device)
    ref = [ref_clamp(v, lo, hi) for v in INT64_VALUES]
    r = pdt.clamp(x, min=lo, max=hi)
    assert r.dtype == pdt.int64 and host(r).tolist() == ref
    assert host(x.clamp(lo, hi)).tolist() == ref
    out = pdt.empty(len(ref), dtype=pdt.int64, device=device)
    assert host(pdt.clamp(x, lo, hi, out=out)).tolist() == ref
    # A 0-dim int64 tensor bound goes through maximum/minimum: exact too.
    tb = {k: None if v is None else pdt.tensor(v, dtype=pdt.int64, device=device)
          for k, v in (("min", lo), ("max", hi))}
    assert host(pdt.clamp(x, **tb)).tolist() == ref
    assert x.clamp_(lo, hi) is x and host(x).tolist() == ref


def test_a_nan_clamp_bound_gives_nan_everywhere(device):
    # as PyTorch: clamp(min=nan) or clamp(max=nan) is NaN for every element (a NaN bound
    # was read as no bound), through every form: function, method, out= and in place
    for dtype in (pdt.float32, pdt.float64, pdt.float16):
        x = pdt.tensor([-1.0, 0.5, 2.0], dtype=dtype, device=device)
        for got in (x.clamp(min=float("nan")), pdt.clamp(x, 0.0, float("nan")),
                    x.clone().clamp_(max=float("nan")),
                    pdt.clamp(x, min=float("nan"), out=pdt.empty(3, dtype=dtype,
                                                                  device=device))):
            assert got.dtype == dtype and np.isnan(host(got.float())).all()
        assert host(x.clamp(0.0, 1.0).float()).tolist() == [0.0, 0.5, 1.0]


def test_integer_clamp_bounds_beyond_the_dtype_and_promote(device):
    x = pdt.tensor([-5, 0, 7], dtype=pdt.int32, device=device)
    r = pdt.clamp(x, min=-(2**40), max=2**40)  # beyond int32: the whole range
    assert r.dtype == pdt.int32 and host(r).tolist() == [-5, 0, 7]
    with pytest.raises(RuntimeError, match=r"min=1099511627776 is outside the representable "
                                           r"range of int32"):
        pdt.clamp(x, min=2**40)  # no int32 is >= 2**40: refused, as PyTorch's
    r = pdt.clamp(x, max=2.5)  # a float bound makes a float result, as in PyTorch
    assert r.dtype == pdt.float32 and host(r).tolist() == [-5.0, 0.0, 2.5]
    b = pdt.tensor([True, False], device=device)
    r = pdt.clamp(b, min=2**60 + 1)  # bool with an int bound: int64
    assert r.dtype == pdt.int64 and host(r).tolist() == [2**60 + 1] * 2


# ---------------------------------------------------------------- float32 norm


def norm_bound(values, ref, dtype):
    """Note [reduction accuracy] for the 2-norm, with the k 2^-53 term doubled for
    NumPy's own rounding."""
    k = max(np.asarray(values).size, 1)
    first = 2.0**-24 if dtype == "float32" else 2.0**-53
    return (first + 2 * k * 2.0**-53) * abs(ref)


@pytest.mark.parametrize("values", [
    [1e20, 1e20], [1e-30, 1e-30], [1e38, 1e38, 1e38], [1e-45, 1e-45],
    [2e19, -3e19, 1e-20, 0.0], [1e-40, 3e-41], [1.5e25] * 1000,
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_does_not_overflow_or_underflow_in_between(device, values, dtype):
    a = np.asarray(values, dtype=dtype)
    ref = float(np.sqrt(np.sum(a.astype(np.float64) ** 2)))
    assert np.isfinite(ref) and ref > 0
    ref_rounded = float(np.asarray(ref).astype(dtype))
    x = pdt.tensor(a, device=device)
    for got in (x.norm(), pdt.norm(x, dim=0), x.norm(p="fro"), x.norm(dim=0, keepdim=True)):
        assert got.dtype.name == dtype
        g = float(host(got).reshape(()))
        assert abs(g - ref) <= norm_bound(a, ref, dtype) or g == ref_rounded, (g, ref)


def test_float32_norm_over_dims_keeps_each_row(device):
    a = np.array([[1e20, 1e-30, 3.0], [1e20, 1e-30, 4.0]], dtype=np.float32)
    x = pdt.tensor(a, device=device)
    ref0 = np.sqrt((a.astype(np.float64) ** 2).sum(axis=0))
    ref1 = np.sqrt((a.astype(np.float64) ** 2).sum(axis=1))
    got0, got1 = x.norm(dim=0), x.norm(dim=1)
    assert got0.dtype == pdt.float32 and got1.dtype == pdt.float32
    np.testing.assert_allclose(host(got0), ref0, rtol=2e-7)
    np.testing.assert_allclose(host(got1), ref1, rtol=2e-7)
    np.testing.assert_allclose(host(x.t().norm(dim=1)), ref0, rtol=2e-7)  # columns layout
    # Beyond float32 for real: inf, as the exact answer rounds.
    assert host(pdt.tensor([3e38, 3e38], device=device).norm()).item() == math.inf


# ---------------------------------------------------------------- argmax keepdim


@pytest.mark.parametrize("shape", [(2, 3), (4,), (2, 1, 3), ()])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_keepdim_without_dim_keep_every_dim(device, name, shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    a = (a * 7.0) % 5.0  # ties and a non-trivial position
    x = pdt.tensor(a, device=device)
    ref = getattr(np, name)(a, keepdims=True)  # NumPy >= 1.22: shape (1, ..., 1)
    for got in (getattr(x, name)(keepdim=True), getattr(pdt, name)(x, keepdim=True),
                getattr(x, name)(None, True), getattr(x, name)(dim=None, keepdim=True)):
        assert got.dtype == pdt.int64
        assert tuple(got.shape) == ref.shape == (1,) * len(shape)
        assert host(got).tolist() == ref.tolist()
    flat = getattr(x, name)()
    assert tuple(flat.shape) == () and host(flat).item() == int(getattr(np, name)(a))


# ---------------------------------------------------------------- int32 creation


OVERFLOW = "cannot be converted to int32 without overflow"


def test_int32_arithmetic_wraps_a_python_int_as_the_small_ints_do(device):
    """As PyTorch's, and as int8/int16 here: in arithmetic a Python int outside int32 is
    wrapped into it (its low 32 bits), so + - * give the low bits of the exact result;
    comparisons take it as it is (Note [ints beyond the dtype]); pow's exponent, add's
    alpha and fills are refused."""
    a = np.array([7, -3, 2**31 - 1, -2**31], dtype=np.int32)
    x = pdt.tensor(a, device=device)
    for s in (2**32 + 5, -2**33 - 7, 2**31, 2**40 + 2**31 + 3):
        w = np.array(s).astype(np.int32)  # NumPy's int64 -> int32 cast keeps the low bits
        with np.errstate(over="ignore"):
            for got, want in ((x + s, a + w), (x - s, a - w), (s - x, w - a), (x * s, a * w),
                              (x & s, a & w), (x | s, a | w), (x ^ s, a ^ w)):
                assert got.dtype == pdt.int32
                np.testing.assert_array_equal(host(got), want)
        exact = a.astype(np.int64)
        for got, want in ((x < s, exact < s), (x == s, exact == s), (x >= s, exact >= s)):
            np.testing.assert_array_equal(host(got), want)
    with pytest.raises(ValueError, match="exponent 4294967296 cannot be converted to int32"):
        x ** 2**32
    with pytest.raises(ValueError, match="alpha=4294967297 does not fit in int32"):
        x.add(1, alpha=2**32 + 1)


def test_int32_creation_raises_like_full(device):
    with pytest.raises(ValueError, match=OVERFLOW):
        pdt.full((2,), 2**31, dtype=pdt.int32, device=device)
    cases = [
        ("arange", lambda: pdt.arange(2**31 - 2, 2**31 + 2, dtype=pdt.int32, device=device),
         r"arange: the value 2147483649 \(element 3 of 4, on \S+\) " + OVERFLOW),
        ("arange", lambda: pdt.arange(-2**31 - 1, 0, 2**20, dtype=pdt.int32, device=device),
         r"arange: the value -2147483649 \(element 0 of "),
        ("arange", lambda: pdt.arange(0.0, 4e9, 1e9, dtype=pdt.int32, device=device), OVERFLOW),
        ("linspace", lambda: pdt.linspace(0, 3e9, 4, dtype=pdt.int32, device=device),
         r"linspace: the value 3000000000 \(element 3 of 4"),
        ("linspace", lambda: pdt.linspace(-3e9, 0, 2, dtype=pdt.int32, device=device), OVERFLOW),
        ("randint", lambda: pdt.randint(0, 2**33, (3,), dtype=pdt.int32, device=device),
         r"randint: the value 8589934591 \(high - 1\) " + OVERFLOW),
        ("randint", lambda: pdt.randint(-2**31 - 1, 0, (3,), dtype=pdt.int32, device=device),
         r"randint: the value -2147483649 \(low\) " + OVERFLOW),
    ]
    for name, make_it, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            make_it()
    # int64 ends: 2**63 does not fit either.
    with pytest.raises(ValueError, match="cannot be converted to int64 without overflow"):
        pdt.arange(0, 2.0**63 + 2**12, 2.0**62, dtype=pdt.int64, device=device)


def test_a_float_an_integer_dtype_cannot_hold_is_refused_by_fills(device):
    """As PyTorch: fill_, full and masked_fill refuse NaN, infinities and floats past
    the integer dtype's range (tensors cast with .to() saturate: Note [float to int]),
    and truncate the others toward zero; nothing is written before the refusal."""
    for dtype, name in ((pdt.int32, "int32"), (pdt.int64, "int64")):
        for v in (float("nan"), float("inf"), -float("inf"), 1e30):
            x = pdt.ones(3, dtype=dtype, device=device)
            for make_it in (lambda: x.fill_(v), lambda: pdt.full((2,), v, dtype=dtype,
                                                                  device=device),
                            lambda: x.masked_fill(x > 0, v)):
                with pytest.raises(ValueError, match=f"cannot be converted to {name} without "
                                                     "overflow"):
                    make_it()
            assert host(x).tolist() == [1, 1, 1]
        x = pdt.zeros(3, dtype=dtype, device=device)
        assert host(x.fill_(-2.9)).tolist() == [-2, -2, -2]
        assert host(x.masked_fill(pdt.tensor([True, False, True], device=device), 2.7)).tolist() \
            == [2, -2, 2]
    with pytest.raises(ValueError, match="the value 3e[+]09 cannot be converted to int32"):
        pdt.zeros(2, dtype=pdt.int32, device=device).fill_(3e9)
    assert host(pdt.zeros(2, dtype=pdt.bool, device=device).fill_(float("nan"))).tolist() == \
        [True, True]


def test_int32_creation_at_the_edges_of_the_range(device):
    r = pdt.arange(2**31 - 3, 2**31, dtype=pdt.int32, device=device)
    assert host(r).tolist() == [2**31 - 3, 2**31 - 2, 2**31 - 1]
    r = pdt.arange(-2**31, -2**31 + 2, dtype=pdt.int32, device=device)
    assert host(r).tolist() == [-2**31, -2**31 + 1]
    r = pdt.linspace(-2**31, 2**31 - 1, 3, dtype=pdt.int32, device=device)
    assert host(r).tolist() == [-2**31, 0, 2**31 - 1]
    r = pdt.randint(-2**31, 2**31, (64,), dtype=pdt.int32, device=device)
    assert r.dtype == pdt.int32 and len(set(host(r).tolist())) > 1
    assert host(pdt.randint(2**31 - 1, 2**31, (4,), dtype=pdt.int32,
                            device=device)).tolist() == [2**31 - 1] * 4


# ---------------------------------------------------------------- byte order


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_tensor_converts_a_big_endian_array(device, dtype):
    native = (np.arange(12).reshape(3, 4) * 3 - 7).astype(dtype)
    big = native.astype(np.dtype(dtype).newbyteorder(">"))
    for a in (big, big[:, ::2], big.T):
        ref = a.astype(dtype)
        for got in (pdt.tensor(a, device=device), pdt.as_tensor(a, device=device),
                    pdt.tensor(a, dtype=pdt.float64, device=device)):
            assert tuple(got.shape) == ref.shape
            assert host(got).tolist() == ref.tolist()
        assert pdt.tensor(a, device=device).dtype.name == dtype
    with pytest.raises(ValueError, match=r"from_numpy\(\): the array is stored in the other "
                                         r"byte order .*use pydevtensor.tensor\(a\) or "
                                         r"as_tensor\(a\), which convert it"):
        pdt.from_numpy(big)  # ValueError, as PyTorch's from_numpy of a byte-swapped array


@pytest.mark.parametrize("src,want", [("uint16", "int32"), ("uint32", "int64"),
                                      ("uint64", "int64"), (">u2", "int32"),
                                      (">i2", "int16")])
def test_tensor_widens_integer_dtypes_pydevtensor_lacks(device, src, want):
    """tensor() and as_tensor() of a uint16 ... uint64 array: the narrowest dtype that
    holds every value of the array's dtype (uint64: int64 when the values fit), exact,
    strided too; dtype= converts it (pixels to float32); from_numpy() cannot share it and
    says so.  (uint8, int8 and int16 arrays keep their dtype: tests/test_small_int.py.)"""
    info = np.iinfo(np.dtype(src))
    hi = min(int(info.max), 2**62)
    native = np.array([[int(info.min), 0, 1], [hi, 7, hi - 1]], dtype=np.dtype(src))
    for a in (native, native[:, ::2], native.T):
        for got in (pdt.tensor(a, device=device), pdt.as_tensor(a, device=device)):
            assert got.dtype.name == want and got.device == pdt.device(device)
            assert host(got).tolist() == a.tolist()
        f = pdt.tensor(a, dtype=pdt.float64, device=device)
        np.testing.assert_array_equal(host(f), a.astype(np.float64))
    if np.dtype(src).kind == "u" and np.dtype(src).itemsize == 8:
        huge = np.array([2**64 - 1], np.uint64)
        with pytest.raises(OverflowError, match="does not fit in int64"):
            pdt.tensor(huge, device=device)
        assert host(pdt.tensor(huge, dtype=pdt.float64, device=device)).tolist() == [2.0**64]
        odd = np.array([2**63 + 2**39 + 1], np.uint64)  # rounded once, as NumPy does
        assert host(pdt.tensor(odd, dtype=pdt.float32, device=device)).tolist() == \
            odd.astype(np.float32).tolist()
        assert host(pdt.tensor(huge, dtype=pdt.bool, device=device)).tolist() == [True]
    scalar = np.dtype(src).type(1)  # a NumPy scalar: as its 0-d array
    assert host(pdt.tensor(scalar, device=device)).tolist() == 1
    swapped = np.dtype(src).byteorder == ">"  # refused for its byte order first, as PyTorch
    why = "stored in the other byte order" if swapped else \
        rf"pydevtensor has no {np.dtype(src).name} dtype"
    with pytest.raises(ValueError if swapped else TypeError,
                       match=rf"from_numpy\(\): (the array is )?{why}"):
        pdt.from_numpy(native)


def test_pixels_to_float32(device):
    """D2L's images: uint8 pixels to float32 in [0, 1]."""
    img = np.arange(0, 256, 5, dtype=np.uint8).reshape(-1, 1)
    x = pdt.tensor(img, dtype=pdt.float32, device=device) / 255
    np.testing.assert_allclose(host(x), img.astype(np.float64) / 255, rtol=1e-7)


# ---------------------------------------------------------------- empty from NumPy


EMPTY_SHAPES = [(3, 0), (2, 0, 3), (0, 3), (0,), (4, 0)]


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
@pytest.mark.parametrize("make", ["from_numpy", "as_tensor", "slice"])
def test_in_place_and_out_on_empty_tensors_from_numpy(device, shape, make):
    a = np.zeros(shape, np.float32)
    if make == "slice":
        a = np.zeros(tuple(s or 4 for s in shape), np.float32)[tuple(
            slice(0, 0) if s == 0 else slice(None) for s in shape)]
    t = pdt.from_numpy(a) if make == "from_numpy" else pdt.as_tensor(a)
    t = t.to(device)
    other = pdt.ones(*shape, device=device)
    results = [t.add_(1), t.sub_(other, alpha=2), t.mul_(t), t.clamp_(0, 1), t.clamp_(min=other),
               pdt.add(t, 1, out=t), pdt.mul(other, 2, out=t), pdt.exp(other, out=t),
               pdt.clamp(other, 0, 1, out=t), t.fill_(2), t.copy_(other), t.zero_()]
    for r in results:
        assert tuple(r.shape) == shape and host(r).size == 0
    assert host(t).shape == shape


# ---------------------------------------------------------------- internal overlap


def overlapping_rows():
    base = np.arange(10, dtype=np.float32)
    return base, np.lib.stride_tricks.as_strided(base, (3, 4), (4, 4), writeable=True)


OVERLAP = (r"more than one element of the written-to tensor refers to a single memory "
           r"location \(shape \(3, 4\) with strides \(1, 1\) on cpu: its elements overlap")


@pytest.mark.parametrize("make", ["from_numpy", "as_tensor"])
def test_writes_into_overlapping_rows_are_refused(make):
    base, a = overlapping_rows()
    t = getattr(pdt, make)(a)
    other = pdt.ones(3, 4)
    for write in (lambda: t.add_(1), lambda: t.mul_(other), lambda: t.clamp_(0, 1),
                  lambda: pdt.add(other, 1, out=t), lambda: pdt.exp(other, out=t),
                  lambda: t.sub_(other, alpha=2)):
        with pytest.raises(ValueError, match=OVERLAP):
            write()
    with pytest.raises(ValueError, match=r"copy_: unsupported operation: more than one element "
                                         r"of the written-to tensor .*strides \(1, 1\)"):
        t.copy_(pdt.arange(12.0).reshape(3, 4))
    assert base.tolist() == list(range(10))  # nothing was written
    # Reading is fine, and gives what NumPy reads.
    assert host(t + 1).tolist() == (a + 1).tolist()
    assert host(t.sum(0)).tolist() == a.sum(0).tolist()


def test_views_that_do_not_overlap_stay_writable(device):
    x = pdt.zeros(4, 6, device=device)
    for v in (x.t(), x[:, ::2], x[1:3], x.reshape(2, 12), x[:, 1:2], x[::2, ::3]):
        v.add_(1)
    a = np.zeros((4, 6), np.float32)
    for v in (a.T, a[:, ::2], a[1:3], a.reshape(2, 12), a[:, 1:2], a[::2, ::3]):
        v += 1
    assert host(x).tolist() == a.tolist()
    # Non-overlapping as_strided views from NumPy, too.
    base = np.zeros(12, np.float32)
    v = np.lib.stride_tricks.as_strided(base, (3, 2), (16, 4), writeable=True)
    pdt.from_numpy(v).add_(2)
    assert base.tolist() == [2, 2, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0]


def test_a_bool_tensor_to_a_bool_power(device):
    """As PyTorch's: x ** True is x and x ** False all True (x to the power 1 and 0, in
    bool), in every form, also strided and in place; two bool tensors, or a bool number
    to a bool tensor's power, are refused, as PyTorch's."""
    a = np.array([True, False, False, True, True])
    x = pdt.tensor(a, device=device)
    for e, want in ((True, a), (False, np.ones_like(a))):
        for got in (x ** e, pdt.pow(x, e), x.pow(e), x.clone().pow_(e)):
            assert got.dtype == pdt.bool
            np.testing.assert_array_equal(host(got), want)
        np.testing.assert_array_equal(host(x[::2] ** e), want[::2])
        out = pdt.full((5,), 7, dtype=pdt.int64, device=device)
        np.testing.assert_array_equal(host(pdt.pow(x, e, out=out)), want.astype(np.int64))
    np.testing.assert_array_equal(host(x ** 2), a.astype(np.int64))  # ints promote
    for make_it in (lambda: x ** x, lambda: True ** x):
        with pytest.raises(TypeError, match="not supported for two bool operands"):
            make_it()
