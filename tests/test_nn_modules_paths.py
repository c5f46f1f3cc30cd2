"""nn.modules: the layers under PyTorch's module paths (pydevtensor/nn/modules), the
same objects as nn's, with PyTorch's private bases and tuple helpers."""
import importlib

import pytest

import pydevtensor as pdt
from pydevtensor import nn


@pytest.mark.parametrize("path, name", [
    ("batchnorm", "BatchNorm2d"), ("conv", "Conv1d"), ("linear", "Linear"),
    ("loss", "CrossEntropyLoss"), ("activation", "ReLU"), ("container", "Sequential"),
    ("pooling", "MaxPool2d"), ("rnn", "LSTM"), ("sparse", "Embedding"),
    ("normalization", "LayerNorm"), ("dropout", "Dropout"), ("module", "Module"),
    ("transformer", "TransformerEncoderLayer"), ("instancenorm", "InstanceNorm1d")])
def test_the_classes_are_nns_under_torchs_paths(path, name):
    mod = importlib.import_module(f"pydevtensor.nn.modules.{path}")
    assert getattr(mod, name) is getattr(nn, name)
    assert name in mod.__all__ and getattr(nn.modules, name) is getattr(nn, name)


def test_private_bases_as_torchs_isinstance():
    from pydevtensor.nn.modules.batchnorm import _BatchNorm, _NormBase
    from pydevtensor.nn.modules.conv import _ConvNd
    from pydevtensor.nn.modules.loss import _Loss, _WeightedLoss
    # weight-decay filters test isinstance(m, _BatchNorm): instance norms are not batch
    # norms in PyTorch (both _NormBase)
    assert isinstance(nn.BatchNorm1d(3), _BatchNorm) and isinstance(nn.LazyBatchNorm2d(),
                                                                    _BatchNorm)
    assert not isinstance(nn.InstanceNorm2d(3), _BatchNorm)
    assert isinstance(nn.InstanceNorm2d(3), _NormBase)
    assert isinstance(nn.ConvTranspose2d(2, 2, 3), _ConvNd)
    for weighted in (nn.CrossEntropyLoss(), nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss()):
        assert isinstance(weighted, _WeightedLoss)
    assert not isinstance(nn.MSELoss(), _WeightedLoss)

    class Absolute(_Loss):  # a custom loss on PyTorch's base
        def forward(self, a, b):
            d = (a - b).abs()
            return d.sum() if self.reduction == "sum" else d.mean()

    x, y = pdt.tensor([1.0, 3.0]), pdt.zeros(2)
    assert Absolute()(x, y).item() == 2.0 and Absolute(reduction="sum")(x, y).item() == 4.0


def test_tuple_helpers():
    from pydevtensor.nn.modules.utils import _pair, _quadruple, _single, _triple
    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2) and _single(5) == (5,)
    assert _triple(0) == (0, 0, 0) and _quadruple([1, 2, 3, 4]) == (1, 2, 3, 4)
    assert nn.modules.utils._reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
