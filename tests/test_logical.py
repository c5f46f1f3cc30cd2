"""Logical ops and masks (pydevtensor/_ops_logical.py): logical_and / or / xor / not,
any, all, and & | ^ ~ on bool tensors, on every device, against NumPy's (exact: the
results are bools)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

A = np.array([[0.0, 1.5, -2.0, np.nan], [0.0, 0.0, 3.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
B = np.array([[1.0, 0.0, -1.0, 0.0]])  # broadcast against A's rows


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def host(t):
    assert t.dtype == pdt.bool
    return t.cpu().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_binary_logical_ops_match_numpy(dev, dtype, name):
    a, b = np.nan_to_num(A, nan=7.0).astype(dtype), B.astype(dtype)
    if dtype.startswith("float"):
        a = A.astype(dtype)  # NaN counts as True
    x, y = pdt.tensor(a, device=dev), pdt.tensor(b, device=dev)
    want = getattr(np, name)(a, b)
    np.testing.assert_array_equal(host(getattr(pdt, name)(x, y)), want)
    np.testing.assert_array_equal(host(getattr(x, name)(y)), want)
    for scalar in (True, False, 0, 2.5):
        np.testing.assert_array_equal(host(getattr(pdt, name)(x, scalar)),
                                      getattr(np, name)(a, scalar))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_logical_not_matches_numpy(dev, dtype):
    a = A.astype(dtype) if dtype != "int32" else np.nan_to_num(A).astype(dtype)
    np.testing.assert_array_equal(host(pdt.logical_not(pdt.tensor(a, device=dev))),
                                  np.logical_not(a))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor", "logical_not"])
def test_in_place_logical_ops_write_in_selfs_dtype(dev, dtype, name):
    # PyTorch's in-place forms keep self's dtype: 0 and 1 in a float or integer self
    a = np.nan_to_num(A, nan=7.0).astype(dtype)
    b = B.astype("float64")
    x = pdt.tensor(a, device=dev)
    args = () if name == "logical_not" else (pdt.tensor(b, device=dev),)
    got = getattr(x, name + "_")(*args)
    assert got is x and x.dtype == getattr(pdt, dtype)
    want = getattr(np, name)(a, *([b] if args else [])).astype(dtype)
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    if args:  # self cannot grow to the broadcast shape
        with pytest.raises(RuntimeError, match=r"logical_.*_\(\): .*\(3, 4\) is not self's"):
            getattr(pdt.tensor(b, device=dev), name + "_")(x)


def test_bitwise_not_in_place(dev):
    for dtype in ("int8", "uint8", "int64", "bool"):
        a = np.array([0, 1, 5, 100]).astype(dtype)
        x = pdt.tensor(a, device=dev)
        assert x.bitwise_not_() is x
        np.testing.assert_array_equal(x.cpu().numpy(), np.invert(a))
    with pytest.raises(TypeError, match=r"bitwise_not\(\): .* got pydevtensor.float32"):
        pdt.ones(2, device=dev).bitwise_not_()


def test_mask_operators(dev):
    a = np.arange(8)
    x = pdt.tensor(a, device=dev)
    lo, hi = x > 2, x < 5
    np.testing.assert_array_equal(host(lo & hi), (a > 2) & (a < 5))
    np.testing.assert_array_equal(host(lo | (x > 6)), (a > 2) | (a > 6))
    np.testing.assert_array_equal(host(lo ^ hi), (a > 2) ^ (a < 5))
    np.testing.assert_array_equal(host(~lo), ~(a > 2))
    for s in (True, False):
        np.testing.assert_array_equal(host(lo & s), (a > 2) & s)
        np.testing.assert_array_equal(host(s | lo), s | (a > 2))
        np.testing.assert_array_equal(host(s ^ lo), s ^ (a > 2))
    masks = pdt.zeros(2, 8, dtype=pdt.bool, device=dev)
    row = masks[1]
    row |= x > 3  # in place, as in PyTorch: through the view into masks
    row &= x < 6
    row ^= True
    want = np.zeros((2, 8), bool)
    want[1] = ~((a > 3) & (a < 6))
    np.testing.assert_array_equal(host(masks), want)
    with pytest.raises(RuntimeError, match=r"bitwise_and_: the output with shape \(8,\) doesn't "
                                           r"match the broadcast shape \(2, 8\)"):
        row &= masks
    np.testing.assert_array_equal(x[(x > 1) & (x < 4)].cpu().numpy(), a[(a > 1) & (a < 4)])


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_any_and_all_match_numpy(dev, dim, keepdim):
    for a in (A, np.nan_to_num(A, nan=0.0), np.ones((3, 4)), np.zeros((3, 0))):
        x = pdt.tensor(a, device=dev)
        for name in ("any", "all"):
            got = getattr(x, name)() if dim is None and not keepdim else \
                getattr(pdt, name)(x, dim=dim, keepdim=keepdim)
            want = getattr(np, name)(a != 0, axis=dim, keepdims=keepdim)
            np.testing.assert_array_equal(host(got), want, strict=True)
            assert got.device == x.device


def test_any_and_all_of_0d_tensors_and_no_dims(dev):
    for v in (0.0, 3.0, float("nan")):
        x = pdt.tensor(v, device=dev)
        for name in ("any", "all"):
            want = getattr(np, name)(np.array(v) != 0)
            for kw in ({}, {"dim": 0}, {"dim": -1}):
                got = getattr(pdt, name)(x, **kw)
                assert got.shape == () and bool(got) == want, (v, name, kw)
    x = pdt.tensor([[1.0, 0.0], [0.0, 0.0]], device=dev)
    # () reduces no dim (PyTorch 2.15), unlike sum(dim=()): the elementwise truth
    np.testing.assert_array_equal(x.all(dim=()).cpu().numpy(), [[True, False], [False, False]])
    np.testing.assert_array_equal(x.any(dim=()).cpu().numpy(), [[True, False], [False, False]])


def test_errors_name_the_op_called(dev):
    x = pdt.ones(2, 3, device=dev)
    with pytest.raises(IndexError, match=r"^all\(\): sum\(\): dimension out of range"):
        pdt.all(x, dim=5)
    with pytest.raises(ValueError, match=r"^logical_xor\(\): .*\(2, 3\) and \(4,\)"):
        pdt.logical_xor(x, pdt.ones(4, device=dev))
    # & of two masks is the C op bitwise_and, whose error names it
    with pytest.raises(ValueError, match=r"^bitwise_and: .*\(2, 3\) and \(4,\)"):
        (x > 0) & pdt.ones(4, dtype=pdt.bool, device=dev)


def test_bitwise_operators_refuse_float_tensors_and_name_the_dtype(dev):
    x = pdt.arange(4.0, device=dev)
    for f in (lambda: x & (x > 1), lambda: (x > 1) | x, lambda: x ^ x, lambda: ~x):
        with pytest.raises(TypeError, match=r"bitwise ops take bool or integer tensors, got "
                                            r"(self|other) of dtype pydevtensor.float32 on "
                                            + x.device.type):
            f()
    i = pdt.arange(4, device=dev)  # integers: the bitwise kernels (tests/test_small_int.py)
    assert (i & (i > 1)).tolist() == [0, 0, 0, 1] and (~i).tolist() == [-1, -2, -3, -4]
    # a mask and a Python int: PyTorch's promotion, an int64 result (1 & True is 1)
    got = (x > 1) & 1
    assert got.dtype == pdt.int64 and got.tolist() == [0, 0, 1, 1]
    assert (1 | (x > 2)).tolist() == [1, 1, 1, 1] and ((x > 2) ^ 1).tolist() == [1, 1, 1, 0]


def test_operators_on_a_subclass_with_its_own_slots(dev):
    """A Python subclass overriding __add__ gets slots of its own, so the C operators
    leave it to the Python fallback (a review: ~ segfaulted, & 1 raised about 'int')."""
    class Sub(pdt.Tensor):
        def __add__(self, other):
            return super().__add__(other)

    s = Sub(pdt.tensor([1, 2, 3], device=dev))
    assert (~s).tolist() == [-2, -3, -4] and (s & 1).tolist() == [1, 0, 1]
    m = Sub(pdt.tensor([True, False], device=dev))
    assert (m & True).tolist() == [True, False] and (~m).tolist() == [False, True]
    m &= True
    assert m.tolist() == [True, False]
    with pytest.raises(TypeError, match="bitwise ops take bool or integer tensors"):
        ~Sub(pdt.tensor([1.0, 2.0], device=dev))
    with pytest.raises(TypeError, match="unsupported operand"):
        s & 1.5


@pytest.mark.parametrize("level", pdt._C._cpu_simd_level()[1])
def test_mask_rows_at_every_level_read_any_nonzero_byte_as_true(level, level_restored):
    """The masks' and and or (bool *, +, &, |, logical_and, logical_or) run the level's rows
    on contiguous masks and the shared expression on strided ones: bytes other than 0 and 1
    (a NumPy view of uint8 as bool) read as True and give 1, at lengths across the vector
    widths, a mask with itself, a mask and one value, and views, exactly NumPy's."""
    pdt._C._cpu_simd_level(level)
    rng = np.random.default_rng(7)
    for n in (1, 15, 16, 17, 63, 64, 65, 200, 1031):
        ua = rng.choice(np.array([0, 0, 1, 2, 128, 255], np.uint8), n)
        ub = rng.choice(np.array([0, 1, 3, 64], np.uint8), n)
        a, b = ua.view(bool), ub.view(bool)
        ra, rb = ua != 0, ub != 0
        x, y = pdt.from_numpy(a), pdt.from_numpy(b)
        for got, want in ((x & y, ra & rb), (x | y, ra | rb), (x * y, ra & rb), (x + y, ra | rb),
                          (pdt.logical_and(x, y), ra & rb), (pdt.logical_or(x, y), ra | rb),
                          (pdt.logical_xor(x, y), ra ^ rb), (x & x, ra), (x | x, ra),
                          (x & y[:1], ra & rb[:1]),
                          (x[::2][:n // 2] | y[1::2], ra[::2][:n // 2] | rb[1::2])):
            out = got.numpy()
            assert set(np.unique(out.view(np.uint8))) <= {0, 1}, (level, n)
            np.testing.assert_array_equal(out, want, err_msg=f"{level} n={n}")
    z = pdt.from_numpy(np.array([0, 2, 255, 0], np.uint8).view(bool))
    z.mul_(pdt.tensor([True, True, False, False]))  # in place: the row with o == a
    assert z.numpy().view(np.uint8).tolist() == [0, 1, 0, 0]
