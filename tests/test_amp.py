"""pydevtensor.amp: autocast's state and op policy (against PyTorch's CPU autocast),
GradScaler's semantics, and a mixed-precision training loop against PyTorch."""
import threading

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from conftest import torch_or_skip


def _kind(device):
    return "cuda" if device.type == "cuda" else "cpu"


# ---- the state ------------------------------------------------------------------------

def test_defaults_and_nesting():
    assert pdt.get_autocast_dtype("cuda") == pdt.float16
    assert pdt.get_autocast_dtype("cpu") == pdt.bfloat16
    assert not pdt.is_autocast_enabled("cpu") and not pdt.is_autocast_enabled()
    with pdt.autocast("cpu"):
        assert pdt.is_autocast_enabled("cpu") and not pdt.is_autocast_enabled("cuda")
        with pdt.autocast("cpu", dtype=pdt.float16):
            assert pdt.get_autocast_dtype("cpu") == pdt.float16
            with pdt.autocast("cpu", enabled=False):
                assert not pdt.is_autocast_enabled("cpu")
                assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.float32
            assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.float16
        assert pdt.get_autocast_dtype("cpu") == pdt.bfloat16
    assert not pdt.is_autocast_enabled("cpu")
    assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.float32


def test_aliases_and_decorator():
    assert pdt.amp.autocast is pdt.autocast
    with pytest.warns(FutureWarning, match="deprecated"):
        ac = pdt.cpu.amp.autocast()
    with ac:
        assert pdt.is_autocast_enabled("cpu")
    from pydevtensor.cuda.amp import autocast as cuda_autocast
    assert issubclass(cuda_autocast, pdt.autocast)

    @pdt.amp.autocast("cpu")
    def f(a, b):
        return pdt.is_autocast_enabled("cpu"), pdt.mm(a, b).dtype
    assert f(pdt.ones(2, 2), pdt.ones(2, 2)) == (True, pdt.bfloat16)
    assert not pdt.is_autocast_enabled("cpu")


