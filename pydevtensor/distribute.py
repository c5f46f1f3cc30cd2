"""pydevtensor.distribute: data-parallel training on several devices of one machine,
after TensorFlow's ``tf.distribute.MirroredStrategy``.

    strategy = distribute.MirroredStrategy(['cpu:0', 'cpu:1'])   # default: try_all_gpus()
    with strategy.scope():
        net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = optim.SGD(net.parameters(), lr=0.1)
    history = strategy.fit(net, X, y, nn.CrossEntropyLoss(), opt, epochs=5, batch_size=256)
    history.history['loss']                                        # one number per epoch

The replicas' machinery (their copies, gradient buckets, the all-reduce's choice and
worker threads) is in _distribute_replicas.py; TensorFlow's calls for custom training
loops (run, reduce, gather, experimental_distribute_dataset, ReduceOp, PerReplica,
get_replica_context and its all_reduce) in
_distribute_values.py (Note [run and reduce]); strategy.extended, the cross-device ops
and get_strategy in _distribute_extended.py; distribute_datasets_from_function and
InputContext in _distribute_input.py.

Note [mirrored training]
- Replicas.  Leaving ``scope()`` moves every model built inside it (in place: the
  Parameter objects stay, so an optimizer made from them keeps working) to the first
  device, and makes one replica per other device: a deep copy of the module tree whose
  parameters are copied there through counted copies.  ``replicas(model)`` lists them,
  the model itself first.  fit() refuses a model built outside the scope.
- One step on a global batch of B samples: the batch is split into N consecutive shards
  of sizes B // N or B // N + 1 (the first B % N replicas take one more); replica i
  copies its shard to its device, runs forward, the loss and ``loss.backward()``
  (autograd; grad mode is per thread and on) on it, each replica on its own thread (the
  C ops release the GIL, so large ones overlap).
- Weighting.  With reduction='mean' (and KLDivLoss's 'batchmean', a mean over the
  samples too) the loss of the global batch is sum_i (n_i / B) * loss_i, so replica i
  back-propagates ``(n_i / B * loss_i)`` (the factor costs one multiplication of a 0-d
  tensor).  The all-reduce then only sums, and the sum is exactly the gradient of the
  mean over the global batch, whatever the shard sizes; a replica with an empty shard
  contributes zeros.  With reduction='sum' the factors are 1.  CrossEntropyLoss and
  NLLLoss with class-index targets divide their mean by the targets' weights (weight=,
  ignore_index), not the batch size: there each replica's loss is summed and divided by
  the global batch's sum of weights (one number read per step), so they train as on
  one device too.  (MultiWorkerMirroredStrategy still weighs each worker by its share
  of the samples, as PyTorch's DDP does.)
- Gradient buckets.  Each replica's gradients live in one flat buffer per dtype, and
  each ``param.grad`` is a view into it (PyTorch DDP's gradient-as-bucket-view), zeroed
  before every step; autograd accumulates into an existing ``.grad`` in place
  (pydevtensor/autograd/node.py, AccumulateGrad), so into the views.  A gradient that
  something replaced rather than accumulated is copied into the view after backward.
- All-reduce, one of two methods chosen once per strategy (``all_reduce_method``):
  'nccl' when every device is a GPU, there are at least 2 of them, they sit on distinct
  physical GPUs (``config``'s logical devices split one GPU into several; NCCL needs one
  rank per GPU) and this build has CUDA and libnccl.so.2 loads; else 'copies'.
  ``MirroredStrategy(devices, all_reduce='copies')`` forces the copies; 'nccl' raises
  when NCCL cannot be used.
  ``cross_device_ops=`` (TensorFlow's ReductionToOneDevice, HierarchicalCopyAllReduce,
  NcclAllReduce) picks one of the two instead (Note [cross-device ops] in
  _distribute_extended.py; ReductionToOneDevice may move the sum to another device).
  'copies': reduce to the first device, then broadcast, through the counted copies.
  For each replica i = 1..N-1 in turn, its bucket is copied to a receive buffer on the
  first device and added to the first replica's bucket (so the sum is
  ((g_0 + g_1) + g_2) + ...); then the sum is copied back into every other replica's
  bucket.  Per step and per dtype bucket of P bytes (the parameters that require a
  gradient): 2 (N - 1) copies, 2 (N - 1) P bytes; on logical CPU devices they are the
  ``peer`` copies of ``transfer_stats()``.
  'nccl': one in-place ncclAllReduce (sum) per dtype bucket over all the replicas'
  buckets, each on its device's stream (``_C._allreduce_sum``); the sum lands on
  every replica directly, with no broadcast and no receive buffer.  A collective is
  not a copy pydevtensor makes (Note [collectives are counted] in
  csrc/core/pdt_collective.h): the ``peer`` counters of ``transfer_stats()`` stay at
  zero for gradients and the transfer guard does not see it; it is counted under
  ``transfer_stats()['collective']`` instead (2 (N - 1) P bytes per bucket, the ring
  all-reduce's).  Only float32 and float64 buckets are supported there.  Several
  processes: MultiWorkerMirroredStrategy (pydevtensor.distributed, docs/multi_node.md).
- Identical replicas.  After the all-reduce every replica holds the same bits (NCCL's
  all-reduce gives every rank the same result; the copies broadcast one sum); each
  applies its own copy of the optimizer (same hyperparameters, state copied from the
  user's optimizer at the start of fit) to the same parameters and gradients with the
  same deterministic element-wise kernels, so the weights stay bitwise identical.  The
  user's optimizer steps the first replica, the model itself.
- Start of each fit: the model's parameters are broadcast to the replicas ((N - 1) times
  their bytes, every parameter), so changes made outside fit (load_state_dict, a step by
  hand) reach the replicas, and the optimizer's state (momentum buffers) is copied to
  each replica's optimizer.
- The loss of each step is read on the host (``.item()`` on each replica's 0-d loss:
  free on the CPU, one small device-to-host copy per replica on a GPU) for the progress
  bar and the history; the history holds, per epoch, the mean of the step losses
  weighted by the batch sizes.
"""
import contextlib
import math
import re
import weakref

