"""TensorFlow's names around a strategy: ``strategy.extended`` (StrategyExtended), the
cross-device ops ``MirroredStrategy(cross_device_ops=...)`` takes (ReductionToOneDevice,
HierarchicalCopyAllReduce, NcclAllReduce), and the current strategy (get_strategy,
has_strategy, in_cross_replica_context).

Note [cross-device ops]
- TensorFlow's three ways of summing gradients map onto MirroredStrategy's two
  all-reduce methods (Note [mirrored training] in pydevtensor/distribute.py):
  ReductionToOneDevice(reduce_to_device) is 'copies' with the sum taken on
  reduce_to_device (default: the first replica's device): every other replica's
  bucket is copied there and added, then the sum is copied back to every replica (on a
  device that is not a replica's, the sum goes to a buffer there, and every replica's
  bucket travels both ways: 2 N copies instead of 2 (N - 1)).
  HierarchicalCopyAllReduce is 'copies' on the first device (TensorFlow's two-level
  copy tree is a shape for 8 GPUs of a DGX-1; with one level it is the reduction to one
  device).  NcclAllReduce is 'nccl' on GPUs, refused as all_reduce='nccl' is where NCCL
  cannot run there (logical devices of one GPU, no libnccl.so.2); with one device, or a
  device that is not a GPU, it is 'copies' to the first device, as TensorFlow's
  NcclAllReduce falls back to ReductionToOneDevice when a device is a CPU.  num_packs
  is accepted and checked: the gradients are always packed into one bucket per dtype.
  All give the same sums up to the order of the additions (bitwise the same on every
  replica, whichever is used).
- The current strategy: inside ``strategy.run`` the replica's strategy; inside a
  strategy's ``scope()`` that strategy (the cross-replica context); elsewhere a default
  strategy of one replica on the default device, whose scope() moves nothing, as
  TensorFlow's ``tf.distribute.get_strategy()``.
"""
import contextlib

from . import _C
from ._distribute_values import (_multiworker_check, _open_scopes, _reduce_values,
                                 _reduce_op, _replica, get_replica_context, PerReplica)
from .nn.module import _scopes

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce",
           "ReductionToOneDevice", "StrategyExtended", "get_strategy", "has_strategy",
           "in_cross_replica_context"]


class CrossDeviceOps:
    """Base class of the ways MirroredStrategy sums the replicas' gradients
    (TensorFlow's ``tf.distribute.CrossDeviceOps``); Note [cross-device ops] in
    pydevtensor/_distribute_extended.py.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> isinstance(distribute.NcclAllReduce(), distribute.CrossDeviceOps)
    True
    """

    _method = None  # 'copies' or 'nccl'

    def _reduce_device(self, devices):
        return devices[0]


class _Packed(CrossDeviceOps):
    """An all-reduce taking TensorFlow's num_packs (checked, then unused: one bucket per
    dtype); _name is how TensorFlow's errors call it."""

    _name = None

    def __init__(self, num_packs=1):
        if isinstance(num_packs, bool) or not isinstance(num_packs, int):
            raise TypeError(f"{self._name}: num_packs must be an int, got "
                            f"{type(num_packs).__name__}")
        if num_packs < 0:
            raise ValueError(f"{self._name} requires num_packs >= 0, but {num_packs} is "
                             f"specified.")
        self.num_packs = num_packs

    def __repr__(self):
        return f"{type(self).__name__}(num_packs={self.num_packs})"


