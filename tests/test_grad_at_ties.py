"""Derivatives at ties, zeros and kinks, where a mask in a backward formula once cut the
next derivative off: logaddexp at a == b, logcumsumexp over equal values, prod's second
derivative beside a zero (NaN everywhere before) and its first beside an inf or a NaN, elu/celu/selu's second derivative at 0,
in-place logit_ of a tensor in the graph, and the 2-norm of a matrix with tied singular
values (the gradient shared, as PyTorch shares it).  Against central differences of the
first derivative in float64 (smooth points: 1e-6 relative), or closed forms."""
import math

import numpy as np
import pytest

import pydevtensor as pdt


def t64(a, device, grad=True):
    return pdt.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=grad)


def hessian_row(fn, x0, device, i, h=1e-5):
    """d/dx of (d fn / dx_i) at x0, by central differences of autograd's first derivative."""
    def first(x):
        x = t64(x, device)
        (g,) = pdt.autograd.grad(fn(x), x)
        return g.detach().cpu().numpy()[i]
    out = []
    for j in range(len(x0)):
        e = np.zeros(len(x0))
        e[j] = h
        out.append((first(x0 + e) - first(x0 - e)) / (2 * h))
    return np.array(out)


def second(fn, x0, device, i):
    x = t64(x0, device)
    (g,) = pdt.autograd.grad(fn(x), x, create_graph=True)
    (h,) = pdt.autograd.grad(g[i], x)
    return h.detach().cpu().numpy()


@pytest.mark.parametrize("op", ["logaddexp", "logaddexp2"])
def test_logaddexp_second_derivative_at_a_tie(device, op):
    x0 = np.array([1.0, 0.0, -2.5, 1.0, 0.0, 3.0])  # a = b at the first two pairs

    def fn(x):
        return getattr(pdt, op)(x[:3], x[3:]).sum()
    for i in range(6):
        np.testing.assert_allclose(second(fn, x0, device, i), hessian_row(fn, x0, device, i),
                                   rtol=1e-6, atol=1e-8)
    # x = y = 0: the mixed derivative of logaddexp is -1/4 (-ln2^2/4 for base 2)
    want = -0.25 * (math.log(2.0) if op == "logaddexp2" else 1.0)
    assert second(fn, x0, device, 1)[4] == pytest.approx(want, rel=1e-12)


