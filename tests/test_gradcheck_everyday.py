"""gradcheck of issue 17's everyday ops (cat, where, gather, advanced indexing, sort,
cumsum, einsum, ...): autograd against central differences in float64, on every
device the build has, with contiguous and transposed (non-contiguous) inputs; the
helper, its step and its tolerance (|autograd - numeric| <= 1e-6 + 1e-5 |numeric|)
are test_gradcheck.py's.  Then the gradients where an element is used more than once
(repeated indices in gather, index_select, x[idx] and index_put with accumulate)
against NumPy's np.add.at, exactly: they must add up, as PyTorch's scatter-add does.
"""
import zlib

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from pydevtensor import autograd
from test_gradcheck import draw_values, gradcheck


def _const(device, values, dtype=None):
    return pdt.tensor(values, dtype=dtype, device=device)


def _mask(x):
    """A fixed mask of x's shape (not drawn from x: the mask must not move when the
    differences move x)."""
    n = x.numel()
    return (pdt.arange(n, device=x.device) % 3 != 1).reshape(tuple(x.shape))


def _setitem_int(x, v):
    y = x * 1.0
    y[_const(x.device, [2, 0])] = v * 2.0
    return y


def _setitem_mask(x, v):
    y = x * 1.0
    y[_mask(x)] = v.sum()
    return y


def _setitem_pair(x, v):
    y = x * 1.0
    y[[0, 1], [2, 0]] = v
    return y


def _index_mixed(x):
    return x[:, _const(x.device, [1, 1, 0])] * x[_const(x.device, [0, 2, 2]), 1:][:, :1]


