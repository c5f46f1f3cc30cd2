"""Sequential and ModuleList edits (extend, append, insert, pop, del with an index or a
slice, +, +=, item assignment) and nn.Identity's ignored arguments, against torch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn


def _names(lib, m):
    return [(k, type(v).__name__) for k, v in m._modules.items()]


def _edits(lib, cls):
    nn_ = lib.nn
    seq = getattr(nn_, cls)([nn_.ReLU(), nn_.Tanh()]) if cls == "ModuleList" else \
        nn_.Sequential(nn_.ReLU(), nn_.Tanh())
    out = []
    seq.extend([nn_.Sigmoid(), nn_.Identity()])
    out.append(_names(lib, seq))
    seq.append(nn_.ELU())
    seq.insert(1, nn_.GELU())
    seq.insert(-1 if cls == "Sequential" else len(seq) - 1, nn_.SiLU())  # torch: ModuleList
    # .insert(-1) raises KeyError
    out.append(_names(lib, seq))
    del seq[0]
    out.append(_names(lib, seq))
    del seq[1:3]
    out.append(_names(lib, seq))
    out.append(type(seq.pop(1)).__name__)
    out.append(_names(lib, seq))
    both = seq + seq
    out.append((type(both).__name__, _names(lib, both), both[0] is seq[0]))
    seq += [nn_.ReLU()] if cls == "ModuleList" else nn_.Sequential(nn_.ReLU())
    out.append(_names(lib, seq))
    seq[0] = nn_.Softplus()
    out.append(_names(lib, seq))
    return out


@pytest.mark.parametrize("cls", ["Sequential", "ModuleList"])
def test_edits_match_torch(cls):
    torch = torch_or_skip()
    assert _edits(pdt, cls) == _edits(torch, cls)


def test_edited_sequential_runs_and_trains(device):
    seq = nn.Sequential(nn.Linear(2, 3, device=device))
    seq.extend([nn.ReLU(), nn.Linear(3, 1, device=device)])
    del seq[1]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "1.weight",
                                                      "1.bias"]
    seq(pdt.ones(4, 2, device=device)).sum().backward()
    assert seq[1].weight.grad is not None


def test_bad_edits():
    seq = nn.Sequential(nn.ReLU())
    with pytest.raises(IndexError, match=r"Sequential.insert: index 5 is out of range for a "
                                         r"Sequential of 1"):
        seq.insert(5, nn.Tanh())
    with pytest.raises(TypeError, match="Sequential.extend: expected an nn.Module, got int"):
        seq.extend([nn.Tanh(), 3])
    assert len(seq) == 1  # nothing was added
    with pytest.raises(IndexError):
        del seq[3]
    for other in (nn.ModuleList(), [nn.Tanh()]):  # PyTorch's: a Sequential only
        with pytest.raises(ValueError, match="add operator supports only objects of "
                                             "Sequential class, but <class '"):
            nn.Sequential() + other
        with pytest.raises(ValueError, match="supports only objects of Sequential class"):
            seq += other
    assert len(seq) == 1 and len(nn.ModuleList() + [nn.Tanh()]) == 1
    seq += nn.Sequential(nn.Tanh())
    assert len(seq) == 2
    with pytest.raises(TypeError, match="ModuleList.__add__: expected an nn.Module, got int"):
        nn.ModuleList() + [3]


def test_identity_takes_any_arguments():
    torch = torch_or_skip()
    assert repr(nn.Identity(54, unused="x")) == repr(torch.nn.Identity(54, unused="x"))
    assert nn.Identity(1, a=2)(pdt.ones(2)).tolist() == [1.0, 1.0]


def test_parameter_dict_get_setdefault_copy_and_list_iadd():
    """ParameterDict's get, setdefault and copy, and ParameterList's +=, as PyTorch's:
    what they add is registered (parameters(), state_dict())."""
    pd = nn.ParameterDict({"a": pdt.ones(1)})
    assert pd.get("a") is pd["a"] and pd.get("z") is None and pd.get("z", 3) == 3
    b = pd.setdefault("b", pdt.zeros(2))
    assert isinstance(b, nn.Parameter) and pd["b"] is b and pd.setdefault("b") is b
    assert list(pd.state_dict()) == ["a", "b"]
    c = pd.copy()
    assert type(c) is nn.ParameterDict and c["a"] is pd["a"] and list(c) == ["a", "b"]
    c["x"] = pdt.ones(3)
    assert "x" not in pd
    pl = nn.ParameterList([pdt.ones(1)])
    same = pl
    pl += [pdt.zeros(2), pdt.zeros(3)]
    assert pl is same and len(pl) == 3 and len(list(pl.parameters())) == 3


@pytest.mark.parametrize("cls", ["Sequential", "ModuleList"])
def test_any_integer_indexes(device, cls):
    """Anything with __index__ (a NumPy integer, a 0-d integer tensor, a bool) is a
    position, as PyTorch's operator.index; a float is not."""
    mods = [nn.ReLU(), nn.Tanh(), nn.Sigmoid()]
    seq = nn.Sequential(*mods) if cls == "Sequential" else nn.ModuleList(mods)
    assert seq[np.int64(1)] is mods[1] and seq[pdt.tensor(-1, device=device)] is mods[2]
    assert seq[True] is mods[1]
    with pytest.raises(TypeError):
        seq[1.0]
    seq[np.int32(0)] = nn.ELU()
    del seq[pdt.tensor(1, device=device)]
    assert [type(m).__name__ for m in seq] == ["ELU", "Sigmoid"]


