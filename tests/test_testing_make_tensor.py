"""testing.make_tensor, as torch.testing.make_tensor: shapes, dtypes, the interval of
the values (defaults, clamping, ceiled integer bounds), noncontiguous, exclude_zero,
requires_grad and PyTorch's refusals."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.testing import make_tensor

FLOATING = ["float16", "bfloat16", "float32", "float64"]
INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]


def _values(t):
    return t.detach().to(pdt.float64).cpu().numpy()


@pytest.mark.parametrize("name", FLOATING + INTEGRAL + ["bool"])
def test_make_tensor_shapes_dtypes_and_default_interval(device, name):
    dt = getattr(pdt, name)
    for shape, want in (((), ()), ((0,), (0,)), ((3, 4), (3, 4)), (((2, 5),), (2, 5)),
                        (([4, 1],), (4, 1))):
        t = make_tensor(*shape, dtype=dt, device=device)
        assert tuple(t.shape) == want and t.dtype == dt and t.device.type == device.type
        assert t.is_contiguous() and not t.requires_grad
    v = _values(make_tensor(4000, dtype=dt, device=device))
    # [-9, 9) for floating, [-9, 10) for integers (uint8 clamped to [0, 10)), [0, 2) bool
    lo, hi = {"bool": (0, 1), "uint8": (0, 9)}.get(name, (-9, 9))
    assert v.min() >= lo and v.max() <= hi
    if name in FLOATING:
        assert v.max() < 9 and len(np.unique(v)) > 100
    else:  # every integer of the interval is drawn
        assert set(np.unique(v)) == set(range(lo, hi + 1))


@pytest.mark.parametrize("name", FLOATING + INTEGRAL)
def test_make_tensor_low_high(device, name):
    dt = getattr(pdt, name)
    v = _values(make_tensor(3000, dtype=dt, device=device, low=2, high=5))
    assert v.min() >= 2 and v.max() < 5
    if name in INTEGRAL:
        assert set(np.unique(v)) == {2, 3, 4}
        # integer bounds are ceiled: [1.5, 3.2) draws from {2, 3}
        v = _values(make_tensor(500, dtype=dt, device=device, low=1.5, high=3.2))
        assert set(np.unique(v)) == {2, 3}
        info = pdt.iinfo(dt)  # an interval wider than the dtype is clamped to it
        v = _values(make_tensor(500, dtype=dt, device=device, low=-1e30, high=1e30))
        assert v.min() >= info.min and v.max() <= info.max and v.max() - v.min() > 100
    else:
        info = pdt.finfo(dt)
        v = _values(make_tensor(500, dtype=dt, device=device, low=-math.inf, high=math.inf))
        assert np.isfinite(v).all() and v.max() > info.max / 8 and v.min() < -info.max / 8


def test_make_tensor_noncontiguous_exclude_zero_requires_grad(device):
    t = make_tensor(3, 4, dtype=pdt.float64, device=device, noncontiguous=True)
    assert tuple(t.shape) == (3, 4) and not t.is_contiguous() and t.stride() == (8, 2)
    assert len(np.unique(_values(t))) == 12
    one = make_tensor(1, dtype=pdt.float64, device=device, noncontiguous=True)
    assert one.is_contiguous()  # a single element stays contiguous, as PyTorch's
    b = make_tensor(200, dtype=pdt.bool, device=device, exclude_zero=True)
    assert bool(b.all())
    i = make_tensor(500, dtype=pdt.int32, device=device, low=0, high=2, exclude_zero=True)
    assert set(np.unique(_values(i))) == {1}
    f = make_tensor(50, dtype=pdt.float32, device=device, low=0, high=1e-30,
                    exclude_zero=True)
    assert (_values(f) != 0).all()
    g = make_tensor(2, 3, dtype=pdt.float32, device=device, requires_grad=True)
    assert g.requires_grad and g.is_leaf
    cl = make_tensor(1, 2, 3, 4, dtype=pdt.float32, device=device,
                     memory_format=pdt.channels_last)
    assert cl.stride() == (24, 1, 8, 2)


def test_make_tensor_refusals_as_pytorch():
    mk = make_tensor
    for kw, match in (({"low": 1, "high": 0}, r"`low` must be less than `high`, but got 1 "
                                              r">= 0"),
                      ({"low": math.nan}, r"`low` and `high` cannot be NaN"),
                      ({"low": 1e39, "high": 1e40}, r"The value interval specified by `low` "
                       r"and `high` is \[1e\+39, 1e\+40\), but pydevtensor.float32 only "
                       r"supports")):
        with pytest.raises(ValueError, match=match):
            mk(2, dtype=pdt.float32, device="cpu", **kw)
    with pytest.raises(ValueError, match=r"int8 only supports \[-128, 128\)"):
        mk(2, dtype=pdt.int8, device="cpu", low=200, high=300)
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean"):
        mk(2, dtype=pdt.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="mutually exclusive"):
        mk(2, dtype=pdt.float32, device="cpu", noncontiguous=True,
           memory_format=pdt.contiguous_format)
    with pytest.warns(FutureWarning, match="low==high"):
        t = mk(3, dtype=pdt.float32, device="cpu", low=2, high=2)
    assert t.tolist() == [2.0, 2.0, 2.0]
