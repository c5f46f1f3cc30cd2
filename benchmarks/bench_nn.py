"""nn.Linear forward (issue 6): batch 4096, 1024 -> 1024, against NumPy's
x @ W.T + b on the CPU and torch.nn.functional.linear on a GPU."""
from benchmarks.harness import (MinSpeed, Skip, Stmt, Timed, benchmark, compare_statements,
                                compare_timed, pdt_event_timer, torch_event_timer)

FLOPS = 2 * 4096 * 1024 * 1024


@benchmark("nn", "Linear 4096 x 1024 -> 1024 (CPU)", unit="GFLOP/s", nbytes=FLOPS, number=1,
           repeat=7, quick_number=1, target=MinSpeed("numpy", 1.0))
def linear_cpu(cfg):
    """One forward pass of nn.Linear(1024, 1024) on a batch of 4096, float32."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt("import pydevtensor as pdt; from pydevtensor import nn; "
                            "layer = nn.Linear(1024, 1024); x = pdt.rand(4096, 1024)",
                            "layer(x)"),
        "numpy": Stmt("import numpy as np; rng = np.random.default_rng(0); "
                      "W = rng.random((1024, 1024), np.float32); "
                      "b = rng.random(1024, np.float32); x = rng.random((4096, 1024), np.float32)",
                      "x @ W.T + b"),
        "torch": Stmt("import torch; layer = torch.nn.Linear(1024, 1024); "
                      "x = torch.rand(4096, 1024)", "torch.nn.functional.linear(x, layer.weight, "
                      "layer.bias)"),
    })


@benchmark("nn", "Linear 4096 x 1024 -> 1024 (GPU)", unit="GFLOP/s", nbytes=FLOPS, number=1,
           repeat=10, quick_number=1, target=MinSpeed("torch", 0.95))
def linear_gpu(cfg):
    """The same on the GPU, timed with CUDA events."""
    import pydevtensor as pdt
    if not pdt.cuda.is_available():
        raise Skip(f"no GPU: {pdt.cuda.unavailable_reason()}")
    from pydevtensor import nn
    layer, x = nn.Linear(1024, 1024, device="cuda"), pdt.rand(4096, 1024, device="cuda")
    timed = {"pydevtensor": Timed(pdt_event_timer(pdt, lambda: layer(x)), "CUDA events")}
    try:
        import torch
        tl = torch.nn.Linear(1024, 1024, device="cuda")
        tx = torch.rand(4096, 1024, device="cuda")
        timed["torch"] = Timed(torch_event_timer(
            torch, lambda: torch.nn.functional.linear(tx, tl.weight, tl.bias)), "CUDA events")
    except ImportError:
        pass
    return compare_timed(cfg, timed)
