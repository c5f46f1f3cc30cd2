"""Copies between devices and dtypes: explicit, counted, exact (issue 3)."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C
from conftest import CUDA_DEVICES, DTYPES

# At least one entry, so that without a GPU the tests show the cuda skip reason.
GPU_DEVICES = CUDA_DEVICES or ["cuda:0"]


def sample(dtype, shape=(3, 5)):
    a = (np.arange(np.prod(shape)).reshape(shape) * 7 % 11 - 5).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_same_place_returns_self(device, dtype):
    x = pdt.tensor(sample(dtype), device=device)
    assert x.to(device) is x
    assert x.to(dtype=dtype) is x
    assert x.to(device, dtype) is x
    assert x.to(x) is x
    assert x.to(device, copy=True) is not x
    if device.type == "cpu":
        assert x.cpu() is x
    else:
        assert x.cuda(device.index) is x and x.cuda(device) is x


@pytest.mark.parametrize("src_dtype", DTYPES)
@pytest.mark.parametrize("dst_dtype", DTYPES)
def test_dtype_conversion_matches_numpy(device, src_dtype, dst_dtype):
    a = sample(src_dtype)
    x = pdt.tensor(a, device=device)
    y = x.to(dst_dtype)
    assert y.dtype.name == dst_dtype and y.device == x.device
    np.testing.assert_array_equal(y.cpu().numpy(), a.astype(dst_dtype))


def test_dtype_shorthands(device):
    x = pdt.tensor([[1.5, -2.5]], device=device)
    assert x.double().dtype == pdt.float64 and x.float() is x
    assert x.int().tolist() == [[1, -2]] and x.long().dtype == pdt.int64
    assert x.bool().tolist() == [[True, True]]
    assert x.type() == ("pydevtensor.FloatTensor" if device.type == "cpu"
                        else "pydevtensor.cuda.FloatTensor")
    assert x.type(pdt.float64).dtype == pdt.float64 and x.type("float64").dtype == pdt.float64


def test_type_reads_back_its_own_names(device):
    # x.type(x.type()) is x; a tensor type's name (or legacy class) sets the dtype and
    # the kind of device, as PyTorch's type() does
    x = pdt.tensor([[1.5, -2.5]], device=device)
    assert x.type(x.type()) is x and x.type(dtype=x.type(), non_blocking=False) is x
    gpu = device.type == "cuda"
    d = x.type("pydevtensor.DoubleTensor")
    assert d.dtype == pdt.float64 and d.device.type == "cpu" and d.tolist() == [[1.5, -2.5]]
    assert d.device == (device if not gpu else pdt.device("cpu"))
    i = x.type(pdt.LongTensor)
    assert i.dtype == pdt.int64 and i.device.type == "cpu" and i.tolist() == [[1, -2]]
    assert x.type("torch.HalfTensor").dtype == pdt.float16
    if gpu:
        g = x.type("pydevtensor.cuda.DoubleTensor")  # stays on its own GPU
        assert g.device == device and g.dtype == pdt.float64
        back = d.type(x.type())  # a CPU tensor to the current GPU
        assert back.device == pdt.device("cuda", pdt.cuda.current_device())
        assert back.dtype == pdt.float32 and back.cpu().tolist() == [[1.5, -2.5]]
    with pytest.raises(TypeError, match="unknown dtype 'pydevtensor.FloatTensr'"):
        x.type("pydevtensor.FloatTensr")
    with pytest.raises(TypeError, match="unknown dtype"):
        x.type(dict)


def test_clone_and_contiguous(device):
    x = pdt.tensor(sample("float32"), device=device)
    c = x.clone()
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert c.cpu().tolist() == x.cpu().tolist()
    assert x.contiguous() is x
    c.copy_(pdt.zeros(3, 5, device=device))
    assert x.cpu().numpy().any() and not c.cpu().numpy().any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [(1 << 17) - 1, 1_000_003])
def test_large_clone_and_copy_are_exact(device, dtype, n):
    """Large copies of odd sizes, into a fresh tensor (clone), into an existing one
    (copy_) and into an offset view, every byte in place and nothing around it."""
    a = (np.arange(n) * 7919 % 1013 - 500).astype(dtype)
    x = pdt.tensor(a, device=device)
    c = x.clone()
    assert c.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(c.cpu().numpy(), a)
    d = pdt.zeros(n, dtype=dtype, device=device)
    d.copy_(x)
    np.testing.assert_array_equal(d.cpu().numpy(), a)
    e = pdt.zeros(n + 5, dtype=dtype, device=device)
    e[3:n + 3].copy_(x)  # an offset destination
    np.testing.assert_array_equal(e.cpu().numpy()[3:n + 3], a)
    assert not e.cpu().numpy()[[0, 1, 2, n + 3, n + 4]].any()


def test_overlapping_copy_is_ordered(device):
    """x[1:].copy_(x[:-1]) within one storage: every element moves up by one, as
    NumPy's assignment of overlapping slices does (a memmove, not a memcpy)."""
    n = 300_001
    a = np.arange(n, dtype=np.float32)
    x = pdt.tensor(a, device=device)
    x[1:].copy_(x[:-1])
    ref = a.copy()
    ref[1:] = ref[:-1]
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    # the two halves of one storage do not overlap: the CPU splits such a copy
    # across its threads (cpu_copy_bytes), which must move every byte all the same
    h = n // 2
    y = pdt.tensor(a, device=device)
    y[:h].copy_(y[h + 1:])
    ref = a.copy()
    ref[:h] = ref[h + 1:]
    np.testing.assert_array_equal(y.cpu().numpy(), ref)


