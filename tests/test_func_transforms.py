"""pydevtensor.func's transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian;
_func_transforms.py) against closed forms and finite differences, on every device:
their structures as torch.func's, nesting, and regular autograd through them."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp


def _t(v, device):
    return pdt.tensor(np.asarray(v, dtype=np.float64), device=device)


def test_nested_grad_gives_the_higher_derivatives_of_a_cube(device):
    f = lambda x: x ** 3  # noqa: E731
    x = _t(2.0, device)
    assert grad(f)(x).item() == 12.0
    assert grad(grad(f))(x).item() == 12.0
    assert grad(grad(grad(f)))(x).item() == 6.0
    assert grad(grad(grad(grad(f))))(x).item() == 0.0
    g = grad(f)(x)
    assert not g.requires_grad and g.device == x.device
    # the inner transform closes over the outer one's input: d/dx d/dy (x y^2) = 2 y
    y = _t(3.0, device)
    assert grad(lambda x: grad(lambda y: x * y ** 2)(y))(x).item() == 6.0


def test_grad_against_finite_differences_and_argnums(device):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(3), rng.standard_normal(3)
    f = lambda x, y: (x.sin() * y ** 2).sum()  # noqa: E731
    gx, gy = grad(f, argnums=(0, 1))(_t(a, device), _t(b, device))
    fn = lambda a, b: float(np.sum(np.sin(a) * b ** 2))  # noqa: E731
    eps = 1e-6
    num = [np.array([(fn(*(p + eps * e if k == i else p for k, p in enumerate((a, b))))
                      - fn(*(p - eps * e if k == i else p for k, p in enumerate((a, b)))))
                     / (2 * eps) for e in np.eye(3)]) for i in range(2)]
    np.testing.assert_allclose(gx.cpu().numpy(), num[0], atol=1e-8)
    np.testing.assert_allclose(gy.cpu().numpy(), num[1], atol=1e-8)
    last = grad(f, argnums=-1)(_t(a, device), _t(b, device))
    np.testing.assert_allclose(last.cpu().numpy(), num[1], atol=1e-8)
    # a dict argument comes back as a dict; an unused input gets zeros
    d = grad(lambda p: (p["w"] * p["v"]).sum())({"w": _t(a, device), "v": _t(b, device)})
    assert list(d) == ["w", "v"]
    assert_close(d["w"], b, "float64")
    assert_close(grad(lambda x, y: (y * 2).sum())(_t(a, device), _t(b, device)), np.zeros(3),
                 "float64")


def test_grad_and_value_with_aux(device):
    x = _t([1.0, 2.0], device)
    g, (value, aux) = grad_and_value(lambda x: ((x ** 2).sum(), {"x": x * 1}),
                                     has_aux=True)(x)
    assert_close(g, [2.0, 4.0], "float64")
    assert value.item() == 5.0 and not value.requires_grad
    assert not aux["x"].requires_grad and aux["x"].tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="Expected tensors"):  # PyTorch's: aux of Tensors
        grad(lambda x: ((x ** 2).sum(), 7), has_aux=True)(x)
    assert grad_and_value(lambda x, y: (x * y).sum(), argnums=1)(x, x * 3)[0].tolist() == [
        1.0, 2.0]


def test_regular_autograd_runs_through_grad(device):
    """A parameter the function closes over, or an input that requires grad, keeps the
    result in the graph: d/dw of grad_x(w x^2) = 2 x."""
    w = _t(3.0, device).requires_grad_()
    x = _t(2.0, device)
    g = grad(lambda x: w * x ** 2)(x)
    assert g.requires_grad and g.item() == 12.0
    g.backward()
    assert w.grad.item() == 4.0
    xr = _t(2.0, device).requires_grad_()
    g = grad(lambda x: x ** 3)(xr)
    assert g.requires_grad
    g.backward()
    assert xr.grad.item() == 12.0
    with pdt.no_grad():
        assert not grad(lambda x: w * x ** 2)(x).requires_grad


def test_grad_errors(device):
    x = _t([1.0, 2.0], device)
    with pytest.raises(RuntimeError, match=r"Expected f\(\*args\) to return a scalar Tensor, "
                                           r"got tensor with 1 dims"):
        grad(lambda x: x * 2)(x)
    with pytest.raises(RuntimeError, match=r"Got argnum=2, but only 1 positional inputs"):
        grad(lambda x: x.sum(), argnums=2)(x)
    with pytest.raises(RuntimeError, match=r"argnums must be non-empty"):
        grad(lambda x: x.sum(), argnums=())(x)
    with pytest.raises(RuntimeError, match=r"output of function f should be a tuple"):
        grad(lambda x: x.sum(), has_aux=True)(x)


def test_vjp_values_aux_and_reuse(device):
    a, b = _t([1.0, 2.0], device), _t([3.0, 4.0], device)
    out, fn = vjp(lambda x, y: (x * y, x + y), a, b)
    assert out[0].tolist() == [3.0, 8.0] and not out[0].requires_grad
    gx, gy = fn((_t([1.0, 1.0], device), _t([1.0, 0.0], device)))
    assert gx.tolist() == [4.0, 4.0] and gy.tolist() == [2.0, 2.0]
    assert fn((_t([0.0, 2.0], device), _t([0.0, 0.0], device)))[0].tolist() == [0.0, 8.0]
    out, fn, aux = vjp(lambda x: (x.exp(), x), a, has_aux=True)
    (g,) = fn(pdt.ones(2, dtype=pdt.float64, device=device))
    assert_close(g, np.exp([1.0, 2.0]), "float64")
    assert aux.tolist() == [1.0, 2.0] and not aux.requires_grad
    with pytest.raises(RuntimeError, match=r"pytree structure of cotangents"):
        fn((g, g))
    with pytest.raises(RuntimeError, match=r"must be floating-point or complex"):
        vjp(lambda x: x.long(), a)


def test_jacrev_and_jacfwd_structures_and_values(device):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((3, 2))
    x = _t([0.5, -1.0], device)
    for jac in (jacrev, jacfwd):
        J = jac(lambda x: (_t(A, device) @ x).tanh())(x)
        want = (1 - np.tanh(A @ [0.5, -1.0]) ** 2)[:, None] * A
        assert tuple(J.shape) == (3, 2)
        assert_close(J, want, "float64")
        j0, j1 = jac(lambda x, y: x * y, argnums=(0, 1))(x, x * 3)
        assert_close(j0, np.diag([1.5, -3.0]), "float64")
        assert_close(j1, np.diag([0.5, -1.0]), "float64")
        out = jac(lambda x: {"sq": x ** 2, "s": x.sum()})(x)
        assert_close(out["sq"], np.diag([1.0, -2.0]), "float64")
        assert_close(out["s"], [1.0, 1.0], "float64")
        J, aux = jac(lambda x: (x ** 2, x), has_aux=True)(x)
        assert not aux.requires_grad and tuple(J.shape) == (2, 2)
        assert tuple(jac(lambda m: m @ m)(pdt.ones(2, 2, device=device)).shape) == (2, 2, 2, 2)
        assert jac(lambda x: pdt.ones(2, device=device))(x).tolist() == [[0.0, 0.0]] * 2
    with pytest.raises(ValueError, match=r"chunk_size"):
        jacrev(lambda x: x, chunk_size=0)


def test_hessian_closed_forms(device):
    x, y = _t([1.0, 2.0], device), _t([3.0, 4.0], device)
    assert_close(hessian(lambda x: (x ** 3).sum())(x), np.diag([6.0, 12.0]), "float64")
    (hxx, hxy), (hyx, hyy) = hessian(lambda x, y: (x ** 2 * y).sum(), argnums=(0, 1))(x, y)
    assert_close(hxx, np.diag([6.0, 8.0]), "float64")
    assert_close(hxy, np.diag([2.0, 4.0]), "float64")
    assert_close(hyx, np.diag([2.0, 4.0]), "float64")
    assert_close(hyy, np.zeros((2, 2)), "float64")
    # the Hessian of log-sum-exp: diag(p) - p p^T
    p = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    assert_close(hessian(lambda x: x.exp().sum().log())(x), np.diag(p) - np.outer(p, p),
                 "float64")
    assert not hessian(lambda x: (x ** 3).sum())(x).requires_grad


def test_transform_input_output_and_aux_types_as_pytorch(device):
    x = _t([1.0, 2.0], device)
    # a non-Tensor input to differentiate: PyTorch's ValueError (was a RuntimeError)
    for call in (lambda: grad(lambda v: v * 2)(3.0), lambda: vjp(lambda v: v, 3.0),
                 lambda: jacrev(lambda d: d["a"])({"a": x, "b": 3}),
                 lambda: jacfwd(lambda v, w: v, argnums=1)(x, 3.0)):
        with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor"):
            call()
    # jacrev of an integer output refused (it gave a Jacobian of zeros); jacfwd refuses
    # integer primals (ValueError), jacrev a RuntimeError (they cannot require grad)
    with pytest.raises(RuntimeError, match="must be floating-point or complex"):
        jacrev(lambda v: (v * 3).long())(x)
    with pytest.raises(ValueError, match="Expected primal to be floating point"):
        jacfwd(lambda v: v * 2)(pdt.tensor([1, 2], device=device))
    with pytest.raises(ValueError, match="Expected primal to be floating point"):
        hessian(lambda v: (v * v).sum())(pdt.tensor([1, 2], device=device))
    assert_close(jacfwd(lambda v, n: v * n, argnums=0)(x, pdt.tensor(3, device=device)),
                 np.diag([3.0, 3.0]), "float64")
    # aux must be a pytree of Tensors (an int or None was passed through)
    for aux in (1, None, [x, 2.0]):
        for call in (lambda: grad(lambda v: ((v * v).sum(), aux), has_aux=True)(x),
                     lambda: jacrev(lambda v: (v * v, aux), has_aux=True)(x),
                     lambda: vjp(lambda v: (v * v, aux), x, has_aux=True)):
            with pytest.raises(RuntimeError, match="Expected tensors, got unsupported type"):
                call()
    g, aux = grad(lambda v: ((v * v).sum(), {"a": [v], "b": ()}), has_aux=True)(x)
    assert_close(g, [2.0, 4.0], "float64")
    assert aux["b"] == () and aux["a"][0].tolist() == [1.0, 2.0]


def _central_jvp(f, xs, ts, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / (2 eps), NumPy in and out."""
    hi = f(*[x + eps * t for x, t in zip(xs, ts)])
    lo = f(*[x - eps * t for x, t in zip(xs, ts)])
    return (hi - lo) / (2 * eps)


