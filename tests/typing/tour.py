"""The README's tour, as a user's typed script: tests/test_typing.py runs mypy --strict on
it (it is never imported by pytest).  reveal_type lines are checked by the test."""
import numpy as np
import numpy.typing as npt
from typing import Any

import pydevtensor as torch

# Computing devices
cpu, gpu, gpu1 = torch.device("cpu"), torch.device("cuda"), torch.device("cuda:1")
n: int = torch.device_count()
devices: list[torch.device] = torch.try_all_gpus()
where: torch.device = torch.try_gpu(10)
kind: str = where.type
index: int | None = where.index

# Tensors and GPUs
x = torch.tensor([1, 2, 3])
reveal_type(x)
reveal_type(torch.ones(2, 3))  # an editor completes `x.` from this
on: torch.device = x.device
X = torch.ones(2, 3, device=torch.try_gpu())
shape: tuple[int, ...] = X.shape
rows: int = X.size(0)

# Copying: explicit, counted, and free when nothing moves
torch.reset_transfer_stats()
Z = X.to(torch.try_gpu())
same: bool = Z.to(torch.try_gpu()) is Z
host = X.cpu().cpu()
stats: dict[str, dict[str, int]] = torch.transfer_stats()
copies: int = stats["host_to_device"]["count"]

# The same random numbers on every device
torch.manual_seed(0)
a = torch.rand(2, 3)
torch.manual_seed(0)
b = torch.rand(2, 3, device=torch.try_gpu())
equal: bool = a.tolist() == b.cpu().tolist()

# The NumPy boundary
arr: npt.NDArray[Any] = a.numpy()
back = torch.from_numpy(np.zeros(3))
explicit = b.cpu().numpy()

# Operations, reductions, matmul, dtypes
y = (X * 2 + 1).relu().sum(dim=0, keepdim=True)
m = X @ X.T
v = torch.matmul(X, X.t()).mean()
val: float | int | bool = v.item()
mx, at = X.max(dim=1)
f64 = X.to(torch.float64)
dt: torch.dtype = f64.dtype
is_float: bool = dt.is_floating_point
info = torch.build_info()
with torch.transfer_guard("disallow"):
    z = x + 1
