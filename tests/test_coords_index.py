"""x[i, j, ...] with index vectors, ranges, lists and ints on the leading dims (D2L's
``y_hat[range(len(y_hat)), y]``), read, written and differentiated, on every device,
against NumPy's own indexing (exact: the ops only move or add elements).  On the CPU
these keys take the C path of Note [coordinates in C] (csrc/python/tensor_coords.c);
other devices, layouts and keys take the Python path, which must agree with it.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, raises_index_error

X = np.arange(120, dtype=np.float64).reshape(4, 5, 6)


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def keys(d):
    """(name, our key, NumPy's key)."""
    T = lambda v: pdt.tensor(np.array(v, dtype=np.int64), device=d)  # noqa: E731
    return [
        ("two_vectors", (T([0, -1, 2]), T([4, 0, -5])), ([0, -1, 2], [4, 0, -5])),
        ("three_vectors", (T([3, 0]), T([1, 4]), T([5, -6])), ([3, 0], [1, 4], [5, -6])),
        ("range_and_vector", (range(3), T([1, 2, 3])), (range(3), [1, 2, 3])),
        ("vector_and_int", (T([2, 0, 2]), 1), ([2, 0, 2], 1)),
        ("int_and_vector", (-1, T([0, 4])), (-1, [0, 4])),
        ("lists", ([0, 3], [1, 2], [5, 0]), ([0, 3], [1, 2], [5, 0])),
        ("list_and_range", ([3, 1, 0], range(4, 1, -1)), ([3, 1, 0], range(4, 1, -1))),
        ("empty", (range(0), []), (np.zeros(0, np.int64), np.zeros(0, np.int64))),
        ("repeated", (T([1, 1, 1]), T([2, 2, 2])), ([1, 1, 1], [2, 2, 2])),
    ]


CASES = [name for name, _, _ in keys("cpu")]


def pick(d, name):
    return next((ours, theirs) for n, ours, theirs in keys(d) if n == name)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "float16"])
def test_read_matches_numpy(dev, name, dtype):
    ours, theirs = pick(dev, name)
    x = pdt.tensor(X.astype(dtype), device=dev)
    got = x[ours]
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.cpu().numpy(), X.astype(dtype)[theirs])
    if pdt.device(dev).type == "cpu":  # the C path took this key: its own result
        direct = pdt._C._coords_select(x, ours)
        assert direct is not None
        np.testing.assert_array_equal(direct.numpy(), X.astype(dtype)[theirs])


@pytest.mark.parametrize("name", CASES)
def test_read_of_a_transposed_tensor(dev, name):
    """A non-contiguous x takes the Python path: the same elements."""
    ours, theirs = pick(dev, name)
    xt = np.ascontiguousarray(X.transpose(1, 0, 2))  # (5, 4, 6), read through a transpose
    x = pdt.tensor(xt, device=dev).transpose(0, 1)
    np.testing.assert_array_equal(x[ours].cpu().numpy(), X[theirs])


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("value", ["number", "row", "full"])
def test_write_matches_numpy(dev, name, value):
    ours, theirs = pick(dev, name)
    ref = X.astype(np.float32)
    shape = ref[theirs].shape
    v = {"number": 2.5, "row": np.arange(shape[-1], dtype=np.float32) - 9,
         "full": np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 0.5}[value]
    x = pdt.tensor(ref, device=dev)
    before = x._version
    x[ours] = v if value == "number" else pdt.tensor(v, device=dev)
    ref[theirs] = v
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    assert x._version > before  # autograd sees the write


@pytest.mark.parametrize("name", CASES)
def test_gradient_adds_at_every_pick(dev, name):
    """The backward adds the gradient at each coordinate, a repeated one each time
    (NumPy's np.add.at)."""
    ours, theirs = pick(dev, name)
    w = pdt.tensor(X, device=dev, requires_grad=True)
    out = w[ours]
    g = np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)) + 1
    out.backward(pdt.tensor(g, device=dev))
    ref = np.zeros_like(X)
    np.add.at(ref, theirs, g)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), ref)


def test_d2l_cross_entropy(dev):
    """D2L 4.4's loss from scratch, its value and its gradient."""
    rng = np.random.default_rng(0)
    p = rng.random((8, 3)) + 0.1
    y = np.array([0, 2, 1, 1, 0, 2, 2, 0])
    y_hat = pdt.tensor(p, device=dev, requires_grad=True)
    loss = -pdt.log(y_hat[range(len(y_hat)), pdt.tensor(y, device=dev)])
    np.testing.assert_allclose(loss.detach().cpu().numpy(), -np.log(p[range(8), y]), rtol=1e-15)
    loss.sum().backward()
    ref = np.zeros_like(p)
    ref[range(8), y] = -1 / p[range(8), y]
    np.testing.assert_allclose(y_hat.grad.cpu().numpy(), ref, rtol=1e-15)


