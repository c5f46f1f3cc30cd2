"""Run by tests/test_distributed.py.  After one collective the last rank either dies
(argv[1] == 'kill': SIGKILL), or gets stuck (argv[1] == 'stuck': sleeps 60 s outside
any collective), or raises (argv[1] == 'raise'); the others must fail within the
timeout (2 s), or at once for the uncaught exception (the timeout is then 60 s).  Each
survivor writes what it saw to $PDT_DIST_RESULTS/<rank>.txt."""
import os
import signal
import sys
import time

import pydevtensor as pdt
import pydevtensor.distributed as dist

dist.init_process_group("mpi", timeout=60 if sys.argv[1] == "raise" else 2)
rank, W = dist.get_rank(), dist.get_world_size()
t = pdt.ones(1000)
dist.all_reduce(t)
dist.barrier()
if rank == W - 1:
    time.sleep(0.3)  # the others are past the barrier, in the loop below
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if sys.argv[1] == "raise":
        raise ValueError("an error in the training script")
    time.sleep(60)
    sys.exit(0)
out = open(os.path.join(os.environ["PDT_DIST_RESULTS"], f"{rank}.txt"), "w", buffering=1)
start = time.monotonic()
try:
    for _ in range(1000):
        dist.all_reduce(t)
        time.sleep(0.01)
except RuntimeError as exc:
    out.write(f"RAISED {rank} after {time.monotonic() - start:.1f} s: {exc}\n")
    try:
        dist.all_reduce(t)
    except RuntimeError as again:
        out.write(f"AGAIN {rank}: {again}\n")
    time.sleep(1.5)  # the first to exit aborts the job: let the other survivor report too
    sys.exit(3)
out.write(f"NO ERROR {rank}\n")