def test_sequential_times_n_repeats_the_same_modules(device):
    lin, act = nn.Linear(2, 2).to(device), nn.Tanh()
    seq = nn.Sequential(lin, act)
    for twice in (seq * 2, 2 * seq):
        assert type(twice) is nn.Sequential and list(twice._modules) == ["0", "1", "2", "3"]
        assert twice[0] is lin and twice[2] is lin and twice[3] is act
        assert len(list(twice.parameters())) == 2  # shared, counted once
    x = pdt.ones(1, 2, device=device)
    np.testing.assert_allclose((seq * 2)(x).detach().cpu().numpy(),
                               seq(seq(x)).detach().cpu().numpy())
    same = seq
    seq *= 3
    assert seq is same and len(seq) == 6 and seq[4] is lin and seq[5] is act
    assert len(nn.Sequential(act) * True) == 1
    for bad in (0, -1):
        with pytest.raises(ValueError, match=f"Non-positive multiplication factor {bad}"):
            seq * bad
    with pytest.raises(ValueError):
        seq *= 0
    for bad in (2.0, np.int64(2)):  # PyTorch's: an int only
        with pytest.raises(TypeError, match="for \\*: 'Sequential' and"):
            seq * bad
    assert len(seq) == 6


def test_pop_of_a_slice_and_module_list_plus_an_iterable():
    mods = [nn.ReLU(), nn.Tanh(), nn.Sigmoid()]
    ml = nn.ModuleList(mods)
    popped = ml.pop(slice(0, 2))
    assert type(popped) is nn.ModuleList and list(popped) == mods[:2]
    assert list(ml) == mods[2:] and list(ml._modules) == ["0"]
    seq = nn.Sequential(*mods)
    popped = seq.pop(slice(1, None))
    assert type(popped) is nn.Sequential and list(popped) == mods[1:] and list(seq) == mods[:1]
    assert ml.pop(np.int64(0)) is mods[2] and len(ml) == 0
    ml = nn.ModuleList(mods[:1])
    for other in ([mods[1]], (mods[1],), nn.Sequential(mods[1]), nn.ModuleList([mods[1]])):
        both = ml + other
        assert type(both) is nn.ModuleList and list(both) == mods[:2] and len(ml) == 1
        assert list(both._modules) == ["0", "1"]
