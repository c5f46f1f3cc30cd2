"""grad_fn names of ops written as compositions, recorded as one node each with
PyTorch's name (layer_norm, batch_norm, the pools, mse_loss, huber_loss, smooth_l1_loss,
binary_cross_entropy_with_logits, norm, linear of a batch of sequences, conv1d, silu,
mish, softplus, logsigmoid, glu, roll, trace, embedding, number / tensor), and each new
node's gradient and second derivative against central differences in float64 on every
device (pydevtensor.autograd.gradcheck / gradgradcheck)."""
import warnings

import numpy as np

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.nn import functional as F


def _t(a, device, grad=True):
    return pdt.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=grad)


def _names(*ts):
    return [t.grad_fn.name() for t in ts]


def test_names_of_composites(device):
    """The names PyTorch's grad_fn has for these calls (each was the name of the
    composition's last piece: DivBackward0, AddBackward0, ViewBackward0, MulBackward0,
    MeanBackward0, WhereBackward0, SubBackward0 or NormBackward0)."""
    rng = np.random.default_rng(0)
    x = _t(rng.standard_normal((3, 4)), device)
    img = _t(rng.standard_normal((2, 3, 8, 8)), device)
    w, b = _t(rng.standard_normal((5, 4)), device), _t(rng.standard_normal(5), device)
    assert _names(F.layer_norm(x, (4,)), F.batch_norm(img, None, None, training=True)) == \
        ["NativeLayerNormBackward0", "NativeBatchNormBackward0"]
    assert _names(F.max_pool2d(img, 2), F.avg_pool2d(img, 3, 2, 1, ceil_mode=True),
                  F.adaptive_avg_pool2d(img, 1), F.adaptive_avg_pool2d(img, (4, 2))) == \
        ["MaxPool2DWithIndicesBackward0", "AvgPool2DBackward0", "MeanBackward1",
         "AdaptiveAvgPool2DBackward0"]
    assert _names(*(F.mse_loss(x, x.detach() * 0, reduction=r)
                    for r in ("mean", "sum", "none"))) == ["MseLossBackward0"] * 3
    assert _names(x.norm(), x.norm(1), pdt.norm(x, dim=1), pdt.linalg.vector_norm(x),
                  pdt.linalg.vector_norm(x, 3)) == ["LinalgVectorNormBackward0"] * 5
    # at::linear: one addmm over a contiguous input's rows, then _unsafe_view; matmul
    # without a bias; a strided input is matmul plus the bias
    seq = _t(rng.standard_normal((2, 3, 4)), device)
    assert _names(F.linear(seq, w, b), F.linear(x[0], w, b), F.linear(seq, w),
                  F.linear(x[0], w), F.linear(seq.transpose(0, 1), w, b)) == \
        ["UnsafeViewBackward0"] * 3 + ["SqueezeBackward4", "AddBackward0"]
    assert _names(F.silu(x), F.mish(x), F.softplus(x), F.logsigmoid(x), F.glu(x)) == \
        ["SiluBackward0", "MishBackward0", "SoftplusBackward0", "LogSigmoidBackward0",
         "GluBackward0"]
    y = x.detach().sigmoid()
    assert _names(F.huber_loss(x, y), F.smooth_l1_loss(x, y, reduction="none"),
                  F.binary_cross_entropy_with_logits(x, y),
                  F.binary_cross_entropy_with_logits(x, y, y[0], pos_weight=y[1])) == \
        ["HuberLossBackward0", "SmoothL1LossBackward0"] + \
        ["BinaryCrossEntropyWithLogitsBackward0"] * 2
    assert _names(x.roll(1, 0), x.roll((1, -5), (0, 1)), x[:, :3].trace()) == \
        ["RollBackward0"] * 2 + ["TraceBackward0"]
    ids = pdt.tensor([[0, 2, 2]], device=device)
    assert _names(F.embedding(ids, x), F.embedding(ids, x, padding_idx=2)) == \
        ["EmbeddingBackward0"] * 2
    # number / tensor is one exact division (PyTorch's __rtruediv__ is reciprocal() *
    # number, MulBackward0, rounded twice: ours keeps division exact, as NumPy's)
    assert (2 / x).grad_fn.name() == "DivBackward0"
    if device.type == "cpu":  # the direct (float32 CPU) convolution's node
        seq32 = seq.detach().float().requires_grad_()
        k = pdt.ones(6, 3, 2, device=device, requires_grad=True)
        assert F.conv1d(seq32, k).grad_fn.name() == "ConvolutionBackward0"


