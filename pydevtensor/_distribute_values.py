"""TensorFlow's cross-replica calls of ``tf.distribute.MirroredStrategy``, for a custom
training loop: ReduceOp, PerReplica, and the strategy's run, reduce, gather,
experimental_local_results and experimental_distribute_dataset (MirroredStrategy takes
the functions below as its methods).

Note [run and reduce]
- ``run(fn, args, kwargs)`` calls fn once per replica, replica i on its own thread (the
  worker threads of fit()) inside ``with pydevtensor.device(devices[i])``, so tensors
  fn makes without device= land on the replica's device.  A PerReplica among the
  arguments (also inside tuples, lists and dicts) gives replica i its i-th value; any
  other argument is passed to every replica as it is.  The results are regrouped: a
  tuple, list or dict returned by every replica becomes one of PerReplica values; one
  replica returns its result itself, as TensorFlow's.
- ``reduce(op, value, axis)``: with axis=None the replicas' values (of one shape) are
  summed on the first device in replica order (((v0 + v1) + v2) ...); MEAN divides by
  the number of replicas.  With an axis each value is first summed along it, and MEAN
  divides by the number of elements along it over all replicas (so shards of unequal
  sizes give the mean over the global batch).  A value that is not a PerReplica is
  one every replica holds: MEAN returns it, SUM along an axis counts it once per
  replica, and SUM without an axis is refused with several replicas, as in TensorFlow
  (with one it is the value: run's result on one replica is not a PerReplica).
  Integer values give a floating MEAN (TensorFlow's too).
- ``experimental_distribute_dataset(dataset)``: each global batch (a Tensor, a NumPy
  array, or a tuple, list or dict of them) is split along its first dimension as fit()
  splits it (the first B % N replicas take one more sample; a replica may get an empty
  shard) and each shard is copied to its replica's device.
- Inside run, ``get_replica_context()`` is the replica's ReplicaContext; its
  ``all_reduce(op, value)`` waits for every replica's value (a threading.Barrier), then
  each replica sums them on its own device in replica order, so all get the same bits.
  A replica that raises breaks the barrier, so the others stop too, and run raises its
  error.  A replica whose fn returns takes part in one last exchange with a mark of its
  own: replicas still in all_reduce (a different number of calls) raise RuntimeError,
  as TensorFlow's run, rather than wait for it forever.  Outside run: None inside a
  strategy's scope (the cross-replica context), else a default context of one replica,
  as TensorFlow's.
- MultiWorkerMirroredStrategy does not have these (they would need the other workers).
"""
import enum
import threading

from . import _C
from ._distribute_replicas import _Runner, _shard_bounds
from ._func_transforms import _leaves, _rebuild
from .nn.module import _scopes

__all__ = ["ReduceOp", "PerReplica", "ReplicaContext", "get_replica_context"]

_replica = threading.local()  # .context: the ReplicaContext of the replica this thread runs


class ReduceOp(enum.Enum):
    """How ``MirroredStrategy.reduce`` combines the replicas' values (TensorFlow's
    ``tf.distribute.ReduceOp``): SUM or MEAN.  reduce also takes the names 'SUM' and
    'MEAN'.

    Parameters
    ----------
    value : str
        'SUM' or 'MEAN' (``ReduceOp('MEAN')`` is ``ReduceOp.MEAN``).

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> distribute.ReduceOp.SUM, distribute.ReduceOp('MEAN')
    (<ReduceOp.SUM: 'SUM'>, <ReduceOp.MEAN: 'MEAN'>)
    """

    SUM = "SUM"
    MEAN = "MEAN"


