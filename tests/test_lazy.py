"""nn.LazyLinear and nn.UninitializedParameter (D2L's "lazy initialization" and its file
I/O section, which loads a state_dict into a fresh lazy MLP), on every device."""
import copy
import io
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from pydevtensor import nn, optim


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def test_the_first_forward_sets_the_shapes(dev):
    net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10)).to(dev)
    assert repr(net[0].weight) == "<UninitializedParameter>"
    assert "LazyLinear(in_features=0, out_features=256, bias=True)" in repr(net)
    y = net(pdt.rand(2, 20, device=dev))
    assert tuple(y.shape) == (2, 10)
    assert type(net[0]) is nn.Linear and type(net[0].weight) is nn.Parameter
    assert tuple(net[0].weight.shape) == (256, 20) and tuple(net[2].weight.shape) == (10, 256)
    assert net[0].in_features == 20 and net[2].in_features == 256
    for p in net.parameters():
        assert p.device == pdt.device(dev) and p.requires_grad and p.dtype == pdt.float32
    assert "Linear(in_features=20, out_features=256, bias=True)" in repr(net)


def test_the_same_draws_as_linear(dev):
    """One seed: LazyLinear materialised at the first forward is Linear(in, out) made at
    that point (weight then bias, from U(-1/sqrt(in), 1/sqrt(in)))."""
    x = pdt.tensor(np.linspace(-1, 1, 15).reshape(3, 5), dtype=pdt.float64, device=dev)
    lazy = nn.LazyLinear(4, dtype=pdt.float64, device=dev)
    pdt.manual_seed(7)
    got = lazy(x)
    pdt.manual_seed(7)
    ref = nn.Linear(5, 4, dtype=pdt.float64, device=dev)
    w, b = ref.weight.detach().cpu().numpy(), ref.bias.detach().cpu().numpy()
    np.testing.assert_array_equal(lazy.weight.detach().cpu().numpy(), w)
    np.testing.assert_array_equal(lazy.bias.detach().cpu().numpy(), b)
    assert np.abs(w).max() <= 1 / np.sqrt(5) and np.abs(w).max() > 0
    np.testing.assert_allclose(got.detach().cpu().numpy(), x.cpu().numpy() @ w.T + b,
                               rtol=1e-12)


