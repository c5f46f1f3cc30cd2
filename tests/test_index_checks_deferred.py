"""Index checks of GPU gathers on the device, reported at the next synchronisation
(Note [deferred index checks] in csrc/core/pdt_index.h; config.set_index_checks).

- On a GPU, index_select, gather, take, x[idx] and F.embedding (and their gradients)
  read no index back: no host transfer, and they run under transfer_guard('disallow').
- An index out of range there raises IndexError at the next synchronisation with the
  device (.cpu(), .item(), .tolist(), bool(), cuda.synchronize(), Event.synchronize()),
  naming the op, the index, the dim and its size and the device; the error is then
  cleared and the device keeps working.
- Bad values found by later checks before that report are counted in it, with the ops
  that found them (every result computed since the last report may be invalid).
- Handing a result to another library (__dlpack__, __cuda_array_interface__) with
  checks pending synchronises and reports there; with none pending it costs nothing.
- config.set_index_checks('sync') (or PYDEVTENSOR_INDEX_CHECKS=sync, or
  CUDA_LAUNCH_BLOCKING=1) checks before the op again; CPU ops always do; ops that write
  at user indices into an existing tensor always do, leaving it unchanged.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import (CUDA_DEVICES, CUDA_EMULATED, emulated_cudart, raises_index_error,
                      run_python)
from pydevtensor import nn
from pydevtensor.nn import functional as F

A = np.arange(20.0, dtype=np.float32).reshape(5, 4)

cuda = pytest.mark.skipif(not CUDA_DEVICES, reason="no CUDA device in this build")


def _gathers(x):
    """(name, op, ref) triples: op reads x (5, 4) through the index tensor it is given
    (a list of rows) and ref(rows) is NumPy's answer."""
    return [
        ("index_select", lambda i: x.index_select(0, i), lambda r: A[r]),
        ("gather", lambda i: x.gather(0, i.reshape(-1, 1).expand(-1, 4).contiguous()),
         lambda r: A[r]),
        ("take", lambda i: pdt.take(x, i), lambda r: A.reshape(-1)[r]),
        ("index", lambda i: x[i], lambda r: A[r]),  # the one-call path of a 1-d int64 index
        ("index", lambda i: x[:, :2][i, 1:], lambda r: A[:, :2][r, 1:]),  # the general path
        ("embedding", lambda i: F.embedding(i.reshape(1, -1), x), lambda r: A[r][None]),
    ]


