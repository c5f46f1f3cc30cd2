"""nn.modules: the layers under PyTorch's module paths, for code that imports them there
(``from torch.nn.modules.batchnorm import _BatchNorm`` in weight-decay filters,
``from torch.nn.modules.utils import _pair`` in custom convolutions,
``torch.nn.modules.loss._Loss`` as a custom loss's base).  Each submodule holds the
classes PyTorch's file of that name defines, those pydevtensor has, as the same objects
as ``nn.<name>`` (so isinstance agrees); ``utils`` has PyTorch's tuple helpers.  The
submodules are made here and registered in ``sys.modules``, so ``import
pydevtensor.nn.modules.conv`` and ``from ... import`` work as they do in PyTorch.
"""
import collections.abc
import itertools
import sys
import types

from .. import conv as _conv
from .. import conv_transpose as _conv_transpose
from .. import group_norm as _group_norm
from .. import layers as _layers
from .. import losses as _losses
from .. import normalization as _normalization
from .. import pooling as _pooling
from .. import pooling_more as _pooling_more
from ..parameter import LazyModuleMixin as _LazyModuleMixin

_PRIVATE = {  # PyTorch's private bases that pydevtensor's layers share too
    "_ConvNd": _conv._ConvNd, "_ConvTransposeNd": _conv_transpose._ConvTransposeNd,
    "_NormBase": _normalization._NormBase, "_BatchNorm": _normalization._BatchNorm,
    "_InstanceNorm": _group_norm._InstanceNorm, "_Loss": _losses._Loss,
    "_DropoutNd": _layers._DropoutNd, "_MaxPoolNd": _pooling._MaxPoolNd,
    "_AvgPoolNd": _pooling._AvgPoolNd, "_MaxUnpoolNd": _pooling_more._MaxUnpoolNd,
    "_WeightedLoss": _losses._WeightedLoss,
    "LazyModuleMixin": _LazyModuleMixin,  # public there, not in nn (as in PyTorch)
}

# PyTorch's files under torch/nn/modules, and the names each defines
_FILES = {
    "module": ["Module"],
    "lazy": ["LazyModuleMixin"],
    "linear": ["Identity", "Linear", "Bilinear", "LazyLinear"],
    "conv": ["_ConvNd", "_ConvTransposeNd", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
             "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
             "LazyConvTranspose2d", "LazyConv3d", "LazyConvTranspose3d"],
    "activation": ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid",
                   "Tanh", "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU",
                   "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink",
                   "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin",
                   "Softmax", "Softmax2d", "LogSoftmax"],
    "batchnorm": ["_NormBase", "_BatchNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                  "LazyBatchNorm1d",
                  "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm"],
    "instancenorm": ["_InstanceNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                     "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"],
    "normalization": ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm",
                      "RMSNorm"],
    "loss": ["_Loss", "_WeightedLoss", "L1Loss", "NLLLoss", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss",
             "MSELoss", "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss",
             "MultiLabelMarginLoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss",
             "CrossEntropyLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
             "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss"],
    "container": ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"],
    "dropout": ["_DropoutNd", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d"],
    "pooling": ["_MaxPoolNd", "_AvgPoolNd", "_MaxUnpoolNd", "MaxPool1d", "MaxPool2d", "MaxPool3d",
                "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
                "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
                "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
                "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                "FractionalMaxPool2d", "FractionalMaxPool3d"],
    "rnn": ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"],
    "sparse": ["Embedding", "EmbeddingBag"],
    "transformer": ["Transformer", "TransformerEncoder", "TransformerDecoder",
                    "TransformerEncoderLayer", "TransformerDecoderLayer"],
    "padding": ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
                "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
                "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
                "ReplicationPad2d", "ReplicationPad3d"],
    "pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "upsampling": ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"],
    "flatten": ["Flatten", "Unflatten"],
    "distance": ["PairwiseDistance", "CosineSimilarity"],
    "fold": ["Fold", "Unfold"],
    "channelshuffle": ["ChannelShuffle"],
    "adaptive": ["AdaptiveLogSoftmaxWithLoss"],
}


def _ntuple(n, name="parse"):
    """PyTorch's helper: x as an n-tuple (an iterable as a tuple, anything else
    repeated n times)."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


def _reverse_repeat_tuple(t, n):
    """Each element of t repeated n times, in reverse order (F.pad's order from a
    convolution's padding), as PyTorch's."""
    return tuple(x for x in reversed(t) for _ in range(n))


_single, _pair = _ntuple(1, "_single"), _ntuple(2, "_pair")
_triple, _quadruple = _ntuple(3, "_triple"), _ntuple(4, "_quadruple")


def _make(name, members):
    nn_names = sys.modules[__name__.rpartition(".")[0]].__dict__  # nn, imported by now
    mod = types.ModuleType(f"{__name__}.{name}",
                           f"PyTorch's torch.nn.modules.{name}: the same classes as nn's.")
    for member in members:
        value = _PRIVATE.get(member, nn_names.get(member))
        if value is not None:
            setattr(mod, member, value)
    mod.__all__ = [m for m in members if not m.startswith("_") and hasattr(mod, m)]
    return mod


for _name, _members in _FILES.items():
    _mod = _make(_name, _members)
    sys.modules[_mod.__name__] = _mod
    globals()[_name] = _mod
    for _member in _mod.__all__:
        globals()[_member] = getattr(_mod, _member)

# the hooks of every module's call, which PyTorch defines in torch/nn/modules/module.py
from .. import _global_hooks  # noqa: E402

for _hook in _global_hooks.__all__:
    setattr(module, _hook, getattr(_global_hooks, _hook))  # noqa: F821 (made above)
module.__all__ += _global_hooks.__all__  # noqa: F821
for _table, _hooks in _global_hooks.GLOBAL.items():  # PyTorch's private tables
    setattr(module, _table, _hooks)  # noqa: F821

utils = types.ModuleType(f"{__name__}.utils", "PyTorch's torch.nn.modules.utils helpers.")
for _helper in (_ntuple, _single, _pair, _triple, _quadruple, _reverse_repeat_tuple):
    setattr(utils, _helper.__name__, _helper)
sys.modules[utils.__name__] = utils
