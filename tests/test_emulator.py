"""The emulated CUDA device's own rules (csrc/cuda/emulator/README.md).

Each rule is kept once (a value is checked) and broken once (the child process must
abort with the rule's message, or the documented CUDA error must come back); then
deliberately broken copies of real backend code (tests/emulator/planted.cu) show the
faults the emulator exists to catch.  The kernels are compiled here, at test time,
against the emulator; every case runs in its own child process with two emulated
devices, because a broken rule ends the process.

Runs only in the emulated build (``PYDEVTENSOR_CUDA=emulate``).
"""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pydevtensor as pdt

try:
    from pydevtensor._build_config import BUILD_CONFIG
except ImportError:  # pragma: no cover - an uninstalled tree
    BUILD_CONFIG = {}

EMULATED = bool(BUILD_CONFIG.get("cuda_emulated"))
ROOT = Path(__file__).resolve().parent.parent
LIB_DIR = Path(pdt.__file__).resolve().parent / "_emulated_cuda"

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not EMULATED, reason="needs the emulated CUDA build "
                                 "(PYDEVTENSOR_CUDA=emulate pip install -e .)")]

# cudaError_t values (driver_types.h) and cuBLAS statuses (cublas_api.h) the tests expect.
CUDA_SUCCESS = 0
CUDA_ERROR_MEMORY_ALLOCATION = 2
CUDA_ERROR_INVALID_CONFIGURATION = 9
CUDA_ERROR_INVALID_RESOURCE_HANDLE = 400
CUBLAS_STATUS_INVALID_VALUE = 7


def _cuda_include():
    for d in (BUILD_CONFIG.get("emulator") or {}).get("include_dirs", []):
        if (Path(d) / "cuda_runtime.h").exists():
            return d
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    return str(Path(home) / "include")


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    """{name: path} of rules.cu and planted.cu built against the emulator."""
    out = tmp_path_factory.mktemp("emulator")
    cxx = (BUILD_CONFIG.get("emulator") or {}).get("cxx") or shutil.which("g++") or "c++"
    cublas = sorted(p.name for p in LIB_DIR.glob("libcublas.so.*"))
    assert cublas, f"no emulated cuBLAS in {LIB_DIR}"
    inc = [ROOT / "csrc" / d for d in ("core", "cpu", "cuda", "cuda/emulator")]
    built = {}
    for name in ("rules", "planted"):
        target = out / f"lib{name}.so"
        cmd = [cxx, "-x", "c++", "-std=c++17", "-fPIC", "-shared", "-O1", "-Wall", "-Wextra",
               "-DPDT_CUDA_EMULATED=1", "-DPDT_HAVE_CUDA=1", "-include", "emu_kernel.h",
               *[f"-I{d}" for d in inc], f"-I{_cuda_include()}",
               str(ROOT / "tests" / "emulator" / f"{name}.cu"), "-o", str(target),
               f"-L{LIB_DIR}", "-lpdt_cudart_emu", f"-l:{cublas[0]}", f"-Wl,-rpath,{LIB_DIR}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        built[name] = str(target)
    return built


def run(body, devices=2, memory_mb=1024, **env_vars):
    """Runs `body` (Python, with `ctypes` and `lib(name)`) in a child, with env_vars
    added to its environment; (rc, out, err).  The child runs grids in order unless
    env_vars say otherwise: what the planted bugs show is that order's answer (CI runs
    one configuration with PYDEVTENSOR_EMULATED_REVERSE_ORDER=1)."""
    prelude = textwrap.dedent(f"""\
        import ctypes, sys
        LIB_DIR = {str(LIB_DIR)!r}
        def lib(path):
            return ctypes.CDLL(path)
        rt = ctypes.CDLL(LIB_DIR + "/libpdt_cudart_emu.so")
        """)
    env = dict(os.environ, PYDEVTENSOR_EMULATED_DEVICES=str(devices),
               PYDEVTENSOR_EMULATED_MEMORY_MB=str(memory_mb))
    env.update({"PYDEVTENSOR_EMULATED_REVERSE_ORDER": "0", **env_vars})
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(body)],
                          capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def value(body, devices=2):
    """The last line `body` printed, after checking that the child exited cleanly."""
    return value_lines(body, devices)[-1]


