"""fork() and interpreter exit while other threads multiply (issue 14, Note [OpenBLAS
and fork] in csrc/cpu/cpu_blas.c): OpenBLAS's own fork handler and destructor stop its
thread pool, and hung when a GEMM of another thread was in flight."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GEMM_THREADS = """
import threading
import pydevtensor as pdt
a = pdt.randn(768, 768)
pdt.matmul(a, a)  # OpenBLAS loaded, its pool started
stop = False
def spin():
    while not stop:
        pdt.matmul(a, a)
threads = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
for t in threads:
    t.start()
"""


def run(code, timeout=90):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="4")  # a pool, even on a small machine
    proc = subprocess.run([sys.executable, "-c", GEMM_THREADS + textwrap.dedent(code)],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_multiprocessing_fork_while_other_threads_multiply():
    out = run("""
        import multiprocessing as mp
        def child(q):
            q.put(float(pdt.matmul(pdt.ones(64, 64), pdt.ones(64, 64)).sum()))
        ctx = mp.get_context("fork")
        results = []
        for i in range(12):
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start()
            results.append(q.get(timeout=30))
            p.join(30)
            assert p.exitcode == 0, p.exitcode
        stop = True
        print(set(results))
    """)
    assert out.strip() == "{262144.0}"


def test_exit_while_daemon_threads_multiply():
    for _ in range(3):
        assert run("""
            import time
            time.sleep(0.2)
            print("exiting")
        """, timeout=60).strip() == "exiting"
