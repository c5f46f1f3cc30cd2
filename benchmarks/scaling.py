"""The scaling table: every op class at sizes 1, 1e3, 1e5, 1e6 and 1e8 elements, our
time over NumPy's (and PyTorch's when it imports), and for the large sizes the fraction
of the machine's limit that the op reaches.

    python -m benchmarks.scaling                 # the whole table (about 10 minutes)
    python -m benchmarks.scaling --quick         # fewer repeats, one round
    python -m benchmarks.scaling --sizes 1e3,1e6 --ops add,exp

Each library runs in a process of its own (``--serve LIB``), so that no library's idle
threads (OpenBLAS's spin after a BLAS call) run while another is timed, and the parent
asks them in turn for one case at a time (Note [interleaved timing] in
benchmarks._interleave): a figure is the median of 7 repeats, each a loop long enough to
take about 20 ms (one call for the largest sizes), and each cell is timed ``--rounds``
times (3; 1 with ``--quick``) in every library, the order of the libraries rotated
every round; the table shows the medians.  Before timing, a server loads its
library's BLAS and waits until its other threads are idle.

The limits, for the last columns:
  - memory: the best bandwidth that an out= add reaches at the largest size in any of
    the processes (NumPy's or ours), counting the bytes read and written; an op's
    fraction is its own bytes (every input read once, the result written once) over
    its time, divided by that;
  - FMA: the nominal peak, cores x clock x FMA lanes x 2 (two FMA units a core, 8 fp32
    lanes with AVX2, 16 with AVX-512), from /proc/cpuinfo; matmul's fraction is
    2 n^3 over its time, divided by that.
The matrix product runs on square matrices of about ``size`` elements, up to 1e7 (a
1e8-element product takes a minute a call here); "-" marks a size an op does not run.

Results go to ``scaling.json``, ``scaling.txt`` and ``scaling.png`` (when matplotlib
imports) under ``$OUT`` when it is set, else ``benchmarks/results/``.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

from ._interleave import run_interleaved, settle
from ._interleave import serve as serve_requests

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1, 10**3, 10**5, 10**6, 10**8)
LIBS = ("pydevtensor", "numpy", "torch")
MATMUL_MAX = 10**7


def _side(n):
    return max(1, int(math.isqrt(n)))


def _rows(n):
    cols = min(n, 256)
    return max(1, n // cols), cols


# op -> (description, bytes-moved factor per element (in units of the element size)
# or None, build(lib-namespace, n) -> zero-argument callable)
def _ops(L):
    """The op classes for one library; L is a small adapter (see _adapter)."""
    return {
        "add": ("a + b", 3, lambda n: L.binary(n, lambda a, b: a + b)),
        "add_out": ("add(a, b, out=o)", 3, lambda n: L.add_out(n)),
        "mul_scalar": ("a * 2.5", 2, lambda n: L.binary(n, lambda a, b: a * 2.5)),
        "expr": ("a * b + a", 3, lambda n: L.binary(n, lambda a, b: a * b + a)),
        "relu": ("relu(a)", 2, lambda n: L.unary(n, L.relu)),
        "exp": ("exp(a)", 2, lambda n: L.unary(n, L.exp)),
        "tanh": ("tanh(a)", 2, lambda n: L.unary(n, L.tanh)),
        "atan": ("atan(a)", 2, lambda n: L.unary(n, L.atan)),
        "asinh": ("asinh(a)", 2, lambda n: L.unary(n, L.asinh)),
        "atan2": ("atan2(a, b)", 3, lambda n: L.binary(n, L.atan2)),
        "mask": ("g * (h > 0)", 3, lambda n: L.binary(n, lambda g, h: g * (h > 0))),
        "cast": ("float32 -> float64", 3, lambda n: L.unary(n, L.to_double)),
        "copy": ("clone", 2, lambda n: L.unary(n, L.clone)),
        "sum": ("sum of all", 1, lambda n: L.unary(n, lambda a: a.sum())),
        "max": ("max of all", 1, lambda n: L.unary(n, lambda a: a.max())),
        "argmax": ("argmax of all", 1, lambda n: L.unary(n, lambda a: a.argmax())),
        "col_sum": ("sum(dim=0) of (n/256, 256)", 1, lambda n: L.matrix(n, L.col_sum)),
        "transposed_add": ("a.T + b.T, square", 3,
                           lambda n: L.square2(n, lambda a, b: a.T + b.T)),
        "matvec": ("A @ v, square A", 1, lambda n: L.matvec(n)),
        "matmul": ("A @ B, square", None, lambda n: L.matmul(n)),
    }


class _Numpy:
    def __init__(self):
        import numpy as np
        self.np = np
        self.relu = lambda a: np.maximum(a, 0)
        self.exp, self.tanh = np.exp, np.tanh
        self.atan, self.asinh, self.atan2 = np.arctan, np.arcsinh, np.arctan2
        self.to_double = lambda a: a.astype(np.float64)
        self.clone = lambda a: a.copy()
        self.col_sum = lambda a: a.sum(axis=0)

    def rand(self, *shape):
        return self.np.random.default_rng(0).standard_normal(shape).astype(self.np.float32)

    def out_add(self, a, b, o):
        self.np.add(a, b, out=o)


class _Pdt:
    def __init__(self):
        import numpy as np
        import pydevtensor as pdt
        self.np, self.pdt = np, pdt
        self.relu, self.exp, self.tanh = pdt.relu, pdt.exp, pdt.tanh
        self.atan, self.asinh, self.atan2 = pdt.atan, pdt.asinh, pdt.atan2
        self.to_double = lambda a: a.double()
        self.clone = lambda a: a.clone()
        self.col_sum = lambda a: a.sum(0)

    def rand(self, *shape):
        arr = self.np.random.default_rng(0).standard_normal(shape).astype(self.np.float32)
        return self.pdt.tensor(arr)

    def out_add(self, a, b, o):
        self.pdt.add(a, b, out=o)


class _Torch(_Pdt):
    def __init__(self):
        import numpy as np
        import torch
        self.np, self.pdt = np, torch
        self.relu, self.exp, self.tanh = torch.relu, torch.exp, torch.tanh
        self.atan, self.asinh, self.atan2 = torch.atan, torch.asinh, torch.atan2
        self.to_double = lambda a: a.double()
        self.clone = lambda a: a.clone()
        self.col_sum = lambda a: a.sum(0)

    def rand(self, *shape):
        arr = self.np.random.default_rng(0).standard_normal(shape).astype(self.np.float32)
        return self.pdt.from_numpy(arr)


class _adapter:
    """The shapes each op class runs on, for one library."""

    def __init__(self, lib):
        self.L = {"numpy": _Numpy, "pydevtensor": _Pdt, "torch": _Torch}[lib]()
        for name in ("relu", "exp", "tanh", "atan", "asinh", "atan2", "to_double", "clone",
                     "col_sum"):
            setattr(self, name, getattr(self.L, name))

    def binary(self, n, f):
        a, b = self.L.rand(n), self.L.rand(n)
        return lambda: f(a, b)

    def unary(self, n, f):
        a = self.L.rand(n)
        return lambda: f(a)

    def add_out(self, n):
        a, b, o = self.L.rand(n), self.L.rand(n), self.L.rand(n)
        return lambda: self.L.out_add(a, b, o)

    def matrix(self, n, f):
        a = self.L.rand(*_rows(n))
        return lambda: f(a)

    def square2(self, n, f):
        s = _side(n)
        a, b = self.L.rand(s, s), self.L.rand(s, s)
        return lambda: f(a, b)

    def matvec(self, n):
        s = _side(n)
        A, v = self.L.rand(s, s), self.L.rand(s)
        return lambda: A @ v

    def matmul(self, n):
        if n > MATMUL_MAX:
            return None
        s = _side(n)
        A, B = self.L.rand(s, s), self.L.rand(s, s)
        return lambda: A @ B


def _time(fn, quick):
    fn()  # warm-up (and the first touch of the result's memory)
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    number = max(1, int(0.02 / once))
    repeat = 3 if quick else 7
    if once > 0.5:
        repeat = 3
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def serve(lib, quick):
    """The server for one library (Note [interleaved timing] in benchmarks._interleave)."""
    A = _adapter(lib)
    table = _ops(A)
    settle(A.matmul(10_000))
    serve_requests(lambda op, n: table[op][2](n), lambda fn: _time(fn, quick))


def _fma_peak():
    """(GFLOP/s, how it was computed) from /proc/cpuinfo, or (None, why)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError as exc:
        return None, str(exc)
    mhz = [float(line.split(":")[1]) for line in text.splitlines() if line.startswith("cpu MHz")]
    flags = next((line for line in text.splitlines() if line.startswith("flags")), "")
    if not mhz or " fma" not in flags:
        return None, "no clock or no FMA in /proc/cpuinfo"
    lanes = 16 if " avx512f" in flags else 8
    cores = os.cpu_count() or 1
    ghz = max(mhz) / 1e3
    return (cores * ghz * 2 * lanes * 2,
            f"{cores} cores x {ghz:.2f} GHz x 2 FMA units x {lanes} fp32 lanes x 2")