def _check(fn, *inputs):
    assert autograd.gradcheck(fn, inputs)
    assert autograd.gradgradcheck(fn, inputs)


def test_norm_nodes_gradients(device):
    """layer_norm and batch_norm (affine or not, weight or bias alone): the gradients
    and second derivatives of NativeLayerNormBackward0 / NativeBatchNormBackward0."""
    rng = np.random.default_rng(1)
    x = _t(rng.standard_normal((2, 3, 4)), device)
    w, b = _t(rng.standard_normal(4) + 1, device), _t(rng.standard_normal(4), device)
    _check(lambda x, w, b: F.layer_norm(x, (4,), w, b, eps=1e-3), x, w, b)
    _check(lambda x: F.layer_norm(x, (3, 4)), x)
    c, d = _t(rng.standard_normal(3) + 1, device), _t(rng.standard_normal(3), device)
    _check(lambda x, c, d: F.batch_norm(x, None, None, c, d, training=True, eps=1e-3),
           x, c, d)
    assert autograd.gradcheck(lambda x, d: F.batch_norm(x, None, None, None, d, training=True),
                              (x, d))
    # the running statistics follow the batch's (unbiased variance)
    rm, rv = pdt.zeros(3, dtype=pdt.float64, device=device), pdt.ones(3, dtype=pdt.float64,
                                                                      device=device)
    F.batch_norm(x, rm, rv, training=True, momentum=1.0)
    xn = x.detach().cpu().numpy()
    np.testing.assert_allclose(rm.cpu().numpy(), xn.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(rv.cpu().numpy(), xn.var((0, 2), ddof=1), rtol=1e-12)


def test_pool_nodes_gradients(device):
    """avg_pool2d (padding, ceil_mode, count_include_pad, divisor_override, tiling
    windows), adaptive_avg_pool2d and max_pool2d: gradients and second derivatives."""
    rng = np.random.default_rng(2)
    x = _t(rng.standard_normal((2, 2, 7, 9)), device)
    _check(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), x)
    _check(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), x)
    _check(lambda x: F.avg_pool2d(x, (2, 3), divisor_override=5), x)
    big = _t(rng.standard_normal((1, 2, 17, 16)), device)
    _check(lambda x: F.avg_pool2d(x, 8), big)  # tiling windows, a row left over
    _check(lambda x: F.adaptive_avg_pool2d(x, (2, 2)), big)
    _check(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), x)


