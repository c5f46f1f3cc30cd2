"""The breadth table: the ops outside benchmarks.scaling's classes (integer arithmetic and
reductions, selection, sorting, creation and random fills, copies of views, joins), our
time over NumPy's at 1e3, 1e5 and 1e6 elements.

    python -m benchmarks.breadth                  # the whole table (about 3 minutes)
    python -m benchmarks.breadth --ops sort,where --sizes 1e3,1e6 --rounds 1

As in benchmarks.scaling, each library runs in a process of its own (``--serve LIB``),
and the two are asked in turn for one case at a time, ``--rounds`` times (2; Note
[interleaved timing] in benchmarks._interleave); a figure is the median over the rounds
of the median of 7 repeats, each a loop of about 20 ms.  float32 unless the name says
otherwise.  Where the two libraries' calls differ, NumPy's is the one that gives the
same result: ``sort`` returns values and indices (PyTorch's sort), so NumPy's side is a
stable argsort and a take; ``nonzero`` gives the (n, ndim) coordinates (np.argwhere);
``randn`` and ``rand`` are NumPy's default Generator; ``pow2`` is ``x ** 2``, ``pow3``
``x ** 3`` (half the bases negative), ``pow_frac`` ``x ** 1.7`` and ``reciprocal``
``x ** -1`` of positive x, ``exp2`` ``2 ** x`` and ``pow_scalar_base`` ``3 ** x``
(a tensor exponent: both take the scalar base's row, Note [float32 powers of a scalar
base]);
``kthvalue`` (k = 50, values and indices; NumPy's side argpartition and a take) and
``median`` (PyTorch's lower median with its index; NumPy's np.median, which averages the
two middle values) take rows of 100; ``cummax`` gives values and indices, NumPy's
maximum.accumulate the values; ``*_by_7`` divide by a Python int 7.
``bincount`` counts values in [0, 100); ``searchsorted`` places n / 10 values in n sorted.
``mask_1pct`` and ``mask_99pct`` are x[mask] keeping 1% and 99% of the elements (runs of
False and of True); ``dot_f64`` a float64 dot, ``norm_f64`` a float64 2-norm.
``take_u8`` and ``take_i64`` are x[v] of n random places in n elements; ``nonzero_2d``
the coordinates of half a square matrix's elements.
``repeat_counts`` repeats each element by a count in [0, 3) (np.repeat), ``repeat_2``
each twice, ``expand_copy`` copies a (n, 3) broadcast of a column out.
``softmax`` and ``log_softmax`` run along rows of 100 and
``cross_entropy`` (the mean over rows of 10 classes) against NumPy written by hand.
A sweep like this one found the cells fixed in stop 29 (x ** 2 at 60 times NumPy's
time, nonzero 12, flip 7, arange 5, sort 4, randn 3.5; see the note on issue 20).

``--torch`` adds PyTorch (CPU) as a third library, in a column of our time over
torch's: its calls are ours, torch having the same names.  Ops NumPy has no function for
(``erf``, ``gelu``) have no NumPy cell (``-``); run them with ``--torch``.

Results go to ``breadth.json`` and ``breadth.txt`` under ``$OUT`` when it is set, else
``benchmarks/results/``.
"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from ._interleave import run_interleaved, settle
from ._interleave import serve as serve_requests
from .scaling import _adapter, _time

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10**3, 10**5, 10**6)


def _cases(lib):
    """{name: build(n) -> zero-argument callable, or None where the library has no such
    function} for "pydevtensor", "numpy" or "torch" (which takes our calls)."""
    import numpy as np
    rng = np.random.default_rng(0)
    ours = lib != "numpy"
    if ours:
        if lib == "torch":
            import torch as P
        else:
            import pydevtensor as P

        def arr(a):
            return P.from_numpy(np.ascontiguousarray(a))
    else:
        def arr(a):
            return np.ascontiguousarray(a)

    def f32(n, low=-1.0):
        return arr((rng.random(n, dtype=np.float32) * (1 - low) + low).astype(np.float32))

    def ints(n, dtype):
        return arr(rng.integers(-1000, 1000, n).astype(dtype))

    def square(n):
        s = max(1, int(n ** 0.5))
        return arr(rng.random((s, s), dtype=np.float32))

    def rows_and_index(n):  # an embedding-like table of rows of 64, half of them taken
        r = max(1, n // 64)
        return arr(rng.random((r, 64), dtype=np.float32)), arr(rng.integers(0, r, max(1, r // 2)))

    def values_and_counts(n):  # repeat counts in [0, 3): a mask-like spread
        return f32(n), arr(rng.integers(0, 3, n))

    def sorted_and_values(n):  # a sorted sequence of n and n / 10 values to place in it
        return (arr(np.sort(rng.random(n, dtype=np.float32))),
                arr(rng.random(max(1, n // 10), dtype=np.float32)))

    def values_and_sparse_mask(n):  # x[mask] keeping 1% of the elements: runs of zeros
        return f32(n), arr(rng.random(n) < 0.01)

    def values_and_dense_mask(n):  # keeping 99%: runs of ones
        return f32(n), arr(rng.random(n) < 0.99)

    def bytes_and_index(n):  # n uint8 taken at n random places
        return arr(rng.integers(0, 100, n).astype(np.uint8)), arr(rng.integers(0, n, n))

    def longs_and_index(n):
        return arr(rng.integers(0, 100, n)), arr(rng.integers(0, n, n))

    def square_and_index(n):  # half the columns of a square matrix
        a = square(n)
        return a, arr(rng.integers(0, a.shape[1], max(1, a.shape[1] // 2)))

    def pair(make, fo, fn):
        def build(n):
            a, i = make(n)
            return (lambda: fo(a, i)) if ours else (lambda: fn(a, i))
        return build

    def two(make, fo, fn):
        def build(n):
            a, b = make(n), make(n)
            return (lambda: fo(a, b)) if ours else (lambda: fn(a, b))
        return build

    def one(make, fo, fn):
        def build(n):
            if not ours and fn is None:
                return None  # NumPy has no such function
            a = make(n)
            return (lambda: fo(a)) if ours else (lambda: fn(a))
        return build

    def i32(n):
        return ints(n, np.int32)

    def i64(n):
        return ints(n, np.int64)

    def u8(n):
        return ints(n, np.uint8)

    def i8(n):
        return ints(n, np.int8)

    def i16(n):
        return ints(n, np.int16)

    def f64(n):
        return arr(rng.random(n))

    def pos(n):
        return f32(n, 0.1)

    def mask(n):
        return f32(n) > 0

    def rows(n, k=100):
        return arr(4 * rng.standard_normal((max(1, n // k), k)).astype(np.float32))

    def np_log_softmax(a):
        shifted = a - a.max(-1, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))

    def np_softmax(a):
        e = np.exp(a - a.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def cross_entropy(n):
        x = rows(n, 10)
        t = rng.integers(0, 10, x.shape[0])
        if ours:
            tt = P.from_numpy(t)
            return lambda: P.nn.functional.cross_entropy(x, tt)
        return lambda: -np_log_softmax(x)[np.arange(x.shape[0]), t].mean()

    P_ = P if ours else None
    c = {
        "add_i32": two(i32, lambda a, b: a + b, np.add),
        "mul_i64": two(i64, lambda a, b: a * b, np.multiply),
        "add_f64": two(f64, lambda a, b: a + b, np.add),
        "maximum": two(f32, lambda a, b: P_.maximum(a, b), np.maximum),
        "clamp": one(f32, lambda a: a.clamp(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
        "pow2": one(f32, lambda a: a ** 2, lambda a: a ** 2),
        "pow3": one(f32, lambda a: a ** 3, lambda a: a ** 3),
        "pow_frac": one(pos, lambda a: a ** 1.7, lambda a: a ** 1.7),
        "reciprocal": one(pos, lambda a: a ** -1, lambda a: a ** -1),
        "exp2": one(f32, lambda a: P_.exp2(a), np.exp2),
        "pow_scalar_base": one(f32, lambda a: 3.0 ** a, lambda a: np.float32(3.0) ** a),
        "log": one(pos, lambda a: P_.log(a), np.log),
        "sin": one(f32, lambda a: P_.sin(a), np.sin),
        "sigmoid": one(f32, lambda a: P_.sigmoid(a), lambda a: 1 / (1 + np.exp(-a))),
        "floor": one(f32, lambda a: P_.floor(a), np.floor),
        "round": one(f32, lambda a: P_.round(a), np.rint),
        "sign": one(f32, lambda a: P_.sign(a), np.sign),
        "log1p": one(pos, lambda a: P_.log1p(a), np.log1p),
        "expm1": one(f32, lambda a: P_.expm1(a), np.expm1),
        "erf": one(f32, lambda a: P_.erf(a), None),
        "gelu": one(f32, lambda a: P_.nn.functional.gelu(a), None),
        "floor_divide_i32": two(i32, lambda a, b: a // (b.abs() + 1),
                                lambda a, b: a // (np.abs(b) + 1)),
        "sum_i32": one(i32, lambda a: a.sum(), np.sum),
        "max_i32": one(i32, lambda a: a.max(), np.max),
        "sum_bool": one(mask, lambda a: a.sum(), np.count_nonzero),
        "norm": one(f32, lambda a: P_.norm(a), np.linalg.norm),
        "linalg_norm": one(f32, lambda a: P_.linalg.norm(a), np.linalg.norm),
        "softmax": one(rows, lambda a: P_.softmax(a, 1), np_softmax),
        "log_softmax": one(rows, lambda a: P_.log_softmax(a, 1), np_log_softmax),
        "cross_entropy": cross_entropy,
        "dot": two(f32, lambda a, b: P_.dot(a, b), np.dot),
        "dot_f64": two(f64, lambda a, b: P_.dot(a, b), np.dot),
        "var": one(f32, lambda a: a.var(), lambda a: a.var(ddof=1)),
        "cumsum": one(f32, lambda a: P_.cumsum(a, 0), np.cumsum),
        "where": two(f32, lambda a, b: P_.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b)),
        "masked_fill": one(f32, lambda a: a.masked_fill(a > 0, 0.0),
                           lambda a: np.where(a > 0, np.float32(0), a)),
        "nonzero": one(f32, lambda a: P_.nonzero(a > 0), lambda a: np.argwhere(a > 0)),
        "sort": one(f32, lambda a: P_.sort(a),
                    lambda a: (lambda i: (a[i], i))(np.argsort(a, kind="stable"))),
        "isnan": one(f32, lambda a: P_.isnan(a), np.isnan),
        "isfinite": one(f32, lambda a: P_.isfinite(a), np.isfinite),
        "cast_i32_f32": one(i32, lambda a: a.float(), lambda a: a.astype(np.float32)),
        "cast_i64_f32": one(i64, lambda a: a.float(), lambda a: a.astype(np.float32)),
        "abs_i64": one(i64, lambda a: a.abs(), np.abs),
        "shift_i64": one(i64, lambda a: a >> 3, lambda a: a >> 3),
        "lt_i64": two(i64, lambda a, b: a < b, np.less),
        "and_bool": two(mask, lambda a, b: a & b, np.logical_and),
        "cumsum_i64": one(i64, lambda a: P_.cumsum(a, 0), np.cumsum),
        "add_u8": two(u8, lambda a, b: a + b, np.add),
        "gt_i8": two(i8, lambda a, b: a > b, np.greater),
        "maximum_i16": two(i16, lambda a, b: P_.maximum(a, b), np.maximum),
        "abs_i8": one(i8, lambda a: a.abs(), np.abs),
        "floordiv_i64_by_7": one(i64, lambda a: a // 7, lambda a: a // 7),
        "remainder_i32_by_7": one(i32, lambda a: a % 7, lambda a: a % np.int32(7)),
        "floordiv_i16_by_7": one(i16, lambda a: a // 7, lambda a: a // np.int16(7)),
        "floordiv_u8_by_7": one(u8, lambda a: a // 7, lambda a: a // np.uint8(7)),
        "kthvalue": one(rows, lambda a: P_.kthvalue(a, 50, 1),
                        lambda a: (lambda i: (np.take_along_axis(a, i, 1), i))(
                            np.argpartition(a, 49, 1)[:, 49:50])),
        "median": one(rows, lambda a: a.median(1), lambda a: np.median(a, 1)),
        "cummax": one(f32, lambda a: P_.cummax(a, 0), np.maximum.accumulate),
        "index_rows": pair(rows_and_index, lambda a, i: a.index_select(0, i),
                           lambda a, i: np.take(a, i, 0)),
        "index_cols": pair(square_and_index, lambda a, i: a[:, i], lambda a, i: a[:, i]),
        "where_T": two(square, lambda a, b: P_.where(a.T > 0, a.T, b.T),
                       lambda a, b: np.where(a.T > 0, a.T, b.T)),
        "flip": one(f32, lambda a: P_.flip(a, [0]), lambda a: np.flip(a).copy()),
        "stride2_copy": one(f32, lambda a: a[::2].contiguous(),
                            lambda a: np.ascontiguousarray(a[::2])),
        "transpose_copy": one(square, lambda a: a.T.contiguous(), lambda a: a.T.copy()),
        "repeat_counts": pair(values_and_counts, lambda a, r: P_.repeat_interleave(a, r),
                              np.repeat),
        "bincount": one(lambda n: arr(rng.integers(0, 100, n)), lambda a: P_.bincount(a),
                        np.bincount),
        "mask_1pct": pair(values_and_sparse_mask, lambda a, m: a[m], lambda a, m: a[m]),
        "mask_99pct": pair(values_and_dense_mask, lambda a, m: a[m], lambda a, m: a[m]),
        "take_u8": pair(bytes_and_index, lambda a, i: a[i], lambda a, i: a[i]),
        "take_i64": pair(longs_and_index, lambda a, i: a[i], lambda a, i: a[i]),
        "nonzero_2d": one(square, lambda a: P_.nonzero(a > 0.5), lambda a: np.argwhere(a > 0.5)),
        "norm_f64": one(f64, lambda a: P_.linalg.norm(a), np.linalg.norm),
        "searchsorted": pair(sorted_and_values, lambda s, v: P_.searchsorted(s, v),
                             np.searchsorted),
        "repeat_2": one(f32, lambda a: a.repeat_interleave(2), lambda a: np.repeat(a, 2)),
        "expand_copy": one(f32, lambda a: a[:, None].expand(a.shape[0], 3).contiguous(),
                           lambda a: np.broadcast_to(a[:, None], (a.shape[0], 3)).copy()),
        "cat": two(f32, lambda a, b: P_.cat([a, b]), lambda a, b: np.concatenate([a, b])),
        "arange_i64": lambda n: ((lambda: P_.arange(n)) if ours else (lambda: np.arange(n))),
        "zeros": lambda n: ((lambda: P_.zeros(n)) if ours
                            else (lambda: np.zeros(n, np.float32))),
        "ones": lambda n: ((lambda: P_.ones(n)) if ours
                           else (lambda: np.ones(n, np.float32))),
        "rand": lambda n: ((lambda: P_.rand(n)) if ours
                           else (lambda: rng.random(n, dtype=np.float32))),
        "randn": lambda n: ((lambda: P_.randn(n)) if ours
                            else (lambda: rng.standard_normal(n, dtype=np.float32))),
    }
    return c


def serve(lib):
    """The server for one library (Note [interleaved timing] in benchmarks._interleave)."""
    cases = _cases(lib)
    settle(_adapter(lib).matmul(10_000))  # its BLAS loaded and quiet before timing
    serve_requests(lambda op, n: cases[op](n), lambda fn: _time(fn, False))


def render(times, sizes, ops):
    others = [lib for lib in ("numpy", "torch") if lib in times]
    head = f"{'op':18s}" + "".join(f"{'pdt/' + lib + ' ' + _size(n):>18s}"
                                   for lib in others for n in sizes)
    lines = [f"our time over {' and '.join(others)}'s (each library in its own process, timed "
             "in turn; median of rounds; - where the library has no such function)",
             head]
    for op in ops:
        cells = []
        for lib in others:
            for n in sizes:
                ours, theirs = times["pydevtensor"][op][str(n)], times[lib][op][str(n)]
                cells.append("-" if theirs is None else
                             f"{ours / theirs:7.2f} ({ours * 1e6:8.1f} us)")
        lines.append(f"{op:18s}" + "".join(f"{c:>18s}" for c in cells))
    return "\n".join(lines)


def _median(seconds):
    """The median of the rounds' times, None where the library had no such function."""
    seconds = list(seconds)
    return None if None in seconds else statistics.median(seconds)


