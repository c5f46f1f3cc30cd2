"""Gradient conventions at special points, as PyTorch 2.15 gives them (run side by
side): max()/min() of everything with NaNs, atan2 at (0, 0), index_fill with repeated
indices, a tensor overwritten by zero_/fill_/copy_, fmax/fmin at ties, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt

NAN = float("nan")


def _leaf(values, device):
    return pdt.tensor(np.asarray(values, dtype=np.float64), device=device, requires_grad=True)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_of_all_shares_the_gradient_among_the_nans(device, op):
    a = np.array([NAN, 1.0, NAN, 3.0])
    x = _leaf(a, device)
    getattr(x, op)().backward()
    nans = np.isnan(a)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), nans / nans.sum())
    # amax keeps PyTorch's NaN everywhere; without NaN the tie is shared as before
    x = _leaf(a, device)
    getattr(x, "a" + op)().backward()
    assert np.isnan(x.grad.cpu().numpy()).all()
    b = np.array([2.0, 5.0, 5.0]) * (1 if op == "max" else -1)
    x = _leaf(b, device)
    getattr(x, op)().backward()
    ext = b == (b.max() if op == "max" else b.min())
    np.testing.assert_array_equal(x.grad.cpu().numpy(), ext / ext.sum())


def test_atan2_gradient_is_zero_at_the_origin(device):
    a = np.array([0.0, -0.0, 0.0, 1.0, 2.0])
    b = np.array([0.0, 0.0, -0.0, 0.0, -3.0])
    x, y = _leaf(a, device), _leaf(b, device)
    pdt.atan2(x, y).sum().backward()
    d = a * a + b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        want_x = np.where(d == 0, 0.0, b / d)
        want_y = np.where(d == 0, 0.0, -a / d)
    np.testing.assert_allclose(x.grad.cpu().numpy(), want_x, rtol=1e-15)
    np.testing.assert_allclose(y.grad.cpu().numpy(), want_y, rtol=1e-15)
    assert not np.isnan(x.grad.cpu().numpy()).any()


@pytest.mark.parametrize("dim,index", [(0, [0, 0, 2]), (0, [2, -1, 0]), (1, [1, 1])])
def test_index_fill_value_gradient_counts_each_place_once(device, dim, index):
    shape = (3, 2)
    v = pdt.tensor(1.5, dtype=pdt.float64, device=device, requires_grad=True)
    x = _leaf(np.zeros(shape), device)
    w = np.arange(1.0, 7.0).reshape(shape)
    out = x.index_fill(dim, pdt.tensor(index, device=device), v)
    (out * pdt.tensor(w, device=device)).sum().backward()
    places = np.zeros(shape, dtype=bool)
    sl = [slice(None)] * 2
    sl[dim] = np.unique(np.array(index) % shape[dim])
    places[tuple(sl)] = True
    assert v.grad.item() == w[places].sum()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.where(places, 0.0, w))
    np.testing.assert_array_equal(out.detach().cpu().numpy(), np.where(places, 1.5, 0.0))


@pytest.mark.parametrize("how", ["zero_", "fill_", "copy_"])
def test_an_overwritten_tensor_gives_its_leaf_a_zero_gradient(device, how):
    """PyTorch's zeros_like(grad) for the old value: the leaf gets .grad zeros, not None
    (an optimizer then applies weight decay and momentum to it, as PyTorch's)."""
    x = _leaf([1.0, 2.0, 3.0], device)
    src = _leaf([4.0, 5.0, 6.0], device)
    y = x * 2
    if how == "zero_":
        y.zero_()
    elif how == "fill_":
        y.fill_(7.0)
    else:
        y.copy_(src)
    (y * pdt.tensor([1.0, 2.0, 3.0], dtype=pdt.float64, device=device)).sum().backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros(3))
    if how == "copy_":
        np.testing.assert_array_equal(src.grad.cpu().numpy(), [1.0, 2.0, 3.0])
    else:
        assert src.grad is None


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_method_and_recorded_node(device, op):
    x = _leaf([1.0, 2.0], device)
    y = getattr(x, op)(pdt.tensor([1.0, 0.0], dtype=pdt.float64, device=device))
    assert type(y.grad_fn).__name__ == op.capitalize() + "Backward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [0.5, 1.0 if op == "fmax" else 0.0])


FILLS = {"uniform_": (), "normal_": (), "exponential_": (), "cauchy_": (), "log_normal_": (),
         "random_": (0, 5), "bernoulli_": (0.5,), "geometric_": (0.5,)}


@pytest.mark.parametrize("fill", sorted(FILLS))
def test_random_fills_in_place_carry_no_gradient(device, fill):
    """PyTorch's: drawn values replace the old ones, whose gradient is zero (the old
    node stayed in place for uniform_/normal_, and the steps of exponential_, cauchy_
    and log_normal_ were differentiated); a leaf that requires grad is refused."""
    a = _leaf([1.0, 2.0, 3.0], device)
    b = a * 2
    assert getattr(b, fill)(*FILLS[fill]) is b
    (b * b).sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), np.zeros(3))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(_leaf([1.0, 2.0], device), fill)(*FILLS[fill])
    with pdt.no_grad():  # nn.init's way
        leaf = _leaf([1.0, 2.0], device)
        getattr(leaf, fill)(*FILLS[fill])
    assert leaf.requires_grad and leaf.grad_fn is None