def _median_of_rounds(rounds):
    """{op: {size: median seconds}} over the rounds of one library (Note in the module
    docstring: on a shared machine one process's run can be slowed throughout, so a
    single round per library gave ratios off by 1.5x at times)."""
    if not rounds or any("error" in r for r in rounds):
        return next((r for r in rounds if "error" in r), {"error": "not run"})
    out = {}
    for op in rounds[0]:
        out[op] = {}
        for n in rounds[0][op]:
            vals = [r[op][n] for r in rounds if r[op].get(n) is not None]
            out[op][n] = statistics.median(vals) if vals else None
    return out


def _fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}"


def render(result):
    sizes, ops = result["sizes"], result["ops"]
    times = result["times"]
    others = [lib for lib in ("numpy", "torch") if "error" not in times.get(lib, {"error": 1})]
    short = {"numpy": "np", "torch": "torch"}
    head = f"{'op':16s}" + "".join(f"{'pdt/' + short[o] + ' ' + _size(n):>14s}"
                                   for o in others for n in sizes)
    lines = [head, "-" * len(head)]
    for op in ops:
        row = f"{op:16s}"
        for o in others:
            for n in sizes:
                row += f"{_fmt_ratio(result['ratios'][o][op].get(str(n))):>14s}"
        lines.append(row)
    lines.append("")
    big = [n for n in sizes if n >= 10**6]
    lines.append(f"{'fraction of limit':16s}" + "".join(f"{'pdt ' + _size(n):>12s}"
                                                         f"{'np ' + _size(n):>12s}" for n in big))
    for op in ops:
        row = f"{op:16s}"
        for n in big:
            for lib in ("pydevtensor", "numpy"):
                f = result["fractions"].get(lib, {}).get(op, {}).get(str(n))
                row += f"{'-' if f is None else f'{100 * f:.0f}%':>12s}"
        lines.append(row)
    return "\n".join(lines)


