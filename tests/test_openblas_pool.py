"""OpenBLAS runs its parallel parts on pydevtensor's pool (Note [OpenBLAS on our pool] in
csrc/cpu/cpu_blas.c, Note [parts that wait on each other] in csrc/cpu/cpu_parallel.c).

The parts of a threaded GEMM wait on each other, so every part must get a thread at
once: on the pool, waiting for it when another caller has it, and on threads started for
the group when OpenBLAS has more parts than the pool has threads.  Each check runs in a
fresh process with a known thread count; a deadlock shows as run_python's timeout."""
import pytest

import pydevtensor as pdt
from conftest import run_python, usable_cores

pytestmark = pytest.mark.skipif(
    pdt.build_info()["blas"]["runs_on"] != "pydevtensor's pool",
    reason="this OpenBLAS cannot hand its parts over (older than 0.3.27)")

# OpenBLAS's thread count from the environment caps its share of the pool (Note
# [OpenBLAS's idle threads]): these checks start from none of it
_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_DEFAULT_NUM_THREADS")


def _run(code, drop=(), **env):
    return run_python(code, drop=_BLAS_VARS + tuple(drop), **env)


# Sizes big enough for OpenBLAS to split a product into parts (m*n*k well above its
# threshold of 65,536 per thread), in float32 and float64, square and skinny.
_PRODUCTS = """
import numpy as np, pydevtensor as p
rng = np.random.default_rng(7)
cases = [rng.standard_normal(s).astype(t) for s, t in
         [((256, 300), np.float32), ((300, 200), np.float32),
          ((64, 784), np.float64), ((784, 256), np.float64)]]
def check():
    bad = 0
    for a, b in [(cases[0], cases[1]), (cases[2], cases[3])]:
        got = (p.from_numpy(a) @ p.from_numpy(b)).numpy().astype(np.float64)
        want = a.astype(np.float64) @ b.astype(np.float64)
        tol = 1e-4 if a.dtype == np.float32 else 1e-12
        bad += not np.allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    return bad
"""


def _set_blas_threads():
    """The loaded OpenBLAS's own openblas_set_num_threads, as a line of Python."""
    prefix = "scipy_" if pdt.build_info()["blas"]["provider"].startswith("scipy") else ""
    path = pdt.build_info()["libraries"]["OpenBLAS"]["path"]
    return f"ctypes.CDLL({path!r}).{prefix}openblas_set_num_threads"


def test_openblas_reports_the_pool_and_its_thread_count():
    out = _run("import pydevtensor as p; b = p.build_info()['blas']\n"
                     "print(p.get_num_threads(), b['threads'], b['runs_on'])",
                     OMP_NUM_THREADS="3")
    assert out == ["3", str(min(3, usable_cores())), "pydevtensor's", "pool"]


@pytest.mark.parametrize("load_first", [False, True])
def test_set_num_threads_sizes_openblas_whether_or_not_it_is_loaded(load_first):
    # Before OpenBLAS is loaded, set_num_threads leaves it unloaded (loading starts its
    # threads, which spin for ~0.1 s); loading it later takes the pool's count then.
    code = ("import pydevtensor as p, sys\n"
            + ("p.ones(2, 2) @ p.ones(2, 2)\n" if load_first else "")
            + "p.set_num_threads(1)\n"
            "print(any('openblas' in m for m in open('/proc/self/maps').read().split()))\n"
            "print(p.build_info()['blas']['threads'], p.get_num_threads())\n")
    out = _run(code, OMP_NUM_THREADS="2")
    assert out == [str(load_first), "1", "1"]


@pytest.mark.parametrize("blas_threads", [3, 5])
def test_more_parts_than_the_pool_has_threads_run_on_threads_of_their_own(blas_threads):
    # OpenBLAS told directly (as threadpoolctl would) to use more threads than the
    # pool has: the parts beyond the pool's 2 get threads started for the group.
    code = (_PRODUCTS + "import ctypes\n"
            "p.ones(2, 2) @ p.ones(2, 2)  # loads OpenBLAS and hands it the pool\n"
            f"{_set_blas_threads()}({blas_threads})\n"
            "print(p.build_info()['blas']['threads'], p.get_num_threads())\n"
            "print(sum(check() for _ in range(5)))\n")
    out = _run(code, OMP_NUM_THREADS="2")
    assert out == [str(blas_threads), "2", "0"]


