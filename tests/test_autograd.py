"""Autograd's semantics (issue 16), as PyTorch defines them: requires_grad, leaves,
grad_fn names, backward(gradient), accumulation, retain_graph, grad modes, detach,
autograd.grad, the errors (second backward, in-place on a needed tensor or a leaf,
non-scalar backward, numpy()), differentiable .to(), and the graph's lifetime.

Gradients are compared in float64 with conftest's tolerance (1e-12 + 1e-12 * |ref|)
against formulas evaluated in NumPy.
"""
import gc
import textwrap
import threading
import weakref

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, assert_close
from pydevtensor import autograd, nn


def t64(a, device="cpu", grad=False):
    return pdt.tensor(np.asarray(a, np.float64), device=device, requires_grad=grad)


def test_leaves_grad_fn_names_and_repr(device):
    x = t64([1.0, 2.0, 3.0], device, grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    y = x * 2 + 1
    assert not y.is_leaf and y.requires_grad and y.grad_fn.name() == "AddBackward0"
    assert "grad_fn=<AddBackward0>" in repr(y) and "requires_grad=True" in repr(x)
    w = pdt.ones(3, 2, dtype="float64", device=device, requires_grad=True)
    b = pdt.zeros(2, dtype="float64", device=device, requires_grad=True)
    names = {"mm": pdt.mm(x.reshape(1, 3), w), "addmm": pdt.addmm(b, x.reshape(1, 3), w),
             "sum": x.sum(), "exp": x.exp(), "relu": x.relu(), "T": w.T,
             "linear": nn.functional.linear(x.reshape(1, 3), w.T, b)}
    assert names["mm"].grad_fn.name() == "MmBackward0"
    assert names["addmm"].grad_fn.name() == "AddmmBackward0"
    assert names["linear"].grad_fn.name() == "AddmmBackward0"
    assert names["sum"].grad_fn.name() == "SumBackward0"
    assert names["exp"].grad_fn.name() == "ExpBackward0"
    assert names["relu"].grad_fn.name() == "ReluBackward0"
    assert names["T"].grad_fn.name() == "PermuteBackward0"
    assert y.grad_fn.next_functions[0][0].next_functions[0][0].name() == "AccumulateGrad"
    # ops on tensors that require no grad record nothing
    assert (t64([1.0]) + 1).grad_fn is None and not (t64([1.0]) * 2).requires_grad
    # comparisons and argmax are not differentiable
    assert not (x > 1).requires_grad and not x.argmax().requires_grad


_OVERLOADS = [  # (the op on a tensor, the same on a NumPy array, PyTorch's node name)
    (lambda v: v.sum(), lambda a: a.sum(), "SumBackward0"),
    (lambda v: v.sum(1), lambda a: a.sum(1), "SumBackward1"),
    (lambda v: v.sum(dim=(0, 1)), lambda a: a.sum((0, 1)), "SumBackward1"),
    (lambda v: v.sum(axis=0, keepdim=True), lambda a: a.sum(0, keepdims=True), "SumBackward1"),
    (lambda v: v.sum(dtype=pdt.float64), lambda a: a.sum(), "SumBackward0"),
    (lambda v: v.mean(), lambda a: a.mean(), "MeanBackward0"),
    (lambda v: pdt.mean(v, 0), lambda a: a.mean(0), "MeanBackward1"),
    (lambda v: v[:, 1], lambda a: a[:, 1], "SelectBackward0"),
    (lambda v: v[1:, 0], lambda a: a[1:, 0], "SelectBackward0"),
    (lambda v: v[0, :], lambda a: a[0, :], "SelectBackward0"),
    (lambda v: v[..., np.int64(2)], lambda a: a[..., 2], "SelectBackward0"),
    (lambda v: v[0, 1:], lambda a: a[0, 1:], "SliceBackward0"),
    (lambda v: v[:, :2], lambda a: a[:, :2], "SliceBackward0"),
    (lambda v: v[:], lambda a: a[:], "SliceBackward0"),
    (lambda v: v[0, None], lambda a: a[0, None], "UnsqueezeBackward0"),
    (lambda v: v[...], lambda a: a[...], "AliasBackward0"),  # no step: PyTorch's alias
    (lambda v: v[()], lambda a: a[()], "AliasBackward0"),
    (lambda v: v[:, :], lambda a: a[:, :], "AliasBackward0"),
    (lambda v: v[..., :], lambda a: a[..., :], "AliasBackward0"),
    (lambda v: v[None, 0], lambda a: a[None, 0], "SelectBackward0"),
    (lambda v: v[[0, 1]], lambda a: a[[0, 1]], "IndexBackward0"),
    (lambda v: v[None].squeeze(), lambda a: a, "SqueezeBackward0"),
    (lambda v: v[None].squeeze(0), lambda a: a, "SqueezeBackward1"),
    (lambda v: v[None, :, None].squeeze((0, 2)), lambda a: a, "SqueezeBackward2"),
]


@pytest.mark.parametrize("use_c", [True, False])
@pytest.mark.parametrize("op,op_np,name", _OVERLOADS, ids=[c[2] for c in _OVERLOADS])
def test_grad_fn_names_follow_pytorchs_overloads(device, use_c, op, op_np, name):
    """The node names D2L's printed tensors show: a reduction over dims is PyTorch's
    second overload (x.sum(1): SumBackward1), squeeze(dim)/squeeze(dims) the second and
    third, and basic indexing names its last step (x[:, 1] selects: SelectBackward0;
    x[0, None] unsqueezes). The gradient of sum(w * op(x)) is each op's, from NumPy:
    entry i is sum(w * op(e_i)) for the basis array e_i (every op here is linear)."""
    autograd._use_c_recorder(use_c)
    try:
        a = np.arange(6.0).reshape(2, 3)
        x = t64(a, device, grad=True)
        y = op(x)
        assert y.grad_fn.name() == name
        w = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
        (y * t64(w, device)).sum().backward()
        basis = np.eye(a.size).reshape((a.size,) + a.shape)
        expected = np.array([(w * op_np(e)).sum() for e in basis]).reshape(a.shape)
        np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=0, atol=1e-12)
    finally:
        autograd._use_c_recorder(True)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("use_c", [True, False])
