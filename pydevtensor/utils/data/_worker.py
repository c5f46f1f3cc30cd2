"""DataLoader worker processes, after PyTorch's design (torch/utils/data/dataloader.py and
_utils/worker.py), in our own code.

The main process starts ``num_workers`` processes from the loader's multiprocessing context
(the platform's default start method unless one is given: fork on Linux), each with its own
index queue, and all writing to one result queue.  A task is (epoch, batch number, indices):
a map-style dataset's worker fetches those indices and collates them; an IterableDataset's
worker (indices None) gives the next batch of its own copy of the dataset, iterated once per
epoch, or an end marker once that is exhausted.  At most ``prefetch_factor * num_workers``
tasks are outstanding; the batches are handed back in the sampler's order (``in_order=True``)
or as they arrive.

A worker runs one CPU thread (``set_num_threads(1)``, as PyTorch's), seeds Python's
``random`` and pydevtensor's default generator with ``base_seed + worker_id``
(``base_seed`` drawn from the loader's generator for each epoch, as PyTorch
does, also without workers; for persistent workers once, when they start), NumPy's legacy
global generator (``numpy.random.seed``) with PyTorch's four words for (base_seed,
worker_id) (``_numpy_seed``), sets what ``get_worker_info()`` returns, then calls
``worker_init_fn(worker_id)``.  It pickles each result itself, so a result that cannot be
pickled, or that holds a tensor not on the CPU, is an error of that batch, re-raised in the
main process as PyTorch's "Caught X in DataLoader worker process N" with the worker's
traceback, rather than a result silently lost by the queue's feeder thread.

The main process waits for a result at most ``_POLL`` seconds at a time, and between waits
checks that every worker is alive (a dead one is a RuntimeError naming its pid and exit
code or signal) and, with ``timeout > 0``, how long it has waited.  A worker checks on its
parent in the same way and exits when the parent is gone.  The workers are shut down
(told to stop, joined, terminated if they do not stop) at the end of an epoch, when the
epoch's iterator is deleted or collected, or on an error; with ``persistent_workers=True``
they live as long as the loader, and results of an abandoned epoch are discarded by their
epoch number (so an abandoned epoch's iterator, used again, raises: it would wait for ever
for results the newer epoch discards).
"""
from __future__ import annotations

import os
import pickle
import queue
import random
import signal
import sys
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _C
from ..._threads import set_num_threads as _set_num_threads
from ...random import manual_seed as _manual_seed
from ._collate import default_collate, default_convert
from ._dataset import IterableDataset

