"""copy.copy, copy.deepcopy and pickle of tensors, parameters and modules (issue 17),
and matplotlib on CPU tensors (it copies what it plots).  See Note [copies of
objects] in pydevtensor/_copies.py."""
import copy
import logging
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn

from conftest import DTYPES, assert_close

ROUND_TRIPS = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda t: pickle.loads(pickle.dumps(t)),
    "pickle2": lambda t: pickle.loads(pickle.dumps(t, protocol=2)),
}


def _values(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trips_keep_values_dtype_shape_and_device(device, dtype, how):
    ref = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    t = pdt.tensor(ref, device=device)
    for x in (t, t.transpose(0, 2), t[1], pdt.tensor(ref[0, 0, 1], device=device)):
        expected = _values(x)
        y = ROUND_TRIPS[how](x)
        assert type(y) is pdt.Tensor
        assert (y.device, y.dtype, tuple(y.shape)) == (x.device, x.dtype, tuple(x.shape))
        np.testing.assert_array_equal(_values(y), expected)  # exact: bits are copied
        shares = y.data_ptr() == x.data_ptr()
        assert shares == (how == "copy"), how  # copy.copy shares storage, as PyTorch's


def test_copy_shares_and_deepcopy_does_not(device):
    x = pdt.zeros(3, device=device)
    shallow, deep = copy.copy(x), copy.deepcopy(x)
    x.fill_(7)
    assert_close(shallow, np.full(3, 7.0))
    assert_close(deep, np.zeros(3))


def test_deepcopy_keeps_one_copy_per_tensor_in_a_structure(device):
    x = pdt.ones(2, device=device)
    a, b = copy.deepcopy([x, x])
    assert a is b and a is not x


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_parameters_stay_parameters(device, how):
    p = nn.Parameter(pdt.arange(4.0, device=device), requires_grad=False)
    p.grad = pdt.full((4,), 0.5, device=device)
    q = ROUND_TRIPS[how](p)
    assert type(q) is nn.Parameter and q.requires_grad is False
    assert q.device == p.device
    assert_close(q, np.arange(4.0))
    if how == "deepcopy":  # PyTorch's Parameter.__deepcopy__: no grad, no attributes
        assert q.grad is None
        return
    assert q.grad.device == p.device
    assert_close(q.grad, np.full(4, 0.5))
    assert (q.grad is p.grad) == (how == "copy")


def test_deepcopy_of_a_parameter_is_a_fresh_one(device):
    """As PyTorch's Parameter.__deepcopy__: the values copied, requires_grad kept, the
    grad and the attributes set on the original dropped; a module's parameters too."""
    p = nn.Parameter(pdt.arange(3.0, device=device))
    (p * 2).sum().backward()
    p.tag = "x"
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.is_leaf
    assert q.grad is None and not hasattr(q, "tag") and q.data_ptr() != p.data_ptr()
    assert_close(q, np.arange(3.0))
    assert_close(p.grad, np.full(3, 2.0))  # the original keeps its own
    net = nn.Linear(2, 1).to(device)
    net(pdt.ones(1, 2, device=device)).sum().backward()
    net.weight.tag = 1
    twin = copy.deepcopy(net)
    assert twin.weight.grad is None and twin.bias.grad is None
    assert not hasattr(twin.weight, "tag") and net.weight.grad is not None


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_modules_copy_with_their_parameters_on_their_device(device, how):
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(device)
    X = pdt.rand(5, 3, device=device)
    net(X).sum().backward()  # grads and a recorded graph: the copy takes the grads only
    twin = ROUND_TRIPS[how](net)
    assert [type(m) for m in twin] == [type(m) for m in net]
    for (name, p), (name2, q) in zip(net.named_parameters(), twin.named_parameters()):
        assert name == name2 and type(q) is nn.Parameter and q.device == p.device
        assert q.data_ptr() != p.data_ptr()
    assert_close(twin(X), _values(net(X)).astype(np.float64))
    with pdt.transfer_guard("allow"):
        for p in twin.parameters():
            p.data.fill_(0)
    assert float(net[0].weight.abs().sum().cpu()) > 0  # the original is untouched


@pytest.mark.parametrize("how", ["pickle"])  # deepcopy: fresh parameters, no grads
def test_module_copy_keeps_grads_and_trains_on_its_own(how):
    net = nn.Linear(2, 1)
    net(pdt.ones(1, 2)).sum().backward()
    twin = ROUND_TRIPS[how](net)
    for p, q in zip(net.parameters(), twin.parameters()):
        assert q.is_leaf and q.requires_grad and q.grad is not p.grad
        assert_close(q.grad, p.grad.numpy().astype(np.float64))
    twin.zero_grad()
    twin(pdt.ones(1, 2)).sum().backward()  # the twin's graph reaches the twin only
    assert_close(net.weight.grad, np.ones((1, 2)))
    assert_close(twin.weight.grad, np.ones((1, 2)))


def test_a_recorded_result_pickles_as_a_leaf_but_is_not_deep_copied(device):
    """As PyTorch's: pickle gives a leaf that requires grad; deepcopy refuses a tensor
    that is not a leaf (and so a module holding one), changing nothing."""
    x = pdt.ones(3, device=device, requires_grad=True)
    y = x * 2
    q = pickle.loads(pickle.dumps(y))
    assert q.is_leaf and q.requires_grad and q.grad_fn is None
    assert_close(q.detach(), np.full(3, 2.0))
    m = nn.Module()
    m.y = y
    for obj in (y, m, [x, y]):
        with pytest.raises(RuntimeError, match=r"Only Tensors created explicitly by the user "
                           r"\(graph leaves\) support the deepcopy protocol at the moment; "
                           r"this one has grad_fn=MulBackward0"):
            copy.deepcopy(obj)
    assert m.y is y and not y.is_leaf
    with pdt.no_grad():
        z = x * 2  # not recorded: a leaf, copied
    assert copy.deepcopy(z).tolist() == [2.0, 2.0, 2.0] and copy.deepcopy(x).requires_grad


def test_pickle_checks_what_it_rebuilds():
    from pydevtensor import _copies
    with pytest.raises(TypeError, match="not a Tensor subclass"):
        _copies._rebuild(dict, b"\0" * 4, "<f4", (1,), "float32", "cpu", {})


def test_gpu_pickle_is_counted_and_explicit_for_the_guard(caplog):
    if not pdt.cuda.is_available():
        pytest.skip("needs a CUDA device (a GPU or the emulated one)")
    x = pdt.arange(6.0, device="cuda:0")
    pdt.reset_transfer_stats()
    data = pickle.dumps(x)
    y = pickle.loads(data)
    stats = pdt.transfer_stats()
    assert stats["device_to_host"] == {"count": 1, "bytes": 24}
    assert stats["host_to_device"] == {"count": 1, "bytes": 24}
    assert y.device == x.device
    copy.deepcopy(x)  # within the device: counted with device_to_device, not a transfer
    assert pdt.transfer_stats()["device_to_device"]["count"] == 1
    with pdt.transfer_guard("disallow"):
        pickle.loads(pickle.dumps(x))  # explicit: allowed
        copy.deepcopy(x)
    with caplog.at_level(logging.WARNING, logger="pydevtensor.transfer"):
        with pdt.transfer_guard("log_explicit"):
            pickle.loads(pickle.dumps(x))
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "explicit device-to-host transfer by pickle of a float32 tensor of shape (6,)" in text
    assert "explicit host-to-device transfer by unpickling" in text
    with pdt.transfer_guard("disallow_explicit"):
        with pytest.raises(pdt.TransferError, match="by pickle"):
            pickle.dumps(x)
        copy.deepcopy(x)  # no transfer


def test_save_stays_free_of_pickle(tmp_path, monkeypatch):
    net = nn.Linear(3, 2)
    monkeypatch.setattr(pickle, "dumps", None)
    monkeypatch.setattr(pickle, "dump", None)
    path = tmp_path / "net.npz"
    pdt.save(net.state_dict(), str(path))
    with np.load(path, allow_pickle=False) as f:  # plain NumPy reads it
        assert len(f.files) >= 2


def test_matplotlib_plots_cpu_tensors():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = pdt.linspace(0, 1, 11)
    fig, ax = plt.subplots()
    try:
        (line,) = ax.plot(x, x * x)
        np.testing.assert_allclose(line.get_ydata(), np.linspace(0, 1, 11) ** 2, rtol=1e-6)
        (line,) = ax.plot(x)
        np.testing.assert_allclose(line.get_ydata(), np.linspace(0, 1, 11), rtol=1e-6)
        image = ax.imshow(pdt.arange(12.0).reshape(3, 4))
        np.testing.assert_array_equal(np.asarray(image.get_array()), np.arange(12.0).reshape(3, 4))
        counts, _, _ = ax.hist(pdt.tensor([0.0, 0.1, 0.9, 1.0]), bins=2)
        np.testing.assert_array_equal(counts, [2, 2])
        fig.canvas.draw()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("how", ROUND_TRIPS)
def test_bfloat16_round_trips(device, how):
    # NumPy has no bfloat16: pickle carries its uint16 bits, as save() does (pickling
    # one failed with "unsupported element type '2x'")
    x = (pdt.arange(24.0, device=device).reshape(2, 3, 4) - 11.5).to(pdt.bfloat16)
    for t in (x, x.transpose(0, 2), x[1], x[0, 0, 1]):
        y = ROUND_TRIPS[how](t)
        assert (y.device, y.dtype, tuple(y.shape)) == (t.device, pdt.bfloat16, tuple(t.shape))
        np.testing.assert_array_equal(_values(y.float()), _values(t.float()))
    net = nn.Linear(3, 2).to(device, dtype=pdt.bfloat16)
    twin = ROUND_TRIPS[how](net)
    assert type(twin.weight) is nn.Parameter and twin.weight.dtype == pdt.bfloat16
    np.testing.assert_array_equal(_values(twin.weight.float()), _values(net.weight.float()))


def test_deepcopy_keeps_views_of_one_storage_sharing(device):
    """copy.deepcopy copies a storage once per call, as PyTorch's: a tensor and its
    views (a module holding a slice of its own weight) still share memory in the copy,
    with their shapes, strides and offsets, and share none with the original; they were
    copied as separate values.  A flipped view (negative stride) is copied alone."""
    a = pdt.arange(6.0, device=device)
    view, strided = a[1:3], a[::2]
    c = copy.deepcopy([a, view, strided])
    assert c[1].storage_offset() == 1 and c[2].stride() == (2,)
    c[0][1] = 100.0
    c[0][4] = -4.0
    assert c[1].tolist() == [100.0, 2.0] and c[2].tolist() == [0.0, 2.0, -4.0]
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    lin = nn.Linear(3, 3).to(device)
    lin.first_row = lin.weight.detach()[0]  # (a recorded view is not deep copied)
    twin = copy.deepcopy(lin)
    with pdt.no_grad():
        twin.weight[0, 0] = 7.0
    assert twin.first_row[0].item() == 7.0 and lin.weight[0, 0].item() != 7.0
    assert isinstance(twin.weight, nn.Parameter) and twin.weight.requires_grad
    flipped = copy.deepcopy(a.flip(0))
    assert flipped.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
