"""build_info(): how this copy of pydevtensor was built, and what it runs on."""
from . import _C


def _version(v):
    return f"{v // 1000}.{(v % 1000) // 10}" if v else None


def build_info():
    """A dict: the package version, the compiler and flags, the CUDA toolkit, cuBLAS and
    cudart versions (None without CUDA), the CUDA driver found now, and the OpenBLAS
    provider with its configuration and thread count."""
    try:
        from ._build_config import BUILD_CONFIG
    except ImportError:  # a build that predates the record
        BUILD_CONFIG = {}
    driver, runtime = _C._versions()
    blas = _C._describe(_C._KIND_CPU) or ""
    cublas = _C._describe(_C._KIND_CUDA) if _C._cuda_status()[0] else None
    config, _, threads = blas.rpartition(", ")
    from . import __version__
    return {
        "version": __version__,
        "compiler": BUILD_CONFIG.get("compiler"),
        "cflags": BUILD_CONFIG.get("cflags"),
        "python": BUILD_CONFIG.get("python"),
        "sanitize": BUILD_CONFIG.get("sanitize"),
        "cuda": {
            "built": _C._cuda_status()[0],
            "toolkit": BUILD_CONFIG.get("cuda"),
            "cublas": BUILD_CONFIG.get("cublas"),
            "cublas_loaded": cublas,
            "archs": BUILD_CONFIG.get("cuda_archs"),
            "cudart": "static" if _C._cuda_status()[0] else None,
            "runtime_version": _version(runtime),
            "driver_version": _version(driver),
        },
        "blas": {
            "provider": BUILD_CONFIG.get("blas"),
            "config": config or blas,
            "threads": int(threads.split()[0]) if threads else None,
        },
    }
