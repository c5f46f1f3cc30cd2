"""Every tensor an op's backward reads goes through saved_tensors_hooks (Note [saved
tensors hooks]): the indices of max(dim), sort, topk and max_pool2d, where's condition,
the index of index_select, gather and index_add, advanced indexing's keys (read and
written), scatter_reduce's operands and its flat index, dropout's mask, the fused LSTM
cell's gates under create_graph.  They were kept as plain attributes of the Node: a
pack hook never saw them, save_on_cpu left them on the device, an in-place change of
one was not noticed (PyTorch's backward raises) and a second backward without
retain_graph ran on.  Gradients are compared in float64 with and without hooks, and
with closed forms."""
import contextlib

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C, autograd
from pydevtensor.autograd.graph import save_on_cpu, saved_tensors_hooks
from pydevtensor.nn import _fused_rnn
from pydevtensor.nn import functional as F

A = np.array([[1.0, 5.0, 2.0, -3.0], [4.0, -1.0, 3.0, 0.5], [-2.0, 6.0, 0.25, 7.0]])


def np_of(t):
    return t.detach().cpu().numpy()


def _idx(device, values):
    return pdt.tensor(values, dtype=pdt.int64, device=device)


def _set_rows(x, device):
    y = x * 1
    y[_idx(device, [2, 0])] = x[:2] * 3
    return y


def _scatter(reduce):
    def build(x, device):
        index = _idx(device, [[0, 1, 0, 1], [2, 2, 0, 0]])
        return x.clone().scatter_reduce(0, index, x[:2] * 2, reduce)
    return build


# name -> (the op on x (3, 4), float64, requiring grad; what its backward reads, as
# (shape, dtype): it must be among the tensors packed)
CASES = {
    "max_dim": (lambda x, d: x.max(1)[0], ((3,), pdt.int64)),
    "sort": (lambda x, d: x.sort(1)[0], ((3, 4), pdt.int64)),
    "topk": (lambda x, d: x.topk(2, 1)[0], ((3, 2), pdt.int64)),
    "where": (lambda x, d: pdt.where(x > 1, x, x * x), ((3, 4), pdt.bool)),
    "index_select": (lambda x, d: x.index_select(1, _idx(d, [3, 0, 3])), ((3,), pdt.int64)),
    "gather": (lambda x, d: x.gather(1, _idx(d, [[0], [3], [3]])), ((3, 1), pdt.int64)),
    "index": (lambda x, d: x[_idx(d, [2, 0, 2])], ((3,), pdt.int64)),
    "mask": (lambda x, d: x[x > 0], ((3, 4), pdt.bool)),
    "index_put": (_set_rows, ((2,), pdt.int64)),
    "index_add": (lambda x, d: x.index_add(0, _idx(d, [1, 1]), x[:2] * 2), ((2,), pdt.int64)),
    "scatter_amax": (_scatter("amax"), ((8,), pdt.int64)),
    "scatter_prod": (_scatter("prod"), ((8,), pdt.int64)),
    "max_pool2d": (lambda x, d: F.max_pool2d(x.reshape(1, 1, 3, 4), 2, 1), ((1, 1, 2, 3), pdt.int64)),
}


def _leaf(device):
    return pdt.tensor(A, dtype=pdt.float64, device=device, requires_grad=True)


def _grad(build, device, hooks=None):
    x = _leaf(device)
    if hooks is None:
        y = build(x, device)
    else:
        with hooks:
            y = build(x, device)
    w = pdt.arange(1, y.numel() + 1, dtype=pdt.float64, device=device).reshape(y.shape)
    (y * w).sum().backward()
    return np_of(x.grad)


def _held(node):
    """The tensors a Node holds outside save_tensors (none may be left)."""
    out = []
    for k, v in node.__dict__.items():
        for t in v if isinstance(v, (tuple, list)) else (v,):
            if isinstance(t, _C.Tensor) and k != "_packed":
                out.append(k)
    return out


