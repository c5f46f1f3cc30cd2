"""Run in every rank by tests/test_distributed.py (through mpiexec): the collectives
beyond all_reduce / broadcast / all_gather / reduce_scatter (reduce, gather, scatter,
all_to_all(_single), the object collectives, send / recv), the bitwise reductions, the
small integer dtypes, and strided, 0-d and empty tensors, against NumPy.  Each rank
writes $PDT_DIST_RESULTS/<rank>.json when every check passed."""
import json
import os

import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist
from distributed_worker import DTYPES, HALF, close, data, expect_error, tensor

R = dist.ReduceOp
ALL = DTYPES + ["uint8", "int8", "int16"]


def values(rank, dtype, shape=(3, 5)):
    if dtype in ("uint8", "int8", "int16"):
        return np.random.default_rng(50 + rank).integers(0, 9, shape).astype(dtype)
    return data(rank, dtype, shape)


def rooted(rank, W):
    for dtype in ALL:
        everyone = [values(r, dtype) for r in range(W)]
        pt = getattr(pdt, dtype)
        # reduce into the last rank; the others keep their tensor
        t = tensor(values(rank, dtype), dtype)
        op = R.MAX if dtype == "bool" else R.SUM
        dist.reduce(t, dst=W - 1, op=op)
        want = np.any(everyone, 0) if dtype == "bool" else np.sum(
            [a.astype(np.float64) for a in everyone], 0).astype(
                np.float64 if dtype in HALF or dtype.startswith("float") else dtype)
        close(t.numpy(), want if rank == W - 1 else everyone[rank], dtype)
        # gather into rank 0 (async), scatter from rank 1 % W
        outs = [pdt.zeros(3, 5, dtype=pt) for _ in range(W)] if rank == 0 else None
        work = dist.gather(tensor(values(rank, dtype), dtype), outs, dst=0, async_op=True)
        if work is not None:
            work.wait()
        for r in range(W if rank == 0 else 0):
            close(outs[r].numpy(), everyone[r], dtype)
        src = 1 % W
        pieces = [tensor(values(100 + r, dtype), dtype) for r in range(W)]
        out = pdt.zeros(3, 5, dtype=pt)
        dist.scatter(out, pieces if rank == src else None, src=src)
        close(out.numpy(), values(100 + rank, dtype), dtype)
        # all_to_all_single: rank r sends rows [2j, 2j + 2) of its (2W, 3) input to rank j
        inp = values(rank, dtype, (2 * W, 3))
        out = pdt.zeros(2 * W, 3, dtype=pt)
        dist.all_to_all_single(out, tensor(inp, dtype))
        close(out.numpy(), np.concatenate([values(r, dtype, (2 * W, 3))[2 * rank:2 * rank + 2]
                                           for r in range(W)]), dtype)


def all_to_all_uneven(rank, W):
    # rank r sends j + 1 rows to rank j: rank j receives j + 1 rows from each rank
    src = np.arange(sum(j + 1 for j in range(W)) * 2, dtype=np.float32).reshape(-1, 2) + 100 * rank
    out = pdt.zeros(W * (rank + 1), 2)
    dist.all_to_all_single(out, pdt.tensor(src), [rank + 1] * W, [j + 1 for j in range(W)])
    start = sum(j + 1 for j in range(rank))
    want = np.concatenate([(np.arange(src.size, dtype=np.float32).reshape(-1, 2) + 100 * r)
                           [start:start + rank + 1] for r in range(W)])
    np.testing.assert_array_equal(out.numpy(), want)
    # the list form with a different shape per peer
    ins = [pdt.full((j + 1,), float(10 * rank + j)) for j in range(W)]
    outs = [pdt.zeros(rank + 1) for _ in range(W)]
    dist.all_to_all(outs, ins)
    for r in range(W):
        assert outs[r].tolist() == [10.0 * r + rank] * (rank + 1), (r, outs[r])
    # splits that do not meet: every rank raises naming both sides, no data moved
    out = pdt.zeros(W, 2)
    if W > 1:
        expect_error(ValueError, ["sends", "expects"], lambda: dist.all_to_all_single(
            out, pdt.ones(W, 2), [1] * W, [W] + [0] * (W - 1)))


