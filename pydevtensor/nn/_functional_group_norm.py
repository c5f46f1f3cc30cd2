"""nn.functional.group_norm and instance_norm: normalisation over groups of channels of
each sample (instance_norm: groups of one channel), with PyTorch's names, defaults and
formulas, as compositions of differentiable ops (autograd gives their gradients).
The statistics of float16 and bfloat16 inputs are taken in float32, the result
rounded once, as layer_norm does (nn/_functional_norm.py).  functional.py re-exports
them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from .._args import flag
from ._functional_norm import (_Invalid, _batch_norm, _check_channels, _floating,
                               _per_channel, _scale_shift, _wide, update_running)
from ._norm_nodes_more import native_group_norm

if TYPE_CHECKING:
    from .._C import Tensor

def _normalised(input: Tensor, groups: int, eps: float) -> tuple:
    """(x - mean) / sqrt(var + eps) with the mean and biased variance of each sample's
    groups (channels 0 .. C/groups - 1 and everything after them form group 0, ...),
    in float32 for the half types; also the (N, groups) means and variances."""
    n = input.shape[0]
    x = input.to(_wide(input.dtype))
    per_group = input.numel() // (n * groups) if n * groups else 0
    flat = x.reshape(n, groups, per_group)
    mean = flat.mean(dim=2, keepdim=True)
    centred = flat - mean
    var = (centred * centred).mean(dim=2, keepdim=True)  # biased, as PyTorch
    out = (centred / _C.sqrt(var + eps)).reshape(tuple(input.shape))
    return out, mean.reshape(n, groups), var.reshape(n, groups), per_group


def _affine(out: Tensor, input: Tensor, weight: Tensor | None,
            bias: Tensor | None) -> Tensor:
    """out * weight + bias per channel (dimension 1), in out's dtype, then input's."""
    ndim = input.ndim
    w = None if weight is None else _per_channel(weight.to(out.dtype), ndim)
    b = None if bias is None else _per_channel(bias.to(out.dtype), ndim)
    out = _scale_shift(out, w, b)
    return out.to(input.dtype) if out.dtype != input.dtype else out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalises each sample's channels in num_groups groups: ``(x - mean) /
    sqrt(var + eps) * weight + bias``, with the mean and the biased variance of each
    sample's group (its C / num_groups channels and all their positions), weight and
    bias per channel, as ``torch.nn.functional.group_norm``.  The statistics do not
    depend on the batch: the same in training and evaluation.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``; floating point.
    num_groups : int
        The number of groups; it must divide C.
    weight, bias : Tensor, optional
        ``(C,)``: the scale and shift.
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor or num_groups not an int.
    ValueError, RuntimeError
        (InvalidArgumentError) When input has fewer than 2 dimensions, num_groups is
        not positive or does not divide C, or weight or bias is not (C,).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 3.], [10., 30.]]])
    >>> F.group_norm(x, 2, eps=0.)
    tensor([[[-1.,  1.],
             [-1.,  1.]]])
    >>> F.group_norm(x, 1).shape
    pydevtensor.Size([1, 2, 2])
    """
    where = "group_norm()"
    _floating(input, where)
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(f"{where}: num_groups must be an int, got {type(num_groups).__name__}")
    if input.ndim < 2:
        raise _Invalid(f"{where}: Expected at least 2 dimensions for input tensor but received "
                       f"{input.ndim} (shape {tuple(input.shape)} on {input.device})")
    if num_groups < 1 or input.shape[1] % num_groups:
        raise _Invalid(f"{where}: Expected number of channels in input to be divisible by "
                       f"num_groups, but got input of shape {tuple(input.shape)} and "
                       f"num_groups={num_groups} (on {input.device})")
    _check_channels(input, (("weight", weight), ("bias", bias)), where)
    # one recorded op, NativeGroupNormBackward0 (nn/_norm_nodes_more.py)
    return native_group_norm(input, weight, bias, num_groups, eps)[0]


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel of each sample over its positions, as
    ``torch.nn.functional.instance_norm``: :func:`group_norm` with one channel per
    group.  With use_input_stats (the default) the sample's own mean and biased
    variance are used, and running_mean and running_var (when given) are updated in
    place with their averages over the batch (the variance unbiased):
    ``running = (1 - momentum) * running + momentum * batch``.  Otherwise the running
    statistics normalise, as :func:`batch_norm` in evaluation.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, at least one position; floating point.
    running_mean, running_var : Tensor, optional
        ``(C,)``.
    weight, bias : Tensor, optional
        ``(C,)``: the scale and shift.
    use_input_stats : bool, optional
        Normalise with each sample's own statistics (default True).
    momentum : float, optional
        The weight of the batch in the running update (default 0.1).
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor.
    ValueError, RuntimeError
        When input has fewer than 3 dimensions, a (C,) tensor has another size,
        use_input_stats is set and each channel of a sample holds one value, only one
        running statistic is given, or use_input_stats is False without them.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.instance_norm(pydevtensor.tensor([[[1., 3.], [0., 10.]]]), eps=0.)
    tensor([[[-1.,  1.],
             [-1.,  1.]]])
    """
    where = "instance_norm()"
    _floating(input, where)
    use_input_stats = flag(use_input_stats, "instance_norm", "use_input_stats")
    if input.ndim < 3:
        raise _Invalid(f"{where}: expected an input of shape (N, C, *) with at least one "
                       f"spatial dimension, got {tuple(input.shape)} (on {input.device})")
    _check_channels(input, (("running_mean", running_mean), ("running_var", running_var),
                            ("weight", weight), ("bias", bias)), where)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{where}: running_mean and running_var must both be given or "
                         f"both be None")
    if not use_input_stats:
        if running_mean is None:
            raise _Invalid(f"{where}: Expected running_mean and running_var to be defined "
                           f"when use_input_stats is false")
        return _batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps,
                           False)
    n, c = input.shape[0], input.shape[1]
    spatial = 1
    for s in input.shape[2:]:
        spatial *= s
    if spatial == 1:  # PyTorch's check: an empty input passes (and gives an empty output)
        raise ValueError(f"{where}: Expected more than 1 spatial element when training, got "
                         f"input size {tuple(input.shape)} (on {input.device})")
    out, mean, var, count = _normalised(input, c, eps)
    # an empty input leaves the running statistics (PyTorch's made them NaN for N = 0)
    if running_mean is not None and input.numel() > 0:  # the samples' mean statistics
        update_running(running_mean, running_var, mean.detach().mean(dim=0),
                       var.detach().mean(dim=0), count, momentum)
    return _affine(out, input, weight, bias)
