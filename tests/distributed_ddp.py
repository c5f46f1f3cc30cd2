"""DistributedDataParallel and MultiWorkerMirroredStrategy checks, run in every rank by
tests/distributed_worker.py (mode 'all')."""
import numpy as np

import pydevtensor as pdt
import pydevtensor.distributed as dist
from pydevtensor import nn, optim

B = 24  # the global batch: 12 per rank on 2 ranks, 6 on 4


def mlp(seed):
    pdt.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 3))


def batches(steps):
    rng = np.random.default_rng(7)
    return [(rng.standard_normal((B, 6)).astype(np.float32), rng.integers(0, 3, B))
            for _ in range(steps)]


def flat(module):
    return np.concatenate([p.detach().numpy().reshape(-1) for p in module.parameters()])


def same_on_every_rank(values, W):
    gathered = [pdt.zeros(values.size) for _ in range(W)]
    dist.all_gather(gathered, pdt.tensor(values))
    return all(np.array_equal(g.numpy(), values) for g in gathered)


def ddp_checks(rank, W):
    lo, hi = rank * B // W, (rank + 1) * B // W
    ref = mlp(0)  # rank 0's initial weights: what the wrap broadcasts
    ref_opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    model = nn.parallel.DistributedDataParallel(mlp(rank), bucket_cap_mb=0.001)  # ~4 buckets
    assert len(model._buckets) >= 3, len(model._buckets)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    assert np.array_equal(flat(model.module), flat(ref))
    loss = nn.CrossEntropyLoss()
    worst = 0.0
    for step, (X, y) in enumerate(batches(4)):
        ref_opt.zero_grad()
        loss(ref(pdt.tensor(X)), pdt.tensor(y)).backward()
        ref_opt.step()
        opt.zero_grad(set_to_none=(step % 2 == 0))  # both ways of clearing
        loss(model(pdt.tensor(X[lo:hi])), pdt.tensor(y[lo:hi])).backward()
        opt.step()
        mine = flat(model.module)
        assert same_on_every_rank(mine, W), f"replicas differ after step {step}"
        err = np.abs(mine.astype(np.float64) - flat(ref))
        tol = 1e-6 + 1e-5 * np.abs(flat(ref))
        assert np.all(err <= tol), (step, float(err.max()))
        worst = max(worst, float(err.max()))
    # no_sync: local accumulation, then one averaged backward equals the sum of both
    model.zero_grad(set_to_none=False)
    X, y = batches(1)[0]
    with model.no_sync():
        loss(model(pdt.tensor(X[lo:hi])), pdt.tensor(y[lo:hi])).backward()
    loss(model(pdt.tensor(X[lo:hi])), pdt.tensor(y[lo:hi])).backward()
    ref.zero_grad()
    loss(ref(pdt.tensor(X)), pdt.tensor(y)).backward()
    for p, q in zip(model.module.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), 2 * q.grad.numpy(), rtol=1e-5, atol=1e-6)
    model.remove_hooks()
    unused_parameter_checks(rank, W, lo, hi)
    mwms_check(rank, W, ["cpu"])
    buffer_checks(rank, W)
    return {"ddp_max_error": worst, "buckets": len(model._buckets)}


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        pdt.manual_seed(3)
        self.a, self.b = nn.Linear(6, 3), nn.Linear(6, 3)

    def forward(self, x, use_b=True):
        return self.a(x) + self.b(x) if use_b else self.a(x)


def unused_parameter_checks(rank, W, lo, hi):
    """A parameter unused in one iteration: without find_unused_parameters the next
    forward raises PyTorch's error naming it (the bucket that waited for it used to
    start mid-way through the next backward, averaging the wrong gradients); with it,
    each iteration's gradients are those of the single-process full batch (zero for
    the unused layer), and the buckets start in the same order on every rank."""
    X, _ = batches(1)[0]
    x, full = pdt.tensor(X[lo:hi]), pdt.tensor(X)
    model = nn.parallel.DistributedDataParallel(TwoHeads(), bucket_cap_mb=0.0001)
    model(x, use_b=False).pow(2).mean().backward()
    try:
        model(x)
        raise AssertionError("no error after an iteration with an unused parameter")
    except RuntimeError as exc:
        assert "finished reduction in the prior iteration" in str(exc), exc
        assert "b.weight" in str(exc) and "b.bias" in str(exc), exc
    model.remove_hooks()
    ddp = nn.parallel.DistributedDataParallel(TwoHeads(), bucket_cap_mb=0.0001,
                                              find_unused_parameters=True)
    ref = TwoHeads()
    for use_b in (False, True, False):
        ddp.zero_grad()
        ref.zero_grad()
        ddp(x, use_b=use_b).pow(2).mean().backward()
        ref(full, use_b=use_b).pow(2).mean().backward()
        for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters()):
            want = q.grad.numpy() if q.grad is not None else np.zeros(q.shape, np.float32)
            np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}, use_b={use_b}")
    ddp.remove_hooks()


