"""torch.cond and torch.while_loop in eager mode (_control_flow.py): the branch pred picks
(bool, number, one-element tensor of any shape or dtype), nested operands, gradients
through the chosen branch; the loop against its closed form (Collatz steps, a geometric
series, Newton's square root against NumPy); PyTorch's checks of pred, the branches'
agreement, the carried values and their refusals."""
import numpy as np
import pytest

import pydevtensor as pdt


@pytest.mark.parametrize("pred,want", [
    (True, [2.0, 3.0]), (False, [0.0, 1.0]), (1, [2.0, 3.0]), (0.0, [0.0, 1.0]),
    ("tensor(True)", [2.0, 3.0]), ("tensor([[False]])", [0.0, 1.0]),
    ("tensor([2])", [2.0, 3.0]), ("tensor(0.0)", [0.0, 1.0]),
])
def test_cond_runs_the_branch_pred_picks(pred, want, device):
    x = pdt.tensor([1.0, 2.0], device=device)
    if isinstance(pred, str):
        pred = eval("pdt." + pred[:-1] + ", device=device)")
    got = pdt.cond(pred, lambda t: t + 1, lambda t: t - 1, (x,))
    assert got.device.type == device.type
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_cond_with_nested_operands_and_results(device):
    ops = ({"a": pdt.ones(2, device=device), "b": [pdt.full((3,), 2.0, device=device)]},)

    def true_fn(d):
        return d["a"].sum(), [d["b"][0] * 3]

    def false_fn(d):
        return d["a"].sum() * 0, [d["b"][0][:1]]  # another shape: allowed, as in torch

    s, (y,) = pdt.cond(pdt.tensor(True, device=device), true_fn, false_fn, ops)
    assert s.item() == 2.0 and y.cpu().tolist() == [6.0, 6.0, 6.0]
    s, (y,) = pdt.cond(pdt.tensor(False, device=device), true_fn, false_fn, ops)
    assert s.item() == 0.0 and y.cpu().tolist() == [2.0]
    assert pdt.cond(pdt.tensor(True), lambda: 3, lambda: 4) == 3  # no operands, int results


def test_cond_differentiates_the_chosen_branch(device):
    x = pdt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = pdt.cond(x.sum() > 0, lambda t: (t ** 3).sum(), lambda t: t.sum(), (x,))
    y.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 3 * np.array([1.0, 4.0, 9.0]))


def test_cond_runs_the_other_branch_once_without_gradients():
    calls = []

    def other(t):
        calls.append(pdt.is_grad_enabled())
        return t * 0

    x = pdt.ones(2, requires_grad=True)
    pdt.cond(pdt.tensor(True), lambda t: t * 2, other, (x,))
    assert calls == [False]
    calls.clear()
    pdt.cond(True, lambda t: t * 2, other, (x,))  # a Python bool: the branch alone
    assert calls == []


def test_a_branch_writing_to_an_operand_is_refused_and_changes_nothing(device):
    # both branches ran on the operands themselves: cond(True, add_, sub_) returned the
    # operand [1, 1] written twice, and a chosen branch x + 1 with an other branch sub_
    # left x at [0, 0]; PyTorch refuses input mutation (x unchanged)
    for chosen, other, which in ((lambda t: t.add_(1), lambda t: t - 1, "true branch"),
                                 (lambda t: t + 1, lambda t: t.sub_(1), "false branch"),
                                 (lambda t: t + 1, lambda t: t[0].zero_(), "false branch")):
        x = pdt.ones(2, device=device)
        _raises(rf"cond\(\): the {which} modified operand 0 \(a pydevtensor.float32 tensor of "
                rf"shape \(2,\) on {device}\) in place; cond does not support input mutation",
                pdt.cond, pdt.tensor(True, device=device), chosen, other, (x,))
        assert x.cpu().tolist() == [1.0, 1.0] and x._version == 0
    # a branch returning its operand gives a copy; gradients reach the operand
    x = pdt.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = pdt.cond(pdt.tensor(False, device=device), lambda t: t * 3, lambda t: t, (x,))
    assert y is not x and y.cpu().tolist() == [1.0, 2.0]
    (y * y).sum().backward()
    assert x.grad.cpu().tolist() == [2.0, 4.0]