def _d2h():
    return pdt.transfer_stats()["device_to_host"]["count"]


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_gathers_read_no_index_back(dev):
    x = pdt.tensor(A, device=dev)
    good = pdt.tensor([4, 0, 2], device=dev)
    pdt.cuda.synchronize(dev)
    for name, op, ref in _gathers(x):
        before = pdt.transfer_stats()
        with pdt.transfer_guard("disallow"):
            got = op(good)
            pdt.cuda.synchronize(dev)
        after = pdt.transfer_stats()
        for kind in ("device_to_host", "host_to_device"):
            assert after[kind]["count"] == before[kind]["count"], (name, kind)
        np.testing.assert_array_equal(got.cpu().numpy(), ref([4, 0, 2]), err_msg=name)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_embedding_training_reads_nothing_back(dev):
    pdt.manual_seed(0)
    emb = nn.Embedding(10, 3).to(dev)
    idx = pdt.tensor([[1, 7, 1], [0, 9, 3]], device=dev)
    w = emb.weight.detach().cpu().numpy()
    pdt.cuda.synchronize(dev)
    n = _d2h()
    with pdt.transfer_guard("disallow"):
        out = emb(idx)
        (out * out).sum().backward()
        pdt.cuda.synchronize(dev)
    assert _d2h() == n
    want = np.zeros_like(w)
    np.add.at(want, idx.cpu().numpy(), 2 * w[idx.cpu().numpy()])
    np.testing.assert_allclose(emb.weight.grad.cpu().numpy(), want, rtol=1e-6)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_a_bad_index_is_reported_at_the_next_synchronisation_then_cleared(dev):
    x = pdt.tensor(A, device=dev)
    syncs = [lambda t: t.cpu(), lambda t: t.sum().item(), lambda t: t.tolist(),
             lambda t: bool(t.sum() > -1), lambda t: pdt.cuda.synchronize(dev)]
    for k, (name, op, ref) in enumerate(_gathers(x)):
        bad = 20 + k  # out of range for 5 rows and for take's 20 elements
        n = _d2h()
        got = op(pdt.tensor([1, bad], device=dev))  # queued: no error, nothing read back
        assert _d2h() == n, name
        size = 20 if name == "take" else 5
        with pytest.raises(IndexError) as info:
            syncs[k % len(syncs)](got)
        msg = str(info.value)
        assert msg.startswith(f"{name}: index {bad} is out of bounds for dimension 0 "
                              f"with size {size} (on {dev}). The check ran on the device"), msg
        assert "reported at this synchronisation" in msg and \
            "pydevtensor.config.set_index_checks('sync')" in msg and \
            "PYDEVTENSOR_INDEX_CHECKS=sync" in msg, msg
        pdt.cuda.synchronize(dev)  # cleared: not raised again
        assert got.shape == ref([1, 2]).shape  # the result exists; its values are not valid
        # the device keeps working
        np.testing.assert_array_equal(op(pdt.tensor([4, 0], device=dev)).cpu().numpy(),
                                      ref([4, 0]), err_msg=name)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_the_first_error_is_reported_once(dev):
    x = pdt.tensor(A, device=dev)
    a = x.index_select(0, pdt.tensor([7], device=dev))
    b = pdt.take(x, pdt.tensor([-30], device=dev))
    c = x[pdt.tensor([2], device=dev)]
    with pytest.raises(IndexError, match=r"^index_select: index 7 is out of bounds"):
        event = pdt.cuda.Event(device=dev)
        event.record()
        event.synchronize()
    np.testing.assert_array_equal(c.cpu().numpy(), A[[2]])  # reported no more
    assert a.shape == (1, 4) and b.shape == (1,)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_negative_indices_and_their_range(dev):
    x = pdt.tensor(A, device=dev)
    np.testing.assert_array_equal(x[pdt.tensor([-5, -1], device=dev)].cpu().numpy(),
                                  A[[-5, -1]])
    with raises_index_error(dev, r"^index: index -6 is out of bounds for dimension 0 with "
                                 r"size 5"):
        x[pdt.tensor([-6, 0], device=dev)]
    with raises_index_error(dev, r"^index_select: index -1 is out of bounds"):
        x.index_select(0, pdt.tensor([0, -1], device=dev))  # index_select takes none


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_sync_mode_raises_at_the_op(dev, index_checks_restored):
    pdt.config.set_index_checks("sync")
    x = pdt.tensor(A, device=dev)
    for name, op, _ in _gathers(x):
        n = _d2h()
        with pytest.raises(IndexError, match=rf"^{name}: index 29 is out of bounds .* "
                                             rf"\(on {dev}\)$"):
            op(pdt.tensor([0, 29], device=dev))
        assert _d2h() > n, name  # the read-back of the index's min and max
    pdt.cuda.synchronize(dev)


@pytest.mark.parametrize("mode", ["device", "sync"])
def test_cpu_raises_at_the_op_in_both_modes(mode, index_checks_restored):
    pdt.config.set_index_checks(mode)
    x = pdt.tensor(A)
    for name, op, _ in _gathers(x):
        with pytest.raises(IndexError, match=rf"^{name}: index 29 is out of bounds .*\(on cpu\)$"):
            op(pdt.tensor([0, 29]))


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_writes_at_user_indices_check_before_the_op(dev):
    x = pdt.tensor(A, device=dev)
    bad = pdt.tensor([1, 5], device=dev)
    rows = pdt.ones(2, 4, device=dev)
    writes = [
        ("index_add_", lambda: x.index_add_(0, bad, rows)),
        ("index_copy_", lambda: x.index_copy_(0, bad, rows)),
        ("index_fill_", lambda: x.index_fill_(0, bad, 1.0)),
        ("scatter_", lambda: x.scatter_(0, bad.reshape(2, 1).expand(2, 4).contiguous(), rows)),
        ("setitem", lambda: x.__setitem__(bad, rows)),
        ("setitem", lambda: x.__setitem__((slice(None), pdt.tensor([0, 4], device=dev)), 1.0)),
        ("embedding max_norm", lambda: F.embedding(bad, x, max_norm=1.0)),
    ]
    for name, op in writes:
        with pytest.raises(IndexError, match="out of bounds"):
            op()  # at the op, not at a later synchronisation
        np.testing.assert_array_equal(x.cpu().numpy(), A, err_msg=name)  # unchanged


