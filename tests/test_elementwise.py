"""Elementwise ops (issue 4): binary ops with broadcasting and scalars, comparisons,
unary ops, dtype promotion, the in-place and out= forms, and the error table.

References are NumPy.  Floating results are compared with NumPy in float64 on the
inputs cast to the compute dtype, the reference then rounded to the result dtype,
with |got - ref| <= atol + rtol * |ref| where
    float32: atol = rtol = 2e-6 (a few float32 ulp: libm and CUDA's exp/sin/pow are
             within 1-2 ulp, the arithmetic ops are exact after rounding);
    float64: atol = rtol = 1e-12.
Equal infinities and NaN in the same places count as equal.  Integer and bool
results must be exact.  Floor division and remainder of floats are compared with
NumPy computing in the compute dtype itself (NumPy and we both use Python's
algorithm; in float64 a quotient on an integer boundary may round differently).
"""
import math
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pydevtensor as pdt
from conftest import CUDA_DEVICES, DTYPES

GPU_DEVICES = CUDA_DEVICES or ["cuda:0"]
TOL = {"float32": (2e-6, 2e-6), "float64": (1e-12, 1e-12)}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

# ---------------------------------------------------------------- the reference

CATEGORY = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}


def expected_compute_dtype(operands):
    """PyTorch's promotion, stated independently of the C code: the highest
    category among all operands wins; within it, the highest-priority group present
    (tensors with dims > 0-dim tensors > Python scalars) gives the dtype: the
    widest of its tensors, or for scalars the default (float32, int64, bool).

    operands: ("dim" | "zero", dtype name) or ("scalar", python value)."""
    def dtype_of(kind, v):
        if kind != "scalar":
            return v
        return "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float32"
    top = max(CATEGORY[dtype_of(*o)] for o in operands)
    for group in ("dim", "zero", "scalar"):
        found = [dtype_of(k, v) for k, v in operands if k == group and
                 CATEGORY[dtype_of(k, v)] == top]
        if found:
            return max(found, key=DTYPES.index)
    raise AssertionError("no operands")


def kind_of(x):
    if isinstance(x, np.ndarray):
        return ("dim" if x.ndim else "zero", x.dtype.name)
    return ("scalar", x)


def is_bool(x):
    return isinstance(x, bool) or isinstance(x, np.ndarray) and x.dtype == np.bool_


def as_tensor(x, device):
    return pdt.tensor(x, device=device) if isinstance(x, np.ndarray) else x


def as_array(x, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dtype)


def check(got, ref, dtype):
    """got: a Tensor; ref: NumPy values (any dtype) of the expected result."""
    assert isinstance(got, pdt.Tensor)
    assert got.dtype.name == dtype, (got.dtype, dtype)
    g = got.cpu().numpy()
    with np.errstate(all="ignore"):
        r = np.asarray(ref).astype(dtype)
    assert g.shape == r.shape, (g.shape, r.shape)
    if dtype not in TOL:
        np.testing.assert_array_equal(g, r)
        return
    atol, rtol = TOL[dtype]
    g64, r64 = g.astype(np.float64), r.astype(np.float64)
    with np.errstate(all="ignore"):
        ok = (g64 == r64) | (np.isnan(g64) & np.isnan(r64))
        ok |= np.abs(g64 - r64) <= atol + rtol * np.abs(r64)
    assert ok.all(), f"got {g64[~ok][:5]}, expected {r64[~ok][:5]}"


def t(values, device, dtype=None):
    return pdt.tensor(np.asarray(values, dtype=dtype), device=device)


def same_bits(got, want):
    """got (a Tensor on any device) has want's dtype and bytes, a NaN matching any NaN.

    Which NaN an arithmetic operation returns is not fixed: IEEE 754-2019 6.2.3 only
    recommends keeping an input's payload, and CUDA returns 0x7fffffff for every float32
    operation with a NaN input (CUDA C++ Programming Guide, "Floating-Point Standard"),
    where x86 keeps the input's bits or gives 0xffc00000.  Every other value, -0.0 and
    subnormals included, must match bit for bit.  (Sign-bit operations, whose NaN bits
    IEEE 754 does fix, are checked by their own tests.)"""
    got = np.ascontiguousarray(got.cpu().numpy())
    want = np.ascontiguousarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "fc":
        nan = np.isnan(want)
        if not np.array_equal(np.isnan(got), nan):
            return False
        got, want = got[~nan], want[~nan]
    return np.array_equal(got.view(np.uint8), want.view(np.uint8))


