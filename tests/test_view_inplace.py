"""Views taken of a tensor in the graph, then an in-place change of that tensor (Note
[views and in-place changes] in pydevtensor/autograd/node.py): using such a view in an
op raises, where its node would give the gradient of the old values; uses before the
change, views taken after it, and views of leaves changed under no_grad stay sound. A
reshape that had to copy is not a view. An in-place change through a view that
reshapes the whole tensor (D2L's masked_softmax: ``X.reshape(-1, n)[~mask] = v``) moves
the base's place in the graph too (Note [in-place on a reshaped view] in
autograd/dispatch.py); other views changed in place stay refused. Every device;
gradients against NumPy."""
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
        (x * 1)[1:].add_(1)  # a slice: still refused
    with pytest.raises(NotImplementedError, match="in-place operation on a view"):
        (x * 1).t().mul_(2)  # a transpose too


CHANGES = {
    "masked setitem": lambda v: v.__setitem__(v > 2, -1.0),
    "basic setitem": lambda v: v.__setitem__((0, slice(None), 0), 5.0),
    "mul_": lambda v: v.mul_(3.0),
    "zero_": lambda v: v.zero_(),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_in_place_through_a_reshaped_view_moves_the_base(device, change):
    """Both the view and the base are used after the change: their gradients are those
    of the new values (checked against NumPy's formulas for each change)."""
    a = np.arange(6.0).reshape(3, 2)
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = x * 2
    v = y.reshape(2, 3).unsqueeze(0)  # a reshape of a reshape
    CHANGES[change](v)
    assert y.grad_fn.name() == "ViewBackward0"
    (y * y).sum().backward()  # the base after the change
    new = 2 * a
    keep = np.ones_like(a)
    if change == "masked setitem":
        keep = (new <= 2).astype(float)
        new = np.where(new > 2, -1.0, new)
    elif change == "basic setitem":
        keep = np.ones((2, 3))
        keep[:, 0] = 0
        keep = keep.reshape(3, 2)
        new = np.where(keep == 1, new, 5.0)
    elif change == "mul_":
        keep, new = 3 * keep, 3 * new
    else:
        keep, new = 0 * keep, 0 * new
    np.testing.assert_allclose(y.detach().cpu().numpy(), new)
    grad = np.zeros_like(a) if x.grad is None else x.grad.cpu().numpy()  # zero_: no path
    np.testing.assert_allclose(grad, 2 * new * keep * 2, rtol=1e-12)


def test_other_views_of_the_base_refuse_after_a_change_through_a_reshaped_view(device):
    y = _x(device) * 1
    row = y[0]
    y.view(6).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        row * 2
