"""Build of pydevtensor's C extension, pydevtensor._C.

Environment switches:
  PYDEVTENSOR_CUDA=0|1       0: CPU-only build; 1: a missing CUDA toolkit is an error;
                             unset: build the CUDA backend when CUDA_HOME or nvcc is found.
  PYDEVTENSOR_CUDA_ARCH      space-separated compute capabilities (default "80 90";
                             PTX for the newest is always added).
  PYDEVTENSOR_BLAS=system    link a system OpenBLAS found by pkg-config instead of
                             PyPI's scipy-openblas32.
  PYDEVTENSOR_WERROR=1       add -Werror (CI sets it).
  PYDEVTENSOR_SANITIZE=...   e.g. "address,undefined": a sanitizer build (-O1 -g).
"""
import os
import re
from concurrent.futures import ThreadPoolExecutor
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent.resolve()


def env_flag(name):
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("1", "on", "yes", "true"):
        return True
    if value in ("0", "off", "no", "false"):
        return False
    sys.exit(f"{name}={value!r}: expected 0 or 1")


def find_cuda():
    """Returns the CUDA toolkit root, or None."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and (Path(home) / "bin" / "nvcc").exists():
        return Path(home)
    nvcc = shutil.which("nvcc")
    if nvcc:
        return Path(nvcc).resolve().parent.parent
    return None


def cuda_version(nvcc):
    out = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else "unknown"


def cublas_version(cuda_home):
    header = (cuda_home / "include" / "cublas_api.h").read_text(errors="replace")
    parts = [re.search(rf"#define CUBLAS_VER_{k}\s+(\d+)", header) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "unknown"


def blas_config():
    """(include_dirs, rpaths, macros, description)."""
    if os.environ.get("PYDEVTENSOR_BLAS", "").lower() == "system":
        def pc(*args):
            return shlex.split(subprocess.run(["pkg-config", *args, "openblas"], check=True,
                                              capture_output=True, text=True).stdout)
        cflags, libs = pc("--cflags"), pc("--libs")
        version = " ".join(pc("--modversion"))
        libdirs = [f[2:] for f in libs if f.startswith("-L")]
        return ([f[2:] for f in cflags if f.startswith("-I")], libdirs,
                [("PDT_BLAS_PREFIX", ""), ("PDT_BLAS_LIBNAME", '"libopenblas.so.0"')],
                f"system OpenBLAS {version} (pkg-config)")
    try:
        import scipy_openblas32 as ob
    except ImportError:
        sys.exit("pydevtensor needs OpenBLAS: pip install scipy-openblas32 "
                 "(or PYDEVTENSOR_BLAS=system with a pkg-config OpenBLAS)")
    version = ob.get_openblas_config().split()[1]
    # OpenBLAS is dlopen()ed on first use (csrc/cpu/cpu_blas.h), by name through
    # this RUNPATH: at run time the wheel sits beside us in site-packages.  For
    # other layouts (editable installs) pydevtensor/__init__ passes its path.
    libname = f"lib{ob.get_library()}.so"
    return ([ob.get_include_dir()], ["$ORIGIN/../scipy_openblas32/lib"],
            [("PDT_BLAS_PREFIX", "scipy_"), ("PDT_BLAS_LIBNAME", f'"{libname}"')],
            f"scipy-openblas32 {version}")


WERROR = env_flag("PYDEVTENSOR_WERROR")
SANITIZE = os.environ.get("PYDEVTENSOR_SANITIZE", "").strip()
want_cuda = env_flag("PYDEVTENSOR_CUDA")
CUDA_HOME = find_cuda() if want_cuda is not False else None
if want_cuda and CUDA_HOME is None:
    sys.exit("PYDEVTENSOR_CUDA=1 but no CUDA toolkit was found: set CUDA_HOME or put nvcc on PATH")
CUDA_ARCHS = os.environ.get("PYDEVTENSOR_CUDA_ARCH", "80 90").split()

blas_inc, blas_rpaths, blas_macros, blas_desc = blas_config()

c_sources = sorted(str(p.relative_to(ROOT)) for d in ("core", "cpu", "python")
                   for p in (ROOT / "csrc" / d).glob("*.c"))
cu_sources = []
include_dirs = ["csrc/core", "csrc/cpu", "csrc/python", *blas_inc]
library_dirs = []
libraries = ["dl", "pthread"]
rpaths = list(blas_rpaths)
macros = list(blas_macros)
extra_link = []
# -ffp-contract=off: no fused multiply-add, so CPU results match the GPU kernels,
# which use explicitly rounded operations where it matters (pdt_philox.h).
cflags = ["-std=c11", "-Wall", "-Wextra", "-fvisibility=hidden", "-ffp-contract=off"]
cflags += ["-O1", "-g", "-fno-omit-frame-pointer", f"-fsanitize={SANITIZE}"] if SANITIZE else ["-O3"]
if SANITIZE:
    extra_link.append(f"-fsanitize={SANITIZE}")
if WERROR:
    cflags.append("-Werror")

build_config = {
    "cuda": None, "cublas": None, "cuda_archs": None, "blas": blas_desc,
    "sanitize": SANITIZE or None,
}
if CUDA_HOME is not None:
    c_sources += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.c"))
    cu_sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.cu"))
    include_dirs += ["csrc/cuda", str(CUDA_HOME / "include")]
    lib64 = CUDA_HOME / "lib64"
    library_dirs.append(str(lib64))
    # cudart statically: it loads the driver lazily, so import works without one.
    # cuBLAS is dlopen()ed on first use through this RUNPATH (loading it costs
    # ~80 ms, which import must not pay).
    libraries += ["cudart_static", "rt", "stdc++"]  # the .cu objects are C++
    rpaths.append(str(lib64))
    macros.append(("PDT_HAVE_CUDA", "1"))
    build_config.update(cuda=cuda_version(CUDA_HOME / "bin" / "nvcc"),
                        cublas=cublas_version(CUDA_HOME), cuda_archs=CUDA_ARCHS)


class BuildExt(build_ext):
    """Compiles the .cu files with nvcc, then links them into the extension."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:  # C files in parallel too, unless -j says otherwise
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext):
        objects = []
        if cu_sources:
            nvcc = str(CUDA_HOME / "bin" / "nvcc")
            gencode = []
            for arch in CUDA_ARCHS:
                gencode += ["-gencode", f"arch=compute_{arch},code=sm_{arch}"]
            newest = max(CUDA_ARCHS, key=int)
            gencode += ["-gencode", f"arch=compute_{newest},code=compute_{newest}"]
            host = "-fPIC,-fvisibility=hidden,-Wall,-Wextra" + (",-Werror" if WERROR else "")
            if SANITIZE:
                host += f",-fsanitize={SANITIZE}"
            out_dir = Path(self.build_temp) / "cuda"
            out_dir.mkdir(parents=True, exist_ok=True)
            jobs = []
            for src in cu_sources:
                obj = out_dir / (Path(src).stem + ".o")
                cmd = [nvcc, "-std=c++17", "-O3", "-Xcompiler", host, *gencode,
                       *(["-Werror", "all-warnings"] if WERROR else []),
                       *[f"-I{d}" for d in include_dirs],
                       *[f"-D{k}={v}" for k, v in ext.define_macros], "-c", src, "-o", str(obj)]
                deps = [ROOT / src, *(ROOT / "csrc").rglob("*.h")]
                if self.force or not obj.exists() or obj.stat().st_mtime < max(
                        p.stat().st_mtime for p in deps):
                    jobs.append(cmd)
                objects.append(str(obj))
            # nvcc is slow (one pass per architecture): compile the files side by side.
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                for cmd in jobs:
                    print(" ".join(cmd), flush=True)
                for done in pool.map(lambda c: subprocess.run(c, cwd=ROOT), jobs):
                    if done.returncode:
                        sys.exit(f"nvcc failed ({done.returncode}): {' '.join(done.args)}")
        ext.extra_objects = objects + list(ext.extra_objects or [])
        self._write_build_config(ext)
        super().build_extension(ext)

    def _write_build_config(self, ext):
        cc = self.compiler.compiler_so[0] if getattr(self.compiler, "compiler_so", None) else "cc"
        version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
        config = dict(build_config, compiler=version.splitlines()[0] if version else cc,
                      cflags=" ".join(ext.extra_compile_args), python=sys.version.split()[0])
        text = ('"""How this copy of pydevtensor was built (written by setup.py)."""\n'
                f"BUILD_CONFIG = {config!r}\n")
        # Beside the built extension, and in the source tree for in-place use.
        targets = [Path(self.get_ext_fullpath(ext.name)).parent / "_build_config.py",
                   ROOT / "pydevtensor" / "_build_config.py"]
        for t in targets:
            t.parent.mkdir(parents=True, exist_ok=True)
            t.write_text(text)


ext = Extension(
    "pydevtensor._C",
    sources=c_sources,
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    libraries=libraries,
    runtime_library_dirs=[],
    define_macros=macros,
    extra_compile_args=cflags,
    extra_link_args=extra_link + [f"-Wl,-rpath,{r}" for r in rpaths],
)

setup(ext_modules=[ext], cmdclass={"build_ext": BuildExt})
