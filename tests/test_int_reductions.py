"""Integer sums, maxima and minima and the bool count (a bool sum) on the CPU go
through the dispatch level's kernels (csrc/cpu/cpu_vint.h): exact, wrapping like
PyTorch's, the same at every instruction-set level.  Checked against NumPy at every
level, at lengths that end inside the kernels' lanes and blocks (16 lanes; bool
bytes counted in 64 lanes of up to 255 each), with the extremes at either end."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

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