def test_set_autocast_enabled_and_thread_local():
    pdt.set_autocast_enabled("cpu", True)
    try:
        seen = []
        t = threading.Thread(target=lambda: seen.append(
            (pdt.is_autocast_enabled("cpu"), (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype)))
        t.start()
        t.join()
        assert seen == [(False, pdt.float32)]  # the other thread is not in the region
        assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.bfloat16
    finally:
        pdt.set_autocast_enabled("cpu", False)
    assert not pdt.is_autocast_enabled("cpu")


def test_wrapped_ops_behave_as_their_functions():
    """The autocast wrappers (Note [autocast's check in C]) show the op's name, doc and
    signature, pickle and copy as the function, and pass keywords through."""
    import copy
    import inspect
    import pickle
    for op in (pdt.matmul, pdt.exp, pdt.sum, F.conv2d, F.cross_entropy):
        inner = op.__wrapped__
        assert isinstance(op, pdt._C._AutocastOp) and op is not inner
        assert op.__name__ == inner.__name__ and op.__doc__ == inner.__doc__
        assert inspect.signature(op) == inspect.signature(inner)
        assert inspect.isroutine(op) and op._autocast
        assert pickle.loads(pickle.dumps(op)) is op and copy.deepcopy(op) is op
        assert repr(op).startswith("<function " + op.__qualname__)
    a = pdt.arange(6.0).reshape(2, 3)
    out = pdt.empty(2, 2)
    assert pdt.matmul(a, a.T, out=out) is out
    np.testing.assert_array_equal(out.numpy(), a.numpy() @ a.numpy().T)
    assert pdt.sum(a, dim=1, keepdim=True).shape == (2, 1)
    with pytest.raises(TypeError, match="matmul"):
        pdt.matmul(a)
    with pytest.raises(ValueError, match="expected a count >= 0, got -1"):
        pdt._C._autocast_set_threads(-1)


def test_another_threads_autocast_leaves_this_thread_alone():
    """While one thread is in an autocast region every wrapped op takes the Python path,
    which still casts only in that thread (functions and Tensor methods)."""
    entered, done = threading.Event(), threading.Event()
    seen = []

    def other():
        with pdt.autocast("cpu"):
            seen.append(pdt.mm(pdt.ones(2, 2), pdt.ones(2, 2)).dtype)
            entered.set()
            done.wait(10)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert entered.wait(10)
        a = pdt.ones(2, 2)
        assert pdt.mm(a, a).dtype == pdt.float32 and a.mm(a).dtype == pdt.float32
        assert (a @ a).dtype == pdt.float32 and F.linear(a, a).dtype == pdt.float32
    finally:
        done.set()
        t.join()
    assert seen == [pdt.bfloat16]
    assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.float32


def test_unsupported_dtype_warns_and_disables():
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ac = pdt.autocast("cpu", dtype=pdt.float32)
    with ac:
        assert not pdt.is_autocast_enabled("cpu")


@pytest.mark.skipif(pdt.cuda.is_available(), reason="CUDA is available in this build")
def test_cuda_without_cuda_warns():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ac = pdt.autocast("cuda")
    with ac:
        assert not pdt.is_autocast_enabled("cuda")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not pdt.amp.GradScaler().is_enabled()


# ---- the op policy --------------------------------------------------------------------

def _ops(m, F_, dev):
    """name -> (function of the inputs, expected dtype under CUDA autocast when it differs
    from PyTorch's CPU autocast)."""
    def t(a, dtype=None):
        out = m.tensor(np.asarray(a, dtype=np.float32))
        out = out.to(dev) if dev is not None else out
        return out if dtype is None else out.to(dtype)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 4))
    x3, x4 = rng.standard_normal((2, 4, 4)), rng.standard_normal((1, 2, 5, 5))
    w4, w3 = rng.standard_normal((3, 2, 2, 2)), rng.standard_normal((3, 4, 2))
    lo = m.bfloat16
    return {
        "matmul": (lambda: m.matmul(t(x), t(x)), None),
        "@": (lambda: t(x) @ t(x), None),
        "mm": (lambda: m.mm(t(x), t(x)), None),
        "Tensor.mm": (lambda: t(x).mm(t(x)), None),
        "bmm": (lambda: m.bmm(t(x3), t(x3)), None),
        "addmm": (lambda: m.addmm(t(x[0]), t(x), t(x)), None),
        "baddbmm": (lambda: m.baddbmm(t(x3), t(x3), t(x3)), None),
        "mv": (lambda: m.mv(t(x), t(x[0])), "lower"),
        "linear": (lambda: F_.linear(t(x), t(x), t(x[0])), None),
        "conv1d": (lambda: F_.conv1d(t(x3), t(w3)), None),
        "conv2d": (lambda: F_.conv2d(t(x4), t(w4)), None),
        "conv_transpose2d": (lambda: F_.conv_transpose2d(t(x4), t(w4.transpose(1, 0, 2, 3))),
                             None),
        "sdpa": (lambda: F_.scaled_dot_product_attention(t(x3), t(x3), t(x3)), None),
        "prelu": (lambda: F_.prelu(t(x), t([0.25])), None),
        "mse_loss": (lambda: F_.mse_loss(t(x, lo), t(x, lo)), None),
        "l1_loss": (lambda: F_.l1_loss(t(x, lo), t(x, lo)), None),
        "cross_entropy": (lambda: F_.cross_entropy(t(x, lo), m.tensor([0, 1, 2, 3]).to(
            t(x).device)), None),
        "nll_loss": (lambda: F_.nll_loss(t(x, lo), m.tensor([0, 1, 2, 3]).to(t(x).device)),
                     None),
        "bce_with_logits": (lambda: F_.binary_cross_entropy_with_logits(t(x, lo), t(x, lo)),
                            None),
        "cdist": (lambda: m.cdist(t(x, lo), t(x, lo)), None),
        "prod": (lambda: m.prod(t(x, lo)), None),
        "softmax": (lambda: m.softmax(t(x, lo), -1), "fp32"),
        "F.log_softmax": (lambda: F_.log_softmax(t(x, lo), -1), "fp32"),
        "layer_norm": (lambda: F_.layer_norm(t(x, lo), (4,)), "fp32"),
        "group_norm": (lambda: F_.group_norm(t(x3, lo), 2), "fp32"),
        "sum": (lambda: m.sum(t(x, lo)), "fp32"),
        "exp": (lambda: m.exp(t(x, lo)), "fp32"),
        "addcmul": (lambda: m.addcmul(t(x), t(x, lo), t(x, lo)), None),
        "cat": (lambda: m.cat([t(x), t(x, lo)]), None),
        "relu": (lambda: m.relu(t(x)), None),
        "relu-bf16": (lambda: m.relu(t(x, lo)), None),
        "matmul-float64": (lambda: m.matmul(t(x).double(), t(x).double()), None),
        # the method forms and operators of listed ops
        "Tensor.bmm": (lambda: t(x3).bmm(t(x3)), None),
        "Tensor.prod": (lambda: t(x, lo).prod(), None),
        "Tensor.sum": (lambda: t(x, lo).sum(), "fp32"),
        "Tensor.softmax": (lambda: t(x, lo).softmax(-1), "fp32"),
        "Tensor.exp": (lambda: t(x, lo).exp(), "fp32"),
        "Tensor.log1p": (lambda: t(x, lo).abs().log1p(), "fp32"),
        "**": (lambda: t(x, lo) ** 2, "fp32"),
        "Tensor.addcmul": (lambda: t(x).addcmul(t(x, lo), t(x, lo)), None),
        "Tensor.relu": (lambda: t(x, lo).relu(), None),
        # PyTorch's 2 / x is x.reciprocal() * 2 (reciprocal: on its CUDA float32 list)
        "2 / x": (lambda: 2 / t(x, lo), "fp32"),
        "renorm": (lambda: m.renorm(t(x, lo), 2, 0, 1.0), "fp32"),
        # float32 on PyTorch's CPU list, widest on its CUDA promote list
        "grid_sample": (lambda: F_.grid_sample(t(x4, lo), t(np.tanh(x4[:, :, :2]).transpose(
            0, 2, 3, 1)), align_corners=False), None),
        # the cells and layers: on CUDA PyTorch's fused cells and _cudnn_rnn are on the
        # lower list (states cast); on CPU they are composites (float32 states win)
        "LSTMCell": (lambda: m.nn.LSTMCell(4, 3).to(t(x).device)(t(x))[1], "lower"),
        "GRUCell": (lambda: m.nn.GRUCell(4, 3).to(t(x).device)(t(x)), "lower"),
        "GRU": (lambda: m.nn.GRU(4, 3).to(t(x).device)(t(x3))[1], "lower"),
        "LSTM": (lambda: m.nn.LSTM(4, 3).to(t(x).device)(t(x3))[1][1], "lower"),
    }


