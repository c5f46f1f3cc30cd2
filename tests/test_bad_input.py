"""The bad-input catalogue (issue 9): every public function given wrong types,
shapes, devices and dtypes, negative and huge sizes, NaN and inf, non-contiguous
and read-only NumPy arrays, objects whose array interface or DLPack export lies,
unknown devices and corrupt files.  Each case names the exception it must raise
and a regex its message must match (the message names the problem).

Each case runs in its own process, so that a crash (a segfault, an abort, a
sanitizer report, a hang) fails that case alone and the run goes on: one runner
process (this file run as a script) imports pydevtensor once, then forks a child
per case; the child runs the case and reports what it raised.  The runner never
runs a case itself, nor touches a GPU, so forking is safe.  A case's `setup`
runs in the child before anything else (configuration that must come before the
first use of a device), then the tensors `t`, `ti`, `tb`.

Cases must hold on every machine: with and without a GPU, and in the CPU-only
sanitizer build.  So the unknown CUDA device is cuda:63 (the highest index a
device string may name), which no machine has.

What no consumer can check is left out: an array interface or DLPack capsule
that points at memory it does not own (a wrong address, or a shape or strides
larger than the memory) looks like any other; NumPy cannot tell either.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from typing import NamedTuple, Optional, Tuple, Union

import pytest

# ---------------------------------------------------------------- the runner
CASE_TIMEOUT_S = 60
#
# Everything below down to the catalogue runs in the runner process too
# (``python tests/test_bad_input.py``), which must not import pytest.

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


# ---------------------------------------------------------------- the catalogue

class Case(NamedTuple):
    id: str
    code: str                      # the last line's value is reported if nothing raises
    exc: Union[str, Tuple[str, ...]]  # exception class name(s); "pydevtensor.X" for ours
    match: str                     # re.search()ed in the message
    setup: str = ""                # runs first in the child (configuration)
    xfail: Optional[str] = None    # why, for a known bug left open


C = Case
NO_CUDA_63 = r"cuda:63 unknown device"
TWO_CPUS = """
cpu = pdt.config.list_physical_devices("CPU")[0]
pdt.config.set_logical_device_configuration(
    cpu, [pdt.config.LogicalDeviceConfiguration(), pdt.config.LogicalDeviceConfiguration()])
