"""Import time: what ``import pydevtensor`` adds to ``import numpy``.

Fresh interpreters run ``python -c "import numpy"`` and ``python -c "import numpy,
pydevtensor"`` (and the same for torch and cupy when they are installed), interleaved,
each timed from the outside; the medians are subtracted.  No ``-X importtime``: the
figure is what a user waits for, interpreter and dynamic loading included.

Bytecode: the children run without PYTHONDONTWRITEBYTECODE, so that after the warm-up
runs every module imports from its cached .pyc, as an installed package does.
"""
import importlib.util
import os
import statistics
import subprocess
import sys
import time

from benchmarks.harness import ROOT, MaxSeconds, benchmark, failed, ok, unavailable

STATEMENTS = {
    "python": "pass",
    "numpy": "import numpy",
    "pydevtensor": "import numpy, pydevtensor",
    "torch": "import numpy, torch",
    "cupy": "import numpy, cupy",
}
BASE = {"numpy": "python", "pydevtensor": "numpy", "torch": "numpy", "cupy": "numpy"}
WARMUP = 2
OPTIONAL_RUNS = 7  # torch takes seconds to import: fewer runs of it


def _child_env():
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def _run(code, env):
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"python -c {code!r} exited {proc.returncode}: {proc.stderr[-1500:]}")
    return elapsed


def _import_times(cfg, exit_code, optional):
    runs = cfg["number"]
    env = _child_env()
    results = {}
    variants = ["python", "numpy", "pydevtensor"]
    for lib in ("torch", "cupy") if optional else ():
        if importlib.util.find_spec(lib) is None:
            results[lib] = unavailable(f"ModuleNotFoundError: No module named '{lib}'")
        else:
            variants.append(lib)
    code = {v: STATEMENTS[v] + exit_code for v in variants}
    times = {v: [] for v in variants}
    broken = {}
    for v in variants:
        try:
            for _ in range(WARMUP):
                _run(code[v], env)
        except RuntimeError as exc:
            broken[v] = str(exc)
    live = [v for v in variants if v not in broken]
    for i in range(runs):
        k = i % len(live)
        for v in live[k:] + live[:k]:
            if v in ("torch", "cupy") and i >= min(runs, OPTIONAL_RUNS):
                continue
            times[v].append(_run(code[v], env))

    med = {v: statistics.median(t) for v, t in times.items() if t}
    for lib, base in BASE.items():
        if lib in results or (lib not in variants):
            continue
        if lib in broken or base in broken:
            bad = broken.get(lib) or broken.get(base)
            results[lib] = (unavailable(bad) if lib in ("torch", "cupy") and lib in broken
                            else failed(bad))
            continue
        n = len(times[lib])
        paired = [a - b for a, b in zip(times[lib], times[base][:n])]
        results[lib] = ok(med[lib] - med[base], samples=paired,
                          method=f"median of {n} fresh `python -c {code[lib]!r}` "
                                 f"minus median of `python -c {code[base]!r}`",
                          median_total_s=med[lib], median_base_s=med[base],
                          median_paired_diff_s=statistics.median(paired), runs=n)
    order = ["pydevtensor", "numpy", "torch", "cupy"]
    return {lib: results[lib] for lib in order if lib in results}


@benchmark("import", "import pydevtensor (ms added to numpy)", unit="ms",
           target=MaxSeconds(0.030, "added < 30 ms"), number=15, quick_number=7, repeat=1,
           quick_repeat=1, timeout_s=600)
def import_time(cfg):
    """Median over fresh interpreters of `import numpy, X` minus `import numpy`; numpy's
    own figure is `import numpy` minus `python -c pass`.  Interpreter exit included."""
    return _import_times(cfg, "", optional=True)


@benchmark("import", "same, exit by os._exit(0) (no teardown)", unit="ms", number=15,
           quick_number=7, repeat=1, quick_repeat=1, timeout_s=600)
def import_time_no_teardown(cfg):
    """As import_time, but every child ends with os._exit(0): the import alone, without
    the interpreter's shutdown (module teardown, library destructors, thread joins).
    The difference from import_time is what pydevtensor adds at exit."""
    return _import_times(cfg, "; import os; os._exit(0)", optional=False)
