"""set_default_dtype() / get_default_dtype(): the factories, tensor(), the dtype of
Python floats and of float results of integers, nn layers' parameters and repr follow
the default floating dtype, as in PyTorch 2.x (checked against torch when it imports).
The default is process-wide: the fixture below restores it (and torch's) after each
test."""
import threading

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn

from conftest import torch_or_skip

DEFAULTS = [pdt.float32, pdt.float64, pdt.float16, pdt.bfloat16]
# relative tolerance of a value rounded once to each dtype (half an ulp, with margin)
RTOL = {"float64": 1e-14, "float32": 1e-7, "float16": 1e-3, "bfloat16": 8e-3, "int64": 0,
        "bool": 0}


@pytest.fixture(autouse=True)
def _default_restored():
    before = pdt.get_default_dtype()
    torch = None
    try:
        import torch as _torch
        torch, torch_before = _torch, _torch.get_default_dtype()
    except Exception:  # noqa: BLE001 - torch absent or broken here: nothing to restore
        pass
    yield
    pdt.set_default_dtype(before)
    if torch is not None:
        torch.set_default_dtype(torch_before)


def _name(dtype):
    """'float64' for pydevtensor.float64 and torch.float64."""
    return str(dtype).rsplit(".", 1)[-1]


# (name, make(module, **device_kw), NumPy float64 reference or None for random values,
#  the dtype kind it must have: "default" or a fixed dtype name)
FACTORIES = [
    ("ones", lambda m, **kw: m.ones(2, 3, **kw), np.ones((2, 3)), "default"),
    ("zeros", lambda m, **kw: m.zeros(4, **kw), np.zeros(4), "default"),
    ("empty", lambda m, **kw: m.empty(2, 2, **kw), None, "default"),
    ("full-float", lambda m, **kw: m.full((2,), 1.5, **kw), np.full(2, 1.5), "default"),
    ("full-int", lambda m, **kw: m.full((2,), 3, **kw), np.full(2, 3), "int64"),
    ("full-bool", lambda m, **kw: m.full((2,), True, **kw), np.ones(2), "bool"),
    ("rand", lambda m, **kw: m.rand(3, **kw), None, "default"),
    ("randn", lambda m, **kw: m.randn(3, **kw), None, "default"),
    ("arange-float", lambda m, **kw: m.arange(0, 1, 0.25, **kw), np.arange(0, 1, 0.25),
     "default"),
    ("arange-float-end", lambda m, **kw: m.arange(2.0, **kw), np.arange(2.0), "default"),
    ("arange-int", lambda m, **kw: m.arange(3, **kw), np.arange(3), "int64"),
    ("linspace", lambda m, **kw: m.linspace(0, 1, 5, **kw), np.linspace(0, 1, 5), "default"),
    ("eye", lambda m, **kw: m.eye(3, **kw), np.eye(3), "default"),
    ("tensor-float", lambda m, **kw: m.tensor(1.5, **kw), np.float64(1.5), "default"),
    ("tensor-mixed-list", lambda m, **kw: m.tensor([1, 2.5], **kw), np.array([1, 2.5]),
     "default"),
    ("tensor-int-list", lambda m, **kw: m.tensor([1, 2], **kw), np.array([1, 2]), "int64"),
    ("tensor-float64-array", lambda m, **kw: m.tensor(np.array([0.5]), **kw), np.array([0.5]),
     "float64"),
]

