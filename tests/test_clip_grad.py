"""nn.utils.clip_grad_norm_ and clip_grad_value_ on every device, against NumPy in float64:
the total norm (orders 1, 2, 3 and inf) is the norm of every gradient joined into one
vector, the gradients scaled in place by min(1, max_norm / (total + 1e-6)); parameters
without a gradient skipped; a single tensor accepted; non-finite totals; nothing
changed when an argument is wrong; gradients on two devices (two logical CPUs, and two
GPUs where there are); PyTorch's values where torch is importable."""
import math
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, run_python, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn.utils import clip_grad_norm_, clip_grad_value_

# |got - want| <= ATOL + RTOL * |want| against float64: a float32 norm is a sum of
# float32 terms (accumulated in float32 on some devices) and a square root
TOL = {"float32": (1e-6, 1e-5), "float64": (1e-12, 1e-12)}
SHAPES = [(3, 4), (5,), (2, 1, 3)]


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _params(dev, dtype, scale=1.0, seed=0):
    """Three parameters with gradients and one without, and the gradients in NumPy."""
    rng = np.random.default_rng(seed)
    grads = [(rng.standard_normal(s) * scale).astype(dtype) for s in SHAPES]
    params = []
    for g in grads:
        p = nn.Parameter(pdt.zeros(*g.shape, dtype=getattr(pdt, dtype), device=dev))
        p.grad = pdt.tensor(g, device=dev)
        params.append(p)
    params.insert(1, nn.Parameter(pdt.ones(2, dtype=getattr(pdt, dtype), device=dev)))
    return params, [g.astype(np.float64) for g in grads]


def _reference(grads, max_norm, order):
    flat = np.concatenate([g.ravel() for g in grads])
    total = np.linalg.norm(flat, order)
    coef = min(1.0, max_norm / (total + 1e-6))
    return total, [g * coef for g in grads]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("order", [2.0, 1, 3.0, math.inf, "inf"])
def test_clip_grad_norm_matches_numpy(dev, dtype, order):
    params, grads = _params(dev, dtype)
    np_order = math.inf if order == "inf" else order
    want_total, want = _reference(grads, 0.5, np_order)
    atol, rtol = TOL[dtype]
    total = clip_grad_norm_(params, max_norm=0.5, norm_type=order)
    assert total.ndim == 0 and total.dtype == getattr(pdt, dtype)
    assert total.device == pdt.device(dev)
    np.testing.assert_allclose(total.item(), want_total, atol=atol, rtol=rtol)
    assert params[1].grad is None
    with_grads = [p for p in params if p.grad is not None]
    for p, w in zip(with_grads, want):
        assert p.grad.device == pdt.device(dev) and p.grad.dtype == getattr(pdt, dtype)
        np.testing.assert_allclose(p.grad.cpu().numpy(), w, atol=atol, rtol=rtol)
    # the clipped gradients' total is max_norm (up to the 1e-6 in the denominator)
    np.testing.assert_allclose(np.linalg.norm(np.concatenate(
        [p.grad.cpu().numpy().ravel() for p in with_grads]), np_order), 0.5, rtol=1e-5)


def test_clip_grad_norm_below_the_limit_changes_nothing(dev):
    params, grads = _params(dev, "float32", scale=1e-3)
    total = clip_grad_norm_(iter(params), max_norm=10.0)  # any iterable, a generator too
    np.testing.assert_allclose(total.item(), _reference(grads, 10.0, 2)[0], rtol=1e-5)
    for p, g in zip([p for p in params if p.grad is not None], grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), g.astype(np.float32))


def test_clip_grad_norm_single_tensor_no_gradients_and_half(dev):
    w = nn.Parameter(pdt.zeros(2, device=dev))
    w.grad = pdt.tensor([6.0, -8.0], device=dev)
    assert clip_grad_norm_(w, 5.0).item() == pytest.approx(10.0)
    np.testing.assert_allclose(w.grad.cpu().numpy(), [3.0, -4.0], rtol=1e-6)
    none = clip_grad_norm_([nn.Parameter(pdt.ones(3, device=dev))], 1.0)
    assert none.item() == 0.0 and none.ndim == 0
    h = nn.Parameter(pdt.zeros(2, dtype=pdt.float16, device=dev))
    h.grad = pdt.tensor([6.0, -8.0], dtype=pdt.float16, device=dev)
    total = clip_grad_norm_([h], 5.0)
    assert total.dtype == pdt.float16 and total.item() == 10.0
    assert h.grad.dtype == pdt.float16
    np.testing.assert_allclose(h.grad.cpu().numpy().astype(np.float64), [3.0, -4.0],
                               rtol=1e-3)  # float16's spacing at 4 is 2**-8


