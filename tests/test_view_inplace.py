"""Views taken of a tensor in the graph, then an in-place change of that tensor (Note
[views and in-place changes] in pydevtensor/autograd/node.py): using such a view in an
op raises, where its node would give the gradient of the old values; uses before the
change, views taken after it, and views of leaves changed under no_grad stay sound. A
reshape that had to copy is not a view. Every device; gradients against NumPy."""
import numpy as np
import pytest

import pydevtensor as pdt

VIEWS = {
    "select": lambda y: y[0],
    "slice": lambda y: y[1:],
    "view": lambda y: y.view(6),
    "t": lambda y: y.t(),
    "transpose": lambda y: y.transpose(0, 1),
    "permute": lambda y: y.permute(1, 0),
    "unbind": lambda y: y.unbind(0)[0],
    "iteration": lambda y: next(iter(y)),
    "expand": lambda y: y[:1].expand(3, 2),
}


def _x(device):
    return pdt.tensor(np.arange(6.0).reshape(3, 2), device=device, requires_grad=True)


@pytest.mark.parametrize("how", sorted(VIEWS))
def test_a_view_used_after_its_base_changed_raises(device, how):
    y = _x(device) * 1
    v = VIEWS[how](y)
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"was modified by an inplace operation since "
                                           r"\(its version went from 0 to 1\)"):
        v * 3


def test_uses_before_the_change_and_views_after_it_are_sound(device):
    x = _x(device)
    y = x * 1
    before = y[0].sum()  # used before the change: its gradient is that of the old values
    y.mul_(2)
    after = y[0]  # taken after: sees the new place in the graph
    (before + (after * after).sum()).backward()
    a = np.arange(6.0).reshape(3, 2)
    want = np.zeros((3, 2))
    want[0] = 1 + 2 * (2 * a[0]) * 2
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12)


def test_views_of_leaves_changed_under_no_grad_are_sound(device):
    w = _x(device)
    v = w.t()
    with pdt.no_grad():
        w.mul_(3)  # an optimizer step: the leaf keeps its place in the graph
    (v * v).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), 2 * 3 * np.arange(6.0).reshape(3, 2))


def test_a_copying_reshape_is_not_a_view(device):
    x = _x(device)
    r = (x * 1).t().reshape(6)  # transposed: reshape copies
    assert r.grad_fn.name() == "UnsafeViewBackward0"
    r.add_(1)  # in place on a copy is fine
    (r * r).sum().backward()
    a = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * (a + 1), rtol=1e-12)
    assert (x * 1).reshape(6).grad_fn.name() == "ViewBackward0"
    with pytest.raises(NotImplementedError, match="in-place operation on a view"):
        (x * 1).reshape(6).add_(1)
