"""create_graph=True (higher-order gradients) and autograd.functional (jacobian,
hessian, vjp, jvp, hvp, vhp): Hessians of everyday ops built from grad(grad(...)),
compared in float64 with torch's (when it imports) and with central differences of
the first gradient; nodes whose backward is not differentiable raise naming
themselves.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import autograd
from pydevtensor.autograd import functional as AF

F = pdt.nn.functional
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)) * 0.7 + 0.1
B = RNG.standard_normal((4, 2))


def cases(L, Fn, dev):
    def t(a, **kw):
        return L.tensor(a, device=dev, **kw)

    b = t(B)
    ones = L.ones(3, 4, dtype=L.float64, device=dev)
    w = t(np.linspace(-1.0, 1.0, 8).reshape(2, 1, 2, 2))
    return {
        "arith": lambda x: (x * x * 3 + x / (x * x + 2) - x).sum(),
        "pow": lambda x: (x ** 3).sum() + ((x * x + 1) ** x).sum() + (2.0 ** x).sum(),
        "exp_log": lambda x: (x.exp() * (x * x + 1).log()).sum(),
        "tanh_sigmoid": lambda x: (x.tanh() ** 2 + x.sigmoid() * x).sum(),
        "relu": lambda x: (x.relu() * x).sum(),
        "sum_mean": lambda x: (x.sum(1) ** 2).sum() + (x.mean(0) ** 3).mean(),
        "matmul": lambda x: ((x @ b).tanh() ** 2).sum(),
        "mm": lambda x: (L.mm(x, x.T) ** 2).sum(),
        "linear": lambda x: (Fn.linear(x, x[:2] * 1.0, x[0, :2] * 1.0) ** 2).sum(),
        "views": lambda x: ((x.reshape(4, 3).T * x.transpose(0, 1).T) ** 2).sum()
        + (x[1:, ::2] ** 3).sum() + (x[1] ** 3).sum(),
        "indexing": lambda x: (x.view(12)[t([0, 5, 5])] ** 3).sum()
        + (x.index_select(1, t([0, 3, 3])) ** 3).sum()
        + (x.gather(1, t([[0, 3], [1, 1], [2, 0]])) ** 3).sum(),
        "mse_loss": lambda x: Fn.mse_loss(x ** 2, ones),
        "softmax": lambda x: (Fn.softmax(x, 1) ** 2 * L.arange(4, dtype=L.float64,
                                                             device=dev)).sum(),
        "log_softmax": lambda x: (Fn.log_softmax(x, 1) ** 2).sum(),
        "cross_entropy": lambda x: Fn.cross_entropy(x * x, t([1, 0, 3])),
        "sqrt_abs_sin": lambda x: ((x * x + 1).sqrt() * x.abs() * x.sin()).sum(),
        "amax_norm": lambda x: (x.amax(1) ** 2).sum() + x.norm() ** 3,
        "cat_stack_where": lambda x: (L.cat([x, x * 2], 0) ** 3).sum()
        + (L.where(x > 0, x ** 2, x ** 3)).sum(),
        "prod_var": lambda x: x.prod(1).sum() + x.var(1).sum(),
        "tril_where": lambda x: (L.tril(x) ** 3).sum() + (L.where(x > 0, x, -x) ** 3).sum(),
        "elu_softplus_bce": lambda x: (Fn.elu(x) * Fn.softplus(x)).sum()
        + Fn.binary_cross_entropy_with_logits(x * x, ones * 0.25),
        "conv_pools": lambda x: (Fn.conv2d(x.reshape(1, 1, 3, 4), w, padding=1).tanh() ** 2).sum()
        + (Fn.max_pool2d(x.reshape(1, 1, 3, 4), 2) ** 3).sum()
        + (Fn.avg_pool2d(x.reshape(1, 1, 3, 4), 2) ** 3).sum(),
        "norms": lambda x: (Fn.layer_norm(x, (4,)) ** 3).sum()
        + (Fn.batch_norm(x, None, None, training=True) ** 3).sum(),
    }


NAMES = list(cases(pdt, F, "cpu"))


def _hessian_by_grad_of_grad(f, x):
    (g,) = autograd.grad(f(x), x, create_graph=True)
    rows = []
    for i in range(x.numel()):
        e = np.zeros(x.numel())
        e[i] = 1
        (h,) = autograd.grad(g, x, pdt.tensor(e.reshape(x.shape), device=x.device),
                             retain_graph=True, allow_unused=True)
        rows.append(np.zeros(x.numel()) if h is None else h.cpu().numpy().reshape(-1))
    return g, np.array(rows)


@pytest.mark.parametrize("name", NAMES)
def test_second_derivatives_against_finite_differences_and_torch(device, name):
    f = cases(pdt, F, device)[name]
    x = pdt.tensor(A, device=device, requires_grad=True)
    g, H = _hessian_by_grad_of_grad(f, x)
    eps = 1e-5  # central differences of the first gradient, column by column
    fd = np.zeros((12, 12))
    for j in range(12):
        d = np.zeros(12)
        d[j] = eps
        xp = pdt.tensor(A + d.reshape(3, 4), device=device, requires_grad=True)
        xm = pdt.tensor(A - d.reshape(3, 4), device=device, requires_grad=True)
        gp = autograd.grad(f(xp), xp)[0].cpu().numpy().reshape(-1)
        gm = autograd.grad(f(xm), xm)[0].cpu().numpy().reshape(-1)
        fd[:, j] = (gp - gm) / (2 * eps)
    assert np.abs(H - fd).max() < 1e-5 * (1 + np.abs(fd).max())
    try:
        torch = torch_or_skip()
    except pytest.skip.Exception:
        return
    xt = torch.tensor(A, requires_grad=True)
    ft = cases(torch, torch.nn.functional, "cpu")[name]
    assert_close(g, torch.autograd.grad(ft(xt), xt)[0].numpy(), "float64")
    ht = torch.autograd.functional.hessian(ft, xt).reshape(12, 12).numpy()
    assert np.abs(H - ht).max() < 1e-9 * (1 + np.abs(ht).max())


def test_backward_create_graph_gradient_penalty(device):
    """WGAN-GP's penalty: ||d critic / d x|| enters the loss, backward reaches w."""
    w = pdt.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    x = pdt.tensor([[1.0, 2.0]], dtype=pdt.float64, device=device, requires_grad=True)
    critic = (x @ w).tanh().sum()
    (gx,) = autograd.grad(critic, x, create_graph=True)
    assert gx.requires_grad and gx.grad_fn is not None
    ((gx.norm() - 1) ** 2).backward()
    assert w.grad is not None
    x.grad = None
    y = (x ** 3).sum()
    y.backward(create_graph=True)  # .grad keeps a graph; retain_graph implied
    assert x.grad.requires_grad
    (x.grad.sum()).backward(inputs=[x])  # d/dx sum(3 x^2) = 6 x, added to 3 x^2
    assert_close(x.grad, 3 * np.array([[1.0, 4.0]]) + 6 * np.array([[1.0, 2.0]]), "float64")
    y.backward()  # the graph was retained



