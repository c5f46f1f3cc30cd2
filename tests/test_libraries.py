"""The libraries loaded on first use (OpenBLAS; cuBLAS and NCCL in a CUDA build): where
they are searched for (pydevtensor/_libraries.py, csrc/core/pdt_library.h), what
build_info() and `python -m pydevtensor` say about them, what a missing one says, and
(emulated build) that cuBLAS and NCCL are found in NVIDIA's pip-wheel layout."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pydevtensor as pdt
from conftest import CUDA_EMULATED
from pydevtensor import _libraries

PACKAGE = Path(pdt.__file__).resolve().parent
CUDA_BUILT = pdt.build_info()["cuda"]["built"]
emulated_only = pytest.mark.skipif(not CUDA_EMULATED, reason="needs the emulated CUDA build "
                                   "(PYDEVTENSOR_CUDA=emulate pip install -e .)")


def _run(code, *, ok=True, cwd=None, **env):
    environ = dict(os.environ, PYTHONUNBUFFERED="1")
    environ.update(env)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, timeout=120, cwd=cwd)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def _layout(root, *dirs):
    for d in dirs:
        (root / d).mkdir(parents=True)
    return str(root)


def test_nvidia_wheel_dirs_are_found_cuda_major_first_without_importing(tmp_path):
    a = _layout(tmp_path / "a", "nvidia/nccl/lib", "nvidia/cu13/lib", "nvidia/cublas/lib",
                "nvidia/cu12/lib", "nvidia/cudnn")  # cudnn/ without lib/: not listed
    b = _layout(tmp_path / "b", "nvidia/cu13/lib")
    dirs = _libraries.nvidia_wheel_dirs([a, str(tmp_path / "none"), b, a])
    assert dirs == [f"{a}/nvidia/cu13/lib", f"{a}/nvidia/cu12/lib", f"{a}/nvidia/cublas/lib",
                    f"{a}/nvidia/nccl/lib", f"{b}/nvidia/cu13/lib"]
    assert "nvidia" not in sys.modules


def test_cuda_home_comes_after_the_wheels_and_only_outside_the_emulated_build(tmp_path):
    site = _layout(tmp_path / "site", "nvidia/cu13/lib")
    home = tmp_path / "cuda"
    (home / "lib64").mkdir(parents=True)
    dirs = _libraries.cuda_library_dirs([site], {"CUDA_HOME": str(home)})
    wheel = f"{site}/nvidia/cu13/lib"
    assert dirs == ([wheel] if CUDA_EMULATED else [wheel, str(home / "lib64")])
    assert _libraries.cuda_home_dirs({"CUDA_PATH": str(home)}) == [str(home / "lib64")]
    assert _libraries.cuda_home_dirs({"CUDA_HOME": str(tmp_path / "nothing")}) == []


def test_build_info_names_the_file_each_library_was_loaded_from():
    libs = pdt.build_info()["libraries"]
    assert set(libs) == ({"OpenBLAS", "cuBLAS", "NCCL", "cuSOLVER"} if CUDA_BUILT
                         else {"OpenBLAS"})
    blas = libs["OpenBLAS"]
    assert blas["error"] is None and blas["install"] is None
    assert Path(blas["path"]).is_file() and Path(blas["path"]).name == blas["soname"]
    if CUDA_EMULATED:
        for name in ("cuBLAS", "NCCL", "cuSOLVER"):
            assert Path(libs[name]["path"]).parent == PACKAGE / "_emulated_cuda", libs[name]


def test_python_m_pydevtensor_lists_the_libraries():
    out = _run("import runpy; runpy.run_module('pydevtensor', run_name='__main__')").stdout
    section = out[out.index("== Libraries loaded on first use =="):]
    line = next(l for l in section.splitlines() if l.startswith("OpenBLAS"))
    assert line.split()[-1] == pdt.build_info()["libraries"]["OpenBLAS"]["path"]


def _package_copy(tmp_path, drop=()):
    """A copy of the built package under tmp_path/site (the extension and what sits beside
    it), without the files named in drop: a layout where RUNPATH finds nothing else.
    Scripts run with cwd=tmp_path and PYTHONPATH=site import it."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "pydevtensor", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in drop:
        (site / "pydevtensor" / name).unlink()
    return site


@pytest.mark.skipif(pdt.build_info()["blas"]["provider"].startswith("system"),
                    reason="a system OpenBLAS is found by the system loader")
def test_a_missing_openblas_says_what_to_pip_install(tmp_path):
    site = _package_copy(tmp_path)
    code = ("import sys; sys.modules['scipy_openblas32'] = None  # hide the wheel\n"
            "import pydevtensor as pdt\n"
            f"assert pdt.__file__.startswith({str(site)!r}), pdt.__file__\n"
            "lib = pdt.build_info()['libraries']['OpenBLAS']\n"
            "assert lib['path'] is None, lib\n"
            "print(lib['install']); print(lib['error'])\n"
            "try:\n"
            "    pdt.ones(2, 2) @ pdt.ones(2, 2)\n"
            "except RuntimeError as e:\n"
            "    print('raised:', e)\n")
    out = _run(code, cwd=tmp_path, PYTHONPATH=str(site)).stdout.splitlines()
    assert out[0] == "pip install scipy-openblas32"
    assert "OpenBLAS could not be loaded" in out[1] and "libscipy_openblas.so" in out[1]
    assert out[1].endswith("Install it with: pip install scipy-openblas32")
    assert out[2].startswith("raised: OpenBLAS could not be loaded")


