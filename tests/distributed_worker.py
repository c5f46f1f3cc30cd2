"""Run in every rank by tests/test_distributed.py (through mpiexec): many checks per
launch, since a launch costs about a second.  Each check asserts; an uncaught error on
one rank aborts the whole job (the others do not wait for the timeout).  Each rank
writes its results to $PDT_DIST_RESULTS/<rank>.json."""
import json
import os
import sys

import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist
from pydevtensor import config

R = dist.ReduceOp
DTYPES = ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16"]
HALF = ("float16", "bfloat16")
# 16-bit floats are reduced in float32 and rounded once: within half a unit in the last
# place of the result (2^-11 relative for float16, 2^-8 for bfloat16), plus float32's
# own error; broadcast and all_gather move their bits exactly.
TOL = {"float32": 1e-6, "float64": 1e-13, "float16": 2.0**-11 + 1e-6,
       "bfloat16": 2.0**-8 + 1e-6}


def data(rank, dtype, shape=(3, 5)):
    """Rank r's values as a NumPy array (16-bit floats: float64 values they hold exactly)."""
    rng = np.random.default_rng(1000 + rank)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    x = rng.standard_normal(shape).astype("float32")
    if dtype in HALF:
        return pdt.tensor(x).to(getattr(pdt, dtype)).float().numpy().astype(np.float64)
    return x.astype(dtype)


def tensor(values, dtype):
    t = pdt.tensor(values)
    return t.to(getattr(pdt, dtype)) if dtype in HALF else t


def close(got, want, dtype):
    if dtype.startswith("float") or dtype in HALF:
        got = np.asarray(got, dtype=np.float64)
        tol = TOL[dtype]
        np.testing.assert_allclose(got, want, rtol=tol, atol=1e-6 if dtype in HALF else tol)
    else:
        np.testing.assert_array_equal(got, want)


def collectives(rank, W, device):
    for dtype in DTYPES:
        everyone = [data(r, dtype) for r in range(W)]
        as64 = [a.astype(np.float64) if dtype != "bool" else a for a in everyone]
        want = {R.SUM: np.sum(as64, 0), R.MAX: np.max(as64, 0), R.MIN: np.min(as64, 0),
                R.PRODUCT: np.prod(as64, 0)}
        if dtype == "bool":
            want = {R.SUM: np.any(everyone, 0), R.MAX: np.any(everyone, 0),
                    R.MIN: np.all(everyone, 0), R.PRODUCT: np.all(everyone, 0)}
        else:
            want[R.AVG] = np.mean(as64, 0)
        for op, expected in want.items():
            if op is R.AVG and not (dtype.startswith("float") or dtype in HALF):
                continue
            t = tensor(data(rank, dtype), dtype).to(device)
            work = dist.all_reduce(t, op=op, async_op=(op is R.MAX))
            if work is not None:
                assert work.wait() and work.is_completed()
            close(t.numpy(), expected, dtype)
        if not (dtype.startswith("float") or dtype in HALF):
            t = tensor(data(rank, dtype), dtype).to(device)
            try:
                dist.all_reduce(t, op=R.AVG)
                raise AssertionError("AVG on an integer tensor did not raise")
            except TypeError as exc:
                assert "ReduceOp.AVG needs a floating dtype" in str(exc), exc
        # broadcast from the last rank
        t = tensor(data(rank, dtype), dtype).to(device)
        dist.broadcast(t, src=W - 1)
        close(t.numpy(), everyone[W - 1], dtype)
        # all_gather (list and tensor forms)
        outs = [pdt.zeros(3, 5, dtype=getattr(pdt, dtype)).to(device) for _ in range(W)]
        dist.all_gather(outs, tensor(data(rank, dtype), dtype).to(device))
        for r in range(W):
            close(outs[r].numpy(), everyone[r], dtype)
        out = pdt.zeros(W * 3, 5, dtype=getattr(pdt, dtype)).to(device)
        work = dist.all_gather_into_tensor(out, tensor(data(rank, dtype), dtype).to(device),
                                           async_op=True)
        work.wait()
        close(out.numpy(), np.concatenate(everyone), dtype)
        # reduce_scatter: rank r's input_list[k] is row block k of its data(r, shape (W, 4))
        blocks = [data(r, dtype, (W, 4)) for r in range(W)]
        op = R.SUM if dtype != "bool" else R.MAX
        out = pdt.zeros(4, dtype=getattr(pdt, dtype)).to(device)
        dist.reduce_scatter(out, [tensor(b, dtype).to(device) for b in blocks[rank]], op=op)
        total = np.any(blocks, 0) if dtype == "bool" else np.sum(
            [b.astype(np.float64) for b in blocks], 0)
        close(out.numpy(), total[rank], dtype)
        out = pdt.zeros(4, dtype=getattr(pdt, dtype)).to(device)
        dist.reduce_scatter_tensor(out, tensor(blocks[rank].reshape(-1), dtype).to(device), op=op)
        close(out.numpy(), total[rank], dtype)
    if W > 1:
        t = pdt.tensor(data(rank, "float32")).to(device)
        dist.all_reduce(t, op=R.AVG)
        dist.all_gather(outs := [pdt.zeros(3, 5).to(device) for _ in range(W)], t)
        for o in outs:  # every rank holds the same bits
            assert np.array_equal(o.numpy(), t.numpy())
        for dtype in ("float32", "float16"):  # a loss kept for logging requires grad
            w = pdt.ones(3, dtype=getattr(pdt, dtype), device=device, requires_grad=True)
            loss = (w * (rank + 1)).sum()
            dist.all_reduce(loss)
            assert loss.item() == 3 * sum(range(1, W + 1)), (dtype, loss.item())


