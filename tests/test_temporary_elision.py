"""Reuse of temporaries in binary operators (Note [temporary elision] in
csrc/python/elide.c): `a * b + c` writes the sum into the product's memory when
nothing else can see the product, so it peaks at one result's size, as NumPy does.

Every test checks values against NumPy in float64 (float32: |got - ref| <= 1e-6 +
1e-6 |ref|; float64: 1e-12 + 1e-12 |ref|; integers exactly), and the cases that must
not reuse a temporary check that the temporary's holder still sees its old values.
"""
import operator
import subprocess
import sys
import weakref

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import DEVICES

N = 1 << 17  # 128K elements: 512 KiB in float32, above the 256 KiB threshold
TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}


def elisions():
    return _C._temporary_elisions()


def check(got, ref, dtype):
    got = np.asarray(got).astype(np.float64)
    if dtype in TOL:
        atol, rtol = TOL[dtype]
        np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol)
    else:
        np.testing.assert_array_equal(got, ref)


def operands(dtype, shape=(N,), seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        arrs = [rng.uniform(0.5, 2.0, shape).astype(dtype) for _ in range(3)]
    else:
        arrs = [rng.integers(1, 50, shape).astype(dtype) for _ in range(3)]
    return arrs, [pdt.tensor(x) for x in arrs]


@pytest.fixture(autouse=True)
def elision_on():
    old = _C._set_temporary_elision(True)
    yield
    _C._set_temporary_elision(old)


OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "//": operator.floordiv, "%": operator.mod, "**": operator.pow}


# true division of integers returns float32: there is nothing to reuse (tested below)
@pytest.mark.parametrize("sym,dtype", [(s, d) for s in OPS
                                       for d in ("float32", "float64", "int64", "int32")
                                       if s != "/" or d.startswith("float")])
def test_left_temporary_reused_with_right_answer(sym, dtype):
    (a, b, c), (ta, tb, tc) = operands(dtype)
    f = OPS[sym]
    e0 = elisions()
    r = f(ta * tb, tc if sym != "**" else 2)
    assert elisions() == e0 + 1
    ref = f(a.astype(np.float64) * b, c.astype(np.float64) if sym != "**" else 2)
    if not dtype.startswith("float"):
        ref = f(a * b, c if sym != "**" else 2).astype(np.float64)  # wrapping integer ops
    check(r, ref, dtype)


@pytest.mark.parametrize("sym", ["+", "-", "*", "/"])
def test_right_temporary_reused(sym):
    (a, b, c), (ta, tb, tc) = operands("float64")
    e0 = elisions()
    r = OPS[sym](tc, ta * tb)
    assert elisions() == e0 + 1
    check(r, OPS[sym](c, a * b), "float64")
    r = OPS[sym](2.5, ta * tb)  # a Python scalar on the left
    check(r, OPS[sym](2.5, a * b), "float64")


def test_chain_peaks_at_one_result():
    (a, b, c), (ta, tb, tc) = operands("float32", shape=(1 << 20,))
    for on, extra in ((True, 1), (False, 2)):
        _C._set_temporary_elision(on)
        pdt.reset_peak_memory_stats("cpu")
        base = pdt.memory_allocated("cpu")
        r = ta * tb + tc - ta
        assert pdt.max_memory_allocated("cpu") - base == extra * r.nbytes
        check(r, a.astype(np.float64) * b + c - a, "float32")
        del r


def test_broadcast_operand_into_temporary():
    (a, b, _), (ta, tb, _) = operands("float32", shape=(512, 256))
    bias = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    e0 = elisions()
    r = ta * tb + pdt.tensor(bias)
    assert elisions() == e0 + 1
    check(r, a.astype(np.float64) * b + bias, "float32")


