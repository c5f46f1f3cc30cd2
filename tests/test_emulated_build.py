"""The emulated build (PYDEVTENSOR_CUDA=emulate, issue 13) says what it is: build_info(),
`python -m pydevtensor`, and the layout setup.py gives it (the emulated runtime, cuBLAS
and NCCL beside the extension, loaded from there).  Skipped in other builds, except the
check that they do not claim to be emulated."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pydevtensor as pdt
from conftest import CUDA_EMULATED

emulated_only = pytest.mark.skipif(not CUDA_EMULATED, reason="needs the emulated CUDA build "
                                   "(PYDEVTENSOR_CUDA=emulate pip install -e .)")
PACKAGE = Path(pdt.__file__).resolve().parent


def _run(*args, **env):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONUNBUFFERED="1", **env), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_build_that_is_not_emulated_says_so():
    info = pdt.build_info()
    assert info["cuda_emulated"] is CUDA_EMULATED and info["cuda"]["emulated"] is CUDA_EMULATED
    if not CUDA_EMULATED:
        assert info["cuda"]["device"] is None and info["cuda"]["emulator"] is None
        assert info["cuda"]["cudart"] in ("static", None)


@emulated_only
def test_build_info_says_plainly_that_it_is_emulated():
    info = pdt.build_info()
    cuda = info["cuda"]
    assert info["cuda_emulated"] is True and cuda["built"] and cuda["emulated"]
    assert "emulated on the CPU" in cuda["device"] and "not a real GPU" in cuda["device"]
    assert cuda["cudart"].startswith("emulated") and cuda["archs"] is None
    assert cuda["toolkit"] and cuda["cublas"]  # the headers it was compiled against


@emulated_only
def test_the_emulated_libraries_sit_beside_the_extension_and_are_the_ones_loaded():
    emu = pdt.build_info()["cuda"]["emulator"]
    lib_dir = Path(emu["lib_dir"])
    assert lib_dir == PACKAGE / "_emulated_cuda"
    names = {p.name for p in lib_dir.iterdir()}
    assert "libpdt_cudart_emu.so" in names and "libnccl.so.2" in names
    assert any(n.startswith("libcublas.so.") for n in names)
    assert set(emu["libraries"]) <= names
    # The runtime, cuBLAS and NCCL from the build itself, never a system library of the
    # same name (a fresh process: nothing else loaded).
    code = ("import pydevtensor as pdt\n"
            "print(pdt.build_info()['cuda']['cublas_loaded'])\n"
            "print(pdt._C._describe(pdt._C._KIND_CUDA))\n"
            "print(open('/proc/self/maps').read())\n")
    out = _run("-c", code, LD_LIBRARY_PATH="/usr/local/cuda/lib64")
    assert str(lib_dir / "libcublas.so.") in out.splitlines()[0]
    mapped = {line.split()[-1] for line in out.splitlines()[2:] if "/" in line}
    cuda_libs = {m for m in mapped if any(k in Path(m).name for k in ("cudart", "cublas", "nccl"))}
    assert cuda_libs and all(Path(m).parent == lib_dir for m in cuda_libs), cuda_libs


@emulated_only
def test_the_emulator_config_compiles_a_test_kernel(tmp_path):
    """BUILD_CONFIG["emulator"]: what tests need to build their own .cu files."""
    emu = pdt.build_info()["cuda"]["emulator"]
    src = tmp_path / "k.cu"
    src.write_text("__global__ void twice(float *x, int n) {\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i < n) x[i] *= 2.0f;\n"
                   "}\n"
                   "extern \"C\" __attribute__((visibility(\"default\"))) int probe(void) {\n"
                   "    return 1;\n"
                   "}\n")
    cmd = [*emu["cxx"].split(), *emu["cxxflags"], *[f"-I{d}" for d in emu["include_dirs"]],
           "-shared", str(src), "-o", str(tmp_path / "libk.so"), *emu["ldflags"]]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, " ".join(cmd) + "\n" + proc.stderr
    out = _run("-c", f"import ctypes; print(ctypes.CDLL({str(tmp_path / 'libk.so')!r}).probe())")
    assert out.strip() == "1"


@emulated_only
def test_cli_heading_says_the_devices_are_emulated():
    out = _run("-c", "import sys, pydevtensor.smi as s; sys.exit(s.main())",
               PYDEVTENSOR_EMULATED_DEVICES="2", PYDEVTENSOR_EMULATED_MEMORY_MB="512")
    head = out.splitlines()[1]
    assert head == ("CUDA: emulated on the CPU (PYDEVTENSOR_EMULATED_DEVICES=2, 512 MiB each) "
                    "\u2014 not a real GPU"), out
    assert "| cuda:0" in out and "| cuda:1" in out
    assert "2 emulated devices" in out.splitlines()[-1]


@emulated_only
def test_demo_says_it_runs_on_an_emulated_gpu():
    out = _run("-m", "pydevtensor",
               PYDEVTENSOR_EMULATED_DEVICES="1")
    assert "running on an emulated GPU" in out and "equal bits on every device\nTrue" in out
