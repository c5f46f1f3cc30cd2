"""Views and indexing against NumPy, on every device.

Every view shares its base's storage (a write through the view shows in the base);
reshape and flatten copy only when no strides can describe the result.  Basic
indexing (ints, slices with any step, None, ...) is a view; t[idx] = value writes a
number or a same-device tensor broadcast to the indexed shape.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pydevtensor as pdt
from conftest import DTYPES, raises_index_error

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def host(t):
    return t.cpu().numpy()


def base(shape, device, dtype="float32"):
    """A tensor of shape holding 0, 1, 2, ... and its NumPy twin."""
    a = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape).astype(dtype)
    return pdt.tensor(a, device=device), a


def shares(view, t):
    """True when view shares t's storage."""
    return view._storage_refcount() == t._storage_refcount() > 1


# ---- indexing: a property test against NumPy ----

@st.composite
def index_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    items, dims_left, ellipsis = [], len(shape), False
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        kinds = ["none"] + (["int", "slice"] if dims_left else []) + ([] if ellipsis else ["..."])
        kind = draw(st.sampled_from(kinds))
        if kind == "none":
            items.append(None)
        elif kind == "...":
            items.append(Ellipsis)
            ellipsis = True
        else:
            size = shape[len(shape) - dims_left] if not ellipsis else None
            dims_left -= 1
            if kind == "int":  # after an Ellipsis: maybe out of range (NumPy says)
                items.append(draw(st.integers(-size, size - 1)) if size else
                             draw(st.integers(-3, 2)))
            else:
                bound = st.none() | st.integers(-7, 7)
                step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
                items.append(slice(draw(bound), draw(bound), step))
    key = tuple(items) if draw(st.booleans()) or len(items) != 1 else items[0]
    return shape, key, draw(st.sampled_from(DTYPES))


@SETTINGS
@given(case=index_cases())
def test_indexing_matches_numpy(device, case):
    shape, key, dtype = case
    t, a = base(shape, device, dtype)
    try:
        ref = a[key]
    except IndexError:  # an int out of range: the same error, with the size in it
        with pytest.raises(IndexError, match=r"out of bounds for dimension \d+ with size"):
            t[key]
        return
    v = t[key]
    assert tuple(v.shape) == ref.shape
    np.testing.assert_array_equal(host(v), ref)
    assert shares(v, t)
    if ref.size:  # writes through the view show in the base
        v[...] = -1
        a[key] = -1
        np.testing.assert_array_equal(host(t), a)


def test_basic_indexing_forms(device):
    t, a = base((3, 4, 5), device)
    for key in (0, -1, (1, 2), (slice(None), slice(1, 3)), (Ellipsis, None), (None, 0),
                (Ellipsis, 2), (slice(None, None, -1),), (slice(None), slice(None, None, -2), 1),
                (slice(5, 1, -1),), (1, Ellipsis, slice(3, None)), (), Ellipsis,
                (slice(-100, 100),), (0, 0, 0)):
        np.testing.assert_array_equal(host(t[key]), a[key])
    assert t[1, 2, 3].shape == () and float(t[1, 2, 3].cpu()) == a[1, 2, 3]


def test_int_keys_as_numpy(device):
    """An int key (taken first, before the other kinds: the common x[0]) reads as NumPy's,
    in range and out of it, and a bool or an int subclass as before: x[True] is an
    advanced index (a new dim of 1), an int subclass an int."""
    t, a = base((3, 4), device)

    class Int(int):
        pass

    for k in (0, 2, -1, -3, Int(1), np.int64(2)):
        np.testing.assert_array_equal(host(t[k]), a[k])
        assert shares(t[k], t)
    np.testing.assert_array_equal(host(t[True]), a[True])
    assert t[False].shape == a[False].shape == (0, 3, 4)
    for k in (3, -4, 2 ** 62):
        with pytest.raises(IndexError):
            a[k]
        with pytest.raises(IndexError):
            t[k]
    for k in (2 ** 63, -2 ** 70):  # out of int64: IndexError still (NumPy's OverflowError,
        with pytest.raises(IndexError):  # PyTorch's ValueError), as any index out of range
            t[k]


