"""More of the CUDA backend's error paths through the emulator's fault injection (Note
[fault injection] in csrc/cuda/emulator/emu_faults.cpp): device initialisation
(cudaGetDeviceCount, cudaSetDevice, cudaGetDeviceProperties), stream creation, copies
(cudaMemcpyAsync and the peer copies, and a sticky cudaErrorLaunchFailure that a copy
reports), peer access, ncclCommInitRank, cublasSetStream, cuBLAS GEMMs and cuSOLVER's
compute calls.  test_emulated_faults.py has the allocations, launches and handles.

What every failure must leave, as there: an exception that names the call and the
device (cuda:N), inputs unchanged, memory_allocated back where it was, and a device on
which the next op works; after a sticky error, a message that says the device must be
reset, from that op and every later one.

Runs only in the emulated build (``PYDEVTENSOR_CUDA=emulate``).
"""
import gc

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES
from emulated_faults_support import EMULATED_ONLY, OPS, _child, _sweep

pytestmark = EMULATED_ONLY
CHUNK = 1 << 20  # floats in a staging buffer (CUDA_STAGING_BYTES)


def _name(logical):
    """How a backend message names logical device `logical`: as the first logical
    device of its GPU (a split GPU's cuda:1 is cuda:0's GPU)."""
    phys = pdt._C._logical_device_map(pdt._C._KIND_CUDA)
    return f"cuda:{phys.index(phys[logical])}"


def _two_gpus():
    phys = pdt._C._logical_device_map(pdt._C._KIND_CUDA)
    if pdt.cuda.device_count() < 2 or len(set(phys[:2])) != 2:
        pytest.skip("needs cuda:0 and cuda:1 on 2 emulated GPUs (PYDEVTENSOR_EMULATED_DEVICES=2)")


def test_the_hook_knows_the_new_names(faults):
    for api in ("cudaGetDeviceCount", "cudaSetDevice", "cudaGetDeviceProperties",
                "cudaStreamCreate", "cudaMemcpyAsync", "cudaMemcpyAsync/sticky",
                "cudaDeviceEnablePeerAccess", "ncclCommInitRank", "cublasSetStream",
                "cublasGemm", "cusolverDn"):
        assert faults.lib.pdtEmuFailCall(api.encode(), 1, 1) == 0, api
    faults.disarm()


def test_device_count_failure_leaves_cuda_unavailable_with_the_reason():
    out = _child("""
        assert not pdt.cuda.is_available()
        reason = pdt.cuda.unavailable_reason()
        assert "cudaErrorInitializationError" in reason, reason
        try:
            pdt.zeros(3, device="cuda")
        except RuntimeError as e:
            assert "cudaErrorInitializationError" in str(e), str(e)
        else:
            raise AssertionError("no error")
        print(injected("cudaGetDeviceCount"))
    """, {"PYDEVTENSOR_EMULATED_FAIL": "cudaGetDeviceCount:1"})
    assert out.split() == ["1"]


def test_set_device_failure_names_the_device(faults):
    _two_gpus()
    a = np.arange(10, dtype=np.float32)
    x = pdt.from_numpy(a).to("cuda:1")
    pdt.cuda.synchronize("cuda:1")
    gc.collect()
    before = pdt.cuda.memory_allocated("cuda:1")
    fired = faults.injected("cudaSetDevice")
    faults.arm("cudaSetDevice")
    with pytest.raises(RuntimeError) as e:
        x * 2
    faults.disarm()
    assert faults.injected("cudaSetDevice") == fired + 1
    msg = str(e.value)
    assert "cuda:1" in msg and "cudaSetDevice" in msg and "cudaErrorDevicesUnavailable" in msg, msg
    assert pdt.cuda.memory_allocated("cuda:1") == before
    np.testing.assert_array_equal((x * 2).cpu().numpy(), a * 2)


def test_device_properties_failure(faults):
    fired = faults.injected("cudaGetDeviceProperties")
    faults.arm("cudaGetDeviceProperties")
    with pytest.raises(RuntimeError) as e:
        pdt.cuda.get_device_properties(0)
    faults.disarm()
    assert faults.injected("cudaGetDeviceProperties") == fired + 1
    msg = str(e.value)
    assert "cudaGetDeviceProperties" in msg and _name(0) in msg, msg
    assert pdt.cuda.get_device_properties(0).total_memory > 0


