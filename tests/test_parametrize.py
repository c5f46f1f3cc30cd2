"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, orthogonal,
spectral_norm) against closed forms, NumPy and finite differences, on every device:
the swapped class, the state dict's keys, assignment through right_inverse, removal."""
import copy
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor import nn
from pydevtensor.nn.utils import parametrize as P
from pydevtensor.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm
from pydevtensor.nn.utils.parametrizations import _householder_product

# nn.utils.weight_norm (the hook version) warns that it is deprecated, as PyTorch's
pytestmark = pytest.mark.filterwarnings(
    "ignore:`nn.utils.weight_norm` is deprecated:FutureWarning")


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Double(nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, y):
        return y / 2


class RankOne(nn.Module):
    """weight = x y^T, kept as two tensors."""

    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        return Z[:, 0].clone(), pdt.ones(Z.shape[1], dtype=Z.dtype, device=Z.device)


def _linear(device, rng, i=3, o=3, dtype=pdt.float64):
    m = nn.Linear(i, o).to(device=device, dtype=dtype)
    w = rng.standard_normal((o, i))
    with pdt.no_grad():
        m.weight.copy_(pdt.tensor(w, dtype=dtype, device=device))
    return m, w


def test_register_swaps_the_class_and_keeps_the_original(device):
    rng = np.random.default_rng(0)
    m, w = _linear(device, rng)
    assert P.register_parametrization(m, "weight", Symmetric()) is m
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias") and not P.is_parametrized(nn.Linear(1, 1))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert "(weight): ParametrizationList(\n      (0): Symmetric()" in repr(m)
    sym = np.triu(w) + np.triu(w, 1).T
    assert_close(m.weight, sym, "float64")
    C = rng.standard_normal((3, 3))
    (m.weight * pdt.tensor(C, device=device)).sum().backward()
    assert_close(m.parametrizations.weight.original.grad, np.triu(C) + np.triu(C.T, 1), "float64")
    x = pdt.tensor(rng.standard_normal((2, 3)), device=device)
    assert_close(m(x), x.cpu().numpy() @ sym.T + m.bias.detach().cpu().numpy(), "float64")
    # a second parametrization on the same name is applied after the first
    P.register_parametrization(m, "weight", Double())
    assert len(m.parametrizations.weight) == 2
    assert_close(m.weight, 2 * sym, "float64")


def test_assignment_runs_right_inverse_and_copies(device):
    rng = np.random.default_rng(1)
    m, w = _linear(device, rng, 3, 2)
    P.register_parametrization(m, "weight", Double())
    original = m.parametrizations.weight.original
    assert_close(original, w / 2, "float64")  # registration ran right_inverse too
    value = pdt.tensor([[4.0, 6.0, 8.0], [0.0, 2.0, -2.0]], dtype=pdt.float64, device=device)
    m.weight = value
    assert m.parametrizations.weight.original is original
    assert_close(original, [[2.0, 3.0, 4.0], [0.0, 1.0, -1.0]], "float64")
    value.fill_(0.0)  # the parameter does not share the assigned tensor's memory
    assert_close(m.weight, [[4.0, 6.0, 8.0], [0.0, 2.0, -2.0]], "float64")
    m2 = P.register_parametrization(nn.Linear(2, 2).to(device), "weight", Symmetric())
    with pytest.raises(RuntimeError, match=r"parametrization Symmetric does not implement "
                                           r"right_inverse"):
        m2.weight = pdt.eye(2, device=device)


def test_a_right_inverse_returning_a_tuple_keeps_several_originals(device):
    rng = np.random.default_rng(2)
    m, w = _linear(device, rng, 3, 2)
    P.register_parametrization(m, "weight", RankOne())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                    "parametrizations.weight.original1"]
    assert_close(m.weight, np.outer(w[:, 0], np.ones(3)), "float64")
    m.weight.sum().backward()
    assert_close(m.parametrizations.weight.original0.grad, [3.0, 3.0], "float64")
    assert_close(m.parametrizations.weight.original1.grad, [w[:, 0].sum()] * 3, "float64")
    # the state dict round trip into another parametrized module
    twin = P.register_parametrization(nn.Linear(3, 2).to(device=device, dtype=pdt.float64),
                                      "weight", RankOne())
    twin.load_state_dict(m.state_dict())
    assert_close(twin.weight, m.weight.detach().cpu().numpy(), "float64")
    with pytest.raises(ValueError, match=r"Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and list(m.state_dict()) == ["bias", "weight"]  # as torch
    assert type(m.weight) is nn.Parameter and m.weight.grad_fn is None
    assert_close(m.weight, np.outer(w[:, 0], np.ones(3)), "float64")


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(device, leave):
    rng = np.random.default_rng(3)
    m, w = _linear(device, rng, 3, 2)
    P.register_parametrization(m, "weight", Double())
    P.register_parametrization(m, "bias", Double())
    original = m.parametrizations.weight.original
    P.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert m.weight is original and type(m).__name__ == "ParametrizedLinear"
    assert_close(m.weight, w if leave else w / 2, "float64")
    P.remove_parametrizations(m, "bias", leave_parametrized=leave)
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    with pytest.raises(ValueError, match=r"does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")


def test_unsafe_shape_changes_and_errors(device):
    class Flat(nn.Module):
        def forward(self, x):
            return x.reshape(-1)
    m = nn.Linear(3, 2).to(device)
    with pytest.raises(ValueError, match=r"may not change the shape of the tensor, unless "
                                         r"`unsafe` flag is enabled"):
        P.register_parametrization(m, "weight", Flat())
    assert type(m) is nn.Linear and list(m.state_dict()) == ["weight", "bias"]
    P.register_parametrization(m, "weight", Flat(), unsafe=True)
    assert tuple(m.weight.shape) == (6,)
    with pytest.raises(ValueError, match=r"does not have a parameter, a buffer, or a "
                                         r"parametrized element with name 'nope'"):
        P.register_parametrization(m, "nope", Flat())


def test_cached_copy_and_pickle(device):
    m = P.register_parametrization(nn.Linear(2, 2).to(device), "weight", Double())
    assert m.weight is not m.weight
    with P.cached():
        w = m.weight
        with P.cached():
            assert m.weight is w
        assert m.weight is w
    assert m.weight is not w
    twin = copy.deepcopy(m)
    assert type(twin) is type(m) and twin.parametrizations.weight.original is not \
        m.parametrizations.weight.original
    assert_close(twin.weight, m.weight.detach().cpu().numpy(), "float32")
    with pytest.raises(RuntimeError, match=r"only supported through state_dict"):
        pickle.dumps(m)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_values_and_gradients(device, dim):
    rng = np.random.default_rng(4)
    m, w = _linear(device, rng, 4, 3)
    weight_norm(m, dim=dim)
    g = m.parametrizations.weight.original0
    axes = None if dim is None else tuple(d for d in range(2) if d != dim)
    norm = np.sqrt((w ** 2).sum(axis=axes, keepdims=dim is not None))
    assert_close(g, norm, "float64")
    assert_close(m.weight, w, "float64")
    with pdt.no_grad():
        g.mul_(3.0)
    assert_close(m.weight, 3 * w, "float64")
    # d/dv of sum(C * g v / ||v||) against finite differences
    C = rng.standard_normal((3, 4))
    v = m.parametrizations.weight.original1
    (m.weight * pdt.tensor(C, device=device)).sum().backward()
    gn = g.detach().cpu().numpy()

    def f(vv):
        nv = np.sqrt((vv ** 2).sum(axis=axes, keepdims=dim is not None))
        return float((C * gn * vv / nv).sum())
    num = np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        e = np.zeros_like(w)
        e[idx] = 1e-6
        num[idx] = (f(w + e) - f(w - e)) / 2e-6
    np.testing.assert_allclose(v.grad.cpu().numpy(), num, atol=1e-7)


@pytest.mark.parametrize("hook_version", [False, True])
def test_weight_norm_negative_and_out_of_range_dims(device, hook_version):
    # dim=-2 of a (4, 3, 2) weight keeps a norm per index of dimension 1 (it took the
    # whole tensor's norm, silently); -1 is the whole tensor, as None (PyTorch's)
    w = np.random.default_rng(7).standard_normal((4, 3, 2))

    def magnitude(dim):
        m = nn.Conv1d(3, 4, 2, device=device, dtype=pdt.float64)
        with pdt.no_grad():
            m.weight.copy_(pdt.tensor(w))
        if hook_version:
            nn.utils.weight_norm(m, dim=dim)
            m(pdt.ones(1, 3, 2, device=device, dtype=pdt.float64))
            g = m.weight_g
        else:
            weight_norm(m, dim=dim)
            g = m.parametrizations.weight.original0
        assert_close(m.weight, w, "float64")
        return g

    for dim, keep in [(-3, 0), (-2, 1), (0, 0), (2, 2)]:
        axes = tuple(d for d in range(3) if d != keep)
        assert_close(magnitude(dim), np.sqrt((w ** 2).sum(axis=axes, keepdims=True)), "float64")
    for dim in (-1, None):
        assert_close(magnitude(dim), np.sqrt((w ** 2).sum()), "float64")
    for dim in (3, -4):
        with pytest.raises(IndexError, match=rf"dim {dim} is out of range for a parameter of "
                                             rf"shape \(4, 3, 2\) \(expected to be in range "
                                             rf"of \[-3, 2\], or None\)"):
            magnitude(dim)


def test_weight_norm_loads_the_state_dict_of_the_hook_version(device):
    rng = np.random.default_rng(9)
    old, w = _linear(device, rng, 4, 3)
    nn.utils.weight_norm(old)
    with pdt.no_grad():
        old.weight_g.mul_(2.0)
    sd = old.state_dict()
    assert sorted(sd) == ["bias", "weight_g", "weight_v"]
    new = weight_norm(nn.Linear(4, 3).to(device=device, dtype=pdt.float64))
    new.load_state_dict(sd)
    assert_close(new.weight, 2 * w, "float64")


def _numeric_grad(m, C):
    X = m.parametrizations.weight.original
    x0 = X.detach().clone()
    num = np.zeros(tuple(X.shape))
    for idx in np.ndindex(*X.shape):
        vals = []
        for s in (1e-6, -1e-6):
            with pdt.no_grad():
                X.copy_(x0)
                X[idx] += s
            vals.append(float((m.weight * C).sum()))
        num[idx] = (vals[0] - vals[1]) / 2e-6
    with pdt.no_grad():
        X.copy_(x0)
    return num


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_orthogonal_is_orthogonal_keeps_the_weight_and_differentiates(device, orthogonal_map,
                                                                      shape):
    rng = np.random.default_rng(5)
    m, w = _linear(device, rng, shape[1], shape[0])
    orthogonal(m, orthogonal_map=orthogonal_map)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0.base"]
    W = m.weight.detach().cpu().numpy()
    small = min(shape)
    gram = W @ W.T if shape[0] <= shape[1] else W.T @ W
    assert_close(gram, np.eye(small), "float64")
    if shape[0] == shape[1]:  # the weight's own Q (R with a positive diagonal)
        q, r = np.linalg.qr(w)
        assert_close(W, q * np.sign(np.diag(r)), "float64")
    # away from the start (X = -I), orthogonal still, with finite-difference gradients
    # (householder reads the signs of the diagonal through int(), as PyTorch's)
    X = rng.standard_normal(shape) * 0.5
    np.fill_diagonal(X, -1.5)
    with pdt.no_grad():
        m.parametrizations.weight.original.copy_(pdt.tensor(X, device=device))
    W = m.weight.detach().cpu().numpy()
    gram = W @ W.T if shape[0] <= shape[1] else W.T @ W
    assert_close(gram, np.eye(small), "float64")
    C = pdt.tensor(rng.standard_normal(shape), device=device)
    (m.weight * C).sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.cpu().numpy(),
                               _numeric_grad(m, C), atol=1e-6)