@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
                                  "reflect_pad"])
def test_gradient_penalty_through_pools_and_padding(device, name):
    """The gradient through a pool or a reflect pad, taken with create_graph, is
    recorded as a function of the incoming gradient: d/dw of it (w the weights of the
    output, as a critic's) against central differences."""
    from pydevtensor.nn import functional as F
    from test_gradcheck import gradcheck
    op = {"max_pool2d": lambda v: F.max_pool2d(v, 3, 2, 1),
          "avg_pool2d": lambda v: F.avg_pool2d(v, 3, 2, 1),
          "adaptive_avg_pool2d": lambda v: F.adaptive_avg_pool2d(v, 3),
          "reflect_pad": lambda v: F.pad(v, (1, 2, 2, 1), mode="reflect")}[name]
    rng = np.random.default_rng(3)
    x = pdt.tensor(rng.permutation(32).reshape(1, 2, 4, 4), dtype=pdt.float64,
                   device=device, requires_grad=True)
    w0 = rng.standard_normal(tuple(op(x).shape))

    def penalty_grad(w):
        with pdt.enable_grad():  # the differences are taken under no_grad
            (g,) = autograd.grad((op(x) * w).sum(), x, create_graph=True)
        # as PyTorch's, g requires grad whenever x does (Note [linear inputs])
        assert g.requires_grad
        return g * g

    gradcheck(penalty_grad, [w0], device)