from . import _C
from ._devices import try_all_gpus
from . import _distribute_values as _values
from ._distribute_values import (PerReplica, ReduceOp, ReplicaContext, _open_scopes,
                                 get_replica_context)
from ._distribute_replicas import (_ALL_REDUCE_METHODS, _GradBucket, _Runner,
                                   _choose_all_reduce, _replicate, _shard_bounds)
from ._distribute_extended import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce,
                                   ReductionToOneDevice, StrategyExtended,
                                   _cross_device_method, get_strategy, has_strategy,
                                   in_cross_replica_context)
from ._distribute_input import InputContext, distribute_datasets_from_function
from .nn.module import Module, _pop_scope, _push_scope
from .nn.parameter import UninitializedParameter

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "History", "InputContext",
           "MirroredStrategy", "MultiWorkerMirroredStrategy", "NcclAllReduce", "PerReplica",
           "ReduceOp", "ReductionToOneDevice", "ReplicaContext", "StrategyExtended",
           "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context"]


def _as_device(d):
    """A device from a pydevtensor.device, 'cuda:1', 'cpu:1', TensorFlow's '/gpu:0' and
    '/device:GPU:0', or a config.LogicalDevice."""
    if isinstance(d, _C.device):
        return d
    if hasattr(d, "device") and isinstance(getattr(d, "device"), _C.device):
        return d.device
    if isinstance(d, str):
        m = re.fullmatch(r"/?(?:device:)?(cpu|gpu|cuda)(?::(\d+))?", d.strip(), re.IGNORECASE)
        if m:
            kind = "cpu" if m.group(1).lower() == "cpu" else "cuda"
            return _C.device(kind, int(m.group(2) or 0))
        return _C.device(d)
    raise TypeError(f"MirroredStrategy: expected devices (pydevtensor.device, 'cuda:0', "
                    f"'/gpu:0', a LogicalDevice), got {type(d).__name__}")