def test_orthogonal_assignment_and_errors(device):
    rng = np.random.default_rng(6)
    m, _ = _linear(device, rng)
    orthogonal(m)
    q = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    m.weight = pdt.tensor(q, device=device)
    assert_close(m.weight, q, "float64")
    assert_close(m.parametrizations.weight.original, -np.eye(3), "float64")
    with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices. Got a "
                                         r"tensor of 1 dimensions"):
        orthogonal(nn.Linear(2, 2).to(device), "bias")
    with pytest.raises(ValueError, match=r'orthogonal_map has to be one of "matrix_exp"'):
        orthogonal(nn.Linear(2, 2).to(device), orthogonal_map="qr")
    # no QR in low precision: refused at registration, as PyTorch's (its base was left
    # None and the first forward failed on 'NoneType @ Tensor')
    for dtype in (pdt.float16, pdt.bfloat16):
        for omap, triv in [(None, True), ("householder", False), ("matrix_exp", True)]:
            low = nn.Linear(4, 3, device=device, dtype=dtype)
            with pytest.raises(NotImplementedError, match=rf"orthogonal\(\): weight of "
                                                          rf"{dtype} is not supported"):
                orthogonal(low, orthogonal_map=omap, use_trivialization=triv)
            assert type(low) is nn.Linear and low.weight.dtype == dtype  # unchanged


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (0, 0)])
def test_householder_without_trivialization_is_the_weights_q(device, shape, dtype):
    # right_inverse stores the weight's geqrf (reflectors below the diagonal, the
    # signs of R's diagonal on it), so the weight is its Q whose R has a positive
    # diagonal; the upper-triangular matrix has LAPACK's tau == 0 reflections
    rng = np.random.default_rng(8)
    for w in (rng.standard_normal(shape), np.triu(rng.standard_normal(shape)) - 2 * np.eye(
            *shape)):
        m = nn.Linear(shape[1], shape[0]).to(device=device, dtype=getattr(pdt, dtype))
        with pdt.no_grad():
            m.weight.copy_(pdt.tensor(w, dtype=m.weight.dtype, device=device))
        orthogonal(m, orthogonal_map="householder", use_trivialization=False)
        assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
        tall = w if shape[0] >= shape[1] else w.T
        q, r = np.linalg.qr(tall)
        q = q * np.sign(np.diag(r))
        assert_close(m.weight, q if shape[0] >= shape[1] else q.T, dtype)
        X = m.parametrizations.weight.original.detach().cpu().numpy()
        assert_close(np.abs(np.diag(X)), np.ones(min(shape)), dtype)
    if dtype == "float64" and shape[0]:  # assignment and finite-difference gradients
        q = np.linalg.qr(rng.standard_normal((max(shape), min(shape))))[0]
        m.weight = pdt.tensor(q if shape[0] >= shape[1] else q.T, device=device)
        assert_close(m.weight @ m.weight.mT if shape[0] < shape[1] else m.weight.mT @ m.weight,
                     np.eye(min(shape)), dtype)
        with pdt.no_grad():  # the diagonal +-1.5: int() keeps it under the steps
            m.parametrizations.weight.original.diagonal().mul_(1.5)
        C = pdt.tensor(rng.standard_normal(shape), device=device)
        (m.weight * C).sum().backward()
        np.testing.assert_allclose(m.parametrizations.weight.original.grad.cpu().numpy(),
                                   _numeric_grad(m, C), atol=1e-6)