def buffer_checks(rank, W):
    """broadcast_buffers: rank 0's BatchNorm buffers reach every rank at wrap time and
    at each forward under grad mode, before the rank's own update; not under no_grad,
    not with broadcast_buffers=False; float32 and int64 buffers both travel."""
    rng = np.random.default_rng(11 + rank)  # each rank its own batches
    X = [pdt.tensor(rng.standard_normal((8, 6)).astype(np.float32)) for _ in range(3)]

    def bn_net():
        pdt.manual_seed(rank)
        net = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4))
        with pdt.no_grad():  # rank-specific buffers before the wrap
            net[1].running_mean.fill_(float(rank))
            net[1].num_batches_tracked.fill_(10 * rank)
        return net

    def local_mean(model, x):
        with pdt.no_grad():
            return model.module[0](x).mean(0).numpy().astype(np.float64)

    model = nn.parallel.DistributedDataParallel(bn_net())
    bn = model.module[1]
    assert np.all(bn.running_mean.numpy() == 0) and bn.num_batches_tracked.item() == 0
    for step in range(2):
        gathered = [pdt.zeros(4) for _ in range(W)]
        dist.all_gather(gathered, bn.running_mean)
        ref0 = gathered[0].numpy().astype(np.float64)  # rank 0's buffer
        with pdt.no_grad():  # a rank-specific change, undone by the next broadcast
            bn.running_mean.add_(float(rank))
            bn.num_batches_tracked.add_(rank)
        model(X[step])
        want = 0.9 * ref0 + 0.1 * local_mean(model, X[step])
        got = bn.running_mean.numpy()
        assert np.allclose(got, want, rtol=1e-5, atol=1e-6), (step, got, want)
        assert bn.num_batches_tracked.item() == step + 1
    model.eval()
    with pdt.no_grad():  # no broadcast in evaluation under no_grad: each rank's own
        bn.running_mean.fill_(float(rank))
        model(X[2])
    assert np.all(bn.running_mean.numpy() == rank)
    model.train()
    off = nn.parallel.DistributedDataParallel(bn_net(), broadcast_buffers=False)
    obn = off.module[1]
    with pdt.no_grad():
        obn.running_mean.fill_(float(rank))
    off(X[0])
    want = 0.9 * rank + 0.1 * local_mean(off, X[0])
    assert np.allclose(obn.running_mean.numpy(), want, rtol=1e-5, atol=1e-6)
    model.remove_hooks()
    off.remove_hooks()
    cumulative_checks(rank, W, X)


def cumulative_checks(rank, W, X):
    """momentum=None: the broadcast overwrites each rank's count with rank 0's and
    carries rank 0's host count along, so every rank weighs the batch by rank 0's count
    without reading its buffer back; a count rank 0 does not know on the host (written
    by hand there) travels as unknown, and every rank reads its (correct) buffer."""
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4, momentum=None))
    with pdt.no_grad():  # rank-specific counts before the wrap
        net[1].num_batches_tracked.fill_(5 * rank)
    model = nn.parallel.DistributedDataParallel(net)
    bn = model.module[1]
    for step, bump in enumerate((0, 3)):
        if rank == 0 and bump:
            with pdt.no_grad():  # a write by hand on rank 0: its host count is unknown
                bn.num_batches_tracked.add_(bump)
        before = bn.running_mean.numpy().astype(np.float64)
        gathered = [pdt.zeros(4) for _ in range(W)]
        dist.all_gather(gathered, bn.running_mean)
        ref0 = gathered[0].numpy().astype(np.float64)
        k = step + bump + 1  # rank 0's count after this batch
        model(X[step])
        with pdt.no_grad():
            local = model.module[0](X[step]).mean(0).numpy().astype(np.float64)
        want = ref0 + (local - ref0) / k
        assert np.allclose(bn.running_mean.numpy(), want, rtol=1e-5, atol=1e-6), (
            step, rank, before, want)
        assert bn.num_batches_tracked.item() == k
        assert bn._host_count.get(bn.num_batches_tracked) == k  # known on the host
    with pdt.no_grad():  # every rank's own count, then rank 0's (5) with its host count
        if rank:
            bn.num_batches_tracked.add_(7 * rank)
        model._broadcast_buffers()
    assert bn._host_count.get(bn.num_batches_tracked) == 5 == bn.num_batches_tracked.item()
    model.remove_hooks()


def mwms_check(rank, W, devices):
    """MultiWorkerMirroredStrategy with len(devices) replicas per worker equals plain
    training on the same global batches; every worker holds the same bits."""
    from pydevtensor import distribute
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 6)).astype(np.float32)  # 50: the last batch is partial
    y = rng.integers(0, 3, 50)
    strategy = distribute.MultiWorkerMirroredStrategy(devices)
    assert strategy.num_replicas_in_sync == W * len(devices)
    with strategy.scope():
        net = mlp(100 + rank)  # differs per rank until fit's broadcast
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    pdt.reset_transfer_stats()
    history = strategy.fit(net, X, y, nn.CrossEntropyLoss(), opt, epochs=2, batch_size=16,
                           verbose=0)
    assert pdt.transfer_stats()["collective"]["count"] > 0
    ref = mlp(100)
    ref_opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(2):
        total = 0.0
        for s in range(0, 50, 16):
            ref_opt.zero_grad()
            out = nn.CrossEntropyLoss()(ref(pdt.tensor(X[s:s + 16])), pdt.tensor(y[s:s + 16]))
            out.backward()
            ref_opt.step()
            total += out.item() * len(X[s:s + 16])
        losses.append(total / 50)
    mine = flat(strategy.replicas(net)[0])
    want = flat(ref)
    assert same_on_every_rank(mine, W)
    assert np.all(np.abs(mine - want) <= 1e-6 + 1e-5 * np.abs(want)), \
        float(np.abs(mine - want).max())
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)
    for r in strategy.replicas(net)[1:]:
        assert np.array_equal(flat(r), mine)
