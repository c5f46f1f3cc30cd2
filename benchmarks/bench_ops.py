"""Operations (issue 4): a tiny add's dispatch cost, a large add's bandwidth, and
sgemm, against NumPy on the CPU and against PyTorch and CuPy on a GPU.

GPU entries are skipped, with the reason, when pydevtensor sees no CUDA device.
GPU timings use CUDA events (each library's own), around one operation.
"""
from benchmarks.harness import (MaxRatio, MaxSeconds, MinBandwidth, MinSpeed, Skip, Stmt,
                                Timed, benchmark, compare_statements, compare_timed,
                                cupy_event_timer, failed, import_problem, pdt_event_timer,
                                torch_event_timer)

PDT = "import pydevtensor as pdt"
NP = "import numpy as np"
TORCH = "import torch"
CUPY = "import cupy"


# ---- CPU ----

@benchmark("ops", "add of two 3-element float32 tensors", unit="ns",
           target=MaxRatio("numpy", 1.0))
def add_tiny_cpu(cfg):
    """a + b for two 3-element float32 tensors: the whole cost is dispatch."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt(PDT + "; a = pdt.ones(3); b = pdt.ones(3)", "a + b",
                            check="(a + b).tolist() == [2.0, 2.0, 2.0]"),
        "numpy": Stmt(NP + "; a = np.ones(3, np.float32); b = np.ones(3, np.float32)", "a + b",
                      check="(a + b).tolist() == [2.0, 2.0, 2.0]"),
        "torch": Stmt(TORCH + "; a = torch.ones(3); b = torch.ones(3)", "a + b"),
    })


N_LARGE = 64 * 2**20  # 64M float32 = 256 MiB per operand


def _large_add(out_form):
    setup = "a = {m}.ones({n}, dtype={m}.float32); b = {m}.ones({n}, dtype={m}.float32)"
    stmt = "{m}.add(a, b, out=c)" if out_form else "a + b"
    extra = "; c = {m}.empty({n}, dtype={m}.float32)" if out_form else ""

    def make(mod, imp):
        src = imp + "; " + (setup + extra).format(m=mod, n=N_LARGE)
        return Stmt(src, stmt.format(m=mod))
    return {"pydevtensor": make("pdt", PDT), "numpy": make("np", NP),
            "torch": make("torch", TORCH)}


# bytes moved by one add: read a and b, write the result
LARGE_BYTES = 3 * 4 * N_LARGE


@benchmark("ops", "add of 64M float32, allocating", unit="GB/s", nbytes=LARGE_BYTES, number=1,
           repeat=7, quick_number=1, target=MinBandwidth("numpy", 1.0))
def add_large_cpu(cfg):
    """c = a + b on 64M float32 (the result freshly allocated each time)."""
    return compare_statements(cfg, _large_add(False))


@benchmark("ops", "add of 64M float32, out=", unit="GB/s", nbytes=LARGE_BYTES, number=1,
           repeat=7, quick_number=1, target=MinBandwidth("numpy", 1.0))
def add_large_out_cpu(cfg):
    """add(a, b, out=c) on 64M float32 (no allocation)."""
    return compare_statements(cfg, _large_add(True))


N_GEMM = 2048


@benchmark("ops", "sgemm 2048", unit="GFLOP/s", nbytes=2 * N_GEMM**3, number=1, repeat=7,
           quick_number=1, target=MinSpeed("numpy", 0.95))
def sgemm_cpu(cfg):
    """a @ b for 2048 x 2048 float32 on the CPU (each library's own BLAS, all cores)."""
    fill = "a = {m}.rand({n}, {n}{d}); b = {m}.rand({n}, {n}{d})"
    return compare_statements(cfg, {
        "pydevtensor": Stmt(PDT + "; " + fill.format(m="pdt", n=N_GEMM, d=""), "a @ b"),
        "numpy": Stmt(NP + "; rng = np.random.default_rng(0); a = rng.random((2048, 2048), "
                      "np.float32); b = rng.random((2048, 2048), np.float32)", "a @ b"),
        "torch": Stmt(TORCH + "; " + fill.format(m="torch", n=N_GEMM, d=""), "a @ b"),
    })


# ---- GPU ----

def _need_gpu():
    import pydevtensor as pdt
    if not pdt.cuda.is_available():
        raise Skip(f"no GPU: {pdt.cuda.unavailable_reason()}")
    return pdt


def _gpu_timed(make):
    """{library: Timed} from make(lib) for the libraries that import."""
    timed, results = {}, {}
    for lib in ("pydevtensor", "torch", "cupy"):
        try:
            timed[lib] = make(lib)
        except Skip:
            raise
        except Exception as exc:  # noqa: BLE001 - reported in the table
            results[lib] = import_problem(lib, exc) if isinstance(exc, ImportError) else failed(
                repr(exc))
    return timed, results


def _sgemm_gpu(cfg, n, tf32):
    pdt = _need_gpu()

    def make(lib):
        if lib == "pydevtensor":
            pdt.backends.cuda.matmul.allow_tf32 = tf32
            a, b = pdt.rand(n, n, device="cuda"), pdt.rand(n, n, device="cuda")
            return Timed(pdt_event_timer(pdt, lambda: a @ b), "CUDA events; a @ b")
        if lib == "torch":
            import torch
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a, b = torch.rand(n, n, device="cuda"), torch.rand(n, n, device="cuda")
            return Timed(torch_event_timer(torch, lambda: a @ b), "CUDA events; a @ b")
        import cupy
        if tf32:
            raise RuntimeError("CuPy has no per-call TF32 switch; compared with PyTorch only")
        a = cupy.random.rand(n, n, dtype=cupy.float32)
        b = cupy.random.rand(n, n, dtype=cupy.float32)
        return Timed(cupy_event_timer(cupy, lambda: a @ b), "CUDA events; a @ b")
    timed, results = _gpu_timed(make)
    results.update(compare_timed(cfg, timed))
    return results


@benchmark("ops", "sgemm 8192 FP32 (GPU)", unit="GFLOP/s", nbytes=2 * 8192**3, number=1,
           repeat=10, quick_number=1, target=MinSpeed("torch", 0.98))
def sgemm_8192_fp32(cfg):
    """8192^3 float32 GEMM in full FP32."""
    return _sgemm_gpu(cfg, 8192, tf32=False)


@benchmark("ops", "sgemm 8192 TF32 (GPU)", unit="GFLOP/s", nbytes=2 * 8192**3, number=1,
           repeat=10, quick_number=1, target=MinSpeed("torch", 0.95))
def sgemm_8192_tf32(cfg):
    """8192^3 float32 GEMM with TF32 tensor cores allowed."""
    return _sgemm_gpu(cfg, 8192, tf32=True)


@benchmark("ops", "tiny add dispatched from Python (GPU)", unit="us", number=20_000,
           repeat=7, target=MaxSeconds(3e-6, "pdt < 3 us per op"))
def add_tiny_gpu(cfg):
    """a + b on two 3-element GPU tensors: host time per op, synchronised after the loop."""
    _need_gpu()
    return compare_statements(cfg, {
        "pydevtensor": Stmt(PDT + "; a = pdt.ones(3, device='cuda'); b = pdt.ones(3, "
                            "device='cuda')", "a + b", sync="pdt.cuda.synchronize()"),
        "torch": Stmt(TORCH + "; a = torch.ones(3, device='cuda'); b = torch.ones(3, "
                      "device='cuda')", "a + b", sync="torch.cuda.synchronize()"),
        "cupy": Stmt(CUPY + "; a = cupy.ones(3, dtype=cupy.float32); b = cupy.ones(3, "
                     "dtype=cupy.float32)", "a + b", sync="cupy.cuda.Device().synchronize()"),
    })


N_GPU_ADD = 256 * 2**20


@benchmark("ops", "add of 256M float32 (GPU)", unit="GB/s", nbytes=3 * 4 * N_GPU_ADD, number=1,
           repeat=10, quick_number=1, target=MinBandwidth("raw", 0.9))
def add_large_gpu(cfg):
    """out= add of 256M float32 on the GPU; 'raw' is a device-to-device copy's bandwidth
    scaled to the same bytes (read 2, write 1): the bound an add can reach."""
    pdt = _need_gpu()

    def make(lib):
        if lib == "pydevtensor":
            a = pdt.ones(N_GPU_ADD, device="cuda")
            b, c = pdt.ones_like(a), pdt.empty_like(a)
            return Timed(pdt_event_timer(pdt, lambda: pdt.add(a, b, out=c)), "CUDA events")
        if lib == "torch":
            import torch
            a = torch.ones(N_GPU_ADD, device="cuda")
            b, c = torch.ones_like(a), torch.empty_like(a)
            return Timed(torch_event_timer(torch, lambda: torch.add(a, b, out=c)), "CUDA events")
        import cupy
        a = cupy.ones(N_GPU_ADD, dtype=cupy.float32)
        b, c = cupy.ones_like(a), cupy.empty_like(a)
        return Timed(cupy_event_timer(cupy, lambda: cupy.add(a, b, out=c)), "CUDA events")
    timed, results = _gpu_timed(make)
    # raw: a D2D copy of 3/2 x 256M floats moves the same bytes as the add (read + write)
    a = pdt.ones(N_GPU_ADD * 3 // 2, device="cuda")
    timed["raw"] = Timed(pdt_event_timer(pdt, lambda: a.clone()),
                         "CUDA events; device-to-device copy of the same bytes")
    results.update(compare_timed(cfg, timed))
    return results
