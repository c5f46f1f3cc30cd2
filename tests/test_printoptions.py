"""set_printoptions (pydevtensor/_repr.py): precision, threshold, edgeitems,
linewidth, the 'default', 'short' and 'full' profiles and sci_mode change repr()
as PyTorch's do (its text, with pydevtensor's names, when torch imports), and
profile='default' puts everything back; on every device."""
import math

import re

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip


@pytest.fixture(autouse=True)
def _reset():
    yield
    pdt.set_printoptions(profile="default")


def _body(t):
    """repr without the device suffix, so that the text is the same on every device (the
    suffix starts a line of its own when it would pass the line width, as PyTorch's)."""
    return re.sub(rf",\s*device='{t.device}'", "", repr(t))


def test_precision_changes_and_resets(device):
    x = pdt.tensor([1.23456, 2.5], device=device)
    assert _body(x) == "tensor([1.2346, 2.5000])"
    pdt.set_printoptions(precision=2)
    assert _body(x) == "tensor([1.23, 2.50])"
    pdt.set_printoptions(linewidth=100)  # the other options stay
    assert _body(x) == "tensor([1.23, 2.50])"
    pdt.set_printoptions(profile="default")
    assert _body(x) == "tensor([1.2346, 2.5000])"


def test_threshold_edgeitems_and_full(device):
    x = pdt.arange(20.0, device=device).reshape(4, 5)
    pdt.set_printoptions(threshold=5, edgeitems=1)
    assert _body(x) == "tensor([[ 0.,  ...,  4.],\n        ...,\n        [15.,  ..., 19.]])"
    big = pdt.arange(1010, device=device)
    pdt.set_printoptions(profile="default")
    assert "..." in repr(big)
    pdt.set_printoptions(profile="full")
    assert "..." not in repr(big) and _body(big).count(",") == 1009
    pdt.set_printoptions(profile="short")
    assert _body(pdt.arange(2000.0, device=device)) == \
        "tensor([0.00e+00, 1.00e+00,  ..., 2.00e+03, 2.00e+03])"


def test_linewidth(device):
    pdt.set_printoptions(linewidth=30)
    lines = _body(pdt.arange(20.0, device=device)).split("\n")
    assert len(lines) == 5 and all(len(line) <= 30 for line in lines)


def test_sci_mode(device):
    x = pdt.tensor([1.0, 2.0], device=device)
    pdt.set_printoptions(sci_mode=True)
    assert _body(x) == "tensor([1.0000e+00, 2.0000e+00])"
    pdt.set_printoptions(sci_mode=False)
    assert _body(pdt.tensor([1e-8, 1e9], device=device)) == \
        "tensor([         0.0000, 1000000000.0000])"
    pdt.set_printoptions()  # sci_mode=None again: chosen from the values
    assert _body(pdt.tensor([1e-8, 1e9], device=device)) == "tensor([1.0000e-08, 1.0000e+09])"


def test_sci_mode_leaves_values_without_a_nonzero_finite_one(device):
    """With no nonzero finite value there is nothing to put in scientific notation:
    zeros, nan and inf print as without sci_mode, as PyTorch's (sci_mode=True printed
    0.0000e+00 and -0.0000e+00)."""
    x = pdt.tensor([0.0, -0.0, math.nan, math.inf, -math.inf], device=device)
    zeros = pdt.zeros(2, 2, dtype=pdt.float16, device=device)
    plain = [_body(x), _body(zeros), _body(pdt.tensor(0.0, device=device))]
    assert plain[0] == "tensor([0., -0., nan, inf, -inf])"
    for sci in (True, False):
        pdt.set_printoptions(sci_mode=sci, precision=2)
        assert [_body(x), _body(zeros), _body(pdt.tensor(0.0, device=device))] == plain
    pdt.set_printoptions(sci_mode=True, precision=2)  # a nonzero value: scientific again
    assert _body(pdt.tensor([0.0, 2.0], device=device)) == "tensor([0.00e+00, 2.00e+00])"


