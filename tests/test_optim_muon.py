"""optim.Muon (optim/_muon.py) against a NumPy implementation of PyTorch's update written
here: momentum (lerp), Nesterov, the Newton-Schulz iteration with every op's result
rounded to bfloat16 (as PyTorch computes it) and the learning-rate adjustments; the
state_dict round trip; PyTorch's refusals."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn, optim


def _bf16(x):
    """x rounded to bfloat16 (to nearest, ties to even), as float32."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def _np_newton_schulz(g, coefs, steps, eps):
    a, b, c = coefs
    x = _bf16(g)
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt((x.astype(np.float32) ** 2).sum(dtype=np.float32)))
    x = _bf16(x / max(norm, _bf16(eps)))
    for _ in range(steps):
        gram = _bf16(x @ x.T)
        gram_update = _bf16(b * gram + c * (gram @ gram))
        x = _bf16(a * x + gram_update @ x)
    return x.T if tall else x


def _np_muon(w, grads, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
             ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
             adjust_lr_fn=None):
    """PyTorch's single-tensor Muon in NumPy (float32 parameters)."""
    rows, cols = w.shape
    ratio = {None: math.sqrt(max(1, rows / cols)), "original": math.sqrt(max(1, rows / cols)),
             "match_rms_adamw": 0.2 * math.sqrt(max(rows, cols)),
             "spectral_unclamped": math.sqrt(rows / cols)}[adjust_lr_fn]
    buf = np.zeros_like(w)
    for g in grads:
        buf = buf + (g - buf) * np.float32(1 - momentum)
        update = g + (buf - g) * np.float32(momentum) if nesterov else buf
        ortho = _np_newton_schulz(update, ns_coefficients, ns_steps, eps)
        w = w * np.float32(1 - lr * weight_decay) - np.float32(lr * ratio) * ortho
    return w, buf


CASES = [((6, 4), {}),
         ((4, 6), {"nesterov": False, "adjust_lr_fn": "match_rms_adamw", "lr": 0.01}),
         ((5, 5), {"adjust_lr_fn": "spectral_unclamped", "weight_decay": 0.0,
                   "momentum": 0.5, "ns_steps": 3, "lr": 0.02}),
         ((8, 3), {"adjust_lr_fn": "original", "ns_coefficients": (2.0, -1.5, 0.5),
                   "lr": 0.05})]


@pytest.mark.parametrize("shape,kw", CASES)
def test_steps_against_numpy(device, shape, kw):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    w = nn.Parameter(pdt.tensor(w0, device=device))
    opt = optim.Muon([w], **kw)
    for g in grads:
        w.grad = pdt.tensor(g, device=device)
        opt.step()
    want, buf = _np_muon(w0, grads, **kw)
    got = w.detach().cpu().numpy()
    assert w.dtype == pdt.float32
    lr = kw.get("lr", 1e-3)
    # Each step moves w by about lr * ratio. On the CPU the bfloat16 Newton-Schulz is
    # the reference's to the bit; a device's matmul may sum in another order (a bfloat16
    # ulp, 2^-8 relative, here and there). A float32 Newton-Schulz would differ from the
    # reference by 1 to 4 % of lr in these cases: both tolerances tell them apart.
    tol = 1e-3 * lr if device.type == "cpu" else 8e-3 * lr
    np.testing.assert_allclose(got, want, atol=tol, rtol=1e-6)
    assert np.abs(want - w0 * (1 - lr * kw.get("weight_decay", 0.1)) ** 3).max() > 0.3 * lr
    np.testing.assert_allclose(opt.state[w]["momentum_buffer"].cpu().numpy(), buf,
                               rtol=1e-6, atol=1e-7)


