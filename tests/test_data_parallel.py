"""nn.DataParallel and its pieces (nn.parallel.scatter, gather, replicate,
parallel_apply): D2L 13.5-13.6.

The two-device tests take the ``pair`` fixture: cuda:0 and cuda:1 (two emulated GPUs,
or one split in two: CI's emulated runs), or cpu:1 and cpu:2, logical CPU devices other
than the default one, where data and D2L's parameters start (as on GPUs).  Those must
be configured before any device is used: test_on_two_logical_cpu_devices runs this
file's pair tests in a fresh pytest with PYDEVTENSOR_TEST_DP_CPUS=3 set, which
configures them below, at import.

Tolerances: DataParallel's gradient is the sum of the pieces' gradients where one
device computes the whole batch's in one GEMM; the two differ by rounding only.  In
float64 we allow 1e-12 + 1e-12 * |ref| on outputs, gradients and parameters after 5
SGD steps (measured: a few 1e-16).  Forward outputs of a Linear/MLP are row by row,
so they are compared at the same tolerance.
"""
import copy
import os
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import pydevtensor as pdt

_LOGICAL_CPUS = int(os.environ.get("PYDEVTENSOR_TEST_DP_CPUS") or 0)
if _LOGICAL_CPUS:
    _cpu = pdt.config.list_physical_devices("CPU")[0]
    pdt.config.set_logical_device_configuration(
        _cpu, [pdt.config.LogicalDeviceConfiguration()] * _LOGICAL_CPUS)

from conftest import assert_close  # noqa: E402
from pydevtensor import nn, optim  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F64 = "float64"


@pytest.fixture(params=[pytest.param("cuda", marks=pytest.mark.cuda), "logical_cpus"])
def pair(request):
    return two_devices(request.param)


def two_devices(kind):
    """The two devices of the pair fixture's kind ('cuda' or 'logical_cpus')."""
    if kind == "cuda":
        if pdt.device_count() < 2:
            pytest.skip("needs two CUDA devices")
        return [pdt.device("cuda:0"), pdt.device("cuda:1")]
    if _LOGICAL_CPUS < 3:
        pytest.skip("logical CPU devices: run by test_on_two_logical_cpu_devices")
    return [pdt.device("cpu:1"), pdt.device("cpu:2")]


def mlp(device, dtype=F64, batch_norm=False):
    pdt.manual_seed(0)
    layers = [nn.Linear(5, 8, dtype=dtype), nn.Tanh()]
    if batch_norm:
        layers.append(nn.BatchNorm1d(8, dtype=dtype))
    layers.append(nn.Linear(8, 3, dtype=dtype))
    return nn.Sequential(*layers).to(device)


def data(n, device="cpu", seed=0):
    rng = np.random.default_rng(seed)
    return pdt.from_numpy(rng.standard_normal((n, 5))).to(device)


def grads(module):
    return [p.grad for p in module.parameters()]


class Recorder(nn.Module):
    """Linear, remembering the device and batch size of every call; the list is shared
    by the replicas (replicate copies a module's __dict__ shallowly, as PyTorch's)."""

    def __init__(self, device):
        super().__init__()
        self.lin = mlp(device)
        self.calls = []

    def forward(self, x):
        self.calls.append((str(x.device), x.shape[0]))
        return self.lin(x)


# ---- without devices: the module is just called ----

def test_no_device_ids_just_calls_the_module():
    net = mlp("cpu")
    dp = nn.DataParallel(net, device_ids=[])
    x = data(4)
    assert dp.device_ids == [] and dp.module is net
    assert_close(dp(x), net(x).detach().numpy(), F64)


@pytest.mark.skipif(pdt.cuda.is_available(), reason="the default is every CUDA device here")
def test_without_cuda_the_default_just_calls_the_module():
    net = mlp("cpu")
    dp = nn.DataParallel(net)
    assert dp.device_ids == [] and dp.output_device is None
    out = dp(data(4))
    assert out.device == pdt.device("cpu") and out.shape == (4, 3)


