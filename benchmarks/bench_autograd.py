"""Autograd (issue 16): a training step and the cost of recording an op.

- "autograd step, MLP 784-256-10, batch B" (B = 64, 1024): one D2L training step
  ``l = loss(net(X), y); opt.zero_grad(); l.backward(); opt.step()`` (float32, ReLU,
  softmax cross-entropy, SGD with momentum 0.9), per step, against PyTorch's same loop
  when torch imports and the same step written by hand in NumPy.  Before timing, two
  steps from the same weights must agree with the NumPy step (1e-4).  The "beside a
  busy process" variant times batch 64 while a process that spins on one core runs
  next to each library's (a shared machine; Note [spinning under load] in
  csrc/cpu/cpu_parallel.c).
- "op overhead, requires_grad=True: ...": ``a + b`` on 4x4 tensors, ``a @ b`` on 16x16,
  ``a.sum()`` on 4x4, with ``a`` requiring grad (so the op is recorded: Note [where the
  graph is recorded] in csrc/python/autograd.c).  Here the **raw** column is
  pydevtensor itself on tensors that require no grad, so raw's ratio is the recording
  overhead; torch's column is torch with requires_grad=True.
"""
from benchmarks.bench_training import (LR, MOMENTUM, SIZES, NumpyMLP, _init_weights,
                                       _pdt_net)
from benchmarks.harness import Stmt, Timed, benchmark, compare_statements, compare_timed, \
    import_problem

STEPS = 8  # steps per timed run


def _data(np, batch):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((batch, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[2], batch)
    return X, y


_neighbour = []


def _busy_neighbour():
    """Starts, once per process, a process that keeps one core busy for as long as this
    one lives: the machine a training step often shares (Note [spinning under load] in
    csrc/cpu/cpu_parallel.c)."""
    if not _neighbour:
        import atexit
        import subprocess
        import sys
        proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        atexit.register(proc.kill)
        _neighbour.append(proc)


def _per_step(run, busy=False):
    import time

    def once():
        if busy:
            _busy_neighbour()
        time.sleep(0.2)  # Note [BLAS spin] in bench_training.py
        t0 = time.perf_counter()
        run()
        return (time.perf_counter() - t0) / STEPS
    return once


def _step_entry(batch, busy=False):
    import numpy as np
    X, y = _data(np, batch)
    timed = {}
    try:
        import pydevtensor as pdt
        from pydevtensor import nn, optim
        net = _pdt_net(pdt, np)
        opt = optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
        loss_fn = nn.CrossEntropyLoss()
        Xt, yt = pdt.from_numpy(X), pdt.from_numpy(y)

        def steps(n):
            for _ in range(n):
                loss = loss_fn(net(Xt), yt)
                opt.zero_grad()
                loss.backward()
                opt.step()
        steps(2)
        ref = NumpyMLP(np, _init_weights(np))
        ref.step(X, y)
        ref.step(X, y)
        err = max(float(np.max(np.abs(p.detach().numpy() - r)))
                  for p, r in zip(net.parameters(), ref.params))
        if err > 1e-4:
            raise AssertionError(f"two steps differ from the NumPy step by {err:.3g}")
        timed["pydevtensor"] = Timed(_per_step(lambda: steps(STEPS), busy), "autograd step loop")
    except Exception as exc:  # noqa: BLE001
        return {"pydevtensor": import_problem("pydevtensor", exc)}
    model = NumpyMLP(np, _init_weights(np))

    def numpy_steps():
        for _ in range(STEPS):
            model.step(X, y)
    timed["numpy"] = Timed(_per_step(numpy_steps, busy), "NumPy step written by hand")
    results = {}
    try:
        import torch
        tnet = torch.nn.Sequential(torch.nn.Linear(SIZES[0], SIZES[1]), torch.nn.ReLU(),
                                   torch.nn.Linear(SIZES[1], SIZES[2]))
        with torch.no_grad():
            for p, w in zip(tnet.parameters(), _init_weights(np)):
                p.copy_(torch.from_numpy(w))
        topt = torch.optim.SGD(tnet.parameters(), lr=LR, momentum=MOMENTUM)
        tloss = torch.nn.CrossEntropyLoss()
        tX, ty = torch.from_numpy(X), torch.from_numpy(y)

        def torch_steps():
            for _ in range(STEPS):
                loss = tloss(tnet(tX), ty)
                topt.zero_grad()
                loss.backward()
                topt.step()
        timed["torch"] = Timed(_per_step(torch_steps, busy), "torch autograd step loop (CPU)")
    except Exception as exc:  # noqa: BLE001
        results["torch"] = import_problem("torch", exc)
    return results, timed


@benchmark("autograd", "autograd step, MLP 784-256-10, batch 64", unit="us", number=1,
           repeat=7)
def step_batch_64(cfg):
    out = _step_entry(64)
    if isinstance(out, dict):
        return out
    results, timed = out
    results.update(compare_timed(cfg, timed))
    return results


@benchmark("autograd", "autograd step, MLP 784-256-10, batch 64, beside a busy process",
           unit="us", number=1, repeat=7)
def step_batch_64_beside_a_busy_process(cfg):
    """The batch-64 step while another process keeps one core busy (Note [spinning
    under load] in csrc/cpu/cpu_parallel.c): each library's process starts its own."""
    out = _step_entry(64, busy=True)
    if isinstance(out, dict):
        return out
    results, timed = out
    results.update(compare_timed(cfg, timed))
    return results


@benchmark("autograd", "autograd step, MLP 784-256-10, batch 1024", unit="ms", number=1,
           repeat=5)
def step_batch_1024(cfg):
    out = _step_entry(1024)
    if isinstance(out, dict):
        return out
    results, timed = out
    results.update(compare_timed(cfg, timed))
    return results


def _overhead(cfg, shape, stmt):
    setup = (f"import pydevtensor as pdt; a = pdt.ones{shape}; b = pdt.ones{shape}")
    return compare_statements(cfg, {
        "pydevtensor": Stmt(setup + "; a.requires_grad_()", stmt),
        "raw": Stmt(setup, stmt),
        "torch": Stmt(f"import torch; a = torch.ones{shape[:-1]}, requires_grad=True); "
                      f"b = torch.ones{shape}", stmt),
    })


@benchmark("autograd", "op overhead, requires_grad=True: a + b, 4x4 (raw: without)",
           unit="ns", number=20_000)
def overhead_add(cfg):
    return _overhead(cfg, "(4, 4)", "a + b")


@benchmark("autograd", "op overhead, requires_grad=True: a @ b, 16x16 (raw: without)",
           unit="ns", number=20_000)
def overhead_matmul(cfg):
    return _overhead(cfg, "(16, 16)", "a @ b")


@benchmark("autograd", "op overhead, requires_grad=True: a.sum(), 4x4 (raw: without)",
           unit="ns", number=20_000)
def overhead_sum(cfg):
    return _overhead(cfg, "(4, 4)", "a.sum()")