CASES = [
    ("cat", lambda a, b: pdt.cat([a, b], 1), [(2, 3), (2, 2)], "any"),
    ("cat-dim0-three", lambda a, b, c: pdt.cat((a, b, c)), [(1, 3), (2, 3), (1, 3)], "any"),
    ("concat-neg-dim", lambda a, b: pdt.concat([a, b], -1), [(2, 1, 2), (2, 1, 1)], "any"),
    ("stack", lambda a, b: pdt.stack([a, b], 1), [(2, 3), (2, 3)], "any"),
    ("hstack", lambda a, b: pdt.hstack([a, b]), [(3,), (2,)], "any"),
    ("vstack", lambda a, b: pdt.vstack([a, b]), [(3,), (2, 3)], "any"),
    ("where", lambda a, b: pdt.where(_mask(a), a, b), [(2, 3), (3,)], "any"),
    ("where-number", lambda a: pdt.where(_mask(a), a, 0.5), [(3, 2)], "any"),
    ("where-method", lambda a, b: a.where(_mask(a), b), [(2, 3), (2, 1)], "any"),
    ("masked_fill", lambda a: a.masked_fill(_mask(a), -1.0), [(2, 3)], "any"),
    ("masked_fill-tensor", lambda a, v: pdt.masked_fill(a, _mask(a), v.sum()), [(2, 3), (2,)],
     "any"),
    ("sort", lambda x: x.sort(0, descending=True).values, [(3, 2)], "distinct"),
    ("sort-last", lambda x: pdt.sort(x)[0] * pdt.arange(4, device=x.device), [(2, 4)],
     "distinct"),
    ("topk", lambda x: x.topk(2, 1).values, [(2, 4)], "distinct"),
    ("topk-smallest", lambda x: pdt.topk(x, 2, dim=0, largest=False)[0], [(3, 2)], "distinct"),
    ("cumsum", lambda x: x.cumsum(1), [(2, 3)], "any"),
    ("cumsum-dim0", lambda x: pdt.cumsum(x, 0) * x, [(3, 2, 2)], "any"),
    ("gather", lambda x: x.gather(1, _const(x.device, [[0, 0, 2], [1, 2, 1]])), [(2, 3)], "any"),
    ("gather-dim0", lambda x: pdt.gather(x, 0, _const(x.device, [[1, 0], [1, 1]])), [(3, 2)],
     "any"),
    ("index_select", lambda x: x.index_select(0, _const(x.device, [2, 0, 2])), [(3, 2)], "any"),
    ("index_select-dim1", lambda x: pdt.index_select(x, 1, _const(x.device, [1, 1])), [(2, 3)],
     "any"),
    ("index-int-tensor", lambda x: x[_const(x.device, [1, 1, 0])], [(2, 3)], "any"),
    ("index-list", lambda x: x[[0, 2, 0]], [(3, 2)], "any"),
    ("index-mask", lambda x: x[_mask(x)], [(2, 3)], "any"),
    ("index-row-mask", lambda x: x[_const(x.device, [True, False, True])], [(3, 2)], "any"),
    ("index-pair", lambda x: x[[0, 1, 1], [2, 0, 0]], [(2, 3)], "any"),
    ("index-mixed", _index_mixed, [(3, 3)], "any"),
    ("index-not-adjacent", lambda x: x[[1, 0], :, [0, 0]], [(2, 2, 2)], "any"),
    ("setitem-int", _setitem_int, [(3, 2), (2,)], "any"),
    ("setitem-mask", _setitem_mask, [(2, 3), (2,)], "any"),
    ("setitem-pair", _setitem_pair, [(2, 3), (2,)], "any"),
    ("expand", lambda x: x.expand(2, 3, 2) * 1.0, [(3, 1)], "any"),
    ("expand-keep", lambda x: pdt.exp(x.expand(-1, 3)), [(2, 1)], "any"),
    ("expand_as", lambda x, y: x.expand_as(y) * y, [(3,), (2, 3)], "any"),
    ("repeat", lambda x: x.repeat(2, 1, 3), [(2, 3)], "any"),
    ("tril", lambda x: x.tril(), [(3, 3)], "any"),
    ("triu-diagonal", lambda x: pdt.triu(x, 1), [(2, 3, 3)], "any"),
    ("tril-negative", lambda x: pdt.tril(x, -1), [(3, 4)], "any"),
    ("flip", lambda x: x.flip(0) * x, [(3, 2)], "any"),
    ("flip-dims", lambda x: pdt.flip(x, (0, 1)), [(3, 2)], "any"),
    ("fliplr", lambda x: pdt.fliplr(x), [(2, 3)], "any"),
    ("split", lambda x: x.split(2)[1] * 2.0, [(3, 2)], "any"),
    ("split-sizes", lambda x: pdt.split(x, [1, 2], 1)[1], [(2, 3)], "any"),
    ("chunk", lambda x: x.chunk(2, 1)[0] * x.chunk(2, 1)[1], [(2, 4)], "any"),
    ("einsum-mm", lambda a, b: pdt.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)], "any"),
    ("einsum-bmm", lambda a, b: pdt.einsum("bij,bjk->bik", a, b), [(2, 2, 3), (2, 3, 2)], "any"),
    ("einsum-outer", lambda a, b: pdt.einsum("i,j->ij", a, b), [(3,), (2,)], "any"),
    ("einsum-dot", lambda a, b: pdt.einsum("i,i->", a, b), [(3,), (3,)], "any"),
    ("einsum-mv", lambda a, b: pdt.einsum("ij,j->i", a, b), [(2, 3), (3,)], "any"),
    ("einsum-transpose-sum", lambda a: pdt.einsum("ijk->kj", a), [(2, 3, 2)], "any"),
    ("einsum-broadcast", lambda a, b: pdt.einsum("ij,kj->ikj", a, b), [(1, 3), (2, 3)], "any"),
    ("einsum-trace", lambda a: pdt.einsum("ii->", a), [(3, 3)], "any"),
    ("einsum-diagonal", lambda a: pdt.einsum("bii->bi", a) * 2.0, [(2, 3, 3)], "any"),
    ("einsum-ellipsis", lambda a, b: pdt.einsum("...ij,...jk->...ik", a, b),
     [(2, 2, 3), (3, 2)], "any"),
    ("einsum-three", lambda a, b, c: pdt.einsum("ij,jk,k->i", a, b, c), [(2, 3), (3, 2), (2,)],
     "any"),
    ("outer", lambda a, b: pdt.outer(a, b), [(3,), (2,)], "any"),
    ("var", lambda x: x.var(1), [(2, 3)], "any"),
    ("var-biased-all", lambda x: pdt.var(x, unbiased=False), [(2, 3)], "any"),
    ("std", lambda x: x.std(0, keepdim=True), [(3, 2)], "any"),
    ("std-correction", lambda x: pdt.std(x, (0, 1), correction=0), [(2, 3)], "any"),
    ("softmax", lambda x: x.softmax(1), [(2, 3)], "any"),
    ("log_softmax", lambda x: pdt.log_softmax(x, 0), [(3, 2)], "any"),
    ("linalg.norm", lambda x: pdt.linalg.norm(x), [(2, 3)], "any"),
    ("vector_norm-3", lambda x: pdt.linalg.vector_norm(x, 3, dim=1), [(2, 3)], "any"),
    ("vector_norm-1", lambda x: pdt.linalg.vector_norm(x, 1), [(2, 3)], "any"),
    ("vector_norm-inf", lambda x: pdt.linalg.vector_norm(x, float("inf"), dim=0), [(3, 2)],
     "distinct"),
    ("matrix_norm-fro", lambda x: pdt.linalg.matrix_norm(x), [(2, 2, 3)], "any"),
    ("matrix_norm-1", lambda x: pdt.linalg.matrix_norm(x, 1), [(3, 2)], "distinct"),
    ("matrix_norm-inf", lambda x: pdt.linalg.norm(x, float("inf")), [(3, 2)], "distinct"),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_everyday_gradcheck(case, device):
    name, fn, shapes, domain = case
    seed = zlib.crc32(name.encode())
    rng = np.random.default_rng(seed)
    # every other case on transposed (non-contiguous) inputs, by the name's hash
    gradcheck(fn, draw_values(rng, shapes, domain), device, noncontig=bool(seed & 1), seed=seed)


