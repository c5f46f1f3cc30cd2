"""The NumPy boundary on the CPU: t.numpy() and from_numpy(a) share memory, so they
should cost about what np.asarray(ndarray) costs (a target of under 1 us each)."""
from benchmarks.harness import MaxSeconds, Stmt, benchmark, compare_statements

NP = "import numpy as np; a = np.ones(3, dtype=np.float32)"


@benchmark("convert", "t.numpy()", unit="ns", target=MaxSeconds(1e-6, "pdt < 1 us"))
def tensor_numpy(cfg):
    """t.numpy() on a CPU float32 tensor of 3 vs np.asarray(a) vs torch's t.numpy()."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt("import pydevtensor as pdt; t = pdt.ones(3)", "t.numpy()",
                            check="t.numpy().tolist() == [1.0, 1.0, 1.0] "
                                  "and t.numpy().ctypes.data == t.data_ptr()"),
        "numpy": Stmt(NP, "np.asarray(a)", check="np.asarray(a) is a"),
        "torch": Stmt("import torch; t = torch.ones(3)", "t.numpy()",
                      check="t.numpy().ctypes.data == t.data_ptr()"),
    })


@benchmark("convert", "from_numpy(a)", unit="ns", target=MaxSeconds(1e-6, "pdt < 1 us"))
def from_numpy(cfg):
    """pdt.from_numpy(a) on a float32 array of 3 vs np.asarray(a) vs torch.from_numpy(a)."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt("import pydevtensor as pdt; " + NP, "pdt.from_numpy(a)",
                            check="pdt.from_numpy(a).data_ptr() == a.ctypes.data"),
        "numpy": Stmt(NP, "np.asarray(a)", check="np.asarray(a) is a"),
        "torch": Stmt("import torch; " + NP, "torch.from_numpy(a)",
                      check="torch.from_numpy(a).data_ptr() == a.ctypes.data"),
    })
