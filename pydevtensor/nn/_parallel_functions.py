"""The pieces of single-process data parallelism, with torch.nn.parallel's names:
scatter (and scatter_kwargs), replicate, parallel_apply, gather.  nn.DataParallel
(data_parallel.py) is built from them; D2L 13.5 uses scatter on its own.

Note [data parallel pieces]
- Every copy is ``Tensor.to(device)``, which autograd records (ToCopyBackward: the
  gradient is copied back to the source's device) and which returns the tensor itself
  when it is already on the device.  So scatter's chunk for device_ids[0] is a view of
  the input, replicate's copy for the module's own device is the module's parameter
  itself, and gradients of every replica accumulate, summed, in the original
  parameters' ``.grad``.
- scatter splits a tensor as ``Tensor.chunk`` does: chunks of ceil(n / len(devices))
  along dim, so a batch smaller than the number of devices (or one that chunk
  splits into fewer pieces, 5 over 4 devices: 2, 2, 1) uses fewer devices.
- replicate makes a shallow copy of each module per device (its ``__dict__`` copied,
  its parameters, buffers and children replaced), as PyTorch's replicate does.  A
  buffer is copied with ``.to(device)`` too, so the replica on the module's own device
  holds the module's buffer itself: what that replica changes in place (BatchNorm's
  running statistics) lands in the module; the other replicas' changes are dropped.
  DataParallel runs that replica last, so a replica that raises leaves the module's
  buffers as they were.
- parallel_apply runs the replicas one after another on the calling thread: each op
  is asynchronous on its device, so the devices compute at once anyway.
"""
import contextlib
import warnings
from collections import OrderedDict

from .. import _C

__all__ = ["scatter", "scatter_kwargs", "gather", "replicate", "parallel_apply"]


def _as_device(d, where):
    """A device from an int (CUDA device index), 'cuda:1', 'cpu:1' or a device."""
    if isinstance(d, _C.device):
        return d
    if isinstance(d, bool):
        raise TypeError(f"{where}: expected a device (int, str or pydevtensor.device), got bool")
    if isinstance(d, int):
        if d < 0:
            raise ValueError(f"{where}: a device index must be >= 0, got {d}")
        return _C.device("cuda", d)
    if isinstance(d, str):
        dev = _C.device(d)
        if dev.type == "cuda" and dev.index is None:
            from ..cuda import current_device
            dev = _C.device("cuda", current_device())
        return dev
    raise TypeError(f"{where}: expected a device (int, str or pydevtensor.device), got "
                    f"{type(d).__name__}")


