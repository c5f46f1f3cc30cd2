"""float32 exp, log, tanh, sigmoid, sin, cos on the CPU at every dispatch level this processor
supports (Note [CPU dispatch levels] in csrc/cpu/cpu_simd.h), against NumPy.

    python benchmarks/bench_vmath.py [--sizes 10000 1000000] [--repeat 7]

Prints, per function and size, NumPy's time and ours at each level, and the ratio (ours over
NumPy's: below 1 is faster).  Each timing is the best of --repeat rounds of a loop sized to
last about 20 ms; the output is written into a preallocated array (out=) on both sides, so
allocation is not timed.  NumPy's sigmoid is 1 / (1 + exp(-x)) in float32 (four passes).
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
}


def best_time(fn, repeat):
    fn()
    n, t = 1, 0.0
    while True:  # a loop long enough to time
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t = time.perf_counter() - t0
        if t > 0.02:
            break
        n *= 2
    best = t / n
    for _ in range(repeat - 1):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
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
    p.add_argument("--funcs", nargs="+", default=list(FUNCS))
    args = p.parse_args()
    start, levels = _C._cpu_simd_level()
    print(f"{platform.processor() or platform.machine()}; flags: {cpu_flags()}")
    print(f"NumPy {np.__version__}; pydevtensor levels {', '.join(levels)} "
          f"(default {start}); threads: {os.cpu_count()} cores")
    head = f"{'func':8} {'n':>9} {'numpy us':>9}" + "".join(
        f" {lv + ' us':>11} {'ratio':>6}" for lv in levels)
    print(head)
    rng = np.random.default_rng(0)
    try:
        for name in args.funcs:
            for n in args.sizes:
                x = rng.uniform(-10, 10, n).astype(np.float32)
                if name == "log":
                    x = np.abs(x) + np.float32(1e-3)
                o = np.empty_like(x)
                t_np = best_time(lambda: FUNCS[name](x, o), args.repeat)
                tx, to = pdt.tensor(x), pdt.empty(n)
                f = getattr(pdt, name)
                row = f"{name:8} {n:>9} {t_np * 1e6:>9.1f}"
                for lv in levels:
                    _C._cpu_simd_level(lv)
                    t = best_time(lambda: f(tx, out=to), args.repeat)
                    row += f" {t * 1e6:>11.1f} {t / t_np:>6.2f}"
                print(row, flush=True)
    finally:
        _C._cpu_simd_level(start)


if __name__ == "__main__":
    main()
