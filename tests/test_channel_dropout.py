"""Channel dropout: F.dropout1d, F.dropout2d, nn.Dropout1d, nn.Dropout2d.

Each (sample, channel) is kept whole or zeroed whole; the kept fraction is 1 - p
within a binomial bound; kept entries are the input times 1 / (1 - p) exactly (the
float64 reference); the gradient is the same mask times the scale; the same seed gives
the same mask on every device (the Philox generator), and in evaluation the input
passes through untouched.
"""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F


def _host(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("fn, shape", [(F.dropout2d, (40, 50, 3, 4)), (F.dropout1d, (40, 50, 7)),
                                       (F.dropout1d, (2000, 5))])
def test_channels_zeroed_whole_and_scaled(device, fn, shape):
    pdt.manual_seed(5)
    x = np.random.default_rng(1).standard_normal(shape) + 3.0  # never 0
    t = pdt.tensor(x, dtype=pdt.float64, device=device).requires_grad_()
    y = fn(t, 0.3)
    v = _host(y)
    # a channel's entries: dimension 1 (dimension 0 for an unbatched (C, L) input)
    lead = 2 if len(shape) > 2 else 1
    per = v.reshape(shape[:lead] + (-1,))
    kept = per[..., 0] != 0
    assert ((per != 0) == kept[..., None]).all()  # whole channels
    assert abs(kept.mean() - 0.7) < 0.02  # 2000 channels: binomial sd 0.01
    ref = np.where(kept.reshape(shape[:lead] + (1,) * (len(shape) - lead)), x / 0.7, 0.0)
    np.testing.assert_allclose(v, ref, rtol=1e-15)
    y.sum().backward()
    np.testing.assert_allclose(_host(t.grad), np.where(ref != 0, 1 / 0.7, 0.0), rtol=1e-15)
    pdt.manual_seed(5)  # the same mask on the CPU for the same seed
    again = fn(pdt.tensor(x, dtype=pdt.float64), 0.3)
    np.testing.assert_array_equal(_host(again) != 0, v != 0)


def test_channel_dropout_edges(device):
    x = pdt.arange(1.0, 25.0, device=device).reshape(2, 3, 4)
    x4 = x.reshape(2, 3, 2, 2)
    assert F.dropout2d(x4, 0.5, training=False) is x4 and F.dropout2d(x4, 0.0) is x4
    u = x[0]
    assert F.dropout1d(x, 0.5, training=False) is x
    assert F.dropout1d(u, 0.0) is u and F.dropout1d(u, 0.5, training=False) is u
    assert (_host(F.dropout2d(x4, 1.0)) == 0).all()
    y = x4.clone()
    assert F.dropout2d(y, 0.5, inplace=True) is y and (_host(y) % 2 == 0).all()
    z = x[0].clone()  # unbatched (C, L), in place
    out = F.dropout1d(z, 0.5, inplace=True)
    assert out is z and (_host(z) % 2 == 0).all()
    assert tuple(F.dropout1d(x[0], 0.5).shape) == (3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(x4, 0.5)  # 4-d: no warning
    with pytest.warns(UserWarning, match=r"Received a 3D input to dropout2d .* interpreted as "
                                         r"shape \(N, C, L\)"):
        F.dropout2d(x, 0.5)
    with pytest.warns(UserWarning, match=r"Received a 2-D input to dropout2d"):
        F.dropout2d(x[0], 0.5)


def test_channel_dropout_bad_inputs(device):
    x = pdt.ones(2, 3, 4, 4, device=device)
    for p in (-0.1, 1.5, "a", True):
        with pytest.raises(ValueError, match="between 0 and 1, but got"):
            F.dropout2d(x, p)
        with pytest.raises(ValueError, match="between 0 and 1, but got"):
            nn.Dropout1d(p)
    with pytest.raises(RuntimeError, match=r"dropout1d\(\): Expected 2D or 3D input, but "
                                           r"received a 4D input of shape \(2, 3, 4, 4\) \(on "
                                           + str(device)):
        F.dropout1d(x)
    with pytest.raises(ValueError, match=r"dropout2d\(\): Feature dropout requires at least 2 "
                                         r"dimensions in the input, got shape \(3,\)"):
        F.dropout2d(pdt.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"dropout2d\(\): expected a floating point tensor, "
                                           r"got pydevtensor.int64"):
        F.dropout2d(pdt.ones(2, 3, 2, 2, dtype=pdt.int64, device=device))
    with pytest.raises(TypeError, match=r"input must be a Tensor, got list"):
        F.dropout2d([1.0])


def test_channel_dropout_layers(device):
    d2, d1 = nn.Dropout2d(0.25), nn.Dropout1d(p=0.5, inplace=True)
    assert repr(d2) == "Dropout2d(p=0.25, inplace=False)"
    assert repr(d1) == "Dropout1d(p=0.5, inplace=True)"
    assert not isinstance(d2, nn.Dropout) and list(d2.parameters()) == []
    x = pdt.ones(4, 6, 3, 3, device=device)
    assert d2.eval()(x) is x
    y = _host(d2.train()(x))
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert (y.reshape(4, 6, 9).std(axis=2) == 0).all()
    net = nn.Sequential(nn.Conv2d(6, 2, 1), nn.Dropout2d(0.5)).to(device)
    assert tuple(net(x).shape) == (4, 2, 3, 3)


def test_channel_dropout_matches_torch_statistics():
    """Not the same random numbers as torch (another generator), but its rules: the
    same shapes kept whole, the same scale, evaluation untouched."""
    from conftest import torch_or_skip
    torch = torch_or_skip()
    x = np.ones((8, 16, 3, 3))
    ours = _host(F.dropout2d(pdt.tensor(x), 0.4))
    theirs = torch.nn.functional.dropout2d(torch.tensor(x), 0.4).numpy()
    assert set(np.unique(ours).tolist()) == set(np.unique(theirs).tolist()) == {0.0, 1 / 0.6}
    assert repr(nn.Dropout2d(0.3)) == repr(torch.nn.Dropout2d(0.3))
    assert repr(nn.Dropout1d(0.3, True)) == repr(torch.nn.Dropout1d(0.3, True))


_IN_PLACE = {
    "dropout": lambda x: F.dropout(x, 0.5, True, inplace=True),
    "dropout_p1": lambda x: F.dropout(x, 1.0, True, inplace=True),
    "dropout1d": lambda x: F.dropout1d(x[0], 0.5, True, inplace=True),
    "dropout2d": lambda x: F.dropout2d(x, 0.5, True, inplace=True),
    "dropout3d": lambda x: F.dropout3d(x[None], 0.5, True, inplace=True),
    "relu": lambda x: F.relu(x, inplace=True), "elu": lambda x: F.elu(x, inplace=True),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1, inplace=True),
    "hardtanh": lambda x: F.hardtanh(x, inplace=True),
    "relu6": lambda x: F.relu6(x, inplace=True),
    "threshold": lambda x: F.threshold(x, 0.1, 2.0, inplace=True),
    "selu": lambda x: F.selu(x, inplace=True), "celu": lambda x: F.celu(x, inplace=True),
    "rrelu": lambda x: F.rrelu(x, training=True, inplace=True),
    "silu": lambda x: F.silu(x, inplace=True),
    "hardswish": lambda x: F.hardswish(x, inplace=True),
    "hardsigmoid": lambda x: F.hardsigmoid(x, inplace=True),
    "mish": lambda x: F.mish(x, inplace=True)}


@pytest.mark.parametrize("name", list(_IN_PLACE))
def test_in_place_functionals_write_once(device, name):
    """Each inplace=True functional bumps its input's version by exactly 1, as
    PyTorch's (dropout bumped it twice: the mask, then the scale)."""
    x = pdt.randn(4, 3, 5, 5, generator=pdt.Generator().manual_seed(0), device=device)
    x.add_(0.0)
    _IN_PLACE[name](x)
    assert x._version == 2


def test_dropout_in_place_has_the_values_out_of_place(device):
    x = pdt.randn(64, generator=pdt.Generator().manual_seed(0), device=device)
    for dtype in (pdt.float32, pdt.float16):
        pdt.manual_seed(3)
        want = _host(F.dropout(x.to(dtype), 0.3))
        pdt.manual_seed(3)
        y = x.to(dtype)
        assert F.dropout(y, 0.3, inplace=True) is y
        np.testing.assert_array_equal(_host(y), want)
        assert 0 < (want == 0).sum() < 64


@pytest.mark.filterwarnings("ignore::UserWarning")  # dropout2d/3d's, on these shapes
def test_every_dropout_with_p_1_or_an_empty_input(device):
    # p = 1 gives input times a 0 of its dtype before any check of dtype or dimensions,
    # as PyTorch's: integer zeros for an integer input, a 1-d input to the feature
    # dropouts, NaN kept; all of it refused before
    forms = [F.dropout, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout]
    for f in forms:
        n = pdt.tensor([[3, -1], [2, 5]], device=device)
        got = f(n, 1.0, True)
        assert got.dtype == pdt.int64 and _host(got).tolist() == [[0, 0], [0, 0]]
        assert f(n, 1.0, True, inplace=True) is n and _host(n).tolist() == [[0, 0], [0, 0]]
        x = pdt.tensor([2.0, math.nan, -1.5], device=device, dtype=pdt.float64,
                       requires_grad=True)
        y = f(x, 1.0, True)
        assert _host(y).tolist()[::2] == [0.0, 0.0] and math.isnan(_host(y)[1])
        y.sum().backward()
        assert _host(x.grad).tolist() == [0.0, 0.0, 0.0]
        e = pdt.zeros(0, 3, 1, 1, 1, dtype=pdt.int64, device=device)  # empty: itself
        assert f(e, 0.5, True) is e and f(e, 1.0, True) is e
    assert _host(F.dropout3d(pdt.ones((), device=device), 1.0)).tolist() == 0.0
    x = pdt.ones(3, device=device)  # a random mask still needs the dimensions
    assert F.dropout2d(x, 0.5, training=False) is x
    e = pdt.zeros(0, device=device)  # no mask is drawn for an empty 1-d input: itself
    assert F.dropout2d(e, 0.5) is e and F.feature_alpha_dropout(e, 0.5, True) is e
    with pytest.raises(ValueError, match=r"Feature dropout requires at least 2 dimensions"):
        F.dropout2d(x, 0.5)
    with pytest.raises(RuntimeError, match=r"Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(x, 0.5, True)
