"""utils.data beyond TensorDataset batching (issue: tester2's dataloader_missing): the
samplers (orders checked as sets/permutations, reproducible with a seeded generator),
sampler=/batch_sampler= in DataLoader, ConcatDataset / Dataset + Dataset,
IterableDataset and ChainDataset, get_worker_info, default_collate's NumPy dtypes and
default_convert (against torch when importable), pin_memory without CUDA (warns, as
torch), and PyTorch's argument-conflict errors."""

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor.utils import data


class Count(data.IterableDataset):
    def __init__(self, n, with_len=True):
        self.n, self.with_len = n, with_len

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.with_len:
            raise TypeError("no len")
        return self.n


def test_samplers_orders():
    assert list(data.SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = pdt.Generator().manual_seed(3)
    first = list(data.RandomSampler(range(7), generator=g))
    assert sorted(first) == list(range(7))
    g.manual_seed(3)
    assert list(data.RandomSampler(range(7), generator=g)) == first  # reproducible
    long = list(data.RandomSampler(range(3), num_samples=8))
    assert len(long) == 8 and sorted(long[:6]) == [0, 0, 1, 1, 2, 2]
    drawn = list(data.RandomSampler(range(3), replacement=True, num_samples=100))
    assert len(drawn) == 100 and set(drawn) == {0, 1, 2}
    assert sorted(data.SubsetRandomSampler([9, 4, 6])) == [4, 6, 9]
    w = list(data.WeightedRandomSampler([0.0, 0.0, 2.0, 1.0], 200))
    assert set(w) == {2, 3} and 100 < w.count(2) < 170
    once = list(data.WeightedRandomSampler(pdt.tensor([1., 1., 1.]), 3, replacement=False))
    assert sorted(once) == [0, 1, 2]
    assert list(data.BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert len(data.BatchSampler(range(5), 2, True)) == 2


def test_sampler_errors_match_torch():
    torch = torch_or_skip()
    cases = [(lambda m: m.RandomSampler(range(3), replacement=1)),
             (lambda m: m.RandomSampler(range(3), num_samples=0)),
             (lambda m: m.WeightedRandomSampler([1., 2.], 0)),
             (lambda m: m.WeightedRandomSampler([[1., 2.]], 2)),
             (lambda m: m.BatchSampler(range(3), 0, False)),
             (lambda m: m.BatchSampler(range(3), 2, 1))]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch.utils.data)
        with pytest.raises(theirs.type):
            case(data)


def test_loader_with_samplers():
    ds = data.TensorDataset(pdt.arange(6) * 10)
    got = [b[0].tolist() for b in data.DataLoader(ds, batch_size=4, sampler=[5, 0, 3, 1, 2])]
    assert got == [[50, 0, 30, 10], [20]]
    loader = data.DataLoader(ds, batch_sampler=[[1, 2], [5]])
    assert len(loader) == 2 and [b[0].tolist() for b in loader] == [[10, 20], [50]]
    assert loader.batch_size is None
    g = pdt.Generator()
    orders = []
    for _ in range(2):
        g.manual_seed(5)
        orders.append([b.tolist() for b in data.DataLoader(list(range(9)), batch_size=4,
                                                               shuffle=True, generator=g)])
    assert orders[0] == orders[1] and sorted(sum(orders[0], [])) == list(range(9))
    one = data.DataLoader(ds, batch_size=None, sampler=[3, 1])
    assert [x[0].item() for x in one] == [30, 10] and len(one) == 2


def test_loader_conflicts_match_torch():
    torch = torch_or_skip()
    ds = list(range(4))
    bad = [dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
           dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], sampler=[0]),
           dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
           dict(prefetch_factor=2), dict(persistent_workers=True), dict(num_workers=-1),
           dict(timeout=-1), dict(multiprocessing_context="spawn")]
    for kw in bad:
        with pytest.raises(ValueError) as theirs:
            torch.utils.data.DataLoader(ds, **kw)
        with pytest.raises(ValueError):
            data.DataLoader(ds, **kw)
        assert theirs.type is ValueError
    for kw in [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]:
        with pytest.raises(ValueError, match="IterableDataset"):
            torch.utils.data.DataLoader(torch.utils.data.ChainDataset([]), **kw)
        with pytest.raises(ValueError, match="IterableDataset: expected unspecified"):
            data.DataLoader(Count(3), **kw)
    # the worker options are accepted with workers, as in torch
    data.DataLoader(ds, num_workers=2, worker_init_fn=print, persistent_workers=True,
                    prefetch_factor=4, timeout=5, multiprocessing_context="spawn")


