"""pydevtensor.distributed on CPU tensors: ranks spawned with mpiexec on localhost
(oversubscribed), each launch running many checks (tests/distributed_worker.py).
Skipped when mpi4py or mpiexec is missing (pip install '.[distributed]')."""
import json
import os
import re
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


def launch(n, script, *args, extra=(), timeout=120, results=None):
    cmd = [sys.executable, "-m", "pydevtensor.distributed.run", "-n", str(n), *extra,
           os.path.join(HERE, script), *args]
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PDT_DIST_RESULTS=str(results or ""))
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p, time.monotonic() - start


def results_of(p, n, where):
    found = sorted(where.glob("*.json"))
    assert p.returncode == 0 and len(found) == n, (p.returncode, p.stdout[-4000:],
                                                   p.stderr[-4000:])
    return sorted((json.loads(f.read_text()) for f in found), key=lambda r: r["rank"])


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_every_dtype_bad_input_and_counts(n, tmp_path):
    """Every collective and reduction against NumPy for every dtype; mismatched shapes,
    dtypes and src fail on every rank with a message naming every rank's tensor; the
    collective byte counts."""
    p, _ = launch(n, "distributed_worker.py", "all", results=tmp_path)
    results = results_of(p, n, tmp_path)
    assert [r["world"] for r in results] == [n] * n


@pytest.mark.parametrize("n", [1, 3])
def test_rooted_all_to_all_object_p2p_bitwise_and_strided(n, tmp_path):
    """reduce, gather, scatter, all_to_all(_single), all_gather_object,
    broadcast_object_list, send / recv / isend / irecv, BAND / BOR / BXOR, uint8 / int8 /
    int16, strided, 0-d and empty tensors against NumPy, new_group of the even ranks, and
    their bad input (tests/distributed_more.py)."""
    p, _ = launch(n, "distributed_more.py", results=tmp_path)
    assert [r["world"] for r in results_of(p, n, tmp_path)] == [n] * n


def test_ranks_on_logical_cpu_devices(tmp_path):
    p, _ = launch(2, "distributed_worker.py", "logical", results=tmp_path)
    results_of(p, 2, tmp_path)


@pytest.mark.cuda
def test_mixed_devices_fail_naming_the_rank(tmp_path):
    """A CUDA tensor on one rank of an 'mpi' group: that rank says why, the others name
    it; nobody hangs."""
    p, _ = launch(2, "distributed_worker.py", "mixed", results=tmp_path)
    results_of(p, 2, tmp_path)


def test_a_stuck_rank_makes_the_others_fail_within_the_timeout(tmp_path):
    """The last rank stops taking part (alive, asleep for 60 s): the others raise a
    RuntimeError naming the rank, the collective and the timeout (2 s), later calls
    raise at once, and their exit aborts the job (the sleeper does not keep it alive)."""
    p, seconds = launch(3, "distributed_killed.py", "stuck", timeout=60, results=tmp_path)
    text = "".join(f.read_text() for f in sorted(tmp_path.glob("*.txt")))
    raised = re.findall(r"RAISED \d after ([0-9.]+) s: all_reduce.{0,40} on rank \d \(of 3\) "
                        r"timed out after 2 seconds", text)
    assert len(raised) == 2, (text, p.stdout, p.stderr[-3000:])
    assert all(float(s) < 10 for s in raised), raised
    assert text.count("process group is unusable") == 2, text
    assert p.returncode != 0 and seconds < 30, (p.returncode, seconds)


def test_a_killed_rank_ends_the_job_within_the_timeout(tmp_path):
    """The last rank is SIGKILLed midway: the job ends (MPICH's runtime tears down the
    survivors, or their timeout fires first), it does not hang."""
    p, seconds = launch(3, "distributed_killed.py", "kill", extra=["-disable-auto-cleanup"],
                        timeout=60, results=tmp_path)
    text = "".join(f.read_text() for f in sorted(tmp_path.glob("*.txt")))
    assert "NO ERROR" not in text, text
    assert p.returncode != 0 and seconds < 15, (p.returncode, seconds)


def test_an_uncaught_exception_on_one_rank_ends_the_job_at_once(tmp_path):
    """The last rank raises outside any collective: its exit aborts the job, so the
    others do not wait for the 60 s timeout."""
    p, seconds = launch(3, "distributed_killed.py", "raise", timeout=120, results=tmp_path)
    assert "an uncaught ValueError on rank 2" in p.stderr, p.stderr[-3000:]
    assert p.returncode != 0 and seconds < 20, (p.returncode, seconds)


def test_launcher_command_line():
    cmd = launcher.mpiexec_command(4, ["train.py", "--lr", "0.1"], ["--hosts", "a,b"],
                                   mpiexec=MPIEXEC)
    assert cmd[:3] == [MPIEXEC, "-n", "4"] and cmd[-4:] == [sys.executable, "train.py", "--lr",
                                                             "0.1"]
    assert "--hosts" in cmd
    assert launcher._parse(["-n", "8", "--hosts", "a,b", "t.py", "-x"]) == (
        "8", ["--hosts", "a,b"], ["t.py", "-x"])
    assert launcher._parse(["-n", "2", "-m", "mod"]) == ("2", [], ["-m", "mod"])
    assert launcher._parse(["-n", "2", "-genv", "FOO", "1", "t.py"]) == (
        "2", ["-genv", "FOO", "1"], ["t.py"])  # MPICH's -genv NAME VALUE
    assert launcher.main(["-n", "0", "t.py"]) == 2