def test_loss_linear_and_activation_nodes_gradients(device):
    """mse_loss (target broadcast too), huber / smooth_l1, the binary cross-entropy with
    logits, linear of a batch of sequences and of a vector, the activations, 3 / x, roll,
    trace and embedding (times x, for a second derivative that is not zero)."""
    rng = np.random.default_rng(3)
    x, y = _t(rng.standard_normal((3, 4)), device), _t(rng.standard_normal((3, 4)), device)
    for r in ("mean", "sum", "none"):
        _check(lambda x, y, r=r: F.mse_loss(x, y, reduction=r), x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's warning of the broadcast target
        _check(lambda x, y: F.mse_loss(x, y[0]), x, y)
    for r in ("mean", "none"):
        _check(lambda x, y, r=r: F.huber_loss(x * 2, y, reduction=r, delta=0.7), x, y)
        _check(lambda x, y, r=r: F.smooth_l1_loss(x * 2, y, reduction=r, beta=0.5), x, y)
        weight = _t(rng.random(4) + 0.5, device, grad=False)
        for pw in (None, _t(rng.random(4) + 0.5, device, grad=False)):
            _check(lambda x, y, r=r, pw=pw: F.binary_cross_entropy_with_logits(
                x * 3, y.sigmoid(), weight, reduction=r, pos_weight=pw), x, y)
    seq = _t(rng.standard_normal((2, 3, 4)), device)
    w, b = _t(rng.standard_normal((5, 4)), device), _t(rng.standard_normal(5), device)
    _check(lambda s, w, b: F.linear(s, w, b), seq, w, b)
    _check(lambda v, w, b: F.linear(v, w, b), x[0].detach().requires_grad_(), w, b)
    z = _t(np.concatenate([rng.standard_normal(8) * 4, [0.0, 25.0, -25.0]]), device)
    for fn in (F.silu, F.mish, F.softplus, F.logsigmoid,
               lambda t: F.softplus(t, beta=2.0, threshold=5.0)):
        _check(fn, z)
    _check(lambda t: 3 / t, x + 5)
    _check(F.glu, x)
    _check(lambda t: F.glu(t, 0), x[:2])
    _check(lambda t: t.roll((1, -5), (0, 1)) * t, x)
    _check(lambda t: t.trace() * t, x)
    _check(lambda t: t[:, :3].trace() * t, x)
    ids = pdt.tensor([[0, 2, 2], [1, 0, 2]], device=device)
    _check(lambda t: F.embedding(ids, t) * t[0], x)
    # the padding row's gradient is zero by definition (not its numerical derivative),
    # the others are the sums of their lookups' g
    rows = F.embedding(ids, x, padding_idx=0)
    (gw,) = autograd.grad(rows.sum(), x)
    np.testing.assert_array_equal(gw.cpu().numpy(), np.array([[0.0] * 4, [1.0] * 4, [3.0] * 4]))


def test_conv1d_node_gradients(device):
    """conv1d through the float32 CPU direct kernel (ConvolutionBackward0): its
    gradient and second derivative agree with the float64 path's (im2col, checked by
    central differences here) to float32 accuracy; elsewhere conv1d is that path."""
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((2, 4, 9))
    ks = rng.standard_normal((6, 2, 3))
    bs = rng.standard_normal(6)

    def conv(x, k, b):
        return F.conv1d(x, k, b, stride=2, padding=1, groups=2)

    _check(conv, _t(xs, device), _t(ks, device), _t(bs, device))
    r = rng.standard_normal((2, 6, 5))
    results = []
    for dtype in (pdt.float64, pdt.float32):
        args = [pdt.tensor(a, dtype=dtype, device=device, requires_grad=True)
                for a in (xs, ks, bs)]
        out = conv(*args)
        grads = autograd.grad((out * pdt.tensor(r, dtype=dtype, device=device)).sum(), args,
                              create_graph=True)
        second = autograd.grad(sum((g * g).sum() for g in grads), args[:2])
        results.append([t.detach().cpu().numpy().astype(np.float64)
                        for t in (out, *grads, *second)])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_number_over_tensor_is_one_exact_division(device):
    """number / tensor is NumPy's number / array bit for bit (one rounding), with
    autograd or without; its gradient -number / x**2 against NumPy in float64 within
    1e-12."""
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 3.0, (5, 7)) * rng.choice([-1, 1], (5, 7))
    for npdt, dt in ((np.float32, pdt.float32), (np.float64, pdt.float64)):
        for grad in (False, True):
            x = pdt.tensor(a.astype(npdt), device=device, requires_grad=grad)
            for number in (1, 3, 0.1, -2.5, 10**30):
                got = (number / x).detach().cpu().numpy()
                want = (np.asarray(number, npdt) / a.astype(npdt)).astype(npdt)
                assert got.dtype == npdt and np.array_equal(got, want), (dt, number, grad)
    xg = _t(a, device)
    (3 / xg).sum().backward()
    np.testing.assert_allclose(xg.grad.cpu().numpy(), -3 / a**2, rtol=1e-12)


