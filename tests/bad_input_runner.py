"""The runner of the bad-input catalogue (tests/test_bad_input.py, issue 9).

One runner process (this file run as a script) imports pydevtensor and the modules
the cases use once, then forks children that run the cases and report, case by case,
what each raised, so that a crash (a segfault, an abort, a sanitizer report, a hang)
fails that case alone and the run goes on.  A child runs up to GROUP_SIZE cases one
after another, each in a fresh namespace: a fork costs ~3 ms here and ~60 ms under
AddressSanitizer, against ~1 ms (~5 ms) for most cases.  A case with a setup, or
marked isolated, has a child of its own; a shared case that leaves process-wide
state changed is reported (bad_input_state.py).  When a child dies, the case it was
running runs again alone and the rest go on in a new child (run_cases).  The runner
never runs a case itself, nor touches a device, so forking is safe.  It must not
import pytest.  fuzz/fuzz_inputs.py takes PRELUDE from here too.

``python tests/bad_input_runner.py --probe 'code' ...`` runs snippets, each in a child
of its own (options: see the end of this file).
"""
import gc
import json
import os
import select
import signal
import sys
import time

import bad_input_state

CASE_TIMEOUT_S = 60  # a case that reports nothing for this long has hung
GROUP_SIZE = 32  # cases a forked child runs one after another (run_cases)
# Imported by the runner before it forks (_preload), besides pydevtensor's lazy
# submodules (pydevtensor._LAZY_SUBMODULES): what cases import below those.
PRELOAD = ("encodings.cp437", "pydevtensor.optim.lr_scheduler", "pydevtensor.utils.data",
           "pydevtensor._serialization_tree")

# Helpers for the cases, run by the child anew for each case (and once in the runner,
# for its imports): every case sees these names.  They build objects that lie through the array interface and
# DLPack, DLPack capsules made by hand, and files that are not what load() wants.
PRELUDE = r'''
import ctypes
import io
import json
import os
import tempfile
import zipfile

import numpy as np
import pydevtensor as pdt

a = np.arange(6, dtype=np.float32)  # a well-formed array to misuse


class Iface:
    """An object whose __array_interface__ is whatever it was given; it keeps
    `base` (the memory the dict points at, if any) alive."""
    def __init__(self, iface, base=None):
        self.__array_interface__, self.base = iface, base


def lying_iface(arr=None, **changes):
    """arr's true interface with some keys changed (a key set to DROP is removed)."""
    arr = a if arr is None else arr
    d = dict(arr.__array_interface__)
    for k, v in changes.items():
        if v is DROP:
            d.pop(k, None)
        else:
            d[k] = v
    return Iface(d, arr)


DROP = object()


class DLPackObj:
    """__dlpack__ returns `capsule` (a value, or a callable taking the keywords);
    __dlpack_device__ returns `device`."""
    def __init__(self, capsule, device=(1, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kw):
        return self.capsule(**kw) if callable(self.capsule) else self.capsule

    def __dlpack_device__(self):
        return self.device


# DLPack's structs (csrc/python/dlpack.h), for capsules made by hand.
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
KEEP = []  # everything a hand-made capsule points at lives until the case ends
BUF = np.arange(64, dtype=np.float32)


def capsule(shape=(4,), strides=None, dtype=(2, 32, 1), device=(1, 0), data=None, ndim=None,
            versioned=False, version=(1, 1), flags=0, name=None, byte_offset=0):
    """A DLPack capsule over BUF (or the address `data`), describing whatever it is
    told.  shape or strides None gives a NULL pointer there."""
    m = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
    dl = m.dl_tensor
    dl.data = BUF.ctypes.data if data is None else data
    dl.device = DLDevice(*device)
    dl.ndim = len(shape or ()) if ndim is None else ndim
    dl.dtype = DLDataType(*dtype)
    for field, values in (("shape", shape), ("strides", strides)):
        if values is not None:
            arr = (ctypes.c_int64 * max(1, len(values)))(*values)
            KEEP.append(arr)
            setattr(dl, field, ctypes.cast(arr, ctypes.POINTER(ctypes.c_int64)))
    dl.byte_offset = byte_offset
    if versioned:
        m.major, m.minor = version
        m.flags = flags
    KEEP.append(m)
    name = name or (b"dltensor_versioned" if versioned else b"dltensor")
    KEEP.append(name)
    return _capsule_new(ctypes.addressof(m), name, None)


def write_bytes(data):
    fd, path = tempfile.mkstemp(suffix=".npz")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path


def npz(meta=None, **arrays):
    """A path to a .npz holding arrays and, unless meta is None, the record."""
    buf = io.BytesIO()
    if meta is not None:
        arrays["__pydevtensor__"] = np.array(meta if isinstance(meta, str) else json.dumps(meta))
    np.savez(buf, **arrays)
    return write_bytes(buf.getvalue())


def meta(**tensors):
    return {"format": "pydevtensor.npz", "version": 1, "kind": "dict", "tensors": tensors}
'''


