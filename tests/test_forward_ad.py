"""autograd.forward_ad (dual_level, enter_dual_level, exit_dual_level, make_dual,
unpack_dual): tangents against central finite differences in float64 and against
func.jvp, on every device, for random compositions of elementwise ops, reductions,
matmul, views and in-place ops, nn.functional layers and nn.Module calls; the levels'
rules and errors as PyTorch's."""
import numpy as np
import pytest

import pydevtensor as pdt
import pydevtensor.autograd.forward_ad as fwAD
import pydevtensor.nn.functional as F
from pydevtensor.func import functional_call, jvp

# central differences in float64 with EPS: error ~ EPS^2 f''' plus rounding ~ 1e-16 / EPS
EPS = 1e-6
ATOL = RTOL = 1e-6


def _t(a, device):
    return pdt.tensor(np.asarray(a, dtype=np.float64), device=device)


def _np(x):
    return x.detach().cpu().numpy()


def _fd(f, primals, tangents):
    """(f(p + EPS t) - f(p - EPS t)) / (2 EPS), run under no_grad on plain tensors."""
    with pdt.no_grad():
        hi = f(*[p + EPS * t for p, t in zip(primals, tangents)])
        lo = f(*[p - EPS * t for p, t in zip(primals, tangents)])
    return (_np(hi) - _np(lo)) / (2 * EPS)


