"""addmv, addr, addbmm (and their _ forms), matrix_power, cross, chain_matmul and
pydevtensor.linalg's matrix_power, cross and multi_dot (pydevtensor/_ops_linalg_small.py)
on every device, against float64 NumPy.

Tolerance: float64 inputs, products of at most a few dozen terms: 1e-12 relative
plus 1e-12 absolute.  Gradients by gradcheck."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

TOL = dict(rtol=1e-12, atol=1e-12)


def _t(a, device):
    return pdt.tensor(a, device=device)


def test_addmv_addr_addbmm(device):
    rng = np.random.default_rng(0)
    m, v, x = rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal(4)
    got = pdt.addmv(_t(x, device), _t(m, device), _t(v, device), beta=0.5, alpha=-2)
    np.testing.assert_allclose(got.cpu().numpy(), 0.5 * x - 2 * m @ v, **TOL)
    got = _t(x[:1], device).addmv(_t(m, device), _t(v, device))  # input broadcasts
    np.testing.assert_allclose(got.cpu().numpy(), x[:1] + m @ v, **TOL)
    a, b, c = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal(3)
    got = pdt.addr(_t(a, device), _t(b, device), _t(c, device), alpha=3)
    np.testing.assert_allclose(got.cpu().numpy(), a + 3 * np.outer(b, c), **TOL)
    b1, b2, inp = (rng.standard_normal((5, 4, 3)), rng.standard_normal((5, 3, 2)),
                   rng.standard_normal((4, 2)))
    got = pdt.addbmm(_t(inp, device), _t(b1, device), _t(b2, device), beta=2)
    np.testing.assert_allclose(got.cpu().numpy(), 2 * inp + np.einsum("bij,bjk->ik", b1, b2),
                               **TOL)


def test_beta_zero_ignores_nan(device):
    nan = _t([np.nan, np.nan], device)
    got = pdt.addmv(nan, pdt.eye(2, device=device), _t([1.0, 2.0], device), beta=0)
    assert got.tolist() == [1.0, 2.0]


def test_in_place(device):
    x = pdt.zeros(2, device=device)
    assert pdt.addmv_(x, pdt.eye(2, device=device), _t([1.0, 2.0], device)) is x
    assert x.addmv_(pdt.eye(2, device=device), _t([1.0, 1.0], device), alpha=2) is x
    assert x.tolist() == [3.0, 4.0]
    y = pdt.ones(2, 2, device=device)
    assert y.addr_(_t([1.0, 2.0], device), _t([1.0, 1.0], device), beta=2) is y
    assert y.tolist() == [[3.0, 3.0], [4.0, 4.0]]
    y.addbmm_(pdt.ones(3, 2, 1, device=device), pdt.ones(3, 1, 2, device=device), beta=0)
    assert y.tolist() == [[3.0, 3.0], [3.0, 3.0]]


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
def test_matrix_power(device, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, 3, 3)) / 2
    got = pdt.matrix_power(_t(a, device), n)
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.matrix_power(a, n), **TOL)
    np.testing.assert_allclose(pdt.linalg.matrix_power(_t(a[0], device), n).cpu().numpy(),
                               np.linalg.matrix_power(a[0], n), **TOL)
    assert _t(a, device).matrix_power(n).shape == (2, 3, 3)


def test_cross(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    np.testing.assert_allclose(pdt.linalg.cross(_t(a, device), _t(b, device)).cpu().numpy(),
                               np.cross(a, b), **TOL)
    c, d = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    np.testing.assert_allclose(pdt.cross(_t(c, device), _t(d, device)).cpu().numpy(),
                               np.cross(c, d, axis=0), **TOL)
    np.testing.assert_allclose(_t(c, device).cross(_t(d, device), dim=0).cpu().numpy(),
                               torch.cross(torch.tensor(c), torch.tensor(d), dim=0).numpy(),
                               **TOL)


def test_chain_and_multi_dot(device):
    rng = np.random.default_rng(2)
    ms = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 5))]
    got = pdt.chain_matmul(*[_t(m, device) for m in ms])
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.multi_dot(ms), **TOL)
    ms2 = [rng.standard_normal(3)] + ms[1:] + [rng.standard_normal(5)]
    got = pdt.linalg.multi_dot([_t(m, device) for m in ms2])
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.multi_dot(ms2), **TOL)


def test_gradients(device):
    rng = np.random.default_rng(3)
    gradcheck(lambda x, m, v: pdt.addmv(x, m, v, beta=0.5, alpha=2),
              [rng.standard_normal(3), rng.standard_normal((3, 2)), rng.standard_normal(2)],
              device)
    gradcheck(lambda x, a, b: pdt.addr(x, a, b, alpha=-1),
              [rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal(3)],
              device)
    gradcheck(lambda x, a, b: pdt.addbmm(x, a, b),
              [rng.standard_normal((2, 2)), rng.standard_normal((3, 2, 4)),
               rng.standard_normal((3, 4, 2))], device)
    gradcheck(lambda a: pdt.matrix_power(a, 3), [rng.standard_normal((3, 3))], device)
    gradcheck(lambda a, b: pdt.linalg.cross(a, b), [rng.standard_normal((2, 3)),
                                                    rng.standard_normal((2, 3))], device)


def test_errors_name_the_problem(device):
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.inv: The diagonal element 1"):
        pdt.matrix_power(pdt.zeros(2, 2, device=device), -1)  # n < 0: test_linalg_solve.py
    with pytest.raises(RuntimeError, match=r"batches of square matrices.*\(2, 3\)"):
        pdt.matrix_power(pdt.ones(2, 3, device=device), 2)
    with pytest.raises(RuntimeError, match="dimension 1 must have length 3"):
        pdt.linalg.cross(pdt.ones(3, 2, device=device), pdt.ones(3, 2, device=device))
    with pytest.raises(RuntimeError, match=r"vec must be 1-d, got shape \(2, 1\)"):
        pdt.addmv(pdt.ones(2, device=device), pdt.eye(2, device=device),
                  pdt.ones(2, 1, device=device))
    with pytest.raises(RuntimeError, match=r"input \(3,\) does not broadcast"):
        pdt.addmv(pdt.ones(3, device=device), pdt.eye(2, device=device),
                  pdt.ones(2, device=device))


def test_one_matrix_chain_and_repeat_by_ones_are_copies(device):
    """chain_matmul(A), a.repeat(1) and tile(b, (1,)) are new tensors (they handed
    back the input's memory)."""
    a = pdt.ones(2, 2, device=device)
    pdt.chain_matmul(a).fill_(5.0)
    a.repeat(1, 1).fill_(7.0)
    pdt.tile(a, (1,)).zero_()
    assert a.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_pow_gradients_at_a_zero_base(device):
    """PyTorch's masks: d(a ** b)/da is 0 where b == 0, d/db is 0 where a == 0 and
    b >= 0 (they were NaN and inf)."""
    a = pdt.tensor([0.0, 0.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    b = pdt.tensor([0.0, 2.0, 0.0], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.float_power(a, b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
    assert b.grad.tolist()[:2] == [0.0, 0.0] and np.isclose(b.grad.tolist()[2], np.log(2))


@pytest.mark.parametrize("name", ["addmv", "addr", "addbmm", "addmm", "baddbmm"])
@pytest.mark.parametrize("beta", [0, 0.0])
def test_beta_zero_gives_input_a_zero_gradient_as_torch(device, name, beta):
    # input is not read (NaN in it does not propagate) but its gradient is zeros, not None
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    shapes = {"addmv": [(3,), (3, 4), (4,)], "addr": [(3, 1), (3,), (2,)],
              "addbmm": [(3, 2), (5, 3, 4), (5, 4, 2)], "addmm": [(1, 2), (3, 4), (4, 2)],
              "baddbmm": [(2, 3, 2), (2, 3, 4), (2, 4, 2)]}[name]
    arrays = [rng.standard_normal(s) for s in shapes]
    arrays[0][0] = np.nan
    grads = []
    for lib, kw in ((torch, {}), (pdt, {"device": device})):
        ts = [lib.tensor(a, requires_grad=True, **kw) for a in arrays]
        out = getattr(lib, name)(*ts, beta=beta, alpha=2.0)
        assert not np.isnan(out.detach().cpu().numpy()).any()
        out.sum().backward()
        grads.append([t.grad.cpu().numpy() for t in ts])
    np.testing.assert_array_equal(grads[1][0], np.zeros(shapes[0]))
    for got, ref in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, ref, **TOL)


@pytest.mark.parametrize("name", ["addmm_", "baddbmm_"])
def test_addmm_and_baddbmm_in_place_as_torch(device, name):
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    shapes = {"addmm_": [(3, 2), (3, 4), (4, 2)], "baddbmm_": [(2, 3, 2), (2, 3, 4), (2, 4, 2)]}
    arrays = [rng.standard_normal(s) for s in shapes[name]]
    ref = torch.tensor(arrays[0])
    getattr(ref, name)(torch.tensor(arrays[1]), torch.tensor(arrays[2]), beta=0.5, alpha=-2)
    x = _t(arrays[0], device)
    assert getattr(x, name)(_t(arrays[1], device), _t(arrays[2], device), beta=0.5,
                            alpha=-2) is x
    a, b, c = arrays
    want = 0.5 * a - 2 * np.matmul(b, c)
    np.testing.assert_allclose(ref.numpy(), want, **TOL)
    np.testing.assert_allclose(x.cpu().numpy(), want, **TOL)
    with pytest.raises(RuntimeError):  # self must hold the product's shape
        getattr(_t(arrays[0][:1], device), name)(_t(b, device), _t(c, device))
