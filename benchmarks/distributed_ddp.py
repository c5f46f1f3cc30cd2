"""DistributedDataParallel scaling on this machine: an MLP 784-256-10 (float32, SGD
momentum 0.9, cross-entropy), 128 samples per rank per step (weak scaling), 30 timed
steps after 3 warm-up ones; rank 0 prints samples per second over all ranks.

    for n in 1 2 4; do python -m pydevtensor.distributed.run -n $n benchmarks/distributed_ddp.py; done

On a machine with fewer cores than ranks the processes share cores (and OpenBLAS's
threads; each rank gets cpu_count // W threads): read it as what the gradient all-reduce and the processes cost, not a speed-up."""
import os
import time

import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist
from pydevtensor import nn, optim

dist.init_process_group("mpi")
rank, W = dist.get_rank(), dist.get_world_size()
pdt.set_num_threads(max(1, (os.cpu_count() or 1) // W))  # the cores shared out among ranks
pdt.manual_seed(0)
model = nn.parallel.DistributedDataParallel(
    nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)))
opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss = nn.CrossEntropyLoss()
rng = np.random.default_rng(rank)
X = pdt.tensor(rng.standard_normal((128, 784)).astype(np.float32))
y = pdt.tensor(rng.integers(0, 10, 128))


def step():
    opt.zero_grad()
    loss(model(X), y).backward()
    opt.step()


for _ in range(3):
    step()
dist.barrier()
t0 = time.perf_counter()
for _ in range(30):
    step()
dist.barrier()
seconds = time.perf_counter() - t0
if rank == 0:
    print(f"DDP, {W} process(es): {30 * 128 * W / seconds:,.0f} samples/s "
          f"({seconds / 30 * 1e3:.1f} ms per step, {len(model._buckets)} bucket(s))", flush=True)
dist.destroy_process_group()