def test_views_share_storage(device):
    x = pdt.zeros(3, 4, device=device)
    row = x[1]
    assert row.shape == (4,) and row.storage_offset() == 4 and row.stride() == (1,)
    assert x._storage_refcount() == 2
    row.copy_(pdt.ones(4, device=device))
    assert x.cpu().tolist()[1] == [1.0] * 4 and x.cpu().tolist()[0] == [0.0] * 4
    del row
    assert x._storage_refcount() == 1
    d = x.data  # a new plain tensor on the same memory (PyTorch's .data)
    assert d is not x and d.data_ptr() == x.data_ptr() and x._storage_refcount() == 2


def test_copy_between_strided_views(device):
    a = sample("float64", (4, 6))
    x = pdt.tensor(a, device=device)
    y = pdt.zeros(6, device=device, dtype=pdt.float32)
    y.copy_(x[2])
    np.testing.assert_array_equal(y.cpu().numpy(), a[2].astype(np.float32))
    x[0].copy_(x[3])  # same storage: copied out first
    a[0] = a[3]
    np.testing.assert_array_equal(x.cpu().numpy(), a)
    assert x.copy_(x) is x


def test_copy_broadcasts_and_names_both_shapes_when_it_cannot(device):
    # copy_ broadcasts src to self's shape, as PyTorch's does, also from another device
    # and dtype; a src that does not broadcast is refused with nothing written
    x = pdt.zeros(2, 3, device=device)
    x.copy_(pdt.tensor([1.0, 2.0, 3.0], device=device))
    assert x.cpu().tolist() == [[1.0, 2.0, 3.0]] * 2
    x.copy_(pdt.tensor([[5], [6]]))  # int64 from the CPU: a counted transfer to a GPU
    assert x.cpu().tolist() == [[5.0] * 3, [6.0] * 3]
    x.copy_(pdt.tensor(7.0, device=device))
    assert x.cpu().tolist() == [[7.0] * 3] * 2
    with pytest.raises(ValueError, match=r"shape \(4,\) on .* cannot be broadcast to the "
                                         r"destination's shape \(2, 3\) on "):
        x.copy_(pdt.ones(4, device=device))
    with pytest.raises(ValueError, match=r"shape \(6,\) on .* cannot be broadcast"):
        x.copy_(x.view(6))  # x's own memory, the same start: still not x.copy_(x)
    assert x.cpu().tolist() == [[7.0] * 3] * 2  # nothing written
    with pytest.raises(TypeError, match="must be a Tensor"):
        x.copy_([1, 2, 3])


def test_copy_from_its_own_row_or_column_broadcasts(device):
    # x.copy_(x[0]) starts where x does: it is not x.copy_(x), and every row is read first
    x = pdt.arange(9.0, device=device).view(3, 3)
    x.copy_(x[0])
    assert x.cpu().tolist() == [[0.0, 1.0, 2.0]] * 3
    x = pdt.arange(9.0, device=device).view(3, 3)
    x.copy_(x[:, 1:2])
    assert x.cpu().tolist() == [[1.0] * 3, [4.0] * 3, [7.0] * 3]


