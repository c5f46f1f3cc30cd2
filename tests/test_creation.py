"""Creation functions on every device, dtype inference, and bad input (issue 3)."""
import collections
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DTYPES, assert_close


def host(t):
    return t.cpu().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 1, 1, 5)])
def test_zeros_ones_full_empty(device, dtype, shape):
    z = pdt.zeros(shape, dtype=dtype, device=device)
    o = pdt.ones(*shape, dtype=dtype, device=device) if shape else pdt.ones((), dtype=dtype,
                                                                            device=device)
    f = pdt.full(shape, 3, dtype=dtype, device=device)
    e = pdt.empty(shape, dtype=dtype, device=device)
    for t in (z, o, f, e):
        assert t.shape == shape and t.device == device and t.dtype.name == dtype
        assert t.is_contiguous() and t.numel() == int(np.prod(shape))
    np.testing.assert_array_equal(host(z), np.zeros(shape, dtype=dtype))
    np.testing.assert_array_equal(host(o), np.ones(shape, dtype=dtype))
    np.testing.assert_array_equal(host(f), np.full(shape, 3, dtype=dtype))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64", "float16",
                                   "bfloat16"])
def test_large_fills_every_element(device, dtype):
    """Fills past the CPU's split into pieces (2 x 128 KB: memset for zero bits, the
    row loop for others), of a length that ends inside a piece, and through a view."""
    n = 300007
    values = [0, 1, 3] if dtype in ("bool", "int32", "int64") else [0.0, -0.0, 1.5, -2.25]
    for v in values:
        t = pdt.full((n,), v, dtype=dtype, device=device)
        got = host(t.float() if dtype in ("float16", "bfloat16") else t)
        want = np.full(n, v, dtype=np.float32 if dtype in ("float16", "bfloat16") else dtype)
        np.testing.assert_array_equal(got, want)
        if dtype.startswith("float"):
            assert (np.signbit(got) == np.signbit(np.float32(v))).all(), v
    t = pdt.ones(2 * n, dtype=dtype, device=device)
    t[1::2].zero_()  # a strided view: only it changes
    got = host(t.float() if dtype in ("float16", "bfloat16") else t)
    np.testing.assert_array_equal(got, np.tile(np.array([1, 0], got.dtype), n))
    t.zero_()
    assert not host(t.to(pdt.bool)).any()


def test_sizes_as_varargs_tuple_or_list():
    assert pdt.zeros(2, 3).shape == pdt.zeros((2, 3)).shape == pdt.zeros([2, 3]).shape == (2, 3)
    assert pdt.ones(np.int64(4)).shape == (4,)
    assert isinstance(pdt.zeros(2, 3).shape, tuple)
    assert repr(pdt.zeros(2, 3).shape) == "pydevtensor.Size([2, 3])"
    assert pdt.zeros(2, 3).size() == (2, 3) and pdt.zeros(2, 3).size(1) == 3
    assert pdt.zeros(2, 3).size(-1) == 3 and pdt.zeros(2, 3).size(dim=0) == 2


def test_full_infers_dtype_from_fill_value():
    assert pdt.full((2,), 1).dtype == pdt.int64
    assert pdt.full((2,), 1.5).dtype == pdt.float32
    assert pdt.full((2,), True).dtype == pdt.bool
    assert pdt.full((2,), 1, dtype=pdt.float64).dtype == pdt.float64