# PyTorch's CPU autocast (bfloat16) result dtypes for _ops (test_expected_is_torchs checks
# the table against torch when it can be imported)
EXPECTED_CPU = {
    "matmul": "bfloat16", "@": "bfloat16", "mm": "bfloat16", "Tensor.mm": "bfloat16",
    "bmm": "bfloat16", "addmm": "bfloat16", "baddbmm": "bfloat16", "mv": "float32",
    "linear": "bfloat16", "conv1d": "bfloat16", "conv2d": "bfloat16",
    "conv_transpose2d": "bfloat16", "sdpa": "bfloat16", "prelu": "bfloat16",
    "mse_loss": "float32", "l1_loss": "float32", "cross_entropy": "float32",
    "nll_loss": "float32", "bce_with_logits": "float32", "cdist": "float32", "prod": "float32",
    "softmax": "bfloat16", "F.log_softmax": "bfloat16", "layer_norm": "bfloat16",
    "group_norm": "bfloat16", "sum": "bfloat16", "exp": "bfloat16", "addcmul": "float32",
    "cat": "float32", "relu": "float32", "relu-bf16": "bfloat16",
    "matmul-float64": "float64", "Tensor.bmm": "bfloat16", "Tensor.prod": "float32",
    "Tensor.sum": "bfloat16", "Tensor.softmax": "bfloat16", "Tensor.exp": "bfloat16",
    "Tensor.log1p": "bfloat16", "**": "bfloat16", "Tensor.addcmul": "float32",
    "Tensor.relu": "bfloat16", "2 / x": "bfloat16", "renorm": "bfloat16",
    "grid_sample": "float32", "LSTMCell": "float32", "GRUCell": "float32", "GRU": "float32",
    "LSTM": "bfloat16"}


def test_expected_is_torchs():
    torch = torch_or_skip()
    theirs = {}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for name, (f, _) in _ops(torch, torch.nn.functional, None).items():
            theirs[name] = str(f().dtype).replace("torch.", "")
    assert theirs == EXPECTED_CPU


def test_autocast_dtypes_as_torch(device):
    """The result dtypes of PyTorch's autocast, on every device: its CPU lists on CPU
    devices, its CUDA lists (lower, float32, widest) on CUDA devices."""
    kind = _kind(device)
    expected = dict(EXPECTED_CPU)
    if kind == "cuda":  # PyTorch's CUDA lists, where they differ from its CPU lists
        for name, (_, cuda) in _ops(pdt, F, device).items():
            if cuda is not None:
                expected[name] = {"lower": "bfloat16", "fp32": "float32"}[cuda]
    with pdt.autocast(kind, dtype=pdt.bfloat16):
        ours = {name: str(f().dtype).replace("pydevtensor.", "")
                for name, (f, _) in _ops(pdt, F, device).items()}
    assert ours == expected
    with pdt.autocast(kind, dtype=pdt.float16):  # the other low dtype
        assert F.linear(pdt.ones(2, 3, device=device), pdt.ones(4, 3, device=device)).dtype \
            == pdt.float16
    # outside the region nothing is cast
    assert (pdt.ones(2, 2, device=device) @ pdt.ones(2, 2, device=device)).dtype == pdt.float32


def test_linear_layer_values_and_grads(device):
    """Linear under autocast: bfloat16 output within bfloat16's rounding of the float64
    product, and float32 gradients on the float32 weight (the cast is differentiable);
    the same weight used twice (cached cast) gets both contributions."""
    rng = np.random.default_rng(1)
    xn, wn, bn = rng.standard_normal((5, 8)), rng.standard_normal((3, 8)), rng.standard_normal(3)
    lin = nn.Linear(8, 3).to(device)
    with pdt.no_grad():
        lin.weight.copy_(pdt.tensor(wn.astype(np.float32)).to(device))
        lin.bias.copy_(pdt.tensor(bn.astype(np.float32)).to(device))
    x = pdt.tensor(xn.astype(np.float32)).to(device)
    with pdt.autocast(_kind(device), dtype=pdt.bfloat16):
        y = lin(x)
        y2 = lin(x)
    assert y.dtype == pdt.bfloat16
    ref = xn @ wn.T + bn
    got = y.detach().float().cpu().numpy().astype(np.float64)
    # inputs, weight and output each rounded to bfloat16 (8 bits): a few 2**-8 relative
    assert np.allclose(got, ref, rtol=2e-2, atol=3e-2 * np.abs(ref).max())
    (y.float().sum() + y2.float().sum()).backward()
    assert lin.weight.grad.dtype == pdt.float32
    gw = 2 * np.ones((5, 3)).T @ xn  # d/dW of two sums of x W^T
    assert np.allclose(lin.weight.grad.cpu().numpy(), gw, rtol=2e-2, atol=2e-2)


