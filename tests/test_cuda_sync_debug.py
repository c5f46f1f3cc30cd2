"""torch.cuda.set_sync_debug_mode / get_sync_debug_mode (pydevtensor/_cuda_sync_debug.py,
Note [sync debug mode] in csrc/python/guard.c): warn or raise on the implicit
device-to-host reads, through the copy hook (also without a GPU, by _guard_probe)."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE


@pytest.fixture
def sync_mode():
    """Sets the sync debug mode through _C (which works without a GPU too, for the
    probe), and puts it back to 0 after."""
    yield pdt._C._set_sync_debug_mode
    pdt._C._set_sync_debug_mode(0)


SYNC = r"called a synchronizing CUDA operation: implicit device-to-host transfer by "


def test_sync_debug_mode_warns_or_raises_on_implicit_device_to_host_reads(sync_mode):
    """The hook as the core runs it before a (2, 3) float32 transfer between cuda:0 and
    the CPU (_guard_probe), so it is tested without a GPU too."""
    sync_mode(1)
    with pytest.warns(UserWarning, match=SYNC + r"item\(\) of a float32 tensor of shape "
                                               r"\(2, 3\) from cuda:0 to cpu") as seen:
        pdt._C._guard_probe("device_to_host", "item()")
    assert len(seen) == 1 and seen[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdt._C._guard_probe("device_to_host")  # explicit (.cpu()): not seen
        pdt._C._guard_probe("host_to_device", "tensor()")  # the host does not wait
        pdt._C._guard_probe("peer", "item()")
        with pytest.raises(UserWarning, match=SYNC):  # a warning made an error raises
            pdt._C._guard_probe("device_to_host", "item()")
    sync_mode(2)
    with pytest.raises(pdt.TransferError, match=SYNC + r"item\(\) .* refused: the sync debug "
                                                       r"mode is 'error'"):
        pdt._C._guard_probe("device_to_host", "item()")
    assert issubclass(pdt.TransferError, RuntimeError)  # PyTorch raises RuntimeError
    pdt._C._guard_probe("device_to_host")
    sync_mode(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdt._C._guard_probe("device_to_host", "item()")


def test_a_transfer_the_guard_refuses_is_not_reported_as_synchronizing(sync_mode):
    """Under transfer_guard('disallow') an implicit read never runs, so it makes the host
    wait for nothing: the guard's TransferError alone, no sync warning (it was warned of
    first, and with warnings as errors the UserWarning hid the guard's error)."""
    sync_mode(1)
    for level in ("disallow", "disallow_explicit"):
        with pdt.transfer_guard(level), warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(pdt.TransferError, match=rf"refused: the transfer guard is "
                                                        rf"'{level}'"):
                pdt._C._guard_probe("device_to_host", "item()")
    sync_mode(2)  # both refuse: the guard's message, the level that is set per thread
    with pdt.transfer_guard("disallow"):
        with pytest.raises(pdt.TransferError, match=r"refused: the transfer guard is "
                                                    r"'disallow'"):
            pdt._C._guard_probe("device_to_host", "item()")
    with pdt.transfer_guard("log"):  # a logged read runs: the sync mode still refuses it
        with pytest.raises(pdt.TransferError, match=SYNC + r"item\(\) .* refused: the sync "
                                                           r"debug mode is 'error'"):
            pdt._C._guard_probe("device_to_host", "item()")


def test_sync_debug_mode_sees_the_reads_of_a_gpu_tensor(device, sync_mode):
    x = pdt.tensor([0.0, 1.5, 0.0, 2.0], device=device)
    on_gpu = x.is_cuda
    sync_mode(1)
    if on_gpu:
        with pytest.warns(UserWarning, match=SYNC + r"item\(\)") as seen:
            assert x.sum().item() == 3.5
        assert seen[0].filename == __file__
        with pytest.warns(UserWarning, match=SYNC + r"tolist\(\)"):
            assert x.tolist() == [0.0, 1.5, 0.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(x.cpu().numpy(), [0.0, 1.5, 0.0, 2.0])  # explicit: not seen
        if not on_gpu:
            assert x.sum().item() == 3.5 and bool(x.any())
    sync_mode(2)
    if on_gpu:
        with pytest.raises(pdt.TransferError, match=SYNC + r"bool\(\)"):
            bool(x.any())
        with pytest.raises(pdt.TransferError, match=SYNC):
            x.nonzero()
    else:
        assert x.nonzero().tolist() == [[1], [3]]
    if pdt.cuda.is_available():
        assert pdt.cuda.get_sync_debug_mode() == 2
        pdt.cuda.set_sync_debug_mode("default")
        assert pdt.cuda.get_sync_debug_mode() == 0
    assert x.nonzero().cpu().tolist() == [[1], [3]]


@pytest.mark.cuda
@pytest.mark.parametrize("mode,value", [("default", 0), ("warn", 1), ("error", 2), (0, 0),
                                        (1, 1), (2, 2), (np.int64(2), 2), (np.uint8(1), 1)])
def test_set_sync_debug_mode_takes_torchs_names_and_numbers(mode, value, sync_mode):
    pdt.cuda.set_sync_debug_mode(mode)
    assert pdt.cuda.get_sync_debug_mode() == value == pdt._C._get_sync_debug_mode()


@pytest.mark.parametrize("mode,kind,match", [
    ("loud", RuntimeError, r"invalid value of debug_mode 'loud', expected one of `default`, "
                           r"`warn`, `error`"),
    (3, RuntimeError, r"invalid value of debug_mode 3, expected one of 0, 1, 2"),
    (np.int32(5), RuntimeError, r"invalid value of debug_mode 5, expected one of 0, 1, 2"),
    (np.float64(1.0), TypeError, r"debug_mode must be an int or a str, got float64"),
    (-1, RuntimeError, r"invalid value of debug_mode -1"),
    (1.0, TypeError, r"debug_mode must be an int or a str, got float"),
    (True, TypeError, r"debug_mode must be an int or a str, got bool")])
def test_set_sync_debug_mode_refuses_other_values(mode, kind, match):
    with pytest.raises(kind, match=match):
        pdt.cuda.set_sync_debug_mode(mode)


@pytest.mark.skipif(CUDA_AVAILABLE, reason="the answers without a GPU")
def test_sync_debug_mode_without_a_gpu_raises_as_torch():
    """torch.cuda.set_sync_debug_mode / get_sync_debug_mode raise RuntimeError without a
    GPU (its lazy CUDA start); DeviceError is one, and says why."""
    for call in (lambda: pdt.cuda.set_sync_debug_mode("warn"), pdt.cuda.get_sync_debug_mode):
        with pytest.raises(pdt.DeviceError, match=r"cuda\.\w+_sync_debug_mode\(\): no CUDA "
                                                  r"device can be used"):
            call()
    assert pdt._C._get_sync_debug_mode() == 0