def _devices(devices, where):
    if isinstance(devices, (str, int, _C.device)):
        raise TypeError(f"{where}: expected a list of devices, got {type(devices).__name__}")
    out = [_as_device(d, where) for d in devices]
    if not out:
        raise ValueError(f"{where}: expected at least one device, got none")
    return out


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def scatter(inputs, target_gpus, dim=0):
    """Splits inputs into one piece per device: each Tensor into chunks along dim (as
    ``Tensor.chunk``), each copied to its device (autograd records the copies); tuples,
    lists, dicts and named tuples are split element by element; anything else is
    repeated, once per device.  As ``torch.nn.parallel.scatter``.

    Parameters
    ----------
    inputs : Tensor, or a tuple, list or dict of them
        What to split.
    target_gpus : list of int, str or pydevtensor.device
        The devices (an int is a CUDA device index).
    dim : int, optional
        The dimension to split along (default 0).

    Returns
    -------
    tuple or list
        For a Tensor, a tuple of its chunks, one per device; otherwise a list of the
        containers' pieces.  A batch of n samples over more than n devices (or one
        that chunk splits into fewer pieces) gives fewer pieces (Note [data parallel
        pieces]).

    Raises
    ------
    TypeError, ValueError
        For a target_gpus that is not a list of devices.
    pydevtensor.DeviceError
        For a device that does not exist.

    Examples
    --------
    On two GPUs (D2L 13.5; skipped here):

    >>> from pydevtensor import nn
    >>> data = pydevtensor.arange(20).reshape(4, 5)
    >>> nn.parallel.scatter(data, ['cuda:0', 'cuda:1'])  # doctest: +SKIP
    (tensor([[0, 1, 2, 3, 4],
            [5, 6, 7, 8, 9]], device='cuda:0'), tensor([[10, 11, 12, 13, 14],
            [15, 16, 17, 18, 19]], device='cuda:1'))

    On one device, one piece:

    >>> nn.parallel.scatter((data[:1], 'mode'), ['cpu'])
    [(tensor([[0, 1, 2, 3, 4]]), 'mode')]
    """
    devices = _devices(target_gpus, "scatter")

    def scatter_map(obj):
        if isinstance(obj, _C.Tensor):
            if obj.ndim == 0:
                raise ValueError(f"scatter: cannot split a 0-d tensor (on {obj.device}) along "
                                 f"dim {dim}")
            return tuple(c.to(d) for c, d in zip(obj.chunk(len(devices), dim), devices))
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and obj:
            return [list(piece) for piece in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(piece) for piece in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter of a forward's positional and keyword arguments: as many pieces of each
    as replicas will run, as ``torch.nn.parallel.scatter_kwargs``.

    Parameters
    ----------
    inputs : tuple
        The positional arguments.
    kwargs : dict or None
        The keyword arguments.
    target_gpus : list of int, str or pydevtensor.device
        The devices.
    dim : int, optional
        The dimension to split tensors along (default 0).

    Returns
    -------
    (tuple of tuple, tuple of dict)
        The arguments of each replica.  When both are given, the shorter count wins
        (PyTorch pads the positional ones with empty tuples there, which calls a
        replica with no input); when one is empty, it is padded to the other's count.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.tensor([[1.], [2.]])
    >>> nn.parallel.scatter_kwargs((x,), {'scale': 2}, ['cpu'])
    (((tensor([[1.],
            [2.]]),),), ({'scale': 2},))
    """
    pieces = scatter(inputs, target_gpus, dim) if inputs else []
    kw_pieces = scatter(kwargs, target_gpus, dim) if kwargs else []
    if pieces and kw_pieces:
        n = min(len(pieces), len(kw_pieces))
        pieces, kw_pieces = pieces[:n], kw_pieces[:n]
    pieces = list(pieces) + [() for _ in range(len(kw_pieces) - len(pieces))]
    kw_pieces = list(kw_pieces) + [{} for _ in range(len(pieces) - len(kw_pieces))]
    return tuple(tuple(p) for p in pieces), tuple(kw_pieces)


def gather(outputs, target_device, dim=0):
    """Joins the replicas' outputs on target_device: Tensors are copied there and
    concatenated along dim (autograd records both), tuples, lists, dicts and named
    tuples element by element, None stays None.  As ``torch.nn.parallel.gather``;
    0-d tensors (a loss per replica) become a vector, with a warning.

    Parameters
    ----------
    outputs : list
        One output per replica, all of the same structure.
    target_device : int, str or pydevtensor.device
        Where the result goes (an int is a CUDA device index; -1 is the CPU).
    dim : int, optional
        The dimension to concatenate along (default 0).

    Returns
    -------
    Tensor, tuple, list, dict or None
        The outputs joined, in the structure of one output.

    Raises
    ------
    TypeError
        For outputs other than Tensors, None, or tuples, lists and dicts of them.
    ValueError
        For dicts with different keys.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> parts = [pydevtensor.tensor([[1., 2.]]), pydevtensor.tensor([[3., 4.]])]
    >>> nn.parallel.gather(parts, 'cpu')
    tensor([[1., 2.],
            [3., 4.]])
    >>> nn.parallel.gather([(p, None) for p in parts], -1, dim=1)
    (tensor([[1., 2., 3., 4.]]), None)
    """
    target = _C.device("cpu") if target_device == -1 else _as_device(target_device, "gather")
    outputs = list(outputs)
    if not outputs:
        raise ValueError("gather: expected at least one output, got none")

    def gather_map(outs):
        out = outs[0]
        if isinstance(out, _C.Tensor):
            if not all(isinstance(o, _C.Tensor) for o in outs):
                raise TypeError(f"gather: expected a Tensor from every replica, got "
                                f"{[type(o).__name__ for o in outs]}")
            if all(o.ndim == 0 for o in outs):
                warnings.warn(f"Was asked to gather along dimension {dim}, but all input "
                              f"tensors were scalars; will instead unsqueeze and return a "
                              f"vector.", UserWarning, stacklevel=3)
                outs = [o.reshape(1) for o in outs]
            return _cat([o.to(target) for o in outs], dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(isinstance(d, dict) and d.keys() == out.keys() for d in outs):
                raise ValueError("gather: all dicts must have the same keys, got "
                                 f"{[list(d) if isinstance(d, dict) else type(d).__name__ for d in outs]}")
            return type(out)((k, gather_map([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outs)))
        if isinstance(out, (tuple, list)):
            return type(out)(map(gather_map, zip(*outs)))
        raise TypeError(f"gather: cannot gather outputs of type {type(out).__name__}; a "
                        f"replica must return Tensors, None, or tuples, lists or dicts of them")

    return gather_map(outputs)


def _cat(tensors, dim):
    from .._ops_join import cat
    return cat(tensors, dim)


def replicate(network, devices, detach=False):
    """One copy of network per device, whose forward runs there: parameters and
    buffers copied with ``.to(device)`` (recorded by autograd, so the replicas'
    gradients accumulate in network's parameters; detach=True copies without a graph),
    as ``torch.nn.parallel.replicate``.  The copy on network's own device holds its
    parameters and buffers themselves (Note [data parallel pieces]).

    Parameters
    ----------
    network : nn.Module
        The module, its parameters and buffers on one device.
    devices : list of int, str or pydevtensor.device
        One replica per device.
    detach : bool, optional
        Copy the parameters without recording the copies (default False).

    Returns
    -------
    list of nn.Module
        The replicas, in the order of devices.

    Raises
    ------
    TypeError
        When network is not an nn.Module.
    RuntimeError
        When it has parameters not initialized yet (a Lazy layer before its first
        forward).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Linear(2, 1)
    >>> [r] = nn.parallel.replicate(net, ['cpu'])
    >>> r is net, r.weight is net.weight
    (False, True)
    """
    from .module import Module
    from .parameter import UninitializedParameter
    if not isinstance(network, Module):
        raise TypeError(f"replicate: expected an nn.Module, got {type(network).__name__}")
    devices = _devices(devices, "replicate")
    if any(isinstance(p, UninitializedParameter) for p in network.parameters()):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "DataParallel: run a forward pass on one device first")

    def copy_tensor(t, device):
        return t.detach().to(device) if detach and t.requires_grad else t.to(device)

    def copy_module(module, device, memo):
        if id(module) in memo:
            return memo[id(module)]
        new = type(module).__new__(type(module))
        memo[id(module)] = new
        state = dict(module.__dict__)
        for kind in ("_parameters", "_buffers"):
            table = OrderedDict()
            for name, t in module.__dict__[kind].items():
                if t is not None and id(t) not in memo:
                    memo[id(t)] = copy_tensor(t, device)
                table[name] = None if t is None else memo[id(t)]
            state[kind] = table
        state["_modules"] = OrderedDict(
            (name, None if m is None else copy_module(m, device, memo))
            for name, m in module._modules.items())
        object.__setattr__(new, "__dict__", state)
        for name, t in module._buffers.items():  # what it keeps on the host follows
            if t is not None and state["_buffers"][name] is not t:
                new._buffer_copied(t, state["_buffers"][name])
        return new

    return [copy_module(network, d, {}) for d in devices]


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """Calls modules[i](inputs[i], kwargs_tup[i]) for every i and returns the outputs,
    as ``torch.nn.parallel.parallel_apply`` (one after another here: each op is
    asynchronous on its device).  An input that is not a tuple or list is one
    argument.  An exception in a replica is raised again, of its class, saying which
    replica and device.

    Parameters
    ----------
    modules : list of nn.Module
        The replicas.
    inputs : list
        The positional arguments of each (a tuple or list, or one argument).
    kwargs_tup : list of dict, optional
        The keyword arguments of each.
    devices : list of int, str or pydevtensor.device, optional
        The device of each, made the current CUDA device while it runs (default: the
        device of its first tensor argument).

    Returns
    -------
    list
        The outputs, in order.

    Raises
    ------
    ValueError
        When the lists differ in length.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nets = [nn.Identity(), nn.ReLU()]
    >>> x = pydevtensor.tensor([-1., 2.])
    >>> nn.parallel.parallel_apply(nets, [x, (x,)])
    [tensor([-1.,  2.]), tensor([0., 2.])]
    """
    modules, inputs = list(modules), list(inputs)
    kwargs_tup = [{}] * len(modules) if kwargs_tup is None else list(kwargs_tup)
    devices = [None] * len(modules) if devices is None else list(devices)
    if not len(modules) == len(inputs) == len(kwargs_tup) == len(devices):
        raise ValueError(f"parallel_apply: expected as many inputs, kwargs and devices as "
                         f"modules ({len(modules)}), got {len(inputs)} inputs, "
                         f"{len(kwargs_tup)} kwargs and {len(devices)} devices")
    return _apply(modules, inputs, kwargs_tup, devices, range(len(modules)))


def _apply(modules, inputs, kwargs_tup, devices, order):
    """parallel_apply's loop, running the replicas in the given order; the outputs come
    back in the lists' order."""
    outputs = [None] * len(modules)
    for i in order:
        args, device = inputs[i], devices[i]
        if not isinstance(args, (list, tuple)):
            args = (args,)
        device = (_first_device((args, kwargs_tup[i])) if device is None
                  else _as_device(device, "parallel_apply"))
        try:
            with _current_device(device):
                outputs[i] = modules[i](*args, **kwargs_tup[i])
        except Exception as e:
            err = _in_replica(e, i, device)
            if err is None:
                raise
            try:
                raise err from e
            finally:
                # err's traceback holds this frame: without the del, frame -> err -> its
                # traceback -> frame is a cycle, and the replica's tensors (the caught
                # exception's frames) would wait for the garbage collector, so a retry
                # after an out-of-memory error would fail again
                del err
    return outputs


def _first_device(obj):
    if isinstance(obj, _C.Tensor):
        return obj.device
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        for o in obj:
            d = _first_device(o)
            if d is not None:
                return d
    return None


def _current_device(device):
    if device is None or device.type != "cuda":
        return contextlib.nullcontext()
    from ..cuda import device as cuda_device
    return cuda_device(device)


def _in_replica(e, i, device):
    """An exception of e's class whose message says where e happened (None when the
    class cannot be made from a message: e is raised as it is then)."""
    where = f"in replica {i}" + (f" on device {device}" if device is not None else "")
    try:
        return type(e)(f"Caught {type(e).__name__} {where}: {e}")
    except Exception:
        return None
