"""Packaging (issue 15): the sdist carries everything a build needs - every file under
csrc/ that git tracks, the emulator's sources, LICENSE - and no build output; the built
extension names no absolute path of the build machine in its RUNPATH; the package is
typed (py.typed, _C.pyi)."""
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import pydevtensor as pdt

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(pdt.__file__).resolve().parent


def _tracked_csrc():
    """Files under csrc/ that git tracks; in a tree without git (a copy, an unpacked
    sdist) every source file there."""
    try:
        out = subprocess.run(["git", "ls-files", "csrc"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
        if out:
            return set(out)
    except (OSError, subprocess.CalledProcessError):
        pass
    return {str(p.relative_to(ROOT)) for p in (ROOT / "csrc").rglob("*")
            if p.is_file() and p.suffix not in (".o", ".so", ".pyc")}


@pytest.fixture(scope="module")
def sdist_members(tmp_path_factory):
    if not (ROOT / "setup.py").exists():
        pytest.skip("not a source tree")
    out = tmp_path_factory.mktemp("sdist")
    code = ("import sys\nfrom setuptools import build_meta\n"
            "print(build_meta.build_sdist(sys.argv[1]))")
    # The sdist does not depend on the kind of build; setuptools is not our code (no
    # sanitizer runtimes preloaded).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["PYDEVTENSOR_CUDA"] = "0"
    proc = subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    name = proc.stdout.strip().splitlines()[-1]
    assert name == f"pydevtensor-{pdt.__version__}.tar.gz"
    with tarfile.open(out / name) as tar:
        top = f"pydevtensor-{pdt.__version__}/"
        return {m.name[len(top):] for m in tar.getmembers() if m.isfile()}


def test_the_sdist_has_every_file_git_tracks_under_csrc(sdist_members):
    tracked = _tracked_csrc()
    assert any(f.endswith(".cu") for f in tracked) and any(f.endswith(".h") for f in tracked)
    missing = sorted(tracked - sdist_members)
    assert not missing, f"{len(missing)} files under csrc/ missing from the sdist: {missing}"


def test_the_sdist_has_the_build_files_license_and_tests(sdist_members):
    for f in ("setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE", "NOTICE.md", "README.md",
              "pydevtensor/__init__.py", "pydevtensor/_C.pyi", "pydevtensor/py.typed",
              "csrc/cuda/emulator/emu_cublas.cpp", "tests/conftest.py",
              "tests/emulator/rules.cu"):
        assert f in sdist_members, f


def test_the_sdist_has_no_build_output(sdist_members):
    bad = sorted(m for m in sdist_members
                 if m.endswith((".so", ".o", ".pyc")) or "_emulated_cuda/" in m
                 or m == "pydevtensor/_build_config.py" or m.startswith("build/"))
    assert not bad, bad


def test_the_version_has_one_source(sdist_members):
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text.split("[tool.")[0]


def _dynamic_section(so):
    proc = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("readelf is not available")
    return proc.stdout


def test_the_extension_runpath_names_no_absolute_path():
    so = next(PACKAGE.glob("_C*.so"))
    blas = pdt.build_info()["blas"]["provider"] or ""
    for line in _dynamic_section(so).splitlines():
        if "RUNPATH" in line or "RPATH" in line:
            entries = line.split("[", 1)[1].rstrip("]").split(":")
            absolute = [e for e in entries if not e.startswith("$ORIGIN")]
            if blas.startswith("system"):  # PYDEVTENSOR_BLAS=system links a system path
                continue
            assert not absolute, f"{so.name} RUNPATH has build-machine paths: {absolute}"


def test_the_package_is_typed():
    assert (PACKAGE / "py.typed").exists() and (PACKAGE / "_C.pyi").exists()


def test_the_api_reference_lists_every_public_name():
    """docs/api.rst (Sphinx autosummary, built by .ci/wheel with warnings as errors) names
    every public function and class, so a new one cannot go undocumented."""
    import types

    api = ROOT / "docs" / "api.rst"
    if not api.exists():
        pytest.skip("no docs/ in this tree")
    listed = {line.strip() for line in api.read_text().splitlines()}
    text = api.read_text()
    missing = sorted(n for n in pdt.__all__
                     if not isinstance(getattr(pdt, n), (types.ModuleType, pdt.dtype))
                     and n != "return_types" and n not in listed)
    assert not missing, f"add to docs/api.rst: {missing}"
    assert all(f"``{n}``" in text for n in ("float32", "float64", "int32", "int64", "bool"))


# The NVIDIA library headers the CUDA sources include, and the wheel that ships each
# (and its shared library, loaded on first use).
_CUDA_LIBRARY_WHEELS = {"cublas_v2.h": "nvidia-cublas", "cusolverDn.h": "nvidia-cusolver"}


def _pyproject():
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_wheel_build_and_the_cuda_extra_have_every_cuda_library_included():
    """Every NVIDIA library header csrc/cuda includes comes from a wheel that the
    release build's before-all installs (else the cibuildwheel build fails on the
    #include), and the [cuda13] extra names that wheel (else pip users get "cuSOLVER not
    found" whose advice, pip install "pydevtensor[cuda13]", would not help)."""
    import re
    included = set()
    for src in (ROOT / "csrc" / "cuda").glob("*.[ch]*"):
        included |= set(re.findall(r"#include <(\w+\.h)>", src.read_text()))
    wheels = {w for h, w in _CUDA_LIBRARY_WHEELS.items() if h in included}
    assert wheels == set(_CUDA_LIBRARY_WHEELS.values()), included
    conf = _pyproject()
    before_all = " ".join(conf["tool"]["cibuildwheel"]["linux"]["before-all"])
    extra = conf["project"]["optional-dependencies"]["cuda13"]
    for wheel in wheels:
        assert re.search(rf"'{wheel}[<>=]", before_all), (wheel, before_all)
        assert any(re.match(rf"{wheel}[<>=]", req) for req in extra), (wheel, extra)