def test_stream_creation_failure_on_first_use_of_a_device():
    """The device's stream is made on its first use: a failure there fails that op,
    holds no memory, and the next op sets the device up."""
    out = _child("""
        arm("cudaStreamCreate")
        try:
            pdt.ones(4, device="cuda")
        except RuntimeError as e:
            msg = str(e)
            assert "cudaStreamCreateWithFlags" in msg and "cudaErrorInvalidValue" in msg, msg
            assert "cuda:0" in msg, msg
        else:
            raise AssertionError("no error")
        assert pdt.cuda.memory_allocated() == 0
        assert np.array_equal(pdt.ones(4, device="cuda").cpu().numpy(), np.ones(4))
        print(injected("cudaStreamCreate"))
    """)
    assert out.split() == ["1"]


def _copies(dev):
    """(name, make the source (not counted), the copy) for each kind of copy on dev."""
    small = np.arange(1000, dtype=np.float32)
    big = np.arange(3 << 20, dtype=np.float32)  # past CUDA_SMALL_COPY: the staging buffers
    return [
        ("h2d", lambda: pdt.from_numpy(small), lambda s: s.to(dev), small),
        ("h2d_staged", lambda: pdt.from_numpy(big), lambda s: s.to(dev), big),
        ("h2d_pinned", lambda: pdt.from_numpy(small).pin_memory(),
         lambda s: s.to(dev, non_blocking=True), small),
        ("d2h", lambda: pdt.from_numpy(small).to(dev), lambda s: s.cpu(), small),
        ("d2h_staged", lambda: pdt.from_numpy(big).to(dev), lambda s: s.cpu(), big),
        ("d2d", lambda: pdt.from_numpy(small).to(dev), lambda s: s.clone(), small),
    ]


@pytest.mark.parametrize("device_cuda", CUDA_DEVICES)
@pytest.mark.parametrize("kind", [c[0] for c in _copies("cuda")])
def test_a_failed_copy(faults, device_cuda, kind):
    name, make, copy, want = next(c for c in _copies(device_cuda) if c[0] == kind)
    src = make()
    pdt.cuda.synchronize(device_cuda)
    gc.collect()
    before = pdt.cuda.memory_allocated(device_cuda)
    failed = 0
    for nth in range(1, 8):
        fired = faults.injected("cudaMemcpyAsync")
        faults.arm("cudaMemcpyAsync", nth)
        out = None
        try:
            out = copy(src)
            pdt.cuda.synchronize(device_cuda)
        except RuntimeError as e:
            msg = str(e)
            assert "cudaMemcpy" in msg and "cudaErrorInvalidValue" in msg, msg
            assert _name(pdt.device(device_cuda).index) in msg, msg
            failed += 1
        finally:
            faults.disarm()
        if out is None:
            assert pdt.cuda.memory_allocated(device_cuda) == before, (name, nth)
            np.testing.assert_array_equal(src.cpu().numpy(), want)
            continue
        np.testing.assert_array_equal(out.cpu().numpy(), want)
        del out
        if faults.injected("cudaMemcpyAsync") == fired:
            break
    assert failed >= 1
    np.testing.assert_array_equal(copy(src).cpu().numpy(), want)


# 1000 floats: one driver call; 3 Mi floats (12 MiB): three 4 MiB staging chunks into a
# scratch buffer, then one device-to-device copy (Note [whole pageable copies]).
def _fail_each_call_of_copy_(faults, x, src, old, new, check=lambda: None):
    """x.copy_(src) with its 1st, 2nd, ... cudaMemcpyAsync failing in turn until a copy_
    runs with no fault: after each failure x holds old (and check() holds), after a copy
    that works x holds new and is set back to old.  Returns the number of failures."""
    failed = 0
    for nth in range(1, 20):
        fired = faults.injected("cudaMemcpyAsync")
        faults.arm("cudaMemcpyAsync", nth)
        try:
            x.copy_(src)
        except RuntimeError as e:
            assert "cudaMemcpy" in str(e), str(e)
            failed += 1
            np.testing.assert_array_equal(x.cpu().numpy(), old, err_msg=f"call {nth}")
            check()
            continue
        finally:
            faults.disarm()
        np.testing.assert_array_equal(x.cpu().numpy(), new)
        check()
        x.copy_(pdt.from_numpy(old))
        if faults.injected("cudaMemcpyAsync") == fired:
            return failed
    raise AssertionError("copy_ still failed at its 19th call")


