"""SyncBatchNorm over the processes of a group, run in every rank by
tests/distributed_worker.py (mode 'all'); numpy_batch_norm is also the reference of
tests/test_sync_batchnorm.py.

The reference is the batch norm of the whole batch (every rank's input, concatenated
along dimension 0) in NumPy float64, with the closed form of its backward:
    y = xhat * w + b,   xhat = (x - mean) / sqrt(var + eps)   (var biased, over N values)
    dx = w / sqrt(var + eps) * (dy - mean(dy) - xhat * mean(dy * xhat))
    dw = sum(dy * xhat),   db = sum(dy)
(means and sums per channel over the N values).  Each rank's dx is its slice of the
whole batch's; its dw and db are the sums over its own slice, as PyTorch's."""
import numpy as np

import pydevtensor as pdt


def numpy_batch_norm(x, w, b, eps, dy):
    """(y, dx, dw per sample, db per sample, mean, biased var) for x (N, C, *) float64;
    dw and db before the sum over the batch (dims other than 1), so that a slice of
    them sums to a rank's part."""
    dims = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=dims)
    var = ((x - mean.reshape(shape)) ** 2).mean(axis=dims)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = (x - mean.reshape(shape)) * inv.reshape(shape)
    y = xhat * w.reshape(shape) + b.reshape(shape)
    dx = (w * inv).reshape(shape) * (dy - dy.mean(axis=dims).reshape(shape)
                                     - xhat * (dy * xhat).mean(axis=dims).reshape(shape))
    return y, dx, dy * xhat, dy, mean, var


def _sum_but_1(a):
    return a.sum(axis=(0,) + tuple(range(2, a.ndim)))


def syncbn_checks(rank, W):
    """Uneven batches (rank r holds r + 1 samples, the last rank none when W > 2),
    float64 and float32, momentum 0.1 and None, two training steps and an evaluation;
    a total of one value per channel refused on every rank before anything changes."""
    import pydevtensor.distributed as dist
    from pydevtensor import nn
    sizes = [r + 1 for r in range(W)]
    if W > 2:
        sizes[-1] = 0
    lo, hi = sum(sizes[:rank]), sum(sizes[:rank + 1])
    rng = np.random.default_rng(11)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    for dtype, tol in ((pdt.float64, 1e-12), (pdt.float32, 2e-5)):
        for momentum in (0.1, None):
            bn = nn.SyncBatchNorm(3, momentum=momentum, dtype=dtype)
            with pdt.no_grad():
                bn.weight.copy_(pdt.tensor(w))
                bn.bias.copy_(pdt.tensor(b))
            rm, rv = np.zeros(3), np.ones(3)
            for step in range(2):
                x = rng.standard_normal((sum(sizes), 3, 2, 2)) * 3 + 1
                dy = rng.standard_normal(x.shape)
                y, dx, dw, db, mean, var = numpy_batch_norm(x, w, b, bn.eps, dy)
                n = x.size // 3
                f = 0.1 if momentum is not None else 1.0 / (step + 1)
                rm, rv = (1 - f) * rm + f * mean, (1 - f) * rv + f * var * n / (n - 1)
                xt = pdt.tensor(x[lo:hi], dtype=dtype).requires_grad_()
                out = bn(xt)
                out.backward(pdt.tensor(dy[lo:hi], dtype=dtype))
                for got, want in ((out.detach(), y[lo:hi]), (xt.grad, dx[lo:hi]),
                                  (bn.weight.grad, _sum_but_1(dw[lo:hi])),
                                  (bn.bias.grad, _sum_but_1(db[lo:hi])),
                                  (bn.running_mean, rm), (bn.running_var, rv)):
                    np.testing.assert_allclose(got.double().numpy(), want, rtol=tol,
                                               atol=tol)
                bn.zero_grad()
            assert int(bn.num_batches_tracked) == 2
            bn.eval()  # the running statistics, no collective
            x = rng.standard_normal((2, 3))
            want = (x - rm) / np.sqrt(rv + bn.eps) * w + b
            np.testing.assert_allclose(bn(pdt.tensor(x, dtype=dtype)).detach().double().numpy(),
                                       want, rtol=tol, atol=tol)
    ddp_check(rank, W)
    # one value per channel in all: rank 0 holds one sample, the others none
    bn = nn.SyncBatchNorm(3)
    x = pdt.ones((1 if rank == 0 else 0, 3))
    try:
        bn(x)
    except ValueError as e:
        assert f"got 1 over the {W} processes" in str(e), str(e)
    else:
        raise AssertionError("one value per channel in all was not refused")
    assert int(bn.num_batches_tracked) == 0 and float(bn.running_var.sum()) == 3.0
    dist.barrier()
    return {"syncbn": True}


def _net(bn):
    from pydevtensor import nn
    pdt.manual_seed(5)
    return nn.Sequential(nn.Linear(6, 8), bn(8), nn.ReLU(), nn.Linear(8, 3))


def ddp_check(rank, W):
    """What SyncBatchNorm is for: DistributedDataParallel of a model with SyncBatchNorm
    on W slices of a batch trains as the same model with BatchNorm1d on the whole batch
    in one process (float64: parameters and running statistics after 3 SGD steps)."""
    from pydevtensor import nn, optim
    B = 24
    lo, hi = rank * B // W, (rank + 1) * B // W
    ref = _net(nn.BatchNorm1d).double()
    model = nn.parallel.DistributedDataParallel(_net(nn.SyncBatchNorm).double())
    opts = [optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    rng = np.random.default_rng(9)
    for step in range(3):
        X = pdt.tensor(rng.standard_normal((B, 6)) * 2 + 1)
        y = pdt.tensor(rng.standard_normal((B, 3)))
        for opt in opts:
            opt.zero_grad()
        ((ref(X) - y) ** 2).mean().backward()
        ((model(X[lo:hi]) - y[lo:hi]) ** 2).mean().backward()
        for opt in opts:
            opt.step()
    got = model.module.state_dict()
    for name, want in ref.state_dict().items():
        np.testing.assert_allclose(got[name].double().numpy(), want.double().numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=name)
    model.remove_hooks()