class PerReplica:
    """One value per replica, what ``MirroredStrategy.run`` returns and
    ``experimental_distribute_dataset`` yields (TensorFlow's PerReplica); ``values`` is
    the tuple of them, in the order of the strategy's devices.

    Parameters
    ----------
    values : sequence
        One value per replica.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> distribute.PerReplica([1, 2]).values
    (1, 2)
    """

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The replicas' values, a tuple in the order of the devices.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.PerReplica(['a', 'b']).values
        ('a', 'b')
        """
        return self._values

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"PerReplica:{{\n{inner}\n}}"


class ReplicaContext:
    """The replica that runs the calling code, inside ``MirroredStrategy.run`` (TensorFlow's
    ``tf.distribute.ReplicaContext``); ``get_replica_context()`` returns it.

    Parameters
    ----------
    strategy : MirroredStrategy or None
        The strategy running the replica (None for the default context).
    replica_id : int
        The replica's index among the strategy's devices.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> ctx = distribute.get_replica_context()  # no strategy: the default one
    >>> ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync
    (0, 1)
    """

    def __init__(self, strategy, replica_id, _sync=None):
        self._strategy, self._id, self._sync = strategy, replica_id, _sync

    @property
    def strategy(self):
        """The strategy whose run called this replica (None for the default context).

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.get_replica_context().strategy is None
        True
        """
        return self._strategy

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, from 0, in the order of the strategy's devices.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> strategy.run(lambda: distribute.get_replica_context().replica_id_in_sync_group)
        0
        """
        return self._id

    @property
    def num_replicas_in_sync(self):
        """The number of replicas run calls together.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.get_replica_context().num_replicas_in_sync
        1
        """
        return 1 if self._strategy is None else len(self._strategy._devices)

    def all_reduce(self, reduce_op, value):
        """The sum or mean of every replica's value, on this replica's device; every
        replica must call it (Note [run and reduce] in pydevtensor/_distribute_values.py).

        Parameters
        ----------
        reduce_op : ReduceOp or str
            ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'.
        value : Tensor
            This replica's value, of the shape of the others'.

        Returns
        -------
        Tensor

        Raises
        ------
        ValueError
            For an unknown reduce_op name, or values of different shapes.
        TypeError
            For a value that is not a Tensor, or a reduce_op of another type.
        RuntimeError
            When another replica's fn returned without this call (replicas that call
            all_reduce different numbers of times).

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> strategy = distribute.MirroredStrategy(['cpu'])
        >>> strategy.run(lambda: distribute.get_replica_context().all_reduce(
        ...     'SUM', pydevtensor.ones(2)))
        tensor([1., 1.])
        """
        op = _reduce_op(reduce_op, "all_reduce()")
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"all_reduce(): value must be a Tensor, got {type(value).__name__}")
        if self._sync is None:
            return value
        values = _exchange(self._sync, self._id, value)
        if any(v is _DONE for v in values):
            raise RuntimeError(_MISMATCH)
        if len({tuple(v.shape) for v in values}) != 1:
            raise ValueError(f"all_reduce(): the replicas' values have the shapes "
                             f"{[tuple(v.shape) for v in values]}; they must be the same")
        total = _sum_on(values, value.device)
        return total / len(values) if op is ReduceOp.MEAN else total


_DONE = object()  # the slot of a replica whose fn has returned
_MISMATCH = ("Some replicas made a different number of all_reduce() calls: every replica "
             "must call ReplicaContext.all_reduce as often as the others, in the same order "
             "(TensorFlow's 'different number of replica_context().merge_call() calls')")


def _exchange(sync, i, value):
    """Replica i's value into its slot; once every replica has written its own, all the
    slots (the second wait: every replica has read them, they may be written again)."""
    slots, barrier = sync
    slots[i] = value
    barrier.wait()
    values = list(slots)
    barrier.wait()
    return values


def get_replica_context():
    """The ReplicaContext of the replica running the caller inside ``MirroredStrategy.run``;
    None elsewhere inside a strategy's scope (the cross-replica context); outside both,
    a default context of one replica, as TensorFlow's ``tf.distribute.get_replica_context``.

    Returns
    -------
    ReplicaContext or None

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> with strategy.scope():
    ...     print(distribute.get_replica_context())
    None
    """
    context = getattr(_replica, "context", None)
    if context is not None:
        return context
    return None if getattr(_scopes, "stack", None) else ReplicaContext(None, 0)


def _open_scopes():
    """The strategies whose scope() is open on this thread, outermost first."""
    return [getattr(o, "strategy", None) for o in getattr(_scopes, "stack", ())]


