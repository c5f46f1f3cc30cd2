"""Shared fixtures: the devices to run on, and the skip for GPU-only tests.

Write each test once and parametrize it over ``DEVICES``: the CPU always, and every
CUDA device when one is present.  Tests that only make sense on a GPU carry
``@pytest.mark.cuda`` and are skipped, with the reason shown in the summary, when
no GPU can be used.  A cuda test that needs a real GPU, not the emulated one of a
``PYDEVTENSOR_CUDA=emulate`` build (it measures the hardware, or needs PyTorch's or
CuPy's own CUDA), carries ``@pytest.mark.real_gpu("why")`` too: skipped, saying why,
in the emulated build.

``PYDEVTENSOR_TEST_SPLIT_GPU=N`` (CI) splits physical cuda:0 into N logical devices
(pydevtensor.config.set_logical_device_configuration) before anything touches CUDA,
so that every cuda test runs on cuda:0 ... cuda:N-1 sharing one GPU.  Without a GPU
to split it is an error, not a silent skip.

Property tests (hypothesis): the settings profile is ``$PYDEVTENSOR_HYPOTHESIS_PROFILE``
("ci" when ``$CI`` is set, else "dev"; see below).  "quick" (compute-sanitizer runs
in benchmarks/gpu_check.sh) caps every property test at ``QUICK_EXAMPLES`` examples,
also those whose own settings ask for more, and drops the deadline.  Every session draws one seed
(``--hypothesis-seed=N`` or ``$PYDEVTENSOR_HYPOTHESIS_SEED`` to choose it), shown in
the header and under every failing property test, so a failure can be rerun exactly.
The examples each property test ran are counted, and the total is printed at the
end of the session (the CI run must reach ``MIN_EXAMPLES_CI``).

``PYDEVTENSOR_TEST_FAILURE_LOG=FILE`` appends each failure to FILE as it happens.
"""
import collections
import contextlib
import functools
import itertools
import logging
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import pydevtensor as pdt

# Both profiles print a failing example's reproduction blob and draw fresh data each
# run (the session's seed); "ci" keeps no example database and tolerates slow data
# generation (shared runners, the sanitizer build).
settings.register_profile("dev", print_blob=True, derandomize=False)
settings.register_profile("ci", print_blob=True, derandomize=False, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get("PYDEVTENSOR_HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI") else "dev")
QUICK_EXAMPLES = 10
settings.register_profile("quick", print_blob=True, derandomize=False, database=None,
                          max_examples=QUICK_EXAMPLES, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(PROFILE)
MIN_EXAMPLES_CI = 5000
# $PYDEVTENSOR_TEST_FAILURE_LOG: a file that gets every failure as it happens
# (benchmarks/gpu_check.sh), with the last FAILURE_LOG_LINES lines of its report.
FAILURE_LOG = os.environ.get("PYDEVTENSOR_TEST_FAILURE_LOG")
FAILURE_LOG_LINES = 30


def _split_gpu():
    """PYDEVTENSOR_TEST_SPLIT_GPU=N: cuda:0 becomes N logical devices, each with no
    memory limit of its own (they share the GPU's).  Must run before the first query
    that initialises the devices (is_available below)."""
    value = os.environ.get("PYDEVTENSOR_TEST_SPLIT_GPU", "").strip()
    if not value:
        return 0
    n = int(value)
    if n < 2:
        return 0
    from pydevtensor import config
    gpus = config.list_physical_devices("GPU")
    if not gpus:
        raise RuntimeError(f"PYDEVTENSOR_TEST_SPLIT_GPU={value}: no GPU to split "
                           f"({pdt.cuda.unavailable_reason()})")
    config.set_logical_device_configuration(
        gpus[0], [config.LogicalDeviceConfiguration() for _ in range(n)])
    return n


SPLIT_GPU = _split_gpu()
CUDA_AVAILABLE = pdt.cuda.is_available()
NO_CUDA_REASON = f"needs a CUDA device, and none can be used: {pdt.cuda.unavailable_reason()}"


def _cuda_devices():
    """The CUDA devices that single-device tests run on: all of them, or from cuda:K on
    with ``PYDEVTENSOR_TEST_CUDA_FROM=K``.  CI's runs with two devices (and one split in
    two) set K=1: the single-device tests already ran on cuda:0 in the one-device run,
    and what those runs add is a device other than the first (kernels launched on the
    wrong current device, memory on the wrong GPU) and the tests that use two devices,
    which read ``device_count()`` themselves.  K past the last device keeps the last."""
    n = pdt.device_count()
    start = min(int(os.environ.get("PYDEVTENSOR_TEST_CUDA_FROM") or 0), max(n - 1, 0))
    return [f"cuda:{i}" for i in range(start, n)]


CUDA_DEVICES = _cuda_devices()
DEVICES = ["cpu"] + [pytest.param(d, marks=pytest.mark.cuda) for d in CUDA_DEVICES]
DTYPES = ["bool", "int32", "int64", "float32", "float64"]

# The CUDA Math API states each function's maximum error as the distance in ulps from the
# correctly rounded result (CUDA C++ Programming Guide, "Mathematical Functions"); from
# the exact value, which the tests' references are, that is half an ulp more.  (The H200
# measured past the stated bound by this: expm1 1.13, log1p 1.40, log2 1.21 against 1;
# tan 2.32 against 2; erfinvf 2.13 against 2.)
CUDA_TO_EXACT_ULP = 0.5

# Tolerances against NumPy in float64: |got - ref| <= ATOL + RTOL * |ref|.
TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}