def test_logcumsumexp_second_derivative_at_ties(device):
    x0 = np.array([1.0, 1.0, 0.5, 1.0])
    w = pdt.tensor([0.3, -1.0, 2.0, 0.7], dtype=pdt.float64, device=device)

    def fn(x):
        return (pdt.logcumsumexp(x, 0) * w).sum()
    for i in range(4):
        np.testing.assert_allclose(second(fn, x0, device, i), hessian_row(fn, x0, device, i),
                                   rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("x0", [[0.0, 2.0, 3.0], [2.0, 0.0, -1.5], [1.0, 2.0, 3.0]])
def test_prod_second_derivative_beside_one_zero(device, x0):
    x0 = np.array(x0)
    for fn in (lambda x: pdt.prod(x), lambda x: x.reshape(1, 3).prod(1).sum()):
        for i in range(3):
            got = second(fn, x0, device, i)
            want = np.array([0.0 if j == i else np.prod(np.delete(x0, [i, j]))
                             for j in range(3)])  # d2 prod / dx_i dx_j, exactly
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("x0", [[0.0, np.inf, 2.0], [0.0, np.nan, 3.0], [0.0, 0.0, np.inf],
                                [np.inf, 2.0, 3.0], [-np.inf, 0.5, np.nan], [np.inf]])
def test_prod_gradient_beside_an_inf_or_a_nan_is_the_others_product(device, x0):
    # d prod / dx_i is the product of the others, exactly: 0 * 2 = 0 at [0, inf, 2]'s inf
    # (y / x gave inf-or-NaN / inf = NaN), 0 * inf = NaN at [0, 0, inf]'s zeros
    x0 = np.array(x0)
    with np.errstate(invalid="ignore"):
        want = np.array([np.prod(np.delete(x0, i)) for i in range(len(x0))])
    for fn in (lambda x: pdt.prod(x), lambda x: x.reshape(1, -1).prod(1).sum()):
        x = t64(x0, device)
        (g,) = pdt.autograd.grad(fn(x), x)
        np.testing.assert_array_equal(g.cpu().numpy(), want)


@pytest.mark.parametrize("name, alpha", [("elu", 1.0), ("elu", 0.5), ("celu", 2.0),
                                         ("selu", None)])
def test_elu_family_second_derivative_at_zero_is_the_right_sides(device, name, alpha):
    F = pdt.nn.functional
    kw = {} if alpha is None else {"alpha": alpha}
    x0 = np.array([0.0, -1.0, 1.0, -0.25])

    def fn(x):
        return getattr(F, name)(x, **kw).sum()
    x = t64(x0, device)
    (g,) = pdt.autograd.grad(fn(x), x, create_graph=True)
    (h,) = pdt.autograd.grad(g.sum(), x)
    h = h.detach().cpu().numpy()
    scale, a = (1.0507009873554805, 1.6732632423543772) if name == "selu" else (1.0, alpha)
    inner = 1.0 / a if name == "celu" else 1.0  # celu: alpha (exp(x / alpha) - 1)
    slope0 = scale * (1.0 if name == "celu" else a)  # the first derivative at 0
    np.testing.assert_allclose(g.detach().cpu().numpy()[0], slope0, rtol=1e-12)
    # 0 at 0 and on the right; a e^x-type curvature on the left
    want = [0.0, scale * a * inner * inner * math.exp(-inner), 0.0,
            scale * a * inner * inner * math.exp(-0.25 * inner)]
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("eps", [None, 0.1])
def test_in_place_logit_of_a_tensor_in_the_graph(device, eps):
    x0 = np.array([0.3, 0.6, 0.05])
    x = t64(x0, device)
    y = x * 1.0
    y.logit_(eps=eps)
    (g,) = pdt.autograd.grad(y.sum(), x)
    lo = 0.0 if eps is None else eps
    want = np.where((x0 >= lo) & (x0 <= 1 - lo), 1.0 / (x0 * (1 - x0)), 0.0)
    np.testing.assert_allclose(g.cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(y.detach().cpu().numpy(),
                               np.log(np.clip(x0, lo, 1 - lo) / (1 - np.clip(x0, lo, 1 - lo))),
                               rtol=1e-12)


@pytest.mark.parametrize("ord", [2, -2])
def test_two_norm_of_tied_singular_values_shares_the_gradient(device, ord):
    for a, k in [(np.eye(3), 3), (2.0 * np.eye(2), 2), (np.diag([3.0, 3.0, 1.0]), 2)]:
        x = t64(a, device)
        pdt.linalg.matrix_norm(x, ord).backward()
        s = np.linalg.svd(a, compute_uv=False)
        pick = s == (s.max() if ord == 2 else s.min())
        want = np.diag(np.where(pick, 1.0 / pick.sum(), 0.0))  # U diag(share) V^T, U = V = I
        np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0), (2, 3, 0)])
def test_norms_of_empty_matrices(device, shape):
    # the max of nothing is 0 (as PyTorch's): ord 1, inf and 2; the min of nothing refuses
    x = pdt.zeros(shape, dtype=pdt.float64, device=device)
    for ord in (1, math.inf, 2, "fro", "nuc"):
        got = pdt.linalg.matrix_norm(x, ord)
        assert tuple(got.shape) == shape[:-2] and not got.cpu().numpy().any(), ord
    with pytest.raises((RuntimeError, IndexError)):
        pdt.linalg.matrix_norm(x, -2)


@pytest.mark.parametrize("shape", [(3, 0), (0, 0), (2, 0, 3)])
def test_nuclear_and_two_norms_of_empty_matrices_are_in_the_graph(device, shape):
    """matrix_norm 'nuc' and 2 of an empty matrix are 0 and differentiable (an empty zero
    gradient), as PyTorch's 'nuc' (ours had no graph, so backward raised 'does not require
    grad'); keepdim keeps both dims; ord -2 refuses with PyTorch's IndexError (the min of
    nothing), as -1 and -inf do where there are no columns or rows to take it over."""
    for ord in ("nuc", 2):
        x = pdt.zeros(shape, dtype=pdt.float64, device=device, requires_grad=True)
        got = pdt.linalg.matrix_norm(x, ord)
        assert got.requires_grad and tuple(got.shape) == shape[:-2]
        got.sum().backward()
        assert tuple(x.grad.shape) == shape
        kept = pdt.linalg.matrix_norm(x, ord, keepdim=True)
        assert tuple(kept.shape) == shape[:-2] + (1, 1) and not kept.detach().cpu().numpy().any()
    x = pdt.zeros(shape, device=device)
    with pytest.raises(IndexError, match="empty matrix"):
        pdt.linalg.matrix_norm(x, -2)
    # -1 / -inf: the min over the columns' / rows' sums, empty when there are none
    for ord, empty in ((-1, shape[-1] == 0), (-math.inf, shape[-2] == 0)):
        if empty:
            with pytest.raises(IndexError):
                pdt.linalg.matrix_norm(x, ord)
        else:
            assert not pdt.linalg.matrix_norm(x, ord).cpu().numpy().any()
