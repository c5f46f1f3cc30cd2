"""torch.cuda's function signatures and the smaller names of its API (D2L's
"Computational Performance" chapter): device= keywords, init/is_initialized,
get_arch_list, memory_summary, device_of, OutOfMemoryError, cpu.synchronize."""
import inspect

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_DEVICES, CUDA_EMULATED

# (module, name): the functions that take a device as torch.cuda's do, by the keyword
# `device` (torch.cuda.empty_cache takes none; pydevtensor's takes one more).
DEVICE_KEYWORD = [
    (pdt.cuda, n) for n in (
        "memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats",
        "reset_peak_memory_stats", "synchronize", "mem_get_info", "get_device_name",
        "get_device_properties", "get_device_capability", "empty_cache", "set_device",
        "memory_summary", "set_per_process_memory_fraction", "max_memory_reserved")
] + [(pdt, n) for n in ("memory_allocated", "max_memory_allocated", "memory_reserved",
                         "memory_stats", "reset_peak_memory_stats", "empty_cache",
                         "set_default_device")] + [(pdt.cpu, "synchronize")]


@pytest.mark.parametrize("module,name", DEVICE_KEYWORD,
                         ids=[f"{m.__name__}.{n}" for m, n in DEVICE_KEYWORD])
def test_the_device_parameter_is_named_device(module, name):
    params = inspect.signature(getattr(module, name)).parameters
    assert "device" in params and "d" not in params
    if module is pdt.cuda:
        torch = pytest.importorskip("torch")
        tsig = inspect.signature(getattr(torch.cuda, name)).parameters
        if name != "empty_cache":  # torch.cuda.empty_cache() takes no argument
            assert list(params) == list(tsig), (list(params), list(tsig))


@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated",
                                  "memory_reserved", "memory_stats",
                                  "reset_peak_memory_stats", "empty_cache"])
def test_memory_functions_take_device_by_keyword_and_position(name):
    f = getattr(pdt, name)
    assert f(device="cpu") == f("cpu")
    if CUDA_AVAILABLE:
        g = getattr(pdt.cuda, name)
        x = pdt.ones(1000, device=CUDA_DEVICES[-1])
        assert g(device=x.device) == g(x.device) == g(x.device.index)
        del x


@pytest.mark.cuda
def test_cuda_queries_take_device_by_keyword():
    """The D2L reader's torch.cuda.synchronize(device=...) and friends (the tester's
    cuda_funcs_device_keyword.py)."""
    last = pdt.cuda.device_count() - 1
    pdt.ones(1000, device=f"cuda:{last}")
    for name in ("synchronize", "mem_get_info", "get_device_name", "get_device_properties",
                 "get_device_capability", "reset_peak_memory_stats"):
        f = getattr(pdt.cuda, name)
        assert f(device=last) == f(last), name
    pdt.cuda.set_device(device=last)
    try:
        assert pdt.cuda.current_device() == last
    finally:
        pdt.cuda.set_device(0)


def test_out_of_memory_error_is_the_one_class():
    assert pdt.cuda.OutOfMemoryError is pdt.OutOfMemoryError
    assert issubclass(pdt.cuda.OutOfMemoryError, MemoryError)


def test_is_initialized_and_init():
    assert pdt.cuda.is_initialized() is CUDA_AVAILABLE
    if CUDA_AVAILABLE:
        assert pdt.cuda.init() is None
    else:
        with pytest.raises(pdt.DeviceError, match="cuda.init\\(\\): no CUDA device can be "
                                                  "used: .+"):
            pdt.cuda.init()


def test_get_arch_list(monkeypatch):
    archs = pdt.cuda.get_arch_list()
    assert isinstance(archs, list) and all(a.startswith("sm_") for a in archs)
    if not CUDA_AVAILABLE or pdt.build_info()["cuda"]["emulated"]:
        assert archs == []
    from pydevtensor import _build_config, _cuda_info
    monkeypatch.setitem(_build_config.BUILD_CONFIG, "cuda_archs", ["75", "90"])
    monkeypatch.setattr(_cuda_info, "_available", lambda: True)
    assert pdt.cuda.get_arch_list() == ["sm_75", "sm_90"]
    monkeypatch.setattr(_cuda_info, "_available", lambda: False)
    assert pdt.cuda.get_arch_list() == []  # as torch: none without a usable device


