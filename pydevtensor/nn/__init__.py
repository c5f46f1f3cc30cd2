"""pydevtensor.nn: Linear and Sequential on any device, with parameters that can be
saved and loaded across devices, trained with autograd (``loss.backward()``), and the
losses MSELoss and CrossEntropyLoss.
``from pydevtensor import nn`` gives the chapter's ``nn.Sequential(nn.Linear(3, 1))``."""
from . import functional, parallel
from .layers import Flatten, Identity, Linear, ReLU, Sequential, Sigmoid, Tanh
from .losses import CrossEntropyLoss, MSELoss
from .module import Module
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ReLU", "Sigmoid", "Tanh",
           "Flatten", "Identity", "MSELoss", "CrossEntropyLoss", "functional", "parallel"]
