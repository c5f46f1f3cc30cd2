"""The transfer guard (issue 5): transfer_guard(level), config.set_transfer_guard.

What runs where, honestly: on the CPU no copy crosses devices, so the core never
calls the guard's copy hook.  Here we check the levels, their scoping (thread-local
blocks, the process-wide default) and the hook's decisions and messages through
``_C._guard_probe``, which calls the installed hook exactly as the core does
before a transfer of a (2, 3) float32 tensor between cuda:0 and the CPU.  That
item(), repr() and friends really mark their copies implicit, and that .cpu()
and to_numpy() do not, is checked on real copies under the ``cuda`` marker.
"""
import logging
import re
import threading
import warnings

import pytest

import pydevtensor as pdt
from pydevtensor import _C

LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]
KINDS = ["host_to_device", "device_to_host", "peer"]


@pytest.fixture(autouse=True)
def default_level():
    """Every test starts and ends at the default level."""
    assert pdt.config.get_transfer_guard() == "allow"
    yield
    pdt.config.set_transfer_guard("allow")


# What each level does to an implicit and to an explicit transfer.
EXPECTED = {
    "allow": ("pass", "pass"),
    "log": ("log", "pass"),
    "disallow": ("raise", "pass"),
    "log_explicit": ("log", "log"),
    "disallow_explicit": ("raise", "raise"),
}