@pytest.mark.parametrize("n", [1000, 3 << 20], ids=["driver", "staged"])
def test_a_failed_copy_into_a_device_tensor(faults, n):
    """copy_ from pageable host memory: whichever cudaMemcpyAsync fails, the tensor keeps
    its old contents and the scratch buffer is given back."""
    dev = CUDA_DEVICES[0]
    old = np.zeros(n, dtype=np.float32)
    x = pdt.from_numpy(old).to(dev)
    pdt.cuda.synchronize(dev)
    before = pdt.cuda.memory_allocated(dev)

    def same_memory():
        pdt.cuda.synchronize(dev)
        assert pdt.cuda.memory_allocated(dev) == before

    new = np.arange(n, dtype=np.float32)
    failed = _fail_each_call_of_copy_(faults, x, pdt.from_numpy(new), old, new, same_memory)
    # the staged copy: 3 chunks and the move into x (4 calls), each failed once
    assert failed == (4 if n == 3 << 20 else 1)


# 1000 floats: one driver call; 3 Mi + 5 floats: four staging chunks (the last of 20 bytes),
# each drained into the tensor after the next one's DMA was enqueued (Note [whole pageable
# copies]: the tensor's old bytes are saved before each drain and put back on failure).
@pytest.mark.parametrize("device_cuda", CUDA_DEVICES)
@pytest.mark.parametrize("n", [1000, (3 << 20) + 5], ids=["driver", "staged"])
def test_a_failed_copy_into_a_host_tensor(faults, device_cuda, n):
    """cpu_tensor.copy_(cuda_tensor) into pageable memory: whichever cudaMemcpyAsync fails,
    the CPU tensor keeps its old contents, and the next copy_ works."""
    old = -np.arange(n, dtype=np.float32)
    new = np.arange(n, dtype=np.float32)
    x = pdt.from_numpy(old.copy())
    src = pdt.from_numpy(new).to(device_cuda)
    pdt.cuda.synchronize(device_cuda)
    assert _fail_each_call_of_copy_(faults, x, src, old, new) == (4 if n > CHUNK else 1)
    x.copy_(src)
    np.testing.assert_array_equal(x.numpy(), new)


def test_a_failed_copy_into_a_host_tensor_past_the_kept_buffer(faults):
    """Past the 64 MiB that each GPU keeps for the saved bytes (Note [whole pageable
    copies]) the copy saves into a buffer of its own: when the last of its 17 chunks
    fails, the 16 drained before it are put back all the same."""
    n = 17 * CHUNK
    dev = CUDA_DEVICES[0]
    x = pdt.from_numpy(-np.arange(n, dtype=np.float32))
    src = pdt.from_numpy(np.arange(n, dtype=np.float32)).to(dev)
    pdt.cuda.synchronize(dev)
    fired = faults.injected("cudaMemcpyAsync")
    faults.arm("cudaMemcpyAsync", 17)
    with pytest.raises(RuntimeError, match="cudaMemcpy"):
        x.copy_(src)
    faults.disarm()
    assert faults.injected("cudaMemcpyAsync") == fired + 1
    np.testing.assert_array_equal(x.numpy(), -np.arange(n, dtype=np.float32))
    x.copy_(src)
    np.testing.assert_array_equal(x.numpy(), np.arange(n, dtype=np.float32))


def test_a_sticky_error_in_a_copy_into_a_host_tensor_leaves_it_whole():
    """A sticky error at the third chunk of cpu_tensor.copy_(cuda_tensor): the device is
    lost, but the CPU tensor stays readable and must hold what it held."""
    out = _child("""
        n = 3 << 20
        x = pdt.from_numpy(-np.arange(n, dtype=np.float32))
        src = pdt.from_numpy(np.arange(n, dtype=np.float32)).to("cuda")
        pdt.cuda.synchronize()
        arm("cudaMemcpyAsync/sticky", 3)
        try:
            x.copy_(src)
        except RuntimeError as e:
            assert "must be reset" in str(e), str(e)
        else:
            raise AssertionError("no error")
        np.testing.assert_array_equal(x.numpy(), -np.arange(n, dtype=np.float32))
        print(injected("cudaMemcpyAsync/sticky"))
    """)
    assert out.split() == ["1"]


