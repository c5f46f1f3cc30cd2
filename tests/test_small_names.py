"""The smaller PyTorch names of pydevtensor/_ops_small_names.py and nn.functional's
in-place forms and gumbel_softmax, on every device, against NumPy."""
import inspect
import math
import re
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F


def test_is_floating_point_and_tensor_predicates(device):
    assert pdt.is_floating_point(pdt.ones(1, dtype=pdt.bfloat16, device=device))
    assert not pdt.is_floating_point(pdt.arange(2, device=device))
    x = pdt.ones(2, device=device)
    assert x.is_cpu == (x.device.type == "cpu")
    assert x.is_signed() and pdt.ones(1, dtype=pdt.int8).is_signed()
    assert not pdt.ones(1, dtype=pdt.uint8).is_signed() and not pdt.ones(1).bool().is_signed()
    with pytest.raises(TypeError, match="must be a Tensor"):
        pdt.is_floating_point(1.0)


def test_cosine_similarity_is_the_functional(device):
    a = np.random.default_rng(0).standard_normal((4, 3))
    b = np.random.default_rng(1).standard_normal((4, 3))
    got = pdt.cosine_similarity(pdt.tensor(a, device=device), pdt.tensor(b, device=device))
    ref = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("name, ref", [
    ("triu_", lambda a: np.triu(a, 1)), ("tril_", lambda a: np.tril(a, -1)),
    ("reciprocal_", lambda a: 1 / a), ("square_", lambda a: a * a),
    ("cumsum_", lambda a: np.cumsum(a, 1))])
def test_in_place_forms(device, name, ref):
    a = np.random.default_rng(2).uniform(0.5, 2.0, (3, 4))
    args = {"triu_": (1,), "tril_": (-1,), "cumsum_": (1,)}.get(name, ())
    x = pdt.tensor(a, device=device)
    version = x._version
    assert getattr(x, name)(*args) is x and x._version > version
    np.testing.assert_allclose(x.cpu().numpy(), ref(a), rtol=1e-14)
    # through autograd: the gradient is the out-of-place op's (the op read a clone)
    w = pdt.tensor(a, device=device, requires_grad=True)
    y = w * 1
    getattr(y, name)(*args)
    y.sum().backward()
    v = pdt.tensor(a, device=device, requires_grad=True)
    getattr(pdt.Tensor, name[:-1])(v, *args).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), v.grad.cpu().numpy(), rtol=1e-14)


def test_in_place_forms_refuse_what_self_cannot_hold(device):
    i = pdt.tensor([2, 4], device=device)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        i.reciprocal_()
    assert i.cpu().tolist() == [2, 4]  # unchanged


@pytest.mark.parametrize("op", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_"])
def test_in_place_comparisons_write_ones_and_zeros_in_selfs_dtype(device, op):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0])
    ref = {"eq_": a == b, "ne_": a != b, "lt_": a < b, "le_": a <= b, "gt_": a > b,
           "ge_": a >= b}[op]
    x = pdt.tensor(a, device=device)
    assert getattr(x, op)(pdt.tensor(b, device=device)) is x
    assert x.dtype == pdt.float64 and x.cpu().tolist() == ref.astype(float).tolist()
    i = pdt.tensor([1, 2, 3], device=device)
    assert getattr(i, op)(2).cpu().tolist() == ref.astype(int).tolist()


def test_randint_like(device):
    x = pdt.zeros(200, dtype=pdt.int32, device=device)
    r = pdt.randint_like(x, 5)
    assert r.dtype == pdt.int32 and r.device == x.device and r.shape == x.shape
    v = r.cpu().numpy()
    assert v.min() >= 0 and v.max() < 5 and len(set(v.tolist())) == 5
    r = pdt.randint_like(x, 3, 6, dtype=pdt.float64)
    v = r.cpu().numpy()
    assert r.dtype == pdt.float64 and v.min() >= 3 and v.max() < 6
    r = pdt.randint_like(x, high=4)
    assert r.cpu().numpy().max() < 4 and r.cpu().numpy().min() >= 0
    a = pdt.randint_like(x, 10, generator=pdt.Generator().manual_seed(4))
    b = pdt.randint_like(x, 10, generator=pdt.Generator().manual_seed(4))
    assert pdt.equal(a, b)