@pytest.mark.cuda
def test_the_default_is_every_cuda_device():
    dp = nn.DataParallel(mlp("cuda:0"))
    assert dp.device_ids == list(range(pdt.device_count()))
    assert dp.output_device == 0 and dp.src_device_obj == pdt.device("cuda:0")


def test_one_device_moves_the_module_and_the_input(device):
    """One device: PyTorch moves the module there at wrap time and each input at forward."""
    net = mlp("cpu")
    ref = copy.deepcopy(net).to(device)
    dp = nn.DataParallel(net, device_ids=[device])
    assert next(net.parameters()).device == device
    x = data(6)
    out = dp(x)
    assert out.device == device
    assert_close(out, ref(x.to(device)).detach().cpu().numpy(), F64)
    out.sum().backward()
    ref(x.to(device)).sum().backward()
    for g, r in zip(grads(net), grads(ref)):
        assert_close(g, r.cpu().numpy(), F64)


def test_state_dict_parameters_and_repr():
    net = mlp("cpu", batch_norm=True)
    dp = nn.DataParallel(net, device_ids=[])
    assert list(dp.state_dict()) == ["module." + k for k in net.state_dict()]
    assert [id(p) for p in dp.parameters()] == [id(p) for p in net.parameters()]
    other = nn.DataParallel(mlp("cpu", batch_norm=True), device_ids=[])
    with pdt.no_grad():
        for p in net.parameters():
            p.add_(1.0)
    other.load_state_dict(dp.state_dict())
    for a, b in zip(other.module.state_dict().values(), net.state_dict().values()):
        assert a.tolist() == b.tolist()
    assert repr(dp).startswith("DataParallel(\n  (module): Sequential(")


def test_bad_arguments():
    with pytest.raises(TypeError, match="expected an nn.Module, got Tensor"):
        nn.DataParallel(pdt.ones(2))
    with pytest.raises(ValueError, match=r"each device may appear once.*\['cpu', 'cpu'\]"):
        nn.DataParallel(mlp("cpu"), device_ids=["cpu", "cpu:0"])
    with pytest.raises(ValueError, match="of one kind"):
        nn.DataParallel(mlp("cpu"), device_ids=["cpu", 0])
    with pytest.raises(pdt.DeviceError, match="cpu:7"):
        nn.DataParallel(mlp("cpu"), device_ids=["cpu", "cpu:7"])
    with pytest.raises(TypeError, match="expected a device.*got float"):
        nn.DataParallel(mlp("cpu"), device_ids=[0.5])


# ---- the pieces, on one device given twice (structure, not placement) ----

def test_scatter_structures_and_chunk_sizes():
    x = pdt.arange(10).reshape(5, 2)
    pieces = nn.parallel.scatter(x, ["cpu"] * 4)  # torch.chunk: 2, 2, 1 -> three pieces
    assert isinstance(pieces, tuple) and [p.shape[0] for p in pieces] == [2, 2, 1]
    Point = namedtuple("Point", "a b")
    both = nn.parallel.scatter((x, [x, "s"], {"k": x, "n": 3}, Point(x, None)), ["cpu"] * 2)
    assert len(both) == 2
    first = both[1]
    assert first[0].tolist() == [[6, 7], [8, 9]] and first[1][1] == "s"
    assert first[2]["k"].tolist() == [[6, 7], [8, 9]] and first[2]["n"] == 3
    assert isinstance(first[3], Point) and first[3].b is None
    assert nn.parallel.scatter(7, ["cpu"] * 3) == [7, 7, 7]
    cols = nn.parallel.scatter(x, ["cpu"] * 2, dim=1)
    assert [c.tolist() for c in cols] == [[[0], [2], [4], [6], [8]], [[1], [3], [5], [7], [9]]]
    with pytest.raises(ValueError, match="0-d tensor"):
        nn.parallel.scatter(pdt.tensor(1.0), ["cpu"])
    with pytest.raises(TypeError, match="a list of devices, got str"):
        nn.parallel.scatter(x, "cpu")
    with pytest.raises(ValueError, match="at least one device"):
        nn.parallel.scatter(x, [])


