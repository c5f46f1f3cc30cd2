"""DataLoader's worker options and epoch checks as PyTorch 2.15's (found side by side with
torch): multiprocessing_context validated (a start method's name or a context),
prefetch_factor 2 by default with workers and 0 refused when iterating, the warning when
an IterableDataset yields more batches than len(loader) gave, pin_memory_device's
deprecation warning, and pinned batches keeping their containers' types."""

import collections
import multiprocessing
import warnings

import pytest

import pydevtensor as pdt
from pydevtensor.utils import data
from pydevtensor.utils.data import _loader


class Stream(data.IterableDataset):
    """n samples, claiming length reported."""

    def __init__(self, n, reported):
        self.n, self.reported = n, reported

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.reported


@pytest.mark.forks_workers
def test_multiprocessing_context_checked():
    with pytest.raises(ValueError, match="valid start method"):
        data.DataLoader([1, 2], num_workers=1, multiprocessing_context="bogus")
    with pytest.raises(TypeError, match="valid context object"):
        data.DataLoader([1, 2], num_workers=1, multiprocessing_context=3)
    with pytest.raises(ValueError, match="num_workers > 0"):
        data.DataLoader([1, 2], multiprocessing_context="spawn")
    for context in (multiprocessing.get_all_start_methods()[0],
                    multiprocessing.get_context()):
        loader = data.DataLoader([1, 2], num_workers=1, multiprocessing_context=context)
        assert [b.tolist() for b in loader] == [[1], [2]]


def test_prefetch_factor_default_and_zero():
    assert data.DataLoader([1, 2], num_workers=2).prefetch_factor == 2
    assert data.DataLoader([1, 2], num_workers=2, prefetch_factor=5).prefetch_factor == 5
    assert data.DataLoader([1, 2]).prefetch_factor is None
    loader = data.DataLoader([1, 2], num_workers=2, prefetch_factor=0)  # taken, as torch
    with pytest.raises(ValueError, match="prefetch_factor must be greater than 0"):
        iter(loader)


@pytest.mark.parametrize("batch_size", [None, 1, 2])
def test_iterable_length_too_short_warns(batch_size):
    loader = data.DataLoader(Stream(7, 3), batch_size=batch_size)
    reported = len(loader)  # 3 batches (2 with batch_size=2); 7 (4) come
    actual = 7 if batch_size is None else -(-7 // batch_size)
    with pytest.warns(UserWarning, match="Length of IterableDataset") as record:
        batches = list(loader)
    assert len(batches) == actual
    assert sum(1 for w in record if "Length of IterableDataset" in str(w.message)) == \
        actual - reported  # each batch past the length, as PyTorch's


def test_iterable_length_right_or_unread_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loader = data.DataLoader(Stream(7, 7), batch_size=2)
        assert len(loader) == 4 and len(list(loader)) == 4
        assert len(list(data.DataLoader(Stream(7, 3), batch_size=2))) == 4  # len() not read
        short = data.DataLoader(Stream(2, 5))
        assert len(short) == 5 and len(list(short)) == 2  # fewer: PyTorch is silent too


@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set")
def test_pin_memory_device_deprecated_warns():
    loader = data.DataLoader([1, 2], pin_memory=True, pin_memory_device="cuda")
    with pytest.warns(UserWarning, match="pin_memory_device is deprecated"):
        assert [b.tolist() for b in loader] == [[1], [2]]


def test_pin_keeps_container_types():
    """The containers around the tensors keep their types, as PyTorch's pin_memory
    (tuples give lists); leaves that are not tensors pass through."""
    Pair = collections.namedtuple("Pair", "a b")
    ordered = collections.OrderedDict([("y", 1), ("x", 2)])
    pinned = _loader._pin(ordered)
    assert type(pinned) is collections.OrderedDict and list(pinned) == ["y", "x"]
    counts = collections.defaultdict(int, a=1)
    assert type(_loader._pin(counts)) is collections.defaultdict
    assert _loader._pin(Pair(1, "s")) == Pair(1, "s")
    assert _loader._pin((1, 2)) == [1, 2] and _loader._pin("ab") == "ab"


@pytest.mark.skipif(not pdt.cuda.is_available(), reason="pinning needs a CUDA device")
def test_pinned_loader_batches_keep_types():
    ds = data.TensorDataset(pdt.arange(4.))
    ordered = lambda batch: collections.OrderedDict(x=pdt.stack([s[0] for s in batch]))
    loader = data.DataLoader(ds, batch_size=2, pin_memory=True, collate_fn=ordered)
    batches = list(loader)
    assert all(type(b) is collections.OrderedDict and b["x"].is_pinned() for b in batches)
    assert [b["x"].tolist() for b in batches] == [[0., 1.], [2., 3.]]
