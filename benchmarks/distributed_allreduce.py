"""all_reduce bandwidth on CPU tensors: pydevtensor.distributed against mpi4py on NumPy
arrays directly (the same MPI underneath), float32, 1 KB to 256 MB, in place, SUM.

    python -m pydevtensor.distributed.run -n 2 benchmarks/distributed_allreduce.py [max_mb]

Rank 0 prints, per size, the median time of each (alternating runs, so both see the same
load), mpi4py's nonblocking Iallreduce + Wait (what pydevtensor calls), and the bus
bandwidth 2 (W - 1) / W * bytes / time (NCCL's convention).
pydevtensor adds its agreement check (one small MPI_Iallgather) and the MPI_Test
polling to each call: the difference at small sizes is that cost."""
import sys
import time

import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist


def timed(fn, reps):
    fn()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main():
    dist.init_process_group("mpi")
    from mpi4py import MPI
    comm = MPI.COMM_WORLD.Dup()
    rank, W = dist.get_rank(), dist.get_world_size()
    max_bytes = int(float(sys.argv[1]) * 2**20) if len(sys.argv) > 1 else 256 * 2**20
    nbytes = 1024
    if rank == 0:
        print(f"all_reduce, float32, {W} ranks; median of alternating runs")
        print(f"{'size':>8} {'pydevtensor':>12} {'mpi4py':>12} {'ratio':>6} "
              f"{'busbw pdt':>10} {'busbw mpi4py':>12} {'Iallreduce':>11} {'ratio':>6}")
    while nbytes <= max_bytes:
        n = nbytes // 4
        t = pdt.ones(n)
        a = np.ones(n, dtype=np.float32)
        reps = max(5, min(2000, int(2e7 // max(nbytes, 1))))
        ours, theirs, theirs_nb = [], [], []
        for _ in range(3):  # alternate, so both see the same load
            ours += timed(lambda: dist.all_reduce(t), reps)
            comm.Barrier()
            theirs += timed(lambda: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), reps)
            comm.Barrier()
            theirs_nb += timed(lambda: comm.Iallreduce(MPI.IN_PLACE, a, MPI.SUM).Wait(), reps)
            comm.Barrier()
        mo, mt = float(np.median(ours)), float(np.median(theirs))
        mn = float(np.median(theirs_nb))
        if rank == 0:
            bus = 2 * (W - 1) / W * nbytes
            size = f"{nbytes >> 10} KB" if nbytes < 2**20 else f"{nbytes >> 20} MB"
            print(f"{size:>8} {mo * 1e6:10.1f}us {mt * 1e6:10.1f}us {mo / mt:6.2f} "
                  f"{bus / mo / 1e9:8.2f}GB/s {bus / mt / 1e9:10.2f}GB/s {mn * 1e6:9.1f}us "
                  f"{mo / mn:6.2f}", flush=True)
        nbytes *= 4
    comm.Free()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