def test_functional_against_torch(device):
    rng = np.random.default_rng(1)
    a, v, u = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(2)

    def f(L):
        return lambda x: L.stack([(x ** 2).sum() * x[0], x.exp().prod()])

    def s(x):
        return (x ** 3).sum() * x[1] + x.sin().sum()

    x = pdt.tensor(a, device=device)
    dv, du = pdt.tensor(v, device=device), pdt.tensor(u, device=device)
    J = AF.jacobian(f(pdt), x)
    H = AF.hessian(s, x)
    out, vj = AF.vjp(f(pdt), x, du)
    out2, jv = AF.jvp(f(pdt), x, dv)
    _, hv = AF.hvp(s, x, dv)
    _, vh = AF.vhp(s, x, dv)
    assert tuple(J.shape) == (2, 3) and tuple(H.shape) == (3, 3)
    assert_close(vj, u @ J.cpu().numpy(), "float64")
    assert_close(jv, J.cpu().numpy() @ v, "float64")
    assert_close(hv, H.cpu().numpy() @ v, "float64")
    assert_close(vh, v @ H.cpu().numpy(), "float64")
    assert not (J.requires_grad or vj.requires_grad or jv.requires_grad or out.requires_grad)
    # several inputs: a tuple of tuples
    J2 = AF.jacobian(lambda p, q: (p * q).sum().reshape(1), (x, x * 2))
    assert len(J2) == 2 and tuple(J2[0].shape) == (1, 3)
    try:
        torch = torch_or_skip()
    except pytest.skip.Exception:
        return
    TF = torch.autograd.functional
    xt = torch.tensor(a)
    assert_close(J, TF.jacobian(f(torch), xt).numpy(), "float64")
    assert_close(H, TF.hessian(s, xt).numpy(), "float64")
    assert_close(jv, TF.jvp(f(torch), xt, torch.tensor(v))[1].numpy(), "float64")
    assert_close(hv, TF.hvp(s, xt, torch.tensor(v))[1].numpy(), "float64")


def test_functional_bad_input():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        AF.jacobian(lambda x: x, [1.0])
    with pytest.raises(RuntimeError, match="single Tensor with a single element"):
        AF.hessian(lambda x: x * 2, pdt.ones(2))
    with pytest.raises(RuntimeError, match="v can only be None"):
        AF.vjp(lambda x: x * 2, pdt.ones(2))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.jacobian(lambda x: x, pdt.ones(1), strategy="forward-mode")


def test_functional_refuses_lists_as_pytorch(device):
    # only a Tensor or a tuple of Tensors, as PyTorch's (a list was taken as a tuple)
    x = pdt.ones(2, device=device)
    list_in = "but the given inputs has type list"
    for call, match in (
            (lambda: AF.jacobian(lambda a, b: a * b, [x, x]), list_in),
            (lambda: AF.hessian(lambda a, b: (a * b).sum(), [x, x]), list_in),
            (lambda: AF.vjp(lambda a: a * 2, [x], [x]), list_in),
            (lambda: AF.jvp(lambda a: a * 2, x, [x]), "given v has type list"),
            (lambda: AF.hvp(lambda a: (a * a).sum(), x, [x]), "given v has type list"),
            (lambda: AF.jacobian(lambda a: [a, a * 2], x), "outputs of the user-provided "
             "function given to the function .* given outputs of the user-provided "
             "function has type list"),
            (lambda: AF.jacobian(lambda a, b: a * b, (x, 2.0)), "value at index 1 has type "
             "float")):
        with pytest.raises(TypeError, match=match):
            call()


def _central_jacobian(f, xs, eps=1e-6):
    """[output][input] central differences of f (NumPy arrays in and out)."""
    outs = f(*xs)
    jac = [[np.zeros(o.shape + x.shape) for x in xs] for o in outs]
    for k, x in enumerate(xs):
        for idx in np.ndindex(x.shape):
            hi = [a.copy() for a in xs]
            lo = [a.copy() for a in xs]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            for i, (a, b) in enumerate(zip(f(*hi), f(*lo))):
                jac[i][k][(...,) + idx] = (a - b) / (2 * eps)
    return jac


