"""optim.Adafactor on every device: trajectories against PyTorch's update rule written
here in NumPy float64 (1e-12 relative), for matrices (factored second moment), a stack
of matrices, vectors and 0-d parameters, with weight decay, maximize, clipping and a
Tensor lr; PyTorch's state keys and shapes, and its errors."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn, optim

SHAPES = [(4, 5), (2, 3, 4), (6,), ()]
STEPS = 6


def ref_adafactor(inits, grads, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                  weight_decay=0.0, maximize=False, lr32=False):
    """PyTorch's Adafactor (torch/optim/_adafactor.py, the single-tensor step) in
    NumPy float64: the parameters after each step's gradients.  lr32: lr is a float32
    0-d tensor, which PyTorch keeps, so that alpha (when rho is lr) and the step size
    -alpha / denom are float32 tensors too (denom a float32 scalar in that division)."""
    ps = [np.array(p, dtype=np.float64) for p in inits]
    state = [{} for _ in ps]
    eps1 = np.finfo(np.float64).eps if eps[0] is None else eps[0]
    for t, gs in enumerate(grads, 1):
        for p, g, st in zip(ps, gs, state):
            g = -g if maximize else g
            beta = t ** beta2_decay
            rho = min(lr, 1 / np.sqrt(t))
            scale = max(eps[1], np.sqrt(np.sum(p * p)) / np.sqrt(p.size))
            alpha = scale * rho
            p *= 1 - lr * weight_decay
            if g.ndim > 1:
                row = np.mean(g * g, axis=-1, keepdims=True)
                col = np.mean(g * g, axis=-2, keepdims=True)
                st["row"] = st.get("row", np.zeros_like(row)) * (1 - beta) + beta * row
                st["col"] = st.get("col", np.zeros_like(col)) * (1 - beta) + beta * col
                var = st["row"] @ st["col"] / np.maximum(
                    np.mean(st["row"], axis=-2, keepdims=True), eps1)
            else:
                st["var"] = st.get("var", np.zeros_like(g)) * (1 - beta) + beta * g * g
                var = st["var"]
            u = g / np.sqrt(np.maximum(var, eps1 * eps1))
            denom = max(1.0, np.sqrt(np.sum(u * u)) / (np.sqrt(u.size) * d))
            step = -alpha / denom
            if lr32 and rho == lr:
                f32 = np.float32  # float32 arithmetic throughout, numbers cast first
                step = float(-(f32(scale) * f32(lr)) / f32(denom))
            p += step * u
    return ps


def _data(seed):
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) * (1 + t) for s in SHAPES] for t in range(STEPS)]
    return inits, grads


def _run(device, inits, grads, **kw):
    ps = [nn.Parameter(pdt.from_numpy(np.array(a)).to(device)) for a in inits]
    opt = optim.Adafactor(ps, **kw)
    for gs in grads:
        for p, g in zip(ps, gs):
            p.grad = pdt.from_numpy(np.array(g)).to(device)
        opt.step()
    return ps, opt


@pytest.mark.parametrize("kw", [
    {}, {"lr": 0.3, "weight_decay": 0.1}, {"maximize": True, "beta2_decay": -0.5},
    {"d": 1.2, "eps": (1e-20, 0.5)}, {"lr": 2.0, "eps": (1e-3, 1e-3)}])
def test_trajectories_follow_the_rule(device, kw):
    inits, grads = _data(len(kw))
    ps, _ = _run(device, inits, grads, **kw)
    for got, ref in zip(ps, ref_adafactor(inits, grads, **kw)):
        np.testing.assert_allclose(got.detach().cpu().numpy(), ref, rtol=1e-12, atol=1e-14)


def test_tensor_lr_is_rounded_as_torchs(device):
    # a Tensor lr stays one in PyTorch's arithmetic: alpha and the step size are then
    # float32 tensors, rounded before they scale the float64 update
    inits, grads = _data(3)
    ps, _ = _run(device, inits, grads, lr=pdt.tensor(0.001))
    lr = float(np.float32(0.001))
    for got, ref, plain in zip(ps, ref_adafactor(inits, grads, lr=lr, lr32=True),
                               ref_adafactor(inits, grads, lr=lr)):
        np.testing.assert_allclose(got.detach().cpu().numpy(), ref, rtol=1e-12, atol=1e-15)
        assert not np.allclose(ref, plain, rtol=1e-12, atol=0)  # the rounding shows


def test_state_keys_and_shapes(device):
    inits, grads = _data(5)
    ps, opt = _run(device, inits, grads[:2])
    st = opt.state
    assert sorted(st[ps[0]]) == ["col_var", "row_var", "step"]
    assert tuple(st[ps[0]]["row_var"].shape) == (4, 1)
    assert tuple(st[ps[0]]["col_var"].shape) == (1, 5)
    assert tuple(st[ps[1]]["row_var"].shape) == (2, 3, 1)
    assert tuple(st[ps[1]]["col_var"].shape) == (2, 1, 4)
    assert sorted(st[ps[2]]) == ["step", "variance"] and sorted(st[ps[3]]) == ["step", "variance"]
    assert st[ps[0]]["step"].item() == 2 and st[ps[0]]["step"].device == pdt.device("cpu")
    group = opt.param_groups[0]
    assert group["eps"] == (None, 1e-3) and group["beta2_decay"] == -0.8 and group["d"] == 1.0
    assert group["lr"] == 1e-2 and group["weight_decay"] == 0.0 and group["foreach"] is None
    # a fresh optimizer loading the state dict takes the same next step
    again, opt2 = _run(device, inits, [])
    for p, q in zip(again, ps):
        with pdt.no_grad():
            p.copy_(q)
    opt2.load_state_dict(opt.state_dict())
    for p, q, g in zip(ps, again, grads[2]):
        p.grad = q.grad = pdt.from_numpy(np.array(g)).to(device)
    opt.step()
    opt2.step()
    for p, q in zip(ps, again):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())


def test_float32_eps1_is_float32s(device):
    p = nn.Parameter(pdt.zeros(3, 2, device=device))
    opt = optim.Adafactor([p], lr=0.5)
    p.grad = pdt.zeros(3, 2, device=device)
    p.grad[0, 0] = 1e-30  # var underflows to 0: u = g / eps1, eps1 float32's epsilon
    opt.step()
    u = np.zeros((3, 2))
    u[0, 0] = 1e-30 / np.finfo(np.float32).eps
    np.testing.assert_allclose(p.detach().cpu().numpy(), -1e-3 * 0.5 * u, rtol=1e-6)


@pytest.mark.parametrize("kw,match", [
    ({"lr": -1.0}, r"Learning rate should be >= 0 but is: -1.0"),
    ({"beta2_decay": 0.5}, r"beta2_decay should be <= 0 but is: 0.5"),
    ({"eps": (-1.0, 1e-3)}, r"epsilon1 should be >= 0 but is: -1.0"),
    ({"eps": (None, -1.0)}, r"epsilon2 should be >= 0 but is: -1.0"),
    ({"d": 0.5}, r"Clipping threshold d should be >= 1 but is: 0.5"),
    ({"weight_decay": -1.0}, r"weight_decay should be >= 0 but is: -1.0")])
def test_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        optim.Adafactor([nn.Parameter(pdt.ones(2))], **kw)