def _sum_on(values, device):
    """The values summed on device in their order: ((v0 + v1) + v2) ..."""
    total = values[0].to(device, copy=True)
    for v in values[1:]:
        total = total + v.to(device)
    return total


def _pick(x, i):
    """x with every PerReplica inside it (tuples, lists, dicts) replaced by its i-th value."""
    if isinstance(x, PerReplica):
        return x.values[i]
    if isinstance(x, (tuple, list)):
        return type(x)(_pick(v, i) for v in x)
    if isinstance(x, dict):
        return {k: _pick(v, i) for k, v in x.items()}
    return x


def _check_per_replica(x, n, where):
    if isinstance(x, PerReplica):
        if len(x.values) != n:
            raise ValueError(f"{where}: a PerReplica of {len(x.values)} values for "
                             f"{n} replicas")
    elif isinstance(x, (tuple, list)):
        for v in x:
            _check_per_replica(v, n, where)
    elif isinstance(x, dict):
        for v in x.values():
            _check_per_replica(v, n, where)


def _regroup(results):
    """The replicas' results as one structure of PerReplica values."""
    first = results[0]
    if isinstance(first, (tuple, list)) and all(
            type(r) is type(first) and len(r) == len(first) for r in results):
        return type(first)(_regroup([r[k] for r in results]) for k in range(len(first)))
    if isinstance(first, dict) and all(
            isinstance(r, dict) and r.keys() == first.keys() for r in results):
        return {k: _regroup([r[k] for r in results]) for k in first}
    if first is None and all(r is None for r in results):
        return None
    return PerReplica(results)


def _multiworker_check(strategy, name):
    if not getattr(strategy, "_one_process", True):
        raise NotImplementedError(f"MultiWorkerMirroredStrategy.{name}(): only fit() "
                                  f"trains across workers; {name} is MirroredStrategy's")


def run(self, fn, args=(), kwargs=None):
    """Calls fn on every replica, each on its own thread and device, and returns their
    results (Note [run and reduce] in pydevtensor/_distribute_values.py).

    Parameters
    ----------
    fn : callable
        Called as fn(arguments) once per replica.
    args : tuple, optional
        Its positional arguments; a PerReplica gives each replica its own value.
    kwargs : dict, optional
        Its keyword arguments, likewise.

    Returns
    -------
    PerReplica, or a tuple, list or dict of them
        The results; with one replica, its result itself.

    Raises
    ------
    TypeError
        When fn is not callable, args not a tuple or list, or kwargs not a dict.
    ValueError
        For a PerReplica argument with another number of values than of replicas.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> strategy.run(lambda x: x * 2, args=(pydevtensor.ones(2),))
    tensor([2., 2.])
    """
    _multiworker_check(self, "run")
    if not callable(fn):
        raise TypeError(f"run(): fn must be callable, got {type(fn).__name__}")
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"run(): args must be a tuple of arguments, got "
                        f"{type(args).__name__}; write args=(x,)")
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(kwargs, dict):
        raise TypeError(f"run(): kwargs must be a dict, got {type(kwargs).__name__}")
    n = len(self._devices)
    _check_per_replica((args, kwargs), n, "run()")

    sync = ([None] * n, threading.Barrier(n))

    def call(i):
        previous = getattr(_replica, "context", None)  # a run inside run's fn, on replica 0
        _replica.context = ReplicaContext(self, i, sync)
        try:
            with self._devices[i]:
                result = fn(*_pick(args, i), **_pick(kwargs, i))
            # a last round, so that replicas still in all_reduce see this one has
            # returned (they raise _MISMATCH) instead of waiting for it forever
            _exchange(sync, i, _DONE)
            return True, result
        except BaseException as exc:  # noqa: BLE001 - raised by run once all are done
            sync[1].abort()  # the others stop waiting in all_reduce
            return False, exc
        finally:
            _replica.context = previous

    runner = _Runner(n)
    try:
        outcomes = runner(call)
    finally:
        runner.close()
    errors = [v for ok, v in outcomes if not ok]
    if errors:  # the first error that is not another replica's broken barrier
        raise next((e for e in errors if not isinstance(e, threading.BrokenBarrierError)),
                   errors[0])
    results = [v for _, v in outcomes]
    return results[0] if n == 1 else _regroup(results)


