"""Training a small MLP (784-256-10, ReLU, softmax cross-entropy, SGD with momentum 0.9,
float32, batches of 128): time per training sample, in us (samples per second are in
the JSON as ``samples_per_s``).

- "SGD step loop, CPU": pydevtensor's autograd loop
  (``loss.backward()``, ``optim.SGD``) against the same
  computation written in NumPy, and PyTorch's autograd loop when torch imports.  Before timing, two steps of each from the same weights must
  agree with the NumPy loop (float32 rounding: 1e-4).
- "fit, 1 device" / "fit, 2 logical CPU devices": ``MirroredStrategy.fit`` over one
  epoch, on the CPU alone and split over two logical CPU devices (threads sharing the
  machine's cores), against the NumPy loop on the same batches.  On a machine with few
  cores the two replicas compete for them with OpenBLAS's own threads: read the second
  figure as the cost of the strategy's machinery, not as a speed-up.
- On a GPU: "fit, cuda:0" and "fit, 2 logical GPUs on cuda:0" (the card split in two by
  ``config.set_logical_device_configuration``), against PyTorch on the card.  Two logical
  devices share one card's SMs and memory bandwidth, so no speed-up is to be expected:
  the figure shows what the all-reduce and the threads cost.  Skipped without a GPU.
"""
import time

from benchmarks.harness import Skip, Timed, benchmark, compare_timed, import_problem

SIZES = (784, 256, 10)
BATCH = 128
STEPS = 16  # batches per timed run
SAMPLES = BATCH * STEPS
LR, MOMENTUM = 0.05, 0.9


def _data(np):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((SAMPLES, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[2], SAMPLES)
    return X, y


def _init_weights(np):
    rng = np.random.default_rng(1)
    out = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        out.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        out.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return out


# Note [BLAS spin]: pydevtensor, NumPy and torch each load their own OpenBLAS (or MKL),
# whose worker threads keep spinning for ~0.1 s after a call before they sleep.  The
# libraries' runs are interleaved, so without a pause the next library would share the
# cores with the last one's spinning threads (on a 2-core machine this doubled some
# figures).  Each run starts after an untimed pause.
IDLE_S = 0.3


def _per_sample(run, samples, sync=None, method=""):
    """A Timed whose figure is seconds per training sample (Note [BLAS spin])."""
    def once():
        time.sleep(IDLE_S)
        t0 = time.perf_counter()
        run()
        if sync is not None:
            sync()
        seconds = (time.perf_counter() - t0) / samples
        return {"seconds": seconds, "samples_per_s": 1 / seconds}
    return Timed(once, method, warmup=1)


# ---- NumPy: the reference ----

class NumpyMLP:
    """The same network and update, written by hand in NumPy (float32)."""

    def __init__(self, np, weights):
        self.np = np
        self.params = [w.copy() for w in weights]
        self.bufs = [None] * len(self.params)

    def step(self, xb, yb):
        np = self.np
        w1, b1, w2, b2 = self.params
        h_pre = xb @ w1.T + b1
        h = np.maximum(h_pre, 0)
        z = h @ w2.T + b2
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(1, keepdims=True)
        p[np.arange(len(yb)), yb] -= 1
        dz = p / len(yb)
        dh = (dz @ w2) * (h_pre > 0)
        grads = [dh.T @ xb, dh.sum(0), dz.T @ h, dz.sum(0)]
        for i, g in enumerate(grads):
            self.bufs[i] = g.copy() if self.bufs[i] is None else self.bufs[i] * MOMENTUM + g
            self.params[i] -= LR * self.bufs[i]

    def epoch(self, X, y):
        for a in range(0, len(X), BATCH):
            self.step(X[a:a + BATCH], y[a:a + BATCH])


def _numpy_timed(np, X, y):
    model = NumpyMLP(np, _init_weights(np))
    return _per_sample(lambda: model.epoch(X, y), len(X), method="NumPy loop, one epoch")


# ---- pydevtensor ----

def _pdt_net(pdt, np, device="cpu"):
    from pydevtensor import nn
    net = nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(), nn.Linear(SIZES[1], SIZES[2]))
    for p, w in zip(net.parameters(), _init_weights(np)):
        p.data.copy_(pdt.from_numpy(w))
    return net.to(device)


def _check_against_numpy(np, got_params, X, y):
    ref = NumpyMLP(np, _init_weights(np))
    for a in (0, BATCH):
        ref.step(X[a:a + BATCH], y[a:a + BATCH])
    err = max(float(np.max(np.abs(g - r))) for g, r in zip(got_params, ref.params))
    if err > 1e-4:
        raise AssertionError(f"two steps differ from the NumPy loop by {err:.3g}")


@benchmark("training", "SGD step loop, MLP 784-256-10, CPU", unit="us", number=1, repeat=7)
def mlp_step_loop_cpu(cfg):
    """One epoch of 16 batches of 128; pydevtensor's autograd loop vs NumPy vs torch."""
    import numpy as np
    X, y = _data(np)
    timed = {}
    try:
        import pydevtensor as pdt
        from pydevtensor import nn, optim
        Xt, yt = pdt.from_numpy(X), pdt.from_numpy(y)

        def make():
            net = _pdt_net(pdt, np)
            opt = optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
            loss_fn = nn.CrossEntropyLoss()

            def steps(count):
                for a in range(0, count * BATCH, BATCH):
                    loss = loss_fn(net(Xt[a:a + BATCH]), yt[a:a + BATCH])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
            return net, steps
        net, steps = make()
        steps(2)
        _check_against_numpy(np, [p.detach().numpy() for p in net.parameters()], X, y)
        net, steps = make()
        timed["pydevtensor"] = _per_sample(lambda: steps(STEPS), SAMPLES,
                                           method="autograd loop, one epoch")
    except Exception as exc:  # noqa: BLE001
        return {"pydevtensor": import_problem("pydevtensor", exc)}
    timed["numpy"] = _numpy_timed(np, X, y)
    return _compare_with_torch(cfg, timed, np, X, y, "cpu")