# ---- the emulated CUDA runtime (a PYDEVTENSOR_CUDA=emulate build) ----

try:
    from pydevtensor._build_config import BUILD_CONFIG as _BUILD_CONFIG
except ImportError:  # a build that predates the record
    _BUILD_CONFIG = {}
CUDA_EMULATED = bool(_BUILD_CONFIG.get("cuda_emulated"))


def emulated_cudart():
    """The emulated CUDA runtime this build runs on, through ctypes, or a skip on a real
    build.  The library is already loaded by the extension, so this is the same instance:
    the same devices, the same per-thread current device, the same allocations."""
    import ctypes
    if not CUDA_EMULATED:
        pytest.skip("needs the emulated CUDA runtime (PYDEVTENSOR_CUDA=emulate build)")
    path = os.path.join(os.path.dirname(pdt.__file__), "_emulated_cuda", "libpdt_cudart_emu.so")
    lib = ctypes.CDLL(path)
    lib.cudaGetDevice.argtypes = [ctypes.POINTER(ctypes.c_int)]
    lib.cudaSetDevice.argtypes = [ctypes.c_int]
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    lib.cudaEventElapsedTime.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_void_p,
                                         ctypes.c_void_p]
    return lib


def real_gpu_reason(marker):
    why = marker.kwargs.get("reason") or (marker.args[0] if marker.args else
                                          "measures the real hardware")
    return f"needs a real GPU, not the emulated one (PYDEVTENSOR_CUDA=emulate build): {why}"


# Under .ci/sanitize the ASan runtime is preloaded.  A child forked while another thread
# of the parent holds one of that runtime's internal locks deadlocks in its first
# intercepted call (seen here: a DataLoader worker stuck in poll's interceptor, the
# loader waiting on it for ever); PyTorch's CI skips its DataLoader worker tests under
# ASan for the same reason.  glibc's own locks are safe across fork; this is the
# sanitizer's, so the worker tests run in every other job.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
FORKS_UNDER_ASAN_REASON = ("forks DataLoader workers: a child forked under the preloaded ASan "
                           "runtime can deadlock on the runtime's own locks")


def pytest_collection_modifyitems(config, items):
    no_cuda = pytest.mark.skip(reason=NO_CUDA_REASON)
    for item in items:
        if UNDER_ASAN and item.get_closest_marker("forks_workers"):
            item.add_marker(pytest.mark.skip(reason=FORKS_UNDER_ASAN_REASON))
            continue
        if not CUDA_AVAILABLE and item.get_closest_marker("cuda"):
            item.add_marker(no_cuda)
            continue
        real = item.get_closest_marker("real_gpu")
        if real is not None and CUDA_EMULATED:
            item.add_marker(pytest.mark.skip(reason=real_gpu_reason(real)))


def assert_close(got, ref, dtype="float32"):
    """Compares a tensor (or array) with a float64 NumPy reference."""
    if isinstance(got, pdt.Tensor):
        got = got.detach()  # a result that requires grad is compared by its values
        got = got.contiguous().clone().numpy() if got.device.type == "cpu" else got.cpu().numpy()
    atol, rtol = TOL.get(dtype, (0, 0))
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    bad = ~(np.abs(got - ref) <= atol + rtol * np.abs(ref))
    bad &= ~(np.isnan(got) & np.isnan(ref))
    assert not bad.any(), f"max error {np.nanmax(np.abs(got - ref))} at {np.argwhere(bad)[:5]}"


@pytest.fixture(params=DEVICES)
def device(request):
    return pdt.device(request.param)


# ---- hypothesis: one seed per session, printed; examples counted ----