def test_pool_nodes_empty_batch(device):
    """An empty batch backpropagates through the pooling nodes: zeros of the input's
    shape (max_pool2d's backward reshaped with -1, which an empty tensor cannot infer,
    and raised; PyTorch takes an empty batch, as the forward here does)."""
    for shape in ((0, 3, 6, 6), (0, 2, 7, 9)):
        for dtype in (pdt.float64, pdt.float32):
            x = pdt.zeros(shape, dtype=dtype, device=device, requires_grad=True)
            for pool in (lambda x: F.max_pool2d(x, 2), lambda x: F.max_pool2d(x, 3, 2, 1),
                         lambda x: F.avg_pool2d(x, 2), lambda x: F.adaptive_avg_pool2d(x, 3)):
                x.grad = None
                pool(x).sum().backward()
                assert tuple(x.grad.shape) == shape and x.grad.dtype == dtype


def test_linear_folded_empty(device):
    """linear of a 1-d or 3-d input with a bias (the one-addmm node) when the input has
    no rows, in_features is 0 or out_features is 0: bias (or nothing) broadcast over the
    rows, and gradients x: g W, W: g^T x, bias: g summed over the rows (reshaped with
    -1, which such an input leaves undetermined, it raised)."""
    for xs, (o, i) in (((2, 3, 0), (4, 0)), ((0,), (4, 0)), ((0, 3, 5), (4, 5)),
                       ((2, 3, 5), (0, 5))):
        x = pdt.ones(xs, dtype=pdt.float64, device=device, requires_grad=True)
        w = pdt.ones((o, i), dtype=pdt.float64, device=device, requires_grad=True)
        b = pdt.arange(o, dtype=pdt.float64, device=device).requires_grad_()
        y = F.linear(x, w, b)
        rows = int(np.prod(xs[:-1]))
        want = np.broadcast_to(np.arange(o, dtype=np.float64), xs[:-1] + (o,))
        np.testing.assert_array_equal(y.detach().cpu().numpy(), want)
        gx, gw, gb = autograd.grad((y * y).sum(), [x, w, b])
        assert tuple(gx.shape) == xs and not gx.cpu().numpy().any()
        np.testing.assert_array_equal(gw.cpu().numpy(), np.zeros((o, i)))  # x or g empty
        np.testing.assert_array_equal(gb.cpu().numpy(), 2 * rows * np.arange(o))


def test_batch_norm_of_an_empty_batch(device):
    """batch_norm of an empty input, in evaluation and training, F.batch_norm and the
    layers: PyTorch's clone * weight + bias (CloneBackward0, MulBackward0 or
    AddBackward0; was NativeBatchNormBackward0), of input's shape and dtype, zero
    gradients for weight and bias, running statistics untouched; 0 channels with a
    weight too (PyTorch's weight[0] raises IndexError there)."""
    for shape, dtype in (((0, 2, 3), pdt.float64), ((0, 2, 3, 3), pdt.float32),
                         ((0, 2), pdt.float16), ((4, 0, 3), pdt.float64)):
        c = shape[1]
        x = pdt.zeros(shape, dtype=dtype, device=device, requires_grad=True)
        w = pdt.ones(c, device=device, requires_grad=True)
        b = pdt.zeros(c, device=device, requires_grad=True)
        for training in (False, True):
            mean = pdt.arange(c, dtype=pdt.float32, device=device)
            var = mean + 1
            got = []
            for ww, bb in ((None, None), (w, None), (None, b), (w, b)):
                y = F.batch_norm(x, mean, var, ww, bb, training=training)
                assert tuple(y.shape) == shape and y.dtype == dtype
                got.append(y.grad_fn.name())
            assert got == ["CloneBackward0", "MulBackward0", "AddBackward0", "AddBackward0"]
            np.testing.assert_array_equal(mean.cpu().numpy(), np.arange(c))
            np.testing.assert_array_equal(var.cpu().numpy(), np.arange(c) + 1)
            gx, gw, gb = autograd.grad(y.sum(), [x, w, b])
            assert tuple(gx.shape) == shape
            for gp in (gw, gb):
                np.testing.assert_array_equal(gp.cpu().numpy(), np.zeros(c))
    layer = pdt.nn.BatchNorm2d(2).to(device).eval()
    x = pdt.zeros((0, 2, 4, 4), device=device, requires_grad=True)
    assert layer(x).grad_fn.name() == "AddBackward0"
    layer.train()
    assert layer(x).grad_fn.name() == "AddBackward0"
    np.testing.assert_array_equal(layer.running_mean.cpu().numpy(), np.zeros(2))


