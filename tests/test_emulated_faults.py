"""The CUDA backend's error paths, driven by the emulator's fault injection (Note [fault
injection] in csrc/cuda/emulator/emu_faults.cpp): the Nth call of cudaMalloc*,
cudaHostAlloc, cudaEventCreate, a kernel launch, cublasCreate, cusolverDnCreate or
ncclCommInitAll fails with the error its documentation lists, where nothing else on a
machine without a GPU makes it fail.

What every failure must leave: a Python exception naming the call or the device and the
size (an out-of-memory one is pydevtensor.OutOfMemoryError), inputs unchanged, no memory
held (memory_allocated back to where it was), and a device on which the next op works.
What only the first use of a device makes (the staging buffers, the cuBLAS handle, NCCL's
communicators) is tested in a fresh child process.

Runs only in the emulated build (``PYDEVTENSOR_CUDA=emulate``).
"""
import ctypes
import gc

import numpy as np
import pytest

import pydevtensor as pdt
from emulated_faults_support import ALLOC, EMULATED_ONLY, OPS, _child, _sweep

pytestmark = EMULATED_ONLY


def test_the_hook_counts_calls_and_refuses_unknown_names(faults):
    assert faults.lib.pdtEmuFailCall(b"cudaFrobnicate", 1, 1) == -1
    assert faults.lib.pdtEmuFailCall(b"cudaMalloc", 0, 1) == -1
    # the third cudaMalloc from now fails with cudaErrorMemoryAllocation (2), once
    lib = faults.lib
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    faults.arm("cudaMalloc", 3)
    got = []
    for _ in range(4):
        p = ctypes.c_void_p()
        got.append(lib.cudaMalloc(ctypes.byref(p), 256))
        assert (p.value is None) == (got[-1] != 0)
        lib.cudaFree(p)
    assert got == [0, 0, 2, 0]
    assert faults.injected("cudaMalloc") == 1
    lib.cudaGetLastError()


@pytest.mark.parametrize("name,arrays,op,ref", OPS, ids=[o[0] for o in OPS])
def test_out_of_device_memory_in_any_allocation_of_an_op(faults, name, arrays, op, ref):
    """Two failures in a row: the first allocation and the retry after trimming the pool
    (Note [retry after trim] in cuda_backend.c)."""
    _sweep(faults, ALLOC, 2, name, arrays, op, ref, pdt.OutOfMemoryError)


def test_out_of_memory_names_the_device_and_the_size(faults):
    x = pdt.from_numpy(np.ones((1000,), np.float32)).to("cuda")
    faults.arm(ALLOC, 1, 2)
    with pytest.raises(pdt.OutOfMemoryError) as e:
        x * 2
    msg = str(e.value)
    assert "cuda:0" in msg and "tried to allocate" in msg and "cudaErrorMemoryAllocation" in msg
    assert isinstance(e.value, RuntimeError)


def test_one_failed_allocation_is_retried_after_trimming_the_pool(faults):
    x = pdt.from_numpy(np.arange(1000, dtype=np.float32)).to("cuda")
    fired = faults.injected(ALLOC)
    faults.arm(ALLOC, 1, 1)
    y = x * 2
    assert faults.injected(ALLOC) == fired + 1
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(1000, dtype=np.float32) * 2)


# float32 matmul is all cuBLAS, cat of contiguous tensors all copies
LAUNCHING = [o for o in OPS if o[0] not in ("matmul", "cat")]


@pytest.mark.parametrize("name,arrays,op,ref", LAUNCHING, ids=[o[0] for o in LAUNCHING])
def test_a_failed_kernel_launch_in_an_op(faults, name, arrays, op, ref):
    _sweep(faults, "cudaLaunchKernel", 1, name, arrays, op, ref, RuntimeError)


def test_a_failed_launch_leaves_an_in_place_op_undone(faults):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = pdt.from_numpy(a).to("cuda")
    fired = faults.injected("cudaLaunchKernel")
    faults.arm("cudaLaunchKernel")
    with pytest.raises(RuntimeError, match="cudaErrorLaunchOutOfResources"):
        x.add_(1.5)
    assert faults.injected("cudaLaunchKernel") == fired + 1
    np.testing.assert_array_equal(x.cpu().numpy(), a)
    x.add_(1.5)
    np.testing.assert_array_equal(x.cpu().numpy(), a + 1.5)