def test_not_reused_when_result_is_larger_or_another_dtype():
    (a, b, _), (ta, tb, _) = operands("float32")
    e0 = elisions()
    r = (ta * tb) + pdt.tensor(np.ones((2, 1), np.float32))  # broadcast to (2, N)
    assert r.shape == (2, N)
    r2 = (ta * tb) + pdt.ones(N, dtype=pdt.float64)  # float64 result
    assert r2.dtype == pdt.float64
    ti = pdt.tensor(a.astype(np.int32))
    e0 = elisions()  # (ti * 2) below is reused by nothing: its result is float32
    r3 = (ti * 2) / 3
    assert r3.dtype == pdt.float32
    r4 = (ta * tb) > 0.5  # a bool result
    assert elisions() == e0
    check(r, np.broadcast_to(a.astype(np.float64) * b + 1, (2, N)), "float32")
    check(r2, (a * b).astype(np.float64) + 1, "float64")  # the product is float32
    np.testing.assert_array_equal(np.asarray(r4), (a * b) > 0.5)


def test_small_tensors_not_reused():
    ta, tb = pdt.ones(1000), pdt.ones(1000)
    e0 = elisions()
    r = ta * tb + 1
    assert elisions() == e0
    check(r, np.full(1000, 2.0), "float32")


def test_named_temporary_is_left_alone():
    (a, b, c), (ta, tb, tc) = operands("float32")
    e0 = elisions()
    t = ta * tb
    r = t + tc
    assert elisions() == e0
    check(t, a.astype(np.float64) * b, "float32")
    check(r, a.astype(np.float64) * b + c, "float32")


@pytest.mark.parametrize("holder", ["view", "numpy", "interface", "weakref", "dlpack",
                                    "memoryview"])
