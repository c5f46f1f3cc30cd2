"""Timing two or three libraries in turn, each in a process of its own, one case at a
time: the machinery behind benchmarks.scaling and benchmarks.breadth.

Note [interleaved timing]
~~~~~~~~~~~~~~~~~~~~~~~~~
Each library runs in its own process, so that no library's idle threads run while
another is timed (an OpenBLAS spins its threads after each parallel call).  The tables
used to time everything of one library, then everything of the next: on a shared
virtual machine the same tiny op then took 160 ns for seconds at a time and 350 ns for
the next seconds (measured on one pinned core, nothing else running), so a cell could
compare one library's fast phase with the other's slow one (matmul of 316 x 316 at
1.25 of NumPy in one table, 0.7 to 1.1 alternating by hand).  Now every library's
process stays up as a server, and the parent asks each in turn for one (case, size):
the libraries' figures for a cell are taken within a second of each other, in every
round, with the order of the libraries rotated every round.  A server answers
only once its other threads are quiet (``quiet``), and times nothing before its BLAS is
loaded and quiet (``settle``), so the one waiting for its turn takes no CPU from the one
being timed.  Each server keeps one case's inputs across the rounds and drops them
when the case is done, so the peak is one case's inputs in every library at once: at
1e8 elements an add with out= holds 1.2 GB a library, 3.6 GB with PyTorch (the tables
that timed one library at a time held a third of that).  Answers are JSON lines tagged "pdt-bench" and name their case, so a line a
library prints to standard output cannot be taken for one.
"""
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _thread_ticks():
    """{thread id: CPU ticks used} for this process's threads other than this one ({}
    where /proc/self/task is not there)."""
    if not os.path.isdir("/proc/self/task"):
        return {}
    me = str(threading.get_native_id())
    out = {}
    for tid in os.listdir("/proc/self/task"):
        if tid == me:
            continue
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        out[tid] = int(fields[11]) + int(fields[12])
    return out


def quiet(before=None, limit=3.0, step=0.02):
    """Waits, up to ``limit`` seconds, until no other thread of this process used the CPU
    over one ``step``; with ``before`` (ticks taken earlier), not at all when none used it
    since.  Returns the seconds waited."""
    if not os.path.isdir("/proc/self/task"):
        return 0.0
    t0 = time.perf_counter()
    now = _thread_ticks()
    if before is not None and all(now[t] == before.get(t, 0) for t in now):
        return 0.0
    while time.perf_counter() - t0 < limit:
        time.sleep(step)
        after = _thread_ticks()
        if all(after[t] == now.get(t, 0) for t in after):
            break
        now = after
    return time.perf_counter() - t0


def settle(load_blas):
    """Loads the library's BLAS (``load_blas()``, a small product) and waits until its
    threads are quiet: an OpenBLAS spins its threads for a while after loading (2^28
    cycles, THREAD_TIMEOUT in its blas_server.c; 0.2 to 0.5 s measured here, when a
    1000 x 1000 matmul ran at half speed), NumPy's at import and ours at the first
    product.  Returns the seconds waited."""
    load_blas()
    return quiet(step=0.1)


TAG = "pdt-bench"  # marks the server's answers among anything a library prints


def _answer(**fields):
    print(json.dumps({TAG: fields}), flush=True)


def serve(build, time_fn):
    """A server's loop.  Each line on stdin is ``op size`` or ``drop``; the answer is one
    JSON line tagged with TAG: for ``op size``, ``time_fn(build(op, size))`` in seconds
    (null where build gives None, an op that does not run at that size), the inputs kept
    for the next round's request; for ``drop``, nothing once the inputs are freed (the
    parent sends it to every server after each case, so that no two servers hold a
    case's inputs at once beyond that case: 1e8 elements are 400 MB an array)."""
    _answer(ready=True)
    key = fn = None
    for line in sys.stdin:
        words = line.split()
        if words == ["drop"]:
            key = fn = None
            gc.collect()
            _answer(dropped=True)
            continue
        op, n = words
        if (op, n) != key:
            key = fn = None  # free the previous inputs first
            fn = build(op, int(n))
            key = (op, n)
        before = _thread_ticks()
        seconds = None if fn is None else time_fn(fn)
        quiet(before)
        _answer(op=op, n=n, seconds=seconds)


class Server:
    """``python -m module --serve lib [extra]`` in a process of its own."""

    def __init__(self, module, lib, extra=(), cwd=None):
        self.lib = lib
        self.error = None
        self.proc = None
        self.err = open(_err_path(lib), "w+")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", module, "--serve", lib, *extra], cwd=cwd,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
            if self._read() is None:  # the library did not import: the error is set
                return
        except BaseException:
            self.close()
            raise

    def _read(self):
        """The next tagged answer (a dict), skipping other lines a library printed; None
        when the server has ended, with self.error set to its last line on stderr."""
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and TAG in msg:
                return msg[TAG]
        self.proc.wait()
        self.err.seek(0)
        last = self.err.read().strip().splitlines()[-1:] or ["exited"]
        self.error = last[0]
        return None

    def _ask(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # _read reports why it ended
        answer = self._read()
        if answer is None:
            raise RuntimeError(f"the {self.lib} server failed: {self.error}")
        return answer

    def time(self, op, n):
        """Seconds for one (op, n), or None; raises RuntimeError when the server died."""
        answer = self._ask(f"{op} {n}")
        if (answer.get("op"), answer.get("n")) != (op, str(n)):
            raise RuntimeError(f"the {self.lib} server answered {answer} for {op} {n}")
        return answer["seconds"]

    def drop(self):
        self._ask("drop")

    def close(self):
        if self.proc is not None:
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        os.unlink(self.err.name)


def _err_path(lib):
    fd, path = tempfile.mkstemp(prefix=f"bench-{lib}-", suffix=".err")
    os.close(fd)
    return path


def run_interleaved(module, libs, sizes, ops, rounds, extra=(), cwd=None, log=print):
    """{lib: [one {op: {size: seconds}} per round]} or {lib: [{"error": why}]} for a
    library whose server could not start (not installed).  Each (op, size) is timed in
    every library in turn, ``rounds`` times, the order rotated every round (Note
    [interleaved timing])."""
    servers = {}
    runs = {}
    try:
        for lib in libs:
            s = Server(module, lib, extra, cwd)
            if s.error:
                log(f"  {lib}: {s.error}")
                runs[lib] = [{"error": s.error}]
                s.close()
            else:
                servers[lib] = s
                runs[lib] = [{op: {} for op in ops} for _ in range(rounds)]
        names = list(servers)
        for op in ops:
            log(f"timing {op} ...")
            for n in sizes:
                for r in range(rounds):
                    k = r % len(names)
                    for lib in names[k:] + names[:k]:
                        runs[lib][r][op][str(n)] = servers[lib].time(op, n)
                for s in servers.values():
                    s.drop()
    finally:
        for s in servers.values():
            s.close()
    return runs
