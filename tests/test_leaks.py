"""10^5 create / copy / convert / free cycles leave RSS, refcounts and the
accounting flat (issue 3; issue 9 extends this)."""
import gc
import sys

import numpy as np

import pydevtensor as pdt

CYCLES = 100_000
# Under AddressSanitizer freed memory sits in a quarantine, so RSS says nothing
# about leaks there; LeakSanitizer checks them instead.
SANITIZED = bool(pdt.build_info()["sanitize"])


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_create_copy_free_cycles_are_flat():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    data = [[1.0, 2.0], [3.0, 4.0]]
    dev = pdt.try_gpu()

    def cycle():
        x = pdt.ones(3, 4, device=dev)
        y = x.to(pdt.float64)
        z = y.clone()
        t = pdt.tensor(data, device=dev)
        f = pdt.from_numpy(a)
        g = f.to(dev)
        n = f.numpy()
        r = pdt.rand(8, device=dev)
        row = z[1]
        s = t.cpu().tolist()
        del x, y, z, t, f, g, n, r, row, s

    for _ in range(2000):  # warm up the allocators
        cycle()
    gc.collect()
    refs = (sys.getrefcount(a), sys.getrefcount(data), sys.getrefcount(dev))
    allocated = pdt.memory_allocated("cpu")
    before = rss_bytes()
    for _ in range(CYCLES):
        cycle()
    gc.collect()
    growth = rss_bytes() - before
    if not SANITIZED:
        assert growth < 2 * 2**20, f"RSS grew by {growth / 2**20:.2f} MiB over {CYCLES} cycles"
    assert (sys.getrefcount(a), sys.getrefcount(data), sys.getrefcount(dev)) == refs
    assert pdt.memory_allocated("cpu") == allocated


def test_failed_creations_do_not_leak():
    gc.collect()
    before = rss_bytes()
    allocated = pdt.memory_allocated("cpu")
    for _ in range(20_000):
        for bad in ([[1, 2], [3]], [1, "x"]):
            try:
                pdt.tensor(bad)
            except (ValueError, TypeError):
                pass
        try:
            pdt.zeros(2, -1)
        except ValueError:
            pass
    gc.collect()
    if not SANITIZED:
        assert rss_bytes() - before < 2 * 2**20
    assert pdt.memory_allocated("cpu") == allocated
