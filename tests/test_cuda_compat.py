"""torch.cuda's smaller names that PyTorch code calls (pydevtensor/_cuda_compat.py) and
cuda.nvtx (pydevtensor/_cuda_nvtx.py): set_stream, the deprecated *_cached memory names,
reset_accumulated_memory_stats, is_tf32_supported, get_gencode_flags, NVTX ranges."""
import threading
import warnings

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_DEVICES


def test_nvtx_ranges_report_their_depth_as_nvtx():
    nvtx = pdt.cuda.nvtx
    assert nvtx.range_pop() == -1  # nothing open
    assert [nvtx.range_push(f"r{i}") for i in range(3)] == [0, 1, 2]
    assert [nvtx.range_pop() for _ in range(4)] == [2, 1, 0, -1]
    with nvtx.range("epoch {} of {n}", 1, n=3):
        assert nvtx.range_push("inner") == 1
        assert nvtx.range_pop() == 1
    assert nvtx.range_pop() == -1  # the with block closed its range, also on an error
    with pytest.raises(KeyError):
        with nvtx.range("step"):
            raise KeyError("x")
    assert nvtx.range_pop() == -1

    @nvtx.range("decorated")
    def depth():
        return nvtx.range_push("x")
    assert depth() == 1 and nvtx.range_pop() == 0 and nvtx.range_pop() == -1

    # each thread nests its own ranges
    nvtx.range_push("main")
    seen = []
    t = threading.Thread(target=lambda: seen.append(nvtx.range_push("t")))
    t.start()
    t.join()
    assert seen == [0] and nvtx.range_pop() == 0
    a, b = nvtx.range_start("a"), nvtx.range_start("b")
    assert isinstance(a, int) and a != b
    assert nvtx.range_end(b) is None and nvtx.range_end(a) is None
    assert nvtx.mark("m") is None
    import pydevtensor.cuda.nvtx as imported
    assert imported is nvtx


@pytest.mark.parametrize("call", ["range_push(1)", "mark(None)", "range_start(b'x')",
                                  "range(3).__enter__()", "range_end('a')"])
def test_nvtx_refuses_what_nvtx_cannot_take(call):
    with pytest.raises(TypeError, match=r"cuda\.nvtx\.\w+\(\): \w+ must be"):
        eval("pdt.cuda.nvtx." + call)
    assert pdt.cuda.nvtx.range_pop() == -1


@pytest.mark.parametrize("old,new", [("memory_cached", "memory_reserved"),
                                     ("max_memory_cached", "max_memory_reserved")])
def test_the_cached_names_warn_and_give_the_reserved_figures(old, new):
    x = pdt.ones(1000)
    with pytest.warns(FutureWarning, match=f"renamed to `pydevtensor.cuda.{new}`"):
        got = getattr(pdt.cuda, old)("cpu")
    assert got == getattr(pdt.cuda, new)("cpu") and got >= 4000
    with pytest.warns(FutureWarning):
        assert getattr(pdt.cuda, old)() == getattr(pdt.cuda, new)()
    del x


def test_reset_max_memory_cached_resets_the_peaks():
    pdt.reset_peak_memory_stats("cpu")
    before = pdt.memory_allocated("cpu")
    x = pdt.ones(50_000)
    del x
    assert pdt.max_memory_allocated("cpu") >= before + 200_000
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        pdt.cuda.reset_max_memory_cached("cpu")
    assert pdt.max_memory_allocated("cpu") == pdt.memory_allocated("cpu") == before


def test_reset_accumulated_memory_stats_checks_the_device_and_keeps_the_figures():
    x = pdt.ones(10)
    stats = pdt.cuda.memory_stats("cpu")
    assert pdt.cuda.reset_accumulated_memory_stats("cpu") is None
    assert pdt.cuda.memory_stats("cpu") == stats
    with pytest.raises(pdt.DeviceError, match="cpu:63 unknown device"):
        pdt.cuda.reset_accumulated_memory_stats("cpu:63")
    del x


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the machine without a usable GPU")
def test_without_a_gpu():
    assert pdt.cuda.is_tf32_supported() is False
    assert pdt.cuda.get_gencode_flags() == ""
    assert pdt.cuda.set_stream(None) is None
    with pytest.raises(pdt.DeviceError):  # as reset_peak_memory_stats(): no current device
        pdt.cuda.reset_accumulated_memory_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pdt.cuda.memory_cached() == 0 and pdt.cuda.max_memory_cached() == 0


def test_set_stream_refuses_what_is_not_a_stream():
    with pytest.raises(TypeError, match=r"cuda.set_stream\(\): expected a cuda.Stream or "
                                        r"None, got int"):
        pdt.cuda.set_stream(0)


@pytest.mark.cuda
def test_set_stream_makes_its_device_current():
    first = pdt.cuda.current_device()
    try:
        for index in reversed(range(pdt.cuda.device_count())):
            s = pdt.cuda.current_stream(index)
            assert pdt.cuda.set_stream(s) is None
            assert pdt.cuda.current_device() == index and pdt.cuda.current_stream() == s
            assert s.device_index == index and s.stream_id == 0  # torch.cuda.Stream's
            assert pdt.ones(2, device="cuda").device == s.device
        pdt.cuda.set_stream(None)
        assert pdt.cuda.current_device() == 0
    finally:
        pdt.cuda.set_device(first)


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_the_gpu_answers(device):
    pdt.cuda.reset_accumulated_memory_stats(device)
    with pdt.cuda.device(device):
        major = pdt.cuda.get_device_capability()[0]
        assert pdt.cuda.is_tf32_supported() is (major >= 8)
    flags = pdt.cuda.get_gencode_flags().split()
    archs = pdt.cuda.get_arch_list()
    assert flags == [w for a in archs
                     for w in ("-gencode", f"compute=compute_{a[3:]},code=sm_{a[3:]}")]
    x = pdt.ones(1000, device=device)
    with pytest.warns(FutureWarning):
        assert pdt.cuda.memory_cached(device) == pdt.cuda.memory_reserved(device) >= 4000
    del x
