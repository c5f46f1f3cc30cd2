"""Joining, selection and sorting (issue 17) against NumPy on the CPU: cat, stack,
where, boolean-mask indexing and sort, each on a few million float32 elements.

The targets are the ratios the implementation reaches on a 2-core machine (the
ops are memory-bound copies, or one merge sort per row), with room for noise;
the table shows the measured ratio.
"""
from benchmarks.harness import MaxRatio, Stmt, benchmark, compare_statements

PDT = "import pydevtensor as pdt"
NP = "import numpy as np"
TORCH = "import torch"
N = 2**22  # 4M float32 = 16 MiB per operand


def _pair(pdt_setup, pdt_stmt, np_setup, np_stmt, torch_setup=None, torch_stmt=None, check=None):
    impls = {
        "pydevtensor": Stmt(PDT + "; " + pdt_setup, pdt_stmt, check=check),
        "numpy": Stmt(NP + "; " + np_setup, np_stmt),
    }
    if torch_setup:
        impls["torch"] = Stmt(TORCH + "; " + torch_setup, torch_stmt)
    return impls


RAND = {"pdt": f"x = pdt.rand({N}) - 0.5; y = pdt.rand({N})",
        "np": f"rng = np.random.default_rng(0); x = rng.random({N}, np.float32) - "
              f"np.float32(0.5); y = rng.random({N}, np.float32)",
        "torch": f"x = torch.rand({N}) - 0.5; y = torch.rand({N})"}


@benchmark("index", "cat of 8 x 512K float32", unit="ms", number=20, repeat=7,
           quick_number=2, target=MaxRatio("numpy", 2.0))
def cat_cpu(cfg):
    """cat of eight 512K-element float32 tensors (16 MiB out)."""
    parts = "ps = [{m}.ones(2**19) for _ in range(8)]"
    return compare_statements(cfg, _pair(
        parts.format(m="pdt"), "pdt.cat(ps)",
        "ps = [np.ones(2**19, np.float32) for _ in range(8)]", "np.concatenate(ps)",
        parts.format(m="torch"), "torch.cat(ps)"))


@benchmark("index", "stack of 8 x (512, 1024) float32", unit="ms", number=20, repeat=7,
           quick_number=2, target=MaxRatio("numpy", 2.0))
def stack_cpu(cfg):
    """stack of eight (512, 1024) float32 tensors along a new dim 1 (strided writes)."""
    parts = "ps = [{m}.ones(512, 1024) for _ in range(8)]"
    return compare_statements(cfg, _pair(
        parts.format(m="pdt"), "pdt.stack(ps, 1)",
        "ps = [np.ones((512, 1024), np.float32) for _ in range(8)]", "np.stack(ps, 1)",
        parts.format(m="torch"), "torch.stack(ps, 1)"))


@benchmark("index", "where on 4M float32", unit="ms", number=20, repeat=7, quick_number=2,
           target=MaxRatio("numpy", 2.0))
def where_cpu(cfg):
    """where(x > 0, x, y) on 4M float32 (the comparison included)."""
    return compare_statements(cfg, _pair(
        RAND["pdt"], "pdt.where(x > 0, x, y)", RAND["np"], "np.where(x > 0, x, y)",
        RAND["torch"], "torch.where(x > 0, x, y)"))


@benchmark("index", "x[x > 0] on 4M float32", unit="ms", number=10, repeat=7, quick_number=2,
           target=MaxRatio("numpy", 1.0))
def mask_index_cpu(cfg):
    """Boolean-mask indexing x[x > 0] on 4M float32 (half the elements kept): the
    comparison, then the CPU's compress (Note [compress on the CPU]), with no branch per
    element where NumPy's mispredicts half of them."""
    return compare_statements(cfg, _pair(
        RAND["pdt"], "x[x > 0]", RAND["np"], "x[x > 0]", RAND["torch"], "x[x > 0]"))


@benchmark("index", "x[mask] on 4M float32, 1% and 99% kept", unit="ms", number=10, repeat=7,
           quick_number=2, target=MaxRatio("numpy", 1.0))
def mask_index_extremes_cpu(cfg):
    """x[m] with masks that keep 1% and then 99% of the elements (the sum of both
    times): long runs of False and of True, which NumPy copies run by run."""
    masks = "m1 = {m}.rand({n}) < 0.01; m99 = {m}.rand({n}) < 0.99"
    np_masks = (f"m1 = rng.random({N}) < 0.01; m99 = rng.random({N}) < 0.99")
    return compare_statements(cfg, _pair(
        RAND["pdt"] + "; " + masks.format(m="pdt", n=N), "x[m1]; x[m99]",
        RAND["np"] + "; " + np_masks, "x[m1]; x[m99]",
        RAND["torch"] + "; " + masks.format(m="torch", n=N), "x[m1]; x[m99]"))


@benchmark("index", "sort of 1M float32", unit="ms", number=3, repeat=5, quick_number=1,
           target=MaxRatio("numpy", 4.0))
def sort_cpu(cfg):
    """sort of one 1M-element float32 vector (values and indices; NumPy: a stable sort
    and argsort, which is what pydevtensor's sort gives)."""
    return compare_statements(cfg, _pair(
        "x = pdt.rand(2**20)", "pdt.sort(x)",
        "x = np.random.default_rng(0).random(2**20, np.float32)",
        "i = np.argsort(x, kind='stable'); x[i]",
        "x = torch.rand(2**20)", "torch.sort(x, stable=True)"))


@benchmark("index", "sort of (1024, 1024) float32 rows", unit="ms", number=3, repeat=5,
           quick_number=1, target=MaxRatio("numpy", 4.0))
def sort_rows_cpu(cfg):
    """sort of each row of a (1024, 1024) float32 matrix (rows in parallel)."""
    return compare_statements(cfg, _pair(
        "x = pdt.rand(1024, 1024)", "pdt.sort(x, 1)",
        "x = np.random.default_rng(0).random((1024, 1024), np.float32)",
        "i = np.argsort(x, 1, kind='stable'); np.take_along_axis(x, i, 1)",
        "x = torch.rand(1024, 1024)", "torch.sort(x, dim=1, stable=True)"))