@emulated_only
@pytest.mark.cuda
def test_cublas_and_nccl_are_found_in_nvidia_wheel_layout(tmp_path):
    """The emulated cuBLAS and NCCL stand in NVIDIA's wheels' places (nvidia-cublas:
    nvidia/cu13/lib; nvidia-nccl-cu13: nvidia/nccl/lib) on PYTHONPATH, with no toolkit
    to be found: they are loaded from there, ahead of the build's own copies."""
    emu = PACKAGE / "_emulated_cuda"
    cublas = next(p.name for p in emu.iterdir() if p.name.startswith("libcublas.so."))
    site = tmp_path / "site"
    for sub, name in (("nvidia/cu13/lib", cublas), ("nvidia/nccl/lib", "libnccl.so.2")):
        (site / sub).mkdir(parents=True)
        shutil.copy2(emu / name, site / sub / name)
    code = ("import pydevtensor as pdt\n"
            "libs = pdt.build_info()['libraries']\n"
            "print(libs['cuBLAS']['path']); print(libs['NCCL']['path'])\n"
            "x = pdt.ones(2, 3, device='cuda')\n"
            "print((x @ x.T).cpu().tolist())\n"
            "print(open('/proc/self/maps').read())\n")
    out = _run(code, PYTHONPATH=str(site), CUDA_HOME=str(tmp_path / "no-toolkit"),
               CUDA_PATH="", LD_LIBRARY_PATH="").stdout.splitlines()
    assert out[0] == str(site / "nvidia/cu13/lib" / cublas)
    assert out[1] == str(site / "nvidia/nccl/lib/libnccl.so.2")
    assert out[2] == "[[3.0, 3.0], [3.0, 3.0]]"
    mapped = {line.split()[-1] for line in out[3:] if "/" in line}
    assert not any(Path(m).name == cublas and Path(m).parent == emu for m in mapped)


@emulated_only
@pytest.mark.cuda
def test_a_missing_cublas_says_what_to_install_and_where_it_looked(tmp_path):
    cublas = next(p.name for p in (PACKAGE / "_emulated_cuda").iterdir()
                  if p.name.startswith("libcublas.so."))
    site = _package_copy(tmp_path, drop=[f"_emulated_cuda/{cublas}"])
    empty = _layout(tmp_path / "wheels", "nvidia/cu13/lib")
    code = ("import pydevtensor as pdt\n"
            f"assert pdt.__file__.startswith({str(site)!r}), pdt.__file__\n"
            "lib = pdt.build_info()['libraries']['cuBLAS']\n"
            "print(lib['path']); print(lib['install']); print(lib['error'])\n"
            "x = pdt.ones(2, 2, device='cuda')\n"
            "try:\n"
            "    x @ x\n"
            "except RuntimeError as e:\n"
            "    print('raised:', e)\n")
    out = _run(code, cwd=tmp_path, PYTHONPATH=f"{site}{os.pathsep}{empty}").stdout.splitlines()
    assert out[0] == "None" and "pip install" in out[1]
    assert "cuBLAS could not be loaded" in out[2] and cublas in out[2]
    assert f"{empty}/nvidia/cu13/lib" in out[2]  # the directories searched are named
    assert out[3].startswith("raised: cuBLAS could not be loaded")


@emulated_only
@pytest.mark.cuda
def test_a_missing_cusolver_fails_the_solvers_only(tmp_path):
    """Without cuSOLVER, linalg.solve on a GPU raises, naming the library and what to
    install; matrix products (cuBLAS) and the CPU solvers still work."""
    cusolver = next(p.name for p in (PACKAGE / "_emulated_cuda").iterdir()
                    if p.name.startswith("libcusolver.so."))
    site = _package_copy(tmp_path, drop=[f"_emulated_cuda/{cusolver}"])
    empty = _layout(tmp_path / "wheels", "nvidia/cu13/lib")
    code = ("import pydevtensor as pdt\n"
            f"assert pdt.__file__.startswith({str(site)!r}), pdt.__file__\n"
            "x = pdt.eye(2, device='cuda') * 2\n"
            "print((x @ x).cpu().tolist())\n"
            "print(pdt.linalg.inv(x.cpu()).tolist())\n"
            "try:\n"
            "    pdt.linalg.solve(x, pdt.ones(2, device='cuda'))\n"
            "except RuntimeError as e:\n"
            "    print('raised:', type(e).__name__, e)\n")
    out = _run(code, cwd=tmp_path, PYTHONPATH=f"{site}{os.pathsep}{empty}").stdout.splitlines()
    assert out[0] == "[[4.0, 0.0], [0.0, 4.0]]" and out[1] == "[[0.5, 0.0], [0.0, 0.5]]"
    assert out[2].startswith("raised: ") and "cuSOLVER could not be loaded" in out[2]
    assert cusolver in out[2]


@emulated_only
@pytest.mark.cuda
def test_a_driver_too_old_for_the_build_names_the_driver_needed():
    code = ("import pydevtensor as pdt\n"
            "print(pdt.device_count()); print(pdt.cuda.unavailable_reason())\n")
    out = _run(code, PYDEVTENSOR_EMULATED_DRIVER_VERSION="12040").stdout.splitlines()
    assert out[0] == "0"
    runtime = pdt.build_info()["cuda"]["runtime_version"]
    needed = "580" if runtime.startswith("13.") else "525"
    assert f"built with CUDA {runtime}, which needs driver {needed} or newer" in out[1]
    assert "the installed driver supports CUDA 12.4" in out[1]
