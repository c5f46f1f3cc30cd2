"""What tests/test_emulated_faults.py and tests/test_emulated_faults_runtime.py share: the
emulator's fault-injection hook (Note [fault injection] in csrc/cuda/emulator/emu_faults.cpp)
through ctypes (Faults: the ``faults`` fixture of conftest.py gives one, disarmed around
the test), the ops whose every failing call they sweep (OPS, _sweep), and _child, a fresh
interpreter with the hook.

Importing it needs no emulated build (RUNTIME is only a path): the test modules skip
themselves (EMULATED_ONLY) on any other build.
"""
import ctypes
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_EMULATED

EMULATED_ONLY = [pytest.mark.cuda,
                 pytest.mark.skipif(not CUDA_EMULATED, reason="needs the emulated CUDA build "
                                    "(PYDEVTENSOR_CUDA=emulate pip install -e .)")]

RUNTIME = os.path.join(os.path.dirname(pdt.__file__), "_emulated_cuda", "libpdt_cudart_emu.so")
ALLOC = "cudaMallocFromPoolAsync"  # what the backend allocates device memory with


class Faults:
    """pdtEmuFailCall and pdtEmuFaultsInjected of the runtime this process loaded."""

    def __init__(self):
        lib = ctypes.CDLL(RUNTIME)
        lib.pdtEmuFailCall.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        lib.pdtEmuFailCall.restype = ctypes.c_int
        lib.pdtEmuFaultsInjected.argtypes = [ctypes.c_char_p]
        lib.pdtEmuFaultsInjected.restype = ctypes.c_long
        self.lib = lib

    def arm(self, api, nth=1, count=1):
        assert self.lib.pdtEmuFailCall(api.encode(), nth, count) == 0

    def disarm(self):
        self.lib.pdtEmuFailCall(None, 0, 0)

    def injected(self, api):
        return self.lib.pdtEmuFaultsInjected(api.encode())