def test_while_loop_writing_to_a_carried_value_is_refused_and_changes_nothing(device):
    # body_fn x.mul_(2) doubled the caller's x in place (torch refuses input mutation)
    i, x = pdt.tensor(0, device=device), pdt.ones(2, device=device)
    _raises(r"while_loop\(\): body_fn modified carried value 1 \(a pydevtensor.float32 tensor "
            r"of shape \(2,\) on .*\) in place; while_loop does not support input mutation",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (i + 1, x.mul_(2)), (i, x))
    _raises(r"while_loop\(\): cond_fn modified carried value 0",
            pdt.while_loop, lambda i, x: i.add_(1) < 3, lambda i, x: (i + 1, x * 2), (i, x))
    assert x.cpu().tolist() == [1.0, 1.0] and i.item() == 0
    assert x._version == 0 and i._version == 0
    # a body returning a carried value as it is gives a copy, not the caller's tensor
    out = pdt.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x), (i, x))
    assert out[0].item() == 3 and out[1] is not x and out[1].cpu().tolist() == [1.0, 1.0]


def test_while_loop_collatz_steps_and_geometric_series(device):
    def collatz(n):
        steps = 0
        while n != 1:
            n, steps = (n // 2 if n % 2 == 0 else 3 * n + 1), steps + 1
        return steps

    for start in (1, 6, 27):
        n, steps = pdt.while_loop(
            lambda n, s: n != 1,
            lambda n, s: (pdt.where(n % 2 == 0, n // 2, 3 * n + 1), s + 1),
            (pdt.tensor(start, device=device), 0))
        assert n.item() == 1 and steps == collatz(start)
    # sum of 0.5**k for k < 20 (closed form 2 - 0.5**19), carried as a list
    total, term, k = pdt.while_loop(
        lambda total, term, k: k < 20,
        lambda total, term, k: [total + term, term / 2, k + 1],
        [pdt.tensor(0.0, dtype=pdt.float64, device=device),
         pdt.tensor(1.0, dtype=pdt.float64, device=device), pdt.tensor(0, device=device)])
    assert total.item() == 2 - 0.5 ** 19 and k.item() == 20


def test_while_loop_newton_square_root_matches_numpy(device):
    a = np.array([2.0, 10.0, 0.25])
    x, it = pdt.while_loop(
        lambda x, it: ((x * x - pdt.tensor(a, device=device)).abs().max() > 1e-12) & (it < 50),
        lambda x, it: ((x + pdt.tensor(a, device=device) / x) / 2, it + 1),
        (pdt.ones(3, dtype=pdt.float64, device=device), pdt.tensor(0, device=device)))
    np.testing.assert_allclose(x.cpu().numpy(), np.sqrt(a), rtol=1e-12)
    assert 0 < it.item() < 50


def test_while_loop_that_never_runs_returns_copies():
    x = pdt.ones(2)
    out = pdt.while_loop(lambda x: False, lambda x: (x + 1,), (x,))
    assert isinstance(out, tuple) and out[0] is not x and out[0].tolist() == [1.0, 1.0]
    # a lone value from body_fn is returned as it is, as in torch
    assert pdt.while_loop(lambda i: i < 3, lambda i: i + 1, (pdt.tensor(0),)).item() == 3


def test_while_loop_nested_carried_values():
    out = pdt.while_loop(lambda d: d["i"] < 3, lambda d: ({"i": d["i"] + 1},),
                         ({"i": pdt.tensor(0)},))
    assert out[0]["i"].item() == 3


def _raises(match, fn, *args):
    with pytest.raises(RuntimeError, match=match):
        fn(*args)


def test_cond_refusals():
    x = pdt.ones(3)
    _raises(r"cond\(\): expected pred to be bool or tensor, but got str",
            pdt.cond, "a", lambda: x, lambda: x)
    _raises(r"single-element tensor, but got a tensor of shape \(2,\)",
            pdt.cond, pdt.tensor([True, False]), lambda t: t, lambda t: t, (x,))
    _raises("expect both branches to be callable, got int and function",
            pdt.cond, pdt.tensor(True), 1, lambda t: t, (x,))
    _raises("expected operands to be a tuple or list, got Tensor",
            pdt.cond, pdt.tensor(True), lambda t: t, lambda t: t, x)
    _raises("only consists of tensor leaves, but got a leaf of type int",
            pdt.cond, pdt.tensor(True), lambda t: t, lambda t: t, (1,))
    _raises(r"true branch and the false branch to return the same structure, got 2 leaves",
            pdt.cond, pdt.tensor(True), lambda t: (t + 1, t + 2), lambda t: t + 1, (x,))
    _raises(r"same structure, got 1 leaves in \('dict'",
            pdt.cond, pdt.tensor(False), lambda t: {"a": t + 1}, lambda t: (t + 1,), (x,))
    _raises(r"leaf 0 of the true branch and the false branch differ: a pydevtensor.float32 "
            r"tensor of shape \(3,\) on cpu vs a pydevtensor.int64 tensor",
            pdt.cond, pdt.tensor(True), lambda t: t + 1, lambda t: t.long(), (x,))
    # the sizes may differ, the number of dims not (PyTorch's "expected same dim but got 1
    # and 0"): a branch giving a 0-d tensor where the other gives a vector is refused
    _raises(r"leaf 0 of the true branch and the false branch differ: a pydevtensor.float32 "
            r"tensor of shape \(3,\) on cpu vs a pydevtensor.float32 tensor of shape \(\)",
            pdt.cond, pdt.tensor(False), lambda t: t + 1, lambda t: t.sum(), (x,))
    assert pdt.cond(pdt.tensor(False), lambda t: t + 1, lambda t: t.sum(0, keepdim=True),
                    (x,)).tolist() == [3.0]
    _raises("but got a leaf of type NoneType",
            pdt.cond, pdt.tensor(True), lambda t: None, lambda t: None, (x,))


def test_while_loop_refusals():
    i, x = pdt.tensor(0), pdt.ones(3)
    _raises("expect cond_fn and body_fn to be callable, got int and function",
            pdt.while_loop, 1, lambda i: (i,), (i,))
    _raises("carried_inputs must be a tuple or list but got Tensor",
            pdt.while_loop, lambda i: i < 3, lambda i: (i + 1,), i)
    _raises("only consists of tensor or int leaves, but got a leaf of type float",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (i + 1, x), (i, 1.5))
    _raises(r"cond_fn must return a boolean scalar tensor or a boolean but got a "
            r"pydevtensor.bool tensor of shape \(1,\)",
            pdt.while_loop, lambda i: (i < 3).reshape(1), lambda i: (i + 1,), (i,))
    _raises(r"but got a pydevtensor.int64 tensor of shape \(\)",
            pdt.while_loop, lambda i: (i < 3).long(), lambda i: (i + 1,), (i,))
    _raises("but got int", pdt.while_loop, lambda i: 1, lambda i: (i + 1,), (i,))
    _raises(r"body_fn and the carried_inputs to return the same structure, got 1 leaves",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (i + 1,), (i, x))
    _raises(r"leaf 1 of the body_fn and the carried_inputs differ: a pydevtensor.float64 "
            r"tensor of shape \(3,\) on cpu vs a pydevtensor.float32",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (i + 1, x.double()), (i, x))
    _raises(r"tensor of shape \(6,\) on cpu vs a pydevtensor.float32 tensor of shape \(3,\)",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (i + 1, pdt.cat([x, x])), (i, x))
    _raises("one is a tensor, the other an int",
            pdt.while_loop, lambda i, x: i < 3, lambda i, x: (1, x), (i, x))
