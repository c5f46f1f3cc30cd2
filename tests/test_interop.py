"""The NumPy boundary and interop (issue 5): .numpy(), to_numpy(), as_tensor(),
__array__ (NumPy 2's copy=), __array_ufunc__/__array_function__, the buffer
protocol, __array_interface__ / __cuda_array_interface__ and DLPack.

What runs where: everything on the CPU runs here.  GPU behaviour (refusals of
GPU tensors, the CUDA array interface, DLPack with streams, PyTorch and CuPy)
is under the ``cuda`` marker, skipped without a GPU; PyTorch and CuPy tests
are skipped too when those libraries do not import.  One test dresses a CPU
tensor up as a GPU one to check the Python half of NumPy's refusal on the CPU.
"""
import ctypes
import gc
import inspect
import threading
import textwrap
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, DTYPES, torch_or_skip

NUMPY2 = int(np.__version__.split(".")[0]) >= 2


def ptr(a):
    return a.data_ptr() if isinstance(a, pdt.Tensor) else a.__array_interface__["data"][0]


class Interface:
    """An object offering only an array interface (a dict under `name`)."""

    def __init__(self, owner, name, **changes):
        self.owner = owner
        setattr(self, name, dict(getattr(owner, name), **changes))


class DLPackOnly:
    """An object offering only DLPack; legacy=True: a producer from before
    DLPack 1.0, whose __dlpack__ knows no max_version."""

    def __init__(self, array, legacy=False):
        self.array, self.legacy, self.calls = array, legacy, []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None, **kw):
        self.calls.append(dict(kw, stream=stream))
        if self.legacy and kw:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return self.array.__dlpack__(stream=stream, **kw)


def capsule_name(capsule):
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(capsule).decode()


# ---------------------------------------------------------------- .numpy, to_numpy


def test_numpy_force_on_cpu_still_shares():
    t = pdt.ones(3)
    assert ptr(t.numpy(force=True)) == t.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_numpy_shares_cpu_memory(dtype):
    t = pdt.zeros(2, 3, dtype=dtype)
    a = pdt.to_numpy(t)
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3) and ptr(a) == t.data_ptr()
    with pytest.raises(TypeError, match="expected a Tensor"):
        pdt.to_numpy(np.zeros(3))


@pytest.mark.cuda
def test_gpu_numpy_message_and_to_numpy_counts_one_copy():
    g = pdt.arange(6, device="cuda:0", dtype=pdt.float32)
    with pytest.raises(TypeError) as e:
        g.numpy()
    assert str(e.value) == ("can't convert cuda:0 tensor to NumPy without a device-to-host copy; "
                            "call .cpu() first, or pydevtensor.to_numpy(t)")
    pdt.reset_transfer_stats()
    assert pdt.to_numpy(g).tolist() == [0, 1, 2, 3, 4, 5]
    stats = pdt.transfer_stats()["device_to_host"]
    assert stats == {"count": 1, "bytes": 24}


# ---------------------------------------------------------------- __array__


def test_array_protocol_on_cpu_honours_copy():
    t = pdt.arange(4, dtype=pdt.float32)
    assert ptr(np.asarray(t)) == t.data_ptr()
    assert ptr(t.__array__()) == t.data_ptr()
    assert ptr(t.__array__(copy=False)) == t.data_ptr()
    assert ptr(t.__array__(np.float32, copy=False)) == t.data_ptr()
    copied = t.__array__(copy=True)
    assert ptr(copied) != t.data_ptr() and copied.tolist() == [0, 1, 2, 3]
    converted = t.__array__(np.float64)
    assert converted.dtype == np.float64 and converted.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="Unable to avoid copy.*float32.*float64"):
        t.__array__(np.float64, copy=False)
    with pytest.raises(TypeError, match="takes"):
        t.__array__(np.float64, True, 3)


@pytest.mark.skipif(not NUMPY2, reason="copy= in np.array/np.asarray is NumPy 2's")
def test_numpy2_array_and_asarray_copy_keyword():
    t = pdt.arange(4, dtype=pdt.int64)
    assert ptr(np.asarray(t, copy=False)) == t.data_ptr()
    assert ptr(np.array(t, copy=None)) == t.data_ptr()
    assert ptr(np.array(t)) != t.data_ptr()  # np.array copies by default
    assert np.asarray(t, dtype=np.float64).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float64, copy=False)