def _reduce_op(op, where="reduce()"):
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str):
        try:
            return ReduceOp(op)
        except ValueError:
            raise ValueError(f"{where}: {op!r} is not a valid ReduceOp; use "
                             f"ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'") from None
    raise TypeError(f"{where}: reduce_op must be a ReduceOp or 'SUM' or 'MEAN', got "
                    f"{type(op).__name__}")


def _tensors(self, value, where):
    """value's per-replica tensors, and whether value was a PerReplica."""
    distributed = isinstance(value, PerReplica)
    values = value.values if distributed else (value,)
    if distributed and len(values) != len(self._devices):
        raise ValueError(f"{where}: a PerReplica of {len(values)} values for "
                         f"{len(self._devices)} replicas")
    for v in values:
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"{where}: expected Tensors or a PerReplica of Tensors, got "
                            f"{type(v).__name__}")
    return list(values), distributed


def _check_axis(axis, values, where):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{where}: axis must be an int, got {type(axis).__name__}")
    for v in values:
        if v.ndim == 0 or not -v.ndim <= axis < v.ndim:
            raise IndexError(f"{where}: axis {axis} is out of range for a value of shape "
                             f"{tuple(v.shape)}")
    return axis % values[0].ndim


def reduce(self, reduce_op, value, axis=None):
    """Sums or averages the replicas' values onto the first device, optionally along an
    axis of each (Note [run and reduce] in pydevtensor/_distribute_values.py).

    Parameters
    ----------
    reduce_op : ReduceOp or str
        ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'.
    value : PerReplica or Tensor
        The replicas' values (of one shape when axis is None); a Tensor is one every
        replica holds.
    axis : int, optional
        Also reduce each value along this dimension (the MEAN is then over all its
        elements on all replicas).

    Returns
    -------
    Tensor
        On the strategy's first device.

    Raises
    ------
    ValueError
        For an unknown reduce_op name, values of different shapes, or SUM of a value
        that is not a PerReplica with axis=None and several replicas.
    TypeError
        For a reduce_op that is neither a ReduceOp nor a str, or values that are not
        Tensors.
    IndexError
        For an axis out of range.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> out = strategy.run(lambda: pydevtensor.tensor([1.0, 2.0, 3.0]))
    >>> strategy.reduce('SUM', out, axis=0), strategy.reduce(distribute.ReduceOp.MEAN, out, axis=0)
    (tensor(6.), tensor(2.))
    """
    _multiworker_check(self, "reduce")
    return _reduce_values(self, _reduce_op(reduce_op), value, axis, self._devices[0],
                          "reduce()")


def _reduce_values(self, op, value, axis, home, where):
    """reduce() onto the device home; where names the caller in errors."""
    values, distributed = _tensors(self, value, where)
    n = len(self._devices)
    if axis is None:
        if not distributed:
            if op is ReduceOp.SUM and n > 1:  # one replica: run returns its value itself
                raise ValueError(f"{where}: a value that is not a PerReplica cannot be "
                                 f"summed with axis=None (every replica holds it); pass "
                                 f"strategy.run's result, or an axis")
            return values[0].to(home, copy=True)
        count = n
    else:
        axis = _check_axis(axis, values, where)
        count = sum(v.shape[axis] for v in values) * (1 if distributed else n)
        values = [v.sum(axis) for v in values]
        if not distributed:
            values = values * n
    shapes = {tuple(v.shape) for v in values}
    if len(shapes) != 1:
        raise ValueError(f"{where}: the replicas' values have the shapes "
                         f"{[tuple(v.shape) for v in values]}; they must be the same")
    total = _sum_on(values, home)
    return total / count if op is ReduceOp.MEAN else total