def test_next_functions_give_none_0_for_an_input_without_grad_as_torch(device, use_c):
    """(None, 0), not a bare None, as PyTorch's: ``for fn, nr in next_functions``
    works, and the engine still skips the input (the C recorder's nodes and Python's,
    the C engine and Python's, which anomaly mode's check_nan runs)."""
    autograd._use_c_recorder(use_c)
    try:
        x = t64([1.0, 2.0, 3.0], device, grad=True)
        c = t64([4.0, 5.0, 6.0], device)
        y = x * c
        (acc, nr), none = y.grad_fn.next_functions
        assert acc.variable is x and nr == 0 and none == (None, 0)
        assert y.grad_fn.next_functions == ((acc, 0), (None, 0))
        assert repr(y.grad_fn.next_functions).endswith(", 0), (None, 0))")
        assert list(y.grad_fn.next_functions)[1] == (None, 0)
        assert y.grad_fn.next_functions[1:] == ((None, 0),)
        z = c.clone()
        z.copy_(x)  # a node built in Python: the old value needs no gradient
        assert z.grad_fn.next_functions[0] == (None, 0)
        for anomaly in (False, True):
            x.grad = None
            with autograd.detect_anomaly(check_nan=anomaly):
                (y.sum() + (c + x).sum() + z.sum()).backward(retain_graph=True)
            assert_close(x.grad, [6.0, 7.0, 8.0], "float64")
    finally:
        autograd._use_c_recorder(True)


def test_parameters_require_grad_and_creation_flags():
    assert nn.Linear(2, 3).weight.requires_grad
    assert not nn.Parameter(pdt.ones(2), requires_grad=False).requires_grad
    for make in (lambda: pdt.zeros(2, requires_grad=True), lambda: pdt.rand(2, requires_grad=True),
                 lambda: pdt.tensor([1.0], requires_grad=True),
                 lambda: pdt.ones_like(pdt.ones(2), requires_grad=True)):
        assert make().requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        pdt.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        pdt.arange(3).requires_grad_()
    y = pdt.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False


