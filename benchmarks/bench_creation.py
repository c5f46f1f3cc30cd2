"""Creating small tensors on the CPU, where the cost is all call overhead: argument
parsing, dtype and device resolution, allocation and the Python object.

The reference is NumPy with the same dtype (pydevtensor's default float32);
np.ones(3) is NumPy's default float64, as a user would write it.
"""
from benchmarks.harness import MaxRatio, Stmt, benchmark, compare_statements

PDT = "import pydevtensor as pdt"
NP = "import numpy as np"
TORCH = "import torch"


@benchmark("creation", "ones(3)", unit="ns", target=MaxRatio("numpy", 1.0))
def ones_3(cfg):
    """pdt.ones(3) vs np.ones(3) vs torch.ones(3)."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt(PDT, "pdt.ones(3)", check="pdt.ones(3).tolist() == [1.0, 1.0, 1.0]"),
        "numpy": Stmt(NP, "np.ones(3)", check="np.ones(3).tolist() == [1.0, 1.0, 1.0]"),
        "torch": Stmt(TORCH, "torch.ones(3)",
                      check="torch.ones(3).tolist() == [1.0, 1.0, 1.0]"),
    })


@benchmark("creation", "tensor([1., 2., 3.])", unit="ns", target=MaxRatio("numpy", 1.0))
def tensor_list_3(cfg):
    """pdt.tensor([1., 2., 3.]) vs np.array([1., 2., 3.], dtype=np.float32) vs
    torch.tensor([1., 2., 3.]): all float32."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt(PDT, "pdt.tensor([1., 2., 3.])",
                            check="pdt.tensor([1., 2., 3.]).tolist() == [1.0, 2.0, 3.0] "
                                  "and pdt.tensor([1., 2., 3.]).dtype == pdt.float32"),
        "numpy": Stmt(NP, "np.array([1., 2., 3.], dtype=np.float32)",
                      check="np.array([1., 2., 3.], dtype=np.float32).tolist() == [1, 2, 3]"),
        "torch": Stmt(TORCH, "torch.tensor([1., 2., 3.])",
                      check="torch.tensor([1., 2., 3.]).dtype == torch.float32"),
    })
