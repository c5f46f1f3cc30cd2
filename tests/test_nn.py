"""nn: Linear and Sequential on any device, parameters, state dicts, save/load (issue 6)."""
import collections
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def linear_ref(x, w, b):
    return np.asarray(x, np.float64) @ np.asarray(w, np.float64).T + (
        0 if b is None else np.asarray(b, np.float64))


@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3), (0, 3), (1, 1, 1, 3)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_forward_matches_numpy(device, shape, bias, dtype):
    pdt.manual_seed(0)
    layer = nn.Linear(3, 4, bias=bias, device=device, dtype=dtype)
    x = pdt.randn(*shape, dtype=dtype, device=device)
    y = layer(x)
    assert y.shape == shape[:-1] + (4,) and y.device == device and y.dtype.name == dtype
    w = layer.weight.data.cpu().detach().numpy()
    b = layer.bias.data.cpu().detach().numpy() if bias else None
    assert_close(y.detach().cpu().detach().numpy(), linear_ref(x.detach().cpu().detach().numpy(), w, b), dtype)
    f = nn.functional.linear(x, layer.weight, layer.bias)
    assert_close(f.detach().cpu().detach().numpy(), linear_ref(x.detach().cpu().detach().numpy(), w, b), dtype)


def test_linear_initialisation_statistics():
    pdt.manual_seed(1)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w = layer.weight.data.numpy().astype(np.float64)
    b = layer.bias.data.numpy().astype(np.float64)
    assert w.shape == (300, 400) and b.shape == (300,)
    assert -bound <= w.min() and w.max() < bound and -bound <= b.min() and b.max() < bound
    # U(-a, a): mean 0, variance a^2 / 3; 120000 draws give ~0.3% standard error
    assert abs(w.mean()) < 0.01 * bound
    assert abs(w.var() / (bound**2 / 3) - 1) < 0.02
    pdt.manual_seed(1)
    again = nn.Linear(400, 300)
    assert np.array_equal(again.weight.data.numpy(), layer.weight.data.numpy())


@pytest.mark.cuda
def test_one_seed_gives_the_same_layer_on_every_device():
    pdt.manual_seed(7)
    cpu = nn.Linear(16, 8)
    pdt.manual_seed(7)
    gpu = nn.Linear(16, 8, device="cuda")
    assert np.array_equal(gpu.weight.data.cpu().detach().numpy(), cpu.weight.data.numpy())
    assert np.array_equal(gpu.bias.data.cpu().detach().numpy(), cpu.bias.data.numpy())


