"""Device queries, try_gpu, build_info and the CLI (issue 2)."""
import os
import subprocess
import sys

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE


def test_try_gpu_and_try_all_gpus():
    n = pdt.device_count()
    assert n == pdt.cuda.device_count()
    if n == 0:
        assert pdt.try_gpu() == pdt.device("cpu")
        assert pdt.try_gpu(3) == pdt.device("cpu")
        assert pdt.try_all_gpus() == [pdt.device("cpu")]
    else:
        assert pdt.try_gpu() == pdt.device("cuda:0")
        assert pdt.try_gpu(n) == pdt.device("cpu")
        assert pdt.try_all_gpus() == [pdt.device("cuda", i) for i in range(n)]


def test_issue_example_prints():
    out = subprocess.run(
        [sys.executable, "-c",
         "import pydevtensor as p; print(p.device_count(), p.try_gpu(), p.try_all_gpus())"],
        capture_output=True, text=True, check=True).stdout.strip()
    if not CUDA_AVAILABLE:
        assert out == "0 cpu [device(type='cpu')]"


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the no-GPU behaviour")
def test_no_gpu_errors_say_why_and_list_devices():
    reason = pdt.cuda.unavailable_reason()
    assert reason
    for make in (lambda: pdt.ones(2, device="cuda"), lambda: pdt.ones(2).cuda(),
                 lambda: pdt.cuda.get_device_properties(0), lambda: pdt.cuda.mem_get_info(),
                 lambda: pdt.cuda.set_device(0), lambda: pdt.zeros(1).to("cuda:1")):
        with pytest.raises(RuntimeError) as exc:
            make()
        assert isinstance(exc.value, pdt.DeviceError)
        msg = str(exc.value)
        assert "available: cpu" in msg
        assert reason in msg or "not built with cuda" in msg
    assert not pdt.cuda.is_available()
    assert pdt.cuda.device_count() == 0
    pdt.cuda.synchronize()  # a no-op without a GPU
    pdt.cuda.empty_cache()


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the no-GPU behaviour")
def test_cuda_build_without_driver_reports_the_driver():
    """This machine has the toolkit but no driver: the CUDA build imports, counts 0
    devices, and says which of 'no driver' / 'no device' it is."""
    if not pdt.cuda.is_built():
        pytest.skip("this build has no CUDA backend (PYDEVTENSOR_CUDA=0)")
    code = ("import pydevtensor as p; print(p.device_count()); "
            "print(p.cuda.unavailable_reason())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "0"
    assert "driver" in out[1] or "no CUDA device" in out[1]


@pytest.mark.cuda
def test_cuda_device_queries():
    p = pdt.cuda.get_device_properties(0)
    assert p.total_memory > 0 and p.multi_processor_count > 0 and p.major >= 7
    assert pdt.cuda.get_device_name(0) == p.name
    free, total = pdt.cuda.mem_get_info(0)
    assert 0 < free <= total == p.total_memory
    pdt.cuda.set_device(0)
    assert pdt.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="no such device"):
        pdt.cuda.get_device_properties(pdt.device_count())


def test_bad_device_index_lists_devices():
    with pytest.raises(RuntimeError, match=r"available: cpu"):
        pdt.zeros(3, device="cuda:7")


def test_build_info_keys():
    info = pdt.build_info()
    assert {"version", "compiler", "cflags", "cuda", "blas"} <= set(info)
    assert {"built", "toolkit", "cublas", "runtime_version", "driver_version"} <= set(info["cuda"])
    assert {"provider", "config", "threads"} <= set(info["blas"])
    assert "OpenBLAS" in info["blas"]["config"]
    assert info["blas"]["threads"] >= 1
    assert info["compiler"] and "-Wall" in info["cflags"]
    if info["cuda"]["built"]:
        assert info["cuda"]["toolkit"] and info["cuda"]["cublas"]
    else:
        assert info["cuda"]["toolkit"] is None


def _run_cli(*args):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=120, check=True).stdout


def test_cli_prints_table_and_demo():
    out = _run_cli("-m", "pydevtensor")
    assert "| Device" in out and "| cpu" in out and "OpenBLAS" in out or "openblas" in out
    assert "Memory used / total" in out
    assert "try_gpu()" in out
    assert "equal bits on every device" in out and "False" not in out.split("equal bits")[1][:20]
    if not CUDA_AVAILABLE:
        assert "no device available" in out
    # each ">>>" line is followed by what Python's prompt shows: the repr
    lines = out.splitlines()
    after = {line: lines[i + 1] for i, line in enumerate(lines) if line.startswith(">>> ")}
    gpu = pdt.try_gpu()
    assert after[">>> pdt.try_gpu(), pdt.try_all_gpus()"] == repr((gpu, pdt.try_all_gpus()))
    assert after[">>> Y = pdt.rand(2, 3, device=try_gpu()); Y.device"] == repr(gpu)
    assert after[">>> Z = X.to(try_gpu()); Z is X"] == "True"
    assert after[">>> X.cpu() is X, X.cpu().device"] == repr((gpu.type != "cuda",
                                                             pdt.device("cpu")))
    assert after[">>> Y.cpu().numpy()   # explicit: a GPU tensor never turns into NumPy "
                 "silently"].startswith("array([[")
    seed = [line for line in after if "equal bits on every device" in line]
    assert len(seed) == 1 and after[seed[0]] == "True"
    # without a GPU the "every device" check compares the CPU with itself, and says so
    assert seed[0].endswith("compared with itself)") == (gpu.type != "cuda")


def test_smi_entry_point_prints_table_only():
    out = _run_cli("-c", "import sys, pydevtensor.smi as s; sys.exit(s.main())")
    assert "| cpu" in out and "try_gpu" not in out


def test_import_stays_light():
    """Note [lazy submodules]: `import pydevtensor` leaves nn, config, training and the
    libraries they need (logging, json, queue) for first use; benchmarks/bench_import.py
    measures the time this keeps under 30 ms."""
    code = ("import sys, numpy\n"
            "before = set(sys.modules)\n"
            "import pydevtensor\n"
            "heavy = ('logging', 'json', 'queue', 'zipfile', 'pydevtensor.nn', "
            "'pydevtensor.config', 'pydevtensor.distribute', 'pydevtensor.optim')\n"
            "print(sorted(m for m in heavy if m in sys.modules and m not in before))\n"
            "from pydevtensor import nn\n"
            "print(pydevtensor.nn is nn, callable(pydevtensor.save), 'config' in dir(pydevtensor))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "True True True"]
