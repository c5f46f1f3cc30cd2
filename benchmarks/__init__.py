"""pydevtensor's benchmarks, side by side with NumPy, PyTorch and CuPy.

    python -m benchmarks                 # every group
    python -m benchmarks --quick         # fewer repeats, for a smoke run
    python -m benchmarks --only creation # one group (repeatable; an entry id works too)
    python -m benchmarks --list          # the entries, without running them

Each comparison runs in a fresh subprocess (``python -m benchmarks --worker ID``),
is warmed up, and reports the median of several repeats for every library that
imports.  The table printed last gives each library's figure and pydevtensor's
time over the other's; the full results go to ``benchmarks.json`` (and
``benchmarks.png`` when matplotlib imports) under ``$OUT`` when it is set, else
``benchmarks/results/``.

The groups are the modules listed in GROUP_MODULES; each registers its entries
with ``harness.benchmark``.  A new group (matmul, elementwise ops, nn) is a new
``bench_*.py`` module added to that list; see harness.py for the two ways of
writing an entry.
"""

GROUP_MODULES = (
    "benchmarks.bench_import",
    "benchmarks.bench_creation",
    "benchmarks.bench_convert",
    "benchmarks.bench_copies",
    "benchmarks.bench_ops",
    "benchmarks.bench_index",
    "benchmarks.bench_exercises",
    "benchmarks.bench_nn",
    "benchmarks.bench_training",
    "benchmarks.bench_autograd",
    "benchmarks.bench_threads",
    "benchmarks.bench_half",
)