def value_lines(body, devices=2):
    """The lines `body` printed, after checking that the child exited cleanly."""
    rc, out, err = run(body, devices)
    assert rc == 0, f"exit {rc}\n{err}"
    return out.strip().splitlines()


def aborts(body, *phrases, devices=2):
    """Checks that the child aborted with a message holding every phrase."""
    rc, out, err = run(body, devices)
    assert rc == -6, f"expected an abort, got exit {rc}\nstdout: {out}\nstderr: {err}"
    assert "pydevtensor CUDA emulator" in err and "rule:" in err, err
    for p in phrases:
        assert p in err, f"{p!r} not in:\n{err}"
    return err


# ------------------------------------------------------------------ launches


@pytest.mark.parametrize("grid,block,ok", [
    ((4, 1), (256, 1, 1), True), ((1, 1), (1024, 1, 1), True),
    ((1, 1), (2048, 1, 1), False), ((1, 1), (32, 32, 2), False), ((1, 1), (1, 1, 65), False),
    ((1, 70000), (32, 1, 1), False), ((0, 1), (32, 1, 1), False)])
def test_launch_limits_are_those_of_a_real_device(libs, grid, block, ok):
    got = int(value(f"print(lib({libs['rules']!r}).launch_config({grid[0]}, {grid[1]}, "
                    f"{block[0]}, {block[1]}, {block[2]}))"))
    assert got == (CUDA_SUCCESS if ok else CUDA_ERROR_INVALID_CONFIGURATION)


def test_launch_on_a_stream_of_another_device_fails(libs):
    got = int(value(f"print(lib({libs['rules']!r}).launch_on_other_device_stream())"))
    assert got == CUDA_ERROR_INVALID_RESOURCE_HANDLE


# ---------------------------------------------------------- threads, barriers


def test_shuffles_exchange_values_between_lanes(libs):
    got = value(f"""
        out = (ctypes.c_int * 2)()
        assert lib({libs['rules']!r}).shuffle_sum(64, out) == 0
        print(list(out))""")
    assert got == str([sum(range(32)), sum(range(32, 64))])


def test_shuffle_naming_missing_lanes_is_caught(libs):
    aborts(f"lib({libs['rules']!r}).shuffle_sum(16, (ctypes.c_int * 2)())",
           "Warp Shuffle Functions", "warp_sum")


def test_syncthreads_not_reached_by_every_thread_is_caught(libs):
    aborts(f"lib({libs['rules']!r}).syncthreads_divergent()",
           "Synchronization Functions", "divergent_barrier")


def test_shared_memory_is_per_block(libs):
    got = value(f"""
        out = (ctypes.c_int * 256)()
        assert lib({libs['rules']!r}).shared_per_block(out) == 0
        print(list(out))""")
    expect = [b * 1000 + (t + 1) % 64 for b in range(4) for t in range(64)]
    assert got == str(expect)


# -------------------------------------------------------------------- memory


@pytest.mark.parametrize("how,phrase", [
    (0, "used after it is freed"), (1, "used after it is freed"),
    (2, "memory fault"), (3, "used after it is freed")])
def test_use_after_free_is_caught(libs, how, phrase):
    err = aborts(f"lib({libs['rules']!r}).use_after_free({how})", phrase)
    assert "freed" in err


def test_pointer_of_another_device_needs_peer_access(libs):
    assert value(f"print(lib({libs['rules']!r}).other_device_pointer(1))") == "0"
    aborts(f"lib({libs['rules']!r}).other_device_pointer(0)",
           "cudaDeviceEnablePeerAccess", "runs on cuda:0", "on cuda:1")