def gather(self, value, axis):
    """The replicas' values joined along axis on the first device (a Tensor that is not
    a PerReplica is returned as it is, as in TensorFlow).

    Parameters
    ----------
    value : PerReplica or Tensor
        The replicas' values, of one shape but along axis.
    axis : int
        The dimension to join them along.

    Returns
    -------
    Tensor
        On the strategy's first device.

    Raises
    ------
    TypeError
        For values that are not Tensors, or an axis that is not an int.
    IndexError
        For an axis out of range.
    ValueError
        For values whose shapes differ but along axis.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> strategy.gather(strategy.run(lambda: pydevtensor.ones(2, 1)), axis=0).shape
    pydevtensor.Size([2, 1])
    """
    _multiworker_check(self, "gather")
    values, distributed = _tensors(self, value, "gather()")
    axis = _check_axis(axis, values, "gather()")
    if not distributed:
        return values[0]
    rest = {tuple(v.shape[:axis]) + tuple(v.shape[axis + 1:]) for v in values}
    if len(rest) != 1:
        raise ValueError(f"gather(): the replicas' values have the shapes "
                         f"{[tuple(v.shape) for v in values]}; they may differ only along "
                         f"axis {axis}")
    home = self._devices[0]
    from ._ops_join import cat
    return cat([v.to(home) for v in values], axis)


def experimental_local_results(self, value):
    """The replicas' values of a PerReplica as a tuple; (value,) for any other value.

    Parameters
    ----------
    value : PerReplica or object
        What run returned, for instance.

    Returns
    -------
    tuple

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> strategy.experimental_local_results(distribute.PerReplica([1]))
    (1,)
    """
    return value.values if isinstance(value, PerReplica) else (value,)


class _DistributedDataset:
    """What experimental_distribute_dataset returns: iterating it iterates the dataset
    again, splitting each global batch across the replicas."""

    def __init__(self, strategy, dataset):
        self._strategy, self._dataset = strategy, dataset

    def __iter__(self):
        for batch in self._dataset:
            yield _split_batch(self._strategy._devices, batch)


def _split_batch(devices, batch):
    n = len(devices)
    parts = []  # batch's leaves as tensors, in _leaves' order
    for x in _leaves(batch):
        t = x if isinstance(x, _C.Tensor) else _from_array(x, "experimental_distribute_dataset")
        if t.ndim == 0:
            raise ValueError("experimental_distribute_dataset: a batch element is 0-d; "
                             "batches need a first dimension of samples")
        parts.append(t)
    sizes = {t.shape[0] for t in parts}
    if len(sizes) != 1:
        raise ValueError(f"experimental_distribute_dataset: the batch's parts have "
                         f"{sorted(sizes)} samples; they must have the same number")
    bounds = _shard_bounds(0, sizes.pop(), n)
    shards = [_rebuild(batch, iter([t[bounds[i]:bounds[i + 1]].to(devices[i]) for t in parts]))
              for i in range(n)]
    return shards[0] if n == 1 else _regroup(shards)


def _from_array(x, caller):
    """A NumPy array leaf of a batch as a Tensor; caller names the API for the error."""
    import numpy as np
    if isinstance(x, np.ndarray):
        return _C.from_numpy(np.ascontiguousarray(x))
    raise TypeError(f"{caller}: a batch holds Tensors or NumPy arrays (or tuples, lists "
                    f"and dicts of them), got {type(x).__name__}")


def experimental_distribute_dataset(self, dataset):
    """The batches of dataset, each split across the replicas and copied to their
    devices (Note [run and reduce] in pydevtensor/_distribute_values.py).

    Parameters
    ----------
    dataset : iterable
        Of global batches: Tensors, NumPy arrays, or tuples, lists or dicts of them,
        the samples along the first dimension (a utils.data.DataLoader, for instance).

    Returns
    -------
    iterable
        Of PerReplica shards (or tuples, lists or dicts of them); iterating it again
        iterates dataset again.

    Raises
    ------
    TypeError
        When dataset is not iterable; while iterating, for a batch of something else.
    ValueError
        While iterating, for 0-d batches or parts with different numbers of samples.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> [b.shape for b in strategy.experimental_distribute_dataset([pydevtensor.ones(3, 2)])]
    [pydevtensor.Size([3, 2])]
    """
    _multiworker_check(self, "experimental_distribute_dataset")
    try:
        iter(dataset)
    except TypeError:
        raise TypeError(f"experimental_distribute_dataset: dataset must be an iterable "
                        f"of batches, got {type(dataset).__name__}") from None
    return _DistributedDataset(self, dataset)