def test_like_functions(device):
    src = pdt.ones(2, 3, dtype=pdt.float64, device=device)
    for fn in (pdt.zeros_like, pdt.ones_like, pdt.empty_like):
        t = fn(src)
        assert t.shape == (2, 3) and t.dtype == pdt.float64 and t.device == src.device
    np.testing.assert_array_equal(host(pdt.full_like(src, 7)), np.full((2, 3), 7.0))
    assert pdt.zeros_like(src, dtype=pdt.int32).dtype == pdt.int32
    assert pdt.ones_like(src, device="cpu").device == pdt.device("cpu")


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((2, 9), {}), ((0, 1, 0.25), {}), ((10, 0, -3), {}), ((1.5, 4.0, 0.5), {}),
    ((0, 5), {"dtype": "float64"}), ((-3, 3), {"dtype": "int32"}), ((0,), {}),
])
def test_arange_matches_numpy(device, args, kwargs):
    t = pdt.arange(*args, device=device, **kwargs)
    expected = np.arange(*args)
    assert t.shape == expected.shape
    if "dtype" not in kwargs:
        assert t.dtype == (pdt.float32 if any(isinstance(a, float) for a in args) else pdt.int64)
    assert_close(host(t).astype(np.float64), expected.astype(np.float64), "float32")


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "bool"])
@pytest.mark.parametrize("start,step", [(0, 1), (-70000, 3), (2.5, -0.75), (-3.25, 0.125),
                                        (1e6, 1.0), (0, 1e-3)])
def test_arange_has_the_bits_of_its_formula(device, dtype, start, step):
    # Element i is start + (double)i * step cast to the dtype, and for an integer dtype
    # int(start) + i * int(step) (start and step cast first, as PyTorch's), on every
    # device and whatever path computes it: counted in integers, split across threads
    # (n above the grain twice), or vectorised.
    n = 300_001
    exact = start + np.arange(n, dtype=np.float64) * step
    if dtype in ("int32", "int64"):
        want = (int(start) + np.arange(n, dtype=np.int64) * int(step)).astype(dtype)
    else:
        want = exact.astype(dtype) if dtype != "bool" else exact != 0
    got = host(pdt.arange(start, start + n * step, step, dtype=dtype, device=device))
    assert got.shape == (n,) and got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_arange_at_the_ends_of_int32(device):
    # counted in int64: the step after the last element would pass INT32_MAX (the
    # sanitizer job's UBSan stops on a signed overflow)
    got = pdt.arange(0, 2 ** 31 - 1, 2 ** 30, dtype=pdt.int32, device=device)
    assert host(got).tolist() == [0, 2 ** 30]
    got = pdt.arange(2 ** 31 - 3, 2 ** 31, dtype=pdt.int32, device=device)
    assert host(got).tolist() == [2 ** 31 - 3, 2 ** 31 - 2, 2 ** 31 - 1]
    got = pdt.arange(-2 ** 31 + 2, -2 ** 31 - 1, -1, dtype=pdt.int32, device=device)
    assert host(got).tolist() == [-2 ** 31 + 2, -2 ** 31 + 1, -2 ** 31]


@pytest.mark.parametrize("start,end,steps", [(0, 1, 5), (-2, 2, 1), (0, 10, 0), (1, -1, 7),
                                             (0, 1, 1000)])
def test_linspace_matches_numpy(device, start, end, steps):
    t = pdt.linspace(start, end, steps, device=device)
    assert t.dtype == pdt.float32 and t.shape == (steps,)
    assert_close(host(t), np.linspace(start, end, steps), "float32")
    t64 = pdt.linspace(start, end, steps=steps, device=device, dtype=pdt.float64)
    assert_close(host(t64), np.linspace(start, end, steps), "float64")


@pytest.mark.parametrize("n,m", [(3, None), (2, 4), (4, 2), (0, None), (1, 1)])
def test_eye(device, n, m):
    t = pdt.eye(n, m, device=device) if m is not None else pdt.eye(n, device=device)
    np.testing.assert_array_equal(host(t), np.eye(n, m, dtype=np.float32))


