"""Float sums on the CPU follow Note [CPU reduction order] (csrc/cpu/cpu_reduce.c) to the
bit: chunks of 65,536 elements combined in order, each a pairwise tree down to leaves of
at most 128, a leaf in 8 double lanes.  The dispatched kernel that sums four leaves side by
side (cpu_vmath.h, sum4) and the one-leaf-at-a-time path for inputs past 16 MiB must both
give exactly the tree's result, at every instruction-set level; checked against the tree
written out here in Python."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

LEVELS = _C._cpu_simd_level()[1]
CHUNK = 1 << 16


def _tree(x):
    """The pairwise sum of x (float64) as the CPU forms it."""
    n = len(x)
    if n > 128:
        h = (n // 2) & ~7
        return _tree(x[:h]) + _tree(x[h:])
    m = n - n % 8
    lanes = np.cumsum(x[:m].reshape(-1, 8), axis=0)[-1] if m else np.zeros(8)
    r = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) +
                                                          (lanes[6] + lanes[7]))
    for v in x[m:]:
        r += v
    return r


def _reference_of(wide):
    """The CPU's sum of the float64 values wide: chunks of CHUNK in order, each a tree."""
    total = None
    for c in range(0, len(wide), CHUNK):
        part = _tree(wide[c:c + CHUNK])
        total = part if total is None else total + part
    return total


def _reference(x):
    return _reference_of(x.astype(np.float64))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sums_are_the_tree_to_the_bit(level, dtype, level_restored):
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(41)
    # regular subtrees of four leaves (512, 1024, whole chunks), irregular ones, and a
    # last chunk of each kind
    for n in (8, 100, 129, 300, 512, 544, 1000, 1024, 4104, CHUNK, CHUNK + 512, 100_000,
              3 * CHUNK + 4096):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dtype)
        want = _reference(x)
        got = pdt.tensor(x).sum()
        assert float(got) == float(np.asarray(want).astype(dtype)), (level, n)
        if dtype == "float64":
            assert float(pdt.tensor(x).mean()) == want / n, (level, n)
        rows = pdt.tensor(np.stack([x, -x]))  # each row of a matrix: the same tree
        np.testing.assert_array_equal(np.asarray(rows.sum(1)),
                                      np.asarray([want, -want]).astype(dtype))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_short_rows_are_each_the_tree_to_the_bit(level, dtype, level_restored):
    # rows of at most 128 elements (a leaf each) are summed four rows at a time
    # (Note [batched leaves]): each row's bits, with a last group of 1 to 3 rows, in a
    # matrix and in a view whose rows are further apart
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(47)
    for k in (1, 7, 8, 10, 100, 128):
        for m in (1, 3, 4, 5, 9):
            a = (rng.standard_normal((m, k + 3)) * 10.0 ** rng.integers(-8, 8, (m, k + 3)))
            a = a.astype(dtype)
            t = pdt.tensor(a)
            for got, rows in ((t[:, :k].contiguous().sum(1), a[:, :k]), (t[:, :k].sum(1), a[:, :k]),
                              (t.sum(1), a)):
                want = [_reference(r) for r in rows]
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want).astype(dtype),
                                              err_msg=f"{level} {k} {m}")
            if dtype == "float64":
                np.testing.assert_array_equal(np.asarray(t.mean(1)),
                                              [_reference(r) / (k + 3) for r in a])


