"""The bad-input catalogue (issue 9): every public function given wrong types,
shapes, devices and dtypes, negative and huge sizes, NaN and inf, non-contiguous
and read-only NumPy arrays, objects whose array interface or DLPack export lies,
unknown devices and corrupt files.  Each case names the exception it must raise
and a regex its message must match (the message names the problem).

Each case runs in its own process, so that a crash (a segfault, an abort, a
sanitizer report, a hang) fails that case alone and the run goes on: one runner
process (tests/bad_input_runner.py) imports pydevtensor once, then forks a child
per case; the child runs the case and reports what it raised.  A case's `setup`
runs in the child before anything else (configuration that must come before the
first use of a device), then the tensors `t`, `ti`, `tb`.  The cases are in
tests/bad_input_cases.py.

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
import subprocess
import sys

import pytest
from bad_input_cases import CASES
from bad_input_runner import CASE_TIMEOUT_S

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_input_runner.py")


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
    proc = subprocess.run([sys.executable, RUNNER, "--path", where],
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
    proc = subprocess.run([sys.executable, RUNNER, "--path", where],
                          input=payload, capture_output=True, text=True, timeout=120)
    out = json.loads(proc.stdout)
    # SIGSEGV, or under AddressSanitizer its report and exit status 1
    assert re.fullmatch(r"killed by SIGSEGV|exited with status 1", out["segv"]["crash"])
    assert out["fine"]["raised"][0] == "pydevtensor.InvalidArgumentError"
    assert "builtins.ValueError" in out["fine"]["raised"]


def test_nan_and_inf_convert_to_integers_as_documented():
    """tensor(data, dtype=int) converts floats as .to() does (Note [float to int]):
    NaN -> 0, out of range -> the nearest end; before, the C cast was undefined."""
    import pydevtensor as pdt
    data = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 2.9, -2.9]
    for dtype, lo, hi in ((pdt.int32, -2**31, 2**31 - 1), (pdt.int64, -2**63, 2**63 - 1)):
        want = [0, hi, lo, hi, lo, 2, -2]
        assert pdt.tensor(data, dtype=dtype).tolist() == want
        assert pdt.tensor(data, dtype=pdt.float64).to(dtype).tolist() == want