def test_jacobian_forward_mode_matches_reverse_mode_and_differences(device):
    """strategy="forward-mode" (with vectorize=True, as PyTorch requires): tuple inputs and
    outputs nested [output][input], an output independent of an input gives zeros."""
    def f(L):
        return lambda x, y: (x * y.sum(), (x ** 2).sin().sum(), (y.exp() * 2)[None])

    def f_np(x, y):
        return (x * y.sum(), np.sin(x ** 2).sum(), (np.exp(y) * 2)[None])

    x0, y0 = np.array([0.3, -0.7, 1.1]), np.array([[0.2, 0.5], [-0.4, 0.9]])
    xs = (pdt.tensor(x0, device=device), pdt.tensor(y0, device=device))
    fwd = AF.jacobian(f(pdt), xs, vectorize=True, strategy="forward-mode")
    rev = AF.jacobian(f(pdt), xs)
    want = _central_jacobian(f_np, (x0, y0))
    assert len(fwd) == 3 and all(len(row) == 2 for row in fwd)
    for i in range(3):
        for k in range(2):
            assert fwd[i][k].shape == rev[i][k].shape == want[i][k].shape
            assert fwd[i][k].device == device and not fwd[i][k].requires_grad
            assert_close(fwd[i][k], rev[i][k].cpu().numpy(), "float64")
            np.testing.assert_allclose(fwd[i][k].cpu().numpy(), want[i][k], atol=1e-7)
    np.testing.assert_array_equal(fwd[1][1].cpu().numpy(), 0.0)  # independent of y
    # one input, one output: a Tensor of shape output.shape + input.shape
    single = AF.jacobian(lambda x: x.sin()[:2], xs[0], vectorize=True,
                         strategy="forward-mode")
    np.testing.assert_allclose(single.cpu().numpy(), np.diag(np.cos(x0))[:2], atol=1e-12)


def test_hessian_forward_over_reverse(device):
    x0 = np.array([0.5, -1.2, 2.0])
    x = pdt.tensor(x0, device=device)
    h = AF.hessian(lambda t: (t ** 3).sum() + t[0] * t[1], x, vectorize=True,
                   outer_jacobian_strategy="forward-mode")
    want = np.diag(6 * x0)
    want[0, 1] = want[1, 0] = 1.0
    np.testing.assert_allclose(h.cpu().numpy(), want, atol=1e-12)


def test_jacobian_strategy_refusals_as_pytorch():
    x = pdt.ones(2, requires_grad=True)
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" '
                                             'or "reverse-mode"'):
        AF.jacobian(lambda t: t, x, strategy="forward")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and "
                                                  '`strategy="forward-mode"` are not'):
        AF.jacobian(lambda t: t, x, create_graph=True, vectorize=True,
                    strategy="forward-mode")
    with pytest.raises(RuntimeError, match='`strict=True` and `strategy="forward-mode"`'):
        AF.jacobian(lambda t: t, x, strict=True, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.hessian(lambda t: t.sum(), x, outer_jacobian_strategy="forward-mode")


@pytest.mark.parametrize("x0", [2.0, 0.0])
def test_scatter_prod_second_derivative(device, x0):
    """scatter_reduce('prod')'s backward is differentiable (PyTorch's formula): for
    x0 x1 x2 the gradient is the products of pairs, and the derivative of their sum
    is the sum of the other two factors (closed form), a zero among them included."""
    x = pdt.tensor([x0, 3.0, 4.0], dtype=pdt.float64, device=device, requires_grad=True)
    index = pdt.tensor([0, 0, 0], device=device)
    src = pdt.ones(1, dtype=pdt.float64, device=device)
    (g,) = autograd.grad(src.scatter_reduce(0, index, x, "prod").sum(), x, create_graph=True)
    assert_close(g, np.array([12.0, 4.0 * x0, 3.0 * x0]), "float64")
    (h,) = autograd.grad(g.sum(), x)
    assert_close(h, np.array([7.0, 4.0 + x0, 3.0 + x0]), "float64")


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_prod_gradgradcheck(device, include_self):
    """The second derivatives of scatter_reduce and index_reduce 'prod' for input and
    src against central differences, a zero in input and one in src included."""
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 1.5, (3, 4))
    a[1, 2] = 0.0
    s = rng.uniform(0.5, 1.5, (3, 4))
    s[0, 1] = 0.0
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = pdt.tensor(s, device=device, requires_grad=True)
    index = pdt.tensor([[0, 1, 1, 2], [2, 2, 0, 1], [0, 2, 1, 2]], device=device)
    assert autograd.gradgradcheck(
        lambda p, q: p.scatter_reduce(0, index, q, "prod", include_self=include_self), (x, y))
    rows = pdt.tensor([2, 0, 2], device=device)
    assert autograd.gradgradcheck(
        lambda p, q: p.index_reduce(0, rows, q, "prod", include_self=include_self), (x, y))


