"""Module._apply: the one place where to/cpu/cuda/float/double/half/bfloat16/type/
to_empty/share_memory replace a module's tensors, so a subclass overriding it sees each
call (as PyTorch's); all or nothing."""
import gc

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import config, nn


class Logged(nn.Linear):
    """Logs each _apply call and moves a tensor kept as a plain attribute."""

    def __init__(self, log, device):
        super().__init__(2, 3, device=device)
        self.log = log
        self.extra = pdt.ones(4, device=device)  # neither a parameter nor a buffer

    def _apply(self, fn, recurse=True):
        self.log.append(type(self).__name__)
        self.extra = fn(self.extra)
        return super()._apply(fn, recurse)


CALLS = [("double", (), pdt.float64), ("half", (), pdt.float16),
         ("bfloat16", (), pdt.bfloat16), ("float", (), pdt.float32),
         ("to", (pdt.float64,), pdt.float64), ("type", (pdt.float64,), pdt.float64),
         ("cpu", (), pdt.float32), ("share_memory", (), pdt.float32)]


@pytest.mark.parametrize("method,args,dtype", CALLS)
def test_each_conversion_goes_through_an_overridden_apply(device, method, args, dtype):
    log = []
    m = Logged(log, device)
    weight = m.weight
    assert getattr(m, method)(*args) is m
    assert log == ["Logged"]
    assert m.extra.dtype == dtype and m.weight.dtype == dtype
    assert m.weight is weight  # the Parameter object stays
    if method != "cpu":
        np.testing.assert_array_equal(m.extra.float().cpu().numpy(), np.ones(4))


def test_to_empty_goes_through_it_and_the_children_are_called_first(device):
    log = []
    outer = nn.Sequential(Logged(log, device), nn.ReLU(), Logged(log, device))
    outer.to_empty(device=device)
    assert log == ["Logged", "Logged"]
    assert outer[0].extra.shape == (4,) and outer[0].weight.grad is None


def test_recurse_false_leaves_the_children(device):
    log = []
    outer = nn.Sequential(Logged(log, device))
    outer.register_buffer("b", pdt.zeros(2, device=device))
    outer._apply(lambda t: t.double(), recurse=False)
    assert log == [] and outer.b.dtype == pdt.float64 and outer[0].weight.dtype == pdt.float32


def test_gradient_follows_the_data(device):
    m = nn.Linear(2, 2, device=device)
    m(pdt.ones(1, 2, device=device)).sum().backward()
    grad = m.weight.grad.numpy().copy() if device == "cpu" else m.weight.grad.cpu().numpy()
    m.double()
    assert m.weight.grad.dtype == pdt.float64
    np.testing.assert_array_equal(m.weight.grad.cpu().numpy(), grad)


def test_a_failure_in_a_later_module_puts_back_the_earlier_ones():
    calls = []

    def fn(t):
        calls.append(t.shape)
        if len(calls) == 5:  # BatchNorm's running_mean: the first Linear is done
            raise RuntimeError("no room")
        return t.double()

    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Linear(2, 3))
    weight, before = net[0].weight, net[0].weight.tolist()
    with pytest.raises(RuntimeError, match="no room"):
        net._apply(fn)
    assert {t.dtype for t in net.state_dict().values() if t.is_floating_point()} \
        == {pdt.float32}
    assert net[0].weight is weight and weight.tolist() == before
    net._apply(lambda t: t.double())  # and it still moves as a whole
    assert net[2].bias.dtype == pdt.float64 and net[1].running_mean.dtype == pdt.float64


def test_out_of_memory_in_double_leaves_an_override_s_buffers():
    net = nn.Sequential(nn.BatchNorm1d(2), nn.Linear(2, 2**19))
    gc.collect()  # earlier garbage, freed mid-call, would make room
    config.set_memory_limit("cpu", pdt.memory_allocated("cpu") + 2**20)
    try:
        with pytest.raises(pdt.OutOfMemoryError):
            net.double()
    finally:
        config.set_memory_limit("cpu", None)
    assert net[0].running_var.dtype == pdt.float32
