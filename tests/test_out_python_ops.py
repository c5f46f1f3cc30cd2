"""out= of the ops written in Python (pydevtensor/_out.py): masked_select, take,
take_along_dim, nonzero, nonzero_static, sort, topk, kthvalue, msort, searchsorted, bucketize, histc,
cumsum, cumprod, cummax, cummin, logcumsumexp, diff, the scatters (index_add,
index_copy, index_reduce, scatter, scatter_add, scatter_reduce), tensordot, inner and the
products addmm, mv, addmv, addr, baddbmm, addbmm, chain_matmul and kron, on every device,
against NumPy.

PyTorch's rules: the result is written into out and out is returned (the named tuple
of the outs for (values, indices)); an out with no elements takes the result's shape;
out must have the result's dtype (cumsum and cumprod without dtype= compute in out's);
out= where an argument requires grad raises, except for the ops with no gradient.
A non-empty out of another shape is refused (PyTorch resizes it with a warning).
"""
import numpy as np
import pytest

import pydevtensor as pdt

A = np.array([[3.0, -1.0, 2.0, 7.0], [0.5, 5.0, 4.0, -2.0]])
SEQ = np.array([-1.0, 2.0, 4.5])
TAKE = np.array([0, 5, -1])
ALONG = np.array([[3, 0], [1, 1]])
SCAT = np.array([[3, 0], [1, 2]])  # no repeat within a row: scatter's result is defined
COLS = np.array([3, 0, 3])


def _t(a, device):
    return pdt.tensor(a, device=device)


def _running(a, better):
    """cummax/cummin along axis 1 of distinct values: (values, indices)."""
    values, indices = np.empty_like(a), np.empty(a.shape, dtype=np.int64)
    for r in range(a.shape[0]):
        best = 0
        for c in range(a.shape[1]):
            best = c if better(a[r, c], a[r, best]) else best
            values[r, c], indices[r, c] = a[r, best], best
    return values, indices


def _scattered(ufunc, index, src, include_self=True):
    """A with src's values combined by ufunc into the columns index[r] of each row r (the
    columns named by no index keep A's; without include_self A's own value is left out)."""
    b = A.copy()
    for r in range(A.shape[0]):
        for c in np.unique(index[r]):
            taken = src[r][index[r] == c]
            b[r, c] = ufunc.reduce(np.append(taken, A[r, c]) if include_self else taken)
    return b


def _index_copied():
    b = A.copy()
    b[:, [3, 0]] = A[:, 1:3]
    return b


