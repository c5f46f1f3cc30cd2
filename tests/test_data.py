"""utils.data on every device: TensorDataset's checks; DataLoader's batches equal NumPy's
slices of the data (exact: they are copies of its rows), in order or in randperm's order
(reproducible under manual_seed, a new order each epoch), on the dataset's device with no
copy between devices; len() with and without drop_last; other datasets joined by
default_collate (PyTorch's types: a list per tuple sample, float64 for Python floats);
Subset and random_split; the errors."""
import collections
import math
import textwrap
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, run_python, torch_or_skip
from pydevtensor.utils import data

N, F = 11, 3
X = np.arange(N * F, dtype=np.float32).reshape(N, F) / 4
Y = (np.arange(N) * 7) % 5


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _dataset(dev):
    return data.TensorDataset(pdt.tensor(X, device=dev), pdt.tensor(Y, device=dev))


def test_tensor_dataset_samples(dev):
    ds = _dataset(dev)
    assert len(ds) == N
    x, y = ds[4]
    np.testing.assert_array_equal(x.cpu().numpy(), X[4])
    assert y.item() == Y[4] and x.device == pdt.device(dev)
    xs, ys = ds[2:5]
    np.testing.assert_array_equal(xs.cpu().numpy(), X[2:5])
    np.testing.assert_array_equal(ys.cpu().numpy(), Y[2:5])


def test_tensor_dataset_refuses_what_is_not_samples(dev):
    x = pdt.zeros(4, 2, device=dev)
    with pytest.raises(ValueError, match=r"TensorDataset\(\): the tensors' first dimensions "
                                         r"differ: sizes \[4, 3\] \(shapes \(4, 2\) on .*, "
                                         r"\(3,\) on "):
        data.TensorDataset(x, pdt.zeros(3, device=dev))
    with pytest.raises(ValueError, match=r"argument 1 is 0-d"):
        data.TensorDataset(x, pdt.tensor(1.0, device=dev))
    with pytest.raises(TypeError, match=r"argument 0 must be a Tensor, got ndarray"):
        data.TensorDataset(X)
    with pytest.raises(ValueError, match=r"needs at least one tensor"):
        data.TensorDataset()


