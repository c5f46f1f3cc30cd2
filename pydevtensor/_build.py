"""build_info(): how this copy of pydevtensor was built, and what it runs on."""
import os

from . import _C


def _version(v):
    return f"{v // 1000}.{(v % 1000) // 10}" if v else None


def _env_int(name, default):
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        return default


def emulated_description():
    """One line for an emulated build (PYDEVTENSOR_CUDA=emulate): where the "GPUs" are
    and how many, as the emulated runtime reads its environment; None otherwise."""
    try:
        from ._build_config import BUILD_CONFIG
    except ImportError:
        return None
    if not BUILD_CONFIG.get("cuda_emulated"):
        return None
    n = _env_int("PYDEVTENSOR_EMULATED_DEVICES", 1)
    mb = _env_int("PYDEVTENSOR_EMULATED_MEMORY_MB", 1024)
    return (f"emulated on the CPU (PYDEVTENSOR_EMULATED_DEVICES={n}, {mb} MiB each) "
            "\u2014 not a real GPU")


# Where OpenBLAS runs its parallel parts (Note [OpenBLAS on our pool] in
# csrc/cpu/cpu_blas.c): our pool when the library can hand them over (0.3.27 and later).
_BLAS_RUNS_ON = ("pydevtensor's pool", "OpenBLAS's own threads")


def build_info():
    """A dict: the package version, the compiler and flags, the CUDA toolkit, cuBLAS and
    cudart versions (None without CUDA), the CUDA driver found now, and the OpenBLAS
    provider with its configuration, thread count and ``runs_on``: "pydevtensor's
    pool" when OpenBLAS runs its parallel parts on pydevtensor's CPU threads (OpenBLAS
    0.3.27 and later), "OpenBLAS's own threads" otherwise.  ``cuda_emulated`` is True for a
    PYDEVTENSOR_CUDA=emulate build, whose CUDA devices are emulated on the CPU
    (``cuda["device"]`` says so, ``cuda["emulator"]`` holds how to compile against it).
    ``libraries`` says, for each library loaded on first use (OpenBLAS; cuBLAS and NCCL
    in a CUDA build; each is loaded now), the file it was loaded from (``path``), or
    why not (``error``) and what to install (``install``), and the directories
    searched before the system loader (``searched``).  ``cpu`` gives the instruction-set
    level the CPU kernels run at (``simd_level``: baseline, avx2 or avx512, the best the
    processor supports unless PYDEVTENSOR_CPU_LEVEL names a lower one) and the levels
    this processor supports (``simd_supported``).

    Returns
    -------
    dict

    Examples
    --------
    >>> info = pydevtensor.build_info()
    >>> info["version"] == pydevtensor.__version__
    True
    >>> "OpenBLAS" in info["libraries"]
    True
    """
    from ._libraries import libraries
    try:
        from ._build_config import BUILD_CONFIG
    except ImportError:  # a build that predates the record
        BUILD_CONFIG = {}
    driver, runtime = _C._versions()
    level, supported = _C._cpu_simd_level()
    blas = _C._describe(_C._KIND_CPU) or ""
    cublas = _C._describe(_C._KIND_CUDA) if _C._cuda_built() else None
    head, _, runs_on = blas.rpartition(", ")  # "<config>, <n> threads, <where they run>"
    if runs_on not in _BLAS_RUNS_ON:
        head, runs_on = blas, None
    config, _, threads = head.rpartition(", ")
    from . import __version__
    built = _C._cuda_built()
    emulated = bool(BUILD_CONFIG.get("cuda_emulated")) and built
    return {
        "version": __version__,
        "compiler": BUILD_CONFIG.get("compiler"),
        "cflags": BUILD_CONFIG.get("cflags"),
        "python": BUILD_CONFIG.get("python"),
        "sanitize": BUILD_CONFIG.get("sanitize"),
        "cuda_emulated": emulated,
        "cuda": {
            "built": built,
            "emulated": emulated,
            "device": emulated_description() if emulated else None,
            "toolkit": BUILD_CONFIG.get("cuda"),
            "cublas": BUILD_CONFIG.get("cublas"),
            "cublas_loaded": cublas,
            "archs": BUILD_CONFIG.get("cuda_archs"),
            "cudart": ("emulated (libpdt_cudart_emu.so)" if emulated
                       else "static" if built else None),
            "runtime_version": _version(runtime),
            "driver_version": _version(driver),
            "emulator": BUILD_CONFIG.get("emulator") if emulated else None,
        },
        "libraries": libraries(),
        "blas": {
            "provider": BUILD_CONFIG.get("blas"),
            "config": config or blas,
            "threads": int(threads.split()[0]) if threads.split()[:1] and
                       threads.split()[0].isdigit() else None,
            "runs_on": runs_on,
        },
        "cpu": {"simd_level": level, "simd_supported": list(supported)},
    }
