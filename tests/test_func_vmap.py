"""pydevtensor.func.vmap (and pydevtensor.vmap; _func_vmap.py) against explicit loops and
closed forms, on every device: in_dims and out_dims as torch.func.vmap takes them,
nesting, the other transforms inside and around it, autograd through it, randomness,
and PyTorch's errors."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor.func import grad, hessian, jacfwd, jacrev, vmap


def _t(v, device):
    return pdt.tensor(np.asarray(v, dtype=np.float64), device=device)


def test_vmap_equals_the_loop_for_in_dims_and_out_dims(device):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 4))
    f = lambda u, v: u.sin() * v  # noqa: E731
    loop = np.stack([np.sin(a[i]) * b[:, i] for i in range(4)])
    assert_close(vmap(f, in_dims=(0, 1))(_t(a, device), _t(b, device)), loop, "float64")
    assert_close(vmap(f, in_dims=(0, -1), out_dims=1)(_t(a, device), _t(b, device)), loop.T,
                 "float64")
    assert_close(vmap(f, in_dims=(-2, 1), out_dims=-1)(_t(a, device), _t(b, device)), loop.T,
                 "float64")
    # None: the argument is passed whole to every example; kwargs too
    c = rng.standard_normal(3)
    assert_close(vmap(f, in_dims=(0, None))(_t(a, device), _t(c, device)), np.sin(a) * c,
                 "float64")
    g = lambda u, *, scale: u * scale  # noqa: E731
    assert_close(vmap(g)(_t(a, device), scale=_t(c, device)), a * c, "float64")
    # a non-Tensor argument with in_dim None
    assert_close(vmap(lambda u, k: u * k, in_dims=(0, None))(_t(a, device), 2.0), 2 * a,
                 "float64")
    assert vmap(lambda u: u * 2)(pdt.arange(3, device=device)).tolist() == [0, 2, 4]


def test_vmap_takes_pytrees_of_inputs_and_outputs(device):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    x, y = _t(a, device), _t(b, device)
    # a dict argument with a dict of in_dims; an int stands for a whole structure
    out = vmap(lambda d: d["x"] * d["y"], in_dims=({"x": 0, "y": None},))({"x": x, "y": y})
    assert_close(out, a * b, "float64")
    assert_close(vmap(lambda t: t[0] + t[1], in_dims=(0,))((x, x)), 2 * a, "float64")
    assert_close(vmap(lambda t: t[0] - t[1])([x, x.flip(0)]), a - a[::-1], "float64")
    # outputs: a tuple with out_dims per output, a dict, a list
    s, m = vmap(lambda u: (u.sum(), u * 3), out_dims=(0, 1))(x)
    assert_close(s, a.sum(1), "float64")
    assert_close(m, (3 * a).T, "float64")
    d = vmap(lambda u: {"s": u.sum(), "u": u})(x)
    assert list(d) == ["s", "u"]
    assert_close(d["u"], a, "float64")
    lst = vmap(lambda u: [u, u.cos()])(x)
    assert isinstance(lst, list) and len(lst) == 2
    assert_close(lst[1], np.cos(a), "float64")
    assert_close(vmap(lambda u: u, out_dims=(1,))(x), a.T, "float64")  # (d,) for one output
    # out_dims None for an output that does not depend on the example
    m, c = vmap(lambda u: (u * 2, y * 2), out_dims=(0, None))(x)
    assert_close(c, 2 * b, "float64")
    assert vmap(lambda u: 1.5, out_dims=None)(x) == 1.5
    assert vmap(lambda u: pdt.max(u, 0))(x).indices.tolist() == np.argmax(a, 1).tolist()


def test_nested_vmap_equals_the_double_loop(device):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 3))
    x, y = _t(a, device), _t(b, device)
    dist = lambda u, v: ((u - v) ** 2).sum()  # noqa: E731
    table = vmap(vmap(dist, in_dims=(None, 0)), in_dims=(0, None))(x, y)
    assert_close(table, ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1), "float64")
    assert_close(vmap(vmap(pdt.sin))(x), np.sin(a), "float64")
    assert_close(vmap(vmap(lambda u: u * 2), in_dims=1, out_dims=1)(x), 2 * a, "float64")


def test_per_sample_gradients_of_a_linear_model(device):
    """grad of 0.5 (w.x_i - y_i)^2 is x_i (w.x_i - y_i); the vmapped loss backward()'d
    gives their sum, as the loop does."""
    rng = np.random.default_rng(3)
    xs, ys, w0 = rng.standard_normal((5, 3)), rng.standard_normal(5), rng.standard_normal(3)
    loss = lambda w, x, y: 0.5 * (w.dot(x) - y) ** 2  # noqa: E731
    w, x, y = _t(w0, device), _t(xs, device), _t(ys, device)
    per_sample = xs * (xs @ w0 - ys)[:, None]
    assert_close(vmap(grad(loss), in_dims=(None, 0, 0))(w, x, y), per_sample, "float64")
    assert_close(vmap(grad(loss), in_dims=(None, 0, 0), chunk_size=2)(w, x, y), per_sample,
                 "float64")
    wr = w.clone().requires_grad_()
    vmap(loss, in_dims=(None, 0, 0))(wr, x, y).sum().backward()
    assert_close(wr.grad, per_sample.sum(0), "float64")
    xr = x.clone().requires_grad_()
    weighted = vmap(loss, in_dims=(None, 0, 0))(w, xr, y) * _t(np.arange(5.0), device)
    weighted.sum().backward()
    assert_close(xr.grad, np.arange(5.0)[:, None] * (xs @ w0 - ys)[:, None] * w0, "float64")


def test_jacobians_and_hessians_under_vmap_and_around_it(device):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 2))
    x = _t(a, device)
    expected = np.stack([np.diag(np.cos(r)) for r in a])
    assert_close(vmap(jacrev(pdt.sin))(x), expected, "float64")
    assert_close(vmap(jacfwd(pdt.sin))(x), expected, "float64")
    assert_close(vmap(hessian(lambda v: (v ** 3).sum()))(x),
                 np.stack([np.diag(6 * r) for r in a]), "float64")
    # jacrev of a vmapped function: block diagonal over the examples
    j = jacrev(vmap(pdt.sin))(x)
    ref = np.zeros((3, 2, 3, 2))
    for i in range(3):
        ref[i, :, i, :] = np.diag(np.cos(a[i]))
    assert_close(j, ref, "float64")


def test_empty_batch_gives_empty_outputs(device):
    x = pdt.ones(0, 3, dtype=pdt.float64, device=device, requires_grad=True)
    out = vmap(lambda u: u * 2)(x)
    assert tuple(out.shape) == (0, 3) and out.requires_grad and out.device == x.device
    out.sum().backward()
    assert tuple(x.grad.shape) == (0, 3)
    s, m = vmap(lambda u: (u.sum(), u.outer(u)), out_dims=(0, 2))(x)
    assert tuple(s.shape) == (0,) and tuple(m.shape) == (3, 3, 0)
    assert vmap(lambda u: u > 0)(pdt.ones(0, 2, device=device)).dtype == pdt.bool


def test_randomness_modes(device):
    x = pdt.ones(4, 2, device=device)
    before = pdt.get_rng_state()
    with pytest.raises(RuntimeError, match=r"called random operation while in randomness "
                                           r"error mode"):
        vmap(lambda u: u + pdt.rand(2, device=device))(x)
    assert pdt.equal(before, pdt.get_rng_state())  # the refused draw is taken back
    with pytest.raises(RuntimeError, match=r"randomness error mode"):  # the outer level's
        vmap(vmap(lambda u: pdt.rand((), device=device), randomness="different"))(x)
    pdt.manual_seed(0)
    diff = vmap(lambda u: pdt.rand(3, device=device), randomness="different")(x)
    pdt.manual_seed(0)
    loop = pdt.stack([pdt.rand(3, device=device) for _ in range(4)])
    assert pdt.equal(diff, loop) and len({tuple(r) for r in diff.tolist()}) == 4
    pdt.manual_seed(0)
    same = vmap(lambda u: pdt.rand(3, device=device), randomness="same")(x)
    after_vmap = pdt.get_rng_state()
    pdt.manual_seed(0)
    one = pdt.rand(3, device=device)
    assert all(pdt.equal(r, one) for r in same)
    assert pdt.equal(after_vmap, pdt.get_rng_state())  # as after one example
    # without random ops, 'error' leaves the generator alone
    before = pdt.get_rng_state()
    vmap(pdt.sin)(x)
    assert pdt.equal(before, pdt.get_rng_state())


def test_top_level_alias_and_the_wrapped_name():
    assert pdt.vmap is vmap
    assert "vmap" in dir(pdt) and "vmap" in pdt.func.__all__

    def square(u):
        return u * u
    assert vmap(square).__name__ == "square"


def test_vmap_errors(device):
    x = pdt.arange(6.0, device=device).reshape(2, 3)
    with pytest.raises(ValueError, match=r"same size in the mapped dimension, got sizes "
                                         r"\[2, 3\] .* shapes \[\(2, 3\), \(3, 3\)\]"):
        vmap(lambda u, v: u + v)(x, pdt.ones(3, 3, device=device))
    with pytest.raises(ValueError, match=r"Expected at least one Tensor to vmap over"):
        vmap(lambda u, v: u, in_dims=(None, None))(x, x)
    with pytest.raises(ValueError, match=r"Got in_dim=2 for some input, but that input is a "
                                         r"Tensor of dimensionality 2 \(shape \(2, 3\)"):
        vmap(lambda u: u, in_dims=2)(x)
    with pytest.raises(ValueError, match=r"in_dim=-3 .* -2 <= in_dim < 2"):
        vmap(lambda u: u, in_dims=-3)(x)
    with pytest.raises(ValueError, match=r"expected `in_dims` to be int or a \(potentially "
                                         r"nested\) tuple .* got: <class 'list'>"):
        vmap(lambda u: u, in_dims=[0])(x)
    with pytest.raises(ValueError, match=r"in_dims is not compatible with the structure of "
                                         r"`inputs`"):
        vmap(lambda u, v: u, in_dims=(0,))(x, x)
    with pytest.raises(ValueError, match=r"We cannot vmap over non-Tensor arguments"):
        vmap(lambda u, k: u * k)(x, 2.0)
    with pytest.raises(ValueError, match=r"got no inputs"):
        vmap(lambda: pdt.ones(2))()
    with pytest.raises(ValueError, match=r"must only return Tensors, got type <class "
                                         r"'float'>"):
        vmap(lambda u: 1.0)(x)
    with pytest.raises(ValueError, match=r"can not return a BatchedTensor when out_dim is "
                                         r"None"):
        vmap(lambda u: u * 2, out_dims=None)(x)
    with pytest.raises(ValueError, match=r"out_dims is not compatible with the structure of "
                                         r"`outputs`"):
        vmap(lambda u: (u, u), out_dims=(0, 0, 0))(x)
    with pytest.raises(ValueError, match=r"`out_dims` must be an int, None or a python "
                                         r"collection of ints"):
        vmap(lambda u: u, out_dims="a")(x)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\], but got 2\)"):
        vmap(lambda u: u, out_dims=2)(x)
    with pytest.raises(RuntimeError, match=r"randomness are 'error', 'different', or 'same'. "
                                           r"Got foo"):
        vmap(lambda u: u, randomness="foo")
    with pytest.raises(ValueError, match=r"chunk_size should be None or greater than 0. "
                                         r"\(got 0\)"):
        vmap(lambda u: u, chunk_size=0)
