"""DistributedSampler: each process of a data-parallel job (DistributedDataParallel, one
process per device, started by ``python -m pydevtensor.distributed.run``) reads its own
share of a dataset, as ``torch.utils.data.distributed.DistributedSampler``.

The indices (shuffled with a generator seeded by ``seed + epoch``, the same in every
process, so the shares are disjoint) are padded by repeating the first ones until their
count divides by the number of replicas, or cut to that with ``drop_last=True``; rank r
takes every num_replicas-th index from position r.  Call ``set_epoch(epoch)`` before
each epoch, or every epoch reads the same order.  The order for a seed is the package's
Philox stream's, not PyTorch's.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Sized
from typing import Any

from ..._generator import Generator
from ..._ops_shortcuts import randperm as _randperm
from ._sampler import Sampler, _bool_arg

__all__ = ["DistributedSampler"]


def _int_arg(value: Any) -> Any:
    """value as an int when it is an integer (a NumPy one too) and not a bool, else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


class DistributedSampler(Sampler):
    """This process's share of a dataset's indices in a data-parallel job.

    Parameters
    ----------
    dataset : sized
        The dataset (its length is read each epoch).
    num_replicas : int, optional
        The number of processes (default: ``distributed.get_world_size()``).
    rank : int, optional
        This process's rank, in [0, num_replicas) (default: ``distributed.get_rank()``).
    shuffle : bool, optional
        Shuffle the indices each epoch (default True).
    seed : int, optional
        The shuffle's seed, the same in every process (default 0).
    drop_last : bool, optional
        Cut the tail so that the shares are equal without repeating indices (default
        False: pad by repeating the first indices).

    Raises
    ------
    ValueError
        When num_replicas or rank is not given and no process group is initialized, rank
        is outside [0, num_replicas) or num_replicas is not positive.
    TypeError
        When seed is not an int.

    Examples
    --------
    >>> from pydevtensor.utils.data import DistributedSampler
    >>> s = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
    >>> list(s), len(s)
    ([1, 4, 7, 0], 4)
    """

    def __init__(self, dataset: Sized, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed
            if not distributed.is_initialized():  # PyTorch's get_world_size() ValueError
                raise ValueError("DistributedSampler(): num_replicas and rank come from "
                                 "the default process group, and none is initialized: "
                                 "call pydevtensor.distributed.init_process_group() "
                                 "first, or pass both")
            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        replicas, index = _int_arg(num_replicas), _int_arg(rank)  # NumPy ints too
        if replicas is None or replicas < 1:
            raise ValueError(f"DistributedSampler(): num_replicas must be a positive int, "
                             f"got {num_replicas!r}")
        if index is None or not 0 <= index < replicas:
            raise ValueError(f"Invalid rank {rank!r}, rank should be in the interval "
                             f"[0, {replicas - 1}]")
        if _int_arg(seed) is None:
            # PyTorch's fails at the first epoch (manual_seed); int() cut 1.5 to 1
            raise TypeError(f"DistributedSampler(): seed must be an int, got "
                            f"{type(seed).__name__} {seed!r}")
        self.dataset = dataset
        self.num_replicas = replicas
        self.rank = index
        self.epoch = 0
        self.shuffle = _bool_arg(shuffle, "shuffle", "DistributedSampler()")
        self.seed = int(seed)
        self.drop_last = _bool_arg(drop_last, "drop_last", "DistributedSampler()")

    @property
    def num_samples(self) -> int:
        """How many indices this process reads an epoch: the same in every process.

        Examples
        --------
        >>> from pydevtensor.utils.data import DistributedSampler
        >>> DistributedSampler(range(10), 4, 0, drop_last=True).num_samples
        2
        """
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas:
            return math.ceil((n - self.num_replicas) / self.num_replicas)
        return math.ceil(n / self.num_replicas)

    @property
    def total_size(self) -> int:
        """num_samples times num_replicas: the indices all processes read an epoch.

        Examples
        --------
        >>> from pydevtensor.utils.data import DistributedSampler
        >>> DistributedSampler(range(10), 4, 0).total_size
        12
        """
        return self.num_samples * self.num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = _randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        total = self.total_size
        if self.drop_last:
            indices = indices[:total]
        elif indices:
            while len(indices) < total:  # pad with the first ones (again, if need be)
                indices += indices[:total - len(indices)]
        return iter(indices[self.rank:total:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch, which seeds this epoch's shuffle (with seed) in every process.

        Parameters
        ----------
        epoch : int

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor.utils.data import DistributedSampler
        >>> s = DistributedSampler(range(8), 2, 0)
        >>> first = list(s); s.set_epoch(1)
        >>> sorted(first + list(DistributedSampler(range(8), 2, 1))) == list(range(8))
        True
        """
        self.epoch = int(epoch)