def bitwise(rank, W):
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        x = values(rank, dtype) * 7 + rank
        everyone = [values(r, dtype) * 7 + r for r in range(W)]
        for op, f in ((R.BAND, np.bitwise_and), (R.BOR, np.bitwise_or),
                      (R.BXOR, np.bitwise_xor)):
            t = pdt.tensor(x)
            dist.all_reduce(t, op=op)
            np.testing.assert_array_equal(t.numpy(), f.reduce(np.stack(everyone), 0))
    b = [values(r, "bool") for r in range(W)]
    for op, f in ((R.BAND, np.logical_and), (R.BOR, np.logical_or), (R.BXOR, np.logical_xor)):
        t = pdt.tensor(b[rank])
        dist.all_reduce(t, op=op)
        np.testing.assert_array_equal(t.numpy(), f.reduce(np.stack(b), 0))
    expect_error(TypeError, ["BAND needs an integer or bool dtype", "float32", f"rank {rank}"],
                 lambda: dist.all_reduce(pdt.ones(2), op=R.BAND))


def layouts(rank, W):
    """Strided tensors are reduced and written in place as contiguous ones; 0-d and empty
    tensors work."""
    base = np.arange(12.0).reshape(3, 4) + rank
    total = sum(np.arange(12.0).reshape(3, 4) + r for r in range(W))
    for dtype in ("float32", "bfloat16", "int64"):
        holder = tensor(base.astype(np.float32 if dtype != "int64" else np.int64), dtype)
        view = holder.T  # not contiguous
        dist.all_reduce(view)
        close(holder.numpy(), total, dtype)
        col = tensor(base.astype(np.float32), "float32")[:, 1]
        dist.broadcast(col, src=W - 1)
        close(col.numpy(), base[:, 1] - rank + W - 1, "float32")
    outs = [pdt.zeros(4, 3).T for _ in range(W)]
    dist.all_gather(outs, pdt.tensor(base.T.astype(np.float32)).T)
    for r in range(W):
        close(outs[r].numpy(), (np.arange(12.0).reshape(3, 4) + r), "float32")
    z = pdt.tensor(float(rank + 1))
    dist.all_reduce(z, op=R.PRODUCT)
    assert z.shape == () and z.item() == float(np.prod(np.arange(1, W + 1))), z
    # a NaN on any rank is the MAX and the MIN there, as torch.maximum (MPI's MAX dropped it)
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        rows = [np.full(W + 1, float(r)) for r in range(W)]
        for r in range(W):
            rows[r][r] = np.nan
        for op, f in ((R.MAX, np.maximum), (R.MIN, np.minimum)):
            t = tensor(rows[rank], dtype) if dtype in HALF else pdt.tensor(
                rows[rank].astype(dtype))
            dist.all_reduce(t, op=op)
            np.testing.assert_array_equal(t.float().numpy(), f.reduce(np.stack(rows), 0))
    e = pdt.zeros(0, 3)
    dist.all_reduce(e)
    assert tuple(e.shape) == (0, 3)
    # an expanded tensor is refused on every rank before anything moves (broadcast's
    # receivers raised copy_'s error after it, the root none; all_gather had written the
    # outputs before the expanded one)
    if W > 1:  # the root's tensor is contiguous: the others' refusal reaches it
        expect_error(ValueError if rank else RuntimeError,
                     ["share memory", "clone()"] if rank else ["rejected their arguments"],
                     lambda: dist.broadcast(pdt.ones(1).expand(3) if rank else pdt.ones(3),
                                            src=0))
    outs = [pdt.zeros(3) for _ in range(W - 1)] + [pdt.zeros(1).expand(3)]
    expect_error(ValueError, ["share memory"],
                 lambda: dist.all_gather(outs, pdt.ones(3)))
    assert all(o.tolist() == [0.0] * 3 for o in outs)


def objects(rank, W):
    got = [None] * W
    dist.all_gather_object(got, {"rank": rank, "text": "x" * rank, "t": [rank] * rank})
    assert got == [{"rank": r, "text": "x" * r, "t": [r] * r} for r in range(W)], got
    lst = [rank, "mine", None] if rank == W - 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=W - 1)
    assert lst == [W - 1, "mine", None], lst
    into = [None] * W if rank == W - 1 else None
    dist.gather_object(("from", rank), into, dst=W - 1)
    assert into == ([("from", r) for r in range(W)] if rank == W - 1 else None), into
    out = [None]
    dist.scatter_object_list(out, [{"to": r} for r in range(W)] if rank == 0 else None, src=0)
    assert out == [{"to": rank}], out
    expect_error(ValueError if rank == 0 else RuntimeError,
                 ["object_gather_list must be a list of world_size"] if rank == 0
                 else ["rank(s) [0] rejected"],
                 lambda: dist.gather_object(1, None, dst=0))
    empty = []
    dist.broadcast_object_list(empty, src=0)
    assert empty == []
    expect_error(ValueError, ["world_size", f"rank {rank}"],
                 lambda: dist.all_gather_object([None] * (W + 1), rank))
    if W > 1:  # lists of different lengths: every rank raises, nothing is exchanged
        expect_error(ValueError, ["disagree"],
                     lambda: dist.broadcast_object_list([None] * (1 + (rank == 0)), src=0))


