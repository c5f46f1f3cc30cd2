"""ModuleDict and ParameterDict as PyTorch's: the order a ParameterDict takes a mapping's
members in, reversed(), popitem, fromkeys, |, |=, and one container built or updated
from another."""
from collections import OrderedDict

import pytest

import pydevtensor as pdt
from pydevtensor import nn


def _p(device, v=1.0):
    return nn.Parameter(pdt.full((2,), v, device=device))


def test_parameter_dict_sorts_a_plain_mapping(device):
    """PyTorch's ParameterDict adds a plain dict's members in sorted key order, an
    OrderedDict's, a ParameterDict's and a list of pairs' in theirs; ModuleDict keeps
    a dict's order."""
    assert list(nn.ParameterDict({"b": _p(device), "a": _p(device)})) == ["a", "b"]
    ordered = OrderedDict([("b", _p(device)), ("a", _p(device))])
    assert list(nn.ParameterDict(ordered)) == ["b", "a"]
    assert list(nn.ParameterDict(list(ordered.items()))) == ["b", "a"]
    pd = nn.ParameterDict({"z": _p(device)})
    pd.update({"b": _p(device), "a": _p(device)})
    assert list(pd) == ["z", "a", "b"] and list(pd.state_dict()) == ["z", "a", "b"]
    assert list(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})) == ["b", "a"]


def test_reversed_gives_the_keys_backwards(device):
    pd = nn.ParameterDict([("a", _p(device)), ("c", _p(device)), ("b", _p(device))])
    assert list(reversed(pd)) == ["b", "c", "a"]
    assert list(reversed(nn.ModuleDict([("y", nn.ReLU()), ("x", nn.ReLU())]))) == ["x", "y"]


def test_popitem_and_fromkeys(device):
    a, b = _p(device, 1.0), _p(device, 2.0)
    pd = nn.ParameterDict([("a", a), ("b", b)])
    key, value = pd.popitem()
    assert key == "b" and value is b and list(pd) == ["a"]
    assert list(pd.parameters()) == [a]
    pd.popitem()
    with pytest.raises(KeyError, match="dictionary is empty"):
        pd.popitem()
    t = pdt.zeros(3, device=device)
    made = pd.fromkeys(["w", "v"], t)
    assert type(made) is nn.ParameterDict and list(made) == ["w", "v"] and len(pd) == 0
    assert all(isinstance(p, nn.Parameter) and p.tolist() == [0.0] * 3 for p in made.values())
    made["w"].data.fill_(5.0)  # each Parameter shares t's storage, as PyTorch's
    assert t.tolist() == [5.0] * 3 and made["v"].tolist() == [5.0] * 3
    assert list(nn.ParameterDict().fromkeys("xy").items()) == [("x", None), ("y", None)]


def test_or_ror_and_ior(device):
    a1, b1, a2, c = (_p(device, v) for v in (1.0, 2.0, 3.0, 4.0))
    left = nn.ParameterDict({"a": a1})
    right = nn.ParameterDict(OrderedDict([("b", b1), ("a", a2)]))
    both = left | right
    assert type(both) is nn.ParameterDict and list(both) == ["a", "b"]
    assert both["a"] is a2 and both["b"] is b1 and left["a"] is a1  # left unchanged
    assert list(left | {"c": c}) == ["a", "c"]
    out = {"c": c} | left  # a dict on the left stays a dict
    assert type(out) is dict and list(out) == ["c", "a"] and out["a"] is a1
    same = left
    left |= {"z": _p(device), "b": b1}
    assert left is same and list(left) == ["a", "b", "z"]
    with pytest.raises(TypeError):
        left | 3


def test_container_from_or_updated_with_a_container(device):
    md = nn.ModuleDict(OrderedDict([("b", nn.ReLU()), ("a", nn.Tanh())]))
    copy_ = nn.ModuleDict(md)
    assert list(copy_) == ["b", "a"] and copy_["a"] is md["a"]
    other = nn.ModuleDict({"x": nn.ReLU()})
    other.update(md)
    assert list(other) == ["x", "b", "a"]
    pd = nn.ParameterDict(OrderedDict([("b", _p(device)), ("a", _p(device))]))
    assert list(nn.ParameterDict(pd)) == ["b", "a"]
    assert nn.ParameterDict(pd)["a"] is pd["a"]
    target = nn.ParameterDict()
    target.update(pd)
    assert list(target) == ["b", "a"]
