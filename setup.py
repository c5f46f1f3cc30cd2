"""Build of pydevtensor's C extension, pydevtensor._C.

Environment switches:
  PYDEVTENSOR_CUDA=0|1       0: CPU-only build; 1: a missing CUDA toolkit is an error;
                             unset: build the CUDA backend when CUDA_HOME or nvcc is found.
  PYDEVTENSOR_CUDA=emulate   the emulated device (csrc/cuda/emulator/README.md): the CUDA
                             backend's sources compiled by the host C++ compiler ($CXX,
                             default g++) against the project's CPU implementation of the
                             CUDA runtime, cuBLAS and NCCL, built beside the extension in
                             pydevtensor/_emulated_cuda/.  Needs the toolkit's include/
                             (CUDA_HOME, or nvcc on PATH), not nvcc.
  PYDEVTENSOR_CUDA_ARCH      space-separated compute capabilities, e.g. "75 80 86 89 90"
                             (the wheels' list, WHEEL_CUDA_ARCHS; PTX for the newest is
                             always added).  Unset: the GPUs of this machine (nvidia-smi),
                             so that a source install on a GPU machine compiles one
                             architecture; "80 90" when no GPU is seen (CI, containers).
                             "wheel" means WHEEL_CUDA_ARCHS.
  PYDEVTENSOR_BLAS=system    link a system OpenBLAS found by pkg-config instead of
                             PyPI's scipy-openblas32.
  PYDEVTENSOR_WERROR=1       add -Werror (CI sets it).
  PYDEVTENSOR_LTO=0          no link-time optimisation (on by default where GCC's LTO
                             links; never in sanitizer builds).
  PYDEVTENSOR_SANITIZE=...   e.g. "address,undefined": a sanitizer build (-O1 -g).
  PYDEVTENSOR_DEBUG=1        keep debug information (-g); by default the extension is
                             linked with --strip-debug, as release wheels must be.

Note [build backend]
~~~~~~~~~~~~~~~~~~~~
The build stays on setuptools (issue 15 weighed scikit-build-core + CMake).  What
CMake would bring - CUDA as a language, CMAKE_CUDA_ARCHITECTURES, Ninja, a complete
sdist by default - this file already does in ~400 lines: nvcc per .cu file in
parallel with -gencode per architecture, and a complete sdist through MANIFEST.in
(tests/test_packaging.py checks it).  What moving would cost: the emulated build
(PYDEVTENSOR_CUDA=emulate: the .cu files through g++ with a forced include, three
shared libraries with their own sonames and RUNPATH $ORIGIN, copied beside an
editable install), the build-mode stamp that relinks when the kind of build changes,
_build_config.py (what build_info() and the emulator tests read), the sanitizer
build the CI job uses, and the scipy-openblas32 discovery would all have to be
rewritten in CMake and re-proved, while other work (SIMD dispatch) extends this
file now.  scikit-build-core's editable installs are also still a redirect-import
mechanism that the tests' in-tree layout (pydevtensor/_emulated_cuda beside _C)
would have to be adapted to.  Revisit if the build grows a second compiled
language or per-file flags that setuptools makes awkward.

Note [wheels]
~~~~~~~~~~~~~
A wheel carries no path of the build machine: the RUNPATH has only $ORIGIN-relative
entries (scipy-openblas32's directory; _emulated_cuda in the emulated build), the
CUDA libraries that are loaded on first use (cuBLAS, NCCL) are searched for at run
time (pydevtensor/_libraries.py: NVIDIA's wheels, CUDA_HOME, the system loader),
and cudart is linked statically.  The extension is stripped of debug information
unless PYDEVTENSOR_DEBUG=1.  csrc/core/pdt_glibc_compat.h binds the few glibc calls
whose symbol version moved in glibc 2.34 to their old versions, so that a CPU wheel
built on this machine's glibc 2.36 is manylinux_2_17 (auditwheel show); a CUDA wheel
also carries cudart_static's references, so release wheels are built in the
manylinux_2_28 image (pyproject.toml, [tool.cibuildwheel]) and tagged manylinux_2_28.  CUDA 12: the code uses no CUDA-13-only runtime call;
a CUDA 12 build needs a CUDA 12 toolkit (nvcc 12.x; cuBLAS 12's soname comes from
cublas_api.h), the extra [cuda12] with nvidia-cublas-cu12 / nvidia-nccl-cu12, and
driver 525 or newer; it could add sm_70 to the architecture list.
"""
import os
import platform
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