def test_pinned_host_memory_failure(faults):
    t = pdt.from_numpy(np.arange(10, dtype=np.float32))
    before = pdt.memory_allocated("cpu")
    fired = faults.injected("cudaHostAlloc")
    faults.arm("cudaHostAlloc")
    with pytest.raises(pdt.OutOfMemoryError, match="cudaHostAlloc"):
        t.pin_memory()
    assert faults.injected("cudaHostAlloc") == fired + 1
    assert pdt.memory_allocated("cpu") == before
    p = t.pin_memory()
    assert p.is_pinned()
    np.testing.assert_array_equal(p.numpy(), np.arange(10, dtype=np.float32))


def test_event_creation_failure(faults):
    e = pdt.cuda.Event()  # made on the device when first recorded
    fired = faults.injected("cudaEventCreate")
    faults.arm("cudaEventCreate")
    with pytest.raises(RuntimeError, match="cudaEventCreate"):
        e.record()
    assert faults.injected("cudaEventCreate") == fired + 1
    e.record()
    e.synchronize()
    assert e.query()


@pytest.mark.parametrize("api", ["cudaEventCreate", ALLOC])
def test_a_failed_peer_copy_frees_its_destination(faults, api):
    """cuda:0 -> cuda:1 orders the two streams with two events (cuda_copy_peer) into a
    new tensor on cuda:1: any failure frees that tensor."""
    if (pdt.cuda.device_count() < 2
            or len(set(pdt._C._logical_device_map(pdt._C._KIND_CUDA)[:2])) != 2):
        pytest.skip("needs cuda:0 and cuda:1 on 2 emulated GPUs (PYDEVTENSOR_EMULATED_DEVICES=2)")
    a = np.arange(1000, dtype=np.float32)
    x = pdt.from_numpy(a).to("cuda:0")
    pdt.cuda.synchronize("cuda:0")
    gc.collect()
    before = [pdt.cuda.memory_allocated(d) for d in (0, 1)]
    failed = 0
    for nth in range(1, 16):
        fired = faults.injected(api)
        faults.arm(api, nth, 2)
        y = None
        try:
            y = x.to("cuda:1")
        except RuntimeError:
            failed += 1
        finally:
            faults.disarm()
        if y is None:
            assert [pdt.cuda.memory_allocated(d) for d in (0, 1)] == before, nth
            continue
        np.testing.assert_array_equal(y.cpu().numpy(), a)
        del y
        if faults.injected(api) == fired:
            break
    assert failed >= 1
    np.testing.assert_array_equal(x.to("cuda:1").cpu().numpy(), a)


def test_staging_buffers_failure_falls_back_to_the_driver():
    """A pageable copy too large for the driver's own staging takes the device's pinned
    staging buffers, made on first use; without pinned memory the copy goes through
    the driver instead, and the result is the same."""
    for api in ("cudaHostAlloc", "cudaEventCreate"):
        out = _child("""
            a = np.arange(3 << 20, dtype=np.float32)
            x = pdt.zeros(a.shape, device="cuda")
            before = pdt.cuda.memory_allocated()
            arm(%r)
            x.copy_(pdt.from_numpy(a))
            y = x.cpu().numpy()
            assert np.array_equal(y, a)
            assert pdt.cuda.memory_allocated() == before
            print(injected(%r))
        """ % (api, api))
        assert out.split() == ["1"], (api, out)


@pytest.mark.parametrize("api,nth", [("cudaHostAlloc", 1), ("cudaEventCreate", 3)])
def test_no_index_check_ring_still_checks_indices(api, nth):
    """The ring of index checks (cuda_index_check.cu) needs mapped pinned memory and
    events, made on first use; without them a gather still works and a bad index is
    still an IndexError."""
    out = _child("""
        a = np.arange(20, dtype=np.float32)
        x = pdt.from_numpy(a).to("cuda")
        i = pdt.from_numpy(np.array([4, 0, 19])).to("cuda")
        bad = pdt.from_numpy(np.array([4, 20])).to("cuda")
        arm(%r, %d)
        assert np.array_equal(x[i].cpu().numpy(), a[[4, 0, 19]])
        try:
            x[bad].cpu()
            pdt.cuda.synchronize()
        except IndexError as e:
            assert "20" in str(e), str(e)
        else:
            raise AssertionError("no IndexError")
        assert np.array_equal(x[i].cpu().numpy(), a[[4, 0, 19]])
        print(injected(%r))
    """ % (api, nth, api))
    assert out.split() == ["1"]


