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


def test_a_mask_that_does_not_hold_the_count_is_refused_not_overrun():
    m = pdt.from_numpy(mask_of((3 * CHUNK + 5,), 0.5, 3))
    n = int(m.sum())
    assert _C._nonzero(m, n).shape == (n, 1)
    for wrong in (n - 1, 0, n + 1):
        with pytest.raises(ValueError, match=f"holds {n} true elements, not the {wrong} counted"):
            _C._nonzero(m, wrong)
    with pytest.raises(ValueError, match="count within its"):
        _C._nonzero(m, 3 * CHUNK + 6)
    with pytest.raises(ValueError, match="expected a bool tensor"):
        _C._nonzero(pdt.zeros(4), 0)
    empty = _C._nonzero(pdt.zeros(0, dtype=pdt.bool), 0)
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
