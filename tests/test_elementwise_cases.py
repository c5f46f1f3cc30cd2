"""Elementwise ops (issue 4), the exact cases and the error table: floor division and
remainder signs, integer wrapping, float specials, powers (squares and square roots
with the bits of the product and of sqrt), the promotion table, operators, NumPy
scalars, zero-size and large tensors, and the errors each op raises (the property
tests against NumPy are in test_elementwise.py, whose reference helpers this file
uses).  Integer and bool results are exact; floats as stated per test.
"""
import math
import operator

import numpy as np
import pytest

import pydevtensor as pdt
from test_elementwise import CATEGORY, GPU_DEVICES, check, same_bits, t, values_of

# ---------------------------------------------------------------- exact cases


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_floor_division_and_remainder_signs(device, dtype):
    a = t([7, -7, 7, -7, 0], device, dtype)
    b = t([2, 2, -2, -2, 3], device, dtype)
    assert values_of(a // b) == [3, -4, -4, 3, 0]
    assert values_of(a % b) == [1, 1, -1, -1, 0]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_by_minus_one_wraps(device, dtype):
    # Note [integer division by zero]: MIN // -1 wraps, as NumPy's (a zero divisor:
    # tests/test_integer_division_by_zero.py)
    a = t([5, -5, 0, np.iinfo(dtype).min], device, dtype)
    minus_one = t([-1] * 4, device, dtype)
    low = np.iinfo(dtype).min
    assert values_of(a // minus_one) == [-5, 5, 0, low]  # MIN // -1 wraps
    assert values_of(a % minus_one) == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_overflow_wraps(device, dtype):
    info = np.iinfo(dtype)
    a = t([info.max, info.min, info.min], device, dtype)
    assert values_of(a + 1) == [info.min, info.min + 1, info.min + 1]
    assert values_of(a * 2) == (a.cpu().numpy() * np.array(2, dtype)).tolist()
    assert values_of(-a) == [-info.max, info.min, info.min]
    assert values_of(abs(a)) == [info.max, info.min, info.min]


def test_float_specials(device):
    nan, inf = math.nan, math.inf
    a = t([1.0, -1.0, 0.0, nan, 2.0], device, "float32")
    b = t([0.0, 0.0, 0.0, 1.0, nan], device, "float32")
    got = values_of(a / b)
    assert got[:2] == [inf, -inf] and math.isnan(got[2]) and math.isnan(got[3])
    got = values_of(a // b)
    assert got[:2] == [inf, -inf] and all(math.isnan(v) for v in got[2:])
    assert all(math.isnan(v) for v in values_of(a % b)[:4])
    mx, mn = values_of(pdt.maximum(a, b)), values_of(pdt.minimum(a, b))
    assert mx[:3] == [1.0, 0.0, 0.0] and math.isnan(mx[3]) and math.isnan(mx[4])
    assert mn[:3] == [0.0, -1.0, 0.0] and math.isnan(mn[3]) and math.isnan(mn[4])
    r = values_of(pdt.relu(a))
    assert r[:3] == [1.0, 0.0, 0.0] and math.isnan(r[3])
    c = values_of(a.clamp(-0.5, 0.5))
    assert c[:3] == [0.5, -0.5, 0.0] and math.isnan(c[3]) and c[4] == 0.5
    assert values_of(t([3.0], device).clamp(2.0, 1.0)) == [1.0]  # min > max gives max
    assert values_of(a == a) == [True, True, True, False, True]
    assert values_of(a != a) == [False, False, False, True, False]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_float_times_a_mask_has_the_bits_of_casting_the_mask_first(device, dtype):
    # Note [a float times a mask] in csrc/core/pdt_elementwise.c: the CPU reads the
    # mask's bytes in the multiply; every layout, both orders, in place and out=
    # must give NumPy's bits for g * mask.astype(dtype), NaN, infinities and -0 too.
    rng = np.random.default_rng(5)
    g = rng.standard_normal((70, 300)).astype(dtype)
    g[0, :5] = [math.nan, math.inf, -math.inf, -1.5, -0.0]
    keep = rng.random((70, 300)) < 0.5
    keep[0, :5] = False
    G, M = pdt.from_numpy(g).to(device), pdt.from_numpy(keep).to(device)

    with np.errstate(invalid="ignore"):
        mask = keep.astype(dtype)
        assert same_bits(G * M, g * mask) and same_bits(M * G, mask * g)
        assert same_bits(G.T * M.T, (g * mask).T)
        assert same_bits(G[:, ::3] * M[:, ::3], g[:, ::3] * mask[:, ::3])
        assert same_bits(G * M[5], g * mask[5]) and same_bits(M[:, :1] * G, mask[:, :1] * g)
        out = pdt.empty(70, 300, dtype=dtype, device=device)
        pdt.mul(G, M, out=out)
        assert same_bits(out, g * mask)
        inplace = G.clone()
        inplace.mul_(M)
        assert same_bits(inplace, g * mask)
    assert [math.copysign(1, v) for v in values_of(G[0, 3:5] * M[0, 3:5])] == [-1, -1]


def test_integer_powers(device):
    base = t([2, -3, 1, -1, -1, 0, 5], device, "int64")
    assert values_of(base ** 3) == [8, -27, 1, -1, -1, 0, 125]
    assert values_of(2 ** t([0, 1, 10], device, "int32")) == [1, 2, 1024]
    exp = t([-1, -2, -3, -3, -2, -1, 0], device, "int64")
    assert values_of(base ** exp) == [0, 0, 1, -1, 1, 0, 1]  # Note [integer powers]
    with pytest.raises(ValueError, match="negative integer powers"):
        base ** -1
    assert values_of(base.float() ** -1)[0] == 0.5


PROMOTION = [
    # (lhs, rhs, expected), where a string is a 1-d tensor of that dtype, ("0d", dtype)
    # a 0-dim tensor, and anything else a Python scalar
    ("float32", 2.0, "float32"),
    ("int32", 1, "int32"),
    ("int32", 1.5, "float32"),
    ("int64", 1.5, "float32"),
    ("bool", True, "bool"),
    ("bool", 1, "int64"),
    ("bool", 1.5, "float32"),
    ("int32", "int64", "int64"),
    ("int64", "float32", "float32"),
    ("float32", "float64", "float64"),
    ("bool", "int32", "int32"),
    ("int32", ("0d", "int64"), "int32"),
    ("float32", ("0d", "float64"), "float32"),
    ("int32", ("0d", "float64"), "float64"),
    ("bool", ("0d", "int64"), "int64"),
    (("0d", "int32"), ("0d", "int64"), "int64"),
    (("0d", "int32"), 2.5, "float32"),
]


@pytest.mark.parametrize("lhs,rhs,expected", PROMOTION)
def test_promotion_table(device, lhs, rhs, expected):
    def make(spec):
        if isinstance(spec, str):
            return pdt.ones(2, dtype=spec, device=device)
        if isinstance(spec, tuple):
            return pdt.tensor(np.ones((), dtype=spec[1]), device=device)
        return spec
    x, y = make(lhs), make(rhs)
    assert (x + y).dtype.name == expected
    assert (y + x).dtype.name == expected
    assert (x * y).dtype.name == expected
    assert (x < y).dtype.name == "bool"
    assert (x / y).dtype.name == (expected if CATEGORY[expected] == 2 else "float32")


def test_reflected_and_unary_operators(device):
    x = t([1.0, 2.0, 4.0], device, "float32")
    assert values_of(2 * x) == [2, 4, 8] and values_of(1 - x) == [0, -1, -3]
    assert values_of(8 / x) == [8, 4, 2] and values_of(9 // x) == [9, 4, 2]
    assert values_of(5 % x) == [0, 1, 1] and values_of(2 ** x) == [2, 4, 16]
    assert values_of(-x) == [-1, -2, -4] and values_of(abs(-x)) == [1, 2, 4]
    assert (+x) is x
    assert values_of(1 < x) == [False, True, True] and values_of(2 == x) == [False, True, False]
    assert values_of(x.add(1, alpha=2)) == [3, 4, 6]
    assert values_of(pdt.sub(x, x, alpha=0.5)) == [0.5, 1, 2]
    assert values_of(x.div(3, rounding_mode="floor")) == [0, 0, 1]
    assert values_of(pdt.pow(2, x)) == [2, 4, 16]
    assert values_of(x.sigmoid() > 0.5) == [True] * 3
    bounds = t([2.0, 0.0, 5.0], device)
    assert values_of(pdt.clamp(x, min=bounds, max=3.0)) == [2, 2, 3]
    assert values_of(x.clamp(max=bounds)) == [1, 0, 4]


def test_numpy_scalars_and_arrays():
    x = pdt.tensor([1.0, 2.0])
    assert (x + np.float32(1)).dtype == pdt.float32
    assert (x * np.int64(2)).dtype == pdt.float32
    assert (pdt.tensor([1, 2], dtype="int32") + np.int64(1)).dtype == pdt.int32
    assert (pdt.tensor([True]) + np.bool_(True)).dtype == pdt.bool
    assert values_of(x - np.float64(3)) == [-2, -1]
    # a NumPy array: Tensor gives NotImplemented, NumPy calls __array_ufunc__, which
    # makes the array a CPU tensor (tests/test_numpy_operators.py)
    if x.device.type == "cpu":
        assert isinstance(x + np.ones(2), pdt.Tensor)
    with pytest.raises(TypeError):
        x + "1"
    assert (x == None) is False  # noqa: E711  identity comparison, as in PyTorch


def test_python_subclass_keeps_the_operators(device):
    class Param(pdt.Tensor):
        pass
    p = Param(t([1.0, 2.0], device))
    assert values_of(p + 1) == [2, 3] and values_of(2 * p) == [2, 4]
    assert values_of(p.add(p)) == [2, 4] and values_of(p == 1) == [True, False]
    p += 1
    assert values_of(p) == [2, 3] and type(p) is Param


def test_tensors_stay_hashable():
    x, y = pdt.ones(2), pdt.ones(2)
    assert len({x, y}) == 2 and {x: 1}[x] == 1 and hash(x) == hash(x)


def test_zero_size_and_large(device):
    z = pdt.zeros((0, 3), device=device)
    assert (z + t([1.0, 2.0, 3.0], device)).shape == (0, 3)
    assert pdt.exp(z).shape == (0, 3) and (z < 1).shape == (0, 3)
    # > 64K elements: the GIL is released and the CPU splits the work over threads
    a = np.arange(300_000, dtype=np.float32).reshape(600, 500) % 7
    b = np.arange(500, dtype=np.float32)
    c = np.arange(600, dtype=np.float32).reshape(600, 1)
    x = pdt.tensor(a, device=device)
    check(x * pdt.tensor(b, device=device) + 1.5, a.astype(np.float64) * b + 1.5, "float32")
    check(pdt.tensor(c, device=device) - pdt.tensor(b, device=device), c - b, "float32")
    check(pdt.sqrt(x), np.sqrt(a.astype(np.float64)), "float32")


# ---------------------------------------------------------------- errors

ERRORS = [
    # (expression, exception, message pattern)
    (lambda d: pdt.ones(2, 3, device=d) + pdt.ones(4, device=d), ValueError,
     r"add: .*\(2, 3\) and \(4,\) cannot be broadcast"),
    (lambda d: pdt.maximum(pdt.ones(3, device=d), pdt.ones(2, 1, 2, device=d)), ValueError,
     r"maximum: .*\(3,\) and \(2, 1, 2\)"),
    (lambda d: pdt.ones(3, dtype="int64", device=d).add_(1.5), TypeError,
     "add_: result type float32 can't be cast to the desired output type int64"),
    (lambda d: pdt.ones(3, dtype="int32", device=d).exp_(), TypeError,
     "exp_: result type float32 can't be cast to the desired output type int32"),
    (lambda d: pdt.ones(3, dtype="bool", device=d).add_(2), TypeError,
     "result type int64 can't be cast to the desired output type bool"),
    (lambda d: pdt.ones(3, dtype="bool", device=d) - True, TypeError, "sub: .*bool"),
    (lambda d: -pdt.ones(3, dtype="bool", device=d), TypeError, "neg: .*bool"),
    (lambda d: pdt.ones(3, dtype="int32", device=d) ** 2**40, ValueError,
     "exponent 1099511627776 cannot be converted to int32"),
    (lambda d: pdt.ones(3, dtype="int32", device=d) ** -2, ValueError,
     "negative integer powers"),
    (lambda d: pow(pdt.ones(3, device=d), 2, 5), TypeError, "modulo"),
    (lambda d: pdt.add(1, 2), TypeError, "must be a Tensor"),
    (lambda d: pdt.add(pdt.ones(3, device=d), "x"), TypeError, "argument 'other'"),
    (lambda d: pdt.exp([1.0]), TypeError, "argument 'input' must be a Tensor"),
    (lambda d: pdt.clamp(pdt.ones(3, device=d)), ValueError, "at least one of 'min' or 'max'"),
    (lambda d: pdt.div(pdt.ones(3, device=d), 2, rounding_mode="round"), ValueError,
     "rounding_mode must be None, 'floor' or 'trunc', got 'round'"),
    (lambda d: pdt.ones(3, device=d).fill_(pdt.ones(2, device=d)), RuntimeError,
     "fill_ only supports 0-dimension value tensor"),
]


@pytest.mark.parametrize("expr,exc,pattern", ERRORS, ids=range(len(ERRORS)))
def test_errors(device, expr, exc, pattern):
    with pytest.raises(exc, match=pattern):
        expr(device)


def test_failed_in_place_leaves_output_untouched(device):
    x = t([1, 2, 3], device, "int64")
    with pytest.raises(TypeError):
        x += t([0.5, 0.5, 0.5], device)
    with pytest.raises(ValueError):
        x += pdt.ones(2, 3, dtype="int64", device=device)
    assert values_of(x) == [1, 2, 3]


@pytest.mark.cuda
@pytest.mark.parametrize("gpu", GPU_DEVICES)
def test_device_mismatch_names_both_devices_and_the_op(gpu):
    x, y = pdt.ones(3), pdt.ones(3, device=gpu)
    for expr, op in [(lambda: x + y, "add"), (lambda: pdt.maximum(y, x), "maximum"),
                     (lambda: y.mul_(x), "mul_"), (lambda: pdt.exp(y, out=x), "exp"),
                     (lambda: x.add_(y), "add_"),
                     (lambda: pdt.clamp(y, min=x), "clamp")]:
        with pytest.raises(RuntimeError, match=rf"found at least two devices.*in {op}:"):
            expr()
    try:
        x + y
    except RuntimeError as e:
        assert "cpu" in str(e) and gpu in str(e)
    # a 0-dim CPU tensor is not moved to the GPU for you (unlike PyTorch)
    with pytest.raises(RuntimeError, match="two devices"):
        y * pdt.tensor(2.0)
    assert (y * 2.0).device == y.device  # a Python scalar is fine anywhere


@pytest.mark.cuda
@pytest.mark.parametrize("gpu", GPU_DEVICES)
def test_gpu_strided_and_unaligned_paths_match_cpu(gpu):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((33, 17)).astype(np.float32)
    b = rng.standard_normal((17,)).astype(np.float32)
    x, y = pdt.tensor(a, device=gpu), pdt.tensor(b, device=gpu)
    xc, yc = pdt.tensor(a), pdt.tensor(b)
    for op in (operator.add, operator.mul, operator.floordiv, operator.mod, pdt.maximum):
        np.testing.assert_array_equal(op(x, y).cpu().numpy(), op(xc, yc).numpy())
    # x[1] starts 17 floats in: contiguous but not 16-byte aligned
    np.testing.assert_array_equal((x[1] + y).cpu().numpy(), (xc[1] + yc).numpy())
    np.testing.assert_array_equal((x[1] - 1).cpu().numpy(), (xc[1] - 1).numpy())


def test_op_cycles_leave_accounting_and_refcounts_flat():
    import sys
    x, y = pdt.ones(3, 4), pdt.ones(4, dtype="int32")
    out, i = pdt.empty(3, 4, dtype="float64"), pdt.ones(4, dtype="int64")

    def cycle():
        r = [x + y, 2 * x, x / y, x < 1.5, pdt.exp(y), pdt.clamp(x, min=y), x.add(y, alpha=2),
             pdt.mul(x, y, out=out), x.clone().add_(y), -y, x.clamp(0, 1)]
        for bad in (lambda: x + pdt.ones(5), lambda: i.add_(0.5), lambda: x + "s",
                    lambda: y ** -1, lambda: pdt.add(x, x, out=pdt.empty(2))):
            try:
                bad()
            except (TypeError, ValueError):
                pass
        del r

    for _ in range(200):
        cycle()
    refs = [sys.getrefcount(o) for o in (x, y, out, i)]
    allocated = pdt.memory_allocated("cpu")
    for _ in range(1000):
        cycle()
    assert pdt.memory_allocated("cpu") == allocated
    assert [sys.getrefcount(o) for o in (x, y, out, i)] == refs


def assert_out_and_in_place_powers(x, exponent, want):
    out = pdt.empty(*x.shape, dtype=x.dtype, device=x.device)
    pdt.pow(x, exponent, out=out)
    assert same_bits(out, want)
    inplace = x.clone()
    inplace.pow_(exponent)
    assert same_bits(inplace, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_a_square_has_the_bits_of_the_product(device, dtype):
    # Note [squares] in csrc/core/pdt_elementwise.c: x ** 2 is computed as x * x on
    # every device; the bits must be NumPy's x * x (the correctly rounded square, what
    # a correctly rounded pow gives), the special values and integer wrap-around too,
    # in every layout and form.
    rng = np.random.default_rng(11)
    if dtype.startswith("float"):
        a = (rng.standard_normal((40, 50)) * 10.0 ** rng.integers(-30, 30, (40, 50)))
        a = a.astype(dtype)
        a[0, :8] = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e30, -1e-30, 3.0]
    else:
        a = rng.integers(-100000, 100000, (40, 50)).astype(dtype)
        a[0, :3] = [np.iinfo(dtype).max, np.iinfo(dtype).min, -3]
    x = pdt.from_numpy(a).to(device)

    with np.errstate(all="ignore"):
        sq = a * a
        assert same_bits(x ** 2, sq) and same_bits(x.pow(2), sq)
        assert same_bits(pdt.pow(x, 2.0 if dtype.startswith("float") else 2), sq)
        assert same_bits(x.T ** 2, sq.T) and same_bits(x[:, ::3] ** 2, sq[:, ::3])
        assert_out_and_in_place_powers(x, 2, sq)
        if dtype == "float32":
            # a float exponent on an integer tensor: the square in float32
            i = pdt.from_numpy(np.arange(-5, 5, dtype=np.int32)).to(device)
            assert same_bits(i ** 2.0, np.arange(-5, 5).astype(np.float32) ** 2)
    assert math.copysign(1, values_of(x[0, 3:4] ** 2)[0]) == 1  # (-0) ** 2 is +0
    # other exponents are still powers
    if dtype.startswith("float"):
        b = np.abs(a[1:3]) + 0.5
        check(pdt.from_numpy(b).to(device) ** 3, b.astype(np.float64) ** 3, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_a_power_of_one_half_is_the_square_root(device, dtype):
    # Note [squares]: x ** 0.5 is sqrt(x), as NumPy and PyTorch special-case it:
    # NumPy's bits, sqrt's special values ((-inf) ** 0.5 is NaN, where C's pow gives
    # +inf; (-0.0) ** 0.5 is -0.0), every layout, out= and in place; a tensor exponent
    # stays a power
    rng = np.random.default_rng(17)
    if dtype == "int64":
        a = rng.integers(0, 10 ** 6, (30, 40))
        want = np.sqrt(a.astype(np.float32))
    else:
        a = (rng.random((30, 40)) * 10.0 ** rng.integers(-20, 20, (30, 40))).astype(dtype)
        a[0, :6] = [-np.inf, -0.0, 0.0, np.inf, np.nan, -2.0]
        with np.errstate(invalid="ignore"):
            want = np.sqrt(a)
    x = pdt.from_numpy(a).to(device)
    assert same_bits(x ** 0.5, want) and same_bits(pdt.pow(x, 0.5), want)
    assert same_bits(x.T ** 0.5, want.T) and same_bits(x[:, ::3] ** 0.5, want[:, ::3])
    if dtype != "int64":
        assert math.copysign(1, values_of(x[0, 1:2] ** 0.5)[0]) == -1
        assert_out_and_in_place_powers(x, 0.5, want)
        halves = pdt.full((30, 40), 0.5, dtype=dtype, device=device)
        power = values_of(x[0, :1] ** halves[0, :1])[0]  # a tensor exponent: C's pow
        assert power == math.inf