def p2p(rank, W):
    nxt, prev = (rank + 1) % W, (rank - 1) % W
    for dtype in ALL:
        x = tensor(values(rank, dtype), dtype)
        got = pdt.zeros(3, 5, dtype=getattr(pdt, dtype))
        work = dist.isend(x, nxt, tag=3)
        assert dist.recv(got, src=prev, tag=3) == prev
        work.wait()
        close(got.numpy(), values(prev, dtype), dtype)
    # src=None takes any sender; a strided receiver is written in place
    if rank == 0:
        for _ in range(W - 1):
            holder = pdt.zeros(2, 3)
            sender = dist.recv(holder.T)
            np.testing.assert_array_equal(holder.numpy(), np.full((2, 3), float(sender)))
    else:
        dist.send(pdt.full((3, 2), float(rank)), dst=0)
    # a message of another size: the receiver raises naming both, the channel stays usable
    if rank == 0:
        dist.send(pdt.ones(5), dst=1)
        dist.send(pdt.ones(4), dst=1)
    elif rank == 1:
        expect_error(ValueError, ["rank 0 sent 5 float32", "(4,) float32", "rank 1"],
                     lambda: dist.recv(pdt.zeros(4), src=0))
        got = pdt.zeros(4)
        w = dist.irecv(got, src=0)
        w.wait()
        assert got.tolist() == [1.0] * 4
    # receives waited on out of order get the messages in the order they were posted
    # (b's wait() first gave b a's message; sizes that differ aborted the job)
    if rank == 0:
        for value, n in ((1.0, 4), (2.0, 4), (3.0, 3), (4.0, 5)):
            dist.send(pdt.full((n,), value), dst=1, tag=5)
    elif rank == 1:
        got = [pdt.zeros(4), pdt.zeros(4), pdt.zeros(3), pdt.zeros(5)]
        works = [dist.irecv(got[0], src=0, tag=5), dist.irecv(got[1], src=0, tag=5),
                 dist.irecv(got[2], tag=5), dist.irecv(got[3], tag=5)]
        for i in (1, 0, 3, 2):
            works[i].wait()
        assert [t.tolist() for t in got] == [[1.0] * 4, [2.0] * 4, [3.0] * 3, [4.0] * 5]
    expect_error(ValueError, ["another rank than"], lambda: dist.send(pdt.ones(1), dst=rank))
    expect_error(ValueError, ["dst must be a rank", str(W)], lambda: dist.send(pdt.ones(1), W))


def bad_rooted(rank, W):
    expect_error(ValueError, ["dst must be a rank", f"rank {rank}"],
                 lambda: dist.reduce(pdt.ones(2), dst=W))
    expect_error(ValueError if rank == 0 else RuntimeError,
                 ["gather_list must be given on the destination rank (0)"] if rank == 0
                 else ["rank(s) [0] rejected"], lambda: dist.gather(pdt.ones(2), None, dst=0))
    if W > 1:  # rank 1 passes a scatter_list too
        expect_error(ValueError if rank == 1 else RuntimeError,
                     ["must not be given", "source rank (0)"] if rank == 1
                     else ["rank(s) [1] rejected"],
                     lambda: dist.scatter(pdt.ones(2), [pdt.ones(2)] * W if rank < 2 else None,
                                          src=0))
    wrong = [pdt.ones(3) for _ in range(W)]
    expect_error(ValueError if rank == 0 else RuntimeError,
                 ["gather_list[0] is (3,) float32", "(2,) float32"] if rank == 0
                 else ["rank(s) [0] rejected"],
                 lambda: dist.gather(pdt.ones(2), wrong if rank == 0 else None, dst=0))


