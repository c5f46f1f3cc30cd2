"""relu's backward (and relu_, ReLU(inplace=True), hardtanh, relu6 and clamp's, built the
same way) selects, as PyTorch's threshold_backward: an inf or NaN incoming gradient where
the input was cut off gives 0 (a product g * mask gave inf * 0 = NaN), on every device,
against torch."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from conftest import TORCH_CHECKED, torch_or_skip

X = np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, 7.0], dtype=np.float32)
# NaN and +-inf where the input is cut off (x <= 0, and x >= 1 for the bounded ones),
# finite values where it is kept
G = np.array([np.nan, np.inf, -np.inf, 2.0, np.nan, np.inf, -np.inf], dtype=np.float32)


def _cases(torch):
    tf = torch.nn.functional
    return [
        ("relu", lambda x: x.relu(), torch.relu),
        ("pydevtensor.relu", pdt.relu, torch.relu),
        ("relu_", lambda x: (x * 1.0).relu_(), lambda t: (t * 1.0).relu_()),
        ("ReLU(inplace=True)", lambda x: nn.ReLU(inplace=True)(x * 1.0),
         lambda t: torch.nn.ReLU(inplace=True)(t * 1.0)),
        ("relu6", F.relu6, tf.relu6),
        ("hardtanh", lambda x: F.hardtanh(x, -1.0, 1.0), lambda t: tf.hardtanh(t, -1.0, 1.0)),
        ("clamp", lambda x: x.clamp(0.0, 1.0), lambda t: t.clamp(0.0, 1.0)),
        ("clamp(min)", lambda x: x.clamp(min=0.0), lambda t: t.clamp(min=0.0)),
        ("threshold", lambda x: F.threshold(x, 0.5, -1.0), lambda t: tf.threshold(t, 0.5, -1.0)),
        ("leaky_relu", F.leaky_relu, tf.leaky_relu),
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf_gradients_are_cut_off_as_torch(device, dtype):
    torch = torch_or_skip(since=TORCH_CHECKED)  # clamp's gradient at its bounds
    for name, got, want in _grads(_cases(torch), X.astype(dtype), G.astype(dtype), device):
        assert np.array_equal(got, want, equal_nan=True), (name, got, want)


def _grads(cases, x0, g0, device):
    """(name, our input gradient, torch's) for each case, x0 the input, g0 the gradient."""
    torch = torch_or_skip()
    for name, ours, theirs in cases:
        x = pdt.tensor(x0, device=device, requires_grad=True)
        t = torch.tensor(x0, requires_grad=True)
        ours(x).backward(pdt.tensor(g0, device=device))
        theirs(t).backward(torch.tensor(g0))
        yield name, x.grad.cpu().numpy(), t.grad.numpy()


def test_cut_off_gradient_is_zero_without_torch(device):
    """The same against the rule itself (NumPy): g where x > 0, else exactly 0."""
    x = pdt.tensor(X, device=device, requires_grad=True)
    x.relu().backward(pdt.tensor(G, device=device))
    want = np.where(X > 0, G, np.float32(0.0))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)
    x = pdt.tensor(X, device=device, requires_grad=True)
    x.clamp(0.0, 1.0).backward(pdt.tensor(G, device=device))
    np.testing.assert_array_equal(x.grad.cpu().numpy(),
                                  np.where((X > 0) & (X < 1), G, np.float32(0.0)))


def test_tensor_bounds_select_too(device):
    torch = torch_or_skip(since=TORCH_CHECKED)  # clamp's gradient at its bounds
    lo, hi = np.zeros(7, np.float32), np.full(7, 1.0, np.float32)
    x = pdt.tensor(X, device=device, requires_grad=True)
    a, b = (pdt.tensor(v, device=device, requires_grad=True) for v in (lo, hi))
    t, ta, tb = (torch.tensor(v, requires_grad=True) for v in (X, lo, hi))
    x.clamp(a, b).backward(pdt.tensor(G, device=device))
    t.clamp(ta, tb).backward(torch.tensor(G))
    for ours, theirs in ((x, t), (a, ta), (b, tb)):
        assert np.array_equal(ours.grad.cpu().numpy(), theirs.grad.numpy(), equal_nan=True)



XS = np.array([np.nan, -np.inf, -4.0, -3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 7.0, np.inf],
              dtype=np.float32)


def _more_cases(torch):
    tf = torch.nn.functional
    return _cases(torch) + [
        ("hardswish", F.hardswish, tf.hardswish),
        ("hardswish(inplace)", lambda x: F.hardswish(x * 1.0, inplace=True),
         lambda t: tf.hardswish(t * 1.0, inplace=True)),
        ("hardtanh(inplace)", lambda x: F.hardtanh(x * 1.0, inplace=True),
         lambda t: tf.hardtanh(t * 1.0, inplace=True)),
    ]


@pytest.mark.parametrize("gval", [1.0, np.nan, np.inf, -np.inf])
def test_nan_and_inf_inputs_as_torch(device, gval):
    """A NaN input passes the gradient through (threshold_backward's ``y <= t`` is False
    for it), infinite inputs give 0 or g, and a NaN/inf gradient is cut off exactly."""
    torch = torch_or_skip(since=TORCH_CHECKED)  # clamp's gradient at its bounds
    g0 = np.full(XS.shape, gval, dtype=np.float32)
    for name, got, want in _grads(_more_cases(torch), XS, g0, device):
        assert np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True), (name, got, want)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("gval", [1.0, np.nan, np.inf])
def test_maximum_minimum_select_as_torch(device, op, gval):
    """maximum/minimum give the gradient by select: 0 (not NaN) to the input not chosen
    under a NaN/inf gradient, half on a tie, g to both for a NaN input."""
    torch = torch_or_skip()
    b0 = np.array([0.0, 0.0, 1.0, np.nan], dtype=np.float32)
    a0 = np.array([np.nan, -np.inf, 1.0, 2.0], dtype=np.float32)
    a0, b0 = np.repeat(a0, 4), np.tile(b0, 4)
    g0 = np.full(a0.shape, gval, dtype=np.float32)
    a = pdt.tensor(a0, device=device, requires_grad=True)
    b = pdt.tensor(b0, device=device, requires_grad=True)
    ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    getattr(pdt, op)(a, b).backward(pdt.tensor(g0, device=device))
    getattr(torch, op)(ta, tb).backward(torch.tensor(g0))
    for got, want in ((a.grad, ta.grad), (b.grad, tb.grad)):
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_of_a_number_under_autograd(device, op):
    """pydevtensor's maximum/minimum take a number operand (PyTorch's Tensor overload does
    not), with autograd too: the number is a constant, the gradient as against a 0-d
    tensor of it (half on a tie).  Recording it raised "'int' object has no attribute
    '_version'"."""
    x = pdt.tensor([-1.0, 0.0, 2.0], device=device, requires_grad=True)
    y = getattr(x, op)(0)
    y.backward(pdt.ones(3, device=device))
    tie = [0.0, 0.5, 1.0] if op == "maximum" else [1.0, 0.5, 0.0]
    assert y.tolist() == ([0.0, 0.0, 2.0] if op == "maximum" else [-1.0, 0.0, 0.0])
    assert x.grad.tolist() == tie
    x.grad = None
    getattr(pdt, op)(0.0, x).backward(pdt.ones(3, device=device))  # the number first
    assert x.grad.tolist() == tie