def probe(kind, op):
    """'raise', 'log' or 'pass': what the hook did with one transfer."""
    records = []

    class Catch(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("pydevtensor.transfer")
    handler = Catch()
    logger.addHandler(handler)
    try:
        _C._guard_probe(kind, op)
    except pdt.TransferError:
        return "raise"
    finally:
        logger.removeHandler(handler)
    return "log" if records else "pass"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", KINDS)
def test_each_level_decides_as_documented(level, kind):
    implicit, explicit = EXPECTED[level]
    with pdt.transfer_guard(level):
        assert pdt.config.get_transfer_guard() == level
        assert probe(kind, "item()") == implicit
        assert probe(kind, None) == explicit
        assert probe("device_to_device", "item()") == "pass"  # within one device


def test_messages_name_the_op_shape_dtype_and_devices(caplog):
    with pdt.transfer_guard("log"), caplog.at_level(logging.WARNING, "pydevtensor.transfer"):
        _C._guard_probe("device_to_host", "repr()")
    (record,) = caplog.records
    assert record.name == "pydevtensor.transfer" and record.levelno == logging.WARNING
    assert record.getMessage() == ("implicit device-to-host transfer by repr() of a float32 "
                                   "tensor of shape (2, 3) from cuda:0 to cpu (24 bytes)")
    with pdt.transfer_guard("disallow"), pytest.raises(pdt.TransferError) as e:
        _C._guard_probe("device_to_host", "item()")
    assert str(e.value).startswith("implicit device-to-host transfer by item() of a float32 "
                                   "tensor of shape (2, 3) from cuda:0 to cpu (24 bytes) "
                                   "refused: the transfer guard is 'disallow'")
    assert ".cpu()" in str(e.value) and isinstance(e.value, RuntimeError)
    with pdt.transfer_guard("disallow_explicit"), pytest.raises(pdt.TransferError) as e:
        _C._guard_probe("host_to_device", None)
    assert "explicit host-to-device transfer from cpu to cuda:0 (24 bytes) refused" in str(
        e.value)


def test_unknown_levels():
    with pytest.raises(ValueError, match="unknown transfer guard level 'never'.*'allow'"):
        pdt.transfer_guard("never")  # at once, before the with block
    with pytest.raises(ValueError, match="unknown transfer guard level"):
        pdt.config.set_transfer_guard("Allow")
    with pytest.raises(TypeError, match="must be a str"):
        pdt.transfer_guard(None)
    assert pdt.config.get_transfer_guard() == "allow"


def test_blocks_nest_and_restore_even_on_errors():
    with pdt.transfer_guard("log"):
        with pdt.transfer_guard("disallow"):
            assert pdt.config.get_transfer_guard() == "disallow"
            with pytest.raises(ZeroDivisionError):
                with pdt.transfer_guard("disallow_explicit"):
                    1 / 0
            assert pdt.config.get_transfer_guard() == "disallow"
        assert pdt.config.get_transfer_guard() == "log"
    assert pdt.config.get_transfer_guard() == "allow"

    @pdt.transfer_guard("disallow")
    def guarded():
        return pdt.config.get_transfer_guard()

    assert guarded() == "disallow" and guarded() == "disallow"
    assert pdt.config.get_transfer_guard() == "allow"


def test_blocks_are_thread_local_and_the_default_is_global():
    seen = {}

    def other(key):
        seen[key] = (pdt.config.get_transfer_guard(), probe("device_to_host", "item()"))

    with pdt.transfer_guard("disallow"):
        t = threading.Thread(target=other, args=("block",))
        t.start()
        t.join()
        assert probe("device_to_host", "item()") == "raise"
    assert seen["block"] == ("allow", "pass")  # the other thread kept the default

    pdt.config.set_transfer_guard("disallow")
    t = threading.Thread(target=other, args=("default",))
    t.start()
    t.join()
    assert seen["default"] == ("disallow", "raise")
    with pdt.transfer_guard("allow"):  # a block overrides the default
        assert probe("device_to_host", "item()") == "pass"


def test_cpu_work_is_never_a_transfer():
    """Nothing crosses devices on the CPU, so even disallow_explicit lets it run."""
    x = pdt.ones(2, 3)
    with pdt.transfer_guard("disallow_explicit"):
        assert x.cpu() is x and x.to("cpu") is x and x[1][2].item() == 1.0
        assert float(x[0][0]) == 1.0 and bool(x[0][0]) and x.tolist()[1] == [1, 1, 1]
        assert repr(x).startswith("tensor(") and pdt.to_numpy(x).shape == (2, 3)
        assert x.clone().tolist() == x.tolist()


# ---------------------------------------------------------------- on a GPU


def _counts():
    return {k: v["count"] for k, v in pdt.transfer_stats().items()}


@pytest.mark.cuda
def test_disallow_refuses_implicit_reads_and_allows_explicit_copies():
    g = pdt.ones(2, 3, device="cuda:0")
    one = pdt.ones(1, device="cuda:0")
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        for call, op in [(lambda: repr(g), "repr()"), (lambda: str(g), "repr()"),
                         (lambda: g.tolist(), "tolist()"), (lambda: one.item(), "item()"),
                         (lambda: float(one), "float()"), (lambda: int(one), "int()"),
                         (lambda: bool(one), "bool()")]:
            with pytest.raises(pdt.TransferError,
                               match="implicit device-to-host transfer by " + re.escape(op)):
                call()
        assert _counts()["device_to_host"] == 0  # refused copies are not made
        assert g.cpu().tolist() == [[1, 1, 1]] * 2
        assert g.to("cpu").shape == (2, 3)
        assert pdt.to_numpy(g).sum() == 6
        assert g.numpy(force=True).shape == (2, 3)
        assert pdt.ones(3).cuda().device == pdt.device("cuda:0")
        assert g.clone().device == g.device  # within one device: not a transfer
    counts = _counts()
    assert counts["device_to_host"] == 4 and counts["host_to_device"] == 1
    assert pdt.transfer_stats()["device_to_host"]["bytes"] == 4 * 24


@pytest.mark.cuda
def test_log_names_the_implicit_transfer(caplog):
    g = pdt.ones(2, 3, device="cuda:0")
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("log"), caplog.at_level(logging.WARNING, "pydevtensor.transfer"):
        text = repr(g)
        g.cpu()  # explicit: not logged at "log"
    assert "device='cuda:0'" in text
    (record,) = caplog.records
    assert record.getMessage() == ("implicit device-to-host transfer by repr() of a float32 "
                                   "tensor of shape (2, 3) from cuda:0 to cpu (24 bytes)")
    assert _counts()["device_to_host"] == 2


@pytest.mark.cuda
def test_explicit_levels_cover_every_transfer(caplog):
    g = pdt.ones(4, device="cuda:0")
    with pdt.transfer_guard("log_explicit"), caplog.at_level(logging.WARNING,
                                                             "pydevtensor.transfer"):
        g.cpu()
        pdt.to_numpy(g)
        pdt.ones(2).to("cuda:0")
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3 and all(m.startswith("explicit ") for m in messages)
    assert "by to_numpy() of a float32 tensor of shape (4,)" in messages[1]
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow_explicit"):
        for call in (g.cpu, lambda: pdt.to_numpy(g), lambda: g.numpy(force=True),
                     lambda: pdt.ones(2).cuda(), lambda: repr(g)):
            with pytest.raises(pdt.TransferError, match="disallow_explicit"):
                call()
    assert sum(_counts().values()) == 0


def test_equal_allclose_and_tensor_of_cpu_tensors_pass_every_level():
    x = pdt.arange(6.0)
    with pdt.transfer_guard("disallow_explicit"):
        assert pdt.equal(x, x) and x.allclose(x + 1e-9) and pdt.allclose(x, x)
        assert pdt.tensor([x[0], x[1]]).tolist() == [0.0, 1.0]


@pytest.mark.cuda
def test_equal_and_allclose_are_implicit_reads():
    """They return a Python bool read from the device, as bool(x.any()): disallow refuses
    them, log names them, and each is one counted 1-byte copy."""
    x = pdt.arange(6.0, device=pdt.device("cuda", pdt.device_count() - 1))
    for call, op in [(lambda: pdt.equal(x, x), "equal()"), (lambda: x.equal(x), "equal()"),
                     (lambda: x.allclose(x), "allclose()"),
                     (lambda: pdt.allclose(x, x + 1e-9), "allclose()")]:
        pdt.reset_transfer_stats()
        with pdt.transfer_guard("disallow"):
            with pytest.raises(pdt.TransferError, match=re.escape(
                    f"implicit device-to-host transfer by {op} of a bool tensor of shape () "
                    f"from {x.device} to cpu")):
                call()
        assert _counts()["device_to_host"] == 0
        assert call() is True
        assert _counts()["device_to_host"] == 1
    assert pdt.equal(x, x + 1) is False and pdt.allclose(x, x + 1) is False
    assert pdt.equal(x, x[:5]) is False  # shapes differ: nothing read


@pytest.mark.cuda
def test_tensor_of_gpu_scalars_is_an_implicit_read():
    """tensor([l0, l1]) reads the numbers to the host as float(l0) does: refused under
    disallow, with device= too (the numbers still pass through the host); stack keeps
    them on the device; tensor(t) of a tensor copies on t's device."""
    last = pdt.device_count() - 1
    l0 = pdt.tensor(1.5, device="cuda:0")
    l1 = pdt.tensor(2.5, device=f"cuda:{last}")
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        for call in (lambda: pdt.tensor([l0, l1]), lambda: pdt.tensor([l0], device="cuda:0"),
                     lambda: pdt.tensor([[l0, 2.0]], device="cuda:0")):
            # read as an element of tensor(), and named so (it was named float())
            with pytest.raises(pdt.TransferError,
                               match=r"implicit device-to-host transfer by tensor\(\) "
                                     r"of a float32 tensor of shape \(\) from cuda:0"):
                call()
        assert _counts()["device_to_host"] == 0
        assert pdt.stack([l0, l0]).device == l0.device  # on the device: no transfer
        with pytest.warns(UserWarning, match="clone\\(\\).detach\\(\\)"):
            copy = pdt.tensor(l1)  # a copy on l1's device: no transfer
        assert copy.device == l1.device
    counts = _counts()  # within one device: copies, not transfers
    assert counts["host_to_device"] == counts["device_to_host"] == counts["peer"] == 0
    both = pdt.tensor([l0, l1], device="cuda:0")
    assert both.device == pdt.device("cuda:0") and both.cpu().tolist() == [1.5, 2.5]
    assert _counts()["device_to_host"] == 3  # the two numbers, then .cpu()


@pytest.mark.cuda
def test_new_tensor_of_a_gpu_tensor_is_an_explicit_copy():
    """cpu_x.new_tensor(gpu_t) asks for a copy on cpu_x's device, as tensor(gpu_t,
    device='cpu') does: an explicit device-to-host transfer (disallow lets it through,
    disallow_explicit refuses it), counted once; gpu_x.new_tensor(cpu_t) the other way."""
    dev = pdt.device("cuda", pdt.device_count() - 1)
    g = pdt.tensor([1.0, 2.0], device=dev)
    c = pdt.ones(2)
    pdt.reset_transfer_stats()
    with pytest.warns(UserWarning, match="clone\\(\\).detach\\(\\)"):
        with pdt.transfer_guard("disallow"):
            assert c.new_tensor(g).tolist() == [1.0, 2.0]
    assert _counts()["device_to_host"] == 1
    with pdt.transfer_guard("disallow_explicit"):
        with pytest.raises(pdt.TransferError, match=re.escape(
                f"explicit device-to-host transfer from {dev} to cpu (8 bytes) refused")):
            c.new_tensor(g)
        with pytest.raises(pdt.TransferError, match="explicit host-to-device transfer"):
            g.new_tensor(c)
    assert _counts()["device_to_host"] == 1  # the refused copy was not made
    with pdt.transfer_guard("disallow"):
        assert g.new_tensor(c).device == dev
    assert _counts()["host_to_device"] == 1


@pytest.mark.cuda
def test_cpu_index_on_a_gpu_tensor_is_an_implicit_copy():
    """x[i] and x[i] = v with i on the CPU and x on a GPU, as PyTorch allows: the index
    is copied to the GPU, one host-to-device transfer that the guard sees as implicit
    (refused under "disallow", x left as it was); an index on x's device crosses
    nothing.  (An index on another device of the same kind is an error: the bad-input
    catalogue's getitem-index-on-another-device.)"""
    x = pdt.arange(6.0, device="cuda:0").reshape(2, 3)
    i, m = pdt.tensor([1, 0]), pdt.tensor([False, True])
    pdt.reset_transfer_stats()
    assert x[i].cpu().tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert x[m].cpu().tolist() == [[3.0, 4.0, 5.0]]
    assert _counts()["host_to_device"] == 2
    with pdt.transfer_guard("disallow"):
        for call in (lambda: x[i], lambda: x[m], lambda: x.__setitem__(i, 7.0)):
            with pytest.raises(pdt.TransferError,
                               match="implicit host-to-device transfer by indexing"):
                call()
        assert x[i.cuda()].shape == (2, 3)  # explicit copy, then no transfer
    assert x.cpu().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert _counts()["host_to_device"] == 3


@pytest.mark.cuda
def test_data_dependent_sizes_and_checks_read_the_device_implicitly(caplog):
    """Ops whose result size or error depends on device data read it back to the host
    (PyTorch's synchronising ops): an implicit transfer named by the op, refused under
    "disallow" and logged under "log".  They went through .cpu(), an explicit copy, so
    "disallow" let them through unseen and disallow_explicit called them explicit."""
    F = pdt.nn.functional
    dev = pdt.device("cuda", pdt.device_count() - 1)
    x = pdt.arange(6.0, device=dev).reshape(2, 3)
    m = x > 2.5
    lab = pdt.tensor([0, 2, 1], device=dev)
    A = pdt.tensor([[2.0, 1.0], [1.0, 3.0]], device=dev)
    pooled, where = F.max_pool1d(x[None], 2, return_indices=True)
    values = pdt.zeros(3, device=dev)
    yes = pdt.tensor(True, device=dev)
    cases = [(lambda: pdt.nonzero(m), "nonzero()"), (lambda: x[m], "indexing"),
             (lambda: x.clone().__setitem__(m, values), "indexing"),
             (lambda: x[yes], "indexing"),
             (lambda: x.masked_scatter(m, pdt.zeros(6, device=dev)), "masked_scatter()"),
             (lambda: pdt.repeat_interleave(lab, lab), "repeat_interleave()"),
             (lambda: F.one_hot(lab), "one_hot()"),
             (lambda: pdt.linalg.solve(A, A), "linalg.solve's check of info"),
             (lambda: F.max_unpool1d(pooled, where, 2), "max_unpool1d()"),
             (lambda: pdt.nn.utils.rnn.invert_permutation(lab), "invert_permutation()")]
    for call, op in cases:
        pdt.reset_transfer_stats()
        with pdt.transfer_guard("disallow"):
            with pytest.raises(pdt.TransferError,
                               match=re.escape(f"implicit device-to-host transfer by {op} ")):
                call()
        assert _counts()["device_to_host"] == 0, op
        caplog.clear()
        with pdt.transfer_guard("log"), caplog.at_level(logging.WARNING,
                                                        "pydevtensor.transfer"):
            call()
        assert any(f"implicit device-to-host transfer by {op} " in r.getMessage()
                   for r in caplog.records), op
    assert x[m].cpu().tolist() == [3.0, 4.0, 5.0]  # the reads themselves are unchanged
    assert pdt.repeat_interleave(lab, lab).cpu().tolist() == [2, 2, 1]


@pytest.mark.cuda
def test_an_index_check_before_a_write_is_an_implicit_read():
    """A write through a GPU index (scatter_add here) checks the index before the op,
    reading its min and max back: two reads the core makes on its own, which the guard
    saw as explicit copies (let through under "disallow", called explicit and unnamed
    under "disallow_explicit").  They are implicit reads named by the op's check."""
    dev = pdt.device("cuda", pdt.device_count() - 1)
    idx = pdt.tensor([0, 2, 1], device=dev)
    src = pdt.ones(3, device=dev)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        with pytest.raises(pdt.TransferError,
                           match=r"implicit device-to-host transfer by the index check of "
                                 r"scatter_add\w* from " + re.escape(str(dev))):
            pdt.zeros(3, device=dev).scatter_add(0, idx, src)
    assert _counts()["device_to_host"] == 0
    out = pdt.zeros(3, device=dev).scatter_add(0, idx, src)
    assert _counts()["device_to_host"] == 2  # the min and the max
    assert out.cpu().tolist() == [1.0, 1.0, 1.0]


def test_a_failing_log_or_sync_warning_stops_the_transfer_with_its_exception():
    """The guard's logging call and the sync debug mode's warning run Python from the
    copy hook (guard.c's in_python): a logger filter that raises, or the warning turned
    into an error, stops the transfer with that exception; a warning that is only
    shown lets it run, pointing at the caller."""
    class Boom(logging.Filter):
        def filter(self, record):
            raise ValueError("the filter failed")

    logger, boom = logging.getLogger("pydevtensor.transfer"), Boom()
    logger.addFilter(boom)
    try:
        with pdt.transfer_guard("log"), pytest.raises(ValueError, match="the filter failed"):
            _C._guard_probe("device_to_host", "item()")
    finally:
        logger.removeFilter(boom)
    _C._set_sync_debug_mode(1)  # "warn", without the GPU that set_sync_debug_mode wants
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            _C._guard_probe("device_to_host", "item()")
        (w,) = seen
        assert str(w.message).startswith("called a synchronizing CUDA operation: implicit "
                                          "device-to-host transfer by item() of a float32")
        assert w.filename == __file__
        with warnings.catch_warnings(), pytest.raises(UserWarning, match="synchronizing"):
            warnings.simplefilter("error")
            _C._guard_probe("device_to_host", "item()")
    finally:
        _C._set_sync_debug_mode(0)