def test_set_index_checks_and_the_environment(index_checks_restored):
    assert pdt.config.get_index_checks() == "device"
    pdt.config.set_index_checks("sync")
    assert pdt.config.get_index_checks() == "sync"
    pdt.config.set_index_checks("device")
    assert pdt.config.get_index_checks() == "device"
    with pytest.raises(ValueError, match="mode must be 'device' or 'sync', got 'later'"):
        pdt.config.set_index_checks("later")
    code = "import pydevtensor; print(pydevtensor.config.get_index_checks())"
    drop = ("PYDEVTENSOR_INDEX_CHECKS", "CUDA_LAUNCH_BLOCKING")
    assert run_python(code, drop) == ["device"]
    assert run_python(code, drop, PYDEVTENSOR_INDEX_CHECKS="sync") == ["sync"]
    assert run_python(code, drop, CUDA_LAUNCH_BLOCKING="1") == ["sync"]
    assert run_python(code, drop, CUDA_LAUNCH_BLOCKING="1",
                      PYDEVTENSOR_INDEX_CHECKS="device") == ["device"]
    warned = "import warnings; warnings.simplefilter('error'); " + code
    with pytest.raises(AssertionError, match="PYDEVTENSOR_INDEX_CHECKS must be 'device' or "
                                             "'sync', got 'never'"):
        run_python(warned, drop, PYDEVTENSOR_INDEX_CHECKS="never")


@pytest.mark.cuda
@pytest.mark.skipif(pdt.device_count() < 2, reason="needs two CUDA devices (or one split)")
def test_each_device_reports_its_own_errors():
    """The error names the device where the op ran; a synchronisation with any device of
    that kind reports every complete record (a result may have been copied elsewhere)."""
    x1 = pdt.tensor(A, device="cuda:1")
    x1.index_select(0, pdt.tensor([8], device="cuda:1"))
    with pytest.raises(IndexError, match=r"index 8 .* \(on cuda:1\)"):
        pdt.cuda.synchronize("cuda:1")
    pdt.cuda.synchronize("cuda:0")  # reported once
    pdt.cuda.synchronize("cuda:1")


@pytest.mark.cuda
@pytest.mark.skipif(pdt.device_count() < 2, reason="needs two CUDA devices (or one split)")
def test_a_bad_result_copied_to_another_device_is_reported_there():
    """y = x0[bad]; y.to('cuda:1').cpu(): the copy orders cuda:1 after cuda:0's check
    kernel, so the read on cuda:1 reports cuda:0's error, not the data."""
    x0 = pdt.tensor(A, device="cuda:0")
    y = x0[pdt.tensor([1, 20], device="cuda:0")]
    z = y.to("cuda:1")
    with pytest.raises(IndexError, match=r"index 20 .* size 5 \(on cuda:0\)"):
        z.cpu()
    pdt.cuda.synchronize("cuda:0")  # taken: neither device reports it again
    pdt.cuda.synchronize("cuda:1")
    assert z.cpu().shape == (2, 4)


@pytest.mark.cuda
@pytest.mark.skipif(pdt.device_count() < 2, reason="needs two CUDA devices (or one split)")
def test_an_export_reports_an_error_of_another_device():
    """y = x0[bad]; y.to('cuda:1').__dlpack__(): the export on cuda:1 reports cuda:0's
    error (its check completed before the copy), before another library reads."""
    x0 = pdt.tensor(A, device="cuda:0")
    z = x0[pdt.tensor([1, 20], device="cuda:0")].to("cuda:1")
    with pytest.raises(IndexError, match=r"index 20 .* size 5 \(on cuda:0\)"):
        z.__dlpack__()
    z.__cuda_array_interface__  # reported once
    pdt.cuda.synchronize("cuda:0")


