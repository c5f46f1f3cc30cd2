"""One rank of backend='nccl' (run by tests/test_distributed.py under mpiexec): every
collective on CUDA tensors, against NumPy, through the rank communicator (Note [NCCL rank
communicators] in csrc/cuda/cuda_nccl.c).  With one rank (the emulated device in CI) each
collective's result is still checked: all_reduce of one rank is its input (AVG divides by
1), broadcast from root 0 keeps it, all_gather copies it, reduce_scatter reduces it.  With
W ranks (real GPUs, one each) rank r holds (r + 1) * base.  Every dtype NCCL carries for
us: bool (as uint8), int32, int64, float16, bfloat16 (ncclFloat16/ncclBfloat16: no test
reached them before, by the emulated device's coverage), float32 and float64."""
import json
import os
import sys

import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist
from pydevtensor.distributed import ReduceOp, _group

DTYPES = ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16"]
HALF = ("float16", "bfloat16")  # made in float32, rounded to the dtype by pydevtensor
TOL = {"float32": 1e-6, "float64": 1e-12, "float16": 2e-3, "bfloat16": 2e-2}


def rounded(a, dtype):
    """a as NumPy holds dtype's values: a half dtype's in float32 (NumPy has no
    bfloat16), each rounded to the dtype."""
    if dtype in HALF:
        return pdt.tensor(a.astype(np.float32)).to(getattr(pdt, dtype)).float().numpy()
    return a.astype(dtype)


def base(dtype, n=12):
    rng = np.random.default_rng(1)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("int"):
        return rng.integers(-50, 50, n).astype(dtype)
    return rounded(rng.uniform(-1, 1, n), dtype)


def mine(dtype, rank):
    b = base(dtype)
    return b if dtype == "bool" else rounded(b * (rank + 1), dtype)


def make(a, dtype, dev):
    """A tensor of dtype on dev holding a (from rounded())."""
    return pdt.tensor(a, device=dev).to(getattr(pdt, dtype))


def reduce_ref(dtype, W, op):
    parts = [mine(dtype, r).astype(np.float64) for r in range(W)]
    if dtype == "bool":
        f = {ReduceOp.SUM: np.logical_or.reduce, ReduceOp.MAX: np.logical_or.reduce,
             ReduceOp.MIN: np.logical_and.reduce, ReduceOp.PRODUCT: np.logical_and.reduce}
        return f[op](np.stack(parts) != 0)
    stack = np.stack(parts)
    return {ReduceOp.SUM: stack.sum(0), ReduceOp.AVG: stack.mean(0),
            ReduceOp.PRODUCT: stack.prod(0), ReduceOp.MAX: stack.max(0),
            ReduceOp.MIN: stack.min(0)}[op]


def check(t, want, dtype, what):
    got = (t.cpu().double() if t.is_floating_point() else t.cpu()).numpy().astype(np.float64)
    want = np.asarray(want).astype(np.float64)
    tol = TOL.get(dtype, 0)
    assert np.allclose(got, want, rtol=tol, atol=tol), (what, dtype, got, want)


def main():
    dist.init_process_group("nccl")
    r, W = dist.get_rank(), dist.get_world_size()
    dev = f"cuda:{_group._group.nccl.device}"  # the local rank's GPU (Note [NCCL ranks])
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MAX, ReduceOp.MIN]
    for dtype in DTYPES:
        for op in ops + ([ReduceOp.AVG] if dtype.startswith("float") else []):
            t = make(mine(dtype, r), dtype, dev)
            dist.all_reduce(t, op=op)
            check(t, reduce_ref(dtype, W, op), dtype, f"all_reduce {op.name}")
        t = make(mine(dtype, r), dtype, dev)
        dist.broadcast(t, src=0)
        check(t, mine(dtype, 0), dtype, "broadcast")
        out = pdt.empty(W * 12, dtype=getattr(pdt, dtype), device=dev)
        dist.all_gather_into_tensor(out, make(mine(dtype, r), dtype, dev))
        check(out, np.concatenate([mine(dtype, q) for q in range(W)]), dtype, "all_gather")
        outs = [pdt.empty(12, dtype=getattr(pdt, dtype), device=dev) for _ in range(W)]
        dist.all_gather(outs, make(mine(dtype, r), dtype, dev))
        for q in range(W):
            check(outs[q], mine(dtype, q), dtype, "all_gather list")
        if dtype != "bool":
            big = np.concatenate([mine(dtype, r)] * W)
            out = pdt.empty(12, dtype=getattr(pdt, dtype), device=dev)
            dist.reduce_scatter_tensor(out, make(big, dtype, dev), op=ReduceOp.SUM)
            check(out, reduce_ref(dtype, W, ReduceOp.SUM), dtype, "reduce_scatter")
    # async_op: a Work whose wait() returns True; the result is there after it
    t = pdt.tensor(mine("float32", r), device=dev)
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed()
    check(t, reduce_ref("float32", W, ReduceOp.SUM), "float32", "async all_reduce")
    # counted: one all_reduce of 4 KB sends 2 (W - 1) / W of it
    pdt.reset_transfer_stats()
    dist.all_reduce(pdt.ones(1024, device=dev))
    c = pdt.transfer_stats()["collective"]
    assert c["count"] == 1 and c["bytes"] == 2 * (W - 1) * 4096 // W, c
    # an integer AVG is refused on every rank before anything moves
    try:
        dist.all_reduce(pdt.ones(3, dtype=pdt.int32, device=dev), op=ReduceOp.AVG)
        raise AssertionError("int AVG was accepted")
    except TypeError as e:
        assert f"rank {r}" in str(e) and "floating" in str(e), e
    finish(r, W)


def finish(r, W):
    """Ends the group and writes this rank's result for the test to read."""
    dist.destroy_process_group()
    out_dir = os.environ.get("PDT_DIST_RESULTS")
    if out_dir:
        with open(os.path.join(out_dir, f"{r}.json"), "w") as f:
            json.dump({"rank": r, "world": W}, f)
    print("ok", r, W)


if __name__ == "__main__":
    sys.exit(main())
