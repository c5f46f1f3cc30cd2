"""The normalisation layers: LayerNorm, BatchNorm1d and BatchNorm2d, and the lazy
LazyBatchNorm1d and LazyBatchNorm2d (D2L's batch normalization, CNN and transformer
chapters), with PyTorch's parameters, buffers and train/eval behaviour."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .. import _C
from .. import _args
from .._args import size as _size
from . import _functional_norm as FN
from .module import Module
from .parameter import LazyModuleMixin, Parameter, UninitializedBuffer, UninitializedParameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape


def _check_eps(eps: Any, where: str) -> float:
    eps = _args.plain(eps)  # a NumPy scalar as a Python number
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps < 0:
        raise ValueError(f"{where}: eps must be a number >= 0, got {eps!r}")
    return float(eps)


class LayerNorm(Module):
    """Normalises each sample over its last ``len(normalized_shape)`` dimensions
    (mean 0, biased variance 1), then scales by weight and shifts by bias, as
    ``torch.nn.LayerNorm``: the same in training and evaluation.

    Parameters
    ----------
    normalized_shape : int or sequence of int
        The trailing shape of the input to normalise over.
    eps : float, optional
        Added to the variance (default 1e-5).
    elementwise_affine : bool, optional
        Learn weight (ones at first) and bias (zeros) of shape normalized_shape
        (default True).
    bias : bool, optional
        Learn the bias too (default True; with elementwise_affine).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError, ValueError
        When normalized_shape is not one or more ints >= 0, or eps is negative; at
        forward, when the input's trailing shape is not normalized_shape.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> ln = nn.LayerNorm(2)
    >>> ln
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(pydevtensor.tensor([[1., 3.], [2., 2.]]))
    tensor([[-1.0000,  1.0000],
            [ 0.0000,  0.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self.normalized_shape = FN._shape_tuple(normalized_shape, "LayerNorm")
        self.eps = _check_eps(eps, "LayerNorm")
        self.elementwise_affine = bool(elementwise_affine)
        dtype = _C._get_default_dtype() if dtype is None else dtype
        if self.elementwise_affine:
            self.weight = Parameter(_C.ones(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_C.zeros(self.normalized_shape, device=device,
                                               dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        try:
            return FN.layer_norm(input, self.normalized_shape, self.weight, self.bias,
                                 self.eps)
        except ValueError as e:  # InvalidArgumentError too: the same class, in its words
            raise type(e)(str(e).replace("layer_norm()", "LayerNorm", 1)) from None

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class HostCount:
    """BatchNorm's num_batches_tracked as a host int, valid while the buffer is the same
    tensor at the same version (Note [the host count]).

    Note [the host count]
    momentum=None weighs batch k by 1/k, so each training forward needs the count; it is
    kept here so that nothing is read back from a GPU.  The holder is mutable and updated
    in place: nn.parallel.replicate's shallow copy on the module's own device shares it
    with the module (and the module's buffer), so what that replica counts is the
    module's count at its next forward.  A copy of the buffer (Module.to, a replica on
    another device) gets a holder of its own with the count (_NormBase._buffer_copied).
    DistributedDataParallel's buffer broadcast carries rank 0's counts to every rank's
    holders (nn/parallel.py).  After a write the holder does not see (load_state_dict,
    reset by hand, module.to()) the buffer is read once, by an explicit, counted copy.
    The version is the buffer's and its ``.data``'s (a counter of its own), so a reset
    through ``.data`` is seen; on the CPU the buffer is read every time (nothing to wait
    for), which sees a write through a NumPy array of it too.
    """

    __slots__ = ("tensor", "version", "count")

    def __init__(self, tensor: Tensor, count: int) -> None:
        self.set(tensor, count)

    def set(self, tensor: Tensor, count: int) -> None:
        """tensor holds count now."""
        self.tensor, self.version, self.count = tensor, _versions(tensor), count

    def get(self, tensor: Tensor) -> int | None:
        """The count tensor holds, or None when it is not known on the host.  On the CPU
        the buffer itself is read (nothing to wait for), so a write no counter sees (a
        NumPy array of it) is seen too."""
        if tensor.device.type == "cpu" and tensor.numel() == 1:
            return int(tensor.item())
        if tensor is self.tensor and _versions(tensor) == self.version:
            return self.count
        return None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy.deepcopy and pickle: the copy of the buffer (a fresh version counter)
        # holds the count when this holder knows it
        return _restored_count, (self.tensor, self.get(self.tensor))


def _versions(t: Tensor) -> tuple[int, int]:
    """t's version and that of its ``.data`` (a counter of its own, Note [version
    counter] in csrc/core/pdt_tensor.h): a write through ``bn.num_batches_tracked.data``
    or ``.numpy()`` moves the second."""
    return t._version, t.data._version


def _restored_count(tensor: Tensor, count: int | None) -> HostCount:
    kept = HostCount(tensor, -1 if count is None else count)
    if count is None:
        kept.version = (-1, -1)  # unknown: the buffer is read once
    return kept


class _NormBase(Module):
    """What the batch and instance norms share (PyTorch's _NormBase): the options, the
    parameters and buffers, the input's checks and the forward.  Subclasses set _ndims
    (the input's allowed numbers of dimensions) and _layout (how the message names
    them)."""

    _ndims = (2, 3)
    _layout = "2D or 3D input (N, C) or (N, C, L)"
    _version = 2  # PyTorch's: num_batches_tracked came with version 2

    def _old_checkpoint_entries(self, prefix: str, version: int | None) -> dict[str, Tensor]:
        """What load_state_dict adds to a state dict saved before version 2 (or a plain
        dict, without _metadata) where it lacks it, as PyTorch's
        _NormBase._load_from_state_dict: num_batches_tracked, the module's own (so the
        count is kept)."""
        if (version is None or version < 2) and self.num_batches_tracked is not None:
            return {prefix + "num_batches_tracked": self.num_batches_tracked}
        return {}

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        where = type(self).__name__
        num_features = _size(num_features, where, "num_features", 1)  # NumPy's too
        self._options(eps, momentum, affine, track_running_stats)
        self.num_features = num_features
        dtype = _C._get_default_dtype() if dtype is None else dtype

        def filled(value):
            return (_C.ones if value else _C.zeros)(num_features, device=device, dtype=dtype)
        self._register_state(bias, device, lambda value: Parameter(filled(value)), filled)

    def _register_state(self, bias: bool, device: Any, param: Any, buffer: Any) -> None:
        """Registers weight and bias (bias only where bias=True) where affine, and
        running_mean, running_var and num_batches_tracked where track_running_stats (else
        None), in PyTorch's order; param(value) and buffer(value) make a parameter and a
        running statistic, of ones (value 1) or zeros (value 0)."""
        if self.affine:
            self.weight = param(1)
            if bias:
                self.bias = param(0)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", buffer(0))
            self.register_buffer("running_var", buffer(1))
            self.register_buffer("num_batches_tracked",
                                 _C.tensor(0, dtype=_C.int64, device=device))
            self._host_count = HostCount(self.num_batches_tracked, 0)
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def _options(self, eps: Any, momentum: Any, affine: Any, track_running_stats: Any) -> None:
        where = type(self).__name__
        momentum = _args.plain(momentum)  # a NumPy scalar as a Python number
        if momentum is not None and (isinstance(momentum, bool)
                                     or not isinstance(momentum, (int, float))):
            raise TypeError(f"{where}: momentum must be a number or None, got "
                            f"{type(momentum).__name__}")
        self.eps = _check_eps(eps, where)
        self.momentum = momentum
        self.affine = bool(affine)
        self.track_running_stats = bool(track_running_stats)

    def reset_running_stats(self) -> None:
        """Sets running_mean to zeros, running_var to ones and num_batches_tracked to 0.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> bn = nn.BatchNorm1d(2)
        >>> _ = bn(pydevtensor.tensor([[1., 2.], [3., 5.]]))
        >>> bn.reset_running_stats()
        >>> bn.running_var, bn.num_batches_tracked
        (tensor([1., 1.]), tensor(0))
        """
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1.0)
            self.num_batches_tracked.zero_()
            self._count_is(0)

    def _check_dims(self, input: Any) -> None:
        where = type(self).__name__
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
        if input.ndim not in self._ndims:
            raise _Invalid(f"{where}: expected {self._layout}, got {input.ndim}D input of "
                           f"shape {tuple(input.shape)} (on {input.device})")

    def _feature_dim(self, input: Tensor) -> int:
        """The input's dimension of the features (C): 1."""
        return 1

    def _check_input(self, input: Any, batch: bool = True) -> None:
        """The input's checks; batch: in training, refuse one value per channel (a
        SyncBatchNorm across processes counts every process's values instead)."""
        where = type(self).__name__
        self._check_dims(input)
        if input.shape[1] != self.num_features:
            raise _Invalid(f"{where}: expected {self.num_features} features "
                           f"(dimension 1 of the input), got {input.shape[1]} in an input "
                           f"of shape {tuple(input.shape)} (on {input.device})")
        if self.training and batch:
            FN._check_batch(input, where)
        self._check_own(input)

    def _check_own(self, input: Tensor) -> None:
        """The parameters' and buffers' device and dtype against input's: checked before
        the forward, so that a refused input leaves the running statistics as they were."""
        where = type(self).__name__
        own = next((t for t in (self.weight, self.running_mean) if t is not None), None)
        if own is not None and own.device != input.device:
            raise _C.DeviceError(f"{where}: the input is on {input.device} but the layer's "
                                 f"parameters and buffers are on {own.device}; move one with "
                                 f".to()")
        if own is not None and own.dtype != input.dtype and not (
                own.dtype == _C.float32 and input.dtype in (_C.float16, _C.bfloat16)):
            # PyTorch's mixed form: a float16 or bfloat16 input with float32 parameters
            # and statistics, computed in float32, the output in the input's dtype
            raise _C.DTypeError(f"{where}: the input is {input.dtype} but the layer's "
                                f"parameters and buffers are {own.dtype}; convert the input with "
                                f".to({own.dtype}) or the layer with .to(dtype={input.dtype}) "
                                f"(on {input.device})")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input(input)  # before the count changes: a refused batch changes nothing
        FN._check_batch_norm_eps(self.eps, self.training or self.running_mean is None,
                                 type(self).__name__)
        factor = self._count_batch()
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return FN.batch_norm(input, self.running_mean if keep else None,
                             self.running_var if keep else None, self.weight, self.bias,
                             use_batch, factor, self.eps)

    def _count_batch(self) -> float:
        """Adds one to num_batches_tracked when training with running statistics, and
        returns the weight of this batch in them: momentum, or 1 / count for None."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            count = self._batches_after_this() if self.momentum is None else None
            self.num_batches_tracked.add_(1)
            if count is not None:  # cumulative: batch k weighs 1/k
                factor = 1.0 / count
                self._count_is(count)
        return factor

    def _batches_after_this(self) -> int:
        """num_batches_tracked + 1, from the host count (Note [the host count]), or read
        from the buffer when the count is not known on the host."""
        t = self.num_batches_tracked
        kept = self.__dict__.get("_host_count")
        count = None if kept is None else kept.get(t)
        if count is None:  # an implicit transfer from t's device
            count = int(_C._implicit_cpu(t, "BatchNorm (num_batches_tracked)").item())
        return count + 1

    def _count_is(self, count: int) -> None:
        """num_batches_tracked holds count now: the holder, shared with the replicas
        that share the buffer, learns it in place."""
        kept = self.__dict__.get("_host_count")
        if kept is None:
            self._host_count = HostCount(self.num_batches_tracked, count)
        else:
            kept.set(self.num_batches_tracked, count)

    def _buffer_copied(self, old: Tensor, new: Tensor) -> None:
        """new, a copy of the buffer old (Module.to, or a replica of
        nn.parallel.replicate on another device), replaced it: the count follows in a
        holder of its own, so that shallow copies still holding old keep theirs."""
        kept = self.__dict__.get("_host_count")
        if kept is not None and old is kept.tensor:
            count = kept.get(old)
            self._host_count = None if count is None else HostCount(new, count)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """The batch norms' base, as PyTorch's: ``isinstance(m, _BatchNorm)`` holds for
    BatchNorm1d and BatchNorm2d (and their lazy forms), not for the instance norms."""


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs over each of the C features,
    as ``torch.nn.BatchNorm1d``.

    In training each feature is normalised with the batch's mean and biased variance
    (over N, and L), and the buffers running_mean and running_var are updated with
    ``running = (1 - momentum) * running + momentum * batch`` (the unbiased variance;
    momentum None: the cumulative average over the num_batches_tracked batches).  In
    evaluation (``net.eval()``) the running statistics are used.  Then y = x_hat *
    weight + bias.

    Parameters
    ----------
    num_features : int
        C.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        The weight of each batch in the running statistics (default 0.1); None for a
        cumulative average.
    affine : bool, optional
        Learn weight (ones at first) and bias (zeros) of shape (C,) (default True).
    track_running_stats : bool, optional
        Keep running_mean (zeros at first), running_var (ones) and
        num_batches_tracked (an int64 count) as buffers, used in evaluation (default
        True); without them the batch's statistics are used in evaluation too.
    device : str or pydevtensor.device, optional
        Where the parameters and buffers live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start;
        num_batches_tracked stays int64).
    bias : bool, optional
        Keyword-only: learn the bias too (default True; with affine).  With False
        there is no bias parameter (``bias`` is None, not in the state dict).

    Raises
    ------
    TypeError, ValueError
        When num_features is not a positive int, or eps or momentum is not a number;
        at forward, when the input is not 2-d or 3-d, has another number of features
        (naming both and the device), or is a training batch of one value per
        feature.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.BatchNorm1d(2)
    >>> bn
    BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> bn(pydevtensor.tensor([[1., 10.], [3., 30.]]))
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)
    >>> bn.running_mean, bn.num_batches_tracked
    (tensor([0.2000, 2.0000]), tensor(1))
    """


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) images over each of the C channels, as
    ``torch.nn.BatchNorm2d`` (D2L's ``nn.BatchNorm2d`` after a convolution): each
    channel is normalised with statistics over N, H and W; otherwise as
    :class:`BatchNorm1d` (running statistics as buffers, train and eval, momentum,
    eps, affine, track_running_stats).

    Parameters
    ----------
    num_features : int
        C.
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`BatchNorm1d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm1d`; at forward, when the input is not 4-d or has another
        number of channels (naming both and the device).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.BatchNorm2d(2)
    >>> bn
    BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> x = pydevtensor.tensor([[[[1.]], [[10.]]], [[[3.]], [[30.]]]])
    >>> bn(x).detach().reshape(2, 2)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> bn.running_mean
    tensor([0.2000, 2.0000])
    """

    _ndims = (4,)
    _layout = "4D input (N, C, H, W)"


class _LazyBatchNorm(LazyModuleMixin):
    """What LazyBatchNorm1d and LazyBatchNorm2d (and the LazyInstanceNorm layers) add to
    their layer: num_features from the first input's features dimension (or from a
    loaded state_dict), then the module becomes that layer.  Until then weight and bias are UninitializedParameter
    objects, running_mean and running_var UninitializedBuffer objects."""

    _layer = BatchNorm2d

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: str | device | None = None,
                 dtype: dtype | None = None, *, bias: bool = True) -> None:
        Module.__init__(self)
        self._options(eps, momentum, affine, track_running_stats)
        self.num_features = 0
        self._register_state(bias, device,
                             lambda _: UninitializedParameter(device=device, dtype=dtype),
                             lambda _: UninitializedBuffer(device=device, dtype=dtype))

    def reset_running_stats(self) -> None:
        if self.num_features:
            _NormBase.reset_running_stats(self)

    def forward(self, input: Tensor) -> Tensor:
        layer = self._layer  # the class, before the first call makes self one
        if not self.num_features:
            self._check_dims(input)
            self._materialize(input.shape[self._feature_dim(input)])
        return layer.forward(self, input)

    def _materialize(self, num_features: int) -> None:
        """Gives the parameters and buffers their shape (weight ones, bias zeros,
        running_mean zeros, running_var ones); the call then makes this module its
        layer."""
        if num_features < 1:
            raise ValueError(f"{type(self).__name__}: the input's dimension 1 gives "
                             f"num_features, and it is {num_features}")
        if self.affine:
            self.weight.materialize((num_features,))
            self.weight.data.fill_(1.0)
            if self.bias is not None:
                self.bias.materialize((num_features,))
                self.bias.data.zero_()
        for name, fill in (("running_mean", 0.0), ("running_var", 1.0)):
            old = self._buffers.get(name)
            if old is not None:
                self._buffers[name] = _C.full((num_features,), fill, dtype=old.dtype,
                                              device=old.device)
        self.num_features = num_features

    def _lazy_load_check(self, prefix: str, state_dict: Any) -> list[str]:
        """What load_state_dict would find wrong with this layer's entries of
        state_dict: its (C,) tensors must agree on C."""
        if self.num_features:
            return []
        sizes = {}
        for name in ("weight", "bias", "running_mean", "running_var"):
            t = state_dict.get(prefix + name)
            if isinstance(t, _C.Tensor) and getattr(self, name) is not None:
                sizes[name] = tuple(t.shape)
        if any(len(s) != 1 for s in sizes.values()) or len(set(sizes.values())) > 1:
            return [f"size mismatch for the lazy layer '{prefix}': its weight, bias, "
                    f"running_mean and running_var must all have shape (num_features,), got "
                    + ", ".join(f"{k} {v}" for k, v in sizes.items())]
        return []

    def _lazy_load(self, prefix: str, state_dict: Any) -> None:
        for name in ("weight", "running_mean", "bias", "running_var"):
            t = state_dict.get(prefix + name)
            if not self.num_features and isinstance(t, _C.Tensor) and \
                    getattr(self, name) is not None:
                self._materialize(t.shape[0])
                break
        # the running statistics are new tensors, which load_state_dict does not know
        # of: they take their values here (the parameters are the same objects)
        for name in ("running_mean", "running_var"):
            t, own = state_dict.get(prefix + name), self._buffers.get(name)
            if isinstance(t, _C.Tensor) and own is not None and self.num_features:
                own.copy_(t)


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    """A :class:`BatchNorm2d` whose num_features is read from its first input (D2L's
    ``nn.LazyBatchNorm2d()`` after each ``nn.LazyConv2d``): until then its weight and
    bias are :class:`UninitializedParameter` objects and its running statistics
    :class:`UninitializedBuffer` objects; the first forward, or ``load_state_dict``,
    gives them their shape, and the first call makes the module a :class:`BatchNorm2d`,
    as in PyTorch.

    Parameters
    ----------
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`BatchNorm2d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.LazyBatchNorm2d()
    >>> bn.weight
    <UninitializedParameter>
    >>> bn(pydevtensor.ones(2, 3, 4, 4)).shape
    pydevtensor.Size([2, 3, 4, 4])
    >>> bn
    BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _layer = BatchNorm2d


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    """A :class:`BatchNorm1d` whose num_features is read from its first input (D2L's
    ``nn.LazyBatchNorm1d()`` after each ``nn.LazyLinear``), as
    :class:`LazyBatchNorm2d` is a lazy :class:`BatchNorm2d`.

    Parameters
    ----------
    eps, momentum, affine, track_running_stats, device, dtype, bias
        As in :class:`BatchNorm1d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm1d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.LazyBatchNorm1d()
    >>> bn(pydevtensor.ones(4, 5)).shape
    pydevtensor.Size([4, 5])
    >>> bn
    BatchNorm1d(5, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _layer = BatchNorm1d
