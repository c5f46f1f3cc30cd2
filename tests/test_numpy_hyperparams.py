"""Sizes and hyperparameters handed out as NumPy scalars (a hyperparameter search's
np.int64 out_channels, np.float32 dropout): the nn constructors, one_hot, the LBFGS and
scheduler counts refused them ("out_channels must be an int, got int64", "dropout
probability has to be between 0 and 1"). They are taken now and kept as Python numbers:
the module is the one the Python numbers make (same repr, same parameter shapes, same
values from the same seed), on every device; bools, floats as sizes and strings are
still refused."""
import numpy as np
import pytest

import pydevtensor as pdt

nn = pdt.nn

# name -> (make(i, device) with i wrapping each size)
SIZED = {
    "Conv2d": lambda i, d: nn.Conv2d(i(2), i(4), i(3), groups=i(2), device=d),
    "Conv1d": lambda i, d: nn.Conv1d(i(3), i(2), 3, device=d),
    "ConvTranspose2d": lambda i, d: nn.ConvTranspose2d(i(1), i(4), 3, device=d),
    "Embedding": lambda i, d: nn.Embedding(i(5), i(3), device=d),
    "EmbeddingBag": lambda i, d: nn.EmbeddingBag(i(5), i(3), device=d),
    "Bilinear": lambda i, d: nn.Bilinear(i(2), i(3), i(4), device=d),
    "Linear": lambda i, d: nn.Linear(i(3), i(4), device=d),
    "BatchNorm1d": lambda i, d: nn.BatchNorm1d(i(4), device=d),
    "BatchNorm2d": lambda i, d: nn.BatchNorm2d(i(4), device=d),
    "LayerNorm": lambda i, d: nn.LayerNorm(i(4), device=d),
    "LayerNorm_tuple": lambda i, d: nn.LayerNorm((i(2), i(3)), device=d),
    "GroupNorm": lambda i, d: nn.GroupNorm(i(2), i(4), device=d),
    "PReLU": lambda i, d: nn.PReLU(i(3), device=d),
    "RNN": lambda i, d: nn.RNN(i(3), i(4), i(2), device=d),
    "LSTM": lambda i, d: nn.LSTM(i(3), i(4), i(2), proj_size=i(2), device=d),
    "GRU": lambda i, d: nn.GRU(i(3), i(4), device=d),
    "RNNCell": lambda i, d: nn.RNNCell(i(3), i(4), device=d),
    "LSTMCell": lambda i, d: nn.LSTMCell(i(3), i(4), device=d),
    "GRUCell": lambda i, d: nn.GRUCell(i(3), i(4), device=d),
    "MultiheadAttention": lambda i, d: nn.MultiheadAttention(i(4), i(2), kdim=i(3),
                                                             device=d),
    "TransformerEncoderLayer": lambda i, d: nn.TransformerEncoderLayer(i(4), i(2), i(8),
                                                                       device=d),
    "TransformerDecoderLayer": lambda i, d: nn.TransformerDecoderLayer(i(4), i(2), i(8),
                                                                       device=d),
    "MaxPool3d": lambda i, d: nn.MaxPool3d(i(2)),
    "PixelShuffle": lambda i, d: nn.PixelShuffle(i(2)),
    "Upsample": lambda i, d: nn.Upsample(size=i(3)),
}

WRAPS = {"np.int64": np.int64, "np.int32": np.int32, "np.uint8": np.uint8}


def _same_module(got, want):
    assert type(got) is type(want)
    assert repr(got) == repr(want)
    g, w = got.state_dict(), want.state_dict()
    assert list(g) == list(w)
    for k in w:
        assert g[k].shape == w[k].shape and g[k].dtype == w[k].dtype, k
        np.testing.assert_array_equal(g[k].detach().cpu().numpy(),
                                      w[k].detach().cpu().numpy(), err_msg=k)


@pytest.mark.parametrize("name", list(SIZED))
@pytest.mark.parametrize("kind", list(WRAPS))
def test_numpy_integer_sizes_make_the_same_module(device, name, kind):
    pdt.manual_seed(0)
    got = SIZED[name](WRAPS[kind], device)
    pdt.manual_seed(0)
    want = SIZED[name](int, device)
    _same_module(got, want)
    for attr, v in vars(got).items():  # kept as Python ints, not NumPy's
        assert not isinstance(v, np.generic), (attr, type(v))


def test_numpy_sizes_are_python_ints_in_the_state():
    conv = nn.Conv2d(1, np.int64(16), 3)
    assert type(conv.out_channels) is int and repr(conv).startswith("Conv2d(1, 16,")
    lstm = nn.LSTM(np.int64(3), np.int64(4), np.int64(2))
    assert [type(v) for v in (lstm.input_size, lstm.hidden_size, lstm.num_layers)] == [int] * 3
    assert nn.LayerNorm(np.array([2, 3])).normalized_shape == (2, 3)
    assert type(nn.LayerNorm(np.int64(2)).normalized_shape[0]) is int