def find_cuda(headers_only=False):
    """Returns the CUDA toolkit root, or None.  headers_only (the emulated build): a
    root with include/cuda_runtime.h will do, nvcc is not needed."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and (Path(home) / "bin" / "nvcc").exists():
        return Path(home)
    if home and headers_only and (Path(home) / "include" / "cuda_runtime.h").exists():
        return Path(home)
    nvcc = shutil.which("nvcc")
    if nvcc:
        return Path(nvcc).resolve().parent.parent
    return None


def header_define(cuda_home, header, name):
    text = (cuda_home / "include" / header).read_text(errors="replace")
    m = re.search(rf"#define {name}\s+(\d+)", text)
    return int(m.group(1)) if m else None


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
                [("PDT_BLAS_PREFIX", ""), ("PDT_BLAS_LIBNAME", '"libopenblas.so.0"'),
                 ("PDT_BLAS_INSTALL", '"the system\'s OpenBLAS (libopenblas.so.0)"')],
                f"system OpenBLAS {version} (pkg-config)")
    try:
        import scipy_openblas32 as ob
    except ImportError:
        sys.exit("pydevtensor needs OpenBLAS: pip install scipy-openblas32 "
                 "(or PYDEVTENSOR_BLAS=system with a pkg-config OpenBLAS)")
    version = ob.get_openblas_config().split()[1]
    # OpenBLAS is dlopen()ed on first use (csrc/core/pdt_library.h): from the
    # directory pydevtensor/_libraries.py finds the wheel in, else by name through
    # this RUNPATH (at run time the wheel sits beside us in site-packages).
    libname = f"lib{ob.get_library()}.so"
    return ([ob.get_include_dir()], ["$ORIGIN/../scipy_openblas32/lib"],
            [("PDT_BLAS_PREFIX", "scipy_"), ("PDT_BLAS_LIBNAME", f'"{libname}"')],
            f"scipy-openblas32 {version}")


WERROR = env_flag("PYDEVTENSOR_WERROR")
SANITIZE = os.environ.get("PYDEVTENSOR_SANITIZE", "").strip()
EMULATE = os.environ.get("PYDEVTENSOR_CUDA", "").strip().lower() == "emulate"
want_cuda = True if EMULATE else env_flag("PYDEVTENSOR_CUDA")
CUDA_HOME = find_cuda(headers_only=EMULATE) if want_cuda is not False else None
if want_cuda and CUDA_HOME is None:
    sys.exit(f"PYDEVTENSOR_CUDA={os.environ['PYDEVTENSOR_CUDA']} but no CUDA toolkit was found: "
             "set CUDA_HOME or put nvcc on PATH")
if EMULATE and not (CUDA_HOME / "include" / "cuda_runtime.h").exists():
    sys.exit(f"PYDEVTENSOR_CUDA=emulate needs the CUDA toolkit's headers: "
             f"{CUDA_HOME / 'include' / 'cuda_runtime.h'} not found")
DEBUG = bool(env_flag("PYDEVTENSOR_DEBUG"))
# Link-time optimisation (GCC): on unless PYDEVTENSOR_LTO=0; never with a sanitizer.
LTO = env_flag("PYDEVTENSOR_LTO") is not False
# The release wheels' architectures (Turing to Hopper, PTX of sm_90 for newer cards).
WHEEL_CUDA_ARCHS = ["75", "80", "86", "89", "90"]
DEFAULT_CUDA_ARCHS = ["80", "90"]


def local_gpu_archs():
    """The compute capabilities of this machine's GPUs ("86"), from nvidia-smi; [] when
    there is none or nvidia-smi is missing."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    caps = {line.strip().replace(".", "") for line in out.splitlines()}
    return sorted((c for c in caps if c.isdigit()), key=int)


def cuda_archs():
    value = os.environ.get("PYDEVTENSOR_CUDA_ARCH", "").strip()
    if value == "wheel":
        return WHEEL_CUDA_ARCHS
    if value:
        return value.split()
    return local_gpu_archs() or DEFAULT_CUDA_ARCHS


CUDA_ARCHS = cuda_archs() if CUDA_HOME is not None and not EMULATE else []

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
elif not DEBUG:
    extra_link.append("-Wl,--strip-debug")  # Python's own CFLAGS bring -g (Note [wheels])