def test_jvp_against_central_differences(device):
    rng = np.random.default_rng(4)
    for shape in ((), (3,), (2, 3)):
        a, b, ta, tb = (rng.standard_normal(shape) for _ in range(4))
        out, jv = jvp(lambda x, y: (x.sin() * y).exp(), (_t(a, device), _t(b, device)),
                      (_t(ta, device), _t(tb, device)))
        assert_close(out, np.exp(np.sin(a) * b), "float64")
        want = _central_jvp(lambda x, y: np.exp(np.sin(x) * y), (a, b), (ta, tb))
        np.testing.assert_allclose(jv.cpu().numpy(), want, rtol=1e-7, atol=1e-8)
        assert not out.requires_grad and not jv.requires_grad
    # J t of a matrix product, and pytrees of primals and outputs
    A, x, t = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal(2)
    (o1, o2), (j1, j2) = jvp(lambda d: (_t(A, device) @ d["x"][0], (d["x"][0] ** 2).sum()),
                             ({"x": [_t(x, device)]},), ({"x": [_t(t, device)]},))
    assert_close(j1, A @ t, "float64")
    assert_close(j2, 2 * x @ t, "float64")


def test_jvp_aux_strict_and_independent_outputs(device):
    x, t = _t([1.0, 2.0], device), _t([0.5, -1.0], device)
    out, jv, aux = jvp(lambda v: (v ** 2, {"a": v * 3}), (x,), (t,), has_aux=True)
    assert_close(jv, [1.0, -4.0], "float64")
    assert aux["a"].tolist() == [3.0, 6.0] and not aux["a"].requires_grad
    (o, c), (jo, jc) = jvp(lambda v: (v * 2, pdt.ones(2, device=device)), (x,), (t,))
    assert_close(jo, [1.0, -2.0], "float64")
    assert jc.tolist() == [0.0, 0.0]  # an output independent of the inputs: zeros
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        jvp(lambda v: (v * 2, pdt.ones(2, device=device)), (x,), (t,), strict=True)
    _, ji = jvp(lambda v: (v * 3).long(), (x,), (t,))
    assert ji.dtype == pdt.int64 and ji.tolist() == [0, 0]