_POLL = 0.25  # seconds between liveness checks, in the main process and the workers
_JOIN = 5.0  # seconds a worker is given to stop before it is terminated

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` gives in a DataLoader worker: its id (0 to num_workers
    - 1), the number of workers, its seed and its copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


def get_worker_info() -> WorkerInfo | None:
    """Information about the DataLoader worker process this runs in, or None in the
    main process, as PyTorch's.

    In a worker the result has ``id`` (0 to ``num_workers - 1``), ``num_workers``,
    ``seed`` (the seed of this worker's Python ``random`` and pydevtensor generators:
    the epoch's base seed plus the id; NumPy's global generator is seeded from the base
    seed and the id too, as in PyTorch) and ``dataset`` (this process's copy).  An
    IterableDataset uses it to give each worker its own share of the samples.

    Returns
    -------
    WorkerInfo or None

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> data.get_worker_info() is None
    True
    """
    return _worker_info


@dataclass(frozen=True)
class _Spec:
    """What a worker needs to make batches (picklable for the spawn start method)."""

    dataset: Any
    batch_size: int | None
    drop_last: bool
    collate_fn: Any
    auto_collation: bool  # the tasks are lists of indices (a batch_sampler's)
    worker_init_fn: Any


def fetch_map(dataset, indices, collate_fn, auto_collation):
    """A map-style dataset's batch for indices (or its one sample without auto-collation)."""
    if not auto_collation:
        return (collate_fn if collate_fn is not None else default_convert)(dataset[indices])
    collate = collate_fn if collate_fn is not None else default_collate
    # a dataset's __getitems__ reads a batch at once, as PyTorch's fetcher calls it
    getitems = getattr(dataset, "__getitems__", None)
    return collate(getitems(indices) if getitems else [dataset[i] for i in indices])


def stream_batches(dataset, batch_size, drop_last, collate_fn):
    """An IterableDataset's batches (its samples one by one with batch_size=None)."""
    if batch_size is None:
        convert = collate_fn if collate_fn is not None else default_convert
        for sample in dataset:
            yield convert(sample)
        return
    collate = collate_fn if collate_fn is not None else default_collate
    batch = []
    for sample in dataset:
        batch.append(sample)
        if len(batch) == batch_size:
            yield collate(batch)
            batch = []
    if batch and not drop_last:
        yield collate(batch)


def _dumps(value):
    return pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


class _StreamEnd:
    """A worker's IterableDataset is exhausted for this epoch."""


class _KeyErrorMessage(str):
    """KeyError shows its argument's repr: this one's is the text itself, as PyTorch's."""

    def __repr__(self):
        return self


class _WorkerError:
    """An exception raised in a worker: its type and traceback text, re-raised in the main
    process as PyTorch's ExceptionWrapper does."""

    def __init__(self, worker_id: int) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))
        self.worker_id = worker_id

    def reraise(self):
        msg = (f"Caught {self.exc_type.__name__} in DataLoader worker process "
               f"{self.worker_id}.\nOriginal {self.text}")
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _not_cpu(value, depth=0):
    """The device of the first tensor not on the CPU in value's containers, or None."""
    if isinstance(value, _C.Tensor):
        return value.device if value.device.type != "cpu" else None
    if depth > 8 or isinstance(value, (str, bytes)):
        return None
    items = value.values() if isinstance(value, Mapping) else \
        value if isinstance(value, (list, tuple)) else ()
    for item in items:
        found = _not_cpu(item, depth + 1)
        if found is not None:
            return found
    return None


def _dataset_device(dataset):
    """A device not the CPU that the dataset's tensors (its attributes, one level of
    containers down) are on, or None."""
    found = _not_cpu(getattr(dataset, "tensors", None))
    if found is None and hasattr(dataset, "__dict__"):
        found = _not_cpu(list(vars(dataset).values()))
    return found


def _result(spec, task, state, worker_id):
    """The pickled result of one task; state holds an IterableDataset's epoch stream."""
    epoch, _, indices = task
    try:
        if indices is None:  # an IterableDataset: the next batch of this epoch's stream
            if state.get("epoch") != epoch:
                state.update(epoch=epoch, stream=iter(stream_batches(
                    spec.dataset, spec.batch_size, spec.drop_last, spec.collate_fn)))
            result = next(state["stream"], _StreamEnd) if state["stream"] else _StreamEnd
            if result is _StreamEnd:
                state["stream"] = None
                result = _StreamEnd()
        else:
            result = fetch_map(spec.dataset, indices, spec.collate_fn, spec.auto_collation)
        device = _not_cpu(result)
        if device is not None:
            raise RuntimeError(f"DataLoader worker {worker_id} produced a tensor on {device}: "
                               f"a worker process gives CPU tensors only (CUDA cannot be used "
                               f"in a worker process); load on the CPU and move each batch "
                               f"to the GPU in the main process (pin_memory=True makes that "
                               f"copy asynchronous), or use num_workers=0")
        return _dumps(result)
    except Exception:
        return _dumps(_WorkerError(worker_id))


def _numpy_seed(base_seed, worker_id):
    """The seed of a worker's NumPy global generator: four 32-bit words that PyTorch's
    ``_generate_state`` derives from (worker_id, base_seed) with NumPy's SeedSequence
    hash, so that NumPy's stream differs from the ``random`` and pydevtensor streams
    seeded with base_seed + worker_id, and from every other worker's."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4)


def _worker_loop(spec, worker_id, num_workers, base_seed, index_queue, result_queue,
                 parent_pid):
    """A worker process's body: seeds, worker_init_fn, then tasks until told to stop
    (None) or its parent is gone."""
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    # one CPU thread a worker, as PyTorch's _worker_loop sets: num_workers processes
    # each running the parent's thread count would oversubscribe the cores
    _set_num_threads(1)
    seed = base_seed + worker_id
    random.seed(seed)
    _manual_seed(seed)
    np.random.seed(_numpy_seed(base_seed, worker_id))
    _worker_info = WorkerInfo(worker_id, num_workers, seed, spec.dataset)
    init_error = None
    if spec.worker_init_fn is not None:
        try:
            spec.worker_init_fn(worker_id)
        except Exception:
            init_error = _dumps(_WorkerError(worker_id))
    state: dict[str, Any] = {}
    try:
        while True:
            try:
                task = index_queue.get(timeout=_POLL)
            except queue.Empty:
                if os.getppid() != parent_pid:
                    break
                continue
            if task is None:
                break
            data = init_error if init_error is not None else \
                _result(spec, task, state, worker_id)
            result_queue.put((task[0], task[1], data))
    except KeyboardInterrupt:
        pass
    # results not yet written are not wanted once told to stop: exit without waiting
    # for the queue's feeder thread to write them to a reader that may be gone
    result_queue.cancel_join_thread()
    index_queue.cancel_join_thread()


class WorkerPool:
    """A loader's worker processes and their queues."""

    def __init__(self, context, spec, num_workers, base_seed):
        self.result_queue = context.Queue()
        self.index_queues, self.processes = [], []
        self.epoch = 0
        try:
            for worker_id in range(num_workers):
                index_queue = context.Queue()
                process = context.Process(
                    target=_worker_loop, daemon=True,
                    args=(spec, worker_id, num_workers, base_seed, index_queue,
                          self.result_queue, os.getpid()))
                process.start()
                self.index_queues.append(index_queue)
                self.processes.append(process)
        except BaseException:
            self.shutdown()
            raise

    def check_alive(self):
        for worker_id, process in enumerate(self.processes):
            code = process.exitcode  # None while it runs (waitpid, without blocking)
            if code is None:
                try:
                    os.kill(process.pid, 0)
                    continue
                except ProcessLookupError:  # gone, its status collected by someone else
                    how = "exited unexpectedly (its exit status was collected elsewhere)"
            else:
                how = (f"is killed by signal: {signal.Signals(-code).name}" if code < 0 else
                       f"exited unexpectedly with exit code {code}")
            self.shutdown(_POLL)
            raise RuntimeError(f"DataLoader worker {worker_id} (pid {process.pid}) {how}")

    def get(self, timeout):
        """The next (epoch, batch number, result) from any worker; RuntimeError when a
        worker died or, with timeout > 0, none came in timeout seconds."""
        start = time.monotonic()
        while True:
            wait = _POLL
            if timeout > 0:
                wait = min(wait, timeout - (time.monotonic() - start))
                if wait <= 0:
                    self.shutdown(_POLL)  # a worker may be stuck: not long to stop
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds")
            try:
                epoch, number, data = self.result_queue.get(timeout=wait)
            except queue.Empty:
                self.check_alive()
                continue
            return epoch, number, pickle.loads(data)

    def shutdown(self, patience=_JOIN):
        """Tells the workers to stop, gives them patience seconds, then terminates them."""
        processes, self.processes = self.processes, []
        for index_queue, process in zip(self.index_queues, processes):
            if process.is_alive():
                try:
                    index_queue.put(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + patience
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(_JOIN)
            if process.is_alive():
                process.kill()
                process.join()
        for q in self.index_queues + [self.result_queue]:
            q.cancel_join_thread()
            q.close()
        self.index_queues = []

    def __del__(self):
        if getattr(self, "processes", None):
            try:
                self.shutdown()
            except Exception:  # at interpreter exit, the modules may be gone
                pass


class WorkerBatches:
    """One epoch's batches from a WorkerPool, in order (or as they come with in_order=False);
    the pool is shut down at the end unless persistent."""

    def __init__(self, loader, pool, persistent):
        self._loader, self._pool, self._persistent = loader, pool, persistent
        pool.epoch += 1
        self._epoch = pool.epoch
        iterable = isinstance(loader.dataset, IterableDataset)
        self._tasks = None if iterable else iter(
            loader.batch_sampler if loader.batch_sampler is not None else loader.sampler)
        self._active = [True] * len(pool.processes)  # an IterableDataset's not exhausted
        self._next_worker = 0
        self._sent = self._received = 0
        self._pending: dict[int, int] = {}  # batch number -> worker id, not yet received
        self._arrived: dict[int, Any] = {}  # results received ahead of their turn
        for _ in range(loader.prefetch_factor * len(pool.processes)):
            self._send()

    def _send(self):
        n = len(self._active)
        for step in range(n):  # the next worker in turn with data left
            worker = (self._next_worker + step) % n
            if self._active[worker]:
                break
        else:
            return
        if self._tasks is not None:
            indices = next(self._tasks, _StreamEnd)
            if indices is _StreamEnd:
                return
        else:
            indices = None
        self._pool.index_queues[worker].put((self._epoch, self._sent, indices))
        self._pending[self._sent] = worker
        self._sent += 1
        self._next_worker = (worker + 1) % n

    def __iter__(self):
        return self

    def __next__(self):
        if self._pool is None:
            raise StopIteration
        if self._pool.epoch != self._epoch:  # persistent workers, a newer epoch began
            newer, self._pool = self._pool.epoch, None
            raise RuntimeError(
                f"DataLoader: this iterator's epoch ({self._epoch}) was ended by a newer one "
                f"({newer}): with persistent_workers=True the workers serve one epoch "
                f"at a time, and iter(loader) starts the next (PyTorch's loader resets and "
                f"returns its one iterator); iterate one epoch after another, or use "
                f"persistent_workers=False for concurrent iterators")
        while self._pending:
            if self._loader.in_order:
                number = self._received
            else:
                number = next(iter(self._arrived), None)
            if number in self._arrived:
                result = self._arrived.pop(number)
                worker = self._pending.pop(number)
                self._received += 1
                if isinstance(result, _StreamEnd):
                    self._active[worker] = False
                    self._send()
                    continue
                if isinstance(result, _WorkerError):
                    self.close()
                    result.reraise()
                self._send()
                return result
            epoch, got, result = self._pool.get(self._loader.timeout)
            if epoch == self._epoch:  # another epoch's are left over from an abandoned one
                self._arrived[got] = result
        self.close()
        raise StopIteration

    def close(self):
        """Ends the epoch: shuts the workers down unless they are persistent."""
        pool, self._pool = self._pool, None
        if pool is not None and not self._persistent:
            pool.shutdown()

    def __del__(self):
        self.close()