class ReductionToOneDevice(CrossDeviceOps):
    """Sums the replicas' gradients on one device and copies the sum back to each
    replica (TensorFlow's ``tf.distribute.ReductionToOneDevice``): MirroredStrategy's
    'copies' all-reduce taking the sum on reduce_to_device.  The same sums as the
    other CrossDeviceOps up to the order of the additions.

    Parameters
    ----------
    reduce_to_device : pydevtensor.device or str, optional
        Where the sum is taken ('cpu:0', '/gpu:1', a pydevtensor.device); default the
        strategy's first device.
    accumulation_fn : None
        Only None (the buckets are added in place); another function is refused.

    Raises
    ------
    NotImplementedError
        For an accumulation_fn.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> ops = distribute.ReductionToOneDevice(reduce_to_device='cpu:0')
    >>> distribute.MirroredStrategy(['cpu'], cross_device_ops=ops).all_reduce_method
    'copies'
    """

    _method = "copies"

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        if accumulation_fn is not None:
            raise NotImplementedError("ReductionToOneDevice: accumulation_fn is not "
                                      "supported; the replicas' buckets are added in place")
        self.reduce_to_device = reduce_to_device

    def _reduce_device(self, devices):
        if self.reduce_to_device is None:
            return devices[0]
        from .distribute import _as_device
        device = _as_device(self.reduce_to_device)
        _C._check_device(device)
        return device

    def __repr__(self):
        return f"ReductionToOneDevice(reduce_to_device={self.reduce_to_device!r})"


class HierarchicalCopyAllReduce(_Packed):
    """TensorFlow's ``tf.distribute.HierarchicalCopyAllReduce``: here the sum is taken
    on the strategy's first device and copied back (MirroredStrategy's 'copies'; the
    two-level tree of TensorFlow's is for 8 GPUs of a DGX-1).  The same sums as the
    other CrossDeviceOps up to the order of the additions.

    Parameters
    ----------
    num_packs : int, optional
        Accepted (>= 0); the gradients are packed into one bucket per dtype.

    Raises
    ------
    ValueError
        For num_packs < 0.
    TypeError
        For a num_packs that is not an int.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> ops = distribute.HierarchicalCopyAllReduce(num_packs=1)
    >>> distribute.MirroredStrategy(['cpu'], cross_device_ops=ops).all_reduce_method
    'copies'
    """

    _method = "copies"
    _name = "HierarchicalCopy"


class NcclAllReduce(_Packed):
    """TensorFlow's ``tf.distribute.NcclAllReduce``: one in-place NCCL all-reduce per
    gradient bucket (MirroredStrategy's 'nccl'), which needs two or more distinct
    physical GPUs and libnccl.so.2 (refused on GPUs without them); where a device is
    not a GPU, the 'copies' to the first device, as TensorFlow falls back to
    ReductionToOneDevice there.  The same sums as the other CrossDeviceOps up to the
    order of the additions.

    Parameters
    ----------
    num_packs : int, optional
        Accepted (>= 0); the gradients are packed into one bucket per dtype.

    Raises
    ------
    ValueError
        For num_packs < 0.
    TypeError
        For a num_packs that is not an int.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> distribute.NcclAllReduce()
    NcclAllReduce(num_packs=1)
    """

    _method = "nccl"
    _name = "NCCL all-reduce"


def _cross_device_method(cross_device_ops, all_reduce, devices):
    """(all_reduce, the device the 'copies' sum is taken on) for MirroredStrategy."""
    if cross_device_ops is None:
        return all_reduce, devices[0]
    if not isinstance(cross_device_ops, CrossDeviceOps):
        raise TypeError(f"MirroredStrategy: cross_device_ops must be a CrossDeviceOps "
                        f"(ReductionToOneDevice, HierarchicalCopyAllReduce or NcclAllReduce), "
                        f"got {type(cross_device_ops).__name__}")
    if all_reduce != "auto":
        raise ValueError(f"MirroredStrategy: give cross_device_ops or all_reduce, not both "
                         f"(got {cross_device_ops!r} and all_reduce={all_reduce!r})")
    method = cross_device_ops._method
    if method == "nccl" and (len(devices) < 2 or any(d.type != "cuda" for d in devices)):
        method = "copies"  # TensorFlow's NcclAllReduce reduces to one device there too
    return method, cross_device_ops._reduce_device(devices)