# Run in each child, after the case's setup: well-formed tensors to misuse.
TENSORS = """
t = pdt.arange(6, dtype=pdt.float32).reshape(2, 3)
ti = pdt.arange(6, dtype=pdt.int32)
tb = pdt.tensor([True, False])
"""


def _evaluate(code, namespace):
    """Runs code; the value of its last statement when that is an expression."""
    import ast
    tree = ast.parse(code, "<case>")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<case>", "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), "<case>", "eval"), namespace)


def _run_case(setup, code, prelude):
    """Runs one case in a fresh namespace (the prelude run anew, the setup, TENSORS):
    {"raised": [names of the exception's classes], "message": str} or {"returned": repr}."""
    ns = {"__name__": "__case__"}
    try:
        exec(prelude, ns)
        exec(compile(setup + TENSORS, "<setup>", "exec"), ns)
        return {"returned": repr(_evaluate(code, ns))[:300]}
    except BaseException as e:  # noqa: BLE001 - reported
        return {"raised": [f"{c.__module__}.{c.__qualname__}" for c in type(e).__mro__],
                "message": str(e)}
    finally:
        # the prelude's functions hold ns as their globals (a cycle): free the case's
        # objects now, so that their finalizers (tensor frees, DLPack deleters) run
        # inside this case and a crash there is this case's, not a later one's
        ns.clear()
        gc.collect()


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def _child(cases, grouped, wfd):
    """In the forked child: runs cases (a list of [setup, code]) one after another and
    writes each result to wfd as a JSON line as soon as it has it, with the case's own
    output (file descriptors 1 and 2 are the runner's capture file, whose offsets
    before and after each case delimit it).  In a group, a case that leaves the
    process-wide state (bad_input_state) changed gets "state_changed", and the child
    stops after it, so that the cases after it run in a fresh child."""
    import ctypes
    c_flush = ctypes.CDLL(None).fflush  # C's stdio buffers too: os._exit drops them
    prelude = compile(PRELUDE, "<prelude>", "exec")
    baseline = None
    if grouped:
        _run_case("", "None", prelude)  # the first use of a device, as every case makes
        baseline = bad_input_state.fingerprint()
    for setup, code in cases:
        start = os.lseek(2, 0, os.SEEK_CUR)
        result = _run_case(setup, code, prelude)
        sys.stdout.flush()
        sys.stderr.flush()
        c_flush(None)
        end = os.lseek(2, 0, os.SEEK_CUR)
        output = os.pread(2, min(end - start, 4000), max(start, end - 4000))
        if output.strip():
            result["stderr"] = output.decode(errors="replace")
        if baseline is not None:
            changed = bad_input_state.changes(baseline, bad_input_state.fingerprint())
            if changed:
                result["state_changed"] = changed
        result["_end"] = end
        _write_all(wfd, json.dumps(result).encode() + b"\n")
        if "state_changed" in result:
            break


