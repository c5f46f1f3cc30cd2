"""Run by tests/test_distributed.py: the last rank dies (SIGKILL) after one collective;
the others must fail within the timeout (2 s), not hang."""
import os
import signal
import sys
import time

import pydevtensor as pdt
import pydevtensor.distributed as dist

dist.init_process_group("mpi", timeout=2)
rank, W = dist.get_rank(), dist.get_world_size()
t = pdt.ones(1000)
dist.all_reduce(t)
if rank == W - 1:
    os.kill(os.getpid(), signal.SIGKILL)
start = time.monotonic()
try:
    for _ in range(1000):
        dist.all_reduce(t)
        time.sleep(0.01)
except RuntimeError as exc:
    print(f"RAISED {rank} after {time.monotonic() - start:.1f} s: {exc}", flush=True)
    try:
        dist.all_reduce(t)
    except RuntimeError as again:
        print(f"AGAIN {rank}: {again}", flush=True)
    sys.exit(3)
print(f"NO ERROR {rank}", flush=True)
