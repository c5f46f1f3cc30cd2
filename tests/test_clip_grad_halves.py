"""nn.utils.get_total_norm and clip_grads_with_norm_ (PyTorch 2.6's halves of
clip_grad_norm_) on every device: against NumPy in float64 (1e-12 for float64, 1e-6
relative for float32), against torch's own where torch is importable (same gradients;
1e-6 relative for float32, 1e-12 for float64), the two together equal to
clip_grad_norm_ bit for bit, a total norm given as a number or on another device, and
the errors, which change nothing."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn.utils import clip_grad_norm_, clip_grads_with_norm_, get_total_norm
from test_clip_grad import _params, _reference

RTOL = {"float32": 1e-6, "float64": 1e-12}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("order", [2.0, 1, 3.0, math.inf, "inf"])
def test_get_total_norm_matches_numpy_and_torch(device, dtype, order):
    torch = torch_or_skip()
    params, grads = _params(device, dtype)
    tensors = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(tensors, norm_type=order)
    want, _ = _reference(grads, 1.0, math.inf if order == "inf" else order)
    assert total.ndim == 0 and total.dtype == getattr(pdt, dtype) and total.device == device
    np.testing.assert_allclose(total.item(), want, rtol=RTOL[dtype] * 4, atol=0)
    theirs = torch.nn.utils.get_total_norm([torch.tensor(g.cpu().numpy()) for g in tensors],
                                           norm_type=order)
    np.testing.assert_allclose(total.item(), theirs.item(), rtol=RTOL[dtype] * 4, atol=0)
    # a single tensor, and a generator
    one = get_total_norm(tensors[0], norm_type=order)
    np.testing.assert_allclose(one.item(), np.linalg.norm(grads[0].ravel(), math.inf if
                                                          order == "inf" else order),
                               rtol=RTOL[dtype] * 4)
    assert get_total_norm(iter(tensors), norm_type=order).item() == total.item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grads_with_norm_matches_torch(device, dtype):
    torch = torch_or_skip()
    params, grads = _params(device, dtype, scale=3.0)
    tparams = [torch.nn.Parameter(torch.zeros(g.shape, dtype=getattr(torch, dtype)))
               for g in grads]
    for tp, g in zip(tparams, grads):
        tp.grad = torch.tensor(g.astype(dtype))
    for max_norm in (0.5, 1e9):
        total = get_total_norm([p.grad for p in params if p.grad is not None])
        assert clip_grads_with_norm_(params, max_norm, total) is None
        ttotal = torch.nn.utils.get_total_norm([tp.grad for tp in tparams])
        torch.nn.utils.clip_grads_with_norm_(tparams, max_norm, ttotal)
        assert params[1].grad is None
        for p, tp in zip([p for p in params if p.grad is not None], tparams):
            np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.numpy(),
                                       rtol=RTOL[dtype], atol=RTOL[dtype] * 1e-3)
    _, want = _reference(grads, 0.5, 2.0)
    for p, w in zip([p for p in params if p.grad is not None], want):
        np.testing.assert_allclose(p.grad.cpu().numpy(), w, rtol=RTOL[dtype] * 4, atol=1e-15)


def test_halves_equal_clip_grad_norm(device):
    a, _ = _params(device, "float32", scale=2.0)
    b, _ = _params(device, "float32", scale=2.0)
    total = clip_grad_norm_(a, 0.7, norm_type=3.0)
    total2 = get_total_norm([p.grad for p in b if p.grad is not None], norm_type=3.0)
    clip_grads_with_norm_(b, 0.7, total2)
    assert total.item() == total2.item()
    for p, q in zip(a, b):
        if p.grad is not None:
            np.testing.assert_array_equal(p.grad.cpu().numpy(), q.grad.cpu().numpy())


def test_total_norm_as_a_number_or_from_elsewhere(device):
    w = nn.Parameter(pdt.zeros(2, device=device))
    w.grad = pdt.tensor([3.0, 4.0], device=device)
    clip_grads_with_norm_(w, 1.0, 5.0)  # a Python number
    np.testing.assert_allclose(w.grad.cpu().numpy(), [0.6, 0.8], rtol=1e-6)
    w.grad = pdt.tensor([3.0, 4.0], device=device)
    clip_grads_with_norm_([w], 1.0, pdt.tensor([10.0]))  # one element, on the CPU
    np.testing.assert_allclose(w.grad.cpu().numpy(), [0.3, 0.4], rtol=1e-6)
    assert get_total_norm([]).item() == 0.0
    clip_grads_with_norm_([nn.Parameter(pdt.ones(1))], 1.0, 0.0)  # no gradients: nothing


def test_non_finite_total(device):
    g = pdt.tensor([1.0, math.nan], device=device)
    assert math.isnan(get_total_norm(g).item())
    with pytest.raises(RuntimeError, match=r"get_total_norm\(\): the total norm of order 2.0 "
                                           r"of the gradients is nan"):
        get_total_norm([g], error_if_nonfinite=True)


def test_errors_change_nothing(device):
    params, grads = _params(device, "float64")
    with pytest.raises(TypeError, match=r"get_total_norm\(\): tensors must be Tensors, got "
                                        r"list"):
        get_total_norm([[1.0]])
    with pytest.raises(TypeError, match=r"get_total_norm\(\): tensors must be a Tensor or an "
                                        r"iterable of Tensors, got float"):
        get_total_norm(1.0)
    with pytest.raises(TypeError, match=r"gradients must be floating point, got "
                                        r"pydevtensor.int64 of shape \(2,\)"):
        get_total_norm([pdt.ones(2, dtype=pdt.int64, device=device)])
    with pytest.raises(ValueError, match=r"norm_type must be a number or 'inf', got 'fro'"):
        get_total_norm([params[0].grad], norm_type="fro")
    with pytest.raises(ValueError, match=r"clip_grads_with_norm_\(\): max_norm must be >= 0, "
                                         r"got -1"):
        clip_grads_with_norm_(params, -1, 1.0)
    with pytest.raises(TypeError, match=r"total_norm must be a number or a one-element "
                                        r"floating-point tensor, got a pydevtensor.float64 "
                                        r"tensor of shape \(2,\)"):
        clip_grads_with_norm_(params, 1.0, pdt.ones(2, dtype=pdt.float64))
    with pytest.raises(TypeError, match=r"total_norm must be a number or a one-element "
                                        r"tensor, got str"):
        clip_grads_with_norm_(params, 1.0, "5")
    bad = pdt.zeros(2, dtype=pdt.int64, device=device)  # an integer tensor with a .grad
    bad.grad = pdt.ones(2, dtype=pdt.int64, device=device)
    with pytest.raises(TypeError, match=r"clip_grads_with_norm_\(\): gradients must be "
                                        r"floating point"):
        clip_grads_with_norm_(params + [bad], 1e-3, 100.0)
    for p, g in zip([p for p in params if p.grad is not None], grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), g)