def test_temporary_seen_by_something_else_is_left_alone(holder):
    """The temporary's Tensor has a reference count of 1, but its memory is held (or was
    shown) elsewhere: the op must allocate, and the holder keeps the product."""
    (a, b, c), (ta, tb, tc) = operands("float32")
    held = []

    def make():
        t = ta * tb
        if holder == "view":
            held.append(t[: N // 2])
        elif holder == "numpy":
            held.append(np.asarray(t))
        elif holder == "interface":
            held.append(t.__array_interface__["data"][0])
        elif holder == "weakref":
            held.append(weakref.ref(t))
        elif holder == "dlpack":
            held.append(t.__dlpack__())
        elif holder == "memoryview":
            held.append(np.frombuffer(memoryview(t), dtype=np.float32))
        return t

    e0 = elisions()
    r = make() + tc
    assert elisions() == e0
    check(r, a.astype(np.float64) * b + c, "float32")
    product = a.astype(np.float64) * b
    if holder in ("view", "numpy", "memoryview"):
        check(held[0], product[: len(np.asarray(held[0]))], "float32")
    elif holder == "dlpack":
        check(np.from_dlpack(_Capsule(held[0])), product, "float32")


@pytest.mark.parametrize("wrap", ["from_numpy", "as_tensor", "from_dlpack"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_memory_wrapped_from_numpy_is_left_alone(wrap, dtype):
    """A tensor over a NumPy array's memory (from_numpy, as_tensor, from_dlpack) is the
    only holder of its storage, but the array still sees that memory: `from_numpy(a) /
    255` and friends must allocate and leave `a` as it was (they wrote into it), and a
    gradient made from such an array is not adopted as a leaf's grad and then added to
    in place."""
    (a, b, c), _ = operands(dtype)
    keep = a.copy()
    make = {"from_numpy": pdt.from_numpy, "as_tensor": pdt.as_tensor,
            "from_dlpack": pdt.from_dlpack}[wrap]
    tc = pdt.tensor(c)  # named: not a temporary either
    e0 = elisions()
    r = make(a) * 3
    r2 = 2 + make(a)
    r3 = make(a) - tc
    assert elisions() == e0
    np.testing.assert_array_equal(a, keep)
    check(r, keep.astype(np.float64) * 3, dtype)
    check(r2, keep.astype(np.float64) + 2, dtype)
    check(r3, keep.astype(np.float64) - c, dtype)
    if dtype.startswith("float"):
        w = pdt.zeros(N, dtype=getattr(pdt, dtype), requires_grad=True)
        g = np.ones(N, dtype=dtype)
        (w * 1).backward(make(g))
        (w * 1).backward(make(np.ones(N, dtype=dtype)))
        np.testing.assert_array_equal(g, np.ones(N, dtype=dtype))
        check(w.grad, np.full(N, 2.0), dtype)


class _Capsule:
    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kwargs):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def test_c_caller_with_borrowed_reference_is_left_alone():
    """NumPy's object-array reduction calls PyNumber_Add on references it borrows from
    the array, where the count is 1; the frame check must refuse it."""
    (a, b, c), (ta, tb, tc) = operands("float32")
    arr = np.empty(2, dtype=object)
    arr[0], arr[1] = ta * tb, tc
    e0 = elisions()
    s = np.add.reduce(arr)
    assert elisions() == e0
    check(arr[0], a.astype(np.float64) * b, "float32")
    check(s, a.astype(np.float64) * b + c, "float32")


def test_autograd_temporaries_are_left_alone():
    (a, b, c), (ta, tb, tc) = operands("float32")
    w = pdt.tensor(a, requires_grad=True)
    e0 = elisions()
    r = (w * tb) + tc  # the product is saved for nothing here, but it has a grad_fn
    assert elisions() == e0
    r.sum().backward()
    check(w.grad, b.astype(np.float64), "float32")
    with pdt.no_grad():
        r2 = (w * tb) + tc  # under no_grad the product is a plain temporary
    assert elisions() == e0 + 1
    assert not r2.requires_grad
    check(r2, a.astype(np.float64) * b + c, "float32")


def test_in_place_result_object_is_the_temporary_and_version_counted():
    (a, b, c), (ta, tb, tc) = operands("float32")
    r = ta * tb + tc
    assert r._version >= 1  # written twice: by the product, then by the sum
    check(r, a.astype(np.float64) * b + c, "float32")


LOGICAL = """
import numpy as np, pydevtensor as pdt
from pydevtensor import _C, config as c
c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                   [c.LogicalDeviceConfiguration()] * 2)
rng = np.random.default_rng(0)
a, b, z = (rng.uniform(0.5, 2, 1 << 17).astype(np.float32) for _ in range(3))
x, y = pdt.tensor(a, device='cpu:1'), pdt.tensor(b, device='cpu:1')
e0 = _C._temporary_elisions()
r = x * y + pdt.tensor(z, device='cpu:1')
print(_C._temporary_elisions() - e0, r.device,
      np.abs(np.asarray(r) - (a.astype(np.float64) * b + z)).max() < 1e-5)
try:
    (x * y) + pdt.tensor(z, device='cpu:0')
except pdt.DeviceError as e:
    print("refused", 'cpu:1' in str(e) and 'cpu:0' in str(e), _C._temporary_elisions() - e0)
"""


def test_logical_cpu_devices():
    """Reuse works on a logical CPU device, and a temporary on cpu:1 meeting a tensor
    on cpu:0 still gets the same-device error, with nothing reused."""
    proc = subprocess.run([sys.executable, "-c", LOGICAL], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["1 cpu:1 True", "refused True 1"]


@pytest.mark.parametrize("device", DEVICES)
def test_reused_on_cpu_only(device):
    """CUDA temporaries are not reused (a kernel queued on another stream may still read
    them); the answer is the same on every device."""
    (a, b, c), (ta, tb, tc) = operands("float32")
    x, y, z = ta.to(device), tb.to(device), tc.to(device)
    e0 = elisions()
    r = x * y + z
    assert elisions() == e0 + (device == "cpu")
    check(r.cpu(), a.astype(np.float64) * b + c, "float32")