# ---- GradScaler -----------------------------------------------------------------------

def _param(device, values):
    return nn.Parameter(pdt.tensor(np.asarray(values, np.float32)).to(device))


def test_grad_scaler_unscales_and_steps(device):
    p = _param(device, [1.0, 2.0, 3.0])
    opt = pdt.optim.SGD([p], lr=0.5)
    s = pdt.amp.GradScaler("cpu" if device.type != "cuda" else "cuda", init_scale=8.0,
                           growth_interval=2)
    loss = (p * p).sum()
    scaled = s.scale(loss)
    assert scaled.item() == 8.0 * 14.0
    scaled.backward()
    np.testing.assert_allclose(p.grad.cpu().numpy(), 8 * np.array([2., 4., 6.]))
    s.unscale_(opt)
    np.testing.assert_allclose(p.grad.cpu().numpy(), [2., 4., 6.])
    with pytest.raises(RuntimeError, match="already been called"):
        s.unscale_(opt)
    s.step(opt)
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0., 0., 0.])
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    s.update()
    assert s.get_scale() == 8.0
    for _ in range(2):  # growth_interval good steps double the scale
        opt.zero_grad()
        s.scale((p * p).sum()).backward()
        s.step(opt)
        s.update()
    assert s.get_scale() == 16.0


