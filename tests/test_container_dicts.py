"""ModuleDict and ParameterDict as PyTorch's: the order a ParameterDict takes a mapping's
members in, reversed(), popitem, fromkeys, |, |=, and one container built or updated
from another."""
import pickle
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


def test_parameter_containers_keep_values_that_are_not_tensors(device):
    """As PyTorch's: an int, a string, None or an object is kept as it is (not a
    parameter: not in parameters() nor state_dict(), not moved by .to()), in order with
    the Parameters; a value that is not a Tensor cannot replace a Parameter."""
    t = pdt.ones(2, device=device)
    ps = nn.ParameterList([1, "s", t, None])
    assert list(ps)[:2] == [1, "s"] and ps[3] is None and isinstance(ps[2], nn.Parameter)
    assert list(ps.state_dict()) == ["2"] and len(list(ps.parameters())) == 1
    ps.append(object).extend([2.5])
    ps[0] = pdt.zeros(1, device=device)  # a plain value may become a Parameter
    assert isinstance(ps[0], nn.Parameter) and ps[4] is object and ps[-1] == 2.5
    assert list(ps.state_dict()) == ["2", "0"]  # registered in that order, as PyTorch's
    with pytest.raises(TypeError, match="cannot assign int to parameter '2'"):
        ps[2] = 3
    ps[2] = None  # None empties a parameter's slot, as PyTorch's
    assert ps[2] is None and list(ps.state_dict()) == ["0"]
    assert "(1): Object of type: str" in repr(ps) and "(2): Object of type: NoneType" in repr(ps)
    pd = nn.ParameterDict({"n": 3, "w": t, "training": "x"})
    assert pd["n"] == 3 and pd["training"] == "x" and pd.training is True
    assert list(pd) == ["n", "training", "w"] and list(pd.state_dict()) == ["w"]
    pd.update([("n", [1, 2])])
    assert pd.setdefault("m", 4) == 4 and pd.pop("n") == [1, 2] and list(pd) == [
        "training", "w", "m"]
    assert pd.popitem() == ("m", 4) and "m" not in pd
    with pytest.raises(TypeError, match="cannot assign str to parameter 'w'"):
        pd.update({"a": 1, "w": "no"})
    assert "a" not in pd and isinstance(pd["w"], nn.Parameter)  # all checked first
    copy = pickle.loads(pickle.dumps(pd))
    assert copy["training"] == "x" and list(copy.state_dict()) == ["w"]


def test_parameter_list_extend_refuses_a_tensor():
    ps = nn.ParameterList()
    for bad in (pdt.ones(3), 5):
        with pytest.raises(TypeError, match="ParameterList.extend should be called with an "
                                            f"iterable, but got {type(bad).__name__}"):
            ps.extend(bad)
    assert len(ps) == 0


@pytest.mark.parametrize("kind", [nn.ModuleDict, nn.ParameterDict])
def test_update_with_an_item_that_is_not_a_pair(kind):
    # PyTorch's (and dict.update's): not iterable a TypeError, a wrong length a ValueError
    d = kind()
    with pytest.raises(TypeError, match=r"element 0 is a int, not a \(key, value\) pair"):
        d.update([3])
    for bad in [("a", nn.ReLU(), 3), ("a",)]:
        with pytest.raises(ValueError, match=rf"element 1 has length {len(bad)}; 2 is required"):
            d.update([("b", nn.Tanh() if kind is nn.ModuleDict else 1.0), bad])
        assert len(d) == 0  # nothing added
