"""The CPU's cache of freed large blocks (Note [CPU block cache] in csrc/cpu/cpu_cache.c).

Reuse must never show through: fresh tensors made from a reused block hold what their
factory promises, accounting stays exact (memory_allocated counts live tensors only,
memory_reserved adds the cache, empty_cache gives it back), and blocks stay on the
logical CPU device that freed them.  Each check runs in a fresh process, so the
figures do not depend on what the rest of the suite left cached."""
import os
import subprocess
import sys

import pytest

import pydevtensor as pdt

SANITIZED = bool(pdt.build_info().get("sanitize"))


def _run(code):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@pytest.mark.skipif(SANITIZED, reason="the cache is off under AddressSanitizer")
def test_freed_blocks_are_cached_counted_and_given_back():
    out = _run("""
import pydevtensor as p
n = 1_000_000                                  # 4 MB of float32: cached
a0, r0 = p.memory_allocated('cpu'), p.memory_reserved('cpu')
x = p.empty(n)
a1, r1 = p.memory_allocated('cpu'), p.memory_reserved('cpu')
del x
a2, r2 = p.memory_allocated('cpu'), p.memory_reserved('cpu')
y = p.empty(n)                                 # the cached block again: nothing new held
a3, r3 = p.memory_allocated('cpu'), p.memory_reserved('cpu')
del y
p.empty_cache('cpu')
a4, r4 = p.memory_allocated('cpu'), p.memory_reserved('cpu')
print(a1 - a0, r1 - r0 >= 4 * n, r1 - r0 <= 5 * n, a2 - a0, r2 == r1, a3 - a0, r3 == r1,
      a4 - a0, r4 - r0)
""")
    assert out == ["4000000", "True", "True", "0", "True", "4000000", "True", "0", "0"]


def test_a_reused_block_holds_what_the_factory_promises():
    out = _run("""
import numpy as np, pydevtensor as p
n = 250_000
for make, want in [(lambda: p.zeros(n), 0.0), (lambda: p.ones(n), 1.0),
                   (lambda: p.full((n,), 2.5), 2.5)]:
    junk = p.full((n,), float('nan')); del junk          # leaves a block of NaNs cached
    t = make()
    print(bool(np.all(t.numpy() == want)))
    del t
x = p.arange(n, dtype=p.float32); del x
print(bool(np.array_equal(p.arange(n, dtype=p.float32).numpy(), np.arange(n, dtype=np.float32))))
a = p.full((n,), 3.0); b = p.full((n,), 4.0)
for _ in range(20):                                        # results in reused blocks
    c = a * b + a
print(bool(np.all(c.numpy() == 15.0)), p.memory_allocated('cpu') == 3 * 4 * n)
""")
    assert out == ["True"] * 6


@pytest.mark.skipif(SANITIZED, reason="the cache is off under AddressSanitizer")
def test_blocks_stay_on_the_logical_device_that_freed_them():
    out = _run("""
import pydevtensor as p
from pydevtensor import config
cpu = config.list_physical_devices('CPU')[0]
config.set_logical_device_configuration(cpu, [config.LogicalDeviceConfiguration()] * 2)
n = 1_000_000
r0 = p.memory_reserved('cpu:0'), p.memory_reserved('cpu:1')
x = p.empty(n, device='cpu:1'); del x
r1 = p.memory_reserved('cpu:0'), p.memory_reserved('cpu:1')
y = p.empty(n, device='cpu:0')
r2 = p.memory_reserved('cpu:0'), p.memory_reserved('cpu:1')
print(r1[0] == r0[0], r1[1] - r0[1] >= 4 * n, r2[0] - r0[0] >= 4 * n, r2[1] == r1[1])
p.empty_cache('cpu:1')
print(p.memory_reserved('cpu:1') == r0[1], p.memory_allocated('cpu:0') - p.memory_reserved('cpu:0') <= 0)
""")
    assert out == ["True"] * 6


@pytest.mark.skipif(SANITIZED, reason="the cache is off under AddressSanitizer")
def test_a_block_up_to_the_cap_is_kept_and_a_larger_one_is_not():
    """The cache holds at most min(1 GiB, memory / 16) in all, and one block may take
    all of it: so the 800 MB float64 result of casting 1e8 float32 is kept (on a
    machine of 16 GB or more) and the next cast does not fault its pages in again."""
    out = _run("""
import os, pydevtensor as p
cap = min(1 << 30, os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGESIZE') // 16)
for frac in (0.3, 0.7, 1.1):               # classes round up by 25% at most
    n = int(cap * frac) // 4                   # float32 elements; never touched
    r0 = p.memory_reserved('cpu')
    x = p.empty(n); del x
    print(p.memory_reserved('cpu') > r0)
    p.empty_cache('cpu')
""")
    assert out == ["True", "True", "False"]  # 0.7: in the class of at most 0.875


@pytest.mark.skipif(SANITIZED, reason="the cache is off under AddressSanitizer")
def test_a_freed_block_evicts_the_devices_larger_blocks_to_fit():
    """A block freed when the cap is taken makes room by evicting the same device's
    cached blocks, largest first; blocks of other devices stay, and one that would
    need them is freed instead."""
    out = _run("""
import os, pydevtensor as p
from pydevtensor import config
cpu = config.list_physical_devices('CPU')[0]
config.set_logical_device_configuration(cpu, [config.LogicalDeviceConfiguration()] * 2)
cap = min(1 << 30, os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGESIZE') // 16)
def cached(d):
    return p.memory_reserved(d) - p.memory_allocated(d)
small, big = int(cap * 0.4) // 4, int(cap * 0.55) // 4   # classes: <= 0.5 and <= 0.69 cap
x = p.empty(small); y = p.empty(small); del x, y           # two blocks: 0.8 to 1.0 of the cap
two = cached('cpu:0')
z = p.empty(big); del z                                    # evicts enough of them to fit
print(two >= 2 * 4 * small, cached('cpu:0') >= 4 * big, cached('cpu:0') < two + 4 * big)
w = p.empty(big, device='cpu:1'); del w                    # cpu:0's blocks are not its to evict
print(cached('cpu:1') == 0, cached('cpu:0') >= 4 * big)
""")
    assert out == ["True"] * 5