def test_negative_steps_are_views(device):
    t, a = base((4, 6), device)
    v = t[::-1, ::-2]
    assert v.stride() == (-6, -2) and shares(v, t)
    np.testing.assert_array_equal(host(v), a[::-1, ::-2])
    v[0, 0] = 100.0
    assert float(t[3, 5].cpu()) == 100.0
    np.testing.assert_array_equal(host(v.contiguous()), host(v))
    np.testing.assert_array_equal(host(v.reshape(-1)), host(v).reshape(-1))


def test_iteration_walks_the_first_dim(device):
    t, a = base((3, 2), device)
    rows = [host(r) for r in t]
    np.testing.assert_array_equal(np.stack(rows), a)
    # the rows are views made when the iteration starts (_views_along), as PyTorch's
    it = iter(t)
    t.data = pdt.zeros(5, device=device)
    np.testing.assert_array_equal(np.stack([host(r) for r in it]), a)
    for dim in (0, 1, -1):
        assert all(p._is_view() for p in pdt.unbind(base((3, 2), device)[0], dim))
    cols = base((3, 2), device)[0].unbind(1)
    np.testing.assert_array_equal(np.stack([host(c) for c in cols], 1), a)
    assert cols[1].stride() == (2,) and cols[1].storage_offset() == 1


def test_split_pieces_are_views_in_one_call(device):
    t, a = base((5, 4), device)
    pieces = t.split([2, 0, 3])
    assert [tuple(p.shape) for p in pieces] == [(2, 4), (0, 4), (3, 4)]
    assert all(p._is_view() for p in pieces) and pieces[2].storage_offset() == 8
    np.testing.assert_array_equal(host(pieces[2]), a[2:])
    cols = t.split(3, dim=1)
    np.testing.assert_array_equal(host(cols[1]), a[:, 3:])
    assert cols[1].stride() == (4, 1) and cols[1].storage_offset() == 3
    # the private call refuses what split's checks keep from it, without a crash
    from pydevtensor import _C
    for bad in ([2, 2], [6, -1], [2, 3.0, 0], [2**70, 5], [5, 0, 1]):
        with pytest.raises(IndexError, match="sizes"):
            _C._views_along(t, 0, bad)
    with pytest.raises(IndexError, match="dim 2"):
        _C._views_along(t, 2)
    with pytest.raises(TypeError):
        _C._views_along(t, 0, (5,))


def test_shape_follows_the_tensor(device):
    """Note [the shape kept]: the Size given last is given again only while it holds the
    tensor's sizes."""
    t, _ = base((3, 2), device)
    s = t.shape
    assert type(s) is pdt.Size and s == (3, 2) and t.shape is s
    t.data = pdt.zeros(4, 5, 6, device=device)
    assert t.shape == (4, 5, 6) and t.size() == (4, 5, 6) and t.shape[2] == 6
    t.data = pdt.zeros(4, 7, 6, device=device)
    assert t.shape == (4, 7, 6) and s == (3, 2)
    t.data = pdt.zeros((), device=device)
    assert t.shape == () and type(t.shape) is pdt.Size


# ---- reshape, view, flatten ----