# (name, op on (module, device_kw)) whose dtype comes from promotion
PROMOTIONS = [
    ("int-times-float", lambda m, **kw: m.tensor([1, 2], **kw) * 1.5, "default"),
    ("int-plus-float", lambda m, **kw: m.tensor([1, 2], **kw) + 0.5, "default"),
    ("bool-times-float", lambda m, **kw: m.tensor([True, False], **kw) * 2.5, "default"),
    ("int-div-int", lambda m, **kw: m.tensor([1, 3], **kw) / 2, "default"),
    ("int-div-int-tensor", lambda m, **kw: m.tensor([1, 3], **kw) / m.tensor([2, 2], **kw),
     "default"),
    ("int-exp", lambda m, **kw: m.tensor([0, 1], **kw).exp(), "default"),
    ("int-sqrt", lambda m, **kw: m.sqrt(m.tensor([4, 9], **kw)), "default"),
    ("int-pow-float", lambda m, **kw: m.tensor([4, 9], **kw) ** 0.5, "default"),
    ("float32-times-float", lambda m, **kw: m.ones(2, dtype=m.float32, **kw) * 1.5, "float32"),
    ("float16-times-float", lambda m, **kw: m.ones(2, dtype=m.float16, **kw) * 1.5, "float16"),
    ("int-times-0d-float32", lambda m, **kw: m.tensor([1, 2], **kw)
     * m.tensor(1.5, dtype=m.float32, **kw), "float32"),
    ("float32-plus-float64-0d", lambda m, **kw: m.ones(2, dtype=m.float32, **kw)
     + m.tensor(1.0, dtype=m.float64, **kw), "float32"),
]
PROMOTION_VALUES = {
    "int-times-float": [1.5, 3.0], "int-plus-float": [1.5, 2.5], "bool-times-float": [2.5, 0],
    "int-div-int": [0.5, 1.5], "int-div-int-tensor": [0.5, 1.5], "int-exp": [1, np.e],
    "int-sqrt": [2, 3], "int-pow-float": [2, 3], "float32-times-float": [1.5, 1.5],
    "float16-times-float": [1.5, 1.5], "int-times-0d-float32": [1.5, 3.0],
    "float32-plus-float64-0d": [2, 2],
}


def _close(t, ref):
    """t against a float64 NumPy reference, within its dtype's rounding."""
    got = t.detach().cpu().double().numpy()
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_allclose(got, ref, rtol=RTOL[t.dtype.name], atol=1e-300)


def _expected(kind, default):
    return default.name if kind == "default" else kind


