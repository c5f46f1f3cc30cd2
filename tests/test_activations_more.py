"""The rest of PyTorch's activations (nn/_functional_activation_more.py, nn/activation_more.py)
and ReLU's inplace=, on every device.

Values: against float64 NumPy formulas, |got - ref| <= 4 eps (1 + |ref|) in the input's
dtype (each is a few correctly rounded ops).  Gradients: gradcheck in float64 against
central differences off the kinks, and against PyTorch 2.15 in float64 at and around
the kinks (-3, 3, +-lambd, 0, the threshold): values rtol 1e-12, gradients exactly
PyTorch's rule (rtol 1e-12)."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

A_SELU, S_SELU = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _expm1_neg(x):
    return np.expm1(np.minimum(x, 0))


# name -> (ours, float64 reference, PyTorch's (name in torch.nn.functional, kwargs))
CASES = {
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6, ("hardswish", {})),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6, ("hardsigmoid", {})),
    "hardshrink": (F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
                   ("hardshrink", {})),
    "hardshrink_1": (lambda t: F.hardshrink(t, 1.0), lambda x: np.where(np.abs(x) > 1, x, 0.0),
                     ("hardshrink", {"lambd": 1.0})),
    "softshrink": (F.softshrink, lambda x: np.where(x > 0.5, x - 0.5,
                                                    np.where(x < -0.5, x + 0.5, 0.0)),
                   ("softshrink", {})),
    "threshold": (lambda t: F.threshold(t, 1.0, -2.0), lambda x: np.where(x > 1, x, -2.0),
                  ("threshold", {"threshold": 1.0, "value": -2.0})),
    "selu": (F.selu, lambda x: S_SELU * np.where(x > 0, x, A_SELU * _expm1_neg(x)),
             ("selu", {})),
    "celu": (lambda t: F.celu(t, alpha=2.0),
             lambda x: np.where(x > 0, x, 2.0 * np.expm1(np.minimum(x, 0) / 2.0)),
             ("celu", {"alpha": 2.0})),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x)), ("softsign", {})),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x), ("tanhshrink", {})),
    "rrelu_eval": (lambda t: F.rrelu(t, 0.1, 0.3), lambda x: np.where(x > 0, x, 0.2 * x),
                   ("rrelu", {"lower": 0.1, "upper": 0.3})),
    "relu": (F.relu, lambda x: np.maximum(x, 0), ("relu", {})),
}
KINKS = [-3.0, 3.0, -0.5, 0.5, 0.0, 1.0, -1.0, 2.0, -2.0]


def sample(dtype):
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-8, 8, 500), rng.uniform(-1, 1, 200), KINKS])
    return x.astype(dtype)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_against_float64(device, name, dtype):
    fn, ref_fn, _ = CASES[name]
    x = sample(dtype)
    got = fn(pdt.tensor(x, device=device))
    assert got.dtype == getattr(pdt, dtype) and got.device == device
    ref = ref_fn(x.astype(np.float64))
    eps = np.finfo(dtype).eps
    np.testing.assert_array_less(np.abs(got.cpu().numpy() - ref), 4 * eps * (1 + np.abs(ref)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(device, name):
    x = np.random.default_rng(1).uniform(-5, 5, (3, 4))
    for k in KINKS:  # off the kinks
        x[np.abs(x - k) < 0.05] += 0.15
    gradcheck(CASES[name][0], [x], device)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch_with_kinks(device, name):
    torch = torch_or_skip()
    fn, _, (tname, kwargs) = CASES[name]
    a = sample("float64")
    tx = torch.tensor(a, requires_grad=True)
    ty = getattr(torch.nn.functional, tname)(tx, **kwargs)
    ty.backward(torch.linspace(-1, 1, len(a), dtype=torch.float64))
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = fn(x)
    y.backward(pdt.linspace(-1, 1, len(a), dtype=pdt.float64, device=device))
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-12,
                               atol=1e-15)
    # PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32 (3e-8 off)
    rtol = 1e-7 if name == "hardsigmoid" else 1e-12
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=rtol, atol=1e-15)



def test_hardswish_gradient_at_its_ends_is_the_outer_pieces(device):
    """PyTorch 2.15's hardswish gradient, run side by side: 0 up to -3 (included),
    x / 3 + 0.5 on the open (-3, 3), 1 from 3 on."""
    x = pdt.tensor([-3.0001, -3.0, 3.0, 3.0001, -math.inf, math.inf], dtype=pdt.float64,
                   device=device, requires_grad=True)
    F.hardswish(x).sum().backward()
    assert x.grad.cpu().tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]

def test_nan_propagates(device):
    x = pdt.tensor([math.nan, 1.0], device=device)
    for name, (fn, _, _) in CASES.items():
        if name != "relu":
            assert math.isnan(fn(x)[0].item()), name


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "threshold", "selu", "celu",
                                  "rrelu_eval", "relu"])
def test_inplace(device, name):
    fn = CASES[name][0]
    inplace = {"hardswish": lambda t: F.hardswish(t, inplace=True),
               "hardsigmoid": lambda t: F.hardsigmoid(t, True),
               "threshold": lambda t: F.threshold(t, 1.0, -2.0, True),
               "selu": lambda t: F.selu(t, True), "celu": lambda t: F.celu(t, 2.0, True),
               "rrelu_eval": lambda t: F.rrelu(t, 0.1, 0.3, False, True),
               "relu": lambda t: F.relu(t, inplace=True)}[name]
    a = np.array([-4.0, -1.0, 0.5, 2.0, 5.0])
    want = fn(pdt.tensor(a, device=device)).cpu().numpy()
    x = pdt.tensor(a, device=device)
    assert inplace(x) is x
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    # inside a graph, the gradient is the out-of-place one
    grads = []
    for f in (inplace, fn):
        leaf = pdt.tensor(a, dtype=pdt.float64, device=device, requires_grad=True)
        f(leaf * 1.5).sum().backward()
        grads.append(leaf.grad.cpu().numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_rrelu_training_draws_slopes(device):
    pdt.manual_seed(5)
    x = pdt.full((4000,), -1.0, dtype=pdt.float64, device=device, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().cpu().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and abs(slopes.mean() - 0.2) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), slopes, rtol=1e-15)
    pdt.manual_seed(5)
    again = F.rrelu(-pdt.ones(4000, dtype=pdt.float64, device=device), 0.1, 0.3, True)
    np.testing.assert_array_equal(again.cpu().numpy(), -slopes)  # the project's generator
    pdt.manual_seed(5)  # one seed, the same slopes on every device
    on_cpu = F.rrelu(-pdt.ones(4000, dtype=pdt.float64), 0.1, 0.3, True)
    np.testing.assert_array_equal(on_cpu.numpy(), -slopes)
    assert F.rrelu(pdt.tensor([2.0], device=device), training=True).item() == 2.0
    m = nn.RReLU(0.1, 0.3)
    assert m.training and not np.allclose(m(x.detach()).cpu().numpy(), -0.2)
    np.testing.assert_allclose(m.eval()(x.detach()).cpu().numpy(), -0.2)


@pytest.mark.parametrize("shape,nw", [((4, 3, 5), 3), ((4, 3), 1), ((6,), 1), ((2, 3, 2, 2), 3),
                                      ((), 1)])
def test_prelu(device, shape, nw):
    rng = np.random.default_rng(2)
    a, w = rng.standard_normal(shape), rng.uniform(0.1, 0.5, nw)
    x = pdt.tensor(a, device=device)
    wt = pdt.tensor(w, device=device)
    bshape = (1, nw) + (1,) * (len(shape) - 2) if nw > 1 else ()
    ref = np.where(a > 0, a, a * w.reshape(bshape))
    np.testing.assert_allclose(F.prelu(x, wt).cpu().numpy(), ref, rtol=1e-15)
    if shape:  # gradcheck's arrays are at least 1-d
        gradcheck(F.prelu, [a, w], device)
    else:  # a 0-d input, as PyTorch's: d/dx is 1 or the slope, d/dw is 0 or x
        for v in (-2.0, 3.0):
            t = pdt.tensor(v, device=device, dtype=pdt.float64, requires_grad=True)
            s = wt.clone().requires_grad_()
            F.prelu(t, s).backward()
            assert t.grad.shape == () and s.grad.shape == (1,)
            assert (t.grad.item(), s.grad.item()) == ((w[0], v) if v < 0 else (1.0, 0.0))
    torch = torch_or_skip()
    tx, tw = torch.tensor(a, requires_grad=True), torch.tensor(w, requires_grad=True)
    torch.nn.functional.prelu(tx, tw).sum().backward()
    x.requires_grad_()
    wt.requires_grad_()
    F.prelu(x, wt).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(wt.grad.cpu().numpy(), tw.grad.numpy(), rtol=1e-12)


def test_prelu_module(device):
    m = nn.PReLU(3, init=0.1).to(device)
    assert repr(m) == "PReLU(num_parameters=3)"
    assert m.weight.device == device and m.weight.tolist() == pytest.approx([0.1] * 3)
    assert list(m.state_dict()) == ["weight"]
    x = pdt.tensor([[-1.0, 2.0, -3.0]], device=device)
    m(x).sum().backward()
    np.testing.assert_allclose(m.weight.grad.cpu().numpy(), [-1.0, 0.0, -3.0])
    assert nn.PReLU(dtype=pdt.float64).weight.dtype == pdt.float64



def test_prelu_gradient_at_inf_and_second_order(device):
    # the slope's gradient is x summed where x <= 0: a +inf x elsewhere adds nothing (it
    # gave NaN: where()'s 0 times inf); per channel, the others keep theirs
    x = pdt.tensor([[-2.0, math.inf, 3.0], [0.0, -1.0, 5.0]], device=device,
                   dtype=pdt.float64, requires_grad=True)
    for w0, ref in (([0.25], [-3.0]), ([0.25, 0.5, 0.75], [-2.0, -1.0, 0.0])):
        w = pdt.tensor(w0, device=device, dtype=pdt.float64, requires_grad=True)
        gx, gw = pdt.autograd.grad(F.prelu(x, w).sum(), [x, w])
        assert gw.tolist() == ref
        slopes = np.broadcast_to(np.asarray(w0), (2, 3))
        assert gx.tolist() == np.where(x.detach().cpu().numpy() > 0, 1.0, slopes).tolist()
    # second order, as PyTorch's: x's gradient (1 or w) has a zero derivative for x (it
    # raised 'not used in the graph') and 1 for w where x <= 0; w's (x where x <= 0) has
    # 1 for x there and zero for w (it gave None)
    w = pdt.tensor([0.25], device=device, dtype=pdt.float64, requires_grad=True)
    x = pdt.tensor([[-2.0, 4.0, 3.0], [0.0, -1.0, 5.0]], device=device, dtype=pdt.float64,
                   requires_grad=True)
    gx, = pdt.autograd.grad(F.prelu(x, w).sum(), x, create_graph=True)
    dxx, dxw = pdt.autograd.grad(gx.sum(), [x, w])
    assert dxx.tolist() == [[0.0] * 3] * 2 and dxw.tolist() == [3.0]
    gw, = pdt.autograd.grad(F.prelu(x, w).sum(), w, create_graph=True)
    dwx, dww = pdt.autograd.grad(gw.sum(), [x, w])
    assert dwx.tolist() == [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]] and dww.tolist() == [0.0]
    assert F.prelu(x, w).grad_fn.name() == "PreluKernelBackward0"

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu(device, dim):
    a = np.random.default_rng(4).standard_normal((4, 6, 2))
    half = a.shape[dim] // 2
    first, second = np.split(a, [half], axis=dim)
    ref = first / (1 + np.exp(-second))
    np.testing.assert_allclose(F.glu(pdt.tensor(a, device=device), dim).cpu().numpy(), ref,
                               rtol=1e-14)
    gradcheck(lambda t: F.glu(t, dim), [a], device)
    torch = torch_or_skip()
    np.testing.assert_allclose(torch.nn.functional.glu(torch.tensor(a), dim).numpy(), ref,
                               rtol=1e-14)


def test_softmin_and_softmax2d(device):
    a = np.random.default_rng(6).standard_normal((2, 3, 4, 5))
    e = np.exp(-(a - a.min(1, keepdims=True)))
    np.testing.assert_allclose(F.softmin(pdt.tensor(a, device=device), 1).cpu().numpy(),
                               e / e.sum(1, keepdims=True), rtol=1e-13)
    e = np.exp(a - a.max(-3, keepdims=True))
    np.testing.assert_allclose(nn.Softmax2d()(pdt.tensor(a, device=device)).cpu().numpy(),
                               e / e.sum(-3, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(nn.Softmax2d()(pdt.tensor(a[0], device=device)).cpu().numpy(),
                               (e / e.sum(-3, keepdims=True))[0], rtol=1e-13)
    gradcheck(lambda t: F.softmin(t, 0), [a[0, 0]], device)
    got = F.softmin(pdt.tensor(a, dtype=pdt.float32, device=device), 2, dtype=pdt.float64)
    assert got.dtype == pdt.float64
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        implicit = nn.Softmin()(pdt.tensor(a[0], device=device))
    np.testing.assert_allclose(implicit.cpu().numpy(),
                               F.softmin(pdt.tensor(a[0], device=device), 0).cpu().numpy())
    with pytest.raises(ValueError, match=r"Softmax2d: expected input to be 3D or 4D, got 2D "
                                         r"instead \(shape \(4, 5\) on cpu"):
        nn.Softmax2d()(pdt.tensor(a[0, 0]))



@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_functional_softmax_without_dim_takes_pytorchs_implicit_dim(device, ndim):
    """F.softmax(x) and F.log_softmax(x): dim 0 for 1- and 3-d inputs, 1 otherwise, with
    PyTorch's warning pointing at the caller's line (normalising dim -1 of a 3- or 4-d
    input was silently another result)."""
    a = np.random.default_rng(ndim).standard_normal((2, 3, 4, 5)[:ndim])
    implicit = 0 if ndim in (1, 3) else 1
    e = np.exp(a - a.max(implicit, keepdims=True))
    ref = e / e.sum(implicit, keepdims=True)
    x = pdt.tensor(a, device=device)
    for fn, want in ((F.softmax, ref), (F.log_softmax, np.log(ref))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = fn(x)
        assert [w.filename for w in caught] == [__file__]
        assert "Implicit dimension choice for " + fn.__name__ in str(caught[0].message)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an explicit dim does not warn
        got = F.softmax(x.float(), ndim - 1, dtype=pdt.float64)
    assert got.dtype == pdt.float64
    with pytest.warns(UserWarning) as caught:
        nn.Softmax()(x)
        nn.Softmin()(x)
    assert [w.filename for w in caught] == [__file__] * 2


MODULES = [
    (nn.Hardswish(), "Hardswish()", "hardswish"),
    (nn.Hardswish(inplace=True), "Hardswish()", "hardswish"),
    (nn.Hardsigmoid(), "Hardsigmoid()", "hardsigmoid"),
    (nn.Hardshrink(), "Hardshrink(0.5)", "hardshrink"),
    (nn.Hardshrink(1.0), "Hardshrink(1.0)", "hardshrink_1"),
    (nn.Softshrink(), "Softshrink(0.5)", "softshrink"),
    (nn.Threshold(1.0, -2.0), "Threshold(threshold=1.0, value=-2.0)", "threshold"),
    (nn.Threshold(1.0, -2.0, True), "Threshold(threshold=1.0, value=-2.0, inplace=True)",
     "threshold"),
    (nn.SELU(), "SELU()", "selu"),
    (nn.SELU(True), "SELU(inplace=True)", "selu"),
    (nn.CELU(2.0), "CELU(alpha=2.0)", "celu"),
    (nn.CELU(2.0, inplace=True), "CELU(alpha=2.0, inplace=True)", "celu"),
    (nn.Softsign(), "Softsign()", "softsign"),
    (nn.Tanhshrink(), "Tanhshrink()", "tanhshrink"),
    (nn.RReLU(0.1, 0.3).eval(), "RReLU(lower=0.1, upper=0.3)", "rrelu_eval"),
    (nn.ReLU(), "ReLU()", "relu"),
    (nn.ReLU(inplace=True), "ReLU(inplace=True)", "relu"),
]


@pytest.mark.parametrize("module,text,name", MODULES, ids=[m[1] for m in MODULES])
def test_modules(device, module, text, name):
    assert repr(module) == text
    x = pdt.tensor(sample("float64"), device=device)
    want = CASES[name][0](x).cpu().numpy()
    out = module(x)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    assert (out is x) == bool(getattr(module, "inplace", False))
    assert not list(module.parameters())


def test_reprs_match_torch():
    torch = torch_or_skip()
    tn = torch.nn
    pairs = [(nn.RReLU(), tn.RReLU()), (nn.RReLU(inplace=True), tn.RReLU(inplace=True)),
             (nn.GLU(), tn.GLU()), (nn.GLU(0), tn.GLU(0)), (nn.Softmin(), tn.Softmin()),
             (nn.Softmin(1), tn.Softmin(1)), (nn.Softmax2d(), tn.Softmax2d()),
             (nn.PReLU(), tn.PReLU()), (nn.CELU(), tn.CELU()), (nn.SELU(), tn.SELU()),
             (nn.Threshold(0.1, 20), tn.Threshold(0.1, 20)), (nn.Hardswish(True),
                                                               tn.Hardswish(True)),
             (nn.Hardsigmoid(True), tn.Hardsigmoid(True)), (nn.ReLU(True), tn.ReLU(True)),
             (nn.Softshrink(), tn.Softshrink()), (nn.Tanhshrink(), tn.Tanhshrink())]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)


def test_bad_arguments():
    x = pdt.tensor([1.0, -1.0])
    with pytest.raises(ValueError, match=r"softshrink\(\): lambd must be >= 0, got -1"):
        F.softshrink(x, -1)
    with pytest.raises(ValueError, match=r"celu\(\): alpha cannot be 0"):
        F.celu(x, 0.0)
    with pytest.raises(ValueError, match=r"rrelu\(\): lower must be <= upper"):
        F.rrelu(x, 0.5, 0.1)
    with pytest.raises(RuntimeError, match=r"rrelu\(\): lower must be <= upper"):  # PyTorch's
        F.rrelu(x, 0.5, 0.1, training=True)
    with pytest.raises(TypeError, match=r"threshold\(\): value must be a number, got str"):
        F.threshold(x, 0.0, "0")
    with pytest.raises(NotImplementedError, match="expected a floating point tensor, got "
                                                  "pydevtensor.int64 on cpu"):
        F.hardswish(pdt.tensor([1, 2]))
    with pytest.raises(ValueError, match=r"prelu\(\): mismatch .* weight has 3 elements, the "
                                         r"input of shape \(2, 4\) has 4 channels"):
        F.prelu(pdt.ones(2, 4), pdt.ones(3))
    with pytest.raises(RuntimeError, match=r"prelu\(\): Not allow zero-dim input tensor "
                                           r"with more than one slope: .* weight has 2"):
        F.prelu(pdt.tensor(1.0), pdt.ones(2))
    with pytest.raises(ValueError, match=r"prelu\(\): Expected `weight` to be a scalar or 1D "
                                         r"tensor, but got: ndim = 2 \(shape \(1, 3\)"):
        F.prelu(pdt.ones(2, 3), pdt.ones(1, 3))
    assert F.prelu(pdt.tensor(-2.0), pdt.tensor([0.25])).item() == -0.5  # as PyTorch's
    assert F.prelu(pdt.tensor(-2.0), pdt.tensor(0.5)).item() == -1.0
    with pytest.raises(TypeError, match=r"weight is pydevtensor.float64 but input is"):
        F.prelu(pdt.ones(2, 4), pdt.ones(4, dtype=pdt.float64))
    with pytest.raises(RuntimeError, match=r"glu\(\): halving dimension must be even, but "
                                           r"dimension 0 is size 3"):
        F.glu(pdt.ones(3))
    with pytest.raises(ValueError, match=r"glu\(\): the input is 0-d"):
        F.glu(pdt.tensor(1.0))
    with pytest.raises(IndexError, match=r"glu\(\): Dimension out of range \(expected to be in "
                                         r"range of \[-2, 1\], but got 2\)"):
        F.glu(pdt.ones(2, 2), 2)
    with pytest.raises(ValueError, match="PReLU: num_parameters must be >= 1, got 0"):
        nn.PReLU(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.softmin(x, 0)  # no warning with dim


def test_in_a_network(device):
    net = nn.Sequential(nn.Linear(4, 6), nn.PReLU(), nn.Linear(6, 6), nn.Hardswish(),
                        nn.Linear(6, 6), nn.GLU(), nn.SELU(), nn.Linear(3, 1)).to(device)
    net(pdt.randn(8, 4, device=device)).sum().backward()
    for p in net.parameters():
        assert p.grad is not None and p.grad.device == device
        assert np.isfinite(p.grad.cpu().numpy()).all()


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16])
def test_half_dtypes(device, dtype):
    a = np.array([-4.0, -3.0, -0.75, 0.0, 0.25, 1.5, 3.0, 5.0])
    for name, (fn, ref_fn, _) in CASES.items():
        got = fn(pdt.tensor(a, dtype=dtype, device=device))
        assert got.dtype == dtype, name
        np.testing.assert_allclose(got.to(pdt.float64).cpu().numpy(), ref_fn(a), rtol=2e-2,
                                   atol=1e-2, err_msg=name)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("thr,value", [(1, 0), (1.5, 7.9), (-2.5, -7.9), (2, -3), (-1.5, 9),
                                       (2.7, 9)])
def test_threshold_takes_integers_as_torch(device, dtype, thr, value):
    """The threshold is truncated toward zero too (-1.5 -> -1: -1 is replaced)."""
    torch = torch_or_skip()
    a = np.array([-3, -2, -1, 0, 1, 2, 5], dtype=dtype)
    ref = torch.nn.functional.threshold(torch.tensor(a), thr, value)
    want = np.where(a > np.trunc(thr), a, np.trunc(value)).astype(dtype)
    np.testing.assert_array_equal(ref.numpy(), want)
    got = F.threshold(pdt.tensor(a, device=device), thr, value)
    assert got.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    x = pdt.tensor(a, device=device)
    assert nn.Threshold(thr, value, inplace=True)(x) is x
    np.testing.assert_array_equal(x.cpu().numpy(), want)


def test_threshold_refuses_bool_and_huge_integer_values(device):
    with pytest.raises(NotImplementedError, match="bool"):
        F.threshold(pdt.tensor([True, False], device=device), 0, 0)
    with pytest.raises(RuntimeError, match=r"value inf cannot be converted to .*int64"):
        F.threshold(pdt.tensor([1, 2], device=device), 0, float("inf"))
    with pytest.raises(RuntimeError, match=r"threshold 1e\+30 cannot be converted"):
        F.threshold(pdt.tensor([1, 2], device=device), 1e30, 0)


def test_a_layers_implicit_dim_warning_points_at_the_caller_with_or_without_hooks():
    """nn.Softmax's and nn.Softmin's warning names the line that called the layer whether
    __call__ runs forward itself or through the hooks' path (one frame more): the level is
    counted to the first frame outside pydevtensor, not fixed."""
    x = pdt.ones(2, 3, 4)
    for layer in (nn.Softmax(), nn.Softmin()):
        for hooked in (False, True):
            if hooked:
                layer.register_forward_hook(lambda m, args, out: None)
            with pytest.warns(UserWarning, match="Implicit dimension choice") as caught:
                layer(x)
            assert [w.filename for w in caught] == [__file__], (type(layer).__name__, hooked)