def test_ufuncs_on_cpu_tensors_run_on_shared_arrays():
    a = np.linspace(-1, 1, 7)
    t = pdt.from_numpy(a.copy())
    r = np.exp(t)  # a tensor, as PyTorch's __array_wrap__ (Note [ufuncs give tensors])
    assert isinstance(r, pdt.Tensor) and np.allclose(r.numpy(), np.exp(a), rtol=1e-15, atol=0)
    assert np.add(t, 1, out=t) is t  # out= writes through the shared memory
    assert np.allclose(t.numpy(), a + 1, rtol=1e-15, atol=0)
    assert np.add.reduce(t).item() == pytest.approx((a + 1).sum(), rel=1e-12)
    assert isinstance(a + t, pdt.Tensor)  # an operator: PyTorch's tensor (test_numpy_operators)
    assert np.concatenate([t, t]).shape == (14,)
    assert np.mean(t) == pytest.approx((a + 1).mean(), rel=1e-12)
    assert np.shape(t) == (7,)


def test_ufuncs_give_tensors_as_pytorch_on_the_host_and_refuse_the_gpu(device):
    """np.exp(t), np.add(t, 1), np.sin(t): a CPU tensor, as PyTorch's __array_wrap__
    gives (they were NumPy arrays); for a GPU tensor a TypeError saying to call .cpu(),
    no copy made (Note [ufuncs give tensors] in _interop.py)."""
    a = np.linspace(-2, 2, 6).reshape(2, 3)
    t = pdt.tensor(a, dtype=pdt.float32, device=device)
    ufuncs = {"exp": (lambda x: np.exp(x), np.exp), "sin": (lambda x: np.sin(x), np.sin),
              "add": (lambda x: np.add(x, 1), lambda x: x + 1),
              "reduce": (lambda x: np.add.reduce(x), lambda x: x.sum(0))}
    if t.device.type != "cpu":
        pdt.reset_transfer_stats()
        for name, (call, _) in ufuncs.items():
            with pytest.raises(TypeError, match=rf"cannot take a {device} tensor.*\.cpu\(\)"):
                call(t)
        assert pdt.transfer_stats()["device_to_host"]["count"] == 0
        return
    a32 = a.astype(np.float32).astype(np.float64)  # the values t holds
    for name, (call, ref) in ufuncs.items():
        r = call(t)
        assert isinstance(r, pdt.Tensor), name
        assert r.device == t.device and r.dtype == pdt.float32 and r.shape == ref(a32).shape
        np.testing.assert_allclose(r.numpy().astype(np.float64), ref(a32), rtol=1e-6,
                                   atol=1e-6, err_msg=name)
    # NumPy's dtype, as PyTorch's from_numpy of it: int64 -> float64; a scalar is 0-d
    e = np.exp(pdt.arange(3))
    assert e.dtype == pdt.float64 and e.tolist() == np.exp(np.arange(3.0)).tolist()
    s = np.exp(pdt.tensor(1.0, dtype=pdt.float64))
    assert isinstance(s, pdt.Tensor) and s.dim() == 0 and s.item() == np.exp(1.0)
    q, m = np.divmod(pdt.tensor([5.0, 7.0]), 2)  # two results: two tensors
    assert isinstance(q, pdt.Tensor) and q.tolist() == [2.0, 3.0] and m.tolist() == [1.0, 1.0]
    nan = np.isnan(pdt.tensor([1.0, float("nan")]))  # bool (PyTorch 2.15: uint8)
    assert nan.dtype == pdt.bool and nan.tolist() == [False, True]
    assert isinstance(np.exp(t, out=np.empty((2, 3), np.float32)), np.ndarray)  # out as given
    with pytest.raises(RuntimeError, match="requires grad"):  # as PyTorch
        np.exp(pdt.ones(2, requires_grad=True))


class _DressedAsGPU(pdt.Tensor):
    """A CPU tensor that reports cuda:0, to run the Python refusal without a GPU."""

    @property
    def device(self):
        return pdt.device("cuda:0")


def test_numpy_hooks_refuse_tensors_off_the_host_on_cpu():
    fake = _DressedAsGPU(pdt.ones(3))
    for call in (lambda: np.add(fake, 1), lambda: np.exp(fake),
                 lambda: np.add(np.ones(3), 1, out=(fake,)),
                 lambda: np.concatenate([pdt.ones(3), fake]), lambda: np.mean(fake)):
        with pytest.raises(TypeError, match="cannot take a cuda:0 tensor.*behind your back"):
            call()