def test_infinity_norms_are_one_node(device):
    """linalg.vector_norm / Tensor.norm of order inf or -inf LinalgVectorNormBackward0
    and pairwise_distance with p = +-inf NormBackward1, as PyTorch's (were AmaxBackward0
    / AminBackward0, and AbsBackward0 for a 0-d input); gradients and second derivatives
    against central differences, and at ties the gradient shared evenly, times sign(x),
    exactly as NumPy's float64 gives it."""
    inf = float("inf")
    rng = np.random.default_rng(7)  # no ties, nothing near 0: away from the kinks
    x = _t(rng.choice([-1, 1], (3, 4)) * rng.uniform(1, 3, (3, 4)), device)
    y = _t(rng.uniform(-0.5, 0.5, 12), device, False)
    s = _t(-2.5, device)
    assert _names(pdt.linalg.vector_norm(x, inf), pdt.linalg.vector_norm(x, -inf, dim=1),
                  x.norm(inf, dim=0), pdt.linalg.vector_norm(s, inf)) == \
        ["LinalgVectorNormBackward0"] * 4
    y = y.reshape(3, 4)
    assert _names(F.pairwise_distance(x, y, p=inf), F.pairwise_distance(x, y, p=-inf),
                  F.pairwise_distance(x[0], y[0], p=inf), F.pairwise_distance(s, s * 2, p=inf)) \
        == ["NormBackward1"] * 4
    for fn in (lambda t: pdt.linalg.vector_norm(t, inf, dim=1) ** 2,
               lambda t: pdt.linalg.vector_norm(t, -inf) * t,
               lambda t: F.pairwise_distance(t, y, p=inf) ** 2,
               lambda t: F.pairwise_distance(t, y, p=-inf, keepdim=True) * t):
        _check(fn, x)
    a = np.array([[3.0, -3.0, 1.0, 3.0], [0.0, 0.0, 0.0, 0.0], [-2.0, 1.0, 0.5, 0.25]])
    g = np.array([1.5, -2.0, 0.75])
    for order, extreme in ((inf, np.max), (-inf, np.min)):
        t = _t(a, device)
        (gx,) = autograd.grad(pdt.linalg.vector_norm(t, order, dim=1), t, _t(g, device, False))
        mask = np.abs(a) == extreme(np.abs(a), axis=1, keepdims=True)
        want = mask * (g[:, None] / mask.sum(1, keepdims=True)) * np.sign(a)
        np.testing.assert_array_equal(gx.cpu().numpy(), want)


