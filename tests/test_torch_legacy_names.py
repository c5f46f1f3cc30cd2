"""PyTorch's legacy top-level names (pydevtensor/_ops_torch_legacy.py): lu, lu_solve and
triangular_solve against NumPy float64 solves, batch_norm and instance_norm against
the closed forms, with torch's positional signatures and argument checks."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _ops_torch_legacy
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


@pytest.mark.filterwarnings("ignore:pydevtensor.lu")
def test_lu_is_lu_factor_ex_with_torch_return_forms(device):
    a = np.random.default_rng(0).standard_normal((2, 3, 3))
    A = _t(a, device)
    out = pdt.lu(A)
    assert type(out) is tuple and len(out) == 2
    LU, piv, info = pdt.linalg.lu_factor_ex(A)
    np.testing.assert_array_equal(out[0].cpu().numpy(), LU.cpu().numpy())
    np.testing.assert_array_equal(out[1].cpu().numpy(), piv.cpu().numpy())
    with_infos = pdt.lu(A, True, True)
    assert type(with_infos).__name__ == "_lu_with_info"
    assert with_infos._fields == ("LU", "pivots", "info")
    assert with_infos.info.tolist() == [0, 0]
    # singular: no error (PyTorch's torch.lu does not check), info says where
    assert pdt.lu(pdt.zeros(2, 2, device=device), get_infos=True).info.item() == 1
    assert pdt.lu(pdt.zeros(2, 2, device=device))[1].tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented"):
        pdt.lu(A, pivot=False)
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        pdt.lu(pdt.zeros(3, device=device))


def test_the_legacy_solvers_warn_once_per_process(device):
    A = pdt.eye(2, device=device)
    for name, call in (("lu", lambda: pdt.lu(A)),
                       ("lu_solve", lambda: pdt.lu_solve(A, *pdt.lu(A))),
                       ("triangular_solve", lambda: pdt.triangular_solve(A, A))):
        _ops_torch_legacy._WARNED.discard(name)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
            call()
        mine = [w for w in caught if f"pydevtensor.{name} is deprecated" in str(w.message)]
        assert len(mine) == 1 and mine[0].category is UserWarning


@pytest.mark.filterwarnings("ignore:pydevtensor.lu")
@pytest.mark.parametrize("a_shape,b_shape", [((3, 3), (3, 2)), ((2, 3, 3), (3, 1)),
                                             ((3, 3), (4, 3, 2))])
def test_lu_solve_takes_b_first_and_matches_numpy(device, a_shape, b_shape):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    x = pdt.lu_solve(_t(b, device), *pdt.lu(_t(a, device)))
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.solve(a, b), rtol=1e-10,
                               atol=1e-10)
    with pytest.raises(RuntimeError, match="B must have at least 2 dimensions"):
        pdt.lu_solve(pdt.zeros(3, device=device), *pdt.lu(_t(a, device)))


@pytest.mark.filterwarnings("ignore:pydevtensor.triangular_solve")
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve_matches_numpy(device, upper, transpose, unitriangular):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 4 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t - np.diag(np.diag(t)) + np.eye(3)
    if transpose:
        t = t.T
    A = _t(a, device)
    out = pdt.triangular_solve(_t(b, device), A, upper, transpose, unitriangular)
    assert type(out).__name__ == "triangular_solve"
    assert out._fields == ("solution", "cloned_coefficient")
    np.testing.assert_allclose(out.solution.cpu().numpy(), np.linalg.solve(t, b),
                               rtol=1e-10, atol=1e-10)
    # a copy of A broadcast to the batch, not a view of it
    np.testing.assert_array_equal(out.cloned_coefficient.cpu().numpy(),
                                  np.broadcast_to(a, (2, 3, 3)))
    out.cloned_coefficient.zero_()
    np.testing.assert_array_equal(A.cpu().numpy(), a)


@pytest.mark.filterwarnings("ignore:pydevtensor.triangular_solve")
def test_triangular_solve_gradients_and_bad_input(device):
    rng = np.random.default_rng(3)
    a = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    gradcheck(lambda b, A: pdt.triangular_solve(b, A, True, True).solution, [b, a], device)
    B, A = _t(b, device), _t(a, device)
    with pytest.raises(TypeError, match=r"triangular_solve\(\): argument 'upper' "
                                        r"\(position 3\) must be bool, not int"):
        pdt.triangular_solve(B, A, 1)
    with pytest.raises(RuntimeError, match="Expected b to have at least 2 dimensions"):
        pdt.triangular_solve(pdt.zeros(3, device=device, dtype=pdt.float64), A)


def _norm_ref(x, axes, w, b, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


@pytest.mark.parametrize("name", ["batch_norm", "instance_norm"])
def test_batch_and_instance_norm_take_torch_positional_signature(device, name):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3, 5))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = _t(np.zeros(3), device), _t(np.ones(3), device)
    fn = getattr(pdt, name)
    y = fn(_t(x, device), _t(w, device), _t(b, device), rm, rv, True, 0.5, 1e-3, False)
    axes = (0, 2) if name == "batch_norm" else (2,)
    np.testing.assert_allclose(y.cpu().numpy(), _norm_ref(x, axes, w, b, 1e-3), rtol=1e-10,
                               atol=1e-10)
    per = x.mean(axis=axes) if name == "batch_norm" else x.mean(axis=2).mean(axis=0)
    np.testing.assert_allclose(rm.cpu().numpy(), 0.5 * per, rtol=1e-10, atol=1e-12)
    # without the batch's statistics: the running ones
    y = fn(_t(x, device), None, None, rm, rv, False, 0.1, 0.0, True)
    expected = (x - rm.cpu().numpy()[:, None]) / np.sqrt(rv.cpu().numpy()[:, None])
    np.testing.assert_allclose(y.cpu().numpy(), expected, rtol=1e-10, atol=1e-10)
    third = "training" if name == "batch_norm" else "use_input_stats"
    with pytest.raises(TypeError, match=rf"{name}\(\): argument '{third}' \(position 6\) "
                                        r"must be bool, not int"):
        fn(_t(x, device), None, None, None, None, 1, 0.1, 1e-5, False)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'cudnn_enabled' "
                                        r"\(position 9\) must be bool, not int"):
        fn(_t(x, device), None, None, None, None, True, 0.1, 1e-5, 1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: "
                                        "'cudnn_enabled'"):
        fn(_t(x, device), None, None, None, None, True, 0.1, 1e-5)
