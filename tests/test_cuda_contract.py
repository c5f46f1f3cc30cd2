"""What the CUDA backend promises the CUDA runtime and the other libraries of the process:
the thread's current device is left as it was (Note [device guard] in cuda_ops.h),
foreign memory goes back to its producer only after our stream is done with it (Note
[releasing foreign memory] in pdt_tensor.c), scratch memory is ours and counted (Note
[reduction scratch] in cuda_reduce.cu), and Event(enable_timing=False) makes a CUDA event
without timing.  The checks that call the CUDA runtime directly run on the emulated
device, whose runtime library is reachable with ctypes (conftest.emulated_cudart)."""
import ctypes
import os
import subprocess
import sys
import textwrap

import pytest

import pydevtensor as pdt
from conftest import emulated_cudart

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def current_device(rt):
    d = ctypes.c_int(-1)
    assert rt.cudaGetDevice(ctypes.byref(d)) == 0
    return d.value


def every_kind_of_entry_point(dev, other):
    """One call of each backend entry point that makes a device current, on dev."""
    x = pdt.ones((16, 32), device=dev)                     # alloc, fill
    y = pdt.arange(32 * 8, dtype=pdt.float32, device=dev).reshape(32, 8)  # arange
    z = (x * 2 + 1).relu()                                 # binary, unary
    s = z.sum(1)                                           # reduce
    m = z @ y                                              # gemm (cuBLAS)
    i = pdt.ones((4, 4), dtype=pdt.int64, device=dev) @ pdt.ones((4, 4), dtype=pdt.int64,
                                                                  device=dev)  # gemm, tiled
    r = pdt.rand(64, device=dev)                           # random
    c = x.to(other).to(dev)                                # peer copies both ways
    h = m.cpu()                                            # device to host
    e = pdt.cuda.Event()
    e.record()                                             # events
    _ = x.__cuda_array_interface__                         # stream handle
    x.__dlpack__(stream=1)                                 # stream wait
    pdt.cuda.mem_get_info(dev)
    pdt.cuda.synchronize(dev)
    return s, i, r, c, h


@pytest.mark.cuda
def test_ops_restore_the_threads_current_device():
    """After ops on cuda:1 the thread's current CUDA device is still the one it chose, so
    PyTorch or CuPy on the same thread allocate where they should (Note [device guard])."""
    rt = emulated_cudart()
    physical = ctypes.c_int(0)
    rt.cudaGetDeviceCount(ctypes.byref(physical))
    if pdt.cuda.device_count() < 2 or physical.value < 2:
        pytest.skip("needs 2 physical CUDA devices (PYDEVTENSOR_EMULATED_DEVICES=2, no split)")
    before = current_device(rt)
    try:
        for chosen, dev, other in ((0, "cuda:1", "cuda:0"), (1, "cuda:0", "cuda:1")):
            assert rt.cudaSetDevice(chosen) == 0
            every_kind_of_entry_point(dev, other)
            assert current_device(rt) == chosen, f"ops on {dev} left device {current_device(rt)}"
            with pytest.raises(Exception):
                pdt.ones((1,), device=dev) @ pdt.ones((2,), device=dev)  # a failing op
            assert current_device(rt) == chosen
    finally:
        rt.cudaSetDevice(before)


PRODUCER = """
import ctypes, os
import numpy as np
import pydevtensor as pdt
rt = ctypes.CDLL(os.path.join(os.path.dirname(pdt.__file__), '_emulated_cuda',
                              'libpdt_cudart_emu.so'))
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaFree.argtypes = [ctypes.c_void_p]
rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
H2D = 1

class Producer:
    '''Another library's array: n float32 ones in device memory of its own, which it
    reuses (overwrites with zeros) and frees as soon as its last reference goes.'''
    def __init__(self, n):
        self.n, self.ptr = n, ctypes.c_void_p()
        assert rt.cudaMalloc(ctypes.byref(self.ptr), 4 * n) == 0
        ones = np.ones(n, np.float32)
        assert rt.cudaMemcpy(self.ptr, ones.ctypes.data, 4 * n, H2D) == 0
        self.__cuda_array_interface__ = {
            'shape': (n,), 'typestr': '<f4', 'data': (self.ptr.value, False), 'version': 3}

    def __del__(self):
        zeros = np.zeros(self.n, np.float32)
        rt.cudaMemcpy(self.ptr, zeros.ctypes.data, 4 * self.n, H2D)
        rt.cudaFree(self.ptr)
"""