def values_of(x):
    return x.cpu().numpy().tolist()


# ---------------------------------------------------------------- strategies

SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf]


def elements(dtype, small=False):
    if dtype == "bool":
        return st.booleans()
    if dtype in ("int32", "int64"):
        return st.integers(-6, 6) if small else st.integers(-50, 50)
    width = 32 if dtype == "float32" else 64
    bound = 6 if small else 100
    return st.one_of(st.floats(-bound, bound, width=width), st.sampled_from(SPECIAL))


def scalars(small=False):
    bound = 6 if small else 50
    return st.one_of(st.booleans(), st.integers(-bound, bound),
                     st.floats(-bound, bound) | st.sampled_from(SPECIAL))


@st.composite
def operand_pairs(draw, small=False):
    """Two operands: arrays of broadcastable shapes (0-d and zero-size included) or a
    Python scalar on one side."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                    min_side=0, max_side=4)).input_shapes
    da, db = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    a = draw(hnp.arrays(da, shapes[0], elements=elements(da, small)))
    b = draw(hnp.arrays(db, shapes[1], elements=elements(db, small)))
    side = draw(st.sampled_from(["none", "left", "right"]))
    if side == "left":
        a = draw(scalars(small))
    elif side == "right":
        b = draw(scalars(small))
    return a, b


def trunc_divide(a, b):
    """div(rounding_mode='trunc'): trunc(a / b) in the operands' float dtype; for
    integers C's division, with x / 0 = 0 and MIN / -1 wrapping (Note [integer
    division by zero])."""
    a, b = np.broadcast_arrays(a, b)
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    q, r = np.floor_divide(a, b), np.remainder(a, b)
    q = q + ((r != 0) & ((a < 0) != (b < 0))).astype(q.dtype)
    return np.where(b == 0, 0, q).astype(a.dtype)


def div_trunc(x, y):
    return pdt.div(x, y, rounding_mode="trunc")


# name, Python operator (or a function of two tensors), NumPy reference
ARITHMETIC = [
    ("add", operator.add, np.add),
    ("sub", operator.sub, np.subtract),
    ("mul", operator.mul, np.multiply),
    ("true_divide", operator.truediv, np.true_divide),
    ("floor_divide", operator.floordiv, np.floor_divide),
    ("div_trunc", div_trunc, trunc_divide),
    ("remainder", operator.mod, np.remainder),
    ("maximum", None, np.maximum),
    ("minimum", None, np.minimum),
]
COMPARISONS = [
    ("eq", operator.eq, np.equal),
    ("ne", operator.ne, np.not_equal),
    ("lt", operator.lt, np.less),
    ("le", operator.le, np.less_equal),
    ("gt", operator.gt, np.greater),
    ("ge", operator.ge, np.greater_equal),
]
BOOL_REFUSED = {"sub", "floor_divide", "div_trunc", "remainder", "pow"}


def reference_binary(name, ref, a, b):
    """(result dtype, reference values), or (None, None) when the op must refuse."""
    compute = expected_compute_dtype([kind_of(a), kind_of(b)])
    if name == "true_divide" and CATEGORY[compute] < 2:
        compute = "float32"
    if compute == "bool" and name in BOOL_REFUSED:
        return None, None
    if name == "sub" and any(is_bool(x) for x in (a, b)):  # PyTorch's sub: a bool either side
        return None, None
    ac, bc = as_array(a, compute), as_array(b, compute)
    with np.errstate(all="ignore"):
        if CATEGORY[compute] == 2 and name not in ("floor_divide", "div_trunc", "remainder"):
            values = ref(ac.astype(np.float64), bc.astype(np.float64))
        else:
            values = ref(ac, bc)
    return ("bool" if ref in [c[2] for c in COMPARISONS] else compute), values


def divides_by_zero(name, dtype, a, b, device):
    """Whether an integer division must raise (Note [integer division by zero]): a zero
    divisor that needs no read-back, a scalar anywhere or a tensor on the CPU."""
    return (name in ("floor_divide", "div_trunc", "remainder") and CATEGORY[dtype] == 1
            and np.size(a) > 0 and np.size(b) > 0 and not np.all(b)
            and (not isinstance(b, np.ndarray) or pdt.device(device).type == "cpu"))


def run_binary(name, pyop, a, b, device):
    x, y = as_tensor(a, device), as_tensor(b, device)
    if pyop is not None:
        return pyop(x, y)
    return getattr(pdt, name)(x, y)


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize("name,pyop,ref", ARITHMETIC + COMPARISONS,
                         ids=[c[0] for c in ARITHMETIC + COMPARISONS])
@SETTINGS
@given(pair=operand_pairs())
def test_binary_matches_numpy(device, name, pyop, ref, pair):
    a, b = pair
    dtype, values = reference_binary(name, ref, a, b)
    if dtype is None:
        with pytest.raises(TypeError, match="bool"):
            run_binary(name, pyop, a, b, device)
        return
    if divides_by_zero(name, dtype, a, b, device):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            run_binary(name, pyop, a, b, device)
        return
    if dtype == "int32":
        for s in (a, b):  # int32 refuses scalars it cannot hold; ours are small
            assert not isinstance(s, int) or -2**31 <= s < 2**31
    check(run_binary(name, pyop, a, b, device), values, dtype)


def integer_power(a, b):
    """NumPy's power, and for negative exponents Note [integer powers]: what the real
    power truncates to (NumPy raises instead)."""
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(all="ignore"):
        positive = np.power(a, np.maximum(b, 0))
    negative = np.where(a == 1, 1, np.where(a == -1, 1 - 2 * (b & 1), 0)).astype(a.dtype)
    return np.where(b >= 0, positive, negative)


@SETTINGS
@given(pair=operand_pairs(small=True))
def test_pow_matches_numpy(device, pair):
    a, b = pair
    x, y = as_tensor(a, device), as_tensor(b, device)
    compute = expected_compute_dtype([kind_of(a), kind_of(b)])
    if compute == "bool" and isinstance(x, pdt.Tensor) and not isinstance(y, pdt.Tensor):
        # a bool tensor to a bool number's power: itself or all True, as PyTorch's
        check(x ** y, np.asarray(a) | (not b), "bool")
        return
    if compute == "bool":
        with pytest.raises(TypeError, match="bool"):
            x ** y
        return
    if CATEGORY[compute] == 1 and not isinstance(y, pdt.Tensor) and b < 0:
        with pytest.raises(ValueError, match="negative integer powers"):
            x ** y
        return
    def whole_power(p, q):
        # a tensor exponent is a power even where it is 0.5 (Note [squares]); NumPy
        # takes the square root for any exponent its loop broadcasts (a 0-d array),
        # so the reference gets the exponent as a whole array
        return np.power(p, np.broadcast_to(q, np.broadcast(p, q).shape).copy())

    power = (integer_power if CATEGORY[compute] == 1 else
             whole_power if isinstance(y, pdt.Tensor) else np.power)
    dtype, values = reference_binary("pow", power, a, b)
    check(x ** y, values, dtype)


UNARY = [
    ("neg", np.negative),
    ("abs", np.abs),
    ("exp", np.exp),
    ("log", np.log),
    ("sqrt", np.sqrt),
    ("sin", np.sin),
    ("cos", np.cos),
    ("tanh", np.tanh),
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v))),
    ("relu", lambda v: np.where(v < 0, np.zeros_like(v), v)),
]
FLOAT_RESULT = {"exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"}


@pytest.mark.parametrize("name,ref", UNARY, ids=[u[0] for u in UNARY])
@SETTINGS
@given(data=st.data())
def test_unary_matches_numpy(device, name, ref, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    a = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    x = pdt.tensor(a, device=device)
    if name == "neg" and dtype == "bool":
        with pytest.raises(TypeError, match="bool"):
            -x
        return
    out_dtype = "float32" if name in FLOAT_RESULT and CATEGORY[dtype] < 2 else dtype
    with np.errstate(all="ignore"):
        values = ref(a.astype(out_dtype).astype(np.float64) if CATEGORY[out_dtype] == 2
                     else a.astype(out_dtype))
    check(getattr(pdt, name)(x), values, out_dtype)
    check(getattr(x, name)(), values, out_dtype)


@SETTINGS
@given(data=st.data())
def test_clamp_matches_numpy(device, data):
    dtype = data.draw(st.sampled_from(DTYPES[1:]))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    a = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    bound = st.none() | st.integers(-60, 60) | st.floats(-60, 60)
    lo, hi = data.draw(bound), data.draw(bound)
    assume(lo is not None or hi is not None)
    given_bounds = [("scalar", v) for v in (lo, hi) if v is not None]
    out_dtype = expected_compute_dtype([kind_of(a)] + given_bounds)
    v = a.astype(out_dtype)
    with np.errstate(all="ignore"):
        if lo is not None:
            v = np.where(v < lo, np.asarray(lo).astype(out_dtype), v)
        if hi is not None:
            v = np.where(v > hi, np.asarray(hi).astype(out_dtype), v)
    check(pdt.clamp(pdt.tensor(a, device=device), lo, hi), v, out_dtype)


# ---------------------------------------------------------------- in place and out=


def test_in_place_forms(device):
    x = t([1.0, 2.0, 3.0], device, "float32")
    ident = id(x)
    x += 1
    x *= t([2.0, 2.0, 2.0], device)
    x -= 1
    x /= 2
    x **= 2
    x //= 1
    x %= 3
    assert id(x) == ident and values_of(x) == [2.0, 0.0, 0.0]
    assert x.add_(1) is x and x.mul_(2) is x and x.sub_(1, alpha=2) is x
    assert values_of(x) == [4.0, 0.0, 0.0]
    assert x.div_(4) is x and values_of(x) == [1.0, 0.0, 0.0]
    assert x.neg_() is x and x.relu_() is x and values_of(x) == [0.0, 0.0, 0.0]
    assert x.fill_(2) is x and values_of(x) == [2.0] * 3
    assert x.exp_() is x and abs(values_of(x)[0] - math.exp(2)) < 1e-5
    assert x.clamp_(max=3) is x and values_of(x) == [3.0] * 3
    assert x.zero_() is x and values_of(x) == [0.0] * 3
    i = t([1, 2, 3], device, "int64")
    i += t([True, False, True], device)
    i *= 2
    assert values_of(i) == [4, 4, 8] and i.dtype == pdt.int64
    f = t([1.0, 2.0], device, "float32")
    f += t([0.5, 0.5], device, "float64")  # float64 result cast into float32
    assert values_of(f) == [1.5, 2.5] and f.dtype == pdt.float32
    b = t([True, False], device)
    b.fill_(3)
    assert values_of(b) == [True, True]


@st.composite
def in_place_cases(draw):
    """x (a tensor's values) and y (broadcastable to x's shape, or a scalar)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    dx, dy = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    x = draw(hnp.arrays(dx, shape, elements=elements(dx)))
    y_shape = shape[draw(st.integers(0, len(shape))):]
    y = draw(hnp.arrays(dy, y_shape, elements=elements(dy)) | scalars())
    return x, y


