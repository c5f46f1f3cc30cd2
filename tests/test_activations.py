"""The activations after ReLU (pydevtensor/nn/_functional_activation.py and
nn/activation.py) on every device, against float64 NumPy/math references.

Tolerance: a composition of a few correctly rounded-ish ops is as good as its input's
conditioning allows, so float32 results must be within COND32 float32 epsilons of
``abs(f(x)) + abs(x f'(x))`` (f' by a central difference in float64: the change a
relative perturbation of x of one epsilon makes), float64 within COND64 float64
epsilons of the same.  Gradients: gradcheck in float64 against central differences,
and PyTorch's rules at the kinks (elu at 0, softplus past the threshold, hardtanh at
its bounds)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

COND32, COND64 = 8.0, 16.0
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _sigmoid(v):
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(v))
        return np.where(v < 0, e / (1 + e), 1 / (1 + e))


def _softplus(x, beta=1.0, threshold=20.0):
    bx = x * beta
    with np.errstate(over="ignore"):
        return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


# name -> (pydevtensor function of a tensor, float64 reference of an array)
CASES = {
    "gelu": (F.gelu, lambda x: 0.5 * x * _erfc(-x / math.sqrt(2.0))),
    # 0.5 (1 + tanh(u)) is sigmoid(2u), which does not cancel to 0 for u < -19
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"),
                  lambda x: x * _sigmoid(2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x))),
    "elu": (F.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "elu_alpha": (lambda t: F.elu(t, alpha=0.3),
                  lambda x: np.where(x > 0, x, 0.3 * np.expm1(np.minimum(x, 0)))),
    "softplus": (F.softplus, _softplus),
    "softplus_beta": (lambda t: F.softplus(t, beta=2.5, threshold=7.0),
                      lambda x: _softplus(x, 2.5, 7.0)),
    "mish": (F.mish, lambda x: x * np.tanh(np.logaddexp(0.0, x))),
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0.0, -x)),
    "hardtanh": (F.hardtanh, lambda x: np.clip(x, -1.0, 1.0)),
    "hardtanh_bounds": (lambda t: F.hardtanh(t, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0.0, 6.0)),
}
FLOAT_ONLY = [n for n in CASES if not n.startswith(("hardtanh", "relu6"))]


def sample(dtype):
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-60, 60, 2000), rng.uniform(-6, 6, 2000),
                        2.0 ** rng.uniform(-30, 0, 500) * rng.choice([-1, 1], 500),
                        [0.0, -0.0, 1.0, -1.0, 6.0, 20.0, 20.5, 7.0 / 2.5, -20.0]])
    return x.astype(dtype)


def condition(ref_fn, x):
    """abs(f(x)) + abs(x f'(x)), f' by a central difference in float64."""
    h = np.maximum(np.abs(x), 1e-300) * 1e-7
    with np.errstate(all="ignore"):
        slope = (ref_fn(x + h) - ref_fn(x - h)) / (2 * h)
    return np.abs(ref_fn(x)) + np.abs(x * slope)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_against_float64(device, name, dtype):
    fn, ref_fn = CASES[name]
    x = sample(dtype)
    got = fn(pdt.tensor(x, device=device)).cpu().numpy()
    assert got.dtype == x.dtype
    x64 = x.astype(np.float64)
    ref = ref_fn(x64)
    eps, c = (np.finfo(np.float32).eps, COND32) if dtype == "float32" else (
        np.finfo(np.float64).eps, COND64)
    # relative to the conditioning, and c units of the last place in the subnormals
    bound = c * eps * condition(ref_fn, x64) + c * np.finfo(dtype).smallest_subnormal
    err = np.abs(got.astype(np.float64) - ref)
    worst = int(np.argmax(err / bound))
    assert err[worst] <= bound[worst], (x[worst], got[worst], ref[worst], err[worst] / bound[worst])


@pytest.mark.parametrize("name", sorted(CASES))
def test_special_values(device, name):
    fn, ref_fn = CASES[name]
    x = np.array([np.inf, -np.inf, np.nan, 1e30, -1e30])
    with np.errstate(all="ignore"):
        ref = ref_fn(x)
    got = fn(pdt.tensor(x, device=device)).cpu().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(device, name):
    rng = np.random.default_rng(5)
    x = rng.uniform(-7, 7, (3, 5))
    x[np.abs(x) < 0.05] += 0.2  # off the kinks: 0, elu's alpha != 1
    x[np.abs(np.abs(x) - 1) < 0.05] += 0.2  # hardtanh's bounds
    x[np.abs(x - 6) < 0.05] += 0.2  # relu6's
    x[np.abs(x - 2) < 0.05] += 0.2
    x[np.abs(x + 0.5) < 0.05] += 0.2
    x[np.abs(x - 7 / 2.5) < 0.05] += 0.2  # softplus_beta's threshold
    gradcheck(CASES[name][0], [x], device)


def grad_of(fn, values, device):
    x = pdt.tensor(values, dtype=pdt.float64, device=device, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.cpu().numpy()


def test_gradients_at_pytorchs_kinks(device):
    # elu: alpha at 0 (PyTorch takes the negative side there), alpha exp(x) far below 0
    g = grad_of(lambda t: F.elu(t, alpha=0.3), [0.0, -50.0, 2.0], device)
    np.testing.assert_allclose(g, [0.3, 0.3 * math.exp(-50.0), 1.0], rtol=1e-15)
    # softplus: 1 past the threshold, sigmoid(beta x) at and below it, never NaN
    g = grad_of(lambda t: F.softplus(t, beta=2.0, threshold=10.0),
                [5.0, 5.5, 1e30, -1e30, 0.0], device)
    np.testing.assert_allclose(g, [1 / (1 + math.exp(-10.0)), 1.0, 1.0, 0.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(grad_of(F.logsigmoid, [0.0, -1e30, 1e30], device),
                               [0.5, 1.0, 0.0], rtol=1e-15)
    assert np.isfinite(grad_of(F.mish, [1e4, -1e4, 1e30], device)).all()
    assert np.isfinite(grad_of(F.gelu, [1e4, -1e4], device)).all()
    # hardtanh and relu6: 1 strictly inside, 0 at and past the bounds
    np.testing.assert_array_equal(grad_of(F.hardtanh, [-2.0, -1.0, 0.0, 1.0, 3.0], device),
                                  [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(grad_of(F.relu6, [-1.0, 0.0, 3.0, 6.0, 7.0], device),
                                  [0, 0, 1, 0, 0])


def test_softplus_with_beta_zero_is_inf_of_slope_one_half(device):
    # log(1 + exp(0 x)) / 0 = log(2) / 0 = inf, and the slope sigmoid(beta x) of every
    # beta's softplus, its limit 1/2 at beta = 0 (PyTorch's; autograd's 0 / 0 gave NaN);
    # past the threshold (0 x > threshold < 0) x itself, of slope 1
    x = pdt.tensor([-3.0, 0.0, 2.5], dtype=pdt.float64, device=device, requires_grad=True)
    for threshold, value, slope in ((20.0, math.inf, 0.5), (-1.0, None, 1.0)):
        x.grad = None
        y = F.softplus(x, beta=0, threshold=threshold)
        y.sum().backward()
        want = np.full(3, value) if value is not None else x.detach().cpu().numpy()
        np.testing.assert_array_equal(y.detach().cpu().numpy(), want)
        np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full(3, slope))
    x.grad = None
    F.softplus(x, beta=1e-9).sum().backward()  # the slope's limit
    np.testing.assert_allclose(x.grad.cpu().numpy(), 0.5, rtol=1e-8)


@pytest.mark.parametrize("name", FLOAT_ONLY)
def test_integers_and_bools_are_refused(device, name):
    fn = CASES[name][0]
    for t in (pdt.tensor([1, -2], device=device), pdt.tensor([True, False], device=device)):
        with pytest.raises(NotImplementedError, match=rf"expected a floating point tensor, got "
                                                      rf"{t.dtype} on {t.device}"):
            fn(t)
    with pytest.raises(TypeError, match="input must be a Tensor, got list"):
        fn([1.0])


def test_hardtanh_of_integers_keeps_the_dtype(device):
    t = pdt.tensor([-5, -1, 0, 3, 9], device=device)
    np.testing.assert_array_equal(F.hardtanh(t).cpu().numpy(), [-1, -1, 0, 1, 1])
    got = F.relu6(t)
    assert got.dtype == pdt.int64
    np.testing.assert_array_equal(got.cpu().numpy(), [0, 0, 0, 3, 6])
    np.testing.assert_array_equal(F.hardtanh(t, -2.5, 2.5).cpu().numpy(), [-2, -1, 0, 2, 2])
    b = pdt.tensor([True], device=device)
    for fn in (F.hardtanh, F.relu6):
        with pytest.raises(NotImplementedError, match="bool inputs are not supported"):
            fn(b)


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16])
def test_half_dtypes(device, dtype):
    a = np.array([-3.0, -0.5, 0.0, 0.75, 2.0])
    for name in ("gelu", "silu", "elu", "softplus", "mish", "logsigmoid", "relu6"):
        fn, ref_fn = CASES[name]
        got = fn(pdt.tensor(a, dtype=dtype, device=device))
        assert got.dtype == dtype
        np.testing.assert_allclose(got.to(pdt.float64).cpu().numpy(), ref_fn(a),
                                   rtol=2e-2, atol=1e-2, err_msg=name)


def test_gelu_approximate_is_checked():
    x = pdt.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"approximate must be 'none' or 'tanh', got 'erf'"):
        F.gelu(x, approximate="erf")
    with pytest.raises(TypeError, match="approximate must be a string"):
        F.gelu(x, approximate=None)
    with pytest.raises(ValueError, match=r"approximate must be 'none' or 'tanh', got 'exact'"):
        nn.GELU("exact")


def test_bad_numbers():
    x = pdt.tensor([1.0])
    with pytest.raises(TypeError, match="elu\\(\\): alpha must be a number, got str"):
        F.elu(x, alpha="1")
    with pytest.raises(TypeError, match="softplus\\(\\): beta must be a number, got NoneType"):
        F.softplus(x, beta=None)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(ValueError, match="Hardtanh: min_val cannot be greater than max_val"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(TypeError, match="ELU\\(\\): alpha must be a number, got bool"):
        nn.ELU(alpha=True)


@pytest.mark.parametrize("name", ["silu", "elu", "mish", "hardtanh", "relu6"])
def test_inplace(device, name):
    fn = getattr(F, name)
    a = np.array([-2.0, -0.5, 0.5, 3.0, 7.0])
    x = pdt.tensor(a, device=device)
    want = fn(x).cpu().numpy()
    assert fn(x, inplace=True) is x
    np.testing.assert_array_equal(x.cpu().numpy(), want)


MODULES = [
    (nn.GELU(), "GELU(approximate='none')", "gelu"),
    (nn.GELU("tanh"), "GELU(approximate='tanh')", "gelu_tanh"),
    (nn.SiLU(), "SiLU()", "silu"),
    (nn.ELU(), "ELU(alpha=1.0)", "elu"),
    (nn.ELU(0.3, inplace=True), "ELU(alpha=0.3, inplace=True)", "elu_alpha"),
    (nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)", "softplus"),
    (nn.Softplus(2.5, 7.0), "Softplus(beta=2.5, threshold=7.0)", "softplus_beta"),
    (nn.Mish(), "Mish()", "mish"),
    (nn.LogSigmoid(), "LogSigmoid()", "logsigmoid"),
    (nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)", "hardtanh"),
    (nn.Hardtanh(-0.5, 2.0, True), "Hardtanh(min_val=-0.5, max_val=2.0, inplace=True)",
     "hardtanh_bounds"),
    (nn.ReLU6(), "ReLU6()", "relu6"),
    (nn.ReLU6(inplace=True), "ReLU6(inplace=True)", "relu6"),
]


@pytest.mark.parametrize("module,text,name", MODULES, ids=[m[1] for m in MODULES])
def test_modules(device, module, text, name):
    assert repr(module) == text
    x = pdt.tensor(sample("float64")[:200], device=device)
    want = CASES[name][0](x).cpu().numpy()  # the values: test_values_against_float64
    out = module(x)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    if getattr(module, "inplace", False):
        assert out is x
    assert isinstance(module, nn.Module) and not list(module.parameters())


def test_in_a_network_with_autograd(device):
    net = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 8), nn.SiLU(),
                        nn.Linear(8, 1), nn.Softplus()).to(device)
    x = pdt.randn(16, 4, device=device)
    net(x).sum().backward()
    for p in net.parameters():
        assert p.grad is not None and np.isfinite(p.grad.cpu().numpy()).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    torch = torch_or_skip()
    tf = torch.nn.functional
    theirs = {
        "gelu": tf.gelu, "gelu_tanh": lambda t: tf.gelu(t, approximate="tanh"),
        "silu": tf.silu, "elu": tf.elu, "elu_alpha": lambda t: tf.elu(t, alpha=0.3),
        "softplus": tf.softplus,
        "softplus_beta": lambda t: tf.softplus(t, beta=2.5, threshold=7.0),
        "mish": tf.mish, "logsigmoid": tf.logsigmoid, "hardtanh": tf.hardtanh,
        "hardtanh_bounds": lambda t: tf.hardtanh(t, -0.5, 2.0), "relu6": tf.relu6,
    }[name]
    a = sample("float64")
    tx = torch.tensor(a, requires_grad=True)
    ty = theirs(tx)
    ty.sum().backward()
    x = pdt.tensor(a, requires_grad=True)
    y = CASES[name][0](x)
    y.sum().backward()
    # atol: PyTorch's own gelu, 0.5 x (1 + erf(x / sqrt 2)), cancels to 0 below x = -8.3,
    # and its tanh form's gradient has 1 + tanh(u) and 1 - tanh(u)^2, which cancel too
    # (at x = -6.824 it gives -2.0763e-13; the exact value, and ours, -2.0582e-13)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ or name.startswith(
        ("gelu", "silu", "softplus", "mish", "logsigmoid", "hardtanh", "relu6"))


INPLACE = {  # the in-place forms, and the same function out of place
    "elu": (lambda x: pdt.nn.functional.elu(x, inplace=True), pdt.nn.functional.elu),
    "silu": (lambda x: pdt.nn.functional.silu(x, inplace=True), pdt.nn.functional.silu),
    "mish": (lambda x: pdt.nn.functional.mish(x, inplace=True), pdt.nn.functional.mish),
    "hardtanh": (lambda x: pdt.nn.functional.hardtanh(x, inplace=True),
                 pdt.nn.functional.hardtanh),
    "relu6": (lambda x: pdt.nn.functional.relu6(x, inplace=True), pdt.nn.functional.relu6),
    "leaky_relu": (lambda x: pdt.nn.functional.leaky_relu(x, 0.1, inplace=True),
                   lambda x: pdt.nn.functional.leaky_relu(x, 0.1)),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forms_keep_the_gradient(device, name):
    """inplace=True inside a graph (Linear -> activation(inplace) -> ...): the gradient is
    the out-of-place one, as PyTorch's in-place activations give (found by a reviewer:
    backward raised 'modified by an inplace operation')."""
    in_place, out_of_place = INPLACE[name]
    x0 = [-7.0, -1.0, -0.25, 0.5, 2.0, 7.0]
    grads = []
    for f in (in_place, out_of_place):
        x = pdt.tensor(x0, dtype=pdt.float64, device=device, requires_grad=True)
        h = x * 1.5  # a non-leaf, as a Linear's output is
        y = f(h)
        assert (y is h) == (f is in_place)
        (y * pdt.arange(1.0, 7.0, dtype=pdt.float64, device=device)).sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    assert np.abs(grads[1]).max() > 0
    leaf = pdt.tensor(x0, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        in_place(leaf)
    assert leaf.tolist() == x0  # refused before any write
