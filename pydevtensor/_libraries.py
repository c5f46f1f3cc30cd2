"""Where the lazily loaded libraries live.

The C backends dlopen() OpenBLAS (and cuBLAS) the first time they need them, so
that importing pydevtensor stays fast.  They look the library up by name through
the extension's RUNPATH; this adds the installed scipy-openblas32 wheel's own
path for layouts where that RUNPATH does not reach it (editable installs).
Finding the path costs a spec lookup, not an import.
"""
import importlib.util
import os

from . import _C


def register_library_paths():
    spec = importlib.util.find_spec("scipy_openblas32")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(location, "lib", "libscipy_openblas.so")
        if os.path.exists(path):
            _C._add_library_path(_C._KIND_CPU, path)
