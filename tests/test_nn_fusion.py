"""nn.utils.fuse_conv_bn_eval/_weights and fuse_linear_bn_eval/_weights: the fused layer
computes what the eval-mode layer and BatchNorm compute, and its weight and bias are
the closed forms w * s and (b - mean) * s + beta, s = gamma / sqrt(var + eps), written
here in NumPy."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


def _randomize(bn, rng):
    """Running statistics and affine parameters away from their defaults."""
    c = bn.num_features
    with pdt.no_grad():
        bn.running_mean.copy_(pdt.from_numpy(rng.standard_normal(c)))
        bn.running_var.copy_(pdt.from_numpy(rng.uniform(0.5, 2.0, c)))
        if bn.weight is not None:
            bn.weight.copy_(pdt.from_numpy(rng.standard_normal(c)))
            bn.bias.copy_(pdt.from_numpy(rng.standard_normal(c)))
    return bn.eval()


@pytest.mark.parametrize("make,transpose,shape", [
    (lambda b: nn.Conv2d(3, 4, 3, bias=b), False, (2, 3, 6, 5)),
    (lambda b: nn.Conv1d(3, 4, 2, bias=b), False, (2, 3, 7)),
    (lambda b: nn.ConvTranspose2d(3, 4, 2, bias=b), True, (2, 3, 4, 4)),
    (lambda b: nn.Conv3d(3, 4, 2, bias=b), False, (1, 3, 3, 4, 4))])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn_eval(device, make, transpose, shape, bias, affine):
    rng = np.random.default_rng(len(shape) + bias)
    conv = make(bias).double().to(device).eval()
    bn_cls = {3: nn.BatchNorm1d, 4: nn.BatchNorm2d, 5: nn.BatchNorm3d}[len(shape)]
    bn = _randomize(bn_cls(4, eps=0.01, affine=affine).double(), rng).to(device)
    x = _t(rng.standard_normal(shape), device)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    assert type(fused) is type(conv) and fused is not conv and fused.bias is not None
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(),
                               bn(conv(x)).detach().cpu().numpy(), rtol=1e-12, atol=1e-12)
    # the closed form, and conv itself unchanged
    mean, var = bn.running_mean.cpu().numpy(), bn.running_var.cpu().numpy()
    gamma = bn.weight.detach().cpu().numpy() if affine else np.ones(4)
    beta = bn.bias.detach().cpu().numpy() if affine else np.zeros(4)
    s = gamma / np.sqrt(var + 0.01)
    w = conv.weight.detach().cpu().numpy()
    b = conv.bias.detach().cpu().numpy() if bias else np.zeros(4)
    shape = [1] * w.ndim
    shape[1 if transpose else 0] = -1  # the output channels
    scale = s.reshape(shape)
    np.testing.assert_allclose(fused.weight.detach().cpu().numpy(), w * scale, rtol=1e-13)
    np.testing.assert_allclose(fused.bias.detach().cpu().numpy(), (b - mean) * s + beta,
                               rtol=1e-13, atol=1e-15)
    assert isinstance(fused.weight, nn.Parameter) and fused.weight.requires_grad
    assert fused.weight.grad_fn is None and fused.bias.requires_grad is bias
    assert (conv.bias is None) is not bias


@pytest.mark.parametrize("features", [4, 1])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_eval(device, features, bias):
    rng = np.random.default_rng(features)
    linear = nn.Linear(3, 4, bias=bias).double().to(device).eval()
    bn = _randomize(nn.BatchNorm1d(features).double(), rng).to(device)
    fused = nn.utils.fuse_linear_bn_eval(linear, bn)
    x = _t(rng.standard_normal((5, 3)), device)
    s = (bn.weight.detach().cpu().numpy() / np.sqrt(bn.running_var.cpu().numpy() + 1e-5))
    mean, beta = bn.running_mean.cpu().numpy(), bn.bias.detach().cpu().numpy()
    b = linear.bias.detach().cpu().numpy() if bias else np.zeros(4)
    ref = (x.cpu().numpy() @ linear.weight.detach().cpu().numpy().T + b - mean) * s + beta
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), ref, rtol=1e-12, atol=1e-12)
    if features == 4:
        np.testing.assert_allclose(fused(x).detach().cpu().numpy(),
                                   bn(linear(x)).detach().cpu().numpy(), rtol=1e-12, atol=1e-12)
    assert fused.bias.requires_grad is bias and fused.weight.requires_grad


def test_fuse_weights_keep_the_dtypes(device):
    w = _t(np.ones((2, 1, 1, 1)), device).half()
    rm, rv = _t(np.array([1., 2.]), device), _t(np.array([3., 15.]), device)
    fw, fb = nn.utils.fuse_conv_bn_weights(w, None, rm.float(), rv.float(), 1.0, None, None)
    assert fw.dtype == pdt.float16 and fb.dtype == pdt.float16
    np.testing.assert_array_equal(fw.detach().cpu().float().numpy().ravel(), [0.5, 0.25])
    np.testing.assert_array_equal(fb.detach().cpu().float().numpy(), [-0.5, -0.5])
    lw, lb = nn.utils.fuse_linear_bn_weights(_t(np.ones((2, 3)), device).float(),
                                             _t(np.zeros(2), device), rm, rv, 1.0,
                                             _t(np.ones(2), device), _t(np.ones(2), device))
    assert lw.dtype == pdt.float32 and lb.dtype == pdt.float64
    np.testing.assert_allclose(lb.detach().cpu().numpy(), [0.5, 0.5])


def test_fusion_errors():
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4).eval())
    with pytest.raises(AssertionError, match="must not be None"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(3, 4, 1).eval(),
                                   nn.BatchNorm2d(4, track_running_stats=False).eval())
    with pytest.raises(AssertionError, match="got linear.out_features=4 and bn.num_features=3"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), nn.BatchNorm1d(3).eval())


@pytest.mark.parametrize("cin,cout,groups", [(4, 6, 2), (4, 4, 4), (6, 3, 3)])
def test_fuse_grouped_transposed_conv(device, cin, cout, groups):
    # the weight is (in, out / groups, ...): output channel g * out / groups + j is column j
    # of the rows of group g (PyTorch's scaled column j by channel j's factor for every
    # group: a broadcast error, or a wrong weight when out / groups is 1)
    rng = np.random.default_rng(cin + cout)
    conv = nn.ConvTranspose2d(cin, cout, 2, groups=groups).double().to(device).eval()
    bn = _randomize(nn.BatchNorm2d(cout, eps=0.01).double(), rng).to(device)
    x = _t(rng.standard_normal((2, cin, 3, 3)), device)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=True)
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(),
                               bn(conv(x)).detach().cpu().numpy(), rtol=1e-12, atol=1e-12)
    s = bn.weight.detach().cpu().numpy() / np.sqrt(bn.running_var.cpu().numpy() + 0.01)
    w = conv.weight.detach().cpu().numpy()
    per = cout // groups
    expect = np.concatenate([w[g * cin // groups:(g + 1) * cin // groups]
                             * s[g * per:(g + 1) * per].reshape(1, -1, 1, 1)
                             for g in range(groups)])
    np.testing.assert_allclose(fused.weight.detach().cpu().numpy(), expect, rtol=1e-13)
    with pytest.raises(ValueError, match=r"weight of shape \(4, 5, 1\) does not give the "
                       r"BatchNorm's 6 channels"):
        nn.utils.fuse_conv_bn_weights(pdt.ones(4, 5, 1), None, pdt.zeros(6), pdt.ones(6), 0.1,
                                      None, None, transpose=True)