def test_writes_read_a_source_that_shares_memory_through_another_storage():
    # from_numpy twice of one array (or as_tensor, from_dlpack of a view of it) gives two
    # storages of the same memory: the overlap is found by address, and the source is read
    # before anything is written, as NumPy does
    n = 100_003
    for size in (6, n):
        a = np.arange(float(size))
        x = pdt.from_numpy(a)
        x.copy_(pdt.from_numpy(a[::-1]))
        np.testing.assert_array_equal(a, np.arange(float(size))[::-1])
        a[:] = np.arange(float(size))
        x[...] = pdt.as_tensor(a[::-1])
        np.testing.assert_array_equal(a, np.arange(float(size))[::-1])
        a[:] = np.arange(float(size))
        x[pdt.arange(size)] = pdt.from_dlpack(a[::-1])
        np.testing.assert_array_equal(a, np.arange(float(size))[::-1])
        a[:] = np.arange(float(size))
        mask = pdt.from_numpy(np.arange(size) % 2 == 0)
        want = a.copy()
        want[::2] = a[::-2][: (size + 1) // 2]
        x[mask] = pdt.from_numpy(a[::-2][: (size + 1) // 2])
        np.testing.assert_array_equal(a, want)
    a = np.arange(1.0, 9.0)  # float32 values read from the first half of x's own bytes
    want = a.view(np.float32)[:8].astype(np.float64)
    pdt.from_numpy(a).copy_(pdt.from_numpy(a.view(np.float32)[:8]))
    np.testing.assert_array_equal(a, want)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 2), ()])
def test_zero_size_and_scalar_tensors(device, shape):
    x = pdt.zeros(shape, device=device)
    with pytest.warns(UserWarning, match="copy construct"):
        copy = pdt.tensor(x)
    assert copy.device == x.device
    for y in (x.clone(), x.to(pdt.int64), x.cpu(), copy, x.contiguous()):
        assert y.shape == shape
    assert x.cpu().numpy().shape == shape
    assert x.numel() == int(np.prod(shape))
    x.copy_(pdt.ones(shape))


def test_to_argument_forms():
    x = pdt.ones(2)
    assert x.to("float64").dtype == pdt.float64
    assert x.to(pdt.int32).dtype == pdt.int32
    assert x.to("cpu", pdt.float64).dtype == pdt.float64
    assert x.to(device="cpu", dtype="float64", non_blocking=True).dtype == pdt.float64
    with pytest.raises(TypeError, match="twice"):
        x.to("cpu", device="cpu")
    with pytest.raises(ValueError, match="unknown device type"):
        x.to("tpu")
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.to(devices="cpu")


def test_attributes():
    x = pdt.zeros(2, 3, dtype=pdt.float64)
    assert x.ndim == x.dim() == 2 and len(x) == 2
    assert x.element_size() == x.itemsize == 8 and x.nbytes == 48
    assert not x.is_cuda and x.is_contiguous() and x.get_device() == -1
    assert isinstance(x.data_ptr(), int) and x.data_ptr() % 64 == 0
    assert [r.shape for r in x] == [(3,), (3,)]
    with pytest.raises(TypeError, match="0-d"):
        len(pdt.tensor(1.0))
    with pytest.raises(IndexError, match="out of bounds"):
        x[2]


def test_pin_memory_needs_a_gpu():
    if pdt.cuda.is_available():
        p = pdt.ones(4).pin_memory()
        assert p.is_pinned() and p.pin_memory() is p and p.device == pdt.device("cpu")
    else:
        with pytest.raises(RuntimeError, match="pinning needs a CUDA device"):
            pdt.ones(4).pin_memory()
    assert not pdt.ones(4).is_pinned()


# ---- across devices (GPU) ----

@pytest.mark.cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("gpu", GPU_DEVICES)
def test_round_trip_exact_and_counted(dtype, gpu):
    a = sample(dtype, (64, 33))
    x = pdt.tensor(a)
    pdt.reset_transfer_stats()
    g = x.to(gpu)
    back = g.cpu()
    stats = pdt.transfer_stats()
    assert stats["host_to_device"] == {"count": 1, "bytes": a.nbytes}
    assert stats["device_to_host"] == {"count": 1, "bytes": a.nbytes}
    assert g.device == pdt.device(gpu) and g.is_cuda and g.get_device() == pdt.device(gpu).index
    np.testing.assert_array_equal(back.numpy(), a)