def test_products_and_loops_from_several_threads_share_the_pool_and_stay_right():
    # Two threads multiply while a third runs loops big enough for the pool: a group
    # of parts waits for the pool instead of running its parts one after another
    # (which would deadlock), and a loop finding the pool taken runs on its own thread.
    code = (_PRODUCTS + "import threading\n"
            "x = p.from_numpy(rng.standard_normal(400_000).astype(np.float32))\n"
            "want = (x.numpy().astype(np.float64) * 2 + 1).astype(np.float32)\n"
            "bad = []\n"
            "def products():\n"
            "    bad.append(sum(check() for _ in range(15)))\n"
            "def loops():\n"
            "    bad.append(sum(not np.array_equal((x * 2 + 1).numpy(), want)\n"
            "                   for _ in range(60)))\n"
            "ts = [threading.Thread(target=f) for f in (products, products, loops)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "print(len(bad), sum(bad))\n")
    assert _run(code, OMP_NUM_THREADS="2") == ["3", "0"]


def test_a_single_thread_runs_products_without_the_pool():
    code = _PRODUCTS + "p.set_num_threads(1)\nprint(p.build_info()['blas']['threads'], check())\n"
    assert _run(code, OMP_NUM_THREADS="2") == ["1", "0"]


def test_products_stay_right_after_the_pool_grows():
    code = (_PRODUCTS + "a = check()\np.set_num_threads(4)\n"
            "print(p.build_info()['blas']['threads'], a, check())\n")
    assert _run(code, OMP_NUM_THREADS="2") == [str(min(4, usable_cores())), "0", "0"]


def test_the_parent_still_multiplies_after_a_fork_and_so_does_the_child():
    code = (_PRODUCTS + "import os\nprint(check())\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os._exit(10 + check())\n"
            "_, status = os.waitpid(pid, 0)\n"
            "print(os.waitstatus_to_exitcode(status), check())\n")
    assert _run(code, OMP_NUM_THREADS="2") == ["0", "10", "0"]



def test_products_and_loops_stay_right_beside_a_busy_process():
    # A process spinning beside this one makes the pool's threads lose their cores, so
    # loops take the path where the caller runs slices no worker started (Note [claimed
    # slices]) and spinning stops under load (Note [spinning under load]); the values
    # must not change.
    code = (_PRODUCTS + "import subprocess, sys, threading\n"
            "busy = subprocess.Popen([sys.executable, '-c', 'while True: pass'])\n"
            "try:\n"
            "    x = p.from_numpy(rng.standard_normal(400_000).astype(np.float32))\n"
            "    want = (x.numpy().astype(np.float64) * 2 + 1).astype(np.float32)\n"
            "    bad = [check() for _ in range(10)]\n"
            "    bad += [not np.array_equal((x * 2 + 1).numpy(), want) for _ in range(100)]\n"
            "    s = [x.sum().item() for _ in range(20)]\n"
            "    bad.append(len(set(s)) != 1)\n"
            "finally:\n"
            "    busy.kill()\n"
            "print(sum(bad))\n")
    assert _run(code, OMP_NUM_THREADS="2") == ["0"]


_IDLE = """
import ctypes, time
import numpy as np, pydevtensor as p
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
time.sleep(0.4)               # NumPy's own OpenBLAS threads have gone to sleep
a = p.ones(512, 512)
assert (a @ a).sum().item() == 512.0 ** 3  # loads OpenBLAS; the product runs in parts
t0 = time.process_time()
time.sleep(0.3)
busy = time.process_time() - t0  # CPU time of every thread of the process
print(libc.getenv(b"OPENBLAS_THREAD_TIMEOUT"), busy < 0.05)
"""


@pytest.mark.parametrize("user_value", [None, "20"])
def test_openblas_idle_threads_sleep_and_the_environment_is_left_as_it_was(user_value):
    # Note [OpenBLAS's idle threads] in csrc/cpu/cpu_blas.c: OpenBLAS is loaded with
    # OPENBLAS_THREAD_TIMEOUT=4 unless the process set it, so its own threads (never
    # given work on our pool) do not spin 0.2-0.5 s of a core after the first product;
    # the variable is gone again after the load, and a value of the user's stays.
    env = {"OMP_NUM_THREADS": "2"}
    if user_value:
        env["OPENBLAS_THREAD_TIMEOUT"] = user_value
    out = _run(_IDLE, drop=("OPENBLAS_THREAD_TIMEOUT",), **env)
    if user_value:
        assert out[0] == f"b'{user_value}'"
    else:
        assert out == ["None", "True"]
