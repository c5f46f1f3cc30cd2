"""Reductions against NumPy in float64, on every device.

Tolerances are those of Note [reduction accuracy] in csrc/core/pdt_reduce.h, for a
row of k elements x:
    float32 results: |got - ref| <= 2^-24 |ref| + 2 k 2^-53 sum(|x|)
    float64 results: |got - ref| <=                2 k 2^-53 sum(|x|)
(the note's bound, with the k 2^-53 term doubled for the float64 reference's own
rounding); mean divides the second term by k; prod: (2^-24 + 2 k 2^-53) |ref|;
the 2-norm: (2^-23 + 2 k 2^-53) |ref| (a square root after the rounded sum of
squares).  Integer results, max, min, argmax and argmin are compared exactly.
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pydevtensor as pdt
from conftest import DTYPES

U32, U64 = 2.0 ** -24, 2.0 ** -53
FLOATS = ("float32", "float64")
SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def host(t):
    return t.cpu().numpy()


def make(shape, dtype, rng, low=-10.0, high=10.0):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in ("int32", "int64"):
        return rng.integers(int(low) * 10, int(high) * 10 + 1, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def axis_of(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def reduced_count(shape, dim):
    if dim is None:
        return int(np.prod(shape, dtype=np.int64))
    dims = dim if isinstance(dim, tuple) else (dim,)
    return int(np.prod([shape[d] for d in dims], dtype=np.int64))


def check_float(got, ref, tol):
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    bad = ~(np.abs(got - ref) <= tol * (1 + 1e-9) + 1e-300)
    bad &= ~(np.isnan(got) & np.isnan(ref))
    assert not bad.any(), (got[bad][:5], ref[bad][:5], np.broadcast_to(tol, ref.shape)[bad][:5])


REF = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min}
RESULT_DTYPE = {"bool": "int64", "int32": "int64", "int64": "int64"}


def expect(op, a, dim, keepdim):
    """(reference value, result dtype, tolerance or None for exact)."""
    axis, k = axis_of(dim), reduced_count(a.shape, dim)
    dt = str(a.dtype) if a.dtype != np.bool_ else "bool"
    x = a.astype(np.float64)
    u_last = U32 if dt == "float32" else 0.0
    # over several dims the float32 partial results of the first may be stored (one
    # rounding each, of at most the mass) before the next are reduced
    multi = isinstance(dim, tuple) and len(dim) > 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty slice
        if op in ("argmax", "argmin"):
            f = np.argmax if op == "argmax" else np.argmin
            ref = f(a, axis=axis, keepdims=keepdim and dim is not None)
            return ref, "int64", None
        if op in ("amax", "amin"):
            return REF[op](a, axis=axis, keepdims=keepdim), dt, None
        if op in ("sum", "prod") and dt not in FLOATS:
            return REF[op](a.astype(np.int64), axis=axis, keepdims=keepdim), "int64", None
        if op == "norm1":
            ref = np.abs(x).sum(axis=axis, keepdims=keepdim)
            return ref, dt, u_last * (1 + multi) * ref + 2 * k * U64 * ref
        if op == "norm2":
            ref = np.sqrt((x * x).sum(axis=axis, keepdims=keepdim))
            return ref, dt, ((2 + multi) * u_last + (U64 * 2 if not u_last else 0)
                             + 2 * k * U64) * ref
        ref = REF[op](x, axis=axis, keepdims=keepdim)
        if op == "prod":
            return ref, dt, (u_last + 2 * k * U64) * np.abs(ref)
        mass = np.abs(x).sum(axis=axis, keepdims=keepdim)
        if op == "mean":
            mass = mass / max(k, 1)
        return ref, dt, u_last * (np.abs(ref) + multi * mass) + 2 * k * U64 * mass


def run_op(op, t, dim, keepdim):
    if op == "norm1":
        return pdt.norm(t, p=1, dim=dim, keepdim=keepdim)
    if op == "norm2":
        return t.norm(dim=dim, keepdim=keepdim)
    return getattr(t, op)(dim=dim, keepdim=keepdim)


OPS = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "norm1", "norm2"]


@st.composite
def reduce_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    ndim = len(shape)
    op = draw(st.sampled_from(OPS))
    dtype = draw(st.sampled_from(DTYPES))
    kinds = ["none"] if ndim == 0 else ["none", "int"] if op.startswith("arg") else \
        ["none", "int", "tuple"]
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        dim = None
    elif kind == "int":
        dim = draw(st.integers(-ndim, ndim - 1))
    else:
        dims = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        dim = tuple(d - ndim if draw(st.booleans()) else d for d in dims)
    layout = draw(st.sampled_from(["contiguous", "T", "reversed"]))
    return shape, dtype, op, dim, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1)), layout


def relayout(t, a, layout):
    """The same values, laid out as asked: contiguous, dims reversed (a view), or
    every dim walked backwards (negative strides)."""
    if layout == "T":
        return t.T, a.T
    if layout == "reversed" and a.ndim:
        key = (slice(None, None, -1),) * a.ndim
        return t[key], a[key]
    return t, a


@SETTINGS
@given(case=reduce_cases())
def test_reductions_match_numpy(device, case):
    shape, dtype, op, dim, keepdim, seed, layout = case
    rng = np.random.default_rng(seed)
    low, high = (0.5, 1.5) if op == "prod" else (-10.0, 10.0)
    if op == "prod" and dtype in ("int32", "int64"):
        a = rng.integers(-3, 4, size=shape).astype(dtype)
    else:
        a = make(shape, dtype, rng, low, high)
    t, a = relayout(pdt.tensor(a, device=device), a, layout)
    shape = a.shape
    k = reduced_count(shape, dim)
    if op in ("mean", "norm1", "norm2") and dtype not in FLOATS:
        with pytest.raises(TypeError, match="floating point"):
            run_op(op, t, dim, keepdim)
        return
    if op in ("amax", "amin", "argmax", "argmin") and k == 0:
        with pytest.raises(IndexError, match=r"dim \d+ of size 0"):
            run_op(op, t, dim, keepdim)
        return
    if op.startswith("arg") and dim is not None and (len(shape) == 0 or 0 in shape):
        return  # NumPy's argmax of an empty output axis is fine too, but covered below
    got = run_op(op, t, dim, keepdim)
    ref, dt, tol = expect(op, a, dim, keepdim)
    assert got.device == device
    assert str(got.dtype).split(".")[-1] == dt
    if tol is None:
        np.testing.assert_array_equal(host(got), ref)
    else:
        check_float(host(got), ref, tol)


# ---- the (values, indices) form, NaN and ties ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_with_dim_return_values_and_indices(device, dtype, keepdim):
    rng = np.random.default_rng(5)
    a = make((4, 6, 3), dtype, rng)
    t = pdt.tensor(a, device=device)
    for name, vf, af in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
        for dim in (0, 1, -1):
            r = getattr(t, name)(dim, keepdim=keepdim)
            assert isinstance(r, getattr(pdt.return_types, name))
            values, indices = r
            assert r.values is values and r.indices is indices
            np.testing.assert_array_equal(host(values), vf(a, axis=dim, keepdims=keepdim))
            np.testing.assert_array_equal(host(indices), af(a, axis=dim, keepdims=keepdim))
            assert str(values.dtype) == f"pydevtensor.{dtype}"
            assert str(indices.dtype) == "pydevtensor.int64"
    assert repr(pdt.max(t, 0)).startswith("pydevtensor.return_types.max(values=tensor(")


def test_max_without_dim_is_0d(device):
    t = pdt.tensor([[1.0, 7.0], [3.0, -2.0]], device=device)
    m = t.max()
    assert m.shape == () and float(m.cpu()) == 7.0
    assert float(pdt.min(t).cpu()) == -2.0
    assert pdt.tensor(5.0, device=device).sum(0).shape == ()  # dim 0 of a 0-d tensor


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_propagates_and_argmax_finds_it(device, dtype):
    a = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 9.0, 9.0, -1.0]], dtype=dtype)
    t = pdt.tensor(a, device=device)
    assert np.isnan(host(t.max(1).values)[0]) and host(t.max(1).values)[1] == 9.0
    assert np.isnan(host(t.min(1).values)[0])
    np.testing.assert_array_equal(host(t.argmax(1)), [1, 1])  # first NaN; first of the tied 9s
    np.testing.assert_array_equal(host(t.argmin(1)), [1, 3])
    assert int(t.argmax().cpu()) == 1
    assert np.isnan(float(t.amax().cpu())) and np.isnan(float(t.sum().cpu()))


# ---- long rows: the chunked, threaded CPU paths and the split CUDA path ----

def check_long(t, a, axis):
    """sum, mean, amax, amin, argmax, argmin of t over axis against NumPy."""
    k = a.shape[axis]
    x = a.astype(np.float64)
    ref, mass = x.sum(axis=axis), np.abs(x).sum(axis=axis)
    u = U32 if a.dtype == np.float32 else 0.0
    check_float(host(t.sum(axis)), ref, u * np.abs(ref) + 2 * k * U64 * mass)
    check_float(host(t.mean(axis)), ref / k, u * np.abs(ref / k) + 2 * U64 * mass)
    for op, f in (("amax", np.max), ("amin", np.min), ("argmax", np.argmax), ("argmin", np.argmin)):
        np.testing.assert_array_equal(host(getattr(t, op)(axis)), f(a, axis=axis))


@pytest.mark.parametrize("shape", [(3, 300_001), (40, 70_003), (1, 1 << 20), (2, 70_000)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_long_rows(device, shape, dtype):
    """The rows layout with many chunks: threads over rows, or over one row's chunks."""
    a = make(shape, dtype, np.random.default_rng(11))
    m, k = shape
    a[-1, k - 5] = 1e3  # a unique maximum in the last chunk
    if m > 1:
        a[0, k // 2] = np.nan
    t = pdt.tensor(a, device=device)
    check_long(t, a, 1)
    assert host(t.argmax(1))[-1] == k - 5


@pytest.mark.parametrize("shape", [(70_003, 40), (300_001, 3), (2_000, 3_000), (5, 100_000)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_long_columns(device, shape, dtype):
    """sum(0) and friends of a row-major matrix: the columns layout, read in place."""
    a = make(shape, dtype, np.random.default_rng(12))
    k, m = shape
    a[k - 7, m - 1] = 1e3            # a unique maximum late in the last column
    a[[k // 3, k // 2], 0] = np.nan  # NaNs in the first column
    a[1, 1] = a[k - 1, 1] = -1e3     # a tie for the minimum of column 1
    t = pdt.tensor(a, device=device)
    check_long(t, a, 0)
    assert host(t.argmin(0))[1] == 1 and host(t.argmax(0))[0] == k // 3


@pytest.mark.parametrize("shape", [(1, 1000), (3, 1000), (1, 5000), (2, 37)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_short_wide_columns(device, shape, dtype):
    """sum(0) and friends of a few rows of many columns (one row: one element per
    output), against NumPy, for every dtype; a one-row sum is the row itself."""
    rng = np.random.default_rng(13)
    a = make(shape, dtype, rng)
    t = pdt.tensor(a, device=device)
    for op in ("sum", "prod", "amax", "amin", "argmax", "argmin"):
        ref, dt, tol = expect(op, a, 0, False)
        got = run_op(op, t, 0, False)
        assert str(got.dtype).split(".")[-1] == dt
        if tol is None:
            np.testing.assert_array_equal(host(got), ref)
        else:
            check_float(host(got), ref, tol)
    if dtype in FLOATS:
        check_float(host(t.mean(0)), a.astype(np.float64).mean(0),
                    U32 * np.abs(a).max() + 2 * U64 * np.abs(a.astype(np.float64)).sum(0))
        if shape[0] == 1:
            np.testing.assert_array_equal(host(t.sum(0)), a[0])
            np.testing.assert_array_equal(host(t.sum(0, keepdim=True)), a)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cpu_column_extremes_at_every_level(dtype, level_restored):
    """max, min, argmax and argmin over dim 0 of row-major matrices (the columns layout)
    go through the dispatched kernels (cpu_vreduce.h, VR_COLS and VR_COLS_ARG) at every
    instruction-set level: the same bits and rows as the fold `v > best ? v : best` row
    by row (signed zeros included, ties to the first row), NaN in a column that holds
    one (in the first row, a middle one, a tail column), and the fold again for a block
    that holds a NaN; widths around the vector and the block."""
    from pydevtensor import _C
    rng = np.random.default_rng(13)
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        for shape in ((2, 7), (37, 53), (5, 2049), (300, 4100), (9000, 40)):  # last: bands
            a = rng.standard_normal(shape).astype(dtype)
            a[:, ::7] = np.where(rng.random((shape[0], len(range(0, shape[1], 7)))) < 0.5,
                                 np.array(0.0, dtype), np.array(-0.0, dtype))
            for name, pick in (("max", np.greater), ("min", np.less)):
                best, at = a[0].copy(), np.zeros(shape[1], np.int64)
                for i, row in enumerate(a[1:], 1):
                    take = pick(row, best)
                    best, at = np.where(take, row, best), np.where(take, i, at)
                t = pdt.tensor(a)
                for got in (getattr(t, "a" + name)(0), getattr(t, name)(0)[0]):
                    np.testing.assert_array_equal(np.asarray(got).view(f"u{a.itemsize}"),
                                                  best.view(f"u{a.itemsize}"), err_msg=level)
                for got in (getattr(t, "arg" + name)(0), getattr(t, name)(0)[1]):
                    np.testing.assert_array_equal(np.asarray(got), at, err_msg=level)
            b = a.copy()
            b[shape[0] // 2, 1::3] = np.nan
            b[0, -1] = np.nan
            t = pdt.tensor(b)
            for name in ("amax", "amin"):
                np.testing.assert_array_equal(np.asarray(getattr(t, name)(0)),
                                              getattr(b, name[1:])(0), err_msg=level)
            for name in ("max", "min"):
                v, i = getattr(t, name)(0)
                np.testing.assert_array_equal(np.asarray(v), getattr(b, name)(0))
                np.testing.assert_array_equal(np.asarray(i), getattr(b, "arg" + name)(0))


def test_cpu_split_rows_are_bit_identical():
    """Note [CPU reduction order]: a row reduced alone (its chunks spread over the
    threads) and the same row among many (rows spread over the threads) give the
    same bits."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((20, 150_000)).astype(np.float32)
    t = pdt.tensor(a)
    together = host(t.sum(1))
    alone = np.array([host(t[i].sum()) for i in range(20)])
    np.testing.assert_array_equal(together, alone)
    means = host(t.mean(1))
    np.testing.assert_array_equal(means, np.array([host(t[i:i + 1].mean()) for i in range(20)]))


def test_cpu_column_bands_do_not_depend_on_the_thread_count():
    """Note [CPU reduction order]: a tall matrix's column reductions are cut into bands
    of rows whose partials combine in band order, so one thread and two give the same
    bits; integer sums and the first index of a tie are exact across the bands."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3 * 4096 + 77, 37)).astype(np.float32)
    ai = rng.integers(-3, 4, a.shape).astype(np.int32)
    ai[[100, 9000], 4] = 50  # a tie for the maximum, in different bands
    t, ti = pdt.tensor(a), pdt.tensor(ai)
    old = pdt.get_num_threads()
    try:
        got = []
        for n in (1, 2):
            pdt.set_num_threads(n)
            got.append((host(t.sum(0)), host(t.mean(0)), host(ti.sum(0)), host(ti.argmax(0))))
    finally:
        pdt.set_num_threads(old)
    for one, two in zip(*got):
        np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(got[0][0], a.astype(np.float64).sum(0), rtol=1e-6, atol=1e-4)
    np.testing.assert_array_equal(got[0][2], ai.astype(np.int64).sum(0))
    np.testing.assert_array_equal(got[0][3], ai.argmax(0))
    assert got[0][3][4] == 100
    # every other row, read in place as columns whose rows are 2 * 37 apart
    v, vi = t[::2], ti[1::2]
    np.testing.assert_allclose(host(v.sum(0)), a[::2].astype(np.float64).sum(0), rtol=1e-6,
                               atol=1e-4)
    np.testing.assert_array_equal(host(vi.sum(0)), ai[1::2].astype(np.int64).sum(0))
    np.testing.assert_array_equal(host(vi.argmin(0)), ai[1::2].argmin(0))
    np.testing.assert_array_equal(host(v.max(0)[0]), a[::2].max(0))


def test_int_sums_wrap_and_promote(device):
    a = np.array([2 ** 62, 2 ** 62, 2 ** 62, 7], dtype=np.int64)
    t = pdt.tensor(a, device=device)
    assert int(t.sum().cpu()) == int(a.sum())  # wraps, as NumPy and PyTorch
    b = pdt.tensor(np.full(5, 2 ** 31 - 1, dtype=np.int32), device=device)
    s = b.sum()
    assert str(s.dtype) == "pydevtensor.int64" and int(s.cpu()) == 5 * (2 ** 31 - 1)
    assert str(pdt.ones(3, dtype=pdt.bool, device=device).prod().dtype) == "pydevtensor.int64"


def test_dtype_argument(device):
    t = pdt.tensor([[1, 2], [3, 4]], device=device)
    m = t.mean(dtype=pdt.float64)
    assert str(m.dtype) == "pydevtensor.float64" and float(m.cpu()) == 2.5
    s = t.sum(1, dtype=pdt.float32)
    assert str(s.dtype) == "pydevtensor.float32"
    np.testing.assert_array_equal(host(s), [3.0, 7.0])
    s32 = t.sum(dtype=pdt.int32)
    assert str(s32.dtype) == "pydevtensor.int32" and int(s32.cpu()) == 10


def test_zero_size(device):
    z = pdt.zeros(0, 3, device=device)
    np.testing.assert_array_equal(host(z.sum(0)), np.zeros(3))
    np.testing.assert_array_equal(host(z.prod(0)), np.ones(3))
    assert np.isnan(host(z.mean(0))).all()
    assert host(z.sum(1)).shape == (0,)
    assert host(z.max(1).values).shape == (0,)  # reducing the size-3 dim of no rows
    assert float(z.sum().cpu()) == 0.0 and float(z.prod().cpu()) == 1.0
    assert float(pdt.norm(z, p=1).cpu()) == 0.0


# ---- error table: every message names the dim, the ndim and the sizes ----

ERRORS = [
    (lambda x: x.sum(2), IndexError, r"got dim 2 for a tensor with 2 dimensions"),
    (lambda x: x.mean(-3), IndexError, r"got dim -3 for a tensor with 2 dimensions"),
    (lambda x: x.amax((0, 5)), IndexError, r"got dim 5 for a tensor with 2 dimensions"),
    (lambda x: x.argmax(4), IndexError, r"argmax\(\): dimension out of range: got dim 4"),
    (lambda x: x.max(2), IndexError, r"max\(\): dimension out of range: got dim 2"),
    (lambda x: x.sum((0, -2)), ValueError, r"dim 0 appears more than once"),
    (lambda x: x[:, :0].max(1), IndexError, r"dim 1 of size 0 \(input of shape \(2, 0\)\)"),
    (lambda x: x[:0].argmin(), IndexError, r"dim 0 of size 0 \(input of shape \(0, 3\)\)"),
    (lambda x: x.long().mean(), TypeError, r"mean\(\).*int64.*floating point"),
    (lambda x: x.int().norm(), TypeError, r"norm\(\).*int32.*floating point"),
    (lambda x: x.norm(p="max"), NotImplementedError, r"p='max' is not supported"),
    (lambda x: x[0].norm(p="nuc"), RuntimeError, r"needs a 2-D input .*got 1-D of shape \(3,\)"),
    (lambda x: x.argmax((0, 1)), TypeError, r"dim must be an int or None"),
    (lambda x: x.max((0, 1)), TypeError, r"use amax"),
    (lambda x: x.max(keepdim=True), TypeError, r"keepdim needs a dim"),
    (lambda x: x.sum(0, keepdim=True, bogus=1), TypeError, r"unexpected keyword argument 'bogus'"),
    (lambda x: x.sum(1.5), TypeError, r"dim must be an int"),
    (lambda x: pdt.sum([1, 2]), TypeError, r"must be a Tensor"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors(device, call, exc, message):
    x = pdt.ones(2, 3, device=device)
    with pytest.raises(exc, match=message):
        call(x)


def test_function_and_method_forms_agree():
    t = pdt.tensor([[1.0, 2.0], [3.0, 4.0]])
    for name in ("sum", "mean", "prod", "amax", "amin", "argmax", "argmin"):
        np.testing.assert_array_equal(host(getattr(pdt, name)(t, 1)), host(getattr(t, name)(1)))
    np.testing.assert_array_equal(host(pdt.norm(t, 1, 0)), [4.0, 6.0])


def test_two_norm(device):
    t = pdt.tensor([[3.0, 4.0], [0.0, 12.0]], device=device)
    assert float(pdt.norm(t).cpu()) == pytest.approx(13.0, rel=2 ** -23)
    assert float(t.norm("fro").cpu()) == pytest.approx(13.0, rel=2 ** -23)
    np.testing.assert_allclose(host(t.norm(2, 1)), [5.0, 12.0], rtol=2 ** -23)
    np.testing.assert_allclose(host(t.norm(dim=0, keepdim=True)), [[3.0, np.sqrt(160.0)]],
                               rtol=2 ** -23)


@pytest.mark.parametrize("p", [np.inf, -np.inf, 0, 3, 0.5, -1, 1.5])
def test_norm_of_other_orders_is_numpys_vector_norm(device, p):
    """norm(x, p) of a number other than 1 and 2 is linalg.vector_norm's (PyTorch's
    norm sends it there): against np.linalg.norm in float64, whole, over a dim with
    keepdim, and its gradient (sign(x) |x|^(p-1) / norm^(p-1)) for p > 1."""
    a = np.array([[3.0, -4.0, 0.5], [0.0, 1.0, -2.0]])
    x = pdt.tensor(a, device=device)
    with np.errstate(divide="ignore"):  # p < 0 meets the zero: 1 / 0 on the way to 0
        want = [np.linalg.norm(a.ravel(), p), np.linalg.norm(a, p, axis=1, keepdims=True),
                np.linalg.norm(a, p, axis=0)]
    np.testing.assert_allclose(float(x.norm(p).cpu()), want[0], rtol=1e-14)
    np.testing.assert_allclose(host(pdt.norm(x, p, dim=1, keepdim=True)), want[1], rtol=1e-14)
    np.testing.assert_allclose(host(x.norm(p, 0)), want[2], rtol=1e-14)
    if p in (3, 1.5):
        w = pdt.tensor(a, device=device, requires_grad=True)
        w.norm(p).backward()
        n = np.linalg.norm(a.ravel(), p)
        np.testing.assert_allclose(host(w.grad),
                                   np.sign(a) * np.abs(a) ** (p - 1) / n ** (p - 1),
                                   rtol=1e-13)


@pytest.mark.parametrize("p", [3, 1.5, 0.5, -1, 0])
def test_norm_of_other_orders_has_pytorchs_gradient_at_zeros(device, p):
    """norm_backward's masks: an all-zero input has gradient 0 (not 0 / 0), a zero
    element under an order below 1 gets 0 (not 0 ** negative); the order 0 is flat but
    recorded (LinalgVectorNormBackward0), its gradient None; elsewhere
    sign(x) |x|^(p-1) / norm^(p-1)."""
    z = pdt.zeros(3, dtype=pdt.float64, device=device, requires_grad=True)
    pdt.linalg.vector_norm(z, p).backward()
    if p == 0:  # no gradient at all (None), as PyTorch's
        assert z.grad is None
    else:
        np.testing.assert_array_equal(host(z.grad), np.zeros(3))
    a = np.array([0.0, 1.0, -2.0])
    w = pdt.tensor(a, device=device, requires_grad=True)
    y = w.norm(p)
    assert type(y.grad_fn).__name__ == "LinalgVectorNormBackward0"
    y.backward()
    if p == 0:
        assert w.grad is None
        return
    else:
        n = np.sum(np.abs(a[1:]) ** p) ** (1 / p) if p < 0 else np.linalg.norm(a, p)
        want = np.zeros(3)
        want[1:] = np.sign(a[1:]) * np.abs(a[1:]) ** (p - 1) / n ** (p - 1)
        if p < 0:  # a zero element makes the norm 0: every gradient is 0 (PyTorch's)
            want[:] = 0.0
    np.testing.assert_allclose(host(w.grad), want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("n", [32768, 40004, 50010, 57346, 65532, 65536])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cpu_sum_of_one_chunk_in_halves_gives_the_whole_rows_bits(n, dtype):
    # Note [a chunk in halves] in csrc/cpu/cpu_reduce.c: x.sum() and x.mean() of one
    # chunk (up to 65,536 elements) are the sums of its two halves, on two threads once
    # the pool is awake (an elementwise op just before splits its output the same way);
    # the bits are those of the same row summed whole on one thread (a row of a 2-row
    # matrix), and NumPy's float64 sum agrees within 1e-12 of the sum of magnitudes.
    # (On one core, or with the pool's spinning off under load, only the one-thread
    # form of the halves runs: the same comparison, a weaker check.)
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dtype)
    x, rows = pdt.from_numpy(a), pdt.from_numpy(np.stack([a, a]))
    want_sum, want_mean = rows.sum(1).numpy()[0], rows.mean(1).numpy()[0]
    ref = a.astype(np.float64).sum()
    assert abs(float(want_sum) - ref) <= 1e-12 * np.abs(a.astype(np.float64)).sum() + (
        0 if dtype == np.float64 else abs(ref) * 2.0 ** -23)
    for _ in range(20):  # the pool awake: the halves on two threads where there are two
        y = x * 1.0
        assert y.sum().numpy() == want_sum
        assert y.mean().numpy() == want_mean


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("p", [3, 4, -1, 1.5, -0.5])
def test_half_vector_norm_of_other_orders_sums_in_float32(device, dtype, p):
    """vector_norm, norm and dist of float16/bfloat16 and an order other than 1, 2 and
    +-inf sum |x|**p in float32 and round once (as PyTorch's opmath): |x|**3 of 1000
    float16 values near 100 overflowed to inf."""
    a = (100 + np.linspace(-3, 3, 1000)).astype(np.float32)
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    exact = x.float().cpu().numpy().astype(np.float64)
    want = (np.abs(exact) ** p).sum() ** (1 / p)
    tol = 2 ** -7 if dtype == "bfloat16" else 2 ** -10
    for got in (pdt.linalg.vector_norm(x, p), pdt.norm(x, p), pdt.dist(x, x * 0, p)):
        assert got.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(float(got), want, rtol=tol)
