"""Advanced indexing (issue 17): boolean masks, integer tensors and lists in
x[...] and x[...] = v, on every device, against NumPy's own indexing (exact: the
ops only move elements).  Small shapes: the cuda cases run on the emulated device
in CI.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, raises_index_error, torch_or_skip


def host(t):
    return t.cpu().numpy()


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
MASK2 = (A[:, :, 0] % 3 == 0)  # (3, 4)
IDX = np.array([2, 0, -1])


def cases():
    """(name, index as a function of the device, NumPy's index)."""
    T = lambda dev, x: pdt.tensor(x, device=dev)  # noqa: E731
    return [
        ("mask_full", lambda d: T(d, A > 30), A > 30),
        ("mask_leading", lambda d: T(d, MASK2), MASK2),
        ("mask_row", lambda d: T(d, np.array([True, False, True])), np.array([True, False, True])),
        ("int_tensor", lambda d: T(d, IDX), IDX),
        ("list", lambda d: [0, 2, 2], [0, 2, 2]),
        ("bool_list", lambda d: [True, False, True], np.array([True, False, True])),
        ("2d_int", lambda d: T(d, np.array([[0, 1], [2, 0]])), np.array([[0, 1], [2, 0]])),
        ("slice_then_int", lambda d: (slice(None), T(d, np.array([3, 1]))),
         (slice(None), np.array([3, 1]))),
        ("two_adjacent", lambda d: (slice(None), T(d, np.array([0, 3])), T(d, np.array([4, 1]))),
         (slice(None), np.array([0, 3]), np.array([4, 1]))),
        ("two_apart", lambda d: (T(d, np.array([0, 2])), slice(1, 3), T(d, np.array([4, 1]))),
         (np.array([0, 2]), slice(1, 3), np.array([4, 1]))),
        ("broadcast", lambda d: (T(d, np.array([[0], [2]])), T(d, np.array([1, 3]))),
         (np.array([[0], [2]]), np.array([1, 3]))),
        ("int_and_mask", lambda d: (1, T(d, np.array([True, False, True, True]))),
         (1, np.array([True, False, True, True]))),
        ("ellipsis_int", lambda d: (Ellipsis, T(d, np.array([4, 0]))),
         (Ellipsis, np.array([4, 0]))),
        ("none_and_int", lambda d: (None, T(d, np.array([1]))), (None, np.array([1]))),
        ("negative_step_view", lambda d: (slice(None, None, -1), [0, 1]),
         (slice(None, None, -1), [0, 1])),
        ("empty_list", lambda d: [], np.array([], dtype=np.int64)),
        # range and tuples inside the key read as the lists they hold (D2L's
        # y_hat[range(len(y_hat)), y]); NumPy reads them so too
        ("range", lambda d: range(1, 3), range(1, 3)),
        ("range_and_int_tensor", lambda d: (range(3), T(d, np.array([3, 0, 1]))),
         (range(3), np.array([3, 0, 1]))),
        ("tuple_in_key", lambda d: ((0, 2),), ((0, 2),)),
        ("tuple_and_tuple", lambda d: ((0, 2), slice(None), (4, 1)), ((0, 2), slice(None), (4, 1))),
    ]


@pytest.mark.parametrize("case", cases(), ids=lambda c: c[0])
def test_getitem(dev, case):
    _, make, ref = case
    x = pdt.tensor(A, device=dev)
    got = x[make(dev)]
    np.testing.assert_array_equal(host(got), A[ref])
    assert got.device == x.device


@pytest.mark.parametrize("case", cases(), ids=lambda c: c[0])
def test_setitem_number_and_tensor(dev, case):
    _, make, ref = case
    x = pdt.tensor(A, device=dev)
    x[make(dev)] = -1.0
    want = A.copy()
    want[ref] = -1.0
    np.testing.assert_array_equal(host(x), want)
    shape = A[ref].shape
    values = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 100
    x = pdt.tensor(A, device=dev)
    x[make(dev)] = pdt.tensor(values, device=dev)
    want = A.copy()
    want[ref] = values
    np.testing.assert_array_equal(host(x), want)


def test_d2l_cross_entropy_picks_by_range_and_gives_its_gradient(dev):
    """-log(y_hat[range(len(y_hat)), y]) (D2L 3.6), forward and backward."""
    p = np.array([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    y_hat = pdt.tensor(p, dtype=pdt.float64, device=dev, requires_grad=True)
    y = pdt.tensor([0, 2], device=dev)
    loss = -pdt.log(y_hat[range(len(y_hat)), y])
    np.testing.assert_allclose(host(loss.detach()), -np.log(p[range(2), [0, 2]]), rtol=1e-12)
    loss.sum().backward()
    want = np.zeros_like(p)
    want[range(2), [0, 2]] = -1 / p[range(2), [0, 2]]
    np.testing.assert_allclose(host(y_hat.grad), want, rtol=1e-12)


def test_an_object_that_is_no_index_is_named(dev):
    import collections
    x = pdt.tensor(A, device=dev)
    with pytest.raises(IndexError, match=r"a collections.deque cannot be an index: indices are "
                                         r"ints, slices, None and \.\.\. .* tuples and ranges"):
        x[collections.deque([0])]


def test_setitem_broadcast_value_and_non_contiguous(dev):
    x = pdt.tensor(A, device=dev)
    x[pdt.tensor(MASK2, device=dev)] = pdt.tensor(np.arange(5.0), device=dev)
    want = A.copy()
    want[MASK2] = np.arange(5.0)
    np.testing.assert_array_equal(host(x), want)
    base = pdt.tensor(A, device=dev)
    view = base.transpose(0, 2)  # (5, 4, 3), not contiguous: written through a copy
    view[[1, 3]] = 0.0
    want = A.copy()
    want.transpose(2, 1, 0)[[1, 3]] = 0.0
    np.testing.assert_array_equal(host(base), want)


def test_errors(dev):
    x = pdt.tensor(A, device=dev)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or "
                                         "bool tensors"):
        x[pdt.tensor([0.0], device=dev)]
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        x[pdt.tensor([0.0], device=dev)] = 1.0
    with raises_index_error(dev, "index 3 is out of bounds for dimension 0 with size 3"):
        x[[0, 3]]  # on a GPU: reported at the next synchronisation
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, pdt.tensor([-5], device=dev)] = 1.0
    with pytest.raises(IndexError, match="shape of the mask"):
        x[pdt.tensor(np.ones((3, 5), bool), device=dev)]
    np.testing.assert_array_equal(host(x), A)  # nothing half-written


def test_rows_by_an_int64_vector(dev):
    # x[idx] with a contiguous 1-d int64 index on x's device is one index_select along
    # dim 0; every dtype, a strided x, an empty index, negative and out-of-range
    # indices, and with autograd (the recorded path) the same answers
    idx = np.array([2, -3, 0, 2, -1])
    for dtype in ("bool", "int32", "float32", "float64"):
        a = (np.arange(60).reshape(5, 12) % 7).astype(dtype)
        x = pdt.tensor(a, device=dev)
        np.testing.assert_array_equal(host(x[pdt.tensor(idx, device=dev)]), a[idx])
        np.testing.assert_array_equal(host(x[:, ::3][pdt.tensor(idx, device=dev)]), a[:, ::3][idx])
        np.testing.assert_array_equal(host(x[list(idx)]), a[list(idx)])  # a list of ints too
        np.testing.assert_array_equal(host(x[[True, False, True, True, False]]),
                                      a[[True, False, True, True, False]])
        got = x[pdt.tensor(np.zeros(0, np.int64), device=dev)]
        assert tuple(got.shape) == (0, 12) and got.dtype == x.dtype
    with raises_index_error(dev, "index 5 is out of bounds for dimension 0 with size 5"):
        x[pdt.tensor([1, 5], device=dev)]
    with pytest.raises(IndexError, match="an index list must hold ints or bools"):
        x[[1, "a"]]
    assert tuple(x[[]].shape) == (0, 12)
    w = pdt.tensor(a, device=dev, requires_grad=True)
    y = w[pdt.tensor(idx, device=dev)]
    y.sum().backward()
    want = np.zeros(a.shape)
    np.add.at(want, idx, 1.0)
    np.testing.assert_array_equal(host(w.grad), want)


def test_a_vector_after_full_slices(dev):
    # x[:, v] and x[:, :, v] (full slices, then one contiguous int64 vector on x's
    # device) are one index_select along that dim; the keys around it (a slice that is
    # not full, None, Ellipsis, two vectors, an int32 vector) take the general path;
    # both give NumPy's answers, negative and out-of-range indices included
    a = np.arange(120, dtype=np.float32).reshape(4, 5, 6)
    x = pdt.tensor(a, device=dev)
    v = np.array([3, -1, 0, 3])
    tv = pdt.tensor(v, device=dev)
    for key, ref in [((slice(None), tv), (slice(None), v)), ((slice(None),) * 2 + (tv,),
                                                            (slice(None),) * 2 + (v,)),
                     ((tv,), (v,)), ((slice(1, None), tv), (slice(1, None), v)),
                     ((slice(None), None, tv), (slice(None), None, v)),
                     ((Ellipsis, tv), (Ellipsis, v)), ((tv, tv), (v, v)),
                     ((slice(None), tv.int()), (slice(None), v))]:
        np.testing.assert_array_equal(host(x[key]), a[ref], err_msg=str(ref))
        np.testing.assert_array_equal(host(x.transpose(0, 2)[key]), np.swapaxes(a, 0, 2)[ref],
                                      err_msg=str(ref))
    for key in [(slice(None), pdt.tensor([1, 5], device=dev)), pdt.tensor([-5, 4], device=dev)]:
        with raises_index_error(dev, r"^index: index [-]?5 is out of bounds for "
                                     r"dimension [01] with size [45] \(on "):
            x[key]  # indexing's words (not index_select's)
    w = pdt.tensor(a, device=dev, requires_grad=True)
    w[:, tv].sum().backward()  # the recorded path
    want = np.zeros(a.shape)
    np.add.at(want, (slice(None), v), 1.0)
    np.testing.assert_array_equal(host(w.grad), want)


@pytest.mark.cuda
def test_cpu_index_on_a_gpu_tensor_is_one_counted_copy():
    x = pdt.tensor(A, device="cuda:0")
    index = pdt.tensor([2, 0])
    pdt.reset_transfer_stats()
    got = x[index]
    assert pdt.transfer_stats()["host_to_device"]["count"] == 1  # the index, as PyTorch moves it
    np.testing.assert_array_equal(host(got), A[[2, 0]])


def test_basic_indexing_still_a_view(dev):
    x = pdt.tensor(A, device=dev)
    v = x[1, :, ::2]
    assert v.data_ptr() != 0 and v._storage_refcount() >= 2
    x[0, 0, 0] = 5.0
    assert host(x)[0, 0, 0] == 5.0


def test_keys_on_either_side_of_the_fast_path(dev):
    """The slots take an int, a slice, or a tuple of those, None and Ellipsis themselves;
    every other key goes to the Python-level indexing (Note [indexing's fast keys]):
    keys that look basic but are not (bools, NumPy scalars, an int subclass, a 0-d
    tensor, a tuple holding a list) give NumPy's results on both sides, read and write."""
    import enum

    class Row(enum.IntEnum):
        SECOND = 1

    keys = [1, slice(None, None, 2), (0, slice(1, 3)), (None, Ellipsis, 2), (),
            True, False, (0, True), np.int64(2), np.bool_(True), Row.SECOND,
            (Row.SECOND, slice(None)), (slice(None), [0, 3]), [1, 0],
            (np.int64(-1), None, 3)]
    for key in keys:
        t = pdt.tensor(A, device=dev)
        want = A[key]
        got = t[key]
        assert tuple(got.shape) == want.shape, key
        np.testing.assert_array_equal(host(got), want, err_msg=repr(key))
        a = A.copy()
        a[key] = -7
        t[key] = -7
        np.testing.assert_array_equal(host(t), a, err_msg=repr(key))
    k0 = pdt.tensor(1, device=dev)  # a 0-d tensor: an advanced index, as in PyTorch
    np.testing.assert_array_equal(host(pdt.tensor(A, device=dev)[k0]), A[1])
    x = pdt.tensor(A, device=dev, requires_grad=True)
    (x[::2].sum() + x[1, None, 2].sum() * 3 + x[True].sum()).backward()
    g = np.ones_like(A)
    g[::2] += 1
    g[1, 2] += 3
    np.testing.assert_array_equal(host(x.grad), g)


def test_basic_index_functions_check_their_arguments():
    t = pdt.tensor(A)
    with pytest.raises(TypeError, match=r"_basic_getitem\(\): expected a Tensor, got list"):
        pdt._C._basic_getitem([1], 0)
    with pytest.raises(TypeError, match=r"_basic_setitem\(\) takes 3 arguments \(2 given\)"):
        pdt._C._basic_setitem(t, 0)
    with pytest.raises(TypeError, match="both must be callable"):
        pdt._C._set_index_hooks(None, None)


def test_indexing_survives_a_reimport():
    """The index hooks live in the module's state: a tensor made before the package is
    imported again keeps its own module's indexing, basic and advanced, read and write."""
    import subprocess
    import sys
    code = ("import sys, pydevtensor as pdt\n"
            "x = pdt.tensor([1.0, 2.0, 3.0])\n"
            "for k in [k for k in sys.modules if k.startswith('pydevtensor')]:\n"
            "    del sys.modules[k]\n"
            "import pydevtensor\n"
            "x[None] = 5.0\n"
            "x[[0]] = 4.0\n"
            "print(tuple(x[None].shape), x[[2, 0]].tolist(), x.tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split("\n")[0]
    assert out == "(1, 3) [5.0, 4.0] [4.0, 5.0, 5.0]"


@pytest.mark.parametrize("n", [3, 1 << 16, (1 << 16) + 1])
def test_out_of_range_indices_are_named_alike_for_every_index_length(dev, n):
    """The CPU checks an index of up to 65,536 values in one pass, longer ones (and
    other devices) by reductions: the same IndexError either way."""
    x = pdt.tensor(np.arange(10.0).reshape(5, 2), device=dev)
    for bad, negative_ok in ((9, False), (5, True), (-6, True), (-1, False)):
        v = np.zeros(n, np.int64)
        v[n // 2] = bad
        v = pdt.tensor(v, device=dev)
        with raises_index_error(dev, rf"index {bad} is out of bounds for dimension 0 "
                                     rf"with size 5"):
            if negative_ok:
                x[v]
            else:
                x.index_select(0, v)
    ok = pdt.tensor(np.full(n, -5 if n < 10 else 4, np.int64), device=dev)
    assert float(x[ok][:, 0].sum()) == n * (0.0 if n < 10 else 8.0)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
def test_nested_list_key_is_read_as_a_tuple_as_torch(device):
    """A list holding sequences (or slices, None, Ellipsis, tensors) is read as a tuple,
    as PyTorch 2.15 still does (NumPy >= 1.23 reads it as one array): get and set."""
    torch = torch_or_skip()
    keys = [lambda L: [[0, 1], [2, 0]], lambda L: [[0, 1]], lambda L: [0, slice(None)],
            lambda L: [None, 0], lambda L: [1, Ellipsis],
            lambda L: [L.tensor([0, 1]), L.tensor([2, 0])]]
    for key in keys:
        a = np.arange(12.0).reshape(3, 4)
        t, x = torch.tensor(a), pdt.tensor(a, device=device)
        kt, kx = key(torch), key(pdt)
        if isinstance(kx[0], pdt.Tensor):
            kx = [k.to(device) for k in kx]
        np.testing.assert_array_equal(x[kx].cpu().numpy(), t[kt].numpy())
        t[kt], x[kx] = -1.0, -1.0
        np.testing.assert_array_equal(x.cpu().numpy(), t.numpy())
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        pdt.arange(12.0, device=device).reshape(3, 4)[[[0, 1], [2, 0]]]
    assert pdt.arange(12.0, device=device).reshape(3, 4)[[0, 1]].shape == (2, 4)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "uint8"])
def test_setitem_of_a_mask_with_one_value_matches_numpy(device, dtype):
    """x[mask] = v with one value (a number or a 0-d tensor on x's device) is one masked
    fill (the mask over all of x's dims or its leading ones); several values still go
    through the positions.  The value converts as x's dtype takes it."""
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((6, 5, 4)) * 50).astype(dtype)
    for mask in (rng.random((6, 5, 4)) > 0.5, rng.random((6, 5)) > 0.5,
                 rng.random(6) > 0.5, np.zeros((6, 5), bool)):
        for value in (7, True, -0.0, 2.7, pdt.tensor(3, device=device),
                      pdt.tensor(-2.5, device=device),
                      pdt.tensor(1.5, dtype=pdt.float64, device=device)):
            want = a.copy()
            with np.errstate(invalid="ignore"):
                want[mask] = (value.cpu().numpy() if isinstance(value, pdt.Tensor)
                              else np.array(value)).astype(dtype)
            x = pdt.tensor(a, device=device)
            x[pdt.tensor(mask, device=device)] = value
            got = x.cpu().numpy()  # bit for bit: -0.0 stays -0.0
            assert (got.view(np.uint8) == want.view(np.uint8)).all(), (mask.shape, value)
    if dtype.startswith("float"):
        x = pdt.tensor(a, device=device)
        x[x > 0] = float("nan")
        got = x.cpu().numpy()
        assert np.isnan(got[a > 0]).all() and (got[a <= 0] == a[a <= 0]).all()
    mask = rng.random((6, 5)) > 0.5
    rows = (rng.standard_normal((int(mask.sum()), 4)) * 9).astype(dtype)
    x, want = pdt.tensor(a, device=device), a.copy()
    x[pdt.tensor(mask, device=device)] = pdt.tensor(rows, device=device)  # several values
    want[mask] = rows
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    if pdt.device(device).type != "cpu":  # a value on another device: index_put's refusal
        with pytest.raises(pdt.DeviceError, match="in index_put: argument 'values' is on cpu"):
            x[pdt.tensor(mask, device=device)] = pdt.tensor(3)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8", "float16"])