@pytest.mark.parametrize("shape, new", [
    ((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((2, 3, 4), (4, -1, 2)), ((6,), (1, 6, 1)),
    ((0, 3), (3, 0)), ((0, 3), (-1, 3)), ((), (1, 1)), ((1,), ()), ((2, 1, 3), (3, 2)),
])
def test_reshape_and_view_of_contiguous(device, shape, new):
    t, a = base(shape, device)
    for f in (lambda: t.reshape(new), lambda: t.reshape(*new) if new else t.reshape(new),
              lambda: t.view(new), lambda: pdt.reshape(t, new)):
        r = f()
        np.testing.assert_array_equal(host(r), a.reshape(new))
        assert shares(r, t)


def test_view_of_strided_tensors(device):
    t, a = base((4, 6), device)
    s = t[:, ::2]                      # (4, 3) with strides (6, 2): dims 0/1 not mergeable
    np.testing.assert_array_equal(host(s.view(2, 2, 3)), a[:, ::2].reshape(2, 2, 3))
    assert shares(s.view(2, 2, 3), t)
    tt = t.T                           # (6, 4) transposed
    np.testing.assert_array_equal(host(tt.view(3, 2, 4)), a.T.reshape(3, 2, 4))
    with pytest.raises(ValueError, match=r"cannot view a tensor of shape \(6, 4\) with strides "
                                         r"\(1, 6\) as shape \(24,\).*reshape"):
        tt.view(-1)
    r = tt.reshape(-1)                 # reshape copies instead
    np.testing.assert_array_equal(host(r), a.T.reshape(-1))
    assert not shares(r, t)


@pytest.mark.parametrize("shape, start, end", [
    ((2, 3, 4), 0, -1), ((2, 3, 4), 1, 2), ((2, 3, 4), 0, 0), ((2, 3, 4), -2, -1), ((), 0, -1),
    ((5,), 0, 0), ((2, 0, 3), 1, 2),
])
def test_flatten(device, shape, start, end):
    t, a = base(shape, device)
    f = t.flatten(start, end)
    if a.ndim == 0:
        ref = a.reshape(1)
    else:
        s, e = start % a.ndim, end % a.ndim
        ref = a.reshape(a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])
    np.testing.assert_array_equal(host(f), ref)
    assert tuple(pdt.flatten(t, start_dim=start, end_dim=end).shape) == ref.shape
    assert host(t.T.flatten()).tolist() == a.T.reshape(-1).tolist()


# ---- transpose, T, t(), permute, squeeze, unsqueeze ----

def test_transpose_permute_T(device):
    t, a = base((2, 3, 4), device)
    np.testing.assert_array_equal(host(t.transpose(0, 2)), a.transpose(2, 1, 0))
    np.testing.assert_array_equal(host(pdt.transpose(t, -1, 1)), np.swapaxes(a, -1, 1))
    np.testing.assert_array_equal(host(t.permute(2, 0, 1)), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(host(pdt.permute(t, (1, -1, 0))), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(host(t.T), a.T)
    m, am = base((3, 5), device)
    np.testing.assert_array_equal(host(m.T), am.T)
    np.testing.assert_array_equal(host(m.t()), am.T)
    np.testing.assert_array_equal(host(pdt.t(m[0])), am[0])
    for v in (t.transpose(0, 2), t.permute(2, 0, 1), t.T, m.t()):
        assert shares(v, t) or shares(v, m)
    mt = m.t()
    mt[4, 2] = 99.0
    assert float(m[2, 4].cpu()) == 99.0


def test_squeeze_unsqueeze(device):
    t, a = base((1, 3, 1, 2), device)
    np.testing.assert_array_equal(host(t.squeeze()), a.squeeze())
    np.testing.assert_array_equal(host(t.squeeze(0)), a.squeeze(0))
    np.testing.assert_array_equal(host(t.squeeze(-2)), a.squeeze(-2))
    np.testing.assert_array_equal(host(t.squeeze((0, 2))), a.squeeze((0, 2)))
    assert tuple(t.squeeze(1).shape) == (1, 3, 1, 2)  # not of size 1: stays, as in PyTorch
    for d in range(-5, 5):
        np.testing.assert_array_equal(host(t.unsqueeze(d)), np.expand_dims(a, d))
    np.testing.assert_array_equal(host(pdt.unsqueeze(t, dim=1)), np.expand_dims(a, 1))
    np.testing.assert_array_equal(host(pdt.squeeze(t)), a.squeeze())
    assert shares(t.squeeze(), t) and shares(t.unsqueeze(0), t)
    s = pdt.tensor(3.0, device=device)
    assert s.unsqueeze(0).shape == (1,) and s.squeeze().shape == () and s.squeeze(0).shape == ()


# ---- t[idx] = value ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_scalar(device, dtype):
    t, a = base((3, 4), device, dtype)
    t[1] = 7
    t[:, ::-3] = 1
    t[..., 0] = True
    a[1] = 7
    a[:, ::-3] = 1
    a[..., 0] = True
    np.testing.assert_array_equal(host(t), a)


def test_setitem_tensor_broadcast_and_cast(device):
    t, a = base((3, 4), device)
    row = pdt.tensor([10, 20, 30, 40], device=device)  # int64 into float32
    t[:] = row
    a[:] = [10, 20, 30, 40]
    np.testing.assert_array_equal(host(t), a)
    col = pdt.tensor([[1.5], [2.5], [3.5]], device=device)
    t[:, 1:3] = col
    a[:, 1:3] = [[1.5], [2.5], [3.5]]
    np.testing.assert_array_equal(host(t), a)
    t[0] = pdt.tensor([[5.0, 6.0, 7.0, 8.0]], device=device)  # leading size-1 dims dropped
    a[0] = [5.0, 6.0, 7.0, 8.0]
    np.testing.assert_array_equal(host(t), a)
    t[2, 3] = pdt.tensor(-1.0, device=device)
    a[2, 3] = -1.0
    np.testing.assert_array_equal(host(t), a)


def test_setitem_overlapping_source(device):
    t, a = base((8,), device)
    t[1:] = t[:-1]      # NumPy semantics: as if the source were copied first
    a[1:] = a[:-1].copy()
    np.testing.assert_array_equal(host(t), a)
    m, am = base((3, 3), device)
    m[:] = m.T
    am[:] = am.T.copy()
    np.testing.assert_array_equal(host(m), am)
    r, ar = base((6,), device)
    r[:] = r[::-1]
    np.testing.assert_array_equal(host(r), ar[::-1])


def test_setitem_zero_size(device):
    t, a = base((2, 3), device)
    t[:, 3:] = 5.0
    t[0:0] = pdt.zeros(0, 3, device=device)
    np.testing.assert_array_equal(host(t), a)


@pytest.mark.cuda
def test_setitem_from_another_device_names_both():
    t = pdt.zeros(2, 3, device="cuda:0")
    with pytest.raises(RuntimeError, match=r"cuda:0 and cpu.*setitem.*'value' is on cpu"):
        t[0] = pdt.ones(3)
    c = pdt.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"cpu and cuda:0.*setitem"):
        c[0] = pdt.ones(3, device="cuda:0")
    with pytest.raises(RuntimeError, match=r"setitem"):
        t[0, 0] = pdt.tensor(1.0)  # a 0-d CPU tensor does not move to the GPU either
    assert float(t.sum().cpu()) == 0.0


# ---- error table: the messages name the dim, the ndim, the shapes and the sizes ----

ERRORS = [
    (lambda x: x.transpose(0, 2), IndexError, r"transpose\(\).*got dim 2 for a tensor with 2 dim"),
    (lambda x: x.unsqueeze(4), IndexError, r"unsqueeze\(\).*got dim 4 for a tensor with 2 dim.*"
                                           r"-3 <= dim <= 2"),
    (lambda x: x.squeeze(-3), IndexError, r"squeeze\(\).*got dim -3 for a tensor with 2 dim"),
    (lambda x: x.flatten(0, 5), IndexError, r"flatten\(\).*got dim 5"),
    (lambda x: x.flatten(1, 0), ValueError, r"start_dim .* cannot come after end_dim"),
    (lambda x: x.permute(0, 0), ValueError, r"dim 0 appears more than once"),
    (lambda x: x.permute(0), ValueError, r"number of dims \(1\) does not match.* 2 dimensions"),
    (lambda x: x.reshape(4, 2), ValueError,
     r"cannot reshape a tensor of shape \(2, 3\) \(6 elements, on .*\) into shape "
     r"\(4, 2\) \(8 "),
    (lambda x: x.view(-1, 4), ValueError,
     r"shape \(2, 3\) \(6 elements, on .*\) into shape \(-1, 4\)"),
    (lambda x: x.reshape(-1, -1), ValueError, r"only one dimension can be inferred"),
    (lambda x: x.reshape(2, -3), ValueError, r"invalid size -3"),
    (lambda x: x[2], IndexError, r"index 2 is out of bounds for dimension 0 with size 2"),
    (lambda x: x[:, -4], IndexError, r"index -4 is out of bounds for dimension 1 with size 3"),
    (lambda x: x[0, 0, 0], IndexError, r"too many indices for a tensor of dimension 2"),
    (lambda x: x[..., ...], IndexError, r"single ellipsis"),
    (lambda x: x[::0], ValueError, r"slice step cannot be zero"),
    (lambda x: x[[0, 2]], IndexError, r"index 2 is out of bounds for dimension 0 with size 2"),
    (lambda x: x[pdt.tensor([0.0], device=x.device)], IndexError,
     r"tensors used as indices must be long, int, byte or bool tensors"),
    (lambda x: x[np.array([0.0, 1.0])], IndexError, r"tensors used as indices must be long"),
    (lambda x: x.__setitem__(pdt.ones(2, 2, dtype=pdt.bool, device=x.device), 0.0), IndexError,
     r"shape of the mask \[2, 2\] at index 0 does not match"),
    (lambda x: x["a"], IndexError, r"only integers, slices"),
    (lambda x: x.__setitem__(0, [1, 2, 3]), TypeError, r"value must be a Python number or a "),
    (lambda x: x.__setitem__(0, pdt.ones(2, device=x.device)), ValueError,
     r"setitem\(\): a tensor of shape \(2,\) \(on .*\) cannot be broadcast to shape "
     r"\(3,\)"),
    (lambda x: x.__delitem__(0), TypeError, r"does not support item deletion"),
    (lambda x: x.t().t().view(pdt.float64), pdt.InvalidArgumentError, r"view\(float64\).*divisible"),
    (lambda x: x.unsqueeze(0).unsqueeze(0).t(), ValueError, r"t\(\) expects .* <= 2 dim"),
    (lambda x: pdt.transpose(x, 0), TypeError, r"missing required argument 'dim1'"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors(device, call, exc, message):
    x = pdt.ones(2, 3, device=device)
    before = host(x).copy()
    # x[[0, 2]] on a GPU: reported at the next synchronisation (raises_index_error)
    with (raises_index_error(device, message) if exc is IndexError else
          pytest.raises(exc, match=message)):
        call(x)
    np.testing.assert_array_equal(host(x), before)  # nothing half-written


def test_view_and_reduce_cycles_do_not_leak(device):
    """Views, reshape copies, setitem, reductions and their error paths, 20000
    times: the device's accounting and the process's RSS stay flat."""
    import gc

    sanitized = pdt.build_info()["sanitize"]  # (before measuring: it may load cuBLAS)

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    x = pdt.ones(4, 6, device=device)

    def cycle():
        v = x[1:, ::-2].T.reshape(-1).unsqueeze(0).flatten()
        x[0] = v[:6]
        x[1, :] = 2.0
        s, m = x.sum(1), x.max(0)
        a = x.T.argmax()
        for bad in (lambda: x[9], lambda: x.view(5), lambda: x.sum(7), lambda: x[:0].max(0),
                    lambda: x.__setitem__(0, [1])):
            try:
                bad()
            except (IndexError, ValueError, TypeError):
                pass
        del v, s, m, a

    for _ in range(500):
        cycle()
    gc.collect()
    allocated, before = pdt.memory_allocated(device), rss()
    for _ in range(20_000):
        cycle()
    gc.collect()
    assert pdt.memory_allocated(device) == allocated
    if not sanitized:  # ASan's quarantine holds freed memory
        assert rss() - before < 2 * 2 ** 20


VIEW_DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"]


@pytest.mark.parametrize("to", VIEW_DTYPES)
@pytest.mark.parametrize("frm", ["float32", "int16", "float64", "uint8"])
def test_view_dtype_reads_the_same_bytes_as_numpy(device, frm, to):
    """view(dtype) sees the bytes as NumPy's ndarray.view(dtype) does: same size elements
    keep the shape and strides; other sizes regroup the last dim; the storage is shared
    (a write shows through both) and autograd does not record it, as in PyTorch."""
    rng = np.random.default_rng(5)
    if to == "bool":  # bytes of 0 and 1 only: a bool of another byte has no defined value
        a = rng.integers(0, 2, (3, 8 * np.dtype(frm).itemsize)).astype(np.uint8).view(frm)
    else:
        a = rng.standard_normal((3, 8)).astype(frm) * 7
    x = pdt.tensor(a, device=device)
    cases = [(x, a), (x[1:], a[1:]), (x[:, 4:], a[:, 4:])]
    if np.dtype(frm).itemsize == np.dtype(to).itemsize:
        cases.append((x.T, a.T))  # any strides when the sizes agree
    for t, ref in cases:
        if np.dtype(to).itemsize > np.dtype(frm).itemsize and \
                (ref.shape[-1] * ref.itemsize) % np.dtype(to).itemsize:
            continue
        got = t.view(getattr(pdt, to))
        want = ref.view(to)
        assert got.dtype == getattr(pdt, to) and tuple(got.shape) == want.shape
        assert got.stride() == tuple(s // want.itemsize for s in want.strides)
        got = np.ascontiguousarray(got.cpu().numpy())
        if want.dtype.kind == "f":  # a NaN's payload may be quieted by a device's copy
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_array_equal(got.view(np.uint8),
                                          np.ascontiguousarray(want).view(np.uint8))
    y = x.view(getattr(pdt, to))
    y.zero_()  # the storage is shared: x reads zeros too
    assert not x.cpu().numpy().any()


def test_view_dtype_is_not_recorded(device):
    w = pdt.ones(2, 4, device=device, requires_grad=True)
    for dt in (pdt.int32, pdt.float16, pdt.float32):
        v = w.view(dt)
        assert not v.requires_grad and v.grad_fn is None and v._base is None
    assert (w * 2).view(pdt.int32).grad_fn is None


@pytest.mark.parametrize("expr, problem", [
    ("pdt.zeros(3, device=d).view(pdt.float64)", "divisible by the ratio"),
    ("pdt.zeros(4, device=d)[1:3].view(pdt.float64)", "divisible by the ratio"),
    ("pdt.zeros(2, 4, device=d)[:, ::2].view(pdt.float16)", "must be contiguous"),
    ("pdt.zeros((), device=d).view(pdt.float64)", "a 0-d tensor has no last dim"),
    ("pdt.zeros(3, 4, device=d)[:, :2][::1].T.view(pdt.float64)", "must be contiguous"),
])
def test_view_dtype_refusals_name_the_problem(device, expr, problem):
    with pytest.raises(pdt.InvalidArgumentError, match=problem):
        eval(expr, {"pdt": pdt, "d": device})


def test_view_takes_size_and_dtype_keywords(device):
    # PyTorch's keyword forms view(size=...) and view(dtype=...); the view shares memory
    x = pdt.arange(6.0, device=device)
    v = x.view(size=(2, 3))
    assert tuple(v.shape) == (2, 3) and v._base is x
    assert x.view(size=[3, -1]).shape == (3, 2)
    b = x.view(dtype=pdt.int16)
    assert b.dtype == pdt.int16 and tuple(b.shape) == (12,)
    np.testing.assert_array_equal(b.cpu().numpy(), x.cpu().numpy().view(np.int16))
    w = pdt.arange(4.0, device=device, requires_grad=True)
    (w.view(size=(2, 2)) * 3).sum().backward()
    assert w.grad.tolist() == [3.0] * 4
