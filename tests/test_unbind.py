"""unbind (PyTorch's): the slices along a dim as views, on every device, with one
autograd node whose backward stacks the slices' gradients (zeros for the slices that
got none); iterating over a tensor that requires grad goes through it, as PyTorch's
iteration does."""
import numpy as np
import pytest

import pydevtensor as pdt


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_slices_are_views_equal_to_numpy(device, dim):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    t = pdt.tensor(a, device=device)
    parts = pdt.unbind(t, dim)
    want = [np.take(a, i, axis=dim) for i in range(a.shape[dim])]
    assert isinstance(parts, tuple) and len(parts) == len(want)
    for p, w in zip(parts, want):
        assert p.device == t.device
        np.testing.assert_array_equal(_np(p), w)
    parts[0].fill_(-1.0)  # a view: writes reach t
    assert (_np(t).take(0, axis=dim) == -1).all()
    assert t.unbind(dim)[1].shape == want[1].shape


def test_gradient_stacks_the_slices_and_fills_the_missing(device):
    a = np.random.default_rng(0).standard_normal((4, 3))
    x = pdt.tensor(a, device=device, requires_grad=True)
    rows = (x * 2).unbind(0)
    assert rows[0].grad_fn.name() == "UnbindBackward0"
    (rows[1] * 3 + rows[3] ** 2).sum().backward()  # rows 0 and 2 get no gradient
    want = np.zeros_like(a)
    want[1] = 6.0
    want[3] = 2 * (2 * a[3]) * 2
    np.testing.assert_allclose(_np(x.grad), want, rtol=1e-12, atol=0)
    x.grad = None
    cols = x.unbind(1)
    sum((c * c).sum() for c in cols).backward()  # every slice: one stack
    np.testing.assert_allclose(_np(x.grad), 2 * a, rtol=1e-12, atol=0)


def test_iteration_records_one_node(device):
    a = np.random.default_rng(1).standard_normal((5, 2))
    x = pdt.tensor(a, device=device, requires_grad=True)
    steps = list(x)
    assert {s.grad_fn.name() for s in steps} == {"UnbindBackward0"}
    assert len({id(s.grad_fn) for s in steps}) == 1
    h = pdt.zeros(2, device=device, dtype=pdt.float64)
    for s in steps:  # D2L's RNN from scratch loops so
        h = (h + s).tanh()
    h.sum().backward()
    ref = np.zeros(2)
    hs = []
    for s in a:
        ref = np.tanh(ref + s)
        hs.append(ref)
    # d h_L / d x_t through the chain of tanh
    g = 1 - hs[-1] ** 2
    want = np.zeros_like(a)
    for t in range(len(a) - 1, -1, -1):
        want[t] = g
        if t:
            g = g * (1 - hs[t - 1] ** 2)
    np.testing.assert_allclose(_np(x.grad), want, rtol=1e-12, atol=1e-15)
    with pdt.no_grad():  # without recording: plain rows
        assert all(r.grad_fn is None for r in x)


def test_bad_dim_and_in_place(device):
    t = pdt.ones(2, 3, device=device)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.unbind(t, 2)
    with pytest.raises(TypeError, match="unbind"):
        pdt.unbind([1, 2])
    x = pdt.ones(2, 3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view and is being modified "
                                           "inplace"):
        (x * 1).unbind(0)[0].add_(1)


def test_zero_dim_raises_pytorchs_index_error(device):
    s = pdt.tensor(2.0, device=device)
    for dim in (0, -1):
        with pytest.raises(IndexError, match=rf"Dimension specified as 0 but tensor has no "
                                             rf"dimensions \(a 0-d tensor on {device}\)"):
            s.unbind(dim)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        pdt.unbind(s, 1)
