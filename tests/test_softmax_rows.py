"""softmax, log_softmax and cross_entropy through a device's row kernel (Note [softmax
rows] in csrc/cpu/cpu_softmax.c; pydevtensor._C._softmax_rows), where it has one (the
CPU), and composed from max, exp, sum and division where it has none (CUDA) or where a
gradient is being recorded.

The kernel performs the composed ops' own operations on each row, so on the CPU the two
give the same bits; against NumPy in float64 the results are within 4 float32 ulps
(rtol 5e-7 relative to the largest probability of the row, and atol 1e-6 for
log-probabilities of order one) and 1e-12 for float64.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import DEVICES

SHAPES = [(256, 10), (3, 5000), (2, 3, 7), (1, 70000), (5, 1), (4097, 3)]
TOL = {"float32": 2e-6, "float64": 1e-12}


def logits(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (4 * rng.standard_normal(shape)).astype(dtype)
    flat = x.reshape(-1, shape[-1])
    flat[0, 0] = -np.inf  # a masked entry
    if flat.shape[0] > 2:
        flat[1, :] = -np.inf  # a row masked whole: NaN, as 0 / 0
        flat[2, -1] = 80.0     # exp(80) overflows float32: the max is subtracted first
    return x


def reference(x, log):
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        shifted = x - x.max(-1, keepdims=True)
        lse = np.log(np.exp(shifted).sum(-1, keepdims=True))
        return shifted - lse if log else np.exp(shifted - lse)


def composed(x, dim, log):
    """The composed path: a gradient is being recorded (the result's values are kept)."""
    with pdt.enable_grad():
        t = x.detach().requires_grad_()
        return (pdt.log_softmax if log else pdt.softmax)(t, dim).detach()


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_row_kernel_gives_the_composed_bits_and_numpys_values(shape, dtype, log):
    x = logits(shape, dtype)
    t = pdt.tensor(x)
    fast = _C._softmax_rows(t, log)
    assert fast is not None and fast.dtype == t.dtype and tuple(fast.shape) == shape
    slow = composed(t, -1, log)
    np.testing.assert_array_equal(np.asarray(fast).view(f"u{x.itemsize}"),
                                  np.asarray(slow).view(f"u{x.itemsize}"))
    got = np.asarray((pdt.log_softmax if log else pdt.softmax)(t, -1))
    np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), np.asarray(fast).view(f"u{x.itemsize}"))
    want = reference(x, log)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=TOL[dtype], atol=TOL[dtype])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isneginf(got), np.isneginf(want))


@pytest.mark.parametrize("log", [False, True])
def test_composed_where_there_is_no_row_kernel(dev, log):
    """Other dims, views, half dtypes, empty tensors and devices without the kernel
    take the composed ops; the values agree with NumPy everywhere."""
    x = logits((4, 6, 5), "float32", seed=3)
    t = pdt.tensor(x, device=dev)
    f = pdt.log_softmax if log else pdt.softmax
    for dim in (0, 1, 2, -1):
        got = np.asarray(f(t, dim).cpu())
        want = np.moveaxis(reference(np.moveaxis(x, dim, -1), log), -1, dim)
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=2e-6)
    view = t.transpose(0, 2)
    assert _C._softmax_rows(view, log) is None  # not contiguous
    np.testing.assert_array_equal(np.asarray(f(view, -1).cpu()),
                                  np.asarray(f(view.contiguous(), -1).cpu()))
    assert _C._softmax_rows(t.to(pdt.float16), log) is None
    assert _C._softmax_rows(pdt.zeros(0, 3, device=dev), log) is None
    for shape in ((0, 3), (5, 0)):  # empty, also along a dim of size 0 (as PyTorch)
        for dim in (0, 1):
            r = f(pdt.zeros(shape, device=dev), dim)
            assert tuple(r.shape) == shape and r.dtype == pdt.float32 and r.device == t.device
    if pdt.device(dev).type == "cuda":
        assert _C._softmax_rows(t, log) is None  # no CUDA kernel: composed


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_row_kernel_gives_the_composed_bits(dev, reduction):
    """cross_entropy of contiguous CPU logits reads log_softmax at each target; of a
    view (and on CUDA) it is composed; the losses and gradients agree bit for bit."""
    rng = np.random.default_rng(11)
    x = (3 * rng.standard_normal((37, 13))).astype(np.float32)
    x[4, 2] = -np.inf  # masked, not the target
    x[9, 3] = -np.inf  # masked, the target: an infinite loss, as in PyTorch
    target = pdt.tensor(rng.integers(0, 13, 37), device=dev)
    target[4], target[9] = 5, 3
    fast = pdt.tensor(x, device=dev, requires_grad=True)
    slow_base = pdt.tensor(np.ascontiguousarray(x.T), device=dev, requires_grad=True)
    slow = slow_base.T  # the same values, a view: no row kernel
    losses = []
    for logit in (fast, slow):
        loss = pdt.nn.functional.cross_entropy(logit, target, reduction=reduction)
        loss.sum().backward() if reduction == "none" else loss.backward()
        losses.append(np.asarray(loss.detach().cpu()))
    np.testing.assert_array_equal(losses[0].view(np.uint32), losses[1].view(np.uint32))
    g_fast = np.asarray(fast.grad.cpu())
    g_slow = np.asarray(slow_base.grad.cpu()).T
    np.testing.assert_array_equal(g_fast.view(np.uint32), g_slow.view(np.uint32))
    assert g_fast[4, 2] == 0.0
    want = -reference(x, True)[np.arange(37), np.asarray(target.cpu())]
    assert np.isposinf(want[9])
    want = want.mean() if reduction == "mean" else want.sum() if reduction == "sum" else want
    np.testing.assert_allclose(losses[0], want, rtol=2e-6)