def _forward(f, primals, tangents):
    """f's value and tangent by forward_ad."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents)]
        out = fwAD.unpack_dual(f(*duals))
    assert out.tangent is not None
    return out


def _check(f, primals, tangents, against_jvp=True):
    got = _forward(f, primals, tangents)
    with pdt.no_grad():
        value = f(*primals)
    np.testing.assert_allclose(_np(got.primal), _np(value), rtol=1e-12, atol=1e-12)
    assert got.tangent.shape == value.shape and got.tangent.device == value.device
    np.testing.assert_allclose(_np(got.tangent), _fd(f, primals, tangents), rtol=RTOL,
                               atol=ATOL)
    if against_jvp:
        _, ref = jvp(f, tuple(primals), tuple(tangents))
        np.testing.assert_allclose(_np(got.tangent), _np(ref), rtol=1e-12, atol=1e-12)


UNARY = [lambda x: x.sin(), lambda x: x.exp() * 0.5, lambda x: x.tanh(),
         lambda x: x * x, lambda x: pdt.sigmoid(x), lambda x: F.softplus(x),
         lambda x: (x * x + 1.0).sqrt(), lambda x: x.t() if x.ndim == 2 else x,
         lambda x: x.flip(0), lambda x: (1.0 + x * x).log(), lambda x: x.cumsum(0),
         lambda x: F.softmax(x, dim=-1), lambda x: x - x.mean(0, keepdim=True)]
BINARY = [lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x / (1.0 + y * y),
          lambda x, y: pdt.maximum(x, y + 0.25), lambda x, y: (x @ y.t()) @ y,
          lambda x, y: pdt.stack([x, y]).sum(0), lambda x, y: pdt.cat([x, y], 1)[:, ::2],
          lambda x, y: x.reshape(-1).view(x.shape) * y.exp()]


@pytest.mark.parametrize("seed", range(6))
def test_random_compositions_match_finite_differences_and_jvp(device, seed):
    rng = np.random.default_rng(seed)
    steps = [(rng.integers(len(UNARY)), rng.integers(len(BINARY))) for _ in range(4)]

    def f(x, y):
        for u, b in steps:
            x = BINARY[b](UNARY[u](x), y)
        return x

    x, y = _t(rng.standard_normal((3, 4)), device), _t(rng.standard_normal((3, 4)), device)
    tx, ty = _t(rng.standard_normal((3, 4)), device), _t(rng.standard_normal((3, 4)), device)
    _check(f, [x, y], [tx, ty])
    _check(lambda x: f(x, y), [x], [tx])  # one dual, the other a plain tensor


@pytest.mark.parametrize("reduce", [lambda z: z.sum(), lambda z: z.sum(1), lambda z: z.prod(0),
                                    lambda z: z.norm(), lambda z: z.amax(1),
                                    lambda z: z.logsumexp(0), lambda z: z.var(1),
                                    lambda z: (z @ z.t()).diagonal().mean()])
def test_reductions_matmul_and_views(device, reduce):
    rng = np.random.default_rng(1)
    x, t = _t(rng.standard_normal((3, 5)), device), _t(rng.standard_normal((3, 5)), device)
    _check(lambda z: reduce(z[:, 1:].transpose(0, 1).unsqueeze(0).squeeze(0).t()), [x], [t])


def test_nn_functional_layers_and_module_calls(device):
    rng = np.random.default_rng(2)
    pdt.manual_seed(0)
    model = pdt.nn.Sequential(pdt.nn.Linear(4, 6), pdt.nn.Tanh(), pdt.nn.LayerNorm(6),
                              pdt.nn.Linear(6, 2)).to(device=device, dtype=pdt.float64)
    x, t = _t(rng.standard_normal((5, 4)), device), _t(rng.standard_normal((5, 4)), device)
    _check(model, [x], [t], against_jvp=False)
    w = _t(rng.standard_normal((3, 2, 3)), device)
    sig = _t(rng.standard_normal((2, 2, 7)), device)
    _check(lambda s, w: F.gelu(F.conv1d(s, w, padding=1)).mean(-1), [sig, w],
           [pdt.ones_like(sig), _t(rng.standard_normal((3, 2, 3)), device)])
    # dual parameters through functional_call: the tangent along a weight direction
    params = {k: v.detach() for k, v in model.named_parameters()}
    dw = _t(rng.standard_normal(tuple(params["0.weight"].shape)), device)

    def along(w0):
        return functional_call(model, {**params, "0.weight": w0}, (x,))
    _check(along, [params["0.weight"]], [dw], against_jvp=False)


def test_in_place_ops_on_a_dual_and_on_a_tensor_given_dual_values(device):
    rng = np.random.default_rng(3)
    a, t, b, s = (rng.standard_normal(4) for _ in range(4))
    with fwAD.dual_level():
        x = _t(a, device)
        d = fwAD.make_dual(x, _t(t, device))
        w = fwAD.make_dual(_t(b, device), _t(s, device))
        d.mul_(3.0)
        d.add_(w.sin())
        np.testing.assert_allclose(_np(x), 3 * a + np.sin(b))  # d shares x's storage
        got = fwAD.unpack_dual(d).tangent
        buf = pdt.zeros(6, dtype=pdt.float64, device=device)
        buf[1:5] = d * 2.0
        buf.exp_()
        got_buf = fwAD.unpack_dual(buf).tangent
        # a tensor the graph saved, modified since: the reverse mode's version error
        # (the module's Note), not a wrong tangent
        y = d.sin()
        d.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            fwAD.unpack_dual(y)
    # the derivative of 3a + sin(b) along (t, s), and of exp(2 (3a + sin b)) in the
    # slots written
    ref = 3 * t + np.cos(b) * s
    np.testing.assert_allclose(_np(got), ref, rtol=1e-12)
    inner = 3 * a + np.sin(b)
    np.testing.assert_allclose(_np(got_buf), np.r_[0, np.exp(2 * inner) * 2 * ref, 0],
                               rtol=1e-12)


def test_tangent_queries_as_pytorch(device):
    x, t = _t([1.0, 2.0], device), _t([1.0, 0.5], device)
    assert fwAD.unpack_dual(x) == (x, None)  # outside any level: the tensor itself
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, t)
        u = fwAD.unpack_dual(d)
        assert isinstance(u, fwAD.UnpackedDualTensor) and u.tangent is t
        assert not u.primal.requires_grad and u.primal.data_ptr() == x.data_ptr()
        assert fwAD.unpack_dual(x + 1).tangent is None  # no dual in its graph
        assert fwAD.unpack_dual(d.argmax()).tangent is None  # an integer result
        assert fwAD.unpack_dual(d.detach()).tangent is None
        with pdt.no_grad():  # nothing recorded, so no tangent (the module's Note)
            assert fwAD.unpack_dual(d.sin()).tangent is None
        np.testing.assert_array_equal(_np(fwAD.unpack_dual(d.sign()).tangent), [0.0, 0.0])
        y = d * d
    assert fwAD.unpack_dual(y).tangent is None and fwAD.unpack_dual(d).tangent is None
    with fwAD.dual_level():  # a new level does not see the old one's tangents
        assert fwAD.unpack_dual(y).tangent is None


def test_a_backward_without_double_backward_raises_instead_of_a_wrong_tangent(device):
    from pydevtensor.autograd.function import once_differentiable

    class Square(pdt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    with fwAD.dual_level():
        d = fwAD.make_dual(_t([1.0, 2.0], device), _t([1.0, 1.0], device))
        with pytest.raises(RuntimeError, match="once_differentiable"):
            fwAD.unpack_dual(Square.apply(d))
        np.testing.assert_allclose(_np(fwAD.unpack_dual(Square.apply(d.detach()) + d)
                                       .tangent), [1.0, 1.0])


def test_a_primal_that_requires_grad_keeps_its_reverse_mode(device):
    a, t = np.array([1.0, -2.0, 0.5]), np.array([0.3, 1.0, -1.0])
    x = _t(a, device).requires_grad_(True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, _t(t, device))
        y = (d ** 3).sum()
        out = fwAD.unpack_dual(y)
        assert out.primal.requires_grad and out.tangent.requires_grad
        np.testing.assert_allclose(out.tangent.item(), np.sum(3 * a ** 2 * t), rtol=1e-12)
        (g,) = pdt.autograd.grad(out.tangent, x, retain_graph=True)  # d/dx of 3 x^2 . t
        np.testing.assert_allclose(_np(g), 6 * a * t, rtol=1e-12)
        y.backward()
    np.testing.assert_allclose(_np(x.grad), 3 * a ** 2, rtol=1e-12)


def test_levels_do_not_nest_and_exit_in_order():
    with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
        fwAD.exit_dual_level()
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="was not the last one that was created"):
            fwAD.exit_dual_level(level=1)
        with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
            fwAD.make_dual(pdt.ones(2), pdt.ones(2), level=1)
        with pytest.raises(RuntimeError, match="Invalid level given to _fw_primal"):
            fwAD.unpack_dual(pdt.ones(2), level=1)
        with pytest.raises(TypeError, match="level must be an int or None, got str"):
            fwAD.make_dual(pdt.ones(2), pdt.ones(2), level="0")
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level(level=0)


def test_a_level_left_by_an_exception_is_cleaned_up(device):
    with pytest.raises(ValueError, match="inside"):
        with fwAD.dual_level():
            d = fwAD.make_dual(_t([1.0], device), _t([2.0], device))
            raise ValueError("inside")
    assert fwAD.unpack_dual(d * 2).tangent is None
    assert fwAD.enter_dual_level() == 0  # not refused as nested
    try:
        assert fwAD.unpack_dual(d * 2).tangent is None
    finally:
        fwAD.exit_dual_level()


def test_make_dual_refuses_bad_input(device):
    x = _t([1.0, 2.0], device)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2\] while the given "
                           r"forward gradient is of size \[3\]\."):
            fwAD.make_dual(x, _t([1.0, 2.0, 3.0], device))
        with pytest.raises(RuntimeError, match="the primal is pydevtensor.float64 on .*, the "
                           "tangent pydevtensor.float32"):
            fwAD.make_dual(x, x.float())
        with pytest.raises(ValueError, match="Expected primal to be floating point or "
                           "complex, but got: pydevtensor.int64"):
            fwAD.make_dual(x.long(), x)
        with pytest.raises(ValueError, match="Expected tangent to be floating point"):
            fwAD.make_dual(x, x.long())
        with pytest.raises(TypeError, match="argument 'tangent' must be Tensor, not list"):
            fwAD.make_dual(x, [1.0, 2.0])
        with pytest.raises(TypeError, match="argument 'dual' must be Tensor, not int"):
            fwAD.unpack_dual(3)
        d = fwAD.make_dual(x, x)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same "
                           "level 0"):
            fwAD.make_dual(d * 2, x)
        with pytest.raises(RuntimeError, match="itself has a forward gradient"):
            fwAD.make_dual(x.clone(), d)
        if pdt.cuda.is_available():
            other = pdt.device("cpu") if device.type == "cuda" else pdt.device("cuda")
            with pytest.raises(RuntimeError, match=f"on {device}, the tangent "
                               f"pydevtensor.float64 on {other}"):
                fwAD.make_dual(x, x.to(other))