def expect_error(kind, fragments, fn):
    try:
        fn()
    except kind as exc:
        for f in fragments:
            assert f in str(exc), (f, str(exc))
        return str(exc)
    raise AssertionError(f"no {kind.__name__} from {fn}")


def bad_input(rank, W):
    # a shape mismatch: every rank raises, naming every rank's shape
    expect_error(ValueError, ["disagree", f"rank {rank}"] +
                 [f"rank {r}: shape ({2 + r},)" for r in range(W)],
                 lambda: dist.all_reduce(pdt.ones(2 + rank)))
    # a dtype mismatch on the last rank
    expect_error(ValueError, ["disagree", "int64", "float32"],
                 lambda: dist.all_reduce(pdt.ones(3, dtype=pdt.int64 if rank == W - 1
                                                  else pdt.float32)))
    # a bad argument on rank 0 only: rank 0 raises its own error, the others name rank 0
    t = pdt.ones(4, 4)
    if rank == 0:
        expect_error(TypeError, ["op must be a ReduceOp", "rank 0"],
                     lambda: dist.all_reduce(t, op="sum"))
    else:
        expect_error(RuntimeError, ["rank(s) [0] rejected"], lambda: dist.all_reduce(t))
    # broadcast src disagreeing
    expect_error(ValueError, ["src="], lambda: dist.broadcast(pdt.ones(2), src=rank % 2))
    expect_error(ValueError, ["src must be a rank"], lambda: dist.broadcast(pdt.ones(2), src=W))
    expect_error(TypeError, ["must be a pydevtensor Tensor"],
                 lambda: dist.all_reduce(np.ones(3)))
    expect_error(ValueError, ["list of world_size"],
                 lambda: dist.all_gather([pdt.ones(2)], pdt.ones(2)))
    expect_error(ValueError, ["already initialized"], lambda: dist.init_process_group("mpi"))
    # the group still works after all of these
    t = pdt.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [W, W]


def counting(rank, W):
    pdt.reset_transfer_stats()
    n = 1000
    dist.all_reduce(pdt.ones(n))
    dist.broadcast(pdt.ones(n), src=0)
    dist.barrier()
    got = pdt.transfer_stats()["collective"]
    want = 2 * (W - 1) * 4 * n // W + (4 * n if rank == 0 else 0)
    assert got == {"count": 3, "bytes": want}, (got, want)


def nccl_checks(rank, W):
    """What surrounds NCCL, on the CPU (Note [NCCL ranks] in distributed/_nccl.py)."""
    from pydevtensor.distributed import _group, _nccl
    comm = _group._group.comm
    local, size = _nccl.local_rank(comm)
    assert (local, size) == (rank, W), (local, size)  # one node
    assert _nccl.local_rank(comm, {"OMPI_COMM_WORLD_LOCAL_RANK": "5"}) == (5, W)
    assert _nccl.choose_device(rank, local, size, W) == rank
    if W > 1:
        expect_error(RuntimeError, [f"rank {rank}", f"{W} ranks on this node", "1 CUDA"],
                     lambda: _nccl.choose_device(rank, local, size, 1))
    uid = _nccl.exchange_unique_id(comm, rank, lambda: bytes(range(128)) if rank == 0
                                   else b"never called")
    assert uid == bytes(range(128))
    assert _nccl.nccl_dtype("float32", rank) == 7 and _nccl.nccl_dtype("int64", rank) == 4
    assert _nccl.nccl_op("MAX", "bool", rank) == 2 and _nccl.nccl_op("AVG", "float64", 0) == 4
    expect_error(TypeError, ["AVG needs a floating dtype"],
                 lambda: _nccl.nccl_op("AVG", "int32", rank))


def main():
    mode = sys.argv[1]
    if mode == "logical":  # two logical CPU devices; odd ranks use cpu:1
        cpu = config.list_physical_devices("CPU")[0]
        config.set_logical_device_configuration(cpu, [config.LogicalDeviceConfiguration()] * 2)
    import pydevtensor as top
    assert "mpi4py" not in sys.modules, "import pydevtensor imported mpi4py"
    assert not dist.is_initialized()
    dist.init_process_group("mpi", timeout=60)
    rank, W = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    device = f"cpu:{rank % 2}" if mode == "logical" else "cpu"
    result = {"rank": rank, "world": W}
    if mode == "mixed":  # rank 1's tensor on a GPU, the others' on the CPU
        t = pdt.ones(3, device="cuda:0" if rank == 1 else "cpu")
        if rank == 1:
            expect_error(RuntimeError, ["rank 1", "cuda:0", "backend is 'mpi'"],
                         lambda: dist.all_reduce(t))
        else:
            expect_error(RuntimeError, ["rank(s) [1] rejected"], lambda: dist.all_reduce(t))
    else:
        collectives(rank, W, device)
    if mode == "logical":  # two local replicas per worker
        from distributed_ddp import mwms_check
        mwms_check(rank, W, ["cpu:0", "cpu:1"])
    if mode == "all":
        bad_input(rank, W)
        counting(rank, W)
        nccl_checks(rank, W)
        from distributed_ddp import ddp_checks
        result.update(ddp_checks(rank, W))
        from distributed_syncbn import syncbn_checks
        result.update(syncbn_checks(rank, W))
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized() and top is pdt
    if mode == "all" and not pdt.cuda.is_available():  # a clear error, no group left behind
        expect_error(RuntimeError, [f"rank {rank}", "no CUDA"],
                     lambda: dist.init_process_group("nccl"))
        assert not dist.is_initialized()
    # a file per rank: the ranks' stdout may interleave inside a line
    with open(os.path.join(os.environ["PDT_DIST_RESULTS"], f"{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()  # an uncaught error aborts the job (pydevtensor.distributed's excepthook)