def test_jvp_composes_with_grad_and_closed_over_parameters(device):
    x, t = _t([0.3, -0.7], device), _t([1.0, 2.0], device)
    # d/dx sum(cos(x) * t) = -sin(x) * t
    g = grad(lambda v: jvp(lambda a: a.sin(), (v,), (t,))[1].sum())(x)
    assert_close(g, -np.sin([0.3, -0.7]) * [1.0, 2.0], "float64")
    assert not g.requires_grad
    # jvp of a gradient: the Hessian (diag(2 - x sin x ... )) times t, here of sum(x^3)
    _, hv = jvp(grad(lambda a: (a ** 3).sum()), (x,), (t,))
    assert_close(hv, 6 * np.array([0.3, -0.7]) * [1.0, 2.0], "float64")
    p = _t([2.0, 3.0], device).requires_grad_()
    _, jv = jvp(lambda a: a * p, (x,), (t,))  # the result stays in p's graph
    jv.sum().backward()
    assert_close(p.grad, [1.0, 2.0], "float64")


def test_jvp_refusals_as_pytorch(device):
    x = _t([1.0, 2.0], device)
    for call, kind, match in (
            (lambda: jvp(lambda v: v, [x], [x]), RuntimeError, "Expected primals to be a tuple"),
            (lambda: jvp(lambda v: v, (x,), [x]), RuntimeError, "same python structure"),
            (lambda: jvp(lambda v, w: v, (x, x), (x,)), RuntimeError, "same python structure"),
            (lambda: jvp(lambda v: v, (x,), (pdt.ones(3, device=device),)), RuntimeError,
             r"Tensor is of size \[2\] while the given forward gradient is of size \[3\]"),
            (lambda: jvp(lambda v: v, (1.0,), (1.0,)), RuntimeError,
             "Expected primals to only contain Tensors"),
            (lambda: jvp(lambda: x, (), ()), RuntimeError, "at least one Tensor"),
            (lambda: jvp(lambda v: 1.0, (x,), (x,)), RuntimeError, "return only tensors"),
            (lambda: jvp(lambda v: v, (x,), (x,), has_aux=True), RuntimeError,
             r"should be a tuple: \(output, aux\)"),
            (lambda: jvp(lambda v: v, (pdt.tensor([1, 2], device=device),),
                         (pdt.tensor([1, 2], device=device),)), ValueError,
             "Expected primal to be floating point")):
        with pytest.raises(kind, match=match):
            call()


def test_nested_transforms_return_detached_results(device):
    # the fresh leaves of an inner call made the outer one record its gradients
    x, y = _t([1.0, 2.0], device), _t([3.0, 4.0], device)
    g = grad(lambda v: grad(lambda a, b: (a * a * b).sum())(v, y).sum())(x)
    assert g.tolist() == [6.0, 8.0] and not g.requires_grad
    j = jacrev(lambda v: vjp(lambda a, b: a.sin() * b, v, y)[1](pdt.ones(2, device=device,
                                                                      dtype=pdt.float64))[0])(x)
    assert_close(j, np.diag(-np.sin([1.0, 2.0]) * [3.0, 4.0]), "float64")
    assert not j.requires_grad
