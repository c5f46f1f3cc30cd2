"""Instance attributes on tensors (t.tag = ...), as PyTorch's tensors take them: set, read,
deleted, carried by copies and pickles, freed with cycles through them.  See Note [a
tensor's __dict__] in csrc/python/tensor_object.c."""
import copy
import gc
import pickle
import weakref

import pytest

import pydevtensor as pdt
from pydevtensor import nn


def test_attributes_are_set_read_and_deleted(device):
    t = pdt.arange(3.0, device=device)
    assert t.__dict__ == {}
    t.tag = "input"
    t.scale = 2
    assert (t.tag, t.scale) == ("input", 2)
    assert t.__dict__ == {"tag": "input", "scale": 2}
    del t.tag
    with pytest.raises(AttributeError, match="tag"):
        t.tag
    with pytest.raises(AttributeError):
        del t.tag
    # each tensor has its own: a view or a result does not share them
    v = t[1:]
    assert not hasattr(v, "scale") and not hasattr(t * 2, "scale")


def test_attributes_do_not_shadow_the_tensors_own(device):
    t = pdt.ones(2, device=device)
    with pytest.raises(AttributeError):
        t.shape = (3,)
    with pytest.raises(AttributeError):
        t.device = "cpu"
    t.requires_grad = True  # a property, not an entry of __dict__
    assert "requires_grad" not in t.__dict__
    t.sum = 5  # an attribute over a method, as Python objects allow
    assert t.sum == 5 and pdt.Tensor.sum(t).item() == 2.0


def test_the_dict_can_be_replaced(device):
    t = pdt.ones(2, device=device)
    t.__dict__ = {"a": 1}
    assert t.a == 1
    with pytest.raises(TypeError):
        t.__dict__ = [1]


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copies_carry_the_attributes(device, how):
    t = pdt.arange(4.0, device=device)
    t.tag = ["input"]
    c = {"copy": copy.copy, "deepcopy": copy.deepcopy,
         "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](t)
    assert c.tag == ["input"]
    assert (c.tag is t.tag) == (how == "copy")  # deepcopy and pickle copy the value
    c.tag.append(1)
    assert t.tag == (["input", 1] if how == "copy" else ["input"])


def test_parameters_keep_attributes_through_module_to(device):
    net = nn.Linear(2, 3)
    net.weight.no_decay = True
    net.to(device)
    net.to(pdt.float64)
    assert net.weight.no_decay is True


class _Holder:
    pass


def test_a_cycle_through_an_attribute_is_collected(device):
    t = pdt.ones(1000, device=device)
    h = _Holder()
    t.holder, h.t = h, t
    gone = weakref.ref(h)
    del t, h
    gc.collect()
    assert gone() is None