def test_scatter_prod_with_two_zeros_has_no_second_derivative(device):
    """Two src zeros at one destination: the gradient is right (each gets the product
    of the others, 0), and differentiating it raises, as PyTorch's."""
    x = pdt.tensor([0.0, 3.0, 0.0], dtype=pdt.float64, device=device, requires_grad=True)
    index = pdt.tensor([0, 0, 0], device=device)
    src = pdt.ones(1, dtype=pdt.float64, device=device)
    (g,) = autograd.grad(src.scatter_reduce(0, index, x, "prod").sum(), x, create_graph=True)
    assert_close(g, np.zeros(3), "float64")
    with pytest.raises(RuntimeError, match=r"scatter_reduce\(\): Double backward is "
                                           r"unsupported for src when more than one zero"):
        g.sum().backward()


def test_function_double_backward_through_saved_inputs_and_outputs(device):
    class Cube(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    class Exp(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)  # the output: read back with its node
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    a = np.array([0.5, -1.5, 2.0])
    x = pdt.tensor(a, device=device, requires_grad=True)
    for fn, d1, d2 in ((Cube, 3 * a ** 2, 6 * a), (Exp, np.exp(a), np.exp(a))):
        (g,) = autograd.grad(fn.apply(x).sum(), x, create_graph=True)
        assert_close(g, d1, "float64")
        (h,) = autograd.grad(g.sum(), x)
        assert_close(h, d2, "float64")


def test_a_backward_that_is_not_recorded_raises_under_create_graph(monkeypatch):
    from pydevtensor.autograd import derivatives
    x = pdt.tensor([0.5, 1.0], dtype=pdt.float64, requires_grad=True)
    # piecewise constant ops give a zero that needs no graph: no error
    (g,) = autograd.grad((x.floor() * x ** 2).sum(), x, create_graph=True)
    assert g.requires_grad
    monkeypatch.setattr(derivatives.ExpBackward0, "formula",
                        staticmethod(lambda g, y: (g * y).detach()))
    (g,) = autograd.grad(x.exp().sum(), x, create_graph=True)  # g is ones: nothing lost
    with pytest.raises(RuntimeError, match=r"ExpBackward0 does not support double backward: "
                                           r"its backward's result for input 0 was not "
                                           r"recorded"):
        autograd.grad((x.exp() ** 2).sum(), x, create_graph=True)
    monkeypatch.undo()
    (g,) = autograd.grad((x.exp() ** 2).sum(), x, create_graph=True)
    assert_close(autograd.grad(g.sum(), x)[0], 4 * np.exp(2 * np.array([0.5, 1.0])), "float64")


_STRICT_CASES = {
    "jacobian-constant": lambda L, F, x: F.jacobian(lambda x: L.ones(2, device=x.device), x,
                                                    strict=True),
    "jacobian-unused": lambda L, F, x: F.jacobian(lambda x, y: x * 2, (x, x), strict=True),
    "vjp-constant": lambda L, F, x: F.vjp(lambda x: L.ones(2, device=x.device), x,
                                          L.ones(2, device=x.device), strict=True),
    "vjp-unused": lambda L, F, x: F.vjp(lambda x, y: x * 2, (x, x),
                                        L.ones(2, device=x.device), strict=True),
    "jvp-unused": lambda L, F, x: F.jvp(lambda x, y: x * 2, (x, x), (x, x), strict=True),
    "hessian-linear": lambda L, F, x: F.hessian(lambda x: (x * 2).sum(), x, strict=True),
    "hessian-unused": lambda L, F, x: F.hessian(lambda x, y: (x * x).sum(), (x, x),
                                                strict=True),
    "vhp-linear": lambda L, F, x: F.vhp(lambda x: (x * 2).sum(), x, x, strict=True),
    "hvp-linear": lambda L, F, x: F.hvp(lambda x: (x * 2).sum(), x, x, strict=True),
    "jacobian-vectorize": lambda L, F, x: F.jacobian(lambda x: x * 2, x, strict=True,
                                                     vectorize=True),
    "hessian-vectorize": lambda L, F, x: F.hessian(lambda x: (x ** 3).sum(), x, strict=True,
                                                   vectorize=True),
}


@pytest.mark.parametrize("case", sorted(_STRICT_CASES))
def test_functional_strict_raises_as_torch(device, case):
    """strict=True refuses an output or gradient independent of an input with PyTorch's
    message; the same calls without the problem give PyTorch's values."""
    torch = torch_or_skip()
    f = _STRICT_CASES[case]
    with pytest.raises(RuntimeError) as want:
        f(torch, torch.autograd.functional, torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError) as got:
        f(pdt, pdt.autograd.functional, pdt.tensor([1.0, 2.0], device=device))
    assert str(got.value) == str(want.value)


def test_hessian_refuses_strict_with_vectorize(device):
    """hessian(strict=True, vectorize=True) raises PyTorch's RuntimeError (jacobian's)
    before calling func; either flag alone gives the Hessian."""
    F = pdt.autograd.functional
    x = pdt.tensor([1.0, 2.0], device=device)
    calls = []

    def f(x):
        calls.append(x)
        return (x ** 3).sum()
    with pytest.raises(RuntimeError, match=r"`strict=True` and `vectorized=True` are not "
                                           r"supported together"):
        F.hessian(f, x, strict=True, vectorize=True)
    assert not calls
    for kw in (dict(strict=True), dict(vectorize=True)):
        assert F.hessian(f, x, **kw).tolist() == [[6.0, 0.0], [0.0, 12.0]]


def test_functional_strict_passes_dependent_functions(device):
    F = pdt.autograd.functional
    x = pdt.tensor([1.0, 2.0], device=device)
    assert F.hessian(lambda x: (x * x).sum(), x, strict=True).tolist() == [[2.0, 0.0],
                                                                          [0.0, 2.0]]
    assert F.jacobian(lambda x: x * 2, x, strict=True).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert F.jvp(lambda x: x * 2, x, x, strict=True)[1].tolist() == [2.0, 4.0]
    assert F.vhp(lambda x: (x * x).sum(), x, x, strict=True)[1].tolist() == [2.0, 4.0]


@pytest.mark.parametrize("op", ["copysign", "remainder", "fmod"])
def test_second_derivative_through_zero_gradients_as_torch(device, op):
    """copysign's gradient for its sign argument is zeros, remainder's for the divisor
    -floor(a / b) (a zero derivative): differentiating their create_graph gradients
    works and gives PyTorch's values (it raised 'does not support double backward')."""
    torch = torch_or_skip()
    x0, y0, v0 = [1.5, -2.0, 0.7], [-1.0, 3.0, 0.4], [0.3, -1.2, 2.0]
    got = []
    for lib, dev in ((torch, "cpu"), (pdt, device)):
        x = lib.tensor(x0, dtype=lib.float64, device=dev, requires_grad=True)
        y = lib.tensor(y0, dtype=lib.float64, device=dev, requires_grad=True)
        out = getattr(lib, op)(x, y - 0.5) * x
        gx, gy = lib.autograd.grad(out.sum(), (x, y), create_graph=True)
        v = lib.tensor(v0, dtype=lib.float64, device=dev)
        tot = ((gx * v) ** 2).sum() + ((gy * v) ** 2).sum()
        hx, hy = lib.autograd.grad(tot, (x, y), allow_unused=True)
        got.append([None if t is None else np.array(t.detach().tolist())
                    for t in (gx, gy, hx, hy)])
    for want, have in zip(*got):
        if want is None or have is None:  # None and zeros are the same gradient
            assert not np.any(want if have is None else have)
        else:
            np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-12)