@pytest.mark.cuda
@pytest.mark.skipif(pdt.device_count() < 2, reason="needs two CUDA devices (or one split)")
def test_errors_on_two_devices_are_each_reported():
    """Errors on both devices: each is reported once, naming its device."""
    x0, x1 = pdt.tensor(A, device="cuda:0"), pdt.tensor(A, device="cuda:1")
    x0[pdt.tensor([30], device="cuda:0")]
    x1.index_select(0, pdt.tensor([31], device="cuda:1"))
    x1[pdt.tensor([32], device="cuda:1")]
    with pytest.raises(IndexError, match=r"index 30 .* \(on cuda:0\)"):
        pdt.cuda.synchronize("cuda:0")
    with pytest.raises(IndexError, match=r"^index_select: index 31 .* \(on cuda:1\)") as info:
        pdt.cuda.synchronize("cuda:1")
    assert _more(1, "cuda:1", "index") in str(info.value)
    pdt.cuda.synchronize("cuda:0")
    pdt.cuda.synchronize("cuda:1")


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA_EMULATED, reason="the emulated CUDA runtime's rules")
def test_emulated_host_get_device_pointer():
    import ctypes
    rt = emulated_cudart()
    rt.cudaHostAlloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint]
    rt.cudaHostGetDevicePointer.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                            ctypes.c_uint]
    rt.cudaFreeHost.argtypes = [ctypes.c_void_p]
    host, dev = ctypes.c_void_p(), ctypes.c_void_p()
    assert rt.cudaHostAlloc(ctypes.byref(host), 64, 2 | 1) == 0  # Mapped | Portable
    # unified addressing: the device address is the host address, inside too
    assert rt.cudaHostGetDevicePointer(ctypes.byref(dev), host, 0) == 0
    assert dev.value == host.value
    assert rt.cudaHostGetDevicePointer(ctypes.byref(dev), host.value + 8, 0) == 0
    assert dev.value == host.value + 8
    invalid_value = 1
    assert rt.cudaHostGetDevicePointer(ctypes.byref(dev), host, 1) == invalid_value  # flags
    pageable = ctypes.create_string_buffer(64)
    assert rt.cudaHostGetDevicePointer(ctypes.byref(dev), ctypes.addressof(pageable),
                                       0) == invalid_value
    assert rt.cudaFreeHost(host) == 0
    assert rt.cudaHostGetDevicePointer(ctypes.byref(dev), host, 0) == invalid_value  # freed
    rt.cudaGetLastError()


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA_EMULATED, reason="the emulator's switch for a device that "
                                               "cannot map host memory")
def test_a_device_without_mapped_host_memory_checks_before_the_op():
    """Without the mapped error record (cudaDevAttrCanMapHostMemory 0, the mapping
    failing), gathers check their indices on the host before the op: valid ones work
    every time (not OutOfMemoryError), a bad one raises at the op."""
    code = """
import pydevtensor as pdt
x = pdt.arange(20.0, device='cuda').reshape(5, 4)
for _ in range(2):
    print(x[pdt.tensor([4, 0], device='cuda')].sum().item())
try:
    x.index_select(0, pdt.tensor([7], device='cuda'))
    print('no-error')
except IndexError as e:
    print('IndexError', 'index 7' in str(e), 'on cuda:0' in str(e))
"""
    assert run_python(code, PYDEVTENSOR_EMULATED_NO_MAPPED_HOST="1") == [
        "76.0", "76.0", "IndexError", "True", "True"]


@cuda
@pytest.mark.cuda
def test_many_bad_indices_report_one_of_them_once():
    """One claim per warp and block (Note in cuda_index_check.cu): with many bad values
    one of them is reported, once; the next synchronisation is clean."""
    dev = CUDA_DEVICES[0]
    x = pdt.tensor(A, device=dev)
    idx = np.tile(np.array([0, 9, 1, 5, 3], dtype=np.int64), 2000)
    idx[7000] = 12
    x.index_select(0, pdt.tensor(idx, device=dev))
    with pytest.raises(IndexError, match=r"index (9|5|12) is out of bounds .* size 5 .* "
                                         r"4000 more out-of-range index values were found "
                                         rf"on {dev} since the last report \(by index_select\)"):
        pdt.cuda.synchronize(dev)
    pdt.cuda.synchronize(dev)