def test_householder_product_is_the_product_of_reflections(device):
    rng = np.random.default_rng(7)
    A, tau = rng.standard_normal((5, 3)), rng.standard_normal(3)
    Q = np.eye(5)
    for i in range(3):
        v = np.concatenate([np.zeros(i), [1.0], A[i + 1:, i]])
        Q = Q @ (np.eye(5) - tau[i] * np.outer(v, v))
    got = _householder_product(pdt.tensor(A, device=device), pdt.tensor(tau, device=device))
    assert_close(got, Q[:, :3], "float64")


def test_spectral_norm(device):
    rng = np.random.default_rng(8)
    u, _, vt = np.linalg.svd(rng.standard_normal((3, 4)), full_matrices=False)
    w = u @ np.diag([5.0, 2.0, 1.0]) @ vt  # well separated: 15 steps converge
    m = nn.Linear(4, 3).to(device=device, dtype=pdt.float64)
    with pdt.no_grad():
        m.weight.copy_(pdt.tensor(w, device=device))
    spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    assert_close(m.weight, w / 5.0, "float64")
    m.eval()
    u0 = m.parametrizations.weight[0]._u.clone()
    m.weight
    assert pdt.equal(u0, m.parametrizations.weight[0]._u)
    b = spectral_norm(nn.Linear(2, 3).to(device=device, dtype=pdt.float64), "bias")
    bias = b.parametrizations.bias.original.detach().cpu().numpy()
    assert_close(b.bias, bias / np.linalg.norm(bias), "float64")
    assert spectral_norm(nn.ConvTranspose2d(2, 3, 2).to(device)).parametrizations.weight[0].dim \
        == 1
    with pytest.raises(ValueError, match=r"n_power_iterations to be positive"):
        spectral_norm(nn.Linear(2, 2).to(device), n_power_iterations=0)


