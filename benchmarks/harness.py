"""The benchmark harness: a registry of comparisons, the timing helpers they use,
the worker that runs one comparison in its own process, and the runner that
starts the workers, prints the table and writes the results.

Writing an entry (in a ``bench_*.py`` module listed in benchmarks.GROUP_MODULES):

1. Statements, timed in timeit-style loops (CPU work, or GPU work with a
   ``sync`` statement run after each loop)::

       @benchmark("creation", "ones(3)", unit="ns", target=MaxRatio("numpy", 1.0))
       def ones_3(cfg):
           return compare_statements(cfg, {
               "pydevtensor": Stmt("import pydevtensor as pdt", "pdt.ones(3)"),
               "numpy": Stmt("import numpy as np", "np.ones(3)"),
               "torch": Stmt("import torch", "torch.ones(3)"),
           })

2. Anything else: build one ``Timed`` per library (``wall_sync_timer``,
   ``torch_event_timer`` and ``cupy_event_timer`` make the usual ones) and hand
   them to ``compare_timed``, or return the per-library results directly.

An entry returns {library: result}; a library it leaves out has no counterpart
("-" in the table).  A result is made by ``ok(seconds)``, ``unavailable(why)``
or ``failed(why)``; PyTorch, CuPy and the raw CUDA figure are optional, so their
ImportError makes them unavailable, while pydevtensor's or NumPy's is an error.
``raise Skip(why)`` skips the whole entry (no GPU, say).

Every figure is a time in seconds per operation; the table shows it in the
entry's unit (ns, us, ms, or GB/s from the entry's nbytes), and each ratio is
pydevtensor's time over the other library's: below 1, pydevtensor is faster.
"""
import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional

ROOT = Path(__file__).resolve().parent.parent
OTHERS = ("numpy", "torch", "cupy", "raw")
OPTIONAL = ("torch", "cupy", "raw")
LABELS = {"pydevtensor": "pdt", "numpy": "np"}  # table headers
SCHEMA = 1


# ---- the registry ----

class Skip(Exception):
    """Raised by an entry that cannot run here; the message says why."""