def _nodes(t):
    seen, todo = [], [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.append(n)
        todo.extend(e[0] for e in n.next_functions)
    return seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_pack_hook_sees_what_the_backward_reads(device, name):
    build, wanted = CASES[name]
    packed, unpacked = [], []

    def pack(t):
        packed.append((tuple(t.shape), t.dtype, t.device))
        return t.clone()

    def unpack(t):
        unpacked.append(tuple(t.shape))
        return t

    x = _leaf(device)
    with saved_tensors_hooks(pack, unpack):
        y = build(x, device)
    shape, dtype = wanted
    assert (shape, dtype, device) in packed, packed
    assert {n.name(): _held(n) for n in _nodes(y) if _held(n)} == {}
    y.sum().backward()
    assert shape in unpacked  # the backward read it through unpack


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_through_the_hooks_are_the_plain_ones(device, name):
    """save_on_cpu, and hooks that hand back a copy, give the gradients computed without
    hooks (float64, exactly: the same arithmetic on the same values)."""
    build = CASES[name][0]
    plain = _grad(build, device)
    assert np.abs(plain).sum() > 0
    copied = saved_tensors_hooks(lambda t: t.detach().cpu().clone(),
                                 lambda t: t.to(device))
    np.testing.assert_array_equal(_grad(build, device, save_on_cpu()), plain)
    np.testing.assert_array_equal(_grad(build, device, copied), plain)


def test_max_pool2d_gradient_on_the_host_copy(device):
    """Each window's gradient at its maximum (closed form), with save_on_cpu: the taps
    it reads back are the host copy, moved to the device."""
    a = np.arange(16.0).reshape(1, 1, 4, 4)[:, :, ::-1].copy()
    x = pdt.tensor(a, device=device, requires_grad=True)
    with save_on_cpu():
        y = F.max_pool2d(x, 2)
    y.sum().backward()
    want = np.zeros_like(a)
    for i in range(2):
        for j in range(2):
            win = a[0, 0, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
            r, c = np.unravel_index(np.argmax(win), (2, 2))
            want[0, 0, 2 * i + r, 2 * j + c] = 1.0
    np.testing.assert_array_equal(np_of(x.grad), want)


def test_dropout_mask_is_packed(device):
    x = pdt.ones(64, dtype=pdt.float64, device=device, requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t.dtype) or t.clone(), lambda t: t):
        y = F.dropout(x, 0.5)
    assert pdt.bool in packed
    y.sum().backward()
    kept = np_of(y) != 0
    np.testing.assert_array_equal(np_of(x.grad), np.where(kept, 2.0, 0.0))


# an index changed in place after the forward: PyTorch's backward raises
CHANGED = {
    "max_dim": lambda x, d: (lambda v, i: (v, i))(*x.max(1)),
    "sort": lambda x, d: (lambda v, i: (v, i))(*x.sort(1)),
    "topk": lambda x, d: (lambda v, i: (v, i))(*x.topk(2, 1)),
    "index_select": lambda x, d: (lambda i: (x.index_select(0, i), i))(_idx(d, [1, 0])),
    "gather": lambda x, d: (lambda i: (x.gather(1, i), i))(_idx(d, [[0], [2], [1]])),
    "index": lambda x, d: (lambda i: (x[i], i))(_idx(d, [1, 0, 1])),
    "index_add": lambda x, d: (lambda i: (x.index_add(0, i, x[:2] * 1), i))(_idx(d, [0, 0])),
}


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_an_index_changed_in_place_fails_the_backward(device, name):
    x = _leaf(device)
    y, index = CHANGED[name](x, device)
    index.add_(0)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: "
                                           r"\[pydevtensor\.(cuda\.)?LongTensor"):
        y.sum().backward()


def test_a_changed_condition_and_key_fail_the_backward(device):
    x = _leaf(device)
    c = x.detach() > 1
    y = pdt.where(c, x, x * 2)
    c.logical_not_()
    with pytest.raises(RuntimeError, match="BoolTensor .* WhereBackward0"):
        y.sum().backward()
    z, key = x * 1, _idx(device, [1])
    z[key] = 0.0
    key.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("name", ["max_dim", "index", "where", "index_select", "max_pool2d"])
