"""The runner of the bad-input catalogue (tests/test_bad_input.py, issue 9).

One runner process (this file run as a script) imports pydevtensor once, then forks
a child per case; the child runs the case and reports what it raised, so that a
crash (a segfault, an abort, a sanitizer report, a hang) fails that case alone and
the run goes on.  The runner never runs a case itself, nor touches a GPU, so
forking is safe.  It must not import pytest.  fuzz/fuzz_inputs.py takes PRELUDE
from here too.

``python tests/bad_input_runner.py --probe 'code' ...`` runs snippets the same way.
"""
import json
import os
import select
import signal
import sys
import time

CASE_TIMEOUT_S = 60

# Helpers for the cases, executed once in the runner before it forks: every case
# sees these names.  They build objects that lie through the array interface and
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


def _run_one(setup, code, namespace, timeout_s):
    """Forks; the child runs code and reports what it raised.  The parent's result:
    {"raised": [names of the exception's classes], "message": str}, {"returned": repr},
    or {"crash": what happened, "stderr": the child's last words}."""
    import tempfile
    rfd, wfd = os.pipe()
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child
        status = 0
        try:
            os.close(rfd)
            os.dup2(err.fileno(), 2)
            try:
                ns = dict(namespace)
                exec(compile(setup + TENSORS, "<setup>", "exec"), ns)
                value = _evaluate(code, ns)
                report = {"returned": repr(value)[:300]}
            except BaseException as e:  # noqa: BLE001 - reported
                report = {"raised": [f"{c.__module__}.{c.__qualname__}"
                                     for c in type(e).__mro__], "message": str(e)}
            os.write(wfd, json.dumps(report).encode())
        except BaseException:  # noqa: BLE001
            status = 3
        finally:
            os._exit(status)
    os.close(wfd)
    chunks, deadline = [], time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([rfd], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            chunks = None
            break
        chunk = os.read(rfd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    err.seek(0)
    stderr = err.read().decode(errors="replace")[-4000:]
    err.close()
    if chunks is None:
        return {"crash": f"hung: killed after {timeout_s} s", "stderr": stderr}
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return {"crash": f"killed by {name}", "stderr": stderr}
    if os.WEXITSTATUS(status) != 0 or not chunks:
        return {"crash": f"exited with status {os.WEXITSTATUS(status)}", "stderr": stderr}
    result = json.loads(b"".join(chunks))
    if stderr.strip():
        result["stderr"] = stderr
    return result


def runner_main():
    """Reads {id: [setup, code]} on stdin, runs each case in its own forked child and
    writes {id: result} on stdout.  The parent never runs a case itself (nor touches
    a device), so a crash takes down one child and fails one case."""
    cases = json.load(sys.stdin)
    namespace = {"__name__": "__case__"}
    exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
    results = {cid: _run_one(setup, code, namespace, CASE_TIMEOUT_S)
               for cid, (setup, code) in cases.items()}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    # Import pydevtensor from where the test session found it (argv: --path DIR).
    if sys.argv[1:2] == ["--path"]:
        sys.path.insert(0, sys.argv[2])
        del sys.argv[1:3]
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if sys.argv[1:2] == ["--probe"]:  # python tests/bad_input_runner.py --probe 'code' ...
        namespace = {"__name__": "__case__"}
        exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
        for code in sys.argv[2:]:
            r = _run_one("", code, namespace, CASE_TIMEOUT_S)
            print(f"{code}\n    -> {r}")
    else:
        runner_main()
    sys.exit(0)