def test_a_staged_copy_into_a_device_tensor_needs_one_copy_more():
    """Note [whole pageable copies]: copy_ into an existing tensor holds a scratch copy of
    the bytes on the device while it runs; to() (a fresh result) does not."""
    dev = CUDA_DEVICES[0]
    n = 3 << 20
    new = np.arange(n, dtype=np.float32)
    src = pdt.from_numpy(new)
    x = pdt.empty(n, dtype=pdt.float32, device=dev)
    pdt.cuda.synchronize(dev)
    base = pdt.cuda.memory_allocated(dev)
    pdt.cuda.reset_peak_memory_stats(dev)
    y = src.to(dev)
    assert pdt.cuda.max_memory_allocated(dev) == base + 4 * n
    del y
    pdt.cuda.synchronize(dev)
    pdt.cuda.reset_peak_memory_stats(dev)
    x.copy_(src)
    assert pdt.cuda.max_memory_allocated(dev) == base + 4 * n
    assert pdt.cuda.memory_allocated(dev) == base
    np.testing.assert_array_equal(x.cpu().numpy(), new)


def test_a_staged_copy_without_room_for_its_scratch_goes_through_the_driver(faults):
    """Note [whole pageable copies]: when the scratch buffer cannot be had (the pool's
    allocation fails, and again after the trim), copy_ is one cudaMemcpyAsync from the
    pageable memory: it works, and when that one call fails, the tensor is unchanged."""
    dev = CUDA_DEVICES[0]
    n = 3 << 20
    old = np.zeros(n, dtype=np.float32)
    new = np.arange(n, dtype=np.float32)
    x = pdt.from_numpy(old).to(dev)
    src = pdt.from_numpy(new)
    pdt.cuda.synchronize(dev)
    before = pdt.cuda.memory_allocated(dev)
    alloc = faults.injected("cudaMallocFromPoolAsync")
    copies = faults.injected("cudaMemcpyAsync")
    faults.arm("cudaMallocFromPoolAsync", 1, 2)
    faults.arm("cudaMemcpyAsync", 1)
    with pytest.raises(RuntimeError, match="cudaMemcpy"):
        x.copy_(src)
    faults.disarm()
    assert faults.injected("cudaMallocFromPoolAsync") == alloc + 2
    assert faults.injected("cudaMemcpyAsync") == copies + 1
    np.testing.assert_array_equal(x.cpu().numpy(), old)
    assert pdt.cuda.memory_allocated(dev) == before

    faults.arm("cudaMallocFromPoolAsync", 1, 2)
    x.copy_(src)
    faults.disarm()
    assert faults.injected("cudaMallocFromPoolAsync") == alloc + 4
    np.testing.assert_array_equal(x.cpu().numpy(), new)
    assert pdt.cuda.memory_allocated(dev) == before


def test_a_failed_peer_copy(faults):
    _two_gpus()
    a = np.arange(1000, dtype=np.float32)
    x = pdt.from_numpy(a).to("cuda:0")
    pdt.cuda.synchronize("cuda:0")
    gc.collect()
    before = [pdt.cuda.memory_allocated(d) for d in (0, 1)]
    fired = faults.injected("cudaMemcpyAsync")
    faults.arm("cudaMemcpyAsync")
    with pytest.raises(RuntimeError) as e:
        x.to("cuda:1")
    faults.disarm()
    assert faults.injected("cudaMemcpyAsync") == fired + 1
    msg = str(e.value)
    assert "cudaMemcpyPeerAsync" in msg and "cuda:0" in msg, msg
    assert [pdt.cuda.memory_allocated(d) for d in (0, 1)] == before
    np.testing.assert_array_equal(x.to("cuda:1").cpu().numpy(), a)


def test_peer_access_failure_still_copies():
    """Peer access is best effort (Note [peer copies]): without it the copy is staged
    by the driver, and gives the same result."""
    out = _child("""
        phys = pdt._C._logical_device_map(pdt._C._KIND_CUDA)
        if pdt.cuda.device_count() < 2 or len(set(phys[:2])) != 2:
            print("skip")
            raise SystemExit
        a = np.arange(1000, dtype=np.float32)
        x = pdt.from_numpy(a).to("cuda:0")
        arm("cudaDeviceEnablePeerAccess")
        assert np.array_equal(x.to("cuda:1").cpu().numpy(), a)
        assert np.array_equal(x.to("cuda:1").to("cuda:0").cpu().numpy(), a)
        print(injected("cudaDeviceEnablePeerAccess"))
    """, {"PYDEVTENSOR_EMULATED_DEVICES": "2"})
    if out.split() == ["skip"]:
        pytest.skip("needs 2 emulated GPUs")
    assert out.split() == ["1"]