MASK_OPS = {
    "abs": lambda x: x.abs(), "relu": lambda x: x.relu(),
    "copysign": lambda x: pdt.copysign(x, pdt.tensor(-1.0, dtype=x.dtype, device=x.device)),
    "l1_loss": lambda x: F.l1_loss(x, pdt.zeros_like(x)),
    "vector_norm_1": lambda x: pdt.linalg.vector_norm(x, 1),
    "vector_norm_inf": lambda x: pdt.linalg.vector_norm(x, math.inf),
}

# the piecewise linear activations, each with its slope at X_KINKED (closed forms)
X_KINKED = [-2.5, -1.5, -0.2, 0.05, 0.3, 0.7, 2.0, 7.0]
KINKED_OPS = {
    "hardtanh": (lambda x: F.hardtanh(x), [0, 0, 1, 1, 1, 1, 0, 0]),
    "hardtanh_": (lambda x: F.hardtanh_(x.clone()), [0, 0, 1, 1, 1, 1, 0, 0]),
    "Hardtanh": (lambda x: pdt.nn.Hardtanh(-2.0, 1.0)(x), [0, 1, 1, 1, 1, 1, 0, 0]),
    "relu6": (lambda x: F.relu6(x), [0, 0, 0, 1, 1, 1, 1, 0]),
    "relu6_inplace": (lambda x: F.relu6(x.clone(), inplace=True), [0, 0, 0, 1, 1, 1, 1, 0]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [0.1] * 3 + [1] * 5),
    "leaky_relu_": (lambda x: F.leaky_relu_(x.clone(), 0.1), [0.1] * 3 + [1] * 5),
    "LeakyReLU": (lambda x: pdt.nn.LeakyReLU(0.1)(x), [0.1] * 3 + [1] * 5),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3), [0.2] * 3 + [1] * 5),
    "threshold": (lambda x: F.threshold(x, 0.1, 20.0), [0, 0, 0, 0, 1, 1, 1, 1]),
    "threshold_": (lambda x: F.threshold_(x.clone(), 0.1, 20.0), [0, 0, 0, 0, 1, 1, 1, 1]),
    "Threshold": (lambda x: pdt.nn.Threshold(0.1, 20.0)(x), [0, 0, 0, 0, 1, 1, 1, 1]),
    "hardshrink": (lambda x: F.hardshrink(x), [1, 1, 0, 0, 0, 1, 1, 1]),
    "Hardshrink": (lambda x: pdt.nn.Hardshrink(1.0)(x), [1, 1, 0, 0, 0, 0, 1, 1]),
    "softshrink": (lambda x: F.softshrink(x), [1, 1, 0, 0, 0, 1, 1, 1]),
    "Softshrink": (lambda x: pdt.nn.Softshrink(1.0)(x), [1, 1, 0, 0, 0, 0, 1, 1]),
}


