"""nn.utils.fusion: a convolution or linear layer followed by a BatchNorm, folded into
one layer for inference, as ``torch.nn.utils.fusion``.

In eval mode the BatchNorm is the affine map ``(y - mean) * w / sqrt(var + eps) + b``
per channel, so the layer before it can absorb it: its weight's output channels are
scaled by ``s = w / sqrt(var + eps)`` and its bias becomes ``(bias - mean) * s + b``.
The fused weight and bias keep the layer's dtypes and requires_grad (a bias that was
None becomes a parameter that does not require grad), as PyTorch's.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from ... import _C
from ..parameter import Parameter

if TYPE_CHECKING:
    from ..._C import Tensor

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _eval_buffers(layer, bn) -> None:
    """PyTorch's checks: both modules in eval mode, bn with running statistics."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def _transposed_groups(conv_w: Tensor, channels: int) -> int:
    """The groups of a transposed convolution's weight (in, out / groups, ...) with
    channels output channels."""
    per_group = conv_w.shape[1] if conv_w.ndim >= 2 else 0
    groups = channels // per_group if per_group else 0
    if not groups or groups * per_group != channels or conv_w.shape[0] % groups:
        raise ValueError(f"fuse_conv_bn_weights: a transposed convolution's weight of shape "
                         f"{tuple(conv_w.shape)} does not give the BatchNorm's {channels} "
                         f"channels (its dim 1 times the groups)")
    return groups


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of conv that computes ``bn(conv(x))`` of the eval-mode modules, as
    ``torch.nn.utils.fuse_conv_bn_eval``.

    Parameters
    ----------
    conv : nn.Module
        A Conv1d/2d/3d (or, with transpose, a ConvTranspose) in eval mode.
    bn : nn.Module
        A BatchNorm1d/2d/3d over conv's output channels, in eval mode, with running
        statistics.
    transpose : bool, optional
        conv is a transposed convolution (its weight's output channels are dim 1,
        within each group; PyTorch's fuses only those of one group).

    Returns
    -------
    nn.Module
        A deep copy of conv with the fused weight and bias.

    Raises
    ------
    AssertionError
        When a module is in training mode or bn keeps no running statistics.
    ValueError
        When a transposed conv's weight does not fit bn's channels.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> conv, bn = nn.Conv2d(2, 3, 3).eval(), nn.BatchNorm2d(3).eval()
    >>> x = pydevtensor.randn(1, 2, 5, 5)
    >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> bool((fused(x) - bn(conv(x))).abs().max() < 1e-5)
    True
    """
    _eval_buffers(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple:
    """The weight and bias of a convolution followed by an eval-mode BatchNorm, as
    ``torch.nn.utils.fuse_conv_bn_weights``: the weight's output channels scaled by
    ``s = bn_w / sqrt(bn_rv + bn_eps)``, the bias ``(conv_b - bn_rm) * s + bn_b``.

    Parameters
    ----------
    conv_w : Tensor
        The convolution's weight, output channels first (second with transpose).
    conv_b : Tensor or None
        Its bias (None: zeros).
    bn_rm, bn_rv : Tensor
        The BatchNorm's running mean and variance, ``(C,)``.
    bn_eps : float
        Its eps.
    bn_w, bn_b : Tensor or None
        Its weight and bias (None: ones and zeros).
    transpose : bool, optional
        The output channels are conv_w's dim 1 (a transposed convolution,
        ``(in, out / groups, ...)``: the groups are the channels over dim 1).

    Returns
    -------
    (Parameter, Parameter)
        The weight, in conv_w's dtype and requires_grad, and the bias, in conv_b's (or
        conv_w's dtype, not requiring grad, when conv_b is None).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w, b = nn.utils.fuse_conv_bn_weights(pydevtensor.ones(2, 1, 1, 1), None,
    ...     pydevtensor.tensor([1., 2.]), pydevtensor.tensor([3., 15.]), 1.0, None, None)
    >>> w.flatten().tolist(), b.tolist()
    ([0.5, 0.25], [-0.5, -0.5])
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = _C.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = _C.ones_like(bn_rm)
    if bn_b is None:
        bn_b = _C.zeros_like(bn_rm)
    rsqrt = (bn_rv + bn_eps).rsqrt()
    scale = bn_w * rsqrt
    if transpose:  # (in, out / groups, ...): group g's rows feed outputs g * out / groups on
        groups = _transposed_groups(conv_w, scale.numel())
        fused_w = (conv_w.reshape((groups, -1) + tuple(conv_w.shape[1:])) *
                   scale.reshape([groups, 1, -1] + [1] * (conv_w.ndim - 2)))
        fused_w = fused_w.reshape(conv_w.shape).to(w_dtype)
    else:
        fused_w = (conv_w * scale.reshape([-1] + [1] * (conv_w.ndim - 1))).to(w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of linear that computes ``bn(linear(x))`` of the eval-mode modules, as
    ``torch.nn.utils.fuse_linear_bn_eval``.

    Parameters
    ----------
    linear : nn.Linear
        In eval mode.
    bn : nn.Module
        A BatchNorm1d in eval mode, with running statistics, over linear's out_features
        (or over 1 feature).

    Returns
    -------
    nn.Linear
        A deep copy of linear with the fused weight and bias.

    Raises
    ------
    AssertionError
        When a module is in training mode, the feature counts differ (and bn's is not
        1), or bn keeps no running statistics.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> linear, bn = nn.Linear(4, 3).eval(), nn.BatchNorm1d(3).eval()
    >>> x = pydevtensor.randn(5, 4)
    >>> fused = nn.utils.fuse_linear_bn_eval(linear, bn)
    >>> bool((fused(x) - bn(linear(x))).abs().max() < 1e-5)
    True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _eval_buffers(linear, bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor, bn_b: Tensor) -> tuple:
    """The weight and bias of a linear layer followed by an eval-mode BatchNorm, as
    ``torch.nn.utils.fuse_linear_bn_weights``: the weight's rows scaled by
    ``s = bn_w / sqrt(bn_rv + bn_eps)``, the bias ``(linear_b - bn_rm) * s + bn_b``.

    Parameters
    ----------
    linear_w : Tensor
        The linear layer's weight, ``(out_features, in_features)``.
    linear_b : Tensor or None
        Its bias (None: zeros).
    bn_rm, bn_rv : Tensor
        The BatchNorm's running mean and variance.
    bn_eps : float
        Its eps.
    bn_w, bn_b : Tensor
        Its weight and bias.

    Returns
    -------
    (Parameter, Parameter)
        The weight, in linear_w's dtype and requires_grad, and the bias, in linear_b's
        (or linear_w's dtype, not requiring grad, when linear_b is None).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w, b = nn.utils.fuse_linear_bn_weights(pydevtensor.ones(2, 1), None,
    ...     pydevtensor.zeros(2), pydevtensor.full((2,), 3.), 1.0, pydevtensor.ones(2),
    ...     pydevtensor.ones(2))
    >>> w.flatten().tolist(), b.tolist()
    ([0.5, 0.5], [1.0, 1.0])
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = _C.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b,
                                                                  linear_b.requires_grad)