def test_channels_last_results_keep_the_ops_node(device):
    """A pool or convolution of a channels_last input is laid out channels_last after
    the op: that copy takes the op's node (MaxPool2DWithIndicesBackward0,
    AvgPool2DBackward0, AdaptiveAvgPool2DBackward0, MaxPool3DWithIndicesBackward0...,
    as PyTorch's; the copy's PermuteBackward0 or CloneBackward0 was the grad_fn), with
    the row-major input's gradient, exactly."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 3, 7, 9))
    fns = (lambda t: F.max_pool2d(t, 2), lambda t: F.max_pool2d(t, 3, 2, 1)[..., :2],
           lambda t: F.avg_pool2d(t, 2), lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
           lambda t: F.adaptive_avg_pool2d(t, (7, 3)), lambda t: F.adaptive_max_pool2d(t, 3),
           lambda t: F.max_pool2d(t, 2, return_indices=True)[0])
    for fn in fns:
        x = _t(a, device)
        xl = _t(a, device).detach().contiguous(memory_format=pdt.channels_last).requires_grad_()
        want, got = fn(x), fn(xl)
        assert got.grad_fn.name() == want.grad_fn.name() != "PermuteBackward0"
        g = _t(rng.standard_normal(tuple(want.shape)), device, False)
        np.testing.assert_array_equal(autograd.grad(got, xl, g)[0].cpu().numpy(),
                                      autograd.grad(want, x, g)[0].cpu().numpy())
    x5 = _t(rng.standard_normal((1, 2, 4, 5, 6)), device).detach()
    xl5 = x5.contiguous(memory_format=pdt.channels_last_3d).requires_grad_()
    assert [F.max_pool3d(xl5, 2).grad_fn.name(), F.avg_pool3d(xl5, 2).grad_fn.name()] == \
        [F.max_pool3d(x5.requires_grad_(), 2).grad_fn.name(),
         F.avg_pool3d(x5, 2).grad_fn.name()]


def test_matrix_norms_of_orders_1_and_inf_are_vector_norms_under_amax(device):
    """linalg.matrix_norm / linalg.norm of order 1, -1, inf or -inf: AmaxBackward0 /
    AminBackward0 over LinalgVectorNormBackward0 (the 1-norms of the columns or rows), as
    PyTorch's at::linalg_matrix_norm (was SqueezeBackward2 over AmaxBackward0 over
    SumBackward1 over AbsBackward0; with keepdim AmaxBackward0 over SumBackward1);
    gradients, forward mode, batched gradients and second derivatives against central
    differences, and at tied sums the gradient shared evenly, times sign(x), as NumPy's
    float64 gives it."""
    inf = float("inf")
    rng = np.random.default_rng(9)  # no ties, nothing near 0: away from the kinks
    x = _t(rng.choice([-1, 1], (2, 3, 4)) * rng.uniform(1, 3, (2, 3, 4)), device)
    calls = [pdt.linalg.matrix_norm(x, inf), pdt.linalg.matrix_norm(x, -inf, keepdim=True),
             pdt.linalg.matrix_norm(x, 1, dim=(2, 0)), pdt.linalg.matrix_norm(x, -1),
             pdt.linalg.norm(x[0], inf), pdt.linalg.norm(x, 1, dim=(-1, -3), keepdim=True)]
    assert _names(*calls) == ["AmaxBackward0", "AminBackward0", "AmaxBackward0",
                              "AminBackward0", "AmaxBackward0", "AmaxBackward0"]
    assert [c.grad_fn.next_functions[0][0].name() for c in calls] == \
        ["LinalgVectorNormBackward0"] * 6
    assert [tuple(c.shape) for c in calls] == [(2,), (2, 1, 1), (3,), (2,), (), (1, 3, 1)]
    for order, dim, keep in ((inf, (-2, -1), False), (-inf, (1, 2), True), (1, (2, 0), False),
                             (-1, (-1, -3), True)):
        assert autograd.gradcheck(
            lambda t, o=order, d=dim, k=keep: pdt.linalg.matrix_norm(t, o, d, k), (x,),
            check_forward_ad=True, check_batched_grad=True)
        assert autograd.gradgradcheck(
            lambda t, o=order, d=dim, k=keep: pdt.linalg.matrix_norm(t, o, d, k) ** 2, (x,))
    a = np.array([[[3.0, -1.0, 0.0], [-2.0, 2.0, 0.0], [1.0, 0.0, -3.0]],
                  [[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [0.0, 1.5, 0.0]]])  # tied sums
    g = np.array([1.5, -2.0])
    for order, axis, extreme in ((inf, 2, np.max), (-inf, 2, np.min), (1, 1, np.max),
                                 (-1, 1, np.min)):
        t = _t(a, device)
        (gx,) = autograd.grad(pdt.linalg.matrix_norm(t, order), t, _t(g, device, False))
        sums = np.abs(a).sum(axis, keepdims=True)
        mask = sums == extreme(sums, axis=3 - axis, keepdims=True)
        want = mask * (g[:, None, None] / mask.sum((1, 2), keepdims=True)) * np.sign(a)
        np.testing.assert_allclose(gx.cpu().numpy(), want, rtol=1e-15, atol=0)
