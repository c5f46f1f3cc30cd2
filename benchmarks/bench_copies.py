"""Copies between host and GPU: 256 MiB of float32, host-to-device and device-to-host,
from pageable and from pinned host memory, in GB/s (1e9 bytes per second).

Each library copies into a buffer allocated beforehand (copy_, set/get), so the
figure is the transfer alone.  The first copy of each library is checked against
the pattern before any timing.  torch and cupy are timed with CUDA events on their
current stream; pydevtensor, which has no events yet, with the wall clock between
two pdt.cuda.synchronize() calls (a 256 MiB copy takes milliseconds, so the
synchronize costs well under 1%).  "cudaMemcpy" is the raw runtime call through
cupy.cuda.runtime.memcpy on cupy's buffers: the ceiling for pinned copies, and the
driver's own staging for pageable ones.

Targets: pinned copies reach 90% of cudaMemcpy; pageable copies at least match torch.
Skipped, with the reason, when pydevtensor sees no CUDA device.
"""
import traceback

from benchmarks.harness import (MinBandwidth, Skip, Timed, benchmark, compare_timed,
                                cupy_event_timer, failed, import_problem, torch_event_timer,
                                unavailable, wall_sync_timer)

NBYTES = 256 << 20
N = NBYTES // 4  # float32 elements


def _gpu_pydevtensor():
    import pydevtensor as pdt
    if not pdt.cuda.is_available():
        raise Skip(f"no GPU: pydevtensor.cuda.is_available() is False "
                   f"({pdt.cuda.unavailable_reason()})")
    return pdt


def _check(np, got, pattern, lib):
    if not np.array_equal(got, pattern):
        bad = int(np.count_nonzero(got != pattern))
        raise AssertionError(f"{lib}: {bad} of {pattern.size} elements differ after the copy")


def _setup_pydevtensor(np, pattern, h2d, pinned):
    pdt = _gpu_pydevtensor()
    host = pdt.empty(N, dtype=pdt.float32, pin_memory=pinned)
    if host.is_pinned() != pinned:
        raise AssertionError(f"empty(pin_memory={pinned}) gave is_pinned() == {host.is_pinned()}")
    view = host.numpy()  # shares host's memory
    dev = pdt.empty(N, dtype=pdt.float32, device="cuda")
    if h2d:
        view[:] = pattern
        op = lambda: dev.copy_(host)  # noqa: E731
        op()
        pdt.cuda.synchronize()
        _check(np, dev.cpu().numpy(), pattern, "pydevtensor")
    else:
        dev.copy_(pdt.from_numpy(pattern))
        view[:] = -1.0
        op = lambda: host.copy_(dev)  # noqa: E731
        op()
        pdt.cuda.synchronize()
        _check(np, view, pattern, "pydevtensor")
    return Timed(wall_sync_timer(op, pdt.cuda.synchronize),
                 "wall clock between pdt.cuda.synchronize() calls; dst.copy_(src)")


def _setup_torch(np, pattern, h2d, pinned):
    import torch
    if not torch.cuda.is_available():
        return unavailable("torch.cuda.is_available() is False")
    host = torch.empty(N, dtype=torch.float32, pin_memory=pinned)
    view = host.numpy()
    dev = torch.empty(N, dtype=torch.float32, device="cuda")
    if h2d:
        view[:] = pattern
        op = lambda: dev.copy_(host)  # noqa: E731
        op()
        torch.cuda.synchronize()
        _check(np, dev.cpu().numpy(), pattern, "torch")
    else:
        dev.copy_(torch.from_numpy(pattern))
        view[:] = -1.0
        op = lambda: host.copy_(dev)  # noqa: E731
        op()
        torch.cuda.synchronize()
        _check(np, view, pattern, "torch")
    return Timed(torch_event_timer(torch, op), "CUDA events (torch); dst.copy_(src)")


def _cupy_buffers(np, pinned):
    import cupy
    import cupyx
    if cupy.cuda.runtime.getDeviceCount() == 0:
        return None
    host = cupyx.empty_pinned(N, dtype=np.float32) if pinned else np.empty(N, np.float32)
    return cupy, host, cupy.empty(N, dtype=cupy.float32)


