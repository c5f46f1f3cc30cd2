"""The device-generic names (pydevtensor/accelerator.py, pydevtensor/_streams.py):
torch.accelerator over pydevtensor.cuda, torch.Stream / torch.Event (cuda's on a CUDA
device, PyTorch's CPU ones on the CPU) and torch.get_device_module.  Three machines: a
build without CUDA (no accelerator), a CUDA build without a usable GPU (an accelerator
that cannot be used) and one with a GPU (the cuda tests)."""
import re
import warnings

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE

A = pdt.accelerator
BUILT = pdt.cuda.is_built()


def test_the_accelerator_is_cuda_in_a_cuda_build():
    assert A.current_accelerator() == (pdt.device("cuda") if BUILT else None)
    assert A.current_accelerator(check_available=True) == (
        pdt.device("cuda") if CUDA_AVAILABLE else None)
    assert A.is_available() is CUDA_AVAILABLE
    assert A.device_count() == pdt.cuda.device_count()
    assert (A.device_count() > 0) is CUDA_AVAILABLE
    assert pdt.get_device_module() is (pdt.cuda if BUILT else pdt.cpu)


def test_logical_cpu_devices_are_not_accelerators():
    # the CPU split in two (in a child: the split is for the process's life)
    import subprocess
    import sys
    code = ("import pydevtensor as pdt; c = pdt.config; "
            "cpu = c.list_physical_devices('CPU')[0]; "
            "c.set_logical_device_configuration(cpu, [c.LogicalDeviceConfiguration()] * 2); "
            "print(pdt.cpu.device_count(), pdt.accelerator.device_count(), "
            "pdt.accelerator.device_count() == pdt.cuda.device_count(), "
            "pdt.accelerator.current_accelerator() is None or "
            "pdt.accelerator.current_accelerator().type == 'cuda')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["2", str(pdt.cuda.device_count()), "True", "True"]


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the machine without a usable GPU")
def test_without_a_gpu_the_reports_are_empty_and_the_rest_says_why():
    assert A.memory_allocated() == A.max_memory_allocated() == 0
    assert A.memory_reserved() == A.max_memory_reserved() == 0
    assert A.memory_stats() == {} and A.memory_allocated("cpu") == 0  # as PyTorch's
    assert A.empty_cache() is None and A.reset_peak_memory_stats() is None
    assert A.reset_accumulated_memory_stats() is None
    assert A.synchronize(0) is None  # PyTorch's: nothing was queued
    A.set_device_index(-1)
    with A.device_index(None), A.device_index(-1):
        pass
    why = re.escape("no accelerator can be used: " + pdt.cuda.unavailable_reason())
    for f in (A.current_device_index, A.synchronize, A.current_stream, A.get_memory_info):
        with pytest.raises(pdt.DeviceError, match=why):
            f()
    with pytest.warns(FutureWarning, match="current_device_index"):
        with pytest.raises(pdt.DeviceError, match=why):
            A.current_device_idx()
    with pytest.raises(pdt.DeviceError, match=why):
        with A.device_index(0):
            pass
    with pytest.raises(pdt.DeviceError, match="cuda:0 unknown device"):
        A.set_device_index(0)
    with pytest.raises(pdt.DeviceError, match="cuda:0 unknown device"):
        A.get_memory_info(0)


@pytest.mark.skipif(not BUILT, reason="needs a CUDA build (an accelerator type)")
def test_a_device_of_another_type_is_refused():
    for f in (A.set_device_index, A.synchronize, A.current_stream, A.get_memory_info):
        with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda"):
            f("cpu")
    with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda"):
        A.set_stream(pdt.Stream("cpu"))


@pytest.mark.skipif(BUILT, reason="checks a build without CUDA")
def test_without_an_accelerator_a_device_is_refused():
    for f in (A.set_device_index, A.synchronize, A.current_stream):
        with pytest.raises(pdt.DeviceError, match="no accelerator can be used: pydevtensor "
                                                  "was built without CUDA"):
            f("cpu")
    assert pdt.Stream().device == pdt.Event().device == pdt.device("cpu")


def test_the_arguments_are_checked():
    with pytest.raises(ValueError, match="expected a device with an index or an int, got None"):
        A.set_device_index(None)
    with pytest.raises(TypeError, match="expected an int or None, got str"):
        A.device_index("cuda:0")
    with pytest.raises(TypeError, match="expected a Stream, got int"):
        A.set_stream(1)
    with pytest.raises(TypeError, match="expected a device, a device string, an index or "
                                        "None, got float"):
        A.synchronize(1.5)
    with pytest.raises(TypeError, match="Event\\(\\): enable_timing must be a bool, got int"):
        pdt.Event("cpu", enable_timing=1)
    with pytest.raises(TypeError, match="Stream\\(\\): device must be a device"):
        pdt.Stream(1.5)
    with pytest.raises(RuntimeError, match="invalid value of device 0"):
        pdt.get_device_module(0)


def test_stream_and_event_on_the_cpu_are_pytorchs():
    s, e = pdt.Stream("cpu"), pdt.Event(device=pdt.device("cpu"), enable_timing=True)
    assert isinstance(s, pdt.Stream) and isinstance(e, pdt.Event)
    assert s.device == e.device == pdt.device("cpu") and s == pdt.Stream(device="cpu")
    assert hash(s) == hash(pdt.Stream("cpu"))
    with s as entered:
        y = pdt.ones(3) * 2
    assert entered is s and y.tolist() == [2.0, 2.0, 2.0]
    assert s.query() is True and s.synchronize() is None and s.wait_event(e) is None
    assert e.query() is True and e.synchronize() is None and e.wait() is None
    assert e.wait(s) is None
    for f in (s.record_event, e.record, lambda: s.wait_stream(s), lambda: e.record(s)):
        with pytest.raises(RuntimeError, match="the CPU has no events"):
            f()
    with pytest.raises(ValueError, match="both events must be recorded"):
        e.elapsed_time(pdt.Event("cpu"))
    with pytest.raises(TypeError, match="expected an Event, got Stream"):
        s.wait_event(s)
    with pytest.raises(pdt.DeviceError, match="cpu:1 unknown device"):
        pdt.Stream("cpu:1")


def test_get_device_module(device):
    mod = pdt.get_device_module(device)
    assert mod is (pdt.cuda if device.type == "cuda" else pdt.cpu)
    assert pdt.get_device_module(str(device)) is mod
    x = pdt.ones(4, device=device) * 3
    mod.synchronize(device)  # the device-agnostic pattern: wait for x on its device
    assert x.sum().item() == 12.0


def test_stream_on_a_cuda_device_is_cudas_one_stream():
    # as cuda.Stream(): pydevtensor makes no other stream (also without a GPU)
    with pytest.raises(RuntimeError, match="one stream per device"):
        pdt.Stream("cuda")
    assert issubclass(pdt.cuda.Stream, pdt.Stream) and issubclass(pdt.cuda.Event, pdt.Event)


@pytest.mark.cuda
def test_accelerator_devices_and_streams():
    last = A.device_count() - 1
    assert A.current_device_index() == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FutureWarning, match="current_device_index"):
            A.current_device_idx()
    with A.device_index(last):
        assert A.current_device_index() == last == pdt.cuda.current_device()
        assert pdt.ones(1, device="cuda").device == pdt.device("cuda", last)
        assert A.current_stream() == pdt.cuda.current_stream(last)
    assert A.current_device_index() == 0
    A.set_device_index(f"cuda:{last}")
    try:
        assert pdt.cuda.current_device() == last
        A.set_device_index(-1)  # does nothing
        assert pdt.cuda.current_device() == last
    finally:
        A.set_device_index(0)
    A.set_stream(A.current_stream(last))
    try:
        assert A.current_device_index() == last
    finally:
        A.set_stream(A.current_stream(0))
    with pytest.warns(FutureWarning, match="set_device_index"):
        A.set_device_idx(0)
    assert A.current_device_index() == 0
    with pytest.raises(pdt.DeviceError, match="cuda:63 unknown device"):
        A.set_device_index(63)