def test_grad_scaler_skips_inf_and_backs_off(device):
    p = _param(device, [1.0, 2.0])
    q = _param(device, [3.0])
    opt = pdt.optim.SGD([p, q], lr=1.0)
    s = pdt.amp.GradScaler("cpu" if device.type != "cuda" else "cuda", init_scale=1024.0)
    (s.scale(p.sum() + q.sum() * float("inf"))).backward()
    pdt.reset_transfer_stats()
    assert s.step(opt) is None
    if device.type == "cuda":  # one flag read for all the gradients
        assert pdt.transfer_stats()["device_to_host"]["count"] == 1
    s.update()
    np.testing.assert_array_equal(p.detach().cpu().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(q.detach().cpu().numpy(), [3.0])
    assert s.get_scale() == 512.0 and s.state_dict()["_growth_tracker"] == 0
    opt.zero_grad()
    s.scale(p.sum() * float("nan")).backward()
    s.step(opt)
    s.update()
    assert s.get_scale() == 256.0


def test_grad_scaler_state_dict_and_misuse():
    s = pdt.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0, backoff_factor=0.25,
                           growth_interval=7)
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001
        pass
    sd = s.state_dict()
    assert sd == {"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                  "growth_interval": 7, "_growth_tracker": 0}
    if torch is not None:
        assert sd == torch.amp.GradScaler("cpu", 4.0, 3.0, 0.25, 7).state_dict()
    t = pdt.amp.GradScaler("cpu")
    t.load_state_dict(sd)
    assert t.state_dict() == sd and t.get_scale() == 4.0
    assert pdt.amp.GradScaler("cpu", enabled=False).state_dict() == {}
    with pytest.raises(RuntimeError, match="state dict is empty"):
        t.load_state_dict({})
    opt = pdt.optim.SGD([_param("cpu", [1.0])], lr=1.0)
    with pytest.raises(AssertionError, match="_scale is None"):
        pdt.amp.GradScaler("cpu").step(opt)
    with pytest.raises(RuntimeError, match="Closure"):
        t.scale(pdt.ones(1))
        t.step(opt, closure=lambda: 0)
    # a 0-d float16 loss is scaled in float32 (2**16 is past float16's range), nested
    # outputs keep their structure, as PyTorch's
    big = pdt.amp.GradScaler("cpu").scale([pdt.ones((), dtype=pdt.float16), (pdt.ones(2),)])
    assert isinstance(big, list) and isinstance(big[1], tuple)
    assert big[0].dtype == pdt.float32 and big[0].shape == () and big[0].item() == 65536.0
    off = pdt.amp.GradScaler("cpu", enabled=False)
    x = pdt.ones(2)
    assert off.scale(x) is x and off.get_scale() == 1.0


def test_training_loop_matches_torch():
    """A small MLP trained 6 steps with autocast('cpu', bfloat16) and GradScaler('cpu'):
    the losses agree with PyTorch's within 3e-2 relative (bfloat16 rounds to 8 bits and
    the two libraries' bfloat16 GEMMs may round differently)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    xs, ys = rng.standard_normal((16, 6)).astype(np.float32), rng.integers(0, 3, 16)
    w1, b1 = rng.standard_normal((8, 6)) * 0.4, rng.standard_normal(8) * 0.1
    w2, b2 = rng.standard_normal((3, 8)) * 0.4, rng.standard_normal(3) * 0.1

    def run(m, nn_, F_):
        net = nn_.Sequential(nn_.Linear(6, 8), nn_.ReLU(), nn_.Linear(8, 3))
        with m.no_grad():
            for layer, w, b in ((net[0], w1, b1), (net[2], w2, b2)):
                layer.weight.copy_(m.tensor(w.astype(np.float32)))
                layer.bias.copy_(m.tensor(b.astype(np.float32)))
        opt = m.optim.SGD(net.parameters(), lr=0.2)
        scaler = m.amp.GradScaler("cpu", init_scale=256.0)
        x, y = m.tensor(xs), m.tensor(ys)
        losses = []
        for _ in range(6):
            opt.zero_grad()
            with m.autocast("cpu", dtype=m.bfloat16):
                out = net(x)
                loss = F_.cross_entropy(out, y)
            assert out.dtype == m.bfloat16 and loss.dtype == m.float32
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(loss.item())
        return losses
    ours = run(pdt, nn, F)
    theirs = run(torch, torch.nn, torch.nn.functional)
    np.testing.assert_allclose(ours, theirs, rtol=3e-2)
    assert ours[-1] < ours[0]


# PyTorch's CPU autocast output dtypes of whole layers, on an input of ones
_LAYERS = {
    "Conv2d+BN+ReLU": (lambda nn: nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4),
                                                 nn.ReLU()), (2, 2, 6, 6), "bfloat16"),
    "Linear+LayerNorm": (lambda nn: nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)), (3, 4),
                         "bfloat16"),
    "Conv1d+GroupNorm": (lambda nn: nn.Sequential(nn.Conv1d(4, 4, 1), nn.GroupNorm(2, 4)),
                         (2, 4, 5), "bfloat16"),
    "MultiheadAttention": (lambda nn: nn.MultiheadAttention(8, 2), (3, 2, 8), "bfloat16"),
    "RNNCell": (lambda nn: nn.RNNCell(4, 5), (3, 4), "bfloat16"),
    "GRUCell": (lambda nn: nn.GRUCell(4, 5), (3, 4), "float32"),
    "LSTMCell": (lambda nn: nn.LSTMCell(4, 5), (3, 4), "float32"),
    "TransformerEncoderLayer": (lambda nn: nn.TransformerEncoderLayer(8, 2, 16), (3, 2, 8),
                                "float32"),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(2, 3, 2), (1, 2, 4, 4), "bfloat16"),
}


def _layer_dtypes(m, device=None):
    out = {}
    for name, (make, shape, _) in _LAYERS.items():
        layer = make(m.nn)
        x = m.tensor(np.ones(shape, np.float32))
        if device is not None:
            layer, x = layer.to(device), x.to(device)
        with m.autocast("cpu"):
            o = layer(x, x, x) if name == "MultiheadAttention" else layer(x)
        o = o[0] if isinstance(o, tuple) else o
        o.float().sum().backward()
        assert all(p.grad is None or p.grad.dtype == p.dtype for p in layer.parameters())
        out[name] = str(o.dtype).split(".")[-1]
    return out


def test_layers_under_autocast(device):
    """Whole layers (BatchNorm's float32 statistics with a bfloat16 input included) run
    under autocast with PyTorch's output dtypes, their gradients in their parameters'
    dtype; and the table is torch's when torch can be imported."""
    if device.type == "cuda":
        pytest.skip("PyTorch's CUDA layer dtypes differ (layer_norm in float32): "
                    "test_autocast_dtypes_as_torch covers the ops on CUDA")
    assert _layer_dtypes(pdt, device) == {k: v[2] for k, v in _LAYERS.items()}
    bn = nn.BatchNorm2d(4).to(device)
    with pdt.autocast("cpu"):
        bn(pdt.ones(2, 4, 3, 3, device=device, dtype=pdt.bfloat16))
    assert bn.running_mean.dtype == pdt.float32 and int(bn.num_batches_tracked) == 1
    if device.type == "cpu" and device.index in (None, 0):
        try:
            import torch
        except Exception:  # noqa: BLE001 - compared only where torch imports
            return
        assert _layer_dtypes(torch) == {k: v[2] for k, v in _LAYERS.items()}


def test_weight_cast_cache_and_backward_inside(device):
    """A weight used twice in one region is cast once (cache_enabled), the cache is
    dropped on leaving the region and not used after an in-place change of the weight;
    backward() inside the region gives float32 gradients too."""
    from pydevtensor.amp import _state
    w = nn.Parameter(pdt.ones(3, 4, device=device))
    x = pdt.ones(2, 4, device=device)
    with pdt.autocast(_kind(device), dtype=pdt.bfloat16):
        y = F.linear(x, w) + F.linear(x, w)
        assert len(_state._state.cache) == 1
        with pdt.no_grad():
            w.mul_(2.0)
        z = F.linear(x, w)  # recast: the version changed
        np.testing.assert_array_equal(z.detach().float().cpu().numpy(), np.full((2, 3), 8.0))
        (y.float().sum() + z.float().sum()).backward()
    assert len(_state._state.cache) == 0
    assert w.grad.dtype == pdt.float32
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.full((3, 4), 6.0))
    with pdt.autocast(_kind(device), cache_enabled=False, dtype=pdt.bfloat16):
        F.linear(x, w)
        assert len(_state._state.cache) == 0


def test_grad_scaler_growth_stops_below_float32_overflow_and_state_dict_is_lazy_aware():
    """PyTorch keeps the scale in float32 and applies a grown scale only when it is
    finite: from 2**126 it stays at 2**127 (it went to 2**128, inf in float32, then every
    other step was skipped).  Before the first scale(), state_dict() gives the growth
    tracker load_state_dict() set (it gave 0)."""
    from pydevtensor import nn
    scaler = pdt.amp.GradScaler("cpu", init_scale=2.0 ** 126, growth_interval=1)
    w = nn.Parameter(pdt.ones(2))
    opt = pdt.optim.SGD([w], lr=0.1)
    scales = []
    for _ in range(4):
        opt.zero_grad()
        scaler.scale((w * 1e-30).sum()).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [2.0 ** 127] * 4
    fresh = pdt.amp.GradScaler("cpu")
    state = {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5,
             "growth_interval": 10, "_growth_tracker": 7}
    fresh.load_state_dict(state)
    assert fresh.state_dict() == state


def test_grad_scaler_scales_any_iterable_of_outputs():
    """PyTorch's scale() maps over an iterable that is not a list or tuple (a generator
    of losses); it raised ValueError."""
    scaler = pdt.amp.GradScaler("cpu", init_scale=4.0)
    out = scaler.scale(t for t in (pdt.ones(1), pdt.full((2,), 2.0)))
    assert [t.tolist() for t in out] == [[4.0], [8.0, 8.0]]
    assert [t.tolist() for t in scaler.scale([pdt.ones(1), (pdt.ones(1),)])[1]] == [[4.0]]
    with pytest.raises(ValueError, match="iterable of Tensors"):
        scaler.scale(3.0)


def test_out_and_in_place_calls_are_not_autocast(device):
    """PyTorch never autocasts a call given out= (the result is out, in out's dtype) nor an
    in-place op (c.addmm_(a, b) computes in c's dtype): both in float32 here, where
    bfloat16 would round 1.001 to 1.0."""
    a = pdt.full((2, 2), 1.001, device=device)
    one = pdt.ones(2, 2, device=device)
    with pdt.autocast(_kind(device)):
        for op in (pdt.mm, pdt.matmul):
            out = pdt.zeros(2, 2, device=device)
            r = op(a, one, out=out)
            assert r is out and r.dtype == pdt.float32
            np.testing.assert_allclose(out.cpu().numpy(), 2.002, rtol=1e-6)
        for got in (one.clone().addmm_(a, one), one.clone().addbmm_(a[None], one[None]),
                    one[None].clone().baddbmm_(a[None], one[None])[0]):
            assert got.dtype == pdt.float32
            np.testing.assert_allclose(got.cpu().numpy(), 3.002, rtol=1e-6)
        with pytest.raises(RuntimeError, match="same dtype"):  # as without autocast
            one.bfloat16().addmm_(a, one)
        assert pdt.is_autocast_enabled(_kind(device))  # in-place ops leave it on
        # bfloat16 on the CPU, float16 on CUDA
        assert (a @ one).dtype == pdt.get_autocast_dtype(_kind(device))


def test_grad_scaler_step_without_gradients_raises(device):
    """No parameter with a gradient: no inf check is recorded, and step() (and update()
    after an explicit unscale_) raise as PyTorch's."""
    p = nn.Parameter(pdt.ones(2, device=device))
    opt = pdt.optim.SGD([p], lr=0.1)
    s = pdt.amp.GradScaler(_kind(device))
    s.scale(pdt.ones(1, device=device))
    with pytest.raises(AssertionError, match="No inf checks were recorded for this optimizer"):
        s.step(opt)
    s = pdt.amp.GradScaler(_kind(device))
    s.scale(pdt.ones(1, device=device))
    s.unscale_(opt)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        s.update()
    assert p.tolist() == [1.0, 1.0]


def test_cpu_float32_list_and_products_through_matmul(device):
    """PyTorch's CPU autocast runs its 3-d pools, grid_sample, ctc_loss, trace, reflect and
    replicate pads, linear algebra and quantile in float32 (its CUDA autocast leaves them
    in the input dtype); vecdot, inner and tensordot go through its lowered products
    (float32 inputs give bfloat16), but a tensordot to a scalar is a dot, left alone."""
    kind = _kind(device)
    bf = pdt.bfloat16

    def m(*s):
        return (pdt.eye(s[-1], device=device) + 0.5).expand(*s).to(bf)
    x5, x4 = pdt.ones(1, 1, 4, 4, 4, device=device).to(bf), m(1, 1, 4, 4)
    f32 = pdt.float32 if kind == "cpu" else bf
    with pdt.autocast(kind, dtype=bf):
        for f in (lambda: F.avg_pool3d(x5, 2), lambda: F.max_pool3d(x5, 2),
                  lambda: F.adaptive_avg_pool3d(x5, 2), lambda: F.adaptive_max_pool3d(x5, 2),
                  lambda: F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2),
                  lambda: F.max_unpool1d(x4[0, :, :1, :2], pdt.tensor([[[0, 3]]], device=device),
                                         2),
                  lambda: F.max_unpool3d(x5[..., :1, :1, :2],
                                         pdt.tensor([[[[[0, 3]]]]], device=device), 2),
                  lambda: F.pad(x4, (1, 1, 1, 1), mode="reflect"),
                  lambda: F.pad(x4, (1, 1, 1, 1), "replicate"),
                  lambda: F.grid_sample(x4, pdt.zeros(1, 2, 2, 2, device=device).to(bf),
                                        align_corners=False)):
            assert f().dtype == f32
        for mode in ("constant", "circular"):
            assert F.pad(x4, (1, 1, 1, 1), mode=mode).dtype == bf
        if kind == "cpu":
            a = m(3, 3)
            for r in (pdt.trace(a), a.trace(), pdt.linalg.inv(a), pdt.inverse(a),
                      pdt.linalg.svd(a)[1], pdt.svd(a)[1], pdt.linalg.svdvals(a),
                      pdt.linalg.qr(a)[0], pdt.linalg.cholesky(a),
                      pdt.linalg.cholesky_ex(a)[0], pdt.linalg.solve(a, a),
                      pdt.linalg.eigh(a)[0], pdt.linalg.eigvalsh(a), pdt.linalg.cond(a),
                      pdt.linalg.lstsq(a, a)[0], pdt.pinverse(a), pdt.cholesky_solve(a, a),
                      pdt.cholesky_inverse(a), pdt.quantile(a, 0.5), pdt.nanquantile(a, 0.5),
                      F.ctc_loss(pdt.ones(5, 1, 3).to(bf).log_softmax(-1),
                                 pdt.tensor([[1, 2]]), [5], [2])):
                assert r.dtype == pdt.float32
            assert pdt.linalg.matrix_rank(a).item() == 3
            o23, o3 = pdt.ones(2, 3), pdt.ones(3)
            assert pdt.linalg.vecdot(o23, o23).dtype == bf
            assert pdt.inner(o23, o23).dtype == bf
            assert pdt.tensordot(o23, o23.T, dims=1).dtype == bf
            assert pdt.tensordot(o23, o23).dtype == pdt.float32
            assert pdt.inner(o3, o3).dtype == pdt.float32