def test_float32_at_start_and_round_trip():
    assert pdt.get_default_dtype() is pdt.float32
    for d in DEFAULTS:
        assert pdt.set_default_dtype(d) is None
        assert pdt.get_default_dtype() is d


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
@pytest.mark.parametrize("name,make,ref,kind", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_factories_follow_the_default(device, default, name, make, ref, kind):
    pdt.set_default_dtype(default)
    t = make(pdt, device=device)
    assert t.dtype.name == _expected(kind, default), name
    assert t.device == device
    if ref is not None:
        _close(t, ref)


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
@pytest.mark.parametrize("name,op,kind", PROMOTIONS, ids=[p[0] for p in PROMOTIONS])
def test_promotion_follows_the_default(device, default, name, op, kind):
    pdt.set_default_dtype(default)
    t = op(pdt, device=device)
    want = _expected(kind, default)
    assert t.dtype.name == want, name
    _close(t, PROMOTION_VALUES[name])


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
def test_same_dtypes_as_torch(default):
    torch = torch_or_skip()
    pdt.set_default_dtype(default)
    torch.set_default_dtype(getattr(torch, default.name))
    for name, make, _, _ in FACTORIES:
        assert _name(make(pdt).dtype) == _name(make(torch).dtype), name
    for name, op, _ in PROMOTIONS:
        assert _name(op(pdt).dtype) == _name(op(torch).dtype), name
    for name, layer in (("Linear", lambda m: m.nn.Linear(3, 2).weight),
                        ("Conv2d", lambda m: m.nn.Conv2d(1, 2, 3).bias),
                        ("LayerNorm", lambda m: m.nn.LayerNorm(3).weight),
                        ("Embedding", lambda m: m.nn.Embedding(4, 2).weight),
                        ("BatchNorm1d", lambda m: m.nn.BatchNorm1d(3).running_var),
                        ("LSTM", lambda m: m.nn.LSTM(2, 3).weight_hh_l0)):
        assert _name(layer(pdt).dtype) == _name(layer(torch).dtype), name


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
def test_layers_take_the_default(device, default):
    pdt.set_default_dtype(default)
    layers = [nn.Linear(3, 2, device=device), nn.Conv2d(1, 2, 3, device=device),
              nn.LayerNorm(3, device=device), nn.Embedding(4, 2, device=device),
              nn.BatchNorm1d(3, device=device), nn.LSTM(2, 3, device=device)]
    for layer in layers:
        for name, p in layer.named_parameters():
            assert p.dtype is default, (type(layer).__name__, name)
            assert p.device == device
    bn = layers[4]
    assert bn.running_mean.dtype is default and bn.num_batches_tracked.dtype is pdt.int64
    # dtype= still wins
    assert nn.Linear(3, 2, dtype=pdt.float32, device=device).weight.dtype is pdt.float32


def test_linear_forward_in_float64_default(device):
    pdt.set_default_dtype(pdt.float64)
    lin = nn.Linear(3, 2, device=device)
    x = pdt.tensor([[1.0, 2.0, 3.0]], device=device)
    y = lin(x)
    assert y.dtype is pdt.float64
    w, b = lin.weight.detach().cpu().numpy(), lin.bias.detach().cpu().numpy()
    _close(y, np.array([[1.0, 2.0, 3.0]]) @ w.T + b)


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
def test_repr_shows_dtypes_other_than_the_default(default):
    pdt.set_default_dtype(default)
    for d in DEFAULTS:
        suffix = "" if d is default else f", dtype=pydevtensor.{d.name}"
        assert repr(pdt.ones(2, dtype=d)) == f"tensor([1., 1.]{suffix})"
        assert repr(pdt.zeros(0, dtype=d)) == f"tensor([]{suffix})"
    assert repr(pdt.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(pdt.zeros(0, dtype=pdt.int64)) == "tensor([], dtype=pydevtensor.int64)"


@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: d.name)
def test_repr_same_as_torch(default):
    torch = torch_or_skip()
    pdt.set_default_dtype(default)
    torch.set_default_dtype(getattr(torch, default.name))
    for make in (lambda m, d: m.tensor([1.5, -2.0], dtype=d), lambda m, d: m.zeros(0, dtype=d),
                 lambda m, d: m.zeros(0, 2, dtype=d)):
        for d in DEFAULTS:
            ours = repr(make(pdt, d))
            theirs = repr(make(torch, getattr(torch, d.name))).replace("torch.", "pydevtensor.")
            assert ours == theirs, (default, d)


def test_repr_on_the_device(device):
    pdt.set_default_dtype(pdt.float64)
    assert "dtype" not in repr(pdt.ones(2, device=device))
    assert "dtype=pydevtensor.float32" in repr(pdt.ones(2, dtype=pdt.float32, device=device))


@pytest.mark.parametrize("bad", [pdt.int64, pdt.int32, pdt.bool, "float64", None, 1.0, np.float64],
                         ids=repr)
def test_bad_default_is_refused_and_changes_nothing(bad):
    pdt.set_default_dtype(pdt.float64)
    with pytest.raises(TypeError, match="only floating-point types are supported as the "
                                        "default type"):
        pdt.set_default_dtype(bad)
    assert pdt.get_default_dtype() is pdt.float64
    assert pdt.ones(1).dtype is pdt.float64 and (pdt.tensor([1]) / 2).dtype is pdt.float64


def test_bad_default_same_error_class_as_torch():
    torch = torch_or_skip()
    for bad in (torch.int64, "float64", None):
        with pytest.raises(TypeError):
            torch.set_default_dtype(bad)
    with pytest.raises(TypeError):
        pdt.set_default_dtype(pdt.int64)


def test_process_wide(device):
    """Another thread sees the default that this one set (PyTorch's is process-wide too),
    and ops running there follow it."""
    pdt.set_default_dtype(pdt.float64)
    seen = []
    worker = threading.Thread(target=lambda: seen.extend(
        [pdt.get_default_dtype(), pdt.ones(1, device=device).dtype,
         (pdt.tensor([1], device=device) * 0.5).dtype]))
    worker.start()
    worker.join()
    assert seen == [pdt.float64] * 3


def test_tensors_made_before_keep_their_dtype(device):
    t = pdt.ones(2, device=device)
    pdt.set_default_dtype(pdt.float64)
    assert t.dtype is pdt.float32
    assert (t * 1.5).dtype is pdt.float32  # a float32 tensor decides over a Python float