if (not SANITIZE and not EMULATE and platform.machine() == "x86_64"
        and platform.libc_ver()[0] == "glibc"):  # the oldest glibc symbols (Note [wheels])
    cflags += ["-include", "csrc/core/pdt_glibc_compat.h"]
if WERROR:
    cflags.append("-Werror")

build_config = {
    "cuda": None, "cublas": None, "cuda_archs": None, "blas": blas_desc,
    "sanitize": SANITIZE or None, "cuda_emulated": EMULATE,
}

# ---- the emulated build (PYDEVTENSOR_CUDA=emulate) ----
EMU_DIR = "csrc/cuda/emulator"
EMU_LIBDIR = "_emulated_cuda"  # beside the extension, in the package
EMU_RUNTIME = "libpdt_cudart_emu.so"
EMU_LIBRARIES = {}  # soname -> the emulator sources it is built from, besides the runtime
if EMULATE:
    cublas_major = header_define(CUDA_HOME, "cublas_api.h", "CUBLAS_VER_MAJOR")
    if cublas_major is None:
        sys.exit(f"CUBLAS_VER_MAJOR not found in {CUDA_HOME / 'include' / 'cublas_api.h'}")
    # Under their real sonames; the backend dlopen()s them by full path from the build
    # (<extension's directory>/_emulated_cuda/, cuda_blas.c, cuda_nccl.c).
    cusolver_major = header_define(CUDA_HOME, "cusolver_common.h", "CUSOLVER_VER_MAJOR")
    if cusolver_major is None:
        sys.exit(f"CUSOLVER_VER_MAJOR not found in "
                 f"{CUDA_HOME / 'include' / 'cusolver_common.h'}")
    EMU_LIBRARIES = {f"libcublas.so.{cublas_major}": (f"{EMU_DIR}/emu_cublas.cpp",
                                                      f"{EMU_DIR}/emu_cublas_lu.cpp"),
                     f"libcusolver.so.{cusolver_major}": (f"{EMU_DIR}/emu_cusolver.cpp",
                                                          f"{EMU_DIR}/emu_cusolver_eig.cpp",
                                                          f"{EMU_DIR}/emu_cusolver_qr.cpp"),
                     "libnccl.so.2": (f"{EMU_DIR}/emu_nccl.cpp",
                                      f"{EMU_DIR}/emu_nccl_collectives.cpp",
                                      f"{EMU_DIR}/emu_nccl_p2p.cpp")}
CXX = shlex.split(os.environ.get("CXX") or "g++")
# For the .cu files: the emulator's kernel environment (threadIdx, __syncthreads, ...)
# first; `#pragma unroll` is nvcc's, which g++ would warn about.
kernel_flags = ["-Wno-unknown-pragmas", "-include", f"{EMU_DIR}/emu_kernel.h"]
# The host compiler's flags for the backend's .cu files and the emulator's .cpp files.
emu_cxxflags = ["-std=c++17", "-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra",
                "-ffp-contract=off"]
emu_cxxflags += (["-O1", "-g", "-fno-omit-frame-pointer", f"-fsanitize={SANITIZE}"] if SANITIZE
                 else ["-O2"])
emu_werror = ["-Werror"] if WERROR else []

if CUDA_HOME is not None and EMULATE:
    c_sources += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.c"))
    cu_sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.cu"))
    include_dirs += ["csrc/cuda", EMU_DIR, str(CUDA_HOME / "include")]
    # The emulated runtime instead of cudart_static (library_dirs: set by BuildExt to
    # where it builds the runtime); found at run time beside the extension.
    libraries += ["pdt_cudart_emu", "stdc++"]
    rpaths.append(f"$ORIGIN/{EMU_LIBDIR}")
    macros += [("PDT_HAVE_CUDA", "1"), ("PDT_CUDA_EMULATED", "1")]
    runtime = header_define(CUDA_HOME, "cuda_runtime_api.h", "CUDART_VERSION")
    build_config.update(
        cuda=f"{runtime // 1000}.{(runtime % 1000) // 10}" if runtime else None,
        cublas=cublas_version(CUDA_HOME) + " (emulated)")