def test_cross_entropy_checks_targets_before_the_kernel():
    x = pdt.zeros(3, 4)
    with pytest.raises(IndexError, match="target 4 is out of bounds for 4 classes"):
        pdt.nn.functional.cross_entropy(x, pdt.tensor([0, 4, 1]))
    with pytest.raises(TypeError, match="integer class indices"):
        pdt.nn.functional.cross_entropy(x, pdt.tensor([0.0, 1.0, 1.0]))
    loss = pdt.nn.functional.cross_entropy(x, pdt.tensor([0, 3, 1], dtype=pdt.int32))
    assert abs(float(loss) - np.log(4)) < 1e-6


def test_on_a_logical_cpu_device():
    """The row kernel and cross_entropy's offsets on cpu:1 (a logical CPU device, set up
    in a fresh interpreter): the results of cpu:0, and on cpu:1."""
    code = textwrap.dedent("""
        import numpy as np
        import pydevtensor as pdt
        from pydevtensor import config as c
        c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                           [c.LogicalDeviceConfiguration()] * 2)
        rng = np.random.default_rng(2)
        x = rng.standard_normal((9, 6)).astype(np.float32)
        t = rng.integers(0, 6, 9)
        out = []
        for d in ('cpu:0', 'cpu:1'):
            xs = pdt.tensor(x, device=d, requires_grad=True)
            loss = pdt.nn.functional.cross_entropy(xs, pdt.tensor(t, device=d))
            loss.backward()
            sm = pdt.softmax(xs.detach(), 1)
            assert sm.device == loss.device == xs.grad.device == pdt.device(d), d
            out.append((np.asarray(sm.cpu()), float(loss), np.asarray(xs.grad.cpu())))
        for a, b in zip(*out):
            assert np.array_equal(a, b)
        print('ok')
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", [pdt.float64, pdt.float32, pdt.float16])
def test_softmax_of_a_0d_input_keeps_the_graph(device, dtype):
    """softmax, log_softmax and softmin of a 0-d input are 1, 0 and 1 with a grad_fn,
    as PyTorch's (the result did not require grad), and a zero gradient; an inf or
    NaN input gives NaN, as there."""
    from pydevtensor import special
    from pydevtensor.nn import functional as F
    forms = [(lambda t: pdt.softmax(t, 0), 1.0), (lambda t: t.softmax(-1), 1.0),
             (lambda t: F.softmax(t, 0), 1.0), (lambda t: special.softmax(t, 0), 1.0),
             (lambda t: pdt.log_softmax(t, 0), 0.0), (lambda t: t.log_softmax(-1), 0.0),
             (lambda t: F.log_softmax(t, 0), 0.0), (lambda t: special.log_softmax(t, 0), 0.0),
             (lambda t: F.softmin(t, 0), 1.0)]
    for fn, want in forms:
        x = pdt.tensor(3.0, dtype=dtype, device=device, requires_grad=True)
        y = fn(x)
        assert y.requires_grad and y.grad_fn is not None and y.shape == ()
        assert y.dtype == dtype and y.item() == want
        y.backward()
        assert x.grad.item() == 0.0
    for v in (float("inf"), float("-inf"), float("nan")):
        assert np.isnan(pdt.softmax(pdt.tensor(v, device=device), 0).item())
