"""tensor(t) of a tensor (Note [tensor() of tensors] in pydevtensor/_ops_stats.py): a
copy on t's device, or on device=, with dtype=, requires_grad= and PyTorch's warning."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

WARNING = "To copy construct from a tensor, it is recommended to use sourceTensor"


def test_tensor_of_a_tensor_copies_on_its_device(device):
    t = pdt.arange(6.0, device=device).reshape(2, 3).T  # not contiguous
    with pytest.warns(UserWarning, match=WARNING) as rec:
        u = pdt.tensor(t)
    assert rec[0].filename == __file__  # points at the caller's line
    assert u.device == t.device and u.dtype == t.dtype and u.is_contiguous()
    assert u.data_ptr() != t.data_ptr() and not u.requires_grad
    np.testing.assert_array_equal(u.cpu().numpy(), np.arange(6.0).reshape(2, 3).T)
    u.add_(1)  # a copy: t is unchanged
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(6.0).reshape(2, 3).T)


def test_tensor_of_a_tensor_takes_dtype_device_requires_grad(device):
    w = pdt.ones(3, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = pdt.tensor(w, dtype=pdt.float64)
        b = pdt.tensor(w, device="cpu", requires_grad=True)
        c = pdt.tensor(pdt.tensor([1, 2], device=device), device=device)
    assert a.dtype == pdt.float64 and a.device == w.device and not a.requires_grad
    assert a.grad_fn is None  # detached from w's graph
    assert b.device == pdt.device("cpu") and b.requires_grad and b.is_leaf
    assert c.dtype == pdt.int64 and c.tolist() == [1, 2]
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        pdt.tensor(w, out=None)


def test_tensor_of_a_tensor_matches_torch():
    torch = torch_or_skip()
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        p = pdt.tensor(pdt.tensor([[1.5, 2.0]]), dtype=pdt.float64)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        t = torch.tensor(torch.tensor([[1.5, 2.0]]), dtype=torch.float64)
    assert p.tolist() == t.tolist() and str(p.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert [w.category for w in ours] == [w.category for w in theirs] == [UserWarning]