@pytest.mark.parametrize("batch_size", [1, 4, 11, 20])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batches_in_order_match_numpy(dev, batch_size, drop_last):
    loader = data.DataLoader(_dataset(dev), batch_size=batch_size, drop_last=drop_last)
    want = (N // batch_size) if drop_last else math.ceil(N / batch_size)
    assert len(loader) == want
    batches = list(loader)
    assert len(batches) == want
    for k, batch in enumerate(batches):
        assert isinstance(batch, list) and len(batch) == 2  # a list, as PyTorch gives
        xb, yb = batch
        rows = slice(k * batch_size, min((k + 1) * batch_size, N))
        assert xb.device == pdt.device(dev) and yb.device == pdt.device(dev)
        assert xb.dtype == pdt.float32 and yb.dtype == pdt.int64
        np.testing.assert_array_equal(xb.cpu().numpy(), X[rows])
        np.testing.assert_array_equal(yb.cpu().numpy(), Y[rows])


def test_batches_are_copies_not_views_of_the_dataset(dev):
    ds = _dataset(dev)
    for loader in (data.DataLoader(ds, 4), data.DataLoader(ds, 4, shuffle=True)):
        xb, _ = next(iter(loader))
        xb.zero_()
    np.testing.assert_array_equal(ds.tensors[0].cpu().numpy(), X)


def test_shuffle_is_randperm_order_reproducible_under_manual_seed(dev):
    loader = data.DataLoader(_dataset(dev), batch_size=4, shuffle=True)
    pdt.manual_seed(5)
    epoch1 = list(loader)
    epoch2 = list(loader)
    pdt.manual_seed(5)
    # each epoch first draws the workers' base seed (one int64), as PyTorch's iterators do
    pdt.empty((), dtype=pdt.int64).random_()
    order = pdt.randperm(N, device=dev).cpu().numpy()
    pdt.manual_seed(5)
    again = list(loader)
    assert [len(b[1]) for b in epoch1] == [4, 4, 3]
    ys = np.concatenate([b[1].cpu().numpy() for b in epoch1])
    xs = np.concatenate([b[0].cpu().numpy() for b in epoch1])
    np.testing.assert_array_equal(xs, X[order])  # the rows in randperm's order
    np.testing.assert_array_equal(ys, Y[order])
    for a, b in zip(epoch1, again):
        np.testing.assert_array_equal(a[0].cpu().numpy(), b[0].cpu().numpy())
    xs2 = np.concatenate([b[0].cpu().numpy() for b in epoch2])
    assert not np.array_equal(xs, xs2)  # a new order each epoch
    np.testing.assert_array_equal(np.sort(xs2, axis=0), X)


def test_iterating_copies_no_data_between_devices(dev):
    """Nothing goes to or from the host or to another device but, on a GPU, the min and
    max of a shuffled batch's index (8 bytes each: the indexing op's bounds check).  On
    a GPU, copies within the device (a batch's clone, randperm's sort) are counted as
    device_to_device: at most the dataset and the permutation once."""
    ds = _dataset(dev)
    data_bytes = X.size * 4 + Y.size * 8
    for shuffle in (False, True):
        loader = data.DataLoader(ds, batch_size=3, shuffle=shuffle)
        pdt.reset_transfer_stats()
        for xb, yb in loader:
            assert xb.device == pdt.device(dev) and yb.device == pdt.device(dev)
        stats = pdt.transfer_stats()
        assert stats["host_to_device"]["count"] == stats["peer"]["count"] == 0, stats
        if pdt.device(dev).type == "cpu":
            assert stats["device_to_host"]["count"] == 0, stats
            assert stats["device_to_device"]["count"] == 0, stats
        else:
            assert stats["device_to_host"]["bytes"] <= (32 * len(loader) if shuffle else 0)
            assert stats["device_to_device"]["bytes"] <= data_bytes + 8 * N, stats


def test_d2l_load_array_trains_a_linear_regression(dev):
    """D2L 3.3: data.DataLoader(data.TensorDataset(*data_arrays), batch_size, shuffle=True)."""
    pdt.manual_seed(0)
    true_w = np.array([2.0, -3.4])
    features = np.random.default_rng(0).normal(size=(1000, 2))
    labels = (features @ true_w + 4.2).reshape(-1, 1)
    arrays = (pdt.tensor(features, dtype=pdt.float32, device=dev),
              pdt.tensor(labels, dtype=pdt.float32, device=dev))
    data_iter = data.DataLoader(data.TensorDataset(*arrays), 10, shuffle=True)
    net = pdt.nn.Sequential(pdt.nn.Linear(2, 1)).to(dev)
    loss = pdt.nn.MSELoss()
    trainer = pdt.optim.SGD(net.parameters(), lr=0.03)
    for _ in range(3):
        for xb, yb in data_iter:
            trainer.zero_grad()
            loss(net(xb), yb).backward()
            trainer.step()
    np.testing.assert_allclose(net[0].weight.detach().cpu().numpy().ravel(), true_w, atol=1e-3)
    np.testing.assert_allclose(net[0].bias.detach().cpu().item(), 4.2, atol=1e-3)


class Pairs(data.Dataset):
    """A general dataset: samples are (tensor, int, float, dict)."""

    def __init__(self, dev, make=None):
        self.make = make or (lambda a: pdt.tensor(a, device=dev))

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return (self.make(X[i]), int(Y[i]), i / 2, {"i": i})


def test_general_datasets_are_joined_by_default_collate(dev):
    loader = data.DataLoader(Pairs(dev), batch_size=2)
    assert len(loader) == 3
    batches = list(loader)
    xb, yb, half, d = batches[0]
    assert xb.device == pdt.device(dev)
    np.testing.assert_array_equal(xb.cpu().numpy(), X[:2])
    assert yb.dtype == pdt.int64 and yb.tolist() == Y[:2].tolist()
    assert half.dtype == pdt.float64 and half.tolist() == [0.0, 0.5]
    assert d["i"].tolist() == [0, 1]
    assert batches[2][1].tolist() == [Y[4]]
    pdt.manual_seed(2)
    shuffled = np.concatenate([b[3]["i"].numpy() for b in data.DataLoader(Pairs(dev), 2, True)])
    pdt.manual_seed(2)
    pdt.empty((), dtype=pdt.int64).random_()  # the epoch's base seed, as PyTorch's
    np.testing.assert_array_equal(shuffled, pdt.randperm(5, device="cpu").numpy())
    single = next(iter(data.DataLoader(Pairs(dev), batch_size=None)))
    assert isinstance(single, list) and single[1] == Y[0]  # the sample itself, as a list
    got = next(iter(data.DataLoader(_dataset(dev), 3, collate_fn=lambda b: len(b))))
    assert got == 3


def test_default_collate_types():
    Point = collections.namedtuple("Point", "x y")
    got = data.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(got, Point) and got.x.tolist() == [1, 3] and got.y.dtype == pdt.float64
    arr = data.default_collate([np.ones(2), np.zeros(2)])
    assert arr.dtype == pdt.float64 and arr.tolist() == [[1, 1], [0, 0]]
    assert data.default_collate([True, False]).dtype == pdt.bool
    assert data.default_collate(["a", "b"]) == ["a", "b"]
    with pytest.raises(RuntimeError, match=r"sequences of different lengths \(\[1, 2\]\)"):
        data.default_collate([[1], [1, 2]])
    with pytest.raises(TypeError, match=r"default_collate: a sample must hold .*; found object"):
        data.default_collate([object()])


def test_as_torch_does():
    torch = torch_or_skip()
    tdata = torch.utils.data
    tds = tdata.TensorDataset(torch.tensor(X), torch.tensor(Y))
    for bs, drop in ((4, False), (4, True), (3, False)):
        ours = list(data.DataLoader(_dataset("cpu"), bs, drop_last=drop))
        theirs = list(tdata.DataLoader(tds, bs, drop_last=drop))
        assert len(ours) == len(theirs) == len(tdata.DataLoader(tds, bs, drop_last=drop))
        for a, b in zip(ours, theirs):
            assert type(a) is type(b)
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u.numpy(), v.numpy())
    theirs = next(iter(tdata.DataLoader(Pairs("cpu", torch.tensor), 2)))
    ours = next(iter(data.DataLoader(Pairs("cpu"), 2)))
    assert [type(v).__name__ for v in ours] == [type(v).__name__ for v in theirs]
    assert str(ours[2].dtype).split(".")[-1] == str(theirs[2].dtype).split(".")[-1]
    lengths = [len(s) for s in tdata.random_split(range(10), [0.33, 0.33, 0.34])]
    assert [len(s) for s in data.random_split(range(10), [0.33, 0.33, 0.34])] == lengths


