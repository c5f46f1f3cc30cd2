"""pydevtensor.linalg's solvers (pydevtensor/_linalg_solve.py): solve, inv, det, slogdet,
cholesky, their _ex forms, torch.inverse/det/logdet/slogdet/cholesky_solve and
matrix_power with n < 0, on every device, against NumPy float64 (np.linalg) and torch
where importable; their gradients against central differences and torch.

Tolerances: the inputs are well-conditioned (a random matrix plus n times the
identity: condition numbers below ~10), so LU and Cholesky lose a few units of
rounding: float64 1e-10 relative and absolute, float32 1e-4 (about 800 float32 ulps,
for n up to 16 and the LU solve's two triangular sweeps)."""
import re

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-4, atol=1e-4)}
DTYPES = {"float64": pdt.float64, "float32": pdt.float32}


def _well_conditioned(rng, shape):
    n = shape[-1]
    return rng.standard_normal(shape) + n * np.eye(n)


def _spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _t(a, device, dtype="float64"):
    return pdt.tensor(np.asarray(a), dtype=DTYPES[dtype], device=device)


def _close(got, ref, dtype="float64"):
    np.testing.assert_allclose(got.detach().cpu().numpy().astype(np.float64), ref,
                               **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ashape,bshape", [
    ((3, 3), (3,)),            # one vector
    ((3, 3), (3, 2)),          # one matrix of right-hand sides
    ((4, 3, 3), (3,)),         # a 1-d B against a batch
    ((4, 3, 3), (4, 3)),       # B of A's shape without its last dim: vectors
    ((4, 3, 3), (3, 5)),       # B's batch broadcast
    ((2, 1, 5, 5), (3, 5, 2)),  # both broadcast: (2, 3)
    ((16, 16), (16, 16)),
])
def test_solve(device, dtype, ashape, bshape):
    rng = np.random.default_rng(len(ashape) * 10 + len(bshape))
    a, b = _well_conditioned(rng, ashape), rng.standard_normal(bshape)
    got = pdt.linalg.solve(_t(a, device, dtype), _t(b, device, dtype))
    vector = len(bshape) == 1 or (len(bshape) == len(ashape) - 1 and bshape == ashape[:-1])
    ref = np.linalg.solve(a, b[..., None])[..., 0] if vector else np.linalg.solve(a, b)
    assert got.device == device and got.dtype == DTYPES[dtype]
    assert tuple(got.shape) == ref.shape
    _close(got, ref, dtype)


def test_solve_left_false_and_ex(device):
    rng = np.random.default_rng(1)
    a, b = _well_conditioned(rng, (2, 4, 4)), rng.standard_normal((2, 3, 4))
    got = pdt.linalg.solve(_t(a, device), _t(b, device), left=False)
    _close(got, b @ np.linalg.inv(a))
    res, info = pdt.linalg.solve_ex(_t(a, device), _t(b, device).mT)
    _close(res, np.linalg.solve(a, np.swapaxes(b, -1, -2)))
    assert info.dtype == pdt.int32 and info.device == device and info.tolist() == [0, 0]


def test_solve_matches_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    a, b = _well_conditioned(rng, (3, 1, 4, 4)), rng.standard_normal((2, 4, 3))
    got = pdt.linalg.solve(_t(a, device), _t(b, device))
    ref = torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    assert tuple(got.shape) == tuple(ref.shape)
    _close(got, ref.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 3, 6, 6), (0, 3, 3), (2, 0, 0)])
def test_inv_det_slogdet(device, dtype, shape):
    rng = np.random.default_rng(sum(shape))
    a = _well_conditioned(rng, shape) if shape[-1] else np.zeros(shape)
    if shape[-1] > 1:
        a[..., [0, 1], :] = a[..., [1, 0], :]  # a negative determinant
    A = _t(a, device, dtype)
    _close(pdt.linalg.inv(A), np.linalg.inv(a), dtype)
    _close(A.inverse(), np.linalg.inv(a), dtype)
    _close(pdt.inverse(A), np.linalg.inv(a), dtype)
    det = np.linalg.det(a)
    _close(pdt.linalg.det(A), det, dtype)
    _close(A.det(), det, dtype)
    sign, logabs = np.linalg.slogdet(a)
    for s, l in (pdt.linalg.slogdet(A), pdt.slogdet(A), A.slogdet()):
        assert s.dtype == DTYPES[dtype] and tuple(s.shape) == shape[:-2]
        _close(s, sign, dtype)
        _close(l, logabs, dtype)
    with np.errstate(invalid="ignore"):
        _close(pdt.logdet(A), np.log(det), dtype)
    inv, info = pdt.linalg.inv_ex(A)
    _close(inv, np.linalg.inv(a), dtype)
    assert tuple(info.shape) == shape[:-2] and not info.cpu().numpy().any()


