"""pydevtensor.distributed on CPU tensors: ranks spawned with mpiexec on localhost
(oversubscribed), each launch running many checks (tests/distributed_worker.py).
Skipped when mpi4py or mpiexec is missing (pip install '.[distributed]')."""
import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

pytest.importorskip("mpi4py")
from pydevtensor.distributed import run as launcher  # noqa: E402

try:
    MPIEXEC = launcher.find_mpiexec()
except RuntimeError:  # pragma: no cover
    pytest.skip("no mpiexec", allow_module_level=True)


def launch(n, script, *args, extra=(), timeout=120):
    cmd = [sys.executable, "-m", "pydevtensor.distributed.run", "-n", str(n), *extra,
           os.path.join(HERE, script), *args]
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p, time.monotonic() - start


def ok_lines(p, n):
    lines = [line for line in p.stdout.splitlines() if line.startswith("OK ")]
    assert p.returncode == 0 and len(lines) == n, (p.returncode, p.stdout[-4000:],
                                                   p.stderr[-4000:])
    return sorted((json.loads(line.split(" ", 2)[2]) for line in lines),
                  key=lambda r: r["rank"])


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_every_dtype_bad_input_and_counts(n):
    """Every collective and reduction against NumPy for every dtype; mismatched shapes,
    dtypes and src fail on every rank with a message naming every rank's tensor; the
    collective byte counts."""
    p, _ = launch(n, "distributed_worker.py", "all")
    results = ok_lines(p, n)
    assert [r["world"] for r in results] == [n] * n


def test_ranks_on_logical_cpu_devices():
    p, _ = launch(2, "distributed_worker.py", "logical")
    ok_lines(p, 2)


def test_a_killed_rank_makes_the_others_fail_within_the_timeout():
    # hydra would kill the job itself when a rank dies; without that cleanup the
    # survivors must notice on their own (the timeout, 2 s)
    p, seconds = launch(3, "distributed_killed.py", extra=["-disable-auto-cleanup"], timeout=60)
    raised = [line for line in p.stdout.splitlines() if line.startswith("RAISED")]
    assert len(raised) == 2, (p.stdout, p.stderr[-3000:])
    for line in raised:
        assert "all_reduce" in line and "timed out after 2 seconds" in line, line
        assert float(line.split()[3]) < 10, line
    assert sum("process group is unusable" in line for line in p.stdout.splitlines()) == 2
    assert p.returncode != 0
    assert seconds < 40


def test_launcher_command_line():
    cmd = launcher.mpiexec_command(4, ["train.py", "--lr", "0.1"], ["--hosts", "a,b"],
                                   mpiexec=MPIEXEC)
    assert cmd[:3] == [MPIEXEC, "-n", "4"] and cmd[-4:] == [sys.executable, "train.py", "--lr",
                                                             "0.1"]
    assert "--hosts" in cmd
    assert launcher._parse(["-n", "8", "--hosts", "a,b", "t.py", "-x"]) == (
        "8", ["--hosts", "a,b"], ["t.py", "-x"])
    assert launcher._parse(["-n", "2", "-m", "mod"]) == ("2", [], ["-m", "mod"])
    assert launcher.main(["-n", "0", "t.py"]) == 2


def test_import_pydevtensor_does_not_import_mpi4py():
    code = ("import sys, pydevtensor, pydevtensor.distributed as d; "
            "assert 'mpi4py' not in sys.modules; assert not d.is_initialized(); "
            "assert pydevtensor.distributed is d")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_errors_without_a_group():
    import pydevtensor as pdt
    import pydevtensor.distributed as dist
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.all_reduce(pdt.ones(2))
    with pytest.raises(ValueError, match="backend must be one of"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="timeout must be positive"):
        dist.init_process_group("mpi", timeout=0)
