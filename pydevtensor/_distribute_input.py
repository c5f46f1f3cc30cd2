"""TensorFlow's ``strategy.distribute_datasets_from_function(dataset_fn)`` and the
InputContext it passes to dataset_fn.

Note [datasets from a function]
- dataset_fn is called once, when distribute_datasets_from_function is (one input
  pipeline: this process), with InputContext(1, 0, num_replicas_in_sync); it returns
  an iterable of per-replica batches (a DataLoader, a list; Tensors, NumPy arrays, or
  tuples, lists and dicts of them), batched with
  ``context.get_per_replica_batch_size(global_batch_size)``.
- Each step takes the next N batches, one per replica in order (replica i gets batch
  k N + i, as TensorFlow's multi-device iterator), each copied to its replica's device.
  When the batches run out inside a step, the replicas left without one get an empty
  batch (0 samples, the structure and trailing shape of the step's last batch), as
  TensorFlow's partial last step; a step with no batch ends the iteration.
"""
from . import _C
from ._distribute_values import _from_array, _multiworker_check, _regroup
from ._func_transforms import _leaves, _rebuild

__all__ = ["InputContext"]


class InputContext:
    """What ``distribute_datasets_from_function`` passes to its dataset_fn
    (TensorFlow's ``tf.distribute.InputContext``): the input pipelines and replicas.

    Parameters
    ----------
    num_input_pipelines : int, optional
        The number of input pipelines (1: this process).
    input_pipeline_id : int, optional
        This pipeline's id, in [0, num_input_pipelines).
    num_replicas_in_sync : int, optional
        The number of replicas that train together.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> ctx = distribute.InputContext(num_replicas_in_sync=4)
    >>> ctx.get_per_replica_batch_size(64)
    16
    """

    __slots__ = ("_num_input_pipelines", "_input_pipeline_id", "_num_replicas_in_sync")

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_input_pipelines(self):
        """The number of input pipelines.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.InputContext(2, 1, 4).num_input_pipelines
        2
        """
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self):
        """This input pipeline's id.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.InputContext(2, 1, 4).input_pipeline_id
        1
        """
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self):
        """The number of replicas in sync.

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.InputContext(2, 1, 4).num_replicas_in_sync
        4
        """
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """global_batch_size divided by the number of replicas.

        Parameters
        ----------
        global_batch_size : int
            Divisible by num_replicas_in_sync.

        Returns
        -------
        int

        Raises
        ------
        ValueError
            When it is not divisible (TensorFlow's message).

        Examples
        --------
        >>> from pydevtensor import distribute
        >>> distribute.InputContext(num_replicas_in_sync=3).get_per_replica_batch_size(12)
        4
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible "
                             f"by `num_replicas_in_sync` {self._num_replicas_in_sync!r} ")
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self):
        return (f"InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class _DatasetsFromFunction:
    """What distribute_datasets_from_function returns (Note [datasets from a function])."""

    def __init__(self, devices, dataset):
        self._devices, self._dataset = devices, dataset

    def __iter__(self):
        n = len(self._devices)
        it = iter(self._dataset)
        while True:
            batches = []
            for _ in range(n):
                try:
                    batches.append(next(it))
                except StopIteration:
                    break
            if not batches:
                return
            shards = [_to_device(b, d) for b, d in zip(batches, self._devices)]
            shards += [_empty_like(shards[-1], d) for d in self._devices[len(shards):]]
            yield shards[0] if n == 1 else _regroup(shards)


def _to_device(batch, device):
    parts = []
    for x in _leaves(batch):
        if not isinstance(x, _C.Tensor):
            x = _from_array(x, "distribute_datasets_from_function")
        parts.append(x.to(device))
    return _rebuild(batch, iter(parts))


def _empty_like(batch, device):
    """batch's structure with every tensor's first dimension 0, on device."""
    parts = []
    for t in _leaves(batch):
        if t.ndim == 0:
            raise ValueError("distribute_datasets_from_function: a batch element is 0-d; a "
                             "replica left without a batch gets an empty one, which needs a "
                             "first dimension of samples")
        parts.append(_C.empty((0,) + tuple(t.shape[1:]), dtype=t.dtype, device=device))
    return _rebuild(batch, iter(parts))


def distribute_datasets_from_function(self, dataset_fn, options=None):
    """The per-replica batches of the dataset that dataset_fn(InputContext) returns,
    each replica taking the next one in turn, copied to its device (Note [datasets from
    a function] in pydevtensor/_distribute_input.py).

    Parameters
    ----------
    dataset_fn : callable
        Called once with an InputContext; returns an iterable of per-replica batches
        (Tensors, NumPy arrays, or tuples, lists or dicts of them).
    options : None
        TensorFlow's InputOptions do not apply (batches are copied to the replicas'
        devices as they are taken); only None.

    Returns
    -------
    iterable
        Of PerReplica batches (or tuples, lists or dicts of them); iterating it again
        iterates the dataset again.

    Raises
    ------
    TypeError
        When dataset_fn is not callable or does not return an iterable, or for options;
        while iterating, for a batch of something else.
    ValueError
        While iterating, when a replica left without a batch would need an empty one of
        a 0-d batch.

    Examples
    --------
    >>> from pydevtensor import distribute
    >>> strategy = distribute.MirroredStrategy(['cpu'])
    >>> data = strategy.distribute_datasets_from_function(
    ...     lambda ctx: [pydevtensor.ones(ctx.get_per_replica_batch_size(4), 2)])
    >>> [b.shape for b in data]
    [pydevtensor.Size([4, 2])]
    """
    _multiworker_check(self, "distribute_datasets_from_function")
    if not callable(dataset_fn):
        raise TypeError(f"distribute_datasets_from_function: dataset_fn must be callable, "
                        f"got {type(dataset_fn).__name__}")
    if options is not None:
        raise TypeError(f"distribute_datasets_from_function: options must be None (the "
                        f"batches go to the replicas' devices as they are taken), got "
                        f"{type(options).__name__}")
    n = len(self._devices)
    dataset = dataset_fn(InputContext(1, 0, n))
    try:
        iter(dataset)
    except TypeError:
        raise TypeError(f"distribute_datasets_from_function: dataset_fn must return an "
                        f"iterable of batches, got {type(dataset).__name__}") from None
    return _DatasetsFromFunction(self._devices, dataset)