def test_pool_accounting_runs_out_of_memory_and_recovers():
    rc, out, err = run("""
        p = ctypes.c_void_p(); q = ctypes.c_void_p()
        s = ctypes.c_void_p()
        assert rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1) == 0
        big = rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(48 << 20), s)
        again = rt.cudaMallocAsync(ctypes.byref(q), ctypes.c_size_t(48 << 20), s)
        last = rt.cudaGetLastError()
        rt.cudaFreeAsync(p, s); rt.cudaStreamSynchronize(s)
        after = rt.cudaMallocAsync(ctypes.byref(q), ctypes.c_size_t(48 << 20), s)
        free = ctypes.c_size_t(); total = ctypes.c_size_t()
        rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total))
        print(big, again, last, after, total.value)""", memory_mb=64)
    assert rc == 0, err
    # 64 MiB devices fit one 48 MiB request, not two; freed and synchronised,
    # the pool has room again.
    assert out.split() == ["0", str(CUDA_ERROR_MEMORY_ALLOCATION),
                           str(CUDA_ERROR_MEMORY_ALLOCATION), "0", str(64 << 20)]


def test_a_stream_reuses_what_it_freed_before_reaching_the_free():
    # Note [emulated pools]: bytes given to cudaFreeAsync are reusable at once by the
    # same stream's allocations (its order puts them after the free), not by another
    # stream's until the free has run.  Streams here run only when waited on, so
    # without the reuse 700 allocations of 2 MiB filled a 64 MiB device.
    rc, out, err = run("""
        s = ctypes.c_void_p(); s2 = ctypes.c_void_p(); p = ctypes.c_void_p()
        assert rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1) == 0
        assert rt.cudaStreamCreateWithFlags(ctypes.byref(s2), 1) == 0
        churn = [rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(2 << 20), s)
                 + rt.cudaFreeAsync(p, s) for _ in range(700)]
        assert rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(48 << 20), s) == 0
        rt.cudaFreeAsync(p, s)            # not reached: s has not run
        other = rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(48 << 20), s2)
        rt.cudaGetLastError()
        same = rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(48 << 20), s)
        print(sum(churn), other, same)""", memory_mb=64)
    assert rc == 0, err
    assert out.split() == ["0", str(CUDA_ERROR_MEMORY_ALLOCATION), "0"]


def test_freeing_twice_before_the_stream_reaches_the_free_is_caught():
    aborts("""
        s = ctypes.c_void_p(); p = ctypes.c_void_p()
        assert rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1) == 0
        assert rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(64), s) == 0
        rt.cudaFreeAsync(p, s)
        rt.cudaFreeAsync(p, s)""", "must not be freed twice", "before its stream-ordered free ran")


def test_memcpy_kind_must_match_the_pointers():
    aborts("""
        d = ctypes.c_void_p(); h = ctypes.create_string_buffer(64)
        assert rt.cudaMalloc(ctypes.byref(d), ctypes.c_size_t(64)) == 0
        rt.cudaMemcpy(d, h, ctypes.c_size_t(64), 2)  # DeviceToHost, but d is the device side
        """, "cudaMemcpyDeviceToHost", "the kind must match")


def test_copy_past_the_end_of_an_allocation_is_caught():
    aborts("""
        d = ctypes.c_void_p(); h = ctypes.create_string_buffer(128)
        assert rt.cudaMalloc(ctypes.byref(d), ctypes.c_size_t(64)) == 0
        rt.cudaMemcpy(d, h, ctypes.c_size_t(128), 1)
        """, "runs past the end")


def test_peer_copy_checks_which_device_owns_each_pointer():
    body = """
        a = ctypes.c_void_p(); b = ctypes.c_void_p()
        assert rt.cudaSetDevice(0) == 0 and rt.cudaMalloc(ctypes.byref(a), ctypes.c_size_t(64)) == 0
        assert rt.cudaSetDevice(1) == 0 and rt.cudaMalloc(ctypes.byref(b), ctypes.c_size_t(64)) == 0
        print(rt.cudaMemcpyPeer(b, 1, a, 0, ctypes.c_size_t(64)))
        rt.cudaMemcpyPeer(b, 0, a, 0, ctypes.c_size_t(64))  # b belongs to device 1
        """
    err = aborts(body, "cudaMemcpyPeerAsync", "not memory of cuda:0")
    assert "memory of cuda:1" in err


