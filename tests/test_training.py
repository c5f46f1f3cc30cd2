"""Training (issues 10 and 16): autograd's gradients of the layers and losses checked
against finite differences in float64, the losses, gradient accumulation and zero_grad, SGD against a NumPy
reimplementation, and an MLP trained end to end against NumPy.

Tolerances: finite differences use central differences with h = 1e-6 in float64, whose
error is O(h^2 * f''') + O(eps / h), about 1e-9 here; we allow 1e-6 + 1e-6 * |ref|.
Results computed twice in float64 by different routes (autograd vs NumPy) are compared
with conftest's float64 tolerance (1e-12 + 1e-12 * |ref|) or, after many steps of
training, 1e-10; float32 results with 1e-6 + 1e-5 * |ref|.
"""
import logging

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pydevtensor as pdt
from conftest import DEVICES, assert_close
from pydevtensor import nn, optim

FD_H = 1e-6
FD_TOL = 1e-6


def t64(a):
    return pdt.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def numeric_grad(f, arr):
    """Central differences of the scalar f() with respect to every element of the NumPy
    array arr (modified in place and restored; it may be a view of a CPU tensor)."""
    g = np.zeros(arr.shape)
    flat = arr.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + FD_H
        up = f()
        flat[i] = old - FD_H
        down = f()
        flat[i] = old
        g.reshape(-1)[i] = (up - down) / (2 * FD_H)
    return g


def check_module_backward(module, x_np, seed=0):
    """Autograd's gradients of sum(R * module(x)) against finite differences, for the
    input and every parameter (float64 on the CPU)."""
    rng = np.random.default_rng(seed)
    x = t64(x_np).requires_grad_()
    out = module(x)
    r = rng.standard_normal(tuple(out.shape))

    def f():
        with pdt.no_grad():
            return float(np.sum(r * module(x).detach().numpy()))

    module.zero_grad()
    (module(x) * t64(r)).sum().backward()
    grad_x = x.grad
    assert grad_x.shape == x.shape and grad_x.dtype == pdt.float64
    assert_fd(grad_x.numpy(), numeric_grad(f, x.detach().numpy()))
    for name, p in module.named_parameters():
        assert p.grad is not None, name
        assert p.grad.shape == p.shape and p.grad.device == p.device
        assert_fd(p.grad.numpy(), numeric_grad(f, p.detach().numpy()), name)


def assert_fd(got, ref, what=""):
    err = np.abs(got - ref)
    assert np.all(err <= FD_TOL + FD_TOL * np.abs(ref)), (what, err.max())


def awkward_input(shape, seed=1):
    """Standard normals kept away from 0, where relu is not differentiable."""
    x = np.random.default_rng(seed).standard_normal(shape)
    return np.where(np.abs(x) < 0.05, 0.1, x)


# ---- backward passes against finite differences ----

@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3), (1, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_backward_finite_differences(shape, bias):
    pdt.manual_seed(0)
    check_module_backward(nn.Linear(3, 4, bias=bias, dtype="float64"), awkward_input(shape))


@settings(max_examples=100, deadline=None)
@given(rows=st.integers(0, 7), n_in=st.integers(1, 6), n_out=st.integers(1, 6),
       bias=st.booleans(), seed=st.integers(0, 2**16))
def test_linear_backward_matches_the_numpy_formulas(rows, n_in, n_out, bias, seed):
    """Any shape, zero rows included: grad_input = g @ W, grad_W = g.T @ x, grad_b =
    g.sum(0), in float64 (conftest's tolerance)."""
    rng = np.random.default_rng(seed)
    layer = nn.Linear(n_in, n_out, bias=bias, dtype="float64")
    x, g = rng.standard_normal((rows, n_in)), rng.standard_normal((rows, n_out))
    xt = t64(x).requires_grad_()
    layer(xt).backward(t64(g))
    grad_input = xt.grad
    w = layer.weight.detach().numpy()
    assert_close(grad_input.numpy(), g @ w, "float64")
    assert_close(layer.weight.grad.numpy(), g.T @ x, "float64")
    if bias:
        assert_close(layer.bias.grad.numpy(), g.sum(0), "float64")


@pytest.mark.parametrize("cls", [nn.ReLU, nn.Sigmoid, nn.Tanh, nn.Identity])
def test_activation_backward_finite_differences(cls):
    check_module_backward(cls(), awkward_input((4, 5)))


def test_sequential_and_flatten_backward_finite_differences():
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(6, 5, dtype="float64"), nn.Tanh(),
                        nn.Linear(5, 4, dtype="float64"), nn.ReLU(),
                        nn.Linear(4, 3, dtype="float64"), nn.Sigmoid())
    check_module_backward(net, awkward_input((4, 2, 3)))


