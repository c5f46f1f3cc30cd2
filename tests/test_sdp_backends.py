"""Note [one attention kernel] (pydevtensor/_sdp_backends.py): PyTorch's attention kernel
switches, sdpa_kernel and torch.backends.cuda's enable_*_sdp, with MATH the one kernel."""
import threading

import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F
from pydevtensor.nn.attention import SDPBackend, sdpa_kernel


def test_selections_with_math_run_and_without_it_raise(device):
    q = pdt.randn(2, 3, 4, device=device)
    want = F.scaled_dot_product_attention(q, q, q)
    for chosen in (SDPBackend.MATH, [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
        with sdpa_kernel(chosen):
            assert pdt.equal(F.scaled_dot_product_attention(q, q, q), want)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
        with pytest.raises(RuntimeError, match="No available kernel"):
            F.scaled_dot_product_attention(q, q, q)
    assert pdt.equal(F.scaled_dot_product_attention(q, q, q), want)  # restored
    with pytest.raises(TypeError, match="SDPBackend values"):
        with sdpa_kernel(["flash"]):
            pass


def test_process_wide_switches_and_the_old_context_manager(device):
    cuda = pdt.backends.cuda
    q = pdt.ones(1, 2, 4, device=device)
    assert cuda.math_sdp_enabled() and cuda.flash_sdp_enabled()
    try:
        cuda.enable_flash_sdp(False)
        assert not cuda.flash_sdp_enabled()
        cuda.enable_math_sdp(False)
        with pytest.raises(RuntimeError, match="enable_math_sdp"):
            F.scaled_dot_product_attention(q, q, q)
    finally:
        cuda.enable_math_sdp(True)
        cuda.enable_flash_sdp(True)
    with cuda.sdp_kernel(enable_math=False):
        with pytest.raises(RuntimeError, match="No available kernel"):
            F.scaled_dot_product_attention(q, q, q)
    F.scaled_dot_product_attention(q, q, q)


def test_a_selection_is_the_threads_own():
    q = pdt.ones(1, 2, 4)
    seen = []

    def other():
        seen.append(F.scaled_dot_product_attention(q, q, q).shape)

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [(1, 2, 4)]
