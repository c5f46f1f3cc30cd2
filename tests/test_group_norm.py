"""Group and instance normalisation: F.group_norm, F.instance_norm, nn.GroupNorm,
nn.InstanceNorm1d, nn.InstanceNorm2d.

Forward results against a NumPy float64 reference with loops over samples and groups
(tolerance 1e-12 relative in float64); gradients with central differences
(tests/test_gradcheck.py's gradcheck, float64); the half types within 1.5 times
torch's own error of the float64 answer (their statistics are taken in float32);
everything once more against torch when it imports, the layers' parameters and
running statistics included.
"""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import TORCH_CHECKED, assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_conv import _t  # a float64 NumPy array as a tensor on device
from test_gradcheck import gradcheck


def ref_group_norm(x, groups, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    out = np.empty_like(x, dtype=np.float64)
    size = c // groups
    for i in range(n):
        for g in range(groups):
            block = x[i, g * size:(g + 1) * size].astype(np.float64)
            mean = block.mean()
            var = ((block - mean) ** 2).mean()
            out[i, g * size:(g + 1) * size] = (block - mean) / np.sqrt(var + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out


CASES = [((2, 6, 4, 5), 3), ((3, 4, 7), 1), ((2, 4, 3, 3), 4), ((1, 8), 2), ((2, 6, 2, 2, 3), 2)]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_numpy(device, case, affine):
    shape, groups = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal(shape) * 3 + 1
    w, b = (rng.standard_normal(shape[1]), rng.standard_normal(shape[1])) if affine else \
        (None, None)
    ref = ref_group_norm(x, groups, w, b, 1e-3)
    got = F.group_norm(_t(x, device), groups, None if w is None else _t(w, device),
                       None if b is None else _t(b, device), 1e-3)
    assert got.device == device and got.dtype == pdt.float64
    assert_close(got, ref, "float64")
    got32 = F.group_norm(_t(x, device, pdt.float32), groups,
                         None if w is None else _t(w, device, pdt.float32),
                         None if b is None else _t(b, device, pdt.float32), 1e-3)
    np.testing.assert_allclose(got32.cpu().numpy(), ref, atol=2e-5, rtol=2e-5)


def test_group_norm_gradcheck(device):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal((2, 4, 3, 2)), rng.standard_normal(4), rng.standard_normal(4)]
    gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), arrays, device)
    gradcheck(lambda x: F.group_norm(x, 3), [rng.standard_normal((2, 6, 5))], device,
              noncontig=True)
    gradcheck(lambda x, w: F.instance_norm(x, weight=w), arrays[:2], device)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_group_norm_matches_torch(device, case):
    torch = torch_or_skip()
    shape, groups = CASES[case]
    rng = np.random.default_rng(case + 10)
    x, w, b = rng.standard_normal(shape), rng.standard_normal(shape[1]), \
        rng.standard_normal(shape[1])
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    want = torch.nn.functional.group_norm(tx, groups, tw, tb)
    r = rng.standard_normal(shape)
    (want * torch.tensor(r)).sum().backward()
    px, pw, pb = (_t(a, device).requires_grad_() for a in (x, w, b))
    got = F.group_norm(px, groups, pw, pb)
    (got * _t(r, device)).sum().backward()
    assert_close(got, want.detach().numpy(), "float64")
    for ours, theirs in ((px, tx), (pw, tw), (pb, tb)):
        assert_close(ours.grad, theirs.grad.numpy(), "float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_group_norm_in_half_types(device, dtype):
    """The statistics in float32, the result rounded once: within 1.5 times torch's
    own error of the float64 answer, for values far from 0 (where a float16 mean
    loses digits)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((2, 8, 16, 16)) + 100).astype(np.float32)
    tdt, pdt_dt = getattr(torch, dtype), getattr(pdt, dtype)
    ours = F.group_norm(pdt.from_numpy(x).to(device=device, dtype=pdt_dt), 4)
    assert ours.dtype == pdt_dt
    theirs = torch.nn.functional.group_norm(torch.from_numpy(x).to(tdt), 4)
    ref = torch.nn.functional.group_norm(torch.from_numpy(x).to(tdt).double(), 4)
    err = np.abs(ours.to(pdt.float64).cpu().numpy() - ref.numpy()).max()
    assert err <= 1.5 * (theirs.double() - ref).abs().max().item() + 1e-3


def test_group_norm_layer(device):
    gn = nn.GroupNorm(2, 6, eps=1e-3, device=device, dtype=pdt.float64)
    assert repr(gn) == "GroupNorm(2, 6, eps=0.001, affine=True, bias=True)"
    assert gn.weight.cpu().tolist() == [1.0] * 6 and gn.bias.cpu().tolist() == [0.0] * 6
    assert gn.weight.device == device
    with pdt.no_grad():
        gn.weight.copy_(pdt.arange(1.0, 7.0, dtype=pdt.float64))
    x = np.random.default_rng(2).standard_normal((3, 6, 4))
    ref = ref_group_norm(x, 2, np.arange(1.0, 7.0), np.zeros(6), 1e-3)
    assert_close(gn(_t(x, device)), ref, "float64")
    assert_close(gn.eval()(_t(x, device)), ref, "float64")  # no running statistics
    gn.reset_parameters()
    assert gn.weight.cpu().tolist() == [1.0] * 6
    plain = nn.GroupNorm(3, 6, affine=False)
    assert plain.weight is None and plain.bias is None and list(plain.parameters()) == []
    assert repr(plain) == "GroupNorm(3, 6, eps=1e-05, affine=False, bias=False)"
    no_bias = nn.GroupNorm(3, 6, bias=False)
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]


def test_instance_norm_layers(device):
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5)) * 2 + 1
    norm = nn.InstanceNorm2d(3, device=device, dtype=pdt.float64)
    assert list(norm.parameters()) == [] and norm.running_mean is None
    ref = ref_group_norm(x, 3)
    assert_close(norm(_t(x, device)), ref, "float64")
    assert_close(norm(_t(x[1], device)), ref[1], "float64")  # unbatched (C, H, W)
    tracked = nn.InstanceNorm2d(3, affine=True, track_running_stats=True, device=device,
                                dtype=pdt.float64)
    assert tracked.weight is not None and tracked.bias is not None
    assert_close(tracked(_t(x, device)), ref, "float64")
    per = x.reshape(2, 3, -1)
    assert_close(tracked.running_mean, 0.1 * per.mean(axis=2).mean(axis=0), "float64")
    assert_close(tracked.running_var, 0.9 + 0.1 * per.var(axis=2, ddof=1).mean(axis=0),
                 "float64")
    tracked.eval()  # evaluation with the running statistics
    rm, rv = tracked.running_mean.cpu().numpy(), tracked.running_var.cpu().numpy()
    assert_close(tracked(_t(x, device)),
                 (x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5),
                 "float64")
    one = nn.InstanceNorm1d(3, device=device, dtype=pdt.float64)
    assert_close(one(_t(x[:, :, 0], device)), ref_group_norm(x[:, :, 0], 3), "float64")
    with pytest.warns(UserWarning, match=r"input's size at dim=1 does not match num_features"):
        nn.InstanceNorm2d(4)(pdt.zeros(2, 3, 2, 2, device=device))


def test_norm_layers_match_torch(device):
    torch = torch_or_skip(since=TORCH_CHECKED)  # LayerNorm's repr names bias= since
    rng = np.random.default_rng(9)
    for name, args, kwargs, shape in [
            ("GroupNorm", (2, 4), {}, (3, 4, 5, 5)),
            ("GroupNorm", (4, 4), dict(eps=1e-3, bias=False), (2, 4, 7)),
            ("InstanceNorm2d", (4,), dict(affine=True, track_running_stats=True), (3, 4, 5, 5)),
            ("InstanceNorm2d", (4,), {}, (4, 5, 6)),
            ("InstanceNorm1d", (3,), dict(momentum=0.3, track_running_stats=True), (2, 3, 6))]:
        ours = getattr(nn, name)(*args, **kwargs, dtype=pdt.float64)
        theirs = getattr(torch.nn, name)(*args, **kwargs, dtype=torch.float64)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for p in theirs.parameters():
            with torch.no_grad():
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
        ours.load_state_dict({k: pdt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
        ours = ours.to(device)
        for mode in ("train", "eval"):
            getattr(ours, mode)()
            getattr(theirs, mode)()
            x = rng.standard_normal(shape)
            px, tx = _t(x, device).requires_grad_(), torch.tensor(x, requires_grad=True)
            got, want = ours(px), theirs(tx)
            assert_close(got, want.detach().numpy(), "float64")
            got.sum().backward()
            want.sum().backward()
            assert_close(px.grad, tx.grad.numpy(), "float64")
            for key, value in theirs.state_dict().items():
                assert_close(ours.state_dict()[key], value.numpy(), "float64")


def test_norm_bad_inputs(device):
    x = pdt.zeros(2, 4, 3, device=device)
    err = pdt.InvalidArgumentError
    cases = [
        (lambda: F.group_norm(x, 3), err,
         r"group_norm\(\): Expected number of channels in input to be divisible by num_groups, "
         r"but got input of shape \(2, 4, 3\) and num_groups=3 \(on " + str(device)),
        (lambda: F.group_norm(x, 0), err, r"divisible by num_groups, .*num_groups=0"),
        (lambda: F.group_norm(x, 2.0), TypeError, r"num_groups must be an int, got float"),
        (lambda: F.group_norm(pdt.zeros(4, device=device), 2), err,
         r"Expected at least 2 dimensions for input tensor but received 1 \(shape \(4,\)"),
        (lambda: F.group_norm(x, 2, weight=pdt.zeros(3, device=device)), err,
         r"weight of shape \(3,\) does not match"),
        (lambda: F.group_norm(x.long(), 2), TypeError, r"input must be floating point"),
        (lambda: nn.GroupNorm(3, 4), ValueError,
         r"GroupNorm: num_channels \(4\) must be divisible by num_groups \(3\)"),
        (lambda: nn.GroupNorm(0, 4), ValueError, r"num_groups must be >= 1, got 0"),
        (lambda: nn.GroupNorm(2, 4)(pdt.zeros(2, 6, 3)), err,
         r"weight of shape \(4,\) does not match"),
        (lambda: F.instance_norm(pdt.zeros(2, 4, 1, 1, device=device)), ValueError,
         r"Expected more than 1 spatial element when training, got input size \(2, 4, 1, 1\)"),
        (lambda: F.instance_norm(pdt.zeros(2, 4, device=device)), err,
         r"at least one spatial dimension, got \(2, 4\)"),
        (lambda: F.instance_norm(x, use_input_stats=False), ValueError,
         r"Expected running_mean and running_var to be defined when use_input_stats is false"),
        (lambda: nn.InstanceNorm2d(3)(pdt.zeros(3, 4, device=device)), err,
         r"InstanceNorm2d: expected 3D \(unbatched\) or 4D \(batched\) input .* got 2D input"),
        (lambda: nn.InstanceNorm2d(3, affine=True)(pdt.zeros(2, 4, 2, 2, device=device)), err,
         r"expected input's size at dim=1 to match num_features \(3\), but got: 4"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()
    # a refused input leaves the running statistics as they were
    norm = nn.InstanceNorm2d(2, affine=True, track_running_stats=True)
    with pytest.raises(TypeError, match=r"parameters and buffers are pydevtensor.float32"):
        norm(pdt.ones(1, 2, 3, 3, dtype=pdt.float64))
    assert norm.running_mean.tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        norm(pdt.randn(1, 2, 3, 3))  # the right size: no warning


@pytest.mark.parametrize("layer, shape, unbatched", [("LazyInstanceNorm1d", (2, 3, 5), False),
                                                     ("LazyInstanceNorm2d", (3, 4, 4), True),
                                                     ("LazyInstanceNorm3d", (2, 3, 2, 2, 2),
                                                      False)])
def test_lazy_instance_norm(device, layer, shape, unbatched):
    """num_features from the first input's channels (dimension 0 of an unbatched one),
    then the module is its InstanceNorm (PyTorch's lazy defaults: affine and
    track_running_stats True) and normalises each channel of each sample."""
    norm = getattr(nn, layer)(device=device, dtype=pdt.float64)
    assert isinstance(norm.weight, nn.UninitializedParameter)
    x = np.random.default_rng(3).standard_normal(shape) * 2.0 + 1.0
    y = norm(_t(x, device))
    name = layer.replace("Lazy", "")
    assert type(norm) is getattr(nn, name) and norm.num_features == 3
    assert repr(norm) == (f"{name}(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                          f"track_running_stats=True)")
    xb = x[None] if unbatched else x
    dims = tuple(range(2, xb.ndim))
    want = (xb - xb.mean(dims, keepdims=True)) / np.sqrt(xb.var(dims, keepdims=True) + 1e-5)
    assert_close(y, want[0] if unbatched else want, "float64")
    n = int(np.prod(xb.shape[2:]))
    assert_close(norm.running_var, 0.9 + 0.1 * (xb.var(dims) * n / (n - 1)).mean(0),
                 "float64")
    assert [k for k in norm.state_dict()] == ["weight", "bias", "running_mean", "running_var",
                                              "num_batches_tracked"]
    loaded = getattr(nn, layer)(bias=False)
    loaded.load_state_dict(nn.InstanceNorm1d(4, affine=True, bias=False,
                                             track_running_stats=True).state_dict())
    assert type(loaded) is getattr(nn, layer) and loaded.weight.shape == (4,)  # till called


@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 3, 0), (2, 0, 4), (0, 3, 2, 2)])
def test_instance_norm_of_empty_input(device, shape):
    """An empty output, as PyTorch's (it was refused as 'more than 1 spatial element');
    the running statistics stay as they were (PyTorch's became NaN for N = 0)."""
    c = shape[1]
    x = _t(np.zeros(shape), device).requires_grad_()
    mean, var = _t(np.full(c, 0.5), device), _t(np.full(c, 2.0), device)
    out = F.instance_norm(x, mean, var, use_input_stats=True)
    assert tuple(out.shape) == shape
    out.sum().backward()
    assert tuple(x.grad.shape) == shape
    np.testing.assert_array_equal(mean.cpu().numpy(), np.full(c, 0.5))
    np.testing.assert_array_equal(var.cpu().numpy(), np.full(c, 2.0))
    if c:
        layer = getattr(nn, f"InstanceNorm{len(shape) - 2}d")(c, track_running_stats=True)
        assert tuple(layer.to(device).double()(x.detach()).shape) == shape
        np.testing.assert_array_equal(layer.running_mean.cpu().numpy(), np.zeros(c))
    with pytest.raises(RuntimeError, match=r"Expected running_mean and running_var to be "
                                           r"defined when use_input_stats is false"):
        F.instance_norm(x, use_input_stats=False)  # PyTorch's RuntimeError (a ValueError too)