@pytest.mark.parametrize("key", [
    lambda d: (pdt.tensor([0, 4], device=d), 1),             # 4 is past dim 0's 4
    lambda d: (range(5), 0),                                  # so is range(5)'s last
    lambda d: ([0, 1], [0, -6]),                              # -6 before dim 1's start
    lambda d: (range(2 ** 62, 2 ** 62 + 2), 0),               # far out, past int64 once summed
])
def test_out_of_range_raises_and_writes_nothing(dev, key):
    x = pdt.tensor(X, device=dev)
    with raises_index_error(dev):
        x[key(dev)]
    with raises_index_error(dev):
        x[key(dev)] = -1.0
    np.testing.assert_array_equal(x.cpu().numpy(), X)


def test_entries_past_int64(dev):
    """A range whose last entries do not fit in int64 (the C path leaves it to the Python
    one, which says so); nothing written."""
    x = pdt.tensor(X, device=dev)
    key = (0, range(2 ** 63 - 2, 2 ** 63 + 1))
    with pytest.raises((IndexError, OverflowError)):
        x[key]
    with pytest.raises((IndexError, OverflowError)):
        x[key] = -1.0
    np.testing.assert_array_equal(x.cpu().numpy(), X)


def test_vectors_of_two_lengths(dev):
    """Vectors that do not broadcast: an error naming both shapes; nothing written."""
    x = pdt.tensor(X, device=dev)
    with pytest.raises(IndexError, match=r"shape mismatch.*\[2\], \[3\]"):
        x[[0, 1], [1, 2, 3]]
    with pytest.raises(IndexError, match=r"shape mismatch.*\[2\], \[3\]"):
        x[[0, 1], [1, 2, 3]] = 0.0
    np.testing.assert_array_equal(x.cpu().numpy(), X)


def test_values_of_the_wrong_shape(dev):
    x = pdt.tensor(X, device=dev)
    with pytest.raises((RuntimeError, ValueError)):
        x[pdt.tensor([0, 1], device=dev), 1] = pdt.ones(3, 6, device=dev, dtype=pdt.float64)
    np.testing.assert_array_equal(x.cpu().numpy(), X)


def test_broadcast_vectors_take_the_general_path(dev):
    """A (2, 1) and a (3,) index broadcast to (2, 3), as in NumPy."""
    x = pdt.tensor(X, device=dev)
    rows, cols = np.array([[0], [3]]), np.array([1, 2, 4])
    got = x[pdt.tensor(rows, device=dev), pdt.tensor(cols, device=dev)]
    np.testing.assert_array_equal(got.cpu().numpy(), X[rows, cols])


def test_bool_in_a_list_is_not_an_int(dev):
    """[True, False] among the key's items is a mask, as in NumPy: not the ints 1, 0."""
    x = pdt.tensor(X, device=dev)
    got = x[[True, False, True, False], 2]
    np.testing.assert_array_equal(got.cpu().numpy(), X[[True, False, True, False], 2])


def test_large_selection_releases_and_matches(dev):
    """Past the GIL's threshold: the same elements."""
    rng = np.random.default_rng(1)
    a = rng.random((300, 400))
    r, c = rng.integers(-300, 300, 200_000), rng.integers(0, 400, 200_000)
    x = pdt.tensor(a, device=dev)
    got = x[pdt.tensor(r, device=dev), pdt.tensor(c, device=dev)]
    np.testing.assert_array_equal(got.cpu().numpy(), a[r, c])


@pytest.mark.parametrize("k", [5, 6, 8])
def test_many_index_vectors(dev, k):
    """Keys of five or more index tensors (a review's segfault: more tensors than the C
    path can hold go the Python way), read, written and differentiated."""
    shape = (2,) * k
    a = np.arange(2 ** k, dtype=np.float64).reshape(shape)
    rows = [np.array([1, 0, 1]), np.array([0, 0, 1])] * k
    key = tuple(pdt.tensor(r, device=dev) for r in rows[:k])
    npkey = tuple(rows[:k])
    x = pdt.tensor(a, device=dev)
    np.testing.assert_array_equal(x[key].cpu().numpy(), a[npkey])
    x[key] = pdt.tensor([7.0, 8.0, 9.0], dtype=pdt.float64, device=dev)
    a[npkey] = [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(x.cpu().numpy(), a)
    w = pdt.tensor(a, device=dev, requires_grad=True)
    w[key].sum().backward()
    ref = np.zeros_like(a)
    np.add.at(ref, npkey, 1.0)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), ref)


@pytest.mark.parametrize("key", [
    lambda d: (5, []),
    lambda d: (pdt.tensor([], dtype=pdt.int64, device=d), -7),
    lambda d: (range(0), 6, 0),
])
def test_an_int_out_of_range_with_no_coordinates(dev, key):
    """NumPy checks an int among empty index vectors (a review: the loop over no
    coordinates never looked at it)."""
    x = pdt.tensor(X, device=dev)
    with raises_index_error(dev):
        x[key(dev)]
    with raises_index_error(dev):
        x[key(dev)] = 1.0
    np.testing.assert_array_equal(x.cpu().numpy(), X)


def test_a_bad_value_is_reported_after_a_bad_key(dev):
    x = pdt.tensor(X, device=dev)
    with raises_index_error(dev):
        x[[9, 1], [1, 1]] = None
