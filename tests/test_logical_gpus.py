"""One GPU split into two logical devices (config.set_logical_device_configuration).

CUDA knows only physical devices: every call the backend makes must name the GPU behind
a logical device, and every device id that leaves the package (DLPack, the CUDA array
interface) is the physical CUDA ordinal (Note [logical devices] in pdt_registry.c).
Configuration happens once per process, so each case runs in a fresh interpreter; under
the emulated device (PYDEVTENSOR_EMULATED_DEVICES=1 or 2) physical GPU 0 is split, and
with two GPUs the second one stays whole as the third logical device."""
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROLOGUE = """
import json
import numpy as np
import pydevtensor as pdt
from pydevtensor import config as c, nn, optim
gpu = c.list_physical_devices('GPU')[0]
c.set_logical_device_configuration(gpu, [c.LogicalDeviceConfiguration(256),
                                         c.LogicalDeviceConfiguration(256)])
PHYSICAL = len(c.list_physical_devices('GPU'))
assert pdt.cuda.device_count() == PHYSICAL + 1
"""


def run(code):
    """Runs code after PROLOGUE in a fresh interpreter; returns the JSON its last line
    prints, failing the test with its stderr when it fails."""
    proc = subprocess.run([sys.executable, "-c", PROLOGUE + textwrap.dedent(code)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.cuda
def test_ops_run_on_the_second_logical_device_of_a_split_gpu():
    """Reductions (all three kernels and the split one), elementwise ops, matmul (cuBLAS
    and the integer kernel), a loss with its backward pass and an optimizer step, all on
    cuda:1, which is physical GPU 0: each must name GPU 0 to CUDA, not device 1."""
    out = run("""
        r = {}
        for dev in ('cuda:0', 'cuda:1'):
            x = pdt.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), device=dev)
            big = pdt.ones((4096, 2), device=dev)               # a column reduction, split
            long = pdt.ones((1, 1 << 17), device=dev)            # a row reduction, split
            r[dev] = dict(
                sum=x.sum().item(), rows=x.sum(1).cpu().tolist(), cols=x.sum(0).cpu().tolist(),
                argmax=x.argmax(1).cpu().tolist(), mean=x.mean().item(),
                big=big.sum(0).cpu().tolist(), long=long.sum(1).cpu().tolist(),
                ew=((x * 2 + 1) - x).cpu().tolist(),
                mm=(x @ x.T).cpu().tolist(),
                imm=(pdt.tensor(np.arange(6).reshape(2, 3), device=dev)
                     @ pdt.tensor(np.arange(6).reshape(3, 2), device=dev)).cpu().tolist())
            pdt.manual_seed(0)
            net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
            opt = optim.SGD(net.parameters(), lr=0.1)
            loss_fn = nn.MSELoss()
            losses = []
            for _ in range(3):
                loss = loss_fn(net(x), pdt.zeros((3, 1), device=dev))
                net.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
            r[dev]['losses'] = losses
            r[dev]['device'] = str(net[0].weight.device)
        print(json.dumps(r))
    """)
    a, b = out["cuda:0"], out["cuda:1"]
    assert b["device"] == "cuda:1"
    assert b["sum"] == 66.0 and b["rows"] == [6.0, 22.0, 38.0]
    assert b["cols"] == [12.0, 15.0, 18.0, 21.0] and b["argmax"] == [3, 3, 3]
    assert b["big"] == [4096.0, 4096.0] and b["long"] == [131072.0]
    assert b["imm"] == [[10, 13], [28, 40]]
    assert b["losses"][-1] < b["losses"][0]
    for key in a:
        if key != "device":
            assert a[key] == b[key], key


@pytest.mark.cuda
def test_mirrored_strategy_step_on_a_split_gpu():
    """The first step of MirroredStrategy (a loss on each replica, then the gradients'
    all-reduce by copies, as NCCL needs two physical GPUs) on cuda:0 and cuda:1 of one GPU."""
    out = run("""
        from pydevtensor import distribute
        rng = np.random.default_rng(0)
        X = pdt.from_numpy(rng.standard_normal((16, 4)).astype('float32'))
        y = pdt.from_numpy(rng.integers(0, 3, 16))
        strategy = distribute.MirroredStrategy(['cuda:0', 'cuda:1'])
        with strategy.scope():
            pdt.manual_seed(0)
            net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        opt = optim.SGD(net.parameters(), lr=0.1)
        hist = strategy.fit(net, X, y, nn.CrossEntropyLoss(), opt, epochs=2, batch_size=8,
                            verbose=0)
        print(json.dumps(hist.history['loss']))
    """)
    assert len(out) == 2 and all(math.isfinite(v) for v in out), out


@pytest.mark.cuda
def test_dlpack_and_cuda_array_interface_speak_physical_ids():
    """Export: a tensor on cuda:1 (physical GPU 0) says (2, 0).  Import: foreign memory
    of physical GPU 0 lands on cuda:0, the GPU's first logical device, without a copy;
    with a second GPU, its memory lands on cuda:2 (logical), not on cuda:1.  Our own
    export comes back on the logical device it left, cuda:1, not moved to cuda:0 behind
    the transfer counters (Note [DLPack and logical devices] in dlpack.c, issue 14)."""
    out = run("""
        class Cai:
            def __init__(self, t):
                self.t = t  # keeps the memory alive
                self.__cuda_array_interface__ = t.__cuda_array_interface__
        r = {}
        t1 = pdt.arange(10, dtype=pdt.float32, device='cuda:1')
        r['device1'] = list(t1.__dlpack_device__())
        u = pdt.from_dlpack(t1)
        r['from_dlpack'] = [str(u.device), u.data_ptr() == t1.data_ptr(), u.cpu().tolist()]
        # dl_device naming t1's own GPU needs no copy (copy=False must not refuse); the
        # capsule says GPU 0, and being ours it comes back on cuda:1
        v = pdt.from_dlpack(t1.__dlpack__(dl_device=(2, 0), copy=False))
        r['same_gpu'] = [str(v.device), v.data_ptr() == t1.data_ptr()]
        w = pdt.as_tensor(Cai(t1))
        r['cai'] = [str(w.device), w.data_ptr() == t1.data_ptr()]
        if PHYSICAL > 1:
            t2 = pdt.arange(10, dtype=pdt.float32, device='cuda:2')
            r['device2'] = list(t2.__dlpack_device__())
            r['from_dlpack2'] = str(pdt.from_dlpack(t2).device)
            r['cai2'] = str(pdt.as_tensor(Cai(t2)).device)
            x = pdt.from_dlpack(t1.__dlpack__(dl_device=(2, 1)))
            r['to_gpu1'] = [str(x.device), x.cpu().tolist()]
        print(json.dumps(r))
    """)
    assert out["device1"] == [2, 0]
    assert out["from_dlpack"] == ["cuda:1", True, list(map(float, range(10)))]
    assert out["same_gpu"] == ["cuda:1", True]
    assert out["cai"] == ["cuda:0", True]
    if "device2" in out:
        assert out["device2"] == [2, 1]
        assert out["from_dlpack2"] == "cuda:2" and out["cai2"] == "cuda:2"
        assert out["to_gpu1"] == ["cuda:2", list(map(float, range(10)))]