def test_clip_grad_norm_of_non_finite_gradients(dev):
    w = nn.Parameter(pdt.zeros(3, device=dev))
    w.grad = pdt.tensor([1.0, math.inf, 2.0], device=dev)
    with pytest.raises(RuntimeError, match=r"clip_grad_norm_\(\): the total norm of order "
                                           r"2.0 of the gradients is inf"):
        clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [1.0, math.inf, 2.0])  # unchanged
    # as PyTorch: scaled by max_norm / inf = 0, so inf * 0 is NaN
    assert math.isinf(clip_grad_norm_([w], 1.0).item())
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [0.0, math.nan, 0.0])


def test_clip_grad_norm_changes_nothing_on_bad_arguments(dev):
    params, grads = _params(dev, "float64")
    with pytest.raises(TypeError, match=r"clip_grad_norm_\(\): parameters must be Tensors, "
                                        r"got ndarray"):
        clip_grad_norm_(params + [np.ones(2)], 1e-3)
    with pytest.raises(ValueError, match=r"clip_grad_norm_\(\): max_norm must be >= 0, got -1"):
        clip_grad_norm_(params, -1)
    with pytest.raises(ValueError, match=r"norm_type must be a number or 'inf', got 'two'"):
        clip_grad_norm_(params, 1.0, norm_type="two")
    with pytest.raises(TypeError, match=r"max_norm must be a number, got str"):
        clip_grad_norm_(params, "1")
    for p, g in zip([p for p in params if p.grad is not None], grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), g)


def test_deprecated_clip_grad_norm_warns_and_clips(dev):
    # PyTorch's nn.utils.clip_grad_norm: a FutureWarning, then clip_grad_norm_'s result
    rng = np.random.default_rng(11)
    g = rng.standard_normal(6)
    w = nn.Parameter(pdt.zeros(6, dtype=pdt.float64, device=dev))
    w.grad = pdt.tensor(g, device=dev)
    with pytest.warns(FutureWarning, match=r"`nn.utils.clip_grad_norm` is now deprecated in "
                                           r"favor of `nn.utils.clip_grad_norm_`"):
        total = nn.utils.clip_grad_norm([w], 0.5, norm_type=1.0)
    want = np.abs(g).sum()
    np.testing.assert_allclose(float(total), want, rtol=1e-14)
    np.testing.assert_allclose(w.grad.cpu().numpy(), g * 0.5 / (want + 1e-6), rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_value_matches_numpy(dev, dtype):
    params, grads = _params(dev, dtype, scale=2.0)
    assert clip_grad_value_(params, 0.75) is None
    for p, g in zip([p for p in params if p.grad is not None], grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(),
                                      np.clip(g, -0.75, 0.75).astype(dtype))
    assert params[1].grad is None
    w = nn.Parameter(pdt.zeros(2, device=dev))
    w.grad = pdt.tensor([-3.0, 0.25], device=dev)
    clip_grad_value_(w, 0.5)  # a single tensor
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [-0.5, 0.25])
    with pytest.raises(ValueError, match=r"clip_grad_value_\(\): clip_value must be >= 0, "
                                         r"got -0.5"):
        clip_grad_value_(w, -0.5)
    with pytest.raises(TypeError, match=r"clip_grad_value_\(\): parameters must be a Tensor or "
                                        r"an iterable of Tensors, got float"):
        clip_grad_value_(1.5, 0.5)


