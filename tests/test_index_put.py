"""index_put and Tensor.index_put_ (PyTorch's names; pydevtensor/_ops_index_more.py): values
written or, with accumulate=True, added at x[indices], every repeat of a position adding
(NumPy's np.add.at).  On every device, against NumPy in float64 (exact: small integers),
with autograd and PyTorch's argument checks."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

X = np.arange(24, dtype=np.float64).reshape(4, 6) - 7


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def t(a, dev, dtype=None):
    return pdt.tensor(np.asarray(a), device=dev) if dtype is None else \
        pdt.tensor(np.asarray(a), device=dev).to(dtype)


KEYS = [
    lambda: (np.array([0, 3, 0, 0]), np.array([5, 1, 5, 2])),   # repeats
    lambda: (np.array([[1], [2]]), np.array([0, 4, 4])),           # broadcast together
    lambda: (np.array([-1, 2, -1]),),                              # rows, from the end
    lambda: (None, np.array([1, 1, 3])),                           # a whole dim
    lambda: (X[:, 0] > -2,),                                       # a mask
]


def np_key(key):
    return tuple(slice(None) if k is None else k for k in key)


def pdt_key(key, dev):
    return tuple(None if k is None else t(k, dev) for k in key)


@pytest.mark.parametrize("k", range(len(KEYS)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_accumulate_matches_add_at(dev, k, dtype):
    key = KEYS[k]()
    shape = X[np_key(key)].shape
    vals = (np.arange(np.prod(shape), dtype=np.float64) + 1).reshape(shape)
    ref = X.copy()
    np.add.at(ref, np_key(key), vals)
    x = t(X, dev, getattr(pdt, dtype))
    v = t(vals, dev, getattr(pdt, dtype))
    out = pdt.index_put(x, pdt_key(key, dev), v, accumulate=True)
    np.testing.assert_array_equal(out.to(pdt.float64).cpu().numpy(), ref)
    np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), X)  # not changed
    before = x._version
    assert x.index_put_(pdt_key(key, dev), v, accumulate=True) is x
    np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), ref)
    assert x._version > before


@pytest.mark.parametrize("k", [1, 2, 3, 4])  # keys without repeats: one write wins anywhere
def test_write_matches_numpy(dev, k):
    key = KEYS[k]()
    if k == 2:
        key = (np.array([-1, 2]),)
    ref = X.copy()
    ref[np_key(key)] = -0.5
    x = t(X, dev)
    assert x.index_put_(pdt_key(key, dev), t(-0.5, dev)) is x  # a 0-d value, broadcast
    np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), ref)


def test_values_broadcast_to_the_selection(dev):
    ref = X.copy()
    np.add.at(ref, (slice(None), np.array([0, 0, 5])), np.array([1.0, 2.0, 3.0]))
    x = t(X, dev)
    x.index_put_((None, t([0, 0, 5], dev)), t([1.0, 2.0, 3.0], dev), True)
    np.testing.assert_array_equal(x.cpu().numpy(), ref)


@pytest.mark.parametrize("accumulate", [False, True])
def test_gradients(dev, accumulate):
    w = np.arange(24, dtype=np.float64).reshape(4, 6) / 8
    rows, cols = np.array([0, 2, 3]), np.array([5, 1, 1])
    a = t(X, dev).requires_grad_()
    v = t([1.0, 2.0, 3.0], dev).requires_grad_()
    y = pdt.index_put(a, (t(rows, dev), t(cols, dev)), v, accumulate=accumulate)
    (y * t(w, dev)).sum().backward()
    g_a = w.copy()
    if not accumulate:
        g_a[rows, cols] = 0  # overwritten: the old values get nothing
    np.testing.assert_allclose(a.grad.cpu().numpy(), g_a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(v.grad.cpu().numpy(), w[rows, cols], rtol=0, atol=1e-12)


def test_in_place_gradient_through_a_non_leaf(dev):
    a = t(X, dev).requires_grad_()
    v = t([1.0, 2.0], dev).requires_grad_()
    y = a * 2
    y.index_put_((t([1, 1], dev),), v.reshape(2, 1), accumulate=True)
    (y * y).sum().backward()
    ref = 2 * X
    ref[1] += 3.0
    np.testing.assert_allclose(a.grad.cpu().numpy(), 2 * ref * 2, rtol=0, atol=1e-9)
    np.testing.assert_allclose(v.grad.cpu().numpy(), 2 * ref[1].sum() * np.ones(2),
                               rtol=0, atol=1e-9)


def test_a_leaf_requiring_grad_refuses(dev):
    a = t(X, dev).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        a.index_put_((t([0], dev),), t(1.0, dev), True)


@pytest.mark.parametrize("call,exc,match", [
    (lambda x, d: x.index_put_((t([0], d),), 1.0), TypeError, "'values' must be a Tensor"),
    (lambda x, d: x.index_put_(t([0], d), t(1.0, d)), TypeError,
     r"'indices' must be a tuple of Tensors, got Tensor \(self \(4, 6\)"),
    (lambda x, d: x.index_put_(([0],), t(1.0, d)), TypeError, "indices.0. must be a Tensor"),
    (lambda x, d: x.index_put_((t([0], d),), t(1.0, d).to(pdt.float32)), RuntimeError,
     r"self \(pydevtensor.float64\) and values \(pydevtensor.float32\) must have the same"),
    # another dtype only for one element under a bool mask, not accumulated (PyTorch's)
    (lambda x, d: x.index_put_((t(X[:, 0] > 0, d),), t(1.0, d).to(pdt.float32), True),
     RuntimeError, r"self \(pydevtensor.float64\) and values \(pydevtensor.float32\)"),
    (lambda x, d: x.index_put_((t(X[:, 0] > 0, d),), t([1.0, 2.0], d).to(pdt.float32)),
     RuntimeError, r"self \(pydevtensor.float64\) and values \(pydevtensor.float32\)"),
    (lambda x, d: x.index_put_((t(X[:, 0] > 0, d), t([0], d)), t(1.0, d).to(pdt.int64)),
     RuntimeError, r"self \(pydevtensor.float64\) and values \(pydevtensor.int64\)"),
    (lambda x, d: x.index_put_((t([4], d),), t(1.0, d), True), IndexError,
     "index 4 is out of bounds for dimension 0 with size 4"),
    (lambda x, d: x.index_put_((t([0], d),) * 3, t(1.0, d)), IndexError,
     "too many indices for a tensor of 2 dimensions: got 3"),
    (lambda x, d: x.index_put_((t([0, 1], d), t([0, 1, 2], d)), t(1.0, d), True),
     IndexError, "shape mismatch"),
])
def test_bad_input_leaves_x_unchanged(dev, call, exc, match):
    x = t(X, dev)
    with pytest.raises(exc, match=match):
        call(x, dev)
    np.testing.assert_array_equal(x.cpu().numpy(), X)


@pytest.mark.parametrize("vdtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("key", [(X[:, 0] > -2,), (None, X[0] > -4), (X > 0,)])
def test_one_value_of_another_dtype_under_a_mask(dev, vdtype, key):
    """One element of any dtype written where a bool mask says (the other indices None),
    cast to self's dtype, as x[mask] = value and PyTorch's index_put_ (its masked_fill)."""
    for shape in ((), (1,), (1, 1)):
        v = np.full(shape, 3.0 if vdtype != "bool" else 1.0)
        want = X.copy()
        want[np_key(key)] = v.reshape(())
        x = t(X, dev)
        assert x.index_put_(pdt_key(key, dev), t(v, dev, getattr(pdt, vdtype))) is x
        np.testing.assert_array_equal(x.cpu().numpy(), want)
        y = pdt.index_put(t(X, dev), pdt_key(key, dev), t(v, dev, getattr(pdt, vdtype)))
        assert y.dtype == pdt.float64
        np.testing.assert_array_equal(y.cpu().numpy(), want)
    if vdtype == "float32":  # the gradient reaches the value, in its dtype: one per element
        w = t(2.0, dev, pdt.float32).requires_grad_()
        pdt.index_put(t(X, dev), pdt_key(key, dev), w).sum().backward()
        assert w.grad.dtype == pdt.float32
        assert w.grad.item() == np.count_nonzero(np.ones(X.shape)[np_key(key)])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "uint8", "int8", "int16", "bool"])
def test_accumulate_in_narrow_dtypes(dev, dtype):
    """The index_add kernels add four dtypes; the others add in a wider one, cast back once
    (the small ints wrap as PyTorch's do; bool adds as or)."""
    rows = np.array([0, 2, 0, 0])
    vals = np.array([1, 1, 0, 1]) if dtype == "bool" else np.array([100, 3, 100, 100])
    base = np.array([0, 0, 5]) if dtype != "bool" else np.array([0, 0, 1])
    ref = base.astype(np.int64)
    np.add.at(ref, rows, vals)
    ref = (ref != 0).astype(np.int64) if dtype == "bool" else \
        ref.astype(np.int64).astype(dtype if dtype != "bfloat16" else "float32").astype(np.int64)
    x = t(base, dev, getattr(pdt, dtype))
    x.index_put_((t(rows, dev),), t(vals, dev, getattr(pdt, dtype)), accumulate=True)
    np.testing.assert_array_equal(x.to(pdt.int64).cpu().numpy(), ref)
    assert x.dtype == getattr(pdt, dtype)


def test_accumulate_half_with_grad(dev):
    a = t([0.0, 0.0, 0.0], dev, pdt.float16).requires_grad_()
    v = t([1.0, 2.0], dev, pdt.float16).requires_grad_()
    y = pdt.index_put(a, (t([1, 1], dev),), v, accumulate=True)
    assert y.dtype == pdt.float16 and y.tolist() == [0.0, 3.0, 0.0]
    (y * t([1.0, 2.0, 3.0], dev, pdt.float16)).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0, 3.0] and v.grad.tolist() == [2.0, 2.0]


def test_zero_size_trailing_dims(dev):
    """A selection of no elements a row (a trailing dim of size 0): the rows are counted,
    not inferred from -1 (a review: a reshape error)."""
    x = pdt.zeros(3, 0, device=dev)
    assert x.index_put_((t([1], dev),), pdt.zeros(1, 0, device=dev)).shape == (3, 0)
    y = pdt.zeros(2, 3, 0, device=dev)
    y[:, t([1, 2], dev)] = pdt.zeros(2, 2, 0, device=dev)
    y.index_put_((None, t([0, 0], dev)), pdt.zeros(2, 2, 0, device=dev), accumulate=True)
    assert y.shape == (2, 3, 0)
