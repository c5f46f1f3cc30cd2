"""The bad-input catalogue (issue 9): every public function given wrong types,
shapes, devices and dtypes, negative and huge sizes, NaN and inf, non-contiguous
and read-only NumPy arrays, objects whose array interface or DLPack export lies,
unknown devices and corrupt files.  Each case names the exception it must raise
and a regex its message must match (the message names the problem).

Cases run in forked children, so that a crash (a segfault, an abort, a sanitizer
report, a hang) fails that case alone and the run goes on: one runner process
(tests/bad_input_runner.py) imports pydevtensor once, then forks children that run
up to 32 cases each, one after another, and report each case's outcome as it ends.
When a child dies, the case it was running is run again alone (its crash is its
own) and the cases after it go on in a new child.  A case with a `setup` (run
first: configuration that must come before the first use of a device) or marked
``isolated`` has a child of its own; a shared case that leaves process-wide state
changed fails (tests/bad_input_state.py).  Every case then gets the tensors `t`,
`ti`, `tb`.  The cases are in tests/bad_input_cases.py and
tests/bad_input_cases_training.py.

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
from bad_input_runner import CASE_TIMEOUT_S, GROUP_SIZE

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_input_runner.py")


def _names(exc):
    return (exc,) if isinstance(exc, str) else exc


def _check(case, result):
    assert "crash" not in result, (
        f"{case.id} crashed ({result['crash']}) running:\n{case.code}\n"
        f"--- its stderr ---\n{result.get('stderr', '')}")
    assert "state_changed" not in result, (
        f"{case.id} shares its child with other cases but left process-wide state changed "
        f"(mark it isolated=True, or undo the change): {result['state_changed']}")
    assert "raised" in result, (
        f"{case.id} raised nothing (expected {case.exc}); it returned {result['returned']}")
    mro = result["raised"]
    wanted = [n if "." in n else f"builtins.{n}" for n in _names(case.exc)]
    assert any(w in mro for w in wanted), (
        f"{case.id} raised {mro[0]}: {result['message']!r}; expected {case.exc}")
    assert re.search(case.match, result["message"], re.S), (
        f"{case.id}: the message {result['message']!r} does not match {case.match!r}")


def run(cases, timeout=None, case_timeout=CASE_TIMEOUT_S, group_size=GROUP_SIZE):
    """{id: [setup, code(, isolated)]} run by the runner -> {id: result}."""
    import pydevtensor
    where = os.path.dirname(os.path.dirname(os.path.abspath(pydevtensor.__file__)))
    proc = subprocess.run([sys.executable, RUNNER, "--path", where, "--case-timeout",
                           str(case_timeout), "--group-size", str(group_size)],
                          input=json.dumps(cases), capture_output=True, text=True,
                          timeout=timeout or case_timeout * 4 + 2 * len(cases))
    assert proc.returncode == 0, f"the runner itself failed:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def results():
    """Every case, run by one runner process; PYDEVTENSOR_CATALOGUE_GROUP_SIZE=1 runs
    each in a child of its own (several times as long: it checks that no case passes only
    because of the cases before it in its child)."""
    group_size = int(os.environ.get("PYDEVTENSOR_CATALOGUE_GROUP_SIZE") or GROUP_SIZE)
    return run({c.id: [c.setup, c.code, c.isolated] for c in CASES}, group_size=group_size)


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
    # isroutine: functions, builtins and the ops wrapped in C (_C._RecordedOp, _AutocastOp)
    missing = [n for n in sorted(set(pdt.__all__)) if n not in skip
               and inspect.isroutine(getattr(pdt, n))
               and not re.search(rf"\bpdt\.{n}\(", codes)]
    assert not missing, f"public functions with no bad-input case: {missing}"


SEGV = "import ctypes\nctypes.string_at(0)"
# SIGSEGV, or under AddressSanitizer its report and exit status 1
SEGV_CRASH = r"killed by SIGSEGV|exited with status 1"


PID = "print('case', CASE)\nos.getpid()"  # says which case ran, and in which child


CRASHES = {  # crashing cases among others (in this order: shared children of up to 32)
    "segv": ["", SEGV], "fine": ["", "pdt.zeros(-1)"],
    "before-1": ["", PID.replace("CASE", "1")],
    "before-2": ["", PID.replace("CASE", "2")],
    "segv-mid": ["", "print('about to crash')\n" + SEGV],
    "after-1": ["", PID.replace("CASE", "3")],
    "after-2": ["", "pdt.zeros(-1)"],
    "after-3": ["", PID.replace("CASE", "4")],
    "sets-trap": ["", "import builtins\nbuiltins.TRAP = True"],
    "springs-it": ["", "import builtins\nif getattr(builtins, 'TRAP', 0):\n"
                       "    " + SEGV.replace("\n", "\n    ")],
}


def test_a_crash_fails_only_its_case(crashes):
    """The runner survives a child that dies (a segfault here) and reports it; the
    case after it, in the same group, still runs."""
    out = crashes
    assert re.fullmatch(SEGV_CRASH, out["segv"]["crash"])
    assert out["fine"]["raised"][0] == "pydevtensor.InvalidArgumentError"
    assert "builtins.ValueError" in out["fine"]["raised"]


def test_a_crash_in_the_middle_of_a_group_fails_only_its_case(crashes):
    """Cases before the crash keep the results their (shared) child reported; the
    crashing case is run again alone, with its own output; the cases after it run in
    a new child."""
    out = crashes
    assert out["before-1"]["returned"] == out["before-2"]["returned"]  # one child
    assert out["before-1"]["stderr"] == "case 1\n" and out["before-2"]["stderr"] == "case 2\n"
    assert re.fullmatch(SEGV_CRASH, out["segv-mid"]["crash"])
    assert "about to crash" in out["segv-mid"]["stderr"]
    assert "case" not in out["segv-mid"]["stderr"]
    assert out["after-1"]["returned"] != out["before-1"]["returned"]  # a new child
    assert out["after-1"]["stderr"] == "case 3\n"
    assert "builtins.ValueError" in out["after-2"]["raised"]
    assert out["after-3"]["returned"] == out["after-1"]["returned"]


def test_a_hang_fails_only_its_case():
    """A case that reports nothing for the case timeout (2 s here, ample for the other
    cases on a loaded machine or under the sanitizers) is killed and fails, with its
    output; the cases after it run in a new child."""
    out = run({"before": ["", PID.replace("CASE", "1")],
               "hang": ["", "import time\nprint('hanging')\ntime.sleep(600)"],
               "after": ["", PID.replace("CASE", "2")]}, timeout=120, case_timeout=2)
    assert out["before"]["stderr"] == "case 1\n" and out["after"]["stderr"] == "case 2\n"
    assert out["hang"] == {"crash": "hung: killed after 2 s", "stderr": "hanging\n"}
    assert out["after"]["returned"] != out["before"]["returned"]


def test_a_crash_only_in_a_group_still_fails(crashes):
    """A case that crashes only after others ran in its child (here: one leaves a
    trap that the next springs) fails, naming the cases that ran before it."""
    out = crashes
    assert out["sets-trap"] == {"returned": "None"}
    crash = out["springs-it"]["crash"]
    assert re.match(SEGV_CRASH, crash), crash
    assert "ran after-1, after-2, after-3, sets-trap before it" in crash
    assert "alone, it did not crash: {'returned': 'None'}" in crash


STATE_CHANGES = {  # a case that leaves process-wide state changed: what the runner calls it
    "pdt.manual_seed(5)": "initial_seed",
    "pdt.set_num_threads(pdt.get_num_threads() + 1)": "number of threads",
    "pdt.set_grad_enabled(False)": "grad mode",
    "pdt.config.set_transfer_guard('log')": "transfer guard",
    "import builtins\nbuiltins.GUARD = pdt.transfer_guard('disallow')\n"
    "builtins.GUARD.__enter__()": "transfer guard",  # a block left open
    "pdt.config.set_soft_device_placement(True)": "soft device placement",
    "pdt.config.set_log_device_placement(True)": "log device placement",
    "pdt.config.set_memory_limit('cpu', 2**30)": "memory limit of cpu",
    "os.environ['PDT_CATALOGUE_TEST'] = '1'": "environment[b'PDT_CATALOGUE_TEST']",
    "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)": "signal handlers[10]",
    "import threading\nthreading.Thread(target=__import__('time').sleep, args=(5,),"
    " name='left', daemon=True).start()": "Python threads",
    "import warnings\nwarnings.simplefilter('error')": "warnings filters",
    "np.seterr(all='raise')": "NumPy error handling",
    "os.umask(0o077)": "umask",
    "os.chdir('/')": "working directory",
}


@pytest.fixture(scope="module")
def runner_checks():
    """CRASHES, then each case of STATE_CHANGES shared (between two that give their
    child's pid: state-I-before, state-I, state-I-after) and isolated (state-I-alone),
    all in one run (each run of the runner costs seconds under the sanitizers)."""
    cases = dict(CRASHES)
    for i, code in enumerate(STATE_CHANGES):
        cases.update({f"state-{i}-before": ["", "os.getpid()"], f"state-{i}": ["", code],
                      f"state-{i}-after": ["", "os.getpid()"],
                      f"state-{i}-alone": ["", code, True]})
    return run(cases, timeout=300)


@pytest.fixture
def crashes(runner_checks):
    return runner_checks


@pytest.mark.parametrize("i", range(len(STATE_CHANGES)),
                         ids=[w.replace("[", "(").replace("]", ")") for w in STATE_CHANGES.values()])
def test_a_shared_case_that_changes_process_wide_state_is_reported(i, runner_checks):
    """A case that shares its child and leaves process-wide state changed gets
    "state_changed" (and fails in test_bad_input); the case after it runs in a new
    child, with the state as it was; the same case marked isolated is fine."""
    what = list(STATE_CHANGES.values())[i]
    out = {part: runner_checks[f"state-{i}{part and '-'}{part}"]
           for part in ("before", "", "after", "alone")}
    changed = out[""].get("state_changed", [])
    assert any(line.startswith((f"{what}: ", f"{what}[")) for line in changed), (changed, out)
    assert out["after"]["returned"] != out["before"]["returned"]
    assert "state_changed" not in out["after"] and "state_changed" not in out["alone"]
    assert "crash" not in out["alone"] and "crash" not in out[""]


def test_nan_and_inf_convert_to_integers_as_documented():
    """.to(int) converts floats by Note [float to int]: NaN -> 0, out of range -> the
    nearest end (before, the C cast was undefined); tensor(data, dtype=int) refuses
    such a float, as PyTorch's does, and truncates one within the range."""
    import pydevtensor as pdt
    data = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 2.9, -2.9]
    for dtype, lo, hi in ((pdt.int32, -2**31, 2**31 - 1), (pdt.int64, -2**63, 2**63 - 1)):
        want = [0, hi, lo, hi, lo, 2, -2]
        assert pdt.tensor(data, dtype=pdt.float64).to(dtype).tolist() == want
        for value in data[:5]:
            with pytest.raises(OverflowError, match="cannot be converted to .* without overflow"):
                pdt.tensor([value], dtype=dtype)
        assert pdt.tensor(data[5:], dtype=dtype).tolist() == [2, -2]
