"""The DataLoader of ``pydevtensor.utils.data`` and ``get_worker_info``.

A TensorDataset read in plain order or with shuffle=True (no sampler given, collate_fn
``default_collate``, checked each epoch) is batched by indexing its tensors once per
batch (a slice, or a slice of one permutation when shuffling) rather than by stacking
samples one by one; the batches
are new contiguous tensors (not views of the dataset) on the dataset tensors' own
devices, so nothing is copied between devices.  The permutation is ``randperm``'s, drawn
on the first tensor's device (the same on every device for one ``manual_seed``), and
copied once per epoch to any other device the dataset's tensors are on.  (On a GPU, indexing
a shuffled batch reads its index's min and max to the host, 16 bytes: the indexing
op's bounds check; batches in order are slices and read nothing.)  Other datasets, and
any loader given a sampler or batch_sampler, read sample by sample through the
sampler's indices (a batch's indices at once where the dataset has ``__getitems__``)
and collate_fn (``default_collate``).

With ``num_workers > 0`` the batches are made in worker processes (``_worker.py``, after
PyTorch's design): the same batches as without workers, handed back in order.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.context
import numbers
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ... import _C
from ... import cuda as _cuda
from ..._generator import Generator
from ..._memory_format import contiguous_format
from ..._ops_shortcuts import randperm as _randperm
from ._collate import _rebuild, _rebuild_map, default_collate, default_convert
from ._dataset import IterableDataset, TensorDataset
from ._sampler import BatchSampler, RandomSampler, SequentialSampler, _generator_arg
from ._worker import (WorkerBatches, WorkerPool, _dataset_device, _Spec, fetch_map,
                      get_worker_info, stream_batches)

__all__ = ["DataLoader", "get_worker_info"]


def _size_of(value, where, error=TypeError):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise error(f"{where} must be an int, got {type(value).__name__}")
    return int(value)


def _pin(batch):
    """batch with its CPU tensors copied to page-locked host memory."""
    if isinstance(batch, _C.Tensor):
        return batch.pin_memory() if batch.device.type == "cpu" else batch
    if isinstance(batch, (str, bytes)):
        return batch
    # the containers' own types, as PyTorch's pin_memory keeps them (tuples give lists)
    if isinstance(batch, Mapping):
        return _rebuild_map(batch, {k: _pin(v) for k, v in batch.items()})
    if isinstance(batch, Sequence):
        return _rebuild(batch, [_pin(v) for v in batch])
    return batch


def _check_context(where, num_workers, context):
    """PyTorch's checks of multiprocessing_context: a start method's name or a context."""
    if num_workers == 0:
        raise ValueError(f"{where}: multiprocessing_context can only be used with "
                         f"multi-process loading (num_workers > 0), but got num_workers=0")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"{where}: multiprocessing_context option should specify a "
                             f"valid start method in {methods!r}, but got "
                             f"multiprocessing_context={context!r}")
    elif not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(f"{where}: multiprocessing_context option should be a valid context "
                        f"object or a string specifying the start method, but got "
                        f"multiprocessing_context={context!r}")


def _check_worker_options(where, num_workers, timeout, prefetch_factor,
                          persistent_workers, multiprocessing_context, worker_init_fn):
    if _size_of(num_workers, f"{where}: num_workers") < 0:
        raise ValueError(f"{where}: num_workers option should be non-negative; use "
                         f"num_workers=0 to disable multiprocessing (got {num_workers})")
    if not isinstance(timeout, numbers.Real) or timeout < 0:
        raise ValueError(f"{where}: timeout option should be non-negative, got {timeout!r}")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(f"{where}: prefetch_factor option could only be specified in "
                         f"multiprocessing; let num_workers > 0 to enable multiprocessing, "
                         f"otherwise set prefetch_factor to None")
    if prefetch_factor is not None and _size_of(prefetch_factor,
                                                f"{where}: prefetch_factor") < 0:
        raise ValueError(f"{where}: prefetch_factor option should be non-negative, got "
                         f"{prefetch_factor}")
    if persistent_workers and num_workers == 0:
        raise ValueError(f"{where}: persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None:
        _check_context(where, num_workers, multiprocessing_context)
    if worker_init_fn is not None and not callable(worker_init_fn):
        raise TypeError(f"{where}: worker_init_fn must be callable or None, got "
                        f"{type(worker_init_fn).__name__}")


def _check_worker_number(num_workers, stacklevel):
    """PyTorch's check_worker_number_rationality: warns, in its words, when more workers
    are to be started than the CPUs this process may run on (``os.sched_getaffinity``,
    which counts the cpuset, else ``os.cpu_count``)."""
    if num_workers == 0:
        return
    cpuset = hasattr(os, "sched_getaffinity")
    cpus = len(os.sched_getaffinity(0)) if cpuset else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    if cpus is None:
        suggested = ("DataLoader is not able to compute a suggested max number of worker in "
                     "current system.")
    else:
        suggested = (f"Our suggested max number of worker in current system is {cpus}"
                     f"{'' if cpuset else ' (`cpuset` is not taken into account)'}, which is "
                     f"smaller than what this DataLoader is going to create.")
    warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. "
                  f"{suggested} Please be aware that excessive worker creation might get "
                  f"DataLoader running slow or even freeze, lower the worker number to avoid "
                  f"potential slowness/freeze if necessary.", UserWarning,
                  stacklevel=stacklevel + 1)


class DataLoader:
    """Iterates over a dataset in batches, as PyTorch's ``DataLoader``: the samples in
    order, in a new random order each epoch with shuffle=True (``randperm``, so
    reproducible under ``pydevtensor.manual_seed`` or a seeded generator), or in the
    order a sampler or batch_sampler gives; an IterableDataset is read as it streams
    (when an epoch yields more batches than ``len()`` of the loader last gave, each
    further batch warns, as in PyTorch).

    A TensorDataset's batch is a list of tensors (one per dataset tensor, as PyTorch
    gives), each indexed out of its tensor at once and on its device; other datasets'
    samples are joined by collate_fn (``default_collate``).  With batch_size=None each
    sample goes through ``default_convert`` (NumPy arrays become tensors).

    Parameters
    ----------
    dataset : Dataset or IterableDataset
        Any object with ``__getitem__`` and ``__len__`` (``__len__`` may be missing when
        a sampler or batch_sampler is given), or an IterableDataset.  A dataset with
        ``__getitems__(indices)`` gets each batch's indices at once (it returns the
        list of samples that collate_fn joins), as in PyTorch.
    batch_size : int or None, optional
        Samples per batch (default 1); None yields the samples one by one.
    shuffle : bool, optional
        A new random order every epoch (default False).
    sampler : Sampler or iterable of int, optional
        The order of the indices (excludes shuffle).
    batch_sampler : Sampler or iterable of lists of int, optional
        The indices of each batch (excludes batch_size, shuffle, sampler, drop_last).
    num_workers : int, optional
        0 (default) loads in this process; more starts that many worker processes
        (from multiprocessing_context, the platform's default start method unless given)
        that make the batches, handed back in order: the same batches as without
        workers.  Each worker seeds Python's ``random`` and pydevtensor's default
        generator with a base seed (drawn from the loader's generator each epoch, with
        or without workers, as PyTorch; with persistent workers once, when they start)
        plus its id, which ``get_worker_info()`` gives
        there; an IterableDataset is read whole by every worker unless it shares itself
        out by ``get_worker_info()``.  A worker's exception is raised again here
        ("Caught X in DataLoader worker process N" and its traceback); a worker that
        dies is a RuntimeError.  Batches cross between processes pickled, CPU tensors
        only: a dataset holding CUDA tensors, or a worker making one, is a RuntimeError.
        NumPy's global generator (``numpy.random``) is seeded in each worker from the
        base seed and the worker's id, as in PyTorch: distinct streams per worker, the
        same for the same loader generator state.  More workers than the CPUs this
        process may use (``os.sched_getaffinity``) warns, as PyTorch, when the loader is
        made and when its workers start.
    collate_fn : callable, optional
        Joins a list of samples into a batch (default ``default_collate``); given, it is
        used for a TensorDataset too, sample by sample.
    pin_memory : bool, optional
        Copy the batches' CPU tensors to page-locked host memory (``Tensor.pin_memory``)
        for faster, asynchronous copies to a GPU.  Without a CUDA device it warns and is
        ignored, as in PyTorch.
    drop_last : bool, optional
        Leave out the last batch when it is short (default False).
    timeout, worker_init_fn, multiprocessing_context, prefetch_factor, persistent_workers
        PyTorch's worker options, checked as PyTorch checks them (prefetch_factor,
        persistent_workers and multiprocessing_context need num_workers > 0;
        multiprocessing_context is a start method's name or a multiprocessing context;
        prefetch_factor is 2 by default with workers, and 0 is refused when iterating).
        timeout > 0: seconds to wait for a batch before a RuntimeError;
        worker_init_fn(worker_id) runs in each worker after seeding; prefetch_factor
        batches per worker are asked for in advance; persistent_workers=True keeps the
        workers from one epoch to the next (else they stop at the end of each epoch or
        when its iterator is deleted); they serve one epoch at a time, so an iterator
        whose epoch a newer ``iter(loader)`` ended raises RuntimeError (PyTorch returns
        its one iterator, reset).
    generator : Generator, optional
        The stream shuffle=True's orders (and the default RandomSampler) draw from
        (default: the default generator).
    pin_memory_device : str, optional
        Deprecated in PyTorch, as here: given with pin_memory=True it warns and is
        ignored (the pinned memory is the CUDA host's).
    in_order : bool, optional
        PyTorch's (default True): False lets its workers hand over a batch as soon as
        it is ready rather than in the sampler's order, as here.

    Raises
    ------
    TypeError
        When dataset has no ``__getitem__``, or no ``__len__`` and no sampler or
        batch_sampler, or batch_size is not an int.
    ValueError
        When batch_size < 1, num_workers < 0, or the options conflict as in PyTorch
        (sampler with shuffle; batch_sampler with batch_size, shuffle, sampler or
        drop_last; batch_size=None with drop_last; shuffle, sampler or batch_sampler
        with an IterableDataset; worker options with num_workers=0).

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> X, y = pydevtensor.arange(10.).reshape(5, 2), pydevtensor.arange(5)
    >>> loader = data.DataLoader(data.TensorDataset(X, y), batch_size=2)
    >>> len(loader)
    3
    >>> for Xb, yb in loader:
    ...     print(tuple(Xb.shape), yb.tolist())
    (2, 2) [0, 1]
    (2, 2) [2, 3]
    (1, 2) [4]
    >>> [b[0].tolist() for b in data.DataLoader(data.TensorDataset(y), batch_sampler=[[4, 0], [2]])]
    [[4, 0], [2]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Iterable[Any] | None = None,
                 batch_sampler: Iterable[Sequence[Any]] | None = None,
                 num_workers: int = 0,
                 collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None,
                 *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        where = "DataLoader()"
        iterable = isinstance(dataset, IterableDataset)
        # __len__ is needed only for the samplers made here (as PyTorch's need it)
        sized = hasattr(dataset, "__len__") or sampler is not None or batch_sampler is not None
        if not iterable and not (hasattr(dataset, "__getitem__") and sized):
            raise TypeError(f"{where}: dataset must have __getitem__ and __len__ (a Dataset; "
                            f"__getitem__ alone with a sampler or batch_sampler), or be an "
                            f"IterableDataset; got {type(dataset).__name__}")
        _check_worker_options(where, num_workers, timeout, prefetch_factor,
                              persistent_workers, multiprocessing_context, worker_init_fn)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"{where}: DataLoader with IterableDataset: expected "
                                     f"unspecified {name} option, but got {name}={value!r}")
        if sampler is not None and shuffle:
            raise ValueError(f"{where}: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(f"{where}: batch_sampler option is mutually exclusive with "
                                 f"batch_size, shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is not None:
            # ValueError, as PyTorch's BatchSampler check for any batch_size not a positive int
            batch_size = _size_of(batch_size, f"{where}: batch_size", ValueError)
            if batch_size < 1:
                raise ValueError(f"{where}: batch_size must be >= 1 (or None), got {batch_size}")
        elif drop_last:
            raise ValueError(f"{where}: batch_size=None option disables auto-batching and "
                             f"is mutually exclusive with drop_last")
        self.generator = _generator_arg(generator, where)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.num_workers = num_workers
        if collate_fn is None:  # PyTorch's defaults, shown as the attribute
            batched = batch_size is not None or batch_sampler is not None
            collate_fn = default_collate if batched else default_convert
        self.collate_fn = collate_fn
        self.drop_last = bool(drop_last)
        self.pin_memory = bool(pin_memory)
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        # PyTorch's default with workers: two batches in advance per worker
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None \
            else prefetch_factor
        self.persistent_workers = bool(persistent_workers)
        self.in_order = in_order  # kept as given, as PyTorch's
        # an IterableDataset's loader length as len(self) last gave it (None: not read)
        self._len_reported: int | None = None
        # The TensorDataset fast path: no sampler of the caller's, and (checked at each
        # epoch: it may be set later, as in PyTorch) collate_fn still default_collate.
        self._fast = (type(dataset) is TensorDataset and batch_size is not None
                      and sampler is None and batch_sampler is None)
        _check_worker_number(num_workers, 2)  # here and for each new set of workers
        if iterable:
            self.sampler = self.batch_sampler = None
            self.__initialized = True
            return
        if sampler is None:
            sampler = (RandomSampler(dataset, generator=self.generator) if self.shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, self.drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.__initialized = True

    # what the samplers were built from: set later, len() and the batches would disagree
    _FIXED = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
              "persistent_workers")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._FIXED and self.__dict__.get("_DataLoader__initialized"):
            raise ValueError(f"{name} attribute should not be set after DataLoader is "
                             f"initialized (make a new DataLoader)")
        super().__setattr__(name, value)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # TypeError without __len__, as in PyTorch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            self._len_reported = n  # an epoch yielding more batches warns, as PyTorch's
            return n
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers > 0 and self.prefetch_factor == 0:  # where PyTorch checks it
            raise ValueError("DataLoader: prefetch_factor must be greater than 0 for "
                             "multi-process loading (num_workers > 0), got 0")
        batches = self._worker_batches() if self.num_workers > 0 else self._batches()
        if not self.pin_memory:
            return _Batches(self, batches)
        if self.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be "
                          f"used as the device, ignore pin_memory_device="
                          f"'{self.pin_memory_device}'.", UserWarning, stacklevel=2)
        if not _cuda.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is "
                          "found, then device pinned memory won't be used.", UserWarning,
                          stacklevel=2)
            return _Batches(self, batches)
        return _Batches(self, (_pin(b) for b in batches))

    def _base_seed(self):
        """The workers' base seed, drawn from the loader's generator as PyTorch's iterators
        draw it, with or without workers (so that the sampler's orders are the same either
        way), before the epoch's first index."""
        return int(_C.empty((), dtype=_C.int64).random_(generator=self.generator).item())

    def _worker_batches(self):
        """This epoch's batches from worker processes (persistent ones kept by the loader:
        the base seed is drawn when they start, once, as PyTorch's persistent iterator does,
        not at each epoch)."""
        device = _dataset_device(self.dataset)
        if device is not None:
            raise RuntimeError(f"DataLoader: the dataset holds tensors on {device}, which "
                               f"worker processes cannot use (CUDA cannot be re-initialized "
                               f"in a forked subprocess, and a worker gives CPU tensors "
                               f"only); keep the dataset on the CPU and move each batch to "
                               f"the GPU, or use num_workers=0")
        pool = self.__dict__.get("_pool")
        if pool is None or not pool.processes:
            context = self.multiprocessing_context
            if context is None or isinstance(context, str):
                context = multiprocessing.get_context(context)
            spec = _Spec(self.dataset, self.batch_size, self.drop_last, self.collate_fn,
                         self.batch_sampler is not None, self.worker_init_fn)
            _check_worker_number(self.num_workers, 3)
            pool = WorkerPool(context, spec, self.num_workers, self._base_seed())
            if self.persistent_workers:
                self._pool = pool
        return WorkerBatches(self, pool, self.persistent_workers)

    def __del__(self):
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.__del__()

    def _batches(self):
        self._base_seed()  # drawn, unused, as PyTorch's in-process iterator does
        if isinstance(self.dataset, IterableDataset):
            return stream_batches(self.dataset, self.batch_size, self.drop_last,
                                  self.collate_fn)
        if self._fast and self.collate_fn is default_collate:
            return self._tensor_batches(self.dataset.tensors, len(self.dataset))
        auto = self.batch_sampler is not None
        return (fetch_map(self.dataset, indices, self.collate_fn, auto)
                for indices in (self.batch_sampler if auto else self.sampler))

    def _bounds(self, n):
        """(start, stop) of each batch of n samples."""
        size = self.batch_size
        end = n - n % size if self.drop_last else n
        return [(start, min(start + size, n)) for start in range(0, end, size)]

    def _tensor_batches(self, tensors, n):
        """Each batch indexed out of every tensor at once: a slice in order, or a slice
        of the epoch's permutation (one per device the tensors are on)."""
        orders = {}
        shuffle = isinstance(self.sampler, RandomSampler)  # the one made for shuffle=True
        if shuffle:
            order = _randperm(n, device=tensors[0].device, generator=self.sampler.generator)
            for t in tensors:
                if t.device not in orders:
                    orders[t.device] = order.to(t.device)
        for start, stop in self._bounds(n):
            if shuffle:
                yield [t[orders[t.device][start:stop]] for t in tensors]
            else:  # contiguous, as the stacked samples of PyTorch's batches are
                yield [t[start:stop].clone(memory_format=contiguous_format)
                       for t in tensors]


class _Batches:
    """An epoch's iterator over a DataLoader's batches; len() is the loader's, as the
    iterator of PyTorch's loader has one."""

    __slots__ = ("_loader", "_it", "_reported", "_yielded")

    def __init__(self, loader: DataLoader, batches: Iterator[Any]) -> None:
        self._loader, self._it = loader, batches
        # len(loader) of an IterableDataset read before this epoch began, as PyTorch's
        # iterator takes it when made
        self._reported = loader._len_reported
        self._yielded = 0

    def __iter__(self) -> "_Batches":
        return self

    def __next__(self) -> Any:
        batch = next(self._it)
        self._yielded += 1
        if self._reported is not None and self._yielded > self._reported:
            # PyTorch's warning (each batch past the length); here the batches are counted
            # against len(loader)'s batches, where PyTorch's counts them against the
            # dataset's samples and so misses a wrong length whenever batch_size > 1
            warnings.warn(f"Length of IterableDataset {self._loader.dataset} was reported to "
                          f"be {self._reported} batches (when accessing len(dataloader)), "
                          f"but {self._yielded} batches have been fetched.", UserWarning,
                          stacklevel=2)
        return batch

    def __len__(self) -> int:
        return len(self._loader)
