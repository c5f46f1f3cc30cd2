"""pydevtensor.jit.script/trace and pydevtensor.compile: pass-throughs (pydevtensor runs
eagerly), so code written for TorchScript and torch.compile runs as written (D2L 13.1),
with the same results; and cuda.synchronize(device) on a CPU device (D2L 13.2 without a
GPU) waits for nothing."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn


def _net(device):
    pdt.manual_seed(0)
    return nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 2)).to(device)


def test_d2l_13_1_hybridize_as_written(device):
    net = _net(device)
    x = pdt.randn(1, 512, device=device)
    before = net(x)
    scripted = pdt.jit.script(net)
    assert scripted is net
    np.testing.assert_array_equal(scripted(x).detach().cpu().numpy(),
                                  before.detach().cpu().numpy())
    assert pdt.jit.trace(net, x) is net
    assert pdt.compile(net, mode="max-autotune") is net
    assert pdt.compile()(net) is net  # the decorator form
    assert pdt.compile(pdt.relu)(pdt.tensor([-1.0, 3.0], device=device)).tolist() == [0.0, 3.0]


def test_refusals():
    with pytest.raises(TypeError, match=r"compile\(\): model must be a Module or a function, "
                                        r"got int"):
        pdt.compile(3)
    with pytest.raises(TypeError, match=r"jit.trace\(\): func must be a Module or a function"):
        pdt.jit.trace("f", None)
    with pytest.raises(TypeError, match=r"compile\(\): model must be"):
        pdt.compile()("not callable")


def test_scripted_save_and_jit_load_say_what_to_do_instead(tmp_path):
    # D2L 13.1's net.save('my_mlp') after jit.script: no TorchScript archive here, so the
    # AttributeError names the state_dict route, and that route gives the same outputs
    net = pdt.jit.script(_net("cpu"))
    hint = r"no TorchScript archive\): save the parameters with pydevtensor.save"
    with pytest.raises(AttributeError, match=r"'Sequential' object has no attribute 'save'; "
                                             r"jit.script\(\) returns the module itself"):
        net.save(str(tmp_path / "my_mlp"))
    for name in ("save", "load"):
        with pytest.raises(AttributeError, match=rf"'pydevtensor.jit' has no attribute "
                                                 rf"'{name}'; .*{hint}"):
            getattr(pdt.jit, name)
    with pytest.raises(AttributeError, match=r"no attribute 'sve'$"):
        net.sve  # other names keep the plain message
    with pytest.raises(AttributeError, match=r"no attribute 'scrpt'$"):
        pdt.jit.scrpt
    pdt.save(net.state_dict(), tmp_path / "my_mlp")
    clone = _net("cpu")
    clone.load_state_dict(pdt.load(tmp_path / "my_mlp"))
    x = pdt.randn(2, 512)
    assert pdt.equal(clone(x), net(x))


def test_synchronize_on_a_cpu_device_waits_for_nothing():
    for d in ("cpu", pdt.device("cpu"), "/CPU:0"):
        assert pdt.cuda.synchronize(d) is None
    with pytest.raises(ValueError, match=r"invalid device string 'cpu:x'"):
        pdt.cuda.synchronize("cpu:x")