"""
FILE = 'meta(x={"device": "cpu", "dtype": "float32"})'  # a well-formed record for x

CASES = [
    # ---- creation: wrong types, shapes, dtypes; negative and huge sizes; NaN/inf
    C("tensor-ragged", "pdt.tensor([[1, 2], [3]])", "ValueError", r"ragged.*length 2.*length 1"),
    C("tensor-ragged-scalar", "pdt.tensor([[1, 2], 3])", "ValueError", r"ragged.*found int"),
    C("tensor-str-element", 'pdt.tensor([1, "x"])', "TypeError", r"expected numbers.*found str"),
    C("tensor-object", "pdt.tensor(object())", "TypeError", r"data must be a number.*got object"),
    C("tensor-deep-nesting", "x = [1]\nfor _ in range(100): x = [x]\npdt.tensor(x)",
      "ValueError", r"nesting deeper than 16"),
    C("tensor-int-too-big", "pdt.tensor(2**70)", "OverflowError", r"does not fit in 64 bits"),
    C("tensor-int32-overflow", "pdt.tensor([2**40], dtype=pdt.int32)", "OverflowError",
      r"1099511627776 does not fit in int32"),
    C("tensor-unknown-dtype", 'pdt.tensor([1, 2], dtype="float8")', "TypeError",
      r"unknown dtype 'float8'"),
    C("tensor-bytes", 'pdt.tensor(b"abc")', "TypeError", r"unsupported element type 'B'"),
    C("zeros-negative", "pdt.zeros(2, -1)", "ValueError", r"negative dimension -1 at position 1"),
    C("zeros-huge", "pdt.zeros(2**40, 2**40)", "ValueError", r"more than 2\^62 bytes"),
    C("empty-huge-1d", "pdt.empty(2**60, dtype=pdt.float64)", "ValueError",
      r"float64 tensor .* more than 2\^62 bytes"),
    C("empty-too-many-dims", "pdt.empty((2,) * 65)", "ValueError",
      r"at most 16 dimensions, got 65"),
    C("ones-float-size", "pdt.ones(2.5)", "TypeError", r"size must be a sequence of ints.*float"),
    C("ones-bool-size", "pdt.ones(True)", "TypeError", r"sequence of ints.*bool"),
    C("zeros-unknown-kwarg", "pdt.zeros(3, bogus=1)", "TypeError",
      r"unexpected keyword argument 'bogus'"),
    C("is-grad-enabled-arg", "pdt.is_grad_enabled(1)", "TypeError", r"takes no arguments"),
    C("set-grad-enabled-int", "pdt.set_grad_enabled(1)", "TypeError", r"mode must be a bool"),
    C("randint-requires-grad", "pdt.randint(0, 3, (2,), requires_grad=True)", "RuntimeError",
      r"only Tensors of floating point dtype can require gradients"),
    C("empty-pin-gpu", 'pdt.empty(3, pin_memory=True, device="cuda")', "ValueError",
      r"pin_memory=True needs a CPU tensor"),
    C("full-str-value", 'pdt.full((2,), "a")', "TypeError", r"fill_value must be a real number"),
    C("full-int32-overflow", "pdt.full((2,), 2**40, dtype=pdt.int32)", "ValueError",
      r"1099511627776 cannot be converted to int32"),
    C("full_like-int32-overflow", "pdt.full_like(ti, -2**40)", "ValueError",
      r"-1099511627776 cannot be converted to int32"),
    C("zeros_like-ndarray", "pdt.zeros_like(np.zeros(3))", "TypeError",
      r"input must be a Tensor, got numpy.ndarray"),
    C("ones_like-list", "pdt.ones_like([1, 2])", "TypeError", r"input must be a Tensor, got list"),
    C("empty_like-bad-dtype", 'pdt.empty_like(t, dtype="complex64")', "TypeError",
      r"unknown dtype 'complex64'"),
    C("arange-zero-step", "pdt.arange(0, 10, 0)", "ValueError",
      r"step 0 cannot go from start 0 to end 10"),
    C("arange-wrong-direction", "pdt.arange(10, 0, 1)", "ValueError",
      r"step 1 cannot go from start 10 to end 0"),
    C("arange-nan", 'pdt.arange(0, float("nan"))', "ValueError",
      r"must be finite, got 0, nan, 1"),
    C("arange-inf", 'pdt.arange(0, float("inf"))', "ValueError", r"must be finite, got 0, inf"),
    C("arange-too-many", "pdt.arange(0, 1e30, 1e-30)", "ValueError",
      r"1e\+60 elements is too many"),
    C("arange-int-too-big", "pdt.arange(0, 2**70)", "OverflowError",
      r"end: .* does not fit in 64 bits"),
    C("linspace-negative-steps", "pdt.linspace(0, 1, -1)", "ValueError",
      r"steps must be >= 0, got -1"),
    C("linspace-huge", "pdt.linspace(0, 1, 2**62)", "ValueError", r"more than 2\^62 bytes"),
    C("eye-negative", "pdt.eye(-1)", "ValueError", r"negative dimension -1"),
    C("rand-int-dtype", "pdt.rand(2, dtype=pdt.int32)", "TypeError",
      r"rand\(\): dtype must be float32 or float64, got int32"),
    C("randn-negative", "pdt.randn(-3)", "ValueError", r"negative dimension -3"),
    C("normal-negative-std", "pdt.normal(0.0, -1.0, (2,))", "ValueError",
      r"normal\(\): std must be >= 0, got -1.0"),
    C("normal-no-size", "pdt.normal(0.0, 1.0)", "TypeError",
      r"normal\(\): with a number mean and std, give the size"),
    C("normal-int-mean", "pdt.normal(pdt.zeros(2, dtype=pdt.int64), 1.0)", "TypeError",
      r"normal\(\): mean must be a floating-point tensor, got pydevtensor.int64"),
    C("randint-empty-range", "pdt.randint(5, 5, (3,))", "ValueError",
      r"high \(5\) must be greater than low \(5\)"),
    C("randint-huge-high", "pdt.randint(0, 2**70, (3,))", "OverflowError",
      r"high does not fit in 64 bits"),
    C("uniform-reversed", "pdt.zeros(3).uniform_(2, 1)", "ValueError",
      r"from \(2\) must not exceed to \(1\)"),
    C("normal-nan-std", 'pdt.zeros(3).normal_(0, float("nan"))', "ValueError",
      r"std must be >= 0, got nan"),
    C("manual_seed-str", 'pdt.manual_seed("x")', "TypeError", r"seed must be an int, got str"),
    C("initial_seed-args", "pdt.initial_seed(1)", "TypeError", r"takes no arguments"),

    # ---- devices: unknown devices, wrong types
    C("device-unknown-type", 'pdt.device("tpu")', "ValueError",
      r"invalid device string 'tpu': unknown device type"),
    C("device-negative-index", 'pdt.device("cuda:-1")', "ValueError",
      r"'cuda:-1': bad device index"),
    C("device-index-too-big", 'pdt.device("cuda", 2**40)', "ValueError",
      r"invalid device index 1099511627776 for cuda"),
    C("device-float", "pdt.device(3.5)", "TypeError", r"expects a string.*got float"),
    C("device-index-twice", 'pdt.device("cuda:1", 2)', "ValueError",
      r"the type already names an index"),
    C("tensor-device-unknown", 'pdt.tensor([1, 2], device="tpu")', "ValueError",
      r"'tpu': unknown device type"),
    C("zeros-cuda-63", 'pdt.zeros(2, device="cuda:63")', "pydevtensor.DeviceError", NO_CUDA_63),
    C("zeros-logical-cpu-missing", 'pdt.zeros(2, device="cpu:1")', "pydevtensor.DeviceError",
      r"cpu:1 unknown device; available: cpu"),
    C("zeros-device-is-dtype", "pdt.zeros(2, device=pdt.float32)", "TypeError",
      r"expected a device.*got pydevtensor.dtype"),
    C("try_gpu-str", 'pdt.try_gpu("x")', "TypeError", r"try_gpu\(\): i must be an int, got str"),
    C("try_all_gpus-args", "pdt.try_all_gpus(1)", "TypeError", r"takes 0 positional arguments"),
    C("device_count-args", "pdt.device_count(5)", "TypeError", r"takes 0 positional arguments"),
    C("memory_allocated-unknown", 'pdt.memory_allocated("tpu")', "ValueError",
      r"'tpu': unknown device type"),
    C("max_memory_allocated-float", "pdt.max_memory_allocated(3.5)", "TypeError",
      r"expected a device.*got float"),
    C("memory_reserved-cuda-63", 'pdt.memory_reserved("cuda:63")', "pydevtensor.DeviceError",
      NO_CUDA_63),
    C("empty_cache-cpu-7", 'pdt.empty_cache("cpu:7")', "pydevtensor.DeviceError",
      r"cpu:7"),
    C("memory_stats-cuda-63", 'pdt.memory_stats("cuda:63")', "pydevtensor.DeviceError",
      NO_CUDA_63),
    C("reset_peak-unknown", 'pdt.reset_peak_memory_stats("tpu")', "ValueError",
      r"'tpu': unknown device type"),
    C("set_default_device-float", "pdt.set_default_device(1.5)", "TypeError",
      r"expected a device.*got float"),
    C("set_default_device-unknown", 'pdt.set_default_device("tpu:0")', "ValueError",
      r"'tpu:0': unknown device type"),
    C("get_default_device-args", "pdt.get_default_device(1)", "TypeError",
      r"takes 0 positional arguments"),
    C("transfer_stats-args", "pdt.transfer_stats(1)", "TypeError", r"takes no arguments"),
    C("reset_transfer_stats-args", "pdt.reset_transfer_stats(1)", "TypeError",
      r"takes no arguments"),
    C("build_info-args", "pdt.build_info(1)", "TypeError", r"takes 0 positional arguments"),

    # ---- copies
    C("to-cuda-63", 't.to("cuda:63")', "pydevtensor.DeviceError", NO_CUDA_63),
    C("to-unknown-dtype", 't.to(dtype="float8")', "TypeError", r"unknown dtype 'float8'"),
    C("to-two-dtypes", "t.to(pdt.float32, pdt.int32)", "TypeError", r"to\(\) takes \(device="),
    C("cuda-index-out-of-range", "t.cuda(99)", "ValueError",
      r"invalid device index 99: a device given as an int is a CUDA index in \[0, 64\)"),
    C("copy_-shape", "t.copy_(pdt.zeros(4))", "ValueError",
      r"shape mismatch: destination \(2, 3\) on cpu, source \(4,\) on cpu"),
    C("copy_-ndarray", "t.copy_(np.zeros((2, 3)))", "TypeError",
      r"src must be a Tensor, got numpy.ndarray"),
    C("type-torch-name", 't.type("torch.HalfTensor")', "TypeError",
      r"unknown dtype 'torch.HalfTensor'"),
    C("pin_memory-args", "t.pin_memory(5)", "TypeError", r"pin_memory\(\) takes no arguments"),
    C("cross-logical-device-add", 'pdt.add(pdt.ones(3), pdt.ones(3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"argument 'other' is on cpu:1", setup=TWO_CPUS),
    C("configure-after-use",
      'pdt.zeros(1)\n' + TWO_CPUS, "pydevtensor.DeviceError",
      r"cannot be modified after being initialized"),

    # ---- NumPy inputs: dtypes, read-only, non-contiguous, unaligned
    C("from_numpy-list", "pdt.from_numpy([1, 2])", "TypeError",
      r"expected a numpy.ndarray, got list"),
    C("from_numpy-uint16", "pdt.from_numpy(np.zeros(3, np.uint16))", "TypeError",
      r"unsupported element type 'H'"),
    C("from_numpy-big-endian-strided", 'pdt.from_numpy(np.zeros((4, 4), ">f8")[:, ::2])',
      "TypeError", r"from_numpy\(\): the array is stored in the other byte order \(dtype "
      r"dtype\(.>f8.\)\).*use pydevtensor.tensor\(a\) or as_tensor\(a\)"),
    C("from_numpy-read-only", "x = np.zeros(3)\nx.flags.writeable = False\npdt.from_numpy(x)",
      "ValueError", r"the array is read-only"),
    C("from_numpy-read-only-strided",
      "x = np.zeros((4, 4))\nx.flags.writeable = False\npdt.from_numpy(x[:, ::2])",
      "ValueError", r"the array is read-only"),
    C("from_numpy-broadcast", "pdt.from_numpy(np.broadcast_to(a, (3, 6)))", "ValueError",
      r"the array is read-only"),
    C("from_numpy-unaligned",
      "pdt.from_numpy(np.frombuffer(bytearray(17), np.float32, count=4, offset=1))",
      "ValueError", r"not aligned to its 4-byte elements"),
    C("from_numpy-too-many-dims", "pdt.from_numpy(np.zeros((1,) * 17))", "ValueError",
      r"17 dimensions, at most 16"),
    C("from_numpy-object", "pdt.from_numpy(np.array([object()]))", "TypeError",
      r"unsupported element type 'O'"),
    C("tensor-complex-array", "pdt.tensor(np.zeros(3, np.complex64))", "TypeError",
      r"unsupported element type 'Zf'"),
    C("tensor-uint16-strided", "pdt.tensor(np.zeros((3, 4), np.uint16)[:, ::2])",
      "TypeError", r"unsupported element type 'H'"),
    C("as_tensor-uint8", "pdt.as_tensor(np.zeros(3, np.uint8))", "TypeError",
      r"as_tensor\(\): unsupported element type 'B'"),
    C("as_tensor-unaligned",
      "pdt.as_tensor(np.frombuffer(bytearray(17), np.float32, count=4, offset=1))",
      "ValueError", r"not aligned"),
    C("as_tensor-cuda-63", 'pdt.as_tensor(np.zeros(3), device="cuda:63")',
      "pydevtensor.DeviceError", NO_CUDA_63),
    C("to_numpy-list", "pdt.to_numpy([1])", "TypeError", r"expected a Tensor, got list"),
    C("array-copy-false-needs-cast", "np.asarray(t, dtype=np.float64, copy=False)",
      "ValueError", r"Unable to avoid copy"),
    C("array-bad-args", "t.__array__(1, 2, 3)", "TypeError",
      r"__array__\(\) takes \(dtype=None, copy=None\)"),

    # ---- lying __array_interface__ (and __cuda_array_interface__)
    C("iface-not-a-dict", "pdt.as_tensor(Iface(5))", "TypeError",
      r"the array interface must be a dict, got int"),
    C("iface-no-typestr", "pdt.as_tensor(lying_iface(typestr=DROP))", "ValueError",
      r"needs 'shape' .* and 'typestr'"),
    C("iface-uint16-typestr", 'pdt.as_tensor(lying_iface(typestr="<u2"))', "TypeError",
      r"unsupported element type '<u2'"),
    C("iface-wrong-endian", 'pdt.as_tensor(lying_iface(typestr=">f4"))', "TypeError",
      r"unsupported element type '>f4'"),
    C("iface-shape-list", "pdt.as_tensor(lying_iface(shape=[6]))", "ValueError",
      r"'shape' must be a tuple"),
    C("iface-negative-shape", "pdt.as_tensor(lying_iface(shape=(-6,)))", "ValueError",
      r"negative dimension -6"),
    C("iface-negative-shape-empty", "pdt.as_tensor(lying_iface(shape=(0, -6)))", "ValueError",
      r"negative dimension -6"),
    C("iface-huge-shape", "pdt.as_tensor(lying_iface(shape=(2**40, 2**40, 2**40)))",
      "ValueError", r"more than 2\^62 bytes"),
    C("iface-shape-too-long", "pdt.as_tensor(lying_iface(shape=(1,) * 17))", "ValueError",
      r"'shape' must be a tuple of at most 16 ints"),
    C("iface-strides-count", "pdt.as_tensor(lying_iface(strides=(4, 4)))", "ValueError",
      r"2 strides for 1 dimensions"),
    C("iface-stride-not-multiple", "pdt.as_tensor(lying_iface(strides=(3,)))", "ValueError",
      r"stride 3 of dimension 0 is not a multiple of the 4-byte element size"),
    C("iface-stride-huge", "pdt.as_tensor(lying_iface(strides=(2**62,)))", "ValueError",
      r"the strides span more than 2\^62 bytes"),
    C("iface-null-data", "pdt.as_tensor(lying_iface(data=(0, False)))", "ValueError",
      r"the data address is NULL, but the array has 6 elements"),
    C("iface-data-not-tuple", "pdt.as_tensor(lying_iface(data=None))", "TypeError",
      r"only the \(address, read_only\) form of 'data'"),
    C("iface-unaligned-data", "pdt.as_tensor(lying_iface(data=(a.ctypes.data + 1, False)))",
      "ValueError", r"not aligned to its 4-byte elements"),
    C("iface-mask", "pdt.as_tensor(lying_iface(mask=a))", "ValueError",
      r"masked arrays are not supported"),
    C("iface-raises", "class P:\n    @property\n    def __array_interface__(self):\n"
      "        raise RuntimeError('boom')\npdt.as_tensor(P())", "RuntimeError", r"^boom$"),
    C("tensor-iface-uint16", 'pdt.tensor(lying_iface(typestr="<u2"))', "TypeError",
      r"tensor\(\): unsupported element type '<u2'"),
    C("cuda-iface-host-pointer",
      'class G:\n    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", '
      '"data": (BUF.ctypes.data, False), "version": 3}\npdt.as_tensor(G())',
      ("pydevtensor.DeviceError", "ValueError"),
      r"(cannot be|is not) CUDA (device )?memory|built without"),

    # ---- DLPack: lying producers and hand-made capsules
    C("dlpack-no-method", "pdt.from_dlpack(object())", "TypeError",
      r"object has no __dlpack__ method"),
    C("dlpack-returns-int", "pdt.from_dlpack(DLPackObj(5))", "TypeError",
      r"expected an unused DLPack capsule .* got int"),
    C("dlpack-capsule-bad-name", 'pdt.from_dlpack(DLPackObj(capsule(name=b"foo")))',
      "TypeError", r"got a capsule named 'foo'"),
    C("dlpack-capsule-used", 'pdt.from_dlpack(capsule(name=b"used_dltensor"))',
      "BufferError", r"capsule named 'used_dltensor' \(a capsule can be consumed once\)"),
    C("dlpack-consumed-twice", "c = a.__dlpack__()\npdt.from_dlpack(c)\npdt.from_dlpack(c)",
      "BufferError", r"can be consumed once"),
    C("dlpack-device-not-tuple", 'pdt.from_dlpack(DLPackObj(capsule(), device="cpu"))',
      "TypeError", r"__dlpack_device__\(\) returned 'cpu', expected \(device_type, device_id\)"),
    C("dlpack-device-lies-cuda-63", "pdt.from_dlpack(DLPackObj(capsule(), device=(2, 63)))",
      "pydevtensor.DeviceError", NO_CUDA_63),
    C("dlpack-raises", "pdt.from_dlpack(DLPackObj(lambda **kw: 1 / 0))", "ZeroDivisionError",
      r"division by zero"),
    C("dlpack-float8", "pdt.from_dlpack(capsule(dtype=(2, 8, 1)))", "TypeError",
      r"unsupported DLPack element type \(code 2, 8 bits, 1 lanes\)"),
    C("dlpack-lanes", "pdt.from_dlpack(capsule(dtype=(2, 32, 4)))", "TypeError",
      r"32 bits, 4 lanes"),
    C("dlpack-too-many-dims", "pdt.from_dlpack(capsule(ndim=40))", "ValueError",
      r"40 dimensions, at most 16"),
    C("dlpack-negative-ndim", "pdt.from_dlpack(capsule(ndim=-1))", "ValueError",
      r"-1 dimensions"),
    C("dlpack-null-shape", "pdt.from_dlpack(capsule(shape=None, ndim=2))", "ValueError",
      r"2 dimensions but no shape \(a NULL pointer\)"),
    C("dlpack-negative-shape", "pdt.from_dlpack(capsule(shape=(-4,)))", "ValueError",
      r"negative dimension -4"),
    C("dlpack-huge-shape", "pdt.from_dlpack(capsule(shape=(2**62,) * 3))", "ValueError",
      r"more than 2\^62 bytes"),
    C("dlpack-huge-stride", "pdt.from_dlpack(capsule(strides=(2**62,)))", "ValueError",
      r"size 4 or stride 4611686018427387904 of dimension 0 is out of range"),
    C("dlpack-null-data", "pdt.from_dlpack(capsule(data=0))", "ValueError",
      r"the data address is NULL, but the array has 4 elements"),
    C("dlpack-unaligned", "pdt.from_dlpack(capsule(byte_offset=1))", "ValueError",
      r"not aligned to its 4-byte elements"),
    C("dlpack-vulkan", "pdt.from_dlpack(capsule(device=(7, 0)))", "BufferError",
      r"DLPack device type 7 is not supported"),
    C("dlpack-negative-device-id", "pdt.from_dlpack(capsule(device=(2, -1)))", "BufferError",
      r"DLPack device \(2, -1\) has a negative device id"),
    C("dlpack-cuda-63", "pdt.from_dlpack(capsule(device=(2, 63)))", "pydevtensor.DeviceError",
      NO_CUDA_63),
    C("dlpack-version-2", "pdt.from_dlpack(capsule(versioned=True, version=(2, 0)))",
      "BufferError", r"DLPack 2.0 is not supported"),
    C("dlpack-read-only-flag", "pdt.from_dlpack(capsule(versioned=True, flags=1))",
      "ValueError", r"read-only.*pass copy=True"),
    C("dlpack-read-only-numpy", "x = np.zeros(3)\nx.flags.writeable = False\n"
      "pdt.from_dlpack(x)", "ValueError", r"the DLPack tensor is read-only"),
    C("dlpack-copy-false-other-device", 'pdt.from_dlpack(a, copy=False, device="cuda:0")',
      "BufferError", r"from cpu to cuda:0 needs a copy, which copy=False forbids"),
    C("dlpack-unknown-kwarg", "pdt.from_dlpack(a, stream=1)", "TypeError",
      r"unexpected keyword argument 'stream'"),
    C("export-stream-0", "t.__dlpack__(stream=0)", "ValueError", r"stream 0 is not valid"),
    C("export-max-version-str", 't.__dlpack__(max_version="x")', "TypeError",
      r"max_version must be a \(major, minor\) tuple"),
    C("export-vulkan", "t.__dlpack__(dl_device=(7, 0))", "BufferError",
      r"cannot export to DLPack device \(7, 0\)"),
    C("export-cuda-63", "t.__dlpack__(dl_device=(2, 63))", "BufferError",
      r"cannot export to dl_device \(2, 63\): cuda:63 unknown device"),
    C("export-positional", "t.__dlpack__(1)", "TypeError", r"keyword arguments only"),

    # ---- elementwise ops
    C("add-broadcast", "pdt.add(t, pdt.zeros(4))", "ValueError",
      r"size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"),
    C("add-str", 'pdt.add(t, "x")', "TypeError",
      r"argument 'other' must be a Tensor or a number, got str"),
    C("add-two-numbers", "pdt.add(1, 2)", "TypeError", r"at least one of 'input' and 'other'"),
    C("add-out-shape", "pdt.add(t, 1, out=pdt.zeros(5))", "ValueError",
      r"output with shape \(5,\) doesn't match the broadcast shape \(2, 3\)"),
    C("add-out-ndarray", "pdt.add(t, t, out=np.zeros((2, 3)))", "TypeError",
      r"out= must be a Tensor"),
    C("add_-int-by-float", "ti.add_(1.5)", "TypeError",
      r"result type float32 can't be cast to the desired output type int32"),
    C("sub-bools", "pdt.sub(tb, tb)", "TypeError", r"not supported for two bool operands"),
    C("subtract-shape", "pdt.subtract(t, pdt.zeros(3, 1))", "ValueError",
      r"shapes \(2, 3\) and \(3, 1\) cannot be broadcast"),
    C("mul-int32-overflow", "pdt.mul(ti, 2**40)", "ValueError",
      r"1099511627776 cannot be converted to int32"),
    C("multiply-none", "pdt.multiply(t, None)", "TypeError", r"got NoneType"),
    C("div-out-int", "pdt.div(ti, ti, out=ti)", "TypeError",
      r"result type float32 can't be cast to the desired output type int32"),
    C("divide-str", 'pdt.divide("a", t)', "TypeError", r"argument 'input' must be a Tensor"),
    C("true_divide-shape", "pdt.true_divide(t, pdt.zeros(2))", "ValueError",
      r"cannot be broadcast"),
    C("floor_divide-ndarray", "pdt.floor_divide(np.zeros(3), t)", "TypeError",
      r"got numpy.ndarray"),
    C("remainder-bad-type", "pdt.remainder(t, [1])", "TypeError", r"got list"),
    C("pow-negative-int-exponent", "pdt.pow(ti, -1)", "ValueError",
      r"Integers to negative integer powers are not allowed"),
    C("neg-bool", "pdt.neg(tb)", "TypeError", r"negation, the `-` operator, on a bool tensor"),
    C("negative-str", 'pdt.negative("x")', "TypeError", r"must be a Tensor, got str"),
    C("abs-ndarray", "pdt.abs(np.zeros(3))", "TypeError", r"must be a Tensor, got numpy.ndarray"),
    C("sqrt-out-int", "pdt.sqrt(t, out=ti.reshape(2, 3))", "TypeError",
      r"result type float32 can't be cast to the desired output type int32"),
    C("sqrt_-int", "ti.sqrt_()", "TypeError", r"can't be cast to the desired output type int32"),
    C("exp-out-shape", "pdt.exp(t, out=pdt.zeros(7))", "ValueError",
      r"output with shape \(7,\)"),
    C("log-out-dtype", "pdt.log(t, out=pdt.zeros(2, 3, dtype=pdt.int64))", "TypeError",
      r"can't be cast to the desired output type int64"),
    C("sin-no-args", "pdt.sin()", "TypeError", r"argument 'input' must be a Tensor, got nothing"),
    C("cos-two-args", "pdt.cos(t, t)", "TypeError", r"positional argument"),
    C("tanh-str", 'pdt.tanh("x")', "TypeError", r"must be a Tensor, got str"),
    C("sigmoid-list", "pdt.sigmoid([1.0])", "TypeError", r"must be a Tensor, got list"),
    C("relu-out-dtype", "pdt.relu(t, out=pdt.zeros(2, 3, dtype=pdt.bool))", "TypeError",
      r"can't be cast to the desired output type bool"),
    C("clamp-no-bounds", "pdt.clamp(t)", "ValueError",
      r"at least one of 'min' or 'max' must be given"),
    C("clip-str-bound", 'pdt.clip(t, min="a")', "TypeError",
      r"argument 'min' must be a Tensor or a number, got str"),
    C("clamp_-int-by-float", "ti.clamp_(min=1e30)", "TypeError",
      r"result type float32 can't be cast to the desired output type int32"),
    C("maximum-shape", "pdt.maximum(t, pdt.zeros(4))", "ValueError", r"cannot be broadcast"),
    C("minimum-str", 'pdt.minimum(t, "x")', "TypeError", r"got str"),
    C("eq-str", 'pdt.eq(t, "a")', "TypeError",
      r"argument 'other' must be a Tensor or a number, got str"),
    C("ne-shape", "pdt.ne(t, pdt.zeros(5))", "ValueError", r"cannot be broadcast"),
    C("lt-ndarray", "pdt.lt(t, np.zeros(3))", "TypeError", r"got numpy.ndarray"),
    C("le-none", "pdt.le(t, None)", "TypeError", r"got NoneType"),
    C("gt-int-too-big", "pdt.gt(t, 2**70)", "OverflowError", r"does not fit in 64 bits"),
    C("ge-out-shape", "pdt.ge(t, 1, out=pdt.zeros(1, dtype=pdt.bool))", "ValueError",
      r"output with shape \(1,\) doesn't match the broadcast shape \(2, 3\)"),
    C("operator-object", "t + object()", "TypeError", r"unsupported operand type\(s\) for \+"),
    C("fill_-int32-overflow", "ti.fill_(2**40)", "OverflowError",
      r"1099511627776 cannot be converted to int32"),
    C("fill_-tensor", "t.fill_(t)", "TypeError", r"value must be a number"),
    C("setitem-int32-overflow", "ti[0] = 2**40", "ValueError",
      r"1099511627776 cannot be converted to int32"),

    # ---- reductions
    C("sum-dim-out-of-range", "pdt.sum(t, dim=5)", "IndexError",
      r"dimension out of range: got dim 5 for a tensor with 2 dimensions"),
    C("sum-dim-str", 'pdt.sum(t, dim="a")', "TypeError", r"dim must be an int, got str"),
    C("sum-dim-repeated", "pdt.sum(t, dim=(0, 0))", "ValueError",
      r"dim 0 appears more than once"),
    C("sum-dim-huge", "pdt.sum(t, dim=2**70)", "OverflowError", r"dim does not fit in 64 bits"),
    C("promote_types-unknown", 'pdt.promote_types(pdt.half, "float8")', "TypeError",
      r"unknown dtype 'float8'"),
    C("promote_types-one-arg", "pdt.promote_types(pdt.half)", "TypeError",
      r"promote_types\(\) takes 2 dtypes \(1 given\)"),
    C("sum-bad-dtype", 'pdt.sum(t, dim=0, dtype="float8")', "TypeError",
      r"unknown dtype 'float8'"),
    C("mean-int", "pdt.mean(ti)", "TypeError", r"mean needs a floating point dtype"),
    C("prod-dim-float", "pdt.prod(t, dim=[0, 1.5])", "TypeError",
      r"element 1 of dim must be an int, got float"),
    C("max-empty", "pdt.max(pdt.zeros(0))", "IndexError",
      r"cannot reduce over dim 0 of size 0 .* has no maximum"),
    C("min-empty-dim", "pdt.min(pdt.zeros(2, 0), dim=1)", "IndexError",
      r"cannot reduce over dim 1 of size 0"),
    C("amax-empty", "pdt.amax(pdt.zeros(0))", "IndexError", r"of size 0"),
    C("amin-dim-repeated", "pdt.amin(t, dim=(0, 0))", "ValueError",
      r"dim 0 appears more than once"),
    C("argmax-empty", "pdt.argmax(pdt.zeros(0))", "IndexError", r"of size 0"),
    C("argmin-dim-out-of-range", "pdt.argmin(t, dim=5)", "IndexError",
      r"got dim 5 for a tensor with 2 dimensions"),
    C("argmax-tuple-dim", "pdt.argmax(t, dim=(0, 1))", "TypeError",
      r"dim must be an int or None"),
    C("norm-p-3", "pdt.norm(t, p=3)", "NotImplementedError", r"p=3 is not supported"),
    C("norm-p-nan", 'pdt.norm(t, p=float("nan"))', "NotImplementedError",
      r"p=nan is not supported"),
    C("norm-p-nuc", 'pdt.norm(t, p="nuc")', "NotImplementedError", r"p='nuc' is not supported"),

    # ---- views and indexing
    C("reshape-wrong-numel", "pdt.reshape(t, (5,))", "ValueError",
      r"cannot reshape a tensor of shape \(2, 3\) \(6 elements\) into shape \(5,\)"),
    C("reshape-two-inferred", "t.reshape(-1, -1)", "ValueError",
      r"only one dimension can be inferred"),
    C("reshape-minus-two", "t.reshape(-2, 3)", "ValueError", r"invalid size -2 at position 0"),
    C("reshape-huge", "t.reshape(2**62, 2**62)", "ValueError", r"more than \d+ elements"),
    C("view-non-contiguous", "t.T.view(6)", "ValueError",
      r"cannot view a tensor of shape \(3, 2\) with strides \(1, 3\)"),
    C("view-dtype", "t.view(pdt.int32)", "NotImplementedError", r"view\(dtype\)"),
    C("permute-repeated", "pdt.permute(t, (0, 0))", "ValueError", r"dim 0 appears more than once"),
    C("permute-count", "t.permute(0)", "ValueError", r"number of dims \(1\) does not match"),
    C("transpose-out-of-range", "pdt.transpose(t, 0, 5)", "IndexError",
      r"got dim 5 for a tensor with 2 dimensions"),
    C("t-3d", "pdt.t(pdt.zeros(2, 3, 4))", "ValueError",
      r"t\(\) expects a tensor with <= 2 dimensions, but this one has 3"),
    C("squeeze-out-of-range", "pdt.squeeze(t, 5)", "IndexError", r"got dim 5"),
    C("unsqueeze-out-of-range", "pdt.unsqueeze(t, -10)", "IndexError",
      r"got dim -10 .* \(expected -3 <= dim <= 2\)"),
    C("flatten-reversed", "pdt.flatten(t, 1, 0)", "ValueError",
      r"start_dim \(1, dim 1\) cannot come after end_dim \(0, dim 0\)"),
    C("index-out-of-bounds", "t[5]", "IndexError",
      r"index 5 is out of bounds for dimension 0 with size 2"),
    C("index-two-ellipses", "t[..., ..., 0]", "IndexError", r"only have a single ellipsis"),
    C("index-str", 't["a"]', "IndexError", r"valid indices, got str"),
    C("index-float", "t[1.5]", "IndexError", r"valid indices, got float"),
    C("index-step-zero", "t[::0]", "ValueError", r"slice step cannot be zero"),
    C("index-too-many", "t[0, 0, 0]", "IndexError", r"too many indices .* 3 were given"),
    C("index-too-many-new-dims", "t[(None,) * 15]", "ValueError",
      r"would have 17 dimensions; at most 16"),
    C("index-float-tensor", "t[pdt.tensor([0.0])]", "IndexError",
      r"tensors used as indices must be long, int, byte or bool tensors"),
    C("index-tensor-out-of-bounds", "t[pdt.tensor([0, 7])]", "IndexError",
      r"index 7 is out of bounds for dimension 0 with size 2"),
    C("setitem-shape", "t[0] = pdt.zeros(4)", "ValueError",
      r"a tensor of shape \(4,\) cannot be broadcast to shape \(3,\)"),
    C("setitem-ndarray", "t[0] = np.zeros(3)", "TypeError",
      r"value must be a Python number or a Tensor .* got numpy.ndarray"),
    C("item-many", "t.item()", "ValueError",
      r"only a tensor with one element .* this one has 6 elements"),
    C("float-empty", "float(pdt.zeros(0))", "ValueError", r"this one has 0 elements"),
    C("iter-0d", "list(pdt.tensor(1.0))", "TypeError", r"iteration over a 0-d tensor"),
    C("size-out-of-range", "t.size(5)", "IndexError", r"got dim 5"),
    C("data-set-int", "t.data = 5", "TypeError", r"data must be set to a Tensor, got int"),
    C("Tensor-ctor-int", "pdt.Tensor(5)", "TypeError", r"Tensor\(data\) takes a Tensor"),

    # ---- the everyday API of issue 17
    C("cat-tensor", "pdt.cat(t)", "TypeError", r"must be a sequence of Tensors, got Tensor"),
    C("cat-ndarray", "pdt.cat([t, np.zeros(3)])", "TypeError",
      r"expected a sequence of Tensors, got ndarray at position 1"),
    C("concat-empty", "pdt.concat([])", "ValueError", r"expected a non-empty list"),
    C("concatenate-sizes", "pdt.concatenate([t, pdt.zeros(2, 4)])", "RuntimeError",
      r"Sizes of tensors must match except in dimension 0. Expected \(2, 3\) but got "
      r"\(2, 4\) for tensor number 1"),
    C("stack-sizes", "pdt.stack([t, t[0]])", "RuntimeError",
      r"equal size, but got \(2, 3\) at entry 0 and \(3,\) at entry 1"),
    C("hstack-sizes", "pdt.hstack([t, pdt.zeros(3, 1)])", "RuntimeError",
      r"must match except in dimension 1"),
    C("vstack-sizes", "pdt.vstack([t, pdt.zeros(1, 4)])", "RuntimeError",
      r"must match except in dimension 0"),
    C("split-negative", "pdt.split(t, -1)", "RuntimeError", r"split_size=-1"),
    C("chunk-zero", "pdt.chunk(t, 0)", "RuntimeError", r"greater than 0, got: 0"),
    C("where-float-condition", "pdt.where(t, t, t)", "TypeError",
      r"condition must be a bool tensor, got pydevtensor.float32"),
    C("where-str", "pdt.where(t > 0, t, 'a')", "TypeError", r"a Tensor or a number, got str"),
    C("where-shapes", "pdt.where(t > 0, t, pdt.zeros(4))", "ValueError",
      r"shapes \(2, 3\), \(2, 3\) and \(4,\) cannot be broadcast"),
    C("masked_fill-tensor-value", "pdt.masked_fill(t, t > 0, t)", "RuntimeError",
      r"0-dimensional value tensor, but got tensor with 2 dimension"),
    C("masked_fill-mask-shape", "pdt.masked_fill(t, pdt.tensor([True, False]), 9.0)",
      "RuntimeError", r"masked_fill: the mask of shape \(2,\) does not broadcast to the "
      r"input's shape \(2, 3\)"),
    C("masked_fill-mask-widens", "t[:1].masked_fill(pdt.ones(3, 1, dtype=pdt.bool), 9.0)",
      "RuntimeError", r"masked_fill: the mask of shape \(3, 1\) does not broadcast"),
    C("getitem-list-out-of-range", "t[[7]]", "IndexError",
      r"^index: index 7 is out of bounds for dimension 0 with size 2"),
    C("getitem-tensor-out-of-range", "t[pdt.tensor([-3])]", "IndexError",
      r"^index: index -3 is out of bounds for dimension 0 with size 2"),
    C("cat-int", "pdt.cat(5)", "TypeError", r"cat\(\): argument 'tensors' must be a sequence "
      r"of Tensors, got int"),
    C("gather-out-of-bounds", "pdt.gather(t, 1, pdt.tensor([[5]]))", "IndexError",
      r"index 5 is out of bounds for dimension 1 with size 3"),
    C("gather-negative", "pdt.gather(t, 1, pdt.tensor([[-1]]))", "IndexError",
      r"gather: index -1 is out of bounds for dimension 1 with size 3"),
    C("index_select-negative", "pdt.index_select(t, 1, pdt.tensor([0, -1]))", "IndexError",
      r"index_select: index -1 is out of bounds for dimension 1 with size 3"),
    C("index_select-float-index", "pdt.index_select(t, 0, pdt.tensor([0.0]))", "IndexError",
      r"Expected dtype int32/int64 for index"),
    C("nonzero-ndarray", "pdt.nonzero(np.zeros(3))", "TypeError",
      r"argument 'input' must be a Tensor, got ndarray"),
    C("sort-dim", "pdt.sort(t, 2)", "IndexError", r"Dimension out of range .*\[-2, 1\].* got 2"),
    C("argsort-dim", "pdt.argsort(t, dim=-3)", "IndexError", r"got -3"),
    C("topk-k", "pdt.topk(t, 4)", "RuntimeError", r"selected index k out of range \(k=4, size 3"),
    C("cumsum-dim", "pdt.cumsum(t, 5)", "IndexError", r"Dimension out of range"),
    C("softmax-int", "pdt.softmax(pdt.tensor([1, 2]), 0)", "RuntimeError",
      r"expected a floating point tensor, got pydevtensor.int64"),
    C("log_softmax-dim", "pdt.log_softmax(t, 2)", "IndexError", r"Dimension out of range"),
    C("var-int", "pdt.var(pdt.tensor([1, 2]))", "RuntimeError", r"floating point"),
    C("std-dim", "pdt.std(t, 3)", "IndexError", r"Dimension out of range"),
    C("isnan-ndarray", "pdt.isnan(a)", "TypeError", r"isnan\(\): argument 'input' must be a Tensor"),
    C("isinf-none", "pdt.isinf(None)", "TypeError", r"must be a Tensor, got NoneType"),
    C("isfinite-list", "pdt.isfinite([1.0])", "TypeError", r"must be a Tensor, got list"),
    C("allclose-ndarray", "pdt.allclose(t, a)", "TypeError", r"'other' must be a Tensor"),
    C("isclose-shapes", "pdt.isclose(t, pdt.zeros(4))", "ValueError", r"cannot be broadcast"),
    C("equal-int", "pdt.equal(t, 1)", "TypeError", r"'other' must be a Tensor, got int"),
    C("flip-dim", "pdt.flip(t, 2)", "IndexError", r"Dimension out of range"),
    C("fliplr-1d", "pdt.fliplr(pdt.zeros(3))", "IndexError", r"Dimension out of range"),
    C("flipud-str", "pdt.flipud('a')", "TypeError", r"must be a Tensor, got str"),
    C("tril-1d", "pdt.tril(pdt.zeros(3))", "RuntimeError", r"at least 2 dimensions, got 1"),
    C("triu-str", "pdt.triu(t, 'a')", "TypeError", r"'diagonal' must be int, got str"),
    C("outer-2d", "pdt.outer(t, t)", "RuntimeError", r"expected 1-D tensors"),
    C("einsum-sizes", "pdt.einsum('ij,jk->ik', t, t)", "RuntimeError",
      r"subscript 'j' has size 3 and 2"),
    C("index-float-ndarray", "t[np.array([0.5])]", "IndexError", r"must be long, int, byte"),
    C("tensor-of-vectors", "pdt.tensor([t, t])", "ValueError", r"only one element tensors"),
    C("format-vector", "format(t, '.3f')", "TypeError", r"only 0-d tensors take a format"),

    # ---- matmul
    C("matmul-inner", "pdt.matmul(pdt.zeros(2, 3), pdt.zeros(4, 5))", "ValueError",
      r"shapes \(2, 3\) and \(4, 5\) cannot be multiplied \(3 != 4\)"),
    C("matmul-0d", "pdt.matmul(pdt.tensor(1.0), pdt.zeros(3))", "ValueError",
      r"need at least 1 dimension.*shapes \(\) and \(3,\)"),
    C("matmul-dtypes", "pdt.matmul(pdt.zeros(2, 3), pdt.zeros(3, 2, dtype=pdt.float64))",
      "TypeError", r"same dtype, but got float32 and float64"),
    C("matmul-bool", "pdt.matmul(tb.reshape(1, 2), tb.reshape(2, 1))", "NotImplementedError",
      r"bool tensors cannot be multiplied"),
    C("matmul-ndarray", "pdt.matmul(t, np.zeros((3, 4)))", "TypeError",
      r"argument 'other' must be a Tensor, got numpy.ndarray"),
    C("matmul-batch", "pdt.matmul(pdt.zeros(2, 2, 3), pdt.zeros(3, 2, 4))", "ValueError",
      r"cannot be multiplied"),
    C("matmul-huge-result", "pdt.mm(pdt.zeros(2**31, 0), pdt.zeros(0, 2**31))", "ValueError",
      r"more than 2\^62 bytes"),
    C("matmul-cross-device", 'pdt.matmul(pdt.zeros(2, 3), pdt.zeros(3, 4, device="cpu:1"))',
      "pydevtensor.DeviceError", r"argument 'other' is on cpu:1", setup=TWO_CPUS),
    C("mm-vectors", "pdt.mm(pdt.zeros(3), pdt.zeros(3))", "ValueError",
      r"expected two matrices \(2-D\), but got shapes \(3,\) and \(3,\)"),
    C("bmm-2d", "pdt.bmm(pdt.zeros(2, 3), pdt.zeros(3, 2))", "ValueError",
      r"expected two batches of matrices \(3-D\)"),
    C("bmm-batch-sizes", "pdt.bmm(pdt.zeros(2, 2, 3), pdt.zeros(3, 3, 2))", "ValueError",
      r"different batch sizes \(2 != 3\)"),
    C("dot-lengths", "pdt.dot(pdt.zeros(3), pdt.zeros(4))", "ValueError",
      r"different lengths \(3 != 4\)"),
    C("dot-matrices", "pdt.dot(pdt.zeros(2, 2), pdt.zeros(2, 2))", "ValueError",
      r"expected two vectors \(1-D\)"),
    C("addmm-input-shape", "pdt.addmm(pdt.zeros(5), pdt.zeros(2, 3), pdt.zeros(3, 4))",
      "ValueError", r"input of shape \(5,\) cannot be broadcast to the product's shape \(2, 4\)"),
    C("addmm-float-alpha-int",
      "pdt.addmm(pdt.zeros(4, dtype=pdt.int32), pdt.zeros(2, 3, dtype=pdt.int32), "
      "pdt.zeros(3, 4, dtype=pdt.int32), alpha=0.5)", "TypeError",
      r"for int32 tensors, beta and alpha must be integers, got 1 and 0.5"),
    C("addmm-beta-str", 'pdt.addmm(pdt.zeros(4), pdt.zeros(2, 3), pdt.zeros(3, 4), beta="x")',
      "TypeError", r"beta must be a real number"),

    # ---- save and load: corrupt files
    C("load-missing-file", 'pdt.load("/nonexistent/x.npz")', "FileNotFoundError",
      r"No such file or directory"),
    C("load-garbage", 'pdt.load(write_bytes(b"garbage"))', "ValueError",
      r"is not a pydevtensor file \(not a readable .npz"),
    C("load-truncated", f"data = open(npz({FILE}, x=a), 'rb').read()\n"
      "pdt.load(write_bytes(data[:len(data) // 2]))", "ValueError",
      r"is not a pydevtensor file .*(zip|File)"),
    C("load-empty-stream", 'pdt.load(io.BytesIO(b""))', "ValueError",
      r"not a pydevtensor file"),
    C("load-plain-npy", "p = tempfile.mktemp(suffix='.npy')\nnp.save(p, a)\npdt.load(p)",
      "ValueError", r"is a single NumPy array, not a pydevtensor file"),
    C("load-no-record", "pdt.load(npz(None, x=a))", "ValueError",
      r"without pydevtensor's '__pydevtensor__' record"),
    C("load-bad-json", 'pdt.load(npz("{not json", x=a))', "ValueError",
      r"corrupt '__pydevtensor__' record"),
    C("load-json-list", "pdt.load(npz(json.dumps([1, 2]), x=a))", "ValueError",
      r"corrupt '__pydevtensor__' record"),
    C("load-version", "pdt.load(npz(dict(meta(), version=2), x=a))", "ValueError",
      r"version 2; expected 'pydevtensor.npz' version 1"),
    C("load-tensors-list", "pdt.load(npz(dict(meta(), tensors=[1, 2]), x=a))", "ValueError",
      r"corrupt .* \('tensors' is a list, not a dict\)"),
    C("load-entry-no-device", 'pdt.load(npz(meta(x={"dtype": "float32"}), x=a))', "ValueError",
      r"corrupt .*the entry of 'x' is \{'dtype': 'float32'\}"),
    C("load-entry-device-int", 'pdt.load(npz(meta(x={"device": 5, "dtype": "float32"}), x=a))',
      "ValueError", r"corrupt .*the entry of 'x' is \{'device': 5"),
    C("load-entry-device-unknown",
      'pdt.load(npz(meta(x={"device": "tpu:0", "dtype": "float32"}), x=a))', "ValueError",
      r"corrupt .*tensor 'x' has device 'tpu:0'"),
    C("load-kind-tensor-no-tensor", 'pdt.load(npz(dict(meta(), kind="tensor"), x=a))',
      "ValueError", r"kind 'tensor' needs exactly one entry named 'tensor'"),
    C("load-missing-array", f"pdt.load(npz({FILE}))", "ValueError",
      r"lists tensor 'x' but does not hold it"),
    C("load-dtype-mismatch",
      'pdt.load(npz(meta(x={"device": "cpu", "dtype": "float64"}), x=a))', "ValueError",
      r"tensor 'x' is recorded as float64 but holds float32"),
    C("load-object-array",
      'pdt.load(npz(meta(x={"device": "cpu", "dtype": "object"}), x=np.array([object()])))',
      "ValueError", r"Object arrays cannot be loaded"),
    C("load-cuda-63",
      'pdt.load(npz(meta(x={"device": "cuda:63", "dtype": "float32"}), x=a))',
      "pydevtensor.DeviceError", r"tensor 'x' was saved on cuda:63.*Pass map_location"),
    C("load-map-location-int", f"pdt.load(npz({FILE}, x=a), map_location=5)", "TypeError",
      r"map_location must be a device, a string or a dict, got int"),
    C("save-int", "pdt.save(5, io.BytesIO())", "TypeError",
      r"expected a Tensor or a dict of Tensors"),
    C("save-int-key", "pdt.save({1: t}, io.BytesIO())", "ValueError",
      r"every key must be a string"),
    C("save-non-tensor", 'pdt.save({"x": 5}, io.BytesIO())', "TypeError",
      r"'x' is a int, not a Tensor"),

    # ---- nn
    C("Linear-negative", "pdt.nn.Linear(-1, 3)", "ValueError", r"in_features must be >= 0"),
    C("Linear-float", "pdt.nn.Linear(3.0, 3)", "TypeError", r"in_features must be an int"),
    C("Linear-huge", "pdt.nn.Linear(2**40, 2**40)", "ValueError", r"more than 2\^62 bytes"),
    C("Linear-unknown-device", 'pdt.nn.Linear(3, 4, device="tpu")', "ValueError",
      r"'tpu': unknown device type"),
    C("Linear-input-shape", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 5))", "ValueError",
      r"input of shape \(2, 5\) does not match weight of shape \(4, 3\)"),
    C("Linear-input-dtype", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, dtype=pdt.float64))",
      "TypeError", r"the input is pydevtensor\.float64 but the parameter 'weight' is "
      r"pydevtensor\.float32.*in layer Linear\(in_features=3"),
    C("Linear-input-int64", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, dtype=pdt.int64))",
      "TypeError", r"the input is pydevtensor\.int64 but the parameter 'weight' is "
      r"pydevtensor\.float32; convert the input with \.to\(pydevtensor\.float32\) \(in layer"),
    C("Linear-input-ndarray", "pdt.nn.Linear(3, 4)(np.zeros((2, 3)))", "TypeError",
      r"input must be a Tensor, got ndarray"),
    C("Linear-other-device", 'pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"is on cpu:1", setup=TWO_CPUS),
    C("Sequential-str", 'pdt.nn.Sequential("x")', "TypeError",
      r"argument 0 is a str, not an nn.Module"),
    C("Sequential-index", "pdt.nn.Sequential(pdt.nn.ReLU())[5]", "IndexError",
      r"index 5 is out of range for a Sequential of 1"),
    C("load_state_dict-shape",
      'pdt.nn.Linear(3, 4).load_state_dict({"weight": pdt.zeros(3, 3), "bias": pdt.zeros(4)})',
      "RuntimeError", r"size mismatch for 'weight'.*shape \(3, 3\).*shape \(4, 3\)"),
    C("load_state_dict-missing", 'pdt.nn.Linear(3, 4).load_state_dict({"weight": pdt.zeros(4, 3)})',
      "RuntimeError", r"missing key 'bias'"),
    C("load_state_dict-int", "pdt.nn.Linear(3, 4).load_state_dict(5)", "TypeError",
      r"expected a dict of Tensors \(a state_dict\), got int"),
    C("Module-to-int-dtype", "pdt.nn.Linear(3, 4).to(pdt.int32)", "TypeError",
      r"only accepts floating point dtypes"),
    C("Parameter-list", "pdt.nn.Parameter([1, 2])", "TypeError",
      r"Parameter\(data\) needs a Tensor, got list"),
    C("functional-linear-1d-weight", "pdt.nn.functional.linear(pdt.zeros(2, 3), pdt.zeros(3))",
      "ValueError", r"weight must be 2-d"),

    # ---- threads
    C("set_num_threads-zero", "pdt.set_num_threads(0)", "ValueError",
      r"set_num_threads\(0\): the number of threads must be at least 1"),
    C("set_num_threads-float", "pdt.set_num_threads(2.5)", "TypeError",
      r"'float' object cannot be interpreted as an integer"),
    C("get_num_threads-argument", "pdt.get_num_threads(1)", "TypeError",
      r"takes 0 positional arguments"),

    # ---- config, cuda, transfer guard
    C("transfer_guard-level", 'pdt.transfer_guard("bogus")', "ValueError",
      r"unknown transfer guard level 'bogus'"),
    C("set_transfer_guard-int", "pdt.config.set_transfer_guard(5)", "TypeError",
      r"transfer guard level must be a str, got int"),
    C("set_memory_limit-negative", 'pdt.config.set_memory_limit("cpu", -1)', "ValueError",
      r"memory limit must be >= 0 bytes, got -1"),
    C("set_memory_limit-nan", 'pdt.config.set_memory_limit("cpu", float("nan"))', "ValueError",
      r"NaN"),
    C("memory-limit-exceeded", 'pdt.config.set_memory_limit("cpu", 1024)\npdt.zeros(1024)',
      "pydevtensor.OutOfMemoryError",
      r"out of memory on cpu: tried to allocate 4.00 KiB.*limit 1.00 KiB"),
    C("logical-config-nan", 'pdt.config.LogicalDeviceConfiguration(memory_limit=float("nan"))',
      "ValueError", r"memory_limit must be a positive number of MB, got nan"),
    C("list_physical_devices-tpu", 'pdt.config.list_physical_devices("TPU")', "ValueError",
      r"unknown device type 'TPU'"),
    C("set_visible_devices-str", 'pdt.config.set_visible_devices("x")', "TypeError",
      r"expected PhysicalDevice objects"),
    C("cuda-set_device-cpu", 'pdt.cuda.set_device("cpu")', "ValueError",
      r"expected a CUDA device"),
    C("cuda-get_device_properties-63", "pdt.cuda.get_device_properties(63)",
      "pydevtensor.DeviceError", NO_CUDA_63),
    C("cuda-synchronize-63", "pdt.cuda.synchronize(63)", "pydevtensor.DeviceError", NO_CUDA_63),
    C("cuda-memory-fraction-nan", 'pdt.cuda.set_per_process_memory_fraction(float("nan"))',
      "ValueError", r"fraction must be in \[0, 1\], got nan"),
]


def _names(exc):
    return (exc,) if isinstance(exc, str) else exc


def _check(case, result):
    assert "crash" not in result, (
        f"{case.id} crashed ({result['crash']}) running:\n{case.code}\n"
        f"--- its stderr ---\n{result.get('stderr', '')}")
    assert "raised" in result, (
        f"{case.id} raised nothing (expected {case.exc}); it returned {result['returned']}")
    mro = result["raised"]
    wanted = [n if "." in n else f"builtins.{n}" for n in _names(case.exc)]
    assert any(w in mro for w in wanted), (
        f"{case.id} raised {mro[0]}: {result['message']!r}; expected {case.exc}")
    assert re.search(case.match, result["message"], re.S), (
        f"{case.id}: the message {result['message']!r} does not match {case.match!r}")


@pytest.fixture(scope="module")
def results():
    """Every case, run by one runner process with a child per case."""
    import pydevtensor
    where = os.path.dirname(os.path.dirname(os.path.abspath(pydevtensor.__file__)))
    payload = json.dumps({c.id: [c.setup, c.code] for c in CASES})
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--path", where],
                          input=payload, capture_output=True, text=True,
                          timeout=CASE_TIMEOUT_S * 4 + 2 * len(CASES))
    assert proc.returncode == 0, f"the runner itself failed:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout)


def test_catalogue_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(
    reason=c.xfail, strict=True)] if c.xfail else []) for c in CASES])
def test_bad_input(case, results):
    _check(case, results[case.id])


def test_every_public_function_is_in_the_catalogue():
    """Each public function of pydevtensor (not the classes, dtypes and modules) is
    called by at least one case."""
    import inspect

    import pydevtensor as pdt
    codes = "\n".join(c.code for c in CASES)
    skip = {"Size"}  # a tuple subclass: nothing to refuse
    missing = [n for n in sorted(set(pdt.__all__)) if n not in skip
               and (inspect.isbuiltin(getattr(pdt, n)) or inspect.isfunction(getattr(pdt, n)))
               and not re.search(rf"\bpdt\.{n}\(", codes)]
    assert not missing, f"public functions with no bad-input case: {missing}"


def test_a_crash_fails_only_its_case():
    """The runner survives a child that dies (a segfault here) and reports it."""
    import pydevtensor
    where = os.path.dirname(os.path.dirname(os.path.abspath(pydevtensor.__file__)))
    payload = json.dumps({"segv": ["", "import ctypes\nctypes.string_at(0)"],
                          "fine": ["", "pdt.zeros(-1)"]})
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--path", where],
                          input=payload, capture_output=True, text=True, timeout=120)
    out = json.loads(proc.stdout)
    # SIGSEGV, or under AddressSanitizer its report and exit status 1
    assert re.fullmatch(r"killed by SIGSEGV|exited with status 1", out["segv"]["crash"])
    assert out["fine"]["raised"][0] == "builtins.ValueError"


def test_nan_and_inf_convert_to_integers_as_documented():
    """tensor(data, dtype=int) converts floats as .to() does (Note [float to int]):
    NaN -> 0, out of range -> the nearest end; before, the C cast was undefined."""
    import pydevtensor as pdt
    data = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 2.9, -2.9]
    for dtype, lo, hi in ((pdt.int32, -2**31, 2**31 - 1), (pdt.int64, -2**63, 2**63 - 1)):
        want = [0, hi, lo, hi, lo, 2, -2]
        assert pdt.tensor(data, dtype=dtype).tolist() == want
        assert pdt.tensor(data, dtype=pdt.float64).to(dtype).tolist() == want

if __name__ == "__main__":
    # Import pydevtensor from where the test session found it (argv: --path DIR).
    if sys.argv[1:2] == ["--path"]:
        sys.path.insert(0, sys.argv[2])
        del sys.argv[1:3]
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if sys.argv[1:2] == ["--probe"]:  # python tests/test_bad_input.py --probe 'code' ...
        namespace = {"__name__": "__case__"}
        exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
        for code in sys.argv[2:]:
            r = _run_one("", code, namespace, CASE_TIMEOUT_S)
            print(f"{code}\n    -> {r}")
    else:
        runner_main()
    sys.exit(0)
