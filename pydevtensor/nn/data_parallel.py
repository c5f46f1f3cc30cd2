"""nn.DataParallel: one process, several devices; each forward splits the batch across
the devices, runs a replica of the module on each piece and joins the outputs
(D2L 13.6).  Built from the pieces in _parallel_functions.py (Note [data parallel
pieces] there)."""
from .. import _C
from ._parallel_functions import _apply, _as_device, gather, replicate, scatter_kwargs
from .module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Runs module on several devices of one process, as ``torch.nn.DataParallel``:
    each forward splits its tensor arguments along dim (``nn.parallel.scatter``, as
    ``Tensor.chunk``), replicates the module onto each device that gets a piece, runs
    the replicas and concatenates their outputs on output_device.  The copies are
    recorded by autograd, so ``loss.backward()`` leaves the sum of the replicas'
    gradients in the module's own parameters, where an optimizer of
    ``net.parameters()`` finds them.

    The module's parameters and buffers must be on device_ids[0].  Buffers are copied
    to the replicas at each forward; the replica on device_ids[0] holds the module's
    own buffers, so in training BatchNorm's running statistics follow the first piece
    of each batch (as in PyTorch), the others' updates are dropped.

    Parameters
    ----------
    module : nn.Module
        The module to run in parallel (available as ``.module``; ``state_dict()``
        keys start with ``module.``).
    device_ids : list of int, str or pydevtensor.device, optional
        The devices, CUDA device indices as ints (default: every CUDA device; with
        none, forward just calls the module).  Logical CPU devices ('cpu:0',
        'cpu:1', from ``config.set_logical_device_configuration``) may be given too,
        all of one kind.
    output_device : int, str or pydevtensor.device, optional
        Where outputs are gathered (default device_ids[0]; -1 is the CPU).
    dim : int, optional
        The dimension inputs are split and outputs joined along (default 0).

    Raises
    ------
    TypeError
        When module is not an nn.Module or a device is not a device.
    ValueError
        For device_ids of two kinds, or a device given twice.
    pydevtensor.DeviceError
        For a device that does not exist; at forward, a RuntimeError when a
        parameter or buffer is not on device_ids[0], naming both devices.

    Examples
    --------
    Without a GPU, the module is just called:

    >>> from pydevtensor import nn
    >>> net = nn.DataParallel(nn.Linear(3, 1), device_ids=[] if
    ...                       not pydevtensor.cuda.is_available() else None)
    >>> net(pydevtensor.ones(4, 3)).shape
    pydevtensor.Size([4, 1])
    >>> list(net.state_dict())
    ['module.weight', 'module.bias']

    On two GPUs (skipped here), D2L 13.6's way:

    >>> net = nn.DataParallel(nn.Linear(3, 1).to('cuda:0'), device_ids=[0, 1])  # doctest: +SKIP
    >>> net(pydevtensor.ones(4, 3, device='cuda:0')).device  # doctest: +SKIP
    device(type='cuda', index=0)
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: expected an nn.Module, got {type(module).__name__}")
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"DataParallel: dim must be an int, got {type(dim).__name__}")
        self.module = module
        self.dim = dim
        devices, out = _resolve_devices(device_ids, output_device, "DataParallel")
        if not devices:
            self.device_ids, self.output_device, self.src_device_obj = [], None, None
            object.__setattr__(self, "_devices", [])
            return
        object.__setattr__(self, "_devices", devices)
        self.src_device_obj = devices[0]
        if devices[0].type == "cuda":  # PyTorch's: CUDA device indices as ints
            self.device_ids = [d.index for d in devices]
            self.output_device = out.index if out.type == "cuda" else -1
        else:
            self.device_ids = list(devices)
            self.output_device = out
        object.__setattr__(self, "_output_device", out)
        if len(devices) == 1:
            module.to(devices[0])

    def forward(self, *inputs, **kwargs):
        if not self._devices:
            return self.module(*inputs, **kwargs)
        return _run(self.module, inputs, kwargs, self._devices, self._output_device, self.dim)