def test_singular(device):
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]])
    A = _t(a, device)
    _close(pdt.linalg.det(A), [0.0, 1.0, 0.0])
    sign, logabs = pdt.linalg.slogdet(A)
    assert sign.tolist() == [0.0, 1.0, 0.0]
    assert logabs.tolist()[0] == -np.inf and logabs.tolist()[1] == 0.0
    assert np.isnan(pdt.logdet(_t(-np.eye(3), device)).item())
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.inv: \(Batch element 0\): The "
                       r"diagonal element 2 is zero.*singular.*\(A of shape \(3, 2, 2\), "
                       rf".*float64, on {device}\)") as e:
        pdt.linalg.inv(A)
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.solve: The diagonal element 1 "
                       rf"is zero.*on {device}"):
        pdt.linalg.solve(_t(np.zeros((2, 2)), device), _t(np.ones(2), device))
    inv, info = pdt.linalg.inv_ex(A)  # no error: info says which
    assert info.tolist() == [2, 0, 1]
    _close(inv[1], np.eye(2))
    res, info = pdt.linalg.solve_ex(A, _t(np.ones((3, 2)), device))
    assert info.tolist() == [2, 0, 1]
    with pytest.raises(pdt.linalg.LinAlgError, match=r"solve_ex: \(Batch element 0\)"):
        pdt.linalg.solve_ex(A, _t(np.ones((3, 2)), device), check_errors=True)


def test_singular_message_names_a_nested_batch_element(device):
    a = np.stack([np.eye(2)] * 6).reshape(2, 3, 2, 2)
    a[1, 2] = 0
    with pytest.raises(pdt.linalg.LinAlgError, match=r"\(Batch element \(1, 2\)\)"):
        pdt.linalg.inv(_t(a, device))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 5), (0, 2, 2), (2, 0, 0)])
def test_cholesky(device, dtype, shape):
    rng = np.random.default_rng(sum(shape))
    a = _spd(rng, shape)
    L = np.linalg.cholesky(a) if a.size else np.zeros(shape)
    junk = a + np.triu(np.full(shape, 7.0), 1)  # the upper triangle is not read
    got = pdt.linalg.cholesky(_t(junk, device, dtype))
    assert got.dtype == DTYPES[dtype] and got.device == device
    _close(got, L, dtype)
    junk = a + np.tril(np.full(shape, 7.0), -1)  # upper=True: the lower is not read
    _close(pdt.linalg.cholesky(_t(junk, device, dtype), upper=True), np.swapaxes(L, -1, -2),
           dtype)
    got, info = pdt.linalg.cholesky_ex(_t(a, device, dtype))
    _close(got, L, dtype)
    assert tuple(info.shape) == shape[:-2] and not info.cpu().numpy().any()


def test_not_positive_definite(device):
    a = np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0])])
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.cholesky: \(Batch element 1\): "
                       r"The factorization could not be completed because the input is not "
                       r"positive-definite \(the leading minor of order 3 is not "
                       rf"positive-definite\) \(A of shape \(2, 3, 3\), .*float64, on {device}"):
        pdt.linalg.cholesky(_t(a, device))
    L, info = pdt.linalg.cholesky_ex(_t(a, device))
    assert info.tolist() == [0, 3]
    _close(L[0], np.eye(3))