# ------------------------------------------------------- streams and events


@pytest.mark.parametrize("n", [3, 2049])  # one block; past a block of 1024 threads
@pytest.mark.parametrize("reverse, want", [("0", 0.0), ("1", 1.0)])
def test_reverse_order_runs_blocks_and_threads_last_first(n, reverse, want):
    """Note [the order of blocks and threads] (emu_fiber.cpp): index_add's float atomics
    add 1, 1e8, (zeros,) -1e8 into one element.  In float32, 1 + 1e8 rounds to 1e8, so
    in order the sum is 0; last first it is -1e8 + 1e8 + 1 = 1."""
    rc, out, err = run(f"""
        import pydevtensor as pdt
        v = pdt.zeros({n}, device="cuda")
        v[0], v[1], v[{n} - 1] = 1.0, 1e8, -1e8
        x = pdt.zeros(1, device="cuda")
        x.index_add_(0, pdt.zeros({n}, dtype=pdt.int64, device="cuda"), v)
        print(x.item())
        """, PYDEVTENSOR_EMULATED_REVERSE_ORDER=reverse)
    assert rc == 0, err
    assert float(out.split()[-1]) == want


def test_streams_run_only_when_waited_on(libs):
    got = value(f"""
        out = (ctypes.c_int * 2)()
        assert lib({libs['rules']!r}).read_before_sync(out) == 0
        print(list(out))""")
    assert got == "[0, 7]"  # stale before the synchronisation, fresh after


def test_a_missing_event_wait_shows_as_stale_data(libs):
    got = value(f"""
        out = ctypes.c_int()
        r = lib({libs['rules']!r})
        assert r.event_ordering(1, ctypes.byref(out)) == 0; waited = out.value
        assert r.event_ordering(0, ctypes.byref(out)) == 0; print(waited, out.value)""")
    assert got == "5 0"


def test_event_recorded_on_a_stream_of_another_device_fails(libs):
    got = int(value(f"print(lib({libs['rules']!r}).record_on_other_device())"))
    assert got == CUDA_ERROR_INVALID_RESOURCE_HANDLE


# ------------------------------------------------ planted faults in real code


def test_planted_missing_event_wait_in_the_staged_copy(libs):
    code = f"r = lib({libs['planted']!r}); print(r.staged_h2d(0), r.staged_h2d(1))"
    good, bad = map(int, value(code).split())
    assert good == 0 and bad > 0


def test_planted_gemm_without_the_row_major_operand_swap(libs):
    assert value(f"print(lib({libs['planted']!r}).gemm_row_major(0))") == "0"
    aborts(f"lib({libs['planted']!r}).gemm_row_major(1)", "cublasSgemm", "runs 12 bytes past "
           "the end of an allocation of 48 bytes")


def test_planted_block_reduction_without_syncthreads(libs):
    code = f"r = lib({libs['planted']!r}); print(r.block_reduce_sum(0), r.block_reduce_sum(1))"
    good, bad = map(int, value(code).split())
    assert good == 0 and bad > 0


def test_planted_scratch_freed_before_its_reader(libs):
    assert value(f"print(lib({libs['planted']!r}).reduce_free_partials(0))") == "1000"
    aborts(f"lib({libs['planted']!r}).reduce_free_partials(1)", "finish_sum",
           "used after it is freed")


def test_planted_kernel_given_a_pointer_of_another_device(libs):
    assert value(f"print(lib({libs['planted']!r}).kernel_other_device(0))") == "2"
    aborts(f"lib({libs['planted']!r}).kernel_other_device(1)", "fill_kernel",
           "runs on cuda:0")


