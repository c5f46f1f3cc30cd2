"""cuda.Event timing (issue 4).  The GPU behaviour is marked cuda; without a usable
GPU, making an Event raises the DeviceError that says why none is usable."""
import time

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the machine without a usable GPU")
def test_event_without_gpu_raises_device_error_saying_why():
    with pytest.raises(pdt.DeviceError) as info:
        pdt.cuda.Event(enable_timing=True)
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError) and "cuda:0 unknown device; available: cpu" in msg
    if pdt.cuda.is_built():  # the driver's reason, e.g. "no CUDA driver was found"
        assert pdt.cuda.unavailable_reason() in msg
    else:
        assert "not built with cuda" in msg


def test_event_refuses_a_cpu_device():
    with pytest.raises(ValueError, match="CUDA device"):
        pdt.cuda.Event(device="cpu")


def test_event_is_exported_like_torch():
    assert pdt.cuda.Event is pdt._C._Event and "Event" in pdt.cuda.__all__
    assert pdt.cuda.Event.__name__ == "Event"


@pytest.mark.cuda
@pytest.mark.real_gpu("times ten 2048x2048 GEMMs on the hardware (minutes on the "
                       "emulated reference GEMM)")
def test_elapsed_time_measures_gpu_work():
    start, end = pdt.cuda.Event(enable_timing=True), pdt.cuda.Event(enable_timing=True)
    a = pdt.randn(2048, 2048, device="cuda")
    start.record()
    for _ in range(10):
        a @ a
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms > 0
    assert start.device == pdt.device("cuda:0") and "recorded" in repr(end)


@pytest.mark.cuda
def test_synchronize_waits_and_elapsed_syncs_itself():
    start, end = pdt.cuda.Event(), pdt.cuda.Event()
    a = pdt.randn(1024, 1024, device="cuda")
    start.record()
    a @ a
    end.record()
    assert start.elapsed_time(end) >= 0.0  # waits for both events itself
    end.synchronize()
    t = time.perf_counter()
    end.synchronize()  # already done: returns at once
    assert time.perf_counter() - t < 0.5


@pytest.mark.cuda
def test_event_errors():
    e1, e2 = pdt.cuda.Event(), pdt.cuda.Event()
    with pytest.raises(ValueError, match="recorded"):
        e1.elapsed_time(e2)
    e1.synchronize()  # never recorded: nothing to wait for
    e1.record()
    e2.record()
    with pytest.raises(TypeError, match="Event"):
        e1.elapsed_time(3)
    with pytest.raises(TypeError, match="stream"):
        e1.record(stream=object())
    no_timing = pdt.cuda.Event(enable_timing=False)
    no_timing.record()
    with pytest.raises(ValueError, match="enable_timing"):
        e1.elapsed_time(no_timing)
