"""exp, log, tanh, sigmoid, sin, cos and the other math functions (tan, the inverse
trigonometric and hyperbolic ones, atan2, log2, log10, rsqrt, erfinv, lgamma, digamma) on the
CPU at every dispatch level this processor supports (Note [CPU dispatch levels] in
csrc/cpu/cpu_simd.h), against NumPy.

    python benchmarks/bench_vmath.py [--sizes 10000 1000000] [--repeat 7] [--funcs exp atan]
                                     [--dtype float32|float64] [--threads N] [--levels avx512]
                                     [--cpu-time]

Prints, per function and size, NumPy's time and ours at each level, and the ratio (ours over
NumPy's: below 1 is faster).  Each timing is the best of --repeat rounds of a loop sized to
last about 20 ms; the output is written into a preallocated array (out=) on both sides, so
allocation is not timed.  NumPy's sigmoid is 1 / (1 + exp(-x)) in float32 (four passes), its
rsqrt 1 / sqrt(x) (two), and it has no erfinv, lgamma or digamma (those rows show ours only).
--threads sets pydevtensor's thread count (default: its own; NumPy's ufuncs use one thread).
--cpu-time times with time.thread_time (this thread's CPU time) instead of the wall clock: on
a loaded machine it leaves out the time other processes took, but it also leaves out the work
of pydevtensor's other threads, so use it with --threads 1.
Timings belong here, never in the tests.
"""
import argparse
import os
import platform
import time

import numpy as np

import pydevtensor as pdt
from pydevtensor import _C

FUNCS = {
    "exp": lambda x, o: np.exp(x, out=o),
    "log": lambda x, o: np.log(x, out=o),
    "tanh": lambda x, o: np.tanh(x, out=o),
    "sigmoid": lambda x, o: np.reciprocal(np.add(np.exp(np.negative(x, out=o), out=o), 1, out=o),
                                          out=o),
    "sin": lambda x, o: np.sin(x, out=o),
    "cos": lambda x, o: np.cos(x, out=o),
    "tan": lambda x, o: np.tan(x, out=o),
    "asin": lambda x, o: np.arcsin(x, out=o),
    "acos": lambda x, o: np.arccos(x, out=o),
    "atan": lambda x, o: np.arctan(x, out=o),
    "atan2": lambda x, o: np.arctan2(x, _OTHER[x.size], out=o),
    "asinh": lambda x, o: np.arcsinh(x, out=o),
    "acosh": lambda x, o: np.arccosh(x, out=o),
    "atanh": lambda x, o: np.arctanh(x, out=o),
    "log2": lambda x, o: np.log2(x, out=o),
    "log10": lambda x, o: np.log10(x, out=o),
    "rsqrt": lambda x, o: np.reciprocal(np.sqrt(x, out=o), out=o),
    "erfinv": None,
    "lgamma": None,
    "digamma": None,
}
_OTHER = {}  # atan2's second argument, by size
# the arguments: uniform on (lo, hi), inside each function's domain
RANGE = {"log": (1e-3, 10), "log2": (1e-3, 10), "log10": (1e-3, 10), "rsqrt": (1e-3, 10),
         "asin": (-1, 1), "acos": (-1, 1), "atanh": (-0.999, 0.999), "erfinv": (-0.999, 0.999),
         "acosh": (1, 10), "lgamma": (0.01, 10), "digamma": (0.01, 10)}


CLOCK = [time.perf_counter]  # --cpu-time: time.thread_time


def best_time(fn, repeat):
    clock = CLOCK[0]
    fn()
    n, t = 1, 0.0
    while True:  # a loop long enough to time
        t0 = clock()
        for _ in range(n):
            fn()
        t = clock() - t0
        if t > 0.02:
            break
        n *= 2
    best = t / n
    for _ in range(repeat - 1):
        t0 = clock()
        for _ in range(n):
            fn()
        best = min(best, (clock() - t0) / n)
    return best


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return " ".join(sorted(f for f in flags if f.startswith(("avx", "fma"))))
    except OSError:
        pass
    return "?"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--funcs", nargs="+", default=list(FUNCS), choices=list(FUNCS))
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--levels", nargs="+", default=None)
    p.add_argument("--cpu-time", action="store_true")
    args = p.parse_args()
    if args.cpu_time:
        CLOCK[0] = time.thread_time
    if args.threads:
        pdt.set_num_threads(args.threads)
    start, levels = _C._cpu_simd_level()
    levels = [lv for lv in levels if args.levels is None or lv in args.levels]
    print(f"{platform.processor() or platform.machine()}; flags: {cpu_flags()}")
    print(f"NumPy {np.__version__}; pydevtensor levels {', '.join(levels)} "
          f"(default {start}); {args.dtype}; threads: {pdt.get_num_threads()} of "
          f"{os.cpu_count()} cores; {'CPU' if args.cpu_time else 'wall'} time")
    head = f"{'func':8} {'n':>9} {'numpy us':>9}" + "".join(
        f" {lv + ' us':>11} {'ratio':>6}" for lv in levels)
    print(head)
    rng = np.random.default_rng(0)
    try:
        for name in args.funcs:
            for n in args.sizes:
                x = rng.uniform(*RANGE.get(name, (-10, 10)), n).astype(args.dtype)
                o = np.empty_like(x)
                _OTHER[n] = np.ascontiguousarray(x[::-1])
                npf = FUNCS[name]
                t_np = best_time(lambda: npf(x, o), args.repeat) if npf else float("nan")
                tx, to = pdt.tensor(x), pdt.empty(n, dtype=getattr(pdt, args.dtype))
                f = getattr(pdt, name)
                if name == "atan2":
                    ty = pdt.tensor(_OTHER[n])
                    call = lambda: f(tx, ty, out=to)  # noqa: E731
                else:
                    call = lambda: f(tx, out=to)  # noqa: E731
                row = f"{name:8} {n:>9} {t_np * 1e6:>9.1f}"
                for lv in levels:
                    _C._cpu_simd_level(lv)
                    t = best_time(call, args.repeat)
                    row += f" {t * 1e6:>11.1f} {t / t_np:>6.2f}"
                print(row, flush=True)
    finally:
        _C._cpu_simd_level(start)


if __name__ == "__main__":
    main()