def _ops():
    """(name, inputs as NumPy arrays, op on tensors, its float64 NumPy reference)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((33, 40)).astype(np.float32)
    b = rng.standard_normal((40,)).astype(np.float32)
    m = rng.standard_normal((40, 24)).astype(np.float32)
    idx = np.array([3, 0, 32, 7], dtype=np.int64)
    g = rng.standard_normal((6, 6))
    spd = g @ g.T + 6 * np.eye(6)
    rhs = rng.standard_normal((6, 2))
    img = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    ker = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

    def setitem(x, i):
        x[i] = 2.5
        return x

    def set_rows(x, i):
        x[i] = 2.5
        return x

    def conv_ref(x, w):
        out = np.zeros((2, 4, 7, 7))
        for p in range(7):
            for q in range(7):
                out[:, :, p, q] = np.einsum("ncij,ocij->no", x[:, :, p:p + 3, q:q + 3], w)
        return out

    return [
        ("add_broadcast", (a, b), lambda x, y: x + y, lambda x, y: x + y),
        ("add_promote", (a, b.astype(np.float64)), lambda x, y: x + y, lambda x, y: x + y),
        ("sum_dim", (a,), lambda x: x.sum(dim=0), lambda x: x.sum(axis=0)),
        ("sum_all", (a,), lambda x: x.sum(), lambda x: x.sum()),
        ("matmul", (a, m), lambda x, y: x @ y, lambda x, y: x @ y),
        ("cumsum", (a,), lambda x: pdt.cumsum(x, 1), lambda x: np.cumsum(x, 1)),
        ("index", (a, idx), lambda x, i: x[i], lambda x, i: x[i]),
        ("transpose_contiguous", (a,), lambda x: x.t().contiguous(), lambda x: x.T),
        ("softmax", (a,), lambda x: pdt.softmax(x, dim=1),
         lambda x: np.exp(x - x.max(1, keepdims=True))
         / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)),
        ("add_inplace_promote", (a, b.astype(np.float64)), lambda x, y: x.add_(y),
         lambda x, y: x + y),
        ("index_put", (a, idx), setitem, set_rows),
        ("index_add", (a, idx, a[:4]), lambda x, i, v: x.index_add_(0, i, v),
         lambda x, i, v: (np.add.at(x, i, v), x)[1]),
        ("argmax", (a,), lambda x: x.argmax(dim=1), lambda x: x.argmax(1)),
        ("cat", (a, a[:5]), lambda x, y: pdt.cat([x, y], 0), lambda x, y: np.concatenate([x, y])),
        ("conv2d", (img, ker), lambda x, w: pdt.nn.functional.conv2d(x, w), conv_ref),
        ("solve", (spd, rhs), lambda x, y: pdt.linalg.solve(x, y), np.linalg.solve),
        ("inv", (spd,), pdt.linalg.inv, np.linalg.inv),
        ("cholesky", (spd,), pdt.linalg.cholesky, np.linalg.cholesky),
        ("eigvalsh", (spd,), pdt.linalg.eigvalsh, np.linalg.eigvalsh),
        ("svdvals", (spd,), pdt.linalg.svdvals, lambda x: np.linalg.svd(x, compute_uv=False)),
        ("det", (spd,), pdt.linalg.det, np.linalg.det),
        ("solve_batched", (np.stack([spd, 2 * spd, spd + np.eye(6)]), rhs),
         lambda x, y: pdt.linalg.solve(x, y), lambda x, y: np.linalg.solve(x, y)),
        ("eigh_values", (spd,), lambda x: pdt.linalg.eigh(x)[0], np.linalg.eigvalsh),
        ("svd_values", (spd,), lambda x: pdt.linalg.svd(x)[1],
         lambda x: np.linalg.svd(x, compute_uv=False)),
        ("qr_r", (spd,), lambda x: pdt.linalg.qr(x)[1].abs(), lambda x: np.abs(np.linalg.qr(x)[1])),
    ]


OPS = _ops()


def _check(name, got, ref):
    np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), ref, rtol=1e-5, atol=1e-5,
                               err_msg=name)


def _sweep(faults, api, count, name, arrays, op, ref, expect):
    """Fails call 1, 2, ... of api during op until op makes no more such calls; each
    failure must raise expect, with the inputs unchanged and no memory held."""
    xs = [pdt.from_numpy(x).to("cuda") for x in arrays]
    pdt.cuda.synchronize()
    gc.collect()  # what earlier tests left to the collector
    before = pdt.cuda.memory_allocated()
    failed = 0
    for nth in range(1, 64):
        arrays = [x.cpu().numpy() for x in xs]  # an in-place op changed them last time
        want = ref(*[x.astype(np.float64) if x.dtype.kind == "f" else x for x in arrays])
        fired = faults.injected(api)
        faults.arm(api, nth, count)
        out = None
        try:
            out = op(*xs)
            pdt.cuda.synchronize()
        except expect as e:
            assert faults.injected(api) > fired, (name, nth, str(e))
            failed += 1
        finally:
            faults.disarm()
        if out is None:  # checked once the exception (and its frames) is gone
            assert pdt.cuda.memory_allocated() == before, (name, nth)
            for x, arr in zip(xs, arrays):
                np.testing.assert_array_equal(x.cpu().numpy(), arr, err_msg=name)
            continue
        _check(name, out, want)  # a call that failed was retried or not needed
        del out
        if faults.injected(api) == fired:
            break  # past the op's last call
    assert failed >= 1, name
    arrays = [x.cpu().numpy() for x in xs]
    want = ref(*[x.astype(np.float64) if x.dtype.kind == "f" else x for x in arrays])
    _check(name, op(*xs), want)  # the next op works
    return failed


def _child(code, env_extra=None):
    """Runs code in a fresh interpreter (a device nothing has used yet); returns its
    stdout, or fails with its output."""
    env = dict(os.environ, **(env_extra or {}))
    prelude = textwrap.dedent(f"""
        import ctypes, numpy as np, pydevtensor as pdt
        lib = ctypes.CDLL({RUNTIME!r})
        lib.pdtEmuFaultsInjected.restype = ctypes.c_long
        def injected(api):
            return lib.pdtEmuFaultsInjected(api.encode())
        def arm(api, nth=1, count=1):
            assert lib.pdtEmuFailCall(api.encode(), nth, count) == 0
    """)
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