def test_scatter_kwargs_counts():
    x = pdt.ones(3, 2)
    args, kwargs = nn.parallel.scatter_kwargs((x,), {"scale": 2.0}, ["cpu"] * 4)
    assert len(args) == len(kwargs) == 3  # chunk(3 rows, 4) gives 3 pieces; kwargs follow
    args, kwargs = nn.parallel.scatter_kwargs((pdt.ones(5, 2),), {"s": 1}, ["cpu"] * 4)
    assert [a[0].shape[0] for a in args] == [2, 2, 1] and len(kwargs) == 3
    args, kwargs = nn.parallel.scatter_kwargs((), {"y": x}, ["cpu"] * 3)
    assert args == ((), (), ()) and [k["y"].shape[0] for k in kwargs] == [1, 1, 1]
    args, kwargs = nn.parallel.scatter_kwargs((x,), None, ["cpu"] * 2)
    assert kwargs == ({}, {})


def test_gather_structures_and_errors():
    a, b = pdt.tensor([[1.0]]), pdt.tensor([[2.0], [3.0]])
    Out = namedtuple("Out", "y extra")
    got = nn.parallel.gather([Out(a, {"h": a}), Out(b, {"h": b})], "cpu")
    assert isinstance(got, Out) and got.y.tolist() == [[1.0], [2.0], [3.0]]
    assert got.extra["h"].tolist() == [[1.0], [2.0], [3.0]]
    assert nn.parallel.gather([[a, None], [b, None]], -1)[1] is None
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        assert nn.parallel.gather([pdt.tensor(1.0), pdt.tensor(2.0)], "cpu").tolist() == [1, 2]
    with pytest.raises(TypeError, match="cannot gather outputs of type int"):
        nn.parallel.gather([1, 2], "cpu")
    with pytest.raises(ValueError, match="same keys"):
        nn.parallel.gather([{"a": a}, {"b": a}], "cpu")
    with pytest.raises(TypeError, match=r"a Tensor from every replica, got \['Tensor', 'NoneType'\]"):
        nn.parallel.gather([a, None], "cpu")


def test_parallel_apply_order_errors_and_lengths():
    nets = [nn.Identity(), nn.ReLU(), nn.Linear(2, 2)]
    x = pdt.tensor([[-1.0, 2.0]])
    out = nn.parallel.parallel_apply(nets[:2], [x, (x,)])
    assert out[0].tolist() == [[-1.0, 2.0]] and out[1].tolist() == [[0.0, 2.0]]
    with pytest.raises(ValueError, match=r"Caught InvalidArgumentError in replica 1 on "
                                         r"device cpu: .*in_features = 2"):
        nn.parallel.parallel_apply(nets[1:], [x, pdt.ones(1, 5)])
    with pytest.raises(ValueError, match="as many inputs, kwargs and devices as modules"):
        nn.parallel.parallel_apply(nets, [x])


def test_a_replicas_error_frees_its_tensors_at_once():
    """After an exception in a replica is caught, the replica's tensors are freed without
    the garbage collector (no cycle through the re-raised error), so that a retry after
    an out-of-memory error finds the memory free."""
    import gc
    import weakref
    seen = []

    class Boom(nn.Module):
        def forward(self, x):
            big = x * 2
            seen.append(weakref.ref(big))
            raise ValueError("no")

    gc.disable()
    try:
        with pytest.raises(ValueError, match="Caught ValueError in replica 0 on device cpu"):
            nn.parallel.parallel_apply([Boom()], [pdt.ones(4, 4)])
        assert seen and seen[0]() is None
    finally:
        gc.enable()


def test_replicate_on_one_device_shares_parameters_and_buffers():
    net = mlp("cpu", batch_norm=True)
    [r] = nn.parallel.replicate(net, ["cpu"])
    assert r is not net and r[0] is not net[0]
    assert r[0].weight is net[0].weight and r[2].running_mean is net[2].running_mean
    assert r.training and type(r[2]) is nn.BatchNorm1d
    with pytest.raises(TypeError, match="expected an nn.Module"):
        nn.parallel.replicate(pdt.ones(1), ["cpu"])
    with pytest.raises(RuntimeError, match="uninitialized parameters"):
        nn.parallel.replicate(nn.LazyLinear(2), ["cpu"])