def test_cholesky_solve(device):
    rng = np.random.default_rng(3)
    a, b = _spd(rng, (2, 4, 4)), rng.standard_normal((2, 4, 3))
    L = pdt.linalg.cholesky(_t(a, device))
    _close(pdt.cholesky_solve(_t(b, device), L), np.linalg.solve(a, b))
    U = pdt.linalg.cholesky(_t(a, device), upper=True)
    _close(pdt.cholesky_solve(_t(b, device), U, upper=True), np.linalg.solve(a, b))


@pytest.mark.parametrize("n", [-1, -2, -3])
def test_matrix_power_negative(device, n):
    rng = np.random.default_rng(-n)
    a = _well_conditioned(rng, (2, 3, 3))
    _close(pdt.matrix_power(_t(a, device), n), np.linalg.matrix_power(a, n))
    _close(pdt.linalg.matrix_power(_t(a, device), n), np.linalg.matrix_power(a, n))


def test_inputs_unchanged(device):
    """The factorizations work on copies: A and B (contiguous, transposed views,
    broadcast) are left as they were."""
    rng = np.random.default_rng(4)
    a = _well_conditioned(rng, (3, 3))
    for A in (_t(a, device), _t(a.T.copy(), device).mT, _t(a, device).expand(2, 3, 3)):
        before = A.cpu().numpy().copy()
        B = _t(np.ones((3, 3)), device)
        pdt.linalg.solve(A, B)
        pdt.linalg.inv(A), pdt.linalg.det(A), pdt.linalg.slogdet(A)
        pdt.linalg.cholesky_ex(A)
        np.testing.assert_array_equal(A.cpu().numpy(), before)
        np.testing.assert_array_equal(B.cpu().numpy(), np.ones((3, 3)))


def test_bad_inputs(device):
    with pytest.raises(RuntimeError, match=r"linalg\.inv: A must be batches of square matrices, "
                       rf"but they are 2 by 3 matrices \(shape \(2, 3\), on {device}\)"):
        pdt.linalg.inv(pdt.ones(2, 3, device=device))
    with pytest.raises(NotImplementedError, match=r"linalg\.det: Expected a floating point "
                       rf"tensor as input. Got Long \(shape \(2, 2\), on {device}\)"):
        pdt.linalg.det(pdt.ones(2, 2, dtype=pdt.int64, device=device))
    with pytest.raises(NotImplementedError, match=r"Low precision dtypes not supported. Got Half"):
        pdt.linalg.cholesky(pdt.ones(2, 2, dtype=pdt.float16, device=device))
    with pytest.raises(RuntimeError, match=r"linalg\.solve: Incompatible shapes of A and B for "
                       r"the equation AX = B \(2x2 and 3x1; A \(2, 2\), B \(3,\), on "):
        pdt.linalg.solve(pdt.eye(2, device=device), pdt.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"same dtype, but found A of type .*float32 and B of "
                       r"type .*float64"):
        pdt.linalg.solve(pdt.eye(2, device=device),
                         pdt.ones(2, dtype=pdt.float64, device=device))
    with pytest.raises(RuntimeError, match=r"batch dimensions of A \(2, 2, 2\) and B "
                       r"\(3, 2, 1\) do not broadcast"):
        pdt.linalg.solve(pdt.ones(2, 2, 2, device=device), pdt.ones(3, 2, 1, device=device))
    with pytest.raises(RuntimeError, match=r"Incompatible shapes.*\(2x2 and a number; A "
                       r"\(2, 2\), B \(\), on "):
        pdt.linalg.solve(pdt.eye(2, device=device), pdt.ones((), device=device))
    with pytest.raises(RuntimeError, match=r"linalg\.solve: Incompatible shapes of A and B for "
                       r"the equation XA = B \(2x2 and 2x1: a vector B needs left=True"):
        pdt.linalg.solve(pdt.eye(2, device=device).expand(3, 2, 2), pdt.ones(3, 2, device=device),
                         left=False)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        pdt.linalg.slogdet(pdt.ones(3, device=device))
    with pytest.raises(TypeError, match=r"argument 'A' must be a Tensor, got list"):
        pdt.linalg.inv([[1.0]])


# ---- gradients ----

def _sym(f):
    """f of a symmetric positive-definite matrix made from any square x."""
    return lambda x: f(x @ x.mT + 4 * pdt.eye(x.shape[-1], dtype=x.dtype, device=x.device))


