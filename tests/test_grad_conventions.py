"""Gradient conventions at special points, as PyTorch 2.15 gives them (run side by
side): max()/min() of everything with NaNs, atan2 at (0, 0), index_fill with repeated
indices, a tensor overwritten by zero_/fill_/copy_, fmax/fmin at ties, on every device."""
import math

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


def _pinv_grad_numpy(a, w):
    """The gradient of sum(pinv(A) * W), Golub and Pereyra's formula in NumPy."""
    p = np.linalg.pinv(a)
    pt, gt = p.T, w.T
    eye_m, eye_n = np.eye(a.shape[0]), np.eye(a.shape[1])
    return -pt @ w @ pt + (eye_m - a @ p) @ gt @ p @ pt + pt @ p @ gt @ (eye_n - p @ a)


@pytest.mark.parametrize("a", [np.eye(3), np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros((3, 3)),
                               np.arange(12.0).reshape(4, 3), np.arange(15.0).reshape(3, 5)])
def test_pinv_gradient_is_finite_at_repeated_and_zero_singular_values(device, a):
    """pinv's own derivative (was through svd's 1 / (s_i^2 - s_j^2): NaN for the
    identity); checked against the closed form in NumPy (rank-deficient arange
    matrices included) and by central differences where the rank is full."""
    w = np.random.default_rng(4).standard_normal(a.shape[::-1])
    x = pdt.tensor(a, device=device, requires_grad=True)
    (pdt.linalg.pinv(x) * pdt.tensor(w, device=device)).sum().backward()
    got = x.grad.cpu().numpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, _pinv_grad_numpy(a, w), rtol=1e-9, atol=1e-12)
    if np.linalg.matrix_rank(a) == min(a.shape) and a.any():
        h, fd = 1e-6, np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            e = np.zeros_like(a)
            e[idx] = h
            fd[idx] = ((np.linalg.pinv(a + e) - np.linalg.pinv(a - e)) * w).sum() / (2 * h)
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_lstsq_gradient_of_the_identity_is_finite(device):
    if pdt.device(device).type == "cuda":
        pytest.skip("CUDA's lstsq has the 'gels' driver only (QR), as PyTorch's")
    a = pdt.eye(3, dtype=pdt.float64, device=device, requires_grad=True)
    b = pdt.ones(3, 1, dtype=pdt.float64, device=device, requires_grad=True)
    pdt.linalg.lstsq(a, b, driver="gelsd").solution.sum().backward()
    # X = A^+ B: dX/dA at I is -X^T-like (the pinv formula), dX/dB = A^+T
    np.testing.assert_allclose(a.grad.cpu().numpy(), -np.ones((3, 3)), rtol=1e-12)
    np.testing.assert_allclose(b.grad.cpu().numpy(), np.ones((3, 1)), rtol=1e-12)


def test_logsumexp_gradient_where_the_result_is_infinite(device):
    """PyTorch's g * exp(x - result): 0 for a finite x beside an inf (the composed form
    gave NaN where exp(x) overflows float32), NaN for the inf itself."""
    x = pdt.tensor([math.inf, 1000.0, 1.0], device=device, requires_grad=True)
    y = pdt.logsumexp(x, 0)
    y.backward()
    assert y.item() == math.inf and type(y.grad_fn).__name__ == "LogsumexpBackward0"
    got = x.grad.cpu().numpy()
    assert np.isnan(got[0]) and got[1:].tolist() == [0.0, 0.0]
    a = np.random.default_rng(6).standard_normal((3, 4))
    x = pdt.tensor(a, device=device, requires_grad=True)
    pdt.logsumexp(x, 1).sum().backward()
    soft = np.exp(a - np.log(np.exp(a).sum(1, keepdims=True)))
    np.testing.assert_allclose(x.grad.cpu().numpy(), soft, rtol=1e-12)


