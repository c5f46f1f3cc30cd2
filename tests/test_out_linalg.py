"""out= of the linear algebra (pydevtensor.linalg's solvers, decompositions, norms and
products) and of diag, outer, logsumexp, bmm, where, cholesky_solve, cholesky_inverse,
inverse and cross (pydevtensor/_out.py's takes_out), on every device, against NumPy in
float64 and the call without out.

PyTorch's rules: the result is written into out and out is returned (a tuple of outs,
returned as the op's named tuple, for the ops with several results: slogdet, eigh,
svd, qr, lu, lu_factor, lstsq and the _ex forms); an out with no elements takes the
result's shape; out must have the result's dtype, except where PyTorch casts (cholesky_solve,
cholesky_inverse, pinv, matrix_rank, cond, lstsq, outer, logsumexp: an out of a dtype
the result can be cast to); out on another device, or out= where an argument or out
requires grad, raises.  A non-empty out of another shape is refused (PyTorch resizes it
with a warning).
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES

S = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.25], [0.5, -0.25, 2.0]])  # SPD
B = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 6.0]])
V = np.array([1.0, 2.0, 3.0])
W = np.array([4.0, -5.0, 6.0])
CS = np.linalg.cholesky(S)


def _lse(a, axis):
    m = a.max(axis)
    return m + np.log(np.exp(a - np.expand_dims(m, axis)).sum(axis))


# name: (call(s, b, v, w, **out), NumPy's result (of the first result for a tuple),
#        "cast" where out may have any dtype the result casts to, else "exact")
CASES = {
    "linalg.cholesky": (lambda s, b, v, w, **k: pdt.linalg.cholesky(s, **k), CS, "exact"),
    "linalg.cholesky_ex": (lambda s, b, v, w, **k: pdt.linalg.cholesky_ex(s, **k), CS,
                           "exact"),
    "linalg.solve": (lambda s, b, v, w, **k: pdt.linalg.solve(s, b, **k),
                     np.linalg.solve(S, B), "exact"),
    "linalg.solve_ex": (lambda s, b, v, w, **k: pdt.linalg.solve_ex(s, b, **k),
                        np.linalg.solve(S, B), "exact"),
    "linalg.inv": (lambda s, b, v, w, **k: pdt.linalg.inv(s, **k), np.linalg.inv(S), "exact"),
    "linalg.inv_ex": (lambda s, b, v, w, **k: pdt.linalg.inv_ex(s, **k), np.linalg.inv(S),
                      "exact"),
    "inverse": (lambda s, b, v, w, **k: pdt.inverse(s, **k), np.linalg.inv(S), "exact"),
    "linalg.det": (lambda s, b, v, w, **k: pdt.linalg.det(s, **k), np.linalg.det(S), "exact"),
    "linalg.slogdet": (lambda s, b, v, w, **k: pdt.linalg.slogdet(s, **k), np.array(1.0),
                       "exact"),
    "linalg.eigh": (lambda s, b, v, w, **k: pdt.linalg.eigh(s, **k), np.linalg.eigvalsh(S),
                    "exact"),
    "linalg.eigvalsh": (lambda s, b, v, w, **k: pdt.linalg.eigvalsh(s, **k),
                        np.linalg.eigvalsh(S), "exact"),
    "linalg.svd": (lambda s, b, v, w, **k: pdt.linalg.svd(b, full_matrices=False, **k),
                   None, "exact"),
    "linalg.svdvals": (lambda s, b, v, w, **k: pdt.linalg.svdvals(b, **k),
                       np.linalg.svd(B, compute_uv=False), "exact"),
    "linalg.qr": (lambda s, b, v, w, **k: pdt.linalg.qr(b, **k), None, "exact"),
    "linalg.lu_factor": (lambda s, b, v, w, **k: pdt.linalg.lu_factor(s, **k), None, "exact"),
    "linalg.lu_factor_ex": (lambda s, b, v, w, **k: pdt.linalg.lu_factor_ex(s, **k), None,
                            "exact"),
    "linalg.lu": (lambda s, b, v, w, **k: pdt.linalg.lu(s, **k), None, "exact"),
    "linalg.lu_solve": (lambda s, b, v, w, **k: pdt.linalg.lu_solve(
        *pdt.linalg.lu_factor(s), b, **k), np.linalg.solve(S, B), "exact"),
    "linalg.ldl_factor": (lambda s, b, v, w, **k: pdt.linalg.ldl_factor(s, **k), None,
                          "exact"),
    "linalg.ldl_factor_ex": (lambda s, b, v, w, **k: pdt.linalg.ldl_factor_ex(s, **k), None,
                             "exact"),
    "linalg.ldl_solve": (lambda s, b, v, w, **k: pdt.linalg.ldl_solve(
        *pdt.linalg.ldl_factor(s), b, **k), np.linalg.solve(S, B), "exact"),
    "linalg.norm": (lambda s, b, v, w, **k: pdt.linalg.norm(b, **k), np.linalg.norm(B),
                    "exact"),
    "linalg.vector_norm": (lambda s, b, v, w, **k: pdt.linalg.vector_norm(b, 3, 0, **k),
                           (np.abs(B) ** 3).sum(0) ** (1 / 3), "exact"),
    "linalg.matrix_norm": (lambda s, b, v, w, **k: pdt.linalg.matrix_norm(b, 1, **k),
                           np.linalg.norm(B, 1), "exact"),
    "linalg.cross": (lambda s, b, v, w, **k: pdt.linalg.cross(v, w, **k), np.cross(V, W),
                     "exact"),
    "cross": (lambda s, b, v, w, **k: pdt.cross(v, w, **k), np.cross(V, W), "exact"),
    "linalg.matrix_power": (lambda s, b, v, w, **k: pdt.linalg.matrix_power(s, 3, **k),
                            S @ S @ S, "exact"),
    "linalg.multi_dot": (lambda s, b, v, w, **k: pdt.linalg.multi_dot([s, s, b], **k),
                         S @ S @ B, "exact"),
    "linalg.vecdot": (lambda s, b, v, w, **k: pdt.linalg.vecdot(v, w, **k), V @ W, "exact"),
    # gelsd (rank and singular values too) where the device has it; CUDA's only driver is gels
    "linalg.lstsq": (lambda s, b, v, w, **k: pdt.linalg.lstsq(
        s, b, driver="gelsd" if s.device.type == "cpu" else "gels", **k),
                     np.linalg.solve(S, B), "cast"),
    "linalg.pinv": (lambda s, b, v, w, **k: pdt.linalg.pinv(b, **k), np.linalg.pinv(B),
                    "cast"),
    "linalg.matrix_rank": (lambda s, b, v, w, **k: pdt.linalg.matrix_rank(b, **k),
                           np.array(2), "cast"),
    "linalg.cond": (lambda s, b, v, w, **k: pdt.linalg.cond(s, **k), np.linalg.cond(S),
                    "cast"),
    "cholesky_solve": (lambda s, b, v, w, **k: pdt.cholesky_solve(
        b, pdt.linalg.cholesky(s), **k), np.linalg.solve(S, B), "cast"),
    "cholesky_inverse": (lambda s, b, v, w, **k: pdt.cholesky_inverse(
        pdt.linalg.cholesky(s), **k), np.linalg.inv(S), "cast"),
    "diag": (lambda s, b, v, w, **k: pdt.diag(v, **k), np.diag(V), "exact"),
    "outer": (lambda s, b, v, w, **k: pdt.outer(v, w, **k), np.outer(V, W), "cast"),
    "logsumexp": (lambda s, b, v, w, **k: pdt.logsumexp(b, 1, **k), _lse(B, 1), "cast"),
    "bmm": (lambda s, b, v, w, **k: pdt.bmm(s[None], b[None], **k), (S @ B)[None], "exact"),
    "where": (lambda s, b, v, w, **k: pdt.where(v > 1.5, v, w, **k), np.where(V > 1.5, V, W),
              "exact"),
}


def _inputs(device, dtype=pdt.float64):
    return [pdt.tensor(a, dtype=dtype, device=device) for a in (S, B, V, W)]


def _empty_like(result, dtype=None, requires_grad=False):
    """Empty outs of result's dtypes (or dtype) and device; requires_grad: the floating
    ones require grad."""
    if isinstance(result, tuple):
        return tuple(_empty_like(r, None, requires_grad) for r in result)
    dtype = dtype or result.dtype
    return pdt.empty(0, dtype=dtype, device=result.device,
                     requires_grad=requires_grad and dtype.is_floating_point)


def _np(t):
    return t.cpu().numpy()


@pytest.mark.parametrize("name", CASES)
def test_out_is_written_and_returned_with_the_values_of_the_call_without(device, name):
    call, want, _ = CASES[name]
    args = _inputs(device)
    plain = call(*args)
    out = _empty_like(plain)
    got = call(*args, out=out)
    if isinstance(plain, tuple):
        assert type(got) is type(plain) and all(g is o for g, o in zip(got, out))
        for g, p in zip(got, plain):
            assert g.dtype == p.dtype and g.device == p.device
            np.testing.assert_array_equal(_np(g), _np(p))
        first = got[0] if name != "linalg.slogdet" else got.sign
        if want is not None:
            np.testing.assert_allclose(_np(first), want, rtol=1e-10, atol=1e-12)
    else:
        assert got is out and got.dtype == plain.dtype and got.device == device
        np.testing.assert_array_equal(_np(got), _np(plain))
        np.testing.assert_allclose(_np(got), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_out_of_another_dtype_is_refused_unless_pytorch_casts(device, name):
    call, want, kind = CASES[name]
    args = _inputs(device)
    plain = call(*args)
    out = (tuple(pdt.empty(0, dtype=pdt.float32, device=device) for _ in plain)
           if isinstance(plain, tuple) else pdt.empty(0, dtype=pdt.float32, device=device))
    if kind == "exact":
        with pytest.raises(RuntimeError, match=rf"{name}\(\): Expected out tensor to have "
                           rf"dtype pydevtensor\.(float64|int64|int32), but got "
                           rf"pydevtensor\.float32 instead"):
            call(*args, out=out)
        return
    got = call(*args, out=out)
    first = out[0] if isinstance(out, tuple) else out  # lstsq's solution
    assert (got[0] if isinstance(out, tuple) else got) is first and first.dtype == pdt.float32
    np.testing.assert_allclose(_np(first), want, rtol=1e-5, atol=1e-6)
    if not (plain[0] if isinstance(out, tuple) else plain).is_floating_point():
        return  # matrix_rank's int64 casts to int32 too
    ints = (tuple(pdt.empty(0, dtype=pdt.int32, device=device) for _ in plain)
            if isinstance(plain, tuple) else pdt.empty(0, dtype=pdt.int32, device=device))
    with pytest.raises(pdt.DTypeError, match=rf"{name}\(\): result type .* can't be cast to "
                       rf"the desired output type pydevtensor.int32"):
        call(*args, out=ints)


@pytest.mark.parametrize("name", CASES)
def test_out_that_requires_grad_or_a_grad_input_is_refused(device, name):
    call, _, _ = CASES[name]
    args = _inputs(device)
    plain = call(*args)
    float_dtype = None if name != "linalg.matrix_rank" else pdt.float64  # cast from int64
    out = _empty_like(plain, float_dtype, requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"{name}\(\): functions with out=\.\.\. "
                       rf"arguments don't support automatic differentiation"):
        call(*args, out=out)
    with pdt.no_grad():  # no graph: the out is written
        got = call(*args, out=out)
    assert all(g is o for g, o in zip(got, out)) if isinstance(out, tuple) else got is out


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.solve", "outer", "where"])
def test_a_non_empty_out_of_another_shape_is_refused(device, name):
    call, _, _ = CASES[name]
    with pytest.raises(RuntimeError, match=rf"{name}\(\): out has shape \(7,\), the result"):
        call(*_inputs(device), out=pdt.empty(7, dtype=pdt.float64, device=device))


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA_DEVICES, reason="needs a GPU")
@pytest.mark.parametrize("name", ["linalg.cholesky", "linalg.det", "bmm", "logsumexp"])
def test_out_on_another_device_is_refused_naming_both(name):
    call, _, _ = CASES[name]
    with pytest.raises(pdt.DeviceError, match=rf"{name}\(\): out is on cpu, the result on "
                       rf"cuda"):
        call(*_inputs(CUDA_DEVICES[0]), out=pdt.empty(0, dtype=pdt.float64))
