"""Losses against PyTorch's behaviour at the edges: NaN gradients of the piecewise
losses, recorded (differentiable) gradients under create_graph, broadcasting targets
and elementwise weights of the regression losses.  References: closed forms in NumPy."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F


def _grad(fn, values, device, **kw):
    x = pdt.tensor(values, dtype=pdt.float64, device=device, requires_grad=True)
    fn(x, pdt.zeros(len(values), dtype=pdt.float64, device=device), reduction="sum",
       **kw).backward()
    return x.grad.cpu().numpy()


@pytest.mark.parametrize("fn, kw", [(F.smooth_l1_loss, {}), (F.smooth_l1_loss, {"beta": 2.0}),
                                    (F.huber_loss, {}), (F.huber_loss, {"delta": 0.5})])
def test_a_nan_input_gives_a_nan_gradient(device, fn, kw):
    knee = kw.get("beta", kw.get("delta", 1.0))
    slope = 1.0 if fn is F.smooth_l1_loss else knee  # of the linear piece
    scale = 1.0 / knee if fn is F.smooth_l1_loss else 1.0  # of the quadratic piece
    got = _grad(fn, [np.nan, 0.25, -3.0, np.inf], device, **kw)
    np.testing.assert_array_equal(got, [np.nan, 0.25 * scale, -slope, slope])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [False, True])
def test_nll_loss_gradient_is_recorded_under_create_graph(device, reduction, ignore):
    x = pdt.tensor([[0.2, -0.4, 1.0], [0.5, 0.1, -0.3]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    t = pdt.tensor([2, -100 if ignore else 0], device=device)
    loss = F.nll_loss(x, t, reduction=reduction).sum()
    assert loss.grad_fn.name() in ("NllLossBackward0", "SumBackward0")
    g, = pdt.autograd.grad(loss, x, create_graph=True)
    assert g.requires_grad
    scale = 1.0 if reduction != "mean" else 1.0 if ignore else 0.5
    want = np.zeros((2, 3))
    want[0, 2] = -scale
    if not ignore:
        want[1, 0] = -scale
    np.testing.assert_array_equal(g.detach().cpu().numpy(), want)
    h, = pdt.autograd.grad((g * g).sum() + loss, x)  # the penalty's derivative is 0
    np.testing.assert_array_equal(h.cpu().numpy(), want)