IN_PLACE = [("add", operator.iadd, np.add), ("sub", operator.isub, np.subtract),
            ("mul", operator.imul, np.multiply), ("div", operator.itruediv, np.true_divide),
            ("floor_divide", operator.ifloordiv, np.floor_divide)]


@pytest.mark.parametrize("name,iop,ref", IN_PLACE, ids=[c[0] for c in IN_PLACE])
@SETTINGS
@given(case=in_place_cases(), form=st.sampled_from(["operator", "method", "out"]))
def test_in_place_and_out_match_numpy(device, name, iop, ref, case, form):
    x_np, y = case
    dtype, values = reference_binary("true_divide" if name == "div" else name, ref, x_np, y)
    x, y_t = pdt.tensor(x_np, device=device), as_tensor(y, device)
    ident = id(x)

    def run():
        if form == "operator":
            return iop(x, y_t)
        if form == "method":
            return getattr(x, name + "_")(y_t)
        return getattr(pdt, name)(x, y_t, out=x)

    if dtype is None or CATEGORY[dtype] > CATEGORY[x_np.dtype.name]:
        with pytest.raises(TypeError, match="bool|can't be cast"):
            run()
        check(x, x_np, x_np.dtype.name)  # untouched
        return
    if divides_by_zero(name, dtype, x_np, y, device):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            run()
        check(x, x_np, x_np.dtype.name)  # untouched
        return
    assert run() is x and id(x) == ident
    check(x, np.asarray(values).astype(dtype), x_np.dtype.name)


