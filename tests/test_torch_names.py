"""PyTorch's top-level in-place forms, detach, fill, get_device, typename and the
nn.functional ops at the top level (_ops_torch_names.py)."""
import numpy as np
import pytest

import pydevtensor as pdt

_UNARY = {"abs_": np.abs, "acos_": np.arccos, "arccos_": np.arccos, "asin_": np.arcsin,
          "arcsin_": np.arcsin, "atan_": np.arctan, "arctan_": np.arctan, "atanh_": np.arctanh,
          "arctanh_": np.arctanh, "asinh_": np.arcsinh, "arcsinh_": np.arcsinh,
          "ceil_": np.ceil, "floor_": np.floor, "trunc_": np.trunc, "fix_": np.trunc,
          "cos_": np.cos, "cosh_": np.cosh, "sin_": np.sin, "sinh_": np.sinh, "tan_": np.tan,
          "deg2rad_": np.deg2rad, "rad2deg_": np.rad2deg, "exp2_": np.exp2,
          "expm1_": np.expm1, "log1p_": np.log1p, "neg_": np.negative,
          "negative_": np.negative, "round_": np.round, "sinc_": np.sinc,
          "frac_": lambda x: x - np.trunc(x), "i0_": np.i0, "square_": np.square,
          "reciprocal_": np.reciprocal, "zero_": np.zeros_like}
_POSITIVE = {"acosh_": np.arccosh, "arccosh_": np.arccosh, "log_": np.log, "log2_": np.log2,
             "log10_": np.log10, "sqrt_": np.sqrt, "rsqrt_": lambda x: 1 / np.sqrt(x),
             "erf_": None, "erfc_": None, "logit_": None}


@pytest.mark.parametrize("name", sorted(_UNARY) + sorted(_POSITIVE))
def test_in_place_forms_overwrite_their_input(device, name):
    a = (np.array([1.5, 2.25, 3.5]) if name in _POSITIVE
         else np.array([-0.75, -0.25, 0.5, 0.625]))
    if name == "logit_":
        a = a / 4
    x = pdt.tensor(a, dtype=pdt.float64, device=device)
    out = getattr(pdt, name)(x)
    assert out is x
    ref = _UNARY.get(name) or _POSITIVE[name]
    expect = (getattr(pdt.tensor(a, dtype=pdt.float64), name[:-1])().numpy() if ref is None
              else ref(a))
    np.testing.assert_allclose(x.cpu().numpy(), expect, rtol=1e-12, atol=1e-15)


def test_in_place_forms_with_arguments(device):
    x = pdt.tensor([-1., 0.5, 5.], device=device)
    assert pdt.clamp_(x, 0., 2.) is x and x.tolist() == [0., 0.5, 2.]
    assert pdt.clip_(x, max=1.).tolist() == [0., 0.5, 1.]
    assert pdt.fill_(x, 3.).tolist() == [3., 3., 3.]
    i = pdt.tensor([4, 6, 9], device=device)
    assert pdt.gcd_(i, pdt.tensor([6, 4, 6], device=device)).tolist() == [2, 2, 3]
    assert pdt.lcm_(i, pdt.tensor([3, 3, 2], device=device)).tolist() == [6, 6, 6]
    f = pdt.tensor([1., 0.5], device=device)
    assert pdt.ldexp_(f, pdt.tensor([3, 2], device=device)).tolist() == [8., 2.]
    y = pdt.tensor([0., 2.], dtype=pdt.float64, device=device)
    pdt.xlogy_(y, pdt.tensor([0., 3.], dtype=pdt.float64, device=device))
    np.testing.assert_allclose(y.cpu().numpy(), [0., 2 * np.log(3.)], rtol=1e-14)
    r = pdt.tensor([1.234], dtype=pdt.float64, device=device)
    assert pdt.round_(r, decimals=1).tolist() == [1.2]
    with pytest.raises(TypeError, match="can't be cast"):
        pdt.sqrt_(pdt.tensor([4], device=device))
    with pytest.raises(TypeError, match="must be a Tensor"):
        pdt.sqrt_([4.])


def test_detach_fill_get_device(device):
    x = pdt.ones(2, device=device, requires_grad=True)
    d = pdt.detach(x)
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    y = pdt.ones(2, device=device, requires_grad=True) * 1
    assert pdt.detach_(y) is y and not y.requires_grad
    f = pdt.fill(x, 4.)
    assert f.tolist() == [4., 4.] and x.tolist() == [1., 1.] and f.device == x.device
    assert pdt.get_device(x) == (-1 if device.type == "cpu" else device.index)


def test_typename():
    assert pdt.typename(pdt.ones(1)) == "pydevtensor.FloatTensor"
    assert pdt.typename(pdt.ones(1, dtype=pdt.int64)) == "pydevtensor.LongTensor"
    assert pdt.typename(3) == "int" and pdt.typename(np.zeros(1)) == "numpy.ndarray"
    assert pdt.typename(pdt.Tensor) == "pydevtensor.Tensor"


def test_functional_names_at_the_top_level(device):
    import pydevtensor.nn.functional as F
    from pydevtensor._ops_torch_names import FUNCTIONAL_ALIASES
    for name in FUNCTIONAL_ALIASES:
        assert getattr(pdt, name) is getattr(F, name) and name in dir(pdt)
    x = pdt.arange(16., device=device).reshape(1, 4, 2, 2)
    np.testing.assert_array_equal(pdt.pixel_shuffle(x, 2).cpu().numpy(),
                                  np.arange(16.).reshape(1, 2, 2, 2, 2).transpose(
                                      0, 3, 1, 4, 2).reshape(1, 1, 4, 4))
    w = pdt.ones(1, 1, 2, device=device)
    assert pdt.conv1d(pdt.arange(4., device=device).reshape(1, 1, 4), w).tolist() == [
        [[1., 3., 5.]]]
    assert pdt.threshold(pdt.tensor([-1., 2.], device=device), 0., 9.).tolist() == [9., 2.]
    assert pdt.hardshrink(pdt.tensor([0.25, -2.], device=device)).tolist() == [0., -2.]


def test_hardshrink_and_prelu_methods(device):
    x = pdt.tensor([0.25, -2., 0.75, -0.5], dtype=pdt.float64, device=device)
    np.testing.assert_array_equal(x.hardshrink().cpu().numpy(), [0., -2., 0.75, 0.])
    np.testing.assert_array_equal(x.hardshrink(1.).cpu().numpy(), [0., -2., 0., 0.])
    y = pdt.tensor([[-2., 3.], [4., -1.]], device=device)
    out = y.prelu(pdt.tensor([0.5, 0.25], device=device))
    np.testing.assert_array_equal(out.cpu().numpy(), [[-1., 3.], [4., -0.25]])