@pytest.mark.cuda
def test_numpy_refuses_gpu_tensors_without_copying_or_iterating():
    g = pdt.ones(3, device="cuda:0")
    pdt.reset_transfer_stats()
    for call in (lambda: np.asarray(g), lambda: np.array(g), lambda: np.array([g, g]),
                 lambda: g.__array__()):
        with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
            call()
    for call in (lambda: np.add(g, 1), lambda: np.sin(g), lambda: np.concatenate([g, g])):
        with pytest.raises(TypeError, match="cannot take a cuda:0 tensor"):
            call()
    # an operator with an array: the array is a CPU tensor, and the op refuses the mix
    # (Note [operators with NumPy arrays])
    with pytest.raises(pdt.DeviceError, match="cuda:0"):
        np.ones(3) + g
    # Iterating (len() and t[i], then float() of each element) would have copied.
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0


# ---------------------------------------------------------------- buffer protocol


def test_buffer_protocol_has_strides():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = pdt.from_numpy(a.T)
    m = memoryview(t)
    assert m.shape == (4, 3) and m.strides == a.T.strides and m.format == "d"
    assert np.asarray(m).tolist() == a.T.tolist()


@pytest.mark.cuda
def test_gpu_tensors_have_no_buffer():
    with pytest.raises(BufferError, match="cuda:0 tensor has no host buffer.*to_numpy"):
        memoryview(pdt.ones(3, device="cuda:0"))


# ---------------------------------------------------------------- array interfaces


def test_array_interface_on_cpu():
    t = pdt.arange(6, dtype=pdt.int32)
    ai = t.__array_interface__
    assert ai == {"shape": (6,), "typestr": "<i4", "data": (t.data_ptr(), False),
                  "strides": None, "version": 3}
    s = pdt.from_numpy(np.zeros((3, 4))[:, ::2])
    assert s.__array_interface__["strides"] == (32, 16)
    assert not hasattr(t, "__cuda_array_interface__")
    # NumPy reads it back without a copy.
    assert ptr(np.asarray(Interface(t, "__array_interface__"))) == t.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES)
def test_as_tensor_consumes_the_array_interface(dtype):
    a = np.arange(12).astype(dtype).reshape(3, 4)[:, 1::2]
    holder = Interface(a, "__array_interface__")
    t = pdt.as_tensor(holder)
    assert t.dtype.name == dtype and t.shape == (3, 2) and t.data_ptr() == ptr(a)
    assert t.stride() == (4, 2) and t.tolist() == a.tolist()
    expected = a.tolist()
    del a, holder
    gc.collect()
    assert t.tolist() == expected  # the storage holds the exporting object


def test_as_tensor_copies_read_only_interfaces():
    a = np.arange(3.0)
    t = pdt.as_tensor(Interface(a, "__array_interface__", data=(ptr(a), True)))
    assert t.data_ptr() != ptr(a) and t.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("changes,exc,pattern", [
    ({"typestr": "<u2"}, TypeError, "unsupported element type '<u2'"),
    ({"typestr": ">f8"}, TypeError, "unsupported element type"),
    ({"mask": np.zeros(3, bool)}, ValueError, "masked"),
    ({"data": None}, TypeError, "only the \\(address, read_only\\) form"),
    ({"strides": (8, 8)}, ValueError, "2 strides for 1 dimensions"),
    ({"strides": (3,)}, ValueError, "not a multiple"),
    ({"shape": (1,) * 17}, ValueError, "at most 16"),
])
def test_as_tensor_rejects_bad_array_interfaces(changes, exc, pattern):
    with pytest.raises(exc, match=pattern):
        pdt.as_tensor(Interface(np.zeros(3), "__array_interface__", **changes))


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the error without a GPU")
def test_cuda_array_interface_without_a_gpu():
    holder = Interface(np.zeros(3), "__array_interface__")
    holder.__cuda_array_interface__ = holder.__array_interface__
    with pytest.raises(pdt.DeviceError, match="(?i)cuda"):
        pdt.as_tensor(holder)
    holder.__cuda_array_interface__ = dict(holder.__array_interface__, typestr="<c8")
    with pytest.raises(TypeError, match="unsupported element type"):
        pdt.as_tensor(holder)


