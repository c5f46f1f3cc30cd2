"""out= of the random draws written in Python, as PyTorch's: randperm (out's dtype is the
result's), multinomial (int64), bernoulli (any dtype: the draws are 0 and 1) and normal
(a floating out of any width, drawn in it); an empty out takes the shape
(pydevtensor/_out.py)."""
import numpy as np
import pytest

import pydevtensor as pdt


def test_randperm_into_out(device):
    for dtype in (pdt.int32, pdt.int64, pdt.float32):
        out = pdt.empty(0, dtype=dtype, device=device)
        got = pdt.randperm(7, out=out, generator=pdt.Generator().manual_seed(3))
        assert got is out and out.dtype == dtype and out.device == pdt.device(device)
        assert sorted(out.cpu().tolist()) == list(range(7))
    # the same permutation as without out, for one seed
    want = pdt.randperm(7, generator=pdt.Generator().manual_seed(3), device=device)
    assert out.cpu().tolist() == want.float().cpu().tolist()
    with pytest.raises(TypeError, match=r"randperm\(\): dtype .*int64 does not match the "
                                        r"dtype of out .*float32"):
        pdt.randperm(5, dtype=pdt.int64, out=pdt.empty(5, device=device))


def test_multinomial_into_an_int64_out(device):
    w = pdt.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]], device=device, requires_grad=True)
    out = pdt.empty(0, dtype=pdt.int64, device=device)
    assert pdt.multinomial(w, 1, out=out) is out  # indices: no gradient to refuse
    assert out.cpu().tolist() == [[1], [2]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype .*int64"):
        pdt.multinomial(w, 1, out=pdt.empty(2, 1, device=device))


def test_bernoulli_into_an_out_of_any_dtype(device):
    p = pdt.tensor([0.0, 1.0, 1.0, 0.0], device=device)
    for dtype in (pdt.float64, pdt.int64, pdt.bool, pdt.uint8):
        out = pdt.empty(0, dtype=dtype, device=device)
        assert pdt.bernoulli(p, out=out) is out and out.dtype == dtype
        np.testing.assert_array_equal(out.cpu().numpy().astype(np.float64), [0, 1, 1, 0])
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        pdt.bernoulli(p.clone().requires_grad_(), out=pdt.empty(4, device=device))


def test_normal_drawn_in_outs_dtype(device):
    g = pdt.Generator().manual_seed(5)
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    got = pdt.normal(2.0, 0.5, (4000,), out=out, generator=g)
    assert got is out and out.dtype == pdt.float64 and out.shape == (4000,)
    # drawn in float64, as normal(..., dtype=float64) is for the same seed
    want = pdt.normal(2.0, 0.5, (4000,), dtype=pdt.float64, device=device,
                      generator=pdt.Generator().manual_seed(5))
    assert out.cpu().tolist() == want.cpu().tolist()
    assert abs(out.mean().item() - 2.0) < 0.05
    m = pdt.zeros(3, device=device)
    assert pdt.normal(m, 1.0, out=pdt.empty(3, dtype=pdt.float64, device=device)).dtype \
        == pdt.float64
    with pytest.raises(TypeError, match=r"normal\(\): out must have a floating dtype, got "
                                        r".*int64"):
        pdt.normal(0.0, 1.0, (3,), out=pdt.empty(3, dtype=pdt.int64, device=device))
    with pytest.raises(TypeError, match="does not match the dtype of out"):
        pdt.normal(0.0, 1.0, (3,), dtype=pdt.float32,
                   out=pdt.empty(3, dtype=pdt.float64, device=device))
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        pdt.normal(m.requires_grad_(), 1.0, out=pdt.empty(3, device=device))
