"""set_num_threads() / get_num_threads() size the CPU pool and OpenBLAS; the pool's
default honours OMP_NUM_THREADS as PyTorch does.  Each check runs in a fresh process,
so that the thread counts of the rest of the suite stay as they were."""
import pytest

import pydevtensor as pdt
from conftest import run_python, usable_cores


def _run(code, **env):  # the variables the threads are counted from, unless env sets them
    return run_python(code, drop=("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                  "OPENBLAS_DEFAULT_NUM_THREADS"), **env)


def test_default_is_the_cores_this_process_may_use():
    assert _run("import pydevtensor as p; print(p.get_num_threads())") == [str(usable_cores())]


@pytest.mark.parametrize("omp", ["1", "3", "40"])
def test_omp_num_threads_sets_the_default(omp):
    out = _run("import pydevtensor as p; print(p.get_num_threads())", OMP_NUM_THREADS=omp)
    assert out == [str(min(int(omp), 16))]


def test_a_bad_omp_num_threads_is_ignored():
    out = _run("import pydevtensor as p; print(p.get_num_threads())", OMP_NUM_THREADS="x2")
    assert out == [str(usable_cores())]


def test_set_num_threads_sizes_the_pool_and_openblas_and_results_stay_right():
    code = ("import numpy as np, pydevtensor as p\n"
            "p.set_num_threads(1)\n"
            "print(p.get_num_threads(), p.build_info()['blas']['threads'])\n"
            "a = np.random.default_rng(0).standard_normal((300, 400))\n"
            "x = p.from_numpy(a)\n"
            "print(abs((x.exp().sum()).item() - np.exp(a).sum()) <= 1e-9 * np.exp(a).sum())\n"
            "print(np.allclose((x @ x.T).numpy(), a @ a.T, rtol=1e-12, atol=1e-10))\n"
            "p.set_num_threads(3)\n"
            "print(p.get_num_threads(), p.build_info()['blas']['threads'])\n")
    out = _run(code, OMP_NUM_THREADS="4")
    assert out[:4] == ["1", "1", "True", "True"]
    assert out[4:] == ["3", str(min(3, usable_cores()))]  # OpenBLAS: at most a thread a core


def test_the_pool_grows_past_its_start_and_openblas_follows_it():
    # OpenBLAS runs its parts on the pool (Note [OpenBLAS on our pool] in
    # csrc/cpu/cpu_blas.c), so it has the pool's count, at most a thread a core (as
    # OpenBLAS caps its own); the pool stops at 16.
    out = _run("import numpy as np, pydevtensor as p; p.set_num_threads(8)\n"
               "print(p.get_num_threads(), p.build_info()['blas']['threads'])\n"
               "a = np.random.default_rng(0).standard_normal((300, 200))\n"
               "print(np.allclose((p.from_numpy(a) @ p.from_numpy(a.T)).numpy(), a @ a.T))\n"
               "p.set_num_threads(40)\n"
               "print(p.get_num_threads(), p.build_info()['blas']['threads'])\n",
               OMP_NUM_THREADS="2")
    assert out == ["8", str(min(8, usable_cores())), "True", "16", str(usable_cores())]


def test_openblas_starts_with_the_pools_thread_count():
    out = _run("import pydevtensor as p\n"
               "print(p.get_num_threads(), p.build_info()['blas']['threads'])",
               OMP_NUM_THREADS="3", OPENBLAS_NUM_THREADS="5")
    assert out == ["3", str(min(3, usable_cores()))]


def test_openblas_own_count_below_the_pool_caps_products_until_set_num_threads():
    # OPENBLAS_NUM_THREADS=1: one thread a product, as OpenBLAS alone would run (two
    # Python threads multiplying then use a core each); set_num_threads speaks later
    code = ("import numpy as np, pydevtensor as p\n"
            "a = np.random.default_rng(0).standard_normal((300, 200))\n"
            "ok = np.allclose((p.from_numpy(a) @ p.from_numpy(a.T)).numpy(), a @ a.T)\n"
            "print(p.get_num_threads(), p.build_info()['blas']['threads'], ok)\n"
            "p.set_num_threads(3)\n"
            "print(p.get_num_threads(), p.build_info()['blas']['threads'])\n")
    out = _run(code, OMP_NUM_THREADS="3", OPENBLAS_NUM_THREADS="1")
    assert out == ["3", "1", "True", "3", str(min(3, usable_cores()))]
    if usable_cores() >= 2:  # any variable OpenBLAS counts its threads from
        out = _run(code, OMP_NUM_THREADS="3", GOTO_NUM_THREADS="1")
        assert out[:3] == ["3", "1", "True"]


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-3, ValueError), (2.5, TypeError),
                                      ("2", TypeError), (None, TypeError)])
