"""OpenBLAS without memory for its scratch buffers (issue 14, Note [OpenBLAS scratch
memory] in csrc/cpu/cpu_blas_memory.c): OpenBLAS calls exit(1) when it cannot map a
buffer, so the package checks first and raises OutOfMemoryError, and the next product
works once memory is there.  An address-space limit (RLIMIT_AS) is how this fails in
practice; each case runs in a fresh process, since the limit and the loaded library
are per process."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ASan reserves terabytes of shadow memory, so no address-space limit can be set under it.
pytestmark = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                reason="RLIMIT_AS cannot be used under AddressSanitizer")

# Raises the limit 1 MiB at a time from just above what the process uses, trying a
# product at each step, until one succeeds: every step below must be a MemoryError
# that leaves the process working (the library's load, then its first buffer, are
# the two places OpenBLAS would otherwise exit).  Then the same for a second thread
# multiplying while the first is held inside a product... not possible from Python,
# so the concurrent case is the threads test below.
SWEEP = """
import resource
import pydevtensor as pdt
from pydevtensor import OutOfMemoryError

def vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize"):
                return int(line.split()[1]) * 1024

a = pdt.ones(256, 256)
_, hard = resource.getrlimit(resource.RLIMIT_AS)
base = vm_bytes()
failures, messages = 0, set()
for extra_mib in range(0, 400):
    resource.setrlimit(resource.RLIMIT_AS, (base + extra_mib * 2**20, hard))
    try:
        c = pdt.matmul(a, a)
    except OutOfMemoryError as e:
        assert isinstance(e, MemoryError)
        failures += 1
        messages.add(str(e).split(", and")[0])
        continue
    break
else:
    raise SystemExit("no product succeeded under 400 MiB more than the process had")
resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
assert float(c[0, 0]) == 256.0 and float(c.sum()) == 256.0 ** 3
print(failures, "|".join(sorted(messages)))
"""


def run(code, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    env.pop("OMP_NUM_THREADS", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env=env)
    assert "OpenBLAS error" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_out_of_address_space_is_a_memory_error_then_works(threads):
    failures, messages = run(SWEEP, threads).strip().split(" ", 1)
    # the limit started below what loading needs, so some attempts failed, each one
    # naming what it was for
    assert int(failures) > 0
    pool = min(threads, len(os.sched_getaffinity(0)))  # OpenBLAS's own cap
    assert "loading with a pool of %d thread" % pool in messages


THREADS = """
import resource, threading
import pydevtensor as pdt
from pydevtensor import OutOfMemoryError

a = pdt.ones(1024, 1024)
pdt.matmul(a, a)  # loaded, and the first buffer is OpenBLAS's
_, hard = resource.getrlimit(resource.RLIMIT_AS)
results = []
def worker():
    try:
        results.append(float(pdt.matmul(a, a).sum()))
    except OutOfMemoryError as e:
        results.append(str(e))
# threads start (their stacks mapped) before the limit; the limit then leaves room for
# nothing but what already exists: each product needs a buffer only when more of them
# run at once than ever did
barrier = threading.Barrier(5)
def gated():
    barrier.wait()
    worker()
ts = [threading.Thread(target=gated) for _ in range(4)]
for t in ts:
    t.start()
with open("/proc/self/status") as f:
    vm = [int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize")][0]
resource.setrlimit(resource.RLIMIT_AS, (vm + 8 * 2**20, hard))
barrier.wait()
for t in ts:
    t.join()
resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
ok = [r for r in results if isinstance(r, float)]
assert all(r == 1024.0 ** 3 for r in ok), results
assert all("OpenBLAS needs" in r for r in results if isinstance(r, str)), results
print(float(pdt.matmul(a, a).sum()))
"""


def test_concurrent_products_under_a_limit_fail_cleanly():
    assert float(run(THREADS, 2)) == 1024.0 ** 3
