"""pydevtensor.utils.data: datasets and the loader that batches them, as ``torch.utils.data``
(Dive into Deep Learning's ``load_array``: ``data.DataLoader(data.TensorDataset(X, y),
batch_size, shuffle=is_train)``).

A TensorDataset is batched by indexing its tensors once per batch (a slice, or a slice
of one permutation when shuffling) rather than by stacking samples one by one; the
batches are new tensors (not views of the dataset) on the dataset tensors' own devices,
so nothing is copied between devices.  The permutation is ``randperm``'s, drawn on the
first tensor's device (the same on every device for one ``manual_seed``), and copied
once per epoch to any other device the dataset's tensors are on.  (On a GPU, indexing
a shuffled batch reads its index's min and max to the host, 16 bytes: the indexing
op's bounds check; batches in order are slices and read nothing.)  Other datasets (any
object with ``__getitem__`` and ``__len__``) are batched sample by sample through
``default_collate``, their permutation drawn on the CPU.

Loading happens in the calling process: ``num_workers`` is accepted for PyTorch's
signature and starts no workers.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _C
from .._interop import as_tensor as _as_tensor
from .._ops_join import stack as _stack
from .._generator import Generator
from .._ops_shortcuts import randperm as _randperm

__all__ = ["DataLoader", "Dataset", "Subset", "TensorDataset", "default_collate",
           "random_split"]


class Dataset:
    """The base of map-style datasets: a subclass defines ``__getitem__(i)``, the i-th
    sample, and ``__len__``, the number of samples.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> class Squares(data.Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return pydevtensor.tensor(float(i * i))
    >>> next(iter(data.DataLoader(Squares(), batch_size=3)))
    tensor([0., 1., 4.])
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


def _size_of(value, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where} must be an int, got {type(value).__name__}")
    return int(value)


class TensorDataset(Dataset):
    """Samples that are rows of tensors: sample i is ``(t[i] for t in tensors)``.

    Parameters
    ----------
    *tensors : Tensor
        One or more tensors with the same first dimension (the samples); they may be
        on different devices.

    Raises
    ------
    TypeError
        When an argument is not a Tensor.
    ValueError
        When there are none, one is 0-d, or their first dimensions differ.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> ds = data.TensorDataset(pydevtensor.arange(3), pydevtensor.tensor([1., 2., 3.]))
    >>> len(ds), ds[1]
    (3, (tensor(1), tensor(2.)))
    """

    def __init__(self, *tensors: _C.Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset() needs at least one tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"TensorDataset(): argument {i} must be a Tensor, got "
                                f"{type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset(): argument {i} is 0-d (on {t.device}); each "
                                 f"tensor needs a first dimension, the samples")
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) > 1:
            shapes = ", ".join(f"{tuple(t.shape)} on {t.device}" for t in tensors)
            raise ValueError(f"TensorDataset(): the tensors' first dimensions differ: sizes "
                             f"{sizes} (shapes {shapes}); every tensor needs one row per sample")
        self.tensors = tuple(tensors)

    def __getitem__(self, index: Any) -> tuple[_C.Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class Subset(Dataset):
    """The samples of dataset at the given indices, in their order.

    Parameters
    ----------
    dataset : Dataset
        Any object with ``__getitem__``.
    indices : sequence of int
        Indices into dataset.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> sub = data.Subset(data.TensorDataset(pydevtensor.arange(5) * 10), [4, 0])
    >>> len(sub), sub[0]
    (2, (tensor(40),))
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def _generator_arg(generator, where):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{where}: generator must be a pydevtensor.Generator or None, got "
                        f"{type(generator).__name__}")
    return generator


def random_split(dataset: Any, lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset]:
    """Splits dataset into non-overlapping Subsets of the given lengths, at random
    (``randperm`` on the CPU: reproducible under ``manual_seed``, or with a seeded
    ``generator``).

    Parameters
    ----------
    dataset : Dataset
        Any object with ``__getitem__`` and ``__len__``.
    lengths : sequence of int, or of float
        The lengths, summing to ``len(dataset)``; or fractions summing to 1, as in
        PyTorch: each gets ``floor(fraction * len(dataset))`` and the samples left over
        go one each to the first subsets.
    generator : Generator, optional
        The stream the permutation is drawn from (default: the default generator).

    Returns
    -------
    list of Subset

    Raises
    ------
    ValueError
        When the lengths do not add up, or one is negative.
    TypeError
        When a length is neither an int nor a float.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> _ = pydevtensor.manual_seed(0)
    >>> train, test = data.random_split(data.TensorDataset(pydevtensor.arange(10)), [0.8, 0.2])
    >>> len(train), len(test)
    (8, 2)
    """
    where = "random_split()"
    generator = _generator_arg(generator, where)
    n = len(dataset)
    lengths = list(lengths)
    for x in lengths:
        if isinstance(x, bool) or not isinstance(x, (numbers.Integral, float)):
            raise TypeError(f"{where}: lengths must be ints or fractions, got "
                            f"{type(x).__name__}")
        if not x >= 0:
            raise ValueError(f"{where}: lengths must be >= 0, got {x}")
    if lengths and all(isinstance(x, float) and x <= 1 for x in lengths) and math.isclose(
            sum(lengths), 1.0):
        sizes = [int(math.floor(n * x)) for x in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
    elif all(isinstance(x, numbers.Integral) for x in lengths):
        sizes = [int(x) for x in lengths]
    else:
        sizes = []
    if sum(sizes) != n or len(sizes) != len(lengths):
        raise ValueError(f"{where}: the lengths {lengths} do not add up to the dataset's "
                         f"{n} samples (nor, as fractions, to 1)")
    order = _randperm(n, device="cpu", generator=generator).tolist()
    out, start = [], 0
    for length in sizes:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out


def default_collate(batch: Sequence[Any]) -> Any:
    """Joins a list of samples into a batch, as PyTorch's ``default_collate``: tensors
    are stacked (on their device), NumPy arrays stacked into a CPU tensor, Python
    floats give float64, ints int64 and bools bool tensors, strings stay a list;
    dicts, named tuples, tuples and lists are joined field by field (tuples and lists
    give a list, as in PyTorch).

    Parameters
    ----------
    batch : sequence
        The samples, all of one structure.

    Returns
    -------
    Tensor, list, dict or named tuple
        The batch.

    Raises
    ------
    TypeError
        For a sample of another type.
    RuntimeError
        When sequence samples have different lengths.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> data.default_collate([(pydevtensor.tensor([1., 2.]), 0), (pydevtensor.tensor([3., 4.]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _stack(list(batch))
    if isinstance(elem, np.ndarray):
        return _stack([_as_tensor(np.asarray(b)) for b in batch])
    if isinstance(elem, (bool, np.bool_)):
        return _C.tensor(list(batch), dtype=_C.bool)
    if isinstance(elem, numbers.Integral):
        return _C.tensor(list(batch), dtype=_C.int64)
    if isinstance(elem, numbers.Real):
        return _C.tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError(f"default_collate: the samples are sequences of different "
                               f"lengths ({sorted({len(s) for s in batch})}); each needs "
                               f"the same number of fields")
        fields = [default_collate(list(samples)) for samples in zip(*batch)]
        if isinstance(elem, tuple) and hasattr(elem, "_fields"):
            return type(elem)(*fields)
        return fields
    raise TypeError(f"default_collate: a sample must hold Tensors, NumPy arrays, numbers, "
                    f"strings, dicts or sequences; found {type(elem).__name__}")


class DataLoader:
    """Iterates over a dataset in batches, as PyTorch's ``DataLoader``: the samples in
    order, or in a new random order each epoch with shuffle=True (``randperm``, so
    reproducible under ``pydevtensor.manual_seed``).

    A TensorDataset's batch is a list of tensors (one per dataset tensor, as PyTorch
    gives), each indexed out of its tensor at once and on its device; other datasets'
    samples are joined by collate_fn (``default_collate``).

    Parameters
    ----------
    dataset : Dataset
        Any object with ``__getitem__`` and ``__len__``.
    batch_size : int or None, optional
        Samples per batch (default 1); None yields the samples one by one.
    shuffle : bool, optional
        A new random order every epoch (default False).
    num_workers : int, optional
        Accepted for PyTorch's signature (>= 0); the samples are loaded in this process.
    collate_fn : callable, optional
        Joins a list of samples into a batch (default ``default_collate``); given, it is
        used for a TensorDataset too, sample by sample.
    drop_last : bool, optional
        Leave out the last batch when it is short (default False).
    generator : Generator, optional
        With shuffle=True, the stream each epoch's order is drawn from (default: the
        default generator).

    Raises
    ------
    TypeError
        When dataset has no ``__getitem__`` or ``__len__``, or batch_size is not an int.
    ValueError
        When batch_size < 1, num_workers < 0, or batch_size is None with drop_last.

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
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool = False,
                 num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None,
                 drop_last: bool = False, generator: Generator | None = None) -> None:
        where = "DataLoader()"
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"{where}: dataset must have __getitem__ and __len__ (a Dataset), "
                            f"got {type(dataset).__name__}")
        if batch_size is not None:
            batch_size = _size_of(batch_size, f"{where}: batch_size")
            if batch_size < 1:
                raise ValueError(f"{where}: batch_size must be >= 1 (or None), got {batch_size}")
        elif drop_last:
            raise ValueError(f"{where}: batch_size=None (no batching) and drop_last=True "
                             f"exclude each other")
        if _size_of(num_workers, f"{where}: num_workers") < 0:
            raise ValueError(f"{where}: num_workers must be >= 0, got {num_workers}")
        self.generator = _generator_arg(generator, where)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.drop_last = bool(drop_last)

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _bounds(self, n):
        """(start, stop) of each batch of n samples."""
        size = self.batch_size
        end = n - n % size if self.drop_last else n
        return [(start, min(start + size, n)) for start in range(0, end, size)]

    def __iter__(self) -> Iterator[Any]:
        n = len(self.dataset)
        tensors = (self.dataset.tensors if type(self.dataset) is TensorDataset
                   and self.collate_fn is None and self.batch_size is not None else None)
        if tensors is not None:
            return self._tensor_batches(tensors, n)
        return self._sample_batches(n)

    def _tensor_batches(self, tensors, n):
        """Each batch indexed out of every tensor at once: a slice in order, or a slice
        of the epoch's permutation (one per device the tensors are on)."""
        orders = {}
        if self.shuffle:
            order = _randperm(n, device=tensors[0].device, generator=self.generator)
            for t in tensors:
                if t.device not in orders:
                    orders[t.device] = order.to(t.device)
        for start, stop in self._bounds(n):
            if self.shuffle:
                yield [t[orders[t.device][start:stop]] for t in tensors]
            else:
                yield [t[start:stop].clone() for t in tensors]

    def _sample_batches(self, n):
        order = (_randperm(n, device="cpu", generator=self.generator).tolist()
                 if self.shuffle else range(n))
        collate = self.collate_fn if self.collate_fn is not None else default_collate
        if self.batch_size is None:
            for i in order:
                sample = self.dataset[i]
                if self.collate_fn is not None:
                    yield collate(sample)
                elif isinstance(sample, tuple) and not hasattr(sample, "_fields"):
                    yield list(sample)  # as PyTorch's default_convert
                else:
                    yield sample
            return
        for start, stop in self._bounds(n):
            yield collate([self.dataset[i] for i in order[start:stop]])
