"""cuda.Event timing (issue 4).  The GPU behaviour is marked cuda.  Without a usable GPU,
an Event is made (it takes its device when first recorded, as PyTorch's), and recording it,
or making one with device=, raises the DeviceError that says why none is usable."""
import time

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_EMULATED, SPLIT_GPU


def _says_why(info):
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError) and "cuda:0 unknown device; available: cpu" in msg
    if pdt.cuda.is_built():  # the driver's reason, e.g. "no CUDA driver was found"
        assert pdt.cuda.unavailable_reason() in msg
    else:
        assert "not built with cuda" in msg


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the machine without a usable GPU")
def test_event_without_gpu_is_made_and_its_record_says_why():
    e = pdt.cuda.Event(enable_timing=True)  # D2L makes its timing events first
    assert "not recorded yet" in repr(e) and e.query() is True
    with pytest.raises(pdt.DeviceError) as info:
        e.record()
    _says_why(info)
    assert "not recorded yet" in repr(e)  # the failed record left it as it was
    with pytest.raises(pdt.DeviceError) as info:
        pdt.cuda.Event(enable_timing=True, device="cuda:0")  # a device given: checked now
    _says_why(info)


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
    start, end = pdt.cuda.Event(enable_timing=True), pdt.cuda.Event(enable_timing=True)
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
    e1, e2 = pdt.cuda.Event(enable_timing=True), pdt.cuda.Event(enable_timing=True)
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


def test_event_signature_is_torchs():
    """PyTorch's Event(enable_timing=False, blocking=False, interprocess=False); device= is
    pydevtensor's, keyword only."""
    import inspect
    params = inspect.signature(pdt.cuda.Event).parameters
    assert [(n, p.default) for n, p in params.items()][:3] == [
        ("enable_timing", False), ("blocking", False), ("interprocess", False)]
    assert params["device"].kind is inspect.Parameter.KEYWORD_ONLY
    torch = pytest.importorskip("torch")
    tparams = inspect.signature(torch.cuda.Event.__new__).parameters
    for name in ("enable_timing", "blocking", "interprocess"):
        assert tparams[name].default == params[name].default


def test_event_refuses_interprocess():
    with pytest.raises(NotImplementedError, match="interprocess"):
        pdt.cuda.Event(interprocess=True)


@pytest.mark.cuda
def test_timing_is_off_by_default_as_in_torch():
    e0, e1 = pdt.cuda.Event(), pdt.cuda.Event()
    e0.record()
    e1.record()
    e1.synchronize()
    with pytest.raises(ValueError, match="enable_timing=True"):
        e0.elapsed_time(e1)
    assert "timing enabled" not in repr(e0)
    assert "timing enabled" in repr(pdt.cuda.Event(enable_timing=True))


@pytest.mark.cuda
def test_blocking_event_synchronizes():
    e = pdt.cuda.Event(enable_timing=True, blocking=True)
    y = pdt.ones(64, device="cuda") * 3
    e.record()
    e.synchronize()
    assert e.query() and y.sum().item() == 192


@pytest.mark.cuda
def test_an_event_takes_the_device_of_its_first_record():
    e = pdt.cuda.Event()
    assert e.device is None and e.cuda_event == 0 and "not recorded yet" in repr(e)
    last = pdt.device("cuda", pdt.cuda.device_count() - 1)
    with pdt.cuda.device(last):
        e.record()
    assert e.device == last and e.cuda_event != 0 and "recorded" in repr(e)
    with pdt.cuda.device(last):
        e.record()  # the same device again: fine
    e.synchronize()


@pytest.mark.cuda
@pytest.mark.skipif(pdt.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_recording_on_another_device_raises_naming_both():
    start, end = pdt.cuda.Event(enable_timing=True), pdt.cuda.Event(enable_timing=True)
    x1 = pdt.rand(32, 32, device="cuda:1")
    with pdt.cuda.device(1):  # D2L's timing of work on the second GPU
        start.record()
        y = x1 @ x1
        end.record()
    end.synchronize()
    assert start.device == end.device == pdt.device("cuda:1")
    assert start.elapsed_time(end) >= 0 and y.device == pdt.device("cuda:1")
    with pytest.raises(pdt.DeviceError, match=r"Event device cuda:1 does not match recording "
                                              r"stream's device cuda:0"):
        start.record()  # the current device is cuda:0 again
    assert start.device == pdt.device("cuda:1") and start.query()
    # device= fixes the event's device: it records there whatever the current device
    e0 = pdt.cuda.Event(device="cuda:0")
    assert e0.device == pdt.device("cuda:0") and e0.cuda_event != 0
    with pdt.cuda.device(1):
        e0.record()
    assert e0.device == pdt.device("cuda:0")
    timed0 = pdt.cuda.Event(enable_timing=True, device=0)
    timed0.record()
    with pytest.raises(pdt.DeviceError, match="elapsed_time: the events are on two devices, "
                                              "cuda:0 and cuda:1"):
        timed0.elapsed_time(start)


@pytest.mark.cuda
def test_query_says_whether_the_recorded_work_is_done():
    e = pdt.cuda.Event()
    assert e.query() is True  # never recorded: nothing captured
    a = pdt.randn(256, 256, device="cuda")
    b = a @ a
    e.record()
    seen = set()
    for _ in range(10000):  # query never waits, but the work completes
        done = e.query()
        assert isinstance(done, bool)
        seen.add(done)
        if done:
            break
    assert True in seen
    e.synchronize()
    assert e.query() is True
    assert b.shape == (256, 256)


@pytest.mark.cuda
def test_wait_orders_another_devices_work_after_the_event():
    """cudaStreamWaitEvent: the current device's stream waits for the event, the calling
    thread does not.  The emulated device runs a stream only when something waits on it,
    so there cuda:0's work has run after cuda:1's stream is synchronized only through the
    wait (and has not without it)."""
    last = pdt.cuda.device_count() - 1
    e = pdt.cuda.Event()
    e.wait()  # never recorded: nothing to wait for
    pdt.cuda.synchronize(0)
    x = pdt.zeros(1000, device="cuda:0")
    x.add_(1.5)
    e.record()
    with pdt.cuda.device(last):
        e.wait()
    pdt.cuda.synchronize(last)
    assert e.query() is True
    unwaited = pdt.cuda.Event()
    x.add_(1.0)
    unwaited.record()
    pdt.cuda.synchronize(last)
    if CUDA_EMULATED and last != 0 and not SPLIT_GPU:  # logical devices share a stream
        assert unwaited.query() is False  # nothing waited for cuda:0's stream yet
    unwaited.synchronize()
    with pdt.cuda.device(last):
        e.wait(stream=None)
        y = x.to(f"cuda:{last}") * 2
    assert float(y.sum().item()) == 5000.0


@pytest.mark.cuda
def test_event_methods_refuse_a_stream_that_is_not_one():
    e = pdt.cuda.Event()
    for method in (e.record, e.wait):
        with pytest.raises(TypeError, match="one stream per device"):
            method(object())
        with pytest.raises(TypeError, match="at most one argument"):
            method(None, None)