@pytest.mark.parametrize("bad", [True, np.bool_(True), 4.0, np.float64(4.0), "4"])
@pytest.mark.parametrize("name", ["Conv2d", "Embedding", "EmbeddingBag", "Bilinear",
                                  "Linear", "BatchNorm1d", "GroupNorm", "PReLU", "RNN",
                                  "LSTMCell", "MultiheadAttention"])
def test_bools_floats_and_strings_are_still_refused_as_sizes(name, bad):
    with pytest.raises(TypeError, match="must be an int"):
        SIZED[name](lambda v: bad, None)


@pytest.mark.parametrize("bad", [True, 4.0, "4", np.array([4.0])])
def test_layer_norm_refuses_non_integer_shapes(bad):
    with pytest.raises((TypeError, ValueError), match="normalized_shape"):
        nn.LayerNorm(bad)


def test_one_hot_takes_a_numpy_num_classes(device):
    t = pdt.tensor([0, 2], device=device)
    got = nn.functional.one_hot(t, num_classes=np.int64(3))
    np.testing.assert_array_equal(got.cpu().numpy(), np.eye(3, dtype=np.int64)[[0, 2]])
    with pytest.raises(TypeError, match="num_classes must be an int, got bool"):
        nn.functional.one_hot(t, num_classes=True)


FLOATS = {
    "Dropout": lambda v: nn.Dropout(v),
    "Dropout1d": lambda v: nn.Dropout1d(v),
    "Dropout2d": lambda v: nn.Dropout2d(v),
    "Dropout3d": lambda v: nn.Dropout3d(v),
    "AlphaDropout": lambda v: nn.AlphaDropout(v),
    "FeatureAlphaDropout": lambda v: nn.FeatureAlphaDropout(v),
    "LeakyReLU": lambda v: nn.LeakyReLU(v),
    "ELU": lambda v: nn.ELU(v),
    "BatchNorm1d": lambda v: nn.BatchNorm1d(3, eps=v, momentum=v),
    "LayerNorm": lambda v: nn.LayerNorm(3, eps=v),
    "MultiheadAttention": lambda v: nn.MultiheadAttention(4, 2, dropout=v),
    "TransformerEncoderLayer": lambda v: nn.TransformerEncoderLayer(4, 2, 8, dropout=v),
}


@pytest.mark.parametrize("name", list(FLOATS))
@pytest.mark.parametrize("kind", [np.float32, np.float64])
def test_numpy_float_hyperparameters_are_python_floats(name, kind):
    pdt.manual_seed(0)
    got = FLOATS[name](kind(0.25))  # 0.25: exact in float32, so the reprs agree
    pdt.manual_seed(0)
    want = FLOATS[name](0.25)
    _same_module(got, want)
    for attr in ("p", "negative_slope", "alpha", "eps", "momentum", "dropout"):
        if attr in vars(got):
            assert type(vars(got)[attr]) is float, attr
    if isinstance(got, nn.Dropout):
        assert type(got.p) is float and got.p == 0.25


def test_numpy_float_dropout_in_functional(device):
    x = pdt.ones(1000, device=device)
    pdt.manual_seed(0)
    got = nn.functional.dropout(x, np.float32(0.25))
    pdt.manual_seed(0)
    want = nn.functional.dropout(x, 0.25)
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    assert set(np.unique(got.cpu().numpy())) <= {0.0, np.float32(1 / 0.75)}


@pytest.mark.parametrize("bad", [True, np.bool_(True), "0.25", 1.5])
def test_dropout_still_refuses_bools_strings_and_out_of_range(bad):
    with pytest.raises(ValueError, match="dropout probability"):
        nn.Dropout(bad)


def test_optimizer_and_scheduler_counts_from_numpy():
    w = nn.Parameter(pdt.zeros(2))
    opt = pdt.optim.LBFGS([w], history_size=np.int64(5), max_iter=np.int32(3))
    group = opt.param_groups[0]
    assert type(group["history_size"]) is int and group["history_size"] == 5
    assert type(group["max_iter"]) is int and group["max_iter"] == 3
    sgd = pdt.optim.SGD([w], lr=np.float32(0.5), momentum=np.float64(0.25))
    assert type(sgd.param_groups[0]["lr"]) is float
    sched = pdt.optim.lr_scheduler.StepLR(sgd, step_size=np.int64(2), gamma=np.float32(0.5))
    assert type(sched.step_size) is int and type(sched.gamma) is float
    for _ in range(2):
        sgd.step()
        sched.step()
    assert sgd.param_groups[0]["lr"] == 0.25
    with pytest.raises(TypeError, match="history_size must be an int, got bool"):
        pdt.optim.LBFGS([w], history_size=True)


@pytest.mark.parametrize("make", [nn.MaxPool2d, nn.AvgPool2d, nn.MaxPool3d, nn.AvgPool3d,
                                  nn.AdaptiveAvgPool2d, nn.Unfold, nn.PixelShuffle,
                                  nn.PixelUnshuffle, lambda k: nn.Fold((4, 4), k)])
def test_argument_only_layers_keep_python_ints(make):
    got, want = make(np.int64(2)), make(2)
    assert repr(got) == repr(want)
    assert not any(isinstance(v, np.generic) for v in vars(got).values())