@pytest.mark.cuda
def test_cuda_array_interface_round_trip():
    g = pdt.arange(8, dtype=pdt.float32, device="cuda:0")
    assert not hasattr(g, "__array_interface__")
    cai = g.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (8,) and cai["typestr"] == "<f4"
    assert cai["data"] == (g.data_ptr(), False) and cai["strides"] is None
    assert isinstance(cai["stream"], int) and cai["stream"] not in (0, 1, 2)
    pdt.reset_transfer_stats()
    t = pdt.as_tensor(Interface(g, "__cuda_array_interface__"))
    assert t.device == pdt.device("cuda:0") and t.data_ptr() == g.data_ptr()
    for stream in (None, 1, 2, cai["stream"]):
        u = pdt.as_tensor(Interface(g, "__cuda_array_interface__", stream=stream))
        assert u.data_ptr() == g.data_ptr()
    with pytest.raises(ValueError, match="stream 0 is ambiguous"):
        pdt.as_tensor(Interface(g, "__cuda_array_interface__", stream=0))
    assert sum(v["count"] for v in pdt.transfer_stats().values()) == 0
    assert t.tolist() == list(range(8))


# ---------------------------------------------------------------- as_tensor


def test_as_tensor_shares_where_it_can():
    t = pdt.ones(3)
    assert pdt.as_tensor(t) is t and pdt.as_tensor(t, device="cpu") is t
    assert pdt.as_tensor(t, dtype=pdt.float32) is t
    d = pdt.as_tensor(t, dtype=pdt.float64)
    assert d.dtype == pdt.float64 and d.tolist() == [1, 1, 1]
    a = np.arange(4, dtype=np.int32)
    assert pdt.as_tensor(a).data_ptr() == ptr(a)
    c = pdt.as_tensor(a, dtype="float32")
    assert c.data_ptr() != ptr(a) and c.tolist() == [0, 1, 2, 3]
    assert pdt.as_tensor([[1, 2]]).tolist() == [[1, 2]] and pdt.as_tensor(2.5).item() == 2.5
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert pdt.as_tensor(ro).tolist() == [0, 1, 2]  # read-only: copied
    dl = np.arange(5.0)
    assert pdt.as_tensor(DLPackOnly(dl)).data_ptr() == ptr(dl)
    assert pdt.tensor(DLPackOnly(dl)).data_ptr() != ptr(dl)  # tensor() copies


@pytest.mark.cuda
def test_as_tensor_to_a_gpu_is_one_counted_copy():
    a = np.arange(4, dtype=np.float32)
    pdt.reset_transfer_stats()
    g = pdt.as_tensor(a, device="cuda:0")
    assert g.device == pdt.device("cuda:0") and g.cpu().tolist() == [0, 1, 2, 3]
    assert pdt.transfer_stats()["host_to_device"] == {"count": 1, "bytes": 16}
    assert pdt.as_tensor(g, device="cuda:0") is g


# ---------------------------------------------------------------- DLPack


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_round_trip_with_numpy_is_zero_copy(dtype):
    a = np.arange(6).astype(dtype)
    t = pdt.from_dlpack(a)
    assert t.dtype.name == dtype and t.data_ptr() == ptr(a) and t.tolist() == a.tolist()
    b = np.from_dlpack(t)
    assert b.dtype == np.dtype(dtype) and ptr(b) == t.data_ptr()
    b[0] = 1
    assert a[0] == 1  # one memory, three views


@st.composite
def strided_views(draw):
    """A NumPy view with any strides (negative too) over a random array."""
    dtype = draw(st.sampled_from(DTYPES))
    base = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=4, max_side=5)))
    index = tuple(slice(draw(st.integers(0, n)), None, draw(st.sampled_from([1, 2, -1, -2])))
                  for n in base.shape)
    view = base[index]
    return view.T if draw(st.booleans()) else view


@settings(max_examples=150, deadline=None)
@given(strided_views())
def test_every_zero_copy_path_keeps_pointer_strides_and_values(v):
    expected = v.tobytes()  # bit for bit: NaNs and -0.0 included
    for t in (pdt.from_dlpack(v), pdt.as_tensor(v), pdt.from_numpy(v),
              pdt.as_tensor(Interface(v, "__array_interface__"))):
        assert t.shape == v.shape and (not v.size or t.data_ptr() == ptr(v))
        for back in (np.from_dlpack(t), t.numpy(), np.asarray(t)):
            assert not v.size or all(b == s for b, s, n in zip(back.strides, v.strides, v.shape)
                                     if n > 1)  # a size-1 dimension's stride is free
            assert back.tobytes() == expected and (not v.size or ptr(back) == ptr(v))