def _more(n, dev, ops):
    return (f" {n} more out-of-range index value{' was' if n == 1 else 's were'} found on "
            f"{dev} since the last report (by {ops}): every result computed there since "
            "then may be invalid.")


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_errors_of_later_ops_are_counted_and_named(dev):
    """The first error is reported with the count of the bad values later checks found
    and their ops (they were dropped once: a check that lost the claim on the record
    set a flag the report cleared as its own)."""
    x = pdt.tensor(A, device=dev)
    a = x[pdt.tensor([1, 20], device=dev)]
    b = x.index_select(0, pdt.tensor([3, 9, 8], device=dev))
    c = pdt.take(x, pdt.tensor([-21], device=dev))
    with pytest.raises(IndexError) as info:
        b.tolist()
    msg = str(info.value)
    assert msg.startswith(f"index: index 20 is out of bounds for dimension 0 with size 5 "
                          f"(on {dev})."), msg
    assert _more(3, dev, "index_select, take") in msg, msg
    pdt.cuda.synchronize(dev)  # reported once, with the count
    assert a.shape == (2, 4) and c.shape == (1,)
    x[pdt.tensor([7], device=dev)]
    with pytest.raises(IndexError) as info:
        pdt.cuda.synchronize(dev)
    assert "more out-of-range" not in str(info.value)  # counted from the last report


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_a_check_queued_after_an_event_is_reported_once(dev):
    """Event.synchronize reports the checks before the event; one queued after it is
    reported with them if it has completed, else at the next synchronisation: once."""
    x = pdt.tensor(A, device=dev)
    x[pdt.tensor([20], device=dev)]
    event = pdt.cuda.Event(device=dev)
    event.record()
    x.index_select(0, pdt.tensor([9], device=dev))
    with pytest.raises(IndexError, match=r"^index: index 20 is out") as info:
        event.synchronize()
    if _more(1, dev, "index_select") not in str(info.value):
        with pytest.raises(IndexError, match=r"^index_select: index 9 is out"):
            pdt.cuda.synchronize(dev)
    pdt.cuda.synchronize(dev)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_hundreds_of_checks_queued_keep_the_first_error(dev):
    """More checks queued than the device's ring of results holds, never synchronised:
    the oldest is waited for when its slot is needed; nothing is read back or lost."""
    x = pdt.tensor(A, device=dev)
    good, bad = pdt.tensor([4, 0], device=dev), pdt.tensor([0, 11], device=dev)
    pdt.cuda.synchronize(dev)
    n = _d2h()
    with pdt.transfer_guard("disallow"):
        x.index_select(0, bad)
        for _ in range(600):
            x[good]
        x[bad]
    assert _d2h() == n
    with pytest.raises(IndexError, match=r"^index_select: index 11 is out") as info:
        pdt.cuda.synchronize(dev)
    assert _more(1, dev, "index") in str(info.value)
    pdt.cuda.synchronize(dev)


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_every_bad_value_is_reported_once_across_threads(dev):
    """Threads queueing bad gathers and synchronising at once: the reports together
    count every bad value exactly once (the first of each report plus its count)."""
    import re
    import threading
    x = pdt.tensor(A, device=dev)
    reported, lock = [], threading.Lock()

    def note(e):
        m = re.search(r"(\d+) more out-of-range", str(e))
        with lock:
            reported.append(1 + (int(m.group(1)) if m else 0))

    def work(k):
        for i in range(40):
            x.index_select(0, pdt.tensor([9, 0, 9], device=dev))  # two bad values
            if (i + k) % 3 == 0:
                try:
                    pdt.cuda.synchronize(dev)
                except IndexError as e:
                    note(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        pdt.cuda.synchronize(dev)
    except IndexError as e:
        note(e)
    assert sum(reported) == 3 * 40 * 2, reported


@cuda
@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_exports_report_pending_errors(dev):
    """__dlpack__ and __cuda_array_interface__ hand the memory to another library, which
    reads it with no synchronisation of ours: with checks pending they synchronise and
    report; with none, or with valid indices, nothing is read back."""
    x = pdt.tensor(A, device=dev)
    pdt.cuda.synchronize(dev)
    n = _d2h()
    x.__dlpack__()
    x.__cuda_array_interface__
    y = x[pdt.tensor([4, 0], device=dev)]  # a check pending, valid
    y.__dlpack__()
    y.__cuda_array_interface__
    y.__dlpack__(stream=-1)
    assert _d2h() == n
    bad = x[pdt.tensor([1, 20], device=dev)]
    with pytest.raises(IndexError, match=r"^index: index 20 is out of bounds .* reported at "
                                         r"this synchronisation"):
        bad.__dlpack__()
    bad = x.index_select(0, pdt.tensor([9], device=dev))
    with pytest.raises(IndexError, match=r"^index_select: index 9 is out of bounds"):
        bad.__cuda_array_interface__
    assert _d2h() == n
    bad.__dlpack__()  # reported once
    np.testing.assert_array_equal(y.cpu().numpy(), A[[4, 0]])
