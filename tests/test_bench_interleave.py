"""The interleaved timing of benchmarks.scaling and benchmarks.breadth (Note [interleaved
timing] in benchmarks/_interleave.py): the servers' protocol and one real run.  Only the
machinery is checked; no time is asserted."""
import glob
import io
import json
import os
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.path.exists(os.path.join(ROOT, "benchmarks", "_interleave.py")):
    pytest.skip("not a source checkout", allow_module_level=True)
sys.path.insert(0, ROOT)
from benchmarks import _interleave as I  # noqa: E402


def _answers(text):
    return [json.loads(line)[I.TAG] for line in text.splitlines()]


def test_a_server_answers_each_request_keeps_a_case_and_drops_it(monkeypatch, capsys):
    built = []

    def build(op, n):
        built.append((op, n))
        return None if op == "absent" else (lambda: None)

    monkeypatch.setattr(sys, "stdin", io.StringIO("add 3\nadd 3\ndrop\nadd 3\nabsent 5\n"))
    I.serve(build, lambda fn: 0.25)
    answers = _answers(capsys.readouterr().out)
    assert answers[0] == {"ready": True}
    assert answers[1:] == [{"op": "add", "n": "3", "seconds": 0.25},
                           {"op": "add", "n": "3", "seconds": 0.25}, {"dropped": True},
                           {"op": "add", "n": "3", "seconds": 0.25},
                           {"op": "absent", "n": "5", "seconds": None}]
    # kept across the rounds of one case, built again after a drop
    assert built == [("add", 3), ("add", 3), ("absent", 5)]


def test_the_parent_skips_what_a_library_prints_and_checks_the_case():
    s = I.Server.__new__(I.Server)
    s.lib, s.error = "fake", None

    class Proc:
        stdout = io.StringIO("loading things...\n42\n{\"other\": 1}\n"
                             + json.dumps({I.TAG: {"op": "add", "n": "7", "seconds": 1.5}})
                             + "\n" + json.dumps({I.TAG: {"op": "mul", "n": "7", "seconds": 2}})
                             + "\n")
        stdin = io.StringIO()

    s.proc = Proc()
    assert s.time("add", 7) == 1.5
    with pytest.raises(RuntimeError, match="answered"):
        s.time("add", 7)  # the next answer is for another case


def test_an_interleaved_run_times_every_library_every_round_and_cleans_up():
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "bench-*.err")))
    runs = I.run_interleaved("benchmarks.breadth", ("pydevtensor", "numpy", "nolib"), [1000],
                             ["add_i32", "sort"], 2, cwd=ROOT, log=lambda m: None)
    for lib in ("pydevtensor", "numpy"):
        assert len(runs[lib]) == 2
        for r in runs[lib]:
            assert set(r) == {"add_i32", "sort"}
            assert all(r[op]["1000"] > 0 for op in r)
    assert "invalid choice: 'nolib'" in runs["nolib"][0]["error"]
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "bench-*.err"))) == before