class StrategyExtended:
    """What ``strategy.extended`` is (TensorFlow's ``tf.distribute.StrategyExtended``):
    the strategy's devices, the variables it owns, and reductions to chosen devices.
    Not made directly.

    Parameters
    ----------
    strategy : MirroredStrategy
        The strategy it extends.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> distribute.MirroredStrategy(['cpu']).extended.worker_devices
    ('cpu',)
    """

    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def worker_devices(self):
        """The devices the replicas compute on, as strings, one per replica in order
        (a MultiWorkerMirroredStrategy's: this worker's).

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.MirroredStrategy(['cpu']).extended.worker_devices
        ('cpu',)
        """
        return tuple(str(d) for d in self._strategy._devices)

    @property
    def parameter_devices(self):
        """The devices holding the variables: every replica's (MirroredStrategy keeps a
        copy of every parameter on each device).

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.MirroredStrategy(['cpu']).extended.parameter_devices
        ('cpu',)
        """
        return self.worker_devices

    def variable_created_in_scope(self, v):
        """Whether v is a parameter or buffer of a model built in this strategy's scope
        (or of one of its replicas), the scope open or closed.

        Parameters
        ----------
        v : Tensor
            A parameter, for instance.

        Returns
        -------
        bool

        Raises
        ------
        TypeError
            For a v that is not a Tensor.

        Examples
        --------
        >>> from pydevtensor import distribute, nn
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> with strategy.scope():
        ...     net = nn.Linear(2, 1)
        >>> strategy.extended.variable_created_in_scope(net.weight)
        True
        >>> strategy.extended.variable_created_in_scope(nn.Linear(2, 1).weight)
        False
        """
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"variable_created_in_scope(): v must be a Tensor (a parameter), "
                            f"got {type(v).__name__}")
        models = list(getattr(self._strategy, "_models", ()))
        for owner in getattr(_scopes, "stack", ()):  # built in a scope still open
            if getattr(owner, "strategy", None) is self._strategy:
                models += owner._built
        for model in models:
            for r in model.__dict__.get("_pdt_replicas", (model,)):
                if any(t is v for t in r.parameters()) or any(t is v for t in r.buffers()):
                    return True
        return False

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable):
        """A block whose variables go where colocate_with_variable is: with
        MirroredStrategy every model is on every replica's device already, so it checks
        the variable and changes nothing.

        Parameters
        ----------
        colocate_with_variable : Tensor
            A parameter of a model built in this strategy's scope.

        Returns
        -------
        contextlib.AbstractContextManager

        Raises
        ------
        ValueError
            For a variable not created in this strategy's scope (TensorFlow's message).

        Examples
        --------
        >>> from pydevtensor import distribute, nn
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> with strategy.scope():
        ...     net = nn.Linear(2, 1)
        ...     with strategy.extended.colocate_vars_with(net.weight):
        ...         head = nn.Linear(1, 1)
        """
        if not (isinstance(colocate_with_variable, _C.Tensor)
                and self.variable_created_in_scope(colocate_with_variable)):
            raise ValueError(f"`colocate_vars_with` must only be passed a variable created "
                             f"in this tf.distribute.Strategy.scope(), not: "
                             f"{_short(colocate_with_variable)}")
        yield

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """The replicas' values summed or averaged onto destinations.

        Parameters
        ----------
        reduce_op : ReduceOp or str
            ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'.
        value : PerReplica or Tensor
            The replicas' values, of one shape; a Tensor is one every replica holds
            (MEAN returns it; SUM is refused with several replicas, as in TensorFlow).
        destinations : pydevtensor.device, str, Tensor or PerReplica
            A device; a Tensor's device; a PerReplica's devices (one result on each).
        options : None
            Accepted for TensorFlow's signature (collective hints do not apply).

        Returns
        -------
        Tensor or PerReplica
            A PerReplica of results for a PerReplica destinations.

        Raises
        ------
        ValueError
            For an unknown reduce_op name, values of different shapes, or SUM of a value
            that is not a PerReplica.
        TypeError
            For values or destinations of other types.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> out = strategy.run(lambda: pydevtensor.ones(2))
        >>> strategy.extended.reduce_to('SUM', out, destinations='cpu')
        tensor([1., 1.])
        """
        _multiworker_check(self._strategy, "extended.reduce_to")
        op = _reduce_op(reduce_op, "reduce_to()")
        targets = _destinations(destinations)
        out = [_reduce_values(self._strategy, op, value, None, d, "reduce_to()")
               for d in targets]
        return PerReplica(out) if isinstance(destinations, PerReplica) else out[0]

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """reduce_to for each (value, destinations) pair, in order.

        Parameters
        ----------
        reduce_op : ReduceOp or str
            ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'.
        value_destination_pairs : sequence of (value, destinations)
            As reduce_to's arguments.
        options : None
            Accepted for TensorFlow's signature.

        Returns
        -------
        list

        Raises
        ------
        TypeError
            For pairs that are not pairs, and as reduce_to.
        ValueError
            As reduce_to.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> out = strategy.run(lambda: pydevtensor.ones(1))
        >>> strategy.extended.batch_reduce_to('MEAN', [(out, 'cpu'), (out, 'cpu')])
        [tensor([1.]), tensor([1.])]
        """
        pairs = list(value_destination_pairs)
        for p in pairs:
            if not isinstance(p, (tuple, list)) or len(p) != 2:
                raise TypeError(f"batch_reduce_to(): value_destination_pairs holds "
                                f"(value, destinations) pairs, got {_short(p)}")
        return [self.reduce_to(reduce_op, v, d, options) for v, d in pairs]


