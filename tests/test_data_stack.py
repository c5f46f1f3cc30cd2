"""utils.data.StackDataset: samples i of several datasets side by side, as a tuple or a
dict, in a DataLoader's batches too (through each dataset's __getitems__ where it has
one)."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.utils import data

X = np.arange(12, dtype=np.float32).reshape(6, 2)
Y = np.arange(6) * 10


class Batched(data.Dataset):
    """A dataset that counts the batches read through __getitems__."""

    def __init__(self, items, wrong=False):
        self.items, self.calls, self.wrong = items, 0, wrong

    def __getitem__(self, i):
        return self.items[i]

    def __getitems__(self, indices):
        self.calls += 1
        return [self.items[i] for i in indices][:len(indices) - self.wrong]

    def __len__(self):
        return len(self.items)


def test_tuple_and_dict_samples(device):
    xs = data.TensorDataset(pdt.tensor(X, device=device))
    tup = data.StackDataset(xs, list(Y))
    assert len(tup) == 6 and tup.datasets[1] == list(Y)
    x, y = tup[4]
    np.testing.assert_array_equal(x[0].cpu().numpy(), X[4])
    assert y == Y[4]
    named = data.StackDataset(x=xs, y=list(Y))
    sample = named[2]
    assert list(sample) == ["x", "y"] and sample["y"] == Y[2]
    np.testing.assert_array_equal(sample["x"][0].cpu().numpy(), X[2])


def test_batches_read_each_dataset_at_once(device):
    ys = Batched(list(Y))
    stack = data.StackDataset(pdt.tensor(X, device=device), ys)
    batches = list(data.DataLoader(stack, batch_size=4))
    assert ys.calls == 2 and len(batches) == 2
    np.testing.assert_array_equal(batches[0][0].cpu().numpy(), X[:4])
    np.testing.assert_array_equal(batches[1][1].numpy(), Y[4:])
    named = data.StackDataset(a=ys, b=list(Y))
    assert named.__getitems__([5, 1]) == [{"a": 50, "b": 50}, {"a": 10, "b": 10}]
    assert data.StackDataset(list(Y), ys).__getitems__([3]) == [(30, 30)]
    with pytest.raises(ValueError, match="Nested dataset's output size mismatch. Expected 2, "
                                         "got 1"):
        data.StackDataset(Batched(list(Y), wrong=True)).__getitems__([0, 1])


@pytest.mark.parametrize("args,kwargs,match", [
    (([1, 2], [1, 2, 3]), {}, "Size mismatch between datasets"),
    ((), {"a": [1], "b": []}, "Size mismatch between datasets"),
    (([1],), {"a": [1]}, "but both types are given"),
    ((), {}, "At least one dataset should be passed")])
def test_errors(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        data.StackDataset(*args, **kwargs)