def test_dlpack_strided_views_and_lifetimes():
    a = np.arange(24.0).reshape(4, 6)
    for v in (a[:, ::2], a.T, a[1:3, 2:5], a[::-1]):
        t = pdt.from_dlpack(v)
        assert t.tolist() == v.tolist() and t.data_ptr() == ptr(v)
        assert np.from_dlpack(t).strides == v.strides
    t = pdt.from_dlpack(a)
    del a
    gc.collect()
    assert t.tolist()[3][5] == 23.0  # NumPy's deleter runs when our storage dies


def test_dlpack_device_and_capsules():
    t = pdt.ones(2, 3)
    assert t.__dlpack_device__() == (1, 0)
    assert capsule_name(t.__dlpack__()) == "dltensor"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert capsule_name(t.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    c = t.__dlpack__(max_version=(1, 0))
    x = pdt.from_dlpack(c)
    assert capsule_name(c) == "used_dltensor_versioned" and x.data_ptr() == t.data_ptr()
    with pytest.raises(BufferError, match="used_dltensor_versioned.*consumed once"):
        pdt.from_dlpack(c)
    legacy = t.__dlpack__()
    pdt.from_dlpack(legacy)
    assert capsule_name(legacy) == "used_dltensor"
    with pytest.raises(TypeError, match="has no __dlpack__"):
        pdt.from_dlpack([1, 2])


class _Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("data", ctypes.c_void_p),
                ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def read_versioned(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return _Versioned.from_address(get(capsule, b"dltensor_versioned"))


def test_versioned_capsule_layout_and_copy_flag():
    t = pdt.from_numpy(np.zeros((5, 4), dtype=np.float32)[:, ::2])
    c = t.__dlpack__(max_version=(1, 0))
    m = read_versioned(c)
    assert (m.major, m.minor, m.flags) == (1, 0, 0)
    assert (m.data, m.device_type, m.device_id, m.ndim) == (t.data_ptr(), 1, 0, 2)
    assert (m.code, m.bits, m.lanes, m.byte_offset) == (2, 32, 1, 0)
    assert m.shape[:2] == [5, 2] and m.strides[:2] == [4, 2]
    assert read_versioned(t.__dlpack__(max_version=(1, 7))).minor == 1
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    m = read_versioned(copied)
    assert m.flags == 2 and m.data != t.data_ptr()  # DLPACK_FLAG_BITMASK_IS_COPIED
    assert pdt.from_dlpack(copied).tolist() == t.tolist()


def test_unconsumed_and_consumed_capsules_release_the_storage():
    # A capsule holds the storage, not the Tensor, whose storage `.data =` may
    # replace (Note [exports hold the storage]).
    t = pdt.ones(4)
    n = t._storage_refcount()
    alive = weakref.ref(t)
    capsule = t.__dlpack__(max_version=(1, 0))
    assert t._storage_refcount() == n + 1
    keep = pdt.Tensor(t)  # watches the storage
    del t
    gc.collect()
    assert alive() is None and keep._storage_refcount() == n + 1
    del capsule
    gc.collect()
    assert keep._storage_refcount() == n  # the capsule's destructor ran the deleter
    x = pdt.from_dlpack(keep.__dlpack__())
    assert keep._storage_refcount() == n + 1 and x.tolist() == [1, 1, 1, 1]
    # The last view may die on another thread (the deleter takes the GIL itself).
    worker = threading.Thread(target=lambda xs: xs.clear(), args=([x],))
    del x
    worker.start()
    worker.join()
    gc.collect()
    assert keep._storage_refcount() == n


def test_dlpack_export_arguments():
    t = pdt.arange(3, dtype=pdt.float64)
    assert ptr(np.from_dlpack(t, device="cpu")) == t.data_ptr()
    c = np.from_dlpack(t, copy=True)
    assert ptr(c) != t.data_ptr() and c.tolist() == [0, 1, 2]
    assert capsule_name(t.__dlpack__(dl_device=(1, 0), copy=False)) == "dltensor"
    assert capsule_name(t.__dlpack__(stream=-1)) == "dltensor"  # no stream on the CPU
    with pytest.raises(BufferError, match="needs a copy, which copy=False forbids"):
        t.__dlpack__(dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError, match="pydevtensor has only"):
        t.__dlpack__(dl_device=(3, 0))
    with pytest.raises(TypeError, match="dl_device must be"):
        t.__dlpack__(dl_device="cpu")
    with pytest.raises(TypeError, match="max_version must be"):
        t.__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="keyword arguments only"):
        t.__dlpack__(None)
    with pytest.raises(ValueError, match="stream 0 is not valid"):
        t.__dlpack__(stream=0)


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the error without a GPU")
def test_dlpack_export_to_a_missing_gpu_is_a_buffer_error():
    with pytest.raises(BufferError, match="cannot export to dl_device"):
        pdt.ones(2).__dlpack__(dl_device=(2, 0))


def test_from_dlpack_protocol_details():
    a = np.arange(4.0)
    modern, legacy = DLPackOnly(a), DLPackOnly(a, legacy=True)
    assert pdt.from_dlpack(modern).data_ptr() == ptr(a)
    assert modern.calls == [{"max_version": (1, 1), "stream": None}]
    assert pdt.from_dlpack(legacy).data_ptr() == ptr(a)  # retried without max_version
    assert legacy.calls[-1] == {"stream": None}
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only.*copy=True"):
        pdt.from_dlpack(ro)
    c = pdt.from_dlpack(ro, copy=True)
    assert c.data_ptr() != ptr(ro) and c.tolist() == [0, 1, 2]
    assert pdt.from_dlpack(a, copy=True).data_ptr() != ptr(a)
    with pytest.raises(TypeError, match="unsupported DLPack element type"):
        pdt.from_dlpack(np.zeros(3, dtype=np.uint16))
    with pytest.raises(BufferError, match="copy=False forbids"):
        pdt.from_dlpack(a, device="cuda:0", copy=False)


def test_from_dlpack_takes_pytorchs_keyword():
    """PyTorch's parameter is ext_tensor: from_dlpack(ext_tensor=a) shares a's memory, as
    from_dlpack(a) does, in pydevtensor and in pydevtensor.utils.dlpack."""
    from pydevtensor.utils.dlpack import from_dlpack
    a = np.arange(4.0)
    for fn in (pdt.from_dlpack, from_dlpack):
        t = fn(ext_tensor=a)
        assert t.data_ptr() == ptr(a) and t.tolist() == [0, 1, 2, 3]
        c = fn(ext_tensor=a, copy=True)
        assert c.data_ptr() != ptr(a) and c.tolist() == [0, 1, 2, 3]
    with pytest.raises(TypeError):
        pdt.from_dlpack(x=a)
    # and inspect says so (it followed __wrapped__ to the C function's "x, /")
    params = inspect.signature(pdt.from_dlpack).parameters
    assert list(params) == ["ext_tensor", "device", "copy"]
    assert params["ext_tensor"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


# DLPack's structs (dlpack.h, v1.1: DLTensor, DLManagedTensor, DLManagedTensorVersioned;
# DLDevice and DLDataType flattened into their fields), for capsules made by hand.
class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("dtype_code", ctypes.c_uint8), ("dtype_bits", ctypes.c_uint8),
                ("dtype_lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DL_DELETER)]


class _DLManagedVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", _DL_DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("fault, error", [
    ({"offset": 1}, r"not aligned to its 4-byte elements"),
    ({"shape": -4}, r"negative dimension -4"),
    ({"device": (2, 63)}, r"cuda:63"),
    ({"byte_offset": 2**63}, r"byte_offset 9223372036854775808 .* outside the address space"),
    ({"byte_offset": 2**64 - 8}, r"outside the address space")])
def test_a_refused_dlpack_capsule_runs_a_python_deleter_once(versioned, fault, error):
    """A capsule whose deleter is Python code (ctypes, cffi, a pure-Python producer),
    refused after from_dlpack took it: the deleter runs exactly once, and the refusal
    (not a SystemError) reaches the caller.  It ran with the refusal pending, so it
    failed at once, freed nothing, and the error was lost; a byte_offset wrapping the
    address space formed an overflowing pointer (UBSan) before any check."""
    calls = []
    m = (_DLManagedVersioned if versioned else _DLManaged)()
    m.deleter = _DL_DELETER(lambda managed: calls.append(managed))
    buf = np.zeros(8, np.float32)
    shape = (ctypes.c_int64 * 1)(fault.get("shape", 4))
    if versioned:
        m.major, m.minor = 1, 1
    m.dl_tensor.data = buf.ctypes.data + fault.get("offset", 0)
    m.dl_tensor.device_type, m.dl_tensor.device_id = fault.get("device", (1, 0))
    m.dl_tensor.ndim, m.dl_tensor.dtype_code, m.dl_tensor.dtype_bits = 1, 2, 32
    m.dl_tensor.dtype_lanes = 1
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.byte_offset = fault.get("byte_offset", 0)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_void_p]
    cap = new(ctypes.addressof(m), name, None)
    with pytest.raises((ValueError, RuntimeError, BufferError), match=error):
        pdt.from_dlpack(cap)
    # refused before the capsule was taken (byte_offset), or after, where the
    # deleter is ours to call: then exactly once, never left to the producer too
    taken = "byte_offset" not in fault
    assert calls == ([ctypes.addressof(m)] if taken else [])
    del cap
    gc.collect()
    assert len(calls) == (1 if taken else 0)


