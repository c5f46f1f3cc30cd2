"""autograd.detect_anomaly / set_detect_anomaly: a backward Node returning NaN raises,
naming it, as torch's; off, the same backward gives the NaN gradient."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import autograd


def _nan_backward(lib, device):
    x = lib.tensor([0.0, 1.0], device=device, requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    return x


def _message(lib, device, ctx):
    with pytest.raises(RuntimeError) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ctx():
                _nan_backward(lib, device)
    return str(info.value)


def test_detect_anomaly_raises_like_torch(device):
    torch = torch_or_skip()
    got = _message(pdt, device, autograd.detect_anomaly)
    assert got == _message(torch, "cpu", torch.autograd.detect_anomaly) == \
        "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert not autograd.is_anomaly_enabled()
    x = _nan_backward(pdt, device)  # off again: the NaN gradient comes back
    assert np.isnan(x.grad.cpu().numpy()[0])


def test_set_detect_anomaly_function_and_context(device):
    assert not autograd.is_anomaly_enabled()
    autograd.set_detect_anomaly(True)
    try:
        assert autograd.is_anomaly_enabled() and autograd.is_anomaly_check_nan_enabled()
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            _nan_backward(pdt, device)
        with autograd.set_detect_anomaly(True, check_nan=False):
            x = _nan_backward(pdt, device)  # no check
            assert np.isnan(x.grad.cpu().numpy()[0])
        assert autograd.is_anomaly_check_nan_enabled()
        # a backward without NaN is unchanged under the check
        y = pdt.tensor([1.0, 4.0], device=device, requires_grad=True)
        (y.sqrt() * y).sum().backward()
        np.testing.assert_allclose(y.grad.cpu().numpy(), 1.5 * np.sqrt([1.0, 4.0]))
    finally:
        autograd.set_detect_anomaly(False)
    assert not autograd.is_anomaly_enabled()


def test_the_queries_are_top_level_names_too():
    """PyTorch has torch.is_anomaly_enabled and torch.is_anomaly_check_nan_enabled."""
    assert pdt.is_anomaly_enabled is autograd.is_anomaly_enabled
    assert pdt.is_anomaly_check_nan_enabled is autograd.is_anomaly_check_nan_enabled
    with autograd.set_detect_anomaly(True, check_nan=False):
        assert pdt.is_anomaly_enabled() and not pdt.is_anomaly_check_nan_enabled()
    assert not pdt.is_anomaly_enabled() and pdt.is_anomaly_check_nan_enabled()


def test_detect_anomaly_decorator_and_warning(device):
    @autograd.detect_anomaly()
    def run():
        assert autograd.is_anomaly_enabled()
        return _nan_backward(pdt, device)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with pytest.raises(RuntimeError, match="returned nan values"):
            run()
    assert not autograd.is_anomaly_enabled()
    with pytest.raises(TypeError, match=r"^set_detect_anomaly\(\): argument 'mode' \(position 1\) "
                       r"must be bool, not str$"):
        autograd.set_detect_anomaly("yes")