class History:
    """What fit() returns, as in Keras: ``history.history['loss']`` is the list of
    per-epoch losses, ``history.epoch`` the epoch numbers (from 0).

    Examples
    --------
    >>> pydevtensor.distribute.History()
    History(epoch=[], history={'loss': []})
    """

    def __init__(self):
        self.history = {"loss": []}
        self.epoch = []

    def __repr__(self):
        return f"History(epoch={self.epoch}, history={self.history})"


class MirroredStrategy:
    """Synchronous data parallelism over ``devices`` (default ``try_all_gpus()``: every
    GPU, or the CPU alone); any devices work, logical CPU devices
    (``config.set_logical_device_configuration``) included.  See Note [mirrored
    training] in this module for what happens, and the exact transfer counts.

    Parameters
    ----------
    devices : sequence of devices, optional
        pydevtensor.device, 'cuda:0', '/gpu:0' or config.LogicalDevice objects (default try_all_gpus()).
    cross_device_ops : CrossDeviceOps, optional
        TensorFlow's way of summing gradients: ReductionToOneDevice(reduce_to_device)
        and HierarchicalCopyAllReduce() give the 'copies' all-reduce (the sum taken on
        reduce_to_device, default the first device), NcclAllReduce() gives 'nccl'
        (Note [cross-device ops] in pydevtensor/_distribute_extended.py).  All give the
        same sums up to the order of the additions.
    all_reduce : str, optional
        How gradients are summed: 'auto' (the default), 'nccl' or 'copies'; not with
        cross_device_ops.

    Raises
    ------
    ValueError
        For an empty or repeated device list, an unknown all_reduce, or both
        all_reduce and cross_device_ops.
    TypeError
        For one device rather than a list of them, what is not a device, or a
        cross_device_ops that is not a CrossDeviceOps.
    RuntimeError
        For NcclAllReduce (or all_reduce='nccl') where NCCL cannot run.
    pydevtensor.DeviceError
        For a device that does not exist.

    Examples
    --------
    >>> from pydevtensor import distribute, nn, optim
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> strategy
    MirroredStrategy(devices=['cpu'])
    """

    # one process sees every replica: a parameter no replica used gets no gradient, and
    # a weighted loss's denominator is the global batch's (MultiWorkerMirroredStrategy's
    # workers do not know what the others used or hold)
    _one_process = True

    def __init__(self, devices=None, cross_device_ops=None, all_reduce="auto"):
        if all_reduce not in _ALL_REDUCE_METHODS:
            raise ValueError(f"MirroredStrategy: all_reduce must be one of "
                             f"{list(_ALL_REDUCE_METHODS)}, got {all_reduce!r}")
        if isinstance(devices, (str, _C.device)) or hasattr(devices, "device_type"):
            raise TypeError(f"MirroredStrategy: devices must be a list of devices, got the "
                            f"single device {devices!r}; write devices=[{devices!r}]")
        devices = try_all_gpus() if devices is None else list(devices)
        if not devices:
            raise ValueError("MirroredStrategy needs at least one device, got an empty list")
        self._devices = tuple(_as_device(d) for d in devices)
        if len(set(map(str, self._devices))) != len(self._devices):
            raise ValueError(f"MirroredStrategy: each device may appear once, got "
                             f"{[str(d) for d in self._devices]}")
        for d in self._devices:
            _C._check_device(d)  # an unknown device raises here, naming the ones there are
        method, self._reduce_device = _cross_device_method(cross_device_ops, all_reduce,
                                                           self._devices)
        self._all_reduce_method = _choose_all_reduce(
            self._devices, method, label=(f"cross_device_ops={cross_device_ops!r}"
                                          if cross_device_ops is not None else None))
        names = [str(d) for d in self._devices]  # the replica taking the sums, or None
        where = str(self._reduce_device)
        self._root = names.index(where) if where in names else None
        self._models = weakref.WeakSet()  # those built in scope(), for extended
        self._extended = StrategyExtended(self)

    @property
    def devices(self):
        """The devices, one replica on each, in order.

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> strategy.devices
        (device(type='cpu'),)
        """
        return self._devices

    @property
    def all_reduce_method(self):
        """How gradients are summed: 'nccl' or 'copies' (Note [mirrored training]).

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> strategy.all_reduce_method
        'copies'
        """
        return self._all_reduce_method

    @property
    def num_replicas_in_sync(self):
        """The number of replicas: one per device.

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> strategy.num_replicas_in_sync
        1
        """
        return len(self._devices)

    @property
    def extended(self):
        """The strategy's StrategyExtended (TensorFlow's ``strategy.extended``): its
        worker and parameter devices, the variables it owns, reduce_to.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.MirroredStrategy(['cpu']).extended.parameter_devices
        ('cpu',)
        """
        return self._extended

    def __repr__(self):
        return f"MirroredStrategy(devices={[str(d) for d in self._devices]})"

    # ---- TensorFlow's calls for custom training loops (Note [run and reduce]) ----
    run = _values.run
    distribute_datasets_from_function = distribute_datasets_from_function
    reduce = _values.reduce
    gather = _values.gather
    experimental_local_results = _values.experimental_local_results
    experimental_distribute_dataset = _values.experimental_distribute_dataset

    # ---- building models ----
    @contextlib.contextmanager
    def scope(self):
        """Models built inside are moved to the first device and replicated to the
        others when the block ends (Note [mirrored training]).

        Returns
        -------
        contextlib.AbstractContextManager
            Gives the strategy on entry.

        Raises
        ------
        RuntimeError
            Inside the open scope of another strategy (as TensorFlow's "Mixing different
            tf.distribute.Strategy objects"); this strategy's scope may be nested.

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> with strategy.scope():
        ...     net = nn.Sequential(nn.Linear(2, 1))
        >>> strategy.replicas(net)[0] is net
        True
        """
        for other in _open_scopes():
            if other is not self:  # which strategy would the model's replicas follow?
                raise RuntimeError(f"Mixing different distribute strategies: {self} is "
                                   f"entered inside the scope of {other}; build each "
                                   f"model in one strategy's scope only")
        built = []
        owner = _ScopeOwner(built, self)
        _push_scope(owner)
        try:
            yield self
        finally:
            _pop_scope(owner)
        self._adopt(built)

    def _adopt(self, built):
        inner = {id(c) for m in built for c in m.modules() if c is not m}
        for m in built:
            if id(m) in inner or m.__dict__.get("_pdt_strategy") is not None:
                continue
            m.to(self._devices[0])
            replicas = [m] + [_replicate(m, d, {}) for d in self._devices[1:]]
            object.__setattr__(m, "_pdt_strategy", self)
            object.__setattr__(m, "_pdt_replicas", replicas)
            self._models.add(m)

    def replicas(self, model):
        """The model's replicas, one per device in order; the model itself first.

        Parameters
        ----------
        model : nn.Module
            A model built inside scope().

        Returns
        -------
        list of nn.Module

        Raises
        ------
        ValueError
            For a model built outside this strategy's scope.
        RuntimeError
            When the model's parameters changed after it was replicated.

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> with strategy.scope():
        ...     net = nn.Sequential(nn.Linear(2, 1))
        >>> len(strategy.replicas(net))
        1
        """
        owner = model.__dict__.get("_pdt_strategy") if isinstance(model, Module) else None
        if owner is not self:
            what = (f"a {type(model).__name__}, not an nn.Module" if not isinstance(model, Module)
                    else "a model built outside strategy.scope()" if owner is None
                    else f"a model built in the scope of another strategy ({owner})")
            raise ValueError(f"MirroredStrategy: got {what}; build the model inside "
                             f"`with strategy.scope():` so that it is replicated to "
                             f"{[str(d) for d in self._devices]}")
        replicas = model.__dict__["_pdt_replicas"]
        lazy = [n for n, p in model.named_parameters() if isinstance(p, UninitializedParameter)]
        if lazy:
            raise ValueError(f"MirroredStrategy: the model's parameter '{lazy[0]}' is not "
                             f"initialized yet (a lazy layer such as nn.LazyLinear): run the "
                             f"model once on a batch, e.g. model(X[:1]), before training it")
        if any(isinstance(p, UninitializedParameter) for r in replicas[1:]
               for p in r.parameters()):  # replicated before its first forward: again
            replicas[1:] = [_replicate(model, d, {}) for d in self._devices[1:]]
        shapes = [tuple(p.shape) for p in model.parameters()]
        for r in replicas[1:]:
            if [tuple(p.shape) for p in r.parameters()] != shapes:
                raise RuntimeError("MirroredStrategy: the model's parameters changed after it "
                                   "was replicated (a layer added or replaced outside the "
                                   "scope); build the whole model inside strategy.scope()")
        return list(replicas)

    # ---- training ----
    def fit(self, model, X, y, loss, optimizer, epochs=1, batch_size=32, verbose=1):
        """Trains model on (X, y) for epochs passes in order (no shuffling), each global
        batch of batch_size samples split across the replicas; returns a History whose
        ``history['loss']`` has one loss per epoch.  verbose=1 shows a progress bar per
        epoch with the running loss (when tqdm is installed), verbose=0 none.  The
        replicas are put in training mode (``train()``) and stay in it.

        Parameters
        ----------
        model : nn.Module
            Built inside scope().
        X, y : Tensor or array
            The samples and targets, first dimension the samples.
        loss : callable
            loss(prediction, target), e.g. nn.MSELoss().
        optimizer : optim.Optimizer
            Over model.parameters().
        epochs : int, optional
            Default 1.
        batch_size : int or None, optional
            The global batch (default 32; None means 32, as in Keras).
        verbose : {0, 1}, optional
            Progress bars (default 1).

        Returns
        -------
        History

        Raises
        ------
        ValueError
            When X and y do not fit, or for a bad epochs or batch_size.

        Examples
        --------
        >>> from pydevtensor import distribute, nn, optim
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> with strategy.scope():
        ...     net = nn.Sequential(nn.Linear(2, 1))
        >>> X, y = pydevtensor.ones(8, 2), pydevtensor.ones(8, 1)
        >>> opt = optim.SGD(net.parameters(), lr=0.1)
        >>> history = strategy.fit(net, X, y, nn.MSELoss(), opt, epochs=2, batch_size=4, verbose=0)
        >>> history.epoch, len(history.history['loss'])
        ([0, 1], 2)
        """
        replicas = self.replicas(model)
        X, y = _as_tensor(X, "X"), _as_tensor(y, "y")
        n = len(replicas)
        epochs = _positive_int(epochs, "epochs", zero_ok=True)
        batch_size = _positive_int(32 if batch_size is None else batch_size, "batch_size")
        if X.ndim == 0 or y.ndim == 0:
            raise ValueError("fit(): X and y need a first dimension of samples")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"fit(): X has {X.shape[0]} samples but y has {y.shape[0]}; they "
                             f"must have the same length")
        if X.shape[0] == 0:
            raise ValueError("fit(): X and y hold no samples")
        if batch_size < n:
            raise ValueError(f"fit(): batch_size {batch_size} is smaller than the number of "
                             f"replicas ({n}, on {[str(d) for d in self._devices]}): every "
                             f"replica needs at least one sample of each global batch")
        if not isinstance(loss, Module):
            raise TypeError(f"fit(): loss must be an nn loss module such as nn.MSELoss(), got "
                            f"{type(loss).__name__}")
        reduction = getattr(loss, "reduction", "mean")
        if reduction not in ("mean", "sum", "batchmean"):
            raise ValueError(f"fit(): the loss's reduction must be 'mean', 'sum' or (KLDivLoss) "
                             f"'batchmean', got {reduction!r}")
        if reduction == "batchmean":  # a mean over the samples too: weighted as 'mean'
            reduction = "mean"
        optimizers = self._replica_optimizers(model, replicas, optimizer)
        self._broadcast_parameters(replicas)
        losses = [loss] + [_replicate(loss, d, {}) for d in self._devices[1:]]
        if reduction == "mean" and self._one_process and _weighted_mean(loss):
            # the mean's denominator is the global batch's (Note [mirrored training]):
            # each replica's loss summed, divided by the sum of the shards' weights
            losses = [_summing(lo) for lo in losses]
            reduction = ("weighted", loss)
        buckets = [_GradBucket(r, d, f"replica {i} ({type(r).__name__})")
                   for i, (r, d) in enumerate(zip(replicas, self._devices))]
        if self._all_reduce_method == "nccl":
            for f in buckets[0].flats:
                if f.dtype not in (_C.float32, _C.float64):
                    raise TypeError(f"fit(): the NCCL all-reduce sums float32 and float64 "
                                    f"gradients, got {f.dtype}; use MirroredStrategy(..., "
                                    f"all_reduce='copies')")
            receive = None
        else:  # per bucket: a receive buffer, and the sum's when no replica takes it
            receive = [tuple(_C.empty(f.numel(), dtype=f.dtype, device=self._reduce_device)
                             if k == 0 or self._root is None else None for k in range(2))
                       for f in buckets[0].flats]
        for r in replicas:
            r.train()

        run = _Runner(n)
        history = History()
        total = X.shape[0]
        steps = math.ceil(total / batch_size)
        try:
            for epoch in range(epochs):
                bar = _progress_bar(steps, f"Epoch {epoch + 1}/{epochs}") if verbose else None
                weighted = 0.0
                for start in range(0, total, batch_size):
                    stop = min(start + batch_size, total)
                    step_loss = self._step(X, y, start, stop, replicas, losses, buckets,
                                           receive, optimizers, reduction, run)
                    weighted += step_loss * (stop - start)
                    if bar is not None:
                        bar.set_postfix(loss=f"{weighted / stop:.4f}", refresh=False)
                        bar.update(1)
                if bar is not None:
                    bar.close()
                history.epoch.append(epoch)
                history.history["loss"].append(weighted / total)
        finally:
            run.close()
            for b in buckets:
                b.release()
        return history

    def _step(self, X, y, start, stop, replicas, losses, buckets, receive, optimizers,
              reduction, run):
        """One synchronous step on X[start:stop]; returns the global batch's loss."""
        size = stop - start
        bounds = _shard_bounds(start, size, len(replicas))
        sizes = [hi - lo for lo, hi in zip(bounds, bounds[1:])]

        denominator = None
        if isinstance(reduction, tuple):  # CrossEntropyLoss/NLLLoss with weights
            denominator = _target_weight(reduction[1], y[start:stop])
            if denominator == 0:
                denominator = math.nan  # as the loss of a batch with every target ignored

        def forward_backward(i):
            buckets[i].zero()
            if sizes[i] == 0:
                return None
            device = self._devices[i]
            xs = X[bounds[i]:bounds[i + 1]].to(device)
            ys = y[bounds[i]:bounds[i + 1]].to(device)
            out = losses[i](replicas[i](xs), ys)
            if denominator is not None:
                weight = 1.0 / denominator
            else:
                weight = sizes[i] / size if reduction == "mean" else 1.0
            (out * weight if weight != 1.0 else out).backward()
            buckets[i].collect()
            return out, weight

        results = run(forward_backward)
        self._all_reduce(buckets, receive)
        if self._one_process and len(buckets[0].used) < len(buckets[0].params):
            unused = [k for k, p in enumerate(buckets[0].params)
                      if not any(id(b.params[k]) in b.used for b in buckets)]
            for b in buckets:  # as on one device: no gradient, the optimizer skips it
                for k in unused:
                    b.params[k].grad = None
        run(lambda i: optimizers[i].step())
        return sum(w * out.item() for out, w in filter(None, results))

    def _all_reduce(self, buckets, receive):
        """'nccl': one in-place NCCL all-reduce per bucket.  'copies': sum into the
        buckets of the replica on the reduce device (the first one, unless
        ReductionToOneDevice chose another), then copy the sum to the others (Note
        [mirrored training]: 2 (N - 1) counted copies of each bucket; 2 N when the
        reduce device is no replica's and the sum goes to a buffer there)."""
        if self._all_reduce_method == "nccl":
            for k in range(len(buckets[0].flats)):
                _C._allreduce_sum([b.flats[k] for b in buckets])
            return
        root = self._root
        for k, (buf, total) in enumerate(receive):
            sources = [b.flats[k] for i, b in enumerate(buckets) if i != root]
            if total is None:
                total = buckets[root].flats[k]
            else:
                total.copy_(sources.pop(0))
            for src in sources:  # in replica order: ((g_r + g_0) + g_1) ...
                buf.copy_(src)
                total.add_(buf)
            for i, b in enumerate(buckets):
                if i != root:
                    b.flats[k].copy_(total)

    def _broadcast_parameters(self, replicas):
        source = list(replicas[0].parameters())
        for r in replicas[1:]:
            for p, q in zip(source, r.parameters()):
                q.detach().copy_(p)

    def _replica_optimizers(self, model, replicas, optimizer):
        if not hasattr(optimizer, "step") or not hasattr(optimizer, "_replica"):
            raise TypeError(f"fit(): optimizer must be a pydevtensor.optim optimizer, got "
                            f"{type(optimizer).__name__}")
        mine = list(model.parameters())
        known = {id(p) for p in mine}
        for g in optimizer.param_groups:
            for p in g["params"]:
                if id(p) not in known:
                    raise ValueError(f"fit(): the optimizer holds a parameter (shape "
                                     f"{tuple(p.shape)} on {p.device}) that is not one of the "
                                     f"model's; build it from model.parameters()")
        result = [optimizer]
        for r in replicas[1:]:
            mapping = {id(p): q for p, q in zip(mine, r.parameters())}
            result.append(optimizer._replica(mapping))
        return result