def test_newton_schulz_orthogonalises(device):
    """Five default steps take every singular value of a well-conditioned matrix into
    PyTorch's band around 1 (about [0.7, 1.2]), the singular vectors kept."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal((16, 8)).astype(np.float32)
    w = nn.Parameter(pdt.zeros(16, 8, device=device))
    opt = optim.Muon([w], lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False,
                     adjust_lr_fn="spectral_unclamped")  # w = -sqrt(2) * NS(g)
    w.grad = pdt.tensor(g, device=device)
    opt.step()
    ortho = -w.detach().cpu().numpy().astype(np.float64) / math.sqrt(2)
    s = np.linalg.svd(ortho, compute_uv=False)
    assert s.min() > 0.6 and s.max() < 1.25, s
    # a polynomial in g g^T times g: diagonal in g's singular bases (to bfloat16's noise)
    u, _, vt = np.linalg.svd(g.astype(np.float64), full_matrices=False)
    m = u.T @ ortho @ vt.T
    assert np.abs(m - np.diag(np.diag(m))).max() < 0.05
    assert np.diag(m).min() > 0.6


def test_state_dict_round_trip(device):
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((5, 3)).astype(np.float32)
    grads = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(4)]
    a = nn.Parameter(pdt.tensor(w0, device=device))
    opt_a = optim.Muon([a], lr=0.02, nesterov=False)
    for g in grads[:2]:
        a.grad = pdt.tensor(g, device=device)
        opt_a.step()
    saved = opt_a.state_dict()
    assert sorted(saved["state"][0]) == ["momentum_buffer"]
    assert {k: v for k, v in saved["param_groups"][0].items() if k != "params"} == {
        "lr": 0.02, "weight_decay": 0.1, "momentum": 0.95, "nesterov": False,
        "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-7, "ns_steps": 5,
        "adjust_lr_fn": None}
    b = nn.Parameter(a.detach().clone())
    opt_b = optim.Muon([b])
    opt_b.load_state_dict(saved)
    assert opt_b.param_groups[0]["lr"] == 0.02 and opt_b.param_groups[0]["nesterov"] is False
    for g in grads[2:]:
        for p, o in ((a, opt_a), (b, opt_b)):
            p.grad = pdt.tensor(g, device=device)
            o.step()
    assert pdt.equal(a, b)
    assert pdt.equal(opt_a.state[a]["momentum_buffer"], opt_b.state[b]["momentum_buffer"])


@pytest.mark.parametrize("kw,match", [
    ({"lr": -1.0}, r"Learning rate should be >= 0 but is: -1\.0"),
    ({"momentum": -0.5}, r"momentum should be >= 0 but is: -0\.5"),
    ({"weight_decay": -1}, r"weight decay should be >= 0 but is: -1"),
    ({"adjust_lr_fn": "rms"}, r"Adjust learning rate function rms is not supported"),
    ({"ns_coefficients": (1.0, 2.0)}, r"Coefficients must be a tuple of exactly 3 values"),
    ({"ns_steps": 100}, r"Number of steps must be less than 100 for computational efficiency"),
    ({"ns_steps": -1}, r"ns_steps should be >= 0 but is: -1"),
])
def test_bad_hyperparameters(kw, match):
    with pytest.raises(ValueError, match=match):
        optim.Muon([nn.Parameter(pdt.ones(2, 2))], **kw)


def test_only_2d_parameters(device):
    with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found "
                       r"a parameter with size: .*\[3\]"):
        optim.Muon([nn.Parameter(pdt.ones(2, 2, device=device)),
                    nn.Parameter(pdt.ones(3, device=device))])
    opt = optim.Muon([nn.Parameter(pdt.ones(2, 2, device=device))])
    with pytest.raises(ValueError, match=r"size: .*\[2, 2, 2\]"):
        opt.add_param_group({"params": [nn.Parameter(pdt.ones(2, 2, 2, device=device))]})
    assert len(opt.param_groups) == 1
    with pytest.raises(TypeError, match=r"nesterov must be True or False"):
        optim.Muon([nn.Parameter(pdt.ones(2, 2))], nesterov=1)