def test_a_second_backward_needs_retain_graph(device, name):
    build = CASES[name][0]
    x = _leaf(device)
    y = build(x, device).sum()
    y.backward(retain_graph=True)
    once = np_of(x.grad).copy()
    y.backward()
    np.testing.assert_array_equal(np_of(x.grad), 2 * once)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_second_derivatives_through_packed_indices(device):
    """(x[idx]^2 + where(x > 1, x^3, 0) + max(x, 1)^2) summed: the gradient taken with
    create_graph=True under the hooks, and its own gradient, against closed forms."""
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t.clone()):
        x = _leaf(device)
        idx = _idx(device, [2, 0, 2])
        y = (x[idx] ** 2).sum() + pdt.where(x > 1, x ** 3, x * 0).sum() + \
            (x.max(1)[0] ** 2).sum()
        g, = autograd.grad(y, x, create_graph=True)
        gg, = autograd.grad(g.sum(), x)
    count = np.zeros_like(A)
    count[2], count[0] = 2, 1
    at_max = A == A.max(1, keepdims=True)
    np.testing.assert_allclose(np_of(g), 2 * count * A + np.where(A > 1, 3 * A ** 2, 0)
                               + 2 * at_max * A, rtol=1e-14)
    np.testing.assert_allclose(np_of(gg), 2 * count + np.where(A > 1, 6 * A, 0)
                               + 2 * at_max, rtol=1e-14)


def test_a_create_graph_backward_packs_the_indices_it_keeps(device):
    """gather's, index_select's and indexing's gradients taken with create_graph=True
    are recorded (LinearInGradBackward) with the index their own backward reads: kept
    through the hooks active during that backward; the second derivatives in closed
    form."""
    x = _leaf(device)
    y = (x.gather(1, _idx(device, [[0], [3], [3]])) ** 2).sum() + \
        (x.index_select(1, _idx(device, [3, 0, 3])) ** 2).sum() + \
        (x[_idx(device, [2, 0, 2])] ** 2).sum()
    packed = []
    with saved_tensors_hooks(lambda t: packed.append((tuple(t.shape), t.dtype)) or t.clone(),
                             lambda t: t):
        g, = autograd.grad(y, x, create_graph=True)
    assert packed.count(((3,), pdt.int64)) == 3, packed  # gather's offsets, the two indices
    gg, = autograd.grad(g.sum(), x)
    count = np.zeros_like(A)
    count[[0, 1, 2], [0, 3, 3]] += 1
    count[:, 3] += 2
    count[:, 0] += 1
    count[2] += 2
    count[0] += 1
    np.testing.assert_allclose(np_of(g), 2 * count * A, rtol=1e-14)
    np.testing.assert_allclose(np_of(gg), 2 * count, rtol=1e-14)


def test_the_lstm_gates_of_a_create_graph_backward_are_packed(device):
    """With create_graph=True the fused cell's activated gates are tensors of the new
    graph (GateBackward0): kept through the hooks active during that backward, with
    the same second derivatives."""
    rng = np.random.default_rng(3)
    ig, hg = (rng.standard_normal((2, 12)) for _ in range(2))
    c = rng.standard_normal((2, 3))

    def second(hooks):
        args = [pdt.tensor(a, device=device, requires_grad=True) for a in (ig, hg, c)]
        hy, cy = _fused_rnn.lstm_cell(*args)
        with hooks:
            g = autograd.grad((hy * cy).sum(), args, create_graph=True)
        held = {n.name(): _held(n) for t in g for n in _nodes(t) if _held(n)}
        assert held == {}  # GateBackward0 kept its gates as a plain attribute
        return [np_of(t) for t in autograd.grad(sum((t * t).sum() for t in g), args)]

    packed = []
    with_hooks = second(saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t,
                                            lambda t: t))
    assert (2, 12) in packed
    for a, b in zip(with_hooks, second(save_on_cpu())):
        np.testing.assert_array_equal(a, b)
    plain = second(contextlib.nullcontext())
    for a, b in zip(with_hooks, plain):
        np.testing.assert_array_equal(a, b)
