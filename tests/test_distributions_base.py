"""The base Distribution as PyTorch's: no support, no arg_constraints (a warning at
construction, an error from repr), _get_checked_instance, and expand only on
pydevtensor's own distributions and their subclasses that keep their __init__."""
import warnings

import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D


def test_base_has_no_support_nor_arg_constraints():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d = D.Distribution()
    assert any("arg_constraints" in str(x.message) for x in w)
    with pytest.raises(NotImplementedError):
        d.support
    with pytest.raises(NotImplementedError):
        repr(d)
    with pytest.raises(NotImplementedError):
        d.arg_constraints
    # with validation off there is nothing to warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.Distribution(validate_args=False)


def test_expand_of_subclasses(device):
    class Own(D.Distribution):
        arg_constraints = {}

    with pytest.raises(NotImplementedError):
        Own().expand((2,))

    class SameInit(D.Normal):
        pass

    d = SameInit(pdt.zeros(1, device=device), 1.0).expand((3,))
    assert type(d) is SameInit and tuple(d.batch_shape) == (3,)
    assert tuple(d.loc.shape) == (3,)

    class OwnInit(D.Normal):
        def __init__(self, scale):
            super().__init__(pdt.zeros(1, device=device), scale)

    with pytest.raises(NotImplementedError, match="custom .expand"):
        OwnInit(1.0).expand((3,))
    # an instance handed in is filled, as PyTorch's subclasses do in their expand
    base = OwnInit(2.0)
    new = base.expand((3,), _instance=OwnInit.__new__(OwnInit))
    assert type(new) is OwnInit and float(new.scale[0]) == 2.0


def test_get_checked_instance(device):
    d = D.Exponential(pdt.ones(2, device=device))
    assert type(d._get_checked_instance(D.Exponential)) is D.Exponential
    inst = D.Exponential.__new__(D.Exponential)
    assert d._get_checked_instance(D.Exponential, inst) is inst
    m = D.MultivariateNormal(pdt.zeros(2, device=device), pdt.eye(2, device=device))
    assert tuple(m.expand((4,)).batch_shape) == (4,)
    i = D.Independent(D.Normal(pdt.zeros(3, device=device), 1.0), 1)
    assert tuple(i.expand((5,)).batch_shape) == (5,)
