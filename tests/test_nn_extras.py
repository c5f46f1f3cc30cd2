"""nn.init, Module.apply, Dropout, Softmax, ModuleList and Tensor.new_*: PyTorch's names
and meanings, on every device the build has (values against NumPy in float64)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F


def host(t):
    return t.detach().cpu().double().numpy()


# ---- nn.init

def test_init_fills_in_place_within_their_bounds(device):
    w = nn.Parameter(pdt.empty(200, 300, device=device))  # fan_in 300, fan_out 200
    assert nn.init.uniform_(w, -2.0, 3.0) is w and w.requires_grad and w.is_leaf
    v = host(w)
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.05
    v = host(nn.init.normal_(w, mean=1.0, std=0.5))
    assert abs(v.mean() - 1.0) < 0.01 and abs(v.std() - 0.5) < 0.01
    assert (host(nn.init.constant_(w, 2.5)) == 2.5).all()
    assert (host(nn.init.ones_(w)) == 1).all() and (host(nn.init.zeros_(w)) == 0).all()
    a = math.sqrt(6.0 / 500)
    v = host(nn.init.xavier_uniform_(w))
    assert v.min() >= -a and v.max() <= a and v.max() > 0.95 * a
    v = host(nn.init.xavier_normal_(w, gain=2.0))
    assert abs(v.std() - 2.0 * math.sqrt(2.0 / 500)) < 0.003
    b = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(300)  # relu gain, fan_in
    v = host(nn.init.kaiming_uniform_(w, nonlinearity="relu"))
    assert v.min() >= -b and v.max() <= b and v.max() > 0.95 * b
    v = host(nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert abs(v.std() - math.sqrt(2.0 / 200)) < 0.003
    assert w.grad is None and w.grad_fn is None  # nothing recorded


def test_init_draws_the_same_numbers_on_every_device(device):
    pdt.manual_seed(7)
    here = host(nn.init.normal_(pdt.empty(1000, device=device)))
    pdt.manual_seed(7)
    there = host(nn.init.normal_(pdt.empty(1000)))
    np.testing.assert_array_equal(here, there)


def test_init_gains_and_refusals():
    assert nn.init.calculate_gain("relu") == math.sqrt(2.0)
    assert nn.init.calculate_gain("tanh") == 5.0 / 3
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert nn.init.calculate_gain("sigmoid") == 1.0
    with pytest.raises(ValueError, match="unsupported nonlinearity 'swish'"):
        nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match=r"fewer than 2 dimensions \(shape \(5,\)\)"):
        nn.init.xavier_uniform_(pdt.empty(5))
    with pytest.raises(ValueError, match="mode 'fan' is neither"):
        nn.init.kaiming_normal_(pdt.empty(2, 2), mode="fan")
    with pytest.raises(TypeError, match="expected a Tensor, got list"):
        nn.init.zeros_([1.0])


def test_apply_visits_children_before_their_parent(device):
    net = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 2))).to(device)
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Linear", "Sequential", "Sequential"]

    def init(m):
        if type(m) == nn.Linear:
            nn.init.constant_(m.weight, 0.5)
            nn.init.zeros_(m.bias)
    net.apply(init)
    x = pdt.ones(1, 3, device=device)
    np.testing.assert_allclose(host(net(x)), [[4 * 0.5 * 1.5] * 2])  # relu(1.5) * 0.5 * 4


# ---- Dropout

def test_dropout_zeroes_about_p_and_scales_the_rest(device):
    pdt.manual_seed(3)
    x = pdt.ones(100_000, device=device, requires_grad=True)
    y = F.dropout(x, 0.3)
    v = host(y)
    kept = v != 0
    assert abs(1 - kept.mean() - 0.3) < 0.01  # binomial sd 0.0015
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(host(x.grad), np.where(kept, 1 / 0.7, 0.0), rtol=1e-6)
    pdt.manual_seed(3)  # the same mask on the CPU for the same seed
    np.testing.assert_array_equal(host(F.dropout(pdt.ones(100_000), 0.3)) != 0, kept)


def test_dropout_layer_in_train_and_eval(device):
    drop = nn.Dropout(0.5)
    x = pdt.arange(1.0, 7.0, device=device).reshape(2, 3)
    assert drop.eval()(x) is x
    assert (host(drop.train()(x)) % 2 == 0).all()  # kept: 2 * value, or 0
    assert (host(F.dropout(x, 1.0)) == 0).all() and F.dropout(x, 0.0) is x
    y = x.clone()
    assert F.dropout(y, 0.5, inplace=True) is y and (host(y) % 2 == 0).all()
    assert repr(drop) == "Dropout(p=0.5, inplace=False)"
    for p in (-0.1, 1.5, "a"):
        with pytest.raises(ValueError, match="between 0 and 1, but got"):
            nn.Dropout(p)
    with pytest.raises(RuntimeError, match="floating point tensor, got pydevtensor.int64"):
        F.dropout(pdt.ones(3, dtype=pdt.int64, device=device))


# ---- Softmax, ModuleList

def test_softmax_layer(device):
    a = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    x = pdt.tensor(a, dtype=pdt.float64, device=device)
    e = np.exp(a)
    np.testing.assert_allclose(host(nn.Softmax(dim=1)(x)), e / e.sum(1, keepdims=True),
                               rtol=1e-12)
    np.testing.assert_allclose(host(nn.Softmax(dim=0)(x)), e / e.sum(0, keepdims=True),
                               rtol=1e-12)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        np.testing.assert_allclose(host(nn.Softmax()(x)), e / e.sum(1, keepdims=True),
                                   rtol=1e-12)


def test_module_list_registers_its_members(device):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
            self.layers.append(nn.Linear(2, 1))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
    net = Net().to(device)
    assert len(net.layers) == 3 and len(list(net.parameters())) == 6
    assert all(p.device == device for p in net.parameters())
    assert list(net.state_dict())[:2] == ["layers.0.weight", "layers.0.bias"]
    assert tuple(net(pdt.ones(4, 2, device=device)).shape) == (4, 1)
    assert net.layers[-1].out_features == 1 and len(net.layers[:2]) == 2
    net.layers.insert(0, nn.Identity())
    assert [type(m).__name__ for m in net.layers] == ["Identity", "Linear", "Linear", "Linear"]
    net.layers[0] = nn.ReLU()
    assert type(net.layers[0]) is nn.ReLU and net.layers.training
    with pytest.raises(IndexError, match="index 4 is out of range for a ModuleList of 4"):
        net.layers[4]
    with pytest.raises(TypeError, match="expected an nn.Module, got int"):
        net.layers.append(3)


# ---- Tensor.new_*

def test_new_tensors_take_dtype_and_device_from_self(device):
    x = pdt.ones(2, dtype=pdt.float64, device=device)
    for t, shape, value in ((x.new_zeros(2, 3), (2, 3), 0.0), (x.new_ones((4,)), (4,), 1.0),
                            (x.new_full((2,), 7), (2,), 7.0)):
        assert (t.dtype, t.device, tuple(t.shape)) == (pdt.float64, device, shape)
        assert (host(t) == value).all()
    t = x.new_tensor([1, 2])
    assert (t.dtype, t.device, host(t).tolist()) == (pdt.float64, device, [1.0, 2.0])
    assert x.new_empty(3).dtype == pdt.float64
    t = x.new_zeros(2, dtype=pdt.int32, device="cpu", requires_grad=False)
    assert (t.dtype, t.device.type) == (pdt.int32, "cpu")
    assert x.new_ones(2, requires_grad=True).requires_grad


def test_requires_grad_freezes_and_unfreezes_the_parameters(device):
    """net[0].requires_grad_(False) (fine-tuning): the frozen layer's parameters get no
    gradient while the others do; requires_grad_() lets them learn again."""
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1)).to(device)
    assert net[0].requires_grad_(False) is net[0]
    net(pdt.ones(2, 4, device=device)).sum().backward()
    assert net[0].weight.grad is None and net[0].bias.grad is None
    assert net[2].weight.grad is not None
    net.requires_grad_()
    assert all(p.requires_grad for p in net.parameters())
    net.zero_grad()
    net(pdt.ones(2, 4, device=device)).sum().backward()
    assert net[0].weight.grad is not None
