"""Failure in the middle (issue 14): optim.SGD.step() and Module.to() that run out of
memory on a later parameter change nothing, rather than leaving the first ones done."""
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import config, nn, optim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def params_with_grads():
    """Two small parameters, then a 4 MiB one; gradients of ones."""
    ps = [nn.Parameter(pdt.arange(4.0)), nn.Parameter(pdt.arange(4.0) * 2),
          nn.Parameter(pdt.zeros(2**20))]
    for p in ps:
        p.grad = pdt.ones(*p.shape)
    return ps


def sgd_rule(before, bufs, kw):
    """PyTorch's rule for one step with gradients of ones (float64), from the
    parameters and momentum buffers (by parameter, or empty) before it."""
    lr, m, wd = 0.5, kw.get("momentum", 0.0), kw.get("weight_decay", 0.0)
    out = []
    for k, b in before:
        d = 1.0 + wd * b
        if m and k in bufs:
            d = m * bufs[k] + d
        out.append(b - lr * d)
    return out


# Each case needs memory in the step: the first step's momentum buffers, the weight
# decay's term, float16 updates (computed in float32, then cast), or a momentum buffer
# the user replaced with one that cannot be updated in place (a stride-0 view, or
# float64 for a float32 parameter): its new buffer is computed apart, first.
@pytest.mark.parametrize("kw,first,dtype,replace", [
    ({"momentum": 0.9}, True, "float32", None),
    ({"momentum": 0.9, "weight_decay": 0.1}, False, "float32", None),
    ({"weight_decay": 0.1}, True, "float32", None),
    ({}, True, "float16", None),
    ({"momentum": 0.9}, False, "float16", None),
    ({"momentum": 0.9}, False, "float32", "expanded"),
    ({"momentum": 0.9}, False, "float32", "float64"),
])
def test_sgd_step_out_of_memory_on_the_third_parameter_changes_nothing(kw, first, dtype,
                                                                        replace):
    ps = params_with_grads()
    if dtype != "float32":
        ps = [nn.Parameter(p.data.to(dtype=getattr(pdt, dtype))) for p in ps]
        for p in ps:
            p.grad = pdt.ones(*p.shape, dtype=p.dtype)
    opt = optim.SGD(ps, lr=0.5, **kw)
    if not first:
        opt.step()  # momentum buffers exist: the failing step must keep them as they are
    if replace == "expanded":
        opt.state[ps[2]]["momentum_buffer"] = pdt.full((1,), 0.25).expand(*ps[2].shape)
    elif replace == "float64":
        opt.state[ps[2]]["momentum_buffer"] = pdt.full(ps[2].shape, 0.25,
                                                           dtype=pdt.float64)
    before = [(p, p.data.numpy().astype(np.float64)) for p in ps]
    bufs = {k: v["momentum_buffer"].numpy().astype(np.float64) for k, v in opt.state.items()}
    gc.collect()  # earlier tests' cyclic garbage, freed mid-step, would make room
    config.set_memory_limit("cpu", pdt.memory_allocated("cpu") + 2**19)  # < the big one's need
    try:
        with pytest.raises(pdt.OutOfMemoryError):
            opt.step()
    finally:
        config.set_memory_limit("cpu", None)
    for p, (_, b) in zip(ps, before):
        np.testing.assert_array_equal(p.data.numpy(), b.astype(dtype))
    assert set(opt.state) == set(bufs)
    for k, b in bufs.items():
        np.testing.assert_array_equal(opt.state[k]["momentum_buffer"].numpy(), b.astype(dtype))
    # and the same step, once memory is there, is PyTorch's rule
    opt.step()
    tol = 1e-6 if dtype == "float32" else 2e-3
    for p, want in zip(ps, sgd_rule(before, bufs, kw)):
        np.testing.assert_allclose(p.data.numpy().astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam",
                                  "RAdam"])
@pytest.mark.parametrize("first", [True, False])
def test_adaptive_step_out_of_memory_on_the_third_parameter_changes_nothing(name, first):
    # their new state tensors and updates are all computed before any is committed
    ps = params_with_grads()
    opt = getattr(optim, name)(ps, lr=0.5)
    if not first:
        opt.step()
    before = [p.data.numpy().copy() for p in ps]
    state = {k: {n: (v.numpy().copy() if isinstance(v, pdt.Tensor) else v)
                 for n, v in st.items()} for k, st in opt.state.items()}
    gc.collect()  # earlier tests' cyclic garbage, freed mid-step, would make room
    config.set_memory_limit("cpu", pdt.memory_allocated("cpu") + 2**19)  # < the big one's need
    try:
        with pytest.raises(pdt.OutOfMemoryError):
            opt.step()
    finally:
        config.set_memory_limit("cpu", None)
    for p, b in zip(ps, before):
        np.testing.assert_array_equal(p.data.numpy(), b)
    assert set(opt.state) == set(state)
    for k, st in state.items():
        for n, v in st.items():
            got = opt.state[k][n]
            if isinstance(v, np.ndarray):
                np.testing.assert_array_equal(got.numpy(), v)
            else:
                assert got == v
    opt.step()
    assert all(opt.state[p]["step"] == (1 if first else 2) for p in ps)


