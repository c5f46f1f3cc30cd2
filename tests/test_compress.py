"""x[mask] for a bool mask over x's leading dims, and nonzero of a 1-d mask, against
NumPy on every device: the CPU's compress kernel (Note [compress on the CPU] in
csrc/cpu/cpu_nonzero.c: the mask read 64 bytes to a word of bits, words with no bit,
every bit, few bits and many bits each taken their own way, in chunks of 65,536 rows
across threads) and the composed path elsewhere.  Rows of 1, 2, 4 and 8 bytes (moved
as integers) and of other sizes, densities from none to all, masks built to hit each
kind of word and the runs of full words across chunks, True bytes other than 1, one
and two threads."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

CHUNK = 65536
# (trailing shape, dtype): rows of 1, 2, 4, 8 bytes, then 3, 16, 12 and 0 bytes
ROWS = [((), "uint8"), ((), "float16"), ((), "float32"), ((), "int64"), ((3,), "uint8"),
        ((2,), "float64"), ((3,), "int32"), ((0,), "float32"), ((2,), "float32")]


def mask_of(n, density, seed):
    rng = np.random.default_rng(seed)
    raw = (rng.random(n) < density).astype(np.uint8)
    raw *= rng.integers(1, 256, n).astype(np.uint8)  # any non-zero byte is True
    return raw.view(bool)


def structured(n, seed):
    """words of 64 with no bit, every bit, 39, 40 and 63 bits, full bytes among random
    ones, and runs of full words that cross a chunk's end, cycling through n rows"""
    rng = np.random.default_rng(seed)
    kinds = []
    for bits in (0, 64, 39, 40, 63, 1, 64, 64, 64, 8, 56):
        w = np.zeros(64, bool)
        w[rng.permutation(64)[:bits]] = True
        kinds.append(w)
    bytes_ = np.zeros(64, bool)  # two full bytes among 30 other bits: the dense path
    bytes_[8:16] = bytes_[40:48] = True
    others = np.setdiff1d(np.arange(64), np.r_[8:16, 40:48])
    bytes_[rng.permutation(others)[:30]] = True
    assert bytes_.sum() == 46
    kinds.append(bytes_)
    words = [kinds[i % len(kinds)] for i in range(n // 64 + 1)]
    m = np.concatenate(words)[:n]
    lo, hi = CHUNK - 200, CHUNK + 300  # a run of set rows across the first chunk's end
    m[max(0, min(lo, n)):min(hi, n)] = True
    return m


def values(n, tail, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-100, 100, (n, *tail))
    return a.astype(dtype)


@pytest.mark.parametrize("tail,dtype", ROWS)
@pytest.mark.parametrize("n", [1, 63, 64, 65, 200, CHUNK - 1, CHUNK + 1, 2 * CHUNK + 70])
def test_compress_matches_numpy(device, tail, dtype, n):
    a = values(n, tail, dtype, seed=n)
    x = pdt.from_numpy(a).to(device)
    masks = [mask_of(n, d, seed=n + int(100 * d)) for d in (0.0, 0.01, 0.5, 0.99, 1.0)]
    masks.append(structured(n, seed=n))
    for m in masks:
        got = x[pdt.from_numpy(m).to(device)]
        assert got.dtype == x.dtype and tuple(got.shape) == a[m].shape
        np.testing.assert_array_equal(got.cpu().numpy(), a[m])


@pytest.mark.parametrize("threads", [1, 2])
def test_compress_with_each_thread_count_and_leading_dims(device, threads):
    """several chunks split across one or two threads; a mask of two dims over a 3-d x"""
    before = pdt.get_num_threads()
    pdt.set_num_threads(threads)
    try:
        n = 5 * CHUNK + 17
        a = values(n, (), "float32", seed=3)
        for m in (mask_of(n, 0.3, 4), structured(n, 5)):
            np.testing.assert_array_equal(
                pdt.from_numpy(a).to(device)[pdt.from_numpy(m).to(device)].cpu().numpy(), a[m])
        b = values(300 * 500, (3,), "int16", seed=6).reshape(300, 500, 3)
        m2 = mask_of(300 * 500, 0.7, 7).reshape(300, 500)
        np.testing.assert_array_equal(
            pdt.from_numpy(b).to(device)[pdt.from_numpy(m2).to(device)].cpu().numpy(), b[m2])
    finally:
        pdt.set_num_threads(before)


def test_every_short_length_and_offset(device):
    """1-d masks of every length 0 to 140 (a word's tail, one and two words and past)
    at three densities, and full runs starting at each offset of a word"""
    for n in range(141):
        a = np.arange(n, dtype=np.int32) * 3 - 7
        x = pdt.from_numpy(a).to(device)
        for density in (0.1, 0.6, 0.97):
            m = mask_of(n, density, seed=n * 10 + int(10 * density))
            np.testing.assert_array_equal(x[pdt.from_numpy(m).to(device)].cpu().numpy(), a[m])
    a = np.arange(512, dtype=np.float64)
    x = pdt.from_numpy(a).to(device)
    for start in range(0, 130, 7):
        m = np.zeros(512, bool)
        m[start:start + 300] = True
        np.testing.assert_array_equal(x[pdt.from_numpy(m).to(device)].cpu().numpy(), a[m])


def flipped(m, at):
    """m with the bytes at positions `at` flipped, as a bool array"""
    out = np.array(m, dtype=bool)
    out[at] = ~out[at]
    return out


def test_a_mask_changed_between_the_count_and_the_write_is_refused_not_overrun():
    """the kernel counts the mask, gets its result, then writes: a mask written between
    the two (another thread; here _C._compress's flip, positions flipped in between) is
    a ValueError naming the count, and the rows it would write past the result's end
    (or past a chunk's own rows) are never written (ASan's job checks)"""
    n = 3 * CHUNK + 5
    a = mask_of(n, 0.5, 3)
    m = pdt.from_numpy(a)
    x = pdt.arange(n, dtype=pdt.float32)
    c = int(np.count_nonzero(a))
    np.testing.assert_array_equal(_C._compress(x, m).numpy(), x.numpy()[a])
    false_at, true_at = np.flatnonzero(~a), np.flatnonzero(a)
    for at in ([false_at[0]], [true_at[-1]], list(false_at[-3:]), [false_at[5], n - 1]):
        m = pdt.from_numpy(mask_of(n, 0.5, 3))
        with pytest.raises(ValueError, match=f"of {n} elements changed while it was read.*"
                                             f" {c} true elements counted"):
            _C._compress(x, m, pdt.tensor(at, dtype=pdt.int64))
        np.testing.assert_array_equal(m.numpy(), flipped(a, at))  # the flips happened
    # one True made False and one False made True in one chunk: the count holds, and
    # the rows are the changed mask's
    m = pdt.from_numpy(mask_of(n, 0.5, 3))
    at = [true_at[10], false_at[10]]
    np.testing.assert_array_equal(_C._compress(x, m, pdt.tensor(at, dtype=pdt.int64)).numpy(),
                                  x.numpy()[flipped(a, at)])
    # runs of full words counted short: their memcpy is bounded by the chunk's rows
    holes = [7, 64 * 5 + 1, CHUNK + 3, n - 2]
    full = np.ones(n, bool)
    full[holes] = False
    with pytest.raises(ValueError, match=f"{n - len(holes)} true elements counted"):
        _C._compress(x, pdt.from_numpy(full), pdt.tensor(holes, dtype=pdt.int64))
    # a dense mask with 3 of its last False bytes made True: the full bytes near the end
    # no longer fit the chunk's last rows, which then go to the scratch row
    dense = mask_of(n, 0.97, 4)
    at = list(np.flatnonzero(~dense)[-3:])
    with pytest.raises(ValueError, match="changed while it was read"):
        _C._compress(x, pdt.from_numpy(dense), pdt.tensor(at, dtype=pdt.int64))
    for shape, dtype in ROWS:  # every row size's writer, with a chunk that finds more
        if 0 in shape:  # empty rows: nothing written, the count's rows returned
            continue
        xs = pdt.from_numpy(values(n, shape, dtype, seed=5))
        with pytest.raises(ValueError, match="changed while it was read"):
            _C._compress(xs, pdt.from_numpy(mask_of(n, 0.5, 3)),
                         pdt.tensor([false_at[1], false_at[-1]], dtype=pdt.int64))
    with pytest.raises(ValueError, match=r"1-D bool mask of x's 196613 rows .* got float32"):
        _C._compress(x, pdt.zeros(n))
    with pytest.raises(ValueError, match=r"got bool mask of 1 dims and 4 elements"):
        _C._compress(x, pdt.ones(4, dtype=pdt.bool))
    with pytest.raises(IndexError, match=f"position {n} outside the mask's {n}"):
        _C._compress(x, m, pdt.tensor([n], dtype=pdt.int64))
    with pytest.raises(TypeError, match="flip: a contiguous 1-D int64"):
        _C._compress(x, m, pdt.tensor([1.0]))
    assert tuple(_C._compress(pdt.zeros((0, 2)), pdt.zeros(0, dtype=pdt.bool)).shape) == (0, 2)


def test_empty_rows_through_the_composed_path(device):
    """x of shape (n, 0) indexed and written by a mask and by an index on the path that
    autograd takes (reshape(-1, 0) of an empty tensor cannot infer its rows: they are
    spelled out)"""
    m = pdt.tensor([True, False, True, True], device=device)
    x = pdt.zeros((4, 0), device=device, requires_grad=True)
    assert tuple(x[m].shape) == (3, 0)
    assert tuple(x[pdt.tensor([0, 2], device=device)].shape) == (2, 0)
    y = pdt.zeros((4, 0), device=device)
    y[m] = pdt.zeros((3, 0), device=device)
    y[pdt.tensor([1, 3], device=device)] = pdt.zeros((2, 0), device=device)
    assert tuple(y.shape) == (4, 0)


@pytest.mark.parametrize("level", pdt._C._cpu_simd_level()[1])
def test_compress_at_every_level(level, level_restored):
    """the mask's bits come from the level's nonzero_bits (SSE2's and AVX2's movemask on
    x86, a multiply elsewhere): every kind of word, True bytes other than 1, on the CPU"""
    pdt._C._cpu_simd_level(level)
    n = CHUNK + 1000
    a = values(n, (), "int16", seed=9)
    x = pdt.from_numpy(a)
    for m in (structured(n, 10), mask_of(n, 0.5, 11), mask_of(n, 0.02, 12)):
        np.testing.assert_array_equal(x[pdt.from_numpy(m)].numpy(), a[m], err_msg=level)


@pytest.mark.parametrize("n", [64, 65, 200, CHUNK + 1, 2 * CHUNK + 70])
def test_nonzero_of_a_1d_mask_reads_the_same_words(device, n):
    """nonzero of a 1-d mask takes the words of bits as compress does: each kind of word
    and density gives NumPy's argwhere"""
    for m in [mask_of(n, d, seed=n + int(100 * d)) for d in (0.01, 0.5, 0.99, 1.0)] + [
            structured(n, seed=n)]:
        np.testing.assert_array_equal(pdt.nonzero(pdt.from_numpy(m).to(device)).cpu().numpy(),
                                      np.argwhere(m))
