"""A 0-d tensor where PyTorch takes a number (alpha=, fill values, an activation's
constants, logit's eps, nan_to_num's replacements, polygamma's n, norm's p,
scalar_tensor, a window's length): its value is used, as PyTorch's, on every device
(from a GPU, item()'s counted copy, as float(t) is); a tensor of more elements is still
refused.  Each result against the same call with the Python number (itself checked
against NumPy in the ops' own tests), exactly."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F

X = np.array([-1.5, -0.25, 0.0, 0.3, 0.75, 2.0])

CASES = {  # name: (call(x, v), the number v, its dtype)
    "add alpha": (lambda x, v: pdt.add(x, x * 0.5, alpha=v), 2.5, "float32"),
    "sub alpha": (lambda x, v: x.sub(x * 0.5, alpha=v), 3, "int64"),
    "full_like": (lambda x, v: pdt.full_like(x, v), 0.25, "float32"),
    "full": (lambda x, v: pdt.full((3,), v, device=x.device), 1.5, "float64"),
    "fill_": (lambda x, v: x.clone().fill_(v), -2.0, "float32"),
    "celu": (lambda x, v: F.celu(x, v), 2.0, "float32"),
    "elu": (lambda x, v: F.elu(x, v), 0.5, "float64"),
    "hardshrink": (lambda x, v: F.hardshrink(x, v), 0.6, "float32"),
    "softplus beta": (lambda x, v: F.softplus(x, beta=v), 2.0, "float32"),
    "hardtanh": (lambda x, v: F.hardtanh(x, min_val=v), -0.5, "float32"),
    "threshold": (lambda x, v: F.threshold(x, v, 9.0), 0.4, "float32"),
    "logit eps": (lambda x, v: pdt.logit(x.abs() / 3, v), 0.1, "float64"),
    "nan_to_num": (lambda x, v: pdt.nan_to_num(x.log(), nan=v, neginf=v), 5.0, "float32"),
    "polygamma": (lambda x, v: pdt.polygamma(v, x.abs() + 0.5), 1, "int64"),
    "norm p": (lambda x, v: pdt.norm(x, p=v), 3.0, "float32"),
    "Tensor.norm p": (lambda x, v: x.norm(p=v), 1, "int64"),
    "scalar_tensor": (lambda x, v: pdt.scalar_tensor(v, device=x.device), 7.5, "float64"),
    "hann_window": (lambda x, v: pdt.hann_window(v, device=x.device), 5, "int64"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_zero_dim_tensor_is_taken_for_a_number(device, name):
    call, v, dtype = CASES[name]
    x = pdt.tensor(X, dtype=pdt.float32, device=device)
    want = call(x, v).cpu().numpy()
    got = call(x, pdt.tensor(v, dtype=getattr(pdt, dtype), device=device)).cpu().numpy()
    np.testing.assert_array_equal(got, want)
    assert not np.isnan(want).all() and not math.isnan(float(np.asarray(want).ravel()[0]))


def test_a_tensor_of_more_elements_is_still_refused(device):
    x = pdt.tensor(X, device=device)
    two = pdt.tensor([2.0, 3.0], device=device)
    with pytest.raises(TypeError, match=r"add\(\): alpha must be a number or a 0-d tensor, "
                                        r"not a tensor of 1 dimensions"):
        pdt.add(x, x, alpha=two)
    with pytest.raises(TypeError, match="single element"):
        pdt.full_like(x, two)
    with pytest.raises(TypeError, match="celu"):
        F.celu(x, two)