def test_deprecated_cpu_autocast_defaults_to_bfloat16():
    """cpu.amp.autocast()'s dtype is its default argument, bfloat16, as PyTorch's, whatever
    set_autocast_dtype set."""
    pdt.set_autocast_dtype("cpu", pdt.float16)
    try:
        with pytest.warns(FutureWarning):
            ac = pdt.cpu.amp.autocast()
        with ac:
            assert pdt.get_autocast_dtype("cpu") == pdt.bfloat16
    finally:
        pdt.set_autocast_dtype("cpu", pdt.bfloat16)


def test_index_put_promotes_on_cuda_and_is_refused_on_cpu(device):
    """index_put is on PyTorch's CUDA promote list (a float16 value into a float32 tensor
    gives float32); its CPU autocast leaves it alone, and mixed dtypes are refused there
    as outside autocast."""
    kind = _kind(device)
    x = pdt.tensor([1.0, 2.0, 3.0], device=device)
    idx = pdt.tensor([0, 2], device=device)
    v = pdt.tensor([0.5, -4.25], device=device).to(pdt.get_autocast_dtype(kind))
    with pdt.autocast(kind):
        if kind == "cuda":
            out = x.index_put((idx,), v)
            assert out.dtype == pdt.float32
            np.testing.assert_array_equal(out.cpu().numpy(), [0.5, 2.0, -4.25])
            assert pdt.index_put(x, (idx,), v).dtype == pdt.float32
        else:
            with pytest.raises(RuntimeError, match="same dtype"):
                x.index_put((idx,), v)


