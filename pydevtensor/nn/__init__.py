"""pydevtensor.nn: Linear and Sequential on any device, with parameters that can be
saved and loaded across devices, trained with autograd (``loss.backward()``), and the
losses MSELoss, L1Loss, HuberLoss, SmoothL1Loss, CrossEntropyLoss, NLLLoss,
BCEWithLogitsLoss and KLDivLoss; the convolutions (Conv1d, Conv2d, LazyConv2d), the
pools (MaxPool2d, AvgPool2d, AdaptiveAvgPool2d) and BatchNorm2d of D2L's CNN chapters.
``from pydevtensor import nn`` gives the chapter's ``nn.Sequential(nn.Linear(3, 1))``."""
from . import functional, init, parallel, utils
from .activation import ELU, GELU, Hardtanh, LogSigmoid, Mish, ReLU6, SiLU, Softplus
from .containers import ModuleDict, ParameterDict, ParameterList
from .data_parallel import DataParallel
from .layers import (Dropout, Dropout1d, Dropout2d, Flatten, Identity, LazyLinear, LeakyReLU,
                     Linear, LogSoftmax, ModuleList, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .layers import AlphaDropout, FeatureAlphaDropout
from .losses import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss,
                     NLLLoss, SmoothL1Loss)
from .group_norm import (GroupNorm, InstanceNorm1d, InstanceNorm2d, LazyInstanceNorm1d,
                         LazyInstanceNorm2d)
from .module import Module
from .conv import Conv1d, Conv2d, Fold, LazyConv1d, LazyConv2d, Unfold
from .conv_transpose import (ConvTranspose1d, ConvTranspose2d, LazyConvTranspose1d,
                             LazyConvTranspose2d)
from .normalization import (BatchNorm1d, BatchNorm2d, LayerNorm, LazyBatchNorm1d,
                            LazyBatchNorm2d)
from .padding import (CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d,
                      ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d,
                      ZeroPad1d, ZeroPad2d)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .pooling import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, MaxPool2d
from .sparse import Embedding
# more activations, losses and layers with PyTorch's names
from .activation_more import (CELU, GLU, Hardshrink, Hardsigmoid, Hardswish, PReLU, RReLU, SELU,
                              Softmax2d, Softmin, Softshrink, Softsign, Tanhshrink, Threshold)
from .losses_more import (CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,
                          MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                          MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                          TripletMarginWithDistanceLoss)
from .bilinear import Bilinear
from .distance import CosineSimilarity, PairwiseDistance
from .reshape_layers import ChannelShuffle, Unflatten
# recurrent layers (D2L chapters 9-10)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase
# layers2: 1-d and power-average pools, upsampling, pixel shuffle, LRN and RMSNorm
from .pooling_more import (AdaptiveAvgPool1d, AdaptiveMaxPool1d, AvgPool1d,
                           FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d,
                           LPPool3d, MaxPool1d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .upsampling import (PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d,
                         UpsamplingNearest2d)
from .normalization_more import CrossMapLRN2d, LocalResponseNorm, RMSNorm
from .batchnorm_sync import SyncBatchNorm
# attention and the Transformer (D2L chapter 11)
from .attention import MultiheadAttention
from .embedding_bag import EmbeddingBag
from .layers_3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, BatchNorm3d,
                        CircularPad3d, ConstantPad3d, Conv3d, ConvTranspose3d, Dropout3d,
                        InstanceNorm3d, LazyBatchNorm3d, LazyConv3d, LazyConvTranspose3d,
                        LazyInstanceNorm3d, MaxPool3d, ReflectionPad3d, ReplicationPad3d,
                        ZeroPad3d)
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)

__all__ = ["Module", "Parameter", "Buffer", "UninitializedParameter", "Linear", "LazyLinear",
           "Sequential", "ModuleList", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax",
           "Dropout", "Flatten", "Identity", "MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss",
           "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "LogSoftmax", "KLDivLoss", "functional", "init",
           "parallel", "utils", "GELU", "SiLU", "ELU", "Softplus", "Mish", "LogSigmoid",
           "Hardtanh", "ReLU6", "LayerNorm", "BatchNorm1d", "Embedding", "ModuleDict",
           "ParameterList", "ParameterDict", "UninitializedBuffer", "Conv1d", "Conv2d",
           "LazyConv1d", "LazyConv2d", "Unfold", "Fold", "BatchNorm2d", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "DataParallel", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d",
           "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d",
           "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "ConvTranspose1d",
           "ConvTranspose2d", "LazyConvTranspose1d", "LazyConvTranspose2d", "Dropout1d", "Dropout2d",
           "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d",
           "RNNBase", "RNN", "GRU", "LSTM", "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]
# more activations, losses and layers with PyTorch's names
__all__ += ["CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "PReLU", "RReLU", "SELU",
            "Softmax2d", "Softmin", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
            "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
            "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss",
            "TripletMarginWithDistanceLoss", "CTCLoss", "Bilinear",
            "CosineSimilarity", "PairwiseDistance", "ChannelShuffle", "Unflatten"]
# layers2: 1-d and power-average pools, upsampling, pixel shuffle, LRN and RMSNorm
__all__ += ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "LPPool1d",
            "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Upsample",
            "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "LocalResponseNorm", "RMSNorm"]
__all__ += ["CrossMapLRN2d", "SyncBatchNorm"]
__all__ += ["AlphaDropout", "FeatureAlphaDropout", "FractionalMaxPool2d", "FractionalMaxPool3d"]
__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
            "TransformerEncoderLayer", "TransformerDecoderLayer"]

# autocast's casts on nn.functional's ops and the layers that hold them (amp/_policy.py)
from ..amp import _policy as _amp_policy  # noqa: E402
_amp_policy.install()

# the 3-d layers (nn/layers_3d.py)
__all__ += ["AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "AvgPool3d", "BatchNorm3d", "Conv3d",
            "ConvTranspose3d", "Dropout3d", "InstanceNorm3d", "LazyInstanceNorm3d", "MaxPool3d",
            "LazyBatchNorm3d", "LazyConv3d", "LazyConvTranspose3d", "EmbeddingBag",
            "CircularPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d", "ZeroPad3d"]

# the layers under PyTorch's module paths (nn.modules.batchnorm._BatchNorm, ...)
from . import modules  # noqa: E402,F401