def test_subset_and_random_split(dev):
    ds = _dataset(dev)
    pdt.manual_seed(3)
    parts = data.random_split(ds, [6, 5])
    pdt.manual_seed(3)
    order = pdt.randperm(N, device="cpu").tolist()
    assert [p.indices for p in parts] == [order[:6], order[6:]]
    ys = [int(y.item()) for _, y in (parts[1][i] for i in range(len(parts[1])))]
    assert ys == [int(Y[i]) for i in order[6:]]
    loader = data.DataLoader(parts[0], batch_size=4)  # a Subset: sample by sample
    xb, yb = next(iter(loader))
    np.testing.assert_array_equal(xb.cpu().numpy(), X[order[:4]])
    assert xb.device == pdt.device(dev)
    assert [len(p) for p in data.random_split(ds, [0.5, 0.5])] == [6, 5]  # 5.5 + 5.5
    sub = data.Subset(ds, [3, 1])
    assert len(sub) == 2 and sub[0][1].item() == Y[3]
    with pytest.raises(ValueError, match=r"random_split\(\): the lengths \[6, 6\] do not add "
                                         r"up to the dataset's 11 samples"):
        data.random_split(ds, [6, 6])
    with pytest.raises(ValueError, match=r"lengths must be >= 0, got -1"):
        data.random_split(ds, [12, -1])


