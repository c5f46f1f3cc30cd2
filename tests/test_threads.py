"""Threads (issue 9): ops that release the GIL give exactly the single-threaded
results when 8 threads run them at once, concurrent allocation and free keep the
memory statistics exact (and a memory limit holds under contention), and two
threads' large sgemms give the same products as one thread.

The tensors are big enough (N * N = 102,400 elements, over PDT_GIL_RELEASE_NUMEL)
that every op below runs with the GIL released, so the threads really do run in
C at the same time.  No timing is asserted here: benchmarks/bench_threads.py
measures how far two threads' sgemms overlap.
"""
import gc
import threading

import numpy as np

import pydevtensor as pdt
from pydevtensor import _C

N = 320
THREADS = 8
ROUNDS = 3


def run_threads(target, n=THREADS):
    """Runs target(i) on n threads started together; re-raises the first failure."""
    errors = []

    def body(i):
        try:
            target(i)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def mixed_work(device, seed):
    """Creation, copies, elementwise ops, reductions and matmuls on (N, N) tensors
    made from `seed`; every result as a NumPy array."""
    rng = np.random.default_rng(seed)
    a = pdt.tensor(rng.standard_normal((N, N), dtype=np.float32), device=device)
    b = pdt.from_numpy(rng.standard_normal((N, N), dtype=np.float32)).to(device)
    c = pdt.empty(N, N, device=device)
    c.copy_(a.T)
    r = {
        # creation
        "zeros": pdt.zeros(N, N, device=device),
        "full": pdt.full((N, N), float(seed), device=device),
        "arange": pdt.arange(N * N, device=device),
        "linspace": pdt.linspace(0, seed + 1, N * N, device=device),
        "eye": pdt.eye(N, device=device),
        # copies
        "copy_": c,
        "contiguous": b.T.contiguous(),
        "to": a.to(pdt.float64),
        "clone": b.clone(),
        "int": (a * 100).int(),
        # elementwise
        "add": a + b,
        "axpy": a * 1.5 - b,
        "div": a / (b.abs() + 1),
        "exp": a.exp(),
        "sin": b.sin(),
        "sigmoid": a.sigmoid(),
        "clamp": a.clamp(-0.5, 0.5),
        "compare": a > b,
        "in_place": a.clone().add_(b).mul_(0.5),
        "broadcast": a + b[0],
        # reductions
        "sum": a.sum(),
        "sum0": a.sum(dim=0),
        "mean1": b.mean(dim=1),
        "max1": a.max(dim=1).values,
        "argmin0": b.argmin(dim=0),
        "norm": a.norm(),
        "prod": (a.abs() + 0.5).prod(dim=1),
        # matmul
        "sgemm": a @ b,
        "sgemm_t": a.T @ b,
        "dgemm": a.double() @ b.double(),
        "bmm": pdt.bmm(a.reshape(4, N // 4, N), b.reshape(4, N, N // 4)),
        "int_gemm": (a * 10).int()[:64] @ (b * 10).int()[:, :64],
    }
    return {k: v.cpu().numpy().copy() for k, v in r.items()}


def test_mixed_ops_on_8_threads_match_one_thread(device):
    reference = [mixed_work(device, seed) for seed in range(THREADS)]

    def work(i):
        barrier.wait()
        for _ in range(ROUNDS):
            got = mixed_work(device, i)
            for k, want in reference[i].items():
                assert got[k].dtype == want.dtype and got[k].shape == want.shape, k
                assert np.array_equal(got[k], want, equal_nan=True), (
                    f"thread {i}: {k} differs from the single-threaded result")

    barrier = threading.Barrier(THREADS)
    run_threads(work)


def test_concurrent_allocation_and_free_keep_memory_allocated_exact(device):
    """Each thread makes tensors (with the GIL held: creation; without it: the
    outputs of big ops, allocated inside them) and frees some as it goes; while
    all of them hold what they kept, and after they free it, memory_allocated is
    exact.  Every size is a multiple of 512 bytes."""
    x = pdt.ones(N, N, device=device)
    gc.collect()
    base = pdt.memory_allocated(device)
    pdt.reset_peak_memory_stats(device)
    held = [[] for _ in range(THREADS)]
    everyone = threading.Barrier(THREADS + 1)

    def work(i):
        mine = held[i]
        for r in range(10):
            mine.append(pdt.empty(1024 * (i + 1) + 128 * r, device=device))
            mine.append(x + i)                       # allocated with the GIL released
            mine.append(x.T.contiguous())
            mine.append(x.T @ x[:, :64])             # a transposed operand: a temporary copy
            mine.append(pdt.zeros(128 * (r + 1), dtype=pdt.float64, device=device))
            del mine[::2]                            # free about half of it again
        everyone.wait()                              # all hold what they kept
        everyone.wait()                              # the main thread has counted
        mine.clear()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    everyone.wait(timeout=300)
    try:
        kept = sum(t.nbytes for mine in held for t in mine)
        assert pdt.memory_allocated(device) == base + kept
        assert pdt.max_memory_allocated(device) >= base + kept
    finally:
        everyone.wait(timeout=300)
        for t in threads:
            t.join(timeout=300)
    gc.collect()
    assert pdt.memory_allocated(device) == base


def test_memory_limit_holds_under_contention(device):
    """8 threads ask for more than a memory limit allows, all at once: the limit is
    never passed (the peak stays under it), the refused requests raise
    OutOfMemoryError, and everything is given back."""
    x = pdt.ones(N, N, device=device)
    gc.collect()
    base = pdt.memory_allocated(device)
    limit = base + 4 * x.nbytes   # room for 4 of the 8 * 4 tensors the threads want
    refused = []
    held = [[] for _ in range(THREADS)]
    both = threading.Barrier(THREADS)
    pdt.reset_peak_memory_stats(device)
    _C._set_memory_limit(pdt.device(device), limit)
    try:
        def work(i):
            both.wait()
            for _ in range(4):
                try:
                    held[i].append(x * 2.0)     # allocated inside, the GIL released
                except pdt.OutOfMemoryError as e:
                    refused.append(str(e))
            both.wait()
            held[i].clear()

        run_threads(work)
    finally:
        _C._set_memory_limit(pdt.device(device), 0)
    assert pdt.max_memory_allocated(device) <= limit
    assert len(refused) >= THREADS * 4 - 4
    assert all("the request would pass the device's memory limit" in m for m in refused)
    gc.collect()
    assert pdt.memory_allocated(device) == base


def test_two_threads_sgemm_1024_match_one_thread():
    """The product is the same whichever thread computes it, alone or beside
    another (benchmarks/bench_threads.py times the overlap)."""
    rng = np.random.default_rng(0)
    a = [pdt.from_numpy(rng.standard_normal((1024, 1024), dtype=np.float32)) for _ in range(2)]
    b = [pdt.from_numpy(rng.standard_normal((1024, 1024), dtype=np.float32)) for _ in range(2)]
    want = [(a[i] @ b[i]).numpy().copy() for i in range(2)]
    np.testing.assert_allclose(want[0], a[0].numpy().astype(np.float64) @ b[0].numpy(),
                               rtol=1e-4, atol=1e-3)  # float32 sums of 1024 products
    both = threading.Barrier(2)

    def work(i):
        both.wait()
        for _ in range(3):
            assert np.array_equal((a[i] @ b[i]).numpy(), want[i])

    run_threads(work, n=2)


# x[v], index_select, and the kernels of x[v] = values and of index_put_(accumulate=True),
# on 1e6 elements (the GIL released) and on a vector (Note [index_add of a vector])
# while another thread keeps writing an out-of-range value into v and back.
INDEX_RACE = r'''
import threading
import pydevtensor as pdt
x = pdt.zeros(1000, 1000)
v = pdt.arange(1000)
values = pdt.ones(1000, 1000)
stop = []
def writer():
    while not stop:
        v.fill_(1 << 40)
        v.fill_(999)
t = threading.Thread(target=writer)
t.start()
x1 = pdt.zeros(1000)
ops = (lambda: x[v], lambda: x.index_select(0, v), lambda: pdt._C._index_put(x, 0, v, values),
       lambda: pdt._C._index_add(x, 0, v, values), lambda: pdt._C._index_put(x1, 0, v, values[0]),
       lambda: pdt._C._index_add(x1, 0, v, values[0]))
raised = {}
try:
    for _ in range(150):
        for k, op in enumerate(ops):
            try:
                op()
            except IndexError as e:
                assert "out of bounds" in str(e), e
                raised[k] = raised.get(k, 0) + 1
finally:
    stop.append(1)
    t.join()
print("raised", raised)
'''


def test_an_index_written_to_while_an_op_reads_it_never_reads_out_of_bounds():
    """Note [the index read once] (cpu_index.c): the core checks the index, then the
    kernel runs with the GIL released; another thread writing 2^40 into the index
    meanwhile gives an IndexError or the old values' result, never an access out of
    bounds (before: a segfault).  In a child process, so that a crash fails only this."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", INDEX_RACE], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    assert proc.stdout.startswith("raised"), proc.stdout


# kthvalue, median and nanmedian of a row that another thread keeps switching between two
# contents (Note [a row written while it is read] in csrc/cpu/cpu_select.c)
ROW_RACE = r'''
import threading
import numpy as np
import pydevtensor as pdt
n = 1 << 21
x = pdt.tensor(np.random.default_rng(0).standard_normal(n).astype(np.float32))
spread, same = x.clone(), pdt.ones(n)
stop = []
def writer():
    while not stop:
        x.copy_(same)
        x.copy_(spread)
t = threading.Thread(target=writer)
t.start()
try:
    for _ in range(60):
        for v, i in (pdt.kthvalue(x, n // 2 + 1), x.median(0), x.nanmedian(0)):
            assert 0 <= int(i) < n
finally:
    stop.append(1)
    t.join()
print("ok")
'''


def test_a_row_written_to_while_an_order_statistic_reads_it_stays_in_bounds():
    """Selection reads the row twice with the GIL released; a row switched between two
    contents by another thread meanwhile gives some element of the row and an index in
    range, never an access out of bounds (before: a segfault).  In a child process."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", ROW_RACE], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    assert proc.stdout.strip() == "ok", proc.stdout
