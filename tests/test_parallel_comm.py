"""nn.parallel.data_parallel (DataParallel's functional form) and nn.parallel.comm /
cuda.comm (broadcast, broadcast_coalesced, reduce_add, scatter, gather) on two
devices: the ``pair`` fixture of test_data_parallel.py (cuda:0 and cuda:1 under
``-m cuda`` with two (emulated) GPUs, or the logical CPU devices cpu:1 and cpu:2, run
by test_on_two_logical_cpu_devices below in a fresh pytest).  Values against NumPy
in float64 and against one device's run (1e-12 + 1e-12 * |ref|, as there); torch's
versions need CUDA, so torch is not run here.  Plus the one-device and no-device
cases and the errors."""
import numpy as np
import pytest

from test_data_parallel import F64, data, mlp, run_on_logical_cpus, two_devices

import pydevtensor as pdt  # noqa: E402  (after test_data_parallel configures the devices)
from conftest import assert_close  # noqa: E402
from pydevtensor import nn  # noqa: E402

comm = nn.parallel.comm


@pytest.fixture(params=[pytest.param("cuda", marks=pytest.mark.cuda), "logical_cpus"])
def pair(request):
    return two_devices(request.param)


def _np(t):
    return t.detach().cpu().numpy()


def test_data_parallel_matches_one_device(pair):
    net = mlp(pair[0])
    x = data(9, pair[0])
    out = nn.parallel.data_parallel(net, x, device_ids=pair)  # one input, not a tuple
    assert out.device == pair[0] and out.shape == (9, 3)
    out.sum().backward()
    got = [_np(p.grad) for p in net.parameters()]
    ref = mlp(pair[0])
    want = ref(x)
    want.sum().backward()
    assert_close(out, _np(want), F64)
    for g, p in zip(got, ref.parameters()):
        assert_close(g, _np(p.grad), F64)


def test_data_parallel_kwargs_output_device_and_dim(pair):
    class Scale(nn.Module):
        def forward(self, x, scale=None):
            return x * scale

    x = pdt.from_numpy(np.arange(12.0).reshape(3, 4)).to(pair[0])
    s = pdt.from_numpy(np.full((3, 4), 2.0)).to(pair[0])
    out = nn.parallel.data_parallel(Scale(), (x,), device_ids=pair, output_device=pair[1],
                                    dim=1, module_kwargs={"scale": s})
    assert out.device == pair[1]
    assert_close(out, np.arange(12.0).reshape(3, 4) * 2, F64)


def test_data_parallel_refuses_a_module_elsewhere(pair):
    net = mlp(pair[1])
    with pytest.raises(RuntimeError, match=rf"module must have its parameters and buffers on "
                                           rf"device {pair[0]} \(device_ids\[0\]\)"):
        nn.parallel.data_parallel(net, data(4, pair[0]), device_ids=pair)


def test_data_parallel_one_or_no_device():
    net = mlp("cpu")
    x = data(4)
    want = _np(net(x))
    assert_close(nn.parallel.data_parallel(net, x, device_ids=[]), want, F64)
    assert_close(nn.parallel.data_parallel(net, (x,), device_ids=["cpu"]), want, F64)
    if not pdt.cuda.is_available():  # the default: every CUDA device, none here
        assert_close(nn.parallel.data_parallel(net, x), want, F64)
    with pytest.raises(TypeError, match=r"data_parallel\(\): expected an nn.Module, got int"):
        nn.parallel.data_parallel(3, x, device_ids=["cpu"])
    with pytest.raises(ValueError, match=r"data_parallel\(\): each device may appear once"):
        nn.parallel.data_parallel(net, x, device_ids=["cpu", "cpu"])


def test_broadcast(pair):
    x = pdt.from_numpy(np.arange(6.0).reshape(2, 3)).to(pair[0])
    copies = comm.broadcast(x, pair)
    assert copies[0] is x and copies[1].device == pair[1]
    assert_close(copies[1], np.arange(6.0).reshape(2, 3), F64)
    outs = [pdt.zeros(2, 3, dtype=pdt.float64, device=d) for d in pair]
    assert comm.broadcast(x, out=outs) == tuple(outs)
    for o in outs:
        assert_close(o, np.arange(6.0).reshape(2, 3), F64)
    grouped = comm.broadcast_coalesced([x, x[0]], pair)
    assert [[t.device for t in g] for g in grouped] == [[pair[0]] * 2, [pair[1]] * 2]


def test_reduce_add_scatter_gather(pair):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    total = comm.reduce_add([pdt.from_numpy(a).to(pair[0]), pdt.from_numpy(b).to(pair[1])],
                            destination=pair[1])
    assert total.device == pair[1]
    assert_close(total, a + b, F64)
    x = pdt.from_numpy(np.arange(10.0).reshape(5, 2)).to(pair[0])
    pieces = comm.scatter(x, pair)
    assert [p.device for p in pieces] == pair and [p.shape[0] for p in pieces] == [3, 2]
    pieces = comm.scatter(x, pair, chunk_sizes=[1, 4])
    assert_close(pieces[1], np.arange(2.0, 10.0).reshape(4, 2), F64)
    joined = comm.gather(pieces, dim=0, destination=pair[1])
    assert joined.device == pair[1]
    assert_close(joined, np.arange(10.0).reshape(5, 2), F64)
    cols = comm.scatter(x, pair, dim=1)
    assert_close(comm.gather(cols, dim=1, destination=-1), np.arange(10.0).reshape(5, 2), F64)
    assert comm.gather(cols, dim=1, destination=-1).device == pdt.device("cpu")


def test_comm_records_nothing_and_cuda_comm_is_it():
    assert pdt.cuda.comm is comm
    import pydevtensor.nn.parallel.comm as imported
    assert imported is comm
    w = pdt.ones(2, requires_grad=True)
    assert comm.broadcast(w, ["cpu"])[0] is w  # itself, on its own device
    assert not comm.reduce_add([w, w], destination="cpu").requires_grad


def test_comm_errors():
    x = pdt.ones(4)
    with pytest.raises(RuntimeError, match=r"Exactly one of 'devices' and 'out' must be "
                                           r"specified, got neither"):
        comm.broadcast(x)
    with pytest.raises(TypeError, match=r"comm.broadcast\(\): tensor must be a Tensor, got list"):
        comm.broadcast([1.0], ["cpu"])
    with pytest.raises(ValueError, match=r"comm.reduce_add\(\): input 1 has shape \(3,\) on "
                                         r"cpu, input 0 \(4,\) on cpu"):
        comm.reduce_add([x, pdt.ones(3)], destination=-1)
    with pytest.raises(ValueError, match=r"comm.reduce_add\(\): expected at least one tensor"):
        comm.reduce_add([], destination=-1)
    with pytest.raises(ValueError, match=r"chunk_sizes \[1, 2\] must have one size per device "
                                         r"and sum to the tensor's size 4"):
        comm.scatter(x, ["cpu", "cpu"], chunk_sizes=[1, 2])
    with pytest.raises(RuntimeError, match=r"'destination' must not be specified when 'out'"):
        comm.gather([x], destination=-1, out=pdt.ones(4))


def test_on_two_logical_cpu_devices():
    """This file's pair tests on cpu:1 and cpu:2, in a fresh pytest."""
    run_on_logical_cpus(__file__)
