"""One rank of backend='nccl' (run by tests/test_distributed.py under mpiexec): reduce
(ncclReduce), gather, scatter, all_to_all and all_to_all_single (ncclSend / ncclRecv in
one group), send / recv / isend / irecv, and new_group's own communicator, on CUDA
tensors against NumPy.  With one rank (the emulated device in CI) gather, scatter and
the all-to-alls are this rank's sends to itself, each received in the same group (NCCL's
"Point-to-point communication"); with W ranks (real GPUs, one each) rank r holds
(r + 1) * base and the messages cross processes."""
import sys

import numpy as np
from distributed_nccl import DTYPES, check, finish, make, mine, reduce_ref

import pydevtensor as pdt
import pydevtensor.distributed as dist
from pydevtensor import _C
from pydevtensor.distributed import ReduceOp, _group


def raises(kind, words, fn):
    try:
        fn()
    except kind as e:
        assert all(w in str(e) for w in words), (words, str(e))
        return
    raise AssertionError(f"no {kind.__name__} ({words})")


def rooted(r, W, dev):
    for dtype in DTYPES:
        for op in [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MAX, ReduceOp.MIN] + (
                [ReduceOp.AVG] if dtype.startswith("float") else []):
            for dst in sorted({0, W - 1}):
                t = make(mine(dtype, r), dtype, dev)
                dist.reduce(t, dst=dst, op=op)
                # the root holds the reduction, the others keep their tensor
                want = reduce_ref(dtype, W, op) if r == dst else mine(dtype, r)
                check(t, want, dtype, f"reduce {op.name} to {dst}")
        root = W - 1
        outs = [pdt.empty(12, dtype=getattr(pdt, dtype), device=dev) for _ in range(W)]
        dist.gather(make(mine(dtype, r), dtype, dev), outs if r == root else None, dst=root)
        for q in range(W if r == root else 0):
            check(outs[q], mine(dtype, q), dtype, "gather")
        got = pdt.zeros(12, dtype=getattr(pdt, dtype), device=dev)
        pieces = [make(mine(dtype, q + 3), dtype, dev) for q in range(W)]
        dist.scatter(got, pieces if r == 0 else None, src=0)
        check(got, mine(dtype, r + 3), dtype, "scatter")
        # rank r's block for rank j: mine(W * r + j); it arrives in rank j's output[r]
        ins = [make(mine(dtype, W * r + j), dtype, dev) for j in range(W)]
        outs = [pdt.empty(12, dtype=getattr(pdt, dtype), device=dev) for _ in range(W)]
        dist.all_to_all(outs, ins)
        for j in range(W):
            check(outs[j], mine(dtype, W * j + r), dtype, "all_to_all")
        check(ins[0], mine(dtype, W * r), dtype, "all_to_all's input is unchanged")


def all_to_all_single(r, W, dev):
    """Unequal splits: rank r sends j + 1 rows of 3 to rank j (an empty block when a
    count is 0 on the emulated device's one rank: none here) and receives r + 1 rows
    from each."""
    rows = W * (W + 1) // 2

    def data(q):
        return np.arange(rows * 3, dtype=np.float64).reshape(rows, 3) + 100 * q
    starts = np.concatenate([[0], np.cumsum(np.arange(1, W + 1))])
    for dtype in ("float32", "int64"):
        src = make(data(r), dtype, dev)
        out = pdt.empty((W * (r + 1), 3), dtype=getattr(pdt, dtype), device=dev)
        dist.all_to_all_single(out, src, output_split_sizes=[r + 1] * W,
                               input_split_sizes=list(range(1, W + 1)))
        want = np.concatenate([data(j)[starts[r]:starts[r + 1]] for j in range(W)])
        check(out, want, dtype, "all_to_all_single")
        even = make(np.arange(W * 4, dtype=np.float64).reshape(W * 2, 2) + 10 * r, dtype, dev)
        out = pdt.empty((W * 2, 2), dtype=getattr(pdt, dtype), device=dev)
        work = dist.all_to_all_single(out, even, async_op=True)
        assert work.wait() is True
        want = np.concatenate([(np.arange(W * 4).reshape(W * 2, 2) + 10 * j)[2 * r:2 * r + 2]
                               for j in range(W)])
        check(out, want, dtype, "all_to_all_single, equal splits, async")