def test_bad_thread_counts_raise_and_change_nothing(bad, exc):
    before = pdt.get_num_threads()
    with pytest.raises(exc) as info:
        pdt.set_num_threads(bad)
    if exc is ValueError:
        assert f"set_num_threads({bad})" in str(info.value) and "at least 1" in str(info.value)
    assert pdt.get_num_threads() == before


# The pool's hand-off (Note [pool hand-off] in csrc/cpu/cpu_parallel.c): workers and
# the caller spin before they sleep; OMP_WAIT_POLICY=passive and
# PYDEVTENSOR_POOL_SPIN_US=0 make them sleep at once, a huge budget makes them never
# sleep in this test.  Every wait path must give the same, right results, job after job,
# with gaps between jobs longer and shorter than the budget (so that both the spinning
# and the sleeping wake-up run), from two threads calling at once (one gets the pool,
# the other runs on its own thread).
_HANDOFF = """
import threading, time
import numpy as np, pydevtensor as p
rng = np.random.default_rng(1)
n = 300_000                       # several slices: above the pool's grain
a = rng.standard_normal(n).astype(np.float32); b = rng.standard_normal(n).astype(np.float32)
x, y, out = p.from_numpy(a), p.from_numpy(b), p.empty(n)
want = (a.astype(np.float64) + b) * 2
bad = []
def loop(k):
    for i in range(k):
        p.add(x, y, out=out) if threading.current_thread() is threading.main_thread() else None
        got = ((x + y) * 2).numpy()
        if not np.array_equal(got, want.astype(np.float32)):
            bad.append(i)
        if i % 7 == 0:
            time.sleep(0.0015)    # longer than the default budget: workers go to sleep
t = threading.Thread(target=loop, args=(40,))
t.start(); loop(60); t.join()
print(p.get_num_threads(), len(bad))
"""


@pytest.mark.parametrize("env", [{}, {"OMP_WAIT_POLICY": "passive"},
                                 {"PYDEVTENSOR_POOL_SPIN_US": "0"},
                                 {"PYDEVTENSOR_POOL_SPIN_US": "1000000"}],
                         ids=["default", "passive", "spin0", "spin1s"])
def test_the_pool_hands_off_right_with_every_wait_policy(env):
    out = _run(_HANDOFF, OMP_NUM_THREADS="3", **env)
    assert out == ["3", "0"]


_COSTLY_OPS_IN_A_LOOP = """
import numpy as np, pydevtensor as p
rng = np.random.default_rng(4)
xs = [rng.random(n, dtype=np.float32) * 4 for n in (1025, 2049, 3000, 8001, 33000, 60001)]
ops = [lambda t: t ** 1.7, p.exp, p.tanh, p.log, p.sin, p.cos, p.sigmoid,
       lambda t: t + 0.5, lambda t: p.maximum(t, t.flip(0)), lambda t: t.sub(t, alpha=0.3)]
p.set_num_threads(1)
ref = [[f(p.from_numpy(x)).numpy().copy() for x in xs] for f in ops]
p.set_num_threads(3)
bad = 0
for _ in range(10):  # calls within a millisecond: the hot grain (Note [the hot grain])
    for f, refs in zip(ops, ref):
        for x, r in zip(xs, refs):
            bad += int((f(p.from_numpy(x)).numpy() != r).sum())
print(bad)
"""


def test_costly_ops_in_a_loop_split_over_threads_give_one_threads_bits():
    # Mid-sized powers (from 1,024 elements), exp, tanh, log, sin, cos, sigmoid (from
    # 2,048) and cheap ops (from 32,768) in a loop split over the pool (Note [the hot
    # grain]): every element as on one thread.
    assert _run(_COSTLY_OPS_IN_A_LOOP, OMP_NUM_THREADS="3") == ["0"]