# ---- repeated indices add up (np.add.at), exactly ----

def _leaf(a, device):
    return pdt.from_numpy(a).to(device).requires_grad_()


def _grad_of(out, x, w):
    (g,) = autograd.grad((out * pdt.from_numpy(w).to(out.device)).sum(), [x])
    return g.cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_gather_repeated_indices_add_up(device):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4))
    idx = np.array([[0, 0, 3, 0, 3], [1, 1, 1, 1, 2], [2, 0, 2, 2, 0]])
    x = _leaf(a, device)
    out = x.gather(1, pdt.from_numpy(idx).to(device))
    np.testing.assert_array_equal(out.detach().cpu().numpy(), np.take_along_axis(a, idx, 1))
    w = rng.standard_normal(idx.shape)
    want = np.zeros_like(a)
    np.add.at(want, (np.arange(3)[:, None].repeat(5, 1), idx), w)
    np.testing.assert_allclose(_grad_of(out, x, w), want, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_index_select_and_index_repeated_add_up(device):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 3))
    idx = np.array([3, 0, 3, 3, 1])
    x = _leaf(a, device)
    w = rng.standard_normal((5, 3))
    want = np.zeros_like(a)
    np.add.at(want, idx, w)
    for out in (x.index_select(0, pdt.from_numpy(idx).to(device)),
                x[pdt.from_numpy(idx).to(device)], x[idx.tolist()]):
        np.testing.assert_array_equal(out.detach().cpu().numpy(), a[idx])
        np.testing.assert_allclose(_grad_of(out, x, w), want, rtol=1e-15, atol=1e-15)
    # two index tensors: the pair (1, 2) picked three times
    rows, cols = np.array([1, 1, 0, 1]), np.array([2, 2, 0, 2])
    out = x[rows.tolist(), cols.tolist()]
    w2 = rng.standard_normal(4)
    want2 = np.zeros_like(a)
    np.add.at(want2, (rows, cols), w2)
    np.testing.assert_allclose(_grad_of(out, x, w2), want2, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_gradients_against_numpy(device):
    """y = x * 1; y[idx] = v * 2: x's gradient is w outside idx, v's is 2 * w[idx]
    summed over v's broadcast dims."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal(3)
    x, v = _leaf(a, device), _leaf(b, device)
    y = x * 1.0
    y[[0, 2]] = v * 2.0
    w = rng.standard_normal((4, 3))
    gx, gv = autograd.grad((y * pdt.from_numpy(w).to(device)).sum(), [x, v])
    assert y.grad_fn.name() == "IndexPutBackward0"
    want_x = w.copy()
    want_x[[0, 2]] = 0
    np.testing.assert_allclose(gx.cpu().numpy(), want_x, rtol=1e-15)
    np.testing.assert_allclose(gv.cpu().numpy(), 2 * w[[0, 2]].sum(0), rtol=1e-14)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", ["int", "slice", "index", "mask"])
@pytest.mark.parametrize("vshape", [(1, 1, 3), (1, 1, 1)])
def test_setitem_value_with_leading_ones_gets_its_gradient(device, key, vshape):
    """x[k] = v with v of more dimensions than x[k], all leading 1s (PyTorch and NumPy drop
    them): v's gradient is the part of g inside k, summed to v's shape."""
    k = {"int": 0, "slice": slice(0, 1), "index": _const(device, [0]),
         "mask": _const(device, [True, False])}[key]
    w = np.arange(6.0).reshape(2, 3) - 2.0
    x = _leaf(np.zeros((2, 3)), device)
    v = _leaf(np.arange(1.0, 1.0 + np.prod(vshape)).reshape(vshape), device)
    y = x * 1.0
    y[k] = v
    gx, gv = autograd.grad((y * pdt.from_numpy(w).to(device)).sum(), [x, v])
    np.testing.assert_array_equal(gx.cpu().numpy(), np.where([[0.0], [1.0]], w, 0.0))
    want_v = w[0].reshape(1, 1, 3)
    if vshape[2] == 1:
        want_v = want_v.sum(axis=2, keepdims=True)
    assert tuple(gv.shape) == vshape
    np.testing.assert_array_equal(gv.cpu().numpy(), want_v)


@pytest.mark.parametrize("device", DEVICES)
def test_sort_cumsum_where_against_numpy(device):
    rng = np.random.default_rng(4)
    a = rng.permutation(12).reshape(3, 4) * 0.5 - 2.0
    x = _leaf(a, device)
    w = rng.standard_normal((3, 4))
    order = np.argsort(a, 1, kind="stable")
    want = np.zeros_like(a)
    np.put_along_axis(want, order, w, 1)
    np.testing.assert_allclose(_grad_of(x.sort(1).values, x, w), want, rtol=1e-15)
    np.testing.assert_allclose(_grad_of(x.cumsum(1), x, w),
                               np.flip(np.cumsum(np.flip(w, 1), 1), 1), rtol=1e-14)
    cond = a > 0
    np.testing.assert_allclose(_grad_of(pdt.where(pdt.from_numpy(cond).to(device), x, 0.0), x, w),
                               np.where(cond, w, 0.0), rtol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_std_of_rows_that_do_not_vary_has_zero_gradient(device):
    """std's gradient is (x - mean) / ((N - correction) std): PyTorch's std_backward
    gives 0 where std is 0 (not 0 / 0 = NaN); the other rows keep the formula, for std
    and std_mean."""
    a = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])
    w = np.array([0.5, -2.0])
    d = a - a.mean(1, keepdims=True)
    s = a.std(1, ddof=1, keepdims=True)
    want = w[:, None] * d / np.where(s == 0, np.inf, 2 * s)
    for f in (lambda x: x.std(1), lambda x: pdt.std_mean(x, 1)[0]):
        x = _leaf(a, device)
        got = _grad_of(f(x), x, w)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    x = _leaf(np.full((4,), 2.5), device)
    x.std(correction=0).backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros(4))
    assert x.std().grad_fn.name() == "StdBackward0"


def test_grad_fn_names_and_no_grad():
    x = pdt.randn(3, 4, dtype=pdt.float64, requires_grad=True)
    i = pdt.tensor([0, 2])
    names = {
        "CatBackward0": pdt.cat([x, x]), "StackBackward0": pdt.stack([x, x]),
        "WhereBackward0": pdt.where(x > 0, x, 0.0), "SortBackward0": x.sort().values,
        "TopkBackward0": x.topk(2).values, "CumsumBackward0": x.cumsum(0),
        "GatherBackward0": x.gather(0, i.reshape(2, 1)),
        "IndexSelectBackward0": x.index_select(0, i), "IndexBackward0": x[i],
        "ExpandBackward0": x[:1].expand(2, 4), "RepeatBackward0": x.repeat(1, 2),
        "TrilBackward0": x.tril(), "TriuBackward0": x.triu(),
    }
    for want, t in names.items():
        assert t.grad_fn.name() == want and t.requires_grad
    # sort's indices carry no graph; under no_grad nothing is recorded
    assert not x.sort().indices.requires_grad
    with pdt.no_grad():
        assert pdt.cat([x, x]).grad_fn is None and x[i].grad_fn is None
        y = x.detach().clone()
        y[i] = 0.0


def test_setitem_on_leaf_refused_and_out_refused():
    x = pdt.zeros(3, dtype=pdt.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[[0, 1]] = 1.0
    with pytest.raises(RuntimeError, match="out=... arguments"):
        pdt.cat([x, x], out=pdt.empty(6, dtype=pdt.float64))


@pytest.mark.parametrize("device", DEVICES)
def test_cat_skips_empty_and_promotes(device):
    """cat skips a 1-d empty input (its gradient is empty) and promotes dtypes (each
    input's gradient comes back in its own dtype)."""
    a = pdt.ones(2, 2, dtype=pdt.float32, device=device, requires_grad=True)
    b = pdt.ones(1, 2, dtype=pdt.float64, device=device, requires_grad=True)
    e = pdt.empty(0, dtype=pdt.float64, device=device, requires_grad=True)
    out = pdt.cat([a, e, b])
    assert out.dtype == pdt.float64 and tuple(out.shape) == (3, 2)
    w = pdt.arange(6, dtype=pdt.float64, device=device).reshape(3, 2)
    ga, ge, gb = autograd.grad((out * w).sum(), [a, e, b])
    assert ga.dtype == pdt.float32 and gb.dtype == pdt.float64 and tuple(ge.shape) == (0,)
    np.testing.assert_array_equal(ga.cpu().numpy(), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(gb.cpu().numpy(), [[4, 5]])
