"""pydevtensor.nn: Linear and Sequential on any device, with parameters that can be
saved and loaded across devices, trained with autograd (``loss.backward()``), and the
losses MSELoss, L1Loss, HuberLoss, SmoothL1Loss, CrossEntropyLoss, NLLLoss,
BCEWithLogitsLoss and KLDivLoss.
``from pydevtensor import nn`` gives the chapter's ``nn.Sequential(nn.Linear(3, 1))``."""
from . import functional, init, parallel, utils
from .activation import ELU, GELU, Hardtanh, LogSigmoid, Mish, ReLU6, SiLU, Softplus
from .containers import ModuleDict, ParameterDict, ParameterList
from .layers import (Dropout, Flatten, Identity, LazyLinear, LeakyReLU, Linear, ModuleList,
                     ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .losses import (BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss,
                     NLLLoss, SmoothL1Loss)
from .module import Module
from .normalization import BatchNorm1d, LayerNorm
from .parameter import Parameter, UninitializedParameter
from .sparse import Embedding
# recurrent layers (D2L chapters 9-10)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase

__all__ = ["Module", "Parameter", "UninitializedParameter", "Linear", "LazyLinear",
           "Sequential", "ModuleList", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax",
           "Dropout", "Flatten", "Identity", "MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss",
           "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "KLDivLoss", "functional", "init",
           "parallel", "utils", "GELU", "SiLU", "ELU", "Softplus", "Mish", "LogSigmoid",
           "Hardtanh", "ReLU6", "LayerNorm", "BatchNorm1d", "Embedding", "ModuleDict",
           "ParameterList", "ParameterDict",
           "RNNBase", "RNN", "GRU", "LSTM", "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]