def _short(x):
    return f"a Tensor of shape {tuple(x.shape)}" if isinstance(x, _C.Tensor) \
        else f"{type(x).__name__} {x!r}"[:80]


def _destinations(destinations):
    """The devices reduce_to puts its results on."""
    from .distribute import _as_device
    if isinstance(destinations, PerReplica):
        return [_destinations(v)[0] for v in destinations.values]
    if isinstance(destinations, _C.Tensor):
        return [destinations.device]
    if isinstance(destinations, (str, _C.device)):
        device = _as_device(destinations)
        _C._check_device(device)
        return [device]
    raise TypeError(f"reduce_to(): destinations must be a device, a device string, a "
                    f"Tensor or a PerReplica, got {type(destinations).__name__}")


def get_strategy():
    """The current strategy (TensorFlow's ``tf.distribute.get_strategy``): inside
    ``run``, the replica's; inside a ``scope()``, that strategy; elsewhere the default
    strategy, one replica on the default device (Note [cross-device ops] in
    pydevtensor/_distribute_extended.py).

    Returns
    -------
    MirroredStrategy

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> with strategy.scope():
    ...     print(distribute.get_strategy() is strategy)
    True
    >>> distribute.get_strategy().num_replicas_in_sync
    1
    """
    context = getattr(_replica, "context", None)
    if context is not None and context.strategy is not None:
        return context.strategy
    scopes = _open_scopes()
    if scopes:
        return scopes[-1]
    from .distribute import _default_strategy
    return _default_strategy()


def has_strategy():
    """Whether a strategy other than the default one is current (inside a scope() or
    run).

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> with strategy.scope():
    ...     print(distribute.has_strategy())
    True
    >>> distribute.has_strategy()
    False
    """
    from .distribute import _default_strategy
    return get_strategy() is not _default_strategy()


def in_cross_replica_context():
    """Whether the caller is in a strategy's cross-replica context: inside scope() but
    not inside run (get_replica_context() is then None).

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> with strategy.scope():
    ...     print(distribute.in_cross_replica_context())
    True
    >>> strategy.run(distribute.in_cross_replica_context)
    False
    """
    return get_replica_context() is None