def test_the_chapter_snippet_runs_verbatim():
    code = textwrap.dedent("""
        import pydevtensor as torch
        from pydevtensor import nn

        def try_gpu(i=0):
            if torch.cuda.device_count() >= i + 1:
                return torch.device(f'cuda:{i}')
            return torch.device('cpu')

        X = torch.ones(2, 3, device=try_gpu())
        net = nn.Sequential(nn.Linear(3, 1))
        net = net.to(device=try_gpu())
        print(net(X).shape)
        print(net[0].weight.data.device == X.device)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split("\n")
    assert out[0] == "pydevtensor.Size([2, 1])" and out[1] == "True"


def test_module_api_and_repr():
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())
    assert repr(net) == ("Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n"
                         "  (1): ReLU()\n  (2): Linear(in_features=4, out_features=1, bias=True)\n"
                         "  (3): Sigmoid()\n)")
    assert len(net) == 4 and isinstance(net[0], nn.Linear) and isinstance(net[-1], nn.Sigmoid)
    assert len(net[1:3]) == 2 and isinstance(net[1:3], nn.Sequential)
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(list(net.parameters())) == 4 and len(list(net.children())) == 4
    assert len(list(net.modules())) == 5
    net.append(nn.Tanh())
    assert len(net) == 5 and isinstance(list(net)[-1], nn.Tanh)
    assert net.eval() is net and not net.training and not net[0].training
    net.train()
    assert net[0].training
    out = net(pdt.ones(2, 3))
    assert out.shape == (2, 1)
    assert isinstance(net[0].weight, nn.Parameter) and isinstance(net[0].weight, pdt.Tensor)
    assert type(net[0].weight.data) is pdt.Tensor
    assert repr(net[0].bias).startswith("Parameter containing:\ntensor([")
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert nn.Identity()(out) is out


def test_small_layers_compute_what_they_say():
    x = pdt.tensor([[-1.0, 0.0, 2.0]])
    assert nn.ReLU()(x).tolist() == [[0.0, 0.0, 2.0]]
    assert_close(nn.Sigmoid()(x).detach().numpy(), 1 / (1 + np.exp(-np.array([[-1.0, 0.0, 2.0]]))))
    assert_close(nn.Tanh()(x).detach().numpy(), np.tanh(np.array([[-1.0, 0.0, 2.0]])))
    assert nn.Flatten()(pdt.ones(2, 3, 4)).shape == (2, 12)


def test_to_moves_parameters_in_place(device):
    net = nn.Sequential(nn.Linear(3, 2))
    w = net[0].weight
    assert net.to(device) is net
    assert net[0].weight is w and w.device == device
    assert net[0].bias.device == device
    net.to(dtype=pdt.float64)
    assert net[0].weight is w and w.dtype == pdt.float64
    net.cpu()
    assert w.device == pdt.device("cpu")
    with pytest.raises(TypeError, match="floating point"):
        net.to(pdt.int64)


def test_state_dict_round_trip_and_strict_errors():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    sd = a.state_dict()
    assert list(sd) == ["weight", "bias"] and type(sd["weight"]) is pdt.Tensor
    assert sd["weight"].data_ptr() == a.weight.data_ptr()  # shares storage, as in PyTorch
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"  # PyTorch's, as D2L shows it
    assert result == ([], []) and isinstance(result, tuple)
    assert b.weight.tolist() == a.weight.tolist()
    before = b.weight.tolist()
    bad = {"weight": pdt.zeros(2, 3), "bias": pdt.zeros(5)}
    with pytest.raises(RuntimeError, match=r"size mismatch for 'bias'.*\(5,\).*\(2,\)"):
        b.load_state_dict(bad)
    assert b.weight.tolist() == before  # nothing written
    with pytest.raises(RuntimeError, match="missing key 'bias'"):
        b.load_state_dict({"weight": pdt.zeros(2, 3)})
    with pytest.raises(RuntimeError, match="unexpected key 'extra'"):
        b.load_state_dict({**sd, "extra": pdt.zeros(1)})
    assert b.weight.tolist() == before
    r = b.load_state_dict({"weight": pdt.zeros(2, 3)}, strict=False)
    assert r.missing_keys == ["bias"] and b.weight.tolist() == [[0.0] * 3] * 2
    assert repr(r) == "IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"


def test_save_load_round_trip(tmp_path, device):
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(device)
    path = tmp_path / "mlp.params"
    pdt.save(net.state_dict(), path)
    assert path.exists() and not (tmp_path / "mlp.params.npz").exists()
    with np.load(path, allow_pickle=False) as plain:  # a NumPy user can read it
        assert set(plain.files) == {"0.weight", "0.bias", "2.weight", "2.bias", "__pydevtensor__"}
        np.testing.assert_array_equal(plain["2.bias"], net[2].bias.data.cpu().detach().numpy())
    loaded = pdt.load(path)
    assert list(loaded) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(t.device == device for t in loaded.values())
    clone = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    clone.load_state_dict(pdt.load(path, map_location="cpu"))
    x = pdt.randn(5, 3)
    assert_close(clone(x).detach().numpy(), net(x.to(device)).detach().cpu().detach().numpy())
    t = pdt.arange(6, device=device).reshape(2, 3)
    pdt.save(t, tmp_path / "t")
    back = pdt.load(tmp_path / "t")
    assert back.device == device and back.dtype == pdt.int64 and back.tolist() == t.cpu().tolist()
    for loc in ("cpu", pdt.device("cpu"), {str(device): "cpu"}):
        assert pdt.load(tmp_path / "t", map_location=loc).device == pdt.device("cpu")


def test_save_keeps_parameters_and_requires_grad(tmp_path, device):
    # save() read the values through .numpy(), which refuses a tensor requiring grad:
    # saving a Parameter raised "Can't call numpy()"; now it comes back as one
    p = nn.Parameter(pdt.arange(3.0, device=device))
    pdt.save(p, tmp_path / "p")
    q = pdt.load(tmp_path / "p")
    assert type(q) is nn.Parameter and q.requires_grad and q.device == device
    assert q.detach().cpu().tolist() == [0.0, 1.0, 2.0]
    w = pdt.ones(2, device=device, requires_grad=True) * 2  # not a leaf: saved as one
    pdt.save({"w": w, "i": pdt.arange(2)}, tmp_path / "d")
    back = pdt.load(tmp_path / "d")
    assert type(back["w"]) is pdt.Tensor and back["w"].requires_grad and back["w"].is_leaf
    assert not back["i"].requires_grad and back["w"].detach().cpu().tolist() == [2.0, 2.0]


def test_load_errors(tmp_path):
    (tmp_path / "junk").write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="not a pydevtensor file"):
        pdt.load(tmp_path / "junk")
    np.savez(tmp_path / "foreign.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="without pydevtensor's '__pydevtensor__' record"):
        pdt.load(tmp_path / "foreign.npz")
    np.save(tmp_path / "single.npy", np.zeros(3))
    with pytest.raises(ValueError, match="single NumPy array"):
        pdt.load(tmp_path / "single.npy")
    np.savez(tmp_path / "corrupt.npz", __pydevtensor__=np.array("{not json"))
    with pytest.raises(ValueError, match="corrupt"):
        pdt.load(tmp_path / "corrupt.npz")
    with pytest.raises(FileNotFoundError):
        pdt.load(tmp_path / "missing")
    with pytest.raises(TypeError, match=r"obj\[1\] is a deque, which save\(\) cannot write"):
        pdt.save([1, collections.deque([2])], tmp_path / "x")
    assert not (tmp_path / "x").exists()  # refused before anything is written


def test_saved_device_missing_names_map_location(tmp_path):
    pdt.save({"w": pdt.ones(2)}, tmp_path / "w")
    # rewrite the record as if saved on a GPU this machine does not have
    with np.load(tmp_path / "w", allow_pickle=False) as d:
        meta = str(d["__pydevtensor__"]).replace('"cpu"', '"cuda:7"')
        w = d["w"]
    np.savez(tmp_path / "gpu.npz", w=w, __pydevtensor__=np.array(meta))
    with pytest.raises(RuntimeError, match=r"saved on cuda:7.*map_location"):
        pdt.load(tmp_path / "gpu.npz")
    assert pdt.load(tmp_path / "gpu.npz", map_location={"cuda:7": "cpu"})["w"].tolist() == [1, 1]


@pytest.mark.cuda
def test_saving_a_gpu_tensor_is_a_counted_copy(tmp_path):
    t = pdt.ones(100, device="cuda")
    pdt.reset_transfer_stats()
    pdt.save(t, tmp_path / "g")
    assert pdt.transfer_stats()["device_to_host"] == {"count": 1, "bytes": 400}


@pytest.mark.parametrize("make,exc,pattern", [
    (lambda: nn.Linear(3, 2)(pdt.ones(2, 4)), ValueError, r"\(2, 4\).*\(2, 3\)"),
    (lambda: nn.Linear(3, 2)(pdt.tensor(1.0)), ValueError, "last dimension"),
    (lambda: nn.Linear(-1, 2), ValueError, "in_features must be >= 0"),
    (lambda: nn.Linear(3, -2), ValueError, "out_features must be >= 0"),
    (lambda: nn.Linear(2.5, 2), TypeError, "must be an int"),
    (lambda: nn.Sequential(nn.Linear(1, 1), 3), TypeError, "not an nn.Module"),
    (lambda: nn.Sequential()[0], IndexError, "out of range"),
    (lambda: nn.Linear(2, 2)(pdt.ones(2, 2, dtype=pdt.float64)), (TypeError, RuntimeError),
     "float32|float64"),
])
def test_bad_input(make, exc, pattern):
    with pytest.raises(exc, match=pattern):
        make()


def test_same_device_rule_names_the_layer():
    code = textwrap.dedent("""
        import pydevtensor as pdt
        from pydevtensor import nn, config as c
        c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                           [c.LogicalDeviceConfiguration()] * 2)
        net = nn.Sequential(nn.Linear(3, 1)).to('cpu:1')
        try:
            net(pdt.ones(2, 3))
        except RuntimeError as e:
            print(e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    assert "Expected all tensors to be on the same device" in out
    assert "cpu:1" in out and "cpu" in out
    assert "in layer '0': Linear(in_features=3, out_features=1, bias=True)" in out