# name: (call(x, out) -> result, NumPy's values (a tuple for (values, indices)),
#        whether the op has a gradient, so that out= with a grad-requiring input raises)
CASES = {
    "masked_select": (lambda x, **k: pdt.masked_select(x, x > 1, **k), A[A > 1], True),
    "take": (lambda x, **k: pdt.take(x, _t(TAKE, x.device), **k), A.ravel()[TAKE], True),
    "take_along_dim": (lambda x, **k: pdt.take_along_dim(x, _t(ALONG, x.device), 1, **k),
                       np.take_along_axis(A, ALONG, 1), True),
    "nonzero": (lambda x, **k: pdt.nonzero(x - 2, **k), np.argwhere(A - 2), False),
    "nonzero_static": (lambda x, **k: pdt.nonzero_static(x > 2, size=6, fill_value=-4, **k),
                       np.vstack([np.argwhere(A > 2), np.full((2, 2), -4)]), False),
    "sort": (lambda x, **k: pdt.sort(x, **k),
             (np.sort(A, 1), np.argsort(A, 1, kind="stable")), True),
    "topk": (lambda x, **k: pdt.topk(x, 2, **k),
             (-np.sort(-A, 1)[:, :2], np.argsort(-A, 1, kind="stable")[:, :2]), True),
    "kthvalue": (lambda x, **k: pdt.kthvalue(x, 2, **k),
                 (np.sort(A, 1)[:, 1], np.argsort(A, 1, kind="stable")[:, 1]), True),
    "msort": (lambda x, **k: pdt.msort(x, **k), np.sort(A, 0), True),
    "searchsorted": (lambda x, **k: pdt.searchsorted(_t(SEQ, x.device), x, **k),
                     np.searchsorted(SEQ, A), False),
    "bucketize": (lambda x, **k: pdt.bucketize(x, _t(SEQ, x.device), right=True, **k),
                  np.searchsorted(SEQ, A, side="right"), False),
    "histc": (lambda x, **k: pdt.histc(x, 4, -2, 6, **k),
              np.histogram(A, 4, (-2, 6))[0].astype(np.float64), False),
    "cumsum": (lambda x, **k: pdt.cumsum(x, 1, **k), np.cumsum(A, 1), True),
    "cumprod": (lambda x, **k: pdt.cumprod(x, 1, **k), np.cumprod(A, 1), True),
    "cummax": (lambda x, **k: pdt.cummax(x, 1, **k), _running(A, np.greater), True),
    "cummin": (lambda x, **k: pdt.cummin(x, 1, **k), _running(A, np.less), True),
    "logcumsumexp": (lambda x, **k: pdt.logcumsumexp(x, 1, **k),
                     np.logaddexp.accumulate(A, 1), True),
    "diff": (lambda x, **k: pdt.diff(x, 2, 1, prepend=x[:, :1], **k),
             np.diff(A, 2, 1, prepend=A[:, :1]), True),
    "index_add": (lambda x, **k: pdt.index_add(x, 1, _t(COLS, x.device), x[:, :3], alpha=2,
                                               **k),
                  _scattered(np.add, np.tile(COLS, (2, 1)), 2 * A[:, :3]), True),
    "index_copy": (lambda x, **k: pdt.index_copy(x, 1, _t(COLS[:2], x.device), x[:, 1:3], **k),
                   _index_copied(), True),
    "index_reduce": (lambda x, **k: pdt.index_reduce(x, 1, _t(COLS, x.device), x[:, :3],
                                                     "amax", **k),
                     _scattered(np.maximum, np.tile(COLS, (2, 1)), A[:, :3]), True),
    "scatter": (lambda x, **k: pdt.scatter(x, 1, _t(SCAT, x.device), x[:, 2:], **k),
                _scattered(np.add, SCAT, A[:, 2:], include_self=False), True),  # src's values
    "scatter_add": (lambda x, **k: pdt.scatter_add(x, 1, _t(ALONG, x.device), x[:, :2], **k),
                    _scattered(np.add, ALONG, A[:, :2]), True),
    "scatter_reduce": (lambda x, **k: pdt.scatter_reduce(x, 1, _t(ALONG, x.device), x[:, 2:],
                                                         "prod", include_self=False, **k),
                       _scattered(np.multiply, ALONG, A[:, 2:], include_self=False), True),
    "tensordot": (lambda x, **k: pdt.tensordot(x, x, ([0], [0]), **k), A.T @ A, True),
    "inner": (lambda x, **k: pdt.inner(x, x, **k), A @ A.T, True),
    "addmm": (lambda x, **k: pdt.addmm(x[:, :2], x, x.T, beta=0.5, alpha=2, **k),
              0.5 * A[:, :2] + 2 * A @ A.T, True),
    "mv": (lambda x, **k: pdt.mv(x, x[0], **k), A @ A[0], True),
    "addmv": (lambda x, **k: pdt.addmv(x[1, :2], x, x[0], beta=2, **k),
              2 * A[1, :2] + A @ A[0], True),
    "addr": (lambda x, **k: pdt.addr(x, x[:, 0], x[0], alpha=3, **k),
             A + 3 * np.outer(A[:, 0], A[0]), True),
    "baddbmm": (lambda x, **k: pdt.baddbmm(x[None, :, :2], x[None], x.T[None, :, :2], **k),
                (A[:, :2] + A @ A.T[:, :2])[None], True),
    "addbmm": (lambda x, **k: pdt.addbmm(x[:1, :1], x[:, None, :], x[:, :, None], **k),
               A[:1, :1] + (A ** 2).sum(), True),
    "chain_matmul": (lambda x, **k: pdt.chain_matmul(x, x.T, x, **k), A @ A.T @ A, True),
    "kron": (lambda x, **k: pdt.kron(x, x[:1, :2], **k), np.kron(A, A[:1, :2]), True),
}