@pytest.mark.cuda
def test_gpu_copies_of_strided_and_cast_tensors():
    a = sample("float64", (40, 50))
    x = pdt.tensor(a, device="cuda")
    np.testing.assert_array_equal(x[3].cpu().numpy(), a[3])
    np.testing.assert_array_equal(x.to(pdt.float32).cpu().numpy(), a.astype(np.float32))
    y = pdt.zeros(50, dtype=pdt.int32)
    y.copy_(x[7])
    np.testing.assert_array_equal(y.numpy(), a[7].astype(np.int32))
    z = pdt.zeros(40, 50, device="cuda")
    z[1].copy_(pdt.tensor(a[9]))
    np.testing.assert_array_equal(z.cpu().numpy()[1], a[9].astype(np.float32))


@pytest.mark.cuda
def test_pinned_non_blocking_and_large_pageable_copies():
    n = 3 * 2**20 + 17  # bigger than one staging buffer, not a multiple of it
    pdt.manual_seed(0)
    x = pdt.rand(n)
    g = x.cuda()
    np.testing.assert_array_equal(g.cpu().numpy(), x.numpy())
    p = x.pin_memory()
    g2 = p.cuda(non_blocking=True)
    out = pdt.empty(n).pin_memory()
    out.copy_(g2, non_blocking=True)
    pdt.cuda.synchronize()
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    # to pageable memory, non_blocking still synchronises before returning
    page = pdt.empty(n)
    page.copy_(g2, non_blocking=True)
    np.testing.assert_array_equal(page.numpy(), x.numpy())


@pytest.mark.cuda
def test_device_to_device_copy_is_counted():
    g = pdt.ones(1000, device="cuda")
    pdt.reset_transfer_stats()
    c = g.clone()
    assert pdt.transfer_stats()["device_to_device"] == {"count": 1, "bytes": 4000}
    assert c.data_ptr() != g.data_ptr()


@pytest.mark.cuda
@pytest.mark.skipif(pdt.device_count() < 2, reason="needs two CUDA GPUs")
def test_peer_copies():
    x = pdt.arange(10000, device="cuda:0")
    pdt.reset_transfer_stats()
    y = x.to("cuda:1")
    assert pdt.transfer_stats()["peer"] == {"count": 1, "bytes": 80000}
    assert y.cpu().tolist() == list(range(10000))


@pytest.mark.parametrize("dtype,big,small", [("int32", 2**31 - 1, -(2**31)),
                                             ("int64", 2**63 - 1, -(2**63))])
def test_float_to_int_saturates_the_same_on_every_device(device, dtype, big, small):
    """Note [float to int]: NaN -> 0, out of range -> the nearest bound, else truncation."""
    x = pdt.tensor([float("nan"), float("inf"), -float("inf"), 1e20, -1e20, 2.7, -2.7],
                   dtype=pdt.float64, device=device)
    expected = [0, big, small, big, small, 2, -2]
    assert x.to(dtype).cpu().tolist() == expected
    assert x.float().to(dtype).cpu().tolist() == expected
    # a number is not a tensor: full() refuses it, as PyTorch does (test_exact_answers)
    with pytest.raises(ValueError, match="cannot be converted"):
        pdt.full((2,), float("nan"), dtype=dtype, device=device)


