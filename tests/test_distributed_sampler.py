"""DistributedSampler (pydevtensor/utils/data/distributed.py): each rank's share, as
torch.utils.data.distributed.DistributedSampler's rules, simulated for every rank in one
process (the MPI workers run DDP itself)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.utils.data import DataLoader, DistributedSampler, TensorDataset


@pytest.mark.parametrize("n, replicas", [(10, 3), (12, 4), (2, 4), (7, 1), (0, 2)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_shares_cover_the_dataset_once_padded_or_cut(n, replicas, shuffle):
    data = range(n)
    for drop_last in (False, True):
        shares = [list(DistributedSampler(data, replicas, r, shuffle=shuffle,
                                          drop_last=drop_last)) for r in range(replicas)]
        lengths = {len(s) for s in shares}
        assert len(lengths) == 1  # the same count everywhere: no rank waits on the others
        per = lengths.pop()
        if drop_last and n % replicas:
            assert per == math.ceil((n - replicas) / replicas)
            flat = [i for s in shares for i in s]
            assert len(set(flat)) == len(flat)  # nothing repeated
        else:
            assert per == math.ceil(n / replicas)
            assert set(i for s in shares for i in s) == set(range(n))
        if not shuffle:
            merged = [shares[r][k] for k in range(per) for r in range(replicas)]
            assert merged[:min(n, per * replicas)] == list(range(n))[:per * replicas]


def test_epochs_reshuffle_the_same_way_on_every_rank():
    a0, a1 = DistributedSampler(range(20), 2, 0, seed=3), DistributedSampler(range(20), 2, 1,
                                                                               seed=3)
    first = (list(a0), list(a1))
    assert sorted(first[0] + first[1]) == list(range(20))
    assert list(a0) == first[0]  # no set_epoch: the same order again
    a0.set_epoch(1)
    a1.set_epoch(1)
    second = (list(a0), list(a1))
    assert second != first and sorted(second[0] + second[1]) == list(range(20))
    assert list(DistributedSampler(range(20), 2, 0, seed=4)) != first[0]


def test_with_a_dataloader():
    ds = TensorDataset(pdt.arange(10.0))
    seen = []
    for rank in range(2):
        loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, 2, rank,
                                                                         shuffle=False))
        assert len(loader) == 3
        seen += [v for (batch,) in loader for v in batch.tolist()]
    assert sorted(seen) == [float(i) for i in range(10)]


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval "
                                         r"\[0, 1\]"):
        DistributedSampler(range(4), 2, 2)
    with pytest.raises(ValueError, match="num_replicas must be a positive int"):
        DistributedSampler(range(4), 0, 0)
    with pytest.raises(ValueError, match="init_process_group"):  # PyTorch's type
        DistributedSampler(range(4))
    with pytest.raises(ValueError, match="shuffle should be a boolean"):
        DistributedSampler(range(4), 2, 0, shuffle=1)


def test_seed_must_be_an_int_and_numpy_ints_are_taken():
    """A seed of 1.5 was cut to 1 (PyTorch's fails at its first epoch); num_replicas and
    rank as NumPy ints (a world size read from an array) were refused, PyTorch takes them."""
    with pytest.raises(TypeError, match=r"seed must be an int, got float 1\.5"):
        DistributedSampler(range(4), 2, 0, seed=1.5)
    s = DistributedSampler(range(7), np.int64(3), np.int32(1), shuffle=False)
    assert (s.num_replicas, s.rank) == (3, 1) and type(s.num_replicas) is int
    padded = list(range(7)) + [0, 1]  # to 9 = 3 * ceil(7 / 3), the first ones again
    assert list(s) == padded[1::3] and len(s) == 3
    assert list(DistributedSampler(range(9), 2, 0, seed=np.int64(4))) == \
        list(DistributedSampler(range(9), 2, 0, seed=4))