_examples = collections.Counter()  # test function -> examples run
_running = [None]                  # the function whose examples are being counted


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Draws the session's seed unless --hypothesis-seed gave one; hypothesis's own
    plugin (which runs after this) then seeds every property test with it."""
    if config.getoption("hypothesis_seed", None) is None:
        seed = os.environ.get("PYDEVTENSOR_HYPOTHESIS_SEED") or random.getrandbits(32)
        config.option.hypothesis_seed = str(seed)


def pytest_report_header(config):
    seed = config.getoption("hypothesis_seed")
    lines = [f"hypothesis: profile {PROFILE!r}, seed {seed} "
             f"(rerun with --hypothesis-seed={seed})"]
    n = pdt.device_count()
    if not CUDA_AVAILABLE:
        cuda = f"no device ({pdt.cuda.unavailable_reason()})"
    elif CUDA_EMULATED:
        from pydevtensor._build import emulated_description
        cuda = f"{n} device{'s' if n != 1 else ''}, {emulated_description()}"
    else:
        cuda = f"{n} device{'s' if n != 1 else ''}"
    if SPLIT_GPU:
        cuda += f"; physical cuda:0 split into {SPLIT_GPU} logical devices " \
                f"(PYDEVTENSOR_TEST_SPLIT_GPU={SPLIT_GPU})"
    lines.append(f"cuda: {cuda}")
    return lines


def _count_examples(test):
    """Wraps a @given test's inner test (the documented hook for plugins) so that
    each example it runs is counted for the function now running."""
    inner = test.hypothesis.inner_test
    if getattr(inner, "_pdt_counted", False):
        return

    @functools.wraps(inner)
    def counted(*args, **kwargs):
        _examples[_running[0]] += 1
        return inner(*args, **kwargs)

    counted._pdt_counted = True
    test.hypothesis.inner_test = counted


def _cap_examples(test, n):
    """The "quick" profile: at most n examples even where the test's own @settings ask
    for more (those override the profile), and no deadline."""
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is not None and (own.max_examples > n or own.deadline is not None):
        test._hypothesis_internal_use_settings = settings(
            own, max_examples=min(n, own.max_examples), deadline=None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    test = getattr(item, "obj", None)
    if getattr(test, "is_hypothesis_test", False):
        if PROFILE == "quick":
            _cap_examples(test, QUICK_EXAMPLES)
        _count_examples(test)
        _running[0] = f"{item.path.name}::{item.originalname}"
    yield
    _running[0] = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        seed = item.config.getoption("hypothesis_seed")
        report.sections.append(("hypothesis seed", f"this run's seed is {seed}: rerun with "
                                                   f"pytest --hypothesis-seed={seed} "
                                                   f"{item.nodeid}"))
    if report.failed and FAILURE_LOG:
        _log_failure(report)


def _log_failure(report):
    """Appends a failed test's id and the end of its traceback to ``FAILURE_LOG`` at
    once, so that a run cut off by a time limit (a lent GPU machine's) still says
    which tests failed and why: pytest prints both only in its final summary."""
    lines = str(report.longrepr).splitlines()
    with open(FAILURE_LOG, "a", encoding="utf-8") as f:
        f.write(f"FAILED {report.nodeid} ({report.when})\n")
        f.writelines(f"    {line}\n" for line in lines[-FAILURE_LOG_LINES:])


def pytest_terminal_summary(terminalreporter, config):
    if not _examples:
        return
    total = sum(_examples.values())
    seed = config.getoption("hypothesis_seed")
    terminalreporter.section("hypothesis examples")
    if config.option.verbose > 0:
        for name, n in sorted(_examples.items()):
            terminalreporter.write_line(f"{n:7d}  {name}")
    terminalreporter.write_line(f"{total} examples in {len(_examples)} property tests "
                                f"(profile {PROFILE!r}, seed {seed})")
    if PROFILE == "ci" and total < MIN_EXAMPLES_CI and not config.option.keyword \
            and not config.option.markexpr:
        terminalreporter.write_line(f"fewer than the {MIN_EXAMPLES_CI} examples a CI run "
                                    f"must reach", red=True)


def usable_cores():
    """The cores this process may run on, as the CPU pool counts them (at most 16)."""
    return min(len(os.sched_getaffinity(0)), 16)


def run_python(code, drop=(), **env):
    """Runs `code` in a fresh interpreter with this environment, less the variables in
    `drop`, plus `env`; asserts it succeeded and returns its stdout split in words."""
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    environ.update(env)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def with_switch_on_then_off(switch):
    """A function run(fn) that calls fn() with a C path switched on (switch(True)), then
    off, returns both results and leaves the switch on: for tests that compare a C
    path with the Python one it replaces."""
    def run(fn):
        out = []
        try:
            for on in (True, False):
                switch(on)
                out.append(fn())
        finally:
            switch(True)
        return out
    return run


@contextlib.contextmanager
def raises_index_error(device, match=None):
    """pytest.raises(IndexError, match=match) for an index out of range in the block,
    wherever it is reported: by the op on the CPU (and with
    config.set_index_checks('sync')), at the next synchronisation on a GPU, which
    this makes at the end of the block (Note [deferred index checks] in
    csrc/core/pdt_index.h)."""
    with pytest.raises(IndexError, match=match) as info:
        yield info
        if pdt.device(device).type == "cuda":
            pdt.cuda.synchronize(device)


@pytest.fixture(autouse=True)
def _no_index_error_left(request):
    """After a CUDA test: an index error checked on the device and not yet reported
    would surface in the next test's first synchronisation; name the test that left
    it instead (and clear it)."""
    yield
    if request.node.get_closest_marker("cuda") is None:
        return
    for i in range(pdt.device_count()):
        try:
            pdt.cuda.synchronize(i)
        except IndexError as e:
            pytest.fail(f"the test left an index error checked on cuda:{i} unreported: {e}")


@pytest.fixture
def index_checks_restored():
    """Puts back config.get_index_checks() that a test switched."""
    old = pdt.config.get_index_checks()
    yield
    pdt.config.set_index_checks(old)


@pytest.fixture
def faults():
    """The emulator's fault-injection hook (emulated_faults_support.Faults), disarmed
    before and after the test (tests/test_emulated_faults*.py; emulated build only)."""
    from emulated_faults_support import Faults
    f = Faults()
    f.disarm()
    yield f
    f.disarm()


@pytest.fixture
def level_restored():
    """Puts back the CPU's instruction-set level (pydevtensor._C._cpu_simd_level) that a
    test switched."""
    from pydevtensor import _C
    old = _C._cpu_simd_level()[0]
    yield
    _C._cpu_simd_level(old)


# The PyTorch release the cross-checks were written against.  Older releases differ in
# ways a test of `since=TORCH_CHECKED` sees: clamp's gradient at its bounds, LBFGS's
# `maximize`, LayerNorm's `bias=` in reprs, Multinomial's float64 log_prob.
TORCH_CHECKED = "2.15"


def _release(version):
    """(major, minor, patch) of a version string such as "2.11.0+cu130"."""
    parts = []
    for p in version.split("+")[0].split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, p))
        parts.append(int(digits or 0))
    return tuple(parts + [0] * (3 - len(parts)))


def torch_or_skip(since=None):
    """PyTorch, for tests that cross-check against it; skips the test when torch is not
    installed *or* fails to import (pytest.importorskip skips only on ImportError, and
    against the emulated CUDA libraries importing torch raises other errors), or, with
    `since` (a release such as TORCH_CHECKED), when it is older than that: the behaviour
    the test compares changed there.  Torch is not in the test extra: every behaviour so
    checked also has a NumPy reference test."""
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any failure to import means "not here"
        pytest.skip(f"PyTorch cannot be imported here: {type(e).__name__}: {e}")
    if since is not None and _release(torch.__version__) < _release(since):
        pytest.skip(f"compares with PyTorch {since}'s behaviour, which PyTorch "
                    f"{torch.__version__} here does not have")
    return torch


def ulps32(got, ref):
    """abs(got - ref) in float32 ulps of ref's binade: got a float32 array, ref its float64
    reference; the unit is 2^(e - 24) for abs(ref) in [2^(e-1), 2^e), and 2^-149 below
    the normal range and at ref = 0.  Measured in ref's own binade, not at ref rounded
    to float32, which just below a power of two rounds up and doubles the unit.  0 where
    got is ref rounded to float32 (an overflow to inf of ref's sign included) or both
    are NaN; inf where one of them is NaN or they disagree on infinity."""
    got = np.asarray(got)
    ref = np.asarray(ref, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        same = (got == ref.astype(np.float32)) | (np.isnan(got) & np.isnan(ref))
        _, e = np.frexp(np.abs(ref))
        e = np.where(ref == 0, -125, e)  # frexp(0) gives e = 0
        spacing = np.ldexp(1.0, np.maximum(e, -125) - 24)
        err = np.abs(got.astype(np.float64) - ref) / spacing
        err = np.where(np.isnan(err), np.inf, err)
    return np.where(same, 0.0, err)


class OnLog(logging.Handler):
    """Runs action() once, when the op named `when` is logged (pydevtensor.placement's
    log, with config.set_log_device_placement(True)): a test's stand-in for another
    thread changing an argument between a check and its use."""

    def __init__(self, when, action):
        super().__init__()
        self.when, self.action, self.done = when, action, False

    def emit(self, record):
        if not self.done and f"op {self.when} " in record.getMessage():
            self.done = True
            self.action()