def _float_to_int_case(src, dtype):
    """A long row with the casts' edges (the bounds, their neighbours, NaN, infinities,
    zeros) at every lane position of 32-lane blocks, and Note [float to int]'s values for
    it: saturated to int64 (int32), the small integers its low bits (Note [float to small
    int])."""
    edge = np.array([np.nan, -np.nan, np.inf, -np.inf, 2.0**31, -2.0**31, 2.0**31 - 128,
                     2.0**31 - 1, 2.0**31 - 0.5, -2.0**31 - 1, -2.0**31 - 256, 2.0**63,
                     -2.0**63, 2.0**63 - 1024, 1e20, -1e20, 2.7, -2.7, 0.0, -0.0, 1e-45,
                     -0.99, 255.5, 256.0, -128.5, -129.0, 2.0**32 + 2.0**9, -2.0**40 - 2.0**17,
                     2.0**62, -2.0**62 - 2.0**40, 1e30, 65535.9], np.float64).astype(src)
    rng = np.random.default_rng(5)
    a = np.concatenate([np.roll(edge, k) for k in range(32)] +
                       [(rng.standard_normal(10_001) * 1e6).astype(src),
                        (rng.standard_normal(1_003) * 300).astype(src)])
    with np.errstate(invalid="ignore"):
        d = np.trunc(np.nan_to_num(a.astype(np.float64), nan=0.0))
    wide = np.iinfo("int32" if dtype == "int32" else "int64")
    want = [wide.max if v >= wide.max else wide.min if v <= wide.min else int(v)
            for v in d.tolist()]
    if dtype not in ("int32", "int64"):
        want = np.array(want, np.int64).astype(dtype).tolist()  # the low bits
    return a, want


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8", "int16", "bool"])
def test_float_to_int_rows_saturate_at_every_position(device, src, dtype):
    """The vector cast rows (4 to 32 lanes, and their tails) give Note [float to int]'s
    values, contiguous and strided."""
    a, want = _float_to_int_case(src, "int64" if dtype == "bool" else dtype)
    if dtype == "bool":
        want = (a != 0).tolist()
    x = pdt.tensor(a, device=device)
    assert x.to(getattr(pdt, dtype)).cpu().tolist() == want
    strided = pdt.tensor(np.stack([a, a], 1), device=device).t()[0]
    assert strided.to(getattr(pdt, dtype)).cpu().tolist() == want
    for n in range(1, 40):  # every tail length
        assert x[:n].to(getattr(pdt, dtype)).cpu().tolist() == want[:n]