def test_tensor_infers_like_pytorch():
    assert pdt.tensor(1).dtype == pdt.int64
    assert pdt.tensor(1.0).dtype == pdt.float32
    assert pdt.tensor(True).dtype == pdt.bool
    assert pdt.tensor([1, 2.5]).dtype == pdt.float32
    assert pdt.tensor([True, 2]).dtype == pdt.int64
    assert pdt.tensor([]).dtype == pdt.float32 and pdt.tensor([]).shape == (0,)
    assert pdt.tensor([[], []]).shape == (2, 0)
    assert pdt.tensor(((1, 2), (3, 4))).tolist() == [[1, 2], [3, 4]]
    assert pdt.tensor(3.5).shape == () and pdt.tensor(3.5).item() == 3.5
    for np_dtype in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        a = np.arange(6).reshape(2, 3).astype(np_dtype)
        t = pdt.tensor(a)
        assert t.dtype.name == np.dtype(np_dtype).name.replace("bool", "bool")
        np.testing.assert_array_equal(t.numpy(), a)
    assert pdt.tensor(np.float64(2.5)).dtype == pdt.float64  # NumPy scalars keep their dtype, as in PyTorch
    assert pdt.tensor([np.int32(1), np.int64(2)]).dtype == pdt.int64


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_copies_data_to_device(device, dtype):
    data = [[0, 1, 2], [3, 4, 5]]
    t = pdt.tensor(data, dtype=dtype, device=device)
    assert t.device == device and t.dtype.name == dtype
    np.testing.assert_array_equal(host(t), np.array(data).astype(dtype))


def test_tensor_always_copies():
    a = np.ones(3, dtype=np.float32)
    t = pdt.tensor(a)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]
    s = pdt.ones(2)
    with pytest.warns(UserWarning, match="copy construct"):
        c = pdt.tensor(s)
    assert c.data_ptr() != s.data_ptr()


def test_tensor_from_strided_and_negative_stride_arrays():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (a[::2, 1::3], a[::-1], a[:, ::-2], a.T, a[1:3, 2]):
        np.testing.assert_array_equal(pdt.tensor(view).numpy(), view)


BAD = [
    (lambda: pdt.zeros(-1), ValueError, "negative dimension -1"),
    (lambda: pdt.zeros(2, -3), ValueError, "negative dimension -3 at position 1"),
    (lambda: pdt.ones(2**31, 2**31, 2**31), ValueError, "2\\^62"),
    (lambda: pdt.empty(2**62), ValueError, "2\\^62"),
    (lambda: pdt.zeros(2.5), TypeError, "sequence of ints.*float"),
    (lambda: pdt.zeros("3"), TypeError, "sequence of ints"),
    (lambda: pdt.zeros(), TypeError, "missing the size"),
    (lambda: pdt.zeros(2, size=(3,)), TypeError, "got the size twice"),
    (lambda: pdt.rand(2, size=(3,)), TypeError, "rand\\(\\) got the size twice"),
    (lambda: pdt.ones(size=(2, -1)), ValueError, "negative dimension -1 at position 1"),
    (lambda: pdt.zeros(*([1] * 17)), ValueError, "at most 16 dimensions"),
    (lambda: pdt.tensor([[1, 2], [3]]), ValueError, "ragged"),
    (lambda: pdt.tensor([[1, 2], 3]), ValueError, "ragged"),
    (lambda: pdt.tensor([1, "a"]), TypeError, "expected numbers.*str"),
    (lambda: pdt.tensor(None), TypeError, "data must be"),
    (lambda: pdt.tensor({1: 2}), TypeError, "data must be"),
    (lambda: pdt.tensor([1j]), TypeError, "expected numbers"),
    (lambda: pdt.tensor([2**63]), OverflowError, "64 bits"),
    (lambda: pdt.tensor([2**31], dtype=pdt.int32), OverflowError, "int32"),
    (lambda: pdt.zeros(2, dtype="float8"), TypeError, "unknown dtype 'float8'"),
    (lambda: pdt.zeros(2, dtype=np.uint16), TypeError, "unknown dtype"),
    (lambda: pdt.tensor(np.zeros(2, dtype=np.complex64)), TypeError, "unsupported element type"),
    (lambda: pdt.zeros(2, device="tpu"), ValueError, "unknown device type"),
    (lambda: pdt.zeros(2, device="cuda:9"), RuntimeError, "available: cpu"),
    (lambda: pdt.zeros(2, device=1.0), TypeError, "expected a device"),
    (lambda: pdt.zeros(2, bogus=1), TypeError, "unexpected keyword argument 'bogus'"),
    (lambda: pdt.zeros(2, dtype=pdt.int64, requires_grad=True), RuntimeError,
     "only Tensors of floating point dtype"),
    (lambda: pdt.arange(0, 5, 0), ValueError, "step"),
    (lambda: pdt.arange(5, 0, 1), ValueError, "step"),
    (lambda: pdt.arange(float("nan")), ValueError, "finite"),
    (lambda: pdt.linspace(0, 1, -2), ValueError, "steps must be >= 0"),
    (lambda: pdt.eye(-1), ValueError, "negative dimension"),
    (lambda: pdt.full((2,), "x"), TypeError, "real number"),
    (lambda: pdt.zeros_like([1, 2]), TypeError, "must be a Tensor"),
]