# ------------------------------------------------------------------ cuBLAS GemmEx

# cudaDataType_t (library_types.h), cublasComputeType_t, cublasGemmAlgo_t, cublasStatus_t
R_32F, R_16F, R_8I, R_16BF = 0, 2, 3, 14
COMPUTE_16F, COMPUTE_32F = 64, 68
GEMM_DEFAULT = -1
CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_NOT_SUPPORTED = 0, 15


@pytest.mark.parametrize("a, b, c, compute, algo, m, want", [
    (R_16F, R_16F, R_16F, COMPUTE_32F, GEMM_DEFAULT, 1, CUBLAS_STATUS_SUCCESS),
    (R_16BF, R_16BF, R_16BF, COMPUTE_32F, GEMM_DEFAULT, 1, CUBLAS_STATUS_SUCCESS),
    (R_16F, R_16BF, R_16F, COMPUTE_32F, GEMM_DEFAULT, 1, CUBLAS_STATUS_NOT_SUPPORTED),
    (R_16F, R_16F, R_16F, COMPUTE_16F, GEMM_DEFAULT, 1, CUBLAS_STATUS_NOT_SUPPORTED),
    (R_8I, R_8I, R_32F, COMPUTE_32F, GEMM_DEFAULT, 1, CUBLAS_STATUS_NOT_SUPPORTED),
    (R_16F, R_16F, R_16F, COMPUTE_32F, 12345, 1, CUBLAS_STATUS_NOT_SUPPORTED),
    (R_16F, R_16F, R_16F, COMPUTE_32F, GEMM_DEFAULT, -1, CUBLAS_STATUS_INVALID_VALUE)])
def test_gemm_ex_type_rules(libs, a, b, c, compute, algo, m, want):
    """The emulated cublasGemmEx takes the type rows pydevtensor uses and refuses the rest
    with cuBLAS's statuses.  The float16 product [1, 1 + 2^-10] . [1, 2^-11] is
    1 + 2^-11 + 2^-21 in float32, just above float16's tie at 1 + 2^-11: rounded once, it
    is 1 + 2^-10 (bits 0x3c01)."""
    got = value(f"out = ctypes.c_uint32(0)\n"
                f"st = lib({libs['rules']!r}).gemm_ex_status({a}, {b}, {c}, {compute}, {algo}, "
                f"{m}, ctypes.byref(out))\nprint(st, out.value)").split()
    assert int(got[0]) == want
    if want == CUBLAS_STATUS_SUCCESS and a == R_16F:
        assert int(got[1]) == 0x3c01


# ------------------------------------------------------------------ cuSOLVER

CUSOLVER_PRELUDE = """
import glob
sol = ctypes.CDLL(glob.glob(LIB_DIR + "/libcusolver.so.*")[0])
V = ctypes.c_void_p
def dev(nbytes, host=None):
    p = V()
    assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes)) == 0
    if host is not None:
        assert rt.cudaMemcpy(p, host, ctypes.c_size_t(nbytes), 1) == 0  # HostToDevice
    return p
def back(p, ctype, n):
    out = (ctype * n)()
    assert rt.cudaMemcpy(out, p, ctypes.c_size_t(n * ctypes.sizeof(ctype)), 2) == 0
    return list(out)
h = V()
assert sol.cusolverDnCreate(ctypes.byref(h)) == 0
"""


