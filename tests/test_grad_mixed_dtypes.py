"""Gradients of binary ops whose operands have different dtypes: the backward reads the
operands in the promoted (result) dtype, as the forward computed, so a float64 result's
gradient has float64's accuracy (an int or float32 operand is exact in float64).  Each is
compared with its closed-form derivative in NumPy float64, rtol 1e-12, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt

A = np.array([0.3, 1.7, 2.2, 0.9])   # the float64 operand (requires grad)
B = np.array([2.0, 3.0, 5.0, 0.7])   # the other operand, of a lower dtype


def _lower(dtype):
    """B in dtype, and its exact value in float64."""
    if dtype == "int64":
        return pdt.tensor(np.array([2, 3, 5, 1])), np.array([2.0, 3.0, 5.0, 1.0])
    b = B.astype(np.float32)
    return pdt.tensor(b), b.astype(np.float64)


# op(lower, float64): (pydevtensor op, d op / d float64 operand in NumPy)
_ON_SECOND = {
    "pow": (pdt.pow, lambda lo, x: lo ** x * np.log(lo)),
    "atan2": (pdt.atan2, lambda lo, x: -lo / (lo * lo + x * x)),
    "hypot": (pdt.hypot, lambda lo, x: x / np.hypot(lo, x)),
    "logaddexp": (pdt.logaddexp, lambda lo, x: 1.0 / (1.0 + np.exp(lo - x))),
    "xlogy": (pdt.xlogy, lambda lo, x: lo / x),
    "div": (pdt.div, lambda lo, x: -lo / (x * x)),
}
# op(float64, lower): d op / d float64 operand
_ON_FIRST = {
    "pow": (pdt.pow, lambda x, lo: lo * x ** (lo - 1.0)),
    "atan2": (pdt.atan2, lambda x, lo: lo / (x * x + lo * lo)),
    "xlogy": (pdt.xlogy, lambda x, lo: np.log(lo)),
    "logaddexp2": (pdt.logaddexp2, lambda x, lo: 1.0 / (1.0 + np.exp2(lo - x))),
}


@pytest.mark.parametrize("lower", ["int64", "float32"])
@pytest.mark.parametrize("name", sorted(_ON_SECOND))
def test_gradient_of_the_float64_second_operand(device, name, lower):
    op, deriv = _ON_SECOND[name]
    b, lo = _lower(lower)
    x = pdt.tensor(A, device=device, requires_grad=True)
    y = op(b.to(device), x)
    assert y.dtype == pdt.float64
    y.sum().backward()
    assert x.grad.dtype == pdt.float64
    np.testing.assert_allclose(x.grad.cpu().numpy(), deriv(lo, A), rtol=1e-12)


@pytest.mark.parametrize("lower", ["int64", "float32"])
@pytest.mark.parametrize("name", sorted(_ON_FIRST))
def test_gradient_of_the_float64_first_operand(device, name, lower):
    op, deriv = _ON_FIRST[name]
    b, lo = _lower(lower)
    x = pdt.tensor(A, device=device, requires_grad=True)
    op(x, b.to(device)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), deriv(A, lo), rtol=1e-12)


def test_float32_gradient_of_a_float64_result(device):
    # the float32 operand's gradient: computed in float64, then rounded once to float32
    b = B.astype(np.float32)
    y = pdt.tensor(b, device=device, requires_grad=True)
    pdt.pow(y, pdt.tensor(A, device=device)).sum().backward()
    want = (A * b.astype(np.float64) ** (A - 1.0)).astype(np.float32)
    assert y.grad.dtype == pdt.float32
    np.testing.assert_allclose(y.grad.cpu().numpy(), want, rtol=1e-7)