# ---- two devices ----

def test_outputs_and_gradients_match_one_device(pair):
    """Even and uneven batches, and a batch smaller than the number of devices."""
    for n, calls in ((8, [(0, 4), (1, 4)]), (7, [(0, 4), (1, 3)]), (1, [(0, 1)])):
        net = Recorder(pair[0])
        ref = copy.deepcopy(net)
        dp = nn.DataParallel(net, device_ids=pair)
        x = data(n, "cpu", seed=n)
        out = dp(x)
        assert out.device == pair[0] and out.shape == (n, 3)
        assert sorted(net.calls) == sorted((str(pair[i]), k) for i, k in calls)
        want = ref(x.to(pair[0]))
        assert_close(out, want.detach().cpu().numpy(), F64)
        (out * out).sum().backward()
        (want * want).sum().backward()
        for g, r in zip(grads(net), grads(ref)):
            assert g.device == pair[0]
            assert_close(g, r.cpu().numpy(), F64)


def test_output_device_and_dim(pair):
    net = mlp(pair[0])
    dp = nn.DataParallel(net, device_ids=pair, output_device=pair[1])
    x = data(6, pair[0])
    assert dp(x).device == pair[1]
    assert dp.output_device == (1 if pair[0].type == "cuda" else pair[1])
    if pair[0].type == "cuda":
        assert nn.DataParallel(net, device_ids=pair, output_device=-1)(x).device.type == "cpu"
    # dim=1: a (5, 6) input of 6 columns split 3 / 3, each replica's output (3, 3) joined
    lin = nn.Linear(5, 3, dtype=F64).to(pair[0])

    class Cols(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lin

        def forward(self, x):
            return self.lin(x.T).T  # (5, k) -> (3, k)

    cols = nn.DataParallel(Cols(), device_ids=pair, dim=1)
    xt = data(6, pair[0]).T
    assert_close(cols(xt), lin(xt.T).T.detach().cpu().numpy(), F64)


def test_kwargs_and_structured_outputs(pair):
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = mlp(pair[0])

        def forward(self, x, shift=None, *, scale=1.0):
            y = self.lin(x) * scale
            if shift is not None:
                y = y + shift
            return y, {"hidden": x * 2, "none": None}

    net = Two()
    ref = copy.deepcopy(net)
    dp = nn.DataParallel(net, device_ids=pair)
    x, shift = data(5, pair[0]), data(5, "cpu", seed=1)[:, :3]
    y, extra = dp(x, shift=shift, scale=0.5)
    ry, rextra = ref(x, shift=shift.to(pair[0]), scale=0.5)
    assert_close(y, ry.detach().cpu().numpy(), F64)
    assert_close(extra["hidden"], rextra["hidden"].cpu().numpy(), F64)
    assert extra["none"] is None and y.device == pair[0]


def test_batch_norm_running_stats_follow_the_first_piece(pair):
    """PyTorch's observable behaviour: the replica on device_ids[0] updates the module's
    buffers with its piece's statistics; the other replicas' updates are dropped."""
    net = mlp(pair[0], batch_norm=True)
    ref = copy.deepcopy(net)
    dp = nn.DataParallel(net, device_ids=pair)
    x = data(8, pair[0])
    out = dp(x)
    first = ref(x[:4])  # the first piece, alone: the same updates of the same buffers
    second = copy.deepcopy(mlp(pair[0], batch_norm=True))(x[4:])  # normalised by its own
    bn, rbn = net[2], ref[2]
    assert_close(bn.running_mean, rbn.running_mean.cpu().numpy(), F64)
    assert_close(bn.running_var, rbn.running_var.cpu().numpy(), F64)
    assert bn.num_batches_tracked.item() == 1
    assert_close(out[:4], first.detach().cpu().numpy(), F64)
    assert_close(out[4:], second.detach().cpu().numpy(), F64)
    dp.eval()  # evaluation: every replica uses the module's running statistics
    ref.eval()
    assert_close(dp(x), ref(x).detach().cpu().numpy(), F64)
    assert bn.num_batches_tracked.item() == 1


def test_batch_norm_cumulative_average_reads_nothing_back(pair):
    """momentum=None weighs batch k by 1/k: the count is kept on the host and follows
    Module.to and every replica (Note [the host count]), so three training forwards
    copy nothing to the host, and the running statistics are the single-device run's
    on the first pieces."""
    pdt.manual_seed(0)
    net = nn.Sequential(nn.BatchNorm2d(3, momentum=None, dtype=F64)).to(pair[0])
    ref = copy.deepcopy(net)
    dp = nn.DataParallel(net, device_ids=pair)
    xs = [pdt.from_numpy(np.random.default_rng(k).standard_normal((8, 3, 2, 2)))
          .to(pair[0]) for k in range(3)]
    pdt.reset_transfer_stats()
    for x in xs:
        dp(x)
    d2h = pdt.transfer_stats()["device_to_host"]["count"]
    for x in xs:
        ref(x[:4])
    bn, rbn = net[0], ref[0]
    assert_close(bn.running_mean, rbn.running_mean.cpu().numpy(), F64)
    assert_close(bn.running_var, rbn.running_var.cpu().numpy(), F64)
    assert bn.num_batches_tracked.item() == rbn.num_batches_tracked.item() == 3
    want = np.mean([x[:4].cpu().numpy().mean(axis=(0, 2, 3)) for x in xs], axis=0)
    assert_close(bn.running_mean, want, F64)  # the average of three batches' means
    assert d2h == 0


def test_a_failing_replica_leaves_the_buffers_as_they_were(pair):
    """Three samples: pieces of 2 and 1; BatchNorm refuses the piece of one in training
    (on the second device), before the first device's replica has run."""
    net = mlp(pair[0], batch_norm=True)
    dp = nn.DataParallel(net, device_ids=pair)
    with pytest.raises(ValueError, match=rf"Caught ValueError in replica 1 on device "
                                         rf"{pair[1]}: .*more than 1 value per channel"):
        dp(data(3, pair[0]))
    assert net[2].num_batches_tracked.item() == 0
    assert net[2].running_mean.cpu().tolist() == [0.0] * 8


def test_module_not_on_device_ids_0_is_refused(pair):
    net = mlp(pair[1])
    dp = nn.DataParallel(net, device_ids=pair)
    with pytest.raises(RuntimeError, match=rf"module must have its parameters and buffers on "
                                           rf"device {pair[0]} \(device_ids\[0\]\) but found "
                                           rf"one of them on device: {pair[1]} "
                                           rf"\(parameter '0.weight'\)"):
        dp(data(4, pair[0]))
    assert net[0].weight.grad is None


def test_sgd_training_matches_one_device(pair):
    net = mlp(pair[0])
    ref = copy.deepcopy(net)
    dp = nn.DataParallel(net, device_ids=pair)
    opt = optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    loss = nn.MSELoss()
    for step in range(5):
        x = data(9, "cpu", seed=step)
        y = data(9, "cpu", seed=100 + step)[:, :3].to(pair[0])
        for model, o in ((dp, opt), (ref, ref_opt)):
            o.zero_grad()
            loss(model(x.to(pair[0])), y).backward()
            o.step()
    for p, r in zip(net.parameters(), ref.parameters()):
        assert p.device == pair[0]
        assert_close(p, r.detach().cpu().numpy(), F64)


def test_no_grad_forward_records_nothing(pair):
    net = mlp(pair[0])
    dp = nn.DataParallel(net, device_ids=pair)
    with pdt.no_grad():
        out = dp(data(4, pair[0]))
    assert out.grad_fn is None and not out.requires_grad


def test_replicate_gradients_reach_the_original(pair):
    net = mlp(pair[0])
    ref = copy.deepcopy(net)
    r0, r1 = nn.parallel.replicate(net, pair)
    assert r1[0].weight.device == pair[1] and r1[0].weight.grad_fn is not None
    x = data(4, "cpu")
    r1(x.to(pair[1])).sum().backward()
    ref(x.to(pair[0])).sum().backward()
    for g, r in zip(grads(net), grads(ref)):
        assert g.device == pair[0]
        assert_close(g, r.cpu().numpy(), F64)
    [d1] = nn.parallel.replicate(net, pair[1:], detach=True)
    assert not d1[0].weight.requires_grad


def test_d2l_13_5_scatter_gather_and_allreduce(pair):
    """The chapter's pieces: nn.parallel.scatter of a batch, its allreduce of .to() and +,
    and its train_batch of per-device parameters, against one device."""
    devices = pair
    data_ = pdt.arange(20).reshape(4, 5)
    split = nn.parallel.scatter(data_, devices)
    assert [s.device for s in split] == devices
    assert split[0].tolist() == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert split[1].tolist() == [[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]]
    back = nn.parallel.gather(split, devices[0])
    assert back.device == devices[0] and back.cpu().tolist() == data_.tolist()

    def allreduce(data):
        for i in range(1, len(data)):
            data[0][:] += data[i].to(data[0].device)
        for i in range(1, len(data)):
            data[i][:] = data[0].to(data[i].device)

    data = [pdt.ones((1, 2), device=devices[i]) * (i + 1) for i in range(2)]
    allreduce(data)
    assert [d.cpu().tolist() for d in data] == [[[3.0, 3.0]], [[3.0, 3.0]]]

    def get_params(params, device):
        new_params = [p.to(device) for p in params]
        for p in new_params:
            p.requires_grad_()
        return new_params

    rng = np.random.default_rng(3)
    W1, b1 = pdt.from_numpy(rng.standard_normal((5, 4))), pdt.zeros(4, dtype=F64)
    W2, b2 = pdt.from_numpy(rng.standard_normal((4, 2))), pdt.zeros(2, dtype=F64)
    params = [W1, b1, W2, b2]

    def net(X, params):
        return pdt.tanh(X @ params[0] + params[1]) @ params[2] + params[3]

    X, y = data_.to(F64)[:, :5] / 10, pdt.from_numpy(rng.standard_normal((4, 2)))
    device_params = [get_params(params, d) for d in devices]
    X_shards, y_shards = nn.parallel.scatter(X, devices), nn.parallel.scatter(y, devices)
    ls = [((net(Xs, W) - ys) ** 2).sum() for Xs, ys, W in zip(X_shards, y_shards, device_params)]
    for loss in ls:
        loss.backward()
    with pdt.no_grad():
        for i in range(len(device_params[0])):
            allreduce([device_params[c][i].grad for c in range(len(devices))])
    whole = get_params(params, "cpu")
    ((net(X, whole) - y) ** 2).sum().backward()
    for c in range(len(devices)):
        for p, r in zip(device_params[c], whole):
            assert_close(p.grad, r.grad.numpy(), F64)


def run_on_logical_cpus(path):
    """The pair tests of the test file path on cpu:1 and cpu:2, in a fresh pytest (the
    devices are configured before first use: module docstring)."""
    if _LOGICAL_CPUS:
        pytest.skip("this is the run on logical CPU devices")
    env = dict(os.environ, PYDEVTENSOR_TEST_DP_CPUS="3")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-k", "logical_cpus", os.path.abspath(path)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tail = proc.stdout.strip().splitlines()[-1]
    assert "passed" in tail and "skipped" not in tail and "failed" not in tail, proc.stdout


def test_on_two_logical_cpu_devices():
    """This file's pair tests on cpu:1 and cpu:2, in a fresh pytest."""
    run_on_logical_cpus(__file__)


def test_a_layers_device_error_frees_its_input_at_once(pair):
    """A layer's DeviceError (re-raised naming the layer) holds no cycle: once caught, the
    input is freed without the garbage collector."""
    import gc
    import weakref
    net, seen = nn.Linear(4, 4).to(pair[0]), []

    def run():
        x = pdt.ones(8, 4, device=pair[1])
        seen.append(weakref.ref(x))
        net(x)

    gc.disable()
    try:
        with pytest.raises(pdt.DeviceError, match="in layer"):
            run()
        assert seen[0]() is None
    finally:
        gc.enable()