@pytest.mark.cuda
def test_accelerator_synchronize_memory_and_events():
    last = A.device_count() - 1
    dev = pdt.device("cuda", last)
    A.synchronize(last)
    A.reset_peak_memory_stats(dev)
    before = A.memory_allocated(last)
    x = pdt.ones(1 << 16, device=dev)  # 256 KiB of float32
    start, end = pdt.Event(dev, enable_timing=True), pdt.Event(dev, enable_timing=True)
    assert isinstance(start, pdt.cuda.Event) and isinstance(start, pdt.Event)
    start.record(A.current_stream(last))
    y = x * 2
    end.record(A.current_stream(last))
    A.synchronize(dev)
    assert end.query() is True and start.elapsed_time(end) >= 0
    assert A.memory_allocated(last) - before >= 2 * (1 << 18)
    assert A.max_memory_allocated(last) >= A.memory_allocated(last)
    assert A.memory_reserved(last) >= A.memory_allocated(last)
    assert A.memory_stats(last) == pdt.cuda.memory_stats(last)
    free, total = A.get_memory_info(last)
    assert 0 <= free <= total and total > 0
    assert A.max_memory_reserved(last) >= A.memory_reserved(last)
    A.reset_accumulated_memory_stats(last)
    with pytest.raises(pdt.DeviceError, match="cuda:63 unknown device"):
        A.reset_accumulated_memory_stats(63)
    del x, y
    A.empty_cache()
    assert pdt.get_device_module(dev) is pdt.cuda and pdt.get_device_module() is pdt.cuda
