"""sort, argsort and topk along the last dim call their kernels without the decorated
layers (Note [sorts without the layers] in pydevtensor/_ops_sort.py).  On every device,
for each way of passing the arguments, the result is the decorated path's (the ``dim``
given as the same dim counted from the front, which the fast path does not take) and
Python's stable sorted() order, with ties and NaN; the autograd and error paths are the
decorated ones."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

ROW = [0.5, float("nan"), -1.0, 0.5, 2.0, -0.0, 0.0, 2.0]


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def stable_order(row, descending):
    def key(i):
        v = row[i]
        if math.isnan(v):
            return (not descending, 0.0)
        return (descending, -v if descending else v)
    return sorted(range(len(row)), key=key)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("how", ["positional", "keyword", "method", "default"])
def test_sort_and_argsort(dev, descending, how):
    x = pdt.tensor([ROW, ROW[::-1]], device=dev)
    calls = {"positional": lambda f: f(x, -1, descending),
             "keyword": lambda f: f(x, dim=1, descending=descending, stable=True),
             "method": lambda f: getattr(x, f.__name__)(descending=descending),
             "default": lambda f: f(x, descending=descending)}[how]
    values, indices = calls(pdt.sort)
    front_v, front_i = pdt.sort(x.t(), 0, descending)  # the decorated path, dim 0
    want = [stable_order(r, descending) for r in (ROW, ROW[::-1])]
    assert indices.cpu().tolist() == want == calls(pdt.argsort).cpu().tolist()
    np.testing.assert_array_equal(values.cpu().numpy(),
                                  np.array([[r[i] for i in o] for r, o in zip((ROW, ROW[::-1]),
                                                                              want)],
                                           dtype=np.float32))
    np.testing.assert_array_equal(values.cpu().numpy(), front_v.t().cpu().numpy())
    assert indices.cpu().tolist() == front_i.t().cpu().tolist()


@pytest.mark.parametrize("k", [0, 1, 3, 8])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dev, k, largest):
    x = pdt.tensor([ROW, ROW[::-1]], device=dev)
    fast = x.topk(k, largest=largest)
    general = pdt.topk(x.t(), k, 0, largest).values.t(), pdt.topk(x.t(), k, 0, largest).indices.t()
    want = [stable_order(r, largest)[:k] for r in (ROW, ROW[::-1])]
    assert fast.indices.cpu().tolist() == want == general[1].cpu().tolist()
    np.testing.assert_array_equal(fast.values.cpu().numpy(), general[0].cpu().numpy())
    assert fast.values.is_contiguous() and type(fast).__name__ == "topk"


def test_errors_and_autograd_take_the_decorated_path(dev):
    x = pdt.tensor([3.0, 1.0, 2.0], device=dev)
    with pytest.raises(RuntimeError, match=r"k out of range \(k=4"):
        x.topk(4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sort(1)
    with pytest.raises(TypeError, match="must be a Tensor"):
        pdt.sort([3, 1])
    assert pdt.sort(x, axis=0).indices.cpu().tolist() == [1, 2, 0]  # NumPy's name
    w = pdt.tensor([3.0, 1.0, 2.0], device=dev, requires_grad=True)
    (w.sort().values * pdt.tensor([1.0, 10.0, 100.0], device=dev)).sum().backward()
    assert w.grad.cpu().tolist() == [100.0, 1.0, 10.0]
    w.grad = None
    w.topk(2).values.sum().backward()
    assert w.grad.cpu().tolist() == [1.0, 0.0, 1.0]


def test_calls_that_do_not_bind_are_refused(dev):
    """A dim given twice, or more arguments than the signature has, is a TypeError as in
    PyTorch (a review: the fast path once sorted sort(x, -1, dim=0) along -1)."""
    x = pdt.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]], device=dev)
    for bad in (lambda: pdt.sort(x, -1, dim=0), lambda: pdt.argsort(x, -1, True, dim=0),
                lambda: pdt.topk(x, 1, -1, True, largest=False),
                lambda: x.sort(-1, True, False, 1), lambda: pdt.topk(x, 2, -1, True, True, None)):
        with pytest.raises(TypeError):
            bad()
    assert pdt.sort.__name__ == "sort" and x.expand.__name__ == "expand"
    for sizes in ((2.0, 3), (True, 3), (pdt.tensor(True), 3)):  # ints, as in PyTorch
        with pytest.raises(TypeError, match="must be a tuple of ints"):
            x[:, :1].expand(*sizes)
    assert tuple(x[:, :1].expand(pdt.tensor(2), 3).shape) == (2, 3)