def test_clipping_in_a_training_step(dev):
    """D2L's RNN chapter: backward, clip, step; the step moves by the clipped gradient."""
    net = nn.Linear(4, 1, device=dev)
    w0 = net.weight.detach().cpu().numpy().astype(np.float64)
    x = pdt.ones(8, 4, device=dev) * 10.0
    ((net(x) - 100.0) ** 2).mean().backward()
    g = np.concatenate([net.weight.grad.cpu().numpy().ravel(),
                        net.bias.grad.cpu().numpy().ravel()]).astype(np.float64)
    total = clip_grad_norm_(net.parameters(), 1.0)
    np.testing.assert_allclose(total.item(), np.linalg.norm(g), rtol=1e-5)
    pdt.optim.SGD(net.parameters(), lr=0.1).step()
    np.testing.assert_allclose(net.weight.detach().cpu().numpy(),
                               w0 - 0.1 * g[:4].reshape(1, 4) / np.linalg.norm(g),
                               rtol=1e-5, atol=1e-6)


def test_clip_grad_as_torch_does():
    torch = torch_or_skip()
    params, grads = _params("cpu", "float64")
    tparams = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for t, g in zip(tparams, grads):
        t.grad = torch.tensor(g)
    for order in (2.0, 1.0, math.inf):
        want = torch.nn.utils.clip_grad_norm_(tparams, 0.5, norm_type=order).item()
        np.testing.assert_allclose(clip_grad_norm_(params, 0.5, order).item(), want,
                                   rtol=1e-12)
    torch.nn.utils.clip_grad_value_(tparams, 0.01)
    clip_grad_value_(params, 0.01)
    for p, t in zip([p for p in params if p.grad is not None], tparams):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_clip_grad_norm_on_two_logical_cpus():
    """Gradients on cpu:0 and cpu:1: each device's norms are copied once to the first
    gradient's device, where the total is; the factor goes back once: two peer copies."""
    code = textwrap.dedent("""
        import pydevtensor as pdt
        from pydevtensor import config as c, nn
        c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                           [c.LogicalDeviceConfiguration()] * 2)
        a = nn.Parameter(pdt.zeros(3, device='cpu:1'))
        b = nn.Parameter(pdt.zeros(4, device='cpu:0'))
        d = nn.Parameter(pdt.zeros(2, device='cpu:1'))
        a.grad = pdt.full((3,), 2.0, device='cpu:1')
        b.grad = pdt.full((4,), -1.0, device='cpu:0')
        d.grad = pdt.full((2,), 1.0, device='cpu:1')
        pdt.reset_transfer_stats()
        total = nn.utils.clip_grad_norm_([a, b, d], 1.0)
        print(total.item(), total.device, pdt.transfer_stats()['peer']['count'])
        for p in (a, b, d):
            print(p.grad.device, *p.grad.tolist())
    """)
    out = run_python(code)
    total = math.sqrt(12 + 4 + 2)
    c = 1.0 / (total + 1e-6)
    assert out[1:3] == ["cpu:1", "2"]
    assert float(out[0]) == pytest.approx(total, rel=1e-6)
    got = {"a": out[3:7], "b": out[7:12], "d": out[12:15]}
    assert got["a"][0] == "cpu:1" and got["b"][0] == "cpu:0" and got["d"][0] == "cpu:1"
    np.testing.assert_allclose([float(v) for v in got["a"][1:]], [2 * c] * 3, rtol=1e-6)
    np.testing.assert_allclose([float(v) for v in got["b"][1:]], [-c] * 4, rtol=1e-6)
    np.testing.assert_allclose([float(v) for v in got["d"][1:]], [c] * 2, rtol=1e-6)


@pytest.mark.cuda
def test_clip_grad_norm_on_a_gpu_and_the_cpu():
    if not pdt.cuda.is_available():
        pytest.skip("needs a CUDA device")
    gpu = "cuda:1" if pdt.device_count() > 1 else "cuda:0"
    a = nn.Parameter(pdt.zeros(3, device=gpu))
    b = nn.Parameter(pdt.zeros(4))
    a.grad = pdt.full((3,), 2.0, device=gpu)
    b.grad = pdt.full((4,), -1.0)
    total = clip_grad_norm_([a, b], 1.0)
    assert total.device == pdt.device(gpu) and a.grad.device == pdt.device(gpu)
    assert total.item() == pytest.approx(4.0, rel=1e-6)
    np.testing.assert_allclose(a.grad.cpu().numpy(), [2 / (4 + 1e-6)] * 3, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [-1 / (4 + 1e-6)] * 4, rtol=1e-6)