def test_import_pydevtensor_does_not_import_mpi4py():
    code = ("import sys, pydevtensor, pydevtensor.distributed as d; "
            "assert 'mpi4py' not in sys.modules; assert not d.is_initialized(); "
            "assert pydevtensor.distributed is d")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_errors_without_a_group():
    import pydevtensor as pdt
    import pydevtensor.distributed as dist
    with pytest.raises(ValueError, match="not initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="not initialized"):
        dist.all_reduce(pdt.ones(2))
    with pytest.raises(ValueError, match=r"backend must be one of \['mpi', 'nccl', 'gloo'\], "
                                         r"got 'ucc': CPU tensors go through MPI"):
        dist.init_process_group("ucc")
    with pytest.raises(ValueError, match="timeout must be positive"):
        dist.init_process_group("mpi", timeout=0)


def test_post_accumulate_grad_hooks():
    """Parameter.register_post_accumulate_grad_hook (what DDP's buckets start from):
    called once per backward after the gradient is accumulated; remove() ends it."""
    import numpy as np

    import pydevtensor as pdt
    from pydevtensor import nn
    layer = nn.Linear(2, 3)
    seen = []
    handle = layer.weight.register_post_accumulate_grad_hook(
        lambda p: seen.append(p.grad.numpy().copy()))
    x = pdt.tensor([[1.0, 2.0], [3.0, 4.0]])
    layer(x).sum().backward()
    layer(x).sum().backward()
    assert len(seen) == 2
    np.testing.assert_allclose(seen[1], 2 * seen[0])  # after accumulation
    handle.remove()
    layer(x).sum().backward()
    assert len(seen) == 2
    with pytest.raises(TypeError, match="must be callable"):
        layer.bias.register_post_accumulate_grad_hook(3)


def test_ddp_needs_a_group():
    from pydevtensor import nn
    with pytest.raises(ValueError, match="not initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


@pytest.mark.cuda
def test_nccl_rank_communicator_every_collective(tmp_path):
    """backend='nccl' with one rank on cuda:0 (the emulated NCCL joins no other process;
    on a real GPU, NCCL's own): every collective and dtype through ncclCommInitRank's
    communicator, async_op, the collective count, and AVG of integers refused."""
    p, _ = launch(1, "distributed_nccl.py", results=tmp_path)
    results = results_of(p, 1, tmp_path)
    assert results[0]["world"] == 1


@pytest.mark.cuda
def test_nccl_rooted_all_to_all_p2p_and_new_group(tmp_path):
    """backend='nccl' with one rank on cuda:0: reduce (ncclReduce) of every dtype and op,
    gather, scatter, all_to_all(_single) as ncclSend / ncclRecv to itself in one group,
    _comm_exchange's refusals, send / recv's errors, and new_group's own communicator
    (tests/distributed_nccl_p2p.py), against NumPy."""
    p, _ = launch(1, "distributed_nccl_p2p.py", results=tmp_path)
    assert results_of(p, 1, tmp_path)[0]["world"] == 1


def _two_gpus_and_nccl_ranks():
    import pydevtensor as pdt
    return (pdt.cuda.device_count() >= 2 and pdt._C._nccl_available()
            and hasattr(pdt._C, "_comm_init"))


@pytest.mark.cuda
@pytest.mark.real_gpu("NCCL across processes needs real GPUs, one per rank: each process "
                      "would have its own emulator, which joins no other process")
@pytest.mark.skipif(not _two_gpus_and_nccl_ranks(),
                    reason="needs 2 GPUs, one per rank, and NCCL")
def test_nccl_all_reduce_across_two_processes(tmp_path):
    """backend='nccl' across 2 processes, one GPU each: ncclCommInitRank joins them, and
    tests/distributed_nccl.py runs every collective and dtype with rank r holding
    (r + 1) * base."""
    p, _ = launch(2, "distributed_nccl.py", results=tmp_path)
    assert [r["world"] for r in results_of(p, 2, tmp_path)] == [2, 2]
    # reduce, gather, scatter, all-to-all, send / recv across the processes, new_group
    (tmp_path / "p2p").mkdir()
    p, _ = launch(2, "distributed_nccl_p2p.py", results=tmp_path / "p2p")
    assert [r["world"] for r in results_of(p, 2, tmp_path / "p2p")] == [2, 2]


def test_bitwise_ops_on_cuda_tensors_are_a_local_error_before_any_exchange():
    """NCCL has no bitwise reductions: BAND / BOR / BXOR of a CUDA tensor is refused by
    the op check (which _begin turns into every rank's error through the agreement
    check), on the CPU with a stand-in tensor."""
    from types import SimpleNamespace as NS

    import pydevtensor as pdt
    from pydevtensor.distributed import ReduceOp, _collectives
    group = NS(wrank=1, MPI=None)
    for op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        t = NS(dtype=pdt.int32, device=NS(type="cuda"), shape=(2,))
        with pytest.raises(ValueError, match=f"rank 1: ReduceOp.{op.name} is not supported "
                                             f"for CUDA"):
            _collectives._mpi_op(group, op, t, "all_reduce")
        t = NS(dtype=pdt.float32, device=NS(type="cpu"), shape=(2,))
        with pytest.raises(TypeError, match="needs an integer or bool dtype, got a float32"):
            _collectives._mpi_op(group, op, t, "all_reduce")
