"""GroupNorm, InstanceNorm1d and InstanceNorm2d: normalisation over each sample's
groups of channels (F.group_norm, F.instance_norm of nn/_functional_group_norm.py)
as layers, with PyTorch's arguments, defaults, parameters, buffers and repr."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .. import _C
from .._args import size as _size
from . import _functional_group_norm as FG
from .module import Module
from .normalization import _LazyBatchNorm, _NormBase, _check_eps
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class GroupNorm(Module):
    """Group normalization (:func:`~pydevtensor.nn.functional.group_norm`) as a layer,
    as ``torch.nn.GroupNorm``: each sample's channels split into num_groups groups,
    each normalised with its own mean and biased variance, then scaled and shifted per
    channel.  No running statistics: training and evaluation compute the same.

    Parameters
    ----------
    num_groups : int
        The number of groups; it must divide num_channels.
    num_channels : int
        The channels of the input (dimension 1).
    eps : float, optional
        Added to the variance (default 1e-5).
    affine : bool, optional
        Learn weight (ones at first) and bias (zeros) of shape (num_channels,)
        (default True).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).
    bias : bool, optional
        Keyword only: learn the bias too (default True; with affine).

    Raises
    ------
    TypeError
        When a count is not an int.
    ValueError
        When a count is not positive, num_groups does not divide num_channels, or eps
        is negative; at forward, see :func:`~pydevtensor.nn.functional.group_norm`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> gn = nn.GroupNorm(2, 4)
    >>> gn
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    >>> y = gn(pydevtensor.arange(16.).reshape(2, 4, 2))
    >>> y[0, :2].flatten()
    tensor([-1.3416, -0.4472,  0.4472,  1.3416], grad_fn=<ViewBackward0>)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: str | device | None = None,
                 dtype: dtype | None = None, *, bias: bool = True) -> None:
        super().__init__()
        where = type(self).__name__
        self.num_groups = _size(num_groups, where, "num_groups", 1)  # NumPy's too
        self.num_channels = _size(num_channels, where, "num_channels", 1)
        if num_channels % num_groups:
            raise ValueError(f"{where}: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.eps = _check_eps(eps, where)
        self.affine = bool(affine)
        dtype = _C._get_default_dtype() if dtype is None else dtype
        if self.affine:
            self.weight = Parameter(_C.ones(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if self.affine and bias:
            self.bias = Parameter(_C.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """weight to ones and bias to zeros (when learned).

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> gn = nn.GroupNorm(1, 2)
        >>> _ = gn.weight.data.fill_(3.)
        >>> gn.reset_parameters()
        >>> gn.weight
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        """
        if self.weight is not None:
            self.weight.data.fill_(1.0)
        if self.bias is not None:
            self.bias.data.zero_()

    def forward(self, input: Tensor) -> Tensor:
        return FG.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_NormBase):
    """What InstanceNorm1d and InstanceNorm2d share: BatchNorm's parameters and buffers
    with PyTorch's instance-norm defaults (no affine, no running statistics), an
    unbatched input accepted, and F.instance_norm as the forward."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: str | device | None = None, dtype: dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _feature_dim(self, input: Tensor) -> int:
        """The input's dimension of the channels: 0 unbatched, else 1."""
        return 0 if input.ndim == self._ndims[0] else 1

    def forward(self, input: Tensor) -> Tensor:
        self._check_dims(input)
        where = type(self).__name__
        feature_dim = self._feature_dim(input)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise _C.InvalidArgumentError(
                    f"{where}: expected input's size at dim={feature_dim} to match "
                    f"num_features ({self.num_features}), but got: "
                    f"{input.shape[feature_dim]} (input of shape {tuple(input.shape)} on "
                    f"{input.device})")
            warnings.warn(f"{where}: input's size at dim={feature_dim} does not match "
                          f"num_features ({input.shape[feature_dim]} against "
                          f"{self.num_features}); it is not used, since affine=False",
                          UserWarning, stacklevel=2)
        self._check_own(input)
        x = input.unsqueeze(0) if feature_dim == 0 else input
        out = FG.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if feature_dim == 0 else out


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of images (:func:`~pydevtensor.nn.functional.instance_norm`)
    as a layer, as ``torch.nn.InstanceNorm2d``: each channel of each image normalised
    over its H x W positions.  By default (PyTorch's) no weight or bias and no running
    statistics, so training and evaluation compute the same; with
    track_running_stats=True evaluation uses the running averages, as BatchNorm2d.

    Parameters
    ----------
    num_features : int
        The channels C of an ``(N, C, H, W)`` or ``(C, H, W)`` input.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float, optional
        The weight of a batch in the running statistics (default 0.1).
    affine : bool, optional
        Learn weight and bias of shape (C,) (default False).
    track_running_stats : bool, optional
        Keep running_mean and running_var buffers (default False).
    device : str or pydevtensor.device, optional
        Where the parameters and buffers live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).
    bias : bool, optional
        Keyword only: learn the bias too (default True; with affine).

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm2d`; at forward, for an input that is not 3-d or 4-d, a
        channel count other than num_features with affine (without it, a warning), or
        one position per channel.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> norm = nn.InstanceNorm2d(3)
    >>> norm
    InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> y = norm(pydevtensor.randn(2, 3, 4, 4))
    >>> bool(y.mean(dim=(2, 3)).abs().max() < 1e-5)
    True
    """

    _ndims = (3, 4)
    _layout = "3D (unbatched) or 4D (batched) input (C, H, W) or (N, C, H, W)"


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of sequences, as ``torch.nn.InstanceNorm1d``: each
    channel of each sample normalised over its L positions; the options are
    :class:`InstanceNorm2d`'s.

    Parameters
    ----------
    num_features : int
        The channels C of an ``(N, C, L)`` or ``(C, L)`` input.
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`InstanceNorm2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`InstanceNorm2d`, for inputs that are not 2-d or 3-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.InstanceNorm1d(2, eps=0.)(pydevtensor.tensor([[1., 3.], [0., 10.]]))
    tensor([[-1.,  1.],
            [-1.,  1.]])
    """

    _ndims = (2, 3)
    _layout = "2D (unbatched) or 3D (batched) input (C, L) or (N, C, L)"


_LAZY_DOC = """An :class:`{layer}` whose num_features is read from its first input (its
    channels: dimension 1, or 0 of an unbatched input), as ``torch.nn.{name}``: until
    then its weight and bias are :class:`UninitializedParameter` objects and its running
    statistics :class:`UninitializedBuffer` objects; the first forward, or
    ``load_state_dict``, gives them their shape, and the first call makes the module an
    :class:`{layer}`.  As PyTorch's, affine and track_running_stats default to True.

    Parameters
    ----------
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`{layer}` (affine and track_running_stats default to True).

    Raises
    ------
    TypeError, ValueError
        As :class:`{layer}`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> norm = nn.{name}()
    >>> norm(pydevtensor.randn({shape})).shape
    pydevtensor.Size([{dims}])
    >>> norm
    {layer}(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """


def _lazy_instance_doc(layer: type, shape: tuple[int, ...]) -> str:
    return _LAZY_DOC.format(layer=layer.__name__, name="Lazy" + layer.__name__,
                            shape=", ".join(map(str, shape)),
                            dims=", ".join(map(str, shape)))


class LazyInstanceNorm1d(_LazyBatchNorm, InstanceNorm1d):
    _layer = InstanceNorm1d
    __doc__ = _lazy_instance_doc(InstanceNorm1d, (2, 3, 5))


class LazyInstanceNorm2d(_LazyBatchNorm, InstanceNorm2d):
    _layer = InstanceNorm2d
    __doc__ = _lazy_instance_doc(InstanceNorm2d, (2, 3, 4, 4))
