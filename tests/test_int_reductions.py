"""Integer sums, maxima and minima and the bool count (a bool sum) on the CPU go
through the dispatch level's kernels (csrc/cpu/cpu_vint.h): exact, wrapping like
PyTorch's, the same at every instruction-set level.  Checked against NumPy at every
level, at lengths that end inside the kernels' lanes and blocks (16 lanes; bool
bytes counted in 64 lanes of up to 255 each), with the extremes at either end."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import torch_or_skip

LEVELS = _C._cpu_simd_level()[1]
LENGTHS = [1, 7, 16, 17, 63, 64, 65, 255 * 64 - 1, 255 * 64 + 64, 255 * 64 * 2 + 17, 70_001,
           200_000]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_sums_and_extremes_at_every_level(level, dtype, level_restored):
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(61)
    info = np.iinfo(dtype)
    for n in LENGTHS:
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[rng.integers(0, n)] = info.max  # the extremes somewhere, and at the ends
        x[-1] = info.min if n > 1 else x[-1]
        t = pdt.from_numpy(x)
        # NumPy's int64 sum wraps the same way; an int32 one is summed in int64 here
        want_sum = int(x.astype(np.int64).sum()) if dtype == "int32" else int(x.sum())
        assert t.sum().item() == want_sum, n
        assert t.max().item() == x.max() and t.min().item() == x.min(), n
        assert t.argmax().item() == x.argmax() and t.argmin().item() == x.argmin(), n
        rows = pdt.from_numpy(np.stack([x, x[::-1].copy()]))
        np.testing.assert_array_equal(rows.amax(1).numpy(), [x.max()] * 2)


@pytest.mark.parametrize("level", LEVELS)
def test_bool_counts_at_every_level(level, level_restored):
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(67)
    for n in LENGTHS:
        # True bytes other than 1 (a NumPy bool view of other bytes) count once each
        raw = rng.integers(0, 4, n).astype(np.uint8) * 85
        raw[: min(n, 255 * 64)] = np.where(raw[: min(n, 255 * 64)] != 0, 255, 0)
        b = raw.view(bool)
        assert pdt.from_numpy(b).sum().item() == int(np.count_nonzero(raw)), n
        ones = np.ones(n, dtype=bool)  # every lane at its most before it is added up
        assert pdt.from_numpy(ones).sum().item() == n


# ---- column and row sums and products of every integer dtype (Note [integer column
# sums] in csrc/cpu/cpu_vint.h; small integers cast into the columns layout: pdt_reduce.c)

INT_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def _ints(rng, dtype, shape, small=False):
    """Values over the whole range (sums that wrap in int64), or, for products, mostly
    -1, 1, 2 and 3 with a few large ones (products that wrap too, and some that do not)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    if not small:
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.choice(np.array([-1, 1, 1, 2, 3], dtype=np.int64), shape)
    if info.min == 0:
        x = np.abs(x)
    x.flat[:: max(1, x.size // 7)] = info.max
    return x.astype(dtype)


def _want(x, op, axis, keepdims=False):
    """The exact wrapped result in int64, as PyTorch gives it (NumPy's int64 wraps)."""
    return getattr(x.astype(np.int64), op)(axis=axis, keepdims=keepdims)


def _layouts(x):
    """(name, the array, a function of the tensor giving the same view)."""
    return [("contiguous", x, lambda t: t),
            ("every other row", x[::2], lambda t: t[::2]),
            ("transposed", x.T, lambda t: t.t())]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("shape", [(1024, 1024), (5, 3000), (9000, 7), (3, 1), (1, 9), (0, 4)])
def test_integer_sums_and_products_along_each_dim(device, dtype, shape):
    rng = np.random.default_rng(sum(shape) + len(dtype))
    for op, small in (("sum", False), ("prod", True)):
        x = _ints(rng, dtype, shape, small)
        t = pdt.tensor(x, device=device)
        for name, xv, view in _layouts(x):
            for axis in (0, 1):
                got = getattr(view(t), op)(axis)
                assert got.dtype == pdt.int64, (op, name)
                np.testing.assert_array_equal(got.cpu().numpy(), _want(xv, op, axis),
                                              err_msg=f"{op}({axis}) of {name} {dtype}")
        got = t.sum(dim=0, keepdim=True) if op == "sum" else t.prod(0, keepdim=True)
        np.testing.assert_array_equal(got.cpu().numpy(), _want(x, op, 0, keepdims=True))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_sums_over_a_middle_block_of_dims(device, dtype):
    """(O, K, I).sum(1): the CPU folds each of the O slices' columns in place."""
    rng = np.random.default_rng(5)
    for op, small in (("sum", False), ("prod", True)):
        x = _ints(rng, dtype, (3, 50, 17), small)
        t = pdt.tensor(x, device=device)
        np.testing.assert_array_equal(getattr(t, op)(1).cpu().numpy(), _want(x, op, 1))
        np.testing.assert_array_equal(t.sum((0, 2)).cpu().numpy(), _want(x, "sum", (0, 2)))


def test_integer_sum_with_dtype(device):
    """sum(0, dtype=int32) sums in int64 and narrows, as PyTorch; an int16 input with
    dtype=int64 is cast into the columns layout."""
    x = np.array([[2**31 - 1, 5], [1, -7], [3, 2]], dtype=np.int32)
    t = pdt.tensor(x, device=device)
    got = t.sum(0, dtype=pdt.int32)
    assert got.dtype == pdt.int32
    np.testing.assert_array_equal(got.cpu().numpy(), (x.astype(np.int64).sum(0)).astype(np.int32))
    s = pdt.tensor(x.astype(np.int16), device=device)
    np.testing.assert_array_equal(s.sum(0, dtype=pdt.int64).cpu().numpy(),
                                  x.astype(np.int16).astype(np.int64).sum(0))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_column_folds_at_every_level(level, dtype, level_restored):
    """The dispatched column sums and products (and row products): the same exact
    results at every instruction-set level, for column counts that end inside a
    vector and blocks, and the tall layout cut into bands."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(71)
    for shape in [(7, 1), (33, 17), (300, 2049), (8193 * 2, 3), (2, 100_001)]:
        for op, small in (("sum", False), ("prod", True)):
            x = _ints(rng, dtype, shape, small)
            t = pdt.from_numpy(x)
            for axis in (0, 1):
                np.testing.assert_array_equal(getattr(t, op)(axis).numpy(),
                                              _want(x, op, axis), err_msg=f"{op}({axis}) {shape}")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_column_extremes_at_every_level(level, dtype, level_restored):
    """The dispatched column max and min (cpu_vint.h): NumPy's values at every level, over
    the whole range with the dtype's ends in some columns, for column counts that end
    inside a vector and past a 2048-column block, one row and many."""
    _C._cpu_simd_level(level)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(72)
    for shape in [(1, 5), (7, 1), (33, 17), (300, 2049), (5, 4099)]:
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        x[rng.integers(0, shape[0], 3), rng.integers(0, shape[1], 3)] = [info.min, info.max, 0]
        t = pdt.from_numpy(x)
        for got, want, what in ((t.amax(0), x.max(0), "amax"), (t.amin(0), x.min(0), "amin"),
                                (t.max(0).values, x.max(0), "max"),
                                (t.min(0).values, x.min(0), "min")):
            assert got.dtype == t.dtype, what
            np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{what}(0) {shape}")


@pytest.mark.parametrize("dtype", ["int32", "int64", "int16", "uint8"])
def test_integer_folds_same_as_torch(dtype):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    for op, small in (("sum", False), ("prod", True)):
        x = _ints(rng, dtype, (70, 130), small)
        for axis in (0, 1):
            want = getattr(torch.from_numpy(x.copy()), op)(axis)
            got = getattr(pdt.from_numpy(x), op)(axis)
            assert str(want.dtype) == str(got.dtype).replace("pydevtensor", "torch")
            np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---- max, min, argmax and argmin of uint8, int8 and int16 in their own lanes (the
# CPU's small_int_extremes: Note [small integers] in csrc/core/pdt_dtype.h), and the
# first index of an integer extreme found 256 bytes at a time (VI_FIND in cpu_vint.h)

SMALL = ["uint8", "int8", "int16"]
# around the lanes (64 bytes: 64 or 32 elements) and the index search's blocks (256
# bytes), and past one chunk of a row (65,536 elements), split across threads
SMALL_LENGTHS = [1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 513, 4097,
                 65_536, 65_537, 200_003]


def _places(n, rng):
    """Where to put the extreme: first, last, at a block's edges, somewhere."""
    return sorted({0, n - 1, min(n - 1, 127), min(n - 1, 128), min(n - 1, 256),
                   int(rng.integers(0, n))})


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", SMALL + ["int32", "int64"])
def test_small_integer_extremes_and_first_index_at_every_level(level, dtype, level_restored):
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(83)
    info = np.iinfo(dtype)
    lo, hi = max(info.min + 1, -1000), min(info.max - 1, 1000)
    for n in SMALL_LENGTHS:
        base = rng.integers(lo, hi, n, endpoint=True).astype(dtype)
        for at in _places(n, rng):
            for big, small in ((info.max, info.min), (hi + 1, lo - 1)):
                x = base.copy()
                x[at] = big
                x[(at + n // 2) % n] = small if n > 1 else x[0]
                if n > 2 and at + 3 < n:
                    x[at + 3] = big  # a tie after it: the first one is the index
                t = pdt.from_numpy(x)
                what = f"{dtype} n={n} at={at} {level}"
                mx, mn = t.max(), t.min()
                assert mx.dtype == t.dtype and mn.dtype == t.dtype, what
                assert mx.item() == x.max() and mn.item() == x.min(), what
                assert t.argmax().item() == x.argmax(), what
                assert t.argmin().item() == x.argmin(), what


@pytest.mark.parametrize("dtype", SMALL + ["int32", "int64"])
@pytest.mark.parametrize("shape", [(300, 257), (5, 3000), (9000, 7), (3, 1), (1, 9)])
def test_small_integer_extremes_along_each_dim(device, dtype, shape):
    """Rows, columns, a strided view and a transposed one, with and without keepdim;
    max(dim) gives the values in the input's dtype and the first index (int32 and
    int64 rows: one kernel call a row, Note [one-pass integer extremes])."""
    rng = np.random.default_rng(sum(shape) + len(dtype))
    x = _ints(rng, dtype, shape)
    t = pdt.tensor(x, device=device)
    for name, xv, view in _layouts(x):
        v = view(t)
        for axis in (0, 1):
            what = f"{name} {dtype} {shape} dim {axis}"
            for op in ("amax", "amin"):
                got = getattr(v, op)(axis)
                assert got.dtype == t.dtype, what
                np.testing.assert_array_equal(got.cpu().numpy(), getattr(np, op)(xv, axis),
                                              err_msg=f"{op} {what}")
            for op, np_op in (("argmax", np.argmax), ("argmin", np.argmin)):
                np.testing.assert_array_equal(getattr(v, op)(axis).cpu().numpy(),
                                              np_op(xv, axis), err_msg=f"{op} {what}")
            values, indices = v.max(axis, keepdim=True)
            assert values.dtype == t.dtype, what
            np.testing.assert_array_equal(values.cpu().numpy(), xv.max(axis, keepdims=True))
            np.testing.assert_array_equal(indices.cpu().numpy()[..., 0] if axis else
                                          indices.cpu().numpy()[0], np.argmax(xv, axis))


@pytest.mark.parametrize("dtype", SMALL)
def test_small_integer_extremes_over_blocks_of_dims(device, dtype):
    """(O, K, I).amax(1) (the middle block in place on the CPU), amax over (0, 2) (an
    outer and an inner dim), argmax(1), and the whole of a permuted view."""
    rng = np.random.default_rng(7)
    x = _ints(rng, dtype, (3, 50, 17))
    t = pdt.tensor(x, device=device)
    for got, want, what in ((t.amax(1), x.max(1), "amax(1)"), (t.amin(1), x.min(1), "amin(1)"),
                            (t.amax((0, 2)), x.max((0, 2)), "amax((0, 2))"),
                            (t.amin((0, 2)), x.min((0, 2)), "amin((0, 2))"),
                            (t.argmax(1), x.argmax(1), "argmax(1)"),
                            (t.argmin(2), x.argmin(2), "argmin(2)"),
                            (t.permute(2, 0, 1).max(), x.max(), "max of a permuted view"),
                            (t.permute(2, 0, 1).argmin(), x.transpose(2, 0, 1).argmin(),
                             "argmin of a permuted view")):
        assert got.dtype == (pdt.int64 if "arg" in what else t.dtype), what
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{what} {dtype}")