def test_cusolver_getrf_getrs_potrf_follow_lapack():
    """getrf pivots on the largest magnitude of each column and reports the first zero
    pivot in info (1-based) without stopping; getrs solves from its factors; potrf
    stops at the first leading minor that is not positive-definite.  Column-major:
    A = [[1, 2], [3, 4]] is stored 1, 3, 2, 4."""
    body = CUSOLVER_PRELUDE + """
a = dev(32, (ctypes.c_double * 4)(1, 3, 2, 4))
lw = ctypes.c_int(); assert sol.cusolverDnDgetrf_bufferSize(h, 2, 2, a, 2, ctypes.byref(lw)) == 0
work, ipiv, info = dev(8 * lw.value), dev(8), dev(4)
assert sol.cusolverDnDgetrf(h, 2, 2, a, 2, work, ipiv, info) == 0
b = dev(16, (ctypes.c_double * 2)(5, 6))
assert sol.cusolverDnDgetrs(h, 0, 2, 1, a, 2, ipiv, b, 2, info) == 0  # CUBLAS_OP_N
print(back(ipiv, ctypes.c_int, 2), back(info, ctypes.c_int, 1),
      [round(v, 12) for v in back(b, ctypes.c_double, 2)])
z = dev(32, (ctypes.c_double * 4)(0, 0, 0, 0))
assert sol.cusolverDnDgetrf(h, 2, 2, z, 2, work, ipiv, info) == 0
print(back(info, ctypes.c_int, 1))
s = dev(32, (ctypes.c_double * 4)(4, 2, 2, -5))
assert sol.cusolverDnDpotrf_bufferSize(h, 0, 2, s, 2, ctypes.byref(lw)) == 0  # LOWER
w2 = dev(8 * lw.value)
assert sol.cusolverDnDpotrf(h, 0, 2, s, 2, w2, lw, info) == 0
print(back(info, ctypes.c_int, 1), back(s, ctypes.c_double, 1))
"""
    rc, out, err = run(body, devices=1)
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert lines[0] == "[2, 2] [0] [-4.0, 4.5]"  # x = A^-1 [5, 6]
    assert lines[1] == "[1]"
    assert lines[2] == "[2] [2.0]"  # L(0, 0) = 2, then -5 - 1 * 1 < 0 at order 2


def test_cusolver_workspace_smaller_than_asked_is_caught():
    body = CUSOLVER_PRELUDE + """
a = dev(4 * 64)
lw = ctypes.c_int(); assert sol.cusolverDnSgetrf_bufferSize(h, 8, 8, a, 8, ctypes.byref(lw)) == 0
work, ipiv, info = dev(4 * (lw.value - 1)), dev(4 * 8), dev(4)
sol.cusolverDnSgetrf(h, 8, 8, a, 8, work, ipiv, info)
rt.cudaDeviceSynchronize()
"""
    rc, out, err = run(body, devices=1)
    assert rc == -6 and "cusolverDnSgetrf" in err and "Workspace" in err, err


def test_cusolver_handle_used_on_another_device_is_caught():
    body = CUSOLVER_PRELUDE + """
a = dev(16)
lw = ctypes.c_int(4)
assert rt.cudaSetDevice(1) == 0
w, info = dev(16), dev(4)
sol.cusolverDnSpotrf(h, 0, 2, a, 2, w, lw, info)
"""
    rc, out, err = run(body, devices=2)
    assert rc == -6 and "cusolverDnSpotrf" in err and "belongs to device 0" in err, err


# --------------------------------------------- batched LU and Cholesky (Note [batched
# small-matrix solvers] in csrc/cuda/cuda_solver.h; emu_cublas_lu.cpp, emu_cusolver.cpp)

BATCHED_PRELUDE = CUSOLVER_PRELUDE + """
bl = ctypes.CDLL(glob.glob(LIB_DIR + "/libcublas.so.*")[0])
hb = V()
assert bl.cublasCreate_v2(ctypes.byref(hb)) == 0
def doubles(*v):
    return dev(8 * len(v), (ctypes.c_double * len(v))(*v))
def pointers(*ps):  # a device array of device pointers
    return dev(8 * len(ps), (V * len(ps))(*[p.value for p in ps]))
"""