def test_memory_summary_reads_memory_stats(device):
    x = pdt.ones(1 << 16, device=device)  # 256 KiB
    stats = pdt.memory_stats(device)
    text = pdt.cuda.memory_summary(device)
    assert text == pdt.cuda.memory_summary(device=device, abbreviated=True)
    assert text.splitlines()[0] == f"pydevtensor memory summary, device {pdt.device(device)}"
    rows = {line.split("  ")[0]: line for line in text.splitlines()[2:]}
    assert set(rows) == {"allocated", "peak allocated", "reserved", "peak reserved", "cached",
                         "limit"}
    assert stats["allocated"] >= 1 << 18
    assert ("%.2f MiB" % (stats["allocated"] / 2 ** 20) in rows["allocated"]
            or "%.2f KiB" % (stats["allocated"] / 2 ** 10) in rows["allocated"]
            or "%.2f GiB" % (stats["allocated"] / 2 ** 30) in rows["allocated"])
    del x
    with pytest.raises(pdt.DeviceError, match="cuda:7"):
        pdt.cuda.memory_summary("cuda:7")


def test_device_of_switches_to_a_tensors_device(device):
    t = pdt.ones(2, device=device)
    before = pdt.cuda.current_device()
    with pdt.cuda.device_of(t):
        inside = pdt.cuda.current_device()
    assert inside == (t.device.index if t.is_cuda else before)
    assert pdt.cuda.current_device() == before
    with pytest.raises(TypeError, match="expects a tensor, got list"):
        pdt.cuda.device_of([1.0])


def test_cpu_module_names_like_torch_cpu():
    assert pdt.cpu.is_available() is True
    assert pdt.cpu.synchronize() is None
    assert pdt.cpu.synchronize("cpu") is None and pdt.cpu.synchronize(device=0) is None
    with pytest.raises(ValueError, match="expects a CPU device, got cuda:0"):
        pdt.cpu.synchronize("cuda:0")
    with pytest.raises(pdt.DeviceError, match="cpu:9"):
        pdt.cpu.synchronize("cpu:9")


def test_memory_reports_without_a_gpu_are_zero_as_torch_cuda():
    """torch.cuda.memory_allocated() and friends give 0 ({} for memory_stats) on a machine
    without a GPU, also for a CUDA device named explicitly (0, 'cuda:0', cuda:63: CUDA
    was never initialised), as PyTorch 2.15's; they raised DeviceError for one.  'cpu'
    still reports the CPU; a string that is no device still raises (GPUs hidden, so this
    runs on every machine)."""
    from test_config import run
    out = run("""
        c.set_visible_devices([], 'GPU')
        cu = pdt.cuda
        print(cu.memory_allocated(), cu.memory_reserved(), cu.max_memory_allocated(),
              cu.max_memory_reserved(), cu.memory_stats())
        for f in (cu.memory_allocated, cu.memory_reserved, cu.max_memory_allocated,
                  cu.max_memory_reserved, cu.memory_stats):
            print(f.__name__, [f(d) for d in (0, 'cuda:0', 'cuda', pdt.device('cuda', 63), 63)])
        print(cu.memory_allocated('cpu') >= 0, 'allocated' in cu.memory_stats('cpu'))
        try:
            cu.memory_allocated('gpu0')
        except ValueError as e:
            print(type(e).__name__)
    """).splitlines()
    names = ["memory_allocated", "memory_reserved", "max_memory_allocated",
             "max_memory_reserved"]
    assert out == (["0 0 0 0 {}"] + [f"{n} [0, 0, 0, 0, 0]" for n in names]
                   + ["memory_stats [{}, {}, {}, {}, {}]", "True True", "InvalidArgumentError"])