@pytest.mark.cuda
def test_dlpack_on_a_gpu():
    g = pdt.arange(6, dtype=pdt.float32, device="cuda:0")
    assert g.__dlpack_device__() == (2, 0)
    pdt.reset_transfer_stats()
    same = pdt.from_dlpack(g)
    assert same.device == g.device and same.data_ptr() == g.data_ptr()
    for stream in (None, 1, 2, -1, g.__cuda_array_interface__["stream"]):
        assert capsule_name(g.__dlpack__(stream=stream)) == "dltensor"
    assert sum(v["count"] for v in pdt.transfer_stats().values()) == 0
    with pytest.raises((BufferError, RuntimeError, TypeError)):
        np.from_dlpack(g)  # NumPy reads host memory only
    host = np.from_dlpack(g, device="cpu")  # asked for: one counted copy
    assert host.tolist() == [0, 1, 2, 3, 4, 5]
    assert pdt.transfer_stats()["device_to_host"] == {"count": 1, "bytes": 24}
    with pytest.raises(BufferError, match="copy=False forbids"):
        g.__dlpack__(dl_device=(1, 0), copy=False)


@pytest.mark.cuda
@pytest.mark.real_gpu("needs PyTorch's own CUDA")
def test_dlpack_with_pytorch_cuda_tensors():
    torch = torch_or_skip()
    x = torch.arange(12, dtype=torch.float32, device="cuda:0").reshape(3, 4)[:, 1:3]
    t = pdt.from_dlpack(x)
    assert t.device == pdt.device("cuda:0") and t.data_ptr() == x.data_ptr()
    assert t.cpu().tolist() == x.cpu().tolist() and t.stride() == x.stride()
    back = torch.from_dlpack(pdt.arange(5, dtype=pdt.int64, device="cuda:0"))
    assert back.device.type == "cuda" and back.tolist() == [0, 1, 2, 3, 4]
    g = pdt.ones(3, device="cuda:0")
    assert torch.from_dlpack(g).data_ptr() == g.data_ptr()


