"""Datasets of ``pydevtensor.utils.data``: the map-style ``Dataset`` and its
``TensorDataset``, ``Subset``, ``StackDataset``, ``ConcatDataset`` (also ``a + b``), the
stream-style ``IterableDataset`` and ``ChainDataset``, and ``random_split``."""
from __future__ import annotations

import bisect
import math
import numbers
import operator
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ... import _C
from ..._generator import Generator
from ..._ops_shortcuts import randperm as _randperm

__all__ = ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "StackDataset",
           "Subset", "TensorDataset", "random_split"]


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

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


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

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """The samples at indices, as a list: the dataset's own ``__getitems__`` when it
        has one (a DataLoader's batch is then read at once), else one by one.

        Parameters
        ----------
        indices : list of int
            Indices into the subset.

        Returns
        -------
        list

        Examples
        --------
        >>> from pydevtensor.utils import data
        >>> data.Subset([10, 20, 30], [2, 0]).__getitems__([1, 0])
        [10, 30]
        """
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


class StackDataset(Dataset):
    """Several datasets of one length side by side: sample i is the tuple (or the dict,
    given by name) of their samples i, as ``torch.utils.data.StackDataset``.

    Parameters
    ----------
    *args : Dataset
        Datasets whose samples are stacked into tuples.
    **kwargs : Dataset
        Instead, datasets whose samples are stacked into dicts under these names.

    Raises
    ------
    ValueError
        When no dataset or both forms are given, or the datasets' lengths differ.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> pairs = data.StackDataset([1, 2, 3], "abc")
    >>> len(pairs), pairs[1]
    (3, (2, 'b'))
    >>> data.StackDataset(x=[1, 2], y=[10, 20])[0]
    {'x': 1, 'y': 10}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = args or tuple(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError(f"Size mismatch between datasets: lengths "
                             f"{[len(dataset) for dataset in parts]}")
        self.datasets = args or kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """The samples at indices, as a list of tuples (dicts): each dataset's own
        ``__getitems__`` where it has one (a DataLoader's batch read at once), else
        its samples one by one.

        Parameters
        ----------
        indices : list of int
            Indices into the datasets.

        Returns
        -------
        list

        Raises
        ------
        ValueError
            When a dataset's ``__getitems__`` returns another number of samples.

        Examples
        --------
        >>> from pydevtensor.utils import data
        >>> data.StackDataset([1, 2, 3], "abc").__getitems__([2, 0])
        [(3, 'c'), (1, 'a')]
        """
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, dataset in parts:
            getitems = getattr(dataset, "__getitems__", None)
            if callable(getitems):
                items = getitems(indices)
                if len(items) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
            else:
                items = [dataset[i] for i in indices]
            columns[key] = items
        if named:
            return [{k: items[j] for k, items in columns.items()} for j in range(len(indices))]
        return [tuple(items[j] for items in columns.values()) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


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
        go one each to the first subsets (a UserWarning, as PyTorch's, names a subset
        that gets none).
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
        When a length is neither an int nor a float, or floats that are not fractions
        summing to 1 (``[3.0, 7.0]``).

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
    # one-element tensors (lengths computed with tensors) by their value, as PyTorch's
    lengths = [x.item() if isinstance(x, _C.Tensor) and x.numel() == 1 else x
               for x in lengths]
    for x in lengths:
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{where}: lengths must be ints or fractions, got "
                            f"{type(x).__name__}")
        if not x >= 0:
            raise ValueError(f"{where}: lengths must be >= 0, got {x}")
    if lengths and math.isclose(sum(lengths), 1.0) and sum(lengths) <= 1:
        # fractions, PyTorch's test: [0.8, 0.2], [1, 0] and NumPy floats too
        # n * x in x's own type, as PyTorch's: np.float32(0.7) of 10 is 7, not 6
        sizes = [int(math.floor(n * x)) for x in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, length in enumerate(sizes):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              f"empty dataset.", UserWarning, stacklevel=2)
    elif all(isinstance(x, numbers.Integral) for x in lengths):
        sizes = [int(x) for x in lengths]
    elif math.isclose(sum(lengths), n):  # PyTorch's TypeError (from randperm)
        raise TypeError(f"{where}: lengths {lengths} that are not fractions summing to 1 "
                        f"must be ints, got {[type(x).__name__ for x in lengths]}")
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


class IterableDataset(Dataset):
    """The base of stream-style datasets: a subclass defines ``__iter__``, which yields
    the samples (it need not define ``__len__``; ``len()`` of a DataLoader over it then
    raises TypeError, as in PyTorch).  A DataLoader batches the stream in order; it takes
    no ``shuffle``, ``sampler`` or ``batch_sampler``.  Loading happens in this process, so
    ``get_worker_info()`` inside ``__iter__`` is None and the stream is read once.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> class Count(data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in data.DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index: Any) -> Any:
        raise TypeError(f"{type(self).__name__} is an IterableDataset: its samples are read "
                        f"by iterating it, not by index")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class ConcatDataset(Dataset):
    """The samples of several map-style datasets one after another (``a + b`` gives one).

    Parameters
    ----------
    datasets : iterable of Dataset
        Map-style datasets (with ``__getitem__`` and ``__len__``), at least one.

    Attributes
    ----------
    cumulative_sizes : list of int
        The running totals of the datasets' lengths.

    Raises
    ------
    ValueError
        When datasets is empty, or an index is out of range.
    TypeError
        When one of them is an IterableDataset.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> ds = data.TensorDataset(pydevtensor.arange(3)) + data.TensorDataset(pydevtensor.arange(2) * 10)
    >>> len(ds), ds[3], ds[-1]
    (5, (tensor(0),), (tensor(10),))
    >>> ds.cumulative_sizes
    [3, 5]
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset(): datasets should not be an empty iterable")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError(f"ConcatDataset(): dataset {i} is an IterableDataset "
                                f"({type(d).__name__}); ConcatDataset takes map-style "
                                f"datasets (ChainDataset joins iterable ones)")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1] if self.cumulative_sizes else 0

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if not isinstance(index, bool) and not isinstance(index, numbers.Integral) and \
                hasattr(index, "__index__"):
            index = operator.index(index)  # a 0-d integer tensor (a sampler's randperm)
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise TypeError(f"ConcatDataset: an index must be an int, got "
                            f"{type(index).__name__}")
        if index >= n:  # IndexError, as PyTorch's: what ends iteration by __getitem__
            raise IndexError(f"ConcatDataset: index {index} is out of range for "
                             f"{n} samples")
        if index < -n:  # PyTorch's ValueError for a negative one
            raise ValueError(f"ConcatDataset: absolute value of index {index} should not "
                             f"exceed dataset length {n}")
        index = int(index) % n
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """The samples of several IterableDatasets, one stream after another.

    Parameters
    ----------
    datasets : iterable of IterableDataset

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> class Count(data.IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    ...     def __len__(self):
    ...         return self.n
    >>> chain = data.ChainDataset([Count(2), Count(3)])
    >>> list(chain), len(chain)
    ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset: dataset {i} ({type(d).__name__}) is not "
                                f"an IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset: dataset {i} ({type(d).__name__}) is not "
                                f"an IterableDataset")
            total += len(d)
        return total