def _setup_cupy(np, pattern, h2d, buffers):
    cupy, host, dev = buffers
    if h2d:
        host[:] = pattern
        op = lambda: dev.set(host)  # noqa: E731
        op()
        cupy.cuda.Device().synchronize()
        _check(np, dev.get(), pattern, "cupy")
    else:
        dev.set(pattern)
        host[:] = -1.0
        op = lambda: dev.get(out=host)  # noqa: E731
        op()
        cupy.cuda.Device().synchronize()
        _check(np, host, pattern, "cupy")
    method = "CUDA events (cupy); " + ("dev.set(host)" if h2d else "dev.get(out=host)")
    return Timed(cupy_event_timer(cupy, op), method)


def _setup_raw(np, pattern, h2d, buffers):
    cupy, host, dev = buffers
    rt = cupy.cuda.runtime
    if h2d:
        kind = getattr(rt, "memcpyHostToDevice", 1)
        host[:] = pattern
        dev.fill(-1.0)
        op = lambda: rt.memcpy(dev.data.ptr, host.ctypes.data, NBYTES, kind)  # noqa: E731
        op()
        cupy.cuda.Device().synchronize()
        _check(np, dev.get(), pattern, "cudaMemcpy")
    else:
        kind = getattr(rt, "memcpyDeviceToHost", 2)
        dev.set(pattern)
        host[:] = -1.0
        op = lambda: rt.memcpy(host.ctypes.data, dev.data.ptr, NBYTES, kind)  # noqa: E731
        op()
        cupy.cuda.Device().synchronize()
        _check(np, host, pattern, "cudaMemcpy")
    return Timed(cupy_event_timer(cupy, op),
                 "CUDA events (cupy); cupy.cuda.runtime.memcpy on cupy's buffers")


def _copies(cfg, h2d, pinned):
    import numpy as np
    _gpu_pydevtensor()  # skips the entry before anything else is set up
    pattern = np.random.default_rng(0).random(N, dtype=np.float32)
    results, timed = {}, {}

    def attempt(lib, setup, *args):
        try:
            got = setup(np, pattern, h2d, *args)
        except Skip:
            raise
        except ImportError as exc:
            results[lib] = import_problem(lib, exc)
            return
        except Exception:  # noqa: BLE001 - one library's failure is reported, not fatal
            results[lib] = failed(traceback.format_exc(limit=6))
            return
        if isinstance(got, Timed):
            timed[lib] = got
        else:
            results[lib] = got

    attempt("pydevtensor", _setup_pydevtensor, pinned)
    attempt("torch", _setup_torch, pinned)
    try:
        buffers = _cupy_buffers(np, pinned)
    except ImportError as exc:
        results["cupy"] = results["raw"] = import_problem("cupy", exc)
    except Exception:  # noqa: BLE001
        results["cupy"] = results["raw"] = failed(traceback.format_exc(limit=6))
    else:
        if buffers is None:
            results["cupy"] = results["raw"] = unavailable("cupy sees no CUDA device")
        else:
            attempt("cupy", _setup_cupy, buffers)
            attempt("raw", _setup_raw, buffers)
    results.update(compare_timed(cfg, timed))
    return {lib: results[lib] for lib in ("pydevtensor", "torch", "cupy", "raw")
            if lib in results}


COPY = dict(unit="GB/s", nbytes=NBYTES, number=1, repeat=10, quick_number=1, quick_repeat=4,
            timeout_s=300)


@benchmark("copies", "H2D 256 MiB, pageable", target=MinBandwidth("torch", 1.0),
           **COPY)
def h2d_pageable(cfg):
    return _copies(cfg, h2d=True, pinned=False)


@benchmark("copies", "H2D 256 MiB, pinned", target=MinBandwidth("raw", 0.9), **COPY)
def h2d_pinned(cfg):
    return _copies(cfg, h2d=True, pinned=True)


@benchmark("copies", "D2H 256 MiB, pageable", target=MinBandwidth("torch", 1.0),
           **COPY)
def d2h_pageable(cfg):
    return _copies(cfg, h2d=False, pinned=False)


@benchmark("copies", "D2H 256 MiB, pinned", target=MinBandwidth("raw", 0.9), **COPY)
def d2h_pinned(cfg):
    return _copies(cfg, h2d=False, pinned=True)