def test_a_large_sum_is_the_same_tree():
    """Past 16 MiB the leaves are summed one at a time (four streams side by side were
    slower from memory): the same bits as the tree, and as the same values in parts
    that stay below it."""
    rng = np.random.default_rng(43)
    n = (4 << 20) + 4096  # float32: 16 MiB and 16 KiB
    x = rng.standard_normal(n).astype(np.float32)
    want = _reference(x)
    assert float(pdt.tensor(x).sum()) == float(np.float32(want))
    halves = [_reference(x[:n // 2]), _reference(x[n // 2:])]
    got = [float(pdt.tensor(x[:n // 2]).sum()), float(pdt.tensor(x[n // 2:]).sum())]
    assert got == [float(np.float32(h)) for h in halves]


def _lanes32_of(wide):
    """The CPU's sum of squares of float32 values (Note [float32 sums of squares] in
    csrc/cpu/cpu_reduce.c): per chunk, element i into double lane i % 32 in order, the
    lanes folded in halves; the chunks added in order.  wide: the squares, exact."""
    total = None
    for c in range(0, len(wide), CHUNK):
        part = wide[c:c + CHUNK]
        padded = np.concatenate([part, np.zeros(-len(part) % 32)])  # + 0.0 changes nothing
        lanes = np.cumsum(padded.reshape(-1, 32), axis=0)[-1]  # each lane in order
        w = 16
        while w:
            lanes[:w] = lanes[:w] + lanes[w:2 * w]
            w //= 2
        total = lanes[0] if total is None else total + lanes[0]
    return total


def _dot_order_of(squares):
    """The CPU's float64 sum of squares, its dot product with itself (Note [float64 dot
    products] in csrc/cpu/cpu_dot.c): sub-chunks of 4096 each in 32 lanes, added in
    order within each chunk from the chunk's first, the chunks then in order."""
    total = None
    for c in range(0, len(squares), CHUNK):
        group = None
        for d in range(c, min(c + CHUNK, len(squares)), 4096):
            part = _lanes32_of(squares[d:d + 4096])
            group = part if group is None else group + part
        total = group if total is None else total + group
    return total


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_is_the_order_of_the_squares_to_the_bit(level, dtype, level_restored):
    """norm's sum of squares in 32 double lanes: float32's squares exact, float64's each
    rounded (its dot product with itself); then the square root, at every level."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(47)
    for n in (1, 31, 33, 100, 512, 1000, CHUNK + 512, 3 * CHUNK + 4096):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dtype)
        wide = x.astype(np.float64)
        want = np.sqrt((_lanes32_of if dtype == "float32" else _dot_order_of)(wide * wide))
        assert float(pdt.norm(pdt.tensor(x))) == float(np.asarray(want).astype(dtype)), n


def test_a_large_norm_is_the_same_order():
    rng = np.random.default_rng(53)
    x = rng.standard_normal((4 << 20) + 4096).astype(np.float32)
    wide = x.astype(np.float64)
    assert float(pdt.norm(pdt.tensor(x))) == float(np.float32(np.sqrt(_lanes32_of(wide * wide))))
    y = rng.standard_normal((2 << 20) + 512)  # float64 past 16 MiB: the same lanes
    assert float(pdt.norm(pdt.tensor(y))) == float(np.sqrt(_dot_order_of(y * y)))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_float64_norm_squared_is_the_dot_of_x_with_itself(threads):
    """norm of a float64 vector is sqrt(dot(x, x)) to the bit, whole or as rows of a
    matrix (its chunks, or the dot's own split over the pool), on one and two threads"""
    before = pdt.get_num_threads()
    pdt.set_num_threads(threads)
    try:
        _norms_are_dots(np.random.default_rng(59))
    finally:
        pdt.set_num_threads(before)


def _norms_are_dots(rng):
    for k in (1, 33, 4096, 4097, CHUNK - 1, CHUNK + 4097, 100_000, 3 * CHUNK + 5):
        y = rng.standard_normal(k) * 10.0 ** rng.integers(-5, 5, k)
        t = pdt.tensor(y)
        assert float(pdt.linalg.norm(t)) == math.sqrt(float(pdt.dot(t, t))), k
        rows = pdt.tensor(np.stack([y, y[::-1].copy(), 2 * y]))
        for r, got in enumerate(pdt.linalg.norm(rows, dim=1).tolist()):
            assert got == math.sqrt(float(pdt.dot(rows[r], rows[r]))), (k, r)
    assert float(pdt.linalg.norm(pdt.tensor(y)[::3])) == \
        math.sqrt(float(pdt.dot(pdt.tensor(y[::3].copy()), pdt.tensor(y[::3].copy()))))


@pytest.mark.parametrize("level", LEVELS)
def test_a_float64_dot_of_a_vector_with_itself_loads_once_to_the_same_bits(level,
                                                                           level_restored):
    """dot(x, x) takes the one-load kernel (sumsq32_f64 in csrc/cpu/cpu_vsum.h): the bits
    of the two-vector dot of x and a copy of x, at every level, whole and by chunks."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(71)
    for k in (1, 31, 32, 33, 100, 4096, 4097, CHUNK + 33, 3 * CHUNK + 4096 + 7):
        y = rng.standard_normal(k) * 10.0 ** rng.integers(-8, 8, k)
        t = pdt.tensor(y)
        same = float(pdt.dot(t, t))
        assert same == float(pdt.dot(t, t.clone())), (level, k)
        assert same == float(_dot_order_of(y * y)), (level, k)


@pytest.mark.parametrize("level", LEVELS)
def test_short_rows_fold_only_their_live_lanes_to_the_same_bits(level, level_restored):
    """rows of fewer than 32 elements fold only the lanes they fill (fold_live in
    csrc/cpu/cpu_vsum.h): the bits of the whole 32-lane fold, for norm(dim=1) of float32
    and float64 and for a float64 dot, whose products of -0 still sum to +0"""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(67)
    for k in range(1, 34):
        for dtype in ("float32", "float64"):
            a = (rng.standard_normal((5, k)) * 10.0 ** rng.integers(-6, 6, (5, k))).astype(dtype)
            got = pdt.linalg.norm(pdt.tensor(a), dim=1).numpy()
            wide = a.astype(np.float64)
            for r in range(5):
                want = np.sqrt(_lanes32_of(wide[r] * wide[r]))
                assert got[r] == np.asarray(want).astype(dtype), (level, k, dtype, r)
        x, y = rng.standard_normal(k), rng.standard_normal(k)
        assert float(pdt.dot(pdt.tensor(x), pdt.tensor(y))) == float(_lanes32_of(x * y)), k
        zeros = pdt.tensor(np.full(k, -0.0))
        d = float(pdt.dot(zeros, pdt.ones(k, dtype=pdt.float64)))
        assert d == 0.0 and math.copysign(1.0, d) == 1.0, k