@pytest.mark.cuda
def test_memory_reports_of_a_cuda_device_that_does_not_exist_raise_with_a_gpu():
    """With a usable GPU, a CUDA device past the last one is refused (DeviceError naming
    it), as PyTorch's; only without one do the reports answer 0."""
    missing = pdt.cuda.device_count()
    cu = pdt.cuda
    for f in (cu.memory_allocated, cu.memory_reserved, cu.max_memory_allocated,
              cu.max_memory_reserved, cu.memory_stats):
        for d in (missing, f"cuda:{missing}"):
            with pytest.raises(pdt.DeviceError, match=f"cuda:{missing}"):
                f(d)


@pytest.mark.cuda
def test_max_memory_reserved_on_a_device_is_the_pools_peak():
    """cuda.max_memory_reserved(d) is memory_stats(d)['reserved_peak'] (the pool's high
    watermark): at least memory_reserved(d), and it counts a block already freed."""
    d = pdt.device("cuda:0")
    pdt.cuda.reset_peak_memory_stats(d)
    x = pdt.empty(1 << 21, device=d)
    held = pdt.cuda.memory_reserved(d)
    del x
    pdt.cuda.empty_cache(d)
    assert pdt.cuda.max_memory_reserved(d) >= held >= 8 << 20
    assert pdt.cuda.max_memory_reserved(d) == pdt.cuda.memory_stats(d)["reserved_peak"]


def test_cuda_memory_stats_has_pytorchs_counter_names(device):
    """cuda.memory_stats(d) also gives its figures under torch.cuda.memory_stats' flat
    names, so scripts reading stats['allocated_bytes.all.peak'] run unchanged."""
    x = pdt.ones(1 << 16, device=device)
    ours = pdt.memory_stats(device)
    stats = pdt.cuda.memory_stats(device)
    assert {k: stats[k] for k in ours} == ours
    assert stats["allocated_bytes.all.current"] == ours["allocated"] >= 1 << 18
    assert stats["allocated_bytes.all.peak"] == ours["peak"]
    assert stats["reserved_bytes.all.current"] == ours["reserved"]
    assert stats["reserved_bytes.all.peak"] == ours["reserved_peak"]
    assert len(stats) == len(ours) + 4
    del x


def test_set_device_with_a_negative_index_does_nothing():
    """torch.cuda.set_device(-1) is a no-op (its docs: a negative device does nothing), on
    any machine; it raised ValueError."""
    before = pdt.cuda.current_device()
    assert pdt.cuda.set_device(-1) is None
    assert pdt.cuda.current_device() == before
    with pytest.raises(ValueError, match="CUDA device"):
        pdt.cuda.set_device("cpu")


@pytest.mark.cuda
def test_device_properties_has_torchs_fields():
    """get_device_properties reports the figures of torch.cuda's _CudaDeviceProperties
    (warp_size, L2_cache_size, the shared memory sizes, uuid, ...), from cudaDeviceProp;
    it had only name, total_memory, multi_processor_count, major and minor."""
    import re
    for i in range(pdt.cuda.device_count()):
        p = pdt.cuda.get_device_properties(i)
        assert p[:5] == (p.name, p.total_memory, p.multi_processor_count, p.major, p.minor)
        assert p.warp_size == 32 and p.max_threads_per_block == 1024  # every NVIDIA GPU's
        assert 0 < p.max_threads_per_multi_processor and p.regs_per_multiprocessor > 0
        assert 0 < p.shared_memory_per_block <= p.shared_memory_per_block_optin \
            <= p.shared_memory_per_multiprocessor
        assert p.L2_cache_size > 0 and p.pci_bus_id >= 0 and p.pci_domain_id >= 0
        assert isinstance(p.is_integrated, bool) and isinstance(p.is_multi_gpu_board, bool)
        assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", p.uuid)
        assert p.uuid != "00000000-0000-0000-0000-000000000000"


def test_ipc_collect_and_stream_capturing_answer_on_any_machine():
    """torch.cuda.ipc_collect() (in memory-freeing snippets after empty_cache()) and
    is_current_stream_capturing() (libraries' checks before a synchronising call) exist:
    no memory is shared between processes, no CUDA graph is captured."""
    assert pdt.cuda.ipc_collect() is None
    assert pdt.cuda.is_current_stream_capturing() is False


