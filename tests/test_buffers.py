"""Module buffers (register_buffer, buffers, named_buffers) with PyTorch's semantics:
in state_dict() when persistent, loaded all or nothing by load_state_dict(), moved and
cast (floating ones only) by .to(), kept by pickle, deepcopy and save/load; and
ModuleDict, ParameterList and ParameterDict (a lazy model's state dict is in
test_lazy.py).  Values are compared exactly: every operation here copies."""
import copy
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn


def _np(t):
    return t.detach().cpu().numpy()


class Counter(nn.Module):
    """A parameter, a persistent float buffer, an int64 one and a non-persistent one."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(pdt.tensor([2.0, 3.0]))
        self.register_buffer("total", pdt.zeros(2))
        self.register_buffer("steps", pdt.tensor(0))
        self.register_buffer("scratch", pdt.ones(3), persistent=False)

    def forward(self, x):
        self.total.add_(x.detach().sum(0))
        self.steps.add_(1)
        return x * self.scale


def test_registration_and_walking():
    net = nn.Sequential(Counter(), nn.ReLU(), Counter())
    assert [n for n, _ in net.named_buffers()] == [
        "0.total", "0.steps", "0.scratch", "2.total", "2.steps", "2.scratch"]
    assert len(list(net.buffers())) == 6 and list(net[1].buffers()) == []
    assert [n for n, _ in net[0].named_buffers(prefix="m")] == ["m.total", "m.steps",
                                                                "m.scratch"]
    assert list(net.buffers(recurse=False)) == []
    assert [n for n, _ in net.named_parameters()] == ["0.scale", "2.scale"]  # not buffers
    assert list(net.state_dict()) == ["0.scale", "0.total", "0.steps", "2.scale", "2.total",
                                      "2.steps"]
    m = net[0]
    assert m.total is m._buffers["total"] and not m.total.requires_grad
    m.total = pdt.full((2,), 5.0)  # assignment replaces the buffer, persistence kept
    assert "total" in m.state_dict() and _np(m.state_dict()["total"]).tolist() == [5, 5]
    m.scratch = None  # None: reserved, not in buffers()
    assert [n for n, _ in m.named_buffers()] == ["total", "steps"]
    del m.steps
    assert "steps" not in m.state_dict() and not hasattr(m, "steps")
    shared = nn.Module()
    t = pdt.zeros(1)
    shared.register_buffer("a", t)
    shared.register_buffer("b", t)
    assert [n for n, _ in shared.named_buffers()] == ["a"]
    assert [n for n, _ in shared.named_buffers(remove_duplicate=False)] == ["a", "b"]
    assert repr(Counter()) == "Counter()"


def test_register_buffer_refuses():
    m = Counter()
    with pytest.raises(KeyError, match=r"attribute 'scale' already exists"):
        m.register_buffer("scale", pdt.zeros(1))
    with pytest.raises(KeyError, match=r"neither empty nor contain '.', got 'a.b'"):
        m.register_buffer("a.b", pdt.zeros(1))
    with pytest.raises(TypeError, match=r"cannot assign list to buffer 'x' \(expected a "
                                        r"Tensor or None\)"):
        m.register_buffer("x", [1.0])
    with pytest.raises(TypeError, match=r"cannot assign int to buffer 'total'"):
        m.total = 3
    m.register_buffer("total", pdt.ones(2), persistent=False)  # re-registering is allowed
    assert "total" not in m.state_dict()


def test_training_updates_buffers_and_a_state_dict_round_trip(device, tmp_path):
    net = nn.Sequential(Counter()).to(device)
    x = pdt.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    for _ in range(3):
        net(x)
    assert net[0].total.device == device and net[0].steps.device == device
    np.testing.assert_array_equal(_np(net[0].total), 3 * np.array([4.0, 6.0]))
    pdt.save(net.state_dict(), tmp_path / "c.pdt")
    twin = nn.Sequential(Counter())
    assert twin.load_state_dict(pdt.load(tmp_path / "c.pdt", map_location="cpu")) == ([], [])
    np.testing.assert_array_equal(_np(twin[0].total), [12.0, 18.0])
    assert twin[0].steps.item() == 3 and twin[0].steps.dtype == pdt.int64
    np.testing.assert_array_equal(_np(twin[0].scratch), np.ones(3))  # not loaded


def test_load_state_dict_checks_buffers_all_or_nothing():
    net = Counter()
    before = {k: _np(v).copy() for k, v in net.state_dict().items()}
    good = {"scale": pdt.tensor([9.0, 9.0]), "total": pdt.tensor([1.0, 1.0]),
            "steps": pdt.tensor(4)}
    with pytest.raises(RuntimeError, match=r"size mismatch for 'total': copying a tensor of "
                                           r"shape \(3,\), the buffer has shape \(2,\)"):
        net.load_state_dict({**good, "total": pdt.zeros(3)})
    with pytest.raises(RuntimeError, match=r"missing key 'steps'"):
        net.load_state_dict({k: v for k, v in good.items() if k != "steps"})
    with pytest.raises(RuntimeError, match=r"unexpected key 'scratch'"):
        net.load_state_dict({**good, "scratch": pdt.zeros(3)})
    for k, v in net.state_dict().items():  # nothing was written
        np.testing.assert_array_equal(_np(v), before[k])
    keys = net.load_state_dict({"total": pdt.tensor([1.0, 2.0])}, strict=False)
    assert keys.missing_keys == ["scale", "steps"] and keys.unexpected_keys == []
    np.testing.assert_array_equal(_np(net.total), [1.0, 2.0])


def test_moves_and_casts(device):
    net = Counter()
    total = net.total
    net.to(device)
    assert all(b.device == device for b in net.buffers())
    net.double()
    assert net.total.dtype == pdt.float64 and net.scratch.dtype == pdt.float64
    assert net.steps.dtype == pdt.int64  # an integer buffer keeps its dtype, as PyTorch
    assert net.scale.dtype == pdt.float64
    net.float().cpu()
    assert net.total.dtype == pdt.float32 and net.total.device == pdt.device("cpu")
    assert net.steps.dtype == pdt.int64
    assert total.dtype == pdt.float32  # the old tensor is replaced, not changed


def test_copies_keep_buffers():
    net = Counter()
    net(pdt.ones(2, 2))
    for twin in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert [n for n, _ in twin.named_buffers()] == ["total", "steps", "scratch"]
        assert twin._non_persistent_buffers_set == {"scratch"}
        np.testing.assert_array_equal(_np(twin.total), [2.0, 2.0])
        assert twin.total is not net.total and twin.steps.item() == 1
        assert list(twin.state_dict()) == ["scale", "total", "steps"]


def test_replicas_get_their_own_buffers():
    from pydevtensor.distribute import _replicate
    net = nn.Sequential(nn.BatchNorm1d(2))
    rep = _replicate(net, pdt.device("cpu"), {})
    assert [n for n, _ in rep.named_buffers()] == ["0.running_mean", "0.running_var",
                                                   "0.num_batches_tracked"]
    assert rep[0].running_mean is not net[0].running_mean
    rep(pdt.tensor([[1.0, 2.0], [3.0, 5.0]]))
    assert net[0].num_batches_tracked.item() == 0 and rep[0].num_batches_tracked.item() == 1


# ---- containers ----

def test_module_dict(device):
    d = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.BatchNorm1d(3)})
    d["c"] = nn.ReLU()
    assert list(d) == ["a", "b", "c"] and len(d) == 3 and "b" in d
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias", "b.weight", "b.bias"]
    assert "b.running_mean" in d.state_dict()
    d.to(device)
    assert d["b"].running_var.device == device and d["a"].weight.device == device
    assert type(d.pop("c")).__name__ == "ReLU" and list(d.keys()) == ["a", "b"]
    with pytest.raises(TypeError, match=r"ModuleDict: expected an nn.Module for key 'x', got "
                                        r"int"):
        d.update({"z": nn.ReLU(), "x": 3})
    assert list(d) == ["a", "b"]  # update checks everything first
    with pytest.raises(TypeError, match=r"keys must be str, got int"):
        d[1] = nn.ReLU()
    del d["a"]
    d.clear()
    assert len(d) == 0


def test_parameter_list_and_dict(device):
    ps = nn.ParameterList([pdt.ones(2), nn.Parameter(pdt.zeros(3))])
    assert all(type(p) is nn.Parameter for p in ps) and len(ps) == 2
    ps.append(pdt.full((1,), 2.0)).extend([pdt.ones(4)])
    assert [tuple(p.shape) for p in ps.parameters()] == [(2,), (3,), (1,), (4,)]
    assert list(ps.state_dict()) == ["0", "1", "2", "3"]
    assert tuple(ps[-1].shape) == (4,) and len(ps[1:3]) == 2
    ps[0] = pdt.zeros(5)
    assert tuple(ps[0].shape) == (5,)
    with pytest.raises(IndexError, match=r"index 4 is out of range for a ParameterList of 4"):
        ps[4]
    with pytest.raises(TypeError, match=r"extend should be called with an iterable, but "
                       r"got Tensor"):
        ps.extend(pdt.ones(2))
    pd = nn.ParameterDict({"w": pdt.ones(2, 2)})
    pd["b"] = pdt.zeros(2)
    pd.update([("c", pdt.ones(1))])
    assert list(pd) == ["w", "b", "c"] and list(pd.state_dict()) == ["w", "b", "c"]
    net = nn.Module()
    net.ps, net.pd = ps, pd
    net.to(device, pdt.float64)
    assert all(p.device == device and p.dtype == pdt.float64 for p in net.parameters())
    assert len(list(net.parameters())) == 7
    assert tuple(pd.pop("c").shape) == (1,) and "c" not in pd
    assert "(w): Parameter containing: [pydevtensor.float64 of size 2x2" in repr(pd)


def test_against_torch_state_dict_order():
    torch = torch_or_skip()
    ours = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.LayerNorm(3), nn.Embedding(4, 3))
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3),
                                 torch.nn.LayerNorm(3), torch.nn.Embedding(4, 3))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    lazy_sd = torch.nn.Sequential(torch.nn.LazyLinear(4)).state_dict()
    fresh = torch.nn.Sequential(torch.nn.LazyLinear(4))
    fresh.load_state_dict(lazy_sd)  # PyTorch's behaviour, which ours follows
    assert isinstance(fresh[0].weight, torch.nn.parameter.UninitializedParameter)


def test_nn_buffer_assigned_registers_a_buffer(device):
    """nn.Buffer, PyTorch 2.x's marker: assigned as an attribute it registers a buffer,
    persistent or not as asked; it is a plain Tensor sharing the data's storage."""
    t = pdt.ones(2, device=device)
    b = nn.Buffer(t)
    assert type(b) is pdt.Tensor and isinstance(b, nn.Buffer) and not isinstance(t, nn.Buffer)
    assert not isinstance(pdt.ones(1), nn.Buffer) and not b.requires_grad
    b.add_(1)
    assert t.tolist() == [2.0, 2.0]
    m = nn.Module()
    m.b = b
    m.c = nn.Buffer(pdt.zeros(1, device=device), persistent=False)
    m.plain = pdt.zeros(1, device=device)  # a plain Tensor is an attribute only
    assert [n for n, _ in m.named_buffers()] == ["b", "c"] and list(m.state_dict()) == ["b"]
    assert m.b is b and type(m.b) is pdt.Tensor
    g = pdt.ones(1, device=device, requires_grad=True)
    m.g = nn.Buffer(g)
    assert m.g is not g and m.g.requires_grad and m.g.is_leaf
    m.c = nn.Buffer(pdt.ones(3, device=device))  # an nn.Buffer says its persistence
    assert list(m.state_dict()) == ["b", "c", "g"]
    m.c = pdt.ones(4, device=device)  # a plain one keeps the buffer's
    assert list(m.state_dict()) == ["b", "c", "g"] and m.c.shape == (4,)
    assert nn.Buffer().shape == (0,)


def test_nn_buffer_refused_where_pytorch_refuses_it():
    m = nn.Module()
    m.p = nn.Parameter(pdt.ones(1))
    with pytest.raises(TypeError, match="cannot assign Tensor to parameter 'p'"):
        m.p = nn.Buffer(pdt.ones(1))
    m.c = nn.ReLU()
    with pytest.raises(TypeError, match="cannot assign Tensor as child module 'c'"):
        m.c = nn.Buffer(pdt.ones(1))
    m.x = 3
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.x = nn.Buffer(pdt.ones(1))
    with pytest.raises(TypeError, match="Buffer\\(data\\) needs a Tensor, got int"):
        nn.Buffer(3)
