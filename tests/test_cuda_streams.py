"""cuda.Stream and friends (pydevtensor/_cuda_streams.py): each device's one stream, as
current_stream/default_stream give it; stream()/StreamContext switch to its device;
Stream() cannot make another; Tensor.record_stream does nothing."""
import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE


def test_no_new_streams_and_the_errors_say_why():
    with pytest.raises(RuntimeError, match="one stream per device"):
        pdt.cuda.Stream()
    with pytest.raises(TypeError, match="expected a cuda.Stream or None, got int.*one "
                                        "stream per device"):
        pdt.cuda.stream(1)
    with pdt.cuda.stream(None) as s, pdt.cuda.StreamContext(None):
        assert s is None
    with pytest.raises(TypeError, match="record_stream\\(\\): expected a cuda.Stream, got "
                                        "str"):
        pdt.ones(2).record_stream("s")
    assert set(["Stream", "StreamContext", "current_stream", "default_stream",
                "stream"]) <= set(pdt.cuda.__all__)


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the machine without a usable GPU")
def test_current_stream_without_a_gpu_says_why():
    with pytest.raises(pdt.DeviceError, match="cuda:0 unknown device"):
        pdt.cuda.current_stream()


@pytest.mark.cuda
def test_the_one_stream_of_each_device():
    n = pdt.cuda.device_count()
    streams = [pdt.cuda.current_stream(i) for i in range(n)]
    assert [s.device for s in streams] == [pdt.device("cuda", i) for i in range(n)]
    assert streams[0] == pdt.cuda.default_stream() == pdt.cuda.current_stream("cuda:0")
    assert len(set(streams)) == n and streams[0].priority == 0
    assert "one stream" in repr(streams[0])
    with pytest.raises(ValueError, match="expected a CUDA device, got cpu"):
        pdt.cuda.current_stream("cpu")
    last = streams[-1]
    x = pdt.ones(1000, device=last.device) * 2
    last.synchronize()
    assert last.query() is True  # nothing left to run after synchronize()
    for _ in range(20):
        x = x * 1.0001
    assert last.query() in (True, False)  # still running or done: either answer
    last.synchronize()
    assert last.query() is True
    e = last.record_event()
    assert e.device == last.device and e.query() in (True, False)
    e.synchronize()
    x.record_stream(last)  # nothing to do with one stream
    if n > 1:
        with pytest.raises(ValueError, match="the tensor is on cuda:1, the stream on cuda:0"):
            pdt.ones(1, device="cuda:1").record_stream(streams[0])


@pytest.mark.cuda
def test_stream_context_makes_its_device_current():
    last = pdt.cuda.current_stream(pdt.cuda.device_count() - 1)
    with pdt.cuda.stream(last) as s:
        assert s is last and pdt.cuda.current_device() == last.device.index
        assert pdt.ones(2, device="cuda").device == last.device
    assert pdt.cuda.current_device() == 0


@pytest.mark.cuda
def test_streams_order_work_across_devices_through_events():
    last = pdt.cuda.device_count() - 1
    s0, s1 = pdt.cuda.current_stream(0), pdt.cuda.current_stream(last)
    x = pdt.zeros(100, device="cuda:0")
    x.add_(3)
    done = s0.record_event(pdt.cuda.Event())
    s1.wait_event(done)
    s1.wait_stream(s0)
    s1.wait_stream(s1)  # its own work is already in order
    s1.synchronize()
    assert done.query() is True  # waited for through cuda:<last>'s stream
    with pytest.raises(TypeError, match="expected a cuda.Event, got int"):
        s1.wait_event(3)
    with pytest.raises(TypeError, match="expected a cuda.Stream, got Event"):
        s1.wait_stream(done)
    # an Event recorded on a stream takes the stream's device
    e = pdt.cuda.Event()
    e.record(s1)
    assert e.device == s1.device
    assert float(x.sum().item()) == 300.0