def _size(n):
    return f"1e{len(str(n)) - 1}" if str(n).strip("0") == "1" else str(n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    ap.add_argument("--ops", default=None)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--torch", action="store_true", help="PyTorch (CPU) as a third library")
    ap.add_argument("--serve", choices=("pydevtensor", "numpy", "torch"), help=argparse.SUPPRESS)
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "benchmarks" / "results")))
    args = ap.parse_args(argv)
    args.sizes = [int(float(s)) for s in args.sizes.split(",")]
    known = list(_cases("numpy"))
    args.ops = known if args.ops is None else args.ops.split(",")
    unknown = [op for op in args.ops if op not in known]
    if unknown:
        ap.error(f"unknown ops {unknown}; known: {', '.join(known)}")
    if args.serve:
        serve(args.serve)
        return 0
    libs = ("pydevtensor", "numpy", "torch") if args.torch else ("pydevtensor", "numpy")
    runs = run_interleaved("benchmarks.breadth", libs, args.sizes,
                           args.ops, args.rounds, cwd=ROOT,
                           log=lambda m: print(m, file=sys.stderr, flush=True))
    failed = [f"{lib}: {rs[0]['error']}" for lib, rs in runs.items() if "error" in rs[0]]
    if failed:
        raise SystemExit(f"a server failed: {'; '.join(failed)}")
    times = {lib: {op: {str(n): _median(rr[op][str(n)] for rr in rs)
                        for n in args.sizes} for op in args.ops}
             for lib, rs in runs.items()}
    text = render(times, args.sizes, args.ops)
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "breadth.txt").write_text(text + "\n")
    (out / "breadth.json").write_text(json.dumps(
        {"sizes": args.sizes, "ops": args.ops, "times": times, "rounds": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
