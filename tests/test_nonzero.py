"""nonzero and its tuple form against NumPy's argwhere and nonzero on every device:
the CPU's kernel (Note [nonzero on the CPU] in csrc/cpu/cpu_nonzero.c: chunks of
65,536 elements counted, then written, across threads) and the composed path
elsewhere.  Shapes of one to four dims, sizes that end just inside and past a
chunk, masks with no, some and all elements set, True bytes other than 1, views."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

CHUNK = 65536
SHAPES = [(1,), (5,), (CHUNK - 1,), (CHUNK,), (2 * CHUNK + 3,), (3, 7), (257, 513),
          (2, 3, 4), (3, 5, 7, 11), (2, 1, 3)]


def mask_of(shape, density, seed):
    rng = np.random.default_rng(seed)
    raw = (rng.random(shape) < density).astype(np.uint8)
    raw *= rng.integers(1, 256, shape).astype(np.uint8)  # any non-zero byte is True
    return raw.view(bool)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_nonzero_matches_numpy(device, shape, density):
    m = mask_of(shape, density, seed=len(shape) + int(10 * density))
    tm = pdt.from_numpy(m).to(device)
    got = pdt.nonzero(tm)
    assert got.dtype == pdt.int64 and tuple(got.shape) == (int(np.count_nonzero(m)), len(shape))
    np.testing.assert_array_equal(got.cpu().numpy(), np.argwhere(m))
    parts = pdt.nonzero(tm, as_tuple=True)
    assert len(parts) == len(shape)
    for got_k, want_k in zip(parts, np.nonzero(m)):
        np.testing.assert_array_equal(got_k.cpu().numpy(), want_k)
    # a float input: its non-zero elements; a transposed view: in its own index order
    values = np.where(m, np.float32(1.5), np.float32(0.0))
    np.testing.assert_array_equal(pdt.nonzero(pdt.from_numpy(values).to(device)).cpu().numpy(),
                                  np.argwhere(values))
    if len(shape) >= 2:
        np.testing.assert_array_equal(pdt.nonzero(tm.T).cpu().numpy(), np.argwhere(m.T))


@pytest.mark.parametrize("shape", [(3 * CHUNK + 5,), (3, CHUNK + 7)])
def test_a_mask_changed_between_the_count_and_the_write_is_refused_not_overrun(shape):
    """the kernel counts the mask, gets its result, then writes: a mask written between
    the two (_C._nonzero's flip: positions of the flat mask flipped in between) is a
    ValueError naming the count, with nothing written past a chunk's rows (ASan's job
    checks); 1-d masks by words of bits, others by elements"""
    a = mask_of(shape, 0.5, 3)
    c = int(np.count_nonzero(a))
    np.testing.assert_array_equal(_C._nonzero(pdt.from_numpy(a)).numpy(), np.argwhere(a))
    flat = a.reshape(-1)
    false_at, true_at = np.flatnonzero(~flat), np.flatnonzero(flat)
    for at in ([false_at[0]], [true_at[-1]], list(false_at[-3:])):
        m = pdt.from_numpy(mask_of(shape, 0.5, 3))
        with pytest.raises(ValueError, match=f"changed while it was read.* {c} true elements"):
            _C._nonzero(m, pdt.tensor(at, dtype=pdt.int64))
    m = pdt.from_numpy(mask_of(shape, 0.5, 3))
    at = [true_at[10], false_at[10]]  # one chunk's count holds: the changed mask's rows
    want = flat.copy()
    want[at] = ~want[at]
    np.testing.assert_array_equal(_C._nonzero(m, pdt.tensor(at, dtype=pdt.int64)).numpy(),
                                  np.argwhere(want.reshape(shape)))
    with pytest.raises(ValueError, match="expected a bool tensor"):
        _C._nonzero(pdt.zeros(4))
    empty = _C._nonzero(pdt.zeros(0, dtype=pdt.bool))
    assert tuple(empty.shape) == (0, 1)


def test_nonzero_of_every_short_length_and_pattern(device):
    """1-d masks of every length 0 to 40 at three densities, and every pattern of four
    bytes at each offset, True bytes other than 1 among them."""
    rng = np.random.default_rng(5)
    for n in range(41):
        for density in (0.1, 0.5, 0.9):
            m = mask_of((n,), density, seed=n * 10 + int(10 * density))
            np.testing.assert_array_equal(pdt.nonzero(pdt.from_numpy(m).to(device)).cpu().numpy(),
                                          np.argwhere(m))
    patterns = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(np.uint8).reshape(-1)
    for shift in range(4):
        raw = np.concatenate([np.zeros(shift, np.uint8), patterns * rng.integers(1, 256, 64,
                                                                                dtype=np.uint8)])
        m = raw.view(bool)
        np.testing.assert_array_equal(pdt.nonzero(pdt.from_numpy(m).to(device)).cpu().numpy(),
                                      np.argwhere(m))


@pytest.mark.parametrize("shape", [(CHUNK + 7, 1), (1, CHUNK + 7), (5, 1, 1), (7, 1, 2, 1, 5),
                                   (3, 64), (130, 3), (2, 2 * CHUNK + 1), (9, 8, 7, 6, 5, 4)])
def test_nonzero_carries_coordinates_across_rows(device, shape):
    """a mask of 2 or more dims is read as words of bits, each true element's coordinates
    carried on from the last one's: steps within a row, across one row, across many
    (a division), through dims of size 1, across a chunk's end; full words, words of
    single bits, and masks where only a row's first or last element is set"""
    n = int(np.prod(shape))
    masks = [mask_of(shape, d, seed=n + int(1000 * d)) for d in (0.001, 0.02, 0.5, 0.97, 1.0)]
    ends = np.zeros(shape, bool)
    ends[..., 0] = True
    ends.reshape(-1)[-1] = True
    lasts = np.zeros(shape, bool)
    lasts[..., -1] = True
    for m in masks + [ends, lasts]:
        np.testing.assert_array_equal(pdt.nonzero(pdt.from_numpy(m).to(device)).cpu().numpy(),
                                      np.argwhere(m))