@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 5), (7,)])
def test_unravel_index_matches_numpy(device, shape):
    n = int(np.prod(shape))
    flat = np.arange(-n, n)
    got = pdt.unravel_index(pdt.tensor(flat, device=device), shape)
    ref = np.unravel_index(flat % n, shape)
    assert len(got) == len(shape)
    for g, r in zip(got, ref):
        assert g.dtype == pdt.int64 and g.cpu().tolist() == r.tolist()
    assert [int(c) for c in pdt.unravel_index(n - 1, shape)] == [s - 1 for s in shape]
    if device == "cpu":
        with pytest.raises(IndexError, match="must be in the range"):
            pdt.unravel_index(pdt.tensor([n]), shape)
    with pytest.raises(TypeError, match="integer tensor"):
        pdt.unravel_index(pdt.tensor([1.0]), shape)


def test_empty_strided(device):
    t = pdt.empty_strided((2, 3), (1, 2), dtype=pdt.float64, device=device)
    assert t.stride() == (1, 2) and t.shape == (2, 3) and t.dtype == pdt.float64
    t.copy_(pdt.arange(6.0, dtype=pdt.float64, device=device).reshape(2, 3))
    assert t.cpu().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert pdt.empty_strided((0, 3), (3, 1)).numel() == 0
    with pytest.raises(ValueError, match="one length"):
        pdt.empty_strided((2, 3), (1,))


@pytest.mark.parametrize("name, ref", [
    ("relu_", lambda a: np.maximum(a, 0)), ("leaky_relu_", lambda a: np.where(a > 0, a, a * .01)),
    ("hardtanh_", lambda a: np.clip(a, -1, 1)), ("elu_", lambda a: np.where(a > 0, a, np.expm1(a))),
    ("celu_", lambda a: np.where(a > 0, a, np.expm1(a)))])
def test_functional_in_place_forms(device, name, ref):
    a = np.linspace(-3, 3, 13)
    x = pdt.tensor(a, device=device)
    assert getattr(F, name)(x) is x
    np.testing.assert_allclose(x.cpu().numpy(), ref(a), rtol=1e-14, atol=1e-16)
    y = pdt.tensor(a, device=device)
    assert F.threshold_(y, 0.5, 9.0) is y
    assert y.cpu().tolist() == np.where(a > 0.5, a, 9.0).tolist()


def test_gumbel_softmax(device):
    logits = pdt.tensor(np.log([[0.1, 0.6, 0.3]] * 20000), device=device)
    pdt.manual_seed(0)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).cpu().numpy(), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.cpu().numpy()
    assert set(np.unique(h).tolist()) == {0.0, 1.0} and (h.sum(1) == 1).all()
    # the Gumbel-max trick: argmax frequencies are the softmax's probabilities
    np.testing.assert_allclose(h.mean(0), [0.1, 0.6, 0.3], atol=0.015)
    w = pdt.tensor([[0.2, -0.1, 0.4]], dtype=pdt.float64, device=device, requires_grad=True)
    out = F.gumbel_softmax(w, hard=True)
    (out * pdt.tensor([1.0, 2.0, 3.0], dtype=pdt.float64, device=device)).sum().backward()
    assert w.grad is not None and math.isfinite(w.grad.abs().sum().item())
    with pytest.raises(ValueError, match="tau must be positive"):
        F.gumbel_softmax(logits, tau=0.0)


def test_reset_max_memory_allocated_is_the_older_name():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdt.cuda.reset_max_memory_allocated("cpu")
    assert caught and caught[0].category is FutureWarning
    assert pdt.max_memory_allocated("cpu") == pdt.memory_allocated("cpu")