def test_transfer_parametrizations_and_params(device):
    # PyTorch's: the parametrizations and their originals are shared, not copied
    class Scale(nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    class Split(nn.Module):  # two originals
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    rng = np.random.default_rng(9)
    a, w = _linear(device, rng, 3, 2)
    b_bias = a.bias.detach().cpu().numpy()
    P.register_parametrization(a, "weight", Scale())
    P.register_parametrization(a, "bias", Split())
    b, _ = _linear(device, rng, 3, 2)
    assert P.transfer_parametrizations_and_params(a, b) is b
    assert list(b.state_dict()) == list(a.state_dict())
    assert_close(b.weight, w, "float64")
    assert_close(b.bias, b_bias, "float64")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    assert b.parametrizations.bias.original1 is a.parametrizations.bias.original1
    assert b.parametrizations.weight[0] is a.parametrizations.weight[0]
    with pdt.no_grad():
        a.parametrizations.weight.original.mul_(3.0)
    assert_close(b.weight, 3 * w, "float64")
    # one tensor only; a module without it gets a Parameter of the parametrized value
    c = nn.Module()
    P.transfer_parametrizations_and_params(a, c, "weight")
    assert P.is_parametrized(c, "weight") and not P.is_parametrized(c, "bias")
    assert_close(c.weight, 3 * w, "float64")
    plain = nn.Linear(2, 2)
    assert P.transfer_parametrizations_and_params(nn.Linear(2, 2), plain) is plain
    assert type(plain) is nn.Linear
    with pytest.raises(KeyError, match="nope"):
        P.transfer_parametrizations_and_params(a, nn.Linear(3, 2), "nope")