def check_loss_backward(loss_fn, pred_np, target):
    pred = t64(pred_np).requires_grad_()
    loss_fn(pred, target).backward()
    grad = pred.grad
    assert grad.shape == pred.shape
    f = lambda: float(loss_fn(pred, target).item())  # noqa: E731
    assert_fd(grad.numpy(), numeric_grad(f, pred.detach().numpy()))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_backward_finite_differences(reduction):
    rng = np.random.default_rng(2)
    check_loss_backward(nn.MSELoss(reduction=reduction), rng.standard_normal((4, 3)),
                        t64(rng.standard_normal((4, 3))))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_backward_finite_differences(reduction):
    rng = np.random.default_rng(3)
    check_loss_backward(nn.CrossEntropyLoss(reduction=reduction),
                        3 * rng.standard_normal((6, 4)), pdt.tensor([0, 3, 1, 1, 2, 3]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_is_one_node_whose_gradient_is_softmax_less_one_hot(device, reduction):
    """cross_entropy records one node (NllLossBackward0, PyTorch's name) instead of a
    dozen; its gradient is (softmax - one-hot) times the incoming gradient, against NumPy
    in float64; a masked (-inf) logit gets a zero gradient."""
    rng = np.random.default_rng(8)
    x = (3 * rng.standard_normal((5, 4))).astype(np.float32)
    x[2, 1] = -np.inf
    target = np.array([0, 3, 2, 1, 3])
    logits = pdt.tensor(x, device=device, requires_grad=True)
    loss = nn.functional.cross_entropy(logits, pdt.tensor(target, device=device),
                                       reduction=reduction)
    assert loss.grad_fn.name() == "NllLossBackward0"
    g = rng.standard_normal(5).astype(np.float32) if reduction == "none" else np.float32(1.5)
    loss.backward(pdt.tensor(g, device=device))
    x64 = x.astype(np.float64)
    soft = np.exp(x64 - x64.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    want = soft - np.eye(4)[target]
    want *= g.reshape(5, 1) if reduction == "none" else (g / 5 if reduction == "mean" else g)
    assert_close(logits.grad, want)
    assert logits.grad.cpu().numpy()[2, 1] == 0.0


def test_a_users_module_trains_through_autograd():
    """A module with only a forward (no backward of its own) gets its gradients."""

    class Double(nn.Module):
        def forward(self, x):
            return x * 2 + x.sin()

    pdt.manual_seed(0)
    net = nn.Sequential(Double(), nn.Linear(3, 4, dtype="float64"), nn.Tanh(),
                        nn.Linear(4, 2, dtype="float64"))
    check_module_backward(net, awkward_input((5, 3)))


def test_scaled_losses_and_the_training_idiom():
    """(s * loss).backward() gives s * d loss / d pred."""
    rng = np.random.default_rng(4)
    pred = t64(rng.standard_normal((5, 2))).requires_grad_()
    target = t64(rng.standard_normal((5, 2)))
    (0.25 * nn.MSELoss()(pred, target)).backward()
    assert_close(pred.grad.numpy(),
                 0.25 * 2 * (pred.detach().numpy() - target.numpy()) / 10, "float64")
    pred.grad = None
    (nn.CrossEntropyLoss()(pred, pdt.tensor([0, 1, 1, 0, 1])) * pdt.tensor(3.0,
                                                                          dtype="float64")).backward()
    assert_close(pred.grad.numpy(),
                 3 * (softmax_ref(pred.detach().numpy()) - np.eye(2)[[0, 1, 1, 0, 1]]) / 5,
                 "float64")


# ---- the losses' values ----

def softmax_ref(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def cross_entropy_ref(z, t):
    z = np.asarray(z, np.float64)
    m = z.max(1, keepdims=True)
    lse = (m + np.log(np.exp(z - m).sum(1, keepdims=True)))[:, 0]
    return lse - z[np.arange(len(t)), t]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_matches_numpy(device, dtype):
    rng = np.random.default_rng(5)
    z = rng.standard_normal((7, 5)).astype(dtype)
    t = rng.integers(0, 5, 7)
    logits = pdt.from_numpy(z).to(device)
    target = pdt.from_numpy(t).to(device)
    ref = cross_entropy_ref(z, t)
    assert_close(nn.CrossEntropyLoss()(logits, target).cpu().numpy(), ref.mean(), dtype)
    assert_close(nn.CrossEntropyLoss(reduction="sum")(logits, target).cpu().numpy(), ref.sum(),
                 dtype)
    assert_close(nn.CrossEntropyLoss(reduction="none")(logits, target).cpu().numpy(), ref, dtype)
    assert_close(nn.functional.cross_entropy(logits, target.to(pdt.int32)).cpu().numpy(),
                 ref.mean(), dtype)
    assert_close(nn.functional.softmax(logits).cpu().numpy(), softmax_ref(z), dtype)
    assert_close(nn.functional.log_softmax(logits, 1).cpu().numpy(), np.log(softmax_ref(z)),
                 dtype)


def test_cross_entropy_is_stable_for_huge_and_masked_logits():
    inf = np.inf
    z = np.array([[1e4, 0.0, -1e4], [3e38, 3e38, -3e38], [0.0, -inf, 1.0]], np.float32)
    target = pdt.tensor([1, 0, 2])
    per_sample = nn.CrossEntropyLoss(reduction="none")(pdt.from_numpy(z), target).numpy()
    assert_close(per_sample, [1e4, np.log(2), np.log1p(np.exp(-1.0))], "float32")
    zt = pdt.from_numpy(z).requires_grad_()
    loss = nn.CrossEntropyLoss()(zt, target)
    assert np.isfinite(loss.item())
    loss.backward()
    grad = zt.grad.numpy()
    assert np.all(np.isfinite(grad)) and grad[2, 1] == 0


def test_mse_loss_matches_numpy(device):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    x, y = t64(a).to(device), t64(b).to(device)
    assert_close(nn.MSELoss()(x, y).cpu().numpy(), ((a - b) ** 2).mean(), "float64")
    assert_close(nn.functional.mse_loss(x, y, reduction="sum").cpu().numpy(), ((a - b) ** 2).sum(),
                 "float64")


def test_loss_errors_are_clear():
    ce = nn.CrossEntropyLoss()
    with pytest.raises(IndexError, match="target 3 is out of bounds for 3 classes"):
        ce(pdt.zeros(2, 3), pdt.tensor([0, 3]))
    with pytest.raises(IndexError, match="target -1 is out of bounds"):
        ce(pdt.zeros(2, 3), pdt.tensor([-1, 0]))
    with pytest.raises(TypeError, match="integer class indices"):
        ce(pdt.zeros(2, 3), pdt.zeros(2))
    with pytest.raises(ValueError, match=r"target of shape \(3,\) does not match input of "
                                         r"shape \(2, 3\): expected \(2,\)"):
        ce(pdt.zeros(2, 3), pdt.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match=r"an unbatched input of shape \(3,\) takes a target "
                                         r"of shape \(\), got \(1,\)"):
        ce(pdt.zeros(3), pdt.tensor([0]))
    with pytest.raises(ValueError, match=r"must be \(N, C\) logits"):
        ce(pdt.zeros(()), pdt.tensor(0))
    # a target of another shape broadcasts with PyTorch's warning; one that cannot, raises
    with pytest.warns(UserWarning, match=r"target size .*\[2\].*input size .*\[2, 1\]"):
        got = nn.MSELoss()(pdt.zeros(2, 1), pdt.tensor([1.0, 3.0]))
    assert got.item() == 5.0  # the mean over the broadcast (2, 2)
    with pytest.raises(ValueError, match=r"input of shape \(2, 3\) and target of shape \(2,\)"):
        nn.MSELoss()(pdt.zeros(2, 3), pdt.zeros(2))
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none'"):
        nn.MSELoss(reduction="avg")
    none = nn.MSELoss(reduction="none")(pdt.zeros(2, requires_grad=True), pdt.ones(2))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        none.backward()


# ---- gradients: where they live, accumulation, zero_grad, errors ----

def test_gradients_accumulate_on_the_parameters_device(device):
    pdt.manual_seed(0)
    layer = nn.Linear(3, 2, device=device, dtype="float64")
    x = pdt.randn(4, 3, dtype="float64", device=device)
    g = pdt.ones(4, 2, dtype="float64", device=device)
    layer(x).backward(g)
    first = layer.weight.grad
    once = first.cpu().numpy().copy()
    assert first.device == layer.weight.device and layer.bias.grad.device == device
    assert_close(once, g.cpu().numpy().T @ x.cpu().numpy(), "float64")
    layer(x).backward(g)
    assert layer.weight.grad is first  # accumulated in place
    assert_close(first.cpu().numpy(), 2 * once, "float64")
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is first and not first.cpu().numpy().any()
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_frozen_parameters_get_no_gradient():
    layer = nn.Linear(3, 2)
    layer.bias.requires_grad = False
    layer(pdt.ones(1, 3)).sum().backward()
    assert layer.weight.grad is not None and layer.bias.grad is None


def test_linear_backward_runs_gemms_on_transposed_views_without_copies(device):
    """The ops of Linear's backward (autograd's AddmmBackward0), from the placement log:
    two GEMMs and a sum; the transposes are views (op 'T') handed to the GEMM, and
    nothing is copied."""
    layer = nn.Linear(3, 4, device=device)
    out = layer(pdt.randn(5, 3, device=device, requires_grad=True))
    grad_output = pdt.ones(5, 4, device=device)
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    log = logging.getLogger("pydevtensor.placement")
    handler = Keep()
    log.addHandler(handler)
    try:
        pdt.config.set_log_device_placement(True)
        out.backward(grad_output)
    finally:
        pdt.config.set_log_device_placement(False)
        log.removeHandler(handler)
    ops = [r.split()[2] for r in records if r.startswith("Executing op")]
    assert ops.count("mm") == 2 and ops.count("sum") == 1 and "T" in ops, records
    assert set(ops) <= {"reshape", "T", "mm", "sum", "permute"}, records
    assert not any(r.startswith("Copying") for r in records), records
    assert all(r.endswith(f"device {device}") for r in records), records


# ---- SGD ----

def sgd_ref(params, grads_per_step, lr, momentum, wd):
    """PyTorch's SGD in NumPy (float64)."""
    params = [p.astype(np.float64).copy() for p in params]
    bufs = [None] * len(params)
    for grads in grads_per_step:
        for i, g in enumerate(grads):
            d = g + wd * params[i]
            if momentum:
                bufs[i] = d.copy() if bufs[i] is None else momentum * bufs[i] + d
                d = bufs[i]
            params[i] -= lr * d
    return params


@pytest.mark.parametrize("momentum,wd", [(0.0, 0.0), (0.9, 0.0), (0.0, 0.01), (0.5, 0.1)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sgd_matches_numpy(device, momentum, wd, dtype):
    rng = np.random.default_rng(7)
    init = [rng.standard_normal((3, 4)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(p.shape) for p in init] for _ in range(4)]
    params = [nn.Parameter(pdt.from_numpy(p.astype(dtype)).to(device)) for p in init]
    storage = [p.data_ptr() for p in params]
    opt = optim.SGD(params, lr=0.05, momentum=momentum, weight_decay=wd)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = pdt.from_numpy(g.astype(dtype)).to(device)
        opt.step()
    ref = sgd_ref([p.astype(dtype) for p in init],
                  [[g.astype(dtype) for g in step] for step in grads], 0.05, momentum, wd)
    for p, r, ptr in zip(params, ref, storage):
        assert p.data_ptr() == ptr and p.device == device  # updated in place
        assert_close(p.detach().cpu().numpy(), r, dtype)


def test_sgd_param_groups_skips_and_zero_grad():
    a, b, c = (nn.Parameter(pdt.ones(2)) for _ in range(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b, c], "lr": 1.0}], lr=0.5)
    a.grad, b.grad = pdt.ones(2), pdt.ones(2)  # c has no gradient: left alone
    opt.step()
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [0.0, 0.0] and c.tolist() == [1.0, 1.0]
    assert "lr: 1.0" in repr(opt)
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_sgd_errors():
    p = nn.Parameter(pdt.ones(2))
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        optim.SGD([p], lr=-0.1)
    with pytest.raises(ValueError, match="Invalid momentum value: -1"):
        optim.SGD([p], lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="got a single Tensor"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(RuntimeError, match=r"assigned grad has data of a different size.*"
                                           r"the tensor is \(2,\) float32 on cpu, the grad "
                                           r"\(3,\) float32"):
        p.grad = pdt.ones(3)  # refused at once, as in PyTorch


# ---- training end to end ----

def mlp_numpy_training(w1, b1, w2, b2, X, y, lr, steps, batch):
    """Linear-ReLU-Linear with softmax cross-entropy and plain SGD, in NumPy float64."""
    for s in range(steps):
        xb, yb = X[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch]
        h_pre = xb @ w1.T + b1
        h = np.maximum(h_pre, 0)
        z = h @ w2.T + b2
        dz = (softmax_ref(z) - np.eye(z.shape[1])[yb]) / len(yb)
        dh = (dz @ w2) * (h_pre > 0)
        w2, b2 = w2 - lr * dz.T @ h, b2 - lr * dz.sum(0)
        w1, b1 = w1 - lr * dh.T @ xb, b1 - lr * dh.sum(0)
    return w1, b1, w2, b2


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 2e-5)])
def test_mlp_training_matches_numpy(device, dtype, tol):
    """Autograd training against the same training in NumPy float64 (float32: the
    float32 tolerance, after 8 steps)."""
    rng = np.random.default_rng(8)
    X = rng.standard_normal((64, 5))
    y = rng.integers(0, 3, 64)
    pdt.manual_seed(3)
    net = nn.Sequential(nn.Linear(5, 8, dtype=dtype), nn.ReLU(),
                        nn.Linear(8, 3, dtype=dtype)).to(device)
    init = [p.detach().cpu().numpy().astype(np.float64) for p in net.parameters()]
    opt = optim.SGD(net.parameters(), lr=0.5)
    loss_fn = nn.CrossEntropyLoss()
    Xt, yt = t64(X).to(device, dtype), pdt.from_numpy(y).to(device)
    losses = []
    for s in range(8):
        loss = loss_fn(net(Xt[s * 8:(s + 1) * 8]), yt[s * 8:(s + 1) * 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    ref = mlp_numpy_training(*init, X, y, 0.5, 8, 8)
    for p, r in zip(net.parameters(), ref):
        err = np.abs(p.detach().cpu().numpy() - r)
        assert np.all(err <= tol + tol * np.abs(r)), err.max()
    assert np.isfinite(losses).all()


def test_single_device_strategy_fit_learns(device):
    """MirroredStrategy with one replica on any device: fit lowers the loss."""
    from pydevtensor import distribute
    rng = np.random.default_rng(9)
    X = rng.standard_normal((256, 4)).astype(np.float32)
    y = (X @ np.array([1.0, -2.0, 0.5, 3.0]) > 0).astype(np.int64)
    strategy = distribute.MirroredStrategy([device])
    with strategy.scope():
        pdt.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    assert net[0].weight.device == device
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    history = strategy.fit(net, X, y, nn.CrossEntropyLoss(), opt, epochs=8, batch_size=32,
                           verbose=0)
    loss = history.history["loss"]
    assert history.epoch == list(range(8)) and len(loss) == 8
    assert loss[-1] < 0.3 * loss[0] and loss == sorted(loss, reverse=True), loss


# ---- Adam ----

def adam_ref(params, grads_per_step, lr, betas, eps, wd):
    """PyTorch's Adam in NumPy (float64)."""
    params = [p.astype(np.float64).copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t, grads in enumerate(grads_per_step, start=1):
        for i, g in enumerate(grads):
            d = g + wd * params[i]
            m[i] = betas[0] * m[i] + (1 - betas[0]) * d
            v[i] = betas[1] * v[i] + (1 - betas[1]) * d * d
            denom = np.sqrt(v[i]) / np.sqrt(1 - betas[1] ** t) + eps
            params[i] -= lr / (1 - betas[0] ** t) * m[i] / denom
    return params


@pytest.mark.parametrize("wd", [0.0, 0.01])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_adam_matches_numpy(device, wd, dtype):
    rng = np.random.default_rng(10)
    init = [rng.standard_normal((3, 4)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(p.shape) for p in init] for _ in range(5)]
    params = [nn.Parameter(pdt.from_numpy(p.astype(dtype)).to(device)) for p in init]
    opt = optim.Adam(params, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=wd)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = pdt.from_numpy(g.astype(dtype)).to(device)
        opt.step()
    ref = adam_ref([p.astype(dtype) for p in init],
                   [[g.astype(dtype) for g in step] for step in grads], 0.01, (0.8, 0.99),
                   1e-6, wd)
    for p, r in zip(params, ref):
        assert p.device == device and p.requires_grad and p.is_leaf
        assert_close(p.detach().cpu().numpy(), r, dtype)
    with pytest.raises(ValueError, match="Invalid beta parameter at index"):
        optim.Adam(params, betas=(0.9, 1.0))


@pytest.mark.parametrize("wd", [0.0, 0.01])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_adam_in_place_gives_the_bits_of_the_formula(device, wd, dtype):
    # optim.Adam makes each new tensor once and updates it in place, with add's alpha
    # for the products by (1 - beta): the same bits as the formula written out of place.
    rng = np.random.default_rng(12)
    w = pdt.from_numpy(rng.standard_normal(1000).astype(dtype)).to(device)
    grads = [pdt.from_numpy(rng.standard_normal(1000).astype(dtype)).to(device)
             for _ in range(4)]
    lr, (b1, b2), eps = 0.01, (0.8, 0.99), 1e-6
    p = nn.Parameter(w.clone())
    opt = optim.Adam([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    ref, m, v = w.clone(), None, None
    for t, g in enumerate(grads, start=1):
        p.grad = g
        opt.step()
        d = g if wd == 0 else g.add(ref, alpha=wd)
        m = d * (1 - b1) if m is None else m * b1 + d * (1 - b1)
        v = d * d * (1 - b2) if v is None else v * b2 + d * d * (1 - b2)
        denom = v.sqrt() / math.sqrt(1 - b2 ** t) + eps
        ref = ref - m / denom * (lr / (1 - b1 ** t))
        np.testing.assert_array_equal(p.detach().cpu().numpy(), ref.cpu().numpy())
        np.testing.assert_array_equal(opt.state[p]["exp_avg_sq"].cpu().numpy(),
                                      v.cpu().numpy())


def test_adam_trains_the_d2l_loop():
    rng = np.random.default_rng(11)
    X = pdt.from_numpy(rng.standard_normal((64, 4)).astype(np.float32))
    y = pdt.from_numpy((rng.standard_normal(64) > 0).astype(np.int64))
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    trainer = optim.Adam(net.parameters(), lr=0.05)
    loss = nn.CrossEntropyLoss()
    first = None
    for _ in range(30):
        lval = loss(net(X), y)
        trainer.zero_grad()
        lval.backward()
        trainer.step()
        first = lval.item() if first is None else first
    assert lval.item() < 0.7 * first


# ---- Adagrad, RMSprop, Adadelta (D2L sections 12.7-12.9), against NumPy references ----

def adagrad_ref(params, grads_per_step, lr, lr_decay, wd, init, eps):
    params = [p.copy() for p in params]
    acc = [np.full(p.shape, init, p.dtype) for p in params]
    for t, grads in enumerate(grads_per_step, start=1):
        for i, g in enumerate(grads):
            d = g + wd * params[i]
            acc[i] = acc[i] + d * d
            params[i] -= lr / (1 + (t - 1) * lr_decay) * d / (np.sqrt(acc[i]) + eps)
    return params


def rmsprop_ref(params, grads_per_step, lr, alpha, eps, wd, momentum=0.0, centered=False):
    params = [p.copy() for p in params]
    sq = [np.zeros_like(p) for p in params]
    g_avg = [np.zeros_like(p) for p in params]
    buf = [np.zeros_like(p) for p in params]
    for grads in grads_per_step:
        for i, g in enumerate(grads):
            d = g + wd * params[i]
            sq[i] = alpha * sq[i] + (1 - alpha) * d * d
            var = sq[i]
            if centered:
                g_avg[i] = alpha * g_avg[i] + (1 - alpha) * d
                var = sq[i] - g_avg[i] * g_avg[i]
            step = d / (np.sqrt(var) + eps)
            if momentum > 0:
                buf[i] = momentum * buf[i] + step
                step = buf[i]
            params[i] -= lr * step
    return params


def adadelta_ref(params, grads_per_step, lr, rho, eps, wd):
    params = [p.copy() for p in params]
    sq = [np.zeros_like(p) for p in params]
    acc = [np.zeros_like(p) for p in params]
    for grads in grads_per_step:
        for i, g in enumerate(grads):
            d = g + wd * params[i]
            sq[i] = rho * sq[i] + (1 - rho) * d * d
            delta = np.sqrt(acc[i] + eps) / np.sqrt(sq[i] + eps) * d
            acc[i] = rho * acc[i] + (1 - rho) * delta * delta
            params[i] -= lr * delta
    return params


D2L_OPTIMIZERS = {
    # name: (keyword arguments, the reference with them in its order)
    "Adagrad": (dict(lr=0.1, lr_decay=0.05, weight_decay=0.01, initial_accumulator_value=0.3,
                     eps=1e-3), lambda p, g, k: adagrad_ref(p, g, k["lr"], k["lr_decay"],
                                                            k["weight_decay"],
                                                            k["initial_accumulator_value"],
                                                            k["eps"])),
    "RMSprop": (dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.01),
                lambda p, g, k: rmsprop_ref(p, g, k["lr"], k["alpha"], k["eps"],
                                            k["weight_decay"])),
    "RMSprop-momentum-centered": (
        dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.01, momentum=0.8, centered=True),
        lambda p, g, k: rmsprop_ref(p, g, k["lr"], k["alpha"], k["eps"], k["weight_decay"],
                                    k["momentum"], k["centered"])),
    "RMSprop-momentum": (
        dict(lr=0.01, alpha=0.9, eps=1e-6, momentum=0.5),
        lambda p, g, k: rmsprop_ref(p, g, k["lr"], k["alpha"], k["eps"], 0.0,
                                    k["momentum"])),
    "Adadelta": (dict(lr=0.5, rho=0.9, eps=1e-4, weight_decay=0.01),
                 lambda p, g, k: adadelta_ref(p, g, k["lr"], k["rho"], k["eps"],
                                              k["weight_decay"])),
}


@pytest.mark.parametrize("name", sorted(D2L_OPTIMIZERS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_d2l_chapter_12_optimizers_match_numpy(device, name, dtype):
    kwargs, ref_of = D2L_OPTIMIZERS[name]
    rng = np.random.default_rng(13)
    init = [rng.standard_normal((3, 4)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(p.shape) for p in init] for _ in range(6)]
    params = [nn.Parameter(pdt.from_numpy(p.astype(dtype)).to(device)) for p in init]
    opt = getattr(optim, name.split("-")[0])(params, **kwargs)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = pdt.from_numpy(g.astype(dtype)).to(device)
        opt.step()
    ref = ref_of([p.astype(dtype) for p in init],
                 [[g.astype(dtype) for g in step] for step in grads], kwargs)
    for p, r in zip(params, ref):
        assert p.device == device and p.requires_grad and p.is_leaf
        assert_close(p.detach().cpu().numpy(), r, dtype)
    assert opt.state[params[0]]["step"] == 6


@pytest.mark.parametrize("name", ["Adadelta", "Adagrad", "RMSprop"])
def test_d2l_chapter_12_optimizers_train_resume_and_check(tmp_path, device, name):
    # D2L's concise line: trainer = torch.optim.Adagrad(net.parameters(), lr=0.1), and so on
    rng = np.random.default_rng(14)
    X = pdt.from_numpy(rng.standard_normal((64, 4)).astype(np.float32)).to(device)
    y = pdt.from_numpy(X.cpu().numpy() @ np.array([[2.0], [-3.4], [1.0], [0.5]],
                                                    dtype=np.float32) + 4.2).to(device)
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 1)).to(device)
    kwargs = {"Adagrad": dict(lr=0.1), "RMSprop": dict(lr=0.01, alpha=0.9),
              "Adadelta": dict(rho=0.9, lr=1.0)}[name]
    trainer = getattr(optim, name)(net.parameters(), **kwargs)
    loss = nn.MSELoss()

    def epoch(net, trainer):
        for _ in range(5):
            lval = loss(net(X), y)
            trainer.zero_grad()
            lval.backward()
            trainer.step()
        return lval.item()

    first = loss(net(X), y).item()
    epoch(net, trainer)
    assert loss(net(X), y).item() < first
    # a checkpoint through save() and load() resumes with the same numbers
    pdt.save({"model": net.state_dict(), "optim": trainer.state_dict()}, tmp_path / "ckpt")
    sd = trainer.state_dict()
    assert sorted(sd["state"][0]) == sorted(type(trainer)._STATE) and sd["state"][0]["step"] == 5
    twin = nn.Sequential(nn.Linear(4, 1)).to(device)
    ckpt = pdt.load(tmp_path / "ckpt")
    twin.load_state_dict(ckpt["model"])
    twin_trainer = getattr(optim, name)(twin.parameters())
    twin_trainer.load_state_dict(ckpt["optim"])
    assert twin_trainer.param_groups[0]["lr"] == trainer.param_groups[0]["lr"]
    assert epoch(net, trainer) == epoch(twin, twin_trainer)
    assert pdt.equal(net[0].weight.detach(), twin[0].weight.detach())
    bad = {"Adagrad": dict(lr_decay=-1.0), "RMSprop": dict(alpha=1.5),
           "Adadelta": dict(rho=-0.1)}[name]
    with pytest.raises(ValueError, match=f"{name}: Invalid {next(iter(bad))} value"):
        getattr(optim, name)(net.parameters(), **bad)
