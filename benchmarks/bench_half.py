"""Half precision (issue 18): float16 elementwise ops against NumPy on the CPU, and
float16/bfloat16 matrix products 8192^3 against PyTorch on a GPU (tensor cores through
cublasGemmEx with float32 accumulation; target at least 0.95x PyTorch's speed).

pydevtensor computes a half op in float32 and rounds once (Note [half precision
arithmetic] in csrc/core/pdt_half.h): a widening pass, the float32 op and a narrowing
pass.  NumPy loops over float16 elements converting each one, so the two do similar
work.  GPU entries are skipped, with the reason, when pydevtensor sees no CUDA device
(the emulated device is not timed: it says nothing about a GPU's speed).
"""
from benchmarks.bench_ops import _need_gpu
from benchmarks.harness import (MinBandwidth, MinSpeed, Skip, Stmt, Timed, benchmark,
                                compare_statements, compare_timed, import_problem,
                                pdt_event_timer, torch_event_timer)

N_ELEM = 16 * 1024 * 1024
HALF_BYTES = 3 * 2 * N_ELEM  # one binary op reads a and b and writes the result


def _half_stmts(stmt_pdt, stmt_np):
    fill = "a = {m}.ones({n}, dtype={m}.float16); b = {m}.ones({n}, dtype={m}.float16)"
    return {
        "pydevtensor": Stmt("import pydevtensor as pdt; " + fill.format(m="pdt", n=N_ELEM),
                            stmt_pdt),
        "numpy": Stmt("import numpy as np; " + fill.format(m="np", n=N_ELEM), stmt_np),
        "torch": Stmt("import torch; " + fill.format(m="torch", n=N_ELEM), stmt_pdt),
    }


@benchmark("half", "add of 16M float16 (CPU)", unit="GB/s", nbytes=HALF_BYTES, number=1,
           repeat=7, quick_number=1, target=MinBandwidth("numpy", 1.0))
def add_f16_cpu(cfg):
    """a + b on 16M float16 elements, the result freshly allocated."""
    return compare_statements(cfg, _half_stmts("a + b", "a + b"))


@benchmark("half", "exp of 16M float16 (CPU)", unit="GB/s", nbytes=2 * 2 * N_ELEM, number=1,
           repeat=7, quick_number=1, target=MinBandwidth("numpy", 1.0))
def exp_f16_cpu(cfg):
    """exp(a) on 16M float16 elements."""
    return compare_statements(cfg, _half_stmts("a.exp()", "np.exp(a)"))


@benchmark("half", "sum of 16M float16 (CPU)", unit="GB/s", nbytes=2 * N_ELEM, number=1,
           repeat=7, quick_number=1, target=MinBandwidth("numpy", 1.0))
def sum_f16_cpu(cfg):
    """a.sum() of 16M float16 elements (float32 accumulation; NumPy's pairwise float16)."""
    return compare_statements(cfg, _half_stmts("a.sum()", "a.sum()"))


def _half_gemm_gpu(cfg, n, dtype_name):
    pdt = _need_gpu()
    if pdt.build_info().get("cuda_emulated"):
        raise Skip("the emulated CUDA device: timings need a real GPU")

    def make(lib):
        if lib == "pydevtensor":
            dt = getattr(pdt, dtype_name)
            a = pdt.rand(n, n, device="cuda", dtype=dt)
            b = pdt.rand(n, n, device="cuda", dtype=dt)
            return Timed(pdt_event_timer(pdt, lambda: a @ b), "CUDA events; a @ b")
        if lib == "torch":
            import torch
            dt = getattr(torch, dtype_name)
            a = torch.rand(n, n, device="cuda", dtype=dt)
            b = torch.rand(n, n, device="cuda", dtype=dt)
            return Timed(torch_event_timer(torch, lambda: a @ b), "CUDA events; a @ b")
    timed, results = {}, {}
    for lib in ("pydevtensor", "torch"):  # CuPy: compared with PyTorch only
        try:
            timed[lib] = make(lib)
        except ImportError as exc:
            results[lib] = import_problem(lib, exc)
    results.update(compare_timed(cfg, timed))
    return results


@benchmark("half", "hgemm 8192 FP16 (GPU)", unit="GFLOP/s", nbytes=2 * 8192**3, number=1,
           repeat=10, quick_number=1, target=MinSpeed("torch", 0.95))
def hgemm_8192_fp16(cfg):
    """8192^3 float16 GEMM, float32 accumulation (tensor cores)."""
    return _half_gemm_gpu(cfg, 8192, "float16")


@benchmark("half", "gemm 8192 BF16 (GPU)", unit="GFLOP/s", nbytes=2 * 8192**3, number=1,
           repeat=10, quick_number=1, target=MinSpeed("torch", 0.95))
def gemm_8192_bf16(cfg):
    """8192^3 bfloat16 GEMM, float32 accumulation (tensor cores)."""
    return _half_gemm_gpu(cfg, 8192, "bfloat16")