@pytest.mark.skipif(len(_C._cpu_simd_level()[1]) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8", "int16", "bool"])
def test_float_to_int_rows_at_every_cpu_level(src, dtype, level_restored):
    """Each level's cast rows (cpu_vcast.h: SSE2, AVX2, AVX-512) give the same values,
    float64's past 2^31 too (t - trunc(t 2^-16) 2^16 for the low bits)."""
    a, want = _float_to_int_case(src, "int64" if dtype == "bool" else dtype)
    if src == "float64":  # fractions and low bits past 2^31, where float32 has none
        rng = np.random.default_rng(6)
        big = np.ldexp(rng.random(4000) + 1, rng.integers(31, 63, 4000))
        big *= rng.choice([-1, 1], 4000)
        big[::3] += rng.random(1334)
        a = np.concatenate([a, big])
        with np.errstate(invalid="ignore"):
            low = np.trunc(big).astype(np.int64)  # all below 2^63 in magnitude
        want = want + (low.astype(dtype) if dtype not in ("int32", "bool") else
                       np.clip(low, -2**31, 2**31 - 1)).tolist()
    if dtype == "bool":
        want = (a != 0).tolist()
    x = pdt.tensor(a)
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        assert x.to(getattr(pdt, dtype)).tolist() == want, level
        assert x[3:].to(getattr(pdt, dtype)).tolist() == want[3:], level


@pytest.mark.skipif(len(_C._cpu_simd_level()[1]) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_cast_rows_write_nothing_past_their_end(src, level_restored):
    """Each level's cast rows, for every length 0 to 80 (the vector loops' bounds and
    tails), write their n elements and not one byte more: a copy into the front of a
    buffer leaves its guard elements alone."""
    a, _ = _float_to_int_case(src, "int64")
    x = pdt.tensor(a[:80])
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        for dtype in ("int32", "int64", "uint8", "int8", "int16", "bool"):
            want = x.to(getattr(pdt, dtype)).tolist()
            guard = pdt.full((64,), 77, dtype=getattr(pdt, dtype)).tolist()
            for n in range(81):
                buf = pdt.full((n + 64,), 77, dtype=getattr(pdt, dtype))
                buf[:n].copy_(x[:n])
                got = buf.tolist()
                assert got[:n] == want[:n] and got[n:] == guard, (level, dtype, n)


def test_stray_bool_bytes_read_as_true(device):
    raw = np.array([0, 1, 2, 255], dtype=np.uint8).view(np.bool_)
    t = pdt.from_numpy(raw).to(device)
    assert t.to(pdt.float32).cpu().tolist() == [0.0, 1.0, 1.0, 1.0]
    assert t.to(pdt.int64).cpu().tolist() == [0, 1, 1, 1]


def _int64_rounding_cases():
    """int64 values where a conversion that rounds twice (through float64 into float32)
    or drops low bits goes wrong: float32's and float64's ties at every exponent and
    their neighbours, both signs, the ends of the range, and random values of every
    magnitude (Note [int64 to float at AVX2] in csrc/cpu/cpu_vcast.h)."""
    rng = np.random.default_rng(11)
    vals = [0, 1, -1, 2**53 - 1, 2**53, 2**53 + 1, -2**53 - 1, 2**63 - 1, -2**63, -2**63 + 1]
    for p in (24, 53):  # float32's and float64's significand bits
        for e in range(p, 63):
            spacing = 2 ** (e - p + 1)  # between neighbouring floats in [2^e, 2^(e+1))
            for m in rng.integers(2 ** (p - 1), 2 ** p, 3).tolist():
                tie = m * spacing + spacing // 2
                for v in (tie - 1, tie, tie + 1, m * spacing + 1, m * spacing - 1):
                    if v < 2**63:
                        vals += [v, -v]
    vals = np.array(vals, dtype=np.int64)
    shifts = rng.integers(0, 63, 3000)
    rand = rng.integers(-2**63, 2**63 - 1, 3000, dtype=np.int64, endpoint=True) >> shifts
    return np.concatenate([vals, rand])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_int64_to_float_rounds_once_as_numpy(device, dtype):
    """int64 into float32 and float64 gives the nearest float (ties to even), as
    NumPy's astype, on every device: contiguous, offset and strided."""
    a = _int64_rounding_cases()
    want = a.astype(dtype)
    x = pdt.tensor(a, device=device)
    got = x.to(getattr(pdt, dtype)).cpu().numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x[5:].to(getattr(pdt, dtype)).cpu().numpy(), want[5:])
    np.testing.assert_array_equal(x[::3].to(getattr(pdt, dtype)).cpu().numpy(), want[::3])


@pytest.mark.skipif(len(_C._cpu_simd_level()[1]) < 2, reason="one instruction-set level only")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_int64_to_float_rows_round_once_at_every_cpu_level(dtype, level_restored):
    """Each level's int64 rows (cpu_vcast.h: C's conversion, AVX2's four lanes by halves
    and a sticky bit, AVX-512's vcvtqq2ps/pd) give NumPy's values, at every length of
    the vector loops' tails."""
    a = _int64_rounding_cases()
    want = a.astype(dtype)
    x = pdt.tensor(a)
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        np.testing.assert_array_equal(x.to(getattr(pdt, dtype)).numpy(), want, err_msg=level)
        for n in range(20):
            np.testing.assert_array_equal(x[n:2 * n + 1].to(getattr(pdt, dtype)).numpy(),
                                          want[n:2 * n + 1], err_msg=f"{level} {n}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_int64_to_float_rows_of_small_values_at_every_cpu_level(dtype, level_restored):
    """The AVX2 rows' form for |x| below 2^51 (x + 2^51 under 2^52's exponent, then one
    rounding) and the switch to the general form at the first block with a larger |x|
    (Note [int64 to float at AVX2]): NumPy's values for float32's ties below 2^51 and
    the edges +-2^51, with a large value put at each position of the first 64."""
    cases = _int64_rounding_cases()
    small = cases[(cases >= -2**51) & (cases < 2**51)]
    row = np.concatenate([[2**51 - 1, -2**51, -2**51 + 1, 2**51 - 2, 0, 7, -7, 1],
                          small]).astype(np.int64)
    assert len(row) > 200 and (np.abs(row[8:]) >= 2**24).sum() > 100
    to = getattr(pdt, dtype)
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        np.testing.assert_array_equal(pdt.tensor(row).to(to).numpy(), row.astype(dtype),
                                      err_msg=level)
        for big in (2**51, -2**51 - 1, 2**62 + 2**40 + 1):
            for pos in range(64):
                r = row[:80].copy()
                r[pos] = big
                np.testing.assert_array_equal(pdt.tensor(r).to(to).numpy(), r.astype(dtype),
                                              err_msg=f"{level} {big} at {pos}")