@pytest.mark.parametrize("make,exc,pattern", BAD)
def test_bad_input_raises_and_leaves_nothing(make, exc, pattern):
    before = pdt.memory_allocated("cpu")
    with pytest.raises(exc, match=pattern):
        make()
    assert pdt.memory_allocated("cpu") == before


@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "rand", "randn"])
def test_the_size_as_a_keyword(make, device):
    """D2L writes torch.rand(size=(2, 4)), torch.randn(size=(), requires_grad=True),
    torch.ones(size=X.shape): size= gives what the positional form gives."""
    f = getattr(pdt, make)
    for size in [(2, 4), [3], (), pdt.zeros(2, 3).shape]:
        pdt.manual_seed(5)
        a = f(size=size, device=device)
        pdt.manual_seed(5)
        b = f(*size, device=device) if len(size) else f((), device=device)
        assert tuple(a.shape) == tuple(size) and a.device == b.device == pdt.device(device)
        if make != "empty":
            np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    x = f(size=(), requires_grad=True, device=device) if make != "empty" else None
    assert x is None or (x.requires_grad and x.shape == ())


def test_numpy_bool_scalars_in_lists_make_a_bool_tensor(device):
    """tensor([np.True_, np.False_]) is bool, as PyTorch makes it (before: float32);
    mixed with ints or floats, the wider kind wins as for Python bools."""
    t = pdt.tensor([np.bool_(True), np.bool_(False)], device=device)
    assert t.dtype == pdt.bool and t.cpu().tolist() == [True, False]
    assert pdt.tensor([np.True_, 2], device=device).dtype == pdt.int64
    assert pdt.tensor([[np.True_], [1.5]], device=device).cpu().tolist() == [[1.0], [1.5]]


@pytest.mark.parametrize("kind, want", [(float, "float64"), (int, "int64"), (bool, "bool"),
                                        (np.float32, "float32"), (np.int32, "int32")])
def test_to_a_python_or_numpy_type_converts_the_dtype(device, kind, want):
    """t.to(float) is t.to(float64), as in PyTorch (before: 'expected a device')."""
    t = pdt.tensor([0.0, 1.5, -2.0], device=device)
    for got in (t.to(kind), t.to(device, kind), t.to(dtype=kind)):
        assert str(got.dtype) == f"pydevtensor.{want}" and got.device == t.device
        np.testing.assert_array_equal(got.cpu().numpy(),
                                      np.array([0.0, 1.5, -2.0]).astype(want))


def test_as_tensor_of_lists_holding_tensors(device):
    """as_tensor([a, b]) of 0-d tensors copies their values, as tensor() does and as
    PyTorch's as_tensor does; the dtype is the widest among the tensors and numbers."""
    a, b = pdt.tensor(1.5, device=device), pdt.tensor(2, device=device)
    got = pdt.as_tensor([a, b])
    assert got.dtype == pdt.float32 and got.tolist() == [1.5, 2.0]
    assert pdt.as_tensor([[a, 1.0]], dtype=pdt.float64).tolist() == [[1.5, 1.0]]
    assert pdt.as_tensor((b, 3)).dtype == pdt.int64
    with pytest.raises(TypeError, match="as_tensor"):
        pdt.as_tensor([object()])


def test_as_tensor_of_a_tensor_that_requires_grad_converts_as_to(device):
    """as_tensor(x, dtype=...) of a tensor that requires grad is x.to(dtype), recorded by
    autograd as PyTorch's (it was a detached copy: backward through it failed)."""
    x = pdt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = pdt.as_tensor(x, dtype=pdt.float64)
    assert y.dtype == pdt.float64 and y.requires_grad and y.tolist() == [1.0, 2.0, 3.0]
    (y * y).sum().backward()
    np.testing.assert_array_equal(host(x.grad), [2.0, 4.0, 6.0])  # d(y^2)/dx = 2x
    assert pdt.as_tensor(x, device=device) is x and pdt.as_tensor(x, dtype=x.dtype) is x