def _outs(want, device, empty=False, fill=-1):
    """Outs of want's dtypes (a tuple for a tuple), with no elements or want's shape."""
    wants = want if isinstance(want, tuple) else (want,)
    outs = tuple(pdt.empty(0, dtype=pdt.int64 if w.dtype.kind == "i" else pdt.float64,
                           device=device) if empty else _t(np.full_like(w, fill), device)
                 for w in wants)
    return outs if isinstance(want, tuple) else outs[0]


def _check(got, want):
    for g, w in zip(*((got, want) if isinstance(want, tuple) else ((got,), (want,)))):
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g.cpu().numpy(), w, rtol=1e-12)
        else:
            np.testing.assert_array_equal(g.cpu().numpy(), w)
        assert g.dtype == (pdt.float64 if w.dtype.kind == "f" else pdt.int64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_written_and_returned(device, name):
    """The result (NumPy's, and the op's without out) is written into out, which is
    returned; an out with no elements is given the result's shape."""
    call, want, _ = CASES[name]
    x = _t(A, device)
    plain = call(x)
    _check(plain, want)
    for empty in (False, True):
        out = _outs(want, device, empty)
        got = call(x, out=out)
        if isinstance(want, tuple):
            assert type(got) is type(plain)  # the op's return_types named tuple
            assert got.values is out[0] and got.indices is out[1]
        else:
            assert got is out
        _check(out, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_refused(device, name):
    """Another dtype, or a non-empty out of another shape: RuntimeError naming the op;
    out= where the input requires grad: PyTorch's RuntimeError (only for the ops with a
    gradient; the others write out)."""
    call, want, differentiable = CASES[name]
    x = _t(A, device)
    wants = want if isinstance(want, tuple) else (want,)
    for j in range(len(wants)):
        outs = list(_outs(want, device) if isinstance(want, tuple) else (_outs(want, device),))
        if name in ("cumsum", "cumprod"):  # their dtype is out's (test_scan_out_dtype)
            outs[j] = _t(np.zeros(A.shape), device)[:, :0]  # no elements, but a view
        elif name in ("diff", "addr", "kron"):  # any dtype float64 casts to, as PyTorch's
            outs[j] = pdt.empty(outs[j].shape, dtype=pdt.int64, device=device)
        else:
            outs[j] = pdt.empty(outs[j].shape, dtype=pdt.float32, device=device)
        with pytest.raises(RuntimeError, match=f"{name}.*(dtype|shape|can't be cast)"):
            call(x, out=tuple(outs) if isinstance(want, tuple) else outs[0])
    short = tuple(_t(np.zeros(1, dtype=w.dtype), device) for w in wants)
    with pytest.raises(RuntimeError, match=f"{name}.*shape"):
        call(x, out=short if isinstance(want, tuple) else short[0])
    x.requires_grad_()
    if differentiable:
        with pytest.raises(RuntimeError, match=f"{name}.*out=.*automatic differentiation"):
            call(x, out=_outs(want, device, empty=True))
        with pdt.no_grad():
            _check(call(x, out=_outs(want, device, empty=True)), want)
    else:
        _check(call(x, out=_outs(want, device, empty=True)), want)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_out_dtype(device, name):
    """Without dtype=, cumsum and cumprod compute in out's dtype (input converted first,
    as PyTorch's); with dtype=, out must have it."""
    a = np.array([0.5, 1.5, 2.7, -1.2])
    ref = getattr(np, name)(a.astype(np.int64))  # [0, 1, 3, 2] and [0, 0, 0, 0]
    x = _t(a, device)
    out = pdt.empty(0, dtype=pdt.int64, device=device)
    assert getattr(pdt, name)(x, 0, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), ref)
    out = pdt.empty(4, dtype=pdt.float32, device=device)
    getattr(pdt, name)(x, 0, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), getattr(np, name)(a.astype(np.float32)),
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match=f"{name}.*dtype.*float32.*float64"):
        getattr(pdt, name)(x, 0, dtype=pdt.float32, out=pdt.empty(4, dtype=pdt.float64,
                                                                  device=device))