def test_nccl_comm_init_rank_failure(faults):
    if not pdt._C._nccl_available():
        pytest.skip("needs the emulated NCCL")
    uid = pdt._C._comm_unique_id()
    fired = faults.injected("ncclCommInitRank")
    faults.arm("ncclCommInitRank")
    with pytest.raises(RuntimeError, match="ncclCommInitRank"):
        pdt._C._comm_init("cuda:0", uid, 1, 0)
    faults.disarm()
    assert faults.injected("ncclCommInitRank") == fired + 1
    comm = pdt._C._comm_init("cuda:0", pdt._C._comm_unique_id(), 1, 0)
    assert comm is not None


def test_cublas_set_stream_failure():
    """The handle is bound to the device's stream by its first GEMM."""
    out = _child("""
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        x = pdt.from_numpy(a).to("cuda")
        before = pdt.cuda.memory_allocated()
        arm("cublasSetStream")
        try:
            x @ x.t()
        except RuntimeError as e:
            msg = str(e)
            assert "cuda:0" in msg and "set_stream" in msg, msg
            assert "CUBLAS_STATUS_NOT_INITIALIZED" in msg, msg
        else:
            raise AssertionError("no error")
        assert pdt.cuda.memory_allocated() == before
        assert np.array_equal(x.cpu().numpy(), a)
        y = (x @ x.t()).cpu().numpy()
        assert np.allclose(y, a.astype(np.float64) @ a.T.astype(np.float64))
        print(injected("cublasSetStream"))
    """)
    assert out.split() == ["1"]


def _gemm_ops():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 5, 7))
    b = rng.standard_normal((7, 4))
    return [o for o in OPS if o[0] == "matmul"] + [
        ("matmul_f64", (a[0], b), lambda x, y: x @ y, lambda x, y: x @ y),
        ("matmul_batched", (a.astype(np.float32), b.astype(np.float32)),
         lambda x, y: x @ y, lambda x, y: x @ y),
    ]


GEMMS = _gemm_ops()


@pytest.mark.parametrize("name,arrays,op,ref", GEMMS, ids=[o[0] for o in GEMMS])
def test_a_failed_gemm(faults, name, arrays, op, ref):
    _sweep(faults, "cublasGemm", 1, name, arrays, op, ref, RuntimeError)


# solve_batched factors its small matrices with cuBLAS's getrfBatched, not cuSOLVER
SOLVES = [o for o in OPS if o[0] in ("solve", "inv", "cholesky", "eigvalsh", "svdvals", "det",
                                      "eigh_values", "svd_values", "qr_r")]


@pytest.mark.parametrize("name,arrays,op,ref", SOLVES, ids=[o[0] for o in SOLVES])
def test_a_failed_cusolver_call(faults, name, arrays, op, ref):
    _sweep(faults, "cusolverDn", 1, name, arrays, op, ref, RuntimeError)


def test_cusolver_failure_names_the_call_the_status_and_the_device(faults):
    x = pdt.from_numpy(np.array([[4.0, 1.0], [1.0, 3.0]])).to("cuda")
    pdt.linalg.cholesky(x)  # the handle exists
    faults.arm("cusolverDn")
    with pytest.raises(RuntimeError) as e:
        pdt.linalg.cholesky(x)
    msg = str(e.value)
    assert "CUSOLVER_STATUS_INTERNAL_ERROR" in msg and "cusolverDnDpotrf" in msg, msg
    assert _name(0) in msg, msg


def test_a_sticky_error_says_the_device_must_be_reset():
    """cudaErrorLaunchFailure corrupts the context (Note [sticky CUDA errors]): the op
    that sees it and every later one on the device fail, each saying so; the process
    still ends cleanly."""
    out = _child("""
        a = np.arange(10, dtype=np.float32)
        x = pdt.from_numpy(a).to("cuda")
        arm("cudaMemcpyAsync/sticky")
        for what in ("cpu", "add", "cpu"):
            try:
                (x.cpu() if what == "cpu" else (x + 1).cpu())
            except RuntimeError as e:
                msg = str(e)
                assert "cudaErrorLaunchFailure" in msg and "must be reset" in msg, msg
                assert "cuda:0" in msg, msg
            else:
                raise AssertionError("no error from " + what)
        print(injected("cudaMemcpyAsync/sticky"))
    """)
    assert out.split() == ["1"]