def test_loader_errors():
    ds = _dataset("cpu")
    with pytest.raises(ValueError, match=r"DataLoader\(\): batch_size must be >= 1 \(or None\), "
                                         r"got 0"):
        data.DataLoader(ds, batch_size=0)
    for size, name in ((2.0, "float"), (True, "bool"), ("2", "str")):  # PyTorch's ValueError
        with pytest.raises(ValueError, match=rf"DataLoader\(\): batch_size must be an int, "
                                             rf"got {name}"):
            data.DataLoader(ds, batch_size=size)
    with pytest.raises(ValueError, match=r"num_workers option should be non-negative.*got -1"):
        data.DataLoader(ds, num_workers=-1)
    with pytest.raises(TypeError, match=r"generator must be a pydevtensor.Generator or None, "
                                        r"got int"):
        data.DataLoader(ds, generator=1)
    with pytest.raises(TypeError, match=r"dataset must have __getitem__ and __len__ .*got int"):
        data.DataLoader(5)
    with pytest.raises(ValueError, match=r"batch_size=None option .* mutually exclusive with drop_last"):
        data.DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(NotImplementedError, match=r"Dataset must define __getitem__"):
        data.Dataset()[0]
    assert len(data.DataLoader(ds, 4, num_workers=2)) == 3


@pytest.mark.forks_workers
@pytest.mark.parametrize("workers", [0, 2])
def test_dataloader_takes_in_order(workers):
    # PyTorch's keyword: in_order=False takes the workers' batches as they come
    ds = data.TensorDataset(pdt.arange(10))
    assert data.DataLoader(ds).in_order is True
    want = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    for in_order in (True, False):
        loader = data.DataLoader(ds, 3, num_workers=workers, in_order=in_order)
        assert loader.in_order is in_order
        got = [b[0].tolist() for b in loader]
        assert (got if in_order else sorted(got)) == want


def test_dataset_on_two_logical_cpus():
    """Tensors on cpu:0 and cpu:1: each batch part stays on its tensor's device; shuffling
    copies the permutation once per epoch to the second device."""
    code = textwrap.dedent("""
        import pydevtensor as pdt
        from pydevtensor import config as c
        from pydevtensor.utils import data
        c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                           [c.LogicalDeviceConfiguration()] * 2)
        ds = data.TensorDataset(pdt.arange(6, device='cpu:0'),
                                pdt.arange(6, device='cpu:1') * 10)
        pdt.reset_transfer_stats()
        for x, y in data.DataLoader(ds, batch_size=4, shuffle=True):
            print(x.device, y.device, *(y - 0).tolist(), *x.tolist())
        print(pdt.transfer_stats()['peer']['count'])
    """)
    out = run_python(code)
    assert out[-1] == "1"
    first, second = out[:10], out[10:-1]
    assert first[:2] == ["cpu:0", "cpu:1"] and second[:2] == ["cpu:0", "cpu:1"]
    ys = [int(v) for v in first[2:6] + second[2:4]]
    xs = [int(v) for v in first[6:10] + second[4:6]]
    assert ys == [10 * x for x in xs] and sorted(xs) == list(range(6))


def test_default_collate_of_mixed_numbers_takes_the_dtype_of_all():
    """As PyTorch's torch.tensor(batch): the first sample's type decided the dtype, so a
    float after an int was truncated ([1, 2.5] gave [1, 2])."""
    from pydevtensor.utils.data import default_collate
    out = default_collate([1, 2.5])
    assert out.dtype == pdt.get_default_dtype() and out.tolist() == [1.0, 2.5]
    assert default_collate([0, 0.5, 1.5]).tolist() == [0.0, 0.5, 1.5]
    mixed = default_collate([True, 2])
    assert mixed.dtype == pdt.int64 and mixed.tolist() == [1, 2]
    assert default_collate([True, False]).dtype == pdt.bool
    assert default_collate([1, 2]).dtype == pdt.int64
    assert default_collate([2.5, 1]).dtype == pdt.float64
    batch = list(data.DataLoader([(1,), (2.75,)], batch_size=2))
    assert batch[0][0].tolist() == [1.0, 2.75]


def test_concat_dataset_iterates_and_takes_a_0d_tensor_index():
    """An index past the end is an IndexError, which ends iteration through
    __getitem__ (a ValueError made list(cd) fail); a 0-d integer tensor is an index (a
    sampler given randperm's tensor)."""
    cd = data.ConcatDataset([data.TensorDataset(pdt.arange(3)),
                             data.TensorDataset(pdt.arange(10, 13))])
    assert [int(s[0]) for s in cd] == [0, 1, 2, 10, 11, 12]
    assert int(cd[pdt.tensor(4)][0]) == 11
    with pytest.raises(IndexError):
        cd[6]
    with pytest.raises(ValueError, match="should not exceed"):
        cd[-7]
    order = pdt.randperm(6)
    got = [int(v) for b in data.DataLoader(cd, batch_size=2, sampler=order) for v in b[0]]
    assert sorted(got) == [0, 1, 2, 10, 11, 12]