class MultiWorkerMirroredStrategy(MirroredStrategy):
    """MirroredStrategy across the processes of pydevtensor.distributed (TensorFlow's
    name): each process (worker) holds replicas on its own ``devices`` (default: its
    GPUs, or the CPU), and fit() trains on global batches of batch_size samples split
    first across the workers by rank, then across each worker's replicas.  Every worker
    calls fit() with the same data.  Starts the default process group ('mpi') when
    none is initialized.

    One step: the worker's replicas sum their gradients as in MirroredStrategy (Note
    [mirrored training]), weighted by their share of the worker's shard; the first
    replica's buckets are scaled by the shard's share of the global batch and summed
    across workers (pydevtensor.distributed.all_reduce, in place, one call per bucket),
    then copied to the worker's other replicas.  Every worker ends with the same bits,
    so the weights stay identical everywhere; the parameters are broadcast from rank 0
    at the start of each fit().  The loss in the history is the global batch's.

    Parameters
    ----------
    devices : sequence of devices, optional
        This worker's devices (default: its GPUs, or the CPU).
    all_reduce : str, optional
        How the worker's replicas sum their gradients: 'auto' (the default), 'nccl' or 'copies'.

    Examples
    --------
    Under an MPI launcher with pydevtensor.distributed (skipped here: it needs one):

    >>> from pydevtensor import distribute, nn  # doctest: +SKIP
    >>> strategy = distribute.MultiWorkerMirroredStrategy()  # doctest: +SKIP
    >>> with strategy.scope():  # doctest: +SKIP
    ...     net = nn.Sequential(nn.Linear(20, 1))
    """

    _one_process = False

    def __init__(self, devices=None, all_reduce="auto"):
        super().__init__(devices, all_reduce=all_reduce)
        from . import distributed as dist
        if not dist.is_initialized():
            dist.init_process_group("mpi")
        self._dist = dist
        self._share = 1.0

    @property
    def num_replicas_in_sync(self):
        return len(self._devices) * self._dist.get_world_size()

    def __repr__(self):
        return (f"MultiWorkerMirroredStrategy(rank={self._dist.get_rank()}, world_size="
                f"{self._dist.get_world_size()}, devices={[str(d) for d in self._devices]})")

    def fit(self, model, X, y, loss, optimizer, epochs=1, batch_size=32, verbose=1):
        need = self.num_replicas_in_sync
        batch_size = 32 if batch_size is None else batch_size
        if isinstance(batch_size, int) and not isinstance(batch_size, bool) and \
                0 < batch_size < need:
            raise ValueError(f"fit(): batch_size {batch_size} is smaller than the number of "
                             f"replicas in sync ({need}: {len(self._devices)} per worker, "
                             f"{self._dist.get_world_size()} workers)")
        return super().fit(model, X, y, loss, optimizer, epochs, batch_size,
                           verbose if self._dist.get_rank() == 0 else 0)

    def _step(self, X, y, start, stop, *rest):
        W, r = self._dist.get_world_size(), self._dist.get_rank()
        size = stop - start
        lo, hi = _shard_bounds(start, size, W)[r:r + 2]
        reduction = rest[-2]
        self._share = (hi - lo) / size if reduction == "mean" else 1.0
        # an empty shard still takes part: zero gradients into the all-reduce
        local = super()._step(X, y, lo, hi, *rest)
        total = _C.tensor([local * self._share], dtype=_C.float64)
        self._dist.all_reduce(total)  # the global batch's loss, for the history
        return total.item()

    def _all_reduce(self, buckets, receive):
        super()._all_reduce(buckets, receive)
        for k, flat in enumerate(buckets[0].flats):
            if self._share != 1.0:
                flat.mul_(self._share)
            self._dist.all_reduce(flat)
            for b in buckets[1:]:
                b.flats[k].copy_(flat)

    def _broadcast_parameters(self, replicas):
        for p in replicas[0].parameters():
            self._dist.broadcast(p.data, src=0)
        super()._broadcast_parameters(replicas)


