"""Tensor methods and attributes written in Python, as PyTorch's: membership
(``x in t``)."""
import numpy as np
import pytest

import pydevtensor as pdt


def test_membership_compares_numbers_and_tensors(device):
    t = pdt.tensor([[1, 2], [3, 4]], device=device)
    assert 3 in t and 4.0 in t and np.int64(1) in t
    assert 5 not in t and 2.5 not in t
    # a tensor: broadcast against t, any equal element counts
    assert pdt.tensor([1, 2], device=device) in t
    assert pdt.tensor([2, 1], device=device) not in t
    assert pdt.tensor([[9], [3]], device=device) in t
    assert True in pdt.tensor([False, True], device=device)
    assert 5 in pdt.tensor(5, device=device)      # 0-d
    assert 0 not in pdt.zeros(0, device=device)   # empty


def test_membership_refuses_other_types(device):
    t = pdt.tensor([1, 2], device=device)
    for element in ("a", None, [1, 2], (1,)):
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar.*"
                           + type(element).__name__):
            element in t
    with pytest.raises(pdt.InvalidArgumentError, match="size"):
        pdt.tensor([1, 2, 3], device=device) in pdt.ones(2, 2, device=device)
