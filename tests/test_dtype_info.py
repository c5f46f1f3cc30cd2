"""finfo, iinfo, result_type and can_cast (pydevtensor/_dtype_info.py): the limits
against NumPy's (and ml_dtypes-free formulas for bfloat16) and PyTorch's, with
PyTorch's reprs; result_type against the dtype the elementwise ops really give
(Note [elementwise dtypes]) on every device and against torch.result_type; can_cast
against torch.can_cast and against what in-place ops accept."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

FLOATS = ["float16", "bfloat16", "float32", "float64"]
ALL = ["bool", "int32", "int64"] + FLOATS


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_against_numpy(name):
    f, ref = pdt.finfo(getattr(pdt, name)), np.finfo(name)
    assert f.bits == ref.bits and f.dtype == name
    for attr in ("eps", "max", "min", "tiny", "smallest_normal"):
        assert getattr(f, attr) == float(getattr(ref, attr)), attr
    # NumPy keeps the resolution (a power of ten) in the dtype itself, rounded
    assert abs(f.resolution - float(ref.resolution)) <= f.resolution * f.eps


def test_finfo_bfloat16_and_default():
    f = pdt.finfo(pdt.bfloat16)
    assert (f.bits, f.eps, f.tiny, f.resolution) == (16, 2.0 ** -7, 2.0 ** -126, 0.01)
    assert f.max == float(np.float32(3.3895313892515355e38)) == -f.min
    # the largest bfloat16 is the largest float32 with its low 16 bits zero
    assert np.array([f.max], np.float32).view(np.uint32)[0] == 0x7F7F0000
    assert pdt.finfo().dtype == "float32" and pdt.finfo(pdt.half).dtype == "float16"


@pytest.mark.parametrize("name", ["int32", "int64"])
def test_iinfo_against_numpy(name):
    i, ref = pdt.iinfo(getattr(pdt, name)), np.iinfo(name)
    assert (i.bits, i.max, i.min, i.dtype) == (ref.bits, ref.max, ref.min, name)


def test_infos_against_torch():
    torch = torch_or_skip()
    for name in FLOATS:
        ours, theirs = pdt.finfo(getattr(pdt, name)), torch.finfo(getattr(torch, name))
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                     "dtype"):
            assert getattr(ours, attr) == getattr(theirs, attr), (name, attr)
    for name in ("int32", "int64"):
        ours, theirs = pdt.iinfo(getattr(pdt, name)), torch.iinfo(getattr(torch, name))
        assert repr(ours) == repr(theirs)
        assert (ours.bits, ours.max, ours.min, ours.dtype) == \
            (theirs.bits, theirs.max, theirs.min, theirs.dtype)


def test_info_errors():
    with pytest.raises(TypeError, match=r"finfo\(\) requires a floating point input type, "
                                        r"got pydevtensor.int32"):
        pdt.finfo(pdt.int32)
    with pytest.raises(TypeError, match=r"pydevtensor.bool is not supported by "
                                        r"pydevtensor.iinfo"):
        pdt.iinfo(pdt.bool)
    with pytest.raises(TypeError, match=r"iinfo\(\) requires an integer input type, got "
                                        r"pydevtensor.float32"):
        pdt.iinfo(pdt.float32)
    with pytest.raises(TypeError, match=r"must be a pydevtensor.dtype, got str"):
        pdt.finfo("float32")


def _operands(device):
    """Tensors with dims, 0-d tensors and Python numbers of every kind."""
    out = []
    for name in ALL:
        dt = getattr(pdt, name)
        out.append(pdt.ones(2, dtype=dt, device=device))
        out.append(pdt.ones((), dtype=dt, device=device))
    return out + [True, 2, 2.5]


def test_result_type_is_what_the_ops_give(device):
    """result_type(a, b) == (a * b).dtype (maximum for two bools, whose product is
    and-ed but keeps bool) for every pair of operands the ops take."""
    ops = _operands(device)
    for a, b in itertools.product(ops, ops):
        if not isinstance(a, pdt.Tensor) and not isinstance(b, pdt.Tensor):
            continue
        got = pdt.result_type(a, b)
        x = a if isinstance(a, pdt.Tensor) else b
        y = b if x is a else a
        assert got == (x * y).dtype, (a, b, got, (x * y).dtype)


def test_result_type_numbers():
    assert pdt.result_type(2, 2.5) == pdt.float32
    assert pdt.result_type(True, 2) == pdt.int64
    assert pdt.result_type(True, False) == pdt.bool
    assert pdt.result_type(np.int32(1), 1.0) == pdt.float32
    with pytest.raises(TypeError, match=r"argument 'tensor' must be a Tensor or a number.*"
                                        r"got str"):
        pdt.result_type("a", 2)


def test_result_type_against_torch():
    torch = torch_or_skip()
    ours, theirs = [], []
    for name in ALL:
        for shape in ((2,), ()):
            ours.append(pdt.ones(shape, dtype=getattr(pdt, name)))
            theirs.append(torch.ones(shape, dtype=getattr(torch, name)))
    ours += [True, 2, 2.5]
    theirs += [True, 2, 2.5]
    for (a, ta), (b, tb) in itertools.product(zip(ours, theirs), repeat=2):
        want = torch.result_type(ta, tb)
        assert str(pdt.result_type(a, b)).split(".")[-1] == str(want).split(".")[-1], (ta, tb)


def test_can_cast():
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the rule alone then
        pass
    for a, b in itertools.product(ALL, ALL):
        da, db = getattr(pdt, a), getattr(pdt, b)
        rule = not (da.is_floating_point and not db.is_floating_point) and \
            not (b == "bool" and a != "bool")
        assert pdt.can_cast(da, db) == rule, (a, b)
        if torch is not None:
            assert torch.can_cast(getattr(torch, a), getattr(torch, b)) == rule, (a, b)
    with pytest.raises(TypeError, match=r"argument 'from_' must be a pydevtensor.dtype, not "
                                        r"int"):
        pdt.can_cast(1, pdt.int32)


def test_can_cast_is_what_in_place_ops_accept(device):
    for a, b in itertools.product(["int32", "int64", "float32", "float64"], repeat=2):
        x = pdt.ones(2, dtype=getattr(pdt, b), device=device)
        y = pdt.ones(2, dtype=getattr(pdt, a), device=device)
        ok = pdt.can_cast(pdt.result_type(x, y), x.dtype)
        if ok:
            x.add_(y)
        else:
            with pytest.raises((RuntimeError, TypeError), match=r"can.t be cast"):
                x.add_(y)