@pytest.mark.parametrize("op", sorted(MASK_OPS))
def test_mask_gradients_are_recorded_with_a_zero_derivative(device, op):
    """The gradient of abs, relu, ... is g times a piecewise constant of x: under
    create_graph it requires grad (it did not when g does not), and its derivative is
    zeros, as PyTorch's (grad(..., allow_unused=True) raised 'element 0 of tensors does
    not require grad')."""
    x = pdt.tensor([-1.5, -0.2, 0.3, 2.0], dtype=pdt.float64, device=device,
                   requires_grad=True)
    (g,) = pdt.autograd.grad(MASK_OPS[op](x).sum(), [x], create_graph=True)
    (plain,) = pdt.autograd.grad(MASK_OPS[op](x).sum(), [x])
    assert g.requires_grad and g.tolist() == plain.tolist()
    (h,) = pdt.autograd.grad((g * g).sum(), [x], allow_unused=True)
    assert h is not None and h.tolist() == [0.0] * 4


def _second(f, x0, y0, device):
    """d2f/dx2 and d2f/dy2 of f(x, y) at (x0, y0) by grad of grad (None: 0)."""
    x, y = (pdt.tensor([v], dtype=pdt.float64, device=device, requires_grad=True)
            for v in (x0, y0))
    gx, gy = pdt.autograd.grad(f(x, y).sum(), [x, y], create_graph=True)
    hx = pdt.autograd.grad(gx.sum(), [x], allow_unused=True)[0]
    hy = pdt.autograd.grad(gy.sum(), [y], allow_unused=True)[0]
    return tuple(0.0 if h is None else h.item() for h in (hx, hy))


def test_second_derivatives_where_the_factors_overflow_and_underflow(device):
    """pow's d2/dx2 = y (y - 1) x^(y-2) is 0 at (0.5, 1e300) (y (y - 1) overflowed
    and met an underflowed power: NaN), as is xlogy's d2/dy2 = -x / y^2 at (0, 1e-300)
    (y^2 underflowed: 0 / 0); PyTorch's groupings, y x^(y-1) and -g (a / b) / b."""
    for f in (lambda x, y: x ** y, pdt.float_power):
        assert _second(f, 0.5, 1e300, device) == (0.0, 0.0)
        assert _second(f, 1e-300, 1e300, device)[0] == 0.0
        assert _second(f, 0.5, 2.0, device) == pytest.approx((2.0, 0.25 * math.log(2) ** 2),
                                                             rel=1e-15)
    assert _second(pdt.xlogy, 0.0, 1e-300, device)[1] == 0.0
    assert _second(lambda x, y: x / y, 3.0, 2.0, device) == (0.0, 0.75)  # 2 x / y^3