@pytest.mark.parametrize("how", ["relu_", "zero_", "copy_", "fill_"])
def test_second_derivative_through_an_overwritten_tensor(device, how):
    """The old value's zero gradient counts as recorded (its derivative is zero), so
    create_graph=True works through in-place ops, as PyTorch's (gradient penalties on
    models with inplace=True activations)."""
    a = np.array([1.0, 2.0])
    x = _leaf(a, device)
    y = x ** 3
    if how == "relu_":
        y.relu_()
    elif how == "zero_":
        y.zero_()
    elif how == "copy_":
        y.copy_(x * x)
    else:
        y.fill_(1.0)
    z = y + x * x
    (g,) = pdt.autograd.grad((z * z).sum(), x, create_graph=True)
    (h,) = pdt.autograd.grad(g.sum(), x)
    # z = f(x) + x^2 with f = x^3 (relu of positives), 0, x^2 or 1: sum(z^2)'s
    # first derivative 2 z z', second 2 (z'^2 + z z'')
    f, f1, f2 = {"relu_": (a ** 3, 3 * a ** 2, 6 * a), "zero_": (0 * a, 0 * a, 0 * a),
                 "copy_": (a ** 2, 2 * a, 2 + 0 * a), "fill_": (1 + 0 * a, 0 * a, 0 * a)}[how]
    z0, z1, z2 = f + a ** 2, f1 + 2 * a, f2 + 2
    np.testing.assert_allclose(g.detach().cpu().numpy(), 2 * z0 * z1, rtol=1e-12)
    np.testing.assert_allclose(h.cpu().numpy(), 2 * (z1 * z1 + z0 * z2), rtol=1e-12)


def test_fill_with_a_0d_tensor_passes_it_the_gradient(device):
    """PyTorch's fill_(Tensor): the value is copied in and gets the sum of the gradient."""
    v = pdt.tensor(2.0, dtype=pdt.float64, device=device, requires_grad=True)
    y = pdt.zeros(3, dtype=pdt.float64, device=device)
    assert y.fill_(v) is y and y.tolist() == [2.0, 2.0, 2.0]
    (y * pdt.tensor([1.0, 2.0, 3.0], dtype=pdt.float64, device=device)).sum().backward()
    assert v.grad.item() == 6.0
    ints = pdt.ones(3, dtype=pdt.int64, device=device).fill_(pdt.tensor(2.7, device=device))
    assert ints.tolist() == [2, 2, 2]
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        pdt.ones(3, device=device).fill_(pdt.ones(2, device=device))


def test_a_once_differentiable_backward_with_two_results_names_itself(device):
    """Differentiating both results of a backward that is not differentiable (of
    different shapes) raised an add's shape error: the two shared one slot of the error
    node (node.delay_error).  They have one each: the error raised is the node's."""
    class Product(pdt.autograd.Function):
        @staticmethod
        def forward(ctx, x, s):
            ctx.save_for_backward(x, s)
            return x.sum() * s.sum()

        @staticmethod
        @pdt.autograd.function.once_differentiable
        def backward(ctx, g):
            x, s = ctx.saved_tensors
            return g * s.sum() * pdt.ones_like(x), g * x.sum() * pdt.ones_like(s)

    x = pdt.tensor(np.arange(1.0, 13.0).reshape(3, 4), device=device, requires_grad=True)
    s = pdt.tensor(np.arange(1.0, 7.0).reshape(3, 2), device=device, requires_grad=True)
    v = pdt.tensor(2.0, dtype=x.dtype, device=device, requires_grad=True)
    gx, gs = pdt.autograd.grad(Product.apply(x, s), [x, s], v, create_graph=True)
    assert gx.tolist() == [[42.0] * 4] * 3 and gs.tolist() == [[156.0] * 2] * 3
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked "
                                           "with @once_differentiable"):
        pdt.autograd.grad(gx.sum() + gs.sum(), v)


def test_post_accumulate_grad_hook_on_any_leaf(device):
    """Tensor.register_post_accumulate_grad_hook (it was Parameter's only): called
    after each accumulation with the leaf, .grad already summed; refused on non-leaves."""
    w = pdt.ones(2, dtype=pdt.float64, device=device, requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (w * 3).sum().backward()
    (w * 2).sum().backward()
    assert seen == [[3.0, 3.0], [5.0, 5.0]]
    handle.remove()
    (w * 2).sum().backward()
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        pdt.ones(2, device=device).register_post_accumulate_grad_hook(print)
