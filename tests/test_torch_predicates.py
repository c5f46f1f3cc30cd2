"""torch.is_conj, is_neg, is_signed and is_same_size at the top level, the methods
Tensor.is_conj / is_neg (_ops_real.py), and Tensor.cholesky_solve (_linalg_names.py):
against the dtypes' definitions, NumPy's solve in float64 and the closed-form gradient."""
import numpy as np
import pytest

import pydevtensor as pdt

SIGNED = {"float16": True, "bfloat16": True, "float32": True, "float64": True, "int8": True,
          "int16": True, "int32": True, "int64": True, "uint8": False, "bool": False}


@pytest.mark.parametrize("dtype", sorted(SIGNED))
def test_is_signed_follows_the_dtype(device, dtype):
    x = pdt.ones(3, dtype=getattr(pdt, dtype), device=device)
    assert pdt.is_signed(x) is SIGNED[dtype]
    assert pdt.is_signed(x) == x.is_signed()
    # nothing here is complex or carries a lazy bit
    assert pdt.is_conj(x) is False and pdt.is_neg(x) is False
    assert x.is_conj() is False and x.is_neg() is False
    assert x.conj().is_conj() is False and (-x if dtype != "bool" else x).is_neg() is False


def test_is_same_size(device):
    a = pdt.zeros(2, 3, device=device)
    assert pdt.is_same_size(a, pdt.ones(2, 3, dtype=pdt.int64, device=device)) is True
    assert pdt.is_same_size(a, a.T) is False
    assert pdt.is_same_size(a, pdt.zeros(2, 3, 1, device=device)) is False
    assert pdt.is_same_size(pdt.zeros(0, device=device), pdt.zeros(0, device=device))
    assert pdt.is_same_size(pdt.tensor(1.0, device=device), pdt.tensor(2.0, device=device))
    with pytest.raises(TypeError, match=r"is_same_size\(\): argument 'other'"):
        pdt.is_same_size(a, [[0.0] * 3] * 2)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_cholesky_solve_against_numpy(device, upper, dtype):
    rng = np.random.default_rng(3)
    m = rng.standard_normal((2, 4, 4))
    a = m @ m.transpose(0, 2, 1) + 4 * np.eye(4)
    low = np.linalg.cholesky(a)
    fac = low.transpose(0, 2, 1) if upper else low
    b = rng.standard_normal((2, 4, 3))
    bt = pdt.tensor(b, dtype=getattr(pdt, dtype), device=device, requires_grad=True)
    ft = pdt.tensor(fac, dtype=getattr(pdt, dtype), device=device)
    x = bt.cholesky_solve(ft, upper=upper)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(x.detach().cpu().numpy(), np.linalg.solve(a, b), rtol=tol,
                               atol=tol)
    # positionally too, and the same as the function
    np.testing.assert_array_equal(bt.cholesky_solve(ft, upper).detach().cpu().numpy(),
                                  pdt.cholesky_solve(bt, ft, upper).detach().cpu().numpy())
    # d(sum X)/dB = A^-T 1 = A^-1 1 (A symmetric)
    x.sum().backward()
    np.testing.assert_allclose(bt.grad.cpu().numpy(),
                               np.linalg.solve(a, np.ones((2, 4, 3))), rtol=tol, atol=tol)