@pytest.mark.parametrize("op", sorted(KINKED_OPS))
def test_kinked_activation_gradients_are_recorded(device, op):
    """hardtanh, relu6, leaky_relu, threshold, hardshrink, softshrink (functions, in-place
    forms and layers): under create_graph the gradient requires grad when x does (it did
    not when grad_output does not, so a second grad raised) and its derivative is zeros,
    as PyTorch's; its derivative with respect to a grad_output that requires grad is the
    slope (closed forms)."""
    fn, slope = KINKED_OPS[op]
    x = pdt.tensor(X_KINKED, dtype=pdt.float64, device=device, requires_grad=True)
    (g,) = pdt.autograd.grad(fn(x).sum(), [x], create_graph=True)
    assert g.requires_grad
    np.testing.assert_allclose(g.tolist(), slope, rtol=1e-15)
    (h,) = pdt.autograd.grad((g * g).sum(), [x], allow_unused=True)
    assert h is not None and h.tolist() == [0.0] * 8
    go = pdt.tensor([0.5, -1.0, 2.0, 3.0, -0.25, 1.5, 4.0, -2.0], dtype=pdt.float64,
                    device=device, requires_grad=True)
    (g,) = pdt.autograd.grad(fn(x), [x], go, create_graph=True)
    np.testing.assert_allclose(g.tolist(), np.multiply(slope, go.tolist()), rtol=1e-15)
    hx, hgo = pdt.autograd.grad((g * g).sum(), [x, go], allow_unused=True)
    assert hx.tolist() == [0.0] * 8
    np.testing.assert_allclose(hgo.tolist(), 2 * np.square(slope) * go.tolist(), rtol=1e-15)


def _prod_others(x, dims):
    """NumPy: each element's product of the other elements of its slice over dims."""
    out = np.empty_like(x)
    for i in np.ndindex(x.shape):
        others = x.copy()
        others[i] = 1.0
        sel = tuple(slice(None) if d in dims else i[d] for d in range(x.ndim))
        out[i] = np.prod(others[sel])
    return out


@pytest.mark.parametrize("values, dims", [
    ([0.0, 0.0, 2.0, 3.0], (0,)), ([0.0, 1.5, 2.0, 3.0], (0,)), ([0.0, 0.0, 0.0, 3.0], (0,)),
    ([[0.0, 0.0, 2.0], [1.0, 0.0, -2.0], [0.5, 2.0, 3.0]], (1,)),
    ([[0.0, 0.0, 2.0], [1.0, 0.0, -2.0], [0.5, 2.0, 3.0]], (0,)),
    ([[[0.0, 1.5], [0.0, 2.0]], [[3.0, 0.0], [-1.0, 0.5]]], (0, 2)),
])
def test_prod_second_derivative_with_zeros(device, values, dims):
    """prod's first derivative is the product of the others, differentiable with one,
    two or more zeros in a slice (it was 0 with two zeros, so its derivative was 0 where
    PyTorch's is the product of the rest): the Hessian-vector product matches central
    differences of the first derivative in closed form."""
    x0 = np.array(values)
    v = np.linspace(0.5, 1.7, x0.size).reshape(x0.shape)
    x = pdt.tensor(x0, device=device, requires_grad=True)
    dim = None if len(dims) == x0.ndim and x0.ndim == 1 else dims
    y = x.prod() if dim is None else x.prod(dim if len(dim) > 1 else dim[0], keepdim=True)
    (g,) = autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(np.array(g.tolist()), _prod_others(x0, dims), atol=1e-12)
    (h,) = autograd.grad((g * pdt.tensor(v, device=device)).sum(), x)
    eps, want = 1e-4, np.empty_like(x0)
    for k in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[k] += eps
        down[k] -= eps
        want[k] = ((_prod_others(up, dims) - _prod_others(down, dims)) * v).sum() / (2 * eps)
    np.testing.assert_allclose(np.array(h.tolist()), want, rtol=1e-8, atol=1e-8)