@pytest.mark.parametrize("make", [lambda: range(4), lambda: collections.deque([0, 1, 2, 3]),
                                  lambda: [range(2), range(2, 4)], lambda: (range(2), [2, 3]),
                                  lambda: range(0)])
@pytest.mark.parametrize("fn", ["tensor", "as_tensor", "asarray"])
def test_any_python_sequence_is_data(device, make, fn):
    """A range, a deque or any Python sequence is read as a list, as PyTorch reads any
    sequence (tensor(range(n)) was a TypeError)."""
    got = getattr(pdt, fn)(make(), device=device)
    want = np.array([list(x) if not isinstance(x, int) else x for x in make()])
    assert got.device == device and tuple(got.shape) == want.shape
    assert got.dtype == (pdt.int64 if want.size else pdt.float32)
    np.testing.assert_array_equal(host(got), want)
    assert pdt.tensor(range(3), dtype=pdt.float64, device=device).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="found str"):
        pdt.tensor([range(2), [1, "a"]])


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16"])
def test_linspace_and_logspace_of_an_integer_dtype_truncate_the_ends_first(device, dtype):
    """An integer dtype takes start and end as integers first, as PyTorch's: linspace(-2.5,
    7, 7) steps 1.5 from -2 to 7 (it truncated -2.5, -0.92, 0.67, ...: [-2, 0, 0, 2, 3, 5,
    7]), logspace's exponents likewise."""
    t = pdt.linspace(-2.5, 7.9, 7, dtype=dtype, device=device)
    want = np.trunc(np.linspace(-2.0, 7.0, 7))  # -2, -0.5, 1, 2.5, 4, 5.5, 7
    assert t.dtype.name == dtype
    np.testing.assert_array_equal(host(t), want)
    np.testing.assert_array_equal(host(pdt.linspace(0.9, 10.9, 5, dtype=dtype, device=device)),
                                  [0, 2, 5, 7, 10])
    ls = pdt.logspace(-2.5, 4.9, 5, dtype=dtype, device=device)  # 10 ** [-2, -0.5, ..., 4]
    np.testing.assert_array_equal(host(ls), np.trunc(10.0 ** np.linspace(-2.0, 4.0, 5)))
    np.testing.assert_array_equal(host(pdt.logspace(0.5, 3.5, 4, base=2, dtype=dtype,
                                                    device=device)), [1, 2, 4, 8])
    with pytest.raises(ValueError, match=r"logspace\(\): end nan cannot be converted"):
        pdt.logspace(0, float("nan"), 3, dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_arguments_take_one_element_integer_tensors(device, dtype):
    """k of topk, chunks of chunk and dims take one-element integer tensors (their value),
    as PyTorch's int arguments do; floating and bool tensors are refused by name."""
    x = pdt.arange(6.0, device=device)
    k = pdt.tensor(2, dtype=getattr(pdt, dtype), device=device)
    assert x.topk(k).values.tolist() == [5.0, 4.0]
    assert [c.tolist() for c in x.chunk(k)] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.reshape(2, 3).sum(pdt.tensor([1], device=device)).tolist() == [3.0, 12.0]
    for bad in (pdt.tensor(2.0, device=device), pdt.tensor(True, device=device),
                pdt.tensor([1, 2], device=device)):
        with pytest.raises(TypeError, match=r"topk\(\): argument 'k' must be int, got a Tensor "
                                            r"of shape .* on " + str(device)):
            x.topk(bad)


def test_tensor_of_0d_tensors_keeps_their_dtypes(device):
    """tensor([t0, t1]) of 0-d tensors promotes their dtypes, as NumPy scalars' and
    PyTorch's (Python floats count as the default dtype, ints as int64): a list of
    comparisons is a bool mask (it was int64, so x[mask] indexed by 0/1 and returned wrong
    values)."""
    x = pdt.tensor([1.0, -2.0, 3.0], device=device)
    mask = pdt.tensor([x[0] > 0, x[1] > 0, x[2] > 0])
    assert mask.dtype == pdt.bool and mask.tolist() == [True, False, True]
    assert x[mask.to(x.device)].tolist() == [1.0, 3.0]

    def t(v, dt):
        return pdt.tensor(v, dtype=dt, device=device)
    cases = [([t(1, pdt.int32), t(2, pdt.int32)], pdt.int32),
             ([t(1, pdt.int32), 5], pdt.int64),
             ([t(1, pdt.int8), 5.5], pdt.float32),
             ([t(1.0, pdt.float16), 2.5], pdt.float32),
             ([t(1.0, pdt.float16), t(2.0, pdt.float16)], pdt.float16),
             ([t(1.0, pdt.float64), 2.5], pdt.float64),
             ([np.float64(1.0), t(2.0, pdt.float32)], pdt.float64),
             ([t(True, pdt.bool), True], pdt.bool),
             ([t(True, pdt.bool), 2], pdt.int64),
             ([[t(1.5, pdt.float64)], [2]], pdt.float64),
             ([t(1, pdt.uint8), t(1, pdt.int8)], pdt.int16)]
    for data, want in cases:
        got = pdt.tensor(data)
        assert got.dtype == want, (data, got.dtype)
        ref = np.array([[float(v) for v in row] if isinstance(row, list) else float(row)
                        for row in data])
        np.testing.assert_array_equal(got.to(pdt.float64).numpy(), ref)
    assert pdt.as_tensor([t(True, pdt.bool), t(False, pdt.bool)]).dtype == pdt.bool
    assert pdt.tensor([t(1.5, pdt.float32)], dtype=pdt.float64).dtype == pdt.float64


def test_tensor_of_0d_arrays_keeps_their_dtypes(device):
    """A 0-d NumPy array in a list keeps its dtype, as a NumPy scalar does and as PyTorch
    reads it (Python floats count as the default dtype): [1.5, np.array(2, np.int32)] is
    float32 (NumPy's stacking made it float64)."""
    cases = [([1.5, np.array(2, np.int32)], pdt.float32), ([2.5, np.array(True)], pdt.float32),
             ([np.array(2, np.int32), 0], pdt.int64), ([np.array(3.5)], pdt.float64),
             ([[np.array(1, np.int16)], [np.int16(2)]], pdt.int16),
             ([np.array(1.5, np.float16), 2], pdt.float16),
             ([np.array(2, np.uint8), np.int8(-1)], pdt.int16),
             ([np.array(True), np.array(False)], pdt.bool)]
    for data, want in cases:
        for fn in (pdt.tensor, pdt.as_tensor):
            got = fn(data, device=device)
            assert got.dtype == want and got.device == device, (data, got.dtype)
            np.testing.assert_array_equal(host(got.to(pdt.float64)),
                                          np.array(data, dtype=np.float64))



@pytest.mark.parametrize("start, end, step, dtype", [
    (0, 5, 1.5, "int64"), (5, 0, -1.5, "int64"), (0.5, 5.5, 1.5, "int32"), (0, 2, 0.5, "int64"),
    (-3.7, 4, 2.2, "int16"), (1, 10, 3, "int64"), (0, 5, 1.5, "uint8")])
def test_integer_arange_steps_from_integer_start_and_step(device, start, end, step, dtype):
    """An integer arange has ceil((end - start) / step) elements, int(start) + i *
    int(step), as PyTorch's (start and step cast to the integer type first): it gave the
    truncations of start + i * step, [0, 1, 3, 4] for arange(0, 5, 1.5, dtype=int64)
    where PyTorch gives [0, 1, 2, 3]."""
    n = math.ceil((end - start) / step)
    want = [int(start) + i * int(step) for i in range(n)]
    got = pdt.arange(start, end, step, dtype=getattr(pdt, dtype), device=device)
    assert got.dtype == getattr(pdt, dtype) and got.cpu().tolist() == want