@pytest.mark.cuda
@pytest.mark.real_gpu("needs CuPy's own CUDA")
def test_dlpack_and_cai_with_cupy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(10, dtype=cupy.float64)
    t = pdt.from_dlpack(x)
    assert t.data_ptr() == x.data.ptr and t.cpu().tolist() == x.get().tolist()
    assert pdt.as_tensor(x).data_ptr() == x.data.ptr
    g = pdt.arange(4, dtype=pdt.float32, device="cuda:0")
    assert cupy.from_dlpack(g).data.ptr == g.data_ptr()
    assert cupy.asarray(g).data.ptr == g.data_ptr()  # through __cuda_array_interface__


def test_numpy_scalars_under_operators_give_tensors(device):
    """np.sqrt(2) * t reaches Tensor.__array_ufunc__ (the scalar is the left operand):
    as in PyTorch, the NumPy scalar is read as a Python number and the result is a
    tensor on t's device, recorded by autograd, with nothing copied to the host; NumPy
    arrays of one or more dimensions still give NumPy arrays (on the CPU)."""
    t = pdt.tensor([1.0, 2.0, 4.0], device=device, requires_grad=True)
    pdt.reset_transfer_stats()
    cases = [(np.sqrt(2) * t, np.sqrt(2) * np.array([1.0, 2.0, 4.0])),
             (np.float32(1) - t, 1 - np.array([1.0, 2.0, 4.0])),
             (np.int64(2) ** t, 2.0 ** np.array([1.0, 2.0, 4.0])),
             (np.float64(8) / t, 8 / np.array([1.0, 2.0, 4.0])),
             (np.float64(2.0) < t, np.array([False, False, True])),
             (np.float32(2) == t, np.array([False, True, False])),
             (np.array(3.0) >= t, np.array([True, True, False]))]
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0  # computed on the device
    for got, want in cases:
        assert isinstance(got, pdt.Tensor) and got.device == pdt.device(device)
        np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=1e-7)
    assert (np.float64(3) * t).dtype == pdt.float32  # a Python float keeps the dtype
    (np.float64(3) * t).sum().backward()
    np.testing.assert_array_equal(t.grad.cpu().numpy(), [3.0, 3.0, 3.0])
    if device == "cpu":
        assert isinstance(np.ones(3) + t.detach(), np.ndarray)