def _compare_with_torch(cfg, timed, np, X, y, device):
    """compare_timed over timed plus torch's loop on device, when torch imports."""
    results = {}
    try:
        timed["torch"] = _torch_timed(np, X, y, device)
    except Exception as exc:  # noqa: BLE001
        results["torch"] = import_problem("torch", exc)
    results.update(compare_timed(cfg, timed))
    return results


def _torch_timed(np, X, y, device):
    import torch
    if device != "cpu" and not torch.cuda.is_available():
        raise ImportError("torch.cuda.is_available() is False")
    net = torch.nn.Sequential(torch.nn.Linear(SIZES[0], SIZES[1]), torch.nn.ReLU(),
                              torch.nn.Linear(SIZES[1], SIZES[2]))
    with torch.no_grad():
        for p, w in zip(net.parameters(), _init_weights(np)):
            p.copy_(torch.from_numpy(w))
    net = net.to(device)
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = torch.nn.CrossEntropyLoss()
    Xt, yt = torch.from_numpy(X).to(device), torch.from_numpy(y).to(device)

    def epoch():
        for a in range(0, SAMPLES, BATCH):
            loss = loss_fn(net(Xt[a:a + BATCH]), yt[a:a + BATCH])
            opt.zero_grad()
            loss.backward()
            opt.step()
        loss.item()  # one synchronisation per epoch, as fit's loss readout
    sync = torch.cuda.synchronize if device != "cpu" else None
    return _per_sample(epoch, SAMPLES, sync, method=f"torch autograd loop on {device}")


def _fit_timed(devices, logical=None):
    """MirroredStrategy.fit over one epoch on devices; logical=(kind, n) first splits
    the CPU or the first GPU into n logical devices."""
    import numpy as np
    import pydevtensor as pdt
    from pydevtensor import config, distribute, nn, optim
    if logical is not None:
        kind, n = logical
        physical = config.list_physical_devices(kind)
        if not physical:
            raise Skip(f"no {kind}: {pdt.cuda.unavailable_reason()}")
        limit = None if kind == "CPU" else 8192  # MB per logical GPU
        config.set_logical_device_configuration(
            physical[0], [config.LogicalDeviceConfiguration(limit) for _ in range(n)])
    X, y = _data(np)
    strategy = distribute.MirroredStrategy(devices)
    with strategy.scope():
        net = _pdt_net(pdt, np)
    opt = optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    Xt, yt = pdt.from_numpy(X), pdt.from_numpy(y)
    strategy.fit(net, X[:2 * BATCH], y[:2 * BATCH], nn.CrossEntropyLoss(), opt, epochs=1,
                 batch_size=BATCH, verbose=0)
    _check_against_numpy(np, [p.detach().cpu().numpy() for p in net.parameters()], X, y)
    sync = pdt.cuda.synchronize if any(str(d).startswith("cuda") for d in devices) else None
    return _per_sample(lambda: strategy.fit(net, Xt, yt, nn.CrossEntropyLoss(), opt,
                                            batch_size=BATCH, verbose=0),
                       SAMPLES, sync, method=f"MirroredStrategy({devices}).fit, one epoch")


@benchmark("training", "fit, 1 device (CPU)", unit="us", number=1, repeat=7)
def fit_one_cpu(cfg):
    """MirroredStrategy.fit with one replica on the CPU vs the NumPy loop."""
    import numpy as np
    X, y = _data(np)
    return compare_timed(cfg, {"pydevtensor": _fit_timed(["cpu"]),
                               "numpy": _numpy_timed(np, X, y)})


@benchmark("training", "fit, 2 logical CPU devices", unit="us", number=1, repeat=7)
def fit_two_logical_cpus(cfg):
    """MirroredStrategy.fit over cpu:0 and cpu:1 (one machine's cores) vs the NumPy loop."""
    import numpy as np
    X, y = _data(np)
    return compare_timed(cfg, {"pydevtensor": _fit_timed(["cpu:0", "cpu:1"], ("CPU", 2)),
                               "numpy": _numpy_timed(np, X, y)})


def _gpu_fit(cfg, devices, logical):
    import numpy as np
    import pydevtensor as pdt
    # list_physical_devices does not initialise the devices (is_available would, and
    # then the card could no longer be split into logical GPUs).
    if not pdt.config.list_physical_devices("GPU"):
        raise Skip(f"no GPU: {pdt.cuda.unavailable_reason()}")
    X, y = _data(np)
    return _compare_with_torch(cfg, {"pydevtensor": _fit_timed(devices, logical)}, np, X, y,
                               "cuda")


@benchmark("training", "fit, cuda:0", unit="us", number=1, repeat=7)
def fit_one_gpu(cfg):
    """MirroredStrategy.fit with one replica on the GPU vs torch's loop on the GPU."""
    return _gpu_fit(cfg, ["cuda:0"], None)


@benchmark("training", "fit, 2 logical GPUs on cuda:0", unit="us", number=1, repeat=7)
def fit_two_logical_gpus(cfg):
    """MirroredStrategy.fit over two logical GPUs sharing one card vs torch on the card."""
    return _gpu_fit(cfg, ["cuda:0", "cuda:1"], ("GPU", 2))
