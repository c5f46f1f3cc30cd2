"""grad_fn names of the activations' forms as PyTorch's (Note [activation forms] in
nn/_functional_activation.py): the in-place forms' ...Backward1 (elu_, selu_, celu_,
leaky_relu_, threshold_, rrelu_; were ...Backward0 or the composition's last piece),
selu's EluBackward0, celu's CeluBackward0, rrelu's RreluWithNoiseBackward0,
hardsigmoid's HardsigmoidBackward0, and the op's own node on float16 and bfloat16 (was
ToCopyBackward0, the rounding after the op); each node's gradient against central
differences in float64 and against NumPy's float64 formulas in the half types."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.nn import functional as F

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _rrelu_train(t, inplace):
    pdt.manual_seed(5)  # the same slopes on every call (gradcheck calls it again)
    return F.rrelu(t, 0.1, 0.3, training=True, inplace=inplace)


# (activation of (t, inplace), PyTorch's name out of place, in place)
_FORMS = {
    "elu": (lambda t, i: F.elu(t, 0.7, inplace=i), "EluBackward0", "EluBackward1"),
    "selu": (lambda t, i: F.selu(t, inplace=i), "EluBackward0", "EluBackward1"),
    "celu": (lambda t, i: F.celu(t, 1.3, inplace=i), "CeluBackward0", "CeluBackward1"),
    "leaky_relu": (lambda t, i: F.leaky_relu(t, 0.03, inplace=i), "LeakyReluBackward0",
                   "LeakyReluBackward1"),
    "threshold": (lambda t, i: F.threshold(t, 0.1, 2.0, inplace=i), "ThresholdBackward0",
                  "ThresholdBackward1"),
    "rrelu": (lambda t, i: F.rrelu(t, 0.1, 0.3, inplace=i), "RreluWithNoiseBackward0",
              "RreluWithNoiseBackward1"),
    "rrelu_train": (_rrelu_train, "RreluWithNoiseBackward0", "RreluWithNoiseBackward1"),
    "relu": (lambda t, i: F.relu(t, inplace=i), "ReluBackward0", "ReluBackward0"),
    "hardtanh": (lambda t, i: F.hardtanh(t, -0.5, 1.5, inplace=i), "HardtanhBackward0",
                 "HardtanhBackward0"),
    "hardswish": (lambda t, i: F.hardswish(t, inplace=i), "HardswishBackward0",
                  "HardswishBackward0"),
    "hardsigmoid": (lambda t, i: F.hardsigmoid(t, inplace=i), "HardsigmoidBackward0",
                    "HardsigmoidBackward0"),
}

_DTYPES = (pdt.float64, pdt.float32, pdt.float16, pdt.bfloat16)


def _x(device, dtype=pdt.float64, seed=0, n=24):
    a = np.random.default_rng(seed).standard_normal(n) * 3
    return pdt.tensor(a, dtype=dtype, device=device, requires_grad=True)


@pytest.mark.parametrize("form", sorted(_FORMS))
def test_activation_form_names(device, form):
    """The node of each form in every floating dtype, as PyTorch 2.x names it."""
    act, name, name_in_place = _FORMS[form]
    got = {}
    for dtype in _DTYPES:
        x = _x(device, dtype)
        got[str(dtype), False] = act(x * 1, False).grad_fn.name()
        got[str(dtype), True] = act(x * 1, True).grad_fn.name()
    assert got == {(str(d), i): name_in_place if i else name for d in _DTYPES
                   for i in (False, True)}


def test_the_in_place_functions_name_backward1(device):
    """F.elu_ / selu_ / celu_ / leaky_relu_ / threshold_ / rrelu_ and the in-place
    layers: PyTorch's ...Backward1; a view's base CopySlices."""
    x = _x(device)
    got = [F.elu_(x * 1), F.selu_(x * 1), F.celu_(x * 1), F.leaky_relu_(x * 1),
           F.threshold_(x * 1, 0.1, 2.0), F.rrelu_(x * 1), pdt.nn.ELU(inplace=True)(x * 1),
           pdt.nn.LeakyReLU(inplace=True)(x * 1), pdt.nn.RReLU(inplace=True)(x * 1)]
    assert [t.grad_fn.name() for t in got] == \
        ["EluBackward1", "EluBackward1", "CeluBackward1", "LeakyReluBackward1",
         "ThresholdBackward1", "RreluWithNoiseBackward1", "EluBackward1",
         "LeakyReluBackward1", "RreluWithNoiseBackward1"]
    y = x * 1
    F.elu_(y[2:])
    assert y.grad_fn.name() == "CopySlices"


@pytest.mark.parametrize("form", sorted(_FORMS))
def test_activation_form_gradients(device, form):
    """Each form's gradient and second derivative against central differences in
    float64, out of place, in place and in place on a view (inputs kept off the kinks
    by more than the step)."""
    act = _FORMS[form][0]
    a = np.random.default_rng(1).standard_normal(12) * 3
    a = a[np.abs(a) > 0.05][:8]  # |x| > eps from the kinks at 0 (and 0.1, 3 apart)
    a = a[np.min(np.abs(a[:, None] - np.array([0.1, -0.5, 1.5, 3.0, -3.0])), axis=1) > 0.05]
    x = pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=True)

    def on_view(t):
        y = t * 1
        act(y[1:], True)
        return y * t

    for fn in (lambda t: act(t, False) * t, lambda t: act(t * 1, True) * t, on_view):
        assert autograd.gradcheck(fn, (x,))
        assert autograd.gradgradcheck(fn, (x,))


def _reference_slope(form, x):
    """The derivative of the form at x in float64 (NumPy), and where it is defined."""
    if form in ("elu", "selu"):
        alpha, scale = (0.7, 1.0) if form == "elu" else (_SELU_ALPHA, _SELU_SCALE)
        return scale * np.where(x > 0, 1.0, alpha * np.exp(np.minimum(x, 0)))
    if form == "celu":
        return np.where(x >= 0, 1.0, np.exp(np.minimum(x, 0) / 1.3))
    if form == "leaky_relu":
        return np.where(x > 0, 1.0, 0.03)
    if form == "rrelu":
        return np.where(x > 0, 1.0, 0.2)
    if form == "threshold":
        return np.where(x > 0.1, 1.0, 0.0)
    if form == "relu":
        return np.where(x > 0, 1.0, 0.0)
    if form == "hardtanh":
        return np.where((x > -0.5) & (x < 1.5), 1.0, 0.0)
    if form == "hardswish":
        return np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0))
    assert form == "hardsigmoid"
    return np.where((x > -3) & (x < 3), 1 / 6, 0.0)


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("form", sorted(set(_FORMS) - {"rrelu_train"}))
def test_half_activation_gradients_are_rounded_once(device, form, inplace, dtype):
    """A float16/bfloat16 gradient is the float32 one rounded once to the input's dtype
    (as the forward): within half an ulp of the dtype (plus float32's error) of NumPy's
    float64 g * slope(x) at the half-precision x and g."""
    act = _FORMS[form][0]
    rng = np.random.default_rng(2)
    x = _x(device, dtype, seed=3, n=400)
    g = pdt.tensor(rng.standard_normal(400), dtype=dtype, device=device)
    (gx,) = autograd.grad(act(x * 1, inplace), x, g)
    assert gx.dtype == dtype and gx.grad_fn is None
    xs, gs = x.detach().double().cpu().numpy(), g.double().cpu().numpy()
    ref = gs * _reference_slope(form, xs)
    eps = 2.0 ** -11 if dtype == pdt.float16 else 2.0 ** -8  # half an ulp, relative
    np.testing.assert_allclose(gx.double().cpu().numpy(), ref, rtol=eps * 1.01, atol=1e-7)


def test_celu_gradient_far_below_zero_and_at_nan(device):
    """celu's float32 gradient g * exp(x / alpha) where expm1(x / alpha) rounds to -1
    (x / alpha in [-77, -17]: it was 0, the composition's g * (expm1 + 1)), within
    float32's rounding of NumPy's float64 (u = x / alpha rounded: 2**-24 * |u| relative
    in exp(u), below 5e-6); at a NaN x the gradient is g, as PyTorch's elu_backward
    gives (was NaN)."""
    a = np.concatenate([np.linspace(-100.0, -22.0, 50), [np.nan, 0.5, -0.5]])
    g = np.linspace(0.5, 2.0, a.size)
    for inplace in (False, True):
        x = pdt.tensor(a, dtype=pdt.float32, device=device, requires_grad=True)
        (gx,) = autograd.grad(F.celu(x * 1, 1.3, inplace=inplace), x,
                              pdt.tensor(g, dtype=pdt.float32, device=device))
        x32, g32 = a.astype(np.float32).astype(np.float64), g.astype(np.float32)
        ref = g32 * np.where(np.isnan(x32) | (x32 >= 0), 1.0, np.exp(x32 / 1.3))
        np.testing.assert_allclose(gx.cpu().numpy().astype(np.float64), ref, rtol=1e-5)