def test_pytorch_keyword_names(device):
    """arange(start=, end=, step=), randint(low=, high=, size=), x.expand(size=) and
    set_grad_enabled(mode=), as PyTorch's signatures name them."""
    assert pdt.arange(start=1, end=7, step=2, device=device).cpu().tolist() == [1, 3, 5]
    assert pdt.arange(2, end=5, device=device).cpu().tolist() == [2, 3, 4]
    assert pdt.arange(end=3).tolist() == [0, 1, 2]
    for call in (lambda: pdt.arange(start=1), lambda: pdt.arange(5, start=1),
                 lambda: pdt.randint(size=(2,)), lambda: pdt.randint(1, low=0, size=(2,))):
        with pytest.raises(TypeError, match="each positional or by name"):
            call()
    g = pdt.Generator().manual_seed(7)
    a = pdt.randint(low=3, high=9, size=(50,), generator=g, device=device)
    b = pdt.randint(3, 9, (50,), generator=pdt.Generator().manual_seed(7), device=device)
    c = pdt.randint(3, high=9, size=(50,), generator=pdt.Generator().manual_seed(7),
                    device=device)
    assert pdt.equal(a, b) and pdt.equal(a, c) and a.min().item() >= 3 and a.max().item() < 9
    assert pdt.randint(high=2, size=(3,)).max().item() < 2
    x = pdt.ones(2, 1, device=device)
    assert x.expand(size=(2, 4)).shape == (2, 4) and x.expand(size=(3, -1, 2)).shape == (3, 2, 2)
    with pytest.raises(TypeError, match="twice"):
        x.expand(2, 4, size=(2, 4))
    with pdt.set_grad_enabled(mode=False):
        assert not pdt.is_grad_enabled()
    assert pdt.is_grad_enabled()


@pytest.mark.parametrize("name, ref", [("relu_", lambda a: np.maximum(a, 0)),
                                       ("sigmoid_", lambda a: 1 / (1 + np.exp(-a))),
                                       ("tanh_", np.tanh), ("exp_", np.exp)])
def test_top_level_in_place_functions(device, name, ref):
    a = np.array([-1.5, 0.0, 2.0])
    x = pdt.tensor(a, device=device)
    assert getattr(pdt, name)(x) is x
    np.testing.assert_allclose(x.cpu().numpy(), ref(a), rtol=1e-14)
    y = pdt.tensor([2.0, 3.0, 4.0], device=device)
    assert y.cumprod_(0) is y and y.cpu().tolist() == [2.0, 6.0, 24.0]


@pytest.mark.parametrize("name, want", [("eq_", [1., 0.]), ("ne_", [0., 1.]), ("lt_", [0., 1.]),
                                        ("le_", [1., 1.]), ("gt_", [0., 0.]),
                                        ("ge_", [1., 0.]), ("greater_", [0., 0.]),
                                        ("less_equal_", [1., 1.]), ("not_equal_", [0., 1.])])
def test_in_place_comparisons_take_other_by_keyword(device, name, want):
    """x.gt_(other=y), as PyTorch's; a slot wrapper refused any keyword, and its error
    named __gt__, not gt_."""
    x = pdt.tensor([1., 2.], device=device)
    assert getattr(x, name)(other=pdt.tensor([1., 3.], device=device)) is x
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    with pytest.raises(TypeError, match=re.escape(name) + r"\(\) got an unexpected keyword"):
        getattr(x, name)(values=1.)


@pytest.mark.parametrize("name, param, arg, want", [
    ("float_power_", "exponent", 2, [9., 16.]), ("heaviside_", "values", 0.5, [1., 0.])])
def test_float_power_and_heaviside_in_place_name_their_argument(device, name, param, arg, want):
    """float_power_(exponent=) and heaviside_(values=), PyTorch's names (they took other)."""
    x = pdt.tensor([3., -4.], dtype=pdt.float64, device=device)
    ref = np.float_power([3., -4.], arg) if name == "float_power_" else np.heaviside([3., -4.], arg)
    if name == "heaviside_":  # its values must be a tensor, as PyTorch's
        arg = pdt.tensor(arg, dtype=pdt.float64, device=device)
    assert getattr(x, name)(**{param: arg}) is x
    np.testing.assert_allclose(x.cpu().numpy(), ref, rtol=1e-15)
    np.testing.assert_array_equal(ref, want)
    assert list(inspect.signature(getattr(pdt.Tensor, name)).parameters) == ["self", param]
    with pytest.raises(TypeError, match=name + r"\(\) takes one argument, " + param):
        getattr(x, name)(other=arg)