def test_a_leading_mask_in_c_matches_numpy(dev, dtype):
    """x[mask] for a bool mask over x's leading dims (Note [masks in C] in
    csrc/python/tensor_index.c on the CPU; the Python path elsewhere and for the keys it
    leaves): 1 to 3 mask dims, every element, none, one, a non-contiguous x or mask, an
    empty x, and the same values as NumPy's; the result is a new tensor."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 3, (5, 4, 3)).astype(dtype)
    for k in (1, 2, 3):
        for m in (rng.random(a.shape[:k]) < 0.5, np.ones(a.shape[:k], bool),
                  np.zeros(a.shape[:k], bool)):
            x, mt = pdt.tensor(a, device=dev), pdt.tensor(m, device=dev)
            got = x[mt]
            np.testing.assert_array_equal(host(got), a[m])
            assert got.dtype == x.dtype and (got.numel() == 0 or got.data_ptr() != x.data_ptr())
            np.testing.assert_array_equal(host(x.transpose(0, 1).contiguous().transpose(0, 1)[mt]),
                                          a[m])
    one = np.zeros(5, bool)
    one[3] = True
    np.testing.assert_array_equal(host(pdt.tensor(a, device=dev)[pdt.tensor(one, device=dev)]),
                                  a[one])
    strided = pdt.tensor(np.stack([one, ~one], 1), device=dev)[:, 0]
    np.testing.assert_array_equal(host(pdt.tensor(a, device=dev)[strided]), a[one])
    empty = pdt.zeros((0, 3), device=dev)
    assert tuple(empty[pdt.zeros(0, dtype=pdt.bool, device=dev)].shape) == (0, 3)
    # contiguous with a size-1 dim whose stride is anything (a review: the C path took
    # x's strides and read the wrong rows, or past the storage)
    c = np.arange(12.0, dtype=np.float32).reshape(1, 3, 4)
    x = pdt.tensor(c, device=dev).transpose(0, 1)
    m = np.array([[False], [True], [True]])
    np.testing.assert_array_equal(host(x[pdt.tensor(m, device=dev)]), c.transpose(1, 0, 2)[m])
    b = np.arange(6.0, dtype=np.float32).reshape(1, 6)
    m = np.array([[1], [0], [1], [0], [0], [1]], bool)
    np.testing.assert_array_equal(host(pdt.tensor(b, device=dev).t()[pdt.tensor(m, device=dev)]),
                                  b.T[m])
    big = np.arange(4000.0, dtype=np.float32).reshape(1, 1000, 4)
    got = pdt.tensor(big, device=dev).transpose(0, 1)[pdt.ones((1000, 1), dtype=pdt.bool,
                                                              device=dev)]
    np.testing.assert_array_equal(host(got), big.transpose(1, 0, 2).reshape(1000, 4))


def test_a_leading_mask_keeps_autograd_and_names_a_wrong_shape(dev):
    """x requiring grad takes the recorded path (its gradient scatters back); a mask whose
    shape is not x's leading dims is an IndexError naming both shapes."""
    x = pdt.tensor(np.arange(6.0).reshape(3, 2), device=dev, requires_grad=True)
    m = pdt.tensor([True, False, True], device=dev)
    x[m].sum().backward()
    np.testing.assert_array_equal(host(x.grad), [[1, 1], [0, 0], [1, 1]])
    with pytest.raises(IndexError, match=r"mask \[2\] at index 0 .* tensor \[3\]"):
        x.detach()[pdt.tensor([True, False], device=dev)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_rows_set_to_a_number_by_an_int64_vector(dev, dtype):
    """x[v] = number (one index_put of the number expanded on the CPU; the general path
    elsewhere): rows of a 2-d x and of a transposed view, negative indices, a float into an
    integer tensor, the version counter, and an index out of range named in indexing's
    words with x unchanged."""
    a = np.arange(24).reshape(6, 4).astype(dtype)
    v = np.array([0, -1, 3])
    for value in (1, 0, 2.0):
        x = pdt.tensor(a, device=dev)
        want = a.copy()
        want[v] = value
        before = x._version
        x[pdt.tensor(v, device=dev)] = value
        np.testing.assert_array_equal(host(x), want)
        assert x._version > before
        t = pdt.tensor(a.T.copy(), device=dev).T  # a transposed view writes through
        t[pdt.tensor(v, device=dev)] = value
        np.testing.assert_array_equal(host(t), want)
    x = pdt.tensor(a, device=dev)
    with raises_index_error(dev, match=r"^index: index 6 is out of bounds for dimension 0 "):
        x[pdt.tensor([1, 6], device=dev)] = 1
    np.testing.assert_array_equal(host(x), a)


@pytest.mark.parametrize("n", [10, 70_000])
def test_one_bad_index_anywhere_is_named(dev, n):
    """x[v] (whole rows, single elements) and x[:, v] with one value out of range first,
    in the middle or last in v: an IndexError naming it, the dim and the size, and x
    unchanged.  The CPU checks each value as it gathers and names the bad one after
    (pdt_index_select_as in csrc/core/pdt_index.c); v longer than 2^16 is named through
    the reductions."""
    a = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    x = pdt.tensor(a, device=dev)
    rng = np.random.default_rng(n)
    for bad in (n, -n - 1, 2**62):
        for at in (0, n // 2, n - 1):
            v = rng.integers(-n, n, n)
            v[at] = bad
            iv = pdt.tensor(v, device=dev)
            for what, f, size in (("rows", lambda: x[iv], n), ("elements", lambda: x[:, 0][iv], n),
                                  ("columns", lambda: x.t()[:, iv], n)):
                with raises_index_error(dev, rf"index {bad} is out of bounds for dimension "
                                             rf"\d with size {size}"):
                    f()
    np.testing.assert_array_equal(host(x), a)
    v = rng.integers(-n, n, n)
    np.testing.assert_array_equal(host(x[pdt.tensor(v, device=dev)]), a[v])


def test_an_index_into_an_empty_dim_or_an_empty_result_is_checked(dev):
    """x[v] where v's dim has size 0, or where the result has no elements (another dim
    0): an IndexError naming the value, as NumPy's and before the kernel reads (the CPU's
    kernel-side check needs an element 0 to send a bad value to, and an empty result
    reads no value)."""
    for x, key, bad, size in ((pdt.zeros((0, 3), device=dev), lambda v: v, 0, 0),
                              (pdt.zeros((0,), device=dev), lambda v: v, 0, 0),
                              (pdt.zeros((0, 1000), device=dev), lambda v: v, 0, 0),
                              (pdt.zeros((3, 0), device=dev), lambda v: (slice(None), v), 0, 0),
                              (pdt.zeros((3, 0), device=dev), lambda v: v, 5, 3)):
        with raises_index_error(dev, rf"index {bad} is out of bounds for dimension \d with "
                                     rf"size {size}"):
            x[key(pdt.tensor([bad], device=dev))]
    with raises_index_error(dev, "out of bounds"):
        pdt.take(pdt.zeros((0,), device=dev), pdt.tensor([0, 7], device=dev))
    assert tuple(pdt.zeros((3, 0), device=dev)[pdt.tensor([2, -3], device=dev)].shape) == (2, 0)


@pytest.mark.parametrize("k", [5, 3000])
def test_repeated_indices_into_a_long_dim_the_last_value_wins(dev, k):
    """Note [the last value wins] (csrc/cuda/cuda_index.cu): on a dim much longer than the
    index, CUDA records the last value per place in a table sized by the index (hashed,
    with collisions at k = 3000), not by x; NumPy's answer on every device, a negative
    index and its positive twin counting as one place."""
    n = 1_000_003
    rng = np.random.default_rng(k)
    idx = rng.integers(-n, n, k)
    idx[: k // 3] = idx[k // 3: 2 * (k // 3)]  # repeats, some in the other sign
    idx[:2] = [5, n - 1]
    idx[-3:] = [5, 7, -1]
    vals = np.arange(k, dtype=np.float32) + 1
    x = pdt.zeros(n, device=dev)
    x[pdt.tensor(idx, device=dev)] = pdt.tensor(vals, device=dev)
    want = np.zeros(n, np.float32)
    want[idx] = vals
    np.testing.assert_array_equal(host(x), want)
    assert host(x)[5] == k - 2 and host(x)[n - 1] == k


def test_writing_two_places_of_a_large_tensor_needs_no_memory_of_its_size(dev):
    """x[[i, j]] = v: whatever the op keeps aside (CUDA's record of the last value per
    place) follows the index, not x (which is 4 MB here)."""
    n = 1 << 20
    x = pdt.zeros(n, device=dev)
    i, v = pdt.tensor([3, 3], device=dev), pdt.tensor([1.0, 2.0], device=dev)
    pdt.cuda.reset_peak_memory_stats(dev)
    before = pdt.cuda.memory_allocated(dev)
    x[i] = v
    assert pdt.cuda.max_memory_allocated(dev) - before < n * 4 // 8
    assert host(x)[3] == 2.0


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_a_zero_d_integer_tensor_indexes_as_its_int(dev, dtype):
    """PyTorch's applySelect: x[tensor(i)] is x[i], a view (writes reach x), and keeps
    the int's place in the ints-first rule; uint8 and bool 0-d tensors stay masks."""
    buf = pdt.zeros(3, 2, device=dev)
    for i in pdt.arange(3, dtype=getattr(pdt, dtype), device=dev):
        buf[i].fill_(float(i) + 1)  # a view each time
    assert buf.cpu().tolist() == [[1, 1], [2, 2], [3, 3]]
    x = pdt.arange(24.0, device=dev).reshape(2, 3, 4).clone()
    i = pdt.tensor(1, dtype=getattr(pdt, dtype), device=dev)
    assert x[i]._base is x and x[i, 0]._base is x
    cols = pdt.tensor([1, 2], device=dev)
    ref = np.arange(24.0).reshape(2, 3, 4)[1, :, [1, 2]]  # NumPy moves it to the front
    assert tuple(x[i, :, cols].shape) == tuple(x[1, :, cols].shape) == (3, 2) != ref.shape
    x[i][0] = 7.0
    x[i, 1] = -1.0
    assert x.cpu()[1].tolist() == [[7.0] * 4, [-1.0] * 4, [20.0, 21.0, 22.0, 23.0]]
    w = pdt.ones(3, device=dev, requires_grad=True)
    (w * 2)[pdt.tensor(1, device=dev)].backward()
    assert w.grad.cpu().tolist() == [0.0, 2.0, 0.0]
    assert tuple(x[pdt.tensor(True, device=dev)].shape) == (1, 2, 3, 4)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint16", "float64", "float32"])
def test_a_zero_d_numpy_array_indexes_as_its_int(device, dtype):
    """x[np.array(1)] is x[1], a view, as in PyTorch (a 0-d float array too, its int);
    it used to be read as a bool mask: shape (1, 5), and x[np.array(1)] = 9 wrote all."""
    a = np.arange(12.0).reshape(3, 4)
    i, j = np.array(2, dtype), np.array(1, dtype)
    for key, want in [(i, a[2]), ((i, 1), a[2, 1]), ((slice(None), i), a[:, 2]),
                      ((i, j), a[2, 1]), ((None, i), a[None, 2]), ((Ellipsis, i), a[..., 2]),
                      ((i, [0, 3]), a[2, [0, 3]]), (np.array(0, dtype), a[0]),
                      ((j, np.array([True, False, True, True])), a[1, [0, 2, 3]])]:
        x = pdt.tensor(a, device=device)
        np.testing.assert_array_equal(host(x[key]), want)
        x[key] = -1.0
        b = a.copy()
        b[tuple(int(k) if isinstance(k, np.ndarray) and k.ndim == 0 else k
                for k in (key if isinstance(key, tuple) else (key,)))] = -1.0
        np.testing.assert_array_equal(host(x), b)
    x = pdt.tensor(a, device=device)
    assert x[i]._base is x
    x[j].fill_(7.0)
    assert host(x)[1].tolist() == [7.0] * 4
    with raises_index_error(device):
        x[np.array(3, dtype)]
    # bool and uint8 0-d arrays stay masks: a new dim of size 1 (0 for False)
    for m in (np.array(True), np.array(1, np.uint8), np.array(False), np.array(0, np.uint8)):
        assert tuple(x[m].shape) == (int(m), 3, 4)


def test_a_uint8_numpy_array_is_a_mask_as_a_uint8_tensor(device):
    """PyTorch reads a uint8 index, tensor or NumPy array, as a mask (with its
    deprecation warning); the array's values used to be taken as positions."""
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([1, 0, 2], np.uint8)
    m2 = np.array([[1, 0, 1], [0, 3, 0]], np.uint8)
    x = pdt.tensor(a, device=device)
    for key, want in [((slice(None), m), a[:, m != 0]), (m2, a[m2 != 0]),
                      (np.array([0, 1], np.uint8), a[[False, True]])]:
        with pytest.warns(UserWarning, match="uint8 is deprecated"):
            np.testing.assert_array_equal(host(x[key]), want)
        y, b = pdt.tensor(a, device=device), a.copy()
        b[tuple(k != 0 if isinstance(k, np.ndarray) else k
                for k in (key if isinstance(key, tuple) else (key,)))] = -1.0
        with pytest.warns(UserWarning, match="uint8 is deprecated"):
            y[key] = pdt.tensor(-1.0, device=device).expand(want.shape)
        np.testing.assert_array_equal(host(y), b)
    with pytest.warns(UserWarning, match="uint8 is deprecated"):
        with pytest.raises(IndexError, match="shape of the mask"):
            x[m]  # a (3,) mask on the (2, 3) tensor's first dim


def test_setitem_false_writes_nothing(device):
    """x[False] = v selects nothing: x, its version and its autograd record stay as they
    were, as PyTorch's; v is still checked (it must fit x's dtype and broadcast to the
    empty selection).  x[True] = v and the other empty selections write (a version bump)."""
    x = pdt.zeros(3, device=device)
    x[False] = 1.0
    x[False] = pdt.ones(3, device=device)
    assert x._version == 0 and x.tolist() == [0.0, 0.0, 0.0]
    w = pdt.zeros(3, device=device, requires_grad=True)  # a leaf: a write would raise
    w[False] = pdt.tensor(2.0, device=device, requires_grad=True)
    assert w._version == 0 and w.grad_fn is None
    with pytest.raises(pdt.InvalidArgumentError, match="cannot be broadcast"):
        x[False] = pdt.ones(5, device=device)
    with pytest.raises(pdt.InvalidArgumentError, match="1000 cannot be converted to int8"):
        pdt.zeros(3, dtype=pdt.int8, device=device)[False] = 1000
    for key in ((False,), pdt.tensor(False, device=device)):
        y = pdt.zeros(3, device=device)
        y[key] = 1.0
        assert y._version == 1 and y.tolist() == [0.0, 0.0, 0.0]
    x[True] = 4.0
    assert x._version == 1 and x.tolist() == [4.0, 4.0, 4.0]


def test_indices_that_broadcast_to_nothing_are_not_checked(device):
    """x[zeros(0), [7]]: the index tensors broadcast to no place, so no value is read
    and none is out of range, as in NumPy and PyTorch (it raised 'index 7 is out of
    bounds'); x[[], 5:] of an empty dim likewise, reading and writing nothing."""
    a = np.arange(6.0).reshape(2, 3)
    x = pdt.tensor(a, device=device)
    empty = np.zeros(0, np.int64)
    for key, np_key in (((pdt.tensor(empty, device=device), [7]), (empty, [7])),
                        (([[]], [-9]), (np.zeros((1, 0), np.int64), [-9])),
                        ((pdt.tensor([False, False], device=device), [5]),
                         (np.array([False, False]), [5]))):
        got = x[key]
        assert tuple(got.shape) == a[np_key].shape
        x[key] = 1.0
        x[key] = pdt.ones(1, device=device)
        x.index_put_(tuple(pdt.tensor(k, device=device) for k in np_key),
                     pdt.tensor(2.0, dtype=x.dtype, device=device), accumulate=True)
    np.testing.assert_array_equal(x.cpu().numpy(), a)
    y = pdt.zeros(1, 0, 2, device=device)
    assert tuple(y[pdt.tensor([False], device=device), [0], 0].shape) == (0,)
    with raises_index_error(device, "index 7 is out of bounds for dimension 1 with size 3"):
        x[pdt.tensor([0], device=device), [7]]  # one place: checked


@pytest.mark.parametrize("key", ["tensor", "numpy_int", "numpy_0d", "tuple"])
def test_setitem_of_a_basic_key_through_the_hook_is_recorded(device, key):
    """x[tensor(1)] = v (and np.int64(1), np.array(1), (tensor(1), :)) on a tensor in the
    graph is x[1] = v, recorded as CopySlices: it raised '_basic_setitem(): a private
    kernel that writes in place without recording the gradient'.  The gradients against
    the closed form: a's is 2 w off the written row, v's is w's row; a leaf requiring
    grad still refuses the write."""
    k = {"tensor": pdt.tensor(1, device=device), "numpy_int": np.int64(1),
         "numpy_0d": np.array(1), "tuple": (pdt.tensor(-2, device=device), slice(None))}[key]
    w = np.arange(6.0).reshape(3, 2) + 1
    a = pdt.tensor(np.ones((3, 2)), device=device, requires_grad=True)
    v = pdt.tensor([5.0, 7.0], device=device, requires_grad=True)
    x = a * 2
    x[k] = v
    assert type(x.grad_fn).__name__ == "CopySlices"
    np.testing.assert_array_equal(x.detach().cpu().numpy(), [[2.0, 2.0], [5.0, 7.0], [2.0, 2.0]])
    (x * pdt.tensor(w, device=device)).sum().backward()
    want = 2 * w
    want[1] = 0
    np.testing.assert_array_equal(a.grad.cpu().numpy(), want)
    np.testing.assert_array_equal(v.grad.cpu().numpy(), w[1])
    base = a * 1
    view = base[1:]  # a view of a non-leaf: the write reaches its base's graph
    view[k if key != "tuple" else pdt.tensor(0, device=device)] = v
    assert type(base.grad_fn).__name__ == "CopySlices"
    v.grad = None
    base.sum().backward()
    np.testing.assert_array_equal(v.grad.cpu().numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="leaf"):
        a[k] = 3.0
