"""Memory accounting, limits and out-of-memory recovery (issue 3)."""
import gc

import pytest

import pydevtensor as pdt
from pydevtensor import _C


def test_cpu_allocations_are_counted_exactly():
    gc.collect()
    before = pdt.memory_allocated("cpu")
    pdt.reset_peak_memory_stats("cpu")
    x = pdt.empty(1000, dtype=pdt.float64)
    assert pdt.memory_allocated("cpu") == before + 8000
    y = x.to(pdt.float32)
    assert pdt.memory_allocated("cpu") == before + 12000
    del x
    assert pdt.memory_allocated("cpu") == before + 4000
    assert pdt.max_memory_allocated("cpu") >= before + 12000
    del y
    assert pdt.memory_allocated("cpu") == before
    assert pdt.memory_reserved("cpu") >= pdt.memory_allocated("cpu")


def test_views_and_foreign_memory_are_not_counted_twice():
    import numpy as np
    before = pdt.memory_allocated("cpu")
    x = pdt.zeros(100)
    v = x[5]  # a view: no new memory
    a = np.zeros(1000)
    f = pdt.from_numpy(a)  # NumPy owns it: not ours to count
    assert pdt.memory_allocated("cpu") == before + 400
    del x, v, f


def test_limit_gives_recoverable_out_of_memory():
    cpu = pdt.device("cpu")
    base = pdt.memory_allocated(cpu)
    _C._set_memory_limit(cpu, base + 10_000)
    try:
        keep = pdt.zeros(1000)  # 4000 bytes fit
        with pytest.raises(pdt.OutOfMemoryError) as exc:
            pdt.zeros(2000)  # 8000 more do not
        assert isinstance(exc.value, MemoryError)
        msg = str(exc.value)
        assert "out of memory on cpu" in msg and "tried to allocate 7.81 KiB" in msg
        assert "limit 9.77 KiB" in msg or "limit" in msg
        assert "allocated by pydevtensor" in msg and "free on the device" in msg
        assert pdt.memory_allocated(cpu) == base + 4000  # nothing half-allocated
        with pytest.raises(pdt.OutOfMemoryError):
            keep.to(pdt.float64)
        assert pdt.memory_allocated(cpu) == base + 4000
    finally:
        _C._set_memory_limit(cpu, 0)
    # after: everything keeps working, and the stats are exact
    big = pdt.ones(2000)
    assert big.tolist()[-1] == 1.0
    assert pdt.memory_allocated(cpu) == base + 4000 + 8000
    assert pdt.memory_stats(cpu)["limit"] == 0


def test_out_of_memory_for_a_huge_request():
    before = pdt.memory_allocated("cpu")
    with pytest.raises(pdt.OutOfMemoryError, match="out of memory on cpu"):
        pdt.empty(2**61 // 8, dtype=pdt.float64)
    assert pdt.memory_allocated("cpu") == before


def test_reserved_peak_outlives_the_cache_and_resets(device):
    """memory_stats()['reserved_peak'] (cuda.max_memory_reserved) is the highest
    memory_reserved since the last reset_peak_memory_stats, as PyTorch's: it keeps a
    freed block's bytes after empty_cache() gives them back, and a reset starts it again
    from what is reserved now.  On a GPU it is the pool's high watermark."""
    gc.collect()
    pdt.empty_cache(device)
    pdt.reset_peak_memory_stats(device)
    start = pdt.memory_stats(device)
    assert start["reserved_peak"] == start["reserved"] >= start["allocated"]
    n = 1 << 22  # 16 MiB of float32: from the system, not from the (emptied) cache
    x = pdt.empty(n, device=device)
    grown = pdt.memory_stats(device)
    slack = 2 << 20  # a CUDA pool reserves in 2 MiB steps, so it may have had some room
    assert grown["reserved"] >= start["reserved"] + 4 * n - slack
    assert grown["reserved_peak"] >= grown["reserved"]
    del x
    pdt.empty_cache(device)
    after = pdt.memory_stats(device)
    assert after["reserved"] <= grown["reserved"] - 4 * n + slack
    assert after["reserved_peak"] == grown["reserved_peak"]
    if device.type == "cuda":
        assert pdt.cuda.max_memory_reserved(device) == after["reserved_peak"]
    pdt.reset_peak_memory_stats(device)
    reset = pdt.memory_stats(device)
    assert reset["reserved_peak"] == reset["reserved"] < grown["reserved_peak"]


@pytest.mark.cuda
def test_cuda_memory_stats_and_oom_recovery():
    d = pdt.device("cuda:0")
    pdt.cuda.empty_cache()
    base = pdt.cuda.memory_allocated(d)
    x = pdt.empty(2**20, device=d)
    assert pdt.cuda.memory_allocated(d) == base + 4 * 2**20
    assert pdt.cuda.memory_reserved(d) >= pdt.cuda.memory_allocated(d)
    assert pdt.cuda.max_memory_allocated(d) >= base + 4 * 2**20
    free, total = pdt.cuda.mem_get_info(d)
    with pytest.raises(pdt.OutOfMemoryError) as exc:
        pdt.empty(total // 4 * 2, device=d)  # twice the card
    assert "out of memory on cuda:0" in str(exc.value)
    assert pdt.cuda.memory_allocated(d) == base + 4 * 2**20
    y = pdt.ones(1000, device=d)  # still works
    assert y.cpu().tolist()[0] == 1.0
    del x, y
    pdt.cuda.empty_cache()
    assert pdt.cuda.memory_allocated(d) == base
    pdt.cuda.reset_peak_memory_stats(d)
    assert pdt.cuda.max_memory_allocated(d) == base


@pytest.mark.cuda
def test_cuda_memory_limit_is_checked_before_allocating():
    d = pdt.device("cuda:0")
    base = pdt.cuda.memory_allocated(d)
    _C._set_memory_limit(d, base + 2**20)
    try:
        with pytest.raises(pdt.OutOfMemoryError, match="limit 1.00 MiB|limit"):
            pdt.empty(2**19, device=d)
    finally:
        _C._set_memory_limit(d, 0)
    assert pdt.cuda.memory_allocated(d) == base