def test_pin_memory_without_cuda_warns_and_ignores():
    if pdt.cuda.is_available():
        loader = data.DataLoader(data.TensorDataset(pdt.arange(4.)), batch_size=2,
                                 pin_memory=True)
        assert all(b[0].is_pinned() for b in loader)
        return
    loader = data.DataLoader(list(range(4)), batch_size=2, pin_memory=True)
    with pytest.warns(UserWarning, match="pin_memory"):
        batches = [b.tolist() for b in loader]
    assert batches == [[0, 1], [2, 3]]


def test_concat_and_add():
    a = data.TensorDataset(pdt.arange(3))
    b = data.TensorDataset(pdt.arange(2) + 100)
    cat = a + b
    assert isinstance(cat, data.ConcatDataset) and len(cat) == 5
    assert [cat[i][0].item() for i in range(-5, 5)] == [0, 1, 2, 100, 101] * 2
    assert [x[0].tolist() for x in data.DataLoader(cat, batch_size=4)] == [[0, 1, 2, 100], [101]]
    with pytest.raises(IndexError, match="out of range"):  # PyTorch's: ends iteration
        cat[5]
    with pytest.raises(ValueError, match="empty"):
        data.ConcatDataset([])
    with pytest.raises(TypeError, match="IterableDataset"):
        data.ConcatDataset([a, Count(2)])


def test_iterable_dataset_loader():
    assert [b.tolist() for b in data.DataLoader(Count(5), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in data.DataLoader(Count(5), batch_size=2, drop_last=True)] == \
        [[0, 1], [2, 3]]
    assert len(data.DataLoader(Count(5), batch_size=2)) == 3
    assert list(data.DataLoader(Count(2), batch_size=None)) == [0, 1]  # ints stay
    with pytest.raises(TypeError):
        len(data.DataLoader(Count(5, with_len=False), batch_size=2))

    class NoLen(data.IterableDataset):
        def __iter__(self):
            yield data.get_worker_info()

    with pytest.raises(TypeError):
        len(data.DataLoader(NoLen()))
    assert list(NoLen()) == [None]  # get_worker_info() is None in this process
    chain = Count(2) + Count(3)
    assert isinstance(chain, data.ChainDataset) and list(chain) == [0, 1, 0, 1, 2]
    assert len(chain) == 5


@pytest.mark.parametrize("np_dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_collate_numpy_like_torch(np_dtype):
    torch = torch_or_skip()
    scalars = [np.dtype(np_dtype).type(v) for v in (1, 0, 1)]
    arrays = [np.arange(3).astype(np_dtype) for _ in range(2)]
    for batch in (scalars, arrays):
        ours = data.default_collate(batch)
        theirs = torch.utils.data.default_collate(batch)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    out = next(iter(data.DataLoader(scalars, batch_size=3)))
    assert out.dtype == getattr(pdt, np_dtype)


def test_default_convert_like_torch():
    torch = torch_or_skip()
    sample = {"x": np.ones(2, np.float32), "y": (np.int64(3), "s"), "z": [np.float64(1.5)]}
    ours, theirs = data.default_convert(sample), torch.utils.data.default_convert(sample)
    assert isinstance(ours["x"], pdt.Tensor) and ours["x"].dtype == pdt.float32
    assert isinstance(ours["y"], list) and isinstance(theirs["y"], list)
    assert ours["y"][0].dtype == pdt.int64 and ours["y"][1] == "s"
    assert ours["z"][0].dtype == pdt.float64 and isinstance(theirs["z"][0], torch.Tensor)
    got = next(iter(data.DataLoader([np.ones(2)], batch_size=None)))
    assert isinstance(got, pdt.Tensor) and got.dtype == pdt.float64
    with pytest.raises(TypeError, match="dtype <U1"):
        data.default_collate([np.array(["a"]), np.array(["b"])])


def test_string_fields_stay_a_tuple_like_torch():
    torch = torch_or_skip()
    samples = [(0, "a"), (1, "b")]
    ours = next(iter(data.DataLoader(samples, batch_size=2)))
    theirs = next(iter(torch.utils.data.DataLoader(samples, batch_size=2)))
    assert type(ours[1]) is type(theirs[1]) is tuple and ours[1] == ("a", "b")
    assert next(iter(data.DataLoader(["x", "y"], batch_size=2))) == ["x", "y"]


def test_default_convert_leaves_a_masked_array(tmp_path):
    """PyTorch converts NumPy's own types only (type(x).__module__ == "numpy"); a masked
    array became a tensor of its data, its mask dropped.  np.memmap is NumPy's: converted."""
    masked = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    mapped = np.memmap(tmp_path / "m.bin", dtype=np.float32, mode="w+", shape=(3,))
    mapped[:] = [4.0, 5.0, 6.0]
    out = data.default_convert([masked, mapped])
    assert out[0] is masked
    assert isinstance(out[1], pdt.Tensor) and out[1].dtype == pdt.float32
    np.testing.assert_array_equal(out[1].numpy(), [4.0, 5.0, 6.0])