def exchange(r, W, dev):
    """_C._comm_exchange directly: this rank's messages to itself in one group (on one
    rank, ncclSend and ncclRecv to self, which NCCL runs only within one group), in
    order; and what it refuses before anything is enqueued."""
    comm = _group._group.nccl.comm
    a, b = make(mine("float32", 1), "float32", dev), make(mine("float32", 2), "float32", dev)
    x, y = pdt.zeros(12, device=dev), pdt.zeros(12, device=dev)
    _C._comm_exchange(comm, [(True, a, r), (True, b, r), (False, x, r), (False, y, r)])
    check(x, mine("float32", 1), "float32", "first message to itself")
    check(y, mine("float32", 2), "float32", "second message to itself")
    raises(ValueError, ["1 message(s) to itself but 0"],
           lambda: _C._comm_exchange(comm, [(True, a, r)]))
    raises(ValueError, ["12 float32", "5 float32"],
           lambda: _C._comm_exchange(comm, [(True, a, r), (False, pdt.zeros(5, device=dev), r)]))
    raises(ValueError, [f"peer {W} of {W} ranks"],
           lambda: _C._comm_exchange(comm, [(True, a, W)]))
    raises(ValueError, ["not contiguous"],
           lambda: _C._comm_exchange(comm, [(True, pdt.zeros(4, 2, device=dev).t(), r),
                                            (False, pdt.zeros(8, device=dev), r)]))
    raises(RuntimeError, ["cpu"], lambda: _C._comm_exchange(comm, [(True, pdt.zeros(3), r)]))
    check(x, mine("float32", 1), "float32", "a refused exchange leaves the tensor")


def p2p(r, W, dev):
    t = make(mine("float32", r), "float32", dev)
    # to itself: refused, as PyTorch does (the NCCL path used to say "not supported")
    raises(ValueError, ["dst must be another rank"], lambda: dist.send(t, dst=r))
    raises(ValueError, ["src must be another rank"], lambda: dist.recv(t, src=r))
    raises(ValueError, ["NCCL receives from a named rank", "give src"], lambda: dist.recv(t))
    raises(TypeError, ["NCCL has no type for uint8"],
           lambda: dist.send(pdt.zeros(3, dtype=pdt.uint8, device=dev), dst=(r + 1) % W))
    if W < 2:
        return
    nxt, prv = (r + 1) % W, (r - 1) % W
    got = pdt.zeros(12, device=dev)
    if r % 2 == 0:  # a ring, without every rank sending first
        dist.send(t, dst=nxt)
        assert dist.recv(got, src=prv) == prv
    else:
        assert dist.recv(got, src=prv) == prv
        dist.send(t, dst=nxt)
    check(got, mine("float32", prv), "float32", "send / recv")
    if r == 0:
        dist.isend(make(mine("int64", 7), "int64", dev), dst=1).wait()
        dist.send(pdt.ones(4, device=dev), dst=1)  # the size the receiver does not expect
    elif r == 1:
        got = pdt.zeros(12, dtype=pdt.int64, device=dev)
        work = dist.irecv(got, src=0)
        assert work.wait() is True
        check(got, mine("int64", 7), "int64", "isend / irecv")
        small = pdt.zeros(3, device=dev)
        raises(ValueError, ["rank 0 sent 4 float32 elements", "dropped"],
               lambda: dist.recv(small, src=0))
        check(small, np.zeros(3), "float32", "a dropped message leaves the tensor")


def subgroups(r, W, dev):
    """new_group: a communicator of its own (every rank; then the last rank alone)."""
    everyone = dist.new_group(list(range(W)))
    assert everyone.nccl is not None and everyone.nccl.comm is not _group._group.nccl.comm
    t = make(mine("float64", r), "float64", dev)
    dist.all_reduce(t, group=everyone)
    check(t, reduce_ref("float64", W, ReduceOp.SUM), "float64", "all_reduce in new_group")
    t = make(mine("float64", r), "float64", dev)
    dist.reduce(t, group=everyone, group_dst=0, op=ReduceOp.MAX)
    check(t, reduce_ref("float64", W, ReduceOp.MAX) if r == 0 else mine("float64", r),
          "float64", "reduce in new_group")
    last = dist.new_group([W - 1])
    if r == W - 1:
        outs = [pdt.empty(12, dtype=pdt.float64, device=dev)]
        dist.gather(make(mine("float64", 5), "float64", dev), outs, group=last, group_dst=0)
        check(outs[0], mine("float64", 5), "float64", "gather in a one-rank new_group")
        dist.destroy_process_group(last)
    dist.destroy_process_group(everyone)


def main():
    dist.init_process_group("nccl")
    r, W = dist.get_rank(), dist.get_world_size()
    dev = f"cuda:{_group._group.nccl.device}"
    rooted(r, W, dev)
    all_to_all_single(r, W, dev)
    exchange(r, W, dev)
    p2p(r, W, dev)
    subgroups(r, W, dev)
    # counted as the MPI path does: a non-root's reduce sends its tensor, the root nothing
    pdt.reset_transfer_stats()
    dist.reduce(pdt.ones(256, device=dev), dst=0)
    c = pdt.transfer_stats()["collective"]
    assert c["count"] == 1 and c["bytes"] == (0 if r == 0 else 1024), c
    finish(r, W)


if __name__ == "__main__":
    sys.exit(main())