def _resolve_devices(device_ids, output_device, where):
    """(devices, output device) from PyTorch's device_ids and output_device: every CUDA
    device by default ([] without CUDA); one kind of device, each once, each there."""
    if device_ids is None:
        device_ids = list(range(_cuda_device_count()))
    devices = [_as_device(d, where) for d in device_ids]
    if not devices:
        return [], None
    kinds = {d.type for d in devices}
    if len(kinds) > 1:
        raise ValueError(f"{where}: device_ids must all be of one kind, got "
                         f"{[str(d) for d in devices]}")
    devices = [d if d.index is not None else _C.device(d.type, 0) for d in devices]
    if len(set(map(str, devices))) != len(devices):
        raise ValueError(f"{where}: each device may appear once in device_ids, got "
                         f"{[str(d) for d in devices]}")
    for d in devices:
        _C._check_device(d)  # an unknown device raises here, naming the ones there are
    if output_device is None:
        out = devices[0]
    elif output_device == -1:
        out = _C.device("cpu")
    else:
        out = _as_device(output_device, where)
        _C._check_device(out)
    return devices, out


def _run(module, inputs, kwargs, devices, output_device, dim):
    """One data-parallel call of module: the arguments scattered over devices, the
    module replicated onto those that get a piece, the replicas run, their outputs
    gathered on output_device."""
    src = devices[0]
    for kind, named in (("parameter", module.named_parameters()),
                        ("buffer", module.named_buffers())):
        for name, t in named:
            if t.device != src:
                err = _C.DeviceError(
                    f"module must have its parameters and buffers on device {src} "
                    f"(device_ids[0]) but found one of them on device: {t.device} "
                    f"({kind} '{name}'); move the module with .to('{src}')")
                err._pdt_layer = True  # named already: Module.__call__ adds nothing
                raise err
    inputs, kwargs = scatter_kwargs(inputs, kwargs, devices, dim)
    if not inputs and not kwargs:  # no arguments: one call on device_ids[0]
        inputs, kwargs = ((),), ({},)
    if len(devices) == 1:
        return module(*inputs[0], **kwargs[0])
    devices = devices[:len(inputs)]
    replicas = replicate(module, devices, detach=not _grad_enabled())
    # the replica holding the module's own buffers runs last: a replica that raises
    # leaves the module's running statistics as they were
    outputs = _apply(replicas, inputs, kwargs, devices, list(range(1, len(devices))) + [0])
    return gather(outputs, output_device, dim=dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """One call of module on several devices, as ``torch.nn.parallel.data_parallel``
    (the functional form of DataParallel, which see): inputs (and module_kwargs) are
    split along dim over the devices, module is replicated onto each device that gets
    a piece, and the outputs are joined on output_device.  Autograd records the
    copies, so a backward sums the replicas' gradients into module's parameters.
    Unlike DataParallel, one device does not move the module.

    Parameters
    ----------
    module : nn.Module
        The module, its parameters and buffers on device_ids[0].
    inputs : Tensor or tuple
        The positional arguments (a single one need not be in a tuple).
    device_ids : list of int, str or pydevtensor.device, optional
        The devices (default: every CUDA device; with none, module is just called).
    output_device : int, str or pydevtensor.device, optional
        Where outputs are gathered (default device_ids[0]; -1 is the CPU).
    dim : int, optional
        The dimension inputs are split and outputs joined along (default 0).
    module_kwargs : dict, optional
        Keyword arguments, split as inputs are.

    Returns
    -------
    The module's output, gathered.

    Raises
    ------
    TypeError
        When module is not an nn.Module or a device is not a device.
    ValueError
        For device_ids of two kinds, or a device given twice.
    RuntimeError
        When a parameter or buffer is not on device_ids[0] (a pydevtensor.DeviceError,
        naming both devices).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> out = nn.parallel.data_parallel(nn.Linear(3, 1), pydevtensor.ones(4, 3),
    ...                                 device_ids=['cpu'])
    >>> out.shape
    pydevtensor.Size([4, 1])
    """
    where = "data_parallel()"
    if not isinstance(module, Module):
        raise TypeError(f"{where}: expected an nn.Module, got {type(module).__name__}")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{where}: dim must be an int, got {type(dim).__name__}")
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    kwargs = {} if module_kwargs is None else module_kwargs
    devices, out = _resolve_devices(device_ids, output_device, where)
    if not devices:
        return module(*inputs, **kwargs)
    return _run(module, inputs, kwargs, devices, out, dim)


def _cuda_device_count():
    from .. import cuda
    return cuda.device_count() if cuda.is_available() else 0


def _grad_enabled():
    from ..autograd import is_grad_enabled
    return is_grad_enabled()
