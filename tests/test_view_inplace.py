"""Views taken of a tensor in the graph, then an in-place change of that tensor (Note
[views and their base] in csrc/python/autograd_view.c): such a view takes its elements
of the base's new value as its node when used (PyTorch's view replay); uses before the
change, views taken after it, and views of leaves changed under no_grad stay sound. A
reshape that had to copy is not a view. An in-place change through a view (D2L's
masked_softmax: ``X.reshape(-1, n)[~mask] = v``) moves the base's place in the graph
(CopySlices). Every device; gradients against NumPy or torch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

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


def _used_after_change(lib, how, device=None):
    x = lib.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True, device=device)
    y = x * 1
    v = VIEWS[how](y)
    y.mul_(2)
    (v * 3 * v).sum().backward()
    return v, x.grad


@pytest.mark.parametrize("how", sorted(VIEWS))
def test_a_view_used_after_its_base_changed_follows_it(device, how):
    """PyTorch's view replay: the view takes its elements of the base's new value as its
    node (AsStridedBackward0), so the gradient is that of the new values."""
    torch = torch_or_skip()
    if how in ("unbind", "iteration"):  # one of several views: refused, as in torch
        for lib, dev in ((torch, None), (pdt, device)):
            with pytest.raises(RuntimeError, match="Output 0 of Unbind(Backward0)? is a view and its base "
                                                   "or another view of its base has been "
                                                   "modified inplace"):
                _used_after_change(lib, how, dev)
        return
    v, g = _used_after_change(pdt, how, device)
    tv, tg = _used_after_change(torch, how)
    assert v.grad_fn.name() == "AsStridedBackward0"
    np.testing.assert_allclose(g.cpu().numpy(), tg.numpy(), rtol=1e-12)


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
    assert not r._is_view() and (x * 1).reshape(6)._is_view()


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
    assert y.grad_fn.name() == "CopySlices"
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


def test_other_views_of_the_base_follow_a_change_through_a_reshaped_view(device):
    x = _x(device)
    y = x * 1
    row = y[0]
    y.view(6).mul_(3)
    (row * 2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[6.0, 6.0], [0, 0], [0, 0]])


def _twice_through_temporaries(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    X = x * 1
    X.view(2, 2).mul_(2)
    X.view(4).mul_(3)
    return x, X


def _view_of_a_view(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = (x * 2).view(4)  # its base, x * 2, is gone at once
    v.view(2, 2).mul_(3)
    return x, v


def _masked_twice(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    X = x * 1
    X.reshape(2, 2)[lib.tensor([[True, False], [False, False]])] = 0.0
    X.reshape(4)[lib.tensor([False, True, False, False])] = 0.0
    return x, X


@pytest.mark.parametrize("sequence", [_twice_through_temporaries, _view_of_a_view, _masked_twice])
def test_sequences_of_changes_through_views_give_torchs_gradient(device, sequence):
    """The reviewer's sequences, whose gradients came out silently wrong once (a base
    that is a gone temporary; views of views): each gives PyTorch's gradient."""
    torch = torch_or_skip()
    x, X = sequence(pdt)
    (X * X).sum().backward()
    tx, tX = sequence(torch)
    (tX * tX).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()


@pytest.mark.parametrize("chain", [lambda p: p.view(6).view(2, 3),
                                   lambda p: p.unsqueeze(0).squeeze(0),
                                   lambda p: p.reshape(-1).reshape(6)])
def test_a_leaf_changed_through_several_reshapes_is_refused(chain):
    p = pdt.nn.Parameter(pdt.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"a view of a leaf Variable that requires grad"):
        chain(p).mul_(2)
    assert p.tolist() == [[1.0] * 3] * 2 and p.is_leaf
