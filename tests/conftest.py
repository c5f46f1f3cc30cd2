"""Shared fixtures: the devices to run on, and the skip for GPU-only tests.

Write each test once and parametrize it over ``DEVICES``: the CPU always, and every
CUDA device when one is present.  Tests that only make sense on a GPU carry
``@pytest.mark.cuda`` and are skipped, with the reason shown in the summary, when
no GPU can be used.

Property tests (hypothesis): the settings profile is ``$PYDEVTENSOR_HYPOTHESIS_PROFILE``
("ci" when ``$CI`` is set, else "dev"; see below).  Every session draws one seed
(``--hypothesis-seed=N`` or ``$PYDEVTENSOR_HYPOTHESIS_SEED`` to choose it), shown in
the header and under every failing property test, so a failure can be rerun exactly.
The examples each property test ran are counted, and the total is printed at the
end of the session (the CI run must reach ``MIN_EXAMPLES_CI``).
"""
import collections
import functools
import os
import random

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
settings.load_profile(PROFILE)
MIN_EXAMPLES_CI = 5000

CUDA_AVAILABLE = pdt.cuda.is_available()
NO_CUDA_REASON = f"needs a CUDA GPU: {pdt.cuda.unavailable_reason()}"

DEVICES = ["cpu"] + [
    pytest.param(f"cuda:{i}", marks=pytest.mark.cuda) for i in range(pdt.device_count())]
DTYPES = ["bool", "int32", "int64", "float32", "float64"]

# Tolerances against NumPy in float64: |got - ref| <= ATOL + RTOL * |ref|.
TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}


def pytest_collection_modifyitems(config, items):
    if CUDA_AVAILABLE:
        return
    skip = pytest.mark.skip(reason=NO_CUDA_REASON)
    for item in items:
        if item.get_closest_marker("cuda"):
            item.add_marker(skip)


def assert_close(got, ref, dtype="float32"):
    """Compares a tensor (or array) with a float64 NumPy reference."""
    if isinstance(got, pdt.Tensor):
        got = pdt.tensor(got.cpu()).numpy() if got.device.type == "cpu" else got.cpu().numpy()
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
    return (f"hypothesis: profile {PROFILE!r}, seed {seed} "
            f"(rerun with --hypothesis-seed={seed})")


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    test = getattr(item, "obj", None)
    if getattr(test, "is_hypothesis_test", False):
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
