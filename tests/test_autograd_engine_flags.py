"""autograd.is_multithreading_enabled / set_multithreading_enabled and
is_view_replay_enabled / _force_original_view_tracking (autograd/engine_flags.py):
PyTorch's defaults, set at once as a call, restored by ``with`` and around a decorated
call, per thread; bad modes refused; gradients the same either way."""
import threading

import numpy as np
import pytest

import pydevtensor as pdt

AG = pdt.autograd
SWITCHES = [(AG.set_multithreading_enabled, AG.is_multithreading_enabled, True),
            (AG._force_original_view_tracking, AG.is_view_replay_enabled, False)]


@pytest.mark.parametrize("switch,read,default", SWITCHES)
def test_call_with_and_decorator(switch, read, default):
    assert read() is default
    with switch(not default):
        assert read() is (not default)
        with switch(default):
            assert read() is default
        assert read() is (not default)
    assert read() is default

    @switch(not default)
    def inside():
        return read()

    assert read() is default  # decorating sets nothing
    assert inside() is (not default) and read() is default
    switch(not default)  # a plain call sets it at once, until set again
    try:
        assert read() is (not default)
        with switch(not default).clone():
            assert read() is (not default)
    finally:
        switch(default)
    assert read() is default


@pytest.mark.parametrize("switch,read,default", SWITCHES)
def test_the_switch_is_per_thread(switch, read, default):
    seen = []
    with switch(not default):
        worker = threading.Thread(target=lambda: seen.append(read()))
        worker.start()
        worker.join()
        assert read() is (not default)
    assert seen == [default]


@pytest.mark.parametrize("switch,read,default", SWITCHES)
def test_a_mode_that_is_not_a_bool_is_refused(switch, read, default):
    for bad in (1, "yes", None):
        with pytest.raises(TypeError, match=rf"{switch.__name__}\(\): argument 'mode' "
                                            rf"\(position 1\) must be bool, not "
                                            rf"{type(bad).__name__}"):
            switch(bad)
    assert read() is default


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("threads", [False, True])
def test_gradients_do_not_depend_on_the_switches(replay, threads, device):
    # the base written in place (its view regenerated), then the view written in place
    with AG._force_original_view_tracking(replay), AG.set_multithreading_enabled(threads):
        x = pdt.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
        y = x * 1
        v = y[1:3]
        y.mul_(2)
        v.add_(x[0:2])
        (3 * v.sum() + y.sum()).backward()
    # y = [2 x0, 2 x1 + x0, 2 x2 + x1, 2 x3], v = y[1:3]: loss = 6 x0 + 12 x1 + 8 x2 + 2 x3
    np.testing.assert_allclose(x.grad.cpu().numpy(), [6.0, 12.0, 8.0, 2.0])