def test_numpy_force_takes_a_tensor_that_requires_grad_as_its_detach():
    """numpy(force=True) is PyTorch's t.detach().cpu().numpy(): a tensor that requires
    grad gives its memory (shared, on the CPU) instead of the refusal numpy() gives;
    to_numpy() the same."""
    t = pdt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        t.numpy()
    a = t.numpy(force=True)
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0] and t.requires_grad
    y = t * 2
    np.testing.assert_array_equal(pdt.to_numpy(y), [10.0, 4.0])
    np.testing.assert_array_equal(y.numpy(force=True), [10.0, 4.0])


@pytest.mark.parametrize("make", ["tensor", "as_tensor"])
def test_an_unaligned_array_is_copied_by_tensor_and_as_tensor(make):
    """np.frombuffer at an odd offset gives an array whose data is not aligned to its
    elements: tensor() and as_tensor() copy it (they were refusing it), from_numpy(),
    which must share the memory, refuses it naming the alignment."""
    raw = bytearray(b"\x00" + np.arange(3, dtype=np.float64).tobytes())  # writable
    a = np.frombuffer(raw, dtype=np.float64, count=3, offset=1)
    assert not a.flags.aligned
    t = getattr(pdt, make)(a)
    assert t.dtype == pdt.float64 and t.tolist() == [0.0, 1.0, 2.0]
    assert t.data_ptr() % 8 == 0
    assert pdt.tensor(memoryview(a)).tolist() == [0.0, 1.0, 2.0]
    assert pdt.tensor(a, dtype=pdt.float32).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="not aligned"):
        pdt.from_numpy(a)


def test_operators_with_arrays_on_a_logical_cpu_device():
    """A NumPy array is host memory: with a tensor on cpu:1 it is taken on cpu:1 (it was
    wrapped on cpu:0, and the op refused the mix of devices), out of place and in place."""
    from conftest import run_python
    out = run_python(textwrap.dedent("""
        import numpy as np
        import pydevtensor as pdt
        from pydevtensor import config as c
        c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                           [c.LogicalDeviceConfiguration()] * 2)
        t = pdt.arange(3.0, device='cpu:1', requires_grad=True)
        a = np.array([1.0, 2.0, 4.0])
        for r in (t + a, a * t, t @ a, a < t):
            print(r.device, *np.asarray(r.detach().cpu()).ravel().tolist())
        (t * a).sum().backward()
        print(t.grad.device, *t.grad.tolist())
        u = pdt.zeros(3, device='cpu:1')
        u += a
        print(u.device, *u.tolist())
    """))
    lines = [out[i:i + n] for i, n in ((0, 4), (4, 4), (8, 2), (10, 4), (14, 4), (18, 4))]
    assert all(line[0] == "cpu:1" for line in lines)
    assert [float(v) for v in lines[0][1:]] == [1.0, 3.0, 6.0]
    assert [float(v) for v in lines[1][1:]] == [0.0, 2.0, 8.0]
    assert float(lines[2][1]) == 10.0
    assert lines[3][1:] == ["False", "False", "False"]
    assert [float(v) for v in lines[4][1:]] == [1.0, 2.0, 4.0]
    assert [float(v) for v in lines[5][1:]] == [1.0, 2.0, 4.0]