def test_recurrent_states_are_lowered_on_cuda(device):
    """Under CUDA autocast the LSTM cell's (h', c') and the GRU's output follow PyTorch's
    lower-list kernels: float16, within float16 rounding of the float32 run."""
    if device.type != "cuda":
        pytest.skip("PyTorch's CPU cells are composites (float32 states): in the table")
    pdt.manual_seed(0)
    cell, gru = nn.LSTMCell(4, 3).to(device), nn.GRU(4, 3, num_layers=2).to(device)
    x = pdt.randn(5, 2, 4, device=device)
    ref_h, ref_c = cell(x[0])
    ref_out, _ = gru(x)
    with pdt.autocast("cuda"):
        h, c = cell(x[0])
        out, h_n = gru(x)
    assert h.dtype == c.dtype == out.dtype == h_n.dtype == pdt.float16
    for ours, ref in ((h, ref_h), (c, ref_c), (out, ref_out)):
        np.testing.assert_allclose(ours.float().detach().cpu().numpy(),
                                   ref.detach().cpu().numpy(), atol=1e-2)
    out.float().sum().backward()
    assert gru.weight_ih_l0.grad.dtype == pdt.float32


def test_index_copy_promotes_on_cpu(device):
    """index_copy is on PyTorch's CPU promote list: mixed float32/bfloat16 inputs give
    float32 under CPU autocast; index_copy_ (in place) is not autocast."""
    kind = _kind(device)
    x, i = pdt.ones(3, device=device), pdt.tensor([0], device=device)
    src = pdt.full((1,), 2.0, device=device).to(pdt.bfloat16)
    with pdt.autocast(kind):
        if kind == "cpu":
            for r in (pdt.index_copy(x, 0, i, src), x.bfloat16().index_copy(0, i, src.float())):
                assert r.dtype == pdt.float32 and r.tolist() == [2.0, 1.0, 1.0]
        with pytest.raises(RuntimeError, match="must have the same"):
            x.clone().index_copy_(0, i, src)