elif CUDA_HOME is not None:
    c_sources += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.c"))
    cu_sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "cuda").glob("*.cu"))
    include_dirs += ["csrc/cuda", str(CUDA_HOME / "include")]
    # lib64 in a toolkit install; lib in NVIDIA's pip wheels (nvidia/cu13/lib), which
    # the cibuildwheel configuration builds against (pyproject.toml).
    lib64 = CUDA_HOME / "lib64" if (CUDA_HOME / "lib64").is_dir() else CUDA_HOME / "lib"
    library_dirs.append(str(lib64))
    # cudart statically: it loads the driver lazily, so import works without one.
    # cuBLAS and NCCL are dlopen()ed on first use (loading cuBLAS costs ~80 ms, which
    # import must not pay), searched for at run time: no RUNPATH into this toolkit
    # (Note [wheels]).
    libraries += ["cudart_static", "rt", "stdc++"]  # the .cu objects are C++
    macros.append(("PDT_HAVE_CUDA", "1"))
    build_config.update(cuda=cuda_version(CUDA_HOME / "bin" / "nvcc"),
                        cublas=cublas_version(CUDA_HOME), cuda_archs=CUDA_ARCHS)


def run_parallel(jobs, what):
    """Runs the commands side by side (nvcc and g++ are slow); exits on the first failure."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for cmd in jobs:
            print(" ".join(cmd), flush=True)
        failed = [done for done in pool.map(lambda c: subprocess.run(c, cwd=ROOT), jobs)
                  if done.returncode]
    if failed:
        sys.exit("\n".join(f"{what} failed ({done.returncode}): {' '.join(done.args)}"
                           for done in failed))


def run_one(cmd, what):
    print(" ".join(cmd), flush=True)
    done = subprocess.run(cmd, cwd=ROOT)
    if done.returncode:
        sys.exit(f"{what} failed ({done.returncode}): {' '.join(cmd)}")


class BuildExt(build_ext):
    """Compiles the .cu files with nvcc (or, emulated, with the host C++ compiler, and
    builds the emulated CUDA runtime, cuBLAS and NCCL), then links the extension."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:  # C files in parallel too, unless -j says otherwise
            self.parallel = os.cpu_count() or 1

    def run(self):
        # setuptools builds into build_lib with inplace off, then copies the extension
        # to the source tree when it was on (--inplace, editable installs).
        self._copy_to_source = bool(self.inplace)
        super().run()

    def _stale(self, obj, src):
        deps = [ROOT / src, *(ROOT / "csrc").rglob("*.h"), *(ROOT / "csrc").rglob("*.cuh"),
                Path(self._stamp)]
        return self.force or not obj.exists() or obj.stat().st_mtime < max(
            p.stat().st_mtime for p in deps)

    def _build_emulated(self, ext):
        """Compiles the .cu files with the host C++ compiler and builds the emulator's
        libraries into <package>/_emulated_cuda; returns the .cu objects."""
        out_dir = Path(self.build_temp) / "emulated"
        out_dir.mkdir(parents=True, exist_ok=True)
        lib_dir = Path(self.get_ext_fullpath(ext.name)).parent.resolve() / EMU_LIBDIR
        if lib_dir.exists():
            shutil.rmtree(lib_dir)
        lib_dir.mkdir(parents=True)
        common = [*emu_werror, *[f"-I{d}" for d in ext.include_dirs],
                  *[f"-D{k}={v}" for k, v in ext.define_macros]]
        emu_sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / EMU_DIR).glob("emu_*.cpp"))
        if not emu_sources:
            sys.exit(f"PYDEVTENSOR_CUDA=emulate: no emulator sources in {EMU_DIR}/emu_*.cpp")
        library_sources = {src for srcs in EMU_LIBRARIES.values() for src in srcs}
        for src in sorted(library_sources):
            if src not in emu_sources:
                sys.exit(f"PYDEVTENSOR_CUDA=emulate: {src} is missing")
        jobs, cu_objects, emu_objects = [], [], {}
        for src in cu_sources + emu_sources:
            obj = out_dir / (Path(src).name.replace(".", "_") + ".o")
            kernel = src.endswith(".cu")
            cmd = [*CXX, "-x", "c++", *emu_cxxflags, *common,
                   *(kernel_flags if kernel else []),
                   "-c", src, "-o", str(obj)]
            if self._stale(obj, src):
                jobs.append(cmd)
            if kernel:
                cu_objects.append(str(obj))
            else:
                emu_objects[src] = str(obj)
        run_parallel(jobs, "the host C++ compiler")

        link = [*CXX, "-shared", *emu_cxxflags, *emu_werror]
        if not SANITIZE:  # every symbol resolved at build time (the sanitizer's come later)
            link.append("-Wl,-z,defs")
        runtime_objects = [o for s, o in emu_objects.items() if s not in library_sources]
        run_one([*link, f"-Wl,-soname,{EMU_RUNTIME}", *runtime_objects,
                 "-o", str(lib_dir / EMU_RUNTIME), "-lpthread", "-ldl"], "linking the emulator")
        for soname, srcs in EMU_LIBRARIES.items():
            run_one([*link, f"-Wl,-soname,{soname}", *[emu_objects[s] for s in srcs],
                     f"-L{lib_dir}",
                     "-lpdt_cudart_emu", "-Wl,-rpath,$ORIGIN", "-o", str(lib_dir / soname),
                     "-lpthread", "-ldl"], f"linking {soname}")
        ext.library_dirs = [str(lib_dir), *ext.library_dirs]
        self._emulator_built = lib_dir
        return cu_objects

    def _mode_stamp(self, ext):
        """A file in build_temp that changes when the kind of build does (real, emulated,
        CPU-only, sanitizer, flags): a dependency of the extension, so that switching
        kinds relinks it instead of keeping the last kind's as up to date."""
        mode = repr((EMULATE, str(CUDA_HOME), CUDA_ARCHS, SANITIZE, WERROR, ext.define_macros,
                     ext.extra_compile_args, ext.libraries, ext.extra_link_args))
        stamp = Path(self.build_temp) / "build_mode.txt"
        stamp.parent.mkdir(parents=True, exist_ok=True)
        if not stamp.exists() or stamp.read_text() != mode:
            stamp.write_text(mode)
        return str(stamp)

    def _drop_absolute_rpaths(self):
        """Python's own link command can carry -Wl,-rpath,<its prefix> (pyenv, some
        distributions' builds): a wheel must not name the build machine's paths
        (Note [wheels]).  Our $ORIGIN entries come in extra_link_args, untouched."""
        linker = getattr(self.compiler, "linker_so", None)
        if linker:
            self.compiler.linker_so = [
                a for a in linker
                if not (a.startswith(("-Wl,-rpath,", "-Wl,-R")) and "$ORIGIN" not in a)]

    def _accepts(self, *flags, link=False):
        """Whether the C compiler takes flags (GCC's x86 options are not Clang's); with
        link, whether a shared object built with them links and still defines its
        symbol (an LTO object handed to a linker without GCC's plugin gives an empty
        one)."""
        import ctypes
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text("int pdt_probe(void) { return 42; }\n")
            try:
                objs = self.compiler.compile([str(src)], output_dir=tmp,
                                             extra_postargs=[*flags, "-fPIC", "-Werror"])
                if not link:
                    return True
                lib = str(Path(tmp) / "probe.so")
                self.compiler.link_shared_object(objs, lib, extra_postargs=list(flags))
                return ctypes.CDLL(lib).pdt_probe() == 42
            except Exception:
                return False

    def build_extension(self, ext):
        self._drop_absolute_rpaths()
        # Struct copies and clears of a fixed size (a pdt_tensor is 304 bytes) call
        # memcpy/memset instead of GCC's inline `rep movsq`/`rep stosq`, whose start-up
        # cost was a tenth of a reduction of one element (argmax 0.233 -> 0.207 us);
        # glibc's memcpy picks its method for the CPU it runs on.
        strategy = "-mstringop-strategy=libcall"
        if (platform.machine() == "x86_64" and strategy not in ext.extra_compile_args
                and self._accepts(strategy)):
            ext.extra_compile_args = [*ext.extra_compile_args, strategy]
        # One optimisation unit across the files: the core's small functions
        # (pdt_dtype_size, pdt_backend_of, ...) inline into the bindings and backends
        # (an op on one element: add 0.191 -> 0.172 us, clone 0.142 -> 0.130).  One
        # partition, so that pdt_glibc_compat.h's .symver lines land in the same
        # assembly as the calls they bind.
        # The link is where LTO optimises, so it gets the optimisation and warning
        # flags too: without -Wall/-Werror there, warnings that need the optimiser
        # (-Wmaybe-uninitialized, -Wstringop-overflow) would go unseen.
        lto = ["-flto", "-flto-partition=one"]
        if (LTO and not SANITIZE and "-flto" not in ext.extra_compile_args
                and self._accepts(*lto, link=True)):
            ext.extra_compile_args = [*ext.extra_compile_args, *lto]
            keep = ("-O", "-ffp-contract", "-W", "-mstringop-strategy")
            opt = [a for a in ext.extra_compile_args if a.startswith(keep)]
            ext.extra_link_args = [*ext.extra_link_args, *lto, *opt]
        objects = []
        self._emulator_built = None
        self._stamp = self._mode_stamp(ext)
        ext.depends = [*ext.depends, self._stamp]
        if not EMULATE:  # an earlier emulated build's libraries must not ship in a wheel
            stale = Path(self.get_ext_fullpath(ext.name)).parent / EMU_LIBDIR
            if stale.exists():
                shutil.rmtree(stale)
        if cu_sources and EMULATE:
            objects = self._build_emulated(ext)
        elif cu_sources:
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
                if self._stale(obj, src):
                    jobs.append(cmd)
                objects.append(str(obj))
            # nvcc is slow (one pass per architecture): compile the files side by side.
            run_parallel(jobs, "nvcc")
        ext.extra_objects = objects + list(ext.extra_objects or [])
        ext.depends = [*ext.depends, *objects]  # a rebuilt .cu object relinks the extension
        self._write_build_config(ext)
        super().build_extension(ext)
        self._emulator_to_source()

    def _emulator_to_source(self):
        """In-place builds (editable installs): the emulator's libraries go beside the
        extension that setuptools copies into the source tree; a build that is not
        emulated removes an earlier build's, which nothing would load any more."""
        if not getattr(self, "_copy_to_source", False):
            return
        target = ROOT / "pydevtensor" / EMU_LIBDIR
        built = self._emulator_built
        if built is not None and built.resolve() == target.resolve():
            return
        if target.exists():
            shutil.rmtree(target)
        if built is not None:
            shutil.copytree(built, target, symlinks=True)

    def _write_build_config(self, ext):
        cc = self.compiler.compiler_so[0] if getattr(self.compiler, "compiler_so", None) else "cc"
        version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
        config = dict(build_config, compiler=version.splitlines()[0] if version else cc,
                      cflags=" ".join(ext.extra_compile_args), python=sys.version.split()[0])
        text = '"""How this copy of pydevtensor was built (written by setup.py)."""\n'
        if EMULATE:
            # How to compile a test's own .cu file against the emulator, as the backend's
            # are (tests/: g++ $cxxflags -I... -shared x.cu $ldflags, loaded with ctypes).
            # lib_dir and ldflags name the libraries beside this file, wherever it is.
            cxx = shutil.which(CXX[0]) or CXX[0]
            config["emulator"] = {
                "lib_dir": None,
                "include_dirs": [str(ROOT / d) for d in ext.include_dirs if d not in blas_inc],
                "cxx": " ".join([cxx, *CXX[1:]]),
                "cxxflags": ["-x", "c++", *emu_cxxflags,
                             "-DPDT_HAVE_CUDA=1", "-DPDT_CUDA_EMULATED=1",
                             "-Wno-unknown-pragmas",
                             "-include", str(ROOT / EMU_DIR / "emu_kernel.h")],
                "ldflags": None,
                "libraries": [EMU_RUNTIME, *EMU_LIBRARIES],
            }
            text += "import os as _os\n\n"
        text += f"BUILD_CONFIG = {config!r}\n"
        if EMULATE:
            text += ("_lib = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "
                     f"{EMU_LIBDIR!r})\n"
                     'BUILD_CONFIG["emulator"]["lib_dir"] = _lib\n'
                     'BUILD_CONFIG["emulator"]["ldflags"] = '
                     '["-L" + _lib, "-lpdt_cudart_emu", "-Wl,-rpath," + _lib]\n')
        # Beside the built extension, and in the source tree for in-place use.
        targets = [Path(self.get_ext_fullpath(ext.name)).parent / "_build_config.py",
                   ROOT / "pydevtensor" / "_build_config.py"]
        for t in targets:
            t.parent.mkdir(parents=True, exist_ok=True)
            t.write_text(text)


ext = Extension(
    "pydevtensor._C",
    sources=c_sources,
    # a changed header rebuilds the extension (without it, an edit of cpu_vmath.h alone
    # left the level files, and the .so, as they were)
    depends=sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc").rglob("*.h")),
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    libraries=libraries,
    runtime_library_dirs=[],
    define_macros=macros,
    extra_compile_args=cflags,
    extra_link_args=extra_link + [f"-Wl,-rpath,{r}" for r in rpaths],
)

setup(ext_modules=[ext], cmdclass={"build_ext": BuildExt})