def _fork(cases, grouped, capture, timeout_s):
    """Runs cases in one forked child (_child).  Returns (the results it reported, in
    order, and None) when it ended normally, or (those results, {"crash": what
    happened, "stderr": what the case that was running wrote}) when it died or
    went `timeout_s` seconds without reporting a case."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.ftruncate(capture.fileno(), 0)
    os.lseek(capture.fileno(), 0, os.SEEK_SET)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status = 0
        try:
            os.close(rfd)
            os.dup2(capture.fileno(), 1)
            os.dup2(capture.fileno(), 2)
            _child(cases, grouped, wfd)
        except BaseException:  # noqa: BLE001
            status = 3
        finally:
            os._exit(status)
    os.close(wfd)
    results, pending, hung = [], b"", False
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([rfd], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            hung = True
            break
        chunk = os.read(rfd, 1 << 16)
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        results += map(json.loads, lines)
        if lines:
            deadline = time.monotonic() + timeout_s
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    start = results[-1]["_end"] if results else 0
    for r in results:
        del r["_end"]
    stderr = os.pread(capture.fileno(), 1 << 20, start).decode(errors="replace")[-4000:]
    stopped = bool(results) and "state_changed" in results[-1]
    if hung:
        crash = f"hung: killed after {timeout_s:g} s"
    elif os.WIFSIGNALED(status):
        crash = f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    elif os.WEXITSTATUS(status) != 0 or pending or (len(results) < len(cases) and not stopped):
        crash = f"exited with status {os.WEXITSTATUS(status)}"
    else:
        return results, None
    return results, {"crash": crash, "stderr": stderr}


def run_cases(cases, timeout_s=CASE_TIMEOUT_S, group_size=GROUP_SIZE):
    """Runs {id: (setup, code, isolated)} in forked children; returns {id: result}
    (see _run_case; a case that crashed gets {"crash": ..., "stderr": ...}).

    Cases with a setup, or marked isolated, get a child each; the others run
    `group_size` to a child, in order.  When a child dies, the cases it reported keep
    their results; the case it was running is run again alone, so that its crash is
    its own, with its own output (if alone it does not crash, it fails anyway, saying
    after which cases of its group it crashed); the cases after it form a new group.
    The same when a case changed the process-wide state: the cases after it go on in
    a new child.  The runner never runs a case itself, nor touches a device."""
    import collections
    import tempfile
    queue = collections.deque()
    group = []
    for cid, (setup, _code, isolated) in cases.items():
        if setup or isolated:
            queue.append(([cid], False))
            continue
        group.append(cid)
        if len(group) == group_size:
            queue.append((group, True))
            group = []
    if group:
        queue.append((group, True))
    results = {}
    with tempfile.TemporaryFile() as capture:
        while queue:
            ids, grouped = queue.popleft()
            got, death = _fork([cases[i][:2] for i in ids], grouped, capture, timeout_s)
            results.update(zip(ids, got))
            rest = ids[len(got):]
            if not rest:
                continue
            if death is not None:
                if grouped:
                    alone, alone_death = _fork([cases[rest[0]][:2]], False, capture, timeout_s)
                    if alone_death is None:
                        before = ", ".join(ids[:len(got)]) or "no other case"
                        death["crash"] += (f" in a child that ran {before} before it "
                                           f"(alone, it did not crash: {alone[0]})")
                    else:
                        death = alone_death
                results[rest[0]] = death
                rest = rest[1:]
            if rest:
                queue.appendleft((rest, True))
    return results


def _preload():
    """Imports, before the first fork, what the cases would otherwise import in every
    child (pydevtensor.nn alone takes 0.1 s or more: ~45 ms a case on average), and
    checks that the runner still has used no device and started no thread, so that
    forking stays safe."""
    import importlib
    import threading

    import pydevtensor
    lazy = getattr(pydevtensor, "_LAZY_SUBMODULES", ())
    for name in [f"pydevtensor.{m}" for m in lazy] + list(PRELOAD):
        importlib.import_module(name)
    from pydevtensor import _C
    assert not _C._initialized(), "preloading the modules used a device"
    assert threading.active_count() == 1, "preloading the modules started a thread"


def runner_main(timeout_s, group_size):
    """Reads {id: [setup, code] or [setup, code, isolated]} on stdin, runs the cases
    (run_cases) and writes {id: result} on stdout."""
    cases = {cid: (case[0], case[1], bool(case[2:3] and case[2]))
             for cid, case in json.load(sys.stdin).items()}
    exec(compile(PRELUDE, "<prelude>", "exec"), {"__name__": "__case__"})  # its imports
    _preload()
    gc.collect()
    gc.freeze()  # what is loaded now is never garbage: each case's collect skips it
    json.dump(run_cases(cases, timeout_s, group_size), sys.stdout)


if __name__ == "__main__":
    # Options, before the rest: --path DIR (import pydevtensor from there: where the test
    # session found it), --case-timeout S, --group-size N (1: every case in a child of its
    # own).  Then --probe 'code' ... (each in a child of its own), or cases on stdin.
    options = {"--path": os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
               "--case-timeout": CASE_TIMEOUT_S, "--group-size": GROUP_SIZE}
    args = sys.argv[1:]
    while args[:1] and args[0] in options:
        options[args[0]], args = args[1], args[2:]
    sys.path.insert(0, options["--path"])
    timeout = float(options["--case-timeout"])
    if args[:1] == ["--probe"]:
        exec(compile(PRELUDE, "<prelude>", "exec"), {"__name__": "__case__"})
        _preload()
        probes = run_cases({str(i): ("", code, True) for i, code in enumerate(args[1:])},
                           timeout)
        for i, code in enumerate(args[1:]):
            print(f"{code}\n    -> {probes[str(i)]}")
    else:
        runner_main(timeout, int(options["--group-size"]))
    sys.exit(0)