def test_cublas_getrf_getrs_batched_follow_lapack():
    """Per matrix: pivots 1-based (LAPACK's, n per matrix one after another), info 0 or
    the first k with U(k, k) exactly zero, the factors in place; getrsBatched solves in
    place and reports parameter errors in its host info.  Column-major 2 x 2: [[1, 2],
    [3, 4]], zeros, diag(2, 4)."""
    body = BATCHED_PRELUDE + """
m = [doubles(1, 3, 2, 4), doubles(0, 0, 0, 0), doubles(2, 0, 0, 4)]
arr, piv, info = pointers(*m), dev(4 * 6), dev(4 * 3)
assert bl.cublasDgetrfBatched(hb, 2, arr, 2, piv, info, 3) == 0
print(back(piv, ctypes.c_int, 6), back(info, ctypes.c_int, 3))
b = [doubles(5, 6), doubles(1, 1), doubles(2, 4)]
barr, hinfo = pointers(*b), ctypes.c_int(99)
assert bl.cublasDgetrsBatched(hb, 0, 2, 1, arr, 2, piv, barr, 2, ctypes.byref(hinfo), 3) == 0
print(hinfo.value, [round(v, 12) for v in back(b[0], ctypes.c_double, 2)],
      back(b[2], ctypes.c_double, 2))
assert bl.cublasDgetrsBatched(hb, 0, -1, 1, arr, 2, piv, barr, 2, ctypes.byref(hinfo), 3) == 7
print(hinfo.value)
"""
    lines = value_lines(body)
    assert lines[0] == "[2, 2, 1, 2, 1, 2] [0, 1, 0]"
    assert lines[1] == "0 [-4.0, 4.5] [1.0, 1.0]"
    assert lines[2] == "-3"  # n, the third parameter counting the handle


def test_cublas_batched_pointer_array_in_host_memory_is_caught():
    """"Aarray: device ... array of pointers": a host array is read by the device."""
    body = BATCHED_PRELUDE + """
host = (V * 2)(doubles(1, 0, 0, 1).value, doubles(1, 0, 0, 1).value)
piv, info = dev(16), dev(8)
bl.cublasDgetrfBatched(hb, 2, host, 2, piv, info, 2)
rt.cudaDeviceSynchronize()
"""
    aborts(body, "cublasDgetrfBatched", "Aarray")


def test_cublas_batched_matrix_of_another_device_is_caught():
    body = BATCHED_PRELUDE + """
mine = doubles(1, 0, 0, 1)
assert rt.cudaSetDevice(1) == 0
theirs = doubles(1, 0, 0, 1)
assert rt.cudaSetDevice(0) == 0
arr, piv, info = pointers(mine, theirs), dev(16), dev(8)
bl.cublasDgetrfBatched(hb, 2, arr, 2, piv, info, 2)
rt.cudaDeviceSynchronize()
"""
    aborts(body, "cublasDgetrfBatched", "Aarray[1]")


def test_cublas_getrs_batched_info_on_the_device_is_caught():
    body = BATCHED_PRELUDE + """
arr, piv, info = pointers(doubles(1, 0, 0, 1)), dev(8), dev(4)
bl.cublasDgetrsBatched(hb, 0, 2, 1, arr, 2, piv, arr, 2, info, 1)
"""
    aborts(body, "cublasDgetrsBatched", "info is a host pointer")


def test_cusolver_potrf_batched_per_matrix_info_and_workspace_triangle():
    """infoArray per matrix (order of the failing leading minor); the triangle not
    factored is destroyed ("used as a workspace"): NaN here; batchSize < 1 is
    CUSOLVER_STATUS_INVALID_VALUE (3)."""
    body = BATCHED_PRELUDE + """
m = [doubles(4, 2, 2, 5), doubles(4, 2, 2, -5)]
arr, info = pointers(*m), dev(8)
assert sol.cusolverDnDpotrfBatched(h, 0, 2, arr, 2, info, 2) == 0  # LOWER
print(back(info, ctypes.c_int, 2), back(m[0], ctypes.c_double, 4))
print(sol.cusolverDnDpotrfBatched(h, 0, 2, arr, 2, info, 0))
"""
    lines = value_lines(body)
    assert lines[0] == "[0, 2] [2.0, 1.0, nan, 2.0]"
    assert lines[1] == "3"