def test_cublas_handle_failure_raises_and_the_next_matmul_works():
    """cublasCreate failing once is retried after the pool is trimmed (pdt_cublas_create);
    failing twice is an OutOfMemoryError (CUBLAS_STATUS_ALLOC_FAILED), and the handle is
    made by the next matmul."""
    out = _child("""
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        x = pdt.from_numpy(a).to("cuda")
        before = pdt.cuda.memory_allocated()
        arm("cublasCreate", 1, 2)
        try:
            x @ x.t()
        except pdt.OutOfMemoryError as e:
            assert "on cuda:0: cublasCreate returned CUBLAS_STATUS_ALLOC_FAILED" in str(e), str(e)
        else:
            raise AssertionError("no error")
        assert pdt.cuda.memory_allocated() == before
        assert np.array_equal(x.cpu().numpy(), a)
        y = (x @ x.t()).cpu().numpy()
        assert np.allclose(y, a.astype(np.float64) @ a.T.astype(np.float64))
        print(injected("cublasCreate"))
    """)
    assert out.split() == ["2"]
    out = _child("""
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        x = pdt.from_numpy(a).to("cuda")
        arm("cublasCreate", 1, 1)
        y = (x @ x.t()).cpu().numpy()
        assert np.allclose(y, a.astype(np.float64) @ a.T.astype(np.float64))
        print(injected("cublasCreate"))
    """)
    assert out.split() == ["1"]


def test_cusolver_handle_failure_raises_and_the_next_solve_works():
    out = _child("""
        a = np.array([[4.0, 1.0], [1.0, 3.0]])
        x = pdt.from_numpy(a).to("cuda")
        before = pdt.cuda.memory_allocated()
        arm("cusolverDnCreate", 1, 2)
        try:
            pdt.linalg.cholesky(x)
        except pdt.OutOfMemoryError as e:
            assert "on cuda:0: cusolverDnCreate returned CUSOLVER_STATUS_ALLOC_FAILED" in str(e), \
                str(e)
        else:
            raise AssertionError("no error")
        assert pdt.cuda.memory_allocated() == before
        got = pdt.linalg.cholesky(x).cpu().numpy()
        assert np.allclose(got, np.linalg.cholesky(a))
        print(injected("cusolverDnCreate"))
    """)
    assert out.split() == ["2"]


def test_nccl_init_failure_raises_and_the_next_all_reduce_works():
    out = _child("""
        if pdt.device_count() < 2 or not pdt._C._nccl_available():
            print("skip")
            raise SystemExit
        a = pdt.from_numpy(np.arange(6, dtype=np.float32)).to("cuda:0")
        b = pdt.from_numpy(np.full(6, 10, dtype=np.float32)).to("cuda:1")
        arm("ncclCommInitAll")
        try:
            pdt._C._allreduce_sum([a, b])
        except RuntimeError as e:
            assert "ncclCommInitAll" in str(e), str(e)
        else:
            raise AssertionError("no error")
        assert np.array_equal(a.cpu().numpy(), np.arange(6))
        assert np.array_equal(b.cpu().numpy(), np.full(6, 10))
        pdt._C._allreduce_sum([a, b])
        assert np.array_equal(a.cpu().numpy(), np.arange(6) + 10)
        assert np.array_equal(b.cpu().numpy(), np.arange(6) + 10)
        print(injected("ncclCommInitAll"))
    """, {"PYDEVTENSOR_EMULATED_DEVICES": "2"})
    if out.split() == ["skip"]:
        pytest.skip("needs 2 emulated devices and the emulated NCCL")
    assert out.split() == ["1"]


def test_the_environment_variable_arms_a_fault():
    out = _child("""
        x = pdt.from_numpy(np.ones(8, np.float32)).to("cuda")
        try:
            x + 1
        except pdt.OutOfMemoryError:
            print("oom", injected("cudaMallocFromPoolAsync"))
        (x + 1).cpu()
    """, {"PYDEVTENSOR_EMULATED_FAIL": "cudaMallocFromPoolAsync:2:2"})
    assert out.split() == ["oom", "2"]