def test_diff_out_casts(device):
    """diff's out may have any dtype its result casts to (PyTorch's is sub's out=): the
    differences, formed in the input's dtype, converted into out; a float result into an
    integer out, or an integer one into bool, is refused."""
    a = np.array([1.0, 3.5, 6.25, 10.0], dtype=np.float32)
    x = _t(a, device)
    for dtype, np_dtype in ((pdt.float64, np.float64), (pdt.float16, np.float16)):
        for out in (pdt.empty(0, dtype=dtype, device=device),
                    pdt.empty(2, dtype=dtype, device=device)):
            assert pdt.diff(x, n=2, out=out) is out and out.dtype == dtype
            np.testing.assert_array_equal(out.cpu().numpy(), np.diff(a, 2).astype(np_dtype))
    ints = _t(np.array([1, 3, 6, 10]), device)
    out = pdt.empty(3, dtype=pdt.float32, device=device)
    pdt.diff(ints, out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), [2.0, 3.0, 4.0])
    out = pdt.empty(2, dtype=pdt.int32, device=device)  # bool differences: !=
    pdt.diff(_t(np.array([True, False, False]), device), out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), [1, 0])
    with pytest.raises(RuntimeError, match=r"diff\(\): result type pydevtensor.float32 can't "
                                           r"be cast to .*int64"):
        pdt.diff(x, out=pdt.empty(3, dtype=pdt.int64, device=device))
    with pytest.raises(RuntimeError, match=r"diff\(\): result type pydevtensor.int64 can't "
                                           r"be cast to .*bool"):
        pdt.diff(ints, out=pdt.empty(3, dtype=pdt.bool, device=device))


def test_out_of_the_wrong_kind(device):
    """A tuple op's out must be a tuple of two Tensors; nonzero's out= is refused with
    as_tuple=True (as PyTorch)."""
    x = _t(A, device)
    with pytest.raises(TypeError, match=r"sort\(\): out must be a tuple of 2 Tensors "
                                        r"\(values, indices\), got Tensor"):
        pdt.sort(x, out=pdt.empty(0, device=device))
    with pytest.raises(TypeError, match=r"cummax\(\): out must be a tuple of 2 .*tuple of 1"):
        pdt.cummax(x, 0, out=(pdt.empty(0, device=device),))
    with pytest.raises(RuntimeError, match=r"nonzero\(\): out= is not supported with "
                                           r"as_tuple=True"):
        pdt.nonzero(x, as_tuple=True, out=pdt.empty(0, dtype=pdt.int64, device=device))


def test_methods_without_out_reads_python_signatures_only(monkeypatch):
    """methods_without_out wraps the Python methods that take out= and skips the C ones
    and the plain functions without a name 'out' without asking inspect for their
    signatures (parsing ~270 text signatures was a third of import's time); a method
    taking out= still refuses it."""
    import inspect

    from pydevtensor import _out
    asked = []
    real = inspect.signature

    def spy(fn, *args, **kwargs):
        asked.append(fn)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(_out.inspect, "signature", spy)

    class Holder:
        upper = str.upper  # a C method (method_descriptor)
        join = pdt.Tensor.add  # a C method of Tensor

        def scaled(self, k, *, out=None):
            return k

        def plain(self, k):
            return k

    _out.methods_without_out(Holder)
    assert not any(f is str.upper or f is pdt.Tensor.add or f is Holder.plain for f in asked)
    assert Holder().plain(3) == 3
    assert Holder().scaled(2) == 2
    with pytest.raises(TypeError, match=r"scaled\(\) got an unexpected keyword argument "
                                        r"'out'"):
        Holder().scaled(2, out=None)


def test_out_signatures_read_without_tokenize():
    """The out= wrappers of C functions (matmul, mm, bmm, dot) get their signatures
    without inspect's tokenize (compiling its patterns was ~3 ms of import): the same
    signatures, and import leaves tokenize's pattern cache empty."""
    import inspect
    import subprocess
    import sys

    from pydevtensor import _C, _out
    for fn in (_C.matmul, _C.mm, _C.bmm, _C.dot, _C.add, len, pdt.diff):
        assert _out._signature(fn) == inspect.signature(fn)
    code = ("import numpy, pydevtensor, tokenize; "
            "print(tokenize._compile.cache_info().misses)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=True)
    assert r.stdout.split() == ["0"]
    assert str(inspect.signature(pdt.matmul)) == "(input, other, *, out=None)"