def test_autocast_refuses_non_bool_enabled_on_entry():
    """autocast(enabled=1) and cache_enabled=1 ran (enabled=None ran with autocast off):
    PyTorch builds the object and refuses a value that is not a bool on entry, as
    decorator too; cache_enabled=None is the default."""
    for kw in ({"enabled": 1}, {"enabled": None}, {"enabled": 0}, {"cache_enabled": 1},
               {"enabled": False, "cache_enabled": 0}):
        region = pdt.autocast("cpu", **kw)
        with pytest.raises(TypeError, match="must be a bool"):
            region.__enter__()
        assert not pdt.is_autocast_enabled("cpu")
        with pytest.raises(TypeError, match="must be a bool"):
            region(lambda: None)()
    with pdt.autocast("cpu", cache_enabled=None):
        assert pdt.is_autocast_enabled("cpu") and pdt.is_autocast_cache_enabled()


def test_device_type_with_an_index_and_non_str_device_types():
    """'cpu:0' and 'cuda:0' were refused: PyTorch parses them as devices (the type
    counts); the state functions refuse a non-str device_type with TypeError (their C
    argument parsing; it was ValueError, the autocast class's)."""
    with pdt.autocast("cpu:0"):
        assert pdt.is_autocast_enabled("cpu") and pdt.is_autocast_enabled("cpu:0")
        assert (pdt.ones(2, 2) @ pdt.ones(2, 2)).dtype == pdt.bfloat16
    assert pdt.get_autocast_dtype("cuda:0") == pdt.float16
    assert pdt.amp.is_autocast_available("cuda:0") and pdt.amp.is_autocast_available("cpu")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        pdt.autocast("cpu:x")
    for f in (pdt.is_autocast_enabled, pdt.get_autocast_dtype,
              pdt.amp.is_autocast_available, lambda d: pdt.set_autocast_enabled(d, True),
              lambda d: pdt.set_autocast_dtype(d, pdt.float16)):
        with pytest.raises(TypeError, match="device_type"):
            f(0)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        pdt.autocast(0)


def test_grad_scaler_setters_take_torchs_keywords_and_update_refuses_a_string():
    """set_growth_factor/set_backoff_factor take new_factor= and set_growth_interval
    new_interval= (they took new=); update('3') set the scale to 3.0."""
    s = pdt.amp.GradScaler("cpu")
    s.set_growth_factor(new_factor=3.0)
    s.set_backoff_factor(new_factor=0.25)
    s.set_growth_interval(new_interval=5)
    assert (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == \
        (3.0, 0.25, 5)
    s.scale(pdt.ones(1))
    for bad in ("3", True, [3.0]):
        with pytest.raises(TypeError, match="new_scale"):
            s.update(bad)
    assert s.get_scale() == 65536.0
    s.update(8)
    assert s.get_scale() == 8.0


def test_autocast_leaves_control_flow_cond_alone():
    """pydevtensor.cond (torch.cond's control flow) shares its name with linalg.cond, on
    autocast's float32 list: amp wrapped it too and cast its bfloat16 operands to
    float32.  Its branches' ops follow autocast; cond itself casts nothing."""
    import pydevtensor._control_flow as control_flow
    x = pdt.ones(2, dtype=pdt.bfloat16)
    with pdt.autocast("cpu", dtype=pdt.bfloat16):
        got = control_flow.cond(pdt.tensor(True), lambda a: a * 2, lambda a: a, (x,))
        top = pdt.cond(pdt.tensor(False), lambda a: a * 2, lambda a: a, (x,))
    assert got.dtype == pdt.bfloat16 and got.tolist() == [2.0, 2.0]
    assert top.dtype == pdt.bfloat16 and top.tolist() == [1.0, 1.0]
    assert pdt.linalg.cond(pdt.eye(2)).dtype == pdt.float32
