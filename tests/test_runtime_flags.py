"""PyTorch's process switches (pydevtensor/_runtime_flags.py, _precision.py):
torch.GradScaler, set_warn_always over the warnings given once a process,
set_deterministic_debug_mode's levels against use_deterministic_algorithms, the interop
thread count (once a process: checked in a child), init_num_threads and
set_flush_denormal (denormal products against NumPy's, which keep them, and against 0,
on the calling thread and on the pool's threads).

Every switch is put back by a fixture, so the tests after these see the defaults.
"""
import os
import platform
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _ops_join, _ops_real, _ops_torch_legacy, _storage


@pytest.fixture
def restore():
    yield
    pdt.set_warn_always(False)
    pdt.use_deterministic_algorithms(False)
    pdt.set_flush_denormal(False)


def test_grad_scaler_is_amps():
    assert pdt.GradScaler is pdt.amp.GradScaler
    assert "GradScaler" in pdt.__all__
    assert pdt.GradScaler("cpu", init_scale=8.0).get_scale() == 8.0


def _count(fn, times=3):
    """The UserWarnings of times calls of fn, Python's filter showing every one."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        for _ in range(times):
            fn()
    return len([w for w in got if issubclass(w.category, UserWarning)])


ONCE = {  # the warnings given once a process: (the call, the record of it having warned)
    "float of a tensor that requires grad": (
        lambda: float(pdt.ones(1, requires_grad=True)), None),
    "x.T of 3 dims": (lambda: pdt.ones(2, 3, 4).T, None),
    "Tensor.H of 0-d": (lambda: pdt.tensor(1.0).H, _ops_real._WARNED_0D),
    "meshgrid without indexing": (lambda: pdt.meshgrid(pdt.ones(2), pdt.ones(3)),
                                  _ops_join._meshgrid_warned),
    "a deprecated solver": (lambda: pdt.lu(pdt.eye(2)), _ops_torch_legacy._WARNED),
    "Tensor.storage()": (lambda: pdt.ones(2).storage(), _storage._warned),
}


@pytest.mark.parametrize("name", list(ONCE))
def test_warn_always_repeats_the_warnings_given_once(restore, name):
    fn, given = ONCE[name]
    assert not pdt.is_warn_always_enabled()
    _count(fn, 1)  # given now, if not before
    assert _count(fn) == 0  # once a process: no more
    pdt.set_warn_always(True)
    assert pdt.is_warn_always_enabled()
    assert _count(fn) == 3
    pdt.set_warn_always(False)
    assert _count(fn) == 0
    if given is not None:
        assert given  # still recorded as given


@pytest.mark.parametrize("mode,level,on,warn_only", [
    ("default", 0, False, False), ("warn", 1, True, True), ("error", 2, True, False),
    (0, 0, False, False), (1, 1, True, True), (2, 2, True, False), (True, 1, True, True)])
def test_deterministic_debug_mode_is_use_deterministic_algorithms(restore, mode, level, on,
                                                                  warn_only):
    pdt.set_deterministic_debug_mode(mode)
    assert pdt.get_deterministic_debug_mode() == level
    assert pdt.are_deterministic_algorithms_enabled() is on
    assert pdt.is_deterministic_algorithms_warn_only_enabled() is warn_only


def test_deterministic_debug_mode_reads_use_deterministic_algorithms(restore):
    for args, level in (((True,), 2), ((True, True), 1), ((False,), 0), ((False, True), 0)):
        pdt.use_deterministic_algorithms(args[0], warn_only=args[-1] if len(args) > 1
                                         else False)
        assert pdt.get_deterministic_debug_mode() == level
    pdt.use_deterministic_algorithms(True)
    with pytest.raises(ValueError, match="expected 0, 1, or 2, but got -1"):
        pdt.set_deterministic_debug_mode(-1)
    assert pdt.get_deterministic_debug_mode() == 2  # unchanged


def test_interop_threads_once_a_process():
    assert pdt.get_num_interop_threads() == len(os.sched_getaffinity(0))
    code = ("import pydevtensor as pdt\n"
            "pdt.set_num_interop_threads(3)\n"
            "print(pdt.get_num_interop_threads())\n"
            "try:\n    pdt.set_num_interop_threads(3)\n"
            "except RuntimeError as e:\n    print(e)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(pdt.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, check=True).stdout.splitlines()
    assert out == ["3", "Error: cannot set number of interop threads after parallel work "
                        "has started or set_num_interop_threads called"]


def test_init_num_threads_in_a_new_thread():
    got = []

    def run():
        got.append(pdt.init_num_threads())
        got.append((pdt.arange(1 << 16, dtype=pdt.float64) * 2).sum().item())

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert got == [None, float((1 << 16) * ((1 << 16) - 1))]


X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def test_set_flush_denormal_elsewhere_sets_nothing(restore):
    if X86:
        pytest.skip("x86 has FTZ/DAZ (the test below)")
    assert pdt.set_flush_denormal(True) is False
    assert (pdt.tensor([1e-39]) * 1.0).item() != 0  # nothing changed


# float32 denormals: 1e-39 as an input (DAZ reads it as 0) and 1e-20 * 1e-20 = 1e-40 as a
# result (FTZ writes 0); float64 the same at 1e-310 and 1e-160 * 1e-160
DENORMALS = {pdt.float32: (1e-39, 1e-20, np.float32), pdt.float64: (1e-310, 1e-160, np.float64)}


@pytest.mark.parametrize("dtype", list(DENORMALS))
@pytest.mark.parametrize("n", [3, 1 << 22])  # on the calling thread; split over the pool
@pytest.mark.skipif(not X86, reason="FTZ/DAZ are x86's (elsewhere: the test above)")
def test_set_flush_denormal(restore, dtype, n):
    tiny, half, npt = DENORMALS[dtype]
    before = pdt.get_num_threads()
    pdt.set_num_threads(2)  # the large case split in two parts at least
    try:
        x, h = pdt.full((n,), tiny, dtype=dtype), pdt.full((n,), half, dtype=dtype)
        ref_in, ref_out = npt(tiny) * npt(1.0), npt(half) * npt(half)
        assert ref_in != 0 and ref_out != 0  # NumPy keeps them (denormals)
        np.testing.assert_array_equal((x * 1.0).numpy(), np.full(n, ref_in, npt))
        assert pdt.set_flush_denormal(True) is True
        assert not (x * 1.0).any().item()  # read as 0
        assert not (h * h).any().item()  # written as 0
        assert ((x + 1.0) == 1.0).all().item()
        assert pdt.set_flush_denormal(False) is True
        np.testing.assert_array_equal((x * 1.0).numpy(), np.full(n, ref_in, npt))
        np.testing.assert_array_equal((h * h).numpy(), np.full(n, ref_out, npt))
    finally:
        pdt.set_num_threads(before)


@pytest.mark.skipif(not X86, reason="FTZ/DAZ are x86's")
def test_set_flush_denormal_is_the_calling_threads(restore):
    """The pool runs an op's parts with its caller's setting: another thread's
    set_flush_denormal(True) flushed the pool's parts of this thread's ops (half of a
    product split in two came back 0, half kept), and the pool flushes the parts of an
    op called from the thread that set it."""
    n = 1 << 22  # split over the pool's two threads
    h = pdt.full((n,), 1e-20)
    ref = np.full(n, np.float32(1e-20) * np.float32(1e-20))
    before = pdt.get_num_threads()
    pdt.set_num_threads(2)
    is_set, done, got = threading.Event(), threading.Event(), {}

    def other():
        got["set"] = pdt.set_flush_denormal(True)
        got["flushed"] = int(((h * h) != 0).sum().item())  # this thread's op: all flushed
        is_set.set()
        done.wait(60)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert is_set.wait(60)
        np.testing.assert_array_equal((h * h).numpy(), ref)  # this thread: none flushed
    finally:
        done.set()
        t.join()
        pdt.set_num_threads(before)
    assert got == {"set": True, "flushed": 0}