def _size(n):
    return f"1e{round(math.log10(n))}" if n > 1 else "1"


def analyse(times, sizes, ops):
    """Ratios pdt/other and fractions of the memory or FMA limit."""
    descs = _ops(None)
    ratios, fractions = {}, {}
    ours = times.get("pydevtensor", {})
    for other in ("numpy", "torch"):
        theirs = times.get(other, {})
        ratios[other] = {op: {str(n): (ours[op][str(n)] / theirs[op][str(n)]
                                       if "error" not in theirs and ours[op].get(str(n))
                                       and theirs[op].get(str(n)) else None)
                              for n in sizes} for op in ops}
    n_max = str(max(sizes))
    bandwidths = [3 * 4 * max(sizes) / t[("add_out")][n_max] for t in times.values()
                  if "error" not in t and "add_out" in t and t["add_out"].get(n_max)]
    mem = max(bandwidths) if bandwidths else None
    peak, how = _fma_peak()
    for lib, t in times.items():
        if "error" in t:
            continue
        fractions[lib] = {}
        for op in ops:
            factor = descs[op][1]
            fractions[lib][op] = {}
            for n in sizes:
                s = t[op].get(str(n))
                if n < 10**6 or not s:
                    continue
                if op == "matmul":
                    side = _side(n)
                    f = 2 * side**3 / s / 1e9 / peak if peak else None
                elif op in ("matvec", "transposed_add"):
                    side = _side(n)
                    f = factor * 4 * side * side / s / mem if mem else None
                elif op == "cast":
                    f = (4 + 8) * n / s / mem if mem else None
                else:
                    f = factor * 4 * n / s / mem if mem else None
                fractions[lib][op][str(n)] = f
    return ratios, fractions, {"memory_bytes_per_s": mem, "fma_gflops": peak, "fma_how": how}