class _ScopeOwner:
    """What nn.Module.__init__ reports new modules to while a scope is open."""

    def __init__(self, built, strategy):
        self._built = built
        self.strategy = strategy

    def _track(self, module):
        self._built.append(module)


def _progress_bar(steps, desc):
    """A tqdm bar, or None when tqdm is not installed (it is optional, and imported
    here rather than with pydevtensor, which keeps the import fast)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=steps, desc=desc, unit="step", leave=True)


def _as_tensor(a, name):
    if isinstance(a, _C.Tensor):
        return a
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        np = None
    if np is not None and isinstance(a, np.ndarray):
        return _C.from_numpy(np.ascontiguousarray(a))
    raise TypeError(f"fit(): {name} must be a Tensor or a NumPy array, got {type(a).__name__}")


def _positive_int(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"fit(): {name} must be an int, got {type(v).__name__}")
    if v < (0 if zero_ok else 1):
        raise ValueError(f"fit(): {name} must be {'>= 0' if zero_ok else '>= 1'}, got {v}")
    return v


def _weighted_mean(loss):
    """Whether loss's 'mean' divides by the targets' weights rather than the batch size:
    CrossEntropyLoss and NLLLoss with class indices divide by the sum of weight[target]
    over the targets not ignored (so a shard's mean is not its share of the batch's)."""
    from .nn import CrossEntropyLoss, NLLLoss
    return isinstance(loss, (CrossEntropyLoss, NLLLoss))


def _summing(loss):
    """A shallow copy of loss with reduction='sum' (its weight shared)."""
    import copy
    out = copy.copy(loss)
    out.reduction = "sum"
    return out


def _target_weight(loss, targets):
    """The denominator of loss's 'mean' over targets: the sum of weight[t] (1 without
    weights) over the class-index targets t that are not ignore_index; the batch size
    for targets that are probabilities.  One number read back."""
    if targets.is_floating_point():
        return float(targets.shape[0])
    kept = targets != getattr(loss, "ignore_index", -100)
    w = getattr(loss, "weight", None)
    if w is None:
        return float(kept.sum().item())
    safe = targets.where(kept, 0).to(w.device)
    return float((w[safe] * kept.to(w.device).to(w.dtype)).sum().item())


class _DefaultStrategy(MirroredStrategy):
    """What get_strategy() gives outside every scope and run (TensorFlow's default
    strategy): one replica on the default device; scope() moves nothing."""

    _all_reduce_method = "copies"
    _root = 0

    def __init__(self):
        self._models = weakref.WeakSet()
        self._extended = StrategyExtended(self)

    @property
    def _devices(self):
        from ._devices import get_default_device
        return (get_default_device(),)

    @property
    def _reduce_device(self):
        return self._devices[0]

    @contextlib.contextmanager
    def scope(self):
        yield self

    def replicas(self, model):
        return [model]

    def __repr__(self):
        return f"DefaultStrategy(devices={[str(d) for d in self._devices]})"


_DEFAULT = []


def _default_strategy():
    if not _DEFAULT:
        _DEFAULT.append(_DefaultStrategy())
    return _DEFAULT[0]