def subgroups(rank, W):
    """new_group of the even world ranks: collectives among them only, with world-rank
    src / dst and group ranks through group_src / group_dst; the others are not members."""
    evens = list(range(0, W, 2))
    g = dist.new_group(evens)
    if rank % 2:
        assert g == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        expect_error(ValueError, ["not a member"], lambda: dist.all_reduce(pdt.ones(1), group=g))
        from pydevtensor import nn
        expect_error(ValueError, ["not a member of process_group"],
                     lambda: nn.parallel.DistributedDataParallel(nn.Linear(1, 1), process_group=g))
    else:
        assert dist.get_rank(g) == rank // 2 and dist.get_world_size(g) == len(evens)
        assert dist.get_process_group_ranks(g) == evens
        assert [dist.get_global_rank(g, i) for i in range(len(evens))] == evens
        assert dist.get_group_rank(g, rank) == rank // 2
        if W > 1:
            expect_error(ValueError, ["not a member"], lambda: dist.get_group_rank(g, 1))
        t = pdt.tensor([float(rank + 1)])
        dist.all_reduce(t, group=g)
        assert t.item() == sum(r + 1 for r in evens), t
        last = evens[-1]
        t = pdt.tensor([float(rank)])
        dist.broadcast(t, src=last, group=g)
        assert t.item() == last
        outs = [pdt.zeros(1) for _ in evens]
        dist.all_gather(outs, pdt.tensor([float(rank)]), group=g)
        assert [o.item() for o in outs] == evens
        t = pdt.tensor([float(rank + 1)])
        dist.reduce(t, group_dst=0, group=g)
        assert t.item() == (sum(r + 1 for r in evens) if rank == 0 else rank + 1)
        objs = [None] * len(evens)
        dist.all_gather_object(objs, f"r{rank}", group=g)
        assert objs == [f"r{r}" for r in evens]
        if len(evens) > 1:
            if rank == 0:
                dist.send(pdt.tensor([7.0]), dst=last, group=g)
            elif rank == last:
                got = pdt.zeros(1)
                assert dist.recv(got, group=g) == 0 and got.item() == 7.0
        if W > 1:  # a world rank outside the group
            expect_error(ValueError, ["src must be a rank of the group", "[0"],
                         lambda: dist.broadcast(pdt.ones(1), src=1, group=g))
        # DDP over the group: the first member's weights, gradients averaged over members
        from pydevtensor import nn
        layer = nn.Linear(3, 1, bias=False)
        with pdt.no_grad():
            layer.weight.fill_(float(rank))
        ddp = nn.parallel.DistributedDataParallel(layer, process_group=g)
        assert layer.weight.tolist() == [[0.0] * 3]
        ddp(pdt.full((2, 3), float(rank + 1))).sum().backward()
        want = np.mean([2.0 * (r + 1) for r in evens])
        np.testing.assert_allclose(layer.weight.grad.numpy(), np.full((1, 3), want), rtol=1e-6)
        # SyncBatchNorm over the group: its statistics are the members' only
        bn = nn.SyncBatchNorm(2, process_group=g)
        bn(pdt.full((2, 2), float(rank * rank)))
        np.testing.assert_allclose(bn.running_mean.numpy(), [0.1 * np.mean(np.square(evens))] * 2,
                                   rtol=1e-6)
        dist.barrier(group=g)
        dist.destroy_process_group(g)
        expect_error(ValueError, ["destroyed"], lambda: dist.barrier(group=g))
    expect_error(TypeError, ["group must be None"], lambda: dist.barrier(group="world"))
    t = pdt.ones(1)
    dist.all_reduce(t, group=dist.group.WORLD)
    assert t.item() == W
    # a group left open is closed with the default group
    dist.new_group(list(range(W)))


def main():
    dist.init_process_group("mpi", timeout=60)
    rank, W = dist.get_rank(), dist.get_world_size()
    rooted(rank, W)
    all_to_all_uneven(rank, W)
    bitwise(rank, W)
    layouts(rank, W)
    objects(rank, W)
    if W > 1:
        p2p(rank, W)
    bad_rooted(rank, W)
    subgroups(rank, W)
    t = pdt.ones(2)
    dist.all_reduce(t)  # the group still works
    assert t.tolist() == [W, W]
    dist.barrier()
    dist.destroy_process_group()
    with open(os.path.join(os.environ["PDT_DIST_RESULTS"], f"{rank}.json"), "w") as f:
        json.dump({"rank": rank, "world": W}, f)


if __name__ == "__main__":
    main()