def test_a_loaders_iterator_has_a_length_and_its_options_are_fixed():
    """len(iter(loader)) is len(loader), as PyTorch's; setting batch_size (or sampler,
    drop_last, dataset...) afterwards raises PyTorch's ValueError: the batch sampler was
    built from them, so len() and the batches disagreed (5 against 2)."""
    loader = data.DataLoader(data.TensorDataset(pdt.arange(10)), batch_size=2)
    it = iter(loader)
    assert len(it) == 5 and len(list(it)) == 5
    for name, value in (("batch_size", 5), ("drop_last", True), ("sampler", None)):
        with pytest.raises(ValueError, match=f"{name} attribute should not be set"):
            setattr(loader, name, value)
    loader.num_workers = 0  # the others may change, as in PyTorch
    assert len(list(loader)) == 5
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(4))
    streamed = data.DataLoader(Stream(), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute"):
        streamed.batch_size = 3


def test_random_split_takes_pytorchs_fractions():
    """Lengths summing to 1 are fractions whatever their type (NumPy floats, [1, 0]),
    PyTorch's test; np.float32 was a TypeError and [1, 0] refused."""
    ds = data.TensorDataset(pdt.arange(10))
    sizes = lambda lengths: [len(s) for s in data.random_split(ds, lengths)]  # noqa: E731
    assert sizes([np.float32(0.7), np.float32(0.3)]) == [7, 3]
    with pytest.warns(UserWarning, match=r"^Length of split at index 1 is 0\. This might "
                                         r"result in an empty dataset\.$"):
        assert sizes([1, 0]) == [10, 0]  # PyTorch's warning, for fractions only
    with pytest.warns(UserWarning, match="index 1 is 0"):
        assert sizes([1.0, 0]) == [10, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sizes([3, 7]) == [3, 7] and sizes([10, 0]) == [10, 0]
    with pytest.raises(ValueError, match="do not add up"):
        data.random_split(ds, [3, 6])


def test_default_collate_keeps_a_defaultdict():
    """A mutable mapping is copied and updated, as PyTorch's collate does: a defaultdict
    comes back a defaultdict with its factory (it became a plain dict)."""
    from pydevtensor.utils.data import default_collate
    sample = collections.defaultdict(list, {"a": 1, "b": 2.5})
    out = default_collate([sample, sample])
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert out["a"].tolist() == [1, 1] and out["b"].tolist() == [2.5, 2.5]
    assert sample["a"] == 1  # the sample itself is untouched


class _Batched(data.Dataset):
    """A dataset that reads a batch at once: its samples are -i there, i one by one."""

    def __init__(self, n=5):
        self.n, self.calls = n, []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i

    def __getitems__(self, indices):
        self.calls.append(list(indices))
        return [-i for i in indices]


def test_a_datasets_getitems_reads_each_batch_at_once():
    """PyTorch's fetcher calls __getitems__(indices) once per batch (then collate_fn);
    it was ignored.  Subset passes it on to its dataset's, else reads one by one."""
    ds = _Batched()
    assert [b.tolist() for b in data.DataLoader(ds, batch_size=2)] == [[0, -1], [-2, -3], [-4]]
    assert ds.calls == [[0, 1], [2, 3], [4]]
    seen = []
    loader = data.DataLoader(ds, batch_sampler=[[4, 1]], collate_fn=lambda s: seen.append(s))
    list(loader)
    assert seen == [[-4, -1]]
    assert list(data.DataLoader(ds, batch_size=None)) == [0, 1, 2, 3, 4]  # no batches
    sub = data.Subset(ds, [4, 2, 3])
    assert [b.tolist() for b in data.DataLoader(sub, batch_size=2)] == [[-4, -2], [-3]]
    assert ds.calls[-2:] == [[4, 2], [3]]
    plain = data.Subset([10, 20, 30], [2, 0, 1])
    assert plain.__getitems__([1, 2]) == [10, 20]
    assert [b.tolist() for b in data.DataLoader(plain, batch_size=3)] == [[30, 10, 20]]


def test_a_dataset_without_len_is_taken_with_a_sampler():
    class NoLen(data.Dataset):
        def __getitem__(self, i):
            return i * 10

    loader = data.DataLoader(NoLen(), sampler=[2, 0, 1], batch_size=2)
    assert [b.tolist() for b in loader] == [[20, 0], [10]] and len(loader) == 2
    loader = data.DataLoader(NoLen(), batch_sampler=[[3], [1, 0]])
    assert [b.tolist() for b in loader] == [[30], [10, 0]] and len(loader) == 2
    with pytest.raises(TypeError):
        len(data.DataLoader(NoLen(), sampler=iter([1, 2])))  # as PyTorch: only when asked
    with pytest.raises(TypeError, match=r"__getitem__ alone with a sampler or batch_sampler"):
        data.DataLoader(NoLen())  # the samplers made here need len()


def test_batches_of_a_non_contiguous_dataset_are_contiguous(dev):
    """PyTorch's batches are stacked samples, contiguous; slices of a transposed tensor
    were cloned with its strides, and .view(-1) of them failed."""
    x = pdt.tensor(X, device=dev).t().contiguous().t()  # X's values, column-major
    assert not x.is_contiguous()
    for shuffle in (False, True):
        for xb, in data.DataLoader(data.TensorDataset(x), batch_size=4, shuffle=shuffle):
            assert xb.is_contiguous() and xb.stride() == (F, 1)
            assert xb.view(-1).shape == (xb.shape[0] * F,)
    xb, = next(iter(data.DataLoader(data.TensorDataset(x), batch_size=4)))
    np.testing.assert_array_equal(xb.cpu().numpy(), X[:4])


def test_a_collate_fn_set_after_init_is_used(dev):
    """PyTorch's loader reads loader.collate_fn at each epoch; a TensorDataset's loader
    kept its batches-at-once path and ignored one set later (the batches stayed tensors)."""
    ds = _dataset(dev)
    for shuffle in (False, True):
        loader = data.DataLoader(ds, batch_size=4, shuffle=shuffle)
        loader.collate_fn = lambda samples: len(samples)
        assert list(loader) == [4, 4, 3]
        loader.collate_fn = data.default_collate  # back to the batches, in the same rows
        batches = list(loader)
        assert [tuple(b[0].shape) for b in batches] == [(4, F), (4, F), (3, F)]
        rows = np.concatenate([b[0].cpu().numpy() for b in batches])
        np.testing.assert_array_equal(rows[np.argsort(rows[:, 0])], X)


def test_random_split_sizes_fractions_in_their_type_and_takes_tensor_lengths():
    """floor(n * fraction) in the fraction's own type, as PyTorch's: np.float32(0.7) of
    10 is 7 in float32 (it gave [4, 6]: 6.9999999 in float64, the sample left over to the
    first); one-element tensor lengths are taken (they were a TypeError); whole floats that
    are not fractions are PyTorch's TypeError (a ValueError saying they did not add up)."""
    ds = data.TensorDataset(pdt.arange(10))
    sizes = lambda lengths: [len(s) for s in data.random_split(ds, lengths)]  # noqa: E731
    for a in (0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.9):
        fractions = [np.float32(a), np.float32(1) - np.float32(a)]
        first = math.floor(np.float32(10) * fractions[0])
        second = math.floor(np.float32(10) * fractions[1])
        expected = [first + (first + second < 10), second]
        assert sizes(fractions) == expected, a
    assert sizes([np.float32(0.3), np.float32(0.7)]) == [3, 7]
    assert sizes(pdt.tensor([4, 6])) == [4, 6]
    assert sizes([pdt.tensor(0.5), pdt.tensor(0.5)]) == [5, 5]
    with pytest.raises(TypeError, match=r"not fractions summing to 1 must be ints, got "
                                        r"\['float', 'float'\]"):
        data.random_split(ds, [3.0, 7.0])
    with pytest.raises(ValueError, match="do not add up"):
        data.random_split(ds, [3.0, 6.0])
