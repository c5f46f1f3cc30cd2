"""Edges of the products where PyTorch's behaviour was missed: einsum's equation errors
are RuntimeErrors, einsum of bool tensors with nothing summed is an elementwise and,
baddbmm with beta=0 has a second derivative, addr of bool tensors stays bool.  Against
NumPy (logical products in bool) and the same sums written out."""
import numpy as np
import pytest

import pydevtensor as pdt


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij,jk->ii", [(2, 3), (3, 4)], "output subscript i appears more than once"),
    ("ij->k", [(2, 3)], "output subscript k does not appear"),
    ("ij,jk->ik", [(2, 3)], "fewer operands"),
    ("ij->ij->", [(2, 3)], "invalid subscript"),
    ("i.j", [(2, 3)], "invalid subscript"),
])
def test_einsum_equation_errors_are_runtime_errors(device, eq, shapes, msg):
    ops = [pdt.ones(*s, device=device) for s in shapes]
    for _ in range(2):  # the two-operand plans and the general path
        with pytest.raises(RuntimeError, match=msg):
            pdt.einsum(eq, *ops)
    with pytest.raises(ValueError, match=msg):  # as before, too
        pdt.einsum(eq, *ops)


@pytest.mark.parametrize("eq,shapes", [
    ("i,j->ij", [(3,), (4,)]), ("ij,ij->ij", [(3, 4), (3, 4)]), ("ij,ij->ij", [(1, 4), (3, 4)]),
    ("i,i->i", [(1,), (5,)]), (",->", [(), ()]), ("i,->i", [(3,), ()]),
    ("ij,kl->ljki", [(2, 3), (4, 5)]), ("i,i,i->i", [(4,), (4,), (4,)]),
    ("...,...->...", [(2, 3), (3,)]),
])
def test_einsum_bool_without_a_sum(device, eq, shapes):
    rng = np.random.default_rng(len(eq))
    arrs = [rng.random(s) > 0.4 for s in shapes]
    got = pdt.einsum(eq, *[pdt.tensor(a, device=device) for a in arrs])
    want = np.einsum(eq, *[a.astype(np.int64) for a in arrs]) != 0
    assert got.dtype == pdt.bool
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_einsum_bool_with_a_sum_is_refused_as_bmm(device):
    b = pdt.ones(2, 3, dtype=pdt.bool, device=device)
    with pytest.raises(RuntimeError, match="bool"):
        pdt.einsum("ij,jk->ik", b, b.T)


@pytest.mark.parametrize("beta,alpha", [(0, 1), (0.0, 2.5)])
def test_baddbmm_beta0_second_derivative(device, beta, alpha):
    rng = np.random.default_rng(3)
    vals = [rng.standard_normal(s) for s in [(2, 3, 4), (2, 3, 5), (2, 5, 4)]]

    def second(f):
        ts = [pdt.tensor(v, dtype=pdt.float64, device=device, requires_grad=True)
              for v in vals]
        gs = pdt.autograd.grad((f(*ts) ** 2).sum(), ts, create_graph=True, allow_unused=True)
        s = sum((g ** 2).sum() for g in gs if g is not None)
        return [g for g in pdt.autograd.grad(s, ts[1:])]

    got = second(lambda i, b1, b2: pdt.baddbmm(i, b1, b2, beta=beta, alpha=alpha))
    want = second(lambda i, b1, b2: pdt.bmm(b1, b2) * alpha)  # input unread at beta = 0
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.cpu().numpy(), w.cpu().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ishape", [(2, 3), (3,), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (2, -1), (0, 1), (1, 0), (False, True), (0, 0)])
def test_addr_bool_is_logical(device, ishape, beta, alpha):
    rng = np.random.default_rng(7)
    i, v1, v2 = rng.random(ishape) > 0.5, rng.random(2) > 0.5, rng.random(3) > 0.5
    got = pdt.addr(*[pdt.tensor(a, device=device) for a in (i, v1, v2)], beta=beta,
                   alpha=alpha)
    want = (bool(beta) & np.broadcast_to(i, (2, 3))) | (bool(alpha) & np.outer(v1, v2))
    assert got.dtype == pdt.bool and tuple(got.shape) == (2, 3)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    with pytest.raises(RuntimeError, match="must be integers"):
        pdt.addr(*[pdt.tensor(a, device=device) for a in (i, v1, v2)], alpha=1.5)


@pytest.mark.parametrize("call", [
    lambda a, **k: pdt.addr(a, a[:, 0], a[0], **k),
    lambda a, **k: pdt.kron(a, a[:1], **k),
])
def test_addr_kron_out_may_be_another_float_dtype(device, call):
    """PyTorch casts addr's and kron's result into out (addmm's & co. must match)."""
    a = pdt.tensor(np.arange(6.0).reshape(2, 3) - 2.5, device=device)
    out = pdt.empty(0, dtype=pdt.float32, device=device)
    assert call(a, out=out) is out and out.dtype == pdt.float32
    np.testing.assert_allclose(out.cpu().numpy(), call(a).cpu().numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda b1, b2, **k: pdt.addmv(b1[0, :, 0], b1[0], b2[0, :, 0], **k),
    lambda b1, b2, **k: pdt.addbmm(b1[0, :, :2], b1, b2, **k),
    lambda b1, b2, **k: pdt.baddbmm(b1[:, :, :2], b1, b2, **k),
])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_bool_beta_alpha_are_one_and_zero(device, call, dtype):
    """PyTorch takes True and False as 1 and 0 for addmv, addbmm and baddbmm."""
    dt = getattr(pdt, dtype)
    b1 = pdt.tensor(np.arange(24.0).reshape(2, 3, 4) - 7, device=device).to(dt)
    b2 = pdt.tensor(np.arange(16.0).reshape(2, 4, 2) % 5 - 2, device=device).to(dt)
    for beta, alpha in [(True, False), (False, True)]:
        got = call(b1, b2, beta=beta, alpha=alpha)
        want = call(b1, b2, beta=int(beta), alpha=int(alpha))
        assert got.dtype == dt
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_addr_bool_alpha_needs_a_bool_result(device):
    v = pdt.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        pdt.addr(pdt.zeros(2, 2, dtype=pdt.int64, device=device), v, v, alpha=True)