def test_backward_accumulates_and_backward_with_gradient(device):
    a = np.array([[1.0, -2.0], [0.5, 3.0]])
    x = t64(a, device, grad=True)
    (x * x).sum().backward()
    first = x.grad
    assert first.device == x.device
    assert_close(first.cpu().numpy(), 2 * a, "float64")
    (x * x).sum().backward()
    assert x.grad is first  # accumulated in place
    assert_close(x.grad.cpu().numpy(), 4 * a, "float64")
    x.grad = None
    g = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = x.exp()
    y.backward(t64(g, device))
    assert_close(x.grad.cpu().numpy(), g * np.exp(a), "float64")
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        x.exp().backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        x.exp().backward(t64([1.0], device))
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        t64([1.0], device).sum().backward()


def test_a_gradient_passed_to_two_leaves_is_not_shared():
    a, b = pdt.ones(3, requires_grad=True), pdt.ones(3, requires_grad=True)
    (a + b).sum().backward()
    a.grad.mul_(5)
    assert b.grad.tolist() == [1.0, 1.0, 1.0]
    g = pdt.ones(3)
    c = pdt.ones(3, requires_grad=True)
    (c * 1.0).backward(g)  # the user's gradient is copied, not adopted
    c.grad.add_(1)
    assert g.tolist() == [1.0, 1.0, 1.0]


def test_retain_graph_and_second_backward_error():
    x = pdt.ones(2, dtype="float64", requires_grad=True)
    y = (x.exp() * 3).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad.numpy(), 6 * np.e * np.ones(2), "float64")
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_grad_modes_are_thread_local_context_managers_and_decorators():
    x = pdt.ones(2, requires_grad=True)
    with pdt.no_grad():
        assert not pdt.is_grad_enabled() and (x * 2).grad_fn is None
        with pdt.enable_grad():
            assert (x * 2).requires_grad
        seen = []
        t = threading.Thread(target=lambda: seen.append(pdt.is_grad_enabled()))
        t.start()
        t.join()
        assert seen == [True]  # each thread starts with grad mode on
    assert pdt.is_grad_enabled()

    @pdt.no_grad()
    def f(v):
        return v * 2
    assert not f(x).requires_grad and pdt.is_grad_enabled()
    pdt.set_grad_enabled(False)
    assert not pdt.is_grad_enabled()
    pdt.set_grad_enabled(True)
    with pdt.set_grad_enabled(False):
        assert not (x + 1).requires_grad
    assert pdt.is_grad_enabled()

    @pdt.set_grad_enabled(False)
    def g(v):
        return v + 1
    assert pdt.is_grad_enabled() and not g(x).requires_grad


def test_detach_numpy_and_data():
    x = pdt.ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. "
                                           r"Use tensor.detach\(\).numpy\(\) instead."):
        y.numpy()
    assert pdt.to_numpy(x).tolist() == [1.0] * 3  # explicit, as numpy(force=True): detached
    assert y.detach().numpy().tolist() == [2.0] * 3 and x.data.numpy().tolist() == [1.0] * 3
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.data_ptr() == y.data_ptr()
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad
    assert nn.Linear(2, 2).weight.detach().numpy().shape == (2, 2)


def test_no_export_hands_out_the_memory_of_a_tensor_that_requires_grad(device):
    # Note [exports of tensors that require grad]: every way out refuses, as PyTorch's does;
    # detach() hands out the same memory, and the refusals leave the tensor as it was
    x = pdt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    numpy_msg = r"Can't call numpy\(\) on Tensor that requires grad\. Use tensor\.detach\(\)"
    # (DLPack's refusal is a BufferError, the array API's error for what cannot be exported,
    # as PyTorch's __dlpack__ raises; np.from_dlpack passes it on)
    exports = [(lambda: x.__dlpack__(), BufferError, "Can't export tensors that require grad")]
    if device.type == "cpu":
        exports += [(lambda: np.asarray(x), RuntimeError, numpy_msg),
                    (lambda: np.array(x, copy=True), RuntimeError, numpy_msg),
                    (lambda: x.__array__(), RuntimeError, numpy_msg),
                    (lambda: x.__array_interface__, RuntimeError, numpy_msg),
                    (lambda: memoryview(x), BufferError, "Tensor that requires grad"),
                    (lambda: np.from_dlpack(x), BufferError, "require gradient")]
    else:
        exports += [(lambda: x.__cuda_array_interface__, RuntimeError, "requires grad")]
    for export, error, message in exports:
        with pytest.raises(error, match=message):
            export()
    assert x.requires_grad and x._version == 0 and x.grad_fn is None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    d = x.detach()
    if device.type == "cpu":
        a = np.asarray(d)
        a[0] = 7.0  # the same memory: a write through the export reaches x
        assert x.tolist()[0] == 7.0 and memoryview(d).nbytes == 12
    assert pdt.from_dlpack(d.__dlpack__()).data_ptr() == x.data_ptr()


