"""Bool reductions by counting (any, all, count_nonzero, sum of a bool), on every
device, against NumPy: every layout the CPU backend reduces (contiguous rows, columns,
a middle block of dims, strided views) and sizes across its blocks (the 64-byte step
of the row count and its 255-step lane limit, COL_BLOCK = 2048 columns).  Exact:
the results are counts and bools."""
import numpy as np
import pytest

import pydevtensor as pdt


def _views(a):
    """(name, array view) pairs of a bool array a (2-d or more) in several layouts."""
    yield "contiguous", a
    yield "transposed", a.T
    yield "strided", a[..., ::2]
    yield "reversed", a[::-1]


def _check(x, a, dim, keepdim):
    axis = dim if dim is None or isinstance(dim, int) else tuple(dim)
    for name, np_fn in (("any", np.any), ("all", np.all)):
        got = getattr(pdt, name)(x, dim=dim, keepdim=keepdim) if dim is not None else \
            getattr(pdt, name)(x)
        want = np_fn(a, axis=axis, keepdims=keepdim) if dim is not None else np_fn(a)
        assert got.dtype == pdt.bool
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{name} {dim}")
    if not keepdim:
        got = pdt.count_nonzero(x, dim)
        np.testing.assert_array_equal(got.cpu().numpy(), np.count_nonzero(a, axis=axis))
        s = x.sum() if dim is None else x.sum(dim)
        assert s.dtype == pdt.int64
        np.testing.assert_array_equal(s.cpu().numpy(), a.sum(axis=axis, dtype=np.int64))


@pytest.mark.parametrize("shape", [(3, 1), (5, 63), (4, 64), (3, 65), (2, 255 * 64 + 1),
                                   (3, 2049), (2049, 3), (9000, 3), (1, 40000)])
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_bool_counts_of_matrices_match_numpy(device, shape, density):
    rng = np.random.default_rng(sum(shape))
    base = rng.random(shape) < density
    for layout, a in _views(base):
        x = pdt.tensor(np.ascontiguousarray(base), device=device)
        x = {"contiguous": x, "transposed": x.T, "strided": x[..., ::2],
             "reversed": x.flip(0)}[layout]
        for dim in (None, 0, 1, -1, (0, 1)):
            for keepdim in (False, True):
                _check(x, a, dim, keepdim)


@pytest.mark.parametrize("shape", [(32, 4, 64, 64), (2, 3, 2050), (3, 2, 5, 7)])
def test_bool_counts_of_every_dim_match_numpy(device, shape):
    a = np.random.default_rng(0).random(shape) < 0.7
    x = pdt.tensor(a, device=device)
    for dim in [None, *range(len(shape)), -1, (1, 2), (0, len(shape) - 1)]:
        _check(x, a, dim, False)
        _check(x, a, dim, True)


def test_bool_all_of_empty_dims_is_true(device):
    x = pdt.zeros(3, 0, dtype=pdt.bool, device=device)
    np.testing.assert_array_equal(x.all(1).cpu().numpy(), [True] * 3)
    np.testing.assert_array_equal(x.any(1).cpu().numpy(), [False] * 3)
    assert x.all(0).shape == (0,) and bool(x.all()) and not bool(x.any())
    assert x.all(1, keepdim=True).shape == (3, 1)


def test_uint8_any_all_keep_uint8(device):
    a = np.array([[0, 3, 255], [0, 0, 0]], np.uint8)
    x = pdt.tensor(a, device=device)
    assert x.all(1).dtype == pdt.uint8 and x.any(1).dtype == pdt.uint8
    np.testing.assert_array_equal(x.all(1).cpu().numpy(), [0, 0])
    np.testing.assert_array_equal(x.any(1).cpu().numpy(), [1, 0])


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
def test_any_all_of_no_dims_reduce_nothing(device, dtype):
    # dim=() reduces no dim, in PyTorch: the elementwise truth of the input
    a = np.array([[0, 1, 2], [3, 0, 5]]).astype(dtype)
    x = pdt.tensor(a, device=device)
    want = a != 0
    for op in ("any", "all"):
        for got in (getattr(x, op)(dim=()), getattr(pdt, op)(x, ()), getattr(x, op)((), True)):
            assert got.dtype == (pdt.uint8 if dtype == "uint8" else pdt.bool)
            np.testing.assert_array_equal(got.cpu().numpy().astype(bool), want)


def test_count_nonzero_method_takes_dims_as_varargs(device):
    a = np.array([[[0, 1, 2], [3, 0, 5]], [[0, 0, 1], [1, 1, 1]]])
    x = pdt.tensor(a, device=device)
    for args, axis in [((0, 1), (0, 1)), (((0, 2),), (0, 2)), ((-1,), -1), ((), None)]:
        np.testing.assert_array_equal(x.count_nonzero(*args).cpu().numpy(),
                                      np.count_nonzero(a, axis=axis))
    np.testing.assert_array_equal(x.count_nonzero(dim=(1, 2)).cpu().numpy(),
                                  np.count_nonzero(a, axis=(1, 2)))
    with pytest.raises(TypeError, match="both positionally and as dim="):
        x.count_nonzero(0, dim=1)
