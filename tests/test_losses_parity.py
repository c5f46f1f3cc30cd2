"""Losses against PyTorch's behaviour at the edges: NaN gradients of the piecewise
losses, recorded (differentiable) gradients under create_graph, broadcasting targets
and elementwise weights of the regression losses.  References: closed forms in NumPy."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F


def _grad(fn, values, device, **kw):
    x = pdt.tensor(values, dtype=pdt.float64, device=device, requires_grad=True)
    fn(x, pdt.zeros(len(values), dtype=pdt.float64, device=device), reduction="sum",
       **kw).backward()
    return x.grad.cpu().numpy()


@pytest.mark.parametrize("fn, kw", [(F.smooth_l1_loss, {}), (F.smooth_l1_loss, {"beta": 2.0}),
                                    (F.huber_loss, {}), (F.huber_loss, {"delta": 0.5})])
def test_a_nan_input_gives_a_nan_gradient(device, fn, kw):
    knee = kw.get("beta", kw.get("delta", 1.0))
    slope = 1.0 if fn is F.smooth_l1_loss else knee  # of the linear piece
    scale = 1.0 / knee if fn is F.smooth_l1_loss else 1.0  # of the quadratic piece
    got = _grad(fn, [np.nan, 0.25, -3.0, np.inf], device, **kw)
    np.testing.assert_array_equal(got, [np.nan, 0.25 * scale, -slope, slope])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [False, True])
def test_nll_loss_gradient_is_recorded_under_create_graph(device, reduction, ignore):
    x = pdt.tensor([[0.2, -0.4, 1.0], [0.5, 0.1, -0.3]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    t = pdt.tensor([2, -100 if ignore else 0], device=device)
    loss = F.nll_loss(x, t, reduction=reduction).sum()
    assert loss.grad_fn.name() in ("NllLossBackward0", "SumBackward0")
    g, = pdt.autograd.grad(loss, x, create_graph=True)
    assert g.requires_grad
    scale = 1.0 if reduction != "mean" else 1.0 if ignore else 0.5
    want = np.zeros((2, 3))
    want[0, 2] = -scale
    if not ignore:
        want[1, 0] = -scale
    np.testing.assert_array_equal(g.detach().cpu().numpy(), want)
    h, = pdt.autograd.grad((g * g).sum() + loss, x)  # the penalty's derivative is 0
    np.testing.assert_array_equal(h.cpu().numpy(), want)


X = np.array([[0.0, 1.0], [2.0, 3.0]])
T = np.array([0.5, 3.0])


def _ref(name, d):
    z = np.abs(d)
    return {"mse_loss": d * d, "l1_loss": z, "kl_div": None,
            "smooth_l1_loss": np.where(z < 1.0, 0.5 * z * z, z - 0.5),
            "huber_loss": np.where(z < 1.0, 0.5 * z * z, z - 0.5)}[name]


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                  "kl_div"])
def test_a_target_of_another_shape_is_broadcast_with_a_warning(device, name):
    x = pdt.tensor(X, dtype=pdt.float64, device=device)
    t = pdt.tensor(T, dtype=pdt.float64, device=device)
    with pytest.warns(UserWarning, match=r"Using a target size .* different to the input size"):
        got = getattr(F, name)(x, t, reduction="sum")
    tb = np.broadcast_to(T, X.shape)
    want = (tb * (np.log(tb) - X)).sum() if name == "kl_div" else _ref(name, X - tb).sum()
    np.testing.assert_allclose(got.item(), want, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one shape: no warning
        getattr(F, name)(x, x, reduction="sum")
    with pytest.raises(ValueError, match="do not broadcast"):
        getattr(F, name)(x, pdt.zeros(3, dtype=pdt.float64, device=device))


@pytest.mark.parametrize("name, by_weights", [("mse_loss", True), ("l1_loss", True),
                                              ("huber_loss", False)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_regression_losses(device, name, by_weights, reduction):
    w = np.array([[1.0, 2.0], [0.0, 3.0]])
    x = pdt.tensor(X, dtype=pdt.float64, device=device, requires_grad=True)
    t = pdt.tensor(X * 0 + 1.5, dtype=pdt.float64, device=device)
    got = getattr(F, name)(x, t, reduction=reduction, weight=pdt.tensor(w, device=device))
    per = _ref(name, X - 1.5) * w
    want = per if reduction == "none" else per.sum() if reduction == "sum" else \
        per.sum() / (w.sum() if by_weights else w.size)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=1e-12)
    got.sum().backward()
    assert x.grad.shape == (2, 2)
    with pytest.raises(ValueError, match=r"weight of shape \(2,\) and input of shape \(2, 2\)"):
        getattr(F, name)(x, t, weight=pdt.ones(2, dtype=pdt.float64, device=device))


@pytest.mark.parametrize("call", [
    lambda a, b, r: F.mse_loss(a, b, reduction=r),
    lambda a, b, r: F.huber_loss(a, b, reduction=r),
    lambda a, b, r: F.kl_div(a, b, reduction=r),
    lambda a, b, r: F.soft_margin_loss(a, b, reduction=r),
    lambda a, b, r: nn.L1Loss(reduction=r)(a, b)])
def test_elementwise_mean_is_the_deprecated_mean(device, call):
    a = pdt.tensor([[0.2, 0.7]], dtype=pdt.float64, device=device)
    b = pdt.tensor([[1.0, 0.5]], dtype=pdt.float64, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call(a, b, "elementwise_mean").item()
    assert [str(w.message) for w in caught] == [
        "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."]
    assert got == call(a, b, "sum").item() / 2


@pytest.mark.parametrize("fn", [F.multilabel_soft_margin_loss, F.poisson_nll_loss])
def test_elementwise_mean_is_refused_where_pytorch_refuses_it(device, fn):
    a = pdt.tensor([[0.2, 0.7]], device=device)
    with pytest.raises(ValueError, match="elementwise_mean"):
        fn(a, a, reduction="elementwise_mean")


def test_cross_entropy_promotes_probabilities_of_another_dtype(device):
    x = pdt.tensor([[1.0, 2.0, 0.5]], device=device)
    t = pdt.tensor([[0.2, 0.3, 0.5]], dtype=pdt.float64, device=device)
    got = F.cross_entropy(x, t)
    assert got.dtype == pdt.float64
    z = np.array([1.0, 2.0, 0.5], dtype=np.float32).astype(np.float64)
    want = -(np.array([0.2, 0.3, 0.5]) * (z - np.log(np.exp(z).sum()))).sum()
    np.testing.assert_allclose(got.item(), want, rtol=1e-6)


def test_multi_margin_loss_takes_a_1d_input_with_a_1_element_target(device):
    x = pdt.tensor([0.1, 0.5, 0.2], dtype=pdt.float64, device=device)
    want = (max(0.0, 1 - 0.5 + 0.1) + max(0.0, 1 - 0.5 + 0.2)) / 3
    assert F.multi_margin_loss(x, pdt.tensor([1], device=device)).item() == pytest.approx(want)
    none = F.multi_margin_loss(x, pdt.tensor([1], device=device), reduction="none")
    assert none.shape == (1,) and none.item() == pytest.approx(want)


def test_pairwise_distance_of_0d_and_integer_inputs(device):
    got = F.pairwise_distance(pdt.tensor(1.0, device=device), pdt.tensor(3.0, device=device))
    assert got.shape == () and got.item() == pytest.approx(2.0 - 1e-6)
    got = F.pairwise_distance(pdt.tensor([[1, 2]], device=device),
                              pdt.tensor([[3, 1]], device=device))
    assert got.dtype == pdt.float32
    np.testing.assert_allclose(got.cpu().numpy(), [np.hypot(2 - 1e-6, 1 + 1e-6)], rtol=1e-6)


@pytest.mark.parametrize("fn, ref", [(F.softsign, lambda v: v / (np.abs(v) + 1)),
                                     (F.tanhshrink, lambda v: v - np.tanh(v))])
def test_softsign_and_tanhshrink_take_integers(device, fn, ref):
    got = fn(pdt.tensor([1, -2, 0], device=device))
    assert got.dtype == pdt.float32
    np.testing.assert_allclose(got.cpu().numpy(), ref(np.array([1.0, -2.0, 0.0])), rtol=1e-6)


def test_binary_cross_entropy_refuses_a_target_outside_0_1():
    with pytest.raises(ValueError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(pdt.tensor([0.3, 0.6]), pdt.tensor([1.5, 0.2]))


@pytest.mark.parametrize("margin", [-1.0, 0.0])
def test_triplet_margin_loss_refuses_a_margin_not_above_0(margin):
    a = pdt.ones(1, 2)
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(a, a, a, margin=margin)


def test_hardtanh_takes_the_deprecated_min_value_and_max_value():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = nn.Hardtanh(min_value=-2.0, max_value=3.0)
    assert [(w.category, str(w.message)) for w in caught] == [
        (FutureWarning, f"keyword argument `{old}` is deprecated and renamed to `{new}`")
        for old, new in (("min_value", "min_val"), ("max_value", "max_val"))]
    assert (layer.min_val, layer.max_val) == (-2.0, 3.0)
    np.testing.assert_array_equal(layer(pdt.tensor([-5.0, 0.5, 5.0])).numpy(), [-2.0, 0.5, 3.0])


A = np.array([[0.0, 0.0], [1.0, 2.0], [0.5, -1.0]])
P = np.array([[3.0, 4.0], [1.0, 2.5], [0.0, 0.0]])
N = np.array([[1.0, 0.0], [4.0, 2.0], [0.4, -1.0]])


def _l1(x, y):
    return np.abs(x - y).sum(-1)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("custom", [False, True])
def test_triplet_margin_with_distance_loss(device, swap, reduction, custom):
    a, p, n = (pdt.tensor(v, dtype=pdt.float64, device=device, requires_grad=True)
               for v in (A, P, N))
    if custom:
        d, ref = (lambda x, y: (x - y).abs().sum(-1)), _l1
    else:
        d, ref = None, (lambda x, y: np.sqrt(((x - y + 1e-6) ** 2).sum(-1)))
    got = F.triplet_margin_with_distance_loss(a, p, n, distance_function=d, margin=0.5,
                                              swap=swap, reduction=reduction)
    d_neg = np.minimum(ref(A, N), ref(P, N)) if swap else ref(A, N)
    per = np.maximum(0.5 + ref(A, P) - d_neg, 0.0)
    want = per if reduction == "none" else per.sum() if reduction == "sum" else per.mean()
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=1e-12)
    layer = nn.TripletMarginWithDistanceLoss(distance_function=d, margin=0.5, swap=swap,
                                             reduction=reduction)
    np.testing.assert_allclose(layer(a, p, n).detach().cpu().numpy(), want, rtol=1e-12)
    got.sum().backward()  # d(loss)/d(positive) of the L1 distance: sign(p - a) where active
    if custom and not swap:
        scale = 1.0 if reduction != "mean" else 1.0 / 3
        want_p = np.sign(P - A) * (per > 0)[:, None] * scale
        np.testing.assert_allclose(p.grad.cpu().numpy(), want_p, rtol=1e-12)


def test_triplet_margin_with_distance_loss_refuses_what_pytorch_refuses():
    a = pdt.ones(2, 3)
    with pytest.raises(ValueError, match="margin must be greater than 0, got -1.0"):
        F.triplet_margin_with_distance_loss(a, a, a, margin=-1)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_with_distance_loss(a, a, pdt.ones(3))
    with pytest.raises(ValueError, match="reduction"):
        F.triplet_margin_with_distance_loss(a, a, a, reduction="elementwise_mean")
    with pytest.raises(TypeError):
        F.triplet_margin_with_distance_loss(a, a, a, None)  # keyword-only, as PyTorch's


@pytest.mark.parametrize("fn", [F.binary_cross_entropy, F.binary_cross_entropy_with_logits])
@pytest.mark.parametrize("name", ["weight", "pos_weight"])
def test_binary_cross_entropy_weights_must_broadcast_to_the_input(device, fn, name):
    if fn is F.binary_cross_entropy and name == "pos_weight":
        return  # binary_cross_entropy has no pos_weight
    x = np.array([0.3, 0.6])
    y = np.array([0.0, 1.0])
    xt = pdt.tensor(x, dtype=pdt.float64, device=device)
    yt = pdt.tensor(y, dtype=pdt.float64, device=device)
    # a (2, 1) weight against a (2,) input gave a (2, 2) loss; PyTorch refuses it
    with pytest.raises(RuntimeError, match=rf"{name} of shape \(2, 1\) does not broadcast to "
                                           r"input's shape \(2,\)"):
        fn(xt, yt, reduction="none", **{name: pdt.tensor([[1.0], [2.0]], device=device)})
    with pytest.raises(ValueError, match="does not broadcast"):  # both classes
        fn(xt, yt, **{name: pdt.ones(3, 2, dtype=pdt.float64, device=device)})
    # one that broadcasts to the input's shape is taken: (1,) and 0-d
    for w in (np.array([2.0]), np.array(2.0)):
        got = fn(xt, yt, reduction="none", **{name: pdt.tensor(w, device=device)})
        if fn is F.binary_cross_entropy:
            want = -2.0 * (y * np.log(x) + (1 - y) * np.log(1 - x))
        else:
            sp = np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)  # softplus(x)
            pos = 2.0 if name == "pos_weight" else 1.0
            want = ((1 - y) * sp + pos * y * (sp - x)) * (2.0 if name == "weight" else 1.0)
        assert got.shape == (2,)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


BAD_LOSS_ARGS = {  # PyTorch raises RuntimeError for each; these raised a plain ValueError
    "mse-shapes": lambda d: F.mse_loss(pdt.ones(2, 3, device=d), pdt.ones(4, device=d)),
    "huber-delta": lambda d: F.huber_loss(pdt.ones(2, device=d), pdt.ones(2, device=d),
                                          delta=0.0),
    "smooth_l1-beta": lambda d: F.smooth_l1_loss(pdt.ones(2, device=d), pdt.ones(2, device=d),
                                                 beta=-1.0),
    "ce-weight": lambda d: F.cross_entropy(pdt.ones(3, 4, device=d),
                                           pdt.tensor([0, 1, 2], device=d),
                                           weight=pdt.ones(2, device=d)),
    "ce-smoothing": lambda d: F.cross_entropy(pdt.ones(3, 4, device=d),
                                              pdt.tensor([0, 1, 2], device=d),
                                              label_smoothing=1.5),
    "ce-probabilities-ignore": lambda d: F.cross_entropy(pdt.ones(3, 4, device=d),
                                                         pdt.ones(3, 4, device=d) / 4,
                                                         ignore_index=1),
    "nll-kd-target": lambda d: F.nll_loss(pdt.ones(3, 4, 5, device=d),
                                          pdt.zeros(3, 4, dtype=pdt.int64, device=d)),
    "bce-range": lambda d: F.binary_cross_entropy(pdt.tensor([1.5, 0.5]), pdt.ones(2)),
    "ctc-lengths": lambda d: F.ctc_loss(pdt.zeros(5, 2, 4, device=d),
                                        pdt.ones(2, 2, dtype=pdt.int64, device=d),
                                        (6, 5), (2, 2)),
    "ctc-blank": lambda d: F.ctc_loss(pdt.zeros(5, 2, 4, device=d),
                                      pdt.ones(2, 2, dtype=pdt.int64, device=d),
                                      (5, 5), (2, 2), blank=4),
    "ctc-concatenated": lambda d: F.ctc_loss(pdt.zeros(5, 2, 4, device=d),
                                             pdt.ones(3, dtype=pdt.int64, device=d),
                                             (5, 5), (2, 2)),
}


@pytest.mark.parametrize("case", list(BAD_LOSS_ARGS))
def test_bad_loss_arguments_are_value_and_runtime_errors(device, case):
    for caught in (RuntimeError, ValueError):  # PyTorch's class, and NumPy's
        with pytest.raises(caught) as info:
            BAD_LOSS_ARGS[case](device)
        assert type(info.value) is pdt.InvalidArgumentError


def test_triplet_margin_with_distance_loss_holds_its_distance_as_a_submodule():
    loss_fn = nn.TripletMarginWithDistanceLoss()  # PyTorch's default: nn.PairwiseDistance()
    assert isinstance(loss_fn.distance_function, nn.PairwiseDistance)
    assert dict(loss_fn.named_children()) == {"distance_function": loss_fn.distance_function}
    a = pdt.tensor(A, dtype=pdt.float64)
    p, n = pdt.tensor(P, dtype=pdt.float64), pdt.tensor(N, dtype=pdt.float64)
    dist = {v: np.sqrt(((A - w + 1e-6) ** 2).sum(-1)) for v, w in (("p", P), ("n", N))}
    want = np.maximum(1.0 + dist["p"] - dist["n"], 0.0).mean()
    np.testing.assert_allclose(loss_fn(a, p, n).item(), want, rtol=1e-12)
    bil = nn.Bilinear(2, 2, 1)  # a Module passed in is a submodule: its parameters listed
    assert list(nn.TripletMarginWithDistanceLoss(distance_function=bil).state_dict()) == [
        "distance_function.weight", "distance_function.bias"]


@pytest.mark.parametrize("legacy", [{"size_average": True}, {"reduce": True},
                                    {"size_average": True, "reduce": True}])
def test_kl_div_warns_about_mean_only_when_asked_for_by_reduction(device, legacy):
    x = pdt.tensor([[-0.5, -1.0]], dtype=pdt.float64, device=device)
    y = pdt.tensor([[0.25, 0.75]], dtype=pdt.float64, device=device)
    want = (np.array([0.25, 0.75]) * (np.log([0.25, 0.75]) - [-0.5, -1.0])).mean()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = F.kl_div(x, y, **legacy).item()  # the mean, by size_average/reduce
    # PyTorch's one deprecation warning; not also the 'batchmean' advice (it was given)
    assert [str(w.message)[:36] for w in caught] == ["size_average and reduce args will be"]
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(x, y)


def test_soft_margin_loss_target_broadcasts_to_the_input_not_past_it(device):
    x = pdt.tensor([[0.5, -1.0, 2.0]], dtype=pdt.float64, device=device)  # (1, 3)
    y = np.array([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]])  # (2, 3): gave a (2, 3) loss
    with pytest.raises(RuntimeError, match=r"target of shape \(2, 3\) would broadcast input "
                                           r"of shape \(1, 3\) to a larger loss"):
        F.soft_margin_loss(x, pdt.tensor(y, device=device), reduction="none")
    got = F.soft_margin_loss(x, pdt.tensor([1.0, -1.0, -1.0], dtype=pdt.float64,
                                           device=device), reduction="none")
    np.testing.assert_allclose(got.cpu().numpy(),
                               np.logaddexp(0.0, -np.array([[0.5, 1.0, -2.0]])), rtol=1e-12)


def test_loss_classes_have_pytorchs_bases():
    from pydevtensor.nn.modules.loss import _Loss, _WeightedLoss
    # KLDivLoss was a bare Module (isinstance(criterion, _Loss) was False for it);
    # MultiMarginLoss and MultiLabelSoftMarginLoss were not _WeightedLoss
    assert isinstance(nn.KLDivLoss(), _Loss)
    for cls in (nn.MultiMarginLoss, nn.MultiLabelSoftMarginLoss):
        loss_fn = cls(weight=pdt.tensor([1.0, 2.0]))
        assert isinstance(loss_fn, _WeightedLoss)
        assert list(loss_fn.state_dict()) == ["weight"]
    with pytest.raises(ValueError, match="KLDivLoss: reduction must be 'mean', 'batchmean', "
                                         "'sum' or 'none', got 'avg'"):
        nn.KLDivLoss(reduction="avg")
    with pytest.raises(ValueError, match="MSELoss: reduction must be 'mean', 'sum' or 'none', "
                                         "got 'batchmean'"):
        nn.MSELoss(reduction="batchmean")
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.KLDivLoss(size_average=False).reduction == "sum"
    assert nn.KLDivLoss(reduction="batchmean", log_target=True).log_target is True