def test_autograd_grad(device):
    x = t64([1.0, 2.0], device, grad=True)
    w = t64([3.0, -1.0], device, grad=True)
    h = x * w
    y = (h * h).sum()
    gx, gh = autograd.grad(y, (x, h), retain_graph=True)
    assert_close(gx.cpu().numpy(), 2 * np.array([1.0, 2.0]) * np.array([3.0, -1.0]) ** 2, "float64")
    assert_close(gh.cpu().numpy(), 2 * np.array([3.0, -2.0]), "float64")
    assert x.grad is None and w.grad is None  # grad() accumulates nothing
    unused = t64([1.0], device, grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        autograd.grad(y, (x, unused), retain_graph=True)
    assert autograd.grad(y, (unused,), allow_unused=True) == (None,)


def test_in_place_on_a_tensor_backward_needs_raises():
    x = pdt.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)  # exp saved its output
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient "
                                           "computation has been modified by an inplace "
                                           "operation"):
        y.sum().backward()
    c = pdt.ones(3)
    z = x * c
    c.mul_(2)  # mul saved c
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*version 1; "
                                           "expected version 0"):
        z.sum().backward()
    v = pdt.ones(3)
    z = x * v
    v[0] = 5.0  # setitem bumps the version too
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_in_place_on_leaves_and_views():
    w = pdt.ones(3, requires_grad=True)
    for op in (lambda: w.add_(1), lambda: w.mul_(2), lambda: w.zero_(),
               lambda: w.__setitem__(0, 1.0), lambda: w.copy_(pdt.zeros(3))):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation."):
            op()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        w[1:].add_(1)
    with pdt.no_grad():
        w.sub_(0.5)  # the optimizer's way
    assert w.tolist() == [0.5] * 3 and w._version == 1
    y = w * 1.0
    y[1:].mul_(2)  # a view of a non-leaf: recorded (CopySlices, as PyTorch's)
    assert y.grad_fn.name() == "CopySlices"
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0, 2.0]


def test_in_place_on_non_leaves_records_the_op():
    x = t64([1.0, 2.0, 3.0], grad=True)
    y = x * 2
    y.mul_(x)  # y = 2 x * x
    y.zero_()  # then nothing flows back from y ...
    y.add_(x.exp())  # ... but through exp
    assert y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    assert_close(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]), "float64")
    z = pdt.zeros(3, dtype="float64")
    z.copy_(x * 3)  # a plain tensor becomes part of the graph
    assert z.grad_fn.name() == "CopyBackwards" and not z.is_leaf
    x.grad = None
    z.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_to_is_differentiable_and_its_backward_copy_is_explicit(device):
    x = t64([1.0, 2.0], grad=True)
    y = x.to(device)
    z = y.to(pdt.float32)
    assert y.grad_fn is None or y.grad_fn.name() == "ToCopyBackward0"
    assert z.grad_fn.name() == "ToCopyBackward0"
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        (z * 3).sum().backward()
    assert x.grad.device == x.device and x.grad.dtype == pdt.float64
    assert x.grad.tolist() == [3.0, 3.0]
    if str(device) != "cpu":
        stats = pdt.transfer_stats()
        assert stats["device_to_host"]["count"] >= 1, stats


def test_graph_is_freed_and_holds_no_cycles(device):
    """Many forward/backward cycles: no garbage cycles after backward (gc), the graph
    dies with the loss, and memory_allocated comes back to where it was."""
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    X = pdt.randn(32, 8, device=device)
    y = pdt.randint(0, 3, (32,), device=device)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(net(X), y)
        net.zero_grad()
        loss.backward()
        return weakref.ref(loss.grad_fn)

    step()
    gc.collect()
    gc.disable()
    try:
        before = pdt.memory_allocated(device)
        for _ in range(300):
            node = step()
            assert node() is None  # the graph died with the loss, without the gc
        net.zero_grad()
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert pdt.memory_allocated(device) <= before


