"""var, std, var_mean and std_mean as PyTorch's: float16/bfloat16 summed in float32 (the
squared deviations of 1000 values near 100 overflowed float16), the overloads
(unbiased positional, dim and keepdim positional, correction keyword), dims given as
NumPy integers or one-element integer tensors (also for nansum, nanmean and
logsumexp), the gradient for a correction above N (divided by N - correction), and
PyTorch's warning when no degrees of freedom are left (also cov's and corrcoef's).
References are NumPy in float64 and closed forms.
"""
import contextlib
import warnings

import numpy as np
import pytest

import pydevtensor as pdt

A = np.array([[1.0, 2.0, 4.5], [3.0, 5.0, -1.0]])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_var_std_accumulate_in_float32(device, dtype):
    a = (100 + 30 * np.random.default_rng(0).standard_normal(1000)).astype(np.float32)
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    exact = x.float().cpu().numpy().astype(np.float64)  # the half values themselves
    tol = 2 ** -7 if dtype == "bfloat16" else 2 ** -10
    for corr in (0, 1):
        want = np.var(exact, ddof=corr)
        got = [x.var(correction=corr), pdt.var_mean(x, correction=corr)[0]]
        for v in got:
            assert v.dtype == getattr(pdt, dtype)
            np.testing.assert_allclose(float(v), want, rtol=tol)
        for s in (x.std(correction=corr), pdt.std_mean(x, correction=corr)[0]):
            assert s.dtype == getattr(pdt, dtype)
            np.testing.assert_allclose(float(s), np.sqrt(want), rtol=tol)
    m = x.reshape(100, 10)
    want = np.var(exact.reshape(100, 10), 0, ddof=1)
    np.testing.assert_allclose(m.var(0).float().cpu().numpy(), want, rtol=tol)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
def test_var_std_overloads_as_torch(device, fn):
    x = pdt.tensor(A, device=device)
    f = getattr(pdt, fn)

    def ref(axis=None, ddof=1, keepdims=False):
        v = np.var(A, axis=axis, ddof=ddof, keepdims=keepdims)
        v = np.sqrt(v) if fn.startswith("std") else v
        if fn.endswith("_mean"):
            return v, np.mean(A, axis=axis, keepdims=keepdims)
        return (v,)

    def check(got, want):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert tuple(g.shape) == w.shape
            np.testing.assert_allclose(g.cpu().numpy(), w, rtol=1e-12)

    check(f(x, False), ref(ddof=0))  # var(x, unbiased)
    check(f(x, True), ref())
    check(f(x, 1, False), ref(1, 0))  # var(x, dim, unbiased, keepdim)
    check(f(x, 0, False, True), ref(0, 0, True))
    check(f(x, None, False), ref(ddof=0))
    check(f(x, 1, keepdim=True, correction=0), ref(1, 0, True))
    check(f(x, dim=(0, 1), unbiased=False), ref(None, 0))
    check(f(x, np.int64(1)), ref(1))  # NumPy integers and integer tensors for dim
    check(f(x, pdt.tensor(-1, device=device)), ref(1))
    check(f(x, [np.int32(0)], correction=0), ref(0, 0))
    if fn in ("var", "std"):
        check(getattr(x, fn)(1, False), ref(1, 0))
    with pytest.raises(TypeError, match="unbiased or correction"):
        f(x, 0, False, correction=1)
    with pytest.raises(TypeError, match="argument .unbiased. must be bool, not int"):
        f(x, 0, 1)


@pytest.mark.parametrize("fn", ["nansum", "nanmean", "logsumexp"])
def test_nan_reductions_take_numpy_and_tensor_dims(device, fn):
    x = pdt.tensor(A, device=device)
    want = {"nansum": A.sum(1), "nanmean": A.mean(1),
            "logsumexp": np.log(np.exp(A).sum(1))}[fn]
    for dim in (np.int64(1), pdt.tensor(1, device=device), (np.int16(-1),)):
        got = getattr(pdt, fn)(x, dim)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    with pytest.raises(TypeError, match="dim must be an int"):
        getattr(pdt, fn)(x, 1.0)


@pytest.mark.parametrize("corr, dim", [(4, 1), (5, 1), (7, None), (2.5, 1)])
def test_var_gradient_for_a_correction_above_n(device, corr, dim):
    """The value divides by max(0, N - correction) (inf), the gradient by N - correction
    itself: 2 (x - mean) / (N - correction), finite (it was NaN)."""
    x = pdt.tensor(A, device=device, requires_grad=True)
    n = A.shape[1] if dim == 1 else A.size
    with (pytest.warns(UserWarning, match="degrees of freedom is <= 0") if n - corr <= 0
          else contextlib.nullcontext()):
        v = x.var(dim, correction=corr)
    mean = A.mean(axis=dim, keepdims=True)
    want = (A - mean).__pow__(2).sum(axis=dim) / (n - corr)
    if n - corr < 0:
        assert np.all(np.isinf(v.detach().cpu().numpy()))
    else:
        np.testing.assert_allclose(v.detach().cpu().numpy(), want, rtol=1e-12)
    (g,) = pdt.autograd.grad(v.sum(), x)
    np.testing.assert_allclose(g.cpu().numpy(), 2 * (A - mean) / (n - corr), rtol=1e-12)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("shape, kw", [((1,), {}), ((), {}), ((2, 3), {"dim": 1, "correction": 3}),
                                       ((2, 3), {"dim": 0, "correction": 2.5}),
                                       ((0, 3), {"dim": 1}), ((0, 3), {"dim": 0}),
                                       ((2, 0, 3), {"dim": 0, "correction": 0})])
def test_no_degrees_of_freedom_warns_as_torch(device, fn, shape, kw):
    """N - correction <= 0 (or an empty input: PyTorch's factor is input numel / output
    numel) warns, the value still NaN (or empty); the warning names the caller's line."""
    a = np.full(shape, 1.5)
    with pytest.warns(UserWarning, match=f"^{fn}\\(\\): degrees of freedom is <= 0") as rec:
        got = getattr(pdt, fn)(pdt.tensor(a, device=device), **kw)
    assert rec[0].filename == __file__
    got = got[0] if fn.endswith("_mean") else got
    # no deviation, divided by max(0, N - correction) = 0: NaN, or empty, as NumPy's
    want = np.full(np.sum(a, axis=kw.get("dim")).shape, np.nan)
    np.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("fn, shape, correction, warns", [
    ("var", (3,), 2, False), ("var", (3,), 3, True), ("std", (2, 4), 3, False),
    ("var_mean", (4, 1), 0, False)])
def test_degrees_of_freedom_warning_only_when_none_left(device, fn, shape, correction, warns):
    x = pdt.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape), device=device)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        getattr(pdt, fn)(x, correction=correction)
    assert bool(rec) == warns


@pytest.mark.parametrize("fn, a, kw", [("cov", np.ones(1), {}), ("cov", np.ones((2, 3)),
                                                                 {"correction": 3}),
                                       ("corrcoef", np.ones((2, 1)), {}),
                                       ("cov", np.zeros((2, 0)), {"correction": 0})])
def test_cov_without_degrees_of_freedom_warns_as_torch(device, fn, a, kw):
    with pytest.warns(UserWarning, match="^cov\\(\\): degrees of freedom is <= 0") as rec:
        getattr(pdt, fn)(pdt.tensor(a, device=device), **kw)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdt.cov(pdt.tensor(np.ones((2, 3)), device=device), correction=2)
