"""init_process_group("gloo"), as PyTorch's CPU tutorials write it: a group whose CPU
tensors go through MPI, as 'mpi''s do (Note [gloo is MPI here] in
pydevtensor/distributed/__init__.py).  One process (MPI's singleton: no mpiexec needed),
in a fresh interpreter; the collectives across ranks are test_distributed.py's."""
import pytest

from conftest import run_python

pytest.importorskip("mpi4py")

GLOO = """
import numpy as np
import pydevtensor as pdt
import pydevtensor.distributed as dist
dist.init_process_group("gloo", init_method="env://", rank=0, world_size=1)
print(dist.get_backend(), dist.get_rank(), dist.get_world_size())
a = np.linspace(-1.0, 1.0, 5)
x = pdt.tensor(a)
dist.all_reduce(x)  # one rank: the sum is x itself, through MPI
dist.broadcast(x, src=0)
print(bool(np.array_equal(x.numpy(), a)))
sub = dist.new_group([0], backend="gloo")
print(dist.get_process_group_ranks(sub))
"""


def test_gloo_is_accepted_and_carries_cpu_tensors_through_mpi():
    """It was refused (ValueError 'backend must be one of ['mpi', 'nccl']')."""
    assert run_python(GLOO + "dist.destroy_process_group()\n") == [
        "gloo", "0", "1", "True", "[0]"]


@pytest.mark.cuda
def test_gloo_refuses_a_cuda_tensor_and_names_nccl():
    """PyTorch's gloo stages a CUDA tensor through the host; ours, as 'mpi', refuses it
    (no hidden device-to-host copy) and says which backend carries it."""
    # cuda:0: the fresh interpreter has no logical split, so CI's cuda:1 of one GPU is
    # not there (CUDA_DEVICES names the devices of this process)
    code = GLOO + """
try:
    dist.all_reduce(pdt.ones(2, device='cuda:0'))
except RuntimeError as e:
    print('RuntimeError', "backend is 'gloo'" in str(e), "init_process_group('nccl')" in str(e))
dist.destroy_process_group()
"""
    assert run_python(code)[-3:] == ["RuntimeError", "True", "True"]