@pytest.mark.skipif(bool(pdt.build_info()["sanitize"]),
                    reason="ASan's quarantine keeps freed memory resident")
def test_rss_stays_flat_over_many_cycles():
    import resource
    net = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
    X, y = pdt.randn(8, 16), pdt.randn(8, 4)
    opt = pdt.optim.SGD(net.parameters(), lr=0.01)

    def cycles(n):
        for _ in range(n):
            loss = nn.functional.mse_loss(net(X), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    cycles(300)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cycles(2000)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 4096  # KiB


def test_out_and_not_yet_differentiable_ops_raise():
    x = pdt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation"):
        pdt.add(x, 1, out=pdt.empty(2))
    with pytest.raises(NotImplementedError, match=r"bitwise_and\(\) has no derivative"):
        pdt.bitwise_and(x, x)


def test_d2l_linear_regression_from_scratch(device):
    """D2L 3.2 as written for PyTorch: the update under no_grad with `param -= ...` on
    leaves that require grad, then `param.grad.zero_()`."""
    pdt.manual_seed(0)
    X = pdt.randn(1000, 2, device=device)
    y = (X @ pdt.tensor([2.0, -3.4], device=device) + 4.2).reshape(-1, 1)
    w = (pdt.randn(2, 1, device=device) * 0.01).requires_grad_()
    b = pdt.zeros(1, device=device, requires_grad=True)
    for _ in range(3):
        for i in range(0, 1000, 10):
            loss = (X[i:i + 10] @ w + b - y[i:i + 10]) ** 2 / 2
            loss.sum().backward()
            with pdt.no_grad():
                for param in (w, b):
                    param -= 0.03 * param.grad / 10
                    param.grad.zero_()
    assert w.is_leaf and w.requires_grad and w.grad.device == w.device
    got = w.detach().cpu().numpy().ravel().tolist() + [b.item()]
    assert np.allclose(got, [2.0, -3.4, 4.2], atol=1e-3), got


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_gradients_are_laid_out_like_their_operands(device):
    """linear() multiplies by weight.T: the weight's gradient is formed as (g.T @ x), the
    same GEMM with the transposes as flags, so it reaches the weight row-major like the
    weight (PyTorch's gradient layout contract), and an optimizer's updates run on
    matching layouts.  A leaf that is itself a transposed matrix gets its gradient in its
    own layout.  Values against NumPy in float64."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    w = rng.standard_normal((3, 5)).astype(np.float32)
    lin = nn.Linear(5, 3).to(device)
    with pdt.no_grad():
        lin.weight.copy_(pdt.tensor(w, device=device))
    lin(pdt.tensor(x, device=device)).sum().backward()
    want = np.ones((4, 3)).T @ x.astype(np.float64)
    assert lin.weight.grad.is_contiguous() and lin.weight.grad.stride() == (5, 1)
    assert_close(lin.weight.grad, want)
    W = pdt.tensor(w, device=device, requires_grad=True)
    (pdt.tensor(x, device=device) @ W.T).sum().backward()
    assert W.grad.stride() == (5, 1)
    assert_close(W.grad, want)
    P = pdt.tensor(w.T.copy(), device=device).T.detach().requires_grad_()  # (3, 5), strides (1, 3)
    assert P.stride() == (1, 3)
    v = pdt.tensor(rng.standard_normal((5, 2)).astype(np.float32), device=device)
    (P @ v).sum().backward()
    assert P.grad.stride() == P.stride()
    assert_close(P.grad, np.ones((3, 2)) @ np.asarray(v.cpu(), dtype=np.float64).T)


@pytest.mark.parametrize("device", DEVICES)
def test_clamp_gradient_at_its_bounds_is_pytorchs(device):
    """PyTorch 2.15's gradient of clamp (ClampBackward1's docstring): number bounds pass
    it only strictly inside (none at a bound, none for NaN, none when min >= max);
    tensor bounds take it where they won and half of it on a tie; min > max gives
    everything to max; NaNs and equal bounds as torch 2.15 gives them."""
    x = [0.0, 0.5, 1.0, 2.0, -1.0, float("nan")]
    cases = [  # (bounds, x's gradient)
        ({"min": 0.0, "max": 1.0}, [0, 1, 0, 0, 0, 0]),
        ({"min": 0.0}, [0, 1, 1, 1, 0, 0]),
        ({"max": 1.0}, [1, 1, 0, 0, 1, 0]),
        ({"min": 0.5, "max": 0.5}, [0, 0, 0, 0, 0, 0]),
        ({"min": 1.0, "max": 0.0}, [0, 0, 0, 0, 0, 0]),
    ]
    for bounds, want in cases:
        t = pdt.tensor(x, device=device, requires_grad=True)
        (t.clamp(**bounds) * 3.0).sum().backward()
        np.testing.assert_array_equal(np.asarray(t.grad.cpu()), 3.0 * np.array(want),
                                      err_msg=str(bounds))
    x = x[:5]
    t = pdt.tensor(x, device=device, requires_grad=True)
    lo = pdt.zeros(5, device=device, requires_grad=True)
    hi = pdt.ones(5, device=device, requires_grad=True)
    pdt.clamp(t, min=lo, max=hi).sum().backward()
    assert t.grad.tolist() == [0.5, 1, 0.5, 0, 0]
    assert lo.grad.tolist() == [0.5, 0, 0, 0, 1]
    assert hi.grad.tolist() == [0, 0, 0.5, 1, 0]
    t = pdt.tensor([0.0, 0.5, 1.0], device=device, requires_grad=True)
    lo = pdt.ones(3, device=device, requires_grad=True)
    hi = pdt.zeros(1, device=device, requires_grad=True)  # broadcast: its gradient summed
    pdt.clamp(t, min=lo, max=hi).sum().backward()
    assert t.grad.tolist() == [0, 0, 0] and lo.grad.tolist() == [0, 0, 0]
    assert hi.grad.tolist() == [3]
    nan = float("nan")
    rows = [  # x, min, max (None: absent) -> the gradients of x, min, max (torch 2.15's)
        (nan, 0.0, 1.0, (1, 0, 0)), (nan, 1.0, 0.0, (1, 0, 1)), (1.0, 1.0, 1.0, (1, 0, 0)),
        (0.0, 1.0, 1.0, (0, 1, 0)), (1.0, nan, 0.0, (0, 0, 0)), (0.0, 0.0, nan, (1, 0, 0)),
        (2.0, 0.0, nan, (1, 0, 0)), (nan, 0.0, None, (1, 1, None)),
        (1.0, None, nan, (1, None, 1)), (1.0, 1.0, None, (0.5, 0.5, None)),
    ]
    for x, lo, hi, want in rows:
        t = pdt.tensor([x], device=device, requires_grad=True)
        b = [None if v is None else pdt.tensor([v], device=device, requires_grad=True)
             for v in (lo, hi)]
        pdt.clamp(t, min=b[0], max=b[1]).sum().backward()
        got = tuple(None if v is None else v.grad.item() for v in [t] + b)
        assert got == want, (x, lo, hi, got)


@pytest.mark.parametrize("device", DEVICES)
def test_data_has_a_version_counter_of_its_own(device):
    """Writes in place through .data (and its views) are outside autograd's checks, as
    PyTorch's .data has a version counter of its own; detach() shares the tensor's, so
    writes through it, and optimizer steps, are still caught (Note [version counter])."""
    w = pdt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = (w * w).sum()
    v = w._version
    d = w.data
    d.mul_(2)
    d[0] = 5.0
    d[1:].add_(1.0)  # a view of .data counts in .data's counter
    assert w._version == v and d._version == v + 3
    y.backward()  # the product saved w: it now reads the new values, as PyTorch does
    assert w.grad.cpu().tolist() == [10.0, 10.0, 14.0]
    w.grad = None
    y = (w * w).sum()
    w.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    y = (w * w).sum()
    opt = pdt.optim.SGD([w], lr=0.1)
    w.grad = pdt.ones(3, device=device)
    opt.step()  # a write to w, as in PyTorch
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    p = nn.Parameter(pdt.zeros(2, device=device))
    p.data = pdt.ones(2, device=device).data  # p keeps counting in its own counter
    z = (p * p).sum()
    p.data.add_(1.0)  # not seen
    z.backward()
    assert p.grad.cpu().tolist() == [4.0, 4.0]
    z = (p * p).sum()
    with pdt.no_grad():
        p.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


@pytest.mark.parametrize("device", DEVICES)
def test_parameters_and_state_dicts_count_in_their_own_counter(device):
    # a Parameter made from .data is a tensor of its own (its writes through .data are
    # not caught); state_dict() gives detach()es, which share the parameter's counter
    w = pdt.randn(3, device=device, requires_grad=True)
    p = nn.Parameter(w.data)
    z = (p * p).sum()
    p.data.mul_(2)
    z.backward()
    assert_close(p.grad, 2 * np.asarray(p.detach().cpu(), dtype=np.float64))
    net = nn.Linear(2, 2).to(device)
    sd = net.state_dict()
    z = net(pdt.ones(1, 2, device=device)).sum()
    with pdt.no_grad():
        sd["weight"].add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_a_second_instance_of_the_extension_leaves_autograd_working():
    """Note [the autograd globals] (csrc/python/autograd.c): the Tensor type autograd's hooks
    test for is the one of the module whose package installed the dispatcher, held.
    Before, loading the extension a second time (importlib) made it the new module's
    type, and freeing that module left a dangling pointer: the package's own tensors
    then no longer counted as tensors ('does not require grad')."""
    from conftest import run_python
    out = run_python(textwrap.dedent("""
        import gc, importlib.util
        import pydevtensor as pdt
        from pydevtensor import _C
        spec = importlib.util.spec_from_file_location("pydevtensor._C", _C.__file__)
        m2 = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m2)
        assert m2 is not _C and type(m2.ones(2)) is not _C.Tensor
        del m2, spec
        gc.collect()
        x = pdt.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        x.grad = pdt.zeros(3)  # the setter checks against the tensor's own type
        print(x.grad.sum().item(), (x * 3).requires_grad)
    """))
    assert out == ["0.0", "True"]


@pytest.mark.parametrize("call", ["function", "operator", "reflected", "in-place"])
def test_floor_divide_result_requires_grad_and_its_backward_raises_as_torch(device, call):
    """PyTorch gives floor_divide no derivative but still runs it on a tensor that
    requires grad: the result requires grad, and only a backward reaching it raises."""
    x = t64([3.0, 5.0, -1.5], device, grad=True)
    y = {"function": lambda: pdt.floor_divide(x, t64([2.0, 2.0, 2.0], device)),
         "operator": lambda: x // 2, "reflected": lambda: 7 // x,
         "in-place": lambda: (x * 1).floor_divide_(2)}[call]()
    want = np.floor_divide(7.0, [3.0, 5.0, -1.5]) if call == "reflected" else \
        np.floor_divide([3.0, 5.0, -1.5], 2.0)
    assert_close(y, want, "float64")
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for floor_divide is not implemented"):
        (y * 2).sum().backward()
    (x * 3).sum().backward()  # the rest of the graph still works
    assert_close(x.grad, [3.0, 3.0, 3.0], "float64")
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.floor_divide_(2)


def test_zero_gradients_as_torch_gives_them(device):
    """matrix_power(A, 0) requires grad (A's gradient zeros), vector_norm of order 0
    gives x no gradient (None), and materialize_grads' zeros require grad with
    create_graph, as PyTorch's."""
    a = t64([[1.0, 2.0], [3.0, float("inf")]], device, grad=True)
    p = pdt.linalg.matrix_power(a, 0)
    assert p.requires_grad and p.grad_fn.name() == "CopyBackwards"
    assert_close(p, np.eye(2), "float64")
    (g,) = autograd.grad(p.sum(), a)
    assert_close(g, np.zeros((2, 2)), "float64")
    x = t64([1.0, 0.0, 2.0], device, grad=True)
    assert autograd.grad(pdt.linalg.vector_norm(x, ord=0), x, allow_unused=True) == (None,)
    w = t64([1.0, 2.0], device, grad=True)
    for cg in (False, True):
        gx, gw = autograd.grad((x * 2).sum(), [x, w], create_graph=cg, materialize_grads=True)
        assert_close(gw, [0.0, 0.0], "float64")
        assert gw.requires_grad is cg and gx.requires_grad is False
