"""out= of the reductions written in C (sum, mean, prod, amax, amin, argmax, argmin, max,
min, norm): the function forms hand the call to pydevtensor/_out.py's _reduction_out,
which writes the result by PyTorch's rules (see that module); and of those written in
Python that PyTorch gives out= too (var, std, nanmean, quantile, nanquantile, any, all:
_out.takes_out, where they refused out= before)."""
import numpy as np
import pytest

import pydevtensor as pdt

X = np.array([[1.5, -2.25, 3.0], [4.0, 0.5, -6.0]])
CASES = {  # name: (call without out, NumPy reference)
    "sum": (lambda x, **k: pdt.sum(x, 1, **k), lambda a: a.sum(1)),
    "mean": (lambda x, **k: pdt.mean(x, 0, **k), lambda a: a.mean(0)),
    "prod": (lambda x, **k: pdt.prod(x, 1, **k), lambda a: a.prod(1)),
    "amax": (lambda x, **k: pdt.amax(x, 0, **k), lambda a: a.max(0)),
    "amin": (lambda x, **k: pdt.amin(x, **k), lambda a: a.min()),
    "argmax": (lambda x, **k: pdt.argmax(x, 1, **k), lambda a: a.argmax(1)),
    "argmin": (lambda x, **k: pdt.argmin(x, **k), lambda a: a.argmin()),
    "max": (lambda x, **k: pdt.max(x, **k), lambda a: a.max()),
    "norm": (lambda x, **k: pdt.norm(x, dim=1, **k), lambda a: np.sqrt((a * a).sum(1))),
    "var": (lambda x, **k: pdt.var(x, 1, **k), lambda a: a.var(1, ddof=1)),
    "std": (lambda x, **k: pdt.std(x, correction=0, **k), lambda a: a.std()),
    "nanmean": (lambda x, **k: pdt.nanmean(x / x * x, 0, **k), lambda a: a.mean(0)),
    "quantile": (lambda x, **k: pdt.quantile(x, 0.25, 1, keepdim=True, **k),
                 lambda a: np.quantile(a, 0.25, 1, keepdims=True)),
    "nanquantile": (lambda x, **k: pdt.nanquantile(x, pdt.tensor([0.5, 0.9], dtype=x.dtype,
                                                              device=x.device), **k),
                    lambda a: np.quantile(a, [0.5, 0.9])),
    "any": (lambda x, **k: pdt.any(x > 3, 1, **k), lambda a: (a > 3).any(1)),
    "all": (lambda x, **k: pdt.all(x, **k), lambda a: a.all()),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("empty", [False, True])
def test_out_is_written_and_returned(device, name, empty):
    call, ref = CASES[name]
    x = pdt.tensor(X, device=device)
    want = call(x)
    out = pdt.empty(0 if empty else tuple(want.shape), dtype=want.dtype, device=device)
    got = call(x, out=out)
    assert got is out and tuple(out.shape) == tuple(want.shape)
    np.testing.assert_allclose(out.cpu().numpy(), ref(X), rtol=1e-12)


def test_max_and_min_along_a_dim_write_a_pair(device):
    x = pdt.tensor(X, device=device)
    values = pdt.empty(0, dtype=pdt.float64, device=device)
    indices = pdt.empty(3, dtype=pdt.int64, device=device)
    got = pdt.max(x, 0, out=(values, indices))
    assert got.values is values and got.indices is indices
    np.testing.assert_array_equal(values.cpu().numpy(), X.max(0))
    np.testing.assert_array_equal(indices.cpu().numpy(), X.argmax(0))
    values, indices = pdt.empty(0, dtype=pdt.float64, device=device), pdt.empty(
        0, dtype=pdt.int64, device=device)
    pdt.min(x, 1, keepdim=True, out=(values, indices))
    np.testing.assert_array_equal(values.cpu().numpy(), X.min(1, keepdims=True))
    np.testing.assert_array_equal(indices.cpu().numpy(), X.argmin(1)[:, None])


def test_sum_mean_prod_compute_in_outs_dtype(device):
    x = pdt.tensor(X, dtype=pdt.float32, device=device)
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    pdt.sum(x, 1, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), X.astype(np.float32).astype(np.float64)
                               .sum(1), rtol=1e-15)
    ints = pdt.tensor([[1, 2], [3, 4]], device=device)
    out = pdt.empty(2, device=device)
    assert pdt.sum(ints, 0, out=out).tolist() == [4.0, 6.0]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pdt.sum(x, 1, dtype=pdt.float64, out=pdt.empty(2, device=device))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32"])
@pytest.mark.parametrize("name", ["sum", "prod"])
def test_sum_prod_of_a_small_int_or_bool_into_an_out_of_its_dtype(device, name, dtype):
    """Without out, a bool or int32 input sums (and multiplies) into int64; with an out of
    input's own dtype the result is computed in out's dtype (a bool sum is an any, a bool
    product an all, uint8 wraps), as PyTorch's."""
    a = np.array([[True, False, False], [True, True, False]]) if dtype == "bool" else \
        np.array([[200, 3, 0], [2, 100, 7]]).astype(dtype)
    x = pdt.tensor(a, device=device)
    out = pdt.empty(0, dtype=getattr(pdt, dtype), device=device)
    assert getattr(pdt, name)(x, 0, out=out) is out and out.dtype == x.dtype
    want = getattr(np, name)(a, 0, dtype=dtype)  # NumPy's: bool any / all, uint8 wraps
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_python_reductions_refuse_an_out_of_another_dtype(device):
    x = pdt.tensor(X, device=device)
    with pytest.raises(RuntimeError, match="dtype"):
        pdt.var(x, 1, out=pdt.empty(2, dtype=pdt.float32, device=device))
    with pytest.raises(RuntimeError, match="dtype"):
        pdt.any(x, out=pdt.empty((), dtype=pdt.float64, device=device))


def test_out_refusals(device):
    x = pdt.tensor(X, device=device)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pdt.amax(x, 0, out=pdt.empty(3, dtype=pdt.float32, device=device))
    with pytest.raises(RuntimeError, match="does not resize out"):
        pdt.sum(x, 1, out=pdt.empty(5, dtype=pdt.float64, device=device))
    with pytest.raises(TypeError, match="out must be a tuple of 2 Tensors"):
        pdt.max(x, 0, out=pdt.empty(3, dtype=pdt.float64, device=device))
    w = pdt.tensor(X, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        pdt.sum(w, 1, out=pdt.empty(2, dtype=pdt.float64, device=device))
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        x.sum(1, out=pdt.empty(2, dtype=pdt.float64, device=device))  # as PyTorch's method