def test_in_place_broadcast_and_overlap(device):
    a = np.arange(9, dtype=np.float64).reshape(3, 3)
    x = pdt.tensor(a, device=device)
    x += x[0]  # x[0] is row 0 of x itself: it is copied before x is written
    check(x, a + a[0], "float64")
    y = pdt.tensor(a, device=device)
    y.mul_(y)  # the same elements: no copy needed, still right
    check(y, a * a, "float64")
    with pytest.raises(ValueError, match=r"\(3,\).*broadcast shape \(3, 3\)"):
        x[0].add_(x)


def test_strided_inputs_and_outputs_cpu():
    # from_numpy shares NumPy's strides: transposed, sliced and reversed views
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    row = np.arange(1, 5, dtype=np.float32)
    for view in (a.transpose(2, 0, 1), a[:, ::2, 1:], a[..., ::-1]):
        x = pdt.from_numpy(view)
        b = pdt.tensor(row[:view.shape[-1]])
        check(x * b + 1, view.astype(np.float64) * row[:view.shape[-1]] + 1, "float32")
        check(pdt.exp(x), np.exp(view.astype(np.float64)), "float32")
        check(x >= b, view >= row[:view.shape[-1]], "bool")
    big = np.random.default_rng(1).random((700, 300)).astype(np.float32)
    x = pdt.from_numpy(big.T)  # > 64K elements, strided: split over the threads
    check(x + x, big.T.astype(np.float64) * 2, "float32")
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    expected = base.T + np.arange(3)
    t = pdt.from_numpy(base.T)
    t += pdt.tensor(np.arange(3, dtype=np.float64))  # a strided output
    np.testing.assert_array_equal(base.T, expected)
    arr = np.arange(10, dtype=np.float64)
    pdt.mul(pdt.from_numpy(arr[:-1]), 2, out=pdt.from_numpy(arr[1:]))  # partly overlapping
    np.testing.assert_array_equal(arr, np.r_[0, np.arange(9) * 2.0])


