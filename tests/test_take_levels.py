"""The take at int64 indices inside index_select, x[v] and take (Note [the take's checks
in vectors] in csrc/cpu/cpu_vtake.h): at every CPU level, elements of 1, 2, 4 and 8
bytes, lengths around the four indices a vector holds, indices from the end, and an
index written after the core's check (by a logging handler, as another thread could):
an IndexError from the kernel's own check, in the vector part and in the tail."""
import logging

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import OnLog
from pydevtensor import _C

DTYPES = ["uint8", "float16", "int16", "float32", "int32", "float64", "int64"]


@pytest.mark.parametrize("level", _C._cpu_simd_level()[1])
def test_take_at_every_level_is_numpys(level, level_restored):
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(61)
    for dtype in DTYPES:
        for size in (1, 5, 300):
            a = rng.integers(0, 100, size).astype(dtype)
            x = pdt.from_numpy(a)
            for n in list(range(14)) + [1001]:
                idx = rng.integers(-size, size, n)
                if n >= 2:
                    idx[0], idx[-1] = -size, size - 1  # the ends of the range
                v = pdt.from_numpy(idx)
                want = a[idx]
                np.testing.assert_array_equal(x[v].numpy(), want, err_msg=(level, dtype, n))
                np.testing.assert_array_equal(x.index_select(0, pdt.from_numpy(idx % size)).numpy(),
                                              want, err_msg=(level, dtype, n))
                np.testing.assert_array_equal(pdt.take(x, v).numpy(), want)


@pytest.mark.parametrize("level", _C._cpu_simd_level()[1])
@pytest.mark.parametrize("at", [1, 9])  # in the first four, and in the tail of 11
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "int64"])
def test_an_index_written_after_the_check_is_caught_by_the_take(level, at, dtype,
                                                                level_restored):
    _C._cpu_simd_level(level)
    x = pdt.from_numpy(np.arange(8).astype(dtype))
    v = pdt.tensor([0, 7, 2, 3, 4, 5, 6, 1, 0, 2, 3])
    bad = v.numpy().copy()
    bad[at] = -(1 << 40)
    h = OnLog("index_select", lambda: v.copy_(pdt.from_numpy(bad)))
    logger = logging.getLogger("pydevtensor.placement")
    logger.addHandler(h)
    pdt.config.set_log_device_placement(True)
    try:
        with pytest.raises(IndexError, match=r"index -1099511627776 is out of bounds for size 8 "
                                             r"\(on cpu\): the index tensor was written to"):
            x.index_select(0, v)
    finally:
        pdt.config.set_log_device_placement(False)
        logger.removeHandler(h)
    assert h.done
