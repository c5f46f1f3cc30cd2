"""A number written into a tensor must keep its magnitude (pdt_scalar_fits in
csrc/core/pdt_ops.c), as PyTorch's checked conversion asks: a finite number that would
round to an infinity in a float dtype (1e39 into float32, 1e5 into float16, 3.4e38 into
bfloat16) is refused by every way of writing a number (fill_, full, x[i] = v, x[mask] = v,
x[a:b] = v, masked_fill, index_fill), as an int past an integer dtype's range already was.
Nothing is written when it is refused.  inf and NaN fit; a number that rounds to the
largest finite value fits.  Arithmetic is not asked: x + 1e39 is inf, as in PyTorch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def writes(x, v):
    return {
        "fill_": lambda: x.fill_(v),
        "full": lambda: x.copy_(pdt.full((3,), v, dtype=x.dtype, device=x.device)),
        "item": lambda: x.__setitem__(1, v),
        "mask": lambda: x.__setitem__(x == 0, v),
        "slice": lambda: x.__setitem__(slice(0, 2), v),
        "vector": lambda: x.__setitem__(pdt.tensor([0, 2], device=x.device), v),
        "masked_fill_": lambda: x.masked_fill_(x == 0, v),
        "index_fill_": lambda: x.index_fill_(0, pdt.tensor([1], device=x.device), v),
    }


# (dtype, the largest finite value, a number past it, one just below the rounding edge)
EDGES = [
    ("float32", float(np.finfo(np.float32).max), 1e39, 3.4028235e38),
    ("float16", 65504.0, 65520.0, 65519.0),
    ("bfloat16", 3.3895313892515355e38, 3.4e38, 3.3961e38),
]


@pytest.mark.parametrize("dtype,top,past,below", EDGES)
@pytest.mark.parametrize("how", list(writes(None, 0)))
def test_past_the_range_refused_unchanged(dev, dtype, top, past, below, how):
    for v in (past, -past):
        x = pdt.tensor([0.0, 1.0, 0.0], device=dev).to(getattr(pdt, dtype))
        with pytest.raises((ValueError, OverflowError),
                           match=f"cannot be converted to {dtype} without overflow"):
            writes(x, v)[how]()
        np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), [0.0, 1.0, 0.0])
    x = pdt.tensor([0.0, 1.0, 0.0], device=dev).to(getattr(pdt, dtype))
    writes(x, -below)[how]()  # rounds to the largest finite value
    got = x.to(pdt.float64).cpu().numpy()
    assert np.isfinite(got).all() and got.min() == -top


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("how", list(writes(None, 0)))
def test_inf_and_nan_fit(dev, dtype, how):
    for v in (float("inf"), float("-inf"), float("nan")):
        x = pdt.zeros(3, dtype=getattr(pdt, dtype), device=dev)
        writes(x, v)[how]()
        got = x.to(pdt.float64).cpu().numpy()
        assert (np.isnan(got) if v != v else got == v).any()


def test_ints_into_half(dev):
    x = pdt.zeros(2, dtype=pdt.float16, device=dev)
    x.fill_(65504)
    assert x.tolist() == [65504.0, 65504.0]
    with pytest.raises(ValueError, match="the value 100000 cannot be converted to float16"):
        x.fill_(100000)  # OverflowError is fill_'s for an int past an integer dtype only
    with pytest.raises(OverflowError, match="the value 300 cannot be converted to int8"):
        pdt.zeros(2, dtype=pdt.int8, device=dev).fill_(300)
    with pytest.raises(ValueError, match="the value -100000 cannot be converted to float16"):
        x[0] = -100000
    assert x.tolist() == [65504.0, 65504.0]


def test_messages_name_the_op_and_the_tensor(dev):
    """Every way names its op and the shape of the tensor written into (x's, not the view's
    an index makes or the 0-d number's made on the way; fill_ of a view names the view)."""
    h = pdt.zeros(4, 3, dtype=pdt.float16, device=dev)
    i = pdt.tensor([0, 2], device=dev)
    z = pdt.zeros(1, 3, dtype=pdt.int64, device=dev)
    F = pdt.nn.functional
    for call, op, shape in ((lambda: h.masked_fill(h == 0, 1e5), "masked_fill", "4, 3"),
                            (lambda: h.masked_fill_(h == 0, 1e5), "masked_fill_", "4, 3"),
                            (lambda: h.__setitem__(h == 0, 1e5), "setitem", "4, 3"),
                            (lambda: h.__setitem__(0, 1e5), "setitem", "4, 3"),
                            (lambda: h.__setitem__((0, 1), 1e5), "setitem", "4, 3"),
                            (lambda: h.__setitem__((slice(None), 1), 1e5), "setitem", "4, 3"),
                            (lambda: h.__setitem__(i, 1e5), "setitem", "4, 3"),
                            (lambda: h.fill_(1e5), "fill_", "4, 3"),
                            (lambda: h[1:3].fill_(1e5), "fill_", "2, 3"),
                            (lambda: h.index_fill(0, i, 1e5), "index_fill", "4, 3"),
                            (lambda: h.index_fill_(0, i, 1e5), "index_fill", "4, 3"),
                            (lambda: h.scatter(0, z, 1e5), "scatter", "4, 3"),
                            (lambda: h.scatter_(0, z, 1e5), "scatter", "4, 3"),
                            (lambda: h.scatter(0, z, 1e5, reduce="add"), "scatter", "4, 3"),
                            (lambda: F.pad(h, (1, 1), value=1e5), "pad", "4, 3"),
                            (lambda: pdt.full_like(h, 1e5), "full_like", "4, 3"),
                            (lambda: pdt.full((2,), 1e5, dtype=pdt.float16, device=dev), "full",
                             "2,")):
        with pytest.raises(ValueError, match=rf"^{op}: the value 100000 cannot be converted to "
                                             rf"float16 without overflow \(into a tensor of "
                                             rf"shape \({shape}\) on {h.device}\)$"):
            call()
    assert not h.any().item()


@pytest.mark.parametrize("dtype,past", [("float16", 1e5), ("bfloat16", 1e39),
                                        ("float32", 1e39)])
def test_operands_round_to_inf(dev, dtype, past):
    """Where PyTorch lets a number round as arithmetic does, so do we: where(c, x, 1e5) of
    float16 or bfloat16 is inf (of float32, 1e39 is refused, as PyTorch refuses it), and
    nan_to_num's numbers become inf past any float dtype's range."""
    x = pdt.tensor([1.0, 2.0, float("inf"), float("nan")], device=dev).to(getattr(pdt, dtype))
    if dtype == "float32":
        with pytest.raises(ValueError, match=r"where: the value 1e\+39 cannot be converted to "
                                             r"float32 without overflow \(into a tensor of "
                                             rf"shape \(4,\) on {x.device}\)"):
            pdt.where(x > 1.5, x, past)
    else:
        got = pdt.where(x > 1.5, x, past).to(pdt.float64).cpu().numpy()
        assert got[0] == np.inf and got[1] == 2.0
        got = x.where(x > 1.5, -past).to(pdt.float64).cpu().numpy()
        assert got[0] == -np.inf
    got = x.nan_to_num(nan=past, posinf=past, neginf=0.0).to(pdt.float64).cpu().numpy()
    np.testing.assert_array_equal(got, [1.0, 2.0, np.inf, np.inf])


def test_arithmetic_is_not_asked(dev):
    x = pdt.ones(2, device=dev)
    assert (x + 1e39).cpu().numpy().tolist() == [np.inf, np.inf]
    h = pdt.ones(2, dtype=pdt.float16, device=dev)
    assert np.isinf((h * 1e5).to(pdt.float32).cpu().numpy()).all()
    assert pdt.tensor([1e39], dtype=pdt.float32, device=dev).cpu().numpy()[0] == np.inf


@pytest.mark.parametrize("how", ["masked_fill", "masked_fill_"])
def test_masked_fill_checks_a_0d_tensor_value(dev, how):
    # PyTorch reads a 0-d CPU value by item(): refused as the number is, naming the op
    cases = [("float32", pdt.tensor(1e40, dtype=pdt.float64)),
             ("float16", pdt.tensor(1e5)),
             ("int8", pdt.tensor(300)),
             ("int32", pdt.tensor(float("nan")))]
    for dtype, v in cases:
        x = pdt.zeros(3, dtype=getattr(pdt, dtype), device=dev)
        mask = pdt.tensor([True, False, True], device=dev)
        with pytest.raises(ValueError, match=f"{how}: the value .* cannot be converted to "
                                             f"{dtype} without overflow"):
            getattr(x, how)(mask, v)
        np.testing.assert_array_equal(x.cpu().numpy(), [0, 0, 0])
    x = pdt.zeros(3, device=dev)
    mask = pdt.tensor([True, False, True], device=dev)
    for v, want in ((pdt.tensor(float("inf"), dtype=pdt.float64), np.inf),
                    (pdt.tensor(2.0, dtype=pdt.float64), 2.0)):
        np.testing.assert_array_equal(getattr(x.clone(), how)(mask, v).cpu().numpy(),
                                      [want, 0, want])
    xi = pdt.zeros(2, dtype=pdt.int8, device=dev)  # a float value truncates, as a number
    got = getattr(xi, how)(pdt.tensor([True, False], device=dev), pdt.tensor(2.5))
    np.testing.assert_array_equal(got.cpu().numpy(), [2, 0])