def write_plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - the plot is optional
        return False
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for op in result["ops"]:
        pts = [(n, result["ratios"]["numpy"][op].get(str(n))) for n in result["sizes"]]
        pts = [(n, r) for n, r in pts if r]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=op)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("elements")
    ax.set_ylabel("pydevtensor time / NumPy time (below 1: faster)")
    ax.set_title("pydevtensor against NumPy, by size (float32, CPU)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    p.add_argument("--ops", default=None, help="comma-separated op classes (default: all)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int, default=0,
                   help="times each case is timed in every library, the libraries in "
                        "turn; each figure is the median (default 3, 1 with --quick)")
    p.add_argument("--out", help="results folder (default: $OUT, else benchmarks/results)")
    p.add_argument("--serve", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.sizes = [int(float(s)) for s in args.sizes.split(",")]
    all_ops = list(_ops(None))
    args.ops = args.ops.split(",") if args.ops else all_ops
    unknown = [op for op in args.ops if op not in all_ops]
    if unknown:
        p.error(f"unknown op class {unknown}; known: {', '.join(all_ops)}")
    if args.serve:
        serve(args.serve, args.quick)
        return 0
    t0 = time.perf_counter()
    rounds = args.rounds or (1 if args.quick else 3)
    print(f"{rounds} rounds, the libraries in turn for each case, each in its own process",
          flush=True)
    runs = run_interleaved("benchmarks.scaling", LIBS, args.sizes, args.ops, rounds,
                           ["--quick"] if args.quick else [], cwd=ROOT,
                           log=lambda m: print(m, flush=True))
    times = {lib: _median_of_rounds(rs) for lib, rs in runs.items()}
    if "error" in times["pydevtensor"] or "error" in times["numpy"]:
        return 1
    ratios, fractions, limits = analyse(times, args.sizes, args.ops)
    result = {"sizes": args.sizes, "ops": args.ops, "times": times, "rounds": runs,
              "ratios": ratios, "fractions": fractions, "limits": limits, "quick": args.quick,
              "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
              "total_s": time.perf_counter() - t0}
    out = Path(args.out or os.environ.get("OUT") or ROOT / "benchmarks" / "results")
    out.mkdir(parents=True, exist_ok=True)
    mem = limits["memory_bytes_per_s"]
    header = (f"memory limit: {mem / 1e9:.1f} GB/s (best out= add at {_size(max(args.sizes))}); "
              if mem else "memory limit: not measured; ")
    header += (f"FMA peak: {limits['fma_gflops']:.0f} GFLOP/s ({limits['fma_how']}, at the "
               f"clock /proc/cpuinfo reports: boost clocks go past it)"
               if limits["fma_gflops"] else f"FMA peak: unknown ({limits['fma_how']})")
    text = header + "\n\n" + render(result)
    (out / "scaling.json").write_text(json.dumps(result, indent=1))
    (out / "scaling.txt").write_text(text + "\n")
    plotted = write_plot(result, out / "scaling.png")
    print()
    print(text)
    print(f"\nwrote scaling.json, scaling.txt{', scaling.png' if plotted else ''} to {out} "
          f"({result['total_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
