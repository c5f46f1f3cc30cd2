"""nn.SyncBatchNorm: PyTorch's batch norm for any (N, C, +) input whose training
statistics are taken over the processes of a group (Note [batch statistics across
processes] in _batchnorm_sync_stats.py).  Within one process (no process group, or a
group of one) it is the batch norm of that process, as PyTorch's falls back to
F.batch_norm."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from . import _functional_norm as FN
from ._batchnorm_sync_stats import group_size, sync_batch_norm
from .module import Module
from .normalization import _BatchNorm, _NormBase

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of (N, C, +) inputs (any number of dimensions from 2), as
    ``torch.nn.SyncBatchNorm``: in training each channel is normalised with the batch's
    mean and biased variance, running_mean and running_var are updated as in
    :class:`BatchNorm1d` (momentum None: a cumulative average), and evaluation uses
    them.

    In training, within an initialised process group of several processes
    (``pydevtensor.distributed``), the mean and variance are those of the inputs of
    every process together (their batches may differ in size, or be empty), and each
    process's input gets its part of the whole batch's gradient; every process must call
    the forward, and the backward, at the same point.  The weight and bias get this
    process's part of their gradient (DistributedDataParallel sums them).  On any
    device the group's backend handles (PyTorch's takes GPUs only).  Otherwise (one
    process, or evaluation) this is the batch norm of this process's input, as PyTorch's.

    Parameters
    ----------
    num_features : int
        C.
    eps, momentum, affine, track_running_stats
        As in :class:`BatchNorm1d`.
    process_group : object, optional
        The group whose processes share the statistics (default None: the whole world;
        or a ``pydevtensor.distributed.new_group()``); kept as ``process_group``.
    device, dtype, bias
        As in :class:`BatchNorm1d`.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm1d`; at forward, when the input has fewer than 2 dimensions,
        no channels or another number of them.
    ValueError
        At a training forward over several processes holding one value per channel in
        all (raised on every process).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bn = nn.SyncBatchNorm(2)
    >>> bn
    SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> x = pydevtensor.tensor([[1., 10.], [3., 30.]]).reshape(2, 2, 1, 1, 1)
    >>> bn(x).detach().flatten()
    tensor([-1.0000, -1.0000,  1.0000,  1.0000])
    >>> bn.running_mean
    tensor([0.2000, 2.0000])
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any | None = None, device: str | device | None = None,
                 dtype: dtype | None = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_dims(self, input: Any) -> None:
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"SyncBatchNorm: input must be a Tensor, got "
                            f"{type(input).__name__}")
        if input.ndim < 2:
            raise ValueError(f"SyncBatchNorm: expected at least 2D input (got {input.ndim}D "
                             f"input of shape {tuple(input.shape)} on {input.device})")
        if input.shape[1] == 0:
            raise ValueError(f"SyncBatchNorm number of input channels should be non-zero "
                             f"(input of shape {tuple(input.shape)} on {input.device})")

    def forward(self, input: Tensor) -> Tensor:
        size = group_size(self.process_group) if self.training else 1
        if size == 1:
            return _NormBase.forward(self, input)
        self._check_input(input, batch=False)  # one value here may be one of many
        FN._check_batch_norm_eps(self.eps, True, type(self).__name__)
        return sync_batch_norm(self, input, self.process_group, size)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module,
                               process_group: Any | None = None) -> Module:
        """Replaces every batch norm layer in module (``BatchNorm1d``, ``BatchNorm2d``,
        ``BatchNorm3d`` and the like) by a :class:`SyncBatchNorm` holding the same
        parameters and buffers, as ``torch.nn.SyncBatchNorm.convert_sync_batchnorm``.

        Parameters
        ----------
        module : Module
            The model; its children are replaced in place.
        process_group : object, optional
            Given to each new layer.

        Returns
        -------
        Module
            module, or a new :class:`SyncBatchNorm` when module itself is a batch norm.

        Raises
        ------
        ValueError
            When a lazy batch norm in module has no num_features yet.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
        >>> weight = net[1].weight
        >>> net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        >>> type(net[1]).__name__, net[1].num_features, net[1].weight is weight
        ('SyncBatchNorm', 4, True)
        """
        out = module
        if isinstance(module, _BatchNorm):
            if not module.num_features:  # PyTorch's made a SyncBatchNorm(0) of placeholders
                raise ValueError(f"SyncBatchNorm.convert_sync_batchnorm(): the lazy layer "
                                 f"{type(module).__name__} has no num_features yet; call the "
                                 f"model once (or load a state dict) before converting it")
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group,
                      bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            if "_host_count" in module.__dict__:  # the count, shared with the buffer
                out._host_count = module.__dict__["_host_count"]
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