@pytest.mark.parametrize("kw", [{}, {"momentum": 0.9}])
def test_sgd_step_of_float32_needs_no_memory_once_buffers_exist(kw):
    # Note [add with alpha]: without weight decay, a float32 step commits in place
    # (the buffer's momentum * buf + d, then p -= lr * buf), so it runs at a memory
    # limit of exactly what is allocated, and allocates nothing.
    ps = params_with_grads()
    opt = optim.SGD(ps, lr=0.5, **kw)
    opt.step()
    before = [(p, p.data.numpy().astype(np.float64)) for p in ps]
    bufs = {k: v["momentum_buffer"].numpy().astype(np.float64) for k, v in opt.state.items()}
    held = {k: v["momentum_buffer"] for k, v in opt.state.items()}
    gc.collect()  # earlier tests' cyclic garbage, freed mid-step, would make room
    allocated = pdt.memory_allocated("cpu")
    config.set_memory_limit("cpu", allocated)
    try:
        opt.step()
    finally:
        config.set_memory_limit("cpu", None)
    assert pdt.memory_allocated("cpu") == allocated
    assert all(opt.state[k]["momentum_buffer"] is t for k, t in held.items())  # in place
    for p, want in zip(ps, sgd_rule(before, bufs, kw)):
        np.testing.assert_allclose(p.data.numpy().astype(np.float64), want, rtol=1e-6)


def test_module_to_out_of_memory_leaves_the_model_on_its_device():
    code = textwrap.dedent("""
        import pydevtensor as pdt
        from pydevtensor import config as c, nn
        cpu = c.list_physical_devices('CPU')[0]
        c.set_logical_device_configuration(cpu, [c.LogicalDeviceConfiguration(),
                                                 c.LogicalDeviceConfiguration(memory_limit=1)])
        net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 2**18))
        weights = [p for p in net.parameters()]
        before = [p.tolist() for p in weights[:4]]
        try:
            net.to('cpu:1')                        # the third weight is 4 MiB: over 1 MiB
        except pdt.OutOfMemoryError:
            print("OutOfMemoryError")
        print(sorted({str(p.device) for p in net.parameters()}))
        print(pdt.memory_allocated('cpu:1'))
        print([p.tolist() for p in weights[:4]] == before)
        print(tuple(net(pdt.ones(3, 4)).shape))    # still one device: forward works
        net.to(dtype=pdt.float64)                  # and it still moves as a whole
        print(sorted({str(p.dtype) for p in net.parameters()}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["OutOfMemoryError", "['cpu:0']", "0", "True",
                                        "(3, 262144)", "['pydevtensor.float64']"]


def test_module_double_out_of_memory_keeps_every_dtype():
    net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2**19))
    gc.collect()  # earlier tests' cyclic garbage, freed mid-step, would make room
    config.set_memory_limit("cpu", pdt.memory_allocated("cpu") + 2**20)
    try:
        with pytest.raises(pdt.OutOfMemoryError):
            net.double()  # the last weight would need 8 MiB
    finally:
        config.set_memory_limit("cpu", None)
    assert {p.dtype for p in net.parameters()} == {pdt.float32}


def test_sgd_with_a_float64_buffer_for_a_float32_parameter_rounds_the_update_first():
    # A buffer of another dtype is never updated in place: the new buffer is
    # momentum * buf + d in its dtype, the update lr * buf is cast to the parameter's
    # dtype, then subtracted (PyTorch's rule, as before the in-place path existed).
    rng = np.random.default_rng(3)
    w, g = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000)
    p = nn.Parameter(pdt.from_numpy(w.copy()))
    p.grad = pdt.from_numpy(g.copy())
    opt = optim.SGD([p], lr=0.05, momentum=0.9)
    opt.state[p] = {"momentum_buffer": pdt.from_numpy(b.copy())}
    opt.step()
    new_buf = b * 0.9 + g.astype(np.float64)
    want = w - (new_buf * 0.05).astype(np.float32)
    np.testing.assert_array_equal(opt.state[p]["momentum_buffer"].numpy(), new_buf)
    np.testing.assert_array_equal(p.data.numpy(), want)
