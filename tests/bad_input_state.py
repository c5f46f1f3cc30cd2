"""The process-wide state a bad-input case could leave changed (tests/bad_input_runner.py).

The runner runs most cases several to a forked child, one after another, so a case
that changed something process-wide (the seed, the default device, the number of
threads, a config setting, the transfer guard, an environment variable, a signal
handler...) would change what the cases after it in that child see.  ``fingerprint()``
reads that state; the child takes it before the first case and after each one, and
reports a case that changed it (``changes``): such a case fails until it is marked
``isolated=True`` (its own child, as cases with a ``setup`` are) or no longer leaves
the change behind.

Only getters that change nothing are called here (the umask is set and put back),
and only after the child's first use of a device (which every case makes before its
code: the tensors `t`, `ti`, `tb`).  Modules that are not imported yet are not
imported for this (their state is their defaults).  It takes ~0.03 ms.  Left out on purpose, as every case moves them and none depends on them:
the random generator's position (its seed is in), the transfer and memory counters,
caches, and which modules are imported.
"""
import _signal  # signal.getsignal without its enum wrapping: 10 times as fast
import os
import signal
import sys
import threading
import warnings


def _pdt_state():
    import pydevtensor as pdt
    from pydevtensor import _C
    state = {
        "initial_seed": pdt.initial_seed,
        "default device": pdt.get_default_device,
        "grad mode": pdt.is_grad_enabled,
        "inference mode": pdt.is_inference_mode_enabled,
        "number of threads": pdt.get_num_threads,
        "transfer guard": _C._get_transfer_guard,
        "soft device placement": _C._soft_device_placement,
        "allow_tf32": _C._get_allow_tf32,
        "allow reduced-precision reduction": lambda: {
            t: _C._get_allow_reduced_reduction(t) for t in ("float16", "bfloat16")},
        "current CUDA device": _C._current_device,
        "CPU SIMD level": _C._cpu_simd_level,
        "default dtype": pdt.get_default_dtype,
        "deterministic debug mode": pdt.get_deterministic_debug_mode,
        "warn always": pdt.is_warn_always_enabled,
        "interop threads": pdt.get_num_interop_threads,
    }
    for kind, name in ((_C._KIND_CPU, "CPU"), (_C._KIND_CUDA, "GPU")):
        state[f"visible {name}s"] = lambda kind=kind: _C._get_visible_devices(kind)
        for i in range(_C._physical_device_count(kind)):
            state[f"logical devices of {name}:{i}"] = (
                lambda kind=kind, i=i: _C._get_logical_devices(kind, i))
    devices = [pdt.device("cpu", i) for i in range(len(_C._logical_device_map(_C._KIND_CPU)))]
    devices += [pdt.device("cuda", i) for i in range(pdt.device_count())]
    for d in devices:
        state[f"memory limit of {d}"] = lambda d=d: pdt.memory_stats(d)["limit"]
    config = sys.modules.get("pydevtensor._config_devices")
    if config is not None:
        state["log device placement"] = config.get_log_device_placement
        state["memory growth"] = lambda: {str(d): on for d, on in config._growth.items()}
    distributed = sys.modules.get("pydevtensor.distributed")
    if distributed is not None:
        state["process group"] = distributed.is_initialized
    return state


_SIGNALS = sorted(int(s) for s in signal.valid_signals()
                  if signal.getsignal(s) is not None)  # None: one Python cannot read


def _umask():
    mask = os.umask(0o022)  # set and put back at once: no other thread runs here
    os.umask(mask)
    return oct(mask)


def _python_state():
    import numpy as np
    return {
        # os.environ's own dict of bytes (decoding every entry costs 4 times as much)
        "environment": lambda: dict(getattr(os.environ, "_data", None) or os.environ),
        "working directory": os.getcwd,
        "umask": _umask,
        "signal handlers": lambda: {n: _signal.getsignal(n) for n in _SIGNALS},
        "Python threads": lambda: sorted(t.name for t in threading.enumerate()),
        "warnings filters": lambda: list(warnings.filters),
        "sys.path": lambda: list(sys.path),
        "sys.stdout, sys.stderr": lambda: (id(sys.stdout), id(sys.stderr)),
        "trace and profile functions": lambda: (repr(sys.gettrace()), repr(sys.getprofile())),
        "recursion limit": sys.getrecursionlimit,
        "NumPy error handling": np.geterr,
        "NumPy print options": np.get_printoptions,
    }


def fingerprint():
    """{what: its value now (a copy), or what reading it raised}."""
    out = {}
    for name, read in {**_pdt_state(), **_python_state()}.items():
        try:
            out[name] = read()
        except Exception as e:  # noqa: BLE001 - a getter this build lacks, say
            out[name] = f"<reading it raised {type(e).__name__}: {e}>"
    return out


def changes(before, after, _prefix=""):
    """'what: before -> after' for each entry of two fingerprints that differs (reprs
    cut to 300 characters); for a dict, each key that differs ('environment[b'HOME']')."""
    absent, out = object(), []
    show = lambda v: "<absent>" if v is absent else repr(v)[:300]  # noqa: E731
    for k in sorted(set(before) | set(after), key=repr):
        old, new = before.get(k, absent), after.get(k, absent)
        name = f"{_prefix}[{k!r}]" if _prefix else k
        if isinstance(old, dict) and isinstance(new, dict):
            out += changes(old, new, name)
        elif old != new:
            out.append(f"{name}: {show(old)} -> {show(new)}")
    return out