@pytest.mark.cuda
def test_per_process_memory_fraction_reads_back():
    """get_per_process_memory_fraction gives what set_per_process_memory_fraction set, 1.0
    without a limit, as torch.cuda's; allocating past it raises OutOfMemoryError."""
    last = pdt.cuda.device_count() - 1
    before = pdt.cuda.get_per_process_memory_fraction(last)
    total = pdt.cuda.get_device_properties(last).total_memory  # the limit in force, if any
    try:
        pdt.cuda.set_per_process_memory_fraction(0.25, last)
        card = pdt._C._properties(pdt.device("cuda", last))["total_memory"]
        assert abs(pdt.cuda.get_per_process_memory_fraction(last) - 0.25) < 1 / card
        assert abs(pdt.cuda.get_per_process_memory_fraction(device=f"cuda:{last}") - 0.25) \
            < 1 / card
        with pytest.raises(pdt.OutOfMemoryError):
            pdt.empty(card // 4 + 4096, dtype=pdt.uint8, device=f"cuda:{last}")
        pdt.cuda.set_per_process_memory_fraction(1.0, last)
        assert pdt.cuda.get_per_process_memory_fraction(last) == 1.0
    finally:
        pdt.cuda.set_per_process_memory_fraction(before, last)
    assert pdt.cuda.get_device_properties(last).total_memory == total


def test_can_device_access_peer():
    """False for a device and itself (CUDA's answer), True for two logical devices of one
    GPU, the emulator's cudaDeviceCanAccessPeer (any two GPUs) between GPUs; a device that
    does not exist raises DeviceError naming it, on either side."""
    n = pdt.cuda.device_count()
    for args in ((n, 0), (0, n), (f"cuda:{n}", None)):
        bad = f"cuda:{n}" if n else "cuda:0"
        with pytest.raises(pdt.DeviceError, match=f"{bad} unknown device"):
            pdt.cuda.can_device_access_peer(*args)
    with pytest.raises(ValueError, match="expected a CUDA device, got cpu"):
        pdt.cuda.can_device_access_peer("cpu", 0)
    gpus = pdt._C._logical_device_map(pdt._C._KIND_CUDA)
    for i in range(n):
        for j in range(n):
            got = pdt.cuda.can_device_access_peer(i, pdt.device("cuda", j))
            assert isinstance(got, bool)
            if i == j or gpus[i] == gpus[j] or CUDA_EMULATED:
                assert got == (i != j), (i, j, gpus)
    if n:
        cur = pdt.cuda.current_device()
        assert pdt.cuda.can_device_access_peer(None, cur) is False


def test_memory_snapshot_is_one_segment_per_gpu_pool():
    """PyTorch's segment dicts from what the pool knows: total_size is what the GPU's
    pool reserves, allocated_size what its logical devices' tensors hold; [] without a
    GPU."""
    if not CUDA_AVAILABLE:
        assert pdt.cuda.memory_snapshot() == []
        return
    keys = {"device", "address", "total_size", "allocated_size", "active_size",
            "requested_size", "stream", "segment_type", "segment_pool_id", "is_expandable",
            "frames", "blocks"}
    gpus = pdt._C._logical_device_map(pdt._C._KIND_CUDA)
    dev = pdt.device(CUDA_DEVICES[0])
    first = gpus.index(gpus[dev.index])
    x = pdt.ones(1 << 16, device=dev)
    pdt.cuda.synchronize(dev)
    segments = pdt.cuda.memory_snapshot()
    assert all(set(s) == keys for s in segments)
    assert len({s["device"] for s in segments}) == len(segments)
    seg = next(s for s in segments if s["device"] == first)
    mine = [i for i, g in enumerate(gpus) if g == gpus[dev.index]]
    assert seg["allocated_size"] == sum(pdt.cuda.memory_allocated(i) for i in mine)
    assert seg["allocated_size"] >= x.numel() * 4
    assert seg["total_size"] == max(pdt.cuda.memory_reserved(first), seg["allocated_size"])
    assert seg["active_size"] == seg["requested_size"] == seg["allocated_size"]
    del x