def test_an_optimizer_made_before_the_first_forward_trains_it(dev):
    """The parameters stay the same objects when they materialise."""
    net = nn.LazyLinear(3, device=dev)
    opt = optim.SGD(net.parameters(), lr=0.5)
    x = pdt.tensor([[1.0, 2.0], [3.0, -1.0]], device=dev)
    net(x).sum().backward()
    w0, b0 = net.weight.detach().cpu().numpy().copy(), net.bias.detach().cpu().numpy().copy()
    opt.step()
    # d sum(x W^T + b) / dW = 1 (x summed over the batch), / db = the batch size
    np.testing.assert_allclose(net.weight.detach().cpu().numpy(),
                               w0 - 0.5 * np.ones((3, 1)) * np.array([4.0, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(net.bias.detach().cpu().numpy(), b0 - 0.5 * 2, rtol=1e-6)


class MLP(nn.Module):
    def __init__(self, bias=True):
        super().__init__()
        self.hidden = nn.LazyLinear(8, bias=bias)
        self.output = nn.LazyLinear(2, bias=bias)

    def forward(self, x):
        return self.output(pdt.relu(self.hidden(x)))


@pytest.mark.parametrize("bias", [True, False])
def test_d2l_file_io_loads_into_a_fresh_lazy_mlp(dev, tmp_path, bias):
    net = MLP(bias).to(dev)
    x = pdt.randn(3, 5, device=dev)
    y = net(x)
    pdt.save(net.state_dict(), tmp_path / "mlp.params")
    clone = MLP(bias).to(dev)
    assert clone.load_state_dict(pdt.load(tmp_path / "mlp.params")) == ([], [])
    clone.eval()
    # loaded, still a LazyLinear until its first call, as PyTorch's
    assert type(clone.hidden) is nn.LazyLinear and clone.hidden.in_features == 5
    assert not clone.hidden.has_uninitialized_params()
    np.testing.assert_array_equal(clone(x).detach().cpu().numpy(), y.detach().cpu().numpy())
    assert type(clone.hidden) is nn.Linear


def test_a_bad_state_dict_leaves_the_lazy_layer_as_it_was(dev):
    net = MLP().to(dev)
    bad = {"hidden.weight": pdt.zeros(7, 5), "hidden.bias": pdt.zeros(7),
           "output.weight": pdt.zeros(2, 7), "output.bias": pdt.zeros(2)}
    with pytest.raises(RuntimeError, match=r"size mismatch for 'hidden.weight': copying a "
                                           r"tensor of shape \(7, 5\), the lazy parameter "
                                           r"has shape \(8, in_features\)"):
        net.load_state_dict(bad)
    assert type(net.hidden) is nn.LazyLinear and type(net.output) is nn.LazyLinear
    assert repr(net.hidden.weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match=r"'output.bias': copying a tensor of shape \(3,\)"):
        net.load_state_dict({**bad, "hidden.weight": pdt.zeros(8, 5),
                             "hidden.bias": pdt.zeros(8), "output.weight": pdt.zeros(2, 8),
                             "output.bias": pdt.zeros(3)})
    assert type(net.hidden) is nn.LazyLinear


def test_uninitialized_parameters_say_what_is_unknown(dev):
    w = nn.UninitializedParameter(device=dev, dtype=pdt.float64)
    assert w.device == pdt.device(dev) and w.dtype == pdt.float64 and w.requires_grad
    for ask in (lambda: w.shape, lambda: w.size(), lambda: w.numel()):
        with pytest.raises(ValueError, match="not known yet: run the module once"):
            ask()
        with pytest.raises(RuntimeError, match="not known yet"):  # PyTorch's type too
            ask()
    twin = copy.deepcopy(nn.LazyLinear(2))
    assert repr(twin.weight) == "<UninitializedParameter>"
    w.materialize((2, 3))
    assert type(w) is nn.Parameter and tuple(w.shape) == (2, 3) and w.dtype == pdt.float64


def test_bad_input():
    with pytest.raises(ValueError, match=r"out_features must be >= 0, got -1"):
        nn.LazyLinear(-1)
    with pytest.raises(TypeError, match=r"out_features must be an int, got float"):
        nn.LazyLinear(2.0)
    layer = nn.LazyLinear(2)
    with pytest.raises(ValueError, match=r"LazyLinear: the first input sets in_features from "
                                         r"its last dimension, and it is a 0-d tensor"):
        layer(pdt.tensor(1.0))
    assert type(layer) is nn.LazyLinear  # nothing changed


def test_a_partial_load_into_a_lazy_layer(dev):
    """strict=False with the weight alone: the bias is drawn as at a first forward (not
    uninitialised memory); with the bias alone nothing gives in_features, so the load is
    refused before anything is written (a reviewer's findings)."""
    pdt.manual_seed(3)
    net = nn.Sequential(nn.Linear(2, 2), nn.LazyLinear(4)).to(dev)
    w = pdt.full((4, 3), 0.25, device=dev)
    net.load_state_dict({"1.weight": w}, strict=False)
    assert type(net[1]) is nn.LazyLinear and net[1].in_features == 3  # a Linear when called
    np.testing.assert_array_equal(net[1].weight.detach().cpu().numpy(), np.full((4, 3), 0.25))
    b = net[1].bias.detach().cpu().numpy()
    assert np.all(np.abs(b) <= 1 / np.sqrt(3)) and np.abs(b).max() > 0
    other = nn.Sequential(nn.Linear(2, 2), nn.LazyLinear(4)).to(dev)
    before = other[0].weight.detach().cpu().numpy().copy()
    with pytest.raises(RuntimeError, match=r"'1.bias' of a lazy layer cannot be loaded without "
                                           r"'1.weight'"):
        other.load_state_dict({"0.weight": pdt.zeros(2, 2), "1.bias": pdt.zeros(4)},
                              strict=False)
    np.testing.assert_array_equal(other[0].weight.detach().cpu().numpy(), before)
    assert type(other[1]) is nn.LazyLinear


def test_init_before_the_first_forward_is_refused_and_pickling_works():
    import pickle
    lazy = nn.LazyLinear(4)
    with pytest.raises(ValueError, match=r"nn.init.constant_\(\): the parameter is not "
                                         r"initialized yet"):
        nn.init.constant_(lazy.weight, 0.5)
    twin = pickle.loads(pickle.dumps(lazy))
    assert type(twin) is nn.LazyLinear and repr(twin.weight) == "<UninitializedParameter>"
    assert twin(pdt.ones(2, 3)).shape == (2, 4)


def test_mirrored_strategy_with_a_lazy_model():
    """Replicated before its first forward: training asks for one forward first, then
    replicates again from the initialized model (two logical CPUs)."""
    from conftest import run_python
    out = run_python(textwrap.dedent("""
        import numpy as np
        import pydevtensor as pdt
        from pydevtensor import distribute, nn, optim
        cpu = pdt.config.list_physical_devices("CPU")[0]
        pdt.config.set_logical_device_configuration(
            cpu, [pdt.config.LogicalDeviceConfiguration()] * 2)
        strategy = distribute.MirroredStrategy(["cpu:0", "cpu:1"])
        with strategy.scope():
            net = nn.Sequential(nn.LazyLinear(3), nn.ReLU(), nn.LazyLinear(1))
        X, y = pdt.randn(8, 5), pdt.randn(8, 1)
        try:
            strategy.replicas(net)
        except ValueError as e:
            print("refused" if "run the model once" in str(e) else e)
        net(X[:1])
        reps = strategy.replicas(net)
        same = all(np.array_equal(a.detach().numpy(), b.detach().cpu().numpy())
                   for a, b in zip(net.parameters(), reps[1].parameters()))
        print(same, reps[1][0].weight.device)
        strategy.fit(net, X, y, nn.MSELoss(), optim.SGD(net.parameters(), lr=0.1),
                     epochs=1, batch_size=4, verbose=0)
        print("trained")
    """))
    assert out == ["refused", "True", "cpu:1", "trained"]


# ---- a lazy model's state dict before its first forward (PyTorch's behaviour) ----

def _np(t):
    return t.detach().cpu().numpy()


def _mlp():
    return nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))


def test_an_uninitialized_state_dict_loads_into_an_uninitialized_model(device):
    sd = _mlp().to(device).state_dict()
    assert all(repr(v) == "<UninitializedParameter>" for v in sd.values())
    buf = io.BytesIO()
    pdt.save(sd, buf)
    buf.seek(0)
    for state in (sd, pdt.load(buf)):
        fresh = _mlp().to(device)
        assert fresh.load_state_dict(state) == ([], [])
        assert type(fresh[0]) is nn.LazyLinear  # uninitialized stays uninitialized
        assert repr(fresh[0].weight) == "<UninitializedParameter>"
        assert fresh[0].weight.device == device
        assert tuple(fresh(pdt.ones(3, 5, device=device)).shape) == (3, 2)


def test_real_weights_materialize_and_uninitialized_ones_are_refused(device):
    trained = _mlp().to(device)
    trained(pdt.ones(1, 5, device=device))
    fresh = _mlp().to(device)
    assert fresh.load_state_dict(trained.state_dict()) == ([], [])
    assert type(fresh[0]) is nn.LazyLinear and fresh[0].in_features == 5  # till called
    np.testing.assert_array_equal(_np(fresh[2].weight), _np(trained[2].weight))
    before = _np(trained[0].weight).copy()
    with pytest.raises(RuntimeError, match=r"'0.weight' is an uninitialized parameter \(its "
                                           r"lazy layer never ran\), the parameter has shape "
                                           r"\(4, 5\)"):
        trained.load_state_dict(_mlp().state_dict())
    np.testing.assert_array_equal(_np(trained[0].weight), before)


@pytest.mark.parametrize("make, shape", [
    (lambda d: nn.LazyLinear(3, device=d), (2, 4)),
    (lambda d: nn.LazyLinear(3, bias=False, device=d), (2, 4)),
    (lambda d: nn.LazyConv1d(2, 3, device=d), (1, 2, 6)),
    (lambda d: nn.LazyConv2d(2, 3, bias=False, device=d), (1, 2, 5, 5)),
    (lambda d: nn.LazyConv3d(2, 1, device=d), (1, 2, 3, 3, 3)),
    (lambda d: nn.LazyConvTranspose1d(2, 3, device=d), (1, 2, 4)),
    (lambda d: nn.LazyConvTranspose2d(2, 3, device=d), (1, 2, 4, 4)),
    (lambda d: nn.LazyConvTranspose3d(2, 1, device=d), (1, 2, 2, 2, 2)),
    (lambda d: nn.LazyBatchNorm1d(device=d), (3, 4)),
    (lambda d: nn.LazyBatchNorm2d(affine=False, device=d), (3, 4, 2, 2)),
    (lambda d: nn.LazyBatchNorm3d(device=d), (3, 4, 2, 2, 2)),
    (lambda d: nn.LazyInstanceNorm1d(device=d), (3, 4, 5)),
    (lambda d: nn.LazyInstanceNorm2d(device=d), (3, 4, 5, 5)),
    (lambda d: nn.LazyInstanceNorm3d(device=d), (3, 4, 2, 2, 2))])
def test_has_uninitialized_params_until_the_first_forward(device, make, shape):
    """PyTorch's LazyModuleMixin.has_uninitialized_params: True on every lazy layer until
    its first forward, which makes it the plain layer (no longer a LazyModuleMixin, as
    PyTorch's cls_to_become does)."""
    from pydevtensor.nn.modules.lazy import LazyModuleMixin
    layer = make(device)
    assert isinstance(layer, LazyModuleMixin) and layer.has_uninitialized_params() is True
    layer(pdt.rand(*shape, device=device))
    assert not isinstance(layer, LazyModuleMixin)
    assert not hasattr(layer, "has_uninitialized_params")
    # the check itself on the materialised layer's parameters and buffers
    assert LazyModuleMixin.has_uninitialized_params(layer) is False


def test_has_uninitialized_params_sees_buffers_and_only_the_modules_own(device):
    from pydevtensor.nn.modules.lazy import LazyModuleMixin
    bn = nn.LazyBatchNorm1d(affine=False, track_running_stats=True, device=device)
    assert [n for n, _ in bn.named_parameters()] == [] and bn.has_uninitialized_params()
    bn2 = nn.LazyBatchNorm1d(affine=False, track_running_stats=False, device=device)
    assert bn2.has_uninitialized_params() is False  # nothing to infer: no placeholder
    lin = nn.LazyLinear(2, device=device)
    lin.weight.materialize((2, 3))
    assert lin.has_uninitialized_params() is True  # the bias still is one
    lin.bias.materialize((2,))
    assert lin.has_uninitialized_params() is False
    assert isinstance(lin, LazyModuleMixin)


@pytest.mark.parametrize("make, bad, good, shape", [
    # a wrong dtype refused after the shapes were taken from it
    (lambda d: nn.LazyLinear(3, device=d), lambda d: pdt.ones(2, 3, device=d).long(),
     lambda d: pdt.ones(2, 4, device=d), (3, 4)),
    # an empty channel dimension: refused by the convolution after materialize
    (lambda d: nn.LazyConv1d(3, 3, device=d), lambda d: pdt.zeros(0, 3, device=d),
     lambda d: pdt.ones(1, 2, 5, device=d), (3, 2, 3)),
    (lambda d: nn.LazyBatchNorm1d(device=d), lambda d: pdt.ones(2, 3, device=d).long(),
     lambda d: pdt.ones(2, 4, device=d), (4,)),
])
def test_a_failed_first_call_leaves_the_module_lazy(device, make, bad, good, shape):
    """Deliberately unlike PyTorch (which keeps the failed call's shapes): the first call
    is all or nothing, so the next correct input still sets the shapes."""
    from pydevtensor.nn.modules.lazy import LazyModuleMixin
    m = make(device)
    cls, placeholders = type(m), dict(m.named_parameters())
    hook_calls = []
    m.register_forward_hook(lambda *a: hook_calls.append(1))
    with pytest.raises(Exception):
        m(bad(device))
    assert type(m) is cls and isinstance(m, LazyModuleMixin) and m.has_uninitialized_params()
    assert repr(m.weight) == "<UninitializedParameter>"
    assert all(m.get_parameter(n) is p for n, p in placeholders.items())  # the same objects
    assert not hook_calls and len(m._forward_hooks) == 1
    y = m(good(device))
    assert type(m) is not cls and tuple(m.weight.shape) == shape and hook_calls == [1]
    if cls is nn.LazyLinear:
        assert tuple(y.shape) == (2, 3)
    if cls is nn.LazyBatchNorm1d:
        assert tuple(m.running_mean.shape) == shape and int(m.num_batches_tracked) == 1


def test_a_hook_that_raises_in_the_first_call_leaves_the_module_lazy(device):
    m = nn.LazyLinear(2, device=device)
    h = m.register_forward_hook(lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        m(pdt.ones(1, 3, device=device))
    assert type(m) is nn.LazyLinear and m.in_features == 0
    h.remove()
    m(pdt.ones(1, 5, device=device))
    assert tuple(m.weight.shape) == (2, 5)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_reset_parameters_draws_the_constructors_values_in_place(dev, bias):
    """Linear.reset_parameters: the same values as the constructor after the same seed,
    written into the same Parameters (an optimizer holding them sees the new values);
    a LazyLinear before its first forward is left uninitialized, as in PyTorch."""
    pdt.manual_seed(11)
    layer = nn.Linear(6, 3, bias=bias, dtype=pdt.float64, device=dev)
    fresh = [p.detach().cpu().numpy().copy() for p in layer.parameters()]
    params = list(layer.parameters())
    opt = optim.SGD(layer.parameters(), lr=0.1)
    layer(pdt.ones(2, 6, dtype=pdt.float64, device=dev)).sum().backward()
    opt.step()
    assert not np.array_equal(params[0].detach().cpu().numpy(), fresh[0])
    pdt.manual_seed(11)
    layer.reset_parameters()
    assert list(layer.parameters()) == params
    for p, want in zip(layer.parameters(), fresh):
        assert p.requires_grad and p.is_leaf and p.grad_fn is None
        np.testing.assert_array_equal(p.detach().cpu().numpy(), want)
    lazy = nn.LazyLinear(3, device=dev)
    lazy.reset_parameters()
    assert repr(lazy.weight) == "<UninitializedParameter>"