@pytest.mark.cuda
def test_foreign_memory_is_released_after_our_stream():
    """A sum queued on our stream reads imported memory; dropping the tensor right away
    hands the memory back, and the producer overwrites and frees it.  The sum must still
    see the producer's data: the release waits for our stream.  Without that wait the
    emulator runs the sum only at .item(), after the memory was overwritten (a wrong sum)
    or freed (the emulator aborts), hence the subprocess."""
    emulated_cudart()
    code = PRODUCER + textwrap.dedent("""
        for how in ('cai', 'dlpack'):
            p = Producer(1 << 14)
            t = pdt.as_tensor(p)
            if how == 'dlpack':  # imported again through a DLPack capsule of ours
                t = pdt.from_dlpack(t.__dlpack__(stream=-1))
            assert t.device.type == 'cuda'
            s = t.sum()        # queued on our stream, not run yet
            del t, p           # the last reference: the producer's memory goes back
            print(how, s.item())
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["cai", "16384.0", "dlpack", "16384.0"], proc.stdout


@pytest.mark.cuda
def test_reduction_scratch_is_counted_and_given_back():
    """sum(0) of a (4096, 2) matrix splits each column (Note [CUDA reduction shapes]): the
    partial results come from our pool and show in the peak, then are freed."""
    x = pdt.ones((4096, 2), device="cuda")
    pdt.cuda.synchronize()
    before = pdt.cuda.memory_allocated("cuda")
    pdt.cuda.reset_peak_memory_stats("cuda")
    y = x.sum(0)
    assert y.cpu().tolist() == [4096.0, 4096.0]
    peak = pdt.cuda.max_memory_allocated("cuda") - before
    assert peak > y.nbytes, "the reduction's scratch memory was not counted"
    assert pdt.cuda.memory_allocated("cuda") - before == y.nbytes


@pytest.mark.cuda
def test_reduction_scratch_respects_the_memory_limit():
    """A limit that leaves room for the result but not for the scratch memory: the
    reduction fails with OutOfMemoryError and everything keeps working."""
    code = textwrap.dedent("""
        import pydevtensor as pdt
        from pydevtensor import config as c
        gpu = c.list_physical_devices('GPU')[0]
        c.set_logical_device_configuration(gpu, [c.LogicalDeviceConfiguration(1)])  # 1 MiB
        x = pdt.ones((64 * 1024, 2), device='cuda:0')   # 512 KiB
        pad = pdt.empty((1024 * 1024 - 512 * 1024 - 8,), dtype=pdt.bool, device='cuda:0')
        try:
            x.sum(0)
            print('no error')
        except pdt.OutOfMemoryError as e:
            print('oom')
        del pad
        print(x.sum(0).cpu().tolist())
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["oom", "[65536.0, 65536.0]"], proc.stdout


@pytest.mark.cuda
def test_event_without_timing_is_a_cuda_event_without_timing():
    """enable_timing=False gives cudaEventDisableTiming: CUDA refuses to time it
    (cudaEventElapsedTime returns cudaErrorInvalidResourceHandle), and elapsed_time says
    why before asking CUDA."""
    rt = emulated_cudart()
    fast = [pdt.cuda.Event(enable_timing=False) for _ in range(2)]
    timed = [pdt.cuda.Event(enable_timing=True) for _ in range(2)]
    for e in fast + timed:
        assert e.cuda_event == 0  # created on its first record, as torch.cuda.Event
        e.record()
        assert e.cuda_event != 0
    for e in fast + timed:
        e.synchronize()
    ms = ctypes.c_float()
    assert rt.cudaEventElapsedTime(ctypes.byref(ms), timed[0].cuda_event, timed[1].cuda_event) == 0
    assert rt.cudaEventElapsedTime(ctypes.byref(ms), fast[0].cuda_event, fast[1].cuda_event) != 0
    rt.cudaGetLastError()
    with pytest.raises(ValueError, match="enable_timing=True"):
        fast[0].elapsed_time(fast[1])
    assert timed[0].elapsed_time(timed[1]) >= 0


@pytest.mark.cuda
def test_event_has_its_handle():
    e = pdt.cuda.Event(enable_timing=False, device="cuda")  # device=: created now
    assert isinstance(e.cuda_event, int) and e.cuda_event != 0
    assert "timing enabled" not in repr(e) and "on cuda:" in repr(e)