GRAD_CASES = {
    "solve": (lambda a, b: pdt.linalg.solve(a, b), [(2, 3, 3), (3, 2)]),
    "solve-vector-broadcast": (lambda a, b: pdt.linalg.solve(a, b), [(2, 3, 3), (3,)]),
    "solve-left-false": (lambda a, b: pdt.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    "solve_ex": (lambda a, b: pdt.linalg.solve_ex(a, b)[0], [(3, 3), (2, 3, 1)]),
    "inv": (lambda a: pdt.linalg.inv(a), [(2, 3, 3)]),
    "inv_ex": (lambda a: pdt.linalg.inv_ex(a).inverse, [(3, 3)]),
    "det": (lambda a: pdt.linalg.det(a), [(2, 3, 3)]),
    "slogdet": (lambda a: pdt.linalg.slogdet(a).logabsdet, [(2, 3, 3)]),
    "logdet": (lambda a: pdt.logdet(a @ a.mT), [(3, 3)]),
    "cholesky": (_sym(lambda a: pdt.linalg.cholesky(a)), [(2, 3, 3)]),
    "cholesky-upper": (_sym(lambda a: pdt.linalg.cholesky(a, upper=True)), [(3, 3)]),
    "cholesky_ex": (_sym(lambda a: pdt.linalg.cholesky_ex(a).L), [(3, 3)]),
    "cholesky_solve": (lambda b, x: pdt.cholesky_solve(
        b, pdt.linalg.cholesky(x @ x.mT + 3 * pdt.eye(3, dtype=x.dtype, device=x.device))),
        [(3, 2), (3, 3)]),
    "matrix_power-neg": (lambda a: pdt.matrix_power(a, -2), [(3, 3)]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradcheck(device, case):
    fn, shapes = GRAD_CASES[case]
    rng = np.random.default_rng(7)
    arrays = [_well_conditioned(rng, s) if len(s) >= 2 and s[-1] == s[-2] else
              rng.standard_normal(s) for s in shapes]
    gradcheck(fn, arrays, device)


@pytest.mark.parametrize("case", ["solve", "inv", "det", "slogdet", "cholesky",
                                  "cholesky-upper"])
def test_gradients_match_torch(device, case):
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    a = _well_conditioned(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 2))
    spd = _spd(rng, (2, 3, 3))
    mod = {"solve": (lambda m, x, y: m.linalg.solve(x, y), [a, b]),
           "inv": (lambda m, x: m.linalg.inv(x), [a]),
           "det": (lambda m, x: m.linalg.det(x), [a]),
           "slogdet": (lambda m, x: m.linalg.slogdet(x)[1], [a]),
           "cholesky": (lambda m, x: m.linalg.cholesky(x), [spd]),
           "cholesky-upper": (lambda m, x: m.linalg.cholesky(x, upper=True), [spd])}
    f, arrays = mod[case]
    ours = [pdt.tensor(x, device=device).requires_grad_() for x in arrays]
    theirs = [torch.tensor(x).requires_grad_() for x in arrays]
    out, ref = f(pdt, *ours), f(torch, *theirs)
    r = rng.standard_normal(tuple(ref.shape))
    (out * pdt.tensor(r, device=device)).sum().backward()
    (ref * torch.tensor(r)).sum().backward()
    assert type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    for x, y in zip(ours, theirs):
        _close(x.grad, y.grad.numpy())


# ---- what a GPU reads back ----

def test_info_read_back_is_one_counted_copy(device):
    """Raising needs info on the host: one counted device-to-host copy per call on a
    GPU, none on the CPU; the _ex forms read nothing back unless check_errors=True.
    The read is one the caller did not ask for: the transfer guard sees it as implicit
    (disallow refuses it, naming the op; it was let through as explicit)."""
    A = _t(np.eye(3) * 2, device)
    B = _t(np.ones((3, 2)), device)
    expected = 0 if device.type == "cpu" else 1
    for call, op in ((lambda: pdt.linalg.solve(A, B), "linalg.solve"),
                     (lambda: pdt.linalg.inv(A), "linalg.inv"),
                     (lambda: pdt.linalg.cholesky(A), "linalg.cholesky"),
                     (lambda: pdt.linalg.inv_ex(A, check_errors=True), "linalg.inv_ex")):
        pdt.reset_transfer_stats()
        call()
        assert pdt.transfer_stats()["device_to_host"]["count"] == expected
        if device.type == "cpu":
            with pdt.transfer_guard("disallow_explicit"):
                call()
        else:
            with pdt.transfer_guard("disallow"), pytest.raises(
                    pdt.TransferError, match=r"implicit device-to-host transfer by "
                                             + re.escape(op)):
                call()
    for call in (lambda: pdt.linalg.solve_ex(A, B), lambda: pdt.linalg.inv_ex(A),
                 lambda: pdt.linalg.cholesky_ex(A), lambda: pdt.linalg.det(A),
                 lambda: pdt.linalg.slogdet(A), lambda: pdt.logdet(A)):
        pdt.reset_transfer_stats()
        with pdt.transfer_guard("disallow"):
            call()
        assert pdt.transfer_stats()["device_to_host"]["count"] == 0


def test_large_batch_and_size(device):
    """A batch of 64 matrices of 33 x 33 (more than one block of any blocked LAPACK
    code path), against NumPy."""
    rng = np.random.default_rng(9)
    a, b = _well_conditioned(rng, (64, 33, 33)), rng.standard_normal((64, 33, 4))
    _close(pdt.linalg.solve(_t(a, device), _t(b, device)), np.linalg.solve(a, b))
    spd = _spd(rng, (8, 33, 33))
    _close(pdt.linalg.cholesky(_t(spd, device)), np.linalg.cholesky(spd))


# ---- second derivatives (create_graph=True) ----

@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_second_derivative(device, case):
    """grad of (v . grad(sum(r * f(x)), x, create_graph=True)) against central
    differences of the first derivative in float64 (the outputs solve/inv/det/cholesky
    save must stay differentiable, and their backward's solves recorded: they were
    once detached, giving a silently wrong second derivative); tolerance 1e-6 relative
    and absolute (step 1e-6 on well-conditioned inputs)."""
    fn, shapes = GRAD_CASES[case]
    rng = np.random.default_rng(9)
    arrays = [_well_conditioned(rng, s) if len(s) >= 2 and s[-1] == s[-2] else
              rng.standard_normal(s) for s in shapes]
    out_shape = tuple(fn(*[_t(a, device) for a in arrays]).shape)
    r = _t(rng.standard_normal(out_shape), device)
    vs = [rng.standard_normal(a.shape) for a in arrays]

    def first(arrs, create_graph=False):
        xs = [_t(a, device).requires_grad_() for a in arrs]
        gs = pdt.autograd.grad((fn(*xs) * r).sum(), xs, create_graph=create_graph)
        s = sum((g * _t(v, device)).sum() for g, v in zip(gs, vs))
        return xs, s

    xs, s = first(arrays, create_graph=True)
    got = pdt.autograd.grad(s, xs)
    eps = 1e-6
    for k, a in enumerate(arrays):
        ref = np.zeros(a.shape)
        for idx in np.ndindex(*a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            ref[idx] = (first(hi)[1].item() - first(lo)[1].item()) / (2 * eps)
        np.testing.assert_allclose(got[k].cpu().numpy(), ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bad", [0, 4, -1, 1 << 30])
def test_private_lu_solve_refuses_pivots_outside_the_matrix(bad):
    """_C._lu_solve takes pivots from Python: on the CPU one outside [1, n] is a
    ValueError naming it, before LAPACK swaps rows outside the matrix."""
    from pydevtensor import _C
    lu = pdt.eye(3, dtype=pdt.float64)
    piv = pdt.tensor([1, bad, 3], dtype=pdt.int32)
    x = pdt.ones(1, 3, dtype=pdt.float64)
    with pytest.raises(ValueError, match=rf"lu_solve: pivot 1 is {bad}, outside \[1, 3\].*on cpu"):
        _C._lu_solve(lu, piv, x)
    assert x.tolist() == [[1.0, 1.0, 1.0]]
    _C._lu_solve(lu, pdt.tensor([1, 2, 3], dtype=pdt.int32), x)
    assert x.tolist() == [[1.0, 1.0, 1.0]]