@dataclass
class Entry:
    id: str
    group: str
    name: str
    unit: str
    func: Callable
    target: Optional["Target"] = None
    nbytes: Optional[int] = None
    number: int = 200_000
    repeat: int = 7
    quick_number: Optional[int] = None
    quick_repeat: int = 3
    timeout_s: float = 300.0
    description: str = ""

    def config(self, quick, number=None, repeat=None):
        if quick:
            n = self.quick_number or max(1, self.number // 10)
            r = self.quick_repeat
        else:
            n, r = self.number, self.repeat
        return {"quick": quick, "number": number or n, "repeat": repeat or r}


REGISTRY: Dict[str, Entry] = {}


def benchmark(group, name, *, unit, target=None, nbytes=None, number=200_000, repeat=7,
              quick_number=None, quick_repeat=3, timeout_s=300.0):
    """Registers the decorated function ``f(cfg) -> {library: result}`` as an entry
    with id ``group.function_name``."""
    def register(func):
        entry_id = f"{group}.{func.__name__}"
        if entry_id in REGISTRY:
            raise ValueError(f"duplicate benchmark id {entry_id}")
        REGISTRY[entry_id] = Entry(entry_id, group, name, unit, func, target, nbytes, number,
                                   repeat, quick_number, quick_repeat, timeout_s,
                                   (func.__doc__ or "").strip())
        return func
    return register


def load_entries():
    from benchmarks import GROUP_MODULES
    for module in GROUP_MODULES:
        importlib.import_module(module)
    return list(REGISTRY.values())


# ---- targets: evaluated by the runner on a finished entry ----

class Target:
    text = ""

    def evaluate(self, impls):
        """(True, False or None when it cannot be judged here, a detail string)."""
        raise NotImplementedError


def _seconds(impls, lib):
    r = impls.get(lib)
    return r["seconds"] if r and r.get("status") == "ok" else None


class MaxSeconds(Target):
    """pydevtensor's time per operation below a limit."""

    def __init__(self, seconds, text):
        self.seconds, self.text = seconds, text

    def evaluate(self, impls):
        s = _seconds(impls, "pydevtensor")
        if s is None:
            return None, "no pydevtensor figure"
        return s < self.seconds, self.text


class MaxRatio(Target):
    """pydevtensor's time over another library's at most `limit`."""

    def __init__(self, other, limit):
        self.other, self.limit = other, limit
        self.text = f"pdt/{other} <= {limit:g}"

    def evaluate(self, impls):
        a, b = _seconds(impls, "pydevtensor"), _seconds(impls, self.other)
        if a is None or b is None:
            return None, f"no {'pydevtensor' if a is None else self.other} figure"
        return a / b <= self.limit, f"{self.text} ({a / b:.2f})"


class MinBandwidth(Target):
    """pydevtensor's bandwidth at least `fraction` of another's (equal bytes moved)."""

    def __init__(self, other, fraction):
        self.other, self.fraction = other, fraction
        pct = f"{fraction:.0%} of " if fraction != 1 else ""
        self.text = f"GB/s >= {pct}{other}"

    def evaluate(self, impls):
        a, b = _seconds(impls, "pydevtensor"), _seconds(impls, self.other)
        if a is None or b is None:
            missing = "pydevtensor" if a is None else self.other
            return None, f"{self.text}: no {missing} figure"
        return b / a >= self.fraction, f"{self.text} ({b / a:.1%})"


class MinSpeed(MinBandwidth):
    """pydevtensor's speed (the same work) at least `fraction` x another library's."""

    def __init__(self, other, fraction):
        super().__init__(other, fraction)
        self.text = f"speed >= {fraction:g}x {other}"


# ---- results of one library ----

def ok(seconds, samples=None, method="", **extra):
    return dict(status="ok", seconds=seconds, samples=samples or [seconds], method=method, **extra)


def unavailable(reason):
    return {"status": "unavailable", "reason": reason}


def failed(reason):
    return {"status": "error", "reason": reason}


def import_problem(lib, exc):
    """The result for a library whose setup raised exc."""
    why = f"{type(exc).__name__}: {exc}"
    if lib in OPTIONAL and isinstance(exc, ImportError):
        return unavailable(why)
    return failed(why)


# ---- timing ----

@dataclass
class Stmt:
    """setup runs once; stmt is timed in a loop of cfg['number'] iterations.
    check, an expression evaluated once after setup, must be true (a reference check
    before timing).  sync, when given, runs after each loop, inside the timing."""
    setup: str
    stmt: str
    check: Optional[str] = None
    sync: Optional[str] = None


@dataclass
class Timed:
    """once() times one operation: seconds, or a dict with 'seconds' and any other
    figures (e.g. 'wall_seconds' next to event timings)."""
    once: Callable[[], object]
    method: str
    warmup: int = 2
    info: dict = field(default_factory=dict)


def elsewhere():
    """The result of a library this worker does not time: another process does
    (cfg['libs'], see isolate below)."""
    return {"status": "elsewhere"}


def mine(cfg, lib):
    """Whether this worker times lib: every library, unless cfg['libs'] names some."""
    return "libs" not in cfg or lib in cfg["libs"]


def compare_statements(cfg, impls):
    """{library: Stmt} -> {library: result}, the loops of every library interleaved."""
    number = cfg["number"]
    results, timed = {}, {}
    for lib, s in impls.items():
        if not mine(cfg, lib):
            results[lib] = elsewhere()
            continue
        ns = {}
        try:
            exec(s.setup, ns)
            if s.check and not eval(s.check, ns):
                results[lib] = failed(f"check failed: {s.check}")
                continue
        except Exception as exc:  # noqa: BLE001 - reported in the table
            results[lib] = import_problem(lib, exc)
            continue
        timer = timeit.Timer(s.stmt, globals=ns)
        sync = compile(s.sync, "<sync>", "exec") if s.sync else None

        def once(timer=timer, sync=sync, ns=ns):
            if sync is None:
                return timer.timeit(number) / number
            t0 = time.perf_counter()
            timer.timeit(number)
            exec(sync, ns)
            return (time.perf_counter() - t0) / number

        timed[lib] = Timed(once, f"timeit: {s.stmt}  x{number}", warmup=1)
    results.update(compare_timed(cfg, timed))
    return {lib: results[lib] for lib in impls}


def compare_timed(cfg, timed):
    """{library: Timed} -> {library: result}: warm-up, then cfg['repeat'] rounds in a
    rotating order (so that no library always runs first), median of each."""
    results, samples, extras = {}, {}, {}
    for lib, t in timed.items():
        if not mine(cfg, lib):
            results[lib] = elsewhere()
            continue
        try:
            for _ in range(t.warmup):
                t.once()
            samples[lib], extras[lib] = [], {}
        except Exception:  # noqa: BLE001
            results[lib] = failed("warm-up raised:\n" + traceback.format_exc(limit=4))
    order = list(samples)
    for r in range(cfg["repeat"] if order else 0):
        k = r % len(order)
        for lib in order[k:] + order[:k]:
            if lib in results:
                continue
            try:
                value = timed[lib].once()
            except Exception:  # noqa: BLE001
                results[lib] = failed("timing raised:\n" + traceback.format_exc(limit=4))
                continue
            if isinstance(value, dict):
                samples[lib].append(value["seconds"])
                for key, v in value.items():
                    if key != "seconds":
                        extras[lib].setdefault(key, []).append(v)
            else:
                samples[lib].append(value)
    for lib in order:
        if lib in results:
            continue
        more = {f"median_{k}": statistics.median(v) for k, v in extras[lib].items()}
        results[lib] = ok(statistics.median(samples[lib]), samples[lib], timed[lib].method,
                          **more, **timed[lib].info)
    return {lib: results[lib] for lib in timed}


def wall_sync_timer(op, sync):
    """Wall clock around op, with sync() before and after (for libraries without events)."""
    def once():
        sync()
        t0 = time.perf_counter()
        op()
        sync()
        return time.perf_counter() - t0
    return once


def pdt_event_timer(pdt, op):
    """CUDA events on pydevtensor's stream around op; wall clock alongside."""
    start, end = pdt.cuda.Event(enable_timing=True), pdt.cuda.Event(enable_timing=True)

    def once():
        pdt.cuda.synchronize()
        t0 = time.perf_counter()
        start.record()
        op()
        end.record()
        end.synchronize()
        wall = time.perf_counter() - t0
        return {"seconds": start.elapsed_time(end) / 1e3, "wall_seconds": wall}
    return once


def torch_event_timer(torch, op):
    """CUDA events on torch's current stream around op; wall clock alongside."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)

    def once():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        start.record()
        op()
        end.record()
        end.synchronize()
        wall = time.perf_counter() - t0
        return {"seconds": start.elapsed_time(end) / 1e3, "wall_seconds": wall}
    return once


def cupy_event_timer(cupy, op):
    """CUDA events on cupy's current stream around op; wall clock alongside."""
    start, end = cupy.cuda.Event(), cupy.cuda.Event()

    def once():
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        start.record()
        op()
        end.record()
        end.synchronize()
        wall = time.perf_counter() - t0
        return {"seconds": cupy.cuda.get_elapsed_time(start, end) / 1e3, "wall_seconds": wall}
    return once


# ---- the worker: one entry, in this process ----

def run_worker(entry_id, result_path, cfg):
    if entry_id == "_env":
        payload = environment()
    else:
        load_entries()
        entry = REGISTRY[entry_id]
        t0 = time.perf_counter()
        try:
            impls = entry.func(cfg)
            payload = {"status": "ok", "impls": {lib: r if mine(cfg, lib) else elsewhere()
                                                 for lib, r in impls.items()}}
        except Skip as exc:
            payload = {"status": "skipped", "reason": str(exc)}
        except Exception:  # noqa: BLE001
            payload = {"status": "error", "reason": traceback.format_exc()}
        payload["wall_s"] = time.perf_counter() - t0
    Path(result_path).write_text(json.dumps(payload, default=str))
    return 0


def environment():
    """Versions and devices, probed in a worker so that the runner imports nothing."""
    env = {"python": sys.version.split()[0], "executable": sys.executable,
           "platform": platform.platform(), "machine": platform.machine(),
           "cpu_count": os.cpu_count(), "libraries": {}}
    import numpy
    env["libraries"]["numpy"] = {"version": numpy.__version__}
    try:
        import pydevtensor as pdt
        info = pdt.build_info()
        env["libraries"]["pydevtensor"] = {"version": info["version"], "build": info,
                                           "cuda_available": pdt.cuda.is_available(),
                                           "cuda_reason": pdt.cuda.unavailable_reason()}
        if pdt.cuda.is_available():
            p = pdt.cuda.get_device_properties(0)
            env["gpu"] = {"name": p.name, "capability": f"{p.major}.{p.minor}",
                          "total_memory": p.total_memory, "sms": p.multi_processor_count}
    except Exception as exc:  # noqa: BLE001
        env["libraries"]["pydevtensor"] = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        from benchmarks import _blas
        _blas.load_blas_libraries()
        env["blas"] = {"openblas": _blas.openblas_info(),
                       "variables": {v: os.environ[v] for v in _blas.ENV_VARS
                                     if v in os.environ}}
    except Exception as exc:  # noqa: BLE001
        env["blas"] = {"error": f"{type(exc).__name__}: {exc}"}
    for name in ("torch", "cupy"):
        try:
            mod = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001
            env["libraries"][name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        rec = {"version": getattr(mod, "__version__", "?")}
        try:
            if name == "torch":
                rec["cuda_available"] = bool(mod.cuda.is_available())
                rec["cuda"] = mod.version.cuda
            else:
                rec["cuda_available"] = mod.cuda.runtime.getDeviceCount() > 0
                rec["cuda"] = mod.cuda.runtime.runtimeGetVersion()
        except Exception as exc:  # noqa: BLE001
            rec["cuda_available"] = False
            rec["cuda_error"] = f"{type(exc).__name__}: {exc}"
        env["libraries"][name] = rec
    return env


# ---- the runner ----

def spawn(entry_id, cfg, timeout_s):
    """Runs one worker; returns its payload (an error payload when it broke)."""
    fd, path = tempfile.mkstemp(prefix="pdt-bench-", suffix=".json")
    os.close(fd)
    cmd = [sys.executable, "-m", "benchmarks", "--worker", entry_id, "--result", path,
           "--config", json.dumps(cfg)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout_s)
        text = Path(path).read_text()
        payload = json.loads(text) if text else None
        if payload is None:
            payload = {"status": "error",
                       "reason": f"worker exited {proc.returncode} without a result:\n"
                                 + proc.stdout[-3000:]}
        elif proc.stdout.strip():
            payload["worker_output"] = proc.stdout[-3000:]
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout
        payload = {"status": "error", "reason": f"timed out after {timeout_s:g} s\n"
                                                + (out or "")[-3000:]}
    finally:
        os.unlink(path)
    payload.setdefault("wall_s", time.perf_counter() - t0)
    payload["process_s"] = time.perf_counter() - t0
    return payload


def run_entry(entry, cfg, args):
    """One entry's payload.  Each library is timed in a process of its own (pydevtensor
    first; its worker lists the others as 'elsewhere'), so that no library's idle
    threads (OpenBLAS's spin after every BLAS call) run during another's timings;
    --same-process times them all in one process, interleaved, as before."""
    timeout = args.timeout or entry.timeout_s
    if args.same_process:
        return spawn(entry.id, cfg, timeout)
    payload = spawn(entry.id, dict(cfg, libs=["pydevtensor"]), timeout)
    impls = payload.get("impls") or {}
    for lib in [lib for lib, r in impls.items() if r.get("status") == "elsewhere"]:
        other = spawn(entry.id, dict(cfg, libs=[lib]), timeout)
        r = (other.get("impls") or {}).get(lib)
        if r is None:
            why = f"its own process ended {other.get('status')}: {other.get('reason', '')}"
            r = unavailable(why) if other.get("status") == "skipped" else failed(why)
        impls[lib] = r
        payload["process_s"] += other.get("process_s", 0.0)
    return payload


def finish(entry, payload):
    """The record of one entry: its payload plus ratios and the target's verdict."""
    rec = {"id": entry.id, "group": entry.group, "name": entry.name, "unit": entry.unit,
           "nbytes": entry.nbytes, "description": entry.description, **payload}
    impls = rec.get("impls") or {}
    for lib, r in impls.items():
        if r.get("status") == "ok":
            r["value"] = to_unit(entry, r["seconds"])
    pdt = _seconds(impls, "pydevtensor")
    rec["ratios"] = {o: pdt / _seconds(impls, o) for o in OTHERS
                     if pdt is not None and _seconds(impls, o)}
    if rec["status"] == "ok":
        met, detail = entry.target.evaluate(impls) if entry.target else (None, "")
        rec["target"] = {"text": entry.target.text if entry.target else "", "met": met,
                         "detail": detail}
        # A library that broke (not merely missing) makes the comparison an error.
        broken = any(r.get("status") == "error" for r in impls.values())
        rec["verdict"] = ("ERROR" if broken else "-" if entry.target is None else
                          "PASS" if met else "MISS" if met is False else "n/a")
    else:
        rec["target"] = {"text": entry.target.text if entry.target else "", "met": None}
        rec["verdict"] = "SKIP" if rec["status"] == "skipped" else "ERROR"
    return rec


def to_unit(entry, seconds):
    if entry.unit == "GB/s":
        return entry.nbytes / seconds / 1e9
    if entry.unit == "GFLOP/s":  # nbytes holds the operation's flop count
        return entry.nbytes / seconds / 1e9
    return seconds * {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}[entry.unit]


def fmt_number(x):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def cell(rec, lib):
    r = (rec.get("impls") or {}).get(lib)
    if r is None:
        return "-"
    if r["status"] == "ok":
        return fmt_number(r["value"])
    return "n/a" if r["status"] == "unavailable" else "err"


def ratio_gap(rec, other):
    """What stands in a ratio column without a ratio: the reason, in one word."""
    impls = rec.get("impls") or {}
    if other not in impls or "pydevtensor" not in impls:
        return "-"
    states = {impls[other]["status"], impls["pydevtensor"]["status"]}
    return "err" if "error" in states else "n/a"


def render_table(records, env):
    libs = ["pydevtensor", "numpy"]
    for lib in ("torch", "cupy"):
        if "error" not in env.get("libraries", {}).get(lib, {"error": 1}) or any(
                (r.get("impls") or {}).get(lib, {}).get("status") == "ok" for r in records):
            libs.append(lib)
    if any((r.get("impls") or {}).get("raw", {}).get("status") == "ok" for r in records):
        libs.append("raw")
    others = [lib for lib in libs if lib != "pydevtensor"]
    head = (["benchmark", "unit"] + [LABELS.get(lib, lib) for lib in libs]
            + [f"pdt/{LABELS.get(o, o)}" for o in others] + ["target", "status"])
    rows = []
    for rec in records:
        ratios = [fmt_number(rec["ratios"][o]) if o in rec["ratios"] else ratio_gap(rec, o)
                  for o in others]
        target = rec["target"].get("detail") or rec["target"]["text"]
        rows.append([f"{rec['group']}: {rec['name']}", rec["unit"]]
                    + [cell(rec, lib) for lib in libs] + ratios + [target, rec["verdict"]])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    left = {0, len(head) - 2, len(head) - 1}

    def line(values):
        return "  ".join(str(v).ljust(w) if i in left else str(v).rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()
    out = [line(head), line(["-" * w for w in widths])] + [line(r) for r in rows]
    return "\n".join(out)


def write_plot(records, path):
    """A bar chart of the time ratios, when matplotlib imports; else nothing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - matplotlib is optional
        return None
    bars = []  # (row label, other library, ratio); a log axis shows positive ratios only
    for r in records:
        for o in OTHERS:
            if r["ratios"].get(o, 0) > 0:
                bars.append((f"{r['group']}: {r['name']}", o, r["ratios"][o]))
    if not bars:
        return None
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.3 * len(bars) + 0.2 * len(records)))
    y, ticks, labels, seen, last = 0.0, [], [], set(), None
    for label, o, ratio in bars:
        if label != last:
            if last is not None:
                y += 0.6
            ticks.append([])
            labels.append(label)
            last = label
        ax.barh(y, ratio, height=0.8, color=f"C{OTHERS.index(o)}",
                label=None if o in seen else f"vs {o}")
        seen.add(o)
        ticks[-1].append(y)
        y += 1.0
    ax.set_yticks([sum(t) / len(t) for t in ticks])
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("pydevtensor's time / the other library's (below 1: pydevtensor is faster)")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def describe_env(env):
    libs = env.get("libraries", {})
    parts = []
    for name in ("pydevtensor", "numpy", "torch", "cupy"):
        rec = libs.get(name, {})
        if "error" in rec:
            parts.append(f"{name}: not importable")
        else:
            extra = ""
            if name != "numpy" and "cuda_available" in rec:
                extra = " (CUDA)" if rec["cuda_available"] else " (no CUDA device)"
            parts.append(f"{name} {rec.get('version', '?')}{extra}")
    gpu = env.get("gpu")
    where = f"{gpu['name']} (sm_{gpu['capability'].replace('.', '')})" if gpu else "no GPU"
    blas = env.get("blas", {})
    blas_lines = [f"BLAS: {blas['error']}"] if "error" in blas else [
        f"BLAS: {os.path.basename(r['path'])}: "
        + (r["error"] if "error" in r else f"core {r['corename']}, {r['threads']} threads")
        for r in blas.get("openblas", [])]
    variables = blas.get("variables") or {}
    blas_lines.append("BLAS variables: " + (", ".join(f"{k}={v}" for k, v in variables.items())
                                            or "none set"))
    mode = env.get("isolation")
    if mode:
        blas_lines.append(f"timing: {mode}")
    return (f"Python {env.get('python')} on {env.get('machine')}, {env.get('cpu_count')} cores, "
            f"{where}\n" + "; ".join(parts) + "\n" + "\n".join(blas_lines))


def select(entries, only):
    if not only:
        return entries
    picked = [e for e in entries if e.group in only or e.id in only]
    unknown = [n for n in only if not any(n in (e.group, e.id) for e in entries)]
    if unknown:
        groups = sorted({e.group for e in entries})
        raise SystemExit(f"--only {', '.join(unknown)}: unknown; groups are {', '.join(groups)} "
                         "(or an entry id from --list)")
    return picked


def output_dir(arg):
    if arg:
        return Path(arg)
    if os.environ.get("OUT"):
        return Path(os.environ["OUT"])
    return ROOT / "benchmarks" / "results"


def write_json(out_dir, result):
    tmp = out_dir / "benchmarks.json.tmp"
    tmp.write_text(json.dumps(result, indent=1, default=str))
    tmp.replace(out_dir / "benchmarks.json")


def run_all(args):
    entries = select(load_entries(), args.only)
    out_dir = output_dir(args.out)
    started = time.perf_counter()
    print(f"pydevtensor benchmarks: {len(entries)} comparisons, one process per library each"
          f"{' (--quick)' if args.quick else ''}", flush=True)
    env = spawn("_env", {}, 120)
    env["isolation"] = ("every library in one process, interleaved (--same-process)"
                        if args.same_process else "each library in its own process")
    if env.get("status") == "error":
        print(f"could not probe the environment:\n{env['reason']}", flush=True)
    pdt_env = env.get("libraries", {}).get("pydevtensor", {})
    if "error" in pdt_env:
        from benchmarks import NOT_INSTALLED
        print(f"{NOT_INSTALLED}\n({pdt_env['error']})", flush=True)
        return 2
    print(describe_env(env), flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    env["load_average_at_start"] = load
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"note: load average {load:.1f} on {os.cpu_count()} cores; other work is running, "
              "so timings (import time most) will be noisy", flush=True)
    records = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for i, entry in enumerate(entries, 1):
        cfg = entry.config(args.quick, args.number, args.repeat)
        print(f"[{i}/{len(entries)}] {entry.group}: {entry.name} ...", end=" ", flush=True)
        rec = finish(entry, run_entry(entry, cfg, args))
        rec["config"] = cfg
        records.append(rec)
        print(progress_line(rec), flush=True)
        # What is done so far, in case the run is killed before the end.
        write_json(out_dir, {"schema": SCHEMA, "complete": False, "argv": sys.argv[1:],
                             "env": env, "records": records})
    total = time.perf_counter() - started

    notes, skipped = [], {}
    for rec in records:
        if rec["status"] == "skipped":
            skipped.setdefault(rec.get("reason", "").strip(), []).append(rec)
        elif rec["status"] != "ok":
            notes.append(f"{rec['verdict']} {rec['group']}: {rec['name']}: "
                         + tail(rec.get("reason", "")))
        for lib, r in (rec.get("impls") or {}).items():
            if r.get("status") == "error":
                notes.append(f"ERROR {rec['group']}: {rec['name']} [{lib}]: {tail(r['reason'])}")
    for reason, recs in skipped.items():
        names = sorted({r["group"] for r in recs})
        notes.insert(0, f"SKIP {len(recs)} {'/'.join(names)} comparison"
                        f"{'s' if len(recs) > 1 else ''}: {reason}")
    result = {"schema": SCHEMA, "complete": True, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
              "argv": sys.argv[1:], "total_s": total, "env": env, "records": records}
    table = render_table(records, env)
    write_json(out_dir, result)
    (out_dir / "benchmarks.txt").write_text(describe_env(env) + "\n\n" + table + "\n")
    written = ["benchmarks.json", "benchmarks.txt"]
    try:
        if write_plot(records, out_dir / "benchmarks.png"):
            written.append("benchmarks.png")
    except Exception as exc:  # noqa: BLE001 - a plot is never worth failing the run for
        notes.append(f"plot not written: {type(exc).__name__}: {exc}")

    print()
    for n in notes:
        print(n)
    if any(not n.startswith("SKIP") for n in notes):
        print(f"(full messages in {out_dir / 'benchmarks.json'})")
    print(f"{total:.0f} s in all; wrote {', '.join(written)} to {out_dir}")
    print("pdt/X: pydevtensor's time over X's (below 1: pydevtensor is faster); raw: "
          "cudaMemcpy through cupy.cuda.runtime.memcpy;\nn/a: not importable or no GPU; "
          "-: no counterpart; err: that library's run broke (see above).")
    print()
    print(table, flush=True)
    broken = any(r["verdict"] == "ERROR" for r in records)
    missed = any(r["verdict"] == "MISS" for r in records)
    return 1 if broken or (args.strict and missed) else 0


def tail(text, lines=3):
    """The end of a traceback: enough to see what broke (the JSON holds all of it)."""
    kept = text.strip().splitlines()[-lines:]
    return "\n    ".join(kept)


def progress_line(rec):
    if rec["status"] != "ok":
        first = (rec.get("reason") or "").strip().splitlines()
        return f"{rec['verdict']} ({first[-1] if first else ''})"
    parts = []
    for lib, r in rec["impls"].items():
        parts.append(f"{lib} {fmt_number(r['value'])}" if r["status"] == "ok"
                     else f"{lib} {r['status']}")
    return f"{rec['unit']}: " + ", ".join(parts) + f"  [{rec['process_s']:.1f} s] {rec['verdict']}"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks",
                                description="pydevtensor benchmarks against NumPy, PyTorch and "
                                            "CuPy, one process per comparison.")
    p.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run one group (or entry id); may be repeated")
    p.add_argument("--list", action="store_true", help="list the entries and exit")
    p.add_argument("--out", metavar="DIR", help="results folder (default: $OUT, else "
                                                "benchmarks/results)")
    p.add_argument("--repeat", type=int, help="override every entry's repeats")
    p.add_argument("--number", type=int, help="override every entry's loop length")
    p.add_argument("--timeout", type=float, help="seconds allowed per comparison process")
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    p.add_argument("--same-process", action="store_true",
                   help="time every library of a comparison in one process, interleaved "
                        "(default: each library in its own process)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
    p.add_argument("--config", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return run_worker(args.worker, args.result, json.loads(args.config or "{}"))
    if args.list:
        for e in select(load_entries(), args.only):
            target = f"  [target: {e.target.text}]" if e.target else ""
            print(f"{e.id:32s} {e.group}: {e.name} ({e.unit}){target}")
        return 0
    return run_all(args)