def test_out_forms(device):
    a = t([1.0, 2.0, 3.0], device, "float32")
    out = pdt.empty(3, device=device)
    assert pdt.add(a, 1, out=out) is out and values_of(out) == [2, 3, 4]
    out64 = pdt.empty(3, dtype="float64", device=device)
    assert pdt.mul(a, a, out=out64) is out64 and values_of(out64) == [1, 4, 9]
    outb = pdt.empty(3, dtype="float32", device=device)
    pdt.gt(a, 1.5, out=outb)
    assert values_of(outb) == [0, 1, 1]
    assert pdt.exp(a, out=out64) is out64
    assert pdt.clamp(a, 1.5, out=out) is out and values_of(out) == [1.5, 2, 3]
    pdt.add(a, a, out=a)  # out aliasing an input exactly
    assert values_of(a) == [2, 4, 6]
    with pytest.raises(ValueError, match=r"output with shape \(2,\).*\(3,\)"):
        pdt.add(a, a, out=pdt.empty(2, device=device))
    with pytest.raises(TypeError, match="float32 can't be cast to the desired output type int64"):
        pdt.add(a, a, out=pdt.empty(3, dtype="int64", device=device))
    with pytest.raises(TypeError, match="out= must be a Tensor"):
        pdt.add(a, a, out=[1, 2, 3])


@pytest.mark.parametrize("lo_dtype, hi_dtype, hi_ndim, want", [
    ("float16", "float64", 0, "float64"), ("float64", "float16", 0, "float64"),
    ("float64", "float32", 1, "float32"), ("float32", "float32", 0, "float32")])
def test_clamp_of_an_integer_tensor_by_two_tensor_bounds_has_their_joint_dtype(
        device, lo_dtype, hi_dtype, hi_ndim, want):
    """clamp(int32, min=0-d float16, max=0-d float64) was computed as maximum(x, min)
    in float16, then minimum in float16 (a max of 1e5 became inf); the three operands'
    joint dtype (PyTorch's result_type: 0-d tensors promote only to a higher category
    than the dimensioned ones') decides, and x is converted to it first."""
    x = pdt.tensor([1, 5, 70000], dtype=pdt.int32, device=device)
    lo = pdt.tensor(2.0, dtype=getattr(pdt, lo_dtype), device=device)
    hi = pdt.tensor([1e5] * 3 if hi_ndim else 1e5, dtype=getattr(pdt, hi_dtype), device=device)
    got = pdt.clamp(x, min=lo, max=hi)
    assert got.dtype == getattr(pdt, want)
    np.testing.assert_array_equal(got.cpu().numpy().astype(np.float64),
                                  np.clip([1, 5, 70000], 2, 1e5 if want != "float16" else np.inf))
    with pytest.raises(pdt.DTypeError, match=r"result type float\d+ can't be cast to the "
                                             r"desired output type int32"):
        x.clone().clamp_(min=lo, max=hi)
