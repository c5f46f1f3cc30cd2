"""Memory order, strided reductions and single-pass max/argmax against NumPy (issue 20).

Run from the repository root:  python benchmarks/bench_layout.py [--n 4096] [--repeat 7]

Prints, for each case, the best of --repeat runs of pydevtensor and of NumPy (CPU,
float32 n x n) and the ratio ours/NumPy (below 1: faster than NumPy).  A standalone
script, not one of benchmarks.GROUP_MODULES: it prints, asserts nothing, and timings
never go in tests.  Both libraries run in this one process, each case timed back to
back (NumPy's OpenBLAS is not used by any case here).
"""
import argparse
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pydevtensor as pdt  # noqa: E402


def cases(n):
    rng = np.random.default_rng(0)
    an = rng.random((n, n), dtype=np.float32)
    bn = rng.random((n, n), dtype=np.float32)
    a, b = pdt.tensor(an), pdt.tensor(bn)
    a64n = an.astype(np.float64)
    a64 = pdt.tensor(a64n)
    v5n = rng.random(100_000, dtype=np.float32)
    v5 = pdt.tensor(v5n)
    zero = np.float32(0)
    return [
        ("a.T + b.T", lambda: a.T + b.T, lambda: an.T + bn.T),
        ("a + b.T (mixed)", lambda: a + b.T, lambda: an + bn.T),
        ("relu(a.T)", lambda: pdt.relu(a.T), lambda: np.maximum(an.T, zero)),
        ("exp(a.T)", lambda: pdt.exp(a.T), lambda: np.exp(an.T)),
        ("a.T.clone()", lambda: a.T.clone(), lambda: an.T.copy(order="K")),
        ("a.T.to(float64)", lambda: a.T.to(pdt.float64), lambda: an.T.astype(np.float64)),
        ("a.T.contiguous()", lambda: a.T.contiguous(), lambda: np.ascontiguousarray(an.T)),
        ("a.T.half()", lambda: a.T.half(), lambda: an.T.astype(np.float16)),
        ("where(a.T > b.T, ...)", lambda: pdt.where(a.T > b.T, a.T, b.T),
         lambda: np.where(an.T > bn.T, an.T, bn.T)),
        ("a.T.masked_fill(...)", lambda: a.T.masked_fill(b.T > 0.5, 0.0),
         lambda: np.where(bn.T > 0.5, zero, an.T)),
        ("a.T.sum()", lambda: a.T.sum(), lambda: an.T.sum()),
        ("a.T.max()", lambda: a.T.max(), lambda: an.T.max()),
        ("a.T.argmax(1)", lambda: a.T.argmax(1), lambda: an.T.argmax(1)),
        ("a[:, ::2].sum(1)", lambda: a[:, ::2].sum(1), lambda: an[:, ::2].sum(1)),
        ("a.max()", lambda: a.max(), lambda: an.max()),
        ("a.argmax()", lambda: a.argmax(), lambda: an.argmax()),
        ("a64.max()", lambda: a64.max(), lambda: a64n.max()),
        ("a64.argmax()", lambda: a64.argmax(), lambda: a64n.argmax()),
        ("max of 1e5 float32", lambda: v5.max(), lambda: v5n.max()),
        ("a.sum(dim=0)", lambda: a.sum(0), lambda: an.sum(0)),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    print(f"float32 {args.n}x{args.n}, best of {args.repeat}, "
          f"pydevtensor {pdt.__version__}, NumPy {np.__version__}, "
          f"threads {pdt.get_num_threads()}")
    print(f"{'case':22s} {'ours ms':>9s} {'NumPy ms':>9s} {'ratio':>6s}")
    for name, ours, ref in cases(args.n):
        ours(), ref()  # warm up: first-touch pages, caches
        t_ours = min(timeit.repeat(ours, number=1, repeat=args.repeat))
        t_ref = min(timeit.repeat(ref, number=1, repeat=args.repeat))
        print(f"{name:22s} {t_ours * 1e3:9.3f} {t_ref * 1e3:9.3f} {t_ours / t_ref:6.2f}")


if __name__ == "__main__":
    main()
