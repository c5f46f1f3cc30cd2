"""Two threads doing sgemm 1024 at once, against one thread doing the same work:
the speedup shows that matmul releases the GIL (issue 9).

One thread runs 2 * K float32 (1024, 1024) @ (1024, 1024) products in a row (T1);
then two threads, started together, run K each (T2).  The figure is T2 / (2 K), the
time per product with two threads; T1 / T2 is the speedup, stored with the result
("median_speedup") and shown in the target column.  2.0 is perfect overlap, 1.0
none (the GIL held, or one core).  NumPy, which releases the GIL in matmul too,
and PyTorch when it imports, give the same figure for comparison.

BLAS itself runs single-threaded here (OPENBLAS_NUM_THREADS=1 and
torch.set_num_threads(1), set before the libraries load in this worker process),
so that one product uses one core and the second thread has a core to itself;
with BLAS threads, one product would already use every core.  Each product is
checked against NumPy in float64 before any timing.
"""
import os
import threading
import time

from benchmarks.harness import Target, Timed, benchmark, compare_timed, import_problem

N = 1024
K = 4  # products per thread in the two-thread run


class MinSpeedup(Target):
    """pydevtensor's two-thread speedup (T1 / T2) at least `limit`."""

    def __init__(self, limit):
        self.limit = limit
        self.text = f"2 threads >= {limit:g}x 1 thread"

    def evaluate(self, impls):
        r = impls.get("pydevtensor") or {}
        speedups = {lib: x["median_speedup"] for lib, x in impls.items()
                    if x.get("status") == "ok" and "median_speedup" in x}
        if "pydevtensor" not in speedups or r.get("status") != "ok":
            return None, "no pydevtensor figure"
        shown = ", ".join(f"{lib} {s:.2f}x" for lib, s in speedups.items())
        return speedups["pydevtensor"] >= self.limit, f"{self.text} ({shown})"


def _two_vs_one(matmul, pairs):
    """once(): T1 with one thread, then T2 with two; seconds per product with two
    threads, the one-thread figure and the speedup."""
    def run(thread_pairs):
        start = threading.Barrier(len(thread_pairs) + 1)

        def body(mine):
            start.wait()
            for a, b in mine:
                matmul(a, b)

        threads = [threading.Thread(target=body, args=(mine,)) for mine in thread_pairs]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        return time.perf_counter() - t0

    def once():
        t1 = run([pairs[0] * K + pairs[1] * K])
        t2 = run([pairs[0] * K, pairs[1] * K])
        return {"seconds": t2 / (2 * K), "one_thread_seconds": t1 / (2 * K), "speedup": t1 / t2}
    return once


def _check(np, got, a, b, lib):
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = np.max(np.abs(np.asarray(got, dtype=np.float64) - want))
    if not err <= 1e-3 * max(1.0, np.max(np.abs(want))):
        raise AssertionError(f"{lib}: sgemm differs from NumPy in float64 by {err}")


@benchmark("threads", "sgemm 1024: 2 threads vs 1", unit="ms", target=MinSpeedup(1.5),
           number=1, repeat=5, quick_number=1, quick_repeat=2, timeout_s=600)
def sgemm_1024_two_threads(cfg):
    """Per-product time with two threads; the speedup over one thread is in the target."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy or pydevtensor load OpenBLAS
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal((N, N), dtype=np.float32),
               rng.standard_normal((N, N), dtype=np.float32)) for _ in range(2)]
    timed, results = {}, {}

    import pydevtensor as pdt
    pairs = [(pdt.from_numpy(a), pdt.from_numpy(b)) for a, b in arrays]
    _check(np, pdt.mm(*pairs[0]).numpy(), *arrays[0], "pydevtensor")
    blas = pdt.build_info()["blas"]
    timed["pydevtensor"] = Timed(_two_vs_one(pdt.mm, [[p] for p in pairs]),
                                 f"pdt.mm on 2 threads vs 1 ({blas.get('threads')} BLAS "
                                 f"threads)", warmup=1)

    _check(np, np.matmul(*arrays[0]), *arrays[0], "numpy")
    timed["numpy"] = Timed(_two_vs_one(np.matmul, [[p] for p in arrays]),
                           "np.matmul on 2 threads vs 1", warmup=1)
    try:
        import torch
        torch.set_num_threads(1)
        tpairs = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in arrays]
        _check(np, torch.mm(*tpairs[0]).numpy(), *arrays[0], "torch")
        timed["torch"] = Timed(_two_vs_one(torch.mm, [[p] for p in tpairs]),
                               "torch.mm on 2 threads vs 1", warmup=1)
    except Exception as exc:  # noqa: BLE001 - torch is optional
        results["torch"] = import_problem("torch", exc)
    results.update(compare_timed(cfg, timed))
    return {lib: results[lib] for lib in ("pydevtensor", "numpy", "torch") if lib in results}
