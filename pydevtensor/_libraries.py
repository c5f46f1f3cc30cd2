"""Where the libraries loaded on first use are looked for, and what was loaded.

The C backends dlopen() OpenBLAS, cuBLAS and NCCL the first time they need them, so
that importing pydevtensor stays fast (csrc/core/pdt_library.h, Note [where
libraries are found]).  The core knows nothing of Python's site-packages, so this
module computes the directories to search and passes them down, in this order:

1. NVIDIA's pip wheels in the environment, found as files, never imported (as CuPy
   and PyTorch find them): ``<entry>/nvidia/cu13/lib`` (CUDA 13 wheels such as
   ``nvidia-cublas``), then ``<entry>/nvidia/<name>/lib`` (``nvidia-nccl-cu13``, the
   ``-cu12`` wheels), for every directory ``<entry>`` on ``sys.path``;
2. ``$CUDA_HOME/lib64`` (or ``$CUDA_PATH``; ``/usr/local/cuda`` when neither is set);
3. then the C loader asks the system loader for the bare soname (RUNPATH,
   ``LD_LIBRARY_PATH``, ldconfig).

OpenBLAS comes from the scipy-openblas32 wheel's ``lib/`` directory.  Computing the
list costs a few ``stat`` calls, no import: loading still happens on first use.
"""
import importlib.util
import os
import sys

from . import _C


def nvidia_wheel_dirs(entries=None):
    """The ``lib`` directories of NVIDIA's wheels under the given ``sys.path``-like
    entries (default ``sys.path``): ``nvidia/cu<N>/lib`` first (newest CUDA first),
    then the other ``nvidia/<name>/lib``, each entry in order."""
    found = []
    for entry in sys.path if entries is None else entries:
        base = os.path.join(entry or ".", "nvidia")
        try:
            names = os.listdir(base)
        except OSError:  # most entries: no nvidia/ there
            continue
        cu = sorted((n for n in names if n.startswith("cu") and n[2:].isdigit()),
                    key=lambda n: -int(n[2:]))
        rest = sorted(n for n in names if n not in cu)
        for name in cu + rest:
            lib = os.path.join(base, name, "lib")
            if os.path.isdir(lib) and lib not in found:
                found.append(lib)
    return found


def cuda_home_dirs(environ=None):
    """``$CUDA_HOME/lib64`` (or ``$CUDA_PATH``, else ``/usr/local/cuda``) when it exists."""
    env = os.environ if environ is None else environ
    home = env.get("CUDA_HOME") or env.get("CUDA_PATH") or "/usr/local/cuda"
    return [d for d in (os.path.join(home, "lib64"), os.path.join(home, "lib"))
            if os.path.isdir(d)]


def cuda_library_dirs(entries=None, environ=None):
    """Every directory searched for cuBLAS and NCCL before the system loader, in order.
    An emulated build (PYDEVTENSOR_CUDA=emulate) searches NVIDIA's wheel layout (where a
    test stands its emulated libraries) and then its own copies, never a toolkit."""
    dirs = nvidia_wheel_dirs(entries)
    if not _emulated():
        dirs += [d for d in cuda_home_dirs(environ) if d not in dirs]
    return dirs


def _emulated():
    try:
        from ._build_config import BUILD_CONFIG
    except ImportError:
        return False
    return bool(BUILD_CONFIG.get("cuda_emulated"))


def register_library_paths():
    spec = importlib.util.find_spec("scipy_openblas32")
    for location in (spec.submodule_search_locations or []) if spec else []:
        lib = os.path.join(location, "lib")
        if os.path.isdir(lib):
            _C._add_library_dir(_C._KIND_CPU, lib)
    # not _cuda_status(): its device query would initialise CUDA at import, and a process
    # forked after that (a DataLoader worker, say) could not use CUDA, as PyTorch's can
    if _C._cuda_built():
        for d in cuda_library_dirs():
            _C._add_library_dir(_C._KIND_CUDA, d)


def libraries():
    """{name: {"soname", "path", "error", "install", "searched"}} for every library the
    build loads on first use (loading each now): where it was loaded from, or why not
    and what to install."""
    out = {}
    kinds = [_C._KIND_CPU] + ([_C._KIND_CUDA] if _C._cuda_built() else [])
    for kind in kinds:
        for name, soname, path, error, install, dirs in _C._libraries(kind):
            out[name] = {"soname": soname, "path": path, "error": error,
                         "install": None if path else install, "searched": dirs}
    return out
