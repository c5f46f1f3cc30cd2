"""What the BLAS libraries in this process run on: for each OpenBLAS that NumPy,
pydevtensor (and PyTorch, when it uses one) loaded, its core type (the kernels
OpenBLAS's DYNAMIC_ARCH picked, or the one OPENBLAS_CORETYPE forced), its thread
count and its configuration string, read through ctypes from the library itself.

BLAS timings mean little without these: two OpenBLAS builds in one process pick
their core types and thread counts separately, and the idle threads of one spin
while the other is timed (which is why the harness times each library in its own
process; see harness.py).
"""
import ctypes
import os

ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "OPENBLAS_VERBOSE", "MKL_NUM_THREADS")

# OpenBLAS's query functions as the wheels name them: plain (a system libopenblas),
# scipy-openblas32 (prefix scipy_), scipy-openblas64 (prefix scipy_, suffix 64_).
_NAMINGS = (("", ""), ("scipy_", ""), ("scipy_", "64_"))


def _loaded_openblas_paths():
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if "/" in line else ""
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    return paths


def _query(lib, prefix, suffix, name, restype):
    fn = getattr(lib, f"{prefix}openblas_{name}{suffix}", None)
    if fn is None:
        return None
    fn.restype, fn.argtypes = restype, []
    value = fn()
    return value.decode(errors="replace").strip() if isinstance(value, bytes) else value


def openblas_info():
    """[{path, corename, threads, config}] for every OpenBLAS loaded in this process."""
    found = []
    for path in _loaded_openblas_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            found.append({"path": path, "error": str(exc)})
            continue
        for prefix, suffix in _NAMINGS:
            corename = _query(lib, prefix, suffix, "get_corename", ctypes.c_char_p)
            if corename is None:
                continue
            found.append({"path": path, "corename": corename,
                          "threads": _query(lib, prefix, suffix, "get_num_threads",
                                            ctypes.c_int),
                          "config": _query(lib, prefix, suffix, "get_config", ctypes.c_char_p)})
            break
        else:
            found.append({"path": path, "error": "no openblas_get_corename symbol"})
    return found


def load_blas_libraries():
    """Makes NumPy and pydevtensor (and PyTorch, if importable) load their BLAS, with a
    tiny product each: libraries are loaded lazily."""
    import numpy as np
    a = np.ones((4, 4))
    a @ a
    try:
        import pydevtensor as pdt
        t = pdt.ones(4, 4)
        t @ t
    except Exception:  # noqa: BLE001 - reported by the environment probe
        pass
    try:
        import torch
        torch.ones(4, 4) @ torch.ones(4, 4)
    except Exception:  # noqa: BLE001 - optional
        pass


def describe():
    """One line per OpenBLAS for the table's header, and the variables that steer them."""
    lines = []
    for rec in openblas_info():
        name = os.path.basename(rec["path"])
        if "error" in rec:
            lines.append(f"{name}: {rec['error']}")
        else:
            lines.append(f"{name}: core {rec['corename']}, {rec['threads']} threads")
    env = ", ".join(f"{v}={os.environ[v]}" for v in ENV_VARS if v in os.environ)
    return lines, env or "no OpenBLAS/OpenMP variables set"