def test_edgeitems_zero_names_the_size(device):
    """edgeitems=0 shows no item of a summarized dimension, so the size is named (after
    the device, before the dtype), and a summarized 1-d tensor is [...] unpadded, as
    PyTorch's; a tensor that is not summarized prints its values and names its size too."""
    pdt.set_printoptions(edgeitems=0)
    assert _body(pdt.tensor([1.5, 2.0], device=device)) == "tensor([1.5000, 2.0000], size=(2,))"
    assert _body(pdt.tensor(2.5, device=device)) == "tensor(2.5000, size=())"
    pdt.set_printoptions(threshold=5)  # edgeitems stays 0
    assert _body(pdt.arange(10.0, device=device)) == "tensor([...], size=(10,))"
    assert _body(pdt.ones(4, 5, dtype=pdt.int32, device=device)) == \
        "tensor([...], size=(4, 5), dtype=pydevtensor.int32)"
    assert _body(pdt.zeros(2, 0, device=device)) == "tensor([], size=(2, 0))"  # once


CASES = [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False),
         dict(profile="short"), dict(profile="full"), dict(linewidth=30),
         dict(edgeitems=1, threshold=5), dict(precision=6, sci_mode=True),
         dict(profile="short", precision=5)]
VALUES = [np.array([1.23456, 2.5]), np.arange(20.0), np.arange(20.0).reshape(4, 5),
          np.array([1e-8, 1e9]), np.array([1.0, 1e10]), np.arange(2000.0),
          np.array([-0.5, math.nan, math.inf]), np.arange(12).reshape(3, 4)]


@pytest.mark.parametrize("options", CASES, ids=[str(c) for c in CASES])
def test_against_torch(options):
    _same_reprs_as_torch(options)


def _same_reprs_as_torch(options):
    """The reprs of VALUES under options are torch's (both reset afterwards)."""
    torch = torch_or_skip()
    try:
        torch.set_printoptions(**options)
        pdt.set_printoptions(**options)
        for a in VALUES:
            want = repr(torch.from_numpy(a.astype(np.float32) if a.dtype.kind == "f" else a))
            assert repr(pdt.from_numpy(a.astype(np.float32) if a.dtype.kind == "f" else a)) == \
                want.replace("torch.", "pydevtensor.")
    finally:
        torch.set_printoptions(profile="default")
        pdt.set_printoptions(profile="default")


def test_bad_options():
    with pytest.raises(ValueError, match=r"precision must be an int >= 0, got -1"):
        pdt.set_printoptions(precision=-1)
    with pytest.raises(TypeError, match=r"linewidth must be a finite number, got 'x'"):
        pdt.set_printoptions(linewidth="x")
    with pytest.raises(TypeError, match=r"threshold must be a number"):
        pdt.set_printoptions(threshold="many")
    with pytest.raises(ValueError, match=r"edgeitems must be an int >= 0"):
        pdt.set_printoptions(profile="short", precision=1, edgeitems=-2)
    assert repr(pdt.tensor([1.5])) == "tensor([1.5000])"  # nothing half-set


IGNORED_OR_APPLIED = [dict(profile="long"), dict(profile="FULL", precision=2),
                      dict(linewidth=0), dict(linewidth=-5), dict(linewidth=2.5),
                      dict(linewidth=45.5), dict(sci_mode=1), dict(sci_mode=0),
                      dict(sci_mode="yes")]


@pytest.mark.parametrize("options", IGNORED_OR_APPLIED, ids=[str(c) for c in IGNORED_OR_APPLIED])
def test_values_torch_takes_are_taken(options):
    # an unknown profile is ignored; any linewidth number applies (<= 1: one item a
    # line); sci_mode counts by its truth: PyTorch's answers, checked against its repr
    _same_reprs_as_torch(options)
