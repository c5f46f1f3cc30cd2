"""Samplers of ``pydevtensor.utils.data``: the orders in which a DataLoader reads a
map-style dataset's indices, as ``torch.utils.data``'s samplers.  Random ones draw from
the package's Philox stream (``randperm``, ``randint``, ``multinomial`` on the CPU), so a
seeded ``generator=`` (or ``manual_seed``) makes them reproducible; the sequences are not
PyTorch's for the same seed."""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from ... import _C
from ..._generator import Generator
from ..._ops_multinomial import multinomial as _multinomial
from ..._ops_shortcuts import randperm as _randperm

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]


def _generator_arg(generator, where):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{where}: generator must be a pydevtensor.Generator or None, got "
                        f"{type(generator).__name__}")
    return generator


def _positive_int(value, name, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{where}: {name} should be a positive integer value, but got "
                         f"{name}={value!r}")
    return int(value)


def _bool_arg(value, name, where, error=ValueError):
    if not isinstance(value, bool):
        raise error(f"{where}: {name} should be a boolean value, but got {name}={value!r}")
    return value


class Sampler:
    """The base of samplers: a subclass defines ``__iter__``, yielding dataset indices
    (or, for a batch sampler, lists of them), and usually ``__len__``.

    Parameters
    ----------
    data_source : sized, optional
        Accepted for PyTorch's signature (unused by the base class).

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> class Backwards(data.Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n - 1, -1, -1))
    ...     def __len__(self):
    ...         return self.n
    >>> ds = data.TensorDataset(pydevtensor.arange(4))
    >>> next(iter(data.DataLoader(ds, batch_size=3, sampler=Backwards(4))))
    [tensor([3, 2, 1])]
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """The indices 0, 1, ..., len(data_source) - 1 in order.

    Parameters
    ----------
    data_source : sized
        The dataset.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> list(data.SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices of data_source in random order: a new permutation each pass (with
    num_samples above the length, further permutations follow), or with
    replacement=True num_samples independent uniform draws.

    Parameters
    ----------
    data_source : sized
        The dataset.
    replacement : bool, optional
        Draw with replacement (default False).
    num_samples : int, optional
        How many indices a pass yields (default len(data_source)).
    generator : Generator, optional
        The stream drawn from (default: the default generator).

    Raises
    ------
    TypeError
        When replacement is not a bool.
    ValueError
        When num_samples is not a positive int.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> g = pydevtensor.Generator().manual_seed(0)
    >>> sorted(data.RandomSampler(range(5), generator=g))
    [0, 1, 2, 3, 4]
    >>> len(list(data.RandomSampler(range(5), replacement=True, num_samples=8)))
    8
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        where = "RandomSampler()"
        self.data_source = data_source
        self.replacement = _bool_arg(replacement, "replacement", where, TypeError)
        self._num_samples = num_samples
        self.generator = _generator_arg(generator, where)
        _positive_int(self.num_samples, "num_samples", where)

    @property
    def num_samples(self) -> int:
        """How many indices a pass yields: num_samples, or len(data_source).

        Examples
        --------
        >>> from pydevtensor.utils import data
        >>> data.RandomSampler(range(4)).num_samples
        4
        """
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        count = self.num_samples
        if self.replacement:
            for start in range(0, count, 32):
                size = min(32, count - start)
                yield from _C.randint(0, n, (size,), generator=self.generator).tolist()
            return
        for _ in range(count // n):
            yield from _randperm(n, generator=self.generator).tolist()
        if count % n:
            yield from _randperm(n, generator=self.generator).tolist()[:count % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a new random order each pass.

    Parameters
    ----------
    indices : sequence of int
    generator : Generator, optional
        The stream drawn from (default: the default generator).

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> sorted(data.SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = _generator_arg(generator, "SubsetRandomSampler()")

    def __iter__(self) -> Iterator[int]:
        for i in _randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices in [0, len(weights)), index i drawn with probability
    proportional to weights[i] (``multinomial``).

    Parameters
    ----------
    weights : sequence of float, or 1-d Tensor
        The weights (not necessarily summing to 1).
    num_samples : int
        How many indices a pass yields.
    replacement : bool, optional
        Draw with replacement (default True); without it, no index repeats.
    generator : Generator, optional
        The stream drawn from (default: the default generator).

    Raises
    ------
    ValueError
        When num_samples is not a positive int, replacement not a bool, or weights not
        one-dimensional.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> list(data.WeightedRandomSampler([0., 1., 0.], 3))
    [1, 1, 1]
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        where = "WeightedRandomSampler()"
        self.num_samples = _positive_int(num_samples, "num_samples", where)
        self.replacement = _bool_arg(replacement, "replacement", where)
        weights = (weights.detach().cpu().to(_C.float64) if isinstance(weights, _C.Tensor)
                   else _C.tensor(weights, dtype=_C.float64))
        if weights.ndim != 1:
            raise ValueError(f"{where}: weights should be a 1d sequence but given weights "
                             f"have shape {tuple(weights.shape)}")
        self.weights = weights
        self.generator = _generator_arg(generator, where)

    def __iter__(self) -> Iterator[int]:
        drawn = _multinomial(self.weights, self.num_samples, self.replacement,
                             generator=self.generator)
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of batch_size.

    Parameters
    ----------
    sampler : Sampler or iterable of int
    batch_size : int
        Indices per batch (> 0).
    drop_last : bool
        Leave out the last list when it is short.

    Raises
    ------
    ValueError
        When batch_size is not a positive int or drop_last not a bool.

    Examples
    --------
    >>> from pydevtensor.utils import data
    >>> list(data.BatchSampler(data.SequentialSampler(range(5)), 2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> list(data.BatchSampler(range(5), 2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        where = "BatchSampler()"
        self.batch_size = _positive_int(batch_size, "batch_size", where)
        self.drop_last = _bool_arg(drop_last, "drop_last", where)
        self.sampler = sampler

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
