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
    "benchmarks.bench_conv",
    "benchmarks.bench_rnn",
    "benchmarks.bench_training",
    "benchmarks.bench_autograd",
    "benchmarks.bench_threads",
    "benchmarks.bench_half",
)


def _prefer_the_installed_package():
    """Run from the repository root, ``import pydevtensor`` finds the source folder
    ``pydevtensor/`` before the installed package.  With the README's editable install
    (``pip install -e .``) that folder holds the built extension and is the package, so
    nothing changes.  After a non-editable install it holds no extension: then the
    repository root leaves sys.path (this package is already imported, and its modules
    load through its own __path__), so the installed pydevtensor is the one imported.
    When none is installed, the import error says what to do (harness.environment)."""
    import importlib.machinery
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    source = root / "pydevtensor"
    built = any(next(source.glob(f"_C*{suffix}"), None)
                for suffix in importlib.machinery.EXTENSION_SUFFIXES)
    if not source.is_dir() or built:
        return
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != root]


_prefer_the_installed_package()

NOT_INSTALLED = ("pydevtensor cannot be imported: the benchmarks need it installed. From the "
                 "repository root, `pip install -e .` (the README's command) builds it in "
                 "place; a non-editable `pip install .` works too (the benchmarks then use "
                 "the installed copy).")
